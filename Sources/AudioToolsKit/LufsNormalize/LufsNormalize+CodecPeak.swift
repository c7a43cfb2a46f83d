import AudioSignal
import Foundation
import ToolRunner

/// `--codec-peak`: which limit a lossy output gives up when the target and the ceiling can't
/// both hold with the limiting bounded (CodecLanding.plan). Declared here, read once.
extension LufsNormalize {
    static let codecPeakSpecs: [OptionSpec] = [
        .choice("codec-peak", "RULE", CodecPeakRule.allCases.map(\.rawValue), default: CodecPeakRule.hold.rawValue,
                help: "Lossy output (mp3, ogg, opus) of a loud master: a codec overshoots the true peak it is handed, so the limiter's ceiling comes down by that overshoot, limiting at most \(String(format: "%.1f", CodecLanding.extraLimitingBudgetDB)) dB deeper than a PCM output of the same job. Where the target and the ceiling can't both hold within that: hold (default) keeps the decoded true peak under the ceiling and lowers the gain (the loudness falls short: shortfall_lu); allow keeps the loudness on target and the audio handed to the encoder under the ceiling, and reports how far the decoded peak passes it (landing.over_ceiling_db).",
                rules: [.conflicts("lossless-gain", "undo-lossless-gain", "write-tags", "remove-tags", "decode-encode-only",
                                   message: "--codec-peak steers how a lossy output is encoded, so it can't be combined with --{other}, which encodes nothing.")]),
    ]

    /// `--codec-peak`'s rule (hold unless given).
    package static func codecPeakRule(_ o: ParsedOptions) throws -> CodecPeakRule {
        try o.checkRules("codec-peak")
        return CodecPeakRule(rawValue: try o.chosen("codec-peak")) ?? .hold
    }
}
