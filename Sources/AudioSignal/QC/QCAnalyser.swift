import Foundation

/// The QC faults loudness hides, measured from the same decoded blocks as the loudness: clipped
/// runs and true-peak overs, DC offset, the front pair's correlation and mono fold-down loudness,
/// digital silence at the ends and in the middle, and silent, identical or inverted channels.
/// Definitions and thresholds: docs/qc.md.
public final class QCAnalyser {
    public let sampleRate: Int
    public let channelCount: Int
    /// The channels whose correlation and mono fold-down are measured (a stereo file's pair, a
    /// surround file's front pair), nil for a mono file.
    public let frontPair: (Int, Int)?

    /// |sample| at or above this counts towards a clipped run: 0.01 dB below full scale.
    public static let clipThreshold = Float(pow(10, -0.01 / 20))
    /// Consecutive samples at full scale that make a clipped run.
    public static let clipRunLength = 3
    /// Shortest mid-programme digital silence reported as a dropout, seconds.
    public static let dropoutSeconds = 0.010
    /// Correlation window, seconds.
    public static let correlationSeconds = 3.0
    /// A correlation window starts every this many seconds (the meter's 100-ms hop), so a 3-s
    /// fault is read whole when it starts on that grid and nearly whole anywhere (docs/qc.md).
    public static let correlationHopSeconds = 0.1
    /// A correlation window is counted when both channels' RMS is at least this (dBFS).
    public static let correlationFloorDBFS = -70.0
    /// Two channels whose samples differ (or, inverted, sum) by no more than one 16-bit step
    /// anywhere count as identical (inverted).
    public static let pairTolerance: Float = 1.0 / 32768
    /// Overs closer together than this (seconds) are one stretch, as an over lamp held 10 ms.
    public static let overHoldSeconds = 0.010
    /// Times kept per list (clipped runs, overs).
    public static let timesKept = 20
    /// Dropouts kept in the result (the count is of all).
    public static let dropoutsKept = 1000

    private static let group = 64
    /// ACX's level figures, when asked for.
    private let levelMeter: LevelMeter?
    private let channels: [ChannelState]
    private let history: Int
    private var framesSeen = 0
    // Digital silence over all channels.
    private var firstNonzero = -1
    private var lastNonzero = -1
    private let minDropoutFrames: Int
    /// The overs are counted by a meter's oversamplers (`sharesOversampling(with:)`), not here.
    private var oversShared = false
    private var dropouts: [(start: Int, length: Int)] = []
    private var dropoutCount = 0
    // The front pair's correlation: 3-s windows sliding by a hop; the current hop's sums.
    private var correlation: SlidingCorrelation
    private var frontHop = SlidingCorrelation.Hop()
    // Identical / inverted pairs, still possible.
    private var pairs: [(a: Int, b: Int, identical: Bool, inverted: Bool)] = []
    // Mono fold-down (and, for surround, the front pair) K-weighted per 100 ms.
    private var mono: KWeightedHops?
    private var frontA: KWeightedHops?
    private var frontB: KWeightedHops?
    private var scratch: [Float] = []
    // Stereo: the pair's sums per 100-ms hop (the meter's hop), for the correlation windows and
    // the mono fold-down's estimate from the meter's own blocks.
    private let stereo: Bool
    private let hop: Int
    private var inHop = 0
    private var hopLR: [Double] = [], hopLL: [Double] = [], hopRR: [Double] = []
    private var curLR = 0.0, curLL = 0.0, curRR = 0.0

    package final class ChannelState {
        package let oversampler: TruePeakOversampler
        /// `history` past samples, then the current block.
        package var work: UnsafeMutablePointer<Float>
        package var capacity: Int
        package var dcSum = 0.0
        package var anyNonzero = false
        package var runLength = 0
        package var runStart = 0
        package var runs = 0
        package var runTimes: [Int] = []
        package var previousMax: Float = 0
        /// The channel's overs, counted here or, shared, by the meter's oversampler.
        package let overs: TruePeakOverCounter
        /// Per-frame peaks of a group being checked for overs.
        package let peaks: UnsafeMutablePointer<Float>

        package init(sampleRate: Int, history: Int, overHold: Int) {
            oversampler = TruePeakOversampler(sampleRate: sampleRate)
            overs = TruePeakOverCounter(hold: overHold, kept: QCAnalyser.timesKept)
            capacity = history + 4096 + QCAnalyser.group
            work = .allocate(capacity: capacity)
            work.initialize(repeating: 0, count: capacity)
            peaks = .allocate(capacity: QCAnalyser.group)
            peaks.initialize(repeating: 0, count: QCAnalyser.group)
        }

        deinit { work.deallocate(); peaks.deallocate() }

        /// Room for `history` + `frames` + a group.
        package func reserve(history: Int, frames: Int) {
            let need = history + frames + QCAnalyser.group
            guard need > capacity else { return }
            let w = UnsafeMutablePointer<Float>.allocate(capacity: need)
            w.initialize(repeating: 0, count: need)
            w.update(from: work, count: history)
            work.deallocate()
            work = w
            capacity = need
        }
    }

