import Foundation

/// What a BS.1770-4 / EBU R 128 measurement found. A nil value always comes with a sentence in
/// `notes` saying why it is undefined.
public struct LoudnessMeasurement: Equatable, Sendable {
    /// Gated programme loudness (BS.1770-4), LUFS.
    public var integratedLUFS: Double?
    /// Loudness range (EBU Tech 3342), LU.
    public var loudnessRangeLU: Double?
    /// Largest 400 ms loudness at any position (1 ms resolution), LUFS.
    public var momentaryMaxLUFS: Double?
    /// Largest 3 s loudness at any position (1 ms resolution), LUFS.
    public var shortTermMaxLUFS: Double?
    /// Largest |sample| per channel, linear (1.0 = full scale).
    public var samplePeaks: [Double]
    /// Largest |oversampled value| per channel (BS.1770-4 Annex 2), linear, never below the sample
    /// peak; empty when the meter was told not to measure true peak.
    public var truePeaks: [Double]
    /// Frames measured.
    public var frames: Int
    /// Sample rate, Hz.
    public var sampleRate: Int
    /// Why each undefined value is undefined, in the order the values are listed above.
    public var undefined: [Undefined]
    /// What a caller adds about the measurement in its own words (a guessed channel layout);
    /// the meter adds none.
    public var notes: [String]

    /// A measurement from its values (the meter's `finish` makes them; this is for a caller that
    /// keeps measurements and brings them back).
    public init(integratedLUFS: Double?, loudnessRangeLU: Double?, momentaryMaxLUFS: Double?,
                shortTermMaxLUFS: Double?, samplePeaks: [Double], truePeaks: [Double],
                frames: Int, sampleRate: Int, undefined: [Undefined] = [], notes: [String] = []) {
        self.integratedLUFS = integratedLUFS
        self.loudnessRangeLU = loudnessRangeLU
        self.momentaryMaxLUFS = momentaryMaxLUFS
        self.shortTermMaxLUFS = shortTermMaxLUFS
        self.samplePeaks = samplePeaks
        self.truePeaks = truePeaks
        self.frames = frames
        self.sampleRate = sampleRate
        self.undefined = undefined
        self.notes = notes
    }

    /// Why a value is undefined (null in a record). The tools word each one.
    public enum Undefined: String, Equatable, Hashable, Sendable, CaseIterable {
        /// Shorter than one 400 ms gating block.
        case integratedTooShort = "integrated-too-short"
        /// Every 400 ms block is under the −70 LUFS absolute gate.
        case integratedSilent = "integrated-silent"
        /// Shorter than one 3 s short-term block.
        case rangeTooShort = "range-too-short"
        /// Every 3 s block is under the −70 LUFS absolute gate.
        case rangeSilent = "range-silent"
        /// Shorter than 400 ms.
        case momentaryTooShort = "momentary-too-short"
        /// Digital silence.
        case momentarySilent = "momentary-silent"
        /// Shorter than 3 s.
        case shortTermTooShort = "short-term-too-short"
        /// Digital silence.
        case shortTermSilent = "short-term-silent"
        /// The meter was told not to measure true peak.
        case truePeakNotMeasured = "true-peak-not-measured"
        /// Digital silence: the sample and true peaks have no level in dB.
        case peaksSilent = "peaks-silent"
        /// Digital silence: the sample peak has no level in dB (true peak not measured).
        case samplePeakSilent = "sample-peak-silent"
    }

    /// Largest sample peak over all channels in dBFS; nil for digital silence.
    public var samplePeakDBFS: Double? { Self.decibels(samplePeaks.max() ?? 0) }
    /// Largest true peak over all channels in dBTP; nil for digital silence.
    public var truePeakDBTP: Double? { Self.decibels(truePeaks.max() ?? 0) }
    /// Duration in seconds.
    public var seconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }

    package static func decibels(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
}

/// The mean-square energies of a measurement's gating blocks (400 ms and 3 s, on the 100 ms
/// grid), exactly as the meter gated them. Several programmes gated over the union of their
/// blocks give their loudness as one programme: BS.1770-4 over an album, which ReplayGain 2.0
/// calls album gain (libebur128's `ebur128_loudness_global_multiple`), not an average of tracks.
public struct LoudnessBlocks: Equatable, Sendable {
    /// Mean-square energy of every 400 ms gating block (100 ms hop).
    public var momentary: [Double]
    /// Mean-square energy of every 3 s short-term block (100 ms hop).
    public var shortTerm: [Double]

