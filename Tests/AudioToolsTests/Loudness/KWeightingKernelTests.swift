import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The K-weighting's SSE2 kernel (x86-64) gives the portable Swift loop's bits: every gating
/// block, window maximum and timeline value, whatever the blocks, rates and channel counts.
@Suite(.enabled(if: VectorKernels.hasSSE2, "the SSE2 kernel runs on x86-64 only"))
struct KWeightingKernelTests {
    static func measure(_ x: [[Float]], rate: Int, weights: [Double], blockSizes: [Int], portable: Bool)
        -> (LoudnessMeasurement, LoudnessBlocks, LoudnessTimeline?) {
        VectorKernels.$portableOnly.withValue(portable) {
            let meter = LoudnessMeter(sampleRate: rate, weights: weights, collectsTimeline: true)
            var i = 0, k = 0
            while i < x[0].count {
                let m = min(blockSizes[k % blockSizes.count], x[0].count - i)
                meter.add(AudioBlock(channels: x.map { Array($0[i..<(i + m)]) }, frames: m))
                i += m; k += 1
            }
            return (meter.finish(), meter.blocks, meter.timeline)
        }
    }

    @Test(arguments: [(48000, [1.0, 1.0]), (44100, [1.0]), (44100, [1, 1, 1.41]), (96000, [1, 1, 1, 0, 1.41, 1.41])])
    func sameBitsAsThePortableLoop(rate: Int, weights: [Double]) {
        var x: [[Float]] = []
        for c in weights.indices { x.append(LoudnessMeterTests.noise(seconds: 7.3, rate: rate, seed: UInt64(7 + c))[0]) }
        // Four seconds of digital silence, long enough for the filters' state to decay below
        // 1e-290 (where it is flushed to zero), then a few tiny values.
        for c in x.indices {
            for i in (rate / 2)..<(rate * 9 / 2) { x[c][i] = 0 }
            for i in (rate * 9 / 2)..<(rate * 5) { x[c][i] = Float(i % 7) * 1e-38 }
        }
        let portable = Self.measure(x, rate: rate, weights: weights, blockSizes: [rate], portable: true)
        for sizes in [[rate], [1, 7, 4096], [65536 + 3], [441, 100_000]] {
            let fast = Self.measure(x, rate: rate, weights: weights, blockSizes: sizes, portable: false)
            #expect(fast.0 == portable.0, "blocks of \(sizes)")
            #expect(fast.1 == portable.1)
            #expect(fast.2 == portable.2 && fast.2 != nil)
        }
        #expect(portable.0.integratedLUFS != nil && portable.1.momentary.count > 20)
    }
}