    /// `frontPair` names the pair to correlate and fold down (nil for none, as a mono file).
    /// `separateFrontLoudness`: also K-weight the pair itself (when the programme loudness is not
    /// the pair's, as in surround), so mono loss compares like with like.
    /// `measuresLevels`: also measure ACX's sample peak, RMS and noise floor (`LevelMeter`).
    public init(sampleRate: Int, channelCount: Int, frontPair: (Int, Int)?, separateFrontLoudness: Bool = false,
                measuresLevels: Bool = false) {
        levelMeter = measuresLevels ? LevelMeter(sampleRate: sampleRate, channelCount: channelCount) : nil
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frontPair = frontPair
        let probe = TruePeakOversampler(sampleRate: sampleRate)
        history = max(probe.tapsPerPhase - 1, 1)
        let overHold = Int((Self.overHoldSeconds * Double(sampleRate)).rounded())
        channels = (0..<channelCount).map { _ in ChannelState(sampleRate: sampleRate, history: probe.tapsPerPhase - 1, overHold: overHold) }
        minDropoutFrames = Int((Self.dropoutSeconds * Double(sampleRate)).rounded())
        correlation = SlidingCorrelation(hopsPerWindow: Int((Self.correlationSeconds / Self.correlationHopSeconds).rounded()),
                                         floorPower: pow(10, Self.correlationFloorDBFS / 10))
        for a in 0..<channelCount { for b in (a + 1)..<max(a + 1, channelCount) { pairs.append((a, b, true, true)) } }
        stereo = channelCount == 2 && frontPair != nil && frontPair! == (0, 1) && !separateFrontLoudness
        hop = (sampleRate + 5) / 10
        if frontPair != nil && !stereo {
            mono = KWeightedHops(sampleRate: sampleRate)
            if separateFrontLoudness { frontA = KWeightedHops(sampleRate: sampleRate); frontB = KWeightedHops(sampleRate: sampleRate) }
        }
    }

    /// Hands the overs check to `meter`, fed the same blocks: its true-peak oversamplers
    /// interpolate the same values anyway, and count the overs into this analyser's counters (the
    /// same stretches, as the meter then also interpolates wherever a value could pass 0 dBTP),
    /// so the check costs almost nothing here. Before the first block; false when the meter does
    /// not oversample, and this analyser then checks the overs itself.
    public func sharesOversampling(with meter: LoudnessMeter) -> Bool {
        precondition(framesSeen == 0, "before the first block")
        guard channels.allSatisfy({ $0.oversampler.factor > 1 }), meter.countOvers(into: channels.map(\.overs)) else { return false }
        oversShared = true
        return true
    }

    /// Feeds the next frames (the block's channel count must be `channelCount`).
    public func add(_ block: AudioBlock) {
        let n = block.frames
        guard n > 0 else { return }
        levelMeter?.add(block)
        let h = history
        for c in 0..<channelCount {
            let s = channels[c]
            s.reserve(history: h, frames: n)
            block.channels[c].withUnsafeBufferPointer { (s.work + h).update(from: $0.baseAddress!, count: n) }
        }
        if stereo {
            addStereo(frames: n, start: framesSeen)
        } else {
            for s in channels { addChannel(s, frames: n, start: framesSeen) }
            silence(frames: n, start: framesSeen)
            comparePairs(frames: n)
            if let (a, b) = frontPair { frontPair(channels[a].work + h, channels[b].work + h, frames: n, start: framesSeen) }
        }
        framesSeen += n
        for s in channels { s.work.update(from: s.work + n, count: h) }
    }

    // MARK: per channel: DC, silence of the channel, clipped runs, overs

