import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Every kept value carries a checksum checked on every read: a value damaged on disk (one byte
/// is enough, and SQLite's own checks don't see it) is a miss, and its row is dropped.
@Suite struct ResultCacheChecksumTests {
    static func rows(_ path: String) throws -> Int64 {
        let db = try SQLiteConnection(path: path, create: false)
        defer { db.close() }
        return try db.integer("SELECT count(*) FROM entries") ?? -1
    }

    @Test func aDamagedTextValueIsAMissAndIsDropped() throws {
        let dir = ResultCacheTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (file, stamp) = try ResultCacheTests.settledFile(in: dir)
        let path = dir + "/c.sqlite"
        let cache = try #require(ResultCache.open(path: path, version: "v1", warn: { _ in }))
        let value = #"{"loudness":{"integrated_lufs":-30.48}}"#
        cache.store(kind: "k", settings: "s", path: file, stamp: stamp, libraryID: nil, value: value)
        #expect(cache.lookup(kind: "k", settings: "s", path: file, stamp: stamp)?.value == value)
        cache.close()
        // One byte changed behind the cache's back: "-30.48" becomes "-10.48".
        let db = try SQLiteConnection(path: path, create: false)
        try db.execute("UPDATE entries SET value = replace(value, '-30.48', '-10.48')")
        db.close()
        let again = try #require(ResultCache.open(path: path, version: "v1", warn: { _ in }))
        #expect(again.lookup(kind: "k", settings: "s", path: file, stamp: stamp) == nil)
        again.close()
        #expect(try Self.rows(path) == 0, "the damaged row is dropped")
    }

    @Test func aDamagedByteValueIsAMissAndIsDropped() throws {
        let dir = ResultCacheTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (file, stamp) = try ResultCacheTests.settledFile(in: dir)
        let path = dir + "/c.sqlite"
        let cache = try #require(ResultCache.open(path: path, version: "v1", warn: { _ in }))
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        cache.store(kind: "k", settings: "s", path: file, stamp: stamp, bytes: bytes)
        #expect(cache.lookupBytes(kind: "k", settings: "s", path: file, stamp: stamp) == bytes)
        // Read out of order, the checksum can't follow: not served.
        let skipping = cache.readBytes(kind: "k", settings: "s", path: file, stamp: stamp) { blob -> Bool? in
            var b = [UInt8](repeating: 0, count: 10)
            try b.withUnsafeMutableBytes { try blob.read(into: $0.baseAddress!, count: 10, at: 100) }
            return true
        }
        #expect(skipping == nil)
        cache.store(kind: "k", settings: "s", path: file, stamp: stamp, bytes: bytes)
        cache.close()
        let db = try SQLiteConnection(path: path, create: false)
        let row = try #require(try db.integer("SELECT rowid FROM entries"))
        do {
            let blob = try db.openBlob(table: "entries", column: "value", rowid: row, writable: true)
            var flipped = bytes[40_000] ^ 0x10
            try withUnsafeBytes(of: &flipped) { try blob.write(from: $0.baseAddress!, count: 1, at: 40_000) }
        }
        db.close()
        let again = try #require(ResultCache.open(path: path, version: "v1", warn: { _ in }))
        #expect(again.lookupBytes(kind: "k", settings: "s", path: file, stamp: stamp) == nil)
        again.close()
        #expect(try Self.rows(path) == 0, "the damaged row is dropped")
    }
}
