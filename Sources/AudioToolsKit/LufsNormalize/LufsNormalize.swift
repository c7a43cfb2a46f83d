import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// lufs-normalize: brings each file to a target loudness from the measurement its record already
/// carries (`loudness`, from lufs-measure), under a true-peak ceiling, into a new file; refuses
/// what would lose information, overwrite something, or use a measurement of another file state.
public final class LufsNormalize: RecordTool {
    public static let info = ToolInfo(
        name: "lufs-normalize", key: "normalized",
        abstract: "Normalise loudness to a target (LUFS) under a true-peak ceiling (dBTP), from the measurement lufs-measure already took.",
        discussion: "A record that carries `loudness` (lufs-measure's output) is normalised from that measurement, after checking that the file has not changed since; a bare path is measured here first (one extra pass, said in normalized.notes). The gain is linear; when it would push the true peak over the ceiling, --peak limit (the default) runs a look-ahead true-peak limiter that touches only the peaks and adds gain back so the loudness still lands on target. The output keeps the input's format, sample rate, channels, bit depth and tags unless asked otherwise; anything that would be lost is refused (lossy) unless --allow-loss, which lists it in normalized.losses. Outputs are written unnamed (O_TMPFILE) and linked into place when complete, so even kill -9 leaves nothing behind; a failed write is write-failed with the system's reason; an existing file is never replaced without --overwrite, and the input never without --in-place. normalized.integrated_lufs and true_peak_dbtp are measured on the samples actually written.",
        options: [
            LoudnessPreset.option(help: "Target and ceiling from a documented preset: \(LoudnessPreset.names) (the same table as lufs-measure's gate)."),
            .number("target", "LUFS", in: -70 ... -1, help: "Integrated loudness to reach (overrides the preset's)."),
            .choice("gate-on", "dialogue|programme", ["dialogue", "programme"], help: "What the target is for: dialogue-gated loudness, taken from the record's loudness.dialogue (measure with lufs-measure --dialogue), or programme loudness (default, except for dialogue-gated presets such as netflix).", completes: .text),
            .number("true-peak", "DBTP", in: -30...0, help: "True-peak ceiling (overrides the preset's; default -1)."),
            .choice("peak", "MODE", PeakMode.allCases.map { $0.rawValue }, default: PeakMode.limit.rawValue, help: "When the gain would exceed the ceiling: limit (default: true-peak limiter, loudness kept on target), reduce (lower the gain to fit, report the shortfall), ignore (only into floating-point output)."),
            LufsNormalize.outputSpec, RawPCM.spec,
            .value("out-dir", "DIR", help: "Write outputs into DIR, keeping each file name (and the folders below a directory argument)."),
            .value("output-template", "TEMPLATE", help: "Output path from {dir}, {stem}, {ext}, e.g. '{dir}/{stem}.norm.{ext}' ({dir} is the input's folder, or the folder below a directory argument inside --out-dir)."),
            .value("relative-to", "DIR", help: "For paths read from standard input: keep their folders below DIR inside --out-dir (default: the file name only)."),
            .flag("in-place", help: "Replace each input with its normalised version (written completely to a temporary file first, then renamed over it).", rules: [
                .conflicts("out-dir", "output-template", message: "--in-place replaces the inputs, so it can't be combined with --out-dir or --output-template."),
                .conflicts("format", message: "--in-place keeps each file's name, so it can't change its --format; use --out-dir or --output-template."),
            ]),
            .flag("overwrite", help: "Replace output files that already exist."),
            .choice("format", "FORMAT", LufsNormalizeFormat.formats.keys.sorted() + MediaAudioEncoding.m4aFormats, help: "Output format: wav, flac, aiff, caf, w64, rf64, ogg, opus, mp3, m4a (AAC in M4A, lossy), alac (Apple Lossless in M4A) (default: the input's; a video file keeps its container)."),
            .value("bit-depth", "BITS", help: "Output sample format: 8, 16, 24, 32 or float (default: the input's). 16 bits or fewer get TPDF dither.", values: .choices(["8", "16", "24", "32", "float"]),
                   check: { _ = try LufsNormalize.depth($0) }),
            .whole("sample-rate", "HZ", in: 8000...384_000, help: "Convert to this rate (libsamplerate, best quality) before normalising (default: the input's)."),
            .flag("allow-loss", help: "Go ahead when the output would lose something (lossy codec, fewer bits, channels or tags, a lower rate) and list it in normalized.losses."),
            .number("fade-in", "SECONDS", in: 0...3600, default: 0, help: "Fade in over the first SECONDS (sample-accurate; before the limiter, counted in the loudness)."),
            .number("fade-out", "SECONDS", in: 0...3600, default: 0, help: "Fade out over the last SECONDS."),
            .choice("fade-curve", "CURVE", ["linear", "exponential"], help: "linear (default) or exponential: gain x·e^(v(x−1)) at position x of a fade-in, mirrored for a fade-out."),
            .number("fade-velocity", "V", in: 0...50, help: "Steepness v of the exponential curve (0 is linear; default 5 with --fade-curve exponential)."),
            .value("report", "DIR", help: "Also write a loudness report into DIR (created if missing; other files in it are kept): each output's loudness and true peak over time drawn over its source's, before and after, and index.html. Costs one extra pass over a source whose measurement came in the record."),
            .flag("album", help: "One gain for each album, from loudness.album (lufs-measure --album): tracks keep their relative levels; the limiter touches only the peaks of tracks that need it, with no per-track compensation."),
            .flag("write-tags", help: "Write ReplayGain 2.0 tags (R128 gains in Opus) into the inputs instead of new audio: only the gain tags change, through a complete copy renamed over the file; a file already holding the values is not rewritten. Gains are relative to -18 LUFS unless --target is given.",
                  rules: [.conflicts("out-dir", "output-template", "relative-to", "in-place", "overwrite", "format", "bit-depth",
                                     "sample-rate", "allow-loss", "fade-in", "fade-out", "fade-curve", "fade-velocity",
                                     "peak", "true-peak", "decode-encode-only", "bit-rate", "quality", "channels",
                                     message: "--write-tags changes only the gain tags of the inputs and writes no audio, so it can't be combined with --{other}.")]),
            .flag("dry-run", help: "With --write-tags: write nothing, and give each record the tags it has and the tags it would get. With --remove-tags: write nothing, and give each record the tags it would lose. With --lossless-gain: write nothing, and give each record the steps and the result.",
                  rules: [.needs("write-tags", "remove-tags", "lossless-gain", message: "--dry-run goes with --write-tags, --remove-tags or --lossless-gain (normalising into new files never touches the inputs anyway).")]),
        ] + LufsNormalize.tagOptions + [
            .flag("lossless-gain", help: "MP3, AAC-LC (ADTS, M4A, MP4/MOV audio) and Opus: change the gain in the bitstream instead of decoding (MP3's and AAC's global_gain in whole 1.5-dB steps; Opus's header gain), with an undo record (mp3gain's for MP3, aacgain's for MP4/M4A/MOV, a comment for Opus) that --undo-lossless-gain applies, lowered a step to keep the true peak under the ceiling; a file that can't reach the target within half a step is refused (lossy). See docs/lossless-gain.md.",
                  rules: [.conflicts("format", "bit-depth", "sample-rate", "fade-in", "fade-out", "fade-curve", "fade-velocity", "album",
                                     "report", "write-tags", "decode-encode-only", "stream", "allow-loss",
                                     "bit-rate", "quality", "channels",
                                     message: "--lossless-gain only changes the gain in the bitstream, so it can't be combined with --{other}.")]),
            .flag("undo-lossless-gain", help: "MP3, AAC in MP4/M4A/MOV, and Opus: apply the undo record a lossless gain left in the file (--lossless-gain's, mp3gain's or aacgain's) and remove it, so the audio is the original's bytes again; nothing is measured. See docs/lossless-gain.md.",
                  rules: [.conflicts("lossless-gain", "target", "preset", "gate-on", "true-peak", "peak", "format", "bit-depth", "sample-rate",
                                     "allow-loss", "fade-in", "fade-out", "fade-curve", "fade-velocity", "report", "album", "write-tags",
                                     "dry-run", "stream", "decode-encode-only", "output", "bit-rate", "quality", "channels", "remove-tags",
                                     message: "--undo-lossless-gain only restores the gain a lossless gain changed, so it can't be combined with --{other}.")]),
            .whole("stream", "N", in: 0...1023, help: "In a media file with several audio streams, normalise only stream N (counted from 0 among the audio streams, like ffmpeg's 0:a:N); the others are copied unchanged. Default: every audio stream, each from its own measurement."),
            .flag("decode-encode-only", help: "Copy through the same decoder and encoder with no processing: the time a copy alone takes, to compare a normalisation with.",
                  rules: [.conflicts("report", message: "--decode-encode-only normalises nothing, so there is no --report to draw.")]),
        ] + LufsNormalize.deliverySpecs + LufsNormalize.codecPeakSpecs + CacheOptions.specs,
        examples: [
            "lufs-measure media/ | lufs-normalize --preset social --out-dir build/",
            "lufs-normalize --target -16 --true-peak -1 --out-dir out a.wav b.flac",
            "lufs-normalize --preset ebu-r128 --output-template '{dir}/{stem}.r128.{ext}' show.wav",
            "lufs-normalize --preset podcast --format flac --bit-depth 16 --allow-loss --out-dir release/ episode.wav",
            "lufs-normalize --target -14 --fade-out 3 --fade-curve exponential --in-place song.wav",
            "lufs-measure --album album/ | lufs-normalize --album --target -16 --out-dir out/",
            "lufs-measure --album music/ | lufs-normalize --album --write-tags   # ReplayGain 2.0 tags, audio untouched",
            "lufs-measure --cache c.sqlite --keep-analysis master.wav | lufs-normalize --cache c.sqlite --target -9 --out-dir loud/   # limited in one read of the file",
        ])

