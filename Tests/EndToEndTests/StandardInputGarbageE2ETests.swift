import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Bytes that are not audio, piped in as `-`: every tool's error names `-` (standard input), never
/// the temporary file a tool keeps the input in, nor ffmpeg's name for its pipe; nothing is left.
@Suite struct StandardInputGarbageE2ETests {
    func sh(_ line: String, in dir: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let env = ["PATH": E2E.binDir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "TMPDIR": dir + "/tmp"]
        let r = try E2E.program("/bin/sh", ["-c", "cd '\(dir)' && " + line], environment: env)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// Random bytes, alone and behind the signatures that send a pipe to each reader: the tool's
    /// own WAV reader, ffmpeg (FLAC, Ogg), and what is kept in a file first (MP4 boxes).
    static let garbage: [(name: String, printf: String)] = [
        ("random", ""), ("flac", "fLaC"), ("ogg", "OggS"), ("wav", "RIFF\\044\\000\\000\\000WAVEfmt "),
        ("mp4", "\\000\\000\\000\\040ftypisom"),
    ]

    /// The error of a failed record: its message names `-`, and nothing of where the bytes were kept.
    func expectNamesStandardInput(_ out: String, _ what: String, dir: String) throws {
        let record = try #require(try? JSON.parse(String(out.split(separator: "\n").first ?? "")), "\(what): a record: \(out)")
        #expect(record["path"]?.stringValue == "-", "\(what)")
        let message = try #require(record["error"]?["message"]?.stringValue, "\(what): an error: \(out)")
        #expect(message.hasPrefix("“-”"), "\(what): \(message)")
        for leak in ["audio-tools-stdin", "pipe:0", dir, "stdin.", "/tmp"] {
            #expect(!out.contains(leak), "\(what) names \(leak): \(out)")
        }
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg, which reads the FLAC and Ogg pipes"))
    func garbageOnStandardInputIsNamedAsStandardInput() throws {
        let dir = E2E.tempDir("stdin-garbage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/tmp", withIntermediateDirectories: true)
        try E2E.write(dir + "/ref.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 2, rate: 48000)])
        try Data("taken".utf8).write(to: URL(fileURLWithPath: dir + "/taken.wav"))
        for g in Self.garbage {
            let bytes = "{ printf '\(g.printf)'; head -c 6000 /dev/urandom; }"
            let measured = try sh("\(bytes) | lufs-measure -", in: dir)
            #expect(measured.status == 1, "lufs-measure, \(g.name): \(measured.stderr)")
            try expectNamesStandardInput(measured.stdout, "lufs-measure, \(g.name)", dir: dir)
            // lufs-normalize keeps the input in a file beside the output (it reads it twice).
            let normalized = try sh("\(bytes) | lufs-normalize --target -16 --output out.wav -", in: dir)
            #expect(normalized.status == 1, "lufs-normalize, \(g.name): \(normalized.stderr)")
            try expectNamesStandardInput(normalized.stdout, "lufs-normalize, \(g.name)", dir: dir)
            let probed = try sh("\(bytes) | audio-probe -", in: dir)
            try expectNamesStandardInput(probed.stdout, "audio-probe, \(g.name)", dir: dir)
            let aligned = try sh("\(bytes) | vo-align --reference ref.wav --out-dir aligned -", in: dir)
            try expectNamesStandardInput(aligned.stdout, "vo-align, \(g.name)", dir: dir)
        }
        // A refusal about the output names the input as given too.
        let exists = try sh("cat ref.wav | lufs-normalize --target -16 --output taken.wav -", in: dir)
        #expect(exists.status == 1)
        let message = try JSON.parse(String(exists.stdout.split(separator: "\n").first ?? ""))["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("“taken.wav” already exists, so “-” was not normalised into it"), "\(message)")
        // No temporary file is left, beside the output or in the temporary folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["ref.wav", "taken.wav", "tmp"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/tmp").isEmpty)
    }
}
