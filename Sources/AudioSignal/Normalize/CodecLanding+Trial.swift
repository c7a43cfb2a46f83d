import Foundation

/// A lossy file's codec predicted before its first encode: a few short stretches of the
/// normalised audio are encoded with the same settings and decoded again, and what the codec did
/// to them (its loudness change, its true-peak overshoot) moves the first encode: the loudness
/// handed to the encoder by the change, the limiter's ceiling down by the overshoot (CodecLanding.plan).
/// A prediction that missed costs one more encode, planned from what the first one measured.
/// Numbers in, numbers out.
extension CodecLanding {
    /// The predicted overshoot is taken this much larger, and at least `trialFloorDB` larger: a
    /// few seconds of the file see fewer transients than the whole, and the codec's largest
    /// overshoot falls on one of them (Vorbis overshot a 10-second limited master by 0.34 dB
    /// where its trial's stretches showed 0.04 dB; MP3 by 0.39 dB where they showed 0.22 dB).
    public static let trialAllowance = 1.5
    public static let trialFloorDB = 0.4
    /// The allowance above was set on streams up to this many times as long as the trial's
    /// measured seconds (2-minute files, 7.5 s of trial). A longer stream has more transients for
    /// the codec's largest overshoot to fall on: each 2.5-s stretch's overshoot on limited noise
    /// varied by 0.14 to 0.24 dB (MP3, Vorbis, Opus, AAC), and the largest of n draws from a tail
    /// of that spread grows by about 0.25 to 0.4 dB for each tenfold of n; this much is added for
    /// each tenfold of length past the ratio, dB (a two-hour film after 7.5 s of trial: about 0.45 dB).
    public static let allowanceLengthRatio = 16.0
    public static let growthPerTenfoldDB = 0.25
    /// The overshoot the first encode makes room for, dB: the trial's, widened by the allowance
    /// and, for a stream much longer than the trial (`trialSeconds`, `streamSeconds`), by its growth.
    public static func predictedOvershoot(_ trialOvershootDB: Double, trialSeconds: Double? = nil, streamSeconds: Double? = nil) -> Double {
        var growth = 0.0
        if let t = trialSeconds, let d = streamSeconds, t > 0, d > t * allowanceLengthRatio {
            growth = growthPerTenfoldDB * log10(d / (t * allowanceLengthRatio))
        }
        return max(trialAllowance * trialOvershootDB, trialOvershootDB + trialFloorDB) + growth
    }
    /// A loudness change beyond this is taken as a trial that went wrong (none is predicted), LU.
    public static let trialLimitLU = 3.0

    /// Where the trial's stretches lie in a stream of `totalFrames` at `sampleRate`, frames
    /// (TrialStretches.choose: from the `envelope` of the processed audio when an analysis saw
    /// it, else at fixed places), each inside the stream; `lead` frames of each are not measured.
    public static func trialStretches(totalFrames: Int, sampleRate: Int, envelope: TrialStretches.Envelope? = nil,
                                      thresholdDB: Double? = nil) -> [(start: Int, count: Int, lead: Int)] {
        guard totalFrames > 0, sampleRate > 0 else { return [] }
        let rate = Double(sampleRate)
        func frames(_ s: Double) -> Int { Int((s * rate).rounded()) }
        return TrialStretches.choose(durationSeconds: Double(totalFrames) / rate, envelope: envelope, thresholdDB: thresholdDB)
            .map { s in
                let count = min(totalFrames, frames(s.length)), lead = min(frames(s.lead), count)
                let start = max(0, min(frames(s.start), totalFrames - count))
                // Moved back onto the codecs' frame grid; what it moved by is encoded, not measured.
                let aligned = start / codecGridFrames * codecGridFrames
                return (aligned, count + start - aligned, lead + start - aligned)
            }
    }

