import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// The trial before a lossy file's first encode (CodecLanding.trialStretches, CodecLanding.Trial):
/// each stretch of the source through the plan (its gain and limiter, no fades) into the same
/// libsndfile encoder, unnamed and never committed, then decoded again; both sides measured past
/// the stretch's lead.
extension NormalizedFileWriter {
    /// The trial of `plan` over `stretches` of `source` (CodecLanding.trialStretches), or nil
    /// when there are none. The source is left anywhere: the caller seeks it back.
    package func runTrial(_ plan: NormalizePlan, stretches: [(start: Int, count: Int, lead: Int)], source: AudioSource) throws -> CodecLanding.Trial? {
        let rate = source.format.sampleRate
        guard !stretches.isEmpty else { return nil }
        let weights = layout.weights
        var handed: [CodecLanding.Levels] = [], decoded: [CodecLanding.Levels] = [], measuredFrames = 0
        for s in stretches {
            var trialPlan = plan
            trialPlan.fadeInFrames = 0; trialPlan.fadeOutFrames = 0; trialPlan.totalFrames = s.count
            let window = try WindowSource(source, start: s.start, count: s.count)
            let sink = try SndfileSink(path: outPath, formatCode: format.formatCode, sampleRate: format.sampleRate,
                                       channelCount: format.channelCount, overwrite: overwrite, tags: AudioTags())
            defer { sink.abandon() }
            sink.steer(format)
            sink.setSpeakers(layout.roles)
            let before = LoudnessMeter(sampleRate: format.sampleRate, weights: weights)
            var position = 0
            _ = try NormalizePipeline.run(trialPlan, source: window, sink: sink, onOutputBlock: { block in
                Self.measure(block, at: &position, after: s.lead, into: before)
            })
            try sink.finishEncoding()
            guard let path = sink.readablePath else { return nil }
            let opened = try Decoder.open(path)
            guard opened.source.format.channelCount == weights.count else { return nil }
            let after = LoudnessMeter(sampleRate: opened.source.format.sampleRate, weights: weights)
            var decodedPosition = 0
            _ = try Decoder.forEachBlock(opened.source) { Self.measure($0, at: &decodedPosition, after: s.lead, into: after) }
            let b = before.finish(), a = after.finish()
            handed.append(.init(integratedLUFS: b.integratedLUFS, truePeakDBTP: b.truePeakDBTP))
            decoded.append(.init(integratedLUFS: a.integratedLUFS, truePeakDBTP: a.truePeakDBTP))
            measuredFrames += s.count - s.lead
        }
        return CodecLanding.Trial(handed: handed, decoded: decoded, seconds: Double(measuredFrames) / Double(rate))
    }

    /// Meters the part of `block` (at frame `position` of the stretch) past `lead` frames.
    package static func measure(_ block: AudioBlock, at position: inout Int, after lead: Int, into meter: LoudnessMeter) {
        defer { position += block.frames }
        let skip = max(0, min(block.frames, lead - position))
        if skip == 0 { meter.add(block); return }
        guard skip < block.frames else { return }
        meter.add(AudioBlock(channels: block.channels.map { Array($0[skip ..< block.frames]) }, frames: block.frames - skip))
    }
}

/// `count` frames of a source from `start`, as a source of its own (frame 0 is `start`).
package final class WindowSource: AudioSource {
    private let inner: AudioSource
    private let start: Int, count: Int
    private var position = 0
    package var format: AudioFormat {
        var f = inner.format
        f.frameCount = count
        return f
    }
    package var decodesCheaply: Bool { inner.decodesCheaply }

    package init(_ inner: AudioSource, start: Int, count: Int) throws {
        self.inner = inner; self.start = start; self.count = count
        try inner.seek(toFrame: start)
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let want = min(maxFrames, count - position)
        guard want > 0 else { return 0 }
        let n = try inner.read(into: &block, maxFrames: want)
        position += n
        return n
    }

    package func seek(toFrame frame: Int) throws {
        try inner.seek(toFrame: start + frame)
        position = frame
    }
}

