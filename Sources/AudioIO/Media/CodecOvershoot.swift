import AudioSignal
import Foundation

/// What a lossy codec does to loudness and true peak, predicted from a trial encode of a few
/// stretches: the codec's change and overshoot the one landing plan (CodecLanding.plan) makes room
/// for, whether a stream needs a trial, and where its stretches lie. Numbers in, numbers out.
public enum CodecOvershoot {
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
