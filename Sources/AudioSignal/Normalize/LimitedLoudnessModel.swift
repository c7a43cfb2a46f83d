import Foundation

/// What the true-peak limiter will do to the loudness, predicted from one cheap pass over the
/// (faded, un-gained) source: per ~1 ms unit (the loudness meter's sub-blocks) the K-weighted
/// energy and the linked inter-sample peak. The limiter's gain is a function of the gained peak
/// envelope (instant attack, exponential release, minimum over the look-ahead), so for any gain
/// the model replays that gain path unit by unit, weights each unit's energy by its squared gain
/// and gates the 400 ms blocks as the meter does: the loudness of the limited output, without
/// running the limiter. Numbers in, numbers out.
public struct LimitedLoudnessModel: Sendable {
    /// K-weighted, channel-weighted energy Σ G·y² of each complete unit, copied out of its
    /// column (a function, not a property, so a loop can't index it by mistake: the model's own
    /// loops read the columns in order through readers).
    public func energyValues() -> [Float] { energyColumn.values }
    /// Largest inter-sample peak of each unit over all channels (at least as many energies), copied out.
    public func peakValues() -> [Float] { peakColumn.values }
    /// The two, read a chunk at a time (a long stream's are in a temporary file, not in memory).
    package let energyColumn: FloatSpill, peakColumn: FloatSpill
    /// Gain already in the analysed samples, dB (0 for the source itself).
    public let analysedGainDB: Double
    /// Frames per 100 ms hop (the meter's); a hop is 100 units.
    public let hop: Int
    public let sampleRate: Int
    /// Whether the limiter runs (else the gain path is left out: only fades shape the loudness).
    public let limit: Bool
    /// The limiter's threshold (ceiling less margin), linear.
    public let threshold: Float
    /// The limiter's look-ahead, frames, and its per-frame release coefficient.
    public let lookahead: Int
    public let releaseCoefficient: Double

    public init(energies: [Float], peaks: [Float], hop: Int, sampleRate: Int, limit: Bool,
                settings: TruePeakLimiter.Settings, analysedGainDB: Double = 0) {
        self.init(energyColumn: FloatSpill(energies), peakColumn: FloatSpill(peaks), hop: hop, sampleRate: sampleRate,
                  limit: limit, settings: settings, analysedGainDB: analysedGainDB)
    }

    package init(energyColumn: FloatSpill, peakColumn: FloatSpill, hop: Int, sampleRate: Int, limit: Bool,
         settings: TruePeakLimiter.Settings, analysedGainDB: Double = 0) {
        self.energyColumn = energyColumn
        self.peakColumn = peakColumn
        self.analysedGainDB = analysedGainDB
        self.hop = hop
        self.sampleRate = sampleRate
        self.limit = limit
        let p = TruePeakLimiter.Parameters(settings: settings, sampleRate: sampleRate)
        threshold = p.threshold
        lookahead = p.lookahead
        releaseCoefficient = Double(p.releaseCoefficient)
        smoothing = Self.smoothingWeights(lookahead: lookahead, sampleRate: sampleRate, hop: hop)
    }

    /// The same analysis for a limiter with other `settings` (a lower ceiling), or with the
    /// limiter turned on or off: nil when it would turn on and the analysis kept no peaks.
    public func withLimiter(_ settings: TruePeakLimiter.Settings, limit: Bool = true) -> LimitedLoudnessModel? {
        if limit && !self.limit && peakColumn.count < energyColumn.count { return nil }
        return LimitedLoudnessModel(energyColumn: energyColumn, peakColumn: peakColumn, hop: hop, sampleRate: sampleRate, limit: limit,
                                    settings: settings, analysedGainDB: analysedGainDB)
    }

    /// The limiter's two box filters (see `TruePeakLimiter`) as weights on the gains of this unit
    /// and the ones before it: the frame kernel averaged over where a frame sits in its unit.
    public let smoothing: [Double]

