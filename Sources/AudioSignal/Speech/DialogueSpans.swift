import Foundation

/// Stretches of dialogue from the detector's per-chunk probabilities, in seconds, in four steps.
///
/// 1. Hysteresis: a span opens when the probability reaches `onset` and stays open while it is
///    above `offset`; a hangover bridges the breath between two sentences: a span closes only
///    after `hangoverSeconds` below `offset` (and ends where the probability last fell, not after
///    the hangover).
/// 2. Spans shorter than `minimumSeconds` are dropped (a click, a single syllable of a song), and so
///    are groups of spans in which the probability is never sustained (SpanCheck: a train of clicks).
/// 3. Each span is widened by `paddingSeconds` on both sides: the network's probability rises a
///    little after a word starts and falls a little before it ends, most under a loud bed.
/// 4. Spans whose gap is at most `bridgeSeconds` are joined: under a bed as loud as the
///    dialogue or louder the probability dips below `offset` inside a sentence; unlike a longer
///    hangover, only stretches that reach `onset` again are joined, so an effect that keeps the
///    probability just over `offset` does not stretch a span across it.
///
/// The constants were chosen on the programmes of Tests/Bench/dialogue_material.py (real speech
/// over real music and recorded effects, bed at −10 to +5 dB, stereo and 5.1): every accuracy
/// target holds there, with the least effects or music time taken for dialogue (docs/dialogue.md
/// has the table). Onset and offset are lower than Silero's own defaults (0.5 and 0.35), which
/// miss much of the dialogue under a bed level with it.
package enum DialogueSpans {
    public static let onset: Float = 0.35
    public static let offset: Float = 0.2
    public static let hangoverSeconds = 0.5
    public static let minimumSeconds = 0.1
    public static let paddingSeconds = 0.2
    public static let bridgeSeconds = 1.0
    /// Bumped when the steps or constants change, so cached dialogue measurements miss.
    public static let version = 3

    /// The spans as (from, to) seconds, in order, within `0...durationSeconds`.
    public static func spans(probabilities p: [Float], chunkSeconds: Double, durationSeconds: Double) -> [(from: Double, to: Double)] {
        var stretches: [Range<Int>] = []
        var open: Int?
        var lastAbove = 0
        let hangoverChunks = Int((hangoverSeconds / chunkSeconds).rounded())
        func close(_ start: Int, _ end: Int) {
            if Double(end - start) * chunkSeconds >= minimumSeconds - 1e-9 { stretches.append(start..<end) }
        }
        for (i, v) in p.enumerated() {
            if let s = open {
                if v > offset { lastAbove = i }
                else if i - lastAbove > hangoverChunks { close(s, lastAbove + 1); open = nil }
            } else if v >= onset {
                open = i
                lastAbove = i
            }
        }
        if let s = open { close(s, lastAbove + 1) }
        let raw = SpanCheck.sustained(stretches, probabilities: p, chunkSeconds: chunkSeconds)
            .map { (from: Double($0.lowerBound) * chunkSeconds, to: Double($0.upperBound) * chunkSeconds) }
        var out: [(from: Double, to: Double)] = []
        for r in raw {
            let from = max(0, r.from - paddingSeconds), to = min(durationSeconds, r.to + paddingSeconds)
            guard from < to else { continue }
            if let last = out.last, from - last.to <= bridgeSeconds + 1e-9 {
                out[out.count - 1].to = max(last.to, to)
            } else {
                out.append((from, to))
            }
        }
        return out
    }
}

/// Dialogue-gated loudness: BS.1770-4 gating over the 400 ms blocks that carry dialogue (a block
/// counts when at least half of it is inside a span), the loudness range over the 3 s blocks
/// that do, the share of the programme that is dialogue and whether it is under the fallback share.
public struct DialogueLoudness: Equatable, Sendable {
    public var integratedLUFS: Double?
    public var loudnessRangeLU: Double?
    /// Fraction of the programme's duration inside spans, 0–1.
    public var share: Double
    public var spans: [[Double]]
    /// Each span's mean probability of speech (DialogueSpans.meanProbabilities), in the spans' order.
    public var meanProbabilities: [Double] = []
    /// True when `share` is under the minimum share: a gate then judges programme loudness.
    public var fallback: Bool
    /// Why a value is undefined, and whether the share fell under the minimum; the tools word them.
    public var reasons: [Reason]

    /// What a dialogue measurement can't give, or gave under its minimum share.
    public enum Reason: Equatable, Sendable {
        /// The audio is shorter than one second.
        case tooShort
        /// No span of dialogue was found.
        case noDialogue
        /// No 400 ms block is at least half dialogue.
        case noDialogueBlock
        /// Every dialogue block is under the −70 LUFS absolute gate.
        case dialogueSilent
        /// No 3 s block is at least half dialogue: no dialogue loudness range.
        case noRangeBlock
        /// The share is under `minimum` (0–1): a gate judges programme loudness instead.
        case underMinimumShare(share: Double, minimum: Double)
    }

    /// A block counts as dialogue when at least this fraction of it is dialogue.
    public static let blockDialogueFraction = 0.5
    public static let defaultMinimumShare = 0.15

    /// The blocks' start times are k · 0.1 s (the meter's 100 ms grid), 0.4 s and 3 s long.
    public init(blocks: LoudnessBlocks, spans s: [(from: Double, to: Double)], durationSeconds: Double, minimumShare: Double) {
        spans = s.map { [$0.from, $0.to] }
        let inside = s.reduce(0) { $0 + ($1.to - $1.from) }
        share = durationSeconds > 0 ? min(1, inside / durationSeconds) : 0
        reasons = []
        func covered(_ from: Double, _ length: Double) -> Bool {
            var sum = 0.0
            for sp in s where sp.to > from && sp.from < from + length { sum += min(sp.to, from + length) - max(sp.from, from) }
            return sum >= Self.blockDialogueFraction * length - 1e-9
        }
        let momentary = blocks.momentary.enumerated().filter { covered(Double($0.offset) * 0.1, 0.4) }.map(\.element)
        let shortTerm = blocks.shortTerm.enumerated().filter { covered(Double($0.offset) * 0.1, 3) }.map(\.element)
        if durationSeconds < 1 {
            integratedLUFS = nil
            reasons.append(.tooShort)
        } else if s.isEmpty {
            integratedLUFS = nil
            reasons.append(.noDialogue)
        } else if momentary.isEmpty {
            integratedLUFS = nil
            reasons.append(.noDialogueBlock)
        } else {
            integratedLUFS = LoudnessMeter.gatedLoudness(momentary, relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
            if integratedLUFS == nil { reasons.append(.dialogueSilent) }
        }
        loudnessRangeLU = shortTerm.isEmpty ? nil : LoudnessMeter.loudnessRange(shortTerm)
        if loudnessRangeLU == nil, durationSeconds >= 1 {
            reasons.append(.noRangeBlock)
        }
        fallback = share < minimumShare
        if fallback {
            reasons.append(.underMinimumShare(share: share, minimum: minimumShare))
        }
    }
}