    /// Blocks a meter gave (`LoudnessMeter.blocks`), e.g. kept and brought back.
    public init(momentary: [Double] = [], shortTerm: [Double] = []) {
        self.momentary = momentary
        self.shortTerm = shortTerm
    }

    /// Gated loudness of all the programmes as one, LUFS; nil when no block passes the gates.
    public static func integratedLUFS(_ programmes: [LoudnessBlocks]) -> Double? {
        LoudnessMeter.gatedLoudness(programmes.flatMap(\.momentary), relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
    }

    /// Loudness range (EBU Tech 3342) of all the programmes as one, LU; nil as above.
    public static func loudnessRangeLU(_ programmes: [LoudnessBlocks]) -> Double? {
        LoudnessMeter.loudnessRange(programmes.flatMap(\.shortTerm))
    }
}

/// A streaming BS.1770-4 / EBU R 128 meter in the manner of libebur128: create it for a rate and
/// channel weights, `add` blocks of any size, then `finish`. The gating histories (one Double per
/// 100 ms each, 1.2 MB for two hours) stay in memory, or past 64 KiB each go to the storage a
/// program installs (ValueSpill; the tools install a temporary file) and are read back in order.
///
/// Time is cut into sub-blocks of 1/100 of the 100 ms hop (≈1 ms); a 400 ms or 3 s window ending on
/// any sub-block boundary always spans exactly 4 or 30 hops of samples, so maxima are found at
/// 1 ms resolution while gating blocks sit exactly on the 100 ms grid. Results depend only on the
/// samples, never on how they were split into blocks.
public final class LoudnessMeter {
    /// Sample rate, Hz.
    public let sampleRate: Int
    /// BS.1770 channel weights G_i, one per channel.
    public let weights: [Double]
    package let kWeighting: KWeighting
    /// When set (before the first block), each sub-block's energy Σ G·y² is appended as it
    /// closes: the limiter analysis's energy column (LimitedLoudnessAnalyzer.beside), filtered once.
    package var subBlockEnergies: FloatSpill?
    /// Whether this meter's K-weighting is the SSE2 kernel's (the one the analyzer runs too).
    package var filtersWithSSE2: Bool { usesSSE2 }
    /// Samples per 100 ms hop (rounded as libebur128 does).
    package let hop: Int

    package static let subBlocksPerHop = 100
    package static let momentaryHops = 4
    package static let shortTermHops = 30
    package static let absoluteGateLUFS = -70.0
    package static let integratedRelativeGateLU = -10.0
    package static let rangeRelativeGateLU = -20.0

    /// Filter state and running Σy² for two channels at once (lanes = channels 2g, 2g+1).
    private struct PairState {
        var x1 = SIMD2<Double>(), x2 = SIMD2<Double>()
        var y1 = SIMD2<Double>(), y2 = SIMD2<Double>()
        var z1 = SIMD2<Double>(), z2 = SIMD2<Double>()
        var sumSquares = SIMD2<Double>()
        var laneWeights: SIMD2<Double>

        /// Zeroes state values so small that they would turn subnormal (and slow) in long silences.
        mutating func flushTiny() {
            func flush(_ v: inout SIMD2<Double>) {
                v = v.replacing(with: 0, where: v .< 1e-290 .& v .> -1e-290)
            }
            flush(&x1); flush(&x2); flush(&y1); flush(&y2); flush(&z1); flush(&z2)
        }
    }
    private var pairs: [PairState]
    private let pairChannels: [(Int, Int)]

    private var subInHop = 0
    private var subRemaining: Int
    /// Scratch for `filterAndGateSSE2`: the block's pieces, cut where sub-blocks end, and the
    /// energies of those that close one.
    private var pieceLengths: [Int] = []
    private var pieceEnergies: [Double] = []
    private var subCount = 0
    /// Energies (Σ G·y²) of the last 3 s of sub-blocks.
    private var subRing: [Double]
    private var subRingPos = 0
    private var hopSum = 0.0
    /// Exact energies of the last 30 hops.
    private var hopRing: [Double]
    private var hopCount = 0
    private var momentarySum = 0.0
    private var shortTermSum = 0.0
    private var momentaryMax = -1.0
    private var shortTermMax = -1.0
    /// Mean-square energy of every 400 ms gating block (100 ms hop).
    private let momentaryBlocks = ValueSpill<Double>(chunkValues: LoudnessMeter.historyChunk)
    /// Mean-square energy of every 3 s short-term block (100 ms hop).
    private let shortTermBlocks = ValueSpill<Double>(chunkValues: LoudnessMeter.historyChunk)
    /// Blocks of each history kept in memory before they go to its file (64 KiB, 13 minutes).
    package static let historyChunk = 8192
    private let peakMeters: [TruePeakOversampler]
    private var framesSeen = 0
    private var result: LoudnessMeasurement?

