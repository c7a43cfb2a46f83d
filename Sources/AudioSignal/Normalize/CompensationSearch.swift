/// The search for the gain that lands the limited (or faded) output on the target: each measured
/// pass adds its shortfall to the gain, after two passes stepping by the measured slope (secant),
/// until the loudness is within the tolerance, the gain stops moving, or only the written pass is
/// left. Numbers in, numbers out: the passes themselves are the caller's.
package struct CompensationSearch: Sendable {
    /// The plan before any compensation.
    public let plan: NormalizePlan
    public let targetLUFS: Double
    public let toleranceLU: Double
    /// Passes in all, the written one included.
    public let maxPasses: Int
    /// The most gain added or taken over the plan's, dB.
    public let maxCompensationDB: Double
    /// A pass is written as it runs when the step before it was at most this many LU: a step at
    /// 1 LU per dB (after the first pass) lands only when limiting takes little, a secant step
    /// (after two) from further away. Missing costs one encode; landing saves one pass.
    public static let landingStepLU = (first: 0.1, secant: 0.4)

    /// The plan of the next pass.
    public private(set) var current: NormalizePlan
    /// Passes measured so far.
    public private(set) var passes = 0
    /// Loudness of the last measured pass, LUFS.
    public private(set) var measured: Double?
    /// The shortfall the last measured pass left, LU.
    public private(set) var lastShortfallLU: Double?
    private var previous: (gain: Double, loudness: Double)?

    /// Whether the first pass is likely to land (little to limit): it is then written as it runs.
    public let firstPassMayLand: Bool

    public init(plan: NormalizePlan, targetLUFS: Double, toleranceLU: Double = 0.05, maxPasses: Int = 3,
                maxCompensationDB: Double = 6, firstPassMayLand: Bool = true) {
        self.plan = plan
        self.firstPassMayLand = firstPassMayLand
        self.targetLUFS = targetLUFS
        self.toleranceLU = toleranceLU
        self.maxPasses = maxPasses
        self.maxCompensationDB = maxCompensationDB
        current = plan
    }

    /// Whether a measured pass may still run before the written one.
    public var mayMeasure: Bool { passes < max(1, maxPasses) - 1 }

    /// Whether the next pass is likely enough to land that it is worth writing as it runs: the
    /// first when `firstPassMayLand`, or one after a small step.
    public var worthWriting: Bool {
        guard let s = lastShortfallLU else { return firstPassMayLand }
        return abs(s) <= (passes == 1 ? Self.landingStepLU.first : Self.landingStepLU.secant)
    }

    /// Takes the loudness a pass at `current` measured (nil: none measurable). True when the
    /// search has ended and the written pass is `current`; false when `current` has moved on.
    public mutating func record(_ loudness: Double?) -> Bool {
        passes += 1
        guard let loudness else { return true }
        measured = loudness
        let shortfall = targetLUFS - loudness
        lastShortfallLU = shortfall
        if abs(shortfall) <= toleranceLU { return true }
        // Under limiting, loudness rises less than the gain: after two passes step by the
        // measured slope (secant), kept within (0.1, 1] LU per dB.
        var slope = 1.0
        if let previous, current.gainDB != previous.gain {
            slope = min(1, max(0.1, (loudness - previous.loudness) / (current.gainDB - previous.gain)))
        }
        previous = (current.gainDB, loudness)
        let compensation = min(max(current.gainDB + shortfall / slope - plan.gainDB, -maxCompensationDB),
                               maxCompensationDB)
        let next = plan.gainDB + compensation
        if next == current.gainDB { return true }
        current.gainDB = next
        return false
    }

}