extension NormalizedFileWriter {
    /// How the first write starts: the decision's plan, or for a lossy output the plan moved by
    /// the trial (the analysis made first when the gain is predicted, so the trial hears the gain
    /// the file gets).
    package struct Start {
        package var plan: NormalizePlan
        package var compensate: Bool
        package var firstPassMayLand: Bool
        package var targetLUFS: Double
        package var model: LimitedLoudnessModel?
        package var analysisPasses = 0
        package var trial: CodecLanding.Trial?
        /// The landing planned from the analysis (nil: no limiter, or no analysis to plan from).
        package var landing: Landing? = nil
    }

    /// What the first encode was planned from, kept for the last one.
    package struct Landing {
        package var aim: CodecLanding.Aim
        package var limiter: CodecLanding.Limiter
        package var pcm: (gainDB: Double, limiterCeilingDBTP: Double)
        package var plan: CodecLanding.Plan
    }

    package func trialled(_ decision: NormalizeDecision, targetLUFS: Double, source: AudioSource, cores: CoreBudget) throws -> Start {
        var start = Start(plan: decision.plan, compensate: decision.compensate, firstPassMayLand: decision.firstPassMayLand,
                          targetLUFS: targetLUFS)
        guard format.isLossy, steersLoudness || canLimit, overwrite || !PathBytes.exists(outPath) else { return start }
        var trialPlan = decision.plan
        // One analysis pass (the decode without the encoder): where the processed peaks come
        // nearest the ceiling (the trial's stretches), the whole file's processed true peak, and
        // the compensated gain, predicted without a written pass that may miss.
        // A plan that needs no compensation is written without it when the analysis fails (the
        // written pass then says why, or the trial takes its stretches at fixed places).
        var model: LimitedLoudnessModel? = nil
        do {
            if let stored = storedAnalysis?.model(for: decision.plan) {
                model = stored
            } else {
                model = try NormalizePipeline.analyse(decision.plan, source: source, weights: layout.weights,
                                                      decodeAhead: cores.hasSpareCore)
                storedAnalysis?.keep(model, madeFor: decision.plan)
            }
            start.analysisPasses = 1
        } catch where !decision.compensate {}
        start.model = model
        if decision.compensate, let model {
            start.firstPassMayLand = false
            trialPlan.gainDB = model.gain(forTarget: targetLUFS, planGainDB: decision.plan.gainDB, maxCompensationDB: maxCompensationDB)
        }
        let limiting = decision.plan.limit && canLimit
        let thresholdDB = limiting ? model.map { 20 * log10(Double($0.threshold)) } : nil
        let total = decision.plan.totalFrames ?? source.format.frameCount ?? 0, rate = source.format.sampleRate
        let envelope = model?.envelope(gainDB: trialPlan.gainDB)
        let stretches = CodecLanding.trialStretches(totalFrames: total, sampleRate: rate, envelope: envelope, thresholdDB: thresholdDB)
        let chosen = Double(total) > TrialStretches.wholeUpToSeconds * Double(rate)
            && envelope.flatMap { TrialStretches.chosen($0, thresholdDB: thresholdDB) } != nil
        // A trial that can't run (a source that can't seek, an encoder that refuses a short
        // stretch) leaves the first encode as it was; the check after it still holds.
        let measured: CodecLanding.Trial?
        do { measured = try runTrial(trialPlan, stretches: stretches, source: source) } catch { measured = nil }
        try source.seek(toFrame: 0)
        guard let measured else { return start }
        let plan = decision.plan
        let aim = CodecLanding.aim(measured, targetLUFS: targetLUFS, ceilingDBTP: plan.ceilingDBTP, rule: codecPeakRule,
                                   steersLoudness: steersLoudness, streamSeconds: Double(total) / Double(rate))
        var t = measured
        t.stretchesChosen = chosen
        let filePeak = model?.processedTruePeakDBTP(gainDB: trialPlan.gainDB)
        t.fileTruePeakDBTP = filePeak
        if steersLoudness { t.handedTargetLUFS = aim.handedTargetLUFS }
        if limiting, let model, let limiter = model.landingLimiter(plan.limiterTiming, planGainDB: plan.gainDB, maxCompensationDB: maxCompensationDB) {
            // The landing planned once from the analysis: the gain and the limiter's ceiling set
            // here, written as they are (no search on the written pass).
            let pcm = (gainDB: trialPlan.gainDB, limiterCeilingDBTP: plan.ceilingDBTP)
            let landing = Landing(aim: aim, limiter: limiter, pcm: pcm, plan: CodecLanding.plan(aim, limiter: limiter, pcm: pcm))
            start.landing = landing
            t.predictedTruePeakDBTP = landing.plan.predictedTruePeakDBTP
            if landing.plan.limiterCeilingDBTP < plan.ceilingDBTP - 1e-9, landing.plan.depthDB > 0 {
                t.limiterCeilingDBTP = landing.plan.limiterCeilingDBTP
            }
            t.gainDeltaDB = landing.plan.gainDB - trialPlan.gainDB
            apply(landing.plan, to: &start, quiet: landing.plan.depthDB == 0 && !decision.compensate, aim: aim)
        } else {
            // No analysis to bound the limiting by: the gain moved by the codec's change, the ceiling kept.
            t.predictedTruePeakDBTP = [measured.handedTruePeakDBTP, filePeak].compactMap { $0 }.filter(\.isFinite).max().map { $0 + aim.overshootDB }
            if steersLoudness {
                t.gainDeltaDB = aim.handedTargetLUFS - targetLUFS
                start.plan.gainDB += t.gainDeltaDB
                if start.compensate { start.targetLUFS = aim.handedTargetLUFS }
            }
        }
        start.trial = t
        return start
    }