    /// Whether true peak is measured (it can be left out when only loudness is wanted).
    public let measuresTruePeak: Bool
    /// Filled as hops complete when the meter collects a timeline; nil otherwise (no cost then).
    private let timelineCollector: LoudnessTimelineCollector?
    /// Momentary and short-term loudness every 100 ms and true peak per 100 ms, after `finish`,
    /// when the meter was created with `collectsTimeline`.
    public private(set) var timeline: LoudnessTimeline?
    /// Whether each channel's peaks come from the timeline collector (`timelinePeaksSoFar`),
    /// `peakMeters` then left unused.
    private let peaksFromTimeline: Bool
    /// Each channel's own block energies, when the meter was created with `measuresChannels`.
    private let channelHistory: ChannelBlockHistory?
    /// Scratch for `filterAndGateSSE2` with `channelHistory`: a pair's unweighted sums per closed
    /// piece, and every channel's per piece (piece · channels + channel).
    private var laneEnergies: [Double] = []
    private var pieceChannelEnergies: [Double] = []
    /// Each channel measured as a programme of its own (weight 1.0, gated on its own blocks) with
    /// its true peak, after `finish`, when the meter was created with `measuresChannels`.
    public private(set) var channelLoudness: [ChannelLoudness]?

    /// A meter for `sampleRate` and one BS.1770 weight per channel (`ChannelLayout.weights`).
    /// `measuresTruePeak` false leaves true peak out; `collectsTimeline` fills `timeline`;
    /// `measuresChannels` fills `channelLoudness` from the same filter outputs;
    /// `timelinePeaksSoFar` makes the timeline's true peak the largest up to each entry, which
    /// costs far less (what can't raise it is not interpolated), and takes each channel's sample
    /// and true peak from the same work (the same values; `soFar()` then has no peaks).
    public init(sampleRate: Int, weights: [Double], measuresTruePeak: Bool = true, collectsTimeline: Bool = false,
                measuresChannels: Bool = false, timelinePeaksSoFar: Bool = false) {
        precondition(!weights.isEmpty, "at least one channel")
        self.sampleRate = sampleRate
        self.weights = weights
        self.measuresTruePeak = measuresTruePeak
        kWeighting = KWeighting(sampleRate: sampleRate)
        hop = (sampleRate + 5) / 10
        var channelPairs: [(Int, Int)] = []
        var states: [PairState] = []
        var c = 0
        while c < weights.count {
            let second = c + 1 < weights.count ? c + 1 : c
            channelPairs.append((c, second))
            states.append(PairState(laneWeights: SIMD2(weights[c], second == c ? 0 : weights[second])))
            c += 2
        }
        pairChannels = channelPairs
        pairs = states
        subRing = [Double](repeating: 0, count: Self.subBlocksPerHop * Self.shortTermHops)
        hopRing = [Double](repeating: 0, count: Self.shortTermHops)
        let fromTimeline = collectsTimeline && timelinePeaksSoFar && measuresTruePeak
        peaksFromTimeline = fromTimeline
        peakMeters = weights.map { _ in TruePeakOversampler(sampleRate: sampleRate, oversampling: measuresTruePeak && !fromTimeline) }
        subRemaining = 0
        timelineCollector = collectsTimeline
            ? LoudnessTimelineCollector(sampleRate: sampleRate, hop: hop, channelCount: weights.count, truePeak: measuresTruePeak,
                                        peaksSoFar: timelinePeaksSoFar)
            : nil
        channelHistory = measuresChannels ? ChannelBlockHistory(channelCount: weights.count, hop: hop) : nil
        subRemaining = subBlockLength(0)
    }

    /// Hands channel c's overs (stretches over 0 dBTP) to `counters[c]`, counted from the values
    /// its true-peak oversampler interpolates anyway, so a QC pass need not interpolate them
    /// again. Before the first block; false, and nothing handed, when the meter does not
    /// oversample (no true peak measured, or 192 kHz and up).
    package func countOvers(into counters: [TruePeakOverCounter]) -> Bool {
        guard counters.count == peakMeters.count, peakMeters.allSatisfy({ $0.factor > 1 }) else { return false }
        for (m, c) in zip(peakMeters, counters) { m.overCounter = c }
        return true
    }

