import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct NormalizeDitherTests {
    @Test func triangularNoiseStatistics() {
        var rng = SplitMix64(seed: 42)
        let n = 200_000
        var sum = 0.0, sumSq = 0.0, inner = 0, lo: Float = 0, hi: Float = 0
        for _ in 0..<n {
            let d = rng.triangular()
            sum += Double(d); sumSq += Double(d * d)
            if abs(d) < 0.5 { inner += 1 }
            lo = min(lo, d); hi = max(hi, d)
        }
        #expect(lo > -1 && hi < 1)                    // ±1 LSB bounds
        #expect(lo < -0.95 && hi > 0.95)              // and it reaches them
        #expect(abs(sum / Double(n)) < 0.01)          // mean 0
        #expect(abs(sumSq / Double(n) - 1.0 / 6) < 0.005)   // TPDF variance 1/6 LSB²
        #expect(abs(Double(inner) / Double(n) - 0.75) < 0.01)  // triangle: 3/4 of the mass within ±½
    }

    func quantise(_ x: [Float], blocks: Int, seed: UInt64) -> ([Float], Int) {
        var q = TPDFDitherQuantizer(bitDepth: 16, channelCount: 1, seed: seed)
        var out: [Float] = []
        var i = 0
        while i < x.count {
            let n = min(blocks, x.count - i)
            var block = AudioBlock(channels: [Array(x[i..<(i + n)])], frames: n)
            q.process(&block)
            out.append(contentsOf: block.channels[0])
            i += n
        }
        return (out, q.clampedSamples)
    }

    @Test func deterministicAndBlockSizeIndependent() {
        let x = (0..<20_000).map { Float(0.3 * sin(Double($0) * 0.01)) }
        let (a, _) = quantise(x, blocks: 4096, seed: 7)
        let (b, _) = quantise(x, blocks: 4096, seed: 7)
        let (c, _) = quantise(x, blocks: 333, seed: 7)
        let (d, _) = quantise(x, blocks: 4096, seed: 8)
        #expect(a == b && a == c)
        #expect(a != d)
        // Every output is on the 16-bit grid and within ±1.5 LSB of the input.
        for i in 0..<x.count {
            let k = a[i] * 32768
            #expect(k == k.rounded())
            #expect(abs(Double(a[i]) - Double(x[i])) <= 1.5 / 32768)
        }
    }

    @Test func ditherLinearisesSubLSBLevels() {
        // A constant 0.3 LSB would round to 0 without dither; with TPDF the mean output is 0.3 LSB.
        let x = [Float](repeating: Float(0.3 / 32768), count: 100_000)
        let (out, _) = quantise(x, blocks: 4096, seed: 1)
        let mean = out.reduce(0.0) { $0 + Double($1) } / Double(out.count) * 32768
        #expect(abs(mean - 0.3) < 0.01)
        var plain = TPDFDitherQuantizer(bitDepth: 16, channelCount: 1, dither: false)
        var block = AudioBlock(channels: [x], frames: x.count)
        plain.process(&block)
        #expect(block.channels[0].allSatisfy { $0 == 0 })
    }

    @Test func clampsAndCounts() {
        var q = TPDFDitherQuantizer(bitDepth: 16, channelCount: 2, seed: 3)
        var block = AudioBlock(channels: [[1.5, -1.5, 0.999, 0], [1, -1, 0.5, 0.25]], frames: 4)
        q.process(&block)
        #expect(block.channels[0][0] == Float(32767) / 32768)
        #expect(block.channels[0][1] == -1)
        #expect(q.clampedSamples >= 2 && q.clampedSamples <= 4)   // ±1.0 may or may not dither past the top
        #expect(block.channels[1][0] == Float(32767) / 32768)
    }
}
