import Foundation

/// A streaming look-ahead true-peak limiter, one gain for all channels. It delays the audio by
/// `latency` frames so the gain can reach the needed reduction before each peak, and keeps that
/// delay out of its output: the first `latency` frames it would emit are swallowed and `flush`
/// gives the tail, so the output has exactly the input's frames, aligned.
///
/// Gain path, per frame: needed gain (threshold ÷ inter-sample peak, or 1) → instant attack,
/// exponential release → minimum over the look-ahead window → two box filters whose combined
/// span stays inside that window, so the smoothed gain is never above any needed gain it covers.
/// Where nothing reaches the threshold the gain is exactly 1.0 and the audio only moves in time.
public final class TruePeakLimiter {
    public struct Settings: Equatable, Sendable {
        /// The true-peak level the output must not exceed, dBTP.
        public var ceilingDBTP: Double
        /// How far under the ceiling the limiter aims, dB: room for the interpolator's error
        /// and for the inter-sample overshoot the gain changes themselves create.
        public var marginDB: Double
        /// How early the gain starts moving before a peak.
        public var lookaheadSeconds: Double
        /// Time constant of the exponential recovery after a peak.
        public var releaseSeconds: Double

        public init(ceilingDBTP: Double, marginDB: Double = 0.15,
                    lookaheadSeconds: Double = 0.003, releaseSeconds: Double = 0.1) {
            self.ceilingDBTP = ceilingDBTP
            self.marginDB = marginDB
            self.lookaheadSeconds = lookaheadSeconds
            self.releaseSeconds = releaseSeconds
        }
    }

    /// What the limiter did to the frames it has emitted.
    public struct Stats: Equatable, Sendable {
        /// Frames whose gain was below 1.
        public var framesLimited = 0
        /// The deepest gain reduction, dB (positive; 0 when nothing was limited).
        public var maxReductionDB = 0.0
    }

    public let settings: Settings
    public let channelCount: Int
    /// Frames of delay the limiter hides: detector latency plus look-ahead.
    public let latency: Int
    /// Linear level the gain aims the peaks at (ceiling less the margin).
    public let threshold: Float
    public private(set) var stats = Stats()

    private var detectors: [any InterSamplePeakDetector]
    private let detectorLatency: Int
    private let lookahead: Int
    private let releaseCoefficient: Float
    private var minGain: Float = 1

    // Scratch, grown to the largest block seen.
    private var channelPeaks: [[Float]]
    private var linkedPeaks: [Float] = []
    private var gains: [Float] = []
    /// Per channel: `latency` delayed frames followed by the current block.
    private var delayLines: [[Float]]
    private var framesToSwallow: Int
    private var flushed = false

    // Gain-path state.
    private var depth: Float = 0          // 1 − gain after attack/release
    private var frameIndex = 0            // index of the next frame entering the gain path
    private var dequeIndex: [Int]
    private var dequeValue: [Float]
    private var dequeHead = 0, dequeTail = 0
    private let dequeMask: Int
    private var box1: [Float], box2: [Float]
    private var box1Pos = 0, box2Pos = 0
    private var box1Sum: Double, box2Sum: Double
    private var box1Reduced = 0, box2Reduced = 0   // entries below 1 in each box

    /// The gain path's constants from the settings, shared with `LimitedLoudnessModel`.
    struct Parameters {
        var lookahead: Int
        var threshold: Float
        var releaseCoefficient: Float
        init(settings: Settings, sampleRate: Int) {
            lookahead = max(4, Int((settings.lookaheadSeconds * Double(sampleRate)).rounded()))
            threshold = Float(pow(10, (settings.ceilingDBTP - settings.marginDB) / 20))
            releaseCoefficient = Float(exp(-1 / max(1e-4, settings.releaseSeconds) / Double(sampleRate)))
        }
    }

    /// Frames per detection sub-block.
    static let subBlock = 512
    /// The release aims this far past full gain, so it arrives at exactly 1 in finite time.
    static let releaseOvershoot: Float = 0.005

