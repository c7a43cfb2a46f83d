import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// Runs the normalisation into a new file: the plan over the source into a sink (unnamed until
/// committed, so a failure leaves nothing behind), with a loudness meter on the samples written.
/// Compensated plans predict their gain from one analysis pass first (NormalizePipeline+Prediction).
/// A lossy output is decoded again before it is committed and measured after its codec; when it
/// misses its plan it is encoded once more (the last time), planned again from what the codec did
/// to the first encode, within the same bound on the limiting (CodecLanding.plan).
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
    /// Lossy output: the decoded loudness is brought to the target (false for `--peak reduce`, an
    /// album's gain, a dialogue-gated target: only the peak is checked then), and the limiter may
    /// run (`--peak limit`).
    public var steersLoudness = true
    public var canLimit = true
    /// The source's limiter analysis kept from an earlier run (the cache), used instead of an
    /// analysis pass; it still counts as a pass, so the record is the same with or without it.
    public var storedAnalysis: StoredLimiterAnalysis? = nil
    /// `--codec-peak`: which limit a lossy output gives up when both can't hold (CodecLanding.plan).
    public var codecPeakRule: CodecPeakRule = .hold
    /// Judges what is about to be committed (it throws to refuse it: the file is then abandoned,
    /// never put in place).
    public var check: ((Written) throws -> Void)? = nil

    /// What was written: the report of the last written pass, the meter of what the file holds
    /// (for a lossy output checked after its codec, the decoded file's), and the codec check.
    public struct Written {
        public var report: NormalizeReport
        public var meter: LoudnessMeter
        /// Lossy output decoded and checked (nil: lossless, or not checked).
        public var landing: CodecLandingReport?
        /// Why a lossy output could not be decoded again to check it (its numbers are then the
        /// samples handed to the encoder).
        public var uncheckedReason: String?
    }

    public init(outPath: String, format: LufsNormalizeFormat, tags: AudioTags, layout: ChannelLayout, overwrite: Bool,
                collectsTimeline: Bool, maxPasses: Int, maxCompensationDB: Double) {
        self.outPath = outPath; self.format = format; self.tags = tags; self.layout = layout
        self.overwrite = overwrite; self.collectsTimeline = collectsTimeline
        self.maxPasses = maxPasses; self.maxCompensationDB = maxCompensationDB
    }

    /// One write of the file: the report, its uncommitted sink, the meter of the samples handed
    /// to it, and how many times it was written.
    package struct Round {
        package var report: NormalizeReport
        package var sink: SndfileSink
        package var meter: LoudnessMeter
        package var writtenPasses: Int
    }

    /// Normalises `source` (at its first frame) by the decision's plan into `outPath` and commits it; the
    /// report and the meter of what was written. `cores` says when a core is spare for decoding
    /// ahead, encoding and metering behind.
    public func write(_ decision: NormalizeDecision, targetLUFS: Double, source: AudioSource,
                      cores: CoreBudget) throws -> Written {
        let start = try trialled(decision, targetLUFS: targetLUFS, source: source, cores: cores)
        var first = try writeRound(start.plan, compensate: start.compensate, firstPassMayLand: start.firstPassMayLand,
                                   targetLUFS: start.targetLUFS, source: source, cores: cores, model: start.model,
                                   maxWrittenPasses: max(1, maxPasses - 2))
        if start.trial != nil {
            // The analysis made before the trial counts as a pass; the gain the trial moved is compensation.
            first.report.passes += start.analysisPasses
            first.report.compensationDB = first.report.gainDB - decision.plan.gainDB
        }
        guard format.isLossy, let readable = first.sink.readablePath else {
            // A lossy file that can't be reopened unnamed says so, rather than pass unchecked in silence.
            return try commit(first.sink, Written(report: first.report, meter: first.meter,
                                                  uncheckedReason: format.isLossy ? "the unnamed file could not be reopened to decode it" : nil))
        }
        var sink = first.sink
        do {
            try sink.finishEncoding()
            let handed = levels(first.meter)
            let checked: (meter: LoudnessMeter, levels: CodecLanding.Levels)?
            do { checked = try measureWritten(readable, cores: cores) } catch {
                return try commit(sink, Written(report: first.report, meter: first.meter,
                                                uncheckedReason: "the written file could not be decoded again"))
            }
            guard let checked else {
                return try commit(sink, Written(report: first.report, meter: first.meter,
                                                uncheckedReason: "the decoder gave another channel count"))
            }
            let ceiling = decision.plan.ceilingDBTP
            var landing = CodecLandingReport(encodes: first.writtenPasses, handed: handed, decoded: checked.levels, earlier: [],
                                             steersLoudness: steersLoudness)
            landing.trial = start.trial
            var report = first.report, meter = checked.meter
            if landing.encodes < CodecLanding.maxEncodes,
               let next = nextEncode(start, decision: decision, report: report, handed: landing.handed, decoded: landing.decoded,
                                     targetLUFS: targetLUFS) {
                // Encoded once more (the last time), planned from what the codec did to the first.
                sink.abandon()
                try source.seek(toFrame: 0)
                let again = try writeRound(next.plan, compensate: false, firstPassMayLand: false, targetLUFS: targetLUFS,
                                           source: source, cores: cores, model: nil, maxWrittenPasses: 1)
                sink = again.sink
                try sink.finishEncoding()
                let passes = report.passes + again.report.passes
                report = again.report
                report.compensationDB = report.gainDB - decision.plan.gainDB
                report.passes = passes
                report.predictionMissLU = first.report.predictionMissLU
                // A further encode that can't be decoded again is committed with the same note as a
                // first one in that state: its numbers are the samples handed to the encoder.
                var rechecked: (meter: LoudnessMeter, levels: CodecLanding.Levels)? = nil
                var unchecked = "the unnamed file could not be reopened to decode it"
                if let path = sink.readablePath {
                    do {
                        rechecked = try measureWritten(path, cores: cores)
                        unchecked = "the decoder gave another channel count"
                    } catch {
                        unchecked = "the written file could not be decoded again"
                    }
                }
                guard let rechecked else {
                    return try commit(sink, Written(report: report, meter: again.meter, uncheckedReason: unchecked))
                }
                landing.encodes += again.writtenPasses
                landing.earlier.append(landing.decoded)
                if let p = next.landing { landing.replans.append(p) }
                landing.reencodedFor = next.reasons
                landing.handed = levels(again.meter)
                landing.decoded = rechecked.levels
                meter = rechecked.meter
            }
            // Without the limiter (`--peak reduce`) neither output limits; with it and no analysis, the PCM output's depth is unknown.
            landing.outcome = CodecLanding.outcome(rule: codecPeakRule, decoded: landing.decoded, targetLUFS: targetLUFS,
                                                   ceilingDBTP: ceiling, steersLoudness: steersLoudness, depthDB: report.maxReductionDB,
                                                   pcmDepthDB: canLimit ? (landing.replans.last ?? start.landing?.plan).map {
                                                       CodecLanding.pcmDepth($0, writtenDepthDB: report.maxReductionDB) } : 0)
            return try commit(sink, Written(report: report, meter: meter, landing: landing))
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// Puts the file in place once `check` accepts what was written; abandons it otherwise.
    private func commit(_ sink: SndfileSink, _ written: Written) throws -> Written {
        do {
            try check?(written)
            try sink.commit()
        } catch { sink.abandon(); throw error }
        return written
    }

    private func levels(_ meter: LoudnessMeter) -> CodecLanding.Levels {
        let m = meter.finish()
        return .init(integratedLUFS: m.integratedLUFS, truePeakDBTP: m.truePeakDBTP)
    }

    /// The written file decoded (as lufs-measure decodes it) and measured; nil when it decodes to
    /// another channel count than was written.
    package func measureWritten(_ path: String, cores: CoreBudget) throws -> (meter: LoudnessMeter, levels: CodecLanding.Levels)? {
        let opened = try Decoder.open(path)
        let weights = layout.weights
        guard opened.source.format.channelCount == weights.count else { return nil }
        let meter = LoudnessMeter(sampleRate: opened.source.format.sampleRate, weights: weights, collectsTimeline: collectsTimeline)
        if cores.hasSpareCore {
            try ReadAhead.forEachBlock(opened.source) { meter.add($0) }
        } else {
            try Decoder.forEachBlock(opened.source) { meter.add($0) }
        }
        return (meter, levels(meter))
    }

    /// One write into a new uncommitted sink: the plan's gain as it is, or (`compensate`) the gain
    /// predicted to land on `targetLUFS` despite the limiter and fades.
    package func writeRound(_ plan: NormalizePlan, compensate: Bool, firstPassMayLand: Bool, targetLUFS: Double, source: AudioSource,
                    cores: CoreBudget, model: LimitedLoudnessModel?, maxWrittenPasses: Int) throws -> Round {
        let weights = layout.weights, rate = format.sampleRate
        var sink: SndfileSink? = nil
        var finalMeter: LoudnessMeter? = nil
        var metering: BlockBehind? = nil
        func makeOutput() throws -> NormalizePipeline.Output {
            let s = try SndfileSink(path: outPath, formatCode: format.formatCode, sampleRate: rate,
                                    channelCount: format.channelCount, overwrite: overwrite, tags: tags)
            s.steer(format)
            s.setSpeakers(layout.roles)
            if cores.hasSpareCore { s.encodeBehind() }
            let meter = LoudnessMeter(sampleRate: rate, weights: weights, collectsTimeline: collectsTimeline)
            sink = s
            finalMeter = meter
            // With a spare core the meter runs behind on a thread of its own (the same bits: it
            // sees every sample in order); an abandoned pass's stops when the next replaces it.
            guard cores.hasSpareCore else {
                metering = nil
                return .init(sink: s, onOutputBlock: { meter.add($0) }, integrated: { meter.finish().integratedLUFS })
            }
            let behind = BlockBehind(channels: weights.count) { meter.add($0) }
            metering = behind
            return .init(sink: s, onOutputBlock: { behind.add($0) }, integrated: { behind.finish(); return meter.finish().integratedLUFS })
        }
        do {
            if compensate {
                // One analysis pass predicts the compensation (or the one kept from an earlier
                // run); the written pass is metered and written again only when it missed.
                let stored = model == nil && !firstPassMayLand ? storedAnalysis?.model(for: plan) : nil
                var result = try NormalizePipeline.runPredicted(
                    plan, targetLUFS: targetLUFS, source: source, weights: weights, makeOutput: makeOutput,
                    maxWrittenPasses: maxWrittenPasses, maxCompensationDB: maxCompensationDB,
                    firstPassMayLand: firstPassMayLand, decodeAhead: cores.hasSpareCore, model: model ?? stored)
                if stored != nil {
                    result.report.passes += 1
                } else if model == nil, !firstPassMayLand {
                    storedAnalysis?.keep(result.model, madeFor: plan)
                }
                return Round(report: result.report, sink: sink!, meter: finalMeter!,
                             writtenPasses: result.prediction.writtenPasses)
            }
            let output = try makeOutput()
            let report = try NormalizePipeline.run(plan, source: source, sink: output.sink, decodeAhead: cores.hasSpareCore,
                                                   onOutputBlock: output.onOutputBlock)
            metering?.finish()
            return Round(report: report, sink: sink!, meter: finalMeter!, writtenPasses: 1)
        } catch {
            sink?.abandon()
            throw error
        }
    }
}
