/// `normalized` for `lufs-normalize --lossless-gain`: the steps taken in the bitstream and the
/// loudness and peak that follow from the measurement and the gain (nothing is decoded again).
struct LosslessGainRecord {
    var outPath: String
    var dryRun: Bool
    /// "mp3", "aac" or "opus".
    var codec: String
    var plan: LosslessGainPlan
    var sourceLUFS: Double
    var sourceTruePeakDBTP: Double?
    var targetLUFS: Double
    var ceilingDBTP: Double
    var presetName: String?
    var measuredHere: Bool
    var notes: [String]
    /// What the format records beside the gain (mp3gain's undo, Opus's header gain), as JSON.
    var bitstream: [String: JSON]

    var json: JSON {
        var o: [String: JSON] = [
            "output": .string(outPath),
            "mode": .string("lossless-gain"),
            "codec": .string(codec),
            "dry_run": .bool(dryRun),
            "gain_db": .double(plan.gainDB, decimals: 4),
            "integrated_lufs": .double(sourceLUFS + plan.gainDB, decimals: 2),
            "true_peak_dbtp": .optional(sourceTruePeakDBTP.map { $0 + plan.gainDB }, decimals: 2),
            "source_integrated_lufs": .double(sourceLUFS, decimals: 2),
            "source_true_peak_dbtp": .optional(sourceTruePeakDBTP, decimals: 2),
            "target_lufs": .double(targetLUFS),
            "ceiling_dbtp": .double(ceilingDBTP),
            "preset": presetName.map { .string($0) } ?? .null,
            "measured_here": .bool(measuredHere),
            "losses": .array([]),
            "lossless_gain": .object([
                "steps": .int(plan.steps),
                "step_db": .double(plan.stepDB, decimals: 8),
                "gain_db": .double(plan.gainDB, decimals: 4),
                "residual_db": .double(plan.residualDB, decimals: 4),
            ]),
        ]
        for (k, v) in bitstream { o[k] = v }
        let written = dryRun ? "would be" : "was"
        o["notes"] = .array((notes + [
            "The gain \(written) changed in the bitstream (\(plan.steps) step\(plan.steps == 1 ? "" : "s") of \(Self.stepText(plan.stepDB))); nothing was decoded or re-encoded, so integrated_lufs and true_peak_dbtp are the measurement plus the gain, with no re-decode needed.",
        ]).map { .string($0) })
        return .object(o)
    }

    static func stepText(_ step: Double) -> String { step > 1 ? "2^(1/4), 1.505 dB" : "1/256 dB" }
}
