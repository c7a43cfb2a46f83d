import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A file's identity in records: integers jq 1.6 keeps exactly (below 2^53), the change time and
/// fingerprint beside the size and modification time, and the older form still read.
@Suite struct FileIdentityRecordTests {
    static let id = FileIdentity(sizeBytes: 529_280, modifiedNanoseconds: 1_796_398_481_234_498_454,
                                 changedNanoseconds: 1_796_398_482_000_000_001, fingerprint: "68bf81d846062560cb5f79fb")

    @Test func timesAreSecondsAndNanosecondsBelowTwoToThe53() throws {
        let j = Self.id.json
        #expect(j.serialized() == #"{"ctime_nsec":1,"ctime_sec":1796398482,"fingerprint":"68bf81d846062560cb5f79fb","mtime_nsec":234498454,"mtime_sec":1796398481,"size_bytes":529280}"#)
        for (_, v) in j.objectValue ?? [:] { if let i = v.intValue { #expect(abs(i) < 1 << 53) } }
        #expect(FileIdentity(json: j) == Self.id)
        // Read back from text, as the next stage reads it.
        #expect(FileIdentity(json: try JSON.parse(j.serialized())) == Self.id)
        // Before 1970: the nanoseconds stay in 0..<1e9.
        let old = FileIdentity(sizeBytes: 1, modifiedNanoseconds: -1_500_000_000)
        #expect(old.json["mtime_sec"]?.intValue == -2 && old.json["mtime_nsec"]?.intValue == 500_000_000)
        #expect(FileIdentity(json: old.json) == old)
    }

    @Test func theOlderFormIsStillRead() throws {
        let older = try JSON.parse(#"{"modified_ns":1796398481234498454,"size_bytes":529280}"#)
        let id = try #require(FileIdentity(json: older))
        #expect(id.sizeBytes == 529_280 && id.modifiedNanoseconds == 1_796_398_481_234_498_454)
        #expect(id.changedNanoseconds == nil && id.fingerprint == nil && !id.hasChangeTime)
        // Nanoseconds out of range, or a time without its nanoseconds: not an identity.
        #expect(FileIdentity(json: try JSON.parse(#"{"mtime_sec":1,"mtime_nsec":1000000000,"size_bytes":1}"#)) == nil)
        #expect(FileIdentity(json: try JSON.parse(#"{"mtime_sec":1,"size_bytes":1}"#)) == nil)
    }

    @Test func differencesAreWhatTheRecordCarries() {
        let id = Self.id
        var now = id
        #expect(id.differences(from: now).isEmpty)
        now.changedNanoseconds! += 1
        #expect(id.differences(from: now) == [.changed])
        now = id
        now.fingerprint = "000000000000000000000000"
        #expect(id.differences(from: now) == [.content])
        // A record of an older audio-tools compares what it has: size and modification time.
        let older = FileIdentity(sizeBytes: id.sizeBytes, modifiedNanoseconds: id.modifiedNanoseconds)
        #expect(older.differences(from: now).isEmpty)
        now.sizeBytes += 1
        #expect(older.differences(from: now) == [.size])
    }

    /// Four blocks of 4 KiB, from the first byte to the last block; an edit in one of them changes
    /// the fingerprint even when the times say nothing.
    @Test func theFingerprintReadsAFewBlocks() throws {
        #expect(FileIdentity.fingerprintOffsets(size: 100) == [0])
        #expect(FileIdentity.fingerprintOffsets(size: 4096 + 3) == [0, 1, 2, 3])
        #expect(FileIdentity.fingerprintOffsets(size: 3 * 1000 + 4096) == [0, 1000, 2000, 3000])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprint-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.bin"
        var bytes = [UInt8](repeating: 0, count: 100_000)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: f))
        let before = try #require(FileIdentity.fingerprint(path: f))
        #expect(before.count == ContentID.hexLength && FileIdentity.fingerprint(path: f) == before)
        bytes[100_000 - 10] ^= 1  // in the last block
        try Data(bytes).write(to: URL(fileURLWithPath: f))
        #expect(FileIdentity.fingerprint(path: f) != before)
        // Not the file expected (another size): no fingerprint rather than one of another state.
        let now = try FileIdentity.of(f)
        var other = now
        other.sizeBytes += 1
        #expect(FileIdentity.fingerprint(path: f, expected: now) != nil && FileIdentity.fingerprint(path: f, expected: other) == nil)
    }
}
