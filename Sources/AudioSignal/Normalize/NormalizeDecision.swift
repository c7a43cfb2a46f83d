import Foundation

/// From the gain decision and the fades asked for, everything the pass over the samples does:
/// fade lengths in frames, whether the loudness is compensated for what limiting and fades take,
/// whether the limiter runs, and dither. Numbers in, numbers out.
public struct NormalizeDecision: Equatable, Sendable {
    public let fadeInFrames: Int
    public let fadeOutFrames: Int
    /// Measuring passes bring the loudness back to the target after limiting or fades.
    public let compensate: Bool
    public let plan: NormalizePlan
    /// How far the gain pushes the true peak over the limiter's threshold, dB (0 when under).
    public let overshootDB: Double
    public var hasFades: Bool { fadeInFrames > 0 || fadeOutFrames > 0 }

    /// Up to this much overshoot the first compensated pass usually lands within the tolerance
    /// (the limiter touches only the highest peaks), so it is worth writing (and analysing) as it
    /// runs; beyond it, the analysis pass first is cheaper than encoding a pass that misses. (Noise-like programme, whose
    /// loudness sits nearest its peaks, loses about 0.05 LU at 1.7 dB and 0.2 LU at 2.2 dB.)
    public static let landingOvershootDB = 2.0

    /// Whether the first compensated pass is likely to land on the target.
    public var firstPassMayLand: Bool { overshootDB <= Self.landingOvershootDB }

    /// How close under the limiter's threshold (ceiling less margin) the predicted true peak may
    /// come before the limiter runs anyway, dB: room for the rounding of the measurement.
    public static let limiterHeadroomDB = 0.05

    /// - Parameters:
    ///   - album: one gain for a whole album; no track gets its own compensation.
    ///   - compensates: add back the loudness the limiter and fades take (false for a
    ///     dialogue-gated target: what they take is the programme's peaks and ends, not its dialogue).
    ///   - alwaysLimit: run the limiter in `limit` mode even under the ceiling (a lossy encoder
    ///     adds its own overshoot).
    ///   - ditherBitDepth: quantise to this many bits with TPDF dither (nil: leave float).
    public init(gain: NormalizeGainPlan, peakMode: PeakMode, album: Bool = false, compensates: Bool = true,
                fadeInSeconds: Double, fadeOutSeconds: Double, fadeCurve: FadeCurve, sampleRate: Int,
                ceilingDBTP: Double, marginDB: Double, alwaysLimit: Bool = false, ditherBitDepth: Int?) {
        fadeInFrames = Self.frames(fadeInSeconds, sampleRate: sampleRate)
        fadeOutFrames = Self.frames(fadeOutSeconds, sampleRate: sampleRate)
        let hasFades = fadeInFrames > 0 || fadeOutFrames > 0
        // Not for reduce, whose gain is already as high as the ceiling allows.
        compensate = compensates && !album && ((peakMode == .limit && (gain.limiterNeeded || hasFades)) || (peakMode == .ignore && hasFades))
        let limit = peakMode == .limit
            && (compensate || gain.predictedTruePeakDBTP > ceilingDBTP - marginDB - Self.limiterHeadroomDB || alwaysLimit)
        overshootDB = max(0, gain.predictedTruePeakDBTP - (ceilingDBTP - marginDB))
        plan = NormalizePlan(gainDB: gain.gainDB, fadeInFrames: fadeInFrames, fadeOutFrames: fadeOutFrames, fadeCurve: fadeCurve,
                             ceilingDBTP: ceilingDBTP, limit: limit, marginDB: marginDB, ditherBitDepth: ditherBitDepth)
    }

    /// `seconds` at `sampleRate`, to the nearest frame.
    public static func frames(_ seconds: Double, sampleRate: Int) -> Int {
        Int((seconds * Double(sampleRate)).rounded())
    }

    /// The bits to dither to: fixed-point, lossless output of 16 bits or fewer (more bits leave
    /// the rounding error far under the noise floor; float and lossy codecs take float).
    public static func ditherBits(bitDepth: Int?, isFloat: Bool, isLossy: Bool) -> Int? {
        (!isFloat && !isLossy && (bitDepth ?? 24) <= 16) ? bitDepth : nil
    }
}
