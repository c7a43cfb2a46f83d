import AudioIO
import Foundation
import JSONValue

/// vo-align's `alignment` object: where the take was placed, how sure the bleed made it, and
/// (from AlignedTakeWriter's facts) what was written.
package enum AlignmentRecord {
    /// The placement's fields; `notes` gets what the numbers alone don't say.
    package static func fields(_ p: VoAlignPlacement, given: VoAlignGiven, rate: Int, reference: String?,
                       notes: inout [String]) -> [String: JSON] {
        var o = measurementFields(p, rate: rate, notes: &notes)
        if let l = p.latency, Int(l.rounded()) < 0 {
            notes.append("The latency is negative: the take is early against the reference. Check the start, or whether the reference has material before the take's.")
        }
        let delayFrames = Int(p.delay.rounded())
        o["latency"] = p.latency.map { frames(Int($0.rounded()), rate) } ?? .null
        o["latency_ms"] = .optional(p.latency.map { $0 / Double(rate) * 1000 }, decimals: 3)
        o["start"] = p.start.map { frames($0, rate) } ?? .null
        o["start_seconds"] = .optional(p.start.map { Double($0) / Double(rate) }, decimals: 6)
        o["delay"] = frames(delayFrames, rate)
        o["delay_ms"] = .double(Double(delayFrames) / Double(rate) * 1000, decimals: 3)
        var origin: [String: JSON] = ["start": .string(p.startOrigin), "latency": p.latencyOrigin.map { .string($0) } ?? .null]
        origin["claim"] = given.claimOrigin.map { .string($0) } ?? .null
        o["origin"] = .object(origin)
        o["claimed_latency_ms"] = .optional(given.claimMS, decimals: 3)
        o["claim_checked"] = p.claimChecked.map { .bool($0) } ?? .null
        o["segments"] = .array(p.segments.map { s in
            let l = p.start.map { s.delay + Double($0) }
            return .object([
                "from": frames(s.from, rate), "from_seconds": .double(Double(s.from) / Double(rate), decimals: 6),
                "latency": l.map { frames(Int($0.rounded()), rate) } ?? .null,
                "latency_ms": .optional(l.map { $0 / Double(rate) * 1000 }, decimals: 3),
                "delay": frames(Int(s.delay.rounded()), rate),
                "delay_ms": .double(Double(Int(s.delay.rounded())) / Double(rate) * 1000, decimals: 3),
                "confidence": .optional(s.confidence, decimals: 3), "windows": s.windows.map { .int($0) } ?? .null,
            ])
        })
        o["reference"] = reference.map { .string($0) } ?? .null
        return o
    }

    /// The measured values of the record (null for a known latency) and their notes.
    package static func measurementFields(_ p: VoAlignPlacement, rate: Int, notes: inout [String]) -> [String: JSON] {
        var o: [String: JSON] = ["method": .string(p.method)]
        guard let a = p.measured else {
            for k in ["confidence", "drift_ppm", "drift_uncertainty_ppm", "bleed_db", "windows_agreeing", "windows_with_backing", "windows_analysed", "latency_samples_exact"] {
                o[k] = .null
            }
            return o
        }
        o["confidence"] = .double(a.confidence, decimals: 3)
        o["drift_ppm"] = .optional(a.driftPPM, decimals: 2)
        o["drift_uncertainty_ppm"] = .optional(a.driftUncertaintyPPM, decimals: 2)
        o["bleed_db"] = .double(a.bleedDB, decimals: 2)
        o["latency_samples_exact"] = .optional(p.latency, decimals: 3)
        o["windows_agreeing"] = .int(a.agreeing)
        o["windows_with_backing"] = .int(a.withBacking)
        o["windows_analysed"] = .int(a.windows.count)
        if a.driftPPM == nil {
            notes.append("Drift is unknown: fewer than two windows of the take agree (the take is short or the bleed is faint in places).")
        }
        if a.polarity < 0 { notes.append("The backing appears inverted (opposite polarity) in the take.") }
        if p.segments.count > 1 {
            notes.append("The latency changes along the take: \(p.segments.count) stretches (see segments), measured in \(a.windows.count) short windows.")
        }
        if a.agreeing < a.windows.count {
            notes.append("\(a.windows.count - a.agreeing) of \(a.windows.count) windows showed no clear bleed or disagreed, and were left out.")
        }
        return o
    }

    package static func frames(_ n: Int, _ rate: Int) -> JSON { .object(["frames": .int(n), "rate": .int(rate)]) }

    /// A number for a message: whole numbers without decimals, others with up to `decimals`.
    package static func number(_ v: Double, _ decimals: Int = 3) -> String {
        if v == v.rounded() { return String(Int(v)) }
        var s = String(format: "%.\(decimals)f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// What was written for the take: output, joints, drift_corrected and mix.
    package static func outputFields(_ w: AlignedTakeWriter.Written, rate: Int, into o: inout [String: JSON]) {
        o["drift_corrected"] = .bool(w.driftCorrected)
        o["output"] = w.output.map { .string($0) } ?? .null
        o["joints"] = .array(w.joints.map { j in
            .object([
                "at": frames(j.at, rate), "at_seconds": .double(Double(j.at) / Double(rate), decimals: 6),
                "crossfade_ms": .double(AlignedTakeWriter.crossfadeMS), "repeated_frames": .int(max(j.change, 0)),
                "dropped_frames": .int(max(-j.change, 0)),
            ])
        })
        o["mix"] = w.mix.map { .string($0) } ?? .null
    }
}

extension VoAlignGiven {
    /// How a claimed latency is named in messages.
    package static func claimSource(fromRecord: Bool) -> String { fromRecord ? "latency_ms in its record" : "--latency-ms" }
}

extension PlacementNote {
    /// The note as the record's `alignment.notes` carries it.
    package var sentence: String {
        func n(_ v: Double, _ decimals: Int = 3) -> String { AlignmentRecord.number(v, decimals) }
        switch self {
        case .claimRounded(let ms, let rate):
            return "The claimed latency \(n(ms)) ms was rounded to the nearest frame at \(rate) Hz."
        case .latencyGiven(let fromRecord):
            return "The latency was given (\(VoAlignGiven.claimSource(fromRecord: fromRecord))), not measured: confidence, drift and bleed are not known."
        case .claimUnchecked(let fromRecord, .noBleed):
            return "The claimed latency (\(VoAlignGiven.claimSource(fromRecord: fromRecord))) could not be checked: the take holds no trace of the reference. It was used as given."
        case .claimUnchecked(let fromRecord, .noSingleOffset):
            return "The claimed latency (\(VoAlignGiven.claimSource(fromRecord: fromRecord))) could not be checked: no single offset stands out in the bleed. It was used as given."
        case .claimUnchecked(let fromRecord, .belowConfidence(let confidence, let required)):
            return "The claimed latency (\(VoAlignGiven.claimSource(fromRecord: fromRecord))) could not be checked: the bleed's confidence \(n(confidence, 2)) is below \(n(required, 2)). It was used as given."
        case .startFoundFromClaim(let fromRecord):
            return "With the start found (--start-at auto), only the delay is measured, not the latency and the start apart: the start was worked out from the claimed latency (\(VoAlignGiven.claimSource(fromRecord: fromRecord))), which could not be checked."
        case .startFoundWithoutClaim:
            return "The start was found (--start-at auto): the delay says where the take goes; the latency and the start can't be told apart without a claimed latency (--latency-ms or latency_ms in the record), so both are null."
        }
    }
}
