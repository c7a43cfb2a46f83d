import AudioSignal
import Foundation

/// What a lossy codec does to loudness and true peak, predicted from a trial encode of a few
/// stretches, and how the normaliser's plan is moved so the written file lands on target and
/// under the ceiling after one encode. Numbers in, numbers out.
public enum CodecOvershoot {
    /// How close to the target a written stream must land, LU: lossy codecs change the loudness
    /// by a few hundredths they can't be steered to, lossless ones not at all.
    public static func toleranceLU(lossy: Bool) -> Double { lossy ? 0.2 : 0.1 }

    /// Kept between the ceiling and the predicted peak after the codec, dB.
    public static let marginDB = 0.1

    /// What the codec did to a stretch: loudness after minus before (LU), and how far the true
    /// peak after exceeds the true peak before (dB, 0 when it didn't).
    public struct Prediction: Equatable, Sendable {
        public var loudnessChangeLU: Double
        public var peakOvershootDB: Double
        /// Seconds of audio the trial encoded.
        public var seconds: Double
        /// Trial encodes run (a second one checks a large move).
        public var trials: Int = 1
        public init(loudnessChangeLU: Double, peakOvershootDB: Double, seconds: Double) {
            self.loudnessChangeLU = loudnessChangeLU; self.peakOvershootDB = peakOvershootDB; self.seconds = seconds
        }
    }

    /// The prediction from the trial's measurements before and after the codec. A loudness that
    /// couldn't be measured (silence) predicts no change; a change beyond ±`limitLU` is taken as
    /// a trial that went wrong and predicts none.
    public static func predict(beforeLUFS: Double?, beforeTruePeak: Double?, afterLUFS: Double?, afterTruePeak: Double?,
                               seconds: Double, limitLU: Double = 3) -> Prediction {
        var change = 0.0
        if let b = beforeLUFS, let a = afterLUFS, b.isFinite, a.isFinite, abs(a - b) <= limitLU { change = a - b }
        var overshoot = 0.0
        if let b = beforeTruePeak, let a = afterTruePeak, b.isFinite, a.isFinite { overshoot = max(0, a - b) }
        return Prediction(loudnessChangeLU: change, peakOvershootDB: overshoot, seconds: seconds)
    }

    /// The gain and the limiter's ceiling for the encode: the gain raised by what the codec takes
    /// away (at most `maxCompensationDB` either way), the limiter's ceiling lowered so the
    /// codec's overshoot stays under `ceilingDBTP` with `marginDB` to spare. The overshoot is the
    /// trial's widened as for lossy files (CodecLanding.predictedOvershoot): a few seconds see
    /// fewer of the codec's overshoots than the stream of `streamSeconds` (nil: unknown).
    /// `limiterCeilingDBTP`: the plan's (at most the ceiling).
    public static func adjust(gainDB: Double, limiterCeilingDBTP: Double, ceilingDBTP: Double, prediction p: Prediction,
                              maxCompensationDB: Double, streamSeconds: Double? = nil) -> (gainDB: Double, limiterCeilingDBTP: Double) {
        let correction = min(maxCompensationDB, max(-maxCompensationDB, -p.loudnessChangeLU))
        let overshoot = p.peakOvershootDB > 0
            ? CodecLanding.predictedOvershoot(p.peakOvershootDB, trialSeconds: p.seconds, streamSeconds: streamSeconds) : 0
        let ceiling = overshoot > 0 ? min(limiterCeilingDBTP, ceilingDBTP - overshoot - marginDB) : limiterCeilingDBTP
        return (gainDB + correction, ceiling)
    }

    /// After the written file was decoded and measured: the gain change and the limiter's new
    /// ceiling a further encode needs, or nil when the stream is on target and under the ceiling.
    /// `preCodecPeakDBTP`: the true peak fed to the encoder (estimated), `measured*`: after it.
    /// `checkLoudness` false when the gain is bound by the peak (`--peak reduce`).
    public static func correction(measuredLUFS: Double?, measuredTruePeak: Double?, preCodecPeakDBTP: Double,
                                  limiterCeilingDBTP: Double, targetLUFS: Double, ceilingDBTP: Double, lossy: Bool,
                                  checkLoudness: Bool, toleranceLU tolerance: Double? = nil) -> (gainDeltaDB: Double, limiterCeilingDBTP: Double)? {
        var gain = 0.0, limiter = limiterCeilingDBTP
        if checkLoudness, let l = measuredLUFS, l.isFinite, abs(l - targetLUFS) > (tolerance ?? toleranceLU(lossy: lossy)) {
            gain = targetLUFS - l
        }
        if let tp = measuredTruePeak, tp.isFinite, (tp * 100).rounded() / 100 > ceilingDBTP {
            // At least the excess off the limiter's ceiling; and the codec's overshoot over what it
            // was fed under the ceiling, when the limiter wasn't what held the peak.
            let overshoot = max(0, tp - preCodecPeakDBTP)
            limiter = min(limiterCeilingDBTP - (tp - ceilingDBTP) - marginDB, ceilingDBTP - overshoot - marginDB)
        }
        return gain == 0 && limiter == limiterCeilingDBTP ? nil : (gain, limiter)
    }

