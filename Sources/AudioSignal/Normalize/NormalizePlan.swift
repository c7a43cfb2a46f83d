import Foundation

/// Everything lufs-normalize does to the samples, decided before the first one is read.
public struct NormalizePlan: Equatable, Sendable {
    /// Static gain, dB.
    public var gainDB: Double
    public var fadeInFrames: Int
    public var fadeOutFrames: Int
    public var fadeCurve: FadeCurve
    /// The true-peak ceiling, dBTP (what the limiter keeps under).
    public var ceilingDBTP: Double
    /// Run the true-peak limiter (for `PeakMode.limit`).
    public var limit: Bool
    /// Limiter margin and timing; its ceiling comes from `ceilingDBTP`.
    public var limiterTiming: TruePeakLimiter.Settings
    /// Quantise to this many bits with TPDF dither (fixed-point output of 16 bits or fewer); nil: leave float.
    public var ditherBitDepth: Int?
    public var ditherSeed: UInt64
    /// Frames of the stream, for placing the fade-out; nil: take the source's declared count.
    public var totalFrames: Int?
    /// Frames per block processed (and read from the source, unless it is decoded ahead in the
    /// decoder's own blocks); the samples are the same whatever the size.
    public var blockFrames: Int

    public init(gainDB: Double, fadeInFrames: Int = 0, fadeOutFrames: Int = 0, fadeCurve: FadeCurve = .linear,
                ceilingDBTP: Double = -1, limit: Bool = false, marginDB: Double = 0.15,
                lookaheadSeconds: Double = 0.003, releaseSeconds: Double = 0.1,
                ditherBitDepth: Int? = nil, ditherSeed: UInt64 = 0x4C55_4653,
                totalFrames: Int? = nil, blockFrames: Int = 4096) {
        self.gainDB = gainDB
        self.fadeInFrames = fadeInFrames
        self.fadeOutFrames = fadeOutFrames
        self.fadeCurve = fadeCurve
        self.ceilingDBTP = ceilingDBTP
        self.limit = limit
        self.limiterTiming = TruePeakLimiter.Settings(ceilingDBTP: ceilingDBTP, marginDB: marginDB,
                                                      lookaheadSeconds: lookaheadSeconds,
                                                      releaseSeconds: releaseSeconds)
        self.ditherBitDepth = ditherBitDepth
        self.ditherSeed = ditherSeed
        self.totalFrames = totalFrames
        self.blockFrames = blockFrames
    }

    /// A plan from a gain decision: its gain, and the limiter when the decision needs it.
    public init(_ gain: NormalizeGainPlan, fadeInFrames: Int = 0, fadeOutFrames: Int = 0,
                fadeCurve: FadeCurve = .linear, ditherBitDepth: Int? = nil, totalFrames: Int? = nil) {
        self.init(gainDB: gain.gainDB, fadeInFrames: fadeInFrames, fadeOutFrames: fadeOutFrames,
                  fadeCurve: fadeCurve, ceilingDBTP: gain.ceilingDBTP, limit: gain.mode == .limit,
                  ditherBitDepth: ditherBitDepth, totalFrames: totalFrames)
    }
}
