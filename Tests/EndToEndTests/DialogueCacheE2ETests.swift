import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// `lufs-measure --dialogue --cache`: a hit gives the record a fresh run gives, for any --jobs
/// and under a dialogue gate; other dialogue settings and runs without --dialogue miss.
@Suite struct DialogueCacheE2ETests {
    @Test(.enabled(if: DialogueE2ETests.weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: E2E.has("espeak-ng") && E2E.has("sox"), "espeak-ng and sox make the speech"))
    func dialogueResultsAreCachedAndIdentical() throws {
        let dir = E2E.tempDir("dialogue-cache")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try DialogueE2ETests.speech(dir))
        let tone = E2E.sine(440, dBFS: -12, seconds: 4, rate: 48000)
        let mono = tone + s.map { $0 * 0.5 } + tone
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [mono, mono])
        try E2E.write(dir + "/b.wav", rate: 48000, channels: [tone + s.map { $0 * 0.3 }])
        let files = [dir + "/a.wav", dir + "/b.wav"], cache = dir + "/cache.sqlite"
        for f in files { CacheE2ETests.setMtime(f, CacheE2ETests.past) }  // settled, so the cache keeps them
        let fresh = try CacheE2ETests.run("lufs-measure", ["--dialogue"] + files)
        #expect(fresh.status == 0 && fresh.records.allSatisfy { $0["loudness"]?["dialogue"]?["share"] != nil }, "\(fresh.stderr)")
        let stored = try CacheE2ETests.run("lufs-measure", ["--dialogue", "-j", "2", "--cache", cache] + files)
        #expect(stored.stdout == fresh.stdout)
        #expect(try CacheE2ETests.entries(cache) == 2)
        for jobs in ["1", "2"] {
            let hit = try CacheE2ETests.run("lufs-measure", ["--dialogue", "-j", jobs, "--cache", cache] + files)
            #expect(hit.stdout == fresh.stdout, "-j \(jobs): byte-identical")
        }
        // A dialogue gate is judged afresh on the kept dialogue loudness, as on a fresh run.
        let gatedFresh = try CacheE2ETests.run("lufs-measure", ["--preset", "netflix"] + files)
        let gatedHit = try CacheE2ETests.run("lufs-measure", ["--preset", "netflix", "--cache", cache] + files)
        #expect(gatedHit.stdout == gatedFresh.stdout && gatedHit.status == gatedFresh.status)
        #expect(gatedHit.records.first?["loudness"]?["gate"]?["gate_on"] == .string("dialogue"))

        // They are hits: a marker written into the entries comes back.
        #expect(try CacheE2ETests.tamper(cache, "\"listened_to\":\"", "\"listened_to\":\"cached ") == 2)
        let marked = try CacheE2ETests.run("lufs-measure", ["--dialogue", "--cache", cache] + files)
        #expect(marked.records.allSatisfy { $0["loudness"]?["dialogue"]?["listened_to"]?.stringValue?.hasPrefix("cached ") == true }, "\(marked.stdout)")
        // Another min share, or no --dialogue, misses: fresh records.
        let share = try CacheE2ETests.run("lufs-measure", ["--dialogue", "--min-dialogue-share", "0.9", "--cache", cache] + files)
        #expect(share.stdout == (try CacheE2ETests.run("lufs-measure", ["--dialogue", "--min-dialogue-share", "0.9"] + files)).stdout)
        let none = try CacheE2ETests.run("lufs-measure", ["--cache", cache] + files)
        #expect(none.stdout == (try CacheE2ETests.run("lufs-measure", files)).stdout)
        #expect(none.records.allSatisfy { $0["loudness"]?["dialogue"] == nil })
        // --timeline measures afresh, and what it stores has no spans: a later hit is unchanged.
        try? FileManager.default.removeItem(atPath: cache)
        let series = try CacheE2ETests.run("lufs-measure", ["--dialogue", "--timeline", "--cache", cache] + files)
        #expect(series.records.allSatisfy { $0["loudness"]?["dialogue"]?["timeline"] != nil })
        #expect(try CacheE2ETests.run("lufs-measure", ["--dialogue", "--cache", cache] + files).stdout == fresh.stdout)
    }

    /// A cached --dialogue result is not handed back when the weights are now missing or damaged:
    /// the run refuses as a fresh one does, naming the file; with the weights back it hits again.
    @Test(.enabled(if: DialogueE2ETests.weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"))
    func aCacheHitStillNeedsGoodWeights() throws {
        let dir = E2E.tempDir("dialogue-cache-weights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = E2E.sine(440, dBFS: -20, seconds: 2, rate: 48000)
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [tone, tone])
        CacheE2ETests.setMtime(dir + "/tone.wav", CacheE2ETests.past)
        let cache = dir + "/cache.sqlite"
        let good = DialogueE2ETests.root.appendingPathComponent(".build/models/\(SpeechModelFile.fileName)").path
        func run(weights: String) throws -> E2E.Run {
            var env = CacheE2ETests.plain
            env[SpeechModelFile.environmentVariable] = weights
            return try E2E.run("lufs-measure", ["--dialogue", "--cache", cache, dir + "/tone.wav"], environment: env)
        }
        let stored = try run(weights: good)
        #expect(stored.status == 0 && stored.records.first?["loudness"]?["dialogue"] != nil, "\(stored.stdout) \(stored.stderr)")
        #expect(try CacheE2ETests.entries(cache) == 1)
        // Missing: not-found, naming the file, and no loudness from the cache.
        let missing = dir + "/nowhere/\(SpeechModelFile.fileName)"
        let m = try run(weights: missing)
        #expect(m.status != 0)
        #expect(m.records.first?["error"]?["code"] == .string("not-found"), "\(m.stdout)")
        #expect(m.records.first?["error"]?["message"]?.stringValue?.contains("nowhere/\(SpeechModelFile.fileName)") == true)
        #expect(m.records.first?["loudness"] == nil)
        // Damaged (the right size, one byte changed): malformed.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        bytes[bytes.count / 2] ^= 0xFF
        let damaged = dir + "/damaged.onnx"
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let d = try run(weights: damaged)
        #expect(d.status != 0)
        #expect(d.records.first?["error"]?["code"] == .string("malformed"), "\(d.stdout)")
        #expect(d.records.first?["loudness"] == nil)
        // Good weights again: the stored result comes back unchanged.
        #expect(try run(weights: good).stdout == stored.stdout)
    }
}
