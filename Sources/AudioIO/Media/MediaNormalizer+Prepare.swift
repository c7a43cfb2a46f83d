import AudioSignal
import Foundation

extension MediaNormalizer {
    /// One stream made ready for the encode: its plan after the analysis pass and the codec trial.
    package struct Prepared {
        package var job: Job
        package var passes: Int
        /// The gain after the analysis pass, before the codec's share.
        package var settledGainDB: Double
        package var prediction: CodecOvershoot.Prediction?
        /// Loudness per dB of gain, when the second trial showed it.
        package var slope: Double?
        /// The stream's landing (CodecLanding.plan), nil when nothing models its limiter.
        package var landing: MediaLanding? = nil
        /// The whole stream as the analysis pass decoded it, when it was short enough to keep
        /// (StreamCapture): its encodes read it from memory instead of decoding it again.
        package var whole: (sampleRate: Int, channels: [[Float]])? = nil

        /// The source an encode of this stream reads: the kept stream, else a decoder.
        package func source(input: String, opened: MediaDecoderHandOff?) throws -> AudioSource {
            if let w = whole { return MemoryAudioSource(sampleRate: w.sampleRate, channels: w.channels) }
            return try opened.decoder(path: input, ordinal: job.ordinal)
        }
    }

    /// The analysis pass (predicting the compensation before the encoder starts, so it never
    /// waits on a pipe) and, for a lossy stream, a trial encode of a few seconds telling what the
    /// codec does to loudness and peaks, so the one encode lands on target and under the
    /// ceiling. The trial's stretches are kept from the analysis pass, so it decodes nothing again.
    package static func prepare(_ job: Job, input: String, probe: MediaProbe, settings: Settings, opened: MediaDecoderHandOff?) throws -> Prepared {
        var j = job
        var passes = 0
        let trials = j.encoding.isLossy && settings.predictsCodec
        var captured: [[[Float]]]? = nil
        // Where the trial takes its stretches: at fixed places until the analysis pass shows
        // where the processed peaks come nearest the limiter's threshold (TrialStretches.choose).
        var stretches = CodecOvershoot.stretches(durationSeconds: probe.durationSeconds, sampleRate: j.encoding.sampleRate)
        // A limited lossy stream always gets a trial: its two ffmpegs start now and wait on their
        // pipes while the analysis pass runs (ended with it if it fails).
        var children = j.compensate && trials ? try CodecTrial.Children(input: input, encoding: j.encoding) : nil
        var whole: (sampleRate: Int, channels: [[Float]])? = nil
        var model: LimitedLoudnessModel? = nil
        if j.compensate {
            let decoded = try opened.decoder(path: input, ordinal: j.ordinal)
            let rate = decoded.format.sampleRate
            let expected = probe.durationSeconds.map { Int($0 * Double(rate)) }
            let source = StreamCapture(decoded, expectedFrames: expected)
            // A stream too long to be kept whole keeps the fixed stretches as it is decoded, in case
            // the analysis can't place them.
            let kept = expected.map { $0 * decoded.format.channelCount <= StreamCapture.limit } ?? false
            let windows = trials && !kept ? TrialWindows(source, stretches: stretches) : nil
            let predicted = try NormalizePipeline.predict(j.plan, targetLUFS: j.targetLUFS, source: windows ?? source, weights: j.weights,
                                                          maxCompensationDB: settings.maxCompensationDB)
            j.plan = predicted.plan
            model = predicted.model
            captured = windows?.captured
            whole = source.whole.map { (rate, $0) }
            passes = 1
            if trials, rate == j.encoding.sampleRate,
               let placed = placedStretches(predicted.model, plan: j.plan, frames: whole?.channels.first?.count ?? expected) {
                // Placed where the peaks are, on the codec's frame grid: cut from the kept stream,
                // else decoded again stretch by stretch.
                stretches = placed.map { (Double($0.start) / Double(rate), Double($0.count) / Double(rate), Double($0.lead) / Double(rate)) }
                captured = whole.map { w in placed.map { s in w.channels.map { Array($0[min($0.count, s.start) ..< min($0.count, s.start + s.count)]) } } }
            } else if let w = whole, trials {
                captured = cut(w.channels, stretches, rate: rate)
            }
        }
        // The encode's decoder of this stream starts now, while the trial runs (a stream without
        // an analysis pass takes the one opening the input started, or starts it here); none for
        // a stream kept whole in memory.
        let ready = DispatchGroup()
        if let opened, whole == nil {
            ready.enter()
            let path = input, ordinal = j.ordinal
            let thread = Thread { opened.prestart(path: path, ordinal: ordinal); ready.leave() }
            thread.stackSize = 1 << 20
            thread.start()
        }
        defer { ready.wait() }
        let settled = j.plan.gainDB
        var result = Prepared(job: j, passes: passes, settledGainDB: settled, prediction: nil, slope: nil, whole: whole)
        // The PCM output's plan of the same job: the limiter's depth there bounds the landing's.
        let pcm = (gainDB: j.plan.gainDB, limiterCeilingDBTP: j.plan.ceilingDBTP)
        let limiter = MediaLanding.limiter(model: model, plan: j.plan, sourceLUFS: j.sourceLUFS, sourceTruePeakDBTP: j.sourceTruePeakDBTP,
                                           plannedGainDB: j.plannedGainDB, maxCompensationDB: settings.maxCompensationDB)
        var aim = CodecLanding.Aim(targetLUFS: j.targetLUFS, ceilingDBTP: settings.ceilingDBTP, rule: settings.rule, overshootDB: 0,
                                   steersLoudness: settings.steersLoudness)
        result.landing = limiter.map { MediaLanding(aim: aim, limiter: $0, pcm: pcm, plan: CodecLanding.plan(aim, limiter: $0, pcm: pcm)) }
        guard trials else { return result }
        let fed = j.sourceTruePeakDBTP.map { min(j.plan.limit ? j.plan.ceilingDBTP - j.plan.limiterTiming.marginDB : .infinity, $0 + j.plan.gainDB) }
        guard CodecOvershoot.needsTrial(fedPeakDBTP: fed, ceilingDBTP: settings.ceilingDBTP, limited: j.compensate,
                                        bitRatePerChannel: j.encoding.bitRate.map { $0 / max(1, j.encoding.channels) }) else { return result }
        // The trial at the PCM output's plan: what the codec does to it is the codec's change and
        // overshoot the one landing plan (CodecLanding.plan) makes room for.
        let t = try CodecTrial.run(input: input, ordinal: j.ordinal, plan: j.plan, encoding: j.encoding, weights: j.weights,
                                   stretches: stretches, captured: captured, children: children)
        children = nil
        var p = t.prediction
        if !settings.steersLoudness { p.loudnessChangeLU = 0 }
        aim.loudnessChangeLU = p.loudnessChangeLU
        aim.overshootDB = CodecLanding.predictedOvershoot(p.peakOvershootDB, trialSeconds: p.seconds, streamSeconds: probe.durationSeconds)
        if let limiter {
            let planned = CodecLanding.plan(aim, limiter: limiter, pcm: pcm)
            result.landing = MediaLanding(aim: aim, limiter: limiter, pcm: pcm, plan: planned)
            MediaLanding.apply(planned, aim: aim, limiter: limiter, to: &j, pcmGainDB: pcm.gainDB, settings: settings)
        }
        result.job = j
        result.prediction = p
        return result
    }

