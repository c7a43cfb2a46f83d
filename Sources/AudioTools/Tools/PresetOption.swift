/// The `--preset NAME` option lufs-measure and lufs-normalize share: one table, one error text.
extension ParsedOptions {
    /// The preset named by `--preset`, nil when not given; a usage error naming the choices
    /// when the name is not in the table.
    func loudnessPreset() throws -> LoudnessPreset? {
        guard let name = string("preset") else { return nil }
        guard let p = LoudnessPreset.named(name) else {
            throw UsageError("--preset: '\(name)' is not a preset; choose one of: \(LoudnessPreset.names).")
        }
        return p
    }
}

extension LoudnessPreset {
    /// The preset names, comma-separated, for help and error texts.
    static var names: String { all.map(\.name).joined(separator: ", ") }
}
