import Foundation

/// What lufs-normalize does when the gain that reaches the target would push the true peak over
/// the ceiling: limit the peaks, lower the gain instead, or let the peaks through (float only).
public enum PeakMode: String, CaseIterable, Sendable {
    /// Apply the whole gain and run the true-peak limiter over the peaks.
    case limit
    /// Lower the gain until the true peak meets the ceiling (the output lands under the target).
    case reduce
    /// Apply the whole gain and let the peaks over the ceiling through (floating-point output only).
    case ignore
}

/// The gain decision made from an earlier measurement: numbers in, numbers out.
/// Loudness is LUFS, peaks dBTP, gains dB (linear where named so).
public struct NormalizeGainPlan: Equatable, Sendable {
    /// Why a file can't be normalised as asked: facts only (the sentences are the tool's, in
    /// Tools/Errors/).
    public enum Refusal: Error, Equatable, Sendable {
        /// Integrated loudness is undefined (digital silence, or everything below the −70 LUFS gate).
        case undefinedLoudness
        /// `--peak ignore` would write peaks over the ceiling into a fixed-point format.
        case ignoreNeedsFloatOutput
        /// A measurement or setting that is not a finite number (which one, in words).
        case nonFiniteInput(String)
    }

    /// What to do when the gain would push the true peak over the ceiling.
    public let mode: PeakMode
    /// The loudness asked for, LUFS.
    public let targetLUFS: Double
    /// The true-peak ceiling, dBTP.
    public let ceilingDBTP: Double
    /// Gain to apply, dB (for `reduce` already lowered to keep the peak at the ceiling).
    public let gainDB: Double
    /// True peak the output would have at `gainDB` without limiting, dBTP.
    public let predictedTruePeakDBTP: Double
    /// The gain pushes the true peak over the ceiling and the mode is `limit`.
    public let limiterNeeded: Bool
    /// How far under the target the output lands, LU (only `reduce` leaves a shortfall; 0 otherwise).
    public let shortfallLU: Double
    /// The output will have peaks over the ceiling (only `ignore`).
    public let exceedsCeiling: Bool

    /// `gainDB` as a factor to multiply the samples by.
    public var linearGain: Double { pow(10, gainDB / 20) }

    /// Plans the gain from a measured integrated loudness (nil when undefined) and true peak.
    public init(measuredLUFS: Double?, measuredTruePeakDBTP: Double, targetLUFS: Double,
                ceilingDBTP: Double, mode: PeakMode) throws(Refusal) {
        guard let loudness = measuredLUFS, loudness > -.infinity else { throw .undefinedLoudness }
        guard loudness.isFinite else { throw .nonFiniteInput("loudness") }
        guard targetLUFS.isFinite else { throw .nonFiniteInput("target loudness") }
        guard ceilingDBTP.isFinite else { throw .nonFiniteInput("true-peak ceiling") }
        guard !measuredTruePeakDBTP.isNaN, measuredTruePeakDBTP < .infinity else {
            throw .nonFiniteInput("true peak")
        }
        self.mode = mode
        self.targetLUFS = targetLUFS
        self.ceilingDBTP = ceilingDBTP
        let wanted = targetLUFS - loudness
        let peakAtWanted = measuredTruePeakDBTP + wanted
        let over = peakAtWanted > ceilingDBTP
        switch mode {
        case .limit:
            gainDB = wanted
            limiterNeeded = over
            shortfallLU = 0
            exceedsCeiling = false
        case .reduce:
            gainDB = over ? ceilingDBTP - measuredTruePeakDBTP : wanted
            limiterNeeded = false
            shortfallLU = over ? targetLUFS - (loudness + gainDB) : 0
            exceedsCeiling = false
        case .ignore:
            gainDB = wanted
            limiterNeeded = false
            shortfallLU = 0
            exceedsCeiling = over
        }
        predictedTruePeakDBTP = measuredTruePeakDBTP + gainDB
    }

    /// Checks the plan against the output format: `ignore` may only write floating point, since
    /// a fixed-point file can't hold what it lets through (and would clip silently).
    public func validate(outputIsFloatingPoint: Bool) throws(Refusal) {
        if mode == .ignore && !outputIsFloatingPoint { throw .ignoreNeedsFloatOutput }
    }
}