    /// The trial's stretches of a stream of `frames` (nil: unknown) placed from the analysis pass's
    /// `model` (where the processed peaks come nearest the limiter's threshold, and a stretch of
    /// typical loudness), on the codecs' frame grid, in frames; nil when the analysis can't place
    /// them (a short stream is tried whole, as at the fixed places).
    package static func placedStretches(_ model: LimitedLoudnessModel, plan: NormalizePlan, frames: Int?) -> [(start: Int, count: Int, lead: Int)]? {
        guard let frames, frames > 0, Double(frames) > TrialStretches.wholeUpToSeconds * Double(model.sampleRate),
              let envelope = model.envelope(gainDB: plan.gainDB) else { return nil }
        let threshold = plan.limit ? 20 * log10(Double(model.threshold)) : nil
        guard TrialStretches.chosen(envelope, thresholdDB: threshold) != nil else { return nil }
        return CodecLanding.trialStretches(totalFrames: frames, sampleRate: model.sampleRate, envelope: envelope, thresholdDB: threshold)
    }

    /// The stretches (seconds, as a windowed decode takes them) cut from a stream kept whole.
    package static func cut(_ channels: [[Float]], _ stretches: [(start: Double, length: Double, lead: Double)], rate: Int) -> [[[Float]]] {
        func frames(_ s: Double) -> Int { Int(((s * 1000).rounded() / 1000 * Double(rate)).rounded()) }
        return stretches.map { s in
            channels.map { c in
                let a = min(c.count, frames(s.start)), b = min(c.count, a + frames(s.length))
                return Array(c[a ..< b])
            }
        }
    }

    /// A stream of the written file (`audioStream` among its audio streams) decoded again and measured.
    package static func measureWritten(_ path: String, audioStream: Int, _ j: Job) throws -> LoudnessMeasurement {
        let decoded = try FFmpegSource(path: path, audioStream: audioStream)
        let meter = LoudnessMeter(sampleRate: decoded.format.sampleRate,
                                  weights: decoded.format.channelCount == j.weights.count ? j.weights
                                      : ChannelLayout.standard(channelCount: decoded.format.channelCount).weights)
        try Decoder.forEachBlock(decoded) { meter.add($0) }
        return meter.finish()
    }

    /// `body` for 0..<n, each on a thread of its own when there are several; the results in order,
    /// or the first index's error. Every thread ends before this returns.
    package static func inParallel<T>(_ n: Int, _ body: @escaping (Int) throws -> T) throws -> [T] {
        if n == 1 { return [try body(0)] }
        let box = ParallelResults<T>(n)
        let group = DispatchGroup()
        nonisolated(unsafe) let work = body
        for i in 0..<n {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let r = Result { try work(i) }
                box.lock.lock(); box.results[i] = r; box.lock.unlock()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        return try box.results.map { try $0!.get() }
    }
}

/// What the threads of MediaNormalizer.inParallel hand back, under a lock.
package final class ParallelResults<T>: @unchecked Sendable {
    package let lock = NSLock()
    package var results: [Result<T, Error>?]
    package init(_ n: Int) { results = Array(repeating: nil, count: n) }
}
