import AudioSignal
import ToolRunner

/// The `--preset NAME` option lufs-measure and lufs-normalize share: one table, one error text.
extension LoudnessPreset {
    /// The option's declaration, with each tool's own help.
    package static func option(help: String) -> OptionSpec {
        .choice("preset", "NAME", all.map { $0.name }, help: help,
                invalid: { "--preset: '\($0)' is not a preset; choose one of: \(names)." })
    }

    /// The preset names, comma-separated, for help and error texts. Joined by hand: every run
    /// builds its option table with it, and a key path or a generic join makes the Swift runtime
    /// look up type metadata and conformances at start-up.
    package static var names: String {
        var s = ""
        for p in all { s += s.isEmpty ? p.name : ", " + p.name }
        return s
    }
}

extension ParsedOptions {
    /// The preset named by `--preset` (checked against the table when parsed), nil when not given.
    package func loudnessPreset() throws -> LoudnessPreset? {
        try choice("preset").flatMap(LoudnessPreset.named)
    }
}
