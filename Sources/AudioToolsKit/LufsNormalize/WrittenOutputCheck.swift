import AudioSignal
import Foundation

/// The last check before a normalised file is put in place: its measured figures against what
/// the record promises (docs/lufs-normalize.md). A file that lands off the target beyond the
/// documented tolerance, or over the ceiling, with no documented reason (`--peak reduce`, the
/// compensation limit, an album's gain, a dialogue-gated target, a codec's shortfall) contradicts
/// the record: most likely it was planned from a wrong measurement. It is refused, not written.
public struct WrittenOutputCheck: Sendable {
    /// How far a lossless output may land from the target (the docs: within 0.1 LU).
    public static let toleranceLU = 0.1
    /// A lossy output, decoded again (within 0.2 LU).
    public static let lossyToleranceLU = 0.2
    /// How far over the ceiling a true peak may read before it counts as over it: the records'
    /// rounding and the dither after the limiter.
    public static let peakAllowanceDB = 0.02

    public var targetLUFS: Double
    public var ceilingDBTP: Double
    public var peakMode: PeakMode
    /// The file's own loudness is not the target's business: an album's gain, a dialogue-gated target.
    public var loudnessIsOwn: Bool
    public var maxCompensationDB: Double

    public init(targetLUFS: Double, ceilingDBTP: Double, peakMode: PeakMode, loudnessIsOwn: Bool, maxCompensationDB: Double) {
        self.targetLUFS = targetLUFS; self.ceilingDBTP = ceilingDBTP; self.peakMode = peakMode
        self.loudnessIsOwn = loudnessIsOwn; self.maxCompensationDB = maxCompensationDB
    }

    /// What the written file contradicts: the facts for the refusal.
    public struct Miss: Error, Equatable, Sendable {
        public var integratedLUFS: Double?
        public var truePeakDBTP: Double?
        public var targetLUFS: Double
        public var ceilingDBTP: Double
        public var toleranceLU: Double
        /// The loudness the gain was planned from (the record's, or measured here).
        public var sourceLUFS: Double?
        public var offTarget: Bool
        public var overCeiling: Bool
        /// The loudness was measured here, not taken from the record.
        public var measuredHere = false
    }

    /// The miss, if the written figures contradict the promise. `lossyChecked`: a lossy file
    /// decoded again, whose codec may leave a documented shortfall (`codecShortfall`).
    public func miss(integratedLUFS: Double?, truePeakDBTP: Double?, compensationDB: Double,
                     lossyChecked: Bool, codecShortfall: Bool, sourceLUFS: Double?) -> Miss? {
        let tolerance = lossyChecked ? Self.lossyToleranceLU : Self.toleranceLU
        var off = false
        if loudnessIsOwn, let lufs = integratedLUFS, !(lossyChecked && codecShortfall) {
            let over = lufs - targetLUFS > tolerance
            // Under the target is documented with --peak reduce, and when the compensation the
            // limiter needed reached its limit.
            let under = targetLUFS - lufs > tolerance && peakMode != .reduce
                && compensationDB < maxCompensationDB - 0.01
            off = over || under
        }
        var overCeiling = false
        if peakMode != .ignore, !lossyChecked, let tp = truePeakDBTP {
            overCeiling = tp > ceilingDBTP + Self.peakAllowanceDB
        }
        guard off || overCeiling else { return nil }
        return Miss(integratedLUFS: integratedLUFS, truePeakDBTP: truePeakDBTP, targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP,
                    toleranceLU: tolerance, sourceLUFS: sourceLUFS, offTarget: off, overCeiling: overCeiling)
    }
}
