import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The limiter runs its gain path a stage at a time over each sub-block: the gains of the
/// frame-by-frame path it replaced, bit for bit, through deep limiting, release tails, idle
/// stretches the limiter skips (a release short enough to settle between bursts), short windows
/// and blocks of any length.
@Suite struct TruePeakLimiterStagesTests {
    /// |x| delayed by `latency` frames: exact peaks, so the reference can compute them too.
    struct DelayDetector: InterSamplePeakDetector {
        let latency: Int
        var past: [Float]
        init(latency: Int) { self.latency = latency; past = [Float](repeating: 0, count: latency) }
        mutating func framePeaks(_ input: UnsafePointer<Float>, count: Int,
                                 into peaks: UnsafeMutablePointer<Float>, threshold: Float) -> Float {
            var m: Float = 0
            for i in 0..<count {
                past.append(abs(input[i]))
                peaks[i] = past[i]
                m = max(m, peaks[i])
            }
            past.removeFirst(count)
            return m
        }
    }

    /// The frame-by-frame gain path (a monotonic deque for the window minimum, ring buffers for
    /// the boxes) over linked peaks: the gain of every frame entering the limiter.
    static func frameByFrame(_ peaks: [Float], lookahead: Int, detectorLatency: Int, threshold thr: Float, release rel: Float) -> [Float] {
        let hold = min(detectorLatency, lookahead / 4)
        let span = lookahead + 1 - hold
        let len1 = (span + 1) / 2, len2 = span + 1 - len1
        var b1 = [Float](repeating: 1, count: len1), b2 = [Float](repeating: 1, count: len2)
        var pos1 = 0, pos2 = 0, sum1 = Double(len1), sum2 = Double(len2), red1 = 0, red2 = 0
        var deque: [(Int, Float)] = []
        var depth: Float = 0
        let releaseOffset = TruePeakLimiter.releaseOvershoot * (rel - 1)
        var out: [Float] = []
        for (t, p) in peaks.enumerated() {
            let needDepth: Float = p > thr ? 1 - thr / p : 0
            depth = depth * rel + releaseOffset
            if depth < 0 { depth = 0 }
            if needDepth > depth { depth = needDepth }
            let r: Float = 1 - depth
            while let last = deque.last, last.1 >= r { deque.removeLast() }
            deque.append((t, r))
            if deque[0].0 <= t - (lookahead + 1) { deque.removeFirst() }
            let m = deque[0].1
            let old1 = b1[pos1]; b1[pos1] = m; pos1 = (pos1 + 1) % len1
            if old1 != 1 { red1 -= 1 }
            if m != 1 { red1 += 1 }
            let s1: Float
            if red1 == 0 { sum1 = Double(len1); s1 = 1 } else { sum1 += Double(m) - Double(old1); s1 = min(1, Float(sum1 * (1 / Double(len1)))) }
            let old2 = b2[pos2]; b2[pos2] = s1; pos2 = (pos2 + 1) % len2
            if old2 != 1 { red2 -= 1 }
            if s1 != 1 { red2 += 1 }
            if red2 == 0 { sum2 = Double(len2); out.append(1) } else { sum2 += Double(s1) - Double(old2); out.append(min(1, Float(sum2 * (1 / Double(len2))))) }
        }
        return out
    }

    @Test(arguments: [(48_000, 0.003, 0.1, 12), (48_000, 0.0001, 0.02, 0), (44_100, 0.005, 0.3, 3), (96_000, 0.002, 0.05, 24),
                      (48_000, 0.003, 0.004, 12)])
    func theGainsOfTheFrameByFramePath(rate: Int, lookahead: Double, release: Double, detectorLatency: Int) {
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1, lookaheadSeconds: lookahead, releaseSeconds: release)
        let limiter = TruePeakLimiter(settings: settings, sampleRate: rate, channelCount: 2) { _ in DelayDetector(latency: detectorLatency) }
        limiter.gainTrace = []
        // Bursts over the ceiling (up to 12 dB), quiet stretches longer than a sub-block, single
        // spikes, and the right channel louder in places.
        var rng = SplitMix64(seed: 77)
        let n = rate
        let left = (0..<n).map { i -> Float in
            let phase = (i / 2500) % 6
            let level: Float = [0.2, 2.5, 0.05, 4.0, 0.5, 1.2][phase]
            return level * Float(rng.bipolar()) + (i % 7919 == 0 ? 3 : 0)
        }
        let right = left.enumerated().map { i, v in (i / 4000) % 3 == 1 ? v * 1.7 : v * 0.6 }
        var block = AudioBlock(channelCount: 2, capacity: 4096)
        let sizes = [1001, 37, 512, 4096, 3, 777]
        var outLeft: [Float] = [], outRight: [Float] = []
        var i = 0, k = 0
        while i < n {
            let len = min(sizes[k % sizes.count], n - i)
            block.channels = [Array(left[i..<(i + len)]), Array(right[i..<(i + len)])]
            block.frames = len
            limiter.process(&block)
            outLeft += block.channels[0][0..<block.frames]; outRight += block.channels[1][0..<block.frames]
            i += len; k += 1
        }
        limiter.flush(into: &block)
        outLeft += block.channels[0][0..<block.frames]; outRight += block.channels[1][0..<block.frames]
        // Linked peaks of every frame that entered, the flushed silence included.
        let entered = n + limiter.latency
        let peaks = (0..<entered).map { t -> Float in
            let s = t - detectorLatency
            return s >= 0 && s < n ? max(abs(left[s]), abs(right[s])) : 0
        }
        let p = TruePeakLimiter.Parameters(settings: settings, sampleRate: rate)
        let reference = Self.frameByFrame(peaks, lookahead: p.lookahead, detectorLatency: detectorLatency,
                                          threshold: p.threshold, release: p.releaseCoefficient)
        let expected = Array(reference[limiter.latency...])
        let trace = limiter.gainTrace!
        #expect(trace.count == expected.count)
        #expect(trace.filter { $0 < 1 }.count > n / 4, "the signal is limited in places")
        if release < 0.01 { #expect(limiter.idleSubBlocks > 10, "the gain path is skipped where it has settled") }
        let firstDifference = zip(trace, expected).enumerated().first { $0.element.0.bitPattern != $0.element.1.bitPattern }
        #expect(firstDifference == nil, "first differing frame: \(String(describing: firstDifference))")
        // The output is the input, in place and in time, times its frame's gain.
        #expect(outLeft.count == n && outRight.count == n)
        #expect(outLeft.indices.allSatisfy { outLeft[$0].bitPattern == (left[$0] * trace[$0]).bitPattern })
        #expect(outRight.indices.allSatisfy { outRight[$0].bitPattern == (right[$0] * trace[$0]).bitPattern })
    }
}