    private func addChannel(_ s: ChannelState, frames n: Int, start: Int) {
        let h = history
        let threshold = Self.clipThreshold
        let bound = s.oversampler.gainBound
        let oversampled = s.oversampler.factor > 1
        var dc = SIMD8<Float>(repeating: 0)
        var bits = SIMD8<UInt32>(repeating: 0)
        var dcTail: Float = 0
        var runLength = s.runLength, runStart = s.runStart, previousMax = s.previousMax
        do {
            let w = s.work
            var i = 0
            while i < n {
                let count = min(Self.group, n - i)
                let base = w + h + i
                var vmax = SIMD8<Float>(repeating: 0)
                var k = 0
                while k + 8 <= count {
                    let v = UnsafeRawPointer(base + k).loadUnaligned(as: SIMD8<Float>.self)
                    dc += v
                    let m = unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
                    bits |= unsafeBitCast(m, to: SIMD8<UInt32>.self)
                    vmax = vmax.replacing(with: m, where: m .> vmax)
                    k += 8
                }
                var gmax: Float = 0
                for l in 0..<8 where vmax[l] > gmax { gmax = vmax[l] }
                while k < count {
                    let x = base[k]
                    dcTail += x
                    let m = abs(x)
                    if m != 0 { bits[0] |= 1 }
                    if m > gmax { gmax = m }
                    k += 1
                }
                peaksOfGroup(s, base, count: count, start: start + i, groupMax: gmax, runLength: &runLength, runStart: &runStart,
                             previousMax: &previousMax, threshold: threshold, bound: bound, oversampled: oversampled)
                i += count
            }
        }
        var total = dcTail
        for l in 0..<8 { total += dc[l] }
        s.dcSum += Double(total)
        var any: UInt32 = 0
        for l in 0..<8 { any |= bits[l] }
        if any != 0 { s.anyNonzero = true }
        s.runLength = runLength; s.runStart = runStart; s.previousMax = previousMax
    }

    /// A group's clipped runs and overs, given its largest |sample|: only a group reaching full
    /// scale is looked at sample by sample, and only where the oversampled signal could pass full
    /// scale is it interpolated (see TruePeakOversampler's skip rule).
    @inline(__always)
    private func peaksOfGroup(_ s: ChannelState, _ base: UnsafeMutablePointer<Float>, count: Int, start: Int, groupMax gmax: Float,
                              runLength: inout Int, runStart: inout Int, previousMax: inout Float,
                              threshold: Float, bound: Float, oversampled: Bool) {
        if gmax >= threshold {
            for k in 0..<count {
                if abs(base[k]) >= threshold {
                    if runLength == 0 { runStart = start + k }
                    runLength += 1
                    if runLength == Self.clipRunLength {
                        s.runs += 1
                        // Kept to the millisecond: runs within one (a clipped wave's two flat tops) are one time.
                        if s.runTimes.count < Self.timesKept,
                           s.runTimes.last.map({ Self.millisecond($0, rate: sampleRate) != Self.millisecond(runStart, rate: sampleRate) }) ?? true {
                            s.runTimes.append(runStart)
                        }
                    }
                } else { runLength = 0 }
            }
        } else { runLength = 0 }
        let windowMax = max(previousMax, gmax)
        previousMax = count >= history ? gmax : windowMax
        if !oversShared, oversampled ? windowMax * bound > 1 : gmax > 1 {
            overs(s, base, count: count, start: start)
        }
    }

