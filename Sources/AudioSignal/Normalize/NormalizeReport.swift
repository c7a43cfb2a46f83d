import Foundation

/// What a normalisation run did.
public struct NormalizeReport: Equatable, Sendable {
    /// Gain applied in the written pass, dB (the plan's gain plus any loudness compensation).
    public var gainDB: Double
    /// Gain added over the plan to make up for what limiting took, dB.
    public var compensationDB: Double
    public var framesLimited: Int
    /// Deepest limiter reduction, dB (positive).
    public var maxReductionDB: Double
    /// Passes over the source, the written one included.
    public var passes: Int
    /// Samples the quantiser clamped (should be 0: the limiter keeps peaks under the ceiling).
    public var clampedSamples: Int
    public var framesRead: Int
    public var framesWritten: Int
    /// Integrated loudness measured on the output, LUFS: of the written pass when it was metered,
    /// else of the last measuring pass (compensated runs only).
    public var measuredLUFS: Double?
    /// How far the first written pass landed from the target when the predicted compensation
    /// missed and the file was written again, LU (nil: it landed, or there was no prediction).
    public var predictionMissLU: Double? = nil

    /// Each stored property, as the synthesised initializer takes them (callable from the other targets).
    package init(gainDB: Double, compensationDB: Double, framesLimited: Int, maxReductionDB: Double, passes: Int, clampedSamples: Int, framesRead: Int, framesWritten: Int, measuredLUFS: Double? = nil, predictionMissLU: Double? = nil) {
        self.gainDB = gainDB
        self.compensationDB = compensationDB
        self.framesLimited = framesLimited
        self.maxReductionDB = maxReductionDB
        self.passes = passes
        self.clampedSamples = clampedSamples
        self.framesRead = framesRead
        self.framesWritten = framesWritten
        self.measuredLUFS = measuredLUFS
        self.predictionMissLU = predictionMissLU
    }
}
