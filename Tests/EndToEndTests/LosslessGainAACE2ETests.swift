import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize --lossless-gain on AAC-LC made by ffmpeg (ADTS and M4A; video files with several
/// audio streams in LosslessGainAACTracksE2ETests): the decoded output is the decoded input times
/// the gain, sample for sample; every byte outside the changed samples is kept; HE-AAC is refused.
@Suite(.serialized) struct LosslessGainAACE2ETests {
    typealias L = LosslessGainE2ETests
    static let ready = E2E.has("ffmpeg")

    static let kinds: [(name: String, channels: Int, args: [String])] = [
        ("stereo.aac", 2, ["-c:a", "aac", "-b:a", "128k"]),
        ("mono.aac", 1, ["-c:a", "aac", "-b:a", "64k", "-ar", "22050"]),
        ("surround.aac", 6, ["-c:a", "aac", "-b:a", "320k"]),
        ("stereo.m4a", 2, ["-c:a", "aac", "-b:a", "160k"]),
        ("mono.m4a", 1, ["-c:a", "aac", "-b:a", "96k"]),
    ]

    /// ffmpeg's warnings decoding `path` (stream `map`), less the one every ADTS file gets.
    static func warnings(_ path: String, map: String = "0:a:0") throws -> String {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "warning", "-i", path, "-map", map, "-f", "null", "-"])
        return r.stderr.split(separator: "\n").filter { !$0.contains("Estimating duration from bitrate") }.joined(separator: "\n")
    }

    /// The MD5 of one stream's packets, copied out.
    static func packets(_ path: String, _ map: String) throws -> String {
        try L.tool(["ffmpeg", "-v", "error", "-i", path, "-map", map, "-c", "copy", "-f", "md5", "-"])
    }

    static func decode(_ path: String, _ map: String) throws -> [Float] {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-map", map, "-f", "f32le", "-"])
        #expect(r.status == 0 && r.stderr.isEmpty, "ffmpeg decoding \(path): \(r.stderr)")
        return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: 0..<5)
    func aacGainIsExact(kind: Int) throws {
        let (name, channels, args) = Self.kinds[kind]
        let dir = E2E.tempDir("lossless-aac")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.make(dir + "/" + name, args, channels: channels)
        let rec = try L.normalize(dir, name, ["--target", "-16", "--out-dir", dir + "/out"])
        let n = rec["normalized"]
        let steps = try #require(n?["lossless_gain"]?["steps"]?.intValue)
        #expect(n?["codec"]?.stringValue == "aac")
        #expect(steps > 4, "the material is quiet, so it takes a gain: \(rec)")
        #expect(n?["aac"]?["channel_streams"]?.intValue == (n?["aac"]?["blocks"]?.intValue ?? 0) * channels)
        let out = dir + "/out/" + name
        let x = try L.decode(dir + "/" + name), y = try L.decode(out)
        #expect(x.count == y.count && x.count > 0)
        #expect(L.residual(x, y, gainDB: Double(steps) * AACGlobalGain.stepDB) <= 1e-3)
        #expect(try Self.warnings(out).isEmpty)
        let a = try #require(FileManager.default.contents(atPath: dir + "/" + name))
        let b = try #require(FileManager.default.contents(atPath: out))
        if n?["aac"]?["container"]?.stringValue == "adts" {
            // Only the audio's bytes change.
            #expect(a.count == b.count)
            let changed = zip(a, b).reduce(0) { $0 + ($1.0 != $1.1 ? 1 : 0) }
            #expect(changed > 0)
        } else {
            // An M4A also gets its undo record (the metadata grows; LosslessGainUndoE2ETests).
            #expect(n?["aac"]?["undo"]?.stringValue == "\(-steps),\(-steps)")
        }
    }

    /// An M4A whose AudioSpecificConfig says HE-AAC (object type 5) is refused with the reason
    /// before anything is measured or written; ffmpeg's own encoder makes no HE-AAC, so the
    /// configuration of an AAC-LC file is rewritten to say so.
    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func heAACIsRefusedWithTheReason() throws {
        let dir = E2E.tempDir("lossless-heaac")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.make(dir + "/lc.m4a", ["-c:a", "aac", "-ar", "44100"], channels: 2)
        var bytes = try #require(FileManager.default.contents(atPath: dir + "/lc.m4a"))
        // The esds's DecoderSpecificInfo (tag 5, length in four bytes as ffmpeg writes it) starts
        // with the object type, 2 (AAC-LC, 0x12 at 44.1 kHz): made 5 (SBR), 0x2A.
        let esds = try #require(bytes.range(of: Data("esds".utf8)))
        let dsi = try #require(bytes.range(of: Data([0x05, 0x80, 0x80, 0x80]), in: esds.upperBound..<bytes.endIndex))
        #expect(bytes[dsi.upperBound + 1] == 0x12)
        bytes[dsi.upperBound + 1] = 0x2A
        #expect(FileManager.default.createFile(atPath: dir + "/he.m4a", contents: bytes))
        let r = try E2E.run("lufs-normalize", ["--lossless-gain", "--target", "-16", "--out-dir", dir + "/out", dir + "/he.m4a"])
        let error = (r.records.first ?? .null)["error"]
        #expect(error?["code"]?.stringValue == "unsupported-codec", "\(r.records)")
        #expect(error?["message"]?.stringValue?.contains("HE-AAC") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/he.m4a"))
    }

    /// --dry-run writes nothing (the refusal's suggestion without --lossless-gain is tested in
    /// LosslessGainAACTracksE2ETests).
    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: ["a.aac", "a.m4a"])
    func dryRunWritesNothing(name: String) throws {
        let dir = E2E.tempDir("lossless-aac-dry")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.make(dir + "/" + name, ["-c:a", "aac"], channels: 2)
        let rec = try L.normalize(dir, name, ["--target", "-18", "--dry-run", "--out-dir", dir + "/out"])
        #expect(rec["normalized"]?["dry_run"]?.boolValue == true)
        #expect(rec["normalized"]?["lossless_gain"]?["steps"]?.intValue != nil)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/" + name))
    }
}