    /// Each file's normalisation, with the settings the options give.
    package var job: LoudnessNormalizeJob
    /// With --write-tags or --remove-tags: the tag job that handles every record instead.
    package let tagger: (any GainTagJob)?
    package let options: ParsedOptions
    /// `--cache`: limiter analyses (lufs-measure --keep-analysis, or an earlier run's) instead of analysis passes.
    package let cache: ResultCache?

    public init(options o: ParsedOptions) throws {
        let preset = try o.loudnessPreset()
        let editsTags = o.flag("write-tags") || o.flag("remove-tags")  // only the inputs' tags change
        let album = o.flag("album")
        let undo = o.flag("undo-lossless-gain")
        try o.checkRules("undo-lossless-gain")
        try o.checkRules("dry-run")
        // An undo aims at no target (the one given here is never used).
        guard let target = try o.double("target") ?? preset?.targetLUFS
                ?? (editsTags ? GainValues.defaultReferenceLUFS : nil) ?? (undo ? GainValues.defaultReferenceLUFS : nil) else {
            throw UsageError("No target: give --target LUFS (e.g. --target -16) or --preset NAME (\(LoudnessPreset.names)).")
        }
        let ceilingDBTP = try o.double("true-peak") ?? preset?.maxTruePeakDBTP ?? -1
        let peakMode = PeakMode(rawValue: try o.chosen("peak"))!
        let codecPeak = try LufsNormalize.codecPeakRule(o)

        let inPlace = o.flag("in-place")
        let outDir = o.string("out-dir")
        let template = o.string("output-template")
        try o.checkRules("in-place", about: "out-dir")
        try o.checkRules("write-tags")
        tagger = try LufsNormalize.tagJob(o, referenceLUFS: target, album: album)
        let output = try LufsNormalize.output(o)
        if !editsTags, !inPlace, outDir == nil, template == nil, output == nil {
            throw UsageError("Say where the outputs go: --out-dir DIR (same file names in DIR), --output-template '{dir}/{stem}.norm.{ext}' (next to each input under a new name), or --in-place (replace the inputs).")
        }
        if let t = template, !t.contains("{stem}") {
            throw UsageError("--output-template: '\(t)' has no {stem}, so every input would get the same name.")
        }
        if let t = template, outDir != nil, !LufsNormalizeNaming.staysInside(t) {
            throw UsageError("--output-template: '\(t)' would write outside --out-dir (it is absolute or has a '..'); with --out-dir the template names a path inside it.")
        }
        let formatName = try o.choice("format")
        try o.checkRules("in-place", about: "format")
        // Parsed here: besides the five it offers, it takes the spellings Depth knows (double, f32...).
        let depth: LufsNormalizeFormat.Depth?
        if let d = o.string("bit-depth") {
            depth = try LufsNormalize.depth(d)
        } else { depth = nil }
        let sampleRate = try o.int("sample-rate")
        if peakMode == .ignore {
            if let d = depth, case .pcm = d {
                throw UsageError("--peak ignore lets peaks through that only a floating-point file can hold; use --bit-depth float, or --peak limit or reduce.")
            }
            if let f = formatName, ["flac", "ogg", "opus", "mp3"].contains(f) {
                throw UsageError("--peak ignore needs floating-point output, which --format \(f) can't hold; use wav, aiff or caf with --bit-depth float, or --peak limit or reduce.")
            }
        }
        if let f = formatName, let d = depth, f == "flac", d == .float || d == .double || d == .pcm(32) {
            throw UsageError("--format flac holds 8, 16 or 24 bits, not --bit-depth \(o.string("bit-depth")!).")
        }
        let overwrite = o.flag("overwrite")
        let allowLoss = o.flag("allow-loss")
        let fadeInSeconds: Double = try o.number("fade-in")
        let fadeOutSeconds: Double = try o.number("fade-out")
        let curveName = try o.choice("fade-curve")
        let velocity = try o.double("fade-velocity")
        if curveName == "linear", let v = velocity, v != 0 {
            throw UsageError("--fade-velocity \(v) needs --fade-curve exponential (linear is velocity 0).")
        }
        let fadeCurve = FadeCurve(velocity: curveName == "linear" ? 0 : (velocity ?? (curveName == "exponential" ? 5 : 0)))
        let decodeEncodeOnly = o.flag("decode-encode-only")
        try o.checkRules("decode-encode-only")
        let reportToleranceLU = preset?.toleranceLU ?? 1
        let reportGate = LoudnessReportWriter.describe(LoudnessGate(targetLUFS: target, toleranceLU: reportToleranceLU, maxTruePeakDBTP: ceilingDBTP), preset: preset?.name)
        let reportWriter = try o.string("report").map { try LoudnessReportWriter.forOption($0, title: "lufs-normalize (outputs over their sources)", gate: reportGate) }
        let stream = try o.int("stream")
        let cores = CoreBudget(jobs: try o.jobs())
        let ext = formatName.map { LufsNormalizeFormat.formats[$0]?.ext ?? "m4a" }
        let naming = LufsNormalizeNaming(outDir: outDir, template: template, inPlace: inPlace,
                                         relativeTo: o.string("relative-to"), formatExtension: ext)

        // Every path argument's output is planned now, so inputs that would write the same file
        // are refused before anything is written.
        let outputs = OutputClaims(naming: naming, paths: editsTags ? [] : o.paths)
        job = LoudnessNormalizeJob(targetLUFS: target, ceilingDBTP: ceilingDBTP, presetName: preset?.name, peakMode: peakMode,
                                   naming: naming, overwrite: overwrite, allowLoss: allowLoss, formatName: formatName, depth: depth,
                                   sampleRate: sampleRate, fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds,
                                   fadeCurve: fadeCurve, decodeEncodeOnly: decodeEncodeOnly, reportWriter: reportWriter,
                                   reportToleranceLU: reportToleranceLU, album: album, stream: stream, cores: cores, outputs: outputs,
                                   output: output,
                                   lossless: o.flag("lossless-gain") ? LosslessGainJob(targetLUFS: target, ceilingDBTP: ceilingDBTP, presetName: preset?.name,
                                                                                       replaces: overwrite || inPlace, dryRun: o.flag("dry-run")) : nil)
        job.undo = undo ? LosslessGainUndo(replaces: overwrite || inPlace) : nil
        if try o.double("target") == nil, !editsTags { job.monoTargetLUFS = preset?.monoTargetLUFS }
        job.rate = try LufsNormalize.lossyRate(o, format: formatName)
        job.channels = try LufsNormalize.channels(o, format: formatName)
        job.codecPeakRule = codecPeak
        options = o
        cache = editsTags ? nil : try CacheOptions.open(o)
        job.analyses = cache.map(LimiterAnalysisCache.init)
        job.dialogueGated = try o.choice("gate-on").map { $0 == "dialogue" } ?? preset?.gatesOnDialogue ?? false
        if job.dialogueGated && job.lossless != nil {
            throw UsageError("--lossless-gain takes its gain from programme loudness, so it can't aim at a dialogue-gated target (--gate-on dialogue or --preset \(preset?.name ?? "netflix")); use --gate-on programme, or normalise without --lossless-gain.")
        }
    }

