/// A second look at the stretches the hysteresis found, before they are padded and bridged: dialogue
/// is sustained, a transient is not.
///
/// Stretches close enough to be bridged into one span (at most `groupGapSeconds` apart: the bridge
/// plus the padding on both sides) form a group, and a group is kept only when the probability
/// stays above `DialogueSpans.offset` for `sustainedSeconds` running somewhere in it. A click, a
/// UI sound, a gunshot or a door lifts the network's probability for a chunk or two, and a train
/// of them, however close, never holds it; a sentence does, and the short words around it stay
/// with it. A word said alone, shorter than `sustainedSeconds` and far from any other, is dropped
/// too: it weighs little in a programme's dialogue loudness, and a lone stretch that short is far
/// more often an effect or a note of music.
///
/// `sustainedSeconds` was chosen on the TUNING set of Tests/Bench/dialogue_categories.py (the
/// shortest that took no music-only or effects-only time for dialogue there, with no dialogue lost
/// at beds of −5 dB or lower); the TEST set was not used to choose it.
package enum SpanCheck {
    /// A group needs the probability above the offset for this long, running.
    public static let sustainedSeconds = 0.45
    /// Stretches at most this far apart are one group: what padding and bridging would join.
    public static var groupGapSeconds: Double { DialogueSpans.bridgeSeconds + 2 * DialogueSpans.paddingSeconds }

    /// The stretches (chunk index ranges, in order) of the groups that hold a sustained run.
    public static func sustained(_ raw: [Range<Int>], probabilities p: [Float], chunkSeconds: Double) -> [Range<Int>] {
        let needed = Int((sustainedSeconds / chunkSeconds).rounded(.up))
        let gap = Int((groupGapSeconds / chunkSeconds).rounded(.down))
        func holds(_ r: Range<Int>) -> Bool {
            var run = 0
            for i in r where i < p.count {
                run = p[i] > DialogueSpans.offset ? run + 1 : 0
                if run >= needed { return true }
            }
            return false
        }
        var kept: [Range<Int>] = []
        var group: [Range<Int>] = []
        func close() {
            if group.contains(where: holds) { kept += group }
            group.removeAll()
        }
        for r in raw {
            if let last = group.last, r.lowerBound - last.upperBound > gap { close() }
            group.append(r)
        }
        close()
        return kept
    }
}
