import Foundation

/// Latency that changes along a take (a Bluetooth link re-synchronising, a recorder dropping a
/// buffer): the windows' measured lags split into stretches of steady latency.
///
/// A change is reported only where the windows on either side agree among themselves and
/// disagree across it by more than the measurement tolerance. A lone window that disagrees with
/// its neighbours is an outlier, not a stretch; a slow drift stays one stretch (each window is
/// compared with the line through the stretch so far, not with a constant).
///
/// All stretches share one clock drift (the devices' clocks don't change when the link does):
/// lag(x) = a_k + b·x in stretch k, fitted by least squares with a common slope b.
package enum LatencySegments {
    /// One measured window: its centre x (take frames) and lag y (take frames).
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { self.x = x; self.y = y }
    }

    /// The stretches found: indices into the points (in x order), and the points left out.
    public struct Split: Sendable, Equatable {
        public var groups: [[Int]]
        public var outliers: [Int]
    }

    /// Groups `points` (sorted by x) into stretches; `tolerance` is the measurement error
    /// (take frames) within which two windows agree. `slopeAllowance` (frames per frame) is the
    /// drift a lone window may show against the next before a line through them is known.
    public static func split(_ points: [Point], tolerance: Double, slopeAllowance: Double = 0) -> Split {
        guard !points.isEmpty else { return Split(groups: [], outliers: []) }
        // Runs: each point joins the run before it when it lies on that run's line.
        var runs: [[Int]] = [[0]]
        for i in 1..<points.count {
            let run = runs[runs.count - 1]
            let allowance = run.count == 1 ? slopeAllowance * abs(points[i].x - points[run[0]].x) : 0
            if agrees(points, run, with: points[i], tolerance: tolerance + allowance) {
                runs[runs.count - 1].append(i)
            } else {
                runs.append([i])
            }
        }
        var outliers: [Int] = []
        // Lone windows are outliers; then neighbouring runs that agree are one stretch again.
        var changed = true
        while changed {
            changed = false
            if let lone = runs.firstIndex(where: { $0.count == 1 }), runs.count > 1 {
                outliers.append(runs[lone][0])
                runs.remove(at: lone)
                changed = true
            }
            var k = 0
            while k + 1 < runs.count {
                let next = runs[k + 1]
                if agrees(points, runs[k], with: points[next[0]], tolerance: tolerance)
                    && agrees(points, next, with: points[runs[k].last!], tolerance: tolerance) {
                    runs[k] += next
                    runs.remove(at: k + 1)
                    changed = true
                } else {
                    k += 1
                }
            }
        }
        return Split(groups: runs, outliers: outliers.sorted())
    }

    /// Whether `p` lies within `tolerance` of the line through `run` (its constant, for one point).
    package static func agrees(_ points: [Point], _ run: [Int], with p: Point, tolerance: Double) -> Bool {
        let (a, b) = line(run.map { points[$0] })
        return abs(p.y - (a + b * p.x)) <= tolerance
    }

    /// Least-squares line y = a + b·x through `pts` (b = 0 for one point or equal x).
    public static func line(_ pts: [Point]) -> (Double, Double) {
        let n = Double(pts.count)
        guard n > 0 else { return (0, 0) }
        let mx = pts.reduce(0) { $0 + $1.x } / n, my = pts.reduce(0) { $0 + $1.y } / n
        var sxy = 0.0, sxx = 0.0
        for p in pts { sxy += (p.x - mx) * (p.y - my); sxx += (p.x - mx) * (p.x - mx) }
        let b = sxx > 0 ? sxy / sxx : 0
        return (my - b * mx, b)
    }

    /// One slope for all groups, one intercept per group: minimises Σ (y − a_g − b·x)².
    public static func commonSlopeFit(_ groups: [[Point]]) -> (intercepts: [Double], slope: Double) {
        var sxy = 0.0, sxx = 0.0
        var means: [(Double, Double)] = []
        for g in groups {
            let n = Double(max(g.count, 1))
            let mx = g.reduce(0) { $0 + $1.x } / n, my = g.reduce(0) { $0 + $1.y } / n
            means.append((mx, my))
            for p in g { sxy += (p.x - mx) * (p.y - my); sxx += (p.x - mx) * (p.x - mx) }
        }
        let b = sxx > 0 ? sxy / sxx : 0
        return (means.map { $0.1 - b * $0.0 }, b)
    }

    /// Where the change between two stretches happened, from short windows around it: each
    /// `(x, side)` is a window's centre and the stretch its lag matched (false: the earlier one,
    /// true: the later one). The split that leaves the most windows on their own side wins; the
    /// change is placed midway between the two windows around it. Nil without windows on both sides.
    public static func changePoint(_ windows: [(x: Double, later: Bool)]) -> Double? {
        let w = windows.sorted { $0.x < $1.x }
        guard w.contains(where: { $0.later }), w.contains(where: { !$0.later }) else { return nil }
        // score(s) = earlier windows before s + later windows from s on.
        var bestScore = -1, bestSplit = 1
        var before = 0
        var laterFrom = w.filter { $0.later }.count
        for s in 0...w.count {
            if s > 0 {
                if w[s - 1].later { laterFrom -= 1 } else { before += 1 }
            }
            guard s > 0 && s < w.count else { continue }
            let score = before + laterFrom
            if score > bestScore { bestScore = score; bestSplit = s }
        }
        return (w[bestSplit - 1].x + w[bestSplit].x) / 2
    }
}
