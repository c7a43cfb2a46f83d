import AudioSignal
import Foundation

/// Compensation for limiting and fades at about the cost of the write: one analysis pass (the
/// source decoded, faded and K-weighted, its peak envelope kept; no limiter, no encoder) gives a
/// `LimitedLoudnessModel`, the model gives the gain that lands on the target, and the written pass
/// is metered. Only when what was written missed the target by more than the tolerance is it
/// written again, at the gain the model gives once corrected by that miss.
extension NormalizePipeline {
    /// What the analysis predicted and how the written passes went.
    public struct Prediction: Equatable, Sendable {
        /// The gain the model chose, dB (the first written pass's).
        public var gainDB: Double
        /// The model's loudness at that gain, LUFS.
        public var predictedLUFS: Double?
        /// Loudness the first written pass measured, LUFS.
        public var firstWrittenLUFS: Double?
        /// Passes written (1, or 2 when the first missed).
        public var writtenPasses: Int
    }

    /// The analysis pass: the source from frame 0 through the plan's fades (no gain, no limiter)
    /// into a `LimitedLoudnessAnalyzer` weighting the channels by `weights`.
    public static func analyse(_ plan: NormalizePlan, source: AudioSource, weights: [Double],
                               decodeAhead: Bool = false) throws -> LimitedLoudnessModel {
        try source.seek(toFrame: 0)
        let format = source.format
        let channels = format.channelCount
        let total = plan.totalFrames ?? format.frameCount
        if plan.fadeOutFrames > 0 && total == nil { throw Failure.unknownLength }
        var fades = NormalizeFades(fadeInFrames: plan.fadeInFrames, fadeOutFrames: plan.fadeOutFrames,
                                   totalFrames: total ?? Int.max, curve: plan.fadeCurve)
        let analyzer = LimitedLoudnessAnalyzer(sampleRate: format.sampleRate, weights: weights, limit: plan.limit)
        let blockFrames = max(1, plan.blockFrames)
        var block = AudioBlock(channelCount: channels, capacity: blockFrames)
        func process(_ decoded: AudioBlock) throws {
            if decoded.channels.count != channels || weights.count != channels { throw Failure.channelMismatch }
            if fades.isIdentity { analyzer.add(decoded); return }
            var start = 0
            while start < decoded.frames {
                let n = min(blockFrames, decoded.frames - start)
                copy(decoded, from: start, count: n, scaledBy: 1, into: &block)
                fades.apply(to: &block)
                analyzer.add(block)
                start += n
            }
        }
        if decodeAhead && fades.isIdentity {
            // The peaks on the decoding thread, the K-weighting on this one (ReadAhead's blocks
            // have the source's channels).
            if weights.count != channels { throw Failure.channelMismatch }
            try ReadAhead.forEachBlock(source, afterRead: { analyzer.addPeaks($0) }, { analyzer.addLoudness($0) })
        } else if decodeAhead {
            try ReadAhead.forEachBlock(source) { try process($0) }
        } else {
            var decoded = AudioBlock(channelCount: channels, capacity: blockFrames)
            while try source.read(into: &decoded, maxFrames: blockFrames) > 0 { try process(decoded) }
        }
        var timing = plan.limiterTiming
        timing.ceilingDBTP = plan.ceilingDBTP
        return analyzer.finish(settings: timing)
    }

    /// The plan whose gain the analysis predicts lands on `targetLUFS` (within
    /// `maxCompensationDB` of the plan's), with the model; one pass over the source. For a
    /// written pass that runs elsewhere (an encoder fed through a pipe).
    public static func predict(_ plan: NormalizePlan, targetLUFS: Double, source: AudioSource, weights: [Double],
                               maxCompensationDB: Double = 6, decodeAhead: Bool = false) throws -> (plan: NormalizePlan, model: LimitedLoudnessModel) {
        let model = try analyse(plan, source: source, weights: weights, decodeAhead: decodeAhead)
        var predicted = plan
        predicted.gainDB = model.gain(forTarget: targetLUFS, planGainDB: plan.gainDB, maxCompensationDB: maxCompensationDB)
        return (predicted, model)
    }

    /// Normalises so the loudness lands on `targetLUFS` despite limiting and fades: the analysis
    /// pass, then the written pass at the predicted gain into an output from `makeOutput`, metered
    /// by it; when that misses by more than `toleranceLU` (and `maxWrittenPasses` allows), its sink
    /// is abandoned and the pass written again at the model's gain for the target less the miss.
    /// With `firstPassMayLand` (little to limit) the plan's own gain is written first, analysed as
    /// it is written, and kept when it lands: one pass in all, else two. The returned output's sink
    /// is neither committed nor abandoned: the caller decides.
    public static func runPredicted(_ plan: NormalizePlan, targetLUFS: Double, source: AudioSource, weights: [Double],
                                    makeOutput: () throws -> Output, toleranceLU: Double = 0.05, maxWrittenPasses: Int = 2,
                                    maxCompensationDB: Double = 6, firstPassMayLand: Bool = false,
                                    decodeAhead: Bool = false) throws -> (report: NormalizeReport, output: Output, prediction: Prediction) {
        let r = try runPredicted(plan, targetLUFS: targetLUFS, source: source, weights: weights, makeOutput: makeOutput,
                                 toleranceLU: toleranceLU, maxWrittenPasses: maxWrittenPasses, maxCompensationDB: maxCompensationDB,
                                 firstPassMayLand: firstPassMayLand, decodeAhead: decodeAhead, model: nil)
        return (r.report, r.output, r.prediction)
    }