    /// Samples in sub-block `k` of a hop: boundaries fall at ⌊k·hop/100⌋.
    private func subBlockLength(_ k: Int) -> Int {
        (k + 1) * hop / Self.subBlocksPerHop - k * hop / Self.subBlocksPerHop
    }

    /// Loudness of the most recent 400 ms, LUFS (nil before 400 ms or for silence).
    public var momentaryLUFS: Double? {
        subCount >= Self.subBlocksPerHop * Self.momentaryHops
            ? Self.lufs(momentarySum / Double(Self.momentaryHops * hop)) : nil
    }

    /// Loudness of the most recent 3 s, LUFS (nil before 3 s or for silence).
    public var shortTermLUFS: Double? {
        subCount >= Self.subBlocksPerHop * Self.shortTermHops
            ? Self.lufs(shortTermSum / Double(Self.shortTermHops * hop)) : nil
    }

    /// Frames added so far.
    public var frames: Int { framesSeen }

    /// The gating blocks measured so far, for measuring several programmes as one (album loudness).
    public var blocks: LoudnessBlocks { LoudnessBlocks(momentary: momentaryBlocks.values, shortTerm: shortTermBlocks.values) }

    /// Feeds the next frames; the block's channel count must match the weights. With
    /// `onTwoCores`, true peak runs on a second thread while this one K-weights: the two touch
    /// disjoint state and each stays sequential in time, so the results are the same bits.
    public func add(_ block: AudioBlock, onTwoCores: Bool = false) {
        if onTwoCores && measuresTruePeak {
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                if part == 0 { addPeaks(block) } else { addLoudness(block) }
            }
        } else {
            addPeaks(block)
            addLoudness(block)
        }
    }

    /// The peak half of `add`: sample and true peak of every channel (and the timeline's peaks).
    package func addPeaks(_ block: AudioBlock) {
        addPeaks(block, channels: 0..<weights.count, timeline: true)
    }

    /// The peaks of some channels (and the timeline's, or not). Parts of the meter may run on
    /// threads of their own, at their own pace: this for some channels, this for the others, and
    /// `addLoudness`. They touch disjoint state; each channel's peaks, the timeline and the
    /// loudness must each be handed every block, in order, by one part. `finish` only after all
    /// have seen the last block.
    package func addPeaks(_ block: AudioBlock, channels: Range<Int>, timeline: Bool) {
        precondition(result == nil, "add after finish")
        precondition(block.channels.count == weights.count, "block has \(block.channels.count) channels, meter \(weights.count)")
        let frames = block.frames
        guard frames > 0 else { return }
        for c in channels where !peaksFromTimeline {
            block.channels[c].withUnsafeBufferPointer { peakMeters[c].add(UnsafeBufferPointer(rebasing: $0[0..<frames])) }
        }
        if timeline { timelineCollector?.add(block) }
    }

    /// One file on two threads, the decoding thread and the caller's: the true peak of how many
    /// channels (the first ones) goes to the decoding thread, so that the two carry similar loads.
    /// The costs, measured on ten minutes of 48 kHz audio: decoding PCM about 5 units a channel
    /// (FLAC, MP3 and Ogg several times that), K-weighting 6 a channel pair, true peak up to 2 a
    /// channel (a loud steady tone, where none of it can be skipped).
    package static func peakChannelsBesideDecoding(channelCount n: Int, decodingIsCheap: Bool) -> Int {
        let decode = (decodingIsCheap ? 5 : 15) * n, kWeighting = 6 * ((n + 1) / 2), truePeak = 2
        return (0...n).min { a, b in
            max(decode + truePeak * a, kWeighting + truePeak * (n - a)) < max(decode + truePeak * b, kWeighting + truePeak * (n - b))
        } ?? 0
    }

    /// The loudness half of `add`: K-weighting, the sliding windows and the gating blocks; it
    /// counts the frames. See `addPeaks`.
    package func addLoudness(_ block: AudioBlock) {
        precondition(result == nil, "add after finish")
        precondition(block.channels.count == weights.count, "block has \(block.channels.count) channels, meter \(weights.count)")
        guard block.frames > 0 else { return }
        filterAndGate(block)
        framesSeen += block.frames
    }

