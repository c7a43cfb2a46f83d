import AudioSignal
import Foundation

/// One media stream's landing on the one model the lossy audio files use (CodecLanding.plan):
/// the codec's change and overshoot (from the trial, then from the first encode when it missed)
/// aimed at, the limiter over the stream as its analysis sees it, and the PCM output's plan of
/// the same job, whose limiting bounds the encode's. Each encode is planned from these, so a
/// correction can't feed the next.
package struct MediaLanding {
    package var aim: CodecLanding.Aim
    package let limiter: CodecLanding.Limiter
    package let pcm: (gainDB: Double, limiterCeilingDBTP: Double)
    /// The plan of the last encode.
    package var plan: CodecLanding.Plan

    /// The limiter over a stream: its analysis pass's model when it had one, else the stream as
    /// measured (`sourceLUFS`, `sourceTruePeakDBTP`), loudness following the gain dB for dB while
    /// the limiter has nothing to do (nil when neither is known).
    package static func limiter(model: LimitedLoudnessModel?, plan: NormalizePlan, sourceLUFS: Double?, sourceTruePeakDBTP: Double?,
                                plannedGainDB: Double, maxCompensationDB: Double) -> CodecLanding.Limiter? {
        var timing = plan.limiterTiming
        timing.ceilingDBTP = plan.ceilingDBTP
        if let model, let l = model.landingLimiter(timing, planGainDB: plannedGainDB, maxCompensationDB: maxCompensationDB) { return l }
        guard let lufs = sourceLUFS, lufs.isFinite, let peak = sourceTruePeakDBTP, peak.isFinite else { return nil }
        return linear(lufs: lufs, peakDBTP: peak, marginDB: timing.marginDB)
    }

    /// A stream the limiter leaves alone as far as anything shows: its loudness is the source's plus
    /// the gain (nil once the limiter would work, which nothing here can model).
    package static func linear(lufs: Double, peakDBTP: Double, marginDB: Double) -> CodecLanding.Limiter {
        CodecLanding.Limiter(peakDBTP: peakDBTP, marginDB: marginDB,
                             loudness: { g, c in peakDBTP + g <= c - marginDB + 1e-9 ? lufs + g : nil },
                             gain: { t, _ in t - lufs })
    }

    /// A job moved to `plan`: its gain and, once the limiter works at it, the limiter's ceiling. A
    /// plan the limiter does nothing in, on a stream whose gain needed no compensation, keeps the
    /// job's ceiling and moves its gain by the codec's loudness change only. Under `--peak reduce`
    /// (the loudness not steered, no limiter) the codec's overshoot comes off the gain.
    package static func apply(_ plan: CodecLanding.Plan, aim: CodecLanding.Aim, limiter: CodecLanding.Limiter,
                              to j: inout MediaNormalizer.Job, pcmGainDB: Double, settings: MediaNormalizer.Settings) {
        if !settings.steersLoudness {
            guard !j.plan.limit else { return }
            j.plan.gainDB = min(pcmGainDB, settings.ceilingDBTP - aim.overshootDB - limiter.peakDBTP)
            return
        }
        if plan.depthDB <= 0, !j.compensate {
            j.plan.gainDB = pcmGainDB + aim.handedTargetLUFS - aim.targetLUFS
            return
        }
        j.plan.limit = true
        j.plan.gainDB = plan.gainDB
        j.plan.ceilingDBTP = plan.limiterCeilingDBTP
        j.plan.limiterTiming.ceilingDBTP = plan.limiterCeilingDBTP
    }

    /// What an encode at the job's settings handed to the encoder, as the model sees it.
    package func handed(_ j: MediaNormalizer.Job) -> CodecLanding.Levels {
        let gained = limiter.peakDBTP + j.plan.gainDB
        let peak = j.plan.limit ? min(j.plan.ceilingDBTP - limiter.marginDB, gained) : gained
        return CodecLanding.Levels(integratedLUFS: limiter.loudness(j.plan.gainDB, j.plan.limit ? j.plan.ceilingDBTP : .infinity),
                                   truePeakDBTP: peak)
    }

    /// The record's `landing`: the rule, which limit gave way, the limiter's deepest reduction as
    /// written beyond the PCM output's, and the decoded true peak over the ceiling.
    package func outcome(decoded: LoudnessMeasurement, depthDB: Double) -> CodecLanding.Outcome {
        CodecLanding.outcome(rule: aim.rule, decoded: .init(integratedLUFS: decoded.integratedLUFS, truePeakDBTP: decoded.truePeakDBTP),
                             targetLUFS: aim.targetLUFS, ceilingDBTP: aim.ceilingDBTP, steersLoudness: aim.steersLoudness,
                             depthDB: depthDB, pcmDepthDB: limiter.depth(gainDB: pcm.gainDB, limiterCeilingDBTP: pcm.limiterCeilingDBTP))
    }
}
