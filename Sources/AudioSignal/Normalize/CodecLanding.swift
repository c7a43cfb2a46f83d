import Foundation

/// Where a lossy file lands after its codec, planned once: the codec's overshoot (predicted from a
/// trial, or measured on a first encode) comes off the limiter's ceiling, the gain is set to reach
/// the target at that ceiling, and the limiter's deepest reduction may exceed what the same job's
/// PCM output needs by at most `extraLimitingBudgetDB`. Where the target and the ceiling can't both
/// hold within that bound, the rule (`CodecPeakRule`) says which gives way. Each encode is planned
/// from the same PCM plan and the same bound, so a correction can't feed the next one. Numbers in,
/// numbers out: the media path and the file path use the same plan.
public struct CodecLanding: Equatable, Sendable {
    /// How close to the target a decoded lossy file must land, LU.
    public static let toleranceLU = 0.2
    /// How far over the ceiling a decoded lossy file's true peak may read and still count as
    /// under it, dB (the plan aims at the ceiling itself).
    public static let marginDB = 0.1
    /// How much deeper the limiter may reduce than the same job's PCM output needs, dB: room for
    /// the codec's overshoot, and no more (deeper limiting is audible pumping nobody asked for).
    public static let extraLimitingBudgetDB = 1.5
    /// Encodes of the whole file at most: the first, and one corrected by what it decoded to.
    public static let maxEncodes = 2
    /// The limiter's ceiling is lowered at most this far under the ceiling, dB.
    public static let maxCeilingDropDB = 6.0

    package static func amplitude(_ db: Double) -> Double { pow(10, db / 20) }
    package static func decibels(_ a: Double) -> Double { 20 * log10(a) }

    /// Integrated loudness and true peak, LUFS and dBTP (nil: not measurable).
    public struct Levels: Equatable, Sendable {
        public var integratedLUFS: Double?
        public var truePeakDBTP: Double?
        public init(integratedLUFS: Double?, truePeakDBTP: Double?) {
            self.integratedLUFS = integratedLUFS; self.truePeakDBTP = truePeakDBTP
        }
    }

    /// Decoded loudness less handed loudness, LU (nil: either unmeasurable).
    public static func loudnessChange(handed: Levels, decoded: Levels) -> Double? {
        guard let a = handed.integratedLUFS, let b = decoded.integratedLUFS, a.isFinite, b.isFinite else { return nil }
        return b - a
    }

    /// How far the decoded true peak exceeds the handed one, dB (0 when it doesn't; nil: unmeasured).
    public static func peakOvershoot(handed: Levels, decoded: Levels) -> Double? {
        guard let a = handed.truePeakDBTP, let b = decoded.truePeakDBTP, a.isFinite, b.isFinite else { return nil }
        return max(0, b - a)
    }

    /// Whether a decoded true peak is over the ceiling as the record states it (to 0.01 dB).
    public static func isOver(_ truePeakDBTP: Double?, ceilingDBTP: Double) -> Bool {
        guard let tp = truePeakDBTP, tp.isFinite else { return false }
        return (tp * 100).rounded() / 100 > ceilingDBTP
    }

    /// Whether a decoded loudness is off the target by more than the tolerance.
    public static func isOff(_ integratedLUFS: Double?, targetLUFS: Double) -> Bool {
        guard let l = integratedLUFS, l.isFinite else { return false }
        return abs(l - targetLUFS) > toleranceLU
    }

    /// The decoded true peak less the ceiling, dB; 0 when under it (nil: unmeasured).
    public static func overCeiling(_ truePeakDBTP: Double?, ceilingDBTP: Double) -> Double? {
        guard let tp = truePeakDBTP, tp.isFinite else { return nil }
        return max(0, ((tp - ceilingDBTP) * 100).rounded() / 100)
    }
}

/// Which limit gives way when a lossy file can't be both on target and under the ceiling with
/// its limiting within `CodecLanding.extraLimitingBudgetDB` of the PCM output's (`--codec-peak`).
public enum CodecPeakRule: String, Equatable, Sendable, CaseIterable {
    /// The decoded true peak stays under the ceiling; the gain comes down (the loudness gives way).
    case hold
    /// The loudness stays on target, the samples handed to the encoder under the ceiling; the
    /// decoded true peak may pass it (the ceiling gives way, and the overshoot is reported).
    case allow
}

