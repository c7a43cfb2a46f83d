import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// vo-align checks every output it will write (the aligned take and the mix) before writing any:
/// a refusal leaves nothing new behind.
@Suite("vo-align checks its outputs before writing")
struct VoAlignWriteOrderE2ETests {
    /// A 2 s reference and a 1 s take of noise at 48 kHz, placed by a known latency (no search).
    func material(_ dir: String) throws -> [String] {
        var rng = SplitMix64(seed: 28)
        let ref = (0..<96_000).map { _ in Float(0.1 * rng.gaussian()) }
        let take = (0..<48_000).map { _ in Float(0.1 * rng.gaussian()) }
        try E2E.write(dir + "/backing.wav", rate: 48000, channels: [ref, ref], codec: "pcm_s16")
        try E2E.write(dir + "/take1.wav", rate: 48000, channels: [take], codec: "pcm_s16")
        return ["--reference", dir + "/backing.wav", "--latency-ms", "20", "--start-at", "0.5",
                "--out-dir", dir + "/aligned", "--mix", dir + "/mix-{stem}.wav", dir + "/take1.wav"]
    }

    @Test("An existing mix: refused as exists, and the aligned take is not written either")
    func existingMix() throws {
        let dir = E2E.tempDir("voalign-order"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let args = try material(dir)
        try Data("an earlier mix".utf8).write(to: URL(fileURLWithPath: dir + "/mix-take1.wav"))
        let r = try E2E.run("vo-align", args)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let error = r.records.first?["error"]
        #expect(error?["code"]?.stringValue == "exists")
        #expect(error?["message"]?.stringValue?.contains("mix-take1.wav") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/aligned/take1.wav"))
        #expect(try String(contentsOfFile: dir + "/mix-take1.wav", encoding: .utf8) == "an earlier mix")
    }

    @Test("An existing aligned take: refused as exists, and the mix is not written")
    func existingTake() throws {
        let dir = E2E.tempDir("voalign-order"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let args = try material(dir)
        try FileManager.default.createDirectory(atPath: dir + "/aligned", withIntermediateDirectories: true)
        try Data("an earlier take".utf8).write(to: URL(fileURLWithPath: dir + "/aligned/take1.wav"))
        let r = try E2E.run("vo-align", args)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.records.first?["error"]?["code"]?.stringValue == "exists")
        #expect(!FileManager.default.fileExists(atPath: dir + "/mix-take1.wav"))
        #expect(try String(contentsOfFile: dir + "/aligned/take1.wav", encoding: .utf8) == "an earlier take")
    }

    @Test("Neither exists: both are written; with --overwrite both are replaced")
    func bothWritten() throws {
        let dir = E2E.tempDir("voalign-order"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let args = try material(dir)
        let r = try E2E.run("vo-align", args)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/aligned/take1.wav"))
        #expect(FileManager.default.fileExists(atPath: dir + "/mix-take1.wav"))
        let again = try E2E.run("vo-align", args + ["--overwrite"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
    }
}
