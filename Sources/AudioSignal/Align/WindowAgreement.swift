import Foundation

/// How the windows that show the backing side with a placement (one line, or stretches of steady
/// latency in take order), and whether it stands.
///
/// A window agrees with stretch k when its lag lies within the tolerance of stretch k's line.
/// The windows that agree, taken in take order, must go through the stretches in order (all of
/// stretch 0's, then all of stretch 1's, …): a genuine change of latency happens once and holds,
/// so a window can't show a latency that is not in effect during it. The longest such ordered
/// chain is the placement's support; a window that lies on some stretch's line but can't be in
/// that chain *contradicts* the placement (a repeating backing searched in the wrong place makes
/// windows alternate between its repeats). A window on no line shows the backing elsewhere.
///
/// The placement stands when nothing contradicts it and its support is a clear majority of the
/// windows that show the backing: at least two of every three, so every place it rivals has at
/// most half as many windows as it does.
public enum WindowAgreement {
    /// What the windows say of a placement.
    package struct Tally: Sendable, Equatable {
        /// Windows (indices into the points, in take order) in the ordered chain, with the stretch each backs.
        public var agreeing: [Int]
        public var stretchOf: [Int]
        /// Windows on a stretch's line out of order, and windows on no line.
        public var contradicting: [Int]
        public var elsewhere: [Int]
        /// All windows that show the backing (the points given).
        public var withBacking: Int

        /// Nothing contradicts the placement, and at least two in three windows back it.
        public var stands: Bool {
            !agreeing.isEmpty && contradicting.isEmpty && 3 * agreeing.count >= 2 * withBacking
        }
    }

    /// A place some windows agree on: its lag at take frame 0 (on the placement's drift) and how
    /// many windows lie on it.
    public struct Place: Sendable, Equatable {
        /// Lag of the reference inside the take at take frame 0, in take samples.
        public var lag: Double
        /// How many windows lie on it.
        public var windows: Int
        /// A place at `lag` with `windows` windows on it.
        public init(lag: Double, windows: Int) { self.lag = lag; self.windows = windows }
    }

    /// Tallies `points` (windows that show the backing, sorted by x) against stretches with
    /// lines `lag = intercept_k + slope·x`, in take order.
    package static func tally(_ points: [LatencySegments.Point], intercepts: [Double], slope: Double,
                             tolerance: Double) -> Tally {
        let k = intercepts.count
        let lies = points.map { p in (0..<k).filter { abs(p.y - (intercepts[$0] + slope * p.x)) <= tolerance } }
        // best[s]: the longest ordered chain so far whose last window backs stretch s, as
        // (length, last window); back[(i, s)]: the link before window i backing s.
        var best = [(length: Int, window: Int)](repeating: (0, -1), count: k)
        var back: [Int: (window: Int, stretch: Int)] = [:]
        for i in points.indices {
            var updates: [(s: Int, length: Int, link: (Int, Int))] = []
            for s in lies[i] {
                var length = 0, link = (-1, -1)
                for t in 0...s where best[t].length > length { length = best[t].length; link = (best[t].window, t) }
                updates.append((s, length + 1, link))
            }
            for u in updates where u.length > best[u.s].length {
                best[u.s] = (u.length, i)
                back[i * k + u.s] = u.link
            }
        }
        var agreeing: [Int] = [], stretchOf: [Int] = []
        if let end = (0..<k).max(by: { best[$0].length < best[$1].length || (best[$0].length == best[$1].length && $0 > $1) }),
           best[end].length > 0 {
            var link = (best[end].window, end)
            while link.0 >= 0 {
                agreeing.append(link.0); stretchOf.append(link.1)
                link = back[link.0 * k + link.1] ?? (-1, -1)
            }
            agreeing.reverse(); stretchOf.reverse()
        }
        let inChain = Set(agreeing)
        let contradicting = points.indices.filter { !inChain.contains($0) && !lies[$0].isEmpty }
        let elsewhere = points.indices.filter { lies[$0].isEmpty }
        return Tally(agreeing: agreeing, stretchOf: stretchOf, contradicting: contradicting, elsewhere: elsewhere,
                     withBacking: points.count)
    }

    /// The places the windows agree on, most windows first (then the smaller lag): lags taken
    /// back to take frame 0 along `slope` and grouped where neighbours lie within `tolerance`.
    package static func places(_ points: [LatencySegments.Point], slope: Double, tolerance: Double) -> [Place] {
        let at0 = points.map { $0.y - slope * $0.x }.sorted()
        var groups: [[Double]] = []
        for v in at0 {
            if let g = groups.last, v - g[g.count - 1] <= tolerance { groups[groups.count - 1].append(v) } else { groups.append([v]) }
        }
        return groups.map { Place(lag: $0.reduce(0, +) / Double($0.count), windows: $0.count) }
            .sorted { $0.windows != $1.windows ? $0.windows > $1.windows : $0.lag < $1.lag }
    }
}
