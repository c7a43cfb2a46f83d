import Foundation
import Testing
@testable import AudioSignal

/// SpanCheck: a group of stretches is dialogue only when the probability is sustained in it.
@Suite struct SpanCheckTests {
    static let chunk = SpeechDetector.chunkSeconds

    /// Probabilities from (value, seconds) runs.
    static func runs(_ r: [(Float, Double)]) -> [Float] { DialogueSpansTests.runs(r) }

    /// `pattern` `times` times over.
    static func repeated(_ pattern: [(Float, Double)], _ times: Int) -> [(Float, Double)] {
        (0..<times).flatMap { _ in pattern }
    }

    static func spans(_ p: [Float]) -> [(from: Double, to: Double)] {
        DialogueSpans.spans(probabilities: p, chunkSeconds: chunk, durationSeconds: Double(p.count) * chunk)
    }

    @Test func aTrainOfHundredMillisecondClicksIsNotDialogue() {
        // Each 100-ms click holds the probability a little longer (0.15 s at 0.9, over the
        // minimum), then 0.35 s at 0 (under the hangover: the hysteresis makes one long stretch of
        // them), ten times: 5 s, never 0.45 s running over the offset.
        let train = Self.runs([(0, 1)] + Self.repeated([(0.9, 0.15), (0, 0.35)], 10) + [(0, 1)])
        #expect(Self.spans(train).isEmpty)
        // The same with 1.2 s between the clicks (separate stretches, one group): not dialogue either.
        #expect(Self.spans(Self.runs([(0, 1)] + Self.repeated([(0.9, 0.15), (0, 1.2)], 6))).isEmpty)
        // A 1.2-s file of clicks: no dialogue at all.
        #expect(Self.spans(Self.runs(Self.repeated([(0.9, 0.15), (0, 0.15)], 4))).isEmpty)
        // Without the check the first train would be one span of about 5 s.
        let stretches = [32..<(32 + Int((4.65 / Self.chunk).rounded()))]
        #expect(SpanCheck.sustained(stretches, probabilities: train, chunkSeconds: Self.chunk).isEmpty)
    }

    @Test func aTwoSecondBurstModulatedAtFourHertzIsKept() {
        // Syllables at 4 Hz: 0.15 s at 0.9, 0.1 s at 0.3 (over the offset), for 2 s.
        let burst = Self.runs([(0, 1)] + Self.repeated([(0.9, 0.15), (0.3, 0.1)], 8) + [(0, 1)])
        let s = Self.spans(burst)
        #expect(s.count == 1, "\(s)")
        let pad = DialogueSpans.paddingSeconds
        #expect(abs(s[0].from - (1 - pad)) < 2 * Self.chunk && abs(s[0].to - (3 + pad)) < 2 * Self.chunk, "\(s)")
    }

    @Test func aShortWordIsKeptBesideASentenceAndDroppedAlone() {
        let word = SpanCheck.sustainedSeconds - 0.15
        // A 0.3-s word 1 s after a 2-s sentence: one group, both kept and bridged into one span.
        let beside = Self.runs([(0, 1), (0.9, 2), (0, 1), (0.9, word), (0, 1)])
        let b = Self.spans(beside)
        #expect(b.count == 1 && b[0].to > 4 + word, "\(b)")
        // The same word alone: dropped.
        #expect(Self.spans(Self.runs([(0, 1), (0.9, word), (0, 1)])).isEmpty)
        // A word as long as the sustained length, alone: kept.
        #expect(Self.spans(Self.runs([(0, 1), (0.9, SpanCheck.sustainedSeconds + Self.chunk), (0, 1)])).count == 1)
    }

    @Test func groupsAreWhatPaddingAndBridgingWouldJoin() {
        #expect(abs(SpanCheck.groupGapSeconds - (DialogueSpans.bridgeSeconds + 2 * DialogueSpans.paddingSeconds)) < 1e-12)
        // Index ranges: a lone short stretch further than the gap from a sustained one is dropped,
        // one within it is kept.
        let n = Int((SpanCheck.groupGapSeconds / Self.chunk).rounded(.down))
        var p = [Float](repeating: 0, count: 200)
        for i in 0..<30 { p[i] = 0.9 }
        for i in (30 + n)..<(33 + n) { p[i] = 0.9 }
        for i in (33 + 2 * n + 1)..<(36 + 2 * n + 1) { p[i] = 0.9 }
        let kept = SpanCheck.sustained([0..<30, (30 + n)..<(33 + n), (34 + 2 * n)..<(37 + 2 * n)], probabilities: p, chunkSeconds: Self.chunk)
        #expect(kept == [0..<30, (30 + n)..<(33 + n)], "\(kept)")
    }
}
