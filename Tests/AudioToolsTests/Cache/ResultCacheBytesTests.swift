import Foundation
import Testing
@testable import AudioTools

/// Entries whose value is bytes (the limiter analyses): kept exactly, NUL bytes and all, under the
/// same rules as text entries; asking whether one is there leaves it unread.
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
}
