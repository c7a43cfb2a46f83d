import AudioIO
import Foundation
import ToolRunner

/// lufs-measure's options for audio on standard input (`-`, `--raw`) and the live meter (`--follow`).
extension LufsMeasure {
    package static let streamSpecs: [OptionSpec] = [
        .flag("follow", help: "Measure while reading standard input (`-`) or a file still being written, printing a line every --interval seconds of audio with the loudness so far (docs/lufs-measure.md), then the record. A followed file is read until it has not grown for 5 s. SIGINT or SIGTERM ends the reading: the record of what was read is printed and the exit status is 128 + the signal's number.",
              rules: [.conflicts("album", "decode-only", "report", "qc", "platforms", "platform", "qc-preset", "max-clipped-runs", "max-overs",
                                 "min-correlation", "max-head-silence", "max-tail-silence", "no-dropouts", "no-dead-channels", "no-inverted-channels", "dialogue",
                                 message: "--follow measures one stream as it arrives: it can't be combined with --{other}.")]),
        .number("interval", "SECONDS", in: 0.1...3600, help: "With --follow: seconds of audio between lines (default 1).", rules: [.needs("follow")]),
        RawPCM.spec,
    ]

    /// The live meter the options ask for, after the raw layout is set; nil without --follow.
    package static func follow(_ o: ParsedOptions) throws -> LoudnessFollow? {
        try RawPCM.read(o)
        try o.checkRules("follow", "interval")
        guard o.flag("follow") else { return nil }
        guard o.paths.count == 1 else { throw UsageError("--follow measures one input as it arrives: give `-` (standard input) or one file.") }
        SignalStop.arm()
        return LoudnessFollow(path: o.paths[0], intervalSeconds: try o.double("interval") ?? 1, idleSeconds: 5,
                              emit: { ToolMain.writeStdout($0) })
    }
}

/// `--raw RATE:CHANNELS:FORMAT`: headerless PCM on standard input (any tool that reads `-`).
package enum RawPCM {
    package static let spec = OptionSpec.value("raw", "RATE:CHANNELS:FORMAT", help: "Standard input (`-`) is headerless PCM of this layout, e.g. 48000:2:s16le; FORMAT is one of \(PCMStreamFormat.Encoding.allCases.map(\.rawValue).joined(separator: ", ")).",
                                       check: { _ = try format($0) })

    /// The layout `--raw` gives, or the usage error showing how to write one.
    package static func format(_ r: String) throws -> PCMStreamFormat {
        guard let f = PCMStreamFormat.raw(r) else {
            throw UsageError("--raw \(r): give RATE:CHANNELS:FORMAT, e.g. 48000:2:s16le (FORMAT one of \(PCMStreamFormat.Encoding.allCases.map(\.rawValue).joined(separator: ", "))).")
        }
        return f
    }

    package static func read(_ o: ParsedOptions) throws {
        guard let r = o.string("raw") else { return }
        let f = try format(r)
        guard o.paths.contains("-") else { throw UsageError("--raw describes audio on standard input: give `-` as the input.") }
        StandardInput.raw = f
        StandardInputArgument.holdsRawAudio = true
    }
}