    /// Whether the K-weighting runs in the SSE2 kernel (x86-64); decided when a meter is made,
    /// inside `VectorKernels.portableOnly` or not. Tests compare the two.
    private let usesSSE2 = VectorKernels.hasSSE2 && !VectorKernels.portableOnly
    /// The K-weighting as the SSE2 kernel takes it: b0, b1, b2, a1, a2 of the shelf, a1, a2 of
    /// the high-pass.
    private lazy var kernelCoefficients: [Double] = {
        let s = kWeighting.shelf, hp = kWeighting.highPass
        return [s.b0, s.b1, s.b2, s.a1, s.a2, hp.a1, hp.a2]
    }()

    /// K-weighting, the sliding windows and the gating blocks.
    private func filterAndGate(_ block: AudioBlock) {
        if usesSSE2 { filterAndGateSSE2(block); return }
        let frames = block.frames
        var pos = 0
        while pos < frames {
            let n = min(subRemaining, frames - pos)
            for g in 0..<pairs.count {
                let (a, b) = pairChannels[g]
                block.channels[a].withUnsafeBufferPointer { pa in
                    block.channels[b].withUnsafeBufferPointer { pb in
                        filterPair(g, pa.baseAddress! + pos, pb.baseAddress! + pos, n)
                    }
                }
            }
            pos += n
            subRemaining -= n
            if subRemaining == 0 { completeSubBlock() }
        }
    }

    /// `filterAndGate` through the SSE2 kernel: the block is cut where ~1 ms sub-blocks end, each
    /// channel pair is filtered over all the pieces in one call (its state in registers), and the
    /// pieces that end a sub-block are closed in order with their energies. The same bits as
    /// the Swift loop, which stops at every sub-block.
    private func filterAndGateSSE2(_ block: AudioBlock) {
        let frames = block.frames
        pieceLengths.removeAll(keepingCapacity: true)
        var pos = 0, remaining = subRemaining, k = subInHop, closed = 0
        while pos < frames {
            let n = min(remaining, frames - pos)
            pieceLengths.append(n)
            pos += n
            remaining -= n
            if remaining == 0 {
                closed += 1
                k += 1
                if k == Self.subBlocksPerHop { k = 0 }
                remaining = subBlockLength(k)
            }
        }
        pieceEnergies.removeAll(keepingCapacity: true)
        pieceEnergies.append(contentsOf: repeatElement(0, count: closed))
        let n = weights.count
        if channelHistory != nil {
            if laneEnergies.count < 2 * closed { laneEnergies = [Double](repeating: 0, count: 2 * closed) }
            if pieceChannelEnergies.count < n * closed { pieceChannelEnergies = [Double](repeating: 0, count: n * closed) }
        }
        for g in 0..<pairs.count {
            let (a, b) = pairChannels[g]
            var p = pairs[g]
            var state = [p.x1[0], p.x1[1], p.x2[0], p.x2[1], p.y1[0], p.y1[1], p.y2[0], p.y2[1],
                         p.z1[0], p.z1[1], p.z2[0], p.z2[1], p.sumSquares[0], p.sumSquares[1]]
            let weights = [p.laneWeights[0], p.laneWeights[1]]
            block.channels[a].withUnsafeBufferPointer { pa in
                block.channels[b].withUnsafeBufferPointer { pb in
                    pieceLengths.withUnsafeBufferPointer { lengths in
                        pieceEnergies.withUnsafeMutableBufferPointer { energies in
                            laneEnergies.withUnsafeMutableBufferPointer { lanes in
                                VectorKernels.kWeightPair(pa.baseAddress!, pb.baseAddress!, pieces: lengths, closed: closed,
                                                          coefficients: kernelCoefficients, state: &state, weights: weights,
                                                          energies: energies.baseAddress!,
                                                          lanes: channelHistory == nil ? nil : lanes.baseAddress)
                            }
                        }
                    }
                }
            }
            p.x1 = SIMD2(state[0], state[1]); p.x2 = SIMD2(state[2], state[3])
            p.y1 = SIMD2(state[4], state[5]); p.y2 = SIMD2(state[6], state[7])
            p.z1 = SIMD2(state[8], state[9]); p.z2 = SIMD2(state[10], state[11])
            p.sumSquares = SIMD2(state[12], state[13])
            pairs[g] = p
            if channelHistory != nil {
                for q in 0..<closed {
                    pieceChannelEnergies[q * n + a] = laneEnergies[2 * q]
                    if b != a { pieceChannelEnergies[q * n + b] = laneEnergies[2 * q + 1] }
                }
            }
        }
        for (q, energy) in pieceEnergies.enumerated() {
            if let h = channelHistory { for c in 0..<n { h.add(channel: c, energy: pieceChannelEnergies[q * n + c]) } }
            closeSubBlock(energy: energy)
        }
        subRemaining = remaining
    }

