import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// lufs-normalize's `normalized` object for a media file written back in its own container: the
/// first (or `--stream`) audio stream's values at the top, each stream's under `streams` when
/// there are several, and notes on what the encoder did.
package enum MediaNormalizedRecord {
    /// How close to the target a lossless stream must land, LU (a lossy one: CodecLanding.toleranceLU).
    package static let losslessToleranceLU = 0.1

    /// Why a stream sent the file to further encodes: one clause per check that did, in order
    /// ("after the first encode the decoded true peak was over the ceiling, …"); nil when none did.
    package static func reencodeNote(who: String, codec: String, predicted: Bool, corrections: [(afterEncode: Int, reasons: [String])]) -> String? {
        guard !corrections.isEmpty else { return nil }
        let ordinals = ["first", "second", "third", "fourth", "fifth"]
        let clauses = corrections.map { c -> String in
            let why = c.reasons.contains("peak") && c.reasons.contains("loudness") ? "the decoded true peak was over the ceiling and the loudness off the target"
                : c.reasons.contains("peak") ? "the decoded true peak was over the ceiling" : "the decoded loudness was off the target"
            return "after the \(ordinals[min(max(c.afterEncode, 1), ordinals.count) - 1]) encode \(why)"
        }
        let each = corrections.count == 1 ? "so the gain and the limiter's ceiling were corrected and the file encoded again"
            : "so each time the gain and the limiter's ceiling were corrected and the file encoded again (\(corrections.count) times)"
        return "\(who): \(predicted ? "the prediction missed: " : "")\(clauses.joined(separator: "; ")) (\(codec) encoder); \(each)."
    }

    /// Why a stream's written loudness is off the target.
    static func shortfallReason(_ r: MediaNormalizer.StreamResult, settings s: MediaNormalization.Settings, encodes: Int) -> String {
        if r.compensationDB - r.codecCompensationDB >= s.maxCompensationDB - 0.005 || abs(r.codecCompensationDB) >= s.maxCompensationDB - 0.005 {
            return "the compensation reached its \(LoudnessGate.compact(s.maxCompensationDB)) dB limit"
        }
        if r.landing?.gaveWay == .loudness, r.landing?.rule == .hold {
            return "with --codec-peak hold the decoded true peak stays under the ceiling, and reaching the target would limit more than \(String(format: "%.1f", CodecLanding.extraLimitingBudgetDB)) dB deeper than a PCM output needs, so the gain came down instead (--codec-peak allow keeps the loudness, the decoded peak then passing the ceiling)"
        }
        return "the limiter and the codec together didn't settle within the \(encodes) encode\(encodes == 1 ? "" : "s") allowed"
    }

    /// `delivered`: how many streams the output holds.
    package static func json(_ run: MediaNormalization.Outcome, probe: MediaProbe, audio: [MediaStream], delivered: Int, chosen: [Int],
                     encodings: [Int: MediaAudioEncoding], muxer: String, outPath: String, losses: [String],
                     settings s: MediaNormalization.Settings, presetName: String?, listsStreams: Bool) -> [String: JSON] {
        var notes: [String] = []
        let sources = run.sources, gains = run.gains
        if sources.values.contains(where: \.here) {
            notes.append("The record carried no measurement of \(chosen.count > 1 ? "some streams" : "the stream") of this file as it is, so \(chosen.count > 1 ? "they were" : "it was") measured here (one extra pass).")
        }
        let copied = delivered - chosen.count
        notes.append("Written through ffmpeg as \(muxer): \(chosen.count) audio stream\(chosen.count == 1 ? "" : "s") re-encoded, \(copied) stream\(copied == 1 ? "" : "s") copied unchanged, with the file's metadata\(probe.chapterCount > 0 ? " and \(probe.chapterCount) chapters" : ""). The numbers are measured on the written file, decoded again.")
        let many = run.streams.count > 1
        for r in run.streams {
            let who = many ? "Stream \(r.ordinal)" : "The stream"
            let codec = encodings[r.ordinal]!.displayName
            if let p = r.prediction {
                notes.append("\(who): a trial \(codec) encode of \(String(format: "%.1f", p.seconds)) s predicted the codec's loudness change (\(String(format: "%+.2f", p.loudnessChangeLU)) LU, compensated) and true-peak overshoot (\(String(format: "%.2f", p.peakOvershootDB)) dB, widened for the stream's length and taken off the limiter's ceiling) before the first encode.")
            }
            if let note = reencodeNote(who: who, codec: codec, predicted: r.prediction != nil, corrections: r.corrections) { notes.append(note) }
        }
        if run.encodes > 1 {
            notes.append("The file was encoded \(run.encodes) times in all (`encodes`): each encode re-encodes every normalised audio stream, and the last is the one written.")
        }
        var streamObjects: [JSON] = []
        for r in run.streams {
            let m = r.measured, src = sources[r.ordinal]!
            if let tp = m.truePeakDBTP, (tp * 100).rounded() / 100 > s.ceilingDBTP, s.peakMode != .ignore {
                notes.append("Stream \(r.ordinal): after \(run.encodes) encodes the decoded true peak is \(String(format: "%.2f", tp)) dBTP, over the \(LoudnessGate.compact(s.ceilingDBTP)) dBTP ceiling.")
            }
            let tolerance = encodings[r.ordinal]!.isLossy ? CodecLanding.toleranceLU : losslessToleranceLU
            var shortfall: Double? = nil
            if s.peakMode != .reduce, let lufs = m.integratedLUFS, abs(lufs - s.targetLUFS) > tolerance {
                shortfall = s.targetLUFS - lufs
                notes.append("Stream \(r.ordinal): after \(run.encodes) encode\(run.encodes == 1 ? "" : "s") the output is \(String(format: "%.2f", abs(lufs - s.targetLUFS))) LU \(lufs < s.targetLUFS ? "under" : "over") the target, more than the \(String(format: "%.1f", tolerance)) LU \(encodings[r.ordinal]!.isLossy ? "a lossy" : "a lossless") codec is held to: \(shortfallReason(r, settings: s, encodes: run.encodes)).")
            }
            if encodings[r.ordinal]!.isLossy, let l = r.landing {
                let who = many ? "Stream \(r.ordinal): " : ""
                notes += CodecLandingNotes.outcomeNotes(l, codec: encodings[r.ordinal]!.displayName, targetLUFS: s.targetLUFS, ceilingDBTP: s.ceilingDBTP)
                    .map { who.isEmpty ? $0 : who + $0.prefix(1).lowercased() + $0.dropFirst() }
            }
            var o: [String: JSON] = MediaAudioStreams.json(audio[r.ordinal], ordinal: r.ordinal)
            let e = encodings[r.ordinal]!
            o["encoder"] = .string(e.encoder)
            if let b = e.bitRate { o["bit_rate"] = .int(b) }
            if let r = e.rate { o["encoding"] = r.json(codec: LossyRate.Codec(codec: e.encoder)) }
            o["gain_db"] = .double(r.plannedGainDB, decimals: 2)
            o["compensation_db"] = .double(r.compensationDB, decimals: 2)
            if let p = r.prediction {
                o["codec_trial"] = .object(["trial_seconds": .double(p.seconds, decimals: 2), "loudness_change_lu": .double(p.loudnessChangeLU, decimals: 2),
                                      "peak_overshoot_db": .double(p.peakOvershootDB, decimals: 2), "trials": .int(p.trials),
                                      "compensation_db": .double(r.codecCompensationDB, decimals: 2)])
            }
            o["encodes"] = .int(run.encodes)
            if e.isLossy, let l = r.landing { o["landing"] = CodecLandingNotes.landingJSON(l) }
            o["integrated_lufs"] = .optional(m.integratedLUFS, decimals: 2)
            o["true_peak_dbtp"] = .optional(m.truePeakDBTP, decimals: 2)
            o["sample_peak_dbfs"] = .optional(m.samplePeakDBFS, decimals: 2)
            o["limiter"] = .object(["frames": .int(r.report.framesLimited), "max_reduction_db": .double(r.report.maxReductionDB, decimals: 2),
                                    "applied": .bool(r.report.framesLimited > 0), "ceiling_lowered_db": .double(r.ceilingLoweredDB, decimals: 2)])
            o["source_integrated_lufs"] = .optional(src.lufs, decimals: 2)
            o["source_true_peak_dbtp"] = .optional(src.tp, decimals: 2)
            o["measured_here"] = .bool(src.here)
            o["passes"] = .int(r.passes + (src.here ? 1 : 0))
            o["frames"] = .int(r.report.framesWritten)
            o["dither"] = .bool(e.ditherBits != nil)
            if s.peakMode == .reduce, let g = gains[r.ordinal], g.shortfallLU > 0 {
                o["shortfall_lu"] = .optional(m.integratedLUFS.map { s.targetLUFS - $0 } ?? g.shortfallLU, decimals: 2)
            } else if let sf = shortfall {
                o["shortfall_lu"] = .double(sf, decimals: 2)
            }
            streamObjects.append(.object(o))
        }
        var o = streamObjects[0].objectValue!
        o["output"] = .string(outPath)
        o["losses"] = .array(losses.map { .string($0) })
        o["target_lufs"] = .double(s.targetLUFS)
        o["ceiling_dbtp"] = .double(s.ceilingDBTP)
        o["preset"] = presetName.map { .string($0) } ?? .null
        o["peak_mode"] = .string(s.peakMode.rawValue)
        o["encodes"] = .int(run.encodes)
        let first = encodings[chosen[0]]!
        o["format"] = .object(["container": .string(muxer), "streams": .int(delivered), "codec": .string(first.encoder),
                               "sample_rate": .int(first.sampleRate), "channels": .int(first.channels),
                               "bit_depth": first.bitDepth.map { .int($0) } ?? .null])
        o["notes"] = .array(notes.map { .string($0) })
        if streamObjects.count > 1 || listsStreams { o["streams"] = .array(streamObjects) }
        return o
    }
}
