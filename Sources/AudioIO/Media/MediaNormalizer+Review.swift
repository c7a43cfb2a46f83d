import AudioSignal
import Foundation

extension MediaNormalizer {
    /// What the encodes of one file have shown so far, stream by stream, and the check after each
    /// encode: the streams' results, and whether the codec pushed one off its target or over the
    /// ceiling (then the jobs are moved for another encode).
    package struct Rounds {
        package let passes: [Int]
        package let settled: [Double]
        package let predictions: [CodecOvershoot.Prediction?]
        package var reasons: [[String]]
        package var corrections: [[(afterEncode: Int, reasons: [String])]]
        /// Each stream's landing (nil: nothing models its limiter, so no further encode is planned).
        package var landings: [MediaLanding?]

        package init(_ prepared: [Prepared]) {
            passes = prepared.map(\.passes)
            settled = prepared.map(\.settledGainDB)
            predictions = prepared.map(\.prediction)
            reasons = [[String]](repeating: [], count: prepared.count)
            corrections = [[(afterEncode: Int, reasons: [String])]](repeating: [], count: prepared.count)
            landings = prepared.map(\.landing)
        }

        /// The results of encode number `encodes` (each stream's report and its written stream
        /// measured); `again` when a stream missed what its landing planned and the file is encoded
        /// once more (at most `settings.maxEncodes` in all), planned again from what the codec did
        /// to this encode within the same bound on the limiting (CodecLanding.plan).
        package mutating func review(_ jobs: inout [Job], reports: [NormalizeReport], measured: [LoudnessMeasurement], encodes: Int,
                             settings: Settings) -> (results: [StreamResult], again: Bool) {
            var results: [StreamResult] = []
            var again = false
            for (i, j) in jobs.enumerated() {
                let m = measured[i]
                var r = StreamResult(ordinal: j.ordinal, report: reports[i], measured: m,
                                     ceilingLoweredDB: max(0, settings.ceilingDBTP - j.plan.ceilingDBTP),
                                     passes: passes[i] + encodes)
                r.plannedGainDB = j.plannedGainDB
                r.compensationDB = j.plan.gainDB - j.plannedGainDB
                r.codecCompensationDB = j.plan.gainDB - settled[i]
                r.prediction = predictions[i]
                r.reencodedFor = reasons[i]
                r.corrections = corrections[i]
                r.landing = landings[i]?.outcome(decoded: m, depthDB: reports[i].maxReductionDB)
                results.append(r)
                guard encodes < settings.maxEncodes, var l = landings[i] else { continue }
                let decoded = CodecLanding.Levels(integratedLUFS: m.integratedLUFS, truePeakDBTP: m.truePeakDBTP)
                guard CodecLanding.missed(l.plan, decoded: decoded, aim: l.aim) else { continue }
                var why: [String] = []
                if settings.steersLoudness, CodecLanding.isOff(m.integratedLUFS, targetLUFS: j.targetLUFS) { why.append("loudness") }
                if let tp = m.truePeakDBTP, tp.isFinite, tp > settings.ceilingDBTP + CodecLanding.marginDB { why.append("peak") }
                if why.isEmpty { why.append("loudness") }
                reasons[i] += why
                corrections[i].append((encodes, why))
                l.aim = CodecLanding.reaimed(l.aim, handed: l.handed(j), decoded: decoded)
                l.plan = CodecLanding.plan(l.aim, limiter: l.limiter, pcm: l.pcm)
                var moved = j
                moved.plan.gainDB = l.pcm.gainDB
                moved.plan.ceilingDBTP = l.pcm.limiterCeilingDBTP
                moved.plan.limiterTiming.ceilingDBTP = l.pcm.limiterCeilingDBTP
                MediaLanding.apply(l.plan, aim: l.aim, limiter: l.limiter, to: &moved, pcmGainDB: l.pcm.gainDB, settings: settings)
                landings[i] = l
                jobs[i] = moved
                again = true
            }
            return (results, again)
        }
    }
}