    /// Runs the two K-weighting stages over `n` frames of a channel pair and accumulates y².
    /// Direct form I with the feedback term last keeps the recursion to one multiply and one add.
    private func filterPair(_ g: Int, _ pa: UnsafePointer<Float>, _ pb: UnsafePointer<Float>, _ n: Int) {
        // Two independent scalar recursions: the CPU overlaps them as well as it would SIMD2 lanes,
        // and scalar Double stays fast in unoptimised builds too.
        let s = kWeighting.shelf, hp = kWeighting.highPass
        let b0 = s.b0, b1 = s.b1, b2 = s.b2, a1 = s.a1, a2 = s.a2
        let c1 = hp.a1, c2 = hp.a2
        var st = pairs[g]
        var ax1 = st.x1[0], ax2 = st.x2[0], ay1 = st.y1[0], ay2 = st.y2[0], az1 = st.z1[0], az2 = st.z2[0]
        var bx1 = st.x1[1], bx2 = st.x2[1], by1 = st.y1[1], by2 = st.y2[1], bz1 = st.z1[1], bz2 = st.z2[1]
        var accA = st.sumSquares[0], accB = st.sumSquares[1]
        for i in 0..<n {
            let xa = Double(pa[i]), xb = Double(pb[i])
            let ya = b0 * xa + b1 * ax1 + b2 * ax2 - a2 * ay2 - a1 * ay1
            let yb = b0 * xb + b1 * bx1 + b2 * bx2 - a2 * by2 - a1 * by1
            let za = ya - 2 * ay1 + ay2 - c2 * az2 - c1 * az1
            let zb = yb - 2 * by1 + by2 - c2 * bz2 - c1 * bz1
            ax2 = ax1; ax1 = xa; ay2 = ay1; ay1 = ya; az2 = az1; az1 = za
            bx2 = bx1; bx1 = xb; by2 = by1; by1 = yb; bz2 = bz1; bz1 = zb
            accA += za * za
            accB += zb * zb
        }
        st.x1 = SIMD2(ax1, bx1); st.x2 = SIMD2(ax2, bx2)
        st.y1 = SIMD2(ay1, by1); st.y2 = SIMD2(ay2, by2)
        st.z1 = SIMD2(az1, bz1); st.z2 = SIMD2(az2, bz2)
        st.sumSquares = SIMD2(accA, accB)
        pairs[g] = st
    }

    /// Closes a ~1 ms sub-block: updates the sliding 400 ms / 3 s sums, their maxima, and on hop
    /// boundaries re-anchors the sums exactly and records the gating blocks.
    private func completeSubBlock() {
        var energy = 0.0
        for g in 0..<pairs.count {
            if let h = channelHistory {
                let (a, b) = pairChannels[g]
                h.add(channel: a, energy: pairs[g].sumSquares[0])
                if b != a { h.add(channel: b, energy: pairs[g].sumSquares[1]) }
            }
            let e = pairs[g].sumSquares * pairs[g].laneWeights
            energy += e[0] + e[1]
            pairs[g].sumSquares = SIMD2()
            pairs[g].flushTiny()
        }
        closeSubBlock(energy: energy)
        subRemaining = subBlockLength(subInHop)
    }

