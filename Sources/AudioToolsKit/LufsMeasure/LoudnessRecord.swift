import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// lufs-measure's record: the `loudness` object of a measurement, and the summary row read back
/// from a record on its way out.
public enum LoudnessRecord {
    /// The `loudness` object for a measurement; values rounded to 0.01 (the meter's accuracy is
    /// well inside that), undefined values null with the reason in `notes`.
    package static func json(_ m: LoudnessMeasurement, layout: ChannelLayout, dualMono: Bool, identity: FileIdentity,
                     gate: (LoudnessGate, JSON)?) -> JSON {
        var o = figures(m)
        o.merge([
            "sample_rate": .int(m.sampleRate),
            "frames": .int(m.frames),
            "duration_seconds": .double(Double(m.frames) / Double(m.sampleRate), decimals: 6),
            "layout": .string(layout.description),
            "dual_mono": .bool(dualMono),
            "file": identity.json,
            "notes": .array(m.sentences.map { .string($0) }),
        ]) { _, new in new }
        o["channels"] = .array((0..<m.samplePeaks.count).map { c in
            .object([
                "name": .string(c < layout.roles.count ? layout.roles[c].label : "?"),
                "weight": .double(c < layout.weights.count ? layout.weights[c] : 1, decimals: 2),
                "azimuth_deg": .optional(c < layout.roles.count && !dualMono ? layout.roles[c].azimuth : nil, decimals: 1),
                "elevation_deg": .optional(c < layout.roles.count && !dualMono ? layout.roles[c].elevation : nil, decimals: 1),
                "sample_peak_dbfs": .optional(dB(m.samplePeaks[c]), decimals: 2),
                "true_peak_dbtp": .optional(dB(m.truePeaks[c]), decimals: 2),
            ])
        })
        if let (g, label) = gate { o["gate"] = gateJSON(g, label: label, m) }
        return .object(o)
    }

    /// The six figures a measurement gives, as every record and every `--follow` line writes them.
    package static func figures(_ m: LoudnessMeasurement) -> [String: JSON] {
        [
            "integrated_lufs": .optional(m.integratedLUFS, decimals: 2),
            "loudness_range_lu": .optional(m.loudnessRangeLU, decimals: 2),
            "momentary_max_lufs": .optional(m.momentaryMaxLUFS, decimals: 2),
            "short_term_max_lufs": .optional(m.shortTermMaxLUFS, decimals: 2),
            "true_peak_dbtp": .optional(m.truePeakDBTP, decimals: 2),
            "sample_peak_dbfs": .optional(m.samplePeakDBFS, decimals: 2),
        ]
    }

    /// The `loudness.gate` object: the gate's settings, whether `m` passes, and why not.
    package static func gateJSON(_ g: LoudnessGate, label: JSON, _ m: LoudnessMeasurement) -> JSON {
        let v = g.verdict(m)
        var gj = label.objectValue ?? [:]
        // A preset's mono target (podcast: −19 LUFS) for a one-channel file.
        if let t = g.targetLUFS(for: m), t != g.targetLUFS { gj["target_lufs"] = .double(t) }
        gj["pass"] = .bool(v.pass)
        gj["reasons"] = .array(v.reasons.map { .string($0) })
        return .object(gj)
    }

    /// The gate's settings as `loudness.gate` shows them; a limit not given is null.
    package static func gateLabel(_ g: LoudnessGate, preset: String?) -> JSON {
        var o: [String: JSON] = ["tolerance_lu": .double(g.toleranceLU ?? 0)]
        o["target_lufs"] = g.targetLUFS.map { .double($0) } ?? .null
        o["max_true_peak_dbtp"] = g.maxTruePeakDBTP.map { .double($0) } ?? .null
        o["max_short_term_lufs"] = g.maxShortTermLUFS.map { .double($0) } ?? .null
        o["max_momentary_lufs"] = g.maxMomentaryLUFS.map { .double($0) } ?? .null
        // Only when asked for: records without --max-lra stay as they were.
        if let r = g.maxLoudnessRangeLU { o["max_loudness_range_lu"] = .double(r) }
        o["preset"] = preset.map { .string($0) } ?? .null
        return .object(o)
    }

    package static func dB(_ linear: Double) -> Double? { linear > 0 ? 20 * log10(linear) : nil }
}

extension GateLog {
    /// The row for one output record: its gate verdict, or its error.
    package mutating func add(_ record: Record) {
        let name = record.path ?? "(input)"
        if let e = record.fields["error"], e != .null {
            addFailure(name: name, message: e["message"]?.stringValue ?? "failed")
            return
        }
        let l = record["loudness"]
        let (passed, qcReasons) = Self.qcVerdict(record, loudnessPassed: l?["gate"]?["pass"]?.boolValue)
        add(name: name, gatePassed: passed, reasons: (l?["gate"]?["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []) + qcReasons,
            integratedLUFS: l?["integrated_lufs"]?.doubleValue, truePeakDBTP: l?["true_peak_dbtp"]?.doubleValue)
        if let d = l?["dialogue"]?["integrated_lufs"]?.doubleValue { rows[rows.count - 1].dialogueLUFS = d }
        addPlatforms(l?["platforms"])
    }
}