    /// Stretches start on a multiple of this many frames, the least common multiple of MP3's
    /// (1152), AAC's (1024) and Opus's (960 at 48 kHz) frame lengths: the encoder then cuts a
    /// stretch into the same frames as it cuts the whole file, so a transient is coded in the
    /// trial as in the file (on a quiet MP3, cut elsewhere the trial saw 0.28 dB of overshoot and
    /// the file 0.85 dB; on the grid the trial sees 0.55 dB, and the file is written once).
    public static let codecGridFrames = 46_080

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
        /// The written file's true peak predicted before the first encode at the plan's limiter
        /// (the processed file's peak plus the predicted overshoot), dBTP; nil: no peak measurable.
        public var predictedTruePeakDBTP: Double? = nil
        /// The whole processed file's true peak the prediction started from, dBTP (nil: the
        /// trial's own peaks stood for it).
        public var fileTruePeakDBTP: Double? = nil
        /// The stretches were chosen from the analysis (where the peaks come nearest the ceiling,
        /// and one of typical loudness), not taken at fixed places.
        public var stretchesChosen = false

        public init(handed: [Levels], decoded: [Levels], seconds: Double) {
            self.handed = handed; self.decoded = decoded; self.seconds = seconds
            let changes = zip(handed, decoded).compactMap { loudnessChange(handed: $0, decoded: $1) }
                .filter { abs($0) <= CodecLanding.trialLimitLU }
            loudnessChangeLU = changes.isEmpty ? nil : changes.reduce(0, +) / Double(changes.count)
            peakOvershootDB = zip(handed, decoded).compactMap { peakOvershoot(handed: $0, decoded: $1) }.max() ?? 0
            handedTruePeakDBTP = handed.compactMap { $0.truePeakDBTP }.filter(\.isFinite).max()
        }
    }

    /// The first encode's aim from a trial: the codec's loudness change as the trial measured it
    /// (when the loudness is steered), its overshoot widened (`predictedOvershoot`) for a stream
    /// of `streamSeconds`.
    public static func aim(_ trial: Trial, targetLUFS: Double, ceilingDBTP: Double, rule: CodecPeakRule,
                           steersLoudness: Bool, streamSeconds: Double? = nil) -> Aim {
        Aim(targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, rule: rule,
            loudnessChangeLU: steersLoudness ? trial.loudnessChangeLU ?? 0 : 0,
            overshootDB: predictedOvershoot(trial.peakOvershootDB, trialSeconds: trial.seconds, streamSeconds: streamSeconds),
            steersLoudness: steersLoudness)
    }
}

extension LimitedLoudnessModel {
    /// The processed stream's largest true peak before the limiter at 0 dB of gain, dBTP (nil:
    /// the analysis kept no peaks).
    public var unlimitedTruePeakDBTP: Double? {
        guard peakColumn.count > 0 else { return nil }
        let peaks = FloatSpill.Reader(peakColumn)
        var top: Float = 0
        for _ in 0..<peakColumn.count { top = max(top, peaks.read()) }
        return top > 0 ? 20 * log10(Double(top)) - analysedGainDB : nil
    }

    /// The landing's view of this analysis (CodecLanding.plan): the limiter of `settings` at any
    /// ceiling, its gains searched within `maxCompensationDB` of `planGainDB`; nil when the
    /// analysis kept no peaks.
    public func landingLimiter(_ settings: TruePeakLimiter.Settings, planGainDB: Double, maxCompensationDB: Double) -> CodecLanding.Limiter? {
        guard let peak = unlimitedTruePeakDBTP else { return nil }
        let model = self
        @Sendable func at(_ ceiling: Double) -> LimitedLoudnessModel? {
            var s = settings
            s.ceilingDBTP = ceiling
            return model.withLimiter(s, limit: true)
        }
        return CodecLanding.Limiter(
            peakDBTP: peak, marginDB: settings.marginDB,
            loudness: { g, c in at(c)?.loudness(gainDB: g) },
            gain: { t, c in at(c)?.gain(forTarget: t, planGainDB: planGainDB, maxCompensationDB: maxCompensationDB) ?? planGainDB })
    }
}
