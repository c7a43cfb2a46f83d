import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The --cache of audio-probe, library-filter and lufs-measure, run as a user runs them. To show
/// that a run really read the cache (and not merely produced the same bytes), tests write a marker
/// into a stored entry: a hit shows the marker, a miss shows a fresh result.
@Suite struct CacheE2ETests {
    typealias F = AudioProbeE2EFixture

    /// An hour past, to the nanosecond: old enough for the cache to keep.
    static let past: Int64 = 1_700_000_000_123_456_789

    static func setMtime(_ path: String, _ ns: Int64) {
        var t = [timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000)),
                 timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))]
        _ = utimensat(AT_FDCWD, path, &t, 0)
    }

    static func song(_ path: String, seconds: Double = 1.0, freq: Double = 440, title: String = "Song") throws {
        try F.write(F.taggedWAV(rate: 8000, channels: 1, seconds: seconds, freq: freq, tags: ["INAM": title, "IART": "Artist"]), path)
        setMtime(path, past)
    }

    /// Four songs in two folders, a cut-off WAV and cover art, all modified in the past.
    static func makeLibrary() throws -> String {
        let dir = E2E.tempDir("cache")
        try FileManager.default.createDirectory(atPath: dir + "/lib/sub", withIntermediateDirectories: true)
        try song(dir + "/lib/a.wav", freq: 220, title: "Alpha")
        try song(dir + "/lib/b.wav", seconds: 1.5, freq: 330, title: "Beta")
        try song(dir + "/lib/sub/c.wav", freq: 550, title: "Gamma")
        try song(dir + "/lib/sub/d.wav", seconds: 0.5, freq: 660, title: "Delta")
        let full = F.taggedWAV(rate: 8000, channels: 1, seconds: 2, freq: 200, tags: [:])
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: dir + "/lib/cut.wav"))
        setMtime(dir + "/lib/cut.wav", past)
        try F.write(Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 100)), dir + "/lib/cover.jpg")
        setMtime(dir + "/lib/cover.jpg", past)
        return dir
    }

    /// The environment without AUDIO_TOOLS_CACHE, so a "fresh" run is one.
    static var plain: [String: String] {
        var e = ProcessInfo.processInfo.environment
        e["AUDIO_TOOLS_CACHE"] = nil
        return e
    }

    static func run(_ tool: String, _ args: [String], stdin: String? = nil) throws -> E2E.Run {
        try E2E.run(tool, args, stdin: stdin, environment: plain)
    }

    /// Writes `marker` into every stored entry in place of `text`, with the checksum that makes
    /// it a value the cache serves; returns how many changed.
    @discardableResult
    static func tamper(_ cache: String, _ text: String, _ marker: String) throws -> Int {
        let db = try SQLiteConnection(path: cache, create: false)
        defer { db.close() }
        let s = try db.prepare("SELECT rowid, value FROM entries WHERE typeof(value) = 'text' AND instr(value, ?1) > 0")
        var changed: [(Int64, String)] = []
        try s.with([.text(text)]) { s in
            while try s.step() {
                if let v = s.text(1) { changed.append((s.int64(0), v.replacingOccurrences(of: text, with: marker))) }
            }
        }
        let u = try db.prepare("UPDATE entries SET value = ?2, checksum = ?3 WHERE rowid = ?1")
        for (row, value) in changed {
            try u.with([.integer(row), .text(value), .integer(ResultCache.checksum(value))]) { _ = try $0.step() }
        }
        return changed.count
    }

    static func entries(_ cache: String) throws -> Int {
        let db = try SQLiteConnection(path: cache, create: false)
        defer { db.close() }
        return Int(try db.integer("SELECT count(*) FROM entries") ?? -1)
    }

    @Test func hitsAreByteIdenticalToFreshRunsForAllThreeTools() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite"
        for args in [["audio-probe"], ["lufs-measure"], ["lufs-measure", "--preset", "podcast"],
                     ["library-filter", "--all", "--sort", "title"], ["library-filter"]] {
            let tool = args[0], opts = Array(args.dropFirst()) + ["-j", "2"]
            let fresh = try Self.run(tool, opts + [dir + "/lib"])
            let cold = try Self.run(tool, opts + ["--cache", cache, dir + "/lib"])
            let warm = try Self.run(tool, opts + ["--cache", cache, dir + "/lib"])
            #expect(!fresh.stdout.isEmpty)
            #expect(cold.stdout == fresh.stdout && warm.stdout == fresh.stdout, "\(args)")
            #expect(cold.status == fresh.status && warm.status == fresh.status, "\(args)")
            #expect(warm.stderr == fresh.stderr, "\(args): \(warm.stderr)")
        }
        // audio-probe and library-filter share the probes (5 files: walks skip the cover art);
        // lufs-measure keeps one measurement per song.
        #expect(try Self.entries(cache) == 5 + 4)
        // Through the environment variable too, and the run really reads the cache.
        #expect(try Self.tamper(cache, "\"checked\":\"first and last second\"", "\"checked\":\"from the cache\"") == 4)
        var env = Self.plain
        env["AUDIO_TOOLS_CACHE"] = cache
        let viaEnv = try E2E.run("audio-probe", [dir + "/lib"], environment: env)
        #expect(viaEnv.records.filter { $0["probe"]?["checked"] == .string("from the cache") }.count == 4)
        let noCache = try E2E.run("audio-probe", ["--no-cache", dir + "/lib"], environment: env)
        #expect(!noCache.stdout.contains("from the cache"))
    }

    @Test func aChangedFileIsRecomputed() throws {
        let dir = E2E.tempDir("cache-change")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite", file = dir + "/song.wav"
        let marker = "\"checked\":\"from the cache\""
        func cacheIt() throws {
            _ = try Self.run("audio-probe", ["--cache", cache, file])
            #expect(try Self.tamper(cache, "\"checked\":\"first and last second\"", marker) == 1)
            #expect(try Self.run("audio-probe", ["--cache", cache, file]).stdout.contains(marker), "the entry is read while the file is unchanged")
        }
        func expectFresh(_ what: String) throws {
            let cached = try Self.run("audio-probe", ["--cache", cache, file])
            let fresh = try Self.run("audio-probe", [file])
            #expect(!cached.stdout.contains(marker), "\(what): the old entry was used")
            #expect(cached.stdout == fresh.stdout, "\(what)")
        }
        // Same size, new modification time (the content changed too).
        try Self.song(file, freq: 440)
        try cacheIt()
        try Self.song(file, freq: 880)
        Self.setMtime(file, Self.past + 1_000_000_000)
        try expectFresh("same size, new mtime")
        // Same modification time, new size.
        try cacheIt()
        try Self.song(file, seconds: 1.25, freq: 880)
        Self.setMtime(file, Self.past + 1_000_000_000)
        try expectFresh("same mtime, new size")
        // Replaced by a rename: same size and mtime, another inode.
        try cacheIt()
        try Self.song(dir + "/incoming.wav", seconds: 1.25, freq: 990)
        Self.setMtime(dir + "/incoming.wav", Self.past + 1_000_000_000)
        #expect(rename(dir + "/incoming.wav", file) == 0)
        try expectFresh("replaced by rename")
        // Only the modification time changed (one nanosecond).
        try cacheIt()
        Self.setMtime(file, Self.past + 1_000_000_001)
        try expectFresh("touched")
    }

    @Test func optionsThatChangeAResultMissAndAGateDoesNot() throws {
        let dir = E2E.tempDir("cache-options")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite", file = dir + "/song.wav"
        try Self.song(file, seconds: 2)
        // audio-probe: --deep is another entry.
        _ = try Self.run("audio-probe", ["--cache", cache, file])
        try Self.tamper(cache, "\"checked\":\"first and last second\"", "\"checked\":\"from the cache\"")
        let deep = try Self.run("audio-probe", ["--deep", "--cache", cache, file])
        let deepFresh = try Self.run("audio-probe", ["--deep", file])
        #expect(deep.stdout == deepFresh.stdout)
        // lufs-measure: --layout and --dual-mono miss; a gate is evaluated afresh on the kept measurement.
        _ = try Self.run("lufs-measure", ["--cache", cache, file])
        #expect(try Self.tamper(cache, "\"dual_mono\":false", "\"dual_mono\":\"from the cache\"") == 1)
        for opts in [["--layout", "mono"], ["--dual-mono"]] {
            let r = try Self.run("lufs-measure", opts + ["--cache", cache, file])
            let f = try Self.run("lufs-measure", opts + [file])
            #expect(r.stdout == f.stdout, "\(opts)")
        }
        for opts in [["--preset", "podcast"], ["--target", "-30", "--tolerance", "0.5"], ["--max-true-peak", "-40"],
                     ["--max-short-term", "-30"], ["--max-momentary", "-5"]] {
            let hit = try Self.run("lufs-measure", opts + ["--cache", cache, file])
            let fresh = try Self.run("lufs-measure", opts + [file])
            let h = try #require(hit.records.first?["loudness"]), f = try #require(fresh.records.first?["loudness"])
            #expect(h["dual_mono"] == .string("from the cache"), "\(opts): the measurement is reused")
            #expect(h["gate"] != nil && h["gate"] == f["gate"], "\(opts)")
            #expect(hit.status == fresh.status, "\(opts)")
        }
    }

    @Test func concurrentProcessesShareOneCacheSafely() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for i in 0..<8 { try Self.song(dir + "/lib/sub/more\(i).wav", seconds: 0.5, freq: 300 + 40 * Double(i)) }
        let cache = dir + "/cache.sqlite"
        let jobs: [[String]] = [["audio-probe", dir + "/lib"], ["audio-probe", dir + "/lib/sub"],
                                ["lufs-measure", dir + "/lib"], ["lufs-measure", dir + "/lib/sub"],
                                ["library-filter", "--all", dir + "/lib"], ["audio-probe", dir + "/lib"]]
        var fresh: [E2E.Run] = []
        for j in jobs { fresh.append(try Self.run(j[0], ["-j", "1"] + j.dropFirst())) }
        final class Results: @unchecked Sendable { var runs: [E2E.Run?]; let lock = NSLock(); init(_ n: Int) { runs = Array(repeating: nil, count: n) } }
        for round in 0..<2 {
            let results = Results(jobs.count)
            DispatchQueue.concurrentPerform(iterations: jobs.count) { i in
                let r = try? Self.run(jobs[i][0], ["-j", "2", "--cache", cache] + jobs[i].dropFirst())
                results.lock.lock(); results.runs[i] = r; results.lock.unlock()
            }
            for (i, r) in results.runs.enumerated() {
                let r = try #require(r)
                #expect(r.stdout == fresh[i].stdout && r.status == fresh[i].status, "round \(round): \(jobs[i])")
                // Nothing about the cache (the folder's own name, in the lines of failed files, aside).
                #expect(!r.stderr.replacingOccurrences(of: dir, with: "").contains("cache"), "round \(round): \(jobs[i]): \(r.stderr)")
            }
        }
        let db = try SQLiteConnection(path: cache, create: false)
        defer { db.close() }
        let check = try db.prepare("PRAGMA integrity_check")
        #expect(try check.step() && check.text(0) == "ok")
        #expect(try db.integer("SELECT count(*) FROM entries WHERE kind = 'probe'") == 13)
        #expect(try db.integer("SELECT count(*) FROM entries WHERE kind = 'loudness'") == 12)
    }

    @Test func aGarbageCacheIsMovedAsideOnceAndTheRunIsUnaffected() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite"
        let garbage = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: cache))
        let fresh = try Self.run("lufs-measure", ["-j", "2", dir + "/lib"])
        let r = try Self.run("lufs-measure", ["-j", "2", "--cache", cache, dir + "/lib"])
        #expect(r.stdout == fresh.stdout && r.status == fresh.status)
        #expect(r.stderr.components(separatedBy: "moved it aside").count == 2, "\(r.stderr)")
        let aside = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasPrefix("cache.sqlite.unusable-") })
        #expect(FileManager.default.contents(atPath: dir + "/" + aside) == garbage)
        // The new cache works: the next run says nothing and reads it.
        let warm = try Self.run("lufs-measure", ["-j", "2", "--cache", cache, dir + "/lib"])
        #expect(warm.stdout == fresh.stdout && !warm.stderr.replacingOccurrences(of: dir, with: "").contains("cache"))
        #expect(try Self.entries(cache) == 4)
    }

    @Test func aCacheThatCantBeWrittenIsSkippedWithAWarning() throws {
        let dir = try Self.makeLibrary()
        defer {
            chmod(dir + "/ro", 0o755)
            try? FileManager.default.removeItem(atPath: dir)
        }
        // A read-only folder; root may write anywhere, so for root a folder no one can create files in.
        let cache: String
        if getuid() == 0 {
            cache = "/proc/audio-tools-cache-test.sqlite"
        } else {
            try FileManager.default.createDirectory(atPath: dir + "/ro", withIntermediateDirectories: true)
            chmod(dir + "/ro", 0o555)
            cache = dir + "/ro/cache.sqlite"
        }
        let fresh = try Self.run("audio-probe", [dir + "/lib"])
        let r = try Self.run("audio-probe", ["--cache", cache, dir + "/lib"])
        #expect(r.stdout == fresh.stdout && r.status == fresh.status)
        #expect(r.stderr.contains("can't use the cache “audio-tools-cache-test.sqlite”") || r.stderr.contains("can't use the cache “cache.sqlite”"), "\(r.stderr)")
        #expect(r.stderr.contains("running without it"))
        #expect(r.stderr.components(separatedBy: "running without it").count == 2, "said once: \(r.stderr)")
    }

    @Test func getAnswersFromTheIndexAndWalksWhenTheFileMoved() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite", lib = dir + "/lib"
        let listing = try Self.run("library-filter", ["--cache", cache, lib])
        let gamma = try #require(listing.records.first { $0["path"]?.stringValue?.hasSuffix("/c.wav") == true })
        let id = try #require(gamma["library"]?["id"]?.stringValue)
        let fresh = try Self.run("library-filter", ["--get", id, lib])
        let indexed = try Self.run("library-filter", ["--get", id, "--cache", cache, lib])
        #expect(indexed.stdout == fresh.stdout && indexed.status == 0)
        #expect(indexed.stderr.contains("found by id in the cache's index"), "\(indexed.stderr)")
        // A copy elsewhere in the library is found too, once the cache has seen it.
        try FileManager.default.copyItem(atPath: lib + "/sub/c.wav", toPath: lib + "/c copy.wav")
        Self.setMtime(lib + "/c copy.wav", Self.past)
        _ = try Self.run("library-filter", ["--cache", cache, lib])
        let both = try Self.run("library-filter", ["--get", id, "--cache", cache, lib])
        let bothFresh = try Self.run("library-filter", ["--get", id, lib])
        #expect(both.records.count == 2 && both.stdout == bothFresh.stdout)
        #expect(both.stderr.contains("cache's index"))
        // Moved within the library: the index is out of date, so the folders are walked.
        try FileManager.default.removeItem(atPath: lib + "/c copy.wav")
        #expect(rename(lib + "/sub/c.wav", lib + "/moved.wav") == 0)
        let walked = try Self.run("library-filter", ["--get", id, "--cache", cache, lib])
        let walkedFresh = try Self.run("library-filter", ["--get", id, lib])
        #expect(walked.stdout == walkedFresh.stdout)
        #expect(walked.records.first?["path"]?.stringValue == lib + "/moved.wav")
        #expect(!walked.stderr.contains("cache's index"))
        // An id nobody has: a walk, then the error record.
        let gone = try Self.run("library-filter", ["--get", "0123456789abcdef01234567", "--cache", cache, lib])
        #expect(gone.status == 1 && gone.records.first?["error"]?["code"] == .string("not-found"))
    }

    @Test func pruneRemovesWhatIsGone() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = dir + "/cache.sqlite"
        _ = try Self.run("audio-probe", ["--cache", cache, dir + "/lib"])
        _ = try Self.run("lufs-measure", ["--cache", cache, dir + "/lib"])
        #expect(try Self.entries(cache) == 9)  // the cover art is skipped by the walk, never probed
        try FileManager.default.removeItem(atPath: dir + "/lib/a.wav")
        try FileManager.default.removeItem(atPath: dir + "/lib/cover.jpg")
        let r = try Self.run("audio-probe", ["--cache", cache, "--cache-prune"], stdin: "")
        #expect(r.status == 0 && r.stdout.isEmpty)
        #expect(r.stderr.contains("removed 2 entries for files that are gone or changed; 7 kept"), "\(r.stderr)")
        #expect(try Self.entries(cache) == 7)
        let usage = try Self.run("audio-probe", ["--cache-prune"], stdin: "")
        #expect(usage.status == 2 && usage.stderr.contains("--cache-prune needs a cache"))
    }

    @Test func gnuParallelShardsMergeIntoTheBytesOfOneRun() throws {
        guard E2E.has("parallel") else {
            Issue.record("GNU parallel is not installed (make test-deps installs it)")
            return
        }
        let dir = E2E.tempDir("parallel")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 1,100 small files in 11 folders: three shards of 500 lines.
        let seeds = (0..<5).map { F.taggedWAV(rate: 8000, channels: 1, seconds: 0.05 + 0.01 * Double($0), freq: 200 + 50 * Double($0), tags: ["INAM": "Seed \($0)"]) }
        var paths: [String] = []
        for n in 0..<1100 {
            let folder = "\(dir)/lib/f\(n % 11)"
            if n < 11 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            let p = "\(folder)/\(String(format: "%04d", n)).wav"
            try F.write(n % 97 == 0 ? Data("not audio".utf8) : seeds[n % 5], p)
            paths.append(p)
        }
        let list = paths.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: "\n") + "\n"
        let one = try Self.run("audio-probe", ["-j", "2"], stdin: list)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["parallel", "--will-cite", "--pipe", "--keep-order", "-N", "500", "-j", "2",
                       E2E.binDir.appendingPathComponent("audio-probe").path, "-j", "1"]
        p.environment = Self.plain
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let writer = Thread {
            try? inPipe.fileHandleForWriting.write(contentsOf: Data(list.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let merged = String(decoding: outPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(one.records.count == 1100)
        #expect(merged == one.stdout)
        // Each shard exits 1 like the single run, since a few files are not audio.
        #expect(one.status == 1 && p.terminationStatus == 3, "parallel exits with the number of failed jobs")
    }
}