    /// Tests set this to record every emitted frame's gain.
    var gainTrace: [Float]? = nil

    public init(settings: Settings, sampleRate: Int, channelCount: Int,
                makeDetector: ((Int) -> any InterSamplePeakDetector)? = nil) {
        precondition(channelCount > 0 && sampleRate > 0)
        self.settings = settings
        self.channelCount = channelCount
        // By default the meter's own oversampler, so the limiter and the meter agree on peaks.
        let make = makeDetector ?? { OversamplerPeakDetector(sampleRate: $0) }
        detectors = (0..<channelCount).map { _ in make(sampleRate) }
        detectorLatency = detectors[0].latency
        let parameters = Parameters(settings: settings, sampleRate: sampleRate)
        lookahead = parameters.lookahead
        latency = detectorLatency + lookahead
        threshold = parameters.threshold
        releaseCoefficient = parameters.releaseCoefficient
        // The minimum covers the look-ahead window [n, n + lookahead]; the boxes span
        // lookahead + 1 − hold frames, so each smoothed gain also holds `hold` frames early,
        // covering the samples just before a peak that feed its interpolated value.
        let hold = min(detectorLatency, lookahead / 4)
        let span = lookahead + 1 - hold
        let len1 = (span + 1) / 2, len2 = span + 1 - len1
        box1 = [Float](repeating: 1, count: len1)
        box2 = [Float](repeating: 1, count: len2)
        box1Sum = Double(len1)
        box2Sum = Double(len2)
        var cap = 1
        while cap < lookahead + 2 { cap <<= 1 }
        dequeIndex = [Int](repeating: 0, count: cap)
        dequeValue = [Float](repeating: 1, count: cap)
        dequeMask = cap - 1
        channelPeaks = Array(repeating: [], count: channelCount)
        delayLines = Array(repeating: [Float](repeating: 0, count: latency), count: channelCount)
        framesToSwallow = latency
    }

    /// True when the gain path holds nothing below 1, so frames under the threshold leave it at 1.
    private var isIdle: Bool {
        depth == 0 && box1Reduced == 0 && box2Reduced == 0
            && (dequeTail == dequeHead || dequeValue[dequeHead & dequeMask] == 1)
    }