    package static func smoothingWeights(lookahead: Int, sampleRate: Int, hop: Int) -> [Double] {
        let detectorLatency = TruePeakOversampler(sampleRate: sampleRate).latency
        let hold = min(detectorLatency, lookahead / 4)
        let span = lookahead + 1 - hold
        let len1 = (span + 1) / 2, len2 = span + 1 - len1
        var kernel = [Double](repeating: 0, count: len1 + len2 - 1)
        for a in 0..<len1 { for b in 0..<len2 { kernel[a + b] += 1 / Double(len1 * len2) } }
        let u = max(1, hop / unitsPerHop)
        var weights = [Double](repeating: 0, count: (kernel.count + u - 1) / u + 2)
        for o in 0..<u {
            for (k, w) in kernel.enumerated() {
                let d = o >= k ? 0 : (k - o + u - 1) / u
                weights[d] += w / Double(u)
            }
        }
        while weights.count > 1 && weights.last == 0 { weights.removeLast() }
        return weights
    }

    /// Units in a hop, as the meter closes sub-blocks.
    package static let unitsPerHop = LoudnessMeter.subBlocksPerHop

    /// Frames in unit `k` of a hop of `hop` frames (the meter's sub-block boundaries).
    package static func unitLength(_ k: Int, hop: Int) -> Int {
        (k + 1) * hop / unitsPerHop - k * hop / unitsPerHop
    }

    /// Integrated loudness (BS.1770 gating) of the output at `gainDB`, limited when `limit`; nil
    /// when nothing passes the gates or the audio is shorter than one 400 ms block.
    public func loudness(gainDB: Double) -> Double? {
        let units = energyColumn.count
        let hops = units / Self.unitsPerHop
        guard hops >= LoudnessMeter.momentaryHops else { return nil }
        let a = pow(10, (gainDB - analysedGainDB) / 20)
        // One Double per hop, in a temporary file past 64 KiB: a long stream's model holds no
        // per-hop array at any gain tried.
        let hopEnergies = ValueSpill<Double>(chunkValues: LoudnessMeter.historyChunk)
        if !limit {
            let energies = FloatSpill.Reader(energyColumn)
            for _ in 0..<hops {
                var s = 0.0
                for _ in 0..<Self.unitsPerHop { s += Double(energies.read()) }
                hopEnergies.append(s * a * a)
            }
        } else {
            limitedHopEnergies(gain: a, hops: hops, into: hopEnergies)
        }
        return LoudnessMeter.gatedLoudness(GatingBlocks(hopEnergies: hopEnergies, hop: hop),
                                           relativeGateLU: LoudnessMeter.integratedRelativeGateLU)
    }

    /// The 400 ms gating blocks over hop energies, as the meter makes them: from the fourth hop
    /// on, each the sum of the last four hops (added afresh, oldest first) over the block's frames.
    package struct GatingBlocks: Sequence {
        package let hopEnergies: ValueSpill<Double>
        package let hop: Int

        package struct Iterator: IteratorProtocol {
            package var hops: ValueSpill<Double>.Iterator
            package let frames: Double
            /// The last hops read, a ring from `oldest`; `seen` hops so far.
            package var last = [Double](repeating: 0, count: LoudnessMeter.momentaryHops)
            package var oldest = 0, seen = 0

            package mutating func next() -> Double? {
                let m = last.count
                while let e = hops.next() {
                    last[oldest] = e
                    oldest = oldest + 1 == m ? 0 : oldest + 1
                    seen += 1
                    guard seen >= m else { continue }
                    var s = 0.0
                    for k in 0..<m { s += last[(oldest + k) % m] }
                    return s / frames
                }
                return nil
            }
        }

        package func makeIterator() -> Iterator {
            Iterator(hops: hopEnergies.makeIterator(), frames: Double(LoudnessMeter.momentaryHops * hop))
        }
    }

