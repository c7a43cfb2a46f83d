import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Outputs are complete or absent: a killed writer leaves nothing in the output folder, and a
/// failed write says why in the system's words.
@Suite struct WriteE2ETests {
    /// Every entry of `dir`, hidden ones included.
    static func entries(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// The paths a running process has open, from /proc.
    static func openPaths(_ pid: Int32) -> [String] {
        let fdDir = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: fdDir)) ?? []).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: fdDir + "/" + $0)
        }
    }

    @Test func killNineDuringAWriteLeavesNothingBehind() throws {
        let dir = E2E.tempDir("kill9")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -30, seconds: 20, rate: 48000)
        try E2E.write(dir + "/long.wav", rate: 48000, channels: [s, s])
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = E2E.binDir.appendingPathComponent("lufs-normalize")
        p.arguments = ["--target", "-16", "--out-dir", out, dir + "/long.wav"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until the output is open for writing, then kill the writer without warning.
        var sawOutput = false
        for _ in 0..<60_000 where p.isRunning {
            if Self.openPaths(p.processIdentifier).contains(where: { $0.hasPrefix(out + "/") }) { sawOutput = true; break }
            usleep(500)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(sawOutput, "lufs-normalize ended before its output was seen open")
        #expect(Self.entries(out) == [], "left behind: \(Self.entries(out))")
    }

    @Test func aLaterRunRemovesPartialFilesWhoseWriterIsGone() throws {
        let dir = E2E.tempDir("leftovers")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -30, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s])
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // A writer that no longer runs (no process has this id), and one that still does (this test).
        let dead = ".old.wav.partial-2147483646-12345"
        let alive = ".busy.wav.partial-\(getpid())-777"
        let fresh = ".new.wav.partial-2147483645-12345"  // no such process, but written to a moment ago
        for name in [dead, alive, fresh, ".not-ours.partial", "keep.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/" + name))
            if name != fresh {
                // Unchanged for an hour.
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: out + "/" + name)
            }
        }
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", out, dir + "/a.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.entries(out) == [".busy.wav.partial-\(getpid())-777", fresh, ".not-ours.partial", "a.wav", "keep.txt"])
    }

    @Test func aFailedWriteSaysWhyInTheSystemsWords() throws {
        let dir = E2E.tempDir("write-failed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -30, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s])
        // The output folder can't be made: a plain file sits where a folder above it should be.
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/blocker"))
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/blocker/out", dir + "/a.wav"])
        #expect(r.status == 1)
        let e = try #require(r.records.first?["error"])
        #expect(e["code"]?.stringValue == "write-failed", "\(e)")
        #expect(e["message"]?.stringValue?.contains("Not a directory") == true, "\(e)")
        #expect(e["message"]?.stringValue?.contains("\u{201C}") == true)
    }
}
