import Foundation

/// The coarse stage of `--start-at auto`: where in a whole backing track a take belongs, found by
/// a whitened cross-correlation (GCC-PHAT) of the whole take against the whole backing at a low
/// rate, the backing streamed through in chunks (overlap-save), so memory holds one chunk and the
/// take, never the backing.
///
/// Position convention: `position` p (in frames at `sampleRate`) means take frame 0 sits at
/// backing frame p, i.e. take sample n holds the bleed of backing sample n + p. The delay of the
/// backing inside the take (vo-align's D) is −p.
///
/// The fine stage (`BleedAligner`, at the take's full rate, a fraction of a sample) then starts
/// from the best position; this stage only has to be right within its search range.
package final class TakeLocator {
    public struct Settings: Sendable {
        /// Whitened band at the coarse rate (the top is also capped at 0.4 × the rate).
        public var bandLowHz = 100.0
        public var bandHighHz = 3_200.0
        /// Cross-spectrum magnitude averaged over ±this many Hz for the whitening.
        public var whiteningSmoothingHz = 10.0
        public var whiteningFloor = 1e-2
        /// How far before the backing's first frame the take may begin (a latency, a pre-roll).
        public var leadSeconds = 2.0
        /// Peaks closer than this to a higher one are the same place (main lobe, reflections).
        public var exclusionSeconds = 0.05
        /// A rival place whose peak reaches this fraction of the best makes the answer ambiguous
        /// (uniqueness 2·(1 − p₂/p) below 0.5, as in `BleedAligner.PeakMetrics`).
        public var rivalRatio = 0.75
        /// Detection (as in `BleedAligner.PeakMetrics`) below this: no trace of the backing.
        public var noBleedDetection = 0.5
        /// Places kept (best first) for the answer and for naming rivals.
        public var maxCandidates = 32
        /// Backing frames correlated per chunk, as a multiple of the take's length.
        public var chunkFactor = 3
        public init() {}
    }

    /// One place the take could go.
    public struct Candidate: Sendable, Equatable {
        /// Backing frame (at the coarse rate) at which take frame 0 sits.
        public var position: Int
        /// Height of the whitened correlation there, in units of its RMS over all positions.
        public var score: Double
    }

    /// The verdict over the whole backing.
    public struct Result: Sendable {
        /// Places best first, each more than `exclusionSeconds` from every higher one.
        public var candidates: [Candidate]
        /// Positions searched.
        public var positionsSearched: Int
        /// clamp(z / √(2·ln M) − 1, 0, 1) of the best place (0: no higher than noise would reach).
        public var detection: Double
        /// clamp(2·(1 − p₂/p), 0, 1): 0 when another place fits as well (a looped backing).
        public var uniqueness: Double
        public var confidence: Double { min(detection, uniqueness) }
        /// The places that fit about as well as the best (the best included), in backing order.
        public var rivals: [Candidate]
        public var best: Candidate? { candidates.first }
    }

    public let sampleRate: Double
    public let settings: Settings
    private let takeLength: Int
    private let chunk: Int
    private let fft: RealFFT
    private let takeSpectrum: [Float]
    private let kLo: Int, kHi: Int, smoothing: Int
    /// Backing samples not yet correlated; `buffer[0]` is backing frame `bufferStart`.
    private var buffer: [Float] = []
    private var bufferStart: Int
    private var fed = 0
    private var sumSquares = 0.0
    private var count = 0
    private var peaks: [Candidate] = []  // raw local maxima, best-first, bounded
    private var finished = false

    /// Prepares the search for `take` (mono, at `sampleRate`, the coarse rate).
    public init(take: [Float], sampleRate: Double, settings: Settings = Settings()) {
        precondition(sampleRate > 0 && !take.isEmpty)
        self.sampleRate = sampleRate
        self.settings = settings
        takeLength = take.count
        chunk = max(take.count * max(settings.chunkFactor, 1), Int(sampleRate))
        fft = RealFFT(size: RealFFT.fastSize(atLeast: chunk + take.count + 2))
        let n = fft.size
        // The take divided by its own local level: its pauses, where the bleed is clearest,
        // count as much as the loud words.
        let weights = WindowCorrelator.levelWeights(take, sampleRate: sampleRate)
        var weighted = take
        for i in 0..<take.count { weighted[i] *= weights[i] }
        takeSpectrum = fft.forward(weighted)
        kLo = max(1, Int((settings.bandLowHz * Double(n) / sampleRate).rounded(.up)))
        kHi = min(fft.binCount - 1, Int((min(settings.bandHighHz, 0.4 * sampleRate) * Double(n) / sampleRate).rounded(.down)))
        smoothing = max(0, Int((settings.whiteningSmoothingHz * Double(n) / sampleRate).rounded()))
        let lead = Int(settings.leadSeconds * sampleRate)
        bufferStart = -lead
        buffer = [Float](repeating: 0, count: lead)
    }

    /// Feeds the next backing samples (mono, at the coarse rate), in order.
    public func add(_ samples: [Float]) {
        precondition(!finished)
        buffer.append(contentsOf: samples)
        fed += samples.count
        while buffer.count >= chunk + takeLength { correlateChunk() }
    }

    /// Correlates what is left (the take may hang past the backing's end) and judges.
    public func finish() -> Result {
        if !finished {
            finished = true
            // Positions up to the backing's last frame: the take overlaps at least its first frame.
            while bufferStart < fed {
                let need = chunk + takeLength - buffer.count
                if need > 0 { buffer.append(contentsOf: [Float](repeating: 0, count: need)) }
                correlateChunk(limit: fed - bufferStart)
            }
        }
        return judge()
    }

    /// Correlates positions [bufferStart, bufferStart + min(chunk, limit)) and drops them.
    private func correlateChunk(limit: Int = .max) {
        let n = fft.size
        let positions = min(chunk, limit)
        var specR = [Float](repeating: 0, count: n + 2)
        buffer.withUnsafeBufferPointer { b in
            let part = UnsafeBufferPointer(rebasing: b[0..<min(b.count, chunk + takeLength)])
            specR.withUnsafeMutableBufferPointer { fft.forward(part, into: $0) }
        }
        // conj(T)·R, whitened by its magnitude smoothed over ±smoothing bins.
        let bins = fft.binCount
        var cross = [Double](repeating: 0, count: 2 * bins)
        var prefix = [Double](repeating: 0, count: bins + 1)
        takeSpectrum.withUnsafeBufferPointer { t in
            for k in 0..<bins {
                let tr = Double(t[2 * k]), ti = Double(t[2 * k + 1])
                let rr = Double(specR[2 * k]), ri = Double(specR[2 * k + 1])
                let cr = tr * rr + ti * ri, ci = tr * ri - ti * rr
                cross[2 * k] = cr; cross[2 * k + 1] = ci
                prefix[k + 1] = prefix[k] + (cr * cr + ci * ci).squareRoot()
            }
        }
        var phat = [Float](repeating: 0, count: n + 2)
        if kHi >= kLo {
            let mean = (prefix[kHi + 1] - prefix[kLo]) / Double(kHi - kLo + 1)
            let eps = settings.whiteningFloor * mean + Double.leastNormalMagnitude
            for k in kLo...kHi {
                let lo = max(0, k - smoothing), hi = min(bins - 1, k + smoothing)
                let scale = 1 / ((prefix[hi + 1] - prefix[lo]) / Double(hi - lo + 1) + eps)
                phat[2 * k] = Float(cross[2 * k] * scale)
                phat[2 * k + 1] = Float(cross[2 * k + 1] * scale)
            }
        }
        let corr = fft.inverse(phat)
        // Noise level over every position, and the local maxima worth keeping.
        var floorValue = peaks.count >= settings.maxCandidates * 4 ? peaks.last!.score : 0
        for m in 0..<positions {
            let v = Double(corr[m])
            sumSquares += v * v
            count += 1
            let a = abs(v)
            guard a > floorValue else { continue }
            let left = m > 0 ? abs(Double(corr[m - 1])) : 0
            let right = m + 1 < n ? abs(Double(corr[m + 1])) : 0
            guard a >= left && a > right else { continue }
            insert(Candidate(position: bufferStart + m, score: a))
            if peaks.count >= settings.maxCandidates * 4 { floorValue = peaks.last!.score }
        }
        buffer.removeFirst(min(positions, buffer.count))
        bufferStart += positions
    }

    private func insert(_ c: Candidate) {
        let limit = settings.maxCandidates * 4
        var i = peaks.count
        while i > 0 && peaks[i - 1].score < c.score { i -= 1 }
        if i >= limit { return }
        peaks.insert(c, at: i)
        if peaks.count > limit { peaks.removeLast() }
    }

    private func judge() -> Result {
        let rms = count > 0 ? (sumSquares / Double(count)).squareRoot() : 0
        let exclusion = max(1, Int(settings.exclusionSeconds * sampleRate))
        var kept: [Candidate] = []
        for p in peaks where kept.count < settings.maxCandidates {
            if kept.allSatisfy({ abs($0.position - p.position) > exclusion }) {
                kept.append(Candidate(position: p.position, score: rms > 0 ? p.score / rms : 0))
            }
        }
        let m = Double(max(count, 2))
        let z = kept.first?.score ?? 0
        let detection = min(max(z / (2 * log(m)).squareRoot() - 1, 0), 1)
        let ratio = kept.count > 1 && z > 0 ? kept[1].score / z : 0
        let uniqueness = min(max(2 * (1 - ratio), 0), 1)
        let rivals = kept.filter { $0.score >= settings.rivalRatio * z }.sorted { $0.position < $1.position }
        return Result(candidates: kept, positionsSearched: count, detection: detection,
                      uniqueness: uniqueness, rivals: rivals)
    }
}