    /// The limiter's gain path replayed unit by unit: the needed reduction from the unit's gained
    /// peak, instant attack and exponential release, then the minimum over the look-ahead (the
    /// last unit it reaches counted as far as it is covered on average); each unit's energy is
    /// weighted by its squared gain and summed into its hop.
    ///
    /// This runs for every unit at every gain the search tries, so it goes a chunk of units at a
    /// time: the release recursion alone (sequential), then the look-ahead minimum and the box
    /// filters four units at once (each lane the same operations in the same order as one unit
    /// alone), then the sums in unit order. The bits are those of a unit-by-unit loop.
    private func limitedHopEnergies(gain a: Double, hops: Int, into hopEnergies: ValueSpill<Double>) {
        let total = peakColumn.count
        let perHop = Self.unitsPerHop
        let nominal = max(1, hop / perHop)
        // Units whose every frame's look-ahead covers them, and the share of the next one.
        let q = lookahead / nominal, r = lookahead % nominal
        let partial = min(1, (Double(r) + Double(nominal) / 2) / Double(nominal))
        let thr = Double(threshold), ov = Double(TruePeakLimiter.releaseOvershoot)
        let decays = (0..<perHop).map { pow(releaseCoefficient, Double(Self.unitLength($0, hop: hop))) }
        let weights = smoothing, taps = smoothing.count
        let units = hops * perHop
        let chunk = Self.modelChunk
        // Gains of units base ..< base + n + q; look-ahead minima of units base − (taps − 1) ..<
        // base + n (1 before the first unit, as the box filters start full).
        var gainBuffer = [Double](repeating: 1, count: chunk + q)
        var minima = [Double](repeating: 1, count: chunk + taps - 1)
        var terms = [Double](repeating: 0, count: chunk)
        var energyBuffer = [Float](repeating: 0, count: chunk)
        var peakBuffer = [Float](repeating: 0, count: chunk + q)
        var depth = 0.0
        var produced = 0, producedInHop = 0, unitInHop = 0
        var hopSum = 0.0
        let a2 = a * a
        let keep = 1 - partial
        decays.withUnsafeBufferPointer { dc in
        weights.withUnsafeBufferPointer { w in
        gainBuffer.withUnsafeMutableBufferPointer { gb in
        minima.withUnsafeMutableBufferPointer { mb in
        terms.withUnsafeMutableBufferPointer { tb in
        energyBuffer.withUnsafeMutableBufferPointer { eb in
        peakBuffer.withUnsafeMutableBufferPointer { pb in
            let gains = gb.baseAddress!, mins = mb.baseAddress!, term = tb.baseAddress!
            var base = 0
            while base < units {
                let n = Swift.min(chunk, units - base)
                // 1. The attack/release gain of every unit up to base + n + q − 1 (the last one
                // a frame's look-ahead reaches in this chunk); the first q are the last chunk's.
                let end = base + n + q
                let withPeaks = Swift.max(0, Swift.min(end, total) - produced)
                if withPeaks > 0 { peakColumn.read(from: produced, count: withPeaks, into: pb.baseAddress!) }
                var k = produced - base
                var i = 0
                while produced < end {
                    if depth != 0 {
                        depth = (depth + ov) * dc[producedInHop] - ov
                        if depth < 0 { depth = 0 }
                    }
                    if i < withPeaks {
                        let p = Double(pb[i]) * a
                        if p > thr, 1 - thr / p > depth { depth = 1 - thr / p }
                    }
                    gains[k] = 1 - depth
                    i += 1; k += 1
                    produced += 1
                    producedInHop += 1
                    if producedInHop == perHop { producedInHop = 0 }
                }
                // 2. Each unit's look-ahead minimum, box-filtered, times its energy.
                energyColumn.read(from: base, count: n, into: eb.baseAddress!)
                var j = 0
                while j + 4 <= n {
                    var full = UnsafeRawPointer(gains + j).loadUnaligned(as: SIMD4<Double>.self)
                    if q > 1 {
                        for d in 1..<q {
                            let v = UnsafeRawPointer(gains + j + d).loadUnaligned(as: SIMD4<Double>.self)
                            full.replace(with: v, where: v .< full)
                        }
                    }
                    var m = full
                    if q > 0 {
                        var last = UnsafeRawPointer(gains + j + q).loadUnaligned(as: SIMD4<Double>.self)
                        last.replace(with: full, where: .!(last .< full))
                        m = keep * full + partial * last
                    }
                    UnsafeMutableRawPointer(mins + taps - 1 + j).storeBytes(of: m, as: SIMD4<Double>.self)
                    var g = SIMD4<Double>(repeating: 0)
                    for d in 0..<taps {
                        g += w[d] * UnsafeRawPointer(mins + taps - 1 + j - d).loadUnaligned(as: SIMD4<Double>.self)
                    }
                    let e = SIMD4<Double>(Double(eb[j]), Double(eb[j + 1]), Double(eb[j + 2]), Double(eb[j + 3]))
                    UnsafeMutableRawPointer(term + j).storeBytes(of: e * a2 * g * g, as: SIMD4<Double>.self)
                    j += 4
                }
                while j < n {
                    var full = gains[j]
                    if q > 1 { for d in 1..<q { full = Swift.min(full, gains[j + d]) } }
                    var m = full
                    if q > 0 { m = keep * full + partial * Swift.min(full, gains[j + q]) }
                    mins[taps - 1 + j] = m
                    var g = 0.0
                    for d in 0..<taps { g += w[d] * mins[taps - 1 + j - d] }
                    term[j] = Double(eb[j]) * a2 * g * g
                    j += 1
                }
                // 3. The sums, in unit order, a hop at a time.
                for j in 0..<n {
                    hopSum += term[j]
                    unitInHop += 1
                    if unitInHop == perHop { unitInHop = 0; hopEnergies.append(hopSum); hopSum = 0 }
                }
                // The next chunk's first q gains and its box filters' history.
                gains.update(from: gains + n, count: q)
                mins.update(from: mins + n, count: taps - 1)
                base += n
            }
        }}}}}}}
    }