extension CodecLanding {
    /// Which limit gave way.
    public enum GaveWay: String, Equatable, Sendable {
        case loudness, ceiling
    }

    /// The limiter over one stream as its analysis sees it. The limiter is scale-free: its deepest
    /// reduction is the processed peak over its threshold, and a gain and a ceiling moved together
    /// move the loudness by the same amount.
    public struct Limiter: Sendable {
        /// The processed stream's largest true peak at 0 dB of gain, before the limiter, dBTP.
        public var peakDBTP: Double
        /// How far under its ceiling the limiter holds the peaks, dB.
        public var marginDB: Double
        /// The limited stream's loudness at a gain and a limiter ceiling, LUFS (nil: unmeasurable).
        public var loudness: @Sendable (_ gainDB: Double, _ limiterCeilingDBTP: Double) -> Double?
        /// The gain that lands the limited stream on a loudness at a limiter ceiling, dB.
        public var gain: @Sendable (_ targetLUFS: Double, _ limiterCeilingDBTP: Double) -> Double

        public init(peakDBTP: Double, marginDB: Double,
                    loudness: @escaping @Sendable (Double, Double) -> Double?,
                    gain: @escaping @Sendable (Double, Double) -> Double) {
            self.peakDBTP = peakDBTP; self.marginDB = marginDB; self.loudness = loudness; self.gain = gain
        }

        /// The limiter's deepest reduction at a gain and a ceiling, dB (0: it does nothing).
        public func depth(gainDB: Double, limiterCeilingDBTP: Double) -> Double {
            max(0, peakDBTP + gainDB - (limiterCeilingDBTP - marginDB))
        }
    }

    /// What an encode aims at.
    public struct Aim: Equatable, Sendable {
        public var targetLUFS: Double
        public var ceilingDBTP: Double
        public var rule: CodecPeakRule
        /// The codec's loudness change (decoded less handed), LU, and its true-peak overshoot, dB.
        public var loudnessChangeLU: Double
        public var overshootDB: Double
        /// The loudness is brought to the target (false: only the peak is the plan's business).
        public var steersLoudness: Bool
        public init(targetLUFS: Double, ceilingDBTP: Double, rule: CodecPeakRule = .hold, loudnessChangeLU: Double = 0,
                    overshootDB: Double, steersLoudness: Bool = true) {
            self.targetLUFS = targetLUFS; self.ceilingDBTP = ceilingDBTP; self.rule = rule
            self.loudnessChangeLU = loudnessChangeLU; self.overshootDB = overshootDB; self.steersLoudness = steersLoudness
        }
        /// The loudness the samples handed to the encoder should have, LUFS.
        public var handedTargetLUFS: Double { targetLUFS - loudnessChangeLU }
    }

    /// One encode's settings and what they are predicted to give.
    public struct Plan: Equatable, Sendable {
        /// The gain and the limiter's ceiling handed to the limiter.
        public var gainDB: Double
        public var limiterCeilingDBTP: Double
        /// The limiter's deepest reduction at these settings, and at the PCM output's, dB.
        public var depthDB: Double
        public var pcmDepthDB: Double
        /// The decoded loudness and true peak predicted, LUFS and dBTP.
        public var predictedLUFS: Double?
        public var predictedTruePeakDBTP: Double
        /// The limit the rule gave up, when both could not hold (nil: both hold).
        public var gaveWay: GaveWay?
        /// Deepest reduction beyond the PCM output's, dB.
        public var extraLimitingDB: Double { depthDB - pcmDepthDB }
    }

