/// The `--preset NAME` option lufs-measure and lufs-normalize share: one table, one error text.
extension LoudnessPreset {
    /// The option's declaration, with each tool's own help.
    static func option(help: String) -> OptionSpec {
        .choice("preset", "NAME", all.map(\.name), ignoringCase: true, help: help,
                invalid: { "--preset: '\($0)' is not a preset; choose one of: \(names)." })
    }

    /// The preset names, comma-separated, for help and error texts.
    static var names: String { all.map(\.name).joined(separator: ", ") }
}

extension ParsedOptions {
    /// The preset named by `--preset` (checked against the table when parsed), nil when not given.
    func loudnessPreset() throws -> LoudnessPreset? {
        try choice("preset").flatMap(LoudnessPreset.named)
    }
}
