import AudioSignal
import Foundation
import ToolRunner

/// lufs-measure's --qc and --platforms options and their gates (docs/qc.md, docs/lufs-measure.md).
package enum LufsMeasureQC {
    package static let specs: [OptionSpec] = [
        .flag("platforms", help: "Add loudness.platforms: what each streaming platform's normalisation does to the file (gain, loudness and true peak as played, whether its limiter acts; with --album, album mode too). Platforms: \(PlatformProfile.names).",
              rules: [.conflicts("decode-only", message: "--decode-only measures nothing, so there are no --platforms figures to give.")]),
        .value("platform", "NAME,…", help: "Only these platforms (implies --platforms): a comma list of \(PlatformProfile.names).",
               check: { _ = try platforms($0) }),
        .flag("qc", help: "Add qc, from the same decode: clipped runs and true-peak overs, DC offset per channel, the front pair's lowest 3-s correlation and mono fold-down loss, digital silence at head and tail, dropouts, silent, identical and inverted channels.",
              rules: [.conflicts("decode-only", message: "--decode-only measures nothing, so there is no --qc to give.")]),
        .whole("max-clipped-runs", "N", in: 0...1_000_000_000, help: "QC gate: at most N clipped runs (3 or more consecutive samples within 0.01 dB of full scale). Implies --qc."),
        .whole("max-overs", "N", in: 0...1_000_000_000, help: "QC gate: at most N stretches above 0 dBTP. Implies --qc."),
        .number("min-correlation", "X", in: -1...1, help: "QC gate: the front pair's correlation over every 3-s window at least X (-1 to 1). Implies --qc."),
        .number("max-head-silence", "S", in: 0...86_400, help: "QC gate: at most S seconds of digital silence at the head. Implies --qc."),
        .number("max-tail-silence", "S", in: 0...86_400, help: "QC gate: at most S seconds of digital silence at the tail. Implies --qc."),
        .flag("no-dropouts", help: "QC gate: no digital silence of 10 ms or more mid-programme. Implies --qc."),
        .flag("no-dead-channels", help: "QC gate: no channel (but an LFE) that is digital silence from start to end. Implies --qc."),
        .flag("no-inverted-channels", help: "QC gate: no pair of channels where one is the other in reverse polarity (a mono fold-down cancels). Implies --qc."),
        .number("max-sample-peak", "DBFS", in: -120...0, help: "QC gate: the highest sample peak (not true peak) allowed, as ACX sets it (-3). Implies --qc."),
        .number("min-rms", "DBFS", in: -120...0, help: "QC gate: the lowest RMS level of the whole file allowed (unweighted, all channels together; ACX: -23). Implies --qc."),
        .number("max-rms", "DBFS", in: -120...0, help: "QC gate: the highest RMS level of the whole file allowed (ACX: -18). Implies --qc."),
        .number("max-noise-floor", "DBFS", in: -120...0, help: "QC gate: the highest noise floor allowed, the RMS of the quietest 0.5 s (ACX: -60). Implies --qc."),
        .number("max-dc-offset", "DBFS", in: -120...0, help: "QC gate: every channel's DC offset (its mean) at most this (-40 is a 1% offset). Implies --qc."),
        .choice("qc-preset", "NAME", QCGate.presetNames, help: "QC gates of a kind of delivery: " + QCGate.presets.map { "\($0.name) (\($0.source))" }.joined(separator: "; ") + ". Explicit QC gates override its values. Implies --qc."),
    ]

    /// The platforms `--platform` names (all of them for nil), or the usage error naming them.
    package static func platforms(_ list: String?) throws -> [PlatformProfile] {
        do { return try PlatformProfile.chosen(list) } catch let u as PlatformProfile.UnknownName {
            throw UsageError("--platform: there is no platform named \(ToolError.quoted(u.name)); the platforms are \(PlatformProfile.names).")
        }
    }

    /// The settings the options give; a QC gate turns the QC on.
    package static func extras(_ o: ParsedOptions) throws -> LoudnessExtras {
        var e = LoudnessExtras()
        let preset = try o.choice("qc-preset").flatMap { name in QCGate.presets.first { $0.name == name }?.gate }
        let gate = QCGate(maxClippedRuns: try o.int("max-clipped-runs"), maxOvers: try o.int("max-overs"),
                          minCorrelation: try o.double("min-correlation"), maxHeadSilenceSeconds: try o.double("max-head-silence"),
                          maxTailSilenceSeconds: try o.double("max-tail-silence"), noDropouts: o.flag("no-dropouts"),
                          noDeadChannels: o.flag("no-dead-channels"), noInvertedChannels: o.flag("no-inverted-channels"),
                          maxSamplePeakDBFS: try o.double("max-sample-peak"), minRMSDBFS: try o.double("min-rms"),
                          maxRMSDBFS: try o.double("max-rms"), maxNoiseFloorDBFS: try o.double("max-noise-floor"),
                          maxDCOffsetDBFS: try o.double("max-dc-offset")).over(preset)
        e.qcGate = gate.isEmpty ? nil : gate
        e.qc = o.flag("qc") || e.qcGate != nil
        if o.flag("platforms") || o.string("platform") != nil { e.platforms = try platforms(o.string("platform")) }
        if !e.isEmpty, o.flag("decode-only") { throw UsageError("--decode-only measures nothing, so it can't be combined with --qc, its gates or --platforms.") }
        return e
    }
}