    /// The plan of one encode. `pcm`: the PCM output's gain and limiter ceiling for the same job
    /// (its deepest reduction is the bound's base). The limiter's ceiling comes down by the
    /// overshoot so the decoded peak lands on the ceiling; the gain reaches the handed target at
    /// that ceiling; when that limits more than `extraLimitingBudgetDB` beyond the PCM output,
    /// `hold` lowers the gain to the bound (the loudness gives way), `allow` raises the ceiling
    /// with the gain so the limiting stays at the bound and the loudness on target (the decoded
    /// peak gives way, the handed peak stays under the ceiling).
    public static func plan(_ aim: Aim, limiter: Limiter, pcm: (gainDB: Double, limiterCeilingDBTP: Double)) -> Plan {
        let pcmDepth = limiter.depth(gainDB: pcm.gainDB, limiterCeilingDBTP: pcm.limiterCeilingDBTP)
        let bound = pcmDepth + extraLimitingBudgetDB
        // The decoded peak: the handed peak (the limiter's threshold, or the gained peak under it) plus the overshoot.
        func decodedPeak(_ g: Double, _ c: Double) -> Double { min(c - limiter.marginDB, limiter.peakDBTP + g) + aim.overshootDB }
        let lowered = max(aim.ceilingDBTP - maxCeilingDropDB + limiter.marginDB,
                          min(pcm.limiterCeilingDBTP, aim.ceilingDBTP - aim.overshootDB + limiter.marginDB))
        let full = aim.steersLoudness ? limiter.gain(aim.handedTargetLUFS, lowered) : pcm.gainDB
        let fullDepth = limiter.depth(gainDB: full, limiterCeilingDBTP: lowered)
        func made(_ g: Double, _ c: Double, _ gave: GaveWay?, loudness: Double? = nil) -> Plan {
            let handed = loudness ?? limiter.loudness(g, c)
            return Plan(gainDB: g, limiterCeilingDBTP: c, depthDB: limiter.depth(gainDB: g, limiterCeilingDBTP: c), pcmDepthDB: pcmDepth,
                        predictedLUFS: handed.map { $0 + aim.loudnessChangeLU }, predictedTruePeakDBTP: decodedPeak(g, c), gaveWay: gave)
        }
        guard fullDepth > bound + 1e-9 else { return made(full, lowered, nil) }
        // At the bound the limiter reduces `bound` at its deepest: the gain is the lowered threshold plus the bound.
        let boundGain = lowered - limiter.marginDB + bound - limiter.peakDBTP
        switch aim.rule {
        case .hold:
            return made(boundGain, lowered, .loudness)
        case .allow:
            // Gain and ceiling moved together keep the depth and move the loudness as much: one evaluation.
            guard let l = limiter.loudness(boundGain, lowered) else { return made(boundGain, lowered, .loudness) }
            let shift = min(aim.handedTargetLUFS - l, pcm.limiterCeilingDBTP - lowered)
            let p = made(boundGain + shift, lowered + shift, nil, loudness: l + shift)
            var q = p
            q.gaveWay = p.predictedTruePeakDBTP > aim.ceilingDBTP + marginDB ? .ceiling
                : (p.predictedLUFS.map { isOff($0, targetLUFS: aim.targetLUFS) } ?? false) ? .loudness : nil
            return q
        }
    }

    /// Whether the file just encoded misses what its plan promised, so the next (last) encode is
    /// planned again from what the codec did: its decoded loudness off the target by more than
    /// the tolerance (when steered and the plan expected to land), or its true peak over the
    /// ceiling by more than `marginDB` (under `hold`).
    public static func missed(_ plan: Plan, decoded: Levels, aim: Aim) -> Bool {
        if aim.steersLoudness, plan.gaveWay != .loudness, let l = decoded.integratedLUFS, l.isFinite,
           abs(l - aim.targetLUFS) > toleranceLU { return true }
        if aim.steersLoudness, plan.gaveWay == .loudness, let l = decoded.integratedLUFS, let p = plan.predictedLUFS,
           l.isFinite, abs(l - p) > toleranceLU { return true }
        if aim.rule == .hold, let tp = decoded.truePeakDBTP, tp.isFinite, tp > aim.ceilingDBTP + marginDB { return true }
        return false
    }

    /// The aim of the last encode: the codec's change and overshoot as the first encode measured
    /// them (what it was handed, what it decoded to), at least the overshoot aimed at before when
    /// the decoded peak still came over, and `marginDB` more: there is no further encode to
    /// correct it, and audio limited a little deeper gives the codec a little more to overshoot.
    public static func reaimed(_ aim: Aim, handed: Levels, decoded: Levels) -> Aim {
        var a = aim
        if let c = loudnessChange(handed: handed, decoded: decoded), abs(c) <= trialLimitLU { a.loudnessChangeLU = c }
        if let o = peakOvershoot(handed: handed, decoded: decoded) {
            let over = decoded.truePeakDBTP.map { $0 > aim.ceilingDBTP } ?? false
            a.overshootDB = (over ? max(o, aim.overshootDB + (decoded.truePeakDBTP! - aim.ceilingDBTP)) : o) + marginDB
        }
        return a
    }

