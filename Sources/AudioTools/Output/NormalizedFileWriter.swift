import Foundation

/// Runs the normalisation into a new file: the plan over the source into a sink (unnamed until
/// committed, so a failure leaves nothing behind), with a loudness meter on the samples written.
/// Compensated plans predict their gain from one analysis pass first (NormalizePipeline+Prediction).
public struct NormalizedFileWriter {
    public var outPath: String
    public var format: LufsNormalizeFormat
    public var tags: AudioTags
    public var layout: ChannelLayout
    /// Replace a file already at `outPath`.
    public var overwrite: Bool
    /// The written meter keeps loudness over time (for --report).
    public var collectsTimeline: Bool
    /// Passes and compensation limits for the gain search.
    public var maxPasses: Int
    public var maxCompensationDB: Double

    public init(outPath: String, format: LufsNormalizeFormat, tags: AudioTags, layout: ChannelLayout, overwrite: Bool,
                collectsTimeline: Bool, maxPasses: Int, maxCompensationDB: Double) {
        self.outPath = outPath; self.format = format; self.tags = tags; self.layout = layout
        self.overwrite = overwrite; self.collectsTimeline = collectsTimeline
        self.maxPasses = maxPasses; self.maxCompensationDB = maxCompensationDB
    }

    /// Normalises `source` (at its first frame) by the decision's plan into `outPath` and commits it; the
    /// report and the meter of what was written. `cores` says when a core is spare for decoding
    /// ahead and metering true peak.
    public func write(_ decision: NormalizeDecision, targetLUFS: Double, source: AudioSource,
                      cores: CoreBudget) throws -> (report: NormalizeReport, meter: LoudnessMeter) {
        let plan = decision.plan
        let weights = layout.weights, rate = format.sampleRate
        var sink: SndfileSink? = nil
        var finalMeter: LoudnessMeter? = nil
        func makeOutput() throws -> NormalizePipeline.Output {
            let s = try SndfileSink(path: outPath, formatCode: format.formatCode, sampleRate: rate,
                                    channelCount: format.channelCount, overwrite: overwrite, tags: tags)
            s.setSpeakers(layout.roles)
            let meter = LoudnessMeter(sampleRate: rate, weights: weights, collectsTimeline: collectsTimeline)
            sink = s
            finalMeter = meter
            return .init(sink: s, onOutputBlock: { meter.add($0, onTwoCores: cores.hasSpareCore) },
                         integrated: { meter.finish().integratedLUFS })
        }
        let report: NormalizeReport
        do {
            if decision.compensate {
                // One analysis pass predicts the compensation; the written pass is metered and
                // written again only when it missed.
                let result = try NormalizePipeline.runPredicted(
                    plan, targetLUFS: targetLUFS, source: source, weights: weights, makeOutput: makeOutput,
                    maxWrittenPasses: max(1, maxPasses - 2), maxCompensationDB: maxCompensationDB,
                    firstPassMayLand: decision.firstPassMayLand, decodeAhead: cores.hasSpareCore)
                report = result.report
            } else {
                let output = try makeOutput()
                report = try NormalizePipeline.run(plan, source: source, sink: output.sink, decodeAhead: cores.hasSpareCore,
                                                   onOutputBlock: output.onOutputBlock)
            }
            try sink!.commit()
        } catch {
            sink?.abandon()
            throw error
        }
        return (report, finalMeter!)
    }
}
