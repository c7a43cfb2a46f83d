import Foundation

/// A lossy file's codec predicted before its first encode: a few short stretches of the
/// normalised audio are encoded with the same settings and decoded again, and what the codec did
/// to them (its loudness change, its true-peak overshoot) moves the first encode: the loudness
/// handed to the encoder by the change, the limiter's ceiling down by the overshoot. The check
/// after the encode (CodecLanding.correction) stays: a prediction that missed costs one more
/// encode. Numbers in, numbers out.
extension CodecLanding {
    /// The predicted overshoot is taken this much larger, and at least `trialFloorDB` larger: a
    /// few seconds of the file see fewer transients than the whole, and the codec's largest
    /// overshoot falls on one of them (Vorbis overshot a 10-second limited master by 0.34 dB
    /// where its trial's stretches showed 0.04 dB; MP3 by 0.39 dB where they showed 0.22 dB).
    public static let trialAllowance = 1.5
    public static let trialFloorDB = 0.4
    /// The overshoot the first encode makes room for, dB.
    public static func predictedOvershoot(_ trialOvershootDB: Double) -> Double {
        max(trialAllowance * trialOvershootDB, trialOvershootDB + trialFloorDB)
    }
    /// A loudness change beyond this is taken as a trial that went wrong (none is predicted), LU.
    public static let trialLimitLU = 3.0

    /// Where the trial's stretches lie in a stream of `totalFrames` at `sampleRate`: the whole
    /// stream when it is short, else the opening and two stretches inside (at two fifths and three
    /// quarters), each inner one with a `lead` not measured (the codec's start on a cut is not
    /// the file's). Frames.
    public static func trialStretches(totalFrames: Int, sampleRate: Int, wholeUpToSeconds: Double = 8,
                                      seconds: Double = 2.5, leadSeconds: Double = 0.5) -> [(start: Int, count: Int, lead: Int)] {
        guard totalFrames > 0, sampleRate > 0 else { return [] }
        let rate = Double(sampleRate)
        if Double(totalFrames) <= wholeUpToSeconds * rate { return [(0, totalFrames, 0)] }
        let n = Int((seconds * rate).rounded()), lead = Int((leadSeconds * rate).rounded())
        return [(0, n, 0)] + [0.4, 0.75].map { at in
            let start = min(Int((Double(totalFrames) * at).rounded()), totalFrames - n - lead)
            return (start, n + lead, lead)
        }
    }

    /// What the trial measured and predicts.
    public struct Trial: Equatable, Sendable {
        /// Each stretch before and after the codec.
        public var handed: [Levels]
        public var decoded: [Levels]
        /// Seconds of audio measured.
        public var seconds: Double
        /// Predicted loudness change (after less before, mean over the stretches), LU; nil: none measurable.
        public var loudnessChangeLU: Double?
        /// Largest true-peak overshoot over what was handed, dB (0: none).
        public var peakOvershootDB: Double
        /// The loudest true peak handed to the encoder in the trial, dBTP.
        public var handedTruePeakDBTP: Double?
        /// What the first encode was given: the loudness handed to the encoder (nil: not
        /// steered), the limiter's ceiling (nil: the plan's), dB added to the gain.
        public var handedTargetLUFS: Double? = nil
        public var limiterCeilingDBTP: Double? = nil
        public var gainDeltaDB: Double = 0

        public init(handed: [Levels], decoded: [Levels], seconds: Double) {
            self.handed = handed; self.decoded = decoded; self.seconds = seconds
            let changes = zip(handed, decoded).compactMap { loudnessChange(handed: $0, decoded: $1) }
                .filter { abs($0) <= CodecLanding.trialLimitLU }
            loudnessChangeLU = changes.isEmpty ? nil : changes.reduce(0, +) / Double(changes.count)
            peakOvershootDB = zip(handed, decoded).compactMap { peakOvershoot(handed: $0, decoded: $1) }.max() ?? 0
            handedTruePeakDBTP = handed.compactMap { $0.truePeakDBTP }.filter(\.isFinite).max()
        }
    }

    /// The first encode's settings from a trial: the loudness handed to the encoder is the target
    /// less the predicted change (`steersLoudness`); when the trial's peaks with the predicted
    /// overshoot (`predictedOvershoot`) come over the ceiling less `marginDB` and the limiter
    /// runs, its ceiling is lowered by that much (at most `maxCeilingDropDB`). Returns the trial
    /// with `handedTargetLUFS` and `limiterCeilingDBTP` filled in.
    public static func firstEncode(_ trial: Trial, targetLUFS: Double, ceilingDBTP: Double, limiterCeilingDBTP: Double,
                                   limiterMarginDB: Double = 0.15, limiting: Bool, steersLoudness: Bool) -> Trial {
        var t = trial
        if steersLoudness, let c = trial.loudnessChangeLU { t.handedTargetLUFS = targetLUFS - c }
        let overshoot = predictedOvershoot(trial.peakOvershootDB)
        if limiting, let peak = trial.handedTruePeakDBTP, peak + overshoot > ceilingDBTP - marginDB {
            // The limiter holds the peaks `limiterMarginDB` under its ceiling; the codec adds the overshoot.
            let wanted = ceilingDBTP - marginDB - overshoot + limiterMarginDB
            let ceiling = max(ceilingDBTP - maxCeilingDropDB + limiterMarginDB, min(limiterCeilingDBTP, ceilingDBTP, wanted))
            if ceiling < limiterCeilingDBTP { t.limiterCeilingDBTP = ceiling }
        }
        return t
    }
}
