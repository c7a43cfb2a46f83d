/// The gain a bitstream can take: the target's gain rounded to the nearest whole step of the
/// format (2^(1/4), 1.505 dB, for MP3's and AAC's global_gain; 1/256 dB for Opus's Q7.8 header gain),
/// lowered a step at a time while the true peak would pass the ceiling. Never a limiter, so when
/// that misses the target by more than half a step the file is refused.
public struct LosslessGainPlan: Equatable, Sendable {
    public let steps: Int
    public let stepDB: Double
    /// steps × stepDB.
    public var gainDB: Double { Double(steps) * stepDB }
    /// Target minus reached, dB (LU).
    public let residualDB: Double

    public init(measuredLUFS: Double?, truePeakDBTP: Double?, targetLUFS: Double, ceilingDBTP: Double,
                stepDB: Double) throws(BitstreamGainError) {
        guard let lufs = measuredLUFS, lufs.isFinite else { throw .undefinedLoudness }
        let needed = targetLUFS - lufs
        var steps = Int((needed / stepDB).rounded())
        if let peak = truePeakDBTP, peak.isFinite {
            // A hair of tolerance so a peak exactly at the ceiling after the gain stays allowed.
            while peak + Double(steps) * stepDB > ceilingDBTP + 1e-9 { steps -= 1 }
        }
        let residual = needed - Double(steps) * stepDB
        if abs(residual) > stepDB / 2 + 1e-9 {
            throw .targetOutOfReach(neededDB: needed, reachedDB: Double(steps) * stepDB, stepDB: stepDB)
        }
        self.steps = steps
        self.stepDB = stepDB
        self.residualDB = residual
    }
}