    /// Counts the stretches where the oversampled signal passes 0 dBTP in `count` frames at `base`
    /// (history before it), frame `start` being base[0].
    private func overs(_ s: ChannelState, _ base: UnsafeMutablePointer<Float>, count: Int, start: Int) {
        let o = s.oversampler
        do {
            let p = s.peaks
            if o.factor > 1 {
                // The group's skip rule again, per 8 frames: frame n's values read x[n − history ... n],
                // which lie in its own 8 frames and the 16 before, so only runs of 8 frames where one
                // of those 24 samples times the bound passes full scale are interpolated (a loud
                // master's group is mostly below it). Frames are counted in order: the same result.
                let h = history, sub = Self.subGroup
                assert(sub <= h && h <= 2 * sub && count <= Self.group, "a frame's window must lie in its 8 frames and the 16 before")
                let bound = o.gainBound
                /// Bit j + 2 set when a sample of frames 8j ..< 8j + 8 times the bound passes 1; bits 0
                /// and 1 for the history (the first also covers frame −8, which changes nothing).
                var hot: UInt64 = 0
                @inline(__always) func passes(_ q: UnsafeMutablePointer<Float>) -> Bool {
                    let v = unsafeBitCast(unsafeBitCast(UnsafeRawPointer(q).loadUnaligned(as: SIMD8<Float>.self), to: SIMD8<UInt32>.self)
                                          & 0x7fff_ffff, to: SIMD8<Float>.self)
                    return any(v * bound .> 1)
                }
                if passes(base - h) { hot |= 1 }
                if passes(base - sub) { hot |= 2 }
                var j = 0
                while j + sub <= count {
                    if passes(base + j) { hot |= 4 << UInt64(j / sub) }
                    j += sub
                }
                if j < count && Self.absMax(base + j, count - j) * bound > 1 { hot |= 4 << UInt64(j / sub) }
                var need = (hot | hot << 1 | hot << 2) >> 2
                need &= (1 << UInt64((count + sub - 1) / sub)) - 1
                while need != 0 {
                    let first = need.trailingZeroBitCount
                    let length = (~(need >> UInt64(first))).trailingZeroBitCount
                    oversOfRun(s, base, from: first * sub, to: min(count, (first + length) * sub), start: start)
                    need &= ~(((1 << UInt64(length)) - 1) << UInt64(first))
                }
            } else {
                for k in 0..<count { p[k] = abs(base[k]) }
                countOvers(s, from: 0, to: count, start: start)
            }
        }
    }

    /// Frames per skip decision inside a group checked for overs (one vector of the kernel).
    private static let subGroup = 8

    /// Interpolates frames `from ..< to` of the group at `base` into `s.peaks` and counts their overs.
    private func oversOfRun(_ s: ChannelState, _ base: UnsafeMutablePointer<Float>, from: Int, to: Int, start: Int) {
        // The largest value over the run includes each frame's own sample, so a run under full
        // scale has no over.
        guard s.oversampler.kernel(base: base + from, count: to - from, framePeaks: s.peaks + from) > 1 else { return }
        countOvers(s, from: from, to: to, start: start)
    }

    /// Counts the stretches of `s.peaks[from ..< to]` above full scale (frame `start` at index 0).
    private func countOvers(_ s: ChannelState, from: Int, to: Int, start: Int) {
        s.overs.add(s.peaks, from: from, to: to, start: start, latency: s.oversampler.latency)
    }

    // MARK: stereo, every check in one pass

