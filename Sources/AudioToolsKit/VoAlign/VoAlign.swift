import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// vo-align: places a voiceover take on the timeline of the backing track it was performed
/// against, correcting the record latency — given (`--latency-ms`) or found from the backing that
/// bleeds into the take (`--reference`). Adds `alignment`; optionally writes the aligned take
/// (`--out-dir`) and a ducked mix (`--mix`).
///
/// Timeline: D is the delay of the reference inside the take, in take frames; take frame t lands
/// on reference frame t − D. With a record latency L and a start S (the preview time at which
/// recording began), D = L − S·rate.
public final class VoAlign: RecordTool {
    public static let info = ToolInfo(
        name: "vo-align", key: "alignment",
        abstract: "Place voiceover takes on the timeline they were performed against, correcting the record latency: known, or found from the backing track audible in the take.",
        discussion: "With --reference, the latency is found by whitened cross-correlation (GCC-PHAT) between windows of each take and the backing track, refined to a fraction of a sample, together with the clock drift between the two devices, how loud the bleed is, and where the latency changes along the take (alignment.segments). --start-at auto finds where in the whole backing the take was recorded. A latency the recorder claims (--latency-ms, or latency_ms in the take's record) is checked against the bleed. A take that holds no trace of the reference is refused (no-bleed), and so is one where no single offset stands out (low-confidence) or whose claimed latency is wrong (latency-mismatch): the tool never reports an offset it doesn't believe. Input records may carry start_seconds and latency_ms (a recorder's log), which override the options for that take. Video takes and references (MP4, MOV) are read through ffmpeg; the output is audio. A positive latency means the take is late.",
        options: [
            .value("reference", "FILE", help: "The backing track the takes were performed against; the latency is found from its bleed into each take. A video works too (its audio is used)."),
            .number("latency-ms", "MS", in: -10_000...10_000, help: "The latency the recorder measured (positive: the take is late). Without --reference the take is shifted by exactly that; with it, the claim is checked against the bleed (see --tolerance-ms). A take's latency_ms in its record wins."),
            .number("tolerance-ms", "MS", in: 0...10_000, default: VoAlign.defaultToleranceMS,
                    help: "How far a claimed latency may be from the measured one before the take is refused as latency-mismatch (default \(VoAlign.number(VoAlign.defaultToleranceMS))).",
                    rules: [.needs("reference", message: "--tolerance-ms applies to a latency measured from the reference; give --reference.")]),
            .number("start-at", "SECONDS|auto", in: 0...86_400, words: ["auto"],
                    help: "Where recording started on the reference timeline (the preview time at which it began; default 0), or auto: search the whole reference for the take. A take's start_seconds in its record wins.",
                    invalid: { "--start-at: '\($0)' is neither a time in seconds nor auto." },
                    rules: [.needs("reference", when: "auto", message: "--start-at auto searches the reference for the take: give --reference.")]),
            .number("max-latency-ms", "MS", in: 1...60_000, help: "Search latencies from -MS to +MS around the start (default 1000).",
                    rules: [.needs("reference", message: "--max-latency-ms applies to a latency measured from the reference; give --reference.")]),
            .number("min-confidence", "X", in: 0...1, default: VoAlign.defaultMinConfidence,
                    help: "Refuse a found latency whose confidence (0 to 1) is below X (default \(VoAlign.defaultMinConfidence)).",
                    rules: [.needs("reference", message: "--min-confidence applies to a latency measured from the reference; give --reference.")]),
            .flag("correct-drift", help: "Resample the written take so that it stays aligned to the end despite the devices' clock drift.", rules: [
                .needs("reference", message: "--correct-drift needs the drift measured from the bleed: give --reference."),
                .needs("out-dir", "mix", message: "--correct-drift changes the written audio; give --out-dir or --mix."),
            ]),
            .value("out-dir", "DIR", help: "Write each aligned take into DIR under its own name: latency removed (per stretch when it changes, with a 5 ms crossfade at each joint), placed on the reference timeline, same format, depth, rate and channels (WAV for a video or AAC take)."),
            .value("mix", "FILE", help: "Also write the reference with the aligned voice over it, the reference ducked while the voice is active. With several takes, FILE must contain {stem} (the take's name without extension).",
                   rules: [.needs("reference", message: "--mix needs --reference: the mix is the reference with the voice over it.")]),
            .number("duck-db", "DB", in: -60...0, default: -12, help: "How far the reference is lowered under the voice in --mix (default -12).",
                    rules: [.needs("mix", message: "--duck-db applies to --mix; give --mix FILE.")]),
            .flag("overwrite", help: "Replace existing output files (default: refuse with code `exists`)."),
        ],
        examples: [
            "vo-align --reference backing.wav take1.wav take2.wav",
            "vo-align --reference backing.wav --start-at auto take-from-somewhere.wav",
            "vo-align --reference backing.wav --out-dir aligned/ --mix 'mix-{stem}.wav' takes/",
            "vo-align --latency-ms 182 --start-at 12.5 --out-dir aligned/ take3.wav",
            "vo-align --reference backing.wav --latency-ms 50 phone-take.m4a   # checks the phone's claim",
            "jq -c . session-log.jsonl | vo-align --reference backing.wav   # per-take start_seconds, latency_ms",
            "vo-align --reference backing.wav takes/ | jq -r '[.path, .alignment.latency_ms] | @tsv'",
        ],
        requirements: [
            OptionRequirement(oneOf: ["reference", "latency-ms"], exceptReadingStdin: true,
                              message: "Give --reference (the backing track, to find the latency from its bleed) or --latency-ms (the latency the recorder measured)."),
        ])

