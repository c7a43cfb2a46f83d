import AudioSignal
import Foundation
import JSONValue

/// The words and the `codec_check` object of a lossy output checked after its codec
/// (CodecLanding): what the file decodes to, what the encoder was handed, why it was encoded
/// again, and why it still misses when it does.
package enum CodecLandingNotes {
    package static func f(_ x: Double) -> String { String(format: "%.2f", x) }
    package static func lufs(_ x: Double?) -> String { x.map { "\(f($0)) LUFS" } ?? "no measurable loudness" }
    package static func dbtp(_ x: Double?) -> String { x.map { "\(f($0)) dBTP" } ?? "no measurable true peak" }

    /// Target minus the decoded loudness, when the loudness was steered and the file is still
    /// more than the tolerance off.
    package static func shortfall(_ l: CodecLandingReport, targetLUFS: Double) -> Double? {
        guard l.steersLoudness, let d = l.decoded.integratedLUFS, CodecLanding.isOff(d, targetLUFS: targetLUFS) else { return nil }
        return targetLUFS - d
    }

    package static func notes(_ l: CodecLandingReport, codec: String, targetLUFS: Double, ceilingDBTP: Double,
                      compensationDB: Double, maxCompensationDB: Double) -> [String] {
        var notes = ["The loudness and true peak are of the written file decoded again, after the \(codec) encoder (as lufs-measure reads it); the samples handed to the encoder measured \(lufs(l.handed.integratedLUFS)), \(dbtp(l.handed.truePeakDBTP))."]
        if let t = l.trial { notes.append(trialNote(t, codec: codec, missed: !l.earlier.isEmpty)) }
        if let before = l.earlier.first {
            var why: [String] = []
            if l.reencodedFor.contains("loudness"), let d = before.integratedLUFS { why.append("\(f(abs(d - targetLUFS))) LU \(d < targetLUFS ? "under" : "over") the target") }
            if l.reencodedFor.contains("peak") { why.append("its true peak over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling") }
            if why.isEmpty { why.append("off what it was planned to give") }
            let with = l.replans.first.map { "the gain at \(f($0.gainDB)) dB and the limiter's ceiling at \(f($0.limiterCeilingDBTP)) dBTP, planned again from what the codec did to the first and within the same bound on the limiting" }
                ?? "the gain moved by what the codec did to the first"
            notes.append("The first encode decoded to \(lufs(before.integratedLUFS)), \(dbtp(before.truePeakDBTP)): \(why.joined(separator: " and ")); so the file was encoded again (the last time) with \(with) (\(l.encodes) encodes in all).")
        }
        if let o = l.outcome { notes += outcomeNotes(o, codec: codec, targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP) }
        if let s = shortfall(l, targetLUFS: targetLUFS) {
            let reason = abs(compensationDB) >= maxCompensationDB - 0.005
                ? "reaching it would take more than \(Int(maxCompensationDB)) dB of limiting, which would squash the programme rather than touch its peaks. Use --peak reduce, a lower --target, or compress the programme first."
                : l.outcome?.gaveWay == .loudness && l.outcome?.rule == .hold
                    ? "with --codec-peak hold the decoded true peak stays under the ceiling, and reaching the target would limit more than \(f(CodecLanding.extraLimitingBudgetDB)) dB deeper than a PCM output needs, so the gain came down instead. Use --codec-peak allow to keep the loudness (the decoded peak then passes the ceiling), a lower --target, or a lossless format."
                    : "the \(codec) encoder changed the loudness by a different amount at the corrected level, and the file is encoded at most \(CodecLanding.maxEncodes) times. A higher bit rate changes the loudness less."
            notes.append("The written file is \(f(abs(s))) LU \(s > 0 ? "under" : "over") the \(LoudnessGate.compact(targetLUFS)) LUFS target after the codec: \(reason)")
        }
        if CodecLanding.isOver(l.decoded.truePeakDBTP, ceilingDBTP: ceilingDBTP), l.outcome?.gaveWay != .ceiling {
            notes.append("The written file's true peak is \(dbtp(l.decoded.truePeakDBTP)) after the codec, over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling: the \(codec) encoder overshoots what it is handed by \(f(CodecLanding.peakOvershoot(handed: l.handed, decoded: l.decoded) ?? 0)) dB. Leave more headroom (a lower --true-peak), or use a higher bit rate or a lossless format.")
        }
        return notes
    }

    package static func trialNote(_ t: CodecLanding.Trial, codec: String, missed: Bool) -> String {
        var moved: [String] = []
        if let c = t.limiterCeilingDBTP { moved.append("the limiter's ceiling lowered to \(f(c)) dBTP") }
        if let h = t.handedTargetLUFS, abs(t.gainDeltaDB) >= 0.005 || t.limiterCeilingDBTP != nil { moved.append("the loudness handed to the encoder set to \(f(h)) LUFS") }
        let change = t.loudnessChangeLU.map { "changed the loudness by \(f($0)) LU" } ?? "changed no measurable loudness"
        let first = moved.isEmpty ? "the first encode needed no change" : "the first encode was made with \(moved.joined(separator: " and "))"
        let outcome = missed ? "; the prediction missed, so the check after the codec encoded the file again" : ""
        let stretches = t.handed.count == 1 ? "1 stretch" : "\(t.handed.count) stretches"
        let chosen = t.stretchesChosen ? " (where its peaks come nearest the ceiling, and one of typical loudness)" : ""
        let predicted = t.predictedTruePeakDBTP.map { "; the written file's true peak was predicted at \(f($0)) dBTP at the planned limiter" } ?? ""
        return "Before the first encode, \(f(t.seconds)) s of the file in \(stretches)\(chosen) went through the \(codec) encoder and back: it \(change) and overshot the true peak by \(f(t.peakOvershootDB)) dB\(predicted); \(first)\(outcome)."
    }

    package static func trialJSON(_ t: CodecLanding.Trial) -> JSON {
        .object([
            "trial_seconds": .double(t.seconds, decimals: 2),
            "stretches": .int(t.handed.count),
            "loudness_change_lu": .optional(t.loudnessChangeLU, decimals: 2),
            "peak_overshoot_db": .double(t.peakOvershootDB, decimals: 2),
            "handed_true_peak_dbtp": .optional(t.handedTruePeakDBTP, decimals: 2),
            "handed_target_lufs": .optional(t.handedTargetLUFS, decimals: 2),
            "gain_delta_db": .double(t.gainDeltaDB, decimals: 2),
            "limiter_ceiling_dbtp": .optional(t.limiterCeilingDBTP, decimals: 2),
            "stretches_chosen": .bool(t.stretchesChosen),
            "file_true_peak_dbtp": .optional(t.fileTruePeakDBTP, decimals: 2),
            "predicted_true_peak_dbtp": .optional(t.predictedTruePeakDBTP, decimals: 2),
        ])
    }

    /// What the rule did, when a limit gave way, and an extra limiting that couldn't be told.
    package static func outcomeNotes(_ o: CodecLanding.Outcome, codec: String, targetLUFS: Double, ceilingDBTP: Double) -> [String] {
        var notes: [String] = []
        if o.gaveWay == .ceiling, let over = o.overCeilingDB {
            notes.append("With --codec-peak allow the loudness stays on target and the samples handed to the \(codec) encoder stay under the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling, with the limiting at most \(f(CodecLanding.extraLimitingBudgetDB)) dB deeper than a PCM output needs; the written file's true peak decodes \(f(over)) dB over the ceiling. Use --codec-peak hold to keep it under (the loudness then gives way), or a lossless format.")
        }
        if o.extraLimitingDB == nil {
            notes.append("How much deeper the limiter reduced than a PCM output would is unknown (landing.extra_limiting_db is null): no analysis of the limiter was made for this file.")
        }
        return notes
    }

    /// `normalized.landing`: the rule, which limit gave way, the extra limiting and the decoded overshoot.
    package static func landingJSON(_ o: CodecLanding.Outcome) -> JSON {
        .object([
            "rule": .string(o.rule.rawValue),
            "gave_way": o.gaveWay.map { .string($0.rawValue) } ?? .null,
            "extra_limiting_db": .optional(o.extraLimitingDB, decimals: 2),
            "over_ceiling_db": .optional(o.overCeilingDB, decimals: 2),
        ])
    }

    package static func json(_ l: CodecLandingReport) -> JSON {
        let reasons: [JSON] = l.reencodedFor.map { .string($0) }
        let last = l.replans.last
        return .object([
            "handed_integrated_lufs": .optional(l.handed.integratedLUFS, decimals: 2),
            "handed_true_peak_dbtp": .optional(l.handed.truePeakDBTP, decimals: 2),
            "loudness_change_lu": .optional(CodecLanding.loudnessChange(handed: l.handed, decoded: l.decoded), decimals: 2),
            "peak_overshoot_db": .optional(CodecLanding.peakOvershoot(handed: l.handed, decoded: l.decoded), decimals: 2),
            "first_integrated_lufs": .optional(l.earlier.first?.integratedLUFS, decimals: 2),
            "first_true_peak_dbtp": .optional(l.earlier.first?.truePeakDBTP, decimals: 2),
            "reencoded_for": .array(reasons),
            "limiter_ceiling_dbtp": .optional(last?.limiterCeilingDBTP, decimals: 2),
        ])
    }
}
