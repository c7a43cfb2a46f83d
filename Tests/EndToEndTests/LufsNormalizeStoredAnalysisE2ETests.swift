import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The limiter analysis kept in the cache, as a user meets it: `lufs-measure --cache C
/// --keep-analysis` then `lufs-normalize --cache C` writes a loud master in one pass over the
/// source, the same bytes and the same record as without the cache. To show the kept analysis was
/// really read, one test alters it in the cache: the file written then changes.
@Suite struct LufsNormalizeStoredAnalysisE2ETests {
    static let hasSox = E2E.has("sox")

    /// A loud 20-second master (the bench's material), modified in the past so the cache keeps it.
    /// At −8 LUFS its peaks go nearly 3 dB into the limiter: enough that the gain is predicted
    /// before the first write (with less, the plain gain is written first and analysed as it goes).
    static func master(_ dir: String) throws -> String {
        let f = dir + "/master.wav"
        try LufsNormalizePredictedE2ETests.material(f, seconds: 20)
        CacheE2ETests.setMtime(f, CacheE2ETests.past)
        return f
    }

    static func normalize(_ out: String, cache: String?, stdin: String, format: [String] = [], name: String = "master.wav") throws
        -> (record: String, bytes: Data, passes: Int?) {
        let r = try CacheE2ETests.run("lufs-normalize", ["--target", "-8", "--true-peak", "-1", "--out-dir", out] + format
                                          + (cache.map { ["--cache", $0] } ?? []) + ["-"], stdin: stdin)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        // The output folder is in the record: make it the same for both runs before comparing.
        let record = r.stdout.replacingOccurrences(of: out, with: "OUT")
        return (record, try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)),
                r.records.first?["normalized"]?["passes"]?.intValue)
    }

    /// The stored analysis of `path`, straight from the cache file (without the checksum after it).
    static func storedBytes(_ cache: String, _ path: String) throws -> [UInt8]? {
        let db = try SQLiteConnection(path: cache, create: false)
        defer { db.close() }
        let s = try db.prepare("SELECT rowid FROM entries WHERE kind = 'limiter-analysis' AND path = ?1")
        guard let row = try s.with([.text(path)], { try $0.step() ? $0.int64(0) : nil }) else { return nil }
        let blob = try db.openBlob(table: "entries", column: "value", rowid: row, writable: false)
        var bytes = [UInt8](repeating: 0, count: max(blob.count - 8, 0))
        if !bytes.isEmpty { try bytes.withUnsafeMutableBytes { try blob.read(into: $0.baseAddress!, count: $0.count, at: 0) } }
        return bytes
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func theKeptAnalysisSavesAPassAndChangesNoByte() throws {
        let dir = E2E.tempDir("stored-analysis")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = try Self.master(dir), cache = dir + "/c.sqlite"
        let plainMeasure = try CacheE2ETests.run("lufs-measure", [f])
        let fresh = try Self.normalize(dir + "/fresh", cache: nil, stdin: plainMeasure.stdout)
        #expect(fresh.passes == 2, "an analysis pass and one write")

        let m = try CacheE2ETests.run("lufs-measure", ["--cache", cache, "--keep-analysis", f])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(m.stdout == plainMeasure.stdout, "the measurement is the same with --keep-analysis")
        let stored = try #require(try Self.storedBytes(cache, f), "lufs-measure kept the analysis")
        // 20 s: 20,000 units of an energy and a peak (and a few peaks past the end), 4 bytes each.
        #expect(stored.count > 8 * 20_000 && stored.count < 8 * 20_100, "\(stored.count) bytes")

        let cached = try Self.normalize(dir + "/cached", cache: cache, stdin: m.stdout)
        #expect(cached.bytes == fresh.bytes, "the same file written")
        #expect(cached.record == fresh.record, "the same record (passes counts the analysis, made earlier)")

        // Read, not recomputed: with the energies scaled up by 3 dB in the cache the first write
        // misses the target by 3 LU, so the file is written again.
        var altered = stored
        altered.withUnsafeMutableBytes { raw in
            let units = Int(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            for k in 0..<units {
                let at = LimitedLoudnessModel.storedHeaderBytes + 4 * k
                let e = Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)) * 2
                raw.storeBytes(of: e.bitPattern, toByteOffset: at, as: UInt32.self)
            }
        }
        let results = try #require(ResultCache.open(path: cache, version: HelpText.version, warn: { _ in }))
        let stamp = try #require(FileStamp.of(f))
        results.storeBytes(kind: LimiterAnalysisCache.kind, settings: LimiterAnalysisCache.settings(weights: [1, 1], sampleRate: 48000),
                      path: f, stamp: stamp, count: altered.count) { blob in
            try altered.withUnsafeBytes { try blob.write(from: $0.baseAddress!, count: altered.count, at: 0) }
        }
        results.close()
        #expect(try Self.storedBytes(cache, f) == altered, "the key the tools use")
        let misled = try Self.normalize(dir + "/misled", cache: cache, stdin: m.stdout)
        #expect(misled.passes == 3 && misled.record != fresh.record, "the altered analysis was used: \(misled.record)")

        // The file changed (its time): the kept analysis is not used, and the fresh one replaces it.
        CacheE2ETests.setMtime(f, CacheE2ETests.past + 1_000_000_000)
        let remeasured = try CacheE2ETests.run("lufs-measure", [f])
        let after = try Self.normalize(dir + "/after", cache: cache, stdin: remeasured.stdout)
        #expect(after.bytes == fresh.bytes && after.passes == 2)
        #expect(try Self.storedBytes(cache, f) == stored, "lufs-normalize kept its own analysis for the next run")
        let again = try Self.normalize(dir + "/again", cache: cache, stdin: remeasured.stdout)
        #expect(again.bytes == fresh.bytes && again.record == after.record)
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func aLossyOutputsTrialUsesTheKeptAnalysisToo() throws {
        let dir = E2E.tempDir("stored-analysis-lossy")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = try Self.master(dir), cache = dir + "/c.sqlite"
        let m = try CacheE2ETests.run("lufs-measure", ["--cache", cache, "--keep-analysis", f])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try Self.storedBytes(cache, f) != nil)
        for format in ["ogg", "flac"] {
            let args = ["--format", format] + (format == "ogg" ? ["--allow-loss"] : [])
            let fresh = try Self.normalize(dir + "/fresh-" + format, cache: nil, stdin: m.stdout, format: args, name: "master." + format)
            let cached = try Self.normalize(dir + "/cached-" + format, cache: cache, stdin: m.stdout, format: args, name: "master." + format)
            #expect(cached.bytes == fresh.bytes && cached.record == fresh.record, "\(format): \(cached.record)")
        }
    }

    @Test func keepAnalysisNeedsACache() throws {
        let r = try CacheE2ETests.run("lufs-measure", ["--keep-analysis", "x.wav"])
        #expect(r.status == 2 && r.stdout.isEmpty)
        #expect(r.stderr.contains("--keep-analysis keeps the analysis in the cache: give --cache FILE or set AUDIO_TOOLS_CACHE."), "\(r.stderr)")
    }
}