    /// Limits `block` in place; its `frames` become the number of aligned frames emitted (fewer
    /// than given only while the first `latency` frames are still in the delay).
    public func process(_ block: inout AudioBlock) {
        precondition(!flushed, "process after flush")
        precondition(block.channels.count == channelCount)
        let n = block.frames
        guard n > 0 else { return }
        if gains.count < n {
            gains = [Float](repeating: 1, count: n)
            linkedPeaks = [Float](repeating: 0, count: n)
        }
        for c in 0..<channelCount where channelPeaks[c].count < n {
            channelPeaks[c] = [Float](repeating: 0, count: n)
        }
        // Detect and run the gain path in sub-blocks, so each detection can use the release
        // trajectory reached so far: a peak whose needed gain stays above where the gain will
        // be anyway changes nothing, so it need not be interpolated exactly.
        var quiet = true
        var start = 0
        while start < n {
            let len = min(Self.subBlock, n - start)
            let releasedGain = 1 - max(0, (depth + Self.releaseOvershoot)
                                           * pow(releaseCoefficient, Float(len)) - Self.releaseOvershoot)
            let detectThreshold = threshold / releasedGain
            var peakMax: Float = 0
            for c in 0..<channelCount {
                let m = block.channels[c].withUnsafeBufferPointer { x in
                    channelPeaks[c].withUnsafeMutableBufferPointer { p in
                        detectors[c].framePeaks(x.baseAddress! + start, count: len, into: p.baseAddress! + start,
                                                threshold: detectThreshold)
                    }
                }
                peakMax = max(peakMax, m)
            }
            if peakMax <= threshold && isIdle {
                frameIndex += len
                dequeHead = 0; dequeTail = 1
                dequeIndex[0] = frameIndex - 1; dequeValue[0] = 1
                box1Pos = (box1Pos + len) % box1.count
                box2Pos = (box2Pos + len) % box2.count
                gains.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: start).update(repeating: 1, count: len) }
            } else {
                quiet = false
                linkPeaks(start, len)
                computeGains(start, len)
            }
            start += len
        }

        // Delay the audio and apply the gains computed for the frames leaving the delay.
        let skip = min(framesToSwallow, n)
        framesToSwallow -= skip
        let emitted = n - skip
        let l = latency
        for c in 0..<channelCount {
            if delayLines[c].count < l + n {
                delayLines[c].append(contentsOf: repeatElement(0, count: l + n - delayLines[c].count))
            }
            delayLines[c].withUnsafeMutableBufferPointer { db in
                let d = db.baseAddress!
                block.channels[c].withUnsafeMutableBufferPointer { xb in
                    let x = xb.baseAddress!
                    (d + l).update(from: x, count: n)
                    if quiet {
                        x.update(from: d + skip, count: emitted)
                    } else {
                        gains.withUnsafeBufferPointer { gb in
                            let g = gb.baseAddress!
                            var i = 0
                            while i + 8 <= emitted {
                                let v = UnsafeRawPointer(d + skip + i).loadUnaligned(as: SIMD8<Float>.self)
                                let gv = UnsafeRawPointer(g + skip + i).loadUnaligned(as: SIMD8<Float>.self)
                                UnsafeMutableRawPointer(x + i).storeBytes(of: v * gv, as: SIMD8<Float>.self)
                                i += 8
                            }
                            while i < emitted { x[i] = d[skip + i] * g[skip + i]; i += 1 }
                        }
                    }
                    d.update(from: d + n, count: l)
                }
            }
        }
        block.frames = emitted
        if quiet {
            if gainTrace != nil { gainTrace!.append(contentsOf: repeatElement(1, count: emitted)) }
        } else {
            // Frames below 1 and the lowest gain, eight lanes at a time (a count and a minimum:
            // the same result in any order).
            var limited = 0
            var lowest = minGain
            gains.withUnsafeBufferPointer { gb in
                let g = gb.baseAddress!
                var count = SIMD8<Int32>(repeating: 0), low = SIMD8<Float>(repeating: lowest)
                var i = skip
                while i + 8 <= n {
                    let v = UnsafeRawPointer(g + i).loadUnaligned(as: SIMD8<Float>.self)
                    count &+= SIMD8<Int32>(repeating: 0).replacing(with: 1, where: v .< 1)
                    low = low.replacing(with: v, where: v .< low)
                    i += 8
                }
                limited = Int(count.wrappedSum())
                for l in 0..<8 where low[l] < lowest { lowest = low[l] }
                while i < n {
                    if g[i] < 1 { limited += 1; if g[i] < lowest { lowest = g[i] } }
                    i += 1
                }
            }
            stats.framesLimited += limited
            if lowest < minGain {
                minGain = lowest
                stats.maxReductionDB = -20 * log10(Double(lowest))
            }
            if gainTrace != nil { gainTrace!.append(contentsOf: gains[skip..<n]) }
        }
    }

    /// Emits the frames still in the delay (at most `latency`) into `block`, by pushing silence
    /// through. Call once, after the last `process`.
    public func flush(into block: inout AudioBlock) {
        precondition(!flushed, "flush twice")
        let l = latency
        if block.channels.count != channelCount { block.channels = Array(repeating: [], count: channelCount) }
        for c in 0..<channelCount {
            if block.channels[c].count < l { block.channels[c] = [Float](repeating: 0, count: l) }
            block.channels[c].withUnsafeMutableBufferPointer { $0.baseAddress!.update(repeating: 0, count: l) }
        }
        block.frames = l
        process(&block)
        flushed = true
    }

    private func linkPeaks(_ start: Int, _ n: Int) {
        linkedPeaks.withUnsafeMutableBufferPointer { lp in
            channelPeaks[0].withUnsafeBufferPointer { (lp.baseAddress! + start).update(from: $0.baseAddress! + start, count: n) }
            for c in 1..<max(1, channelCount) {
                channelPeaks[c].withUnsafeBufferPointer { p in
                    let a = lp.baseAddress! + start, b = p.baseAddress! + start
                    var i = 0
                    while i + 8 <= n {
                        let x = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self)
                        let y = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self)
                        UnsafeMutableRawPointer(a + i).storeBytes(of: x.replacing(with: y, where: y .> x), as: SIMD8<Float>.self)
                        i += 8
                    }
                    while i < n { if b[i] > a[i] { a[i] = b[i] }; i += 1 }
                }
            }
        }
    }

    /// The per-frame gain path over `linkedPeaks[start..<start + n]` into the same range of
    /// `gains`; O(1) amortised per frame.
    private func computeGains(_ start: Int, _ n: Int) {
        // Work on locals: the loop is sequential in time and must stay in registers.
        var depth = self.depth, t = frameIndex
        var head = dequeHead, tail = dequeTail
        let mask = dequeMask, window = lookahead + 1
        var pos1 = box1Pos, pos2 = box2Pos
        var sum1 = box1Sum, sum2 = box2Sum
        var red1 = box1Reduced, red2 = box2Reduced
        let len1 = box1.count, len2 = box2.count
        let inv1 = 1 / Double(len1), inv2 = 1 / Double(len2)
        let thr = threshold, rel = releaseCoefficient
        let releaseOffset = Self.releaseOvershoot * (rel - 1)
        linkedPeaks.withUnsafeBufferPointer { pb in
        gains.withUnsafeMutableBufferPointer { gb in
        dequeIndex.withUnsafeMutableBufferPointer { di in
        dequeValue.withUnsafeMutableBufferPointer { dv in
        box1.withUnsafeMutableBufferPointer { b1 in
        box2.withUnsafeMutableBufferPointer { b2 in
            for i in start..<(start + n) {
                // Needed reduction, with instant attack and exponential release.
                let p = pb[i]
                let needDepth: Float = p > thr ? 1 - thr / p : 0
                // Release aims a little past full gain so it arrives at exactly 1 in finite
                // time (about 4–6 time constants) with a vanishing slope: no step at the end.
                depth = depth * rel + releaseOffset   // (depth + overshoot)·rel − overshoot
                if depth < 0 { depth = 0 }
                if needDepth > depth { depth = needDepth }
                let r: Float = 1 - depth
                // Sliding minimum over the look-ahead window (monotonic deque).
                while tail > head && dv[(tail - 1) & mask] >= r { tail -= 1 }
                di[tail & mask] = t; dv[tail & mask] = r; tail += 1
                if di[head & mask] <= t - window { head += 1 }
                let m = dv[head & mask]
                // First box.
                let old1 = b1[pos1]; b1[pos1] = m
                pos1 += 1; if pos1 == len1 { pos1 = 0 }
                if old1 != 1 { red1 -= 1 }
                if m != 1 { red1 += 1 }
                let s1: Float
                if red1 == 0 { sum1 = Double(len1); s1 = 1 } else {
                    sum1 += Double(m) - Double(old1)
                    s1 = min(1, Float(sum1 * inv1))
                }
                // Second box.
                let old2 = b2[pos2]; b2[pos2] = s1
                pos2 += 1; if pos2 == len2 { pos2 = 0 }
                if old2 != 1 { red2 -= 1 }
                if s1 != 1 { red2 += 1 }
                let g: Float
                if red2 == 0 { sum2 = Double(len2); g = 1 } else {
                    sum2 += Double(s1) - Double(old2)
                    g = min(1, Float(sum2 * inv2))
                }
                gb[i] = g
                t += 1
            }
        }}}}}}
        self.depth = depth; frameIndex = t
        dequeHead = head; dequeTail = tail
        box1Pos = pos1; box2Pos = pos2
        box1Sum = sum1; box2Sum = sum2
        box1Reduced = red1; box2Reduced = red2
    }
}
