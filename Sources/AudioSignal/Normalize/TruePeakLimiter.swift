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
    /// The ceiling, the margin under it and the timing.
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

        /// Settings for `ceilingDBTP`; the other defaults are lufs-normalize's.
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

    /// The settings the limiter was made with.
    public let settings: Settings
    /// Channels of every block processed (one gain for all of them).
    public let channelCount: Int
    /// Frames of delay the limiter hides: detector latency plus look-ahead.
    public let latency: Int
    /// Linear level the gain aims the peaks at (ceiling less the margin).
    public let threshold: Float
    /// What the limiter did to the frames emitted so far.
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
    /// Per channel: the last `latency` frames of input, oldest first.
    private var delayLines: [[Float]]
    /// The next delay line, gathered before the block is overwritten.
    private var delayTail: [Float]
    private var framesToSwallow: Int
    private var flushed = false

    // Gain-path state. Each stage keeps, oldest first, the values of the frames before the
    // current sub-block that it still reads, followed by the sub-block's own.
    private var depth: Float = 0          // 1 − gain after attack/release
    /// Attack/release gains: the look-ahead window's `lookahead` earlier frames, then the sub-block.
    private var released: [Float]
    /// Scratch for the window minimum.
    private var minimumScratch: [Float]
    /// Window minima: the first box's `box1Length` earlier frames, then the sub-block.
    private var minima: [Float]
    /// First-box averages: the second box's `box2Length` earlier frames, then the sub-block.
    private var averaged: [Float]
    private let box1Length: Int, box2Length: Int
    /// The two box filters' running sums.
    private var boxes: Boxes
    /// Frames at the end of the recursion whose attack/release gain is exactly 1.
    private var fullGainRun = 0
    /// A sub-block whose window minima are made but whose boxes are not run yet: they run in the
    /// next sub-block's recursion loop (two sequential chains side by side) or before any skip.
    private var pendingStart = 0, pendingCount = 0

    /// The gain path's constants from the settings, shared with `LimitedLoudnessModel`.
    package struct Parameters {
        package var lookahead: Int
        package var threshold: Float
        package var releaseCoefficient: Float
        package init(settings: Settings, sampleRate: Int) {
            lookahead = max(4, Int((settings.lookaheadSeconds * Double(sampleRate)).rounded()))
            threshold = Float(pow(10, (settings.ceilingDBTP - settings.marginDB) / 20))
            releaseCoefficient = Float(exp(-1 / max(1e-4, settings.releaseSeconds) / Double(sampleRate)))
        }
    }

    /// Frames per detection sub-block.
    package static let subBlock = 512
    /// The release aims this far past full gain, so it arrives at exactly 1 in finite time.
    package static let releaseOvershoot: Float = 0.005

    /// Tests set this to record every emitted frame's gain.
    package var gainTrace: [Float]? = nil
    /// Sub-blocks passed at gain 1 without running the gain path (for tests).
    package private(set) var idleSubBlocks = 0

    /// A limiter for blocks of `channelCount` channels at `sampleRate`. `makeDetector` makes each
    /// channel's peak detector (by default the meter's own oversampler, so the two agree).
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
        box1Length = len1
        box2Length = len2
        boxes = Boxes(len1: len1, len2: len2)
        released = [Float](repeating: 1, count: lookahead + Self.subBlock)
        minimumScratch = released
        minima = [Float](repeating: 1, count: len1 + Self.subBlock)
        averaged = [Float](repeating: 1, count: len2 + Self.subBlock)
        channelPeaks = Array(repeating: [], count: channelCount)
        delayLines = Array(repeating: [Float](repeating: 0, count: latency), count: channelCount)
        delayTail = [Float](repeating: 0, count: latency)
        framesToSwallow = latency
    }

    /// True when the gain path holds nothing below 1, so frames under the threshold leave it at 1.
    /// (Every stage's input then is 1 over all it holds: the window minima over the last
    /// `lookahead + 1`, box 1 over `box1Length` of those, box 2 over `box2Length` of box 1's.)
    private var isIdle: Bool {
        depth == 0 && fullGainRun >= lookahead + box1Length + box2Length
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
                // Every stage holds only 1s and stays so: the frames pass at gain 1.
                runPendingBoxes(from: 0)
                gains.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: start).update(repeating: 1, count: len) }
                fullGainRun += len
                idleSubBlocks += 1
            } else {
                quiet = false
                linkPeaks(start, len)
                computeGains(start, len)
            }
            start += len
        }
        runPendingBoxes(from: 0)

        // Delay the audio and apply the gains computed for the frames leaving the delay: the
        // stream is the delay line's `latency` frames followed by the block, and output frame i
        // is its frame skip + i. Written in place from the top down (each output reads a frame
        // at or below its own place), so only the last `latency` frames are copied aside.
        let skip = min(framesToSwallow, n)
        framesToSwallow -= skip
        let emitted = n - skip
        let l = latency
        let offset = l - skip                   // output i reads block frame i − offset
        let fromDelay = min(emitted, offset)    // outputs still read from the delay line
        for c in 0..<channelCount {
            delayLines[c].withUnsafeMutableBufferPointer { db in
            delayTail.withUnsafeMutableBufferPointer { tb in
                let d = db.baseAddress!, t = tb.baseAddress!
                block.channels[c].withUnsafeMutableBufferPointer { xb in
                    let x = xb.baseAddress!
                    // The next block's delay line: the stream's last `latency` frames.
                    if n >= l { t.update(from: x + n - l, count: l) } else {
                        t.update(from: d + n, count: l - n)
                        (t + l - n).update(from: x, count: n)
                    }
                    if quiet {
                        if emitted > fromDelay { (x + fromDelay).update(from: x + fromDelay - offset, count: emitted - fromDelay) }
                        x.update(from: d + skip, count: fromDelay)
                    } else {
                        gains.withUnsafeBufferPointer { gb in
                            let g = gb.baseAddress! + skip
                            var i = emitted
                            while i - 8 >= fromDelay {
                                i -= 8
                                let v = UnsafeRawPointer(x + i - offset).loadUnaligned(as: SIMD8<Float>.self)
                                let gv = UnsafeRawPointer(g + i).loadUnaligned(as: SIMD8<Float>.self)
                                UnsafeMutableRawPointer(x + i).storeBytes(of: v * gv, as: SIMD8<Float>.self)
                            }
                            while i > fromDelay { i -= 1; x[i] = x[i - offset] * g[i] }
                            for i in 0..<fromDelay { x[i] = d[skip + i] * g[i] }
                        }
                    }
                    d.update(from: t, count: l)
                }
            }}
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

    /// The per-frame gain path over `linkedPeaks[start..<start + n]` (n ≤ `subBlock`), a stage
    /// at a time: the attack/release recursion, then the minimum over the look-ahead window (by
    /// doubling, eight frames to a vector); the two box filters' running sums follow in the next
    /// sub-block's recursion loop, so two sequential chains share one loop (`runPendingBoxes`
    /// before the gains are read). Each frame's gain is that of the frame-by-frame path: a
    /// minimum is exact in any order, and the recursion and the sums keep frame order.
    private func computeGains(_ start: Int, _ n: Int) {
        let hist = lookahead, window = lookahead + 1
        let len1 = box1Length, len2 = box2Length
        let thr = threshold, rel = releaseCoefficient
        let releaseOffset = Self.releaseOvershoot * (rel - 1)
        var depth = self.depth
        var boxes = self.boxes
        let fused = min(n, pendingCount)
        linkedPeaks.withUnsafeBufferPointer { pb in
        gains.withUnsafeMutableBufferPointer { gb in
        released.withUnsafeMutableBufferPointer { rb in
        minima.withUnsafeMutableBufferPointer { mb in
        averaged.withUnsafeMutableBufferPointer { ab in
            let p = pb.baseAddress! + start, g = gb.baseAddress! + pendingStart
            let m = mb.baseAddress!, s = ab.baseAddress!
            let r = rb.baseAddress! + hist   // this sub-block's attack/release gains
            // Needed reduction, with instant attack and exponential release. Release aims a
            // little past full gain so it arrives at exactly 1 in finite time (about 4–6 time
            // constants) with a vanishing slope: no step at the end. Beside it, the last
            // sub-block's boxes.
            for i in 0..<n {
                if i < fused { g[i] = boxes.step(i, m + len1, m, s + len2, s) }
                let peak = p[i]
                if depth == 0 && !(peak > thr) {
                    // Fully released and nothing to hold back: the steps below would give
                    // depth 0·rel + offset < 0, then 0, so the gain is exactly 1. Taking it
                    // directly keeps the recursion's multiply and add off quiet stretches.
                    r[i] = 1
                    continue
                }
                let needDepth: Float = peak > thr ? 1 - thr / peak : 0
                depth = depth * rel + releaseOffset   // (depth + overshoot)·rel − overshoot
                if depth < 0 { depth = 0 }
                if needDepth > depth { depth = needDepth }
                r[i] = 1 - depth
            }
        }}}}}
        self.boxes = boxes
        self.depth = depth
        runPendingBoxes(from: fused)
        released.withUnsafeMutableBufferPointer { rb in
        minimumScratch.withUnsafeMutableBufferPointer { sb in
        minima.withUnsafeMutableBufferPointer { mb in
            let r = rb.baseAddress!, w = sb.baseAddress!, m = mb.baseAddress!
            var trailing = 0
            while trailing < n && r[hist + n - 1 - trailing] == 1 { trailing += 1 }
            fullGainRun = trailing == n ? fullGainRun + n : trailing
            // Minimum over the look-ahead window: after each level, w[i] is the minimum of the
            // `span` values from r[i]; two overlapping spans of the largest power make the window.
            let total = hist + n
            w.update(from: r, count: total)
            var span = 1
            while span * 2 <= window {
                let count = total - (2 * span - 1)
                var i = 0
                while i + 8 <= count {
                    let a = UnsafeRawPointer(w + i).loadUnaligned(as: SIMD8<Float>.self)
                    let b = UnsafeRawPointer(w + i + span).loadUnaligned(as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(w + i).storeBytes(of: a.replacing(with: b, where: b .< a), as: SIMD8<Float>.self)
                    i += 8
                }
                while i < count { if w[i + span] < w[i] { w[i] = w[i + span] }; i += 1 }
                span *= 2
            }
            let second = window - span
            var i = 0
            while i + 8 <= n {
                let a = UnsafeRawPointer(w + i).loadUnaligned(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(w + i + second).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(m + len1 + i).storeBytes(of: a.replacing(with: b, where: b .< a), as: SIMD8<Float>.self)
                i += 8
            }
            while i < n {
                let a = w[i], b = w[i + second]
                m[len1 + i] = b < a ? b : a
                i += 1
            }
            r.update(from: r + n, count: hist)
        }}}
        pendingStart = start
        pendingCount = n
    }

    /// The pending sub-block's boxes from its frame `first` on, into `gains`; then each box's
    /// history moves on past it.
    private func runPendingBoxes(from first: Int) {
        guard pendingCount > 0 else { return }
        let n = pendingCount, len1 = box1Length, len2 = box2Length
        var boxes = self.boxes
        gains.withUnsafeMutableBufferPointer { gb in
        minima.withUnsafeMutableBufferPointer { mb in
        averaged.withUnsafeMutableBufferPointer { ab in
            let g = gb.baseAddress! + pendingStart, m = mb.baseAddress!, s = ab.baseAddress!
            for i in first..<n { g[i] = boxes.step(i, m + len1, m, s + len2, s) }
            m.update(from: m + n, count: len1)
            s.update(from: s + n, count: len2)
        }}}
        self.boxes = boxes
        pendingCount = 0
    }

    /// The two box filters as running sums, reset to exactly full where a box holds only 1s.
    package struct Boxes {
        package var sum1: Double, sum2: Double
        /// Entries below 1 in each box.
        package var red1 = 0, red2 = 0
        package let len1: Int, len2: Int
        package let inv1: Double, inv2: Double
        /// Both boxes full of 1s.
        package init(len1: Int, len2: Int) {
            sum1 = Double(len1); sum2 = Double(len2)
            self.len1 = len1; self.len2 = len2
            inv1 = 1 / Double(len1); inv2 = 1 / Double(len2)
        }

        /// Frame `i`: its window minimum enters box 1 (`entering1[i]`) as `leaving1[i]` leaves;
        /// box 1's average enters box 2 (stored at `entering2[i]`) as `leaving2[i]` leaves.
        /// Returns box 2's average, the gain.
        @inline(__always)
        package mutating func step(_ i: Int, _ entering1: UnsafeMutablePointer<Float>, _ leaving1: UnsafeMutablePointer<Float>,
                           _ entering2: UnsafeMutablePointer<Float>, _ leaving2: UnsafeMutablePointer<Float>) -> Float {
            // Every value a box holds is a gain in [0, 1] (never NaN), so "not 1" is "below 1",
            // one comparison each, counted without branches.
            let new1 = entering1[i], old1 = leaving1[i]
            red1 = red1 &- (old1 < 1 ? 1 : 0) &+ (new1 < 1 ? 1 : 0)
            let s1: Float
            if red1 == 0 { sum1 = Double(len1); s1 = 1 } else {
                sum1 += Double(new1) - Double(old1)
                s1 = min(1, Float(sum1 * inv1))
            }
            entering2[i] = s1
            let old2 = leaving2[i]
            red2 = red2 &- (old2 < 1 ? 1 : 0) &+ (s1 < 1 ? 1 : 0)
            if red2 == 0 { sum2 = Double(len2); return 1 }
            sum2 += Double(s1) - Double(old2)
            return min(1, Float(sum2 * inv2))
        }
    }
}
