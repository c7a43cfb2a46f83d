import ToolRunner

/// lufs-normalize's `--output` (one input's output file, or `-` for standard output) and `--raw`.
extension LufsNormalize {
    package static let outputSpec = OptionSpec.value("output", "FILE", help: "Write the one input's output to FILE: what audio on standard input (`-`) needs, having no name to derive one from. `--output -` writes the audio to standard output and the record to standard error. The input on standard input is kept in a temporary file beside FILE (in $TMPDIR for `-`) while it is normalised.",
        rules: [.conflicts("out-dir", "output-template", "in-place", "write-tags", message: "--output names the one output, so it can't be combined with --out-dir, --output-template, --in-place or --write-tags.")])

    package static func output(_ o: ParsedOptions) throws -> String? {
        try RawPCM.read(o)
        guard let out = o.string("output") else { return nil }
        try o.checkRules("output")
        guard o.paths.count == 1 else { throw UsageError("--output names one output: give one input (a file, or `-` for audio on standard input).") }
        if out == "-" { StreamedFiles.divertRecords() }
        return out
    }
}
