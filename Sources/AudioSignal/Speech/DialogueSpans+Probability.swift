/// How sure the detector was of each span: the mean of its per-chunk probabilities.
extension DialogueSpans {
    /// The mean probability of speech over each span, in the spans' order: the mean of the chunks
    /// whose centre lies in `from..<to` (chunk i covers `i·chunkSeconds ..< (i+1)·chunkSeconds`),
    /// summed in order in double precision, so the figure is the same on every run. A span too
    /// narrow to hold a chunk's centre takes the chunk under its own centre. 0 when there are no
    /// probabilities at all.
    public static func meanProbabilities(probabilities p: [Float], chunkSeconds: Double,
                                         spans: [(from: Double, to: Double)]) -> [Double] {
        spans.map { s in
            guard !p.isEmpty, chunkSeconds > 0 else { return 0 }
            // Centre (i + ½)·c in [from, to)  ⇔  from/c − ½ ≤ i < to/c − ½.
            let first = max(0, Int((s.from / chunkSeconds - 0.5).rounded(.up)))
            let end = min(p.count, Int((s.to / chunkSeconds - 0.5).rounded(.up)))
            guard first < end else {
                let i = min(p.count - 1, max(0, Int(((s.from + s.to) / 2 / chunkSeconds).rounded(.down))))
                return Double(p[i])
            }
            var sum = 0.0
            for i in first..<end { sum += Double(p[i]) }
            return sum / Double(end - first)
        }
    }
}