    package static let defaultMinConfidence = BleedAligner.Settings().acceptConfidence
    package static let defaultToleranceMS = 5.0

    package let aligner: TakeAligner

    public init(options o: ParsedOptions) throws {
        let knownLatencyMS = try o.double("latency-ms")
        let startOption: VoAlignGiven.Start?
        if o.string("start-at") == "auto" { startOption = .auto }
        else { startOption = try o.double("start-at").map { .seconds($0) } }
        let toleranceMS: Double = try o.number("tolerance-ms")
        var s = BleedAligner.Settings()
        if let m = try o.double("max-latency-ms") { s.maxLagSeconds = m / 1000 }
        let minConfidence: Double = try o.number("min-confidence")
        s.acceptConfidence = minConfidence
        let correctDrift = o.flag("correct-drift")
        let outDir = o.string("out-dir")
        let mixTemplate = o.string("mix")
        let duckDB: Double = try o.number("duck-db")

        let referencePath = o.string("reference")
        try o.check(Self.info.requirements)
        try o.checkRules("max-latency-ms", "min-confidence", "tolerance-ms")
        try o.checkRules("correct-drift", about: "reference")
        try o.checkRules("start-at", "mix", "duck-db")
        try o.checkRules("correct-drift", about: "out-dir")
        if let m = mixTemplate {
            if m.isEmpty || m.hasSuffix("/") { throw UsageError("--mix: give a file name, e.g. 'mix-{stem}.wav'.") }
            let single = o.paths.count == 1 && o.paths[0] != "-" && !PathBytes.isDirectory(o.paths[0])
            if !single && !m.contains("{stem}") {
                throw UsageError("--mix '\(m)' would be the same file for every take: put {stem} in it (e.g. 'mix-{stem}.wav'), or give one take.")
            }
        }
        if let d = outDir, d.isEmpty { throw UsageError("--out-dir needs a folder.") }

        var reference: VoAlignAudioFile?
        if let path = referencePath {
            // Checked (and, for a video, decoded) once per run: a reference that can't be read is
            // a usage error.
            do {
                let r = try VoAlignAudioFile(path)
                guard r.frames > 0 else { throw UsageError("--reference \(ToolError.quoted(path)) holds no audio frames.") }
                reference = r
            } catch let e as ToolErrorConvertible {
                let t = e.toolError(path: path)
                throw UsageError("--reference: \(t.message) \(t.suggestion)")
            }
        }
        aligner = TakeAligner(reference: reference, knownLatencyMS: knownLatencyMS, startOption: startOption, toleranceMS: toleranceMS,
                              settings: s, minConfidence: minConfidence, correctDrift: correctDrift, outDir: outDir,
                              mixTemplate: mixTemplate, duckDB: duckDB, overwrite: o.flag("overwrite"))
    }

    public func process(_ record: Record) throws -> Record {
        guard record.path == StandardInput.path else { return try aligner.align(record) }
        return try StreamedFiles.withSpooledStandardInput(record, key: "alignment", aligner.align)  // a take on stdin
    }

    /// A number for a message: whole numbers without decimals, others with up to `decimals`.
    package static func number(_ v: Double, _ decimals: Int = 3) -> String { AlignmentRecord.number(v, decimals) }
}
