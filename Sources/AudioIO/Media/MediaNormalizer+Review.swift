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
        /// Loudness per dB of gain, once two runs at different gains have shown it; the last run.
        package var slopes: [Double?]
        package var last: [(gainDB: Double, lufs: Double)?]

        package init(_ prepared: [Prepared]) {
            passes = prepared.map(\.passes)
            settled = prepared.map(\.settledGainDB)
            predictions = prepared.map(\.prediction)
            reasons = [[String]](repeating: [], count: prepared.count)
            corrections = [[(afterEncode: Int, reasons: [String])]](repeating: [], count: prepared.count)
            slopes = prepared.map(\.slope)
            last = [(gainDB: Double, lufs: Double)?](repeating: nil, count: prepared.count)
        }

        /// The results of encode number `encodes` (each stream's report and its written stream
        /// measured); `again` when a job was moved and the file must be encoded again.
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
                results.append(r)
                if let l = m.integratedLUFS {
                    if let p = last[i], let sl = CodecOvershoot.slope(from: p, to: (j.plan.gainDB, l)) { slopes[i] = sl }
                    last[i] = (j.plan.gainDB, l)
                }
                guard encodes < settings.maxEncodes, j.plan.gainDB > -60 || j.plan.limit else { continue }
                // What the encoder was fed: the limiter's ceiling at most, else the source's peak with the gain.
                let fed = min(j.plan.limit ? j.plan.ceilingDBTP - j.plan.limiterTiming.marginDB : .infinity, (j.sourceTruePeakDBTP ?? j.plan.ceilingDBTP) + j.plan.gainDB)
                guard let c = CodecOvershoot.correction(measuredLUFS: m.integratedLUFS, measuredTruePeak: m.truePeakDBTP,
                                                        preCodecPeakDBTP: fed, limiterCeilingDBTP: j.plan.ceilingDBTP,
                                                        targetLUFS: j.targetLUFS, ceilingDBTP: settings.ceilingDBTP,
                                                        lossy: j.encoding.isLossy, checkLoudness: settings.steersLoudness) else { continue }
                var why: [String] = []
                if c.gainDeltaDB != 0 { why.append("loudness") }
                if c.limiterCeilingDBTP != j.plan.ceilingDBTP { why.append("peak") }
                reasons[i] += why
                corrections[i].append((encodes, why))
                // The gain moved by the step, the codec's share kept within the compensation allowed.
                let g = j.plan.gainDB + CodecOvershoot.gainStep(c.gainDeltaDB, slope: slopes[i])
                var gain = min(settled[i] + settings.maxCompensationDB, max(settled[i] - settings.maxCompensationDB, g))
                if !settings.steersLoudness, c.limiterCeilingDBTP < j.plan.ceilingDBTP, !j.plan.limit {
                    // Under --peak reduce the overshoot comes off the gain.
                    gain -= j.plan.ceilingDBTP - c.limiterCeilingDBTP
                }
                apply(&jobs[i], gainDB: gain, limiterCeilingDBTP: c.limiterCeilingDBTP, settings: settings)
                again = true
            }
            return (results, again)
        }
    }
}