    /// `runPredicted`, from a `model` already made of this source (no analysis pass then; its
    /// limiter settings must be the plan's), returning the model it used (nil when the first
    /// written pass landed before any was made): a later write at other settings needs no new
    /// analysis (`LimitedLoudnessModel.withLimiter`).
    public static func runPredicted(_ plan: NormalizePlan, targetLUFS: Double, source: AudioSource, weights: [Double],
                                    makeOutput: () throws -> Output, toleranceLU: Double = 0.05, maxWrittenPasses: Int = 2,
                                    maxCompensationDB: Double = 6, firstPassMayLand: Bool = false, decodeAhead: Bool = false,
                                    model given: LimitedLoudnessModel?)
        throws -> (report: NormalizeReport, output: Output, prediction: Prediction, model: LimitedLoudnessModel?) {
        var model: LimitedLoudnessModel? = given
        var current = plan
        var prediction = Prediction(gainDB: plan.gainDB, predictedLUFS: nil, firstWrittenLUFS: nil, writtenPasses: 0)
        var analysisPasses = 0
        func predictGain(_ m: LimitedLoudnessModel, missedBy miss: Double?) -> Double {
            // A measured miss at the current gain is the model's error there, taken to hold near it.
            var target = targetLUFS
            if let miss, let modelled = m.loudness(gainDB: current.gainDB) { target -= targetLUFS + miss - modelled }
            return m.gain(forTarget: target, planGainDB: plan.gainDB, maxCompensationDB: maxCompensationDB)
        }
        if !firstPassMayLand || model != nil {
            let m: LimitedLoudnessModel
            if let given = model { m = given } else {
                m = try analyse(plan, source: source, weights: weights, decodeAhead: decodeAhead)
                model = m
                analysisPasses = 1
            }
            let predicted = m.gainAndLoudness(forTarget: targetLUFS, planGainDB: plan.gainDB, maxCompensationDB: maxCompensationDB)
            current.gainDB = predicted.gainDB
            prediction.gainDB = current.gainDB
            prediction.predictedLUFS = predicted.loudness
        }
        var predictedWrites = 0, missedPrediction: Double? = nil
        while true {
            try source.seek(toFrame: 0)
            // A pass written before any prediction is analysed as it runs, in case it misses.
            let analyzer = model == nil
                ? LimitedLoudnessAnalyzer(sampleRate: source.format.sampleRate, weights: weights, limit: current.limit) : nil
            if analyzer != nil, weights.count != source.format.channelCount { throw Failure.channelMismatch }
            let output = try makeOutput()
            var report: NormalizeReport
            do {
                report = try runPass(current, source: source, sink: output.sink, decodeAhead: decodeAhead,
                                     beforeQuantise: nil, onOutputBlock: output.onOutputBlock,
                                     afterFades: analyzer.map { a in { a.add($0) } })
            } catch {
                output.sink.abandon()
                throw error
            }
            prediction.writtenPasses += 1
            if analyzer == nil { predictedWrites += 1 }
            let measured = output.integrated?()
            if prediction.writtenPasses == 1 { prediction.firstWrittenLUFS = measured }
            var next = current.gainDB
            if let measured, abs(measured - targetLUFS) > toleranceLU {
                if let analyzer {
                    var timing = current.limiterTiming
                    timing.ceilingDBTP = current.ceilingDBTP
                    let m = analyzer.finish(settings: timing, analysedGainDB: current.gainDB)
                    model = m
                    next = predictGain(m, missedBy: measured - targetLUFS)
                    prediction.gainDB = next
                    prediction.predictedLUFS = m.loudness(gainDB: next)
                } else if let m = model, predictedWrites < maxWrittenPasses {
                    next = predictGain(m, missedBy: measured - targetLUFS)
                    if next != current.gainDB { missedPrediction = measured - targetLUFS }
                }
            }
            if next == current.gainDB {
                report.passes = prediction.writtenPasses + analysisPasses
                report.compensationDB = current.gainDB - plan.gainDB
                report.measuredLUFS = measured
                report.predictionMissLU = missedPrediction
                return (report, output, prediction, model)
            }
            output.sink.abandon()
            current.gainDB = next
        }
    }
}