    /// Units the model replays at a time.
    package static let modelChunk = 4096

    /// The gain, dB, within `maxCompensationDB` of `planGainDB`, whose predicted loudness is
    /// `targetLUFS` (to 0.001 LU): a secant search on the model, which costs no pass. At the edge
    /// of the range when the target is out of reach; `planGainDB` when nothing is measurable.
    public func gain(forTarget targetLUFS: Double, planGainDB: Double, maxCompensationDB: Double) -> Double {
        search(forTarget: targetLUFS, planGainDB: planGainDB, maxCompensationDB: maxCompensationDB).gainDB
    }

    /// `gain(forTarget:…)` and the model's loudness at that gain (nil when nothing passes the
    /// gates): the search's own value where it ended on a gain it evaluated, which saves a replay.
    public func gainAndLoudness(forTarget targetLUFS: Double, planGainDB: Double,
                                maxCompensationDB: Double) -> (gainDB: Double, loudness: Double?) {
        let found = search(forTarget: targetLUFS, planGainDB: planGainDB, maxCompensationDB: maxCompensationDB)
        if let last = found.last, last.gainDB == found.gainDB { return (found.gainDB, last.loudness) }
        return (found.gainDB, loudness(gainDB: found.gainDB))
    }

    /// The secant search of `gain(forTarget:…)`, with the last gain it evaluated and the loudness there.
    private func search(forTarget targetLUFS: Double, planGainDB: Double, maxCompensationDB: Double)
        -> (gainDB: Double, last: (gainDB: Double, loudness: Double?)?) {
        var last: (gainDB: Double, loudness: Double?)? = nil
        let x = secant(forTarget: targetLUFS, planGainDB: planGainDB, maxCompensationDB: maxCompensationDB) { g in
            let l = loudness(gainDB: g)
            last = (g, l)
            return l
        }
        return (x, last)
    }

    private func secant(forTarget targetLUFS: Double, planGainDB: Double, maxCompensationDB: Double,
                        loudness: (Double) -> Double?) -> Double {
        let lo = planGainDB - maxCompensationDB, hi = planGainDB + maxCompensationDB
        func f(_ g: Double) -> Double? { loudness(g).map { $0 - targetLUFS } }
        guard var f0 = f(planGainDB) else { return planGainDB }
        var x0 = planGainDB
        if abs(f0) <= 0.001 { return x0 }
        // Bracket: loudness rises with gain (by at most 1 LU per dB).
        var below: (x: Double, f: Double)? = f0 < 0 ? (x0, f0) : nil
        var above: (x: Double, f: Double)? = f0 > 0 ? (x0, f0) : nil
        var x1 = min(hi, max(lo, x0 - f0))
        for _ in 0..<30 {
            guard let f1 = f(x1) else { return x1 }
            if abs(f1) <= 0.001 { return x1 }
            if f1 < 0 { below = (x1, f1) } else { above = (x1, f1) }
            if f1 < 0 && x1 >= hi { return hi }
            if f1 > 0 && x1 <= lo { return lo }
            var next: Double
            if x1 != x0, f1 != f0 {
                let slope = min(1, max(0.02, (f1 - f0) / (x1 - x0)))
                next = x1 - f1 / slope
            } else {
                next = x1 - f1
            }
            if let b = below, let c = above {
                if abs(c.x - b.x) < 1e-5 { return (b.x + c.x) / 2 }
                // Stay strictly inside the bracket; bisect when the secant step leaves it.
                if !(next > b.x && next < c.x) { next = (b.x + c.x) / 2 }
            }
            x0 = x1; f0 = f1
            x1 = min(hi, max(lo, next))
        }
        return x1
    }
}
