import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The analysis's unit peaks from the AVX2 kernel against the Swift loop they stand for: the same
/// bits, unit for unit, on noise from subnormal to overflowing (sums turn ±inf and NaN), NaN and
/// infinite samples, silences, a largest magnitude repeated in a unit, at every rate with a vector layout, cut into blocks of many sizes.
@Suite(.enabled(if: VectorKernels.hasAVX2, "this CPU has no AVX2: only the Swift loop runs"))
struct UnitPeaksAVX2Tests {
    static func peaks(_ x: [[Float]], rate: Int, blocks: [Int], portable: Bool) -> [Float] {
        let analyzer = VectorKernels.$portableOnly.withValue(portable) {
            LimitedLoudnessAnalyzer(sampleRate: rate, weights: [1, 1], limit: true)
        }
        var start = 0, b = 0
        while start < x[0].count {
            let n = min(blocks[b % blocks.count], x[0].count - start)
            analyzer.add(AudioBlock(channels: x.map { Array($0[start..<(start + n)]) }, frames: n))
            start += n
            b += 1
        }
        return analyzer.finish(settings: TruePeakLimiter.Settings(ceilingDBTP: -1)).peakValues()
    }

    @Test(arguments: [44_100, 48_000, 96_000])
    func theKernelGivesTheSwiftLoopsBits(rate: Int) {
        for seed in UInt64(0)..<6 {
            let count = 9_000 + Int(seed) * 37
            var x = [TruePeakAVX2Tests.signal(count: count, seed: seed), TruePeakAVX2Tests.signal(count: count, seed: seed + 7)]
            if seed == 4 {
                x[0][500] = .nan
                x[1][1_000] = -.infinity
                x[0][2_000] = .nan; x[0][2_001] = 0.5
            }
            if seed == 5 {
                // The largest magnitude several times in a unit, of both signs: first alone (little
                // between the samples), then as +, +, −, − (much between them). The first counts.
                x[1] = (0..<x[1].count).map { i in
                    switch i % 48 {
                    case 5, 30, 31: return 0.5
                    case 32, 33: return -0.5
                    default: return 0.01
                    }
                }
            }
            for blocks in [[4_096], [1, 7, 48, 333], [47, 49]] {
                let vector = Self.peaks(x, rate: rate, blocks: blocks, portable: false)
                let swift = Self.peaks(x, rate: rate, blocks: blocks, portable: true)
                #expect(vector.count == swift.count && !vector.isEmpty)
                #expect(vector.map(\.bitPattern) == swift.map(\.bitPattern), "seed \(seed), blocks \(blocks)")
            }
        }
    }
}
