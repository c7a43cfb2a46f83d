import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The running gating (lufs-measure --follow's figures so far) gives the same bits as gating all
/// the blocks at once, block after block; and the exact sums it rests on.
@Suite struct RunningGatingTests {
    /// Block energies of a programme with quiet stretches, loud ones, silence under the gate,
    /// repeated values (ties at the gates) and a jump late on that moves the relative gate far.
    static func blocks(_ n: Int, seed: UInt64) -> [Double] {
        var x = seed | 1
        func u() -> Double { x = x &* 6364136223846793005 &+ 1442695040888963407; return Double(x >> 11) / Double(1 << 53) }
        var out: [Double] = []
        var level = -23.0
        for i in 0..<n {
            if u() < 0.05 { level = -45 + 40 * u() }
            var l = level + 6 * (u() - 0.5)
            if u() < 0.03 { l = -80 }                  // under the absolute gate
            if i > n * 3 / 4 { l += 15 }               // a loud ending moves the gates
            if u() < 0.05, let last = out.last { out.append(last); continue }  // a repeated value
            out.append(LoudnessMeter.energy(ofLUFS: l))
        }
        return out
    }

    @Test(arguments: [1, 2, 3])
    func runningFiguresEqualTheBatchOnesAfterEveryBlock(seed: UInt64) {
        let all = Self.blocks(3000, seed: seed)
        var integrated = RunningGating(relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
        var range = RunningGating(relativeGateLU: LoudnessMeter.rangeRelativeGateLU)
        var mismatches = 0
        for (i, z) in all.enumerated() {
            integrated.add(z)
            range.add(z)
            // Read at every block early on, then now and then (as --follow reads), and at the end.
            guard i < 400 || i % 37 == 0 || i == all.count - 1 else { continue }
            let prefix = Array(all[...i])
            let batchI = LoudnessMeter.gatedLoudness(prefix, relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
            let batchR = LoudnessMeter.loudnessRange(prefix)
            if integrated.gatedLoudness() != batchI || range.loudnessRange() != batchR { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(integrated.gatedLoudness() != nil && range.loudnessRange()! > 5, "the material has a range to measure")
    }

    @Test func nothingOverTheAbsoluteGateIsUndefined() {
        var g = RunningGating(relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
        #expect(g.gatedLoudness() == nil && g.loudnessRange() == nil)
        g.add(LoudnessMeter.energy(ofLUFS: -90))
        g.add(0)
        #expect(g.gatedLoudness() == nil && LoudnessMeter.gatedLoudness([LoudnessMeter.energy(ofLUFS: -90), 0], relativeGateLU: -10) == nil)
        g.add(LoudnessMeter.energy(ofLUFS: -20))
        #expect(g.gatedLoudness() == LoudnessMeter.gatedLoudness([LoudnessMeter.energy(ofLUFS: -90), 0, LoudnessMeter.energy(ofLUFS: -20)], relativeGateLU: -10))
    }

    /// The meter's readings so far use the running gating: equal to a meter fed the prefix and finished.
    @Test func aMetersReadingsSoFarEqualItsFinish() {
        let rate = 48000
        let n = rate * 12
        let x: [Float] = (0..<n).map { i in
            let level = i < 4 * rate ? 0.02 : (i < 8 * rate ? 0.3 : 0.08)
            return Float(level * sin(Double(i) * 2 * .pi * 440 / Double(rate)))
        }
        let running = LoudnessMeter(sampleRate: rate, weights: [1])
        var pos = 0
        var readings = 0
        while pos < n {
            let k = min(rate / 10, n - pos)
            running.add(AudioBlock(channels: [Array(x[pos..<pos + k])], frames: k))
            pos += k
            let m = running.soFar()
            if pos % (rate * 3) == 0 || pos == n {
                let prefix = LoudnessMeter(sampleRate: rate, weights: [1])
                prefix.add(AudioBlock(channels: [Array(x[0..<pos])], frames: pos))
                #expect(m == prefix.finish(), "at \(pos) frames")
                readings += 1
            }
        }
        #expect(readings == 4)
    }

    @Test func exactSumsAreCorrectlyRoundedWhateverTheOrder() {
        // 1 + 2^−60 + … : a Double sum in this order loses the small terms; the exact one keeps them.
        let terms: [Double] = [1, 0x1p-60, 0x1p-60, 0x1p-60, 0x1p-60, 0x1p-60, 0x1p-60, 0x1p-60, 0x1p-60]
        var a = ExactSum(), b = ExactSum()
        for t in terms { a.add(t) }
        for t in terms.reversed() { b.add(t) }
        #expect(a.value == b.value && a.value == 1 + 0x1p-57)
        // Ties round to even; subtraction takes terms out exactly.
        var t = ExactSum()
        t.add(1); t.add(0x1p-53)
        #expect(t.value == 1)
        t.add(0x1p-80)
        #expect(t.value == 1 + 0x1p-52, "over the tie rounds up")
        t.subtract(0x1p-80); t.subtract(0x1p-53); t.subtract(1)
        #expect(t.value == 0)
        var s = ExactSum()
        s.add(0x1p-1074); s.add(1e300); s.subtract(1e300); s.add(3.5); s.subtract(5)
        #expect(s.value == -1.5, "negative sums and subnormal terms")
        s.add(.infinity)
        #expect(s.value == .infinity)
        // Random terms: the exact sum is the order-independent, correctly rounded one.
        var x: UInt64 = 99
        var values: [Double] = []
        for _ in 0..<2000 { x = x &* 6364136223846793005 &+ 1442695040888963407; values.append(Double(x >> 11) / Double(1 << 40) * 1e-3) }
        var forward = ExactSum(), backward = ExactSum()
        for v in values { forward.add(v) }
        for v in values.reversed() { backward.add(v) }
        #expect(forward.value == backward.value)
        #expect(abs(forward.value - values.reduce(0, +)) <= forward.value * 1e-12)
    }
}
