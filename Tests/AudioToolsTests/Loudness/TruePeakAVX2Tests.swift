import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The AVX2 true-peak kernel against the portable SIMD8 one it stands for: the same bits, value
/// for value, in both modes, at 4× and 2×, for every remainder of the vector width; and through a
/// whole meter and the limiter's detector. Only where the CPU has AVX2 (elsewhere there is one path).
@Suite(.enabled(if: VectorKernels.hasAVX2, "this CPU has no AVX2: only the portable kernel runs"))
struct TruePeakAVX2Tests {
    /// `history` + `count` random samples: noise at a level from the subnormal to past Float's
    /// range (so sums overflow to ±inf and inf − inf makes NaN), with steady tones and runs of zeros.
    static func signal(count: Int, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        let levels: [Float] = [1, 0.5, 1e-3, Float(bitPattern: 0x000A_E398), 3e38, 1]  // 1e-39, a subnormal
        let level = levels[Int(seed % UInt64(levels.count))]
        return (0..<(15 + count)).map { i in
            switch (i / 37 + Int(seed)) % 4 {
            case 0: return Float(rng.bipolar()) * level
            case 1: return Float(sin(Double(i) * 0.9)) * level
            case 2: return 0
            default: return Float(rng.bipolar())
            }
        }
    }

    static let counts = Array(0...40) + [63, 64, 65, 127, 128, 129] + (0..<8).map { 1000 + $0 }

    /// Both modes of `kernel`, AVX2 and portable, on the same input: the returned maximum and
    /// every frame peak as bit patterns.
    @Test(arguments: [48000, 96000])
    func sameBitsValueForValue(rate: Int) {
        let avx = TruePeakOversampler(sampleRate: rate)
        let portable = TruePeakOversampler(sampleRate: rate)
        portable.usesAVX2 = false
        #expect(avx.usesAVX2 && avx.factor == (rate == 48000 ? 4 : 2))
        for count in Self.counts {
            for seed in UInt64(0)..<6 {
                let x = Self.signal(count: count, seed: seed &* 1000 &+ UInt64(count))
                var peaksA = [Float](repeating: -1, count: count), peaksP = peaksA
                x.withUnsafeBufferPointer { xb in
                    let base = xb.baseAddress! + 15
                    let maxA = avx.kernel(base: base, count: count, framePeaks: nil)
                    let maxP = portable.kernel(base: base, count: count, framePeaks: nil)
                    #expect(maxA.bitPattern == maxP.bitPattern, "\(rate) Hz, \(count) positions, seed \(seed): \(maxA) vs \(maxP)")
                    let frameA = peaksA.withUnsafeMutableBufferPointer { avx.kernel(base: base, count: count, framePeaks: $0.baseAddress!) }
                    let frameP = peaksP.withUnsafeMutableBufferPointer { portable.kernel(base: base, count: count, framePeaks: $0.baseAddress!) }
                    #expect(frameA.bitPattern == frameP.bitPattern, "\(rate) Hz, \(count) positions, seed \(seed)")
                }
                #expect(peaksA.map(\.bitPattern) == peaksP.map(\.bitPattern), "\(rate) Hz, \(count) positions, seed \(seed)")
            }
        }
    }

    /// The cases above do reach NaN, infinity and subnormal peaks (so those are compared too).
    @Test func theSignalsReachTheEdgesOfFloat() {
        let o = TruePeakOversampler(sampleRate: 48000)
        var kinds = Set<FloatingPointClassification>()
        for count in Self.counts {
            for seed in UInt64(0)..<6 {
                let x = Self.signal(count: count, seed: seed &* 1000 &+ UInt64(count))
                var peaks = [Float](repeating: 0, count: count)
                x.withUnsafeBufferPointer { xb in
                    _ = peaks.withUnsafeMutableBufferPointer { o.kernel(base: xb.baseAddress! + 15, count: count, framePeaks: $0.baseAddress!) }
                }
                for p in peaks { kinds.insert(p.floatingPointClass) }
            }
        }
        #expect(kinds.isSuperset(of: [.quietNaN, .positiveInfinity, .positiveSubnormal, .positiveNormal, .positiveZero]), "\(kinds)")
    }

    /// Made inside `VectorKernels.portableOnly`, an oversampler keeps to the Swift kernel.
    @Test func thePortablePathCanBeForced() {
        #expect(TruePeakOversampler(sampleRate: 48000).usesAVX2)
        VectorKernels.$portableOnly.withValue(true) {
            #expect(!TruePeakOversampler(sampleRate: 48000).usesAVX2)
        }
    }

    /// A whole meter (true peak per channel, and the timeline's per-hop peaks) gives the same
    /// `LoudnessMeasurement` on either kernel, at 4× and 2×, on music-like noise and a loud sine
    /// (where nothing is skipped).
    @Test(arguments: [48000, 96000])
    func aWholeMeterGivesTheSameMeasurement(rate: Int) throws {
        let noise = LoudnessMeterTests.noise(seconds: 2.3, rate: rate, seed: 41)
        let sine = (0..<noise[0].count).map { Float(0.89 * sin(2 * Double.pi * 997 * Double($0) / Double(rate) + 0.3)) }
        let x = [noise[0], noise[1], sine]
        func measure() throws -> (LoudnessMeasurement, LoudnessTimeline?) {
            let meter = LoudnessMeter(sampleRate: rate, weights: [1, 1, 1], collectsTimeline: true)
            try Decoder.forEachBlock(MemoryAudioSource(sampleRate: rate, channels: x)) { meter.add($0) }
            return (meter.finish(), meter.timeline)
        }
        let (avx, avxTimeline) = try measure()
        let (portable, portableTimeline) = try VectorKernels.$portableOnly.withValue(true) { try measure() }
        #expect(avx == portable)
        #expect(avx.truePeaks.map(\.bitPattern) == portable.truePeaks.map(\.bitPattern))
        #expect(avxTimeline == portableTimeline && avxTimeline != nil)
        #expect(avx.truePeaks.count == 3 && avx.truePeaks[2] > 0.89)
    }

    /// The limiter's detector (the per-frame mode, with its own skip) writes the same peaks.
    @Test func theLimitersDetectorWritesTheSamePeaks() {
        let x = LoudnessMeterTests.noise(seconds: 1.1, rate: 44100, seed: 43)[0].map { $0 * 2.5 }
        var avx = OversamplerPeakDetector(sampleRate: 44100)
        var portable = VectorKernels.$portableOnly.withValue(true) { OversamplerPeakDetector(sampleRate: 44100) }
        var a = [Float](repeating: 0, count: x.count), p = a
        var i = 0
        while i < x.count {
            let n = min(1001, x.count - i)
            x.withUnsafeBufferPointer { xb in
                let ma = a.withUnsafeMutableBufferPointer { avx.framePeaks(xb.baseAddress! + i, count: n, into: $0.baseAddress! + i, threshold: 0.5) }
                let mp = p.withUnsafeMutableBufferPointer { portable.framePeaks(xb.baseAddress! + i, count: n, into: $0.baseAddress! + i, threshold: 0.5) }
                #expect(ma.bitPattern == mp.bitPattern)
            }
            i += n
        }
        #expect(a.map(\.bitPattern) == p.map(\.bitPattern))
        #expect(a.max()! > 0.5)
    }
}
