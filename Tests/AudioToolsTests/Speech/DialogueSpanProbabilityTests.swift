import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Each dialogue span's mean probability of speech, and where the record puts it.
@Suite struct DialogueSpanProbabilityTests {
    static let c = SpeechDetector.chunkSeconds

    @Test func theMeanIsOverTheChunksWhoseCentreIsInTheSpan() {
        // Chunks 1, 2 and 3 are in the span (0.2, 0.4, 0.9 → 0.5); 0 and 4 are outside it.
        let p: [Float] = [0, 0.2, 0.4, 0.9, 0]
        let m = DialogueSpans.meanProbabilities(probabilities: p, chunkSeconds: Self.c, spans: [(Self.c, 4 * Self.c)])
        #expect(m.count == 1 && abs(m[0] - 0.5) < 1e-6, "\(m)")
        // A span's edge through a chunk: the chunk counts when its centre is inside (1.6c … 4.4c holds 2 and 3).
        let edges = DialogueSpans.meanProbabilities(probabilities: p, chunkSeconds: Self.c, spans: [(1.6 * Self.c, 4.4 * Self.c)])
        #expect(abs(edges[0] - 0.65) < 1e-6, "\(edges)")
    }

    @Test func everySpanGetsItsOwnMeanInOrder() {
        let p: [Float] = [0.9, 0.9, 0.1, 0.1, 0.5, 0.7]
        let m = DialogueSpans.meanProbabilities(probabilities: p, chunkSeconds: Self.c,
                                                spans: [(0, 2 * Self.c), (4 * Self.c, 6 * Self.c), (2.6 * Self.c, 2.9 * Self.c)])
        #expect(m.count == 3)
        #expect(abs(m[0] - 0.9) < 1e-6 && abs(m[1] - 0.6) < 1e-6, "\(m)")
        // Too narrow to hold a chunk's centre: the chunk under its own centre.
        #expect(abs(m[2] - 0.1) < 1e-6, "\(m)")
        // A span past the last chunk is cut to the chunks there are; no probabilities at all give 0.
        let past = DialogueSpans.meanProbabilities(probabilities: p, chunkSeconds: Self.c, spans: [(4 * Self.c, 9 * Self.c)])
        #expect(abs(past[0] - 0.6) < 1e-6)
        #expect(DialogueSpans.meanProbabilities(probabilities: [], chunkSeconds: Self.c, spans: [(0, 1)]) == [0])
    }

    @Test func theRecordCarriesTheMeansOnlyWithItsTimeline() {
        let blocks = LoudnessBlocks(momentary: [Double](repeating: 1e-3, count: 97))
        var d = DialogueLoudness(blocks: blocks, spans: [(1, 3), (6, 8)], durationSeconds: 10, minimumShare: 0.15)
        d.meanProbabilities = [0.87654, 0.4]
        let layout = ChannelLayout.standard(channelCount: 2)
        let with = DialogueMeasurement.json(d, listening: .downmix([0, 1]), layout: layout, timeline: true)
        #expect(with["timeline_mean_probability"] == .array([.double(0.87654, decimals: 3), .double(0.4, decimals: 3)]))
        #expect(with["timeline"]?.arrayValue?.count == 2)
        let without = DialogueMeasurement.json(d, listening: .downmix([0, 1]), layout: layout, timeline: false)
        #expect(without["timeline_mean_probability"] == nil && without["timeline"] == nil)
        // Taken out with the spans (the report's, the cache's).
        let stripped = DialogueMeasurement.withoutSpans(.object(["dialogue": with]))
        #expect(stripped["dialogue"] == without)
    }
}
