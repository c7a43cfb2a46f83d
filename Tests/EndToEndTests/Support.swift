import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Runs the built executables the way a user would and reads their JSON lines.
enum E2E {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var records: [JSON] {
            stdout.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
        }
    }

    /// The folder holding the built tools: next to the test bundle (`swift test` builds them there).
    static let binDir: URL = {
        if let env = ProcessInfo.processInfo.environment["AUDIO_TOOLS_BIN"] { return URL(fileURLWithPath: env) }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("lufs-measure").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug")
    }()

    /// The header of a 32-bit float RF64 file of `frames` frames, for a sparse file that claims
    /// more audio than a test can write (its data follows, or a truncate makes the size).
    static func rf64FloatHeader(frames: UInt64, channels: UInt64, rate: UInt32) -> [UInt8] {
        let dataBytes = frames * channels * 4
        var h: [UInt8] = []
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { h += $0 } }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { h += $0 } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { h += $0 } }
        h += Array("RF64".utf8); u32(0xFFFF_FFFF); h += Array("WAVE".utf8)
        h += Array("ds64".utf8); u32(28); u64(dataBytes + 72); u64(dataBytes); u64(frames); u32(0)
        h += Array("fmt ".utf8); u32(16); u16(3); u16(UInt16(channels)); u32(rate); u32(rate * UInt32(channels) * 4)
        u16(UInt16(channels) * 4); u16(32)
        h += Array("data".utf8); u32(0xFFFF_FFFF)
        return h
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func run(_ tool: String, _ args: [String], stdin: String? = nil, environment: [String: String]? = nil) throws -> Run {
        signal(SIGPIPE, SIG_IGN)  // a tool that exits early must not take the test runner with it
        let p = Process()
        p.executableURL = binDir.appendingPathComponent(tool)
        p.arguments = args
        if let environment { p.environment = environment }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let inPipe = Pipe()
        p.standardInput = inPipe
        try p.run()
        let writer = Thread {
            if let stdin { try? inPipe.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        // stderr is drained on its own thread so a tool that writes a lot there can't block.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let errReader = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errReader.isFinished { usleep(1000) }
        return Run(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Runs any program (ffmpeg, ffprobe, a shell line) with stdin closed; stderr is drained on
    /// its own thread, so a chatty program can't block on either pipe. Foundation's Process, not
    /// ChildProcess, so tests that check this process's own children are not disturbed.
    static func program(_ executable: String, _ args: [String], environment: [String: String]? = nil,
                        directory: String? = nil) throws -> (status: Int32, stdout: Data, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let errReader = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errReader.isFinished { usleep(1000) }
        return (p.terminationStatus, data, String(decoding: errBox.data, as: UTF8.self))
    }

    /// A fresh folder for one test, removed by the caller's defer.
    static func tempDir(_ label: String = "e2e") -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("audio-tools-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Writes planar samples to `path` through libsndfile (e.g. container "wav", codec "pcm_s24").
    static func write(_ path: String, rate: Int, channels: [[Float]], container: String = "wav", codec: String = "pcm_s24") throws {
        let sink = try SndfileSink(path: path, formatCode: SndfileSink.formatCode(container: container, codec: codec)!,
                                   sampleRate: rate, channelCount: channels.count, overwrite: true)
        try sink.write(AudioBlock(channels: channels, frames: channels[0].count))
        try sink.commit()
    }

    static func sine(_ freq: Double, dBFS: Double, seconds: Double, rate: Int) -> [Float] {
        let a = pow(10, dBFS / 20)
        return (0..<Int(seconds * Double(rate))).map { Float(a * sin(2 * .pi * freq * Double($0) / Double(rate))) }
    }

    /// Whether an external program is installed; tests that need it say so when it is not.
    static func has(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }
}
