import Foundation

/// Latency that changes along the take: `BleedAligner.alignSegments` measures as `align` does,
/// and when the accepted windows don't all lie on one line, measures the take again in short
/// overlapping windows, splits them into stretches of steady latency (`LatencySegments`), and
/// places each change between the short windows that straddle it.
extension BleedAligner {
    /// A stretch of the take with one latency (and the take's common drift).
    public struct Segment: Sendable {
        /// First take frame of the stretch (0 for the first).
        public var from: Int
        /// Lag of the reference inside the take at `from`, in take frames (positive: late).
        public var latencySamples: Double
        /// Mean confidence of the stretch's windows.
        public var confidence: Double
        /// Windows measured inside the stretch and agreeing with it.
        public var windows: Int
    }

    /// An alignment with its stretches. `alignment.latencySamples` is the first stretch's.
    public struct Segmented: Sendable {
        /// The whole take's alignment (latency of the first stretch, common drift, confidence).
        public var alignment: Alignment
        /// The stretches of steady latency, in take order (one when the latency never changes).
        public var segments: [Segment]
        /// Windows left out as lone disagreements (dense scan only).
        public var outliers: Int
    }

    /// What `alignSegments` found: the stretches, or a refusal saying why there are none.
    public enum SegmentedOutcome: Sendable {
        /// The take's alignment and its stretches of steady latency.
        case aligned(Segmented)
        /// No offset: the evidence doesn't support one.
        case refused(Refusal)
    }

    /// Like `align`, reporting the stretches of steady latency.
    public func alignSegments(reference: AlignmentSignal, take: AlignmentSignal) throws -> SegmentedOutcome {
        let first = try align(reference: reference, take: take)
        let needsScan: Bool
        switch first {
        case .aligned(let a):
            needsScan = a.inlierCount < a.windows.filter({ $0.metrics.verdict == .accepted }).count
        case .refused(let r):
            needsScan = r.reason == .lowConfidence && r.acceptedCount >= 2
        }
        if needsScan, let s = try scan(reference: reference, take: take) { return s }
        switch first {
        case .aligned(let a):
            return .aligned(Segmented(alignment: a, segments: [Segment(from: 0, latencySamples: a.latencySamples,
                                                                       confidence: a.confidence, windows: a.agreeing)],
                                      outliers: 0))
        case .refused(let r):
            return .refused(r)
        }
    }

