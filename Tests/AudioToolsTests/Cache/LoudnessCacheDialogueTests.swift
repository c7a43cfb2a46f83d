import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// `--dialogue` measurements in the cache: kept under the detector's name, version and the
/// dialogue settings, with dialogue loudness unrounded for a dialogue gate on a hit.
@Suite struct LoudnessCacheDialogueTests {
    @Test func aDialogueEntryIsKeptUnderItsDetectorAndSettings() throws {
        let dir = ResultCacheTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (file, stamp) = try ResultCacheTests.settledFile(in: dir)
        let results = try #require(ResultCache.open(path: dir + "/c.sqlite", version: "v1", warn: { _ in }))
        let plain = LoudnessCache(cache: results, layout: nil, dualMono: false)
        func keyed(_ version: String, _ share: Double) -> LoudnessCache {
            plain.keyed(dialogue: DialogueMeasurement.cacheKey(detector: "silero-vad-16k", version: version, minimumShare: share))
        }
        let m = LoudnessMeasurement(integratedLUFS: -23.000000000000004, loudnessRangeLU: 4, momentaryMaxLUFS: -10,
                                    shortTermMaxLUFS: -12, samplePeaks: [0.5], truePeaks: [0.5], frames: 48_000, sampleRate: 48000, notes: [])
        let loudness: JSON = .object(["dialogue": .object(["integrated_lufs": .double(-27.123456789, decimals: 2)]), "gate": .bool(true)])
        keyed("6.2.3", 0.15).store(path: file, stamp: stamp, identity: stamp.identity, loudness: loudness, measurement: m,
                                   dialogue: (-27.123456789012345, false))
        let hit = try #require(keyed("6.2.3", 0.15).lookup(path: file, forGate: true).entry)
        #expect(hit.measurement == m)
        #expect(hit.dialogue?.integratedLUFS == -27.123456789012345 && hit.dialogue?.fallback == false, "unrounded, for the gate")
        #expect(hit.loudness.serialized() == #"{"dialogue":{"integrated_lufs":-27.12}}"#, "kept without its gate")
        // Another detector version, another min share, or no --dialogue: a miss.
        #expect(keyed("6.2.4", 0.15).lookup(path: file, forGate: true).entry == nil)
        #expect(keyed("6.2.3", 0.2).lookup(path: file, forGate: true).entry == nil)
        #expect(plain.keyed(dialogue: DialogueMeasurement.cacheKey(detector: "other-vad", version: "6.2.3", minimumShare: 0.15))
            .lookup(path: file).entry == nil)
        #expect(plain.lookup(path: file).entry == nil)
        // No dialogue found: null loudness and the fallback come back as they were.
        keyed("6.2.3", 0.5).store(path: file, stamp: stamp, identity: stamp.identity, loudness: loudness, measurement: m, dialogue: (nil, true))
        let none = try #require(keyed("6.2.3", 0.5).lookup(path: file, forGate: true).entry)
        #expect(none.dialogue?.integratedLUFS == nil && none.dialogue?.fallback == true)
        // The detector this build runs, its weights' checksum and the span logic's version are in the key.
        let key = DialogueMeasurement.cacheKey(detector: SpeechModelFile.detectorName, version: SpeechModelFile.detectorVersion, minimumShare: 0.15)
        #expect(key.contains(SpeechModelFile.detectorName + "@" + SpeechModelFile.detectorVersion + "#" + SpeechModelFile.expectedDigest))
        #expect(key.contains("spans=\(DialogueSpans.version)"))
    }
}