    /// The windows' part of closing a sub-block of `energy` (Σ G·y² over it, its filter sums
    /// already restarted).
    private func closeSubBlock(energy: Double) {
        subBlockEnergies?.append(Float(energy))
        let ringSize = subRing.count
        let momentarySubs = Self.subBlocksPerHop * Self.momentaryHops
        let leavingShort = subCount >= ringSize ? subRing[subRingPos] : 0
        // Ring positions without a division (this runs every millisecond of audio).
        var momentaryStart = subRingPos - momentarySubs
        if momentaryStart < 0 { momentaryStart += ringSize }
        let leavingMomentary = subCount >= momentarySubs ? subRing[momentaryStart] : 0
        subRing[subRingPos] = energy
        subRingPos += 1
        if subRingPos == ringSize { subRingPos = 0 }
        subCount += 1
        momentarySum = momentarySum + energy - leavingMomentary
        shortTermSum = shortTermSum + energy - leavingShort
        hopSum += energy

        subInHop += 1
        if subInHop == Self.subBlocksPerHop {
            subInHop = 0
            hopRing[hopCount % hopRing.count] = hopSum
            hopSum = 0
            hopCount += 1
            channelHistory?.hopCompleted()
            momentarySum = recentHops(Self.momentaryHops)
            shortTermSum = recentHops(Self.shortTermHops)
            if hopCount >= Self.momentaryHops {
                momentaryBlocks.append(momentarySum / Double(Self.momentaryHops * hop))
            }
            if hopCount >= Self.shortTermHops {
                shortTermBlocks.append(shortTermSum / Double(Self.shortTermHops * hop))
            }
            timelineCollector?.hopCompleted(
                momentary: hopCount >= Self.momentaryHops ? momentarySum / Double(Self.momentaryHops * hop) : -1,
                shortTerm: hopCount >= Self.shortTermHops ? shortTermSum / Double(Self.shortTermHops * hop) : -1)
        }
        if subCount >= momentarySubs, momentarySum > momentaryMax { momentaryMax = momentarySum }
        if subCount >= ringSize, shortTermSum > shortTermMax { shortTermMax = shortTermSum }
    }

    /// Exact sum of the last `count` hop energies (fewer at the start).
    private func recentHops(_ count: Int) -> Double {
        var s = 0.0
        let n = min(count, hopCount)
        for j in 0..<n { s += hopRing[(hopCount - n + j) % hopRing.count] }
        return s
    }

    /// BS.1770 loudness of a mean-square energy Σ G·mean(y²); nil for zero.
    package static func lufs(_ meanSquare: Double) -> Double? {
        meanSquare > 0 ? -0.691 + 10 * log10(meanSquare) : nil
    }

    package static func energy(ofLUFS l: Double) -> Double { pow(10, (l + 0.691) / 10) }

    /// Completes the measurement. Calling it again returns the same value; `add` is then an error.
    public func finish() -> LoudnessMeasurement {
        if let r = result { return r }
        for m in peakMeters { m.finish() }
        timeline = timelineCollector?.finish(frames: framesSeen)
        let c = peaksFromTimeline ? timelineCollector : nil
        let r = measurement(samplePeaks: (c?.channelSamplePeaks ?? peakMeters.map(\.samplePeak)).map(Double.init),
                            truePeaks: (c?.channelPeaks ?? peakMeters.map(\.truePeak)).map(Double.init))
        channelLoudness = channelHistory?.loudness(truePeaks: r.truePeaks, samplePeaks: r.samplePeaks)
        result = r
        return r
    }

    /// What `finish` would give if the audio ended after the frames added so far, the meter
    /// left running: a live meter's values "so far", each equal to measuring that prefix.
    /// The gating figures are kept up to date from the blocks added since the last call
    /// (RunningGating), so a reading costs about the same however long the audio has run.
    public func soFar() -> LoudnessMeasurement {
        if let r = result { return r }
        let peaks = peakMeters.map { $0.peaksIfEnded(sampleRate: sampleRate) }
        if running == nil {
            running = (RunningGating(relativeGateLU: Self.integratedRelativeGateLU), RunningGating(relativeGateLU: Self.rangeRelativeGateLU), 0, 0)
        }
        momentaryBlocks.forEach(from: running!.momentaryFed) { running!.integrated.add($0) }
        shortTermBlocks.forEach(from: running!.shortTermFed) { running!.range.add($0) }
        running!.momentaryFed = momentaryBlocks.count
        running!.shortTermFed = shortTermBlocks.count
        let gated = (running!.integrated.gatedLoudness(), running!.range.loudnessRange())
        return measurement(samplePeaks: peaks.map { Double($0.sample) }, truePeaks: peaks.map { Double($0.truePeak) }, gated: gated)
    }

    /// `soFar`'s running gating and how many blocks of each kind it has been handed.
    private var running: (integrated: RunningGating, range: RunningGating, momentaryFed: Int, shortTermFed: Int)?

