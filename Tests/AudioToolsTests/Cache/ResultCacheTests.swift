import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct ResultCacheTests {
    /// A small file in `dir`, modified long ago (the cache keeps nothing of a file written this
    /// instant), and its stamp.
    static func settledFile(in dir: String) throws -> (path: String, stamp: FileStamp) {
        let file = dir + "/a.wav"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        return (file, try #require(FileStamp.of(file)))
    }

    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("audio-tools-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static let old: Int64 = 1_600_000_000_123_456_789
    static let stamp = FileStamp(device: 2049, inode: 1234, sizeBytes: 5000, modifiedNanoseconds: old)

    @Test func anEntryIsReusedOnlyForTheSameFileVersionAndSettings() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        cache.store(kind: "probe", settings: "deep=0", path: "a.wav", stamp: Self.stamp, libraryID: "id1", value: "{\"x\":1}")
        let hit = try #require(cache.lookup(kind: "probe", settings: "deep=0", path: "a.wav", stamp: Self.stamp))
        #expect(hit.value == "{\"x\":1}" && hit.libraryID == "id1")
        var s = Self.stamp
        for change in [{ (s: inout FileStamp) in s.device += 1 }, { $0.inode += 1 }, { $0.sizeBytes += 1 }, { $0.modifiedNanoseconds += 1 }] {
            s = Self.stamp
            change(&s)
            #expect(cache.lookup(kind: "probe", settings: "deep=0", path: "a.wav", stamp: s) == nil)
        }
        #expect(cache.lookup(kind: "probe", settings: "deep=1", path: "a.wav", stamp: Self.stamp) == nil)
        #expect(cache.lookup(kind: "loudness", settings: "deep=0", path: "a.wav", stamp: Self.stamp) == nil)
        #expect(cache.lookup(kind: "probe", settings: "deep=0", path: "./a.wav", stamp: Self.stamp) == nil)
        cache.close()
        // Another version never reads it.
        let newer = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v2", warn: { _ in }))
        #expect(newer.lookup(kind: "probe", settings: "deep=0", path: "a.wav", stamp: Self.stamp) == nil)
        #expect(newer.paths(libraryID: "id1", kind: "probe", settings: "deep=0").isEmpty)
        // A fresh result replaces the entry.
        newer.store(kind: "probe", settings: "deep=0", path: "a.wav", stamp: Self.stamp, libraryID: "id2", value: "{\"x\":2}")
        #expect(newer.lookup(kind: "probe", settings: "deep=0", path: "a.wav", stamp: Self.stamp)?.value == "{\"x\":2}")
        let listed = newer.paths(libraryID: "id2", kind: "probe", settings: "deep=0")
        #expect(listed.map(\.path) == ["a.wav"] && listed.first?.stamp == Self.stamp)
    }

    @Test func aFileModifiedInTheLastTwoSecondsIsNotKept() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        var s = Self.stamp
        s.modifiedNanoseconds = ResultCache.nowNanoseconds()
        cache.store(kind: "probe", settings: "", path: "new.wav", stamp: s, libraryID: nil, value: "{}")
        #expect(cache.lookup(kind: "probe", settings: "", path: "new.wav", stamp: s) == nil)
        s.modifiedNanoseconds -= 3_000_000_000
        cache.store(kind: "probe", settings: "", path: "new.wav", stamp: s, libraryID: nil, value: "{}")
        #expect(cache.lookup(kind: "probe", settings: "", path: "new.wav", stamp: s) != nil)
    }

    @Test func garbageForeignAndNewerFilesAreMovedAsideWithTheirBytesKept() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        func asides() -> [String] { (try? fm.contentsOfDirectory(atPath: dir))?.filter { $0.contains(".unusable-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted() ?? [] }

        let garbage = Data(String(repeating: "not a database, just words. ", count: 300).utf8)
        try garbage.write(to: URL(fileURLWithPath: dir + "/g.sqlite"))
        let g = try #require(ResultCache.open(path: dir + "/g.sqlite", version: "v1", warn: { _ in }))
        g.store(kind: "k", settings: "", path: "p", stamp: Self.stamp, libraryID: nil, value: "1")
        #expect(g.lookup(kind: "k", settings: "", path: "p", stamp: Self.stamp)?.value == "1")
        g.close()
        let movedGarbage = try #require(asides().first { $0.hasPrefix("g.sqlite") })
        #expect(fm.contents(atPath: dir + "/" + movedGarbage) == garbage)

        // Someone else's database: kept whole under the new name.
        let other = try SQLiteConnection(path: dir + "/f.sqlite")
        try other.execute("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('kept');")
        other.close()
        let f = try #require(ResultCache.open(path: dir + "/f.sqlite", version: "v1", warn: { _ in }))
        f.close()
        let movedForeign = try #require(asides().first { $0.hasPrefix("f.sqlite") })
        let reopened = try SQLiteConnection(path: dir + "/" + movedForeign, create: false)
        #expect(try reopened.integer("SELECT count(*) FROM songs WHERE title = 'kept'") == 1)

        // A newer cache format is not read.
        let n = try #require(ResultCache.open(path: dir + "/n.sqlite", version: "v1", warn: { _ in }))
        n.store(kind: "k", settings: "", path: "p", stamp: Self.stamp, libraryID: nil, value: "1")
        n.close()
        let raw = try SQLiteConnection(path: dir + "/n.sqlite")
        try raw.execute("PRAGMA user_version = 99")
        raw.close()
        let n2 = try #require(ResultCache.open(path: dir + "/n.sqlite", version: "v1", warn: { _ in }))
        #expect(n2.lookup(kind: "k", settings: "", path: "p", stamp: Self.stamp) == nil)
        #expect(asides().contains { $0.hasPrefix("n.sqlite") })
    }

    @Test func pruneRemovesEntriesOfFilesThatAreGoneOrChanged() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["a", "b", "c"] { try Data(name.utf8).write(to: URL(fileURLWithPath: "\(dir)/\(name).wav")) }
        let cache = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        for name in ["a", "b", "c"] {
            var s = try #require(FileStamp.of("\(dir)/\(name).wav"))
            if name == "c" { s.sizeBytes += 1 }   // computed from another state of the file
            s.modifiedNanoseconds = min(s.modifiedNanoseconds, ResultCache.nowNanoseconds() - 3_000_000_000)
            if name != "c" {
                // Set the file's own mtime to what is stored, so a and b are current.
                var times = [timespec(tv_sec: Int(s.modifiedNanoseconds / 1_000_000_000), tv_nsec: Int(s.modifiedNanoseconds % 1_000_000_000)),
                             timespec(tv_sec: Int(s.modifiedNanoseconds / 1_000_000_000), tv_nsec: Int(s.modifiedNanoseconds % 1_000_000_000))]
                #expect(utimensat(AT_FDCWD, "\(dir)/\(name).wav", &times, 0) == 0)
                // Set by utimensat.
                s.changedNanoseconds = try #require(FileStamp.of("\(dir)/\(name).wav")).changedNanoseconds
            }
            cache.store(kind: "probe", settings: "", path: "\(dir)/\(name).wav", stamp: s, libraryID: nil, value: "{}")
        }
        try FileManager.default.removeItem(atPath: dir + "/b.wav")
        #expect(cache.prune() == ResultCache.PruneResult(removed: 2, kept: 1))
        #expect(cache.prune() == ResultCache.PruneResult(removed: 0, kept: 1))
    }

    @Test func aLoudnessMeasurementComesBackExactly() throws {
        let m = LoudnessMeasurement(integratedLUFS: -23.000000000000004, loudnessRangeLU: nil, momentaryMaxLUFS: -0.1 - 0.2,
                                    shortTermMaxLUFS: 1e-300, samplePeaks: [0.7071067811865476, 0], truePeaks: [1.0000000000000002, 3],
                                    frames: 48_001, sampleRate: 48000, notes: ["a \"quoted\" note", "é"])
        let text = JSON.object(["loudness": .object(["x": .int(1)]), "measurement": LoudnessCache.encode(m)]).serialized()
        let back = try #require(LoudnessCache.decode(text))
        #expect(back.measurement == m)
        #expect(back.loudness == .object(["x": .int(1)]))
        // Kept as the text it was stored as: written out without being parsed again.
        #expect(back.loudness.serialized() == #"{"x":1}"#)
        #expect(back.loudness(gate: { _ in .bool(true) }).serialized() == #"{"gate":true,"x":1}"#)
        #expect(back.loudness(gate: nil).serialized() == #"{"x":1}"#)
        // Without a gate the measurement isn't read at all.
        #expect(try #require(LoudnessCache.decode(text, measurement: false)).measurement == nil)
    }

    @Test func aProbeReportComesBackExactly() throws {
        let probe = try JSON.parse(#"{"container":"wav","duration_seconds":2.5,"tags":{"title":"Ünïcödé \"x\"\n"}}"#)
        let r = AudioProbeInspector.Report(probe: probe, refusal: ToolError(.truncated, "“a.wav” is cut off.", suggestion: "Pick a complete copy."))
        let back = try #require(ProbeCache.decode(ProbeCache.encode(r)))
        #expect(back.probe == probe && back.refusal == r.refusal)
        #expect(back.probe?.serialized() == probe.serialized())
        if case .raw = back.probe {} else { Issue.record("a cached probe should come back as its stored text") }
        #expect(ProbeCache.decode(ProbeCache.encode(back)) != nil)
        #expect(JSON.object(["probe": back.probe!]).serialized() == JSON.object(["probe": probe]).serialized())
        #expect(ProbeCache.decode(#"{"probe":{},"refusal":{"code":"no-such-code","message":"m","suggestion":"s"}}"#) == nil)
    }

    @Test func theOptionsNameTheCache() throws {
        func parse(_ args: [String]) throws -> ParsedOptions { try ParsedOptions.parse(args, specs: CacheOptions.specs) }
        #expect(try CacheOptions.path(parse([]), environment: [:]) == nil)
        #expect(try CacheOptions.path(parse([]), environment: ["AUDIO_TOOLS_CACHE": "/x/c.sqlite"]) == "/x/c.sqlite")
        #expect(try CacheOptions.path(parse([]), environment: ["AUDIO_TOOLS_CACHE": ""]) == nil)
        #expect(try CacheOptions.path(parse(["--cache", "mine.sqlite"]), environment: ["AUDIO_TOOLS_CACHE": "/x/c.sqlite"]) == "mine.sqlite")
        #expect(try CacheOptions.path(parse(["--no-cache"]), environment: ["AUDIO_TOOLS_CACHE": "/x/c.sqlite"]) == nil)
        #expect(throws: UsageError("--cache and --no-cache contradict each other; give one.")) {
            try CacheOptions.path(parse(["--no-cache", "--cache", "a"]), environment: [:])
        }
        #expect(throws: UsageError("--cache-prune needs a cache, and --no-cache says there is none.")) {
            try CacheOptions.path(parse(["--no-cache", "--cache-prune"]), environment: [:])
        }
        #expect(throws: UsageError("--cache-prune needs a cache: give --cache FILE or set AUDIO_TOOLS_CACHE.")) {
            try CacheOptions.path(parse(["--cache-prune"]), environment: [:])
        }
        #expect(throws: UsageError.self) { try CacheOptions.path(parse(["--cache="]), environment: [:]) }
    }

    /// The cache says what is wrong through the sink it is handed, not on a stderr of its own.
    @Test func warningsGoToTheSinkItIsHanded() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let said = Said()
        #expect(ResultCache.open(path: dir, version: "v1", warn: said.add) == nil)
        #expect(said.lines == ["can't use the cache \(ToolError.quoted(dir)): it is not a regular file; running without it."])
    }

    final class Said: @unchecked Sendable {
        private let lock = NSLock()
        private var said: [String] = []
        func add(_ line: String) { lock.lock(); said.append(line); lock.unlock() }
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return said }
    }

    /// In memory, on disk past a small budget (lines straddling the flushed part included), and
    /// read back in any order.
    @Test(arguments: [LineSpill.defaultMemoryBytes, 65_536, 1000])
    func spilledLinesReadBackInAnyOrder(memoryBytes: Int) {
        let spill = LineSpill(memoryBytes: memoryBytes)
        let lines = (0..<30_000).map { i in "{\"n\":\(i),\"t\":\"\(String(repeating: "é", count: i % 97))\"}" }
        for l in lines { spill.append(l) }
        #expect(spill.count == lines.count)
        for i in stride(from: lines.count - 1, through: 0, by: -7) { #expect(spill.line(i) == lines[i]) }
        #expect(spill.line(0) == lines[0] && spill.line(lines.count - 1) == lines.last!)
        for i in 0..<lines.count where i % 11 == 0 { #expect(spill.line(i) == lines[i]) }
        // Backwards, as a listing sorted newest first reads a walk's lines, and in one pass.
        var backwards = true, forwards = true
        for i in stride(from: lines.count - 1, through: 0, by: -1) where spill.line(i) != lines[i] { backwards = false }
        for i in 0..<lines.count where spill.line(i) != lines[i] { forwards = false }
        #expect(backwards && forwards)
    }

    /// Lines longer than the read-back window, and around them, come back whole.
    @Test func spilledLinesLongerThanTheReadWindow() {
        let spill = LineSpill(memoryBytes: 1000)
        let lines = (0..<40).map { i in String(repeating: Character(UnicodeScalar(UInt8(65 + i % 26))), count: i % 3 == 0 ? LineSpill.windowBytes * 3 / 4 + i : 100 + i) }
        for l in lines { spill.append(l) }
        for i in [39, 0, 20, 21, 3, 38, 1, 2, 19] { #expect(spill.line(i) == lines[i], "line \(i)") }
    }

    @Test func theIndexOnlyNamesPathsTheWalkWouldReach() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/lib/a", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/lib/.hidden", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/lib/link", withDestinationPath: dir + "/lib/a")
        let none: (String) -> Bool = { _ in false }
        #expect(LibraryIndex.reachable(dir + "/lib/a/x.wav", from: dir + "/lib", includeHidden: none))
        #expect(LibraryIndex.reachable(dir + "/lib/a/x.wav", from: dir + "/lib/", includeHidden: none))
        #expect(LibraryIndex.reachable(dir + "/lib//x.wav", from: dir + "/lib", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/lib/a/x.wav", from: dir + "/lib/a/x.wav", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/lib/.hidden/x.wav", from: dir + "/lib", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/lib/link/x.wav", from: dir + "/lib", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/lib/a/.x.wav", from: dir + "/lib", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/lib/a/.x.wav", from: dir + "/lib", includeHidden: { $0 == ".x.wav" }))
        #expect(LibraryIndex.reachable(dir + "/other/x.wav", from: dir + "/lib", includeHidden: none) == false)
        #expect(LibraryIndex.reachable(dir + "/libx/x.wav", from: dir + "/lib", includeHidden: none) == false)
    }

    @Test func aListingKeepsOnlyTheSortFields() {
        let item = LibraryItem(id: "i", path: "p", title: "T", artist: "A", album: "B", genre: "G", year: 1959, track: 2,
                               durationSeconds: 3, format: "wav", codec: "pcm", sampleRate: 44100, channels: 2, bitDepth: 16,
                               sizeBytes: 9, modifiedNanoseconds: 7)
        let kept = item.keeping([.artist, .year])
        #expect(kept == LibraryItem(id: "i", path: "p", artist: "A", year: 1959, sizeBytes: 9, modifiedNanoseconds: 7))
        let sort = try! LibrarySort.parse("artist,year-")
        let items = [item, LibraryItem(id: "j", path: "q", artist: "A", year: 1960)]
        #expect(sort.sortedIndices(items) == sort.sortedIndices(items.map { $0.keeping(Set(sort.keys.map(\.field))) }))
    }

    @Test func objectKeysStaySortedByTheirUTF8BytesOnTheFastPath() {
        let keys = ["b", "a", "é", "Z", "ab", "", "a\u{0}", "zz", "\u{1F600}", "ä"]
        let o = JSON.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSON.int(1)) }))
        let expected = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let written = expected.map { k -> String in var s = ""; JSON.writeString(k, to: &s); return s + ":1" }.joined(separator: ",")
        #expect(o.serialized() == "{" + written + "}")
        #expect(JSON.utf8Precedes("a", "ab") && !JSON.utf8Precedes("ab", "a") && !JSON.utf8Precedes("a", "a"))
    }
}
