import Foundation

/// Where a lossy codec's trial encode takes its few short stretches of a stream, for lossy audio
/// files (CodecLanding) and media streams (CodecOvershoot) alike. The codec's largest overshoot
/// falls where the processed audio comes nearest the ceiling, so with what an analysis pass saw
/// (the envelope: the processed peaks and loudness over time) the stretches are the places where
/// the peaks come nearest (or furthest over) the limiter's threshold, plus a loud stretch of
/// typical loudness for the codec's loudness change. Without it: the opening and two stretches
/// inside (at two fifths and three quarters). A short stream is tried whole. Numbers in, numbers out.
public enum TrialStretches {
    /// A stretch, seconds from the stream's start: its length, of which the first `lead` is
    /// encoded but not measured (the codec's start on a cut is not the stream's).
    public struct Stretch: Equatable, Sendable {
        public var start: Double
        public var length: Double
        public var lead: Double
        public init(start: Double, length: Double, lead: Double) {
            self.start = start; self.length = length; self.lead = lead
        }
    }

    /// The processed audio over time, hop by hop: each hop's largest true peak (linear, after the
    /// gain, before the limiter) and its mean K-weighted power (linear; the meter's mean square).
    public struct Envelope: Equatable, Sendable {
        public var hopSeconds: Double
        public var peaks: [Double]
        public var powers: [Double]
        public init(hopSeconds: Double, peaks: [Double], powers: [Double]) {
            self.hopSeconds = hopSeconds; self.peaks = peaks; self.powers = powers
        }
    }

    /// A stream this short (seconds) is tried whole.
    public static let wholeUpToSeconds = 8.0
    /// Each stretch's measured length and lead, seconds.
    public static let lengthSeconds = 2.5
    public static let leadSeconds = 0.5
    /// Peaks this far under the threshold (or the loudest peak, when no limiter runs) count
    /// towards a stretch's score, dB; peaks over it count by how far over.
    public static let nearDB = 3.0
    /// Stretches chosen for the peaks; one more is chosen for the loudness.
    public static let peakStretches = 2

    /// The stretches of a stream of `durationSeconds` (nil: unknown). `envelope`: what an
    /// analysis saw (nil: the fixed positions); `thresholdDB`: the limiter's threshold, dBTP, when
    /// it runs (the peaks are then scored against it; else against the loudest).
    public static func choose(durationSeconds: Double?, envelope: Envelope? = nil, thresholdDB: Double? = nil) -> [Stretch] {
        guard let d = durationSeconds, d > wholeUpToSeconds else {
            return [Stretch(start: 0, length: durationSeconds.map { $0 + 1 } ?? lengthSeconds * 3, lead: 0)]
        }
        if let e = envelope, let chosen = chosen(e, thresholdDB: thresholdDB) { return chosen }
        return [Stretch(start: 0, length: lengthSeconds, lead: 0)] + [0.4, 0.75].map {
            Stretch(start: d * $0, length: lengthSeconds + leadSeconds, lead: leadSeconds)
        }
    }