    /// A stereo block in one loop over both channels, 8 frames a step: DC, clipping and overs
    /// (per 64-frame group), digital silence, identical / inverted, and the pair's sums per hop.
    private func addStereo(frames n: Int, start: Int) {
        let h = history
        let sl = channels[0], sr = channels[1]
        let l = sl.work + h, r = sr.work + h
        let threshold = Self.clipThreshold
        let bound = sl.oversampler.gainBound
        let oversampled = sl.oversampler.factor > 1
        let tolerance = Self.pairTolerance
        var identical = pairs[0].identical, inverted = pairs[0].inverted
        var dcL = SIMD8<Float>(repeating: 0), dcR = dcL
        var anyL = false, anyR = false
        var dcTailL: Float = 0, dcTailR: Float = 0
        var runL = sl.runLength, startL = sl.runStart, prevL = sl.previousMax
        var runR = sr.runLength, startR = sr.runStart, prevR = sr.previousMax
        var lr = curLR, ll = curLL, rr = curRR, inHop = self.inHop
        let hop = self.hop
        var i = 0
        while i < n {
            let count = min(Self.group, n - i, hop - inHop)
            var vmaxL = SIMD8<Float>(repeating: 0), vmaxR = vmaxL
            // The smallest frame magnitude seen, as the OR of the two channels' magnitude bits read as
            // a float (zero only for a frame where both are zero): a min, which stays one instruction.
            var least = SIMD8<Float>(repeating: .infinity)
            var diff = SIMD8<Float>(repeating: 0), sum = diff
            let compare = identical || inverted
            var ab = SIMD8<Float>(repeating: 0), aa = ab, bb = ab
            var k = 0
            if compare {
                while k + 8 <= count {
                    let u = UnsafeRawPointer(l + i + k).loadUnaligned(as: SIMD8<Float>.self)
                    let v = UnsafeRawPointer(r + i + k).loadUnaligned(as: SIMD8<Float>.self)
                    dcL += u; dcR += v
                    let bu = unsafeBitCast(u, to: SIMD8<UInt32>.self) & 0x7fff_ffff
                    let bv = unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff
                    let mu = unsafeBitCast(bu, to: SIMD8<Float>.self), mv = unsafeBitCast(bv, to: SIMD8<Float>.self)
                    vmaxL = vmaxL.replacing(with: mu, where: mu .> vmaxL)
                    vmaxR = vmaxR.replacing(with: mv, where: mv .> vmaxR)
                    let both = unsafeBitCast(bu | bv, to: SIMD8<Float>.self)
                    least = least.replacing(with: both, where: both .< least)
                    let d = Self.magnitude(u - v), e = Self.magnitude(u + v)
                    diff = diff.replacing(with: d, where: d .> diff)
                    sum = sum.replacing(with: e, where: e .> sum)
                    ab += u * v; aa += u * u; bb += v * v
                    k += 8
                }
            } else {
                // The same without the identical / inverted test, once neither can hold.
                while k + 8 <= count {
                    let u = UnsafeRawPointer(l + i + k).loadUnaligned(as: SIMD8<Float>.self)
                    let v = UnsafeRawPointer(r + i + k).loadUnaligned(as: SIMD8<Float>.self)
                    dcL += u; dcR += v
                    let bu = unsafeBitCast(u, to: SIMD8<UInt32>.self) & 0x7fff_ffff
                    let bv = unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff
                    let mu = unsafeBitCast(bu, to: SIMD8<Float>.self), mv = unsafeBitCast(bv, to: SIMD8<Float>.self)
                    vmaxL = vmaxL.replacing(with: mu, where: mu .> vmaxL)
                    vmaxR = vmaxR.replacing(with: mv, where: mv .> vmaxR)
                    let both = unsafeBitCast(bu | bv, to: SIMD8<Float>.self)
                    least = least.replacing(with: both, where: both .< least)
                    ab += u * v; aa += u * u; bb += v * v
                    k += 8
                }
            }
            var gl: Float = 0, gr: Float = 0, dmax: Float = 0, smax: Float = 0
            var anyZero = false
            for q in 0..<8 {
                if vmaxL[q] > gl { gl = vmaxL[q] }
                if vmaxR[q] > gr { gr = vmaxR[q] }
                if diff[q] > dmax { dmax = diff[q] }
                if sum[q] > smax { smax = sum[q] }
                if least[q] == 0 { anyZero = true }
                lr += Double(ab[q]); ll += Double(aa[q]); rr += Double(bb[q])
            }
            // The frames past the last whole step, one at a time.
            while k < count {
                let u = l[i + k], v = r[i + k]
                dcTailL += u; dcTailR += v
                gl = max(gl, abs(u)); gr = max(gr, abs(v))
                if u == 0 && v == 0 { anyZero = true }
                dmax = max(dmax, abs(u - v)); smax = max(smax, abs(u + v))
                lr += Double(u * v); ll += Double(u * u); rr += Double(v * v)
                k += 1
            }
            if gl > 0 { anyL = true }
            if gr > 0 { anyR = true }
            if dmax > tolerance { identical = false }
            if smax > tolerance { inverted = false }
            // Digital silence: a group with no silent frame ends any silence before it.
            if !anyZero {
                nonzero(start + i)
                lastNonzero = start + i + count - 1
            } else {
                for q in 0..<count where l[i + q] != 0 || r[i + q] != 0 { nonzero(start + i + q) }
            }
            peaksOfGroup(sl, l + i, count: count, start: start + i, groupMax: gl, runLength: &runL, runStart: &startL,
                         previousMax: &prevL, threshold: threshold, bound: bound, oversampled: oversampled)
            peaksOfGroup(sr, r + i, count: count, start: start + i, groupMax: gr, runLength: &runR, runStart: &startR,
                         previousMax: &prevR, threshold: threshold, bound: bound, oversampled: oversampled)
            inHop += count
            if inHop == hop {
                hopLR.append(lr); hopLL.append(ll); hopRR.append(rr)
                lr = 0; ll = 0; rr = 0; inHop = 0
            }
            i += count
        }
        var tl = dcTailL, tr = dcTailR
        for q in 0..<8 { tl += dcL[q]; tr += dcR[q] }
        sl.dcSum += Double(tl); sr.dcSum += Double(tr)
        if anyL { sl.anyNonzero = true }
        if anyR { sr.anyNonzero = true }
        sl.runLength = runL; sl.runStart = startL; sl.previousMax = prevL
        sr.runLength = runR; sr.runStart = startR; sr.previousMax = prevR
        pairs[0].identical = identical; pairs[0].inverted = inverted
        curLR = lr; curLL = ll; curRR = rr; self.inHop = inHop
    }

