import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The limited path's vector loops against plain scalar loops written out here: the same values,
/// bit for bit (they decide the written file's bytes).
@Suite struct NormalizeVectorLoopTests {
    /// A unit's peak the scalar way: the largest |sample|, and the interpolated points (the
    /// oversampler's taps, summed tap by tap) either side of the first sample holding it.
    static func scalarUnitPeak(_ x: [Float], at s: Int, count: Int, taps: [Float], factor: Int, tapsPerPhase t: Int) -> Float {
        var m: Float = 0
        for i in s..<(s + count) where abs(x[i]) > m { m = abs(x[i]) }
        guard m > 0, factor > 1 else { return m }
        var a = s
        while abs(x[a]) != m { a += 1 }
        var best = m
        for start in (a - 1)...a {
            for p in 1..<factor {
                var sum: Float = 0
                for k in 0..<t { sum += taps[p * t + k] * x[start + t / 2 - k] }
                if abs(sum) > best { best = abs(sum) }
            }
        }
        return best
    }

    @Test(arguments: [44_100, 48_000, 96_000])
    func theAnalysisUnitPeaksAreTheScalarOnes(rate: Int) throws {
        let x = NormTestSignals.music(sampleRate: rate, seconds: 1.3, channels: 2, seed: 5)
        let plan = NormalizePlan(gainDB: 0, limit: true, totalFrames: x[0].count)
        var p = plan
        p.blockFrames = 1000
        let model = try NormalizePipeline.analyse(p, source: MemoryAudioSource(sampleRate: rate, channels: x),
                                                  weights: [1, 1])
        let os = TruePeakOversampler(sampleRate: rate)
        let reach = max(1, os.tapsPerPhase / 2)
        let padded = x.map { [Float](repeating: 0, count: reach) + $0 + [Float](repeating: 0, count: 4 * reach + 8) }
        let hop = (rate + 5) / 10
        var expected: [Float] = []
        var start = 0, unit = 0
        while start < x[0].count {
            let length = LimitedLoudnessModel.unitLength(unit % LimitedLoudnessModel.unitsPerHop, hop: hop)
            let count = min(length, x[0].count - start)
            expected.append(padded.map {
                Self.scalarUnitPeak($0, at: start + reach, count: count, taps: os.taps, factor: os.factor, tapsPerPhase: os.tapsPerPhase)
            }.max()!)
            start += length
            unit += 1
        }
        #expect(model.peakValues() == expected)
    }

    @Test func absMaxAndFirstIndexAreTheScalarOnes() {
        var rng = SplitMix64(seed: 3)
        for count in [1, 7, 8, 9, 15, 16, 17, 48, 79, 100] {
            for _ in 0..<20 {
                var x = (0..<count).map { _ in Float(rng.bipolar()) }
                // A repeated largest magnitude, of either sign: the first one must be found.
                if count > 4 { x[count - 1] = -x[count / 2] }
                let m = x.map { abs($0) }.max()!
                let got = x.withUnsafeBufferPointer { OversamplerPeakDetector.absMax($0.baseAddress!, count: count) }
                #expect(got == m)
                let index = x.withUnsafeBufferPointer { OversamplerPeakDetector.firstIndex(ofMagnitude: m, in: $0.baseAddress!, count: count) }
                #expect(index == x.firstIndex { abs($0) == m })
                var out = [Float](repeating: -1, count: count)
                x.withUnsafeBufferPointer { xb in
                    out.withUnsafeMutableBufferPointer { OversamplerPeakDetector.magnitudes(xb.baseAddress!, count: count, into: $0.baseAddress!) }
                }
                #expect(out == x.map { abs($0) })
            }
        }
    }

    @Test func withoutOversamplingTheDetectorGivesEachSampleMagnitude() {
        var rng = SplitMix64(seed: 8)
        let n = 700
        let x = (0..<n).map { _ in Float(rng.bipolar()) }
        var d = OversamplerPeakDetector(sampleRate: 192_000)
        var peaks = [Float](repeating: 0, count: n)
        let m = x.withUnsafeBufferPointer { xb in
            peaks.withUnsafeMutableBufferPointer { d.framePeaks(xb.baseAddress!, count: n, into: $0.baseAddress!, threshold: 0.01) }
        }
        #expect(peaks == x.map { abs($0) })
        #expect(m == peaks.max())
    }

    @Test func limiterStatsCountEveryLimitedFrame() {
        // Frames counted and the deepest reduction agree with the gain trace, over blocks whose
        // lengths aren't multiples of 8.
        let sr = 48_000
        var rng = SplitMix64(seed: 12)
        let x = (0..<(sr / 2)).map { i -> Float in Float((i / 3000) % 2 == 1 ? 1.4 : 0.2) * Float(rng.bipolar()) }
        let limiter = TruePeakLimiter(settings: .init(ceilingDBTP: -1), sampleRate: sr, channelCount: 2)
        limiter.gainTrace = []
        var b = AudioBlock(channelCount: 2, capacity: 1001)
        var i = 0
        while i < x.count {
            let k = min(1001, x.count - i)
            b.channels = [Array(x[i..<(i + k)]), Array(x[i..<(i + k)].map { $0 * 0.5 })]
            b.frames = k
            limiter.process(&b)
            i += k
        }
        limiter.flush(into: &b)
        let trace = limiter.gainTrace!
        #expect(trace.count == x.count)
        #expect(limiter.stats.framesLimited == trace.filter { $0 < 1 }.count)
        #expect(limiter.stats.framesLimited > 1000)
        #expect(limiter.stats.maxReductionDB == -20 * log10(Double(trace.min()!)))
    }
}
