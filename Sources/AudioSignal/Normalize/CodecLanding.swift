import Foundation

/// A lossy file checked after its encoder: what was handed to the encoder and what the written
/// file decodes to, both measured; when the decoded file is more than `toleranceLU` off the
/// target or over the ceiling, the settings for another encode: the loudness handed to the
/// encoder moved by the codec's own change, and the limiter's ceiling lowered by the codec's
/// overshoot. Numbers in, numbers out.
public struct CodecLanding: Equatable, Sendable {
    /// How close to the target a decoded lossy file must land, LU.
    public static let toleranceLU = 0.2
    /// Kept between the ceiling and the decoded true peak the next encode aims at, dB.
    public static let marginDB = 0.1

    /// The codec's error on the peak is taken this much larger for the next encode: limited
    /// harder to make room for it, the audio is denser and the codec's error grows (by a fifth
    /// to two fifths on limited pink noise through MP3, Vorbis and Opus).
    public static let errorAllowance = 1.5
    /// The limiter's ceiling is lowered at most this far under the ceiling, dB.
    public static let maxCeilingDropDB = 6.0

    package static func amplitude(_ db: Double) -> Double { pow(10, db / 20) }
    package static func decibels(_ a: Double) -> Double { 20 * log10(a) }

    /// Further encodes at most after the first, each corrected by what the last one decoded to.
    public static let maxCorrections = 2

    /// Integrated loudness and true peak, LUFS and dBTP (nil: not measurable).
    public struct Levels: Equatable, Sendable {
        public var integratedLUFS: Double?
        public var truePeakDBTP: Double?
        public init(integratedLUFS: Double?, truePeakDBTP: Double?) {
            self.integratedLUFS = integratedLUFS; self.truePeakDBTP = truePeakDBTP
        }
    }

    /// What the next encode changes.
    public struct Correction: Equatable, Sendable {
        /// The loudness the samples handed to the encoder should have, LUFS (nil: keep the gain,
        /// the loudness is not steered).
        public var handedTargetLUFS: Double?
        /// Added to the gain when the loudness is not steered (`--peak reduce`: the overshoot
        /// comes off the gain), dB.
        public var gainDeltaDB: Double
        /// The limiter's ceiling for the next encode, dBTP, and whether it runs.
        public var limiterCeilingDBTP: Double
        public var limit: Bool
        /// Why: the decoded loudness was off the target, the decoded true peak over the ceiling.
        public var forLoudness: Bool
        public var forPeak: Bool
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

    /// What the codec added to the peak it was handed, in amplitude (1 = full scale; 0 when
    /// it added nothing; nil: unmeasured).
    public static func peakError(handed: Levels, decoded: Levels) -> Double? {
        guard let a = handed.truePeakDBTP, let b = decoded.truePeakDBTP, a.isFinite, b.isFinite else { return nil }
        return max(0, amplitude(b) - amplitude(a))
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

    /// The next encode's settings, or nil when the decoded file is on target and under the
    /// ceiling. `steersLoudness`: the loudness is brought to the target (false for `--peak
    /// reduce`, an album's gain or a dialogue-gated target, where only the peak is checked);
    /// `canLimit`: the limiter may run (`--peak limit`). `limiterCeilingDBTP`, `limiting`: the
    /// written plan's; `limiterMarginDB`: how far under its ceiling the limiter holds the peaks.
    public static func correction(handed: Levels, decoded: Levels, targetLUFS: Double, ceilingDBTP: Double,
                                  limiterCeilingDBTP: Double, limiterMarginDB: Double = 0.15, limiting: Bool,
                                  steersLoudness: Bool, canLimit: Bool) -> Correction? {
        let forLoudness = steersLoudness && isOff(decoded.integratedLUFS, targetLUFS: targetLUFS)
        let forPeak = isOver(decoded.truePeakDBTP, ceilingDBTP: ceilingDBTP)
        guard forLoudness || forPeak else { return nil }
        var handedTarget: Double? = nil
        if steersLoudness {
            // The codec's change taken to hold at a nearby level: hand it the target less that change.
            handedTarget = targetLUFS - (loudnessChange(handed: handed, decoded: decoded) ?? 0)
        }
        var ceiling = limiterCeilingDBTP, limit = limiting, gainDelta = 0.0
        if forPeak, let tp = decoded.truePeakDBTP {
            if canLimit {
                // At least the excess off the limiter's ceiling; and room for the codec's error,
                // which adds to the peak it is handed about the same amplitude at the same loudness
                // (and a little more on audio limited harder: `errorAllowance`).
                var room = limiterCeilingDBTP - (tp - ceilingDBTP) - marginDB
                if let p = handed.truePeakDBTP, p.isFinite {
                    // No more room than the overshoot as a ratio, half as large again, would ask
                    // either (a large error on a loud master is partly proportional). The error is
                    // not steady from one encode to the next (its largest overshoot falls on one
                    // transient or another): a file still over is corrected again from the next.
                    let error = peakError(handed: handed, decoded: decoded) ?? 0
                    let peak = amplitude(ceilingDBTP - marginDB) - errorAllowance * error
                    let additive = decibels(max(amplitude(ceilingDBTP - maxCeilingDropDB), peak))
                    let ratio = ceilingDBTP - marginDB - errorAllowance * max(0, tp - p)
                    room = min(room, max(additive, ratio) + limiterMarginDB)
                }
                ceiling = max(ceilingDBTP - maxCeilingDropDB + limiterMarginDB, min(limiterCeilingDBTP, ceilingDBTP, room))
                limit = true
            } else {
                gainDelta = ceilingDBTP - marginDB - tp
            }
        }
        return Correction(handedTargetLUFS: handedTarget, gainDeltaDB: gainDelta, limiterCeilingDBTP: ceiling,
                          limit: limit, forLoudness: forLoudness, forPeak: forPeak)
    }
}

/// How a lossy output was checked after its encoder, for the record.
public struct CodecLandingReport: Equatable, Sendable {
    /// Encodes of the whole file (written passes), the first included.
    public var encodes: Int
    /// The last encode: what was handed to the encoder and what the file decodes to.
    public var handed: CodecLanding.Levels
    public var decoded: CodecLanding.Levels
    /// What each earlier encode decoded to, when the file was encoded again.
    public var earlier: [CodecLanding.Levels]
    /// Why each further encode was made, and its settings (one for each of `earlier`).
    public var corrections: [CodecLanding.Correction]
    /// The loudness was steered to the target (so a miss is a shortfall).
    public var steersLoudness: Bool
    /// The trial before the first encode and what it moved (nil: none ran).
    public var trial: CodecLanding.Trial? = nil
    public init(encodes: Int, handed: CodecLanding.Levels, decoded: CodecLanding.Levels, earlier: [CodecLanding.Levels],
                corrections: [CodecLanding.Correction], steersLoudness: Bool) {
        self.encodes = encodes; self.handed = handed; self.decoded = decoded; self.earlier = earlier
        self.corrections = corrections; self.steersLoudness = steersLoudness
    }
}
