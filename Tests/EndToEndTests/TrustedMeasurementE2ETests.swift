import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// No wrong measurement is applied: an edit whose modification time was put back is stale, a
/// damaged cached value is measured again, a record whose figure is wrong fails the check of the
/// written file; and records survive jq.
@Suite struct TrustedMeasurementE2ETests {
    static let hasJq = E2E.has("jq")

    /// A 4-second 24-bit mono tone at −20 dBFS (−23.69 LUFS), and its lufs-measure record.
    static func measured(_ dir: String) throws -> (file: String, record: String) {
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 44_100, channels: [E2E.sine(440, dBFS: -20, seconds: 4, rate: 44_100)])
        let m = try E2E.run("lufs-measure", [f])
        #expect(m.status == 0, "\(m.stderr)")
        return (f, m.stdout)
    }

    static func touch(_ args: [String]) throws {
        #expect(try E2E.program("/usr/bin/env", ["touch"] + args).status == 0)
    }

    /// The record with its `loudness` changed by `edit`.
    static func edited(_ line: String, _ edit: (inout [String: JSON]) -> Void) throws -> String {
        var r = try #require(try JSON.parse(line.trimmingCharacters(in: .newlines)).objectValue)
        var l = try #require(r["loudness"]?.objectValue)
        edit(&l)
        r["loudness"] = .object(l)
        return JSON.object(r).serialized() + "\n"
    }

    @Test func aSameSizeEditWithItsTimePutBackIsStale() throws {
        let dir = E2E.tempDir("trusted-touch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (f, record) = try Self.measured(dir)
        try Self.touch(["-r", f, dir + "/times"])
        let before = try FileIdentity.of(f)
        // New bytes between the fingerprint's blocks, same size, the times put back with touch -r:
        // only the inode change time tells.
        let h = try #require(FileHandle(forUpdatingAtPath: f))
        try h.seek(toOffset: before.sizeBytes / 6)
        try h.write(contentsOf: Data(repeating: 0x7F, count: 3000))
        try h.close()
        try Self.touch(["-r", dir + "/times", f])
        let after = try FileIdentity.of(f)
        #expect(after.sizeBytes == before.sizeBytes && after.modifiedNanoseconds == before.modifiedNanoseconds)
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: record)
        #expect(r.status == 1)
        #expect(r.records.first?["error"]?["code"]?.stringValue == "stale-measurement", "\(r.stdout)")
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("its inode changed with its modification time the same") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.wav"))
    }

    /// A record of the last release (`modified_ns`, no change time) is still read: the file is
    /// measured here, since its identity can't show such an edit; one whose size differs is stale.
    @Test func aRecordOfTheLastReleaseIsRead() throws {
        let dir = E2E.tempDir("trusted-older")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (f, record) = try Self.measured(dir)
        let id = try FileIdentity.of(f)
        let older = try Self.edited(record) {
            $0["file"] = .object(["size_bytes": .int(id.sizeBytes), "modified_ns": .int(id.modifiedNanoseconds)])
        }
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: older)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let n = r.records.first?["normalized"]
        #expect(n?["measured_here"]?.boolValue == true)
        #expect(n?["notes"]?.arrayValue?.contains(.string(RecordedLoudness.olderRecordNote)) == true, "\(r.stdout)")
        let grown = try Self.edited(record) {
            $0["file"] = .object(["size_bytes": .int(id.sizeBytes + 1), "modified_ns": .int(id.modifiedNanoseconds)])
        }
        let s = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out2"], stdin: grown)
        #expect(s.records.first?["error"]?["code"]?.stringValue == "stale-measurement")
    }

    /// jq 1.6 holds numbers as doubles: the record's integers must stay below 2^53 to come through.
    @Test(.enabled(if: hasJq, "jq is needed (make test-deps installs it)"))
    func recordsSurviveJq() throws {
        let dir = E2E.tempDir("trusted-jq")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 44_100, channels: [E2E.sine(440, dBFS: -20, seconds: 4, rate: 44_100)])
        let bin = E2E.binDir.path
        let line = "'\(bin)/lufs-measure' '\(f)' | jq -c . | '\(bin)/lufs-normalize' --target -16 --out-dir '\(dir)/out'"
        let r = try E2E.program("/bin/sh", ["-c", line])
        let out = String(decoding: r.stdout, as: UTF8.self)
        #expect(r.status == 0, "\(out) \(r.stderr)")
        let n = try JSON.parse(out.trimmingCharacters(in: .newlines))["normalized"]
        #expect(n?["measured_here"]?.boolValue == false, "the record's measurement was used: \(out)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out/a.wav"))
    }

    /// One byte of a cached value changed on disk (−30.48 read as −10.48): a miss, measured again.
    @Test func aDamagedCachedValueIsMeasuredAgain() throws {
        let dir = E2E.tempDir("trusted-cache")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav", cache = dir + "/c.sqlite"
        try E2E.write(f, rate: 44_100, channels: [E2E.sine(440, dBFS: -27, seconds: 4, rate: 44_100)])
        CacheE2ETests.setMtime(f, CacheE2ETests.past)
        let fresh = try CacheE2ETests.run("lufs-measure", [f])
        let stored = try CacheE2ETests.run("lufs-measure", ["--cache", cache, f])
        #expect(stored.stdout == fresh.stdout)
        #expect(try CacheE2ETests.entries(cache) == 1)
        let lufs = try #require(fresh.records.first?["loudness"]?["integrated_lufs"]?.doubleValue)
        #expect(lufs < -29 && lufs > -31)
        // The first digit of the integrated loudness in the file's bytes: "-30.69" becomes "-10.69".
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: cache)))
        let key = Array(#""integrated_lufs":-3"#.utf8)
        let at = try #require((0...(bytes.count - key.count)).first { bytes[$0..<($0 + key.count)].elementsEqual(key) })
        bytes[at + key.count - 1] = UInt8(ascii: "1")
        try Data(bytes).write(to: URL(fileURLWithPath: cache))
        let again = try CacheE2ETests.run("lufs-measure", ["--cache", cache, f])
        #expect(again.status == 0)
        #expect(again.stdout == fresh.stdout, "measured again, not served: \(again.stdout)")
        #expect(try CacheE2ETests.entries(cache) == 1, "the fresh measurement replaced the damaged one")
    }

    /// A record whose integrated figure was edited by hand: the written file misses the target by
    /// far, and the record fails with the figures rather than exit 0; nothing is written.
    @Test func aWrongIntegratedFigureFailsTheOutputCheck() throws {
        let dir = E2E.tempDir("trusted-wrong")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (_, record) = try Self.measured(dir)
        for wrong in [-43.69, -13.69] {
            let edited = try Self.edited(record) { $0["integrated_lufs"] = .double(wrong, decimals: 2) }
            let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: edited)
            #expect(r.status == 1, "\(wrong): \(r.stdout)")
            let e = r.records.first?["error"]
            #expect(e?["code"]?.stringValue == "off-target", "\(r.stdout)")
            #expect(e?["message"]?.stringValue?.contains("LUFS target") == true, "\(r.stdout)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.wav"))
        }
        // The true figure passes, and so does --peak reduce's documented shortfall.
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: record)
        #expect(r.status == 0, "\(r.stdout)")
        let loud = try E2E.run("lufs-normalize", ["--target", "-2", "--peak", "reduce", "--out-dir", dir + "/reduced"], stdin: record)
        #expect(loud.status == 0, "\(loud.stdout)")
        #expect((loud.records.first?["normalized"]?["shortfall_lu"]?.doubleValue ?? 0) > 1, "\(loud.stdout)")
    }
}