    /// Stereo at the end: the correlation over 3-s windows sliding by 100 ms, from the hop sums.
    private func stereoWindows() {
        for q in hopLR.indices { correlation.push(.init(ab: hopLR[q], aa: hopLL[q], bb: hopRR[q], frames: hop)) }
        correlation.finish(partial: .init(ab: curLR, aa: curLL, bb: curRR, frames: inHop))
    }

    /// The mono fold-down of a stereo programme, estimated from the meter's own 400-ms blocks:
    /// (L+R)/2 on both speakers has energy E·(1+ρ)/2 where E is the block's energy (the meter's,
    /// K-weighted) and ρ = 2Σlr / (Σl² + Σr²) the channels' correlation over the same block. Exact
    /// when the correlation is the same at every frequency (a panned, copied or inverted source).
    private func stereoMonoLUFS(_ blocks: [Double]) -> Double? {
        let count = min(blocks.count, max(0, hopLR.count - 3))
        var mono: [Double] = []
        mono.reserveCapacity(count)
        for b in 0..<count {
            var x = 0.0, e = 0.0
            for q in b..<(b + 4) { x += hopLR[q]; e += hopLL[q] + hopRR[q] }
            let rho = e > 0 ? 2 * x / e : 0
            mono.append(blocks[b] * max(0, 1 + rho) / 2)
        }
        return LoudnessMeter.gatedLoudness(mono, relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
    }

    // MARK: digital silence over all channels

    private func silence(frames n: Int, start: Int) {
        let h = history
        let bases = channels.map { UnsafePointer($0.work + h) }
        var f = 0
        while f < n {
            if f + 8 <= n {
                // 8 frames: the magnitudes' bits OR-ed over the channels; a zero lane is a silent frame.
                var bits = SIMD8<UInt32>(repeating: 0)
                for p in bases { bits |= UnsafeRawPointer(p + f).loadUnaligned(as: SIMD8<UInt32>.self) & 0x7fff_ffff }
                if !any(bits .== 0) {
                    nonzero(start + f)
                    lastNonzero = start + f + 7
                    f += 8
                    continue
                }
                if bits == SIMD8(repeating: 0) { f += 8; continue }
            }
            for p in bases where p[f] != 0 { nonzero(start + f); break }
            f += 1
        }
    }

    /// Frame `f` holds a nonzero sample: it ends any digital silence before it.
    @inline(__always) private func nonzero(_ f: Int) {
        if lastNonzero < 0 {
            if firstNonzero < 0 { firstNonzero = f }
        } else if f - lastNonzero - 1 >= minDropoutFrames {
            dropoutCount += 1
            if dropouts.count < Self.dropoutsKept { dropouts.append((lastNonzero + 1, f - lastNonzero - 1)) }
        }
        lastNonzero = f
    }

    // MARK: identical and inverted channels

    private func comparePairs(frames n: Int) {
        let t = Self.pairTolerance
        let tv = SIMD8<Float>(repeating: t)
        for j in pairs.indices where pairs[j].identical || pairs[j].inverted {
            let x = UnsafePointer(channels[pairs[j].a].work + history), y = UnsafePointer(channels[pairs[j].b].work + history)
            var same = pairs[j].identical, opposite = pairs[j].inverted
            var k = 0
            while k + 8 <= n && (same || opposite) {
                let u = UnsafeRawPointer(x + k).loadUnaligned(as: SIMD8<Float>.self)
                let v = UnsafeRawPointer(y + k).loadUnaligned(as: SIMD8<Float>.self)
                if same, any(Self.magnitude(u - v) .> tv) { same = false }
                if opposite, any(Self.magnitude(u + v) .> tv) { opposite = false }
                k += 8
            }
            while k < n {
                if abs(x[k] - y[k]) > t { same = false }
                if abs(x[k] + y[k]) > t { opposite = false }
                k += 1
            }
            pairs[j].identical = same
            pairs[j].inverted = opposite
        }
    }

    /// Largest |x| of `count` samples.
    package static func absMax(_ p: UnsafePointer<Float>, _ count: Int) -> Float {
        var m: Float = 0
        for k in 0..<count where abs(p[k]) > m { m = abs(p[k]) }
        return m
    }

    /// |v|: the sign bits cleared.
    /// The millisecond a frame falls in, to the nearest (as the records print times).
    package static func millisecond(_ frame: Int, rate: Int) -> Int { Int((Double(frame) * 1000 / Double(rate)).rounded()) }

    @inline(__always) package static func magnitude(_ v: SIMD8<Float>) -> SIMD8<Float> {
        unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
    }

    // MARK: the front pair: correlation per window, mono fold-down

    private func frontPair(_ x: UnsafeMutablePointer<Float>, _ y: UnsafeMutablePointer<Float>, frames n: Int, start: Int) {
        if scratch.count < n { scratch = [Float](repeating: 0, count: n) }
        do {
            do {
                scratch.withUnsafeMutableBufferPointer { mb in
                    let m = mb.baseAddress!
                    var f = 0
                    while f < n {
                        let seg = min(n - f, hop - frontHop.frames)
                        var ab = SIMD8<Float>(repeating: 0), aa = ab, bb = ab
                        var dab = 0.0, daa = 0.0, dbb = 0.0
                        var k = 0
                        let half = SIMD8<Float>(repeating: 0.5)
                        while k + 8 <= seg {
                            let u = UnsafeRawPointer(x + f + k).loadUnaligned(as: SIMD8<Float>.self)
                            let v = UnsafeRawPointer(y + f + k).loadUnaligned(as: SIMD8<Float>.self)
                            ab += u * v
                            aa += u * u
                            bb += v * v
                            UnsafeMutableRawPointer(m + f + k).storeBytes(of: (u + v) * half, as: SIMD8<Float>.self)
                            k += 8
                            if k & 511 == 0 {
                                for l in 0..<8 { dab += Double(ab[l]); daa += Double(aa[l]); dbb += Double(bb[l]) }
                                ab = SIMD8<Float>(repeating: 0); aa = ab; bb = ab
                            }
                        }
                        for l in 0..<8 { dab += Double(ab[l]); daa += Double(aa[l]); dbb += Double(bb[l]) }
                        while k < seg {
                            let u = x[f + k], v = y[f + k]
                            dab += Double(u * v); daa += Double(u * u); dbb += Double(v * v)
                            m[f + k] = (u + v) * 0.5
                            k += 1
                        }
                        frontHop.ab += dab; frontHop.aa += daa; frontHop.bb += dbb
                        frontHop.frames += seg
                        f += seg
                        if frontHop.frames == hop { correlation.push(frontHop); frontHop = .init() }
                    }
                    mono?.add(m, count: n)
                    frontA?.add(x, count: n)
                    frontB?.add(y, count: n)
                }
            }
        }
    }

    // MARK: the result

    public struct Result: Equatable, Sendable {
        public var frames: Int
        public var sampleRate: Int
        /// Clipped runs over all channels; the first `timesKept` distinct times (to the
        /// millisecond) a run starts at, seconds, and the channels a run starts in at each.
        public var clippedRuns: Int
        public var clippedRunTimes: [Double]
        public var clippedRunChannels: [[Int]] = []
        /// Stretches above 0 dBTP over all channels; their first distinct times and channels, alike.
        public var overs: Int
        public var overTimes: [Double]
        public var overChannels: [[Int]] = []
        /// Mean of each channel, dBFS (nil for a channel whose mean is exactly zero).
        public var dcOffsetDBFS: [Double?]
        /// Lowest correlation of the front pair over 3-s windows (one every 100 ms), and where
        /// the first window with it starts.
        public var minCorrelation: Double?
        public var minCorrelationAtSeconds: Double?
        /// Loudness of the mono fold-down ((a + b) / 2 on both front speakers), LUFS.
        public var monoFoldDownLUFS: Double?
        /// Loudness of the front pair itself, when measured apart from the programme (surround).
        public var frontPairLUFS: Double?
        public var headSilenceSeconds: Double
        public var tailSilenceSeconds: Double
        public var dropouts: [(atSeconds: Double, durationSeconds: Double)]
        public var dropoutCount: Int
        /// Channel indices with no nonzero sample; pairs of indices.
        public var silentChannels: [Int]
        public var identicalPairs: [[Int]]
        public var invertedPairs: [[Int]]
        public var hasFrontPair: Bool
        public var allSilent: Bool
        /// ACX's sample peak, RMS and noise floor, when measured.
        public var levels: LevelMeter.Levels? = nil

        public static func == (l: Result, r: Result) -> Bool {
            l.frames == r.frames && l.clippedRuns == r.clippedRuns && l.overs == r.overs && l.clippedRunTimes == r.clippedRunTimes
                && l.dropoutCount == r.dropoutCount && l.dropouts.map(\.atSeconds) == r.dropouts.map(\.atSeconds)
                && l.headSilenceSeconds == r.headSilenceSeconds && l.tailSilenceSeconds == r.tailSilenceSeconds
        }
    }

    /// Completes the analysis; call once, after the last `add`. `programmeBlocks`: the meter's
    /// momentary (400-ms) block energies of a stereo programme, for its mono fold-down.
    public func finish(programmeBlocks: [Double]? = nil) -> Result {
        let rate = Double(sampleRate)
        // The oversampled signal's tail: the filter run on into silence after the last sample.
        for s in channels where s.oversampler.factor > 1 && !oversShared {
            let h = history, l = s.oversampler.latency
            (s.work + h).update(repeating: 0, count: l)
            if s.previousMax * s.oversampler.gainBound > 1 { overs(s, s.work + h, count: l, start: framesSeen) }
        }
        if stereo { stereoWindows() } else if frontPair != nil { correlation.finish(partial: frontHop) }
        let allSilent = lastNonzero < 0
        let head = allSilent ? framesSeen : firstNonzero
        let tail = allSilent ? framesSeen : framesSeen - 1 - lastNonzero
        let silent = channels.indices.filter { !channels[$0].anyNonzero }
        /// The first distinct milliseconds over all channels' frames, each with its channels.
        func events(_ lists: [[Int]]) -> (times: [Double], channels: [[Int]]) {
            var at: [Int: [Int]] = [:]
            for (c, frames) in lists.enumerated() {
                for f in frames {
                    let ms = Self.millisecond(f, rate: sampleRate)
                    if at[ms]?.last != c { at[ms, default: []].append(c) }
                }
            }
            let first = at.keys.sorted().prefix(Self.timesKept)
            return (first.map { Double($0) / 1000 }, first.map { at[$0]! })
        }
        let clipped = events(channels.map(\.runTimes)), overEvents = events(channels.map(\.overs.startFrames))
        var mono: Double?
        var front: Double?
        if let m = self.mono { mono = m.integratedLUFS(weight: 2) }
        if stereo { mono = programmeBlocks.flatMap(stereoMonoLUFS) }
        if let a = frontA, let b = frontB { front = KWeightedHops.integratedLUFS([a, b]) }
        return Result(
            frames: framesSeen, sampleRate: sampleRate,
            clippedRuns: channels.reduce(0) { $0 + $1.runs }, clippedRunTimes: clipped.times, clippedRunChannels: clipped.channels,
            overs: channels.reduce(0) { $0 + $1.overs.count }, overTimes: overEvents.times, overChannels: overEvents.channels,
            dcOffsetDBFS: channels.map { s in
                let mean = framesSeen > 0 ? abs(s.dcSum) / Double(framesSeen) : 0
                return mean > 0 ? 20 * log10(mean) : nil
            },
            minCorrelation: correlation.minimum,
            minCorrelationAtSeconds: correlation.minimum == nil ? nil : Double(correlation.minimumStartFrame) / rate,
            monoFoldDownLUFS: mono, frontPairLUFS: front,
            headSilenceSeconds: Double(head) / rate, tailSilenceSeconds: Double(tail) / rate,
            dropouts: dropouts.map { (Double($0.start) / rate, Double($0.length) / rate) }, dropoutCount: dropoutCount,
            silentChannels: silent,
            identicalPairs: pairs.filter { $0.identical && !silent.contains($0.a) && !silent.contains($0.b) }.map { [$0.a, $0.b] },
            invertedPairs: pairs.filter { $0.inverted && !$0.identical && !silent.contains($0.a) && !silent.contains($0.b) }.map { [$0.a, $0.b] },
            hasFrontPair: frontPair != nil, allSilent: allSilent, levels: levelMeter?.finish())
    }
}
