import Foundation

/// One signal K-weighted (BS.1770) into energies per 100-ms hop, for a loudness beside the
/// meter's (the mono fold-down); gated at the end as BS.1770-4 gates 400-ms blocks.
package struct KWeightedHops {
    package let k: KWeighting
    package let hop: Int
    private var s1 = 0.0, s2 = 0.0, t1 = 0.0, t2 = 0.0
    private var inHop = 0
    private var energy = 0.0
    package private(set) var hops: [Double] = []

    package init(sampleRate: Int) {
        k = KWeighting(sampleRate: sampleRate)
        hop = (sampleRate + 5) / 10
    }

    /// Filters `count` samples at `x` (transposed direct form II, state in locals).
    package mutating func add(_ x: UnsafePointer<Float>, count: Int) {
        let a = k.shelf, b = k.highPass
        var s1 = self.s1, s2 = self.s2, t1 = self.t1, t2 = self.t2
        var e = energy, inHop = self.inHop
        var i = 0
        while i < count {
            let n = min(count - i, hop - inHop)
            for j in i..<(i + n) {
                let v = Double(x[j])
                let y = a.b0 * v + s1
                s1 = a.b1 * v - a.a1 * y + s2
                s2 = a.b2 * v - a.a2 * y
                let z = y + t1
                t1 = -2 * y - b.a1 * z + t2
                t2 = y - b.a2 * z
                e += z * z
            }
            i += n
            inHop += n
            if inHop == hop { hops.append(e); e = 0; inHop = 0 }
        }
        // Denormals in a long silence would slow the filter; they are far below anything measured.
        if abs(s1) < 1e-30 { s1 = 0 }; if abs(s2) < 1e-30 { s2 = 0 }
        if abs(t1) < 1e-30 { t1 = 0 }; if abs(t2) < 1e-30 { t2 = 0 }
        self.s1 = s1; self.s2 = s2; self.t1 = t1; self.t2 = t2
        energy = e; self.inHop = inHop
    }

    /// The gated integrated loudness of the signal played on `weight` channels' worth of
    /// loudspeakers (2: the same signal on both front speakers), LUFS; nil when nothing passes the gate.
    package func integratedLUFS(weight: Double) -> Double? {
        Self.gated(hops.map { $0 * weight }, hop: hop)
    }

    /// The loudness of several signals as one programme (each weighted 1).
    package static func integratedLUFS(_ parts: [KWeightedHops]) -> Double? {
        guard let first = parts.first else { return nil }
        let count = parts.map(\.hops.count).min() ?? 0
        let sum = (0..<count).map { i in parts.reduce(0.0) { $0 + $1.hops[i] } }
        return gated(sum, hop: first.hop)
    }

    /// 400-ms blocks every 100 ms (four hops), gated at −70 LUFS and −10 LU relative.
    private static func gated(_ hops: [Double], hop: Int) -> Double? {
        guard hops.count >= 4 else { return nil }
        var blocks: [Double] = []
        blocks.reserveCapacity(hops.count - 3)
        for i in 3..<hops.count { blocks.append((hops[i - 3] + hops[i - 2] + hops[i - 1] + hops[i]) / Double(4 * hop)) }
        return LoudnessMeter.gatedLoudness(blocks, relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
    }
}