    /// Headroom under the ceiling within which a lossy codec's overshoot is a risk, dB: AAC, Opus
    /// and the others overshoot by tenths of a dB on dense audio, up to about a dB at low rates.
    public static let riskHeadroomDB = 1.5
    /// Bits per second a channel under which a codec's loudness change is large enough to steer.
    public static let lowBitRatePerChannel = 48_000

    /// Whether a lossy stream needs a trial encode first: its peak fed to the encoder (predicted
    /// from the measurement and the plan) comes within `riskHeadroomDB` of the ceiling, the
    /// limiter works on it, or its bit rate is low. Otherwise it is encoded at once and only the
    /// decoded check can ask for a second encode.
    public static func needsTrial(fedPeakDBTP: Double?, ceilingDBTP: Double, limited: Bool, bitRatePerChannel: Int?) -> Bool {
        if limited { return true }
        if let b = bitRatePerChannel, b < lowBitRatePerChannel { return true }
        guard let p = fedPeakDBTP, p.isFinite else { return true }
        return p > ceilingDBTP - riskHeadroomDB
    }

    /// Loudness gained per dB of gain between two runs at different gains (under heavy limiting
    /// well under 1), or nil when the gains are too close to tell.
    public static func slope(from a: (gainDB: Double, lufs: Double), to b: (gainDB: Double, lufs: Double)) -> Double? {
        let dg = b.gainDB - a.gainDB
        guard abs(dg) > 0.05, a.lufs.isFinite, b.lufs.isFinite else { return nil }
        return (b.lufs - a.lufs) / dg
    }

    /// The gain step that moves the loudness by `deltaLU`, given the slope seen (taken between
    /// 0.2 and 1: a limiter never gives back more than the gain, and a flatter slope is noise).
    public static func gainStep(_ deltaLU: Double, slope: Double?) -> Double {
        guard let s = slope, s.isFinite else { return deltaLU }
        return deltaLU / min(1, max(0.2, s))
    }

    /// Whether the plan moved so far on a trial's word (gain by more than 0.3 dB, the limiter's
    /// ceiling by more than 1 dB, or at all on audio the limiter works on, where a lower ceiling
    /// takes loudness away) that a second trial should check it before the encode.
    public static func needsSecondTrial(gainMoveDB: Double, ceilingMoveDB: Double, limited: Bool) -> Bool {
        abs(gainMoveDB) > 0.3 || ceilingMoveDB > 1 || (limited && ceilingMoveDB > 0)
    }

    /// Whether a trial's word moved only the limiter's ceiling of a limited stream, by at most
    /// 1 dB, and the gain by at most 0.3 dB: what the lower ceiling takes from the loudness is
    /// then found without the codec (the codec's share, measured, stays), and no second trial runs.
    public static func limiterOnlyMoved(gainMoveDB: Double, ceilingMoveDB: Double, limited: Bool) -> Bool {
        limited && ceilingMoveDB > 0 && ceilingMoveDB <= 1 && abs(gainMoveDB) <= 0.3
    }

    /// Where the trial stretches lie in a stream of `durationSeconds` (nil: unknown): the one
    /// choice the lossy audio files make too (TrialStretches.choose), at its fixed places (the
    /// media path chooses them before its analysis pass, which captures them as it decodes).
    /// At `sampleRate`, a stretch starts on the codecs' frame grid (CodecLanding.codecGridFrames),
    /// so the encoder codes it in the frames it codes the stream in; where the grid is not a whole
    /// number of milliseconds (44.1 kHz), as chosen.
    public static func stretches(durationSeconds: Double?, sampleRate: Int? = nil) -> [(start: Double, length: Double, lead: Double)] {
        let grid = sampleRate.flatMap { r in r > 0 && (CodecLanding.codecGridFrames * 1000) % r == 0 ? CodecLanding.codecGridFrames * 1000 / r : nil }
        return TrialStretches.choose(durationSeconds: durationSeconds).map { s in
            guard let grid else { return (s.start, s.length, s.lead) }
            let ms = Int((s.start * 1000).rounded()), aligned = ms / grid * grid
            let moved = Double(ms - aligned) / 1000
            return (Double(aligned) / 1000, s.length + moved, s.lead + moved)
        }
    }
}