    /// The stretches from the envelope (in whole hops), in stream order; nil when the envelope
    /// is too short for them or holds no peaks.
    package static func chosen(_ e: Envelope, thresholdDB: Double?) -> [Stretch]? {
        let hops = min(e.peaks.count, e.powers.count)
        guard e.hopSeconds > 0 else { return nil }
        let w = max(1, Int((lengthSeconds / e.hopSeconds).rounded()))
        let leadHops = Int((leadSeconds / e.hopSeconds).rounded())
        guard hops >= w + leadHops, let loudest = e.peaks.prefix(hops).max(), loudest > 0 else { return nil }
        let loudestDB = 20 * log10(loudest)
        let reference = min(thresholdDB ?? loudestDB, loudestDB) - nearDB
        // Prefix sums of the hop scores and powers: each window's total in O(1).
        var score = [0.0], power = [0.0]
        for h in 0..<hops {
            let p = e.peaks[h]
            score.append(score[h] + (p > 0 ? max(0, 20 * log10(p) - reference) : 0))
            power.append(power[h] + max(0, e.powers[h]))
        }
        // Stretch k measures hops k ..< k + w; its lead (at most `leadHops`) lies before it. The
        // stretches don't overlap, leads included; in a short stream, their measured parts don't;
        // else they differ.
        var taken: [Int] = []
        func best(_ value: (Int) -> Double) -> Int? {
            for gap in [w + leadHops, w, 1] {
                var pick: Int? = nil, top = -Double.infinity
                for k in 0...(hops - w) where taken.allSatisfy({ abs($0 - k) >= gap }) {
                    let v = value(k)
                    if v > top { top = v; pick = k }  // the earliest of equals
                }
                if let pick { return pick }
            }
            return nil
        }
        // Scores and loudness distances are compared to 0.001 dB and 0.01 LU, so the sums' rounding
        // doesn't pick among equals.
        for _ in 0..<peakStretches {
            guard let k = best({ ((score[$0 + w] - score[$0]) * 1000).rounded() }) else { break }
            taken.append(k)
        }
        // The loudness: the stretch whose loudness is nearest the stream's (its hops above the
        // absolute gate and 10 LU under their mean power, as the meter gates).
        let absolute = pow(10, (LoudnessMeter.absoluteGateLUFS + 0.691) / 10)
        let loud = e.powers.prefix(hops).filter { $0 > absolute }
        if !loud.isEmpty {
            let mean = loud.reduce(0, +) / Double(loud.count)
            let gated = loud.filter { $0 > mean / 10 }
            let typical = 10 * log10(gated.reduce(0, +) / Double(gated.count))
            if let k = best({ k in
                let m = (power[k + w] - power[k]) / Double(w)
                return m > 0 ? -(abs(10 * log10(m) - typical) * 100).rounded() : -Double.infinity
            }) { taken.append(k) }
        }
        guard !taken.isEmpty else { return nil }
        return taken.sorted().map { k in
            let lead = min(leadHops, k)
            return Stretch(start: Double(k - lead) * e.hopSeconds, length: Double(w + lead) * e.hopSeconds,
                           lead: Double(lead) * e.hopSeconds)
        }
    }
}

extension LimitedLoudnessModel {
    /// The analysed audio hop by hop at `gainDB` (before the limiter), for choosing trial
    /// stretches; nil when the analysis kept no peaks.
    public func envelope(gainDB: Double) -> TrialStretches.Envelope? {
        let perHop = Self.unitsPerHop
        let hops = energyColumn.count / perHop
        guard hops > 0, peakColumn.count >= hops * perHop, hop > 0 else { return nil }
        let a = pow(10, (gainDB - analysedGainDB) / 20)
        var p = [Double](repeating: 0, count: hops), w = [Double](repeating: 0, count: hops)
        // Each column read once, in order (a long stream's are in a file, not in memory).
        let energies = FloatSpill.Reader(energyColumn), peaks = FloatSpill.Reader(peakColumn)
        for h in 0..<hops {
            var top: Float = 0, sum = 0.0
            for _ in 0..<perHop { top = max(top, peaks.read()); sum += Double(energies.read()) }
            p[h] = Double(top) * a
            w[h] = sum / Double(hop) * a * a
        }
        return TrialStretches.Envelope(hopSeconds: Double(hop) / Double(sampleRate), peaks: p, powers: w)
    }

    /// The processed stream's largest true peak at `gainDB`, dBTP: the limiter's threshold when
    /// the peaks would pass it and the limiter runs (nil: the analysis kept no peaks).
    public func processedTruePeakDBTP(gainDB: Double) -> Double? {
        guard let peak = unlimitedTruePeakDBTP.map({ $0 + gainDB }) else { return nil }
        return limit ? min(peak, 20 * log10(Double(threshold))) : peak
    }
}