    /// The measurement of the frames so far, given each channel's peaks at their end (and the
    /// integrated loudness and range, when a running gating has them).
    private func measurement(samplePeaks: [Double], truePeaks endPeaks: [Double],
                             gated: (integrated: Double?, range: Double?)? = nil) -> LoudnessMeasurement {
        var notes: [LoudnessMeasurement.Undefined] = []

        var integrated: Double?
        if momentaryBlocks.isEmpty {
            notes.append(.integratedTooShort)
        } else if let l = gated.map({ $0.integrated }) ?? Self.gatedLoudness(momentaryBlocks, relativeGateLU: Self.integratedRelativeGateLU) {
            integrated = l
        } else {
            notes.append(.integratedSilent)
        }

        let range: Double?
        if shortTermBlocks.isEmpty {
            range = nil
            notes.append(.rangeTooShort)
        } else if let r = gated.map({ $0.range }) ?? Self.loudnessRange(shortTermBlocks) {
            range = r
        } else {
            range = nil
            notes.append(.rangeSilent)
        }

        var momentary: Double?
        if subCount < Self.subBlocksPerHop * Self.momentaryHops {
            notes.append(.momentaryTooShort)
        } else if let l = Self.lufs(momentaryMax / Double(Self.momentaryHops * hop)) {
            momentary = l
        } else {
            notes.append(.momentarySilent)
        }

        var shortTerm: Double?
        if subCount < subRing.count {
            notes.append(.shortTermTooShort)
        } else if let l = Self.lufs(shortTermMax / Double(Self.shortTermHops * hop)) {
            shortTerm = l
        } else {
            notes.append(.shortTermSilent)
        }

        let truePeaks = measuresTruePeak ? endPeaks : []
        if !measuresTruePeak {
            notes.append(.truePeakNotMeasured)
        }
        if (samplePeaks.max() ?? 0) == 0 {
            notes.append(measuresTruePeak ? .peaksSilent : .samplePeakSilent)
        }
        let r = LoudnessMeasurement(integratedLUFS: integrated, loudnessRangeLU: range,
                                    momentaryMaxLUFS: momentary, shortTermMaxLUFS: shortTerm,
                                    samplePeaks: samplePeaks, truePeaks: truePeaks,
                                    frames: framesSeen, sampleRate: sampleRate, undefined: notes)
        return r
    }

    /// BS.1770-4 gating: blocks above −70 LUFS, then above (their mean − 10 LU); loudness of the
    /// mean of what remains. Nil when nothing passes the absolute gate. The sums are exact (then
    /// rounded once), so a running measurement (RunningGating) gives the same bits. `blocks` is
    /// read twice, in order (an array, or a history read back from its file).
    package static func gatedLoudness<S: Sequence>(_ blocks: S, relativeGateLU: Double) -> Double? where S.Element == Double {
        let absolute = energy(ofLUFS: absoluteGateLUFS)
        var sum = ExactSum(), count = 0
        for z in blocks where z > absolute { sum.add(z); count += 1 }
        guard count > 0 else { return nil }
        let relative = sum.value / Double(count) * pow(10, relativeGateLU / 10)
        var kept = ExactSum(), keptCount = 0
        for z in blocks where z > absolute && z > relative { kept.add(z); keptCount += 1 }
        guard keptCount > 0 else { return nil }
        return lufs(kept.value / Double(keptCount))
    }

    /// EBU Tech 3342 loudness range: short-term blocks above −70 LUFS, then above (their energy
    /// mean − 20 LU); the spread between the 10th and 95th percentiles of their loudness. The
    /// percentiles are nearest-rank at round((n − 1)·p) in the sorted list, half away from zero,
    /// as in Tech 3342's reference implementation. Nil when nothing passes the absolute gate.
    /// `blocks` is read several times, in order; the percentiles are picked by RankSelection, the
    /// values sorting would give, without a sorted copy of the blocks.
    package static func loudnessRange<S: Sequence>(_ blocks: S) -> Double? where S.Element == Double {
        let absolute = energy(ofLUFS: absoluteGateLUFS)
        var sum = ExactSum(), count = 0
        for z in blocks where z > absolute { sum.add(z); count += 1 }
        guard count > 0 else { return nil }
        let relative = sum.value / Double(count) * pow(10, rangeRelativeGateLU / 10)
        let kept = { (z: Double) in z > absolute && z > relative }
        var keptCount = 0
        for z in blocks where kept(z) { keptCount += 1 }
        guard keptCount > 0 else { return nil }
        func percentile(_ p: Double) -> Double {
            let i = Int((Double(keptCount - 1) * p).rounded(.toNearestOrAwayFromZero))
            return -0.691 + 10 * log10(RankSelection.value(rank: i, among: blocks, where: kept))
        }
        return percentile(0.95) - percentile(0.10)
    }
}
