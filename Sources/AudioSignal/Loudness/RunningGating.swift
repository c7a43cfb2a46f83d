import Foundation

/// The gated loudness and the loudness range of blocks that keep coming (a live meter's values so
/// far), updated per block instead of from all the blocks at each reading: the blocks above the
/// absolute gate in a sorted structure with their exact sum, so that moving the relative gate
/// only touches the blocks it passes. The same bits as `LoudnessMeter.gatedLoudness` and
/// `loudnessRange` over the same blocks.
package struct RunningGating {
    package let relativeGateLU: Double
    private let absolute = LoudnessMeter.energy(ofLUFS: LoudnessMeter.absoluteGateLUFS)
    private let relativeFactor: Double
    /// The blocks above the absolute gate, sorted, and their exact sum.
    private var sorted = SortedBlocks()
    private var total = ExactSum()
    /// The exact sum of the blocks above `gate` (those kept by the relative gate last computed).
    private var kept = ExactSum()
    private var gate = -Double.infinity

    package init(relativeGateLU: Double) {
        self.relativeGateLU = relativeGateLU
        relativeFactor = pow(10, relativeGateLU / 10)
    }

    package mutating func add(_ z: Double) {
        guard z > absolute else { return }
        sorted.insert(z)
        total.add(z)
        if z > gate { kept.add(z) }
    }

    /// The relative gate for the blocks so far, with `kept` moved to it (only the blocks between
    /// the old gate and the new one change sides); nil before any block passes the absolute gate.
    private mutating func relativeGate() -> Double? {
        guard sorted.count > 0 else { return nil }
        let g = total.value / Double(sorted.count) * relativeFactor
        if g > gate {
            sorted.forEach(above: gate, upTo: g) { kept.subtract($0) }
        } else if g < gate {
            sorted.forEach(above: g, upTo: gate) { kept.add($0) }
        }
        gate = g
        return g
    }

    /// `LoudnessMeter.gatedLoudness` of the blocks so far.
    package mutating func gatedLoudness() -> Double? {
        guard let g = relativeGate() else { return nil }
        let n = sorted.count(above: max(g, absolute))
        guard n > 0 else { return nil }
        return LoudnessMeter.lufs(kept.value / Double(n))
    }

    /// `LoudnessMeter.loudnessRange` of the blocks so far: the 10th and 95th percentiles of the
    /// blocks above the relative gate, by rank in the sorted structure.
    package mutating func loudnessRange() -> Double? {
        guard let g = relativeGate() else { return nil }
        let n = sorted.count(above: g)
        guard n > 0 else { return nil }
        let first = sorted.count - n
        func percentile(_ p: Double) -> Double {
            let i = Int((Double(n - 1) * p).rounded(.toNearestOrAwayFromZero))
            return -0.691 + 10 * log10(sorted[first + i])
        }
        return percentile(0.95) - percentile(0.10)
    }
}

/// A sorted multiset of Doubles in chunks of at most `chunk` values: insertion moves at most a
/// chunk, rank and range queries walk the chunks' counts.
package struct SortedBlocks {
    package static let chunk = 1024
    private var chunks: [[Double]] = []
    package private(set) var count = 0

    package mutating func insert(_ z: Double) {
        count += 1
        guard !chunks.isEmpty else { chunks = [[z]]; return }
        // The first chunk whose last value is ≥ z (or the last chunk).
        var lo = 0, hi = chunks.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if chunks[mid].last! >= z { hi = mid } else { lo = mid + 1 }
        }
        let at = Self.firstIndex(in: chunks[lo], notBelow: z)
        chunks[lo].insert(z, at: at)
        if chunks[lo].count > Self.chunk {
            let tail = Array(chunks[lo][(Self.chunk / 2)...])
            chunks[lo].removeSubrange((Self.chunk / 2)...)
            chunks.insert(tail, at: lo + 1)
        }
    }

    /// The value of rank `i` (0 the smallest).
    package subscript(_ i: Int) -> Double {
        var i = i
        for c in chunks {
            if i < c.count { return c[i] }
            i -= c.count
        }
        preconditionFailure("rank \(i) past the end")
    }

    /// How many values are above `x`.
    package func count(above x: Double) -> Int {
        var n = 0
        for c in chunks.reversed() {
            guard c.first! <= x else { n += c.count; continue }
            return n + c.count - Self.firstIndex(in: c, above: x)
        }
        return n
    }

    /// Calls `body` with each value v where lo < v ≤ hi.
    package func forEach(above lo: Double, upTo hi: Double, _ body: (Double) -> Void) {
        for c in chunks where c.last! > lo && c.first! <= hi {
            var k = Self.firstIndex(in: c, above: lo)
            while k < c.count && c[k] <= hi { body(c[k]); k += 1 }
        }
    }

    private static func firstIndex(in c: [Double], notBelow x: Double) -> Int {
        var lo = 0, hi = c.count
        while lo < hi { let m = (lo + hi) / 2; if c[m] < x { lo = m + 1 } else { hi = m } }
        return lo
    }

    private static func firstIndex(in c: [Double], above x: Double) -> Int {
        var lo = 0, hi = c.count
        while lo < hi { let m = (lo + hi) / 2; if c[m] <= x { lo = m + 1 } else { hi = m } }
        return lo
    }
}