    /// The first encode written at `plan`'s gain and ceiling, with no search on the written pass.
    /// A plan the limiter does nothing in (`quiet`), whose gain needed no compensation, keeps the
    /// plan's ceiling and takes the codec's change on the plan's gain.
    private func apply(_ plan: CodecLanding.Plan, to start: inout Start, quiet: Bool, aim: CodecLanding.Aim) {
        if quiet {
            if steersLoudness { start.plan.gainDB += aim.handedTargetLUFS - aim.targetLUFS }
            return
        }
        start.plan.gainDB = plan.gainDB
        start.plan.ceilingDBTP = plan.limiterCeilingDBTP
        start.plan.limiterTiming.ceilingDBTP = plan.limiterCeilingDBTP
        start.compensate = false
        start.firstPassMayLand = false
    }

    /// The last encode's settings when the first missed what it aimed at, and why (nil: it
    /// stands): planned again (CodecLanding.plan) from the codec's change and overshoot as the
    /// first encode measured them, within the same bound; without an analysis, the gain moved by
    /// the loudness missed and lowered by the peak's excess (the limiter's ceiling kept).
    package func nextEncode(_ start: Start, decision: NormalizeDecision, report: NormalizeReport, handed: CodecLanding.Levels,
                            decoded: CodecLanding.Levels, targetLUFS: Double) -> (plan: NormalizePlan, landing: CodecLanding.Plan?, reasons: [String])? {
        let ceiling = decision.plan.ceilingDBTP
        var reasons: [String] = []
        if steersLoudness, CodecLanding.isOff(decoded.integratedLUFS, targetLUFS: targetLUFS) { reasons.append("loudness") }
        if let tp = decoded.truePeakDBTP, tp.isFinite, tp > ceiling + CodecLanding.marginDB { reasons.append("peak") }
        var plan = start.plan
        if let l = start.landing {
            guard CodecLanding.missed(l.plan, decoded: decoded, aim: l.aim) else { return nil }
            let aim = CodecLanding.reaimed(l.aim, handed: handed, decoded: decoded)
            let next = CodecLanding.plan(aim, limiter: l.limiter, pcm: l.pcm)
            plan.gainDB = next.gainDB
            plan.ceilingDBTP = next.limiterCeilingDBTP
            plan.limiterTiming.ceilingDBTP = next.limiterCeilingDBTP
            if reasons.isEmpty { reasons.append("loudness") }
            return (plan, next, reasons)
        }
        guard !reasons.isEmpty else { return nil }
        plan.gainDB = report.gainDB
        if reasons.contains("loudness"), let d = decoded.integratedLUFS { plan.gainDB += targetLUFS - d }
        if let tp = decoded.truePeakDBTP, tp > ceiling + CodecLanding.marginDB, codecPeakRule == .hold || !canLimit {
            plan.gainDB = min(plan.gainDB, report.gainDB - (tp - ceiling))
        }
        return (plan, nil, reasons)
    }
}
