import AudioIO
import JSONValue

/// `normalized` for `lufs-normalize --lossless-gain`: the steps taken in the bitstream and the
/// loudness and peak that follow from the measurement and the gain (nothing is decoded again).
/// A file with several audio streams (the AAC tracks of an MP4/MOV) lists each stream's own
/// steps and result under `streams`, the first stream's also at the top, where a file with one
/// stream has them.
package struct LosslessGainRecord {
    package var outPath: String
    package var dryRun: Bool
    /// "mp3", "aac" or "opus".
    package var codec: String
    package var plan: LosslessGainPlan
    package var sourceLUFS: Double
    package var sourceTruePeakDBTP: Double?
    package var targetLUFS: Double
    package var ceilingDBTP: Double
    package var presetName: String?
    package var measuredHere: Bool
    package var notes: [String]
    /// What the format records beside the gain (mp3gain's undo, Opus's header gain), as JSON.
    package var bitstream: [String: JSON]
    /// Every audio stream's result, in order, when the file has more than one.
    package var streams: [Stream] = []

    /// One audio stream's gain and result.
    package struct Stream {
        /// Among the audio streams, from 0 (ffmpeg's 0:a:N).
        package var ordinal: Int
        /// Among all the file's streams (ffmpeg's stream index).
        package var index: Int
        package var plan: LosslessGainPlan
        package var sourceLUFS: Double
        package var sourceTruePeakDBTP: Double?
        package var measuredHere: Bool
        /// The codec's facts (for AAC: blocks, channel streams, global_gain range, patched bytes).
        package var facts: [String: JSON]
        /// The key the facts go under ("aac").
        package var factsKey: String

        package var json: JSON {
            var o = LosslessGainRecord.levels(plan, sourceLUFS: sourceLUFS, sourceTruePeakDBTP: sourceTruePeakDBTP)
            o["stream"] = .int(ordinal)
            o["index"] = .int(index)
            o["codec"] = .string(factsKey)
            o["measured_here"] = .bool(measuredHere)
            o["lossless_gain"] = LosslessGainRecord.steps(plan)
            o[factsKey] = .object(facts)
            return .object(o)
        }
    }

    /// The gain and the loudness and peak before and after it (they follow from the measurement
    /// and the gain exactly, so nothing is decoded again).
    package static func levels(_ plan: LosslessGainPlan, sourceLUFS: Double, sourceTruePeakDBTP: Double?) -> [String: JSON] {
        [
            "gain_db": .double(plan.gainDB, decimals: 4),
            "integrated_lufs": .double(sourceLUFS + plan.gainDB, decimals: 2),
            "true_peak_dbtp": .optional(sourceTruePeakDBTP.map { $0 + plan.gainDB }, decimals: 2),
            "source_integrated_lufs": .double(sourceLUFS, decimals: 2),
            "source_true_peak_dbtp": .optional(sourceTruePeakDBTP, decimals: 2),
        ]
    }

    package static func steps(_ plan: LosslessGainPlan) -> JSON {
        .object([
            "steps": .int(plan.steps),
            "step_db": .double(plan.stepDB, decimals: 8),
            "gain_db": .double(plan.gainDB, decimals: 4),
            "residual_db": .double(plan.residualDB, decimals: 4),
        ])
    }

    package var json: JSON {
        var o: [String: JSON] = Self.levels(plan, sourceLUFS: sourceLUFS, sourceTruePeakDBTP: sourceTruePeakDBTP).merging([
            "output": .string(outPath),
            "mode": .string("lossless-gain"),
            "codec": .string(codec),
            "dry_run": .bool(dryRun),
            "target_lufs": .double(targetLUFS),
            "ceiling_dbtp": .double(ceilingDBTP),
            "preset": presetName.map { .string($0) } ?? .null,
            "measured_here": .bool(measuredHere),
            "losses": .array([]),
            "lossless_gain": Self.steps(plan),
        ]) { _, new in new }
        for (k, v) in bitstream { o[k] = v }
        let written = dryRun ? "would be" : "was"
        let step = Self.stepText(plan.stepDB)
        var last = "The gain \(written) changed in the bitstream (\(plan.steps) step\(plan.steps == 1 ? "" : "s") of \(step)); nothing was decoded or re-encoded, so integrated_lufs and true_peak_dbtp are the measurement plus the gain, with no re-decode needed."
        if streams.count > 1 {
            o["streams"] = .array(streams.map(\.json))
            let each = streams.map { "stream \($0.ordinal): \($0.plan.steps) step\($0.plan.steps == 1 ? "" : "s")" }.joined(separator: ", ")
            last = "Each of the \(streams.count) audio streams' gain \(written) changed in the bitstream by its own measurement (\(each), of \(step)); nothing was decoded or re-encoded, so each stream's integrated_lufs and true_peak_dbtp (under streams; the first stream's also at the top) are its measurement plus its gain, with no re-decode needed."
        }
        o["notes"] = .array((notes + [last]).map { .string($0) })
        return .object(o)
    }

    package static func stepText(_ step: Double) -> String { step > 1 ? "2^(1/4), 1.505 dB" : "1/256 dB" }
}