    /// The sample format `--bit-depth` names (besides the five it offers, the spellings Depth
    /// knows: double, f32...), or the usage error listing them.
    package static func depth(_ d: String) throws -> LufsNormalizeFormat.Depth {
        guard let v = LufsNormalizeFormat.Depth(d) else { throw UsageError("--bit-depth: '\(d)' is not one of: 8, 16, 24, 32, float.") }
        return v
    }

    // MARK: processing

    public func process(_ record: Record) throws -> Record {
        if let tagger { return try tagger.process(record) }
        return try job.cores.working { try job.normalize(record) }
    }

    public func emitted(_ record: Record) { job.reportWriter?.emitted(record) }
    public func finish(stderrIsTerminal: Bool) -> Bool {
        CacheOptions.finish(cache, options: options)
        return job.reportWriter?.finish() ?? true
    }

    /// `--cache-prune` alone prunes the cache.
    public static func withoutInput(_ options: ParsedOptions) { CacheOptions.withoutInput(options) }

    /// Claims each stdin record's output path in input order (ToolMain calls this serially), so
    /// of two records that would write the same file the earlier one always wins.
    public func prepare(_ record: Record) throws {
        guard tagger == nil, job.output == nil, let path = record.path else { return }
        try job.outputs.claim(for: path)
    }
}
