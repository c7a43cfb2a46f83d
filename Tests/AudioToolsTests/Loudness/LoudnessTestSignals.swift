import Foundation
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Deterministic signal helpers for the loudness tests.
enum LoudnessTestSignals {
    /// One segment of a test sequence: a 1 kHz sine at `dBFS` peak (nil = silence) for `seconds`.
    struct Segment { var seconds: Double; var dBFS: Double? }

    /// A sequence of sine / silence segments as one channel; the sine phase runs on across
    /// segments. Segment boundaries are rounded to whole samples from cumulative time.
    static func tones(_ segments: [Segment], rate: Int, frequency: Double = 1000) -> [Float] {
        let total = Int((segments.reduce(0) { $0 + $1.seconds } * Double(rate)).rounded())
        var out = [Float](repeating: 0, count: total)
        // One period of the sine, reused (1 kHz divides every rate the tests use).
        let period = Double(rate) / frequency
        let cycle: [Double]? = period == period.rounded()
            ? (0..<Int(period)).map { sin(2 * Double.pi * Double($0) / period) } : nil
        var t = 0.0
        var start = 0
        out.withUnsafeMutableBufferPointer { o in
            for s in segments {
                t += s.seconds
                let end = min(Int((t * Double(rate)).rounded()), total)
                if let level = s.dBFS {
                    let a = pow(10, level / 20)
                    for n in start..<end {
                        let v = cycle.map { $0[n % $0.count] } ?? sin(2 * Double.pi * Double(n) / period)
                        o[n] = Float(a * v)
                    }
                }
                start = end
            }
        }
        return out
    }

    /// Feeds `channels` to a fresh meter in blocks of `blockSize` frames and finishes it.
    static func measure(_ channels: [[Float]], rate: Int, weights: [Double]? = nil,
                        blockSize: Int = 4096) -> LoudnessMeasurement {
        let meter = LoudnessMeter(sampleRate: rate, weights: weights ?? Array(repeating: 1, count: channels.count))
        feed(meter, channels, blockSize: blockSize)
        return meter.finish()
    }

    /// Feeds `channels` in blocks, calling `each` after every block.
    static func feed(_ meter: LoudnessMeter, _ channels: [[Float]], blockSize: Int,
                     each: ((LoudnessMeter) -> Void)? = nil) {
        let n = channels[0].count
        var block = AudioBlock(channelCount: channels.count, capacity: blockSize)
        var i = 0
        while i < n {
            let m = min(blockSize, n - i)
            for c in 0..<channels.count {
                channels[c].withUnsafeBufferPointer { src in
                    block.channels[c].withUnsafeMutableBufferPointer { dst in
                        dst.baseAddress!.update(from: src.baseAddress! + i, count: m)
                    }
                }
            }
            block.frames = m
            meter.add(block)
            each?(meter)
            i += m
        }
    }
}
