import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The folded interpolator against the plain convolution it stands for, and the skip rule
/// against the unskipped computation, on random signals.
@Suite struct TruePeakKernelTests {
    /// Random material of the kinds that stress the skip: steady loud tones (nothing can be
    /// skipped), quiet stretches after loud ones (everything can), isolated clicks, full-scale
    /// square-ish runs (the largest overshoots) and noise, in random order and lengths.
    static func material(seed: UInt64, frames: Int) -> [Float] {
        var rng = SplitMix64(seed: seed)
        var x = [Float](repeating: 0, count: frames)
        var i = 0
        while i < frames {
            let n = min(frames - i, 20 + Int((rng.bipolar() + 1) * 400))
            let level = pow(10, (rng.bipolar() - 1) * 1.5)       // −60 dB ... 0 dB
            let f = 0.001 + 0.24 * (rng.bipolar() + 1)            // up to 0.48·fs
            let kind = Int((rng.bipolar() + 1) * 2.5)
            for k in 0..<n {
                let v: Double
                switch kind {
                case 0: v = level * sin(2 * Double.pi * f * Double(k))
                case 1: v = k == n / 2 ? level : 0
                case 2: v = (k / max(1, Int(1 / f)) % 2 == 0 ? 1 : -1) * level
                case 3: v = level * rng.bipolar()
                default: v = 0
                }
                x[i + k] = Float(v)
            }
            i += n
        }
        return x
    }

    @Test func branchesAreExactMirrors() {
        for rate in [48000, 96000] {
            let o = TruePeakOversampler(sampleRate: rate)
            let f = o.factor, t = o.tapsPerPhase
            for p in 1..<f {
                for k in 0..<t { #expect(o.taps[p * t + k] == o.taps[(f - p) * t + (t - 1 - k)], "\(rate) Hz branch \(p) tap \(k)") }
            }
        }
    }

    /// Every frame's peak from the folded kernel is the plain sum Σ h_p[k]·x[n−k] (in Double) over
    /// every branch, to Float rounding.
    @Test func foldedKernelIsThePlainConvolution() {
        for (rate, seed) in [(48000, UInt64(1)), (44100, 2), (96000, 3)] {
            let o = TruePeakOversampler(sampleRate: rate)
            let f = o.factor, t = o.tapsPerPhase, d = o.latency
            let x = Self.material(seed: seed, frames: 3001)
            var out = [Float](repeating: 0, count: x.count)
            x.withUnsafeBufferPointer { src in out.withUnsafeMutableBufferPointer { o.interSamplePeaks(src, into: $0) } }
            var worst = 0.0
            for n in 0..<x.count {
                func at(_ i: Int) -> Double { i >= 0 ? Double(x[i]) : 0 }
                var expected = abs(at(n - d))
                for p in 1..<f {
                    var y = 0.0
                    for k in 0..<t { y += Double(o.taps[p * t + k]) * at(n - k) }
                    expected = max(expected, abs(y))
                }
                worst = max(worst, abs(Double(out[n]) - expected))
            }
            // Float sums of ≤ 16 products of values ≤ 1 with Σ|h| < 2: a few ulps of 2.
            #expect(worst < 2e-6, "\(rate) Hz: \(worst)")
        }
    }

    /// Whatever the signal and however it is cut into calls, `add` + `finish` (which skips what
    /// cannot raise the maximum) ends on exactly the maximum of every frame's peak.
    @Test(arguments: [UInt64(5), 6, 7, 8, 9, 10])
    func skippingIsExactOnRandomSignals(seed: UInt64) {
        let rate = seed % 3 == 0 ? 96000 : 48000
        let x = Self.material(seed: seed, frames: 20_000)
        var rng = SplitMix64(seed: seed &* 31)
        let skipping = TruePeakOversampler(sampleRate: rate)
        var i = 0
        while i < x.count {
            let n = min(x.count - i, 1 + Int((rng.bipolar() + 1) * 150))
            x.withUnsafeBufferPointer { skipping.add(UnsafeBufferPointer(rebasing: $0[i..<(i + n)])) }
            i += n
        }
        skipping.finish()
        let full = TruePeakOversampler(sampleRate: rate)
        let padded = x + [Float](repeating: 0, count: full.latency)
        var peaks = [Float](repeating: 0, count: padded.count)
        padded.withUnsafeBufferPointer { src in peaks.withUnsafeMutableBufferPointer { full.interSamplePeaks(src, into: $0) } }
        #expect(skipping.truePeak == peaks.max()!, "seed \(seed)")
        #expect(skipping.samplePeak == x.map(abs).max()!)
    }
}