    /// What the record says of the landing (`normalized.landing`): the rule, which limit gave way,
    /// the deepest reduction beyond the PCM output's (nil: unknown), and the decoded true peak over the ceiling.
    public struct Outcome: Equatable, Sendable {
        public var rule: CodecPeakRule
        public var gaveWay: GaveWay?
        public var extraLimitingDB: Double?
        public var overCeilingDB: Double?
        public init(rule: CodecPeakRule, gaveWay: GaveWay?, extraLimitingDB: Double?, overCeilingDB: Double?) {
            self.rule = rule; self.gaveWay = gaveWay; self.extraLimitingDB = extraLimitingDB; self.overCeilingDB = overCeilingDB
        }
    }

    /// The PCM output's deepest reduction, from the plan the written file was made by and the
    /// limiter's deepest reduction as written (`writtenDepthDB`): the analysis's figure moved by
    /// how far the written limiter read from the plan's (the same loudest peak sets both depths,
    /// so the analysis's error on it is the same in both).
    public static func pcmDepth(_ plan: Plan, writtenDepthDB: Double) -> Double {
        plan.depthDB > 0 && plan.pcmDepthDB > 0 ? max(0, plan.pcmDepthDB + writtenDepthDB - plan.depthDB) : plan.pcmDepthDB
    }

    /// The outcome of the written file: `depthDB` the limiter's deepest reduction as written,
    /// `pcmDepthDB` the PCM output's (nil: no analysis to tell it). The loudness gave way when the
    /// steered file lands short of the target; the ceiling, when its decoded true peak is over it
    /// by more than `marginDB`.
    public static func outcome(rule: CodecPeakRule, decoded: Levels, targetLUFS: Double, ceilingDBTP: Double,
                               steersLoudness: Bool, depthDB: Double, pcmDepthDB: Double?) -> Outcome {
        let over = overCeiling(decoded.truePeakDBTP, ceilingDBTP: ceilingDBTP)
        var gave: GaveWay? = nil
        if let o = over, o > marginDB + 1e-9 { gave = .ceiling }
        if steersLoudness, let l = decoded.integratedLUFS, l.isFinite, targetLUFS - l > toleranceLU { gave = .loudness }
        return Outcome(rule: rule, gaveWay: gave, extraLimitingDB: pcmDepthDB.map { ((depthDB - $0) * 100).rounded() / 100 },
                       overCeilingDB: over)
    }
}

/// How a lossy output was checked after its encoder, for the record.
public struct CodecLandingReport: Equatable, Sendable {
    /// Encodes of the whole file (written passes), the first included.
    public var encodes: Int
    /// The last encode: what was handed to the encoder and what the file decodes to.
    public var handed: CodecLanding.Levels
    public var decoded: CodecLanding.Levels
    /// What the first encode decoded to, when the file was encoded again.
    public var earlier: [CodecLanding.Levels]
    /// The plan of each encode made after the first (at most one).
    public var replans: [CodecLanding.Plan] = []
    /// Why the file was encoded again: the loudness off, the peak over.
    public var reencodedFor: [String] = []
    /// The loudness was steered to the target (so a miss is a shortfall).
    public var steersLoudness: Bool
    /// The trial before the first encode and what it moved (nil: none ran).
    public var trial: CodecLanding.Trial? = nil
    /// The landing's outcome for the record (nil: no peak rule applies, e.g. `--peak reduce`).
    public var outcome: CodecLanding.Outcome? = nil
    public init(encodes: Int, handed: CodecLanding.Levels, decoded: CodecLanding.Levels, earlier: [CodecLanding.Levels],
                steersLoudness: Bool) {
        self.encodes = encodes; self.handed = handed; self.decoded = decoded; self.earlier = earlier
        self.steersLoudness = steersLoudness
    }
}