    /// The dense measurement; nil when it finds fewer than two stretches (the first verdict stands).
    /// The stretches stand only when the windows that show the backing back them in order, by a
    /// clear majority (WindowAgreement); otherwise the take is refused, naming the places.
    package func scan(reference: AlignmentSignal, take: AlignmentSignal) throws -> SegmentedOutcome? {
        let takeFrames = take.frameCount
        let maxLag = max(1, Int((settings.maxLagSeconds * sampleRate).rounded()))
        let tol = settings.outlierToleranceSeconds * sampleRate
        // Windows of 2 to 4 s, half overlapping.
        let w = min(takeFrames, max(Int(2 * sampleRate), min(Int(4 * sampleRate), takeFrames / 10)))
        let hop = max(1, w / 2)
        var starts = Array(stride(from: 0, through: max(0, takeFrames - w), by: hop))
        if let last = starts.last, last + w < takeFrames { starts.append(takeFrames - w) }
        let windows = try starts.map { try measure(take: take, reference: reference, start: $0, frames: w, maxLag: maxLag, warp: nil) }
        let accepted = windows.filter { $0.metrics.verdict == .accepted }
        let points = accepted.map { LatencySegments.Point(x: $0.centre, y: $0.lagSamples) }
        let split = LatencySegments.split(points, tolerance: tol, slopeAllowance: 200e-6)
        let groups = split.groups.filter { $0.count >= 2 }
        guard groups.count >= 2 else { return nil }
        let fit = LatencySegments.commonSlopeFit(groups.map { $0.map { points[$0] } })
        guard abs(fit.slope) <= settings.maxDriftPPM * 1e-6 else { return nil }
        func lag(_ g: Int, _ x: Double) -> Double { fit.intercepts[g] + fit.slope * x }

        // Each change: short windows (a second or two, an eighth of that apart) between the last
        // window of one stretch and the first of the next, each matched to one side.
        var froms = [0]
        let ws = max(Int(sampleRate), w / 2)
        let step = max(1, ws / 8)
        for g in 0..<(groups.count - 1) {
            let lastA = points[groups[g].last!].x, firstB = points[groups[g + 1].first!].x
            var sides: [(x: Double, later: Bool)] = []
            var c = Int(lastA) - ws / 2
            while c <= Int(firstB) + ws / 2 {
                let s = max(0, min(takeFrames - ws, c - ws / 2))
                let e = try measure(take: take, reference: reference, start: s, frames: ws, maxLag: maxLag, warp: nil)
                if e.metrics.verdict != .noBleed {
                    let da = abs(e.lagSamples - lag(g, e.centre)), db = abs(e.lagSamples - lag(g + 1, e.centre))
                    if min(da, db) <= tol { sides.append((e.centre, db < da)) }
                }
                c += step
            }
            let change = LatencySegments.changePoint(sides) ?? (lastA + firstB) / 2
            froms.append(max(froms.last! + 1, min(takeFrames - 1, Int(change.rounded()))))
        }

        // Every window that shows the backing has its say: the stretches, in order, must have a clear majority.
        let shown = windows.filter { $0.metrics.verdict != .noBleed }
        let shownPoints = shown.map { LatencySegments.Point(x: $0.centre, y: $0.lagSamples) }
        let tally = WindowAgreement.tally(shownPoints, intercepts: fit.intercepts, slope: fit.slope, tolerance: tol)
        let backing = groups.indices.map { g in zip(tally.agreeing, tally.stretchOf).filter { $0.1 == g }.map { shown[$0.0] } }
        guard tally.stands, backing.allSatisfy({ $0.count >= 2 }) else {
            let best = windows.max { $0.metrics.confidence < $1.metrics.confidence }
            return .refused(Refusal(reason: .lowConfidence, confidence: best?.metrics.confidence ?? 0, bestMetrics: best?.metrics,
                                    acceptedCount: accepted.count, windows: windows,
                                    places: WindowAgreement.places(shownPoints, slope: fit.slope, tolerance: tol),
                                    withBacking: shown.count))
        }
        let grouped = groups.flatMap { $0 }.map { accepted[$0] }
        let segments = groups.indices.map { g in
            Segment(from: froms[g], latencySamples: lag(g, Double(froms[g])),
                    confidence: backing[g].reduce(0) { $0 + $1.metrics.confidence } / Double(max(backing[g].count, 1)),
                    windows: backing[g].count)
        }
        let meanConfidence = tally.agreeing.reduce(0) { $0 + shown[$1].metrics.confidence } / Double(tally.agreeing.count)
        let bleed = grouped.reduce(0) { $0 + $1.bleedEnergy }, rest = grouped.reduce(0) { $0 + $1.residualEnergy }
        // Standard error of the common slope.
        var sse = 0.0, sxx = 0.0
        for (g, members) in groups.enumerated() {
            let mx = members.reduce(0) { $0 + points[$1].x } / Double(members.count)
            for i in members {
                sse += pow(points[i].y - lag(g, points[i].x), 2)
                sxx += pow(points[i].x - mx, 2)
            }
        }
        let dof = grouped.count - groups.count - 1
        let uncertainty = dof > 0 && sxx > 0 ? (sse / Double(dof) / sxx).squareRoot() * 1e6 : nil
        let alignment = Alignment(
            latencySeconds: fit.intercepts[0] / sampleRate, latencySamples: fit.intercepts[0],
            driftPPM: fit.slope * 1e6, driftUncertaintyPPM: uncertainty,
            confidence: meanConfidence * Double(tally.agreeing.count) / Double(shown.count),
            bleedDB: 10 * log10(max(bleed, 1e-30) / max(rest, 1e-30)),
            polarity: grouped.reduce(0) { $0 + $1.gain } < 0 ? -1 : 1,
            inlierCount: grouped.count, windows: windows, agreeing: tally.agreeing.count, withBacking: shown.count)
        return .aligned(Segmented(alignment: alignment, segments: segments, outliers: accepted.count - grouped.count))
    }
}
