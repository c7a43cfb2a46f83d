import Foundation

/// Gathers a `LimitedLoudnessModel` in one streaming pass: the meter's K-weighting summed per
/// ~1 ms unit (the meter's sub-blocks), and per unit the linked inter-sample peak, interpolated
/// (with the meter's own oversampler taps) only on either side of each channel's largest sample,
/// where a peak between samples is. That is a few dozen products per unit where the limiter's
/// detector takes three dozen per sample, so the pass costs about the K-weighting. The result
/// doesn't depend on how the stream is cut into blocks.
package final class LimitedLoudnessAnalyzer {
    public let sampleRate: Int
    public let weights: [Double]
    public let limit: Bool
    package let hop: Int
    private let coefficients: [Double]
    private let pairChannels: [(Int, Int)]
    private var pairStates: [[Double]]
    private var laneWeights: [[Double]]
    private let usesSSE2 = VectorKernels.hasSSE2 && !VectorKernels.portableOnly
    private let energies: FloatSpill
    /// Whether `add` K-weights (else the energies come from a meter, `beside`).
    private let filters: Bool
    private var unitInHop = 0
    private var unitRemaining: Int
    private var pieces: [Int] = []
    private var pieceEnergies: [Double] = []

    // Peaks: per channel the samples from `bufferStart` on (8 zeros of history first).
    private let taps: [Float]
    private let factor: Int
    private let tapsPerPhase: Int
    private var buffers: [[Float]]
    private var bufferStart: Int
    private var nextUnit = 0
    private var nextUnitStart = 0
    private var framesIn = 0
    private let peaks = FloatSpill()
    /// Samples either side of a sample that its interpolated neighbours read.
    private let reach: Int
    /// `taps` regrouped for `unitPeak`'s vector form: entry k holds, per lane, the tap k of one
    /// (start, phase) sum (lanes 0 ..< factor − 1: the sample before the largest, phases 1 ...;
    /// then the same phases from the largest sample; unused lanes 0). Empty when they don't fit.
    private let laneTaps: [SIMD8<Float>]
    /// The lanes that read the largest sample's window rather than the one before it.
    private let secondStartLanes: SIMDMask<SIMD8<Int32>>
    /// `laneTaps` and `secondStartLanes` flat, for `VectorKernels.unitPeaksAVX2`; empty without it.
    private let flatLaneTaps: [Float]
    private let flatSecondLanes: [Int32]
    private var readyLengths: [Int] = []
    private var readyPeaks: [Float] = []

    public convenience init(sampleRate: Int, weights: [Double], limit: Bool) {
        self.init(sampleRate: sampleRate, weights: weights, limit: limit, energies: nil)
    }

    /// An analyzer beside `meter`, fed the same blocks: the meter's sub-blocks are its units and
    /// its K-weighting the same kernel with the same state, so their energies are taken from it
    /// and `add` only finds the peaks (on a thread of its own if wished: the two share nothing
    /// until `finish`, after both have seen the last block). Nil where the meter filters
    /// otherwise (the portable loop flushes tiny values the kernel keeps): analyse separately then.
    public static func beside(_ meter: LoudnessMeter, limit: Bool) -> LimitedLoudnessAnalyzer? {
        let usesSSE2 = VectorKernels.hasSSE2 && !VectorKernels.portableOnly
        guard meter.filtersWithSSE2, usesSSE2, meter.subBlockEnergies == nil else { return nil }
        let energies = FloatSpill()
        meter.subBlockEnergies = energies
        return LimitedLoudnessAnalyzer(sampleRate: meter.sampleRate, weights: meter.weights, limit: limit, energies: energies)
    }

    private init(sampleRate: Int, weights: [Double], limit: Bool, energies given: FloatSpill?) {
        energies = given ?? FloatSpill()
        filters = given == nil
        self.sampleRate = sampleRate
        self.weights = weights
        self.limit = limit
        hop = (sampleRate + 5) / 10
        let k = KWeighting(sampleRate: sampleRate)
        coefficients = [k.shelf.b0, k.shelf.b1, k.shelf.b2, k.shelf.a1, k.shelf.a2, k.highPass.a1, k.highPass.a2]
        var pairs: [(Int, Int)] = [], lanes: [[Double]] = []
        var c = 0
        while c < weights.count {
            let second = c + 1 < weights.count ? c + 1 : c
            pairs.append((c, second))
            lanes.append([weights[c], second == c ? 0 : weights[second]])
            c += 2
        }
        pairChannels = pairs
        laneWeights = lanes
        pairStates = Array(repeating: [Double](repeating: 0, count: 14), count: pairs.count)
        unitRemaining = LimitedLoudnessModel.unitLength(0, hop: hop)
        let os = TruePeakOversampler(sampleRate: sampleRate)
        taps = os.taps
        factor = os.factor
        tapsPerPhase = os.tapsPerPhase
        reach = max(1, tapsPerPhase / 2)
        let phases = factor - 1
        if factor > 1 && 2 * phases <= SIMD8<Float>.scalarCount {
            laneTaps = (0..<tapsPerPhase).map { k in
                var v = SIMD8<Float>(repeating: 0)
                for p in 1...phases {
                    v[p - 1] = os.taps[p * os.tapsPerPhase + k]
                    v[phases + p - 1] = os.taps[p * os.tapsPerPhase + k]
                }
                return v
            }
        } else {
            laneTaps = []
        }
        var second = SIMDMask<SIMD8<Int32>>(repeating: false)
        for l in 0..<SIMD8<Float>.scalarCount where l >= phases && l < 2 * phases { second[l] = true }
        secondStartLanes = second
        // The kernel reads up to 7 samples past a unit (its index search): within the reach.
        if !laneTaps.isEmpty && reach >= 7 && VectorKernels.hasAVX2 && !VectorKernels.portableOnly {
            flatLaneTaps = laneTaps.flatMap { v in (0..<SIMD8<Float>.scalarCount).map { v[$0] } }
            flatSecondLanes = (0..<SIMD8<Float>.scalarCount).map { second[$0] ? -1 : 0 }
        } else {
            flatLaneTaps = []
            flatSecondLanes = []
        }
        buffers = Array(repeating: [Float](repeating: 0, count: reach), count: weights.count)
        bufferStart = -reach
    }

    /// Feeds the next frames (the faded source, before any gain).
    public func add(_ block: AudioBlock) {
        addLoudness(block)
        addPeaks(block)
    }

    /// The energy half of `add` (nothing when the energies come from a meter). The two halves
    /// touch disjoint state: each may run on a thread of its own, handed every block in order;
    /// `finish` only after both have seen the last.
    public func addLoudness(_ block: AudioBlock) {
        precondition(block.channels.count == weights.count)
        if filters && block.frames > 0 { kWeight(block, block.frames) }
    }

    /// The peak half of `add`: the units' peaks (see `addLoudness`).
    public func addPeaks(_ block: AudioBlock) {
        precondition(block.channels.count == weights.count)
        let n = block.frames
        guard n > 0 else { return }
        framesIn += n
        guard limit else { return }
        for c in 0..<buffers.count { buffers[c].append(contentsOf: block.channels[c][0..<n]) }
        processUnits(upTo: framesIn)
        // Keep only the history the next unit reads.
        let drop = nextUnitStart - reach - bufferStart
        if drop > 0 {
            for c in 0..<buffers.count { buffers[c].removeFirst(drop) }
            bufferStart += drop
        }
    }

    /// The model of what was added, for a limiter with `settings`.
    /// `analysedGainDB`: the gain already in the samples added (0: the source's own level).
    public func finish(settings: TruePeakLimiter.Settings, analysedGainDB: Double = 0) -> LimitedLoudnessModel {
        if limit {
            // The stream ends in silence, as the limiter's flush pushes it.
            let pad = hop / LimitedLoudnessModel.unitsPerHop + 2 * reach + 2
            for c in 0..<buffers.count { buffers[c].append(contentsOf: repeatElement(0, count: pad)) }
            processUnits(upTo: framesIn, final: true)
        }
        return LimitedLoudnessModel(energyColumn: energies, peakColumn: peaks, hop: hop, sampleRate: sampleRate,
                                    limit: limit, settings: settings, analysedGainDB: analysedGainDB)
    }

    /// Peaks of the units whose samples (and the interpolator's reach past them) have arrived;
    /// with `final`, every unit that holds a frame of the stream.
    private func processUnits(upTo end: Int, final: Bool = false) {
        let bufferEnd = bufferStart + buffers[0].count
        readyLengths.removeAll(keepingCapacity: true)
        var unit = nextUnit, start = nextUnitStart
        while true {
            let length = LimitedLoudnessModel.unitLength(unit % LimitedLoudnessModel.unitsPerHop, hop: hop)
            if final ? start >= end : start + length + reach > bufferEnd { break }
            readyLengths.append(final ? min(length, end - start) : length)
            unit += 1
            start += length
        }
        guard !readyLengths.isEmpty else { return }
        // Each channel's peaks over the ready units, linked by the largest.
        readyPeaks.removeAll(keepingCapacity: true)
        readyPeaks.append(contentsOf: repeatElement(0, count: readyLengths.count))
        for c in 0..<buffers.count {
            buffers[c].withUnsafeBufferPointer { b in
                readyLengths.withUnsafeBufferPointer { lengths in
                    readyPeaks.withUnsafeMutableBufferPointer { p in
                        let first = b.baseAddress! + (nextUnitStart - bufferStart)
                        if !flatLaneTaps.isEmpty {
                            VectorKernels.unitPeaksAVX2(first, lengths: lengths, laneTaps: flatLaneTaps, taps: tapsPerPhase,
                                                        secondLanes: flatSecondLanes, peaks: p.baseAddress!)
                        } else {
                            var x = first
                            for (u, count) in lengths.enumerated() {
                                let peak = unitPeak(x, count: count)
                                if peak > p[u] { p[u] = peak }
                                x += count
                            }
                        }
                    }
                }
            }
        }
        readyPeaks.withUnsafeBufferPointer { peaks.append(contentsOf: $0) }
        nextUnit = unit
        nextUnitStart = start
    }

    /// The largest |value| over a unit's samples and the interpolated points on either side of
    /// its largest sample (`x[-reach ..< count + reach]` readable).
    private func unitPeak(_ x: UnsafePointer<Float>, count: Int) -> Float {
        let m = OversamplerPeakDetector.absMax(x, count: count)
        guard m > 0, factor > 1 else { return m }
        let a = OversamplerPeakDetector.firstIndex(ofMagnitude: m, in: x, count: count)
        var best = m
        let t = tapsPerPhase, half = t / 2
        if !laneTaps.isEmpty {
            // The same sums, one per lane, each added in the same order as below: the same bits.
            let first = x + (a - 1) + half, second = x + a + half, lanes = secondStartLanes
            var s = SIMD8<Float>(repeating: 0)
            laneTaps.withUnsafeBufferPointer { h in
                for k in 0..<t {
                    let v = SIMD8<Float>(repeating: first[-k]).replacing(with: second[-k], where: lanes)
                    s += h[k] * v
                }
            }
            let magnitudes = unsafeBitCast(unsafeBitCast(s, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
            for l in 0..<SIMD8<Float>.scalarCount where magnitudes[l] > best { best = magnitudes[l] }
            return best
        }
        taps.withUnsafeBufferPointer { h in
            for start in (a - 1)...a {
                // Value at start + p/f: Σ_k h_p[k]·x[start + t/2 − k].
                let base = x + start + half
                for p in 1..<factor {
                    var s: Float = 0
                    for k in 0..<t { s += h[p * t + k] * base[-k] }
                    if abs(s) > best { best = abs(s) }
                }
            }
        }
        return best
    }

    /// The meter's K-weighting over the block, closing a unit's energy at each unit end.
    private func kWeight(_ block: AudioBlock, _ frames: Int) {
        pieces.removeAll(keepingCapacity: true)
        var pos = 0, remaining = unitRemaining, k = unitInHop, closed = 0
        while pos < frames {
            let n = min(remaining, frames - pos)
            pieces.append(n)
            pos += n
            remaining -= n
            if remaining == 0 {
                closed += 1
                k = (k + 1) % LimitedLoudnessModel.unitsPerHop
                remaining = LimitedLoudnessModel.unitLength(k, hop: hop)
            }
        }
        pieceEnergies.removeAll(keepingCapacity: true)
        pieceEnergies.append(contentsOf: repeatElement(0, count: closed))
        for g in 0..<pairChannels.count {
            let (a, b) = pairChannels[g]
            block.channels[a].withUnsafeBufferPointer { pa in
                block.channels[b].withUnsafeBufferPointer { pb in
                    pieces.withUnsafeBufferPointer { lengths in
                        pieceEnergies.withUnsafeMutableBufferPointer { e in
                            if usesSSE2 {
                                VectorKernels.kWeightPair(pa.baseAddress!, pb.baseAddress!, pieces: lengths, closed: closed,
                                                          coefficients: coefficients, state: &pairStates[g],
                                                          weights: laneWeights[g], energies: e.baseAddress!)
                            } else {
                                Self.kWeightPairPortable(pa.baseAddress!, pb.baseAddress!, pieces: lengths, closed: closed,
                                                         coefficients: coefficients, state: &pairStates[g],
                                                         weights: laneWeights[g], energies: e.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
        for e in pieceEnergies { energies.append(Float(e)) }
        unitRemaining = remaining
        unitInHop = k
    }

    /// `VectorKernels.kWeightPair` in Swift, for CPUs without SSE2.
    package static func kWeightPairPortable(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, pieces: UnsafeBufferPointer<Int>,
                                    closed: Int, coefficients c: [Double], state s: inout [Double],
                                    weights w: [Double], energies: UnsafeMutablePointer<Double>) {
        var i = 0
        for (p, length) in pieces.enumerated() {
            for j in i..<(i + length) {
                for lane in 0..<2 {
                    let x = Double(lane == 0 ? a[j] : b[j])
                    let y = c[0] * x + c[1] * s[lane] + c[2] * s[2 + lane] - c[4] * s[6 + lane] - c[3] * s[4 + lane]
                    let z = y - 2 * s[4 + lane] + s[6 + lane] - c[6] * s[10 + lane] - c[5] * s[8 + lane]
                    s[2 + lane] = s[lane]; s[lane] = x
                    s[6 + lane] = s[4 + lane]; s[4 + lane] = y
                    s[10 + lane] = s[8 + lane]; s[8 + lane] = z
                    s[12 + lane] += z * z
                }
            }
            i += length
            if p < closed {
                energies[p] += s[12] * w[0] + s[13] * w[1]
                s[12] = 0; s[13] = 0
            }
        }
    }
}
