import CSQLite
import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Entries whose value is bytes (the limiter analyses): kept exactly, NUL bytes and all, under the
/// same rules as text entries, written and read in place a piece at a time, never half written;
/// asking whether one is there leaves it unread.
@Suite struct ResultCacheBytesTests {
    @Test func bytesAreKeptExactlyUnderTheSameRules() throws {
        let dir = ResultCacheTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (file, stamp) = try ResultCacheTests.settledFile(in: dir)
        let cache = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        let bytes: [UInt8] = [0, 0, 0x4C, 0xFF, 0, 0x80] + (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(!cache.contains(kind: "k", settings: "s", path: file, stamp: stamp))
        cache.store(kind: "k", settings: "s", path: file, stamp: stamp, bytes: bytes)
        #expect(cache.lookupBytes(kind: "k", settings: "s", path: file, stamp: stamp) == bytes)
        #expect(cache.contains(kind: "k", settings: "s", path: file, stamp: stamp))
        // Read in place, a piece at a time.
        let pieces = cache.readBytes(kind: "k", settings: "s", path: file, stamp: stamp) { blob -> [UInt8]? in
            var out: [UInt8] = [], at = 0
            while at < blob.count {
                var piece = [UInt8](repeating: 0, count: min(1000, blob.count - at))
                try piece.withUnsafeMutableBytes { try blob.read(into: $0.baseAddress!, count: $0.count, at: at) }
                out += piece
                at += piece.count
            }
            return out
        }
        #expect(pieces == bytes)
        // Written a piece at a time; a fill that fails keeps nothing, not half an entry.
        cache.storeBytes(kind: "k", settings: "pieces", path: file, stamp: stamp, count: bytes.count) { blob in
            for at in stride(from: 0, to: bytes.count, by: 4096) {
                let n = min(4096, bytes.count - at)
                try bytes.withUnsafeBytes { try blob.write(from: $0.baseAddress! + at, count: n, at: at) }
            }
        }
        #expect(cache.lookupBytes(kind: "k", settings: "pieces", path: file, stamp: stamp) == bytes)
        struct Stop: Error {}
        cache.storeBytes(kind: "k", settings: "half", path: file, stamp: stamp, count: 100) { blob in
            try [UInt8](repeating: 7, count: 10).withUnsafeBytes { try blob.write(from: $0.baseAddress!, count: 10, at: 0) }
            throw Stop()
        }
        #expect(!cache.contains(kind: "k", settings: "half", path: file, stamp: stamp))
        #expect(cache.lookupBytes(kind: "k", settings: "s", path: file, stamp: stamp) == bytes, "the cache still works")
        cache.store(kind: "k", settings: "empty", path: file, stamp: stamp, bytes: [])
        #expect(cache.lookupBytes(kind: "k", settings: "empty", path: file, stamp: stamp) == [], "empty, not missing")
        // Another setting, another stamp or another version: a miss.
        #expect(cache.lookupBytes(kind: "k", settings: "t", path: file, stamp: stamp) == nil)
        var later = stamp
        later.modifiedNanoseconds += 1
        #expect(cache.lookupBytes(kind: "k", settings: "s", path: file, stamp: later) == nil)
        #expect(!cache.contains(kind: "k", settings: "s", path: file, stamp: later))
        cache.close()
        let other = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v2", warn: { _ in }))
        #expect(other.lookupBytes(kind: "k", settings: "s", path: file, stamp: stamp) == nil)
        other.close()
    }

    /// A long file's analysis (29 MB an hour) is filled in place without SQLite ever holding the
    /// value whole: a zero-filled value followed by a column with bytes is built in memory first
    /// (twice its size, measured at 59 MB for 30 MB), which kept lufs-measure --keep-analysis
    /// growing by 1 MB a minute of audio. SQLite's own high-water mark counts only its memory.
    @Test func aLargeValueIsFilledWithoutBeingHeldWhole() throws {
        let dir = ResultCacheTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (file, stamp) = try ResultCacheTests.settledFile(in: dir)
        let cache = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        defer { cache.close() }
        let count = 48 << 20, piece = [UInt8](repeating: 0xA5, count: 1 << 16)
        _ = sqlite3_memory_highwater(1)
        let before = sqlite3_memory_used()
        cache.storeBytes(kind: "k", settings: "long", path: file, stamp: stamp, count: count) { blob in
            for at in stride(from: 0, to: count, by: piece.count) {
                try piece.withUnsafeBytes { try blob.write(from: $0.baseAddress!, count: piece.count, at: at) }
            }
        }
        let grew = sqlite3_memory_highwater(0) - before
        // Held whole it rose by twice the value (97 MB); in place, by its page cache (a few MB).
        // The bound leaves room for other suites' connections working meanwhile.
        #expect(grew < Int64(count), "SQLite's memory rose by \(grew >> 20) MB to store \(count >> 20) MB")
        // Read back in order, a piece at a time, as the checksum needs.
        let back = cache.readBytes(kind: "k", settings: "long", path: file, stamp: stamp) { blob -> Bool? in
            var got = [UInt8](repeating: 0, count: piece.count), same = true
            for at in stride(from: 0, to: count, by: piece.count) {
                try got.withUnsafeMutableBytes { try blob.read(into: $0.baseAddress!, count: piece.count, at: at) }
                same = same && got == piece
            }
            return blob.count == count && same
        }
        #expect(back == true)
    }
}

/// Whole-value forms of the in-place byte entries, for these tests.
extension ResultCache {
    func lookupBytes(kind: String, settings: String, path: String, stamp: FileStamp) -> [UInt8]? {
        readBytes(kind: kind, settings: settings, path: path, stamp: stamp) { blob in
            var bytes = [UInt8](repeating: 0, count: blob.count)
            if blob.count > 0 { try bytes.withUnsafeMutableBytes { try blob.read(into: $0.baseAddress!, count: blob.count, at: 0) } }
            return bytes
        }
    }

    func store(kind: String, settings: String, path: String, stamp: FileStamp, bytes: [UInt8]) {
        storeBytes(kind: kind, settings: settings, path: path, stamp: stamp, count: bytes.count) { blob in
            if !bytes.isEmpty { try bytes.withUnsafeBytes { try blob.write(from: $0.baseAddress!, count: bytes.count, at: 0) } }
        }
    }
}
