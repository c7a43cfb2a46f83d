import Foundation

/// lufs-normalize: brings each file to a target loudness from the measurement its record already
/// carries (`loudness`, from lufs-measure), under a true-peak ceiling, into a new file; refuses
/// what would lose information, overwrite something, or use a measurement of another file state.
public final class LufsNormalize: RecordTool {
    public static let info = ToolInfo(
        name: "lufs-normalize", key: "normalized",
        abstract: "Normalise loudness to a target (LUFS) under a true-peak ceiling (dBTP), from the measurement lufs-measure already took.",
        discussion: "A record that carries `loudness` (lufs-measure's output) is normalised from that measurement, after checking that the file has not changed since; a bare path is measured here first (one extra pass, said in normalized.notes). The gain is linear; when it would push the true peak over the ceiling, --peak limit (the default) runs a look-ahead true-peak limiter that touches only the peaks and adds gain back so the loudness still lands on target. The output keeps the input's format, sample rate, channels, bit depth and tags unless asked otherwise; anything that would be lost is refused (lossy) unless --allow-loss, which lists it in normalized.losses. Outputs are written unnamed (O_TMPFILE) and linked into place when complete, so even kill -9 leaves nothing behind; a failed write is write-failed with the system's reason; an existing file is never replaced without --overwrite, and the input never without --in-place. normalized.integrated_lufs and true_peak_dbtp are measured on the samples actually written.",
        options: [
            .value("preset", "NAME", help: "Target and ceiling from a documented preset: \(LoudnessPreset.names) (the same table as lufs-measure's gate).", values: .choices(LoudnessPreset.all.map(\.name))),
            .value("target", "LUFS", help: "Integrated loudness to reach (overrides the preset's)."),
            .value("true-peak", "DBTP", help: "True-peak ceiling (overrides the preset's; default -1)."),
            .value("peak", "MODE", help: "When the gain would exceed the ceiling: limit (default: true-peak limiter, loudness kept on target), reduce (lower the gain to fit, report the shortfall), ignore (only into floating-point output).", values: .choices(PeakMode.allCases.map(\.rawValue))),
            .value("out-dir", "DIR", help: "Write outputs into DIR, keeping each file name (and the folders below a directory argument)."),
            .value("output-template", "TEMPLATE", help: "Output path from {dir}, {stem}, {ext}, e.g. '{dir}/{stem}.norm.{ext}' ({dir} is the input's folder, or the folder below a directory argument inside --out-dir)."),
            .value("relative-to", "DIR", help: "For paths read from standard input: keep their folders below DIR inside --out-dir (default: the file name only)."),
            .flag("in-place", help: "Replace each input with its normalised version (written completely to a temporary file first, then renamed over it)."),
            .flag("overwrite", help: "Replace output files that already exist."),
            .value("format", "FORMAT", help: "Output format: wav, flac, aiff, caf, w64, rf64, ogg, opus, mp3, m4a (AAC in M4A, lossy), alac (Apple Lossless in M4A) (default: the input's; a video file keeps its container).", values: .choices(LufsNormalizeFormat.formats.keys.sorted() + MediaAudioEncoding.m4aFormats)),
            .value("bit-depth", "BITS", help: "Output sample format: 8, 16, 24, 32 or float (default: the input's). 16 bits or fewer get TPDF dither.", values: .choices(["8", "16", "24", "32", "float"])),
            .value("sample-rate", "HZ", help: "Convert to this rate (libsamplerate, best quality) before normalising (default: the input's)."),
            .flag("allow-loss", help: "Go ahead when the output would lose something (lossy codec, fewer bits, channels or tags, a lower rate) and list it in normalized.losses."),
            .value("fade-in", "SECONDS", help: "Fade in over the first SECONDS (sample-accurate; before the limiter, counted in the loudness)."),
            .value("fade-out", "SECONDS", help: "Fade out over the last SECONDS."),
            .value("fade-curve", "CURVE", help: "linear (default) or exponential: gain x·e^(v(x−1)) at position x of a fade-in, mirrored for a fade-out.", values: .choices(["linear", "exponential"])),
            .value("fade-velocity", "V", help: "Steepness v of the exponential curve (0 is linear; default 5 with --fade-curve exponential)."),
            .value("report", "DIR", help: "Also write a loudness report into DIR (created if missing; other files in it are kept): each output's loudness and true peak over time drawn over its source's, before and after, and index.html. Costs one extra pass over a source whose measurement came in the record."),
            .flag("album", help: "One gain for each album, from loudness.album (lufs-measure --album): tracks keep their relative levels; the limiter touches only the peaks of tracks that need it, with no per-track compensation."),
            .flag("write-tags", help: "Write ReplayGain 2.0 tags (R128 gains in Opus) into the inputs instead of new audio: only the gain tags change, through a complete copy renamed over the file; a file already holding the values is not rewritten. Gains are relative to -18 LUFS unless --target is given."),
            .flag("dry-run", help: "With --write-tags: write nothing, and give each record the tags it has and the tags it would get."),
            .value("stream", "N", help: "In a media file with several audio streams, normalise only stream N (counted from 0 among the audio streams, like ffmpeg's 0:a:N); the others are copied unchanged. Default: every audio stream, each from its own measurement."),
            .flag("decode-encode-only", help: "Copy through the same decoder and encoder with no processing: the speed floor `make bench` compares against."),
        ],
        examples: [
            "lufs-measure media/ | lufs-normalize --preset social --out-dir build/",
            "lufs-normalize --target -16 --true-peak -1 --out-dir out a.wav b.flac",
            "lufs-normalize --preset ebu-r128 --output-template '{dir}/{stem}.r128.{ext}' show.wav",
            "lufs-normalize --preset podcast --format flac --bit-depth 16 --allow-loss --out-dir release/ episode.wav",
            "lufs-normalize --target -14 --fade-out 3 --fade-curve exponential --in-place song.wav",
            "lufs-measure --album album/ | lufs-normalize --album --target -16 --out-dir out/",
            "lufs-measure --album music/ | lufs-normalize --album --write-tags   # ReplayGain 2.0 tags, audio untouched",
        ])

    public let targetLUFS: Double
    public let ceilingDBTP: Double
    public let presetName: String?
    public let peakMode: PeakMode
    public let naming: LufsNormalizeNaming
    let overwrite: Bool
    let allowLoss: Bool
    let formatName: String?
    let depth: LufsNormalizeFormat.Depth?
    let sampleRate: Int?
    let fadeInSeconds: Double
    let fadeOutSeconds: Double
    let fadeCurve: FadeCurve
    let decodeEncodeOnly: Bool
    let reportWriter: LoudnessReportWriter?
    /// The tolerance the report's verdict allows around the target (the preset's, else 1 LU).
    let reportToleranceLU: Double
    /// One gain per album, from loudness.album.
    let album: Bool
    /// With --write-tags: the tag writer that handles every record instead.
    let tagger: LufsNormalizeTags?
    /// `--stream N`: the one audio stream of a media file to normalise.
    let stream: Int?
    /// Files in work against --jobs: a core no other file is using decodes ahead and meters true peak.
    let cores: CoreBudget
    /// Limiter margin under the ceiling, dB (NormalizePlan's default).
    static let limiterMargin = 0.15
    /// Passes over the stream when compensating for the limiter or fades (the written one included).
    static let maxPasses = 4
    /// The most gain added back for what the limiter takes, dB: beyond it the limiter would be
    /// squashing the programme rather than touching peaks.
    static let maxCompensationDB = 6.0
    /// Peaks in a record are rounded to 0.01 dB: `--peak reduce` plans from the peak plus this.
    static let roundingAllowanceDB = 0.01

    /// Output paths planned for the path arguments, by input path as the walk yields it.
    private let planned: [String: String]
    /// Path-argument inputs whose output another input also writes, with those others.
    private let collisions: [String: [String]]
    /// Every path-argument input, absolute.
    private let argumentInputs: Set<String>
    private let claimLock = NSLock()
    /// Output (absolute) → the input that claimed it, for records read from standard input.
    private var claims: [String: String] = [:]

    public init(options o: ParsedOptions) throws {
        let preset = try o.loudnessPreset()
        let writeTags = o.flag("write-tags")
        album = o.flag("album")
        if o.flag("dry-run"), !writeTags { throw UsageError("--dry-run goes with --write-tags (normalising into new files never touches the inputs anyway).") }
        guard let target = try o.double("target", in: -70 ... -1) ?? preset?.targetLUFS
                ?? (writeTags ? GainValues.defaultReferenceLUFS : nil) else {
            throw UsageError("No target: give --target LUFS (e.g. --target -16) or --preset NAME (\(LoudnessPreset.names)).")
        }
        targetLUFS = target
        ceilingDBTP = try o.double("true-peak", in: -30...0) ?? preset?.maxTruePeakDBTP ?? -1
        presetName = preset?.name
        peakMode = PeakMode(rawValue: try o.choice("peak", PeakMode.allCases.map(\.rawValue)) ?? "limit")!

        let inPlace = o.flag("in-place")
        let outDir = o.string("out-dir")
        let template = o.string("output-template")
        if inPlace, outDir != nil || template != nil {
            throw UsageError("--in-place replaces the inputs, so it can't be combined with --out-dir or --output-template.")
        }
        tagger = writeTags ? try LufsNormalizeTags(options: o, referenceLUFS: target, album: album) : nil
        if !writeTags, !inPlace, outDir == nil, template == nil {
            throw UsageError("Say where the outputs go: --out-dir DIR (same file names in DIR), --output-template '{dir}/{stem}.norm.{ext}' (next to each input under a new name), or --in-place (replace the inputs).")
        }
        if let t = template, !t.contains("{stem}") {
            throw UsageError("--output-template: '\(t)' has no {stem}, so every input would get the same name.")
        }
        formatName = try o.choice("format", LufsNormalizeFormat.formats.keys.sorted() + MediaAudioEncoding.m4aFormats)
        if inPlace, formatName != nil {
            throw UsageError("--in-place keeps each file's name, so it can't change its --format; use --out-dir or --output-template.")
        }
        if let d = o.string("bit-depth") {
            guard let v = LufsNormalizeFormat.Depth(d) else { throw UsageError("--bit-depth: '\(d)' is not one of: 8, 16, 24, 32, float.") }
            depth = v
        } else { depth = nil }
        sampleRate = try o.int("sample-rate", in: 8000...384_000)
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
        overwrite = o.flag("overwrite")
        allowLoss = o.flag("allow-loss")
        fadeInSeconds = try o.double("fade-in", in: 0...3600) ?? 0
        fadeOutSeconds = try o.double("fade-out", in: 0...3600) ?? 0
        let curveName = try o.choice("fade-curve", ["linear", "exponential"])
        let velocity = try o.double("fade-velocity", in: 0...50)
        if curveName == "linear", let v = velocity, v != 0 {
            throw UsageError("--fade-velocity \(v) needs --fade-curve exponential (linear is velocity 0).")
        }
        fadeCurve = FadeCurve(velocity: curveName == "linear" ? 0 : (velocity ?? (curveName == "exponential" ? 5 : 0)))
        decodeEncodeOnly = o.flag("decode-encode-only")
        if decodeEncodeOnly, o.has("report") { throw UsageError("--decode-encode-only normalises nothing, so there is no --report to draw.") }
        reportToleranceLU = preset?.toleranceLU ?? 1
        let reportGate = LoudnessReportWriter.describe(LoudnessGate(targetLUFS: target, toleranceLU: reportToleranceLU, maxTruePeakDBTP: ceilingDBTP), preset: preset?.name)
        reportWriter = try o.string("report").map { try LoudnessReportWriter(directory: $0, title: "lufs-normalize (outputs over their sources)", gate: reportGate) }
        stream = try o.int("stream", in: 0...1023)
        cores = CoreBudget(jobs: try o.jobs())
        let ext = formatName.map { LufsNormalizeFormat.formats[$0]?.ext ?? "m4a" }
        let naming = LufsNormalizeNaming(outDir: outDir, template: template, inPlace: inPlace,
                                         relativeTo: o.string("relative-to"), formatExtension: ext)
        self.naming = naming

        // Plan every path argument's output now, so inputs that would write the same file are
        // refused before anything is written.
        var planned: [String: String] = [:]
        var byOutput: [String: [String]] = [:]
        func add(_ p: String, base: String?) {
            guard let out = naming.output(for: p, base: base) else { return }
            if planned[p] != nil { byOutput[LufsNormalizeNaming.absolute(out), default: []].append(p); return }
            planned[p] = out
            byOutput[LufsNormalizeNaming.absolute(out), default: []].append(p)
        }
        for a in o.paths where a != "-" && !writeTags {
            var st = stat()
            if PathBytes.stat(a, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                for p in DirectoryWalker(root: a) { add(p, base: a) }
            } else {
                add(a, base: nil)
            }
        }
        var collisions: [String: [String]] = [:]
        for (_, inputs) in byOutput where inputs.count > 1 {
            for i in inputs { collisions[i] = inputs.filter { $0 != i } }
        }
        self.planned = planned
        self.collisions = collisions
        argumentInputs = Set(planned.keys.map(LufsNormalizeNaming.absolute))
        // Records read from standard input may not take an output a path argument writes.
        claims = Dictionary(planned.map { (LufsNormalizeNaming.absolute($0.value), $0.key) }, uniquingKeysWith: { a, _ in a })
    }

    // MARK: processing

    public func process(_ record: Record) throws -> Record {
        if let tagger { return try tagger.process(record) }
        return try cores.working { try normalize(record) }
    }

    func normalize(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let name = ToolError.quoted(path)
        let outPath = try outputPath(for: path)
        let outName = ToolError.quoted(outPath)
        if !naming.inPlace, !overwrite, PathBytes.exists(outPath) {
            throw ToolError(.exists, "\(outName) already exists, so \(name) was not normalised into it; nothing was written.",
                            suggestion: "Pass --overwrite to replace it, or choose another --out-dir or --output-template.")
        }

        let opened = try Decoder.open(path)
        if let f = formatName, MediaAudioEncoding.m4aFormats.contains(f) {
            if depth != nil || sampleRate != nil {
                throw UsageError("--format \(f) keeps the input's sample rate and depth; leave out --bit-depth and --sample-rate.")
            }
            return try processMedia(record, path: path, outPath: outPath, opened: opened, m4a: f)!
        }
        let input = opened.source
        let inFormat = input.format
        let description: SndfileDescription
        var tags = AudioTags()
        if let d = opened.sndfile {
            if let n = stream { try MediaAudioStreams.check(n, count: 1, path: path) }
            description = d
            tags = (input as? SndfileSource)?.tags ?? AudioTags()
        } else {
            // Decoded by ffmpeg (MP4, MOV, Matroska, ...): written back through ffmpeg in its own
            // container, unless an audio-only --format is asked for.
            if formatName == nil, !decodeEncodeOnly,
               let r = try processMedia(record, path: path, outPath: outPath, opened: opened) { return r }
            let facts = opened.facts
            let container = facts?.container ?? "its container"
            let codec = facts?.codec ?? "other"
            guard formatName != nil else {
                throw ToolError(.unsupportedCodec, "\(name) is \(codec.uppercased()) in \(container.uppercased()), which can be read but not written back in the same format; nothing was written.",
                                suggestion: "Choose the output format with --format (flac or wav keep everything the decoded audio has).")
            }
            let lossless = ["alac", "pcm", "float", "flac"].contains(codec)
            description = SndfileDescription(container: container, codec: codec,
                                             bitDepth: lossless ? facts?.audio?.bitsPerSample : nil,
                                             isFloat: codec == "float", isLossy: !lossless, channelNames: opened.speakerNames, formatCode: 0)
            if let t = facts?.tags {
                tags.title = t.title; tags.artist = t.artist; tags.album = t.album; tags.genre = t.genre
                tags.date = t.year; tags.trackNumber = t.track
            }
        }
        let resolved: (format: LufsNormalizeFormat, tags: AudioTags, losses: [String])
        do {
            resolved = try LufsNormalizeFormat.resolve(input: description, inputRate: inFormat.sampleRate,
                                                       inputChannels: inFormat.channelCount, tags: tags,
                                                       format: formatName, depth: depth, sampleRate: sampleRate)
        } catch {
            let why: String
            switch error {
            case .depthNotHeld(let c, let d): why = "\(c) can't hold \(d) samples"
            case .notWritable(let what): why = "this build can't write \(what)"
            }
            throw ToolError(.unsupportedCodec, "\(name) can't be written as asked: \(why).",
                            suggestion: "Choose another --format or --bit-depth (WAV takes every depth and channel count).")
        }
        let out = resolved.format

        var source: AudioSource = input
        if out.channelCount < inFormat.channelCount {
            source = LufsNormalizeChannelSubsetSource(source, channelCount: out.channelCount)
        }
        if out.sampleRate != inFormat.sampleRate {
            source = try LufsNormalizeResampledSource(source, toRate: out.sampleRate, quality: .best)
        }

        if decodeEncodeOnly {
            let sink = try SndfileSink(path: outPath, formatCode: out.formatCode, sampleRate: out.sampleRate,
                                       channelCount: out.channelCount, overwrite: overwrite || naming.inPlace, tags: resolved.tags)
            do {
                let frames = try Decoder.forEachBlock(source) { try sink.write($0) }
                try sink.commit()
                var r = record
                r["normalized"] = .object(["output": .string(outPath), "decode_encode_only": .bool(true),
                                           "frames": .int(frames), "format": out.json])
                return r
            } catch { sink.abandon(); throw error }
        }

        if peakMode == .ignore, !out.isFloat {
            throw ToolError(.lossy, "\(name) would be written as \(LufsNormalizeFormat.depthName(out.bitDepth, false)) fixed point, which can't hold the peaks --peak ignore lets through; nothing was written.",
                            suggestion: "Add --bit-depth float (WAV, AIFF or CAF), or use --peak limit or --peak reduce.")
        }
        if !resolved.losses.isEmpty, !allowLoss {
            throw ToolError(.lossy, "Normalising \(name) as asked would lose information: \(resolved.losses.joined(separator: "; ")). Nothing was written.",
                            suggestion: "Pass --allow-loss to go ahead (the losses are then listed in normalized.losses), or choose an output that keeps everything: a lossless --format such as wav or flac, and no lower --bit-depth or --sample-rate.")
        }

        // With --album: the album's measurement, refused before any work when the record has none.
        let albumValues = album ? try LufsNormalizeTags.albumValues(record, path: path) : nil
        // The measurement: the record's, if it is of this file as it is now; else measured here.
        var notes: [String] = []
        var passes = 0
        let loudness = record["loudness"]
        var layout = Self.layout(loudness: loudness, description: description, channelCount: inFormat.channelCount)
        if out.channelCount < layout.channelCount {
            layout = ChannelLayout(roles: Array(layout.roles.prefix(out.channelCount)))
        }
        let positionLoss = SndfileSink.positionLoss(layout, formatCode: out.formatCode)
        if let loss = positionLoss, !allowLoss {
            throw ToolError(.lossy, "Normalising \(name) as asked would lose information: \(loss). Nothing was written.",
                            suggestion: "Write WAV, CAF or AIFF (--format wav), which record the channel positions, or pass --allow-loss to go ahead (the loss is then listed in normalized.losses).")
        }
        var measured: (integrated: Double?, truePeak: Double?)? = nil
        if let l = loudness, l.objectValue != nil, let lufs = l["integrated_lufs"] {
            if let id = FileIdentity(json: l["file"]) {
                if id != opened.identity {
                    throw ToolError(.staleMeasurement, "\(name) has changed since it was measured (\(Self.change(from: id, to: opened.identity))), so its measurement no longer applies; nothing was written.",
                                    suggestion: "Measure it again (lufs-measure \(Self.shellQuoted(path)) | lufs-normalize ...), or pass the bare path to have it measured here.")
                }
                if !lufs.isNull && lufs.doubleValue == nil {
                    throw ToolError(.badInput, "The loudness in \(name)'s record is not a number.",
                                    suggestion: "Pass the record lufs-measure wrote, unchanged.")
                }
                measured = (lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue)
            } else {
                notes.append("The record's loudness carries no file identity to check it against, so the file was measured here (one extra pass).")
            }
        } else {
            notes.append("The record carried no loudness measurement, so the file was measured here (one extra pass).")
        }
        let converted = source !== input
        if measured != nil, converted {
            notes.append("The record's measurement is of the input as it is; the converted stream (\(out.sampleRate) Hz, \(out.channelCount) channel\(out.channelCount == 1 ? "" : "s")) was measured again here.")
        }
        var measuredHere = false
        // The report draws the source from the record's timeline when it has one (lufs-measure --timeline).
        var sourceTimeline = reportWriter == nil || converted ? nil : LoudnessTimeline(loudness: loudness).flatMap { $0.sampleRate == out.sampleRate ? $0 : nil }
        if measured == nil || converted || (reportWriter != nil && sourceTimeline == nil) {
            let meter = LoudnessMeter(sampleRate: out.sampleRate, weights: layout.weights, collectsTimeline: reportWriter != nil)
            try Decoder.forEachBlock(source) { meter.add($0) }
            try source.seek(toFrame: 0)
            let m = meter.finish()
            sourceTimeline = meter.timeline
            if measured == nil || converted {
                measured = (m.integratedLUFS, m.truePeakDBTP)
                measuredHere = true
            } else {
                notes.append("The source was read once more to draw it in the report (--report).")
            }
            passes += 1
        }
        let sourceLUFS = albumValues.map { $0.lufs } ?? measured!.integrated
        // Album mode: --peak reduce lowers the one gain for the album's loudest peak; the limiter
        // works per track, from the track's own peak.
        var sourcePeak = (albumValues != nil && peakMode == .reduce ? albumValues!.truePeak : measured!.truePeak) ?? -200
        if peakMode == .reduce { sourcePeak += Self.roundingAllowanceDB }

        let gain: NormalizeGainPlan
        do {
            gain = try NormalizeGainPlan(measuredLUFS: sourceLUFS, measuredTruePeakDBTP: sourcePeak, targetLUFS: targetLUFS,
                                         ceilingDBTP: ceilingDBTP, mode: peakMode)
        } catch { throw error.toolError(path: path) }

        let fadeIn = Int((fadeInSeconds * Double(out.sampleRate)).rounded())
        let fadeOut = Int((fadeOutSeconds * Double(out.sampleRate)).rounded())
        let hasFades = fadeIn > 0 || fadeOut > 0
        // Compensation passes when limiting or fades take loudness away (not for reduce, whose
        // gain is already as high as the ceiling allows).
        let compensate = !album && ((peakMode == .limit && (gain.limiterNeeded || hasFades)) || (peakMode == .ignore && hasFades))
        if let a = albumValues {
            notes.append("Album gain: \(String(format: "%.2f", gain.gainDB)) dB for every track of “\(a.key)” (\(a.tracks) tracks, \(a.lufs.map { String(format: "%.2f", $0) } ?? "no") LUFS as one programme), so the tracks keep their relative levels; no track gets its own compensation gain.")
        }
        let limit = peakMode == .limit
            && (compensate || gain.predictedTruePeakDBTP > ceilingDBTP - Self.limiterMargin - 0.05)
        let dither: Int? = (!out.isFloat && !out.isLossy && (out.bitDepth ?? 24) <= 16) ? out.bitDepth : nil
        let plan = NormalizePlan(gainDB: gain.gainDB, fadeInFrames: fadeIn, fadeOutFrames: fadeOut, fadeCurve: fadeCurve,
                                 ceilingDBTP: ceilingDBTP, limit: limit, marginDB: Self.limiterMargin,
                                 ditherBitDepth: dither)

        // A written pass: a new file (unnamed until committed) and the meter of what reaches it.
        let weights = layout.weights, rate = out.sampleRate, timeline = reportWriter != nil, cores = self.cores
        var sink: SndfileSink? = nil
        var finalMeter: LoudnessMeter? = nil
        func makeOutput() throws -> NormalizePipeline.Output {
            let s = try SndfileSink(path: outPath, formatCode: out.formatCode, sampleRate: rate,
                                    channelCount: out.channelCount, overwrite: overwrite || naming.inPlace, tags: resolved.tags)
            s.setSpeakers(layout.roles)
            let meter = LoudnessMeter(sampleRate: rate, weights: weights, collectsTimeline: timeline)
            sink = s
            finalMeter = meter
            return .init(sink: s, onOutputBlock: { meter.add($0, onTwoCores: cores.hasSpareCore) }, integrated: { meter.finish().integratedLUFS })
        }
        let report: NormalizeReport
        do {
            if compensate {
                report = try NormalizePipeline.runCompensated(
                    plan, targetLUFS: targetLUFS, source: source, makeOutput: makeOutput,
                    makeMeter: {
                        let m = LoudnessMeter(sampleRate: rate, weights: weights, measuresTruePeak: false)
                        return NormalizePipeline.LoudnessProbe(add: { m.add($0) }, integrated: { m.finish().integratedLUFS })
                    },
                    maxPasses: Self.maxPasses, maxCompensationDB: Self.maxCompensationDB,
                    decodeAhead: cores.hasSpareCore).report
            } else {
                let output = try makeOutput()
                report = try NormalizePipeline.run(plan, source: source, sink: output.sink, decodeAhead: cores.hasSpareCore,
                                                   onOutputBlock: output.onOutputBlock)
            }
            try sink!.commit()
        } catch let e as NormalizePipeline.Failure {
            sink?.abandon()
            throw ToolError(.malformed, "\(name) could not be normalised (\(e == .unknownLength ? "its length is unknown, which a fade-out needs" : "its channel count changed mid-stream")); nothing was written.",
                            suggestion: "Convert it to WAV or FLAC first.")
        } catch {
            sink?.abandon()
            throw error
        }
        passes += report.passes
        let m = finalMeter!.finish()

        var losses = resolved.losses + (positionLoss.map { [$0] } ?? [])
        if report.clampedSamples > 0 {
            losses.append("\(report.clampedSamples) samples were over full scale and were clamped when quantising")
        }
        if out.isLossy {
            notes.append("The loudness and true peak are of the samples handed to the \(out.displayName) encoder; decoding the file gives them back only to within the codec's error.")
        }
        if report.framesLimited > 0 {
            let seconds = Double(report.framesLimited) / Double(out.sampleRate)
            notes.append("The limiter reduced \(report.framesLimited) frames (\(String(format: "%.2f", seconds)) s) by up to \(String(format: "%.2f", report.maxReductionDB)) dB" +
                         (abs(report.compensationDB) >= 0.005 ? "; \(String(format: "%.2f", report.compensationDB)) dB of extra gain kept the loudness on target." : "."))
        }
        var shortfall: Double? = nil
        if peakMode == .reduce, gain.shortfallLU > 0 {
            // An album track is not meant to reach the target itself: the album is what falls short.
            let s = albumValues != nil ? gain.shortfallLU : (m.integratedLUFS.map { targetLUFS - $0 } ?? gain.shortfallLU)
            shortfall = s
            notes.append("The gain was lowered by \(String(format: "%.2f", gain.shortfallLU)) dB to keep the true peak under the ceiling: the \(albumValues != nil ? "album" : "file") is \(String(format: "%.2f", s)) LU under the \(LoudnessGate.compact(targetLUFS)) LUFS target.")
        } else if peakMode == .ignore, let tp = m.truePeakDBTP, tp > ceilingDBTP {
            notes.append("--peak ignore let the true peak reach \(String(format: "%.2f", tp)) dBTP, over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling (the floating-point file holds it).")
        }
        if !album, peakMode != .reduce, let lufs = m.integratedLUFS, abs(lufs - targetLUFS) > 0.3 {
            notes.append("The output is \(String(format: "%.2f", abs(lufs - targetLUFS))) LU \(lufs < targetLUFS ? "under" : "over") the target: reaching it would take more than \(Int(Self.maxCompensationDB)) dB of limiting, which would squash the programme rather than touch its peaks. Use --peak reduce, a lower --target, or compress the programme first.")
        }
        if m.integratedLUFS == nil { notes.append("The output has no measurable integrated loudness (under the −70 LUFS gate or shorter than 0.4 s).") }
        if hasFades { notes.append("Fades are included in the loudness measured on the output.") }

        var o: [String: JSON] = [
            "output": .string(outPath),
            "gain_db": .double(report.gainDB, decimals: 2),
            "compensation_db": .double(report.compensationDB, decimals: 2),
            "integrated_lufs": .optional(m.integratedLUFS, decimals: 2),
            "true_peak_dbtp": .optional(m.truePeakDBTP, decimals: 2),
            "sample_peak_dbfs": .optional(m.samplePeakDBFS, decimals: 2),
            "limiter": .object([
                "frames": .int(report.framesLimited),
                "max_reduction_db": .double(report.maxReductionDB, decimals: 2),
                "applied": .bool(report.framesLimited > 0),
            ]),
            "losses": .array(losses.map { .string($0) }),
            "target_lufs": .double(targetLUFS),
            "ceiling_dbtp": .double(ceilingDBTP),
            "preset": presetName.map { .string($0) } ?? .null,
            "peak_mode": .string(peakMode.rawValue),
            "passes": .int(passes),
            "measured_here": .bool(measuredHere),
            "source_integrated_lufs": .optional(sourceLUFS, decimals: 2),
            "source_true_peak_dbtp": .optional(measured!.truePeak, decimals: 2),
            "shortfall_lu": .optional(shortfall, decimals: 2),
            "format": out.json,
            "dither": .bool(dither != nil),
            "frames": .int(report.framesWritten),
            "notes": .array(notes.map { .string($0) }),
        ]
        if hasFades {
            o["fades"] = .object([
                "in": .object(["frames": .int(fadeIn), "rate": .int(out.sampleRate)]),
                "out": .object(["frames": .int(fadeOut), "rate": .int(out.sampleRate)]),
                "in_seconds": .double(Double(fadeIn) / Double(out.sampleRate), decimals: 6),
                "out_seconds": .double(Double(fadeOut) / Double(out.sampleRate), decimals: 6),
                "velocity": .double(fadeCurve.velocity),
            ])
        }
        reportWriter?.draw(.normalized(name: "\(path) → \(outPath)", output: m, timeline: finalMeter!.timeline, source: sourceTimeline,
                                 sourceIntegratedLUFS: sourceLUFS, sourceTruePeakDBTP: measured!.truePeak,
                                 targetLUFS: targetLUFS, toleranceLU: reportToleranceLU, ceilingDBTP: ceilingDBTP,
                                 gainDB: report.gainDB, limitedSeconds: Double(report.framesLimited) / Double(out.sampleRate),
                                 maxReductionDB: report.maxReductionDB), for: path)
        var r = record
        r["normalized"] = .object(o)
        return r
    }

    public func emitted(_ record: Record) { reportWriter?.emitted(record) }
    public func finish(stderrIsTerminal: Bool) -> Bool { reportWriter?.finish() ?? true }

    /// The output path for `path`, refusing inputs that would write over another's output or an
    /// input, or (for standard input) an output an earlier record has claimed.
    func outputPath(for path: String) throws -> String {
        let name = ToolError.quoted(path)
        let planned = self.planned[path]
        guard let out = planned ?? naming.output(for: path, base: nil) else {
            throw ToolError(.badInput, "\(name) is not inside the --relative-to folder, so its place under --out-dir is unknown.",
                            suggestion: "Give a --relative-to folder that contains every input, or leave it out to keep only file names.")
        }
        if let others = collisions[path] {
            throw ToolError(.exists, "\(name) and \(others.map(ToolError.quoted).joined(separator: ", ")) would all be written to \(ToolError.quoted(out)); none of them was written.",
                            suggestion: "Keep them apart with --output-template (e.g. '{dir}/{stem}.{ext}' under --out-dir, which keeps the folders), or normalise them in separate runs.")
        }
        let absIn = LufsNormalizeNaming.absolute(path)
        let absOut = LufsNormalizeNaming.absolute(out)
        if !naming.inPlace {
            if absOut == absIn {
                throw ToolError(.exists, "Normalising \(name) would replace it: the output path is the input itself; nothing was written.",
                                suggestion: "Pass --in-place to replace the input on purpose, or choose another --out-dir or --output-template.")
            }
            if argumentInputs.contains(absOut) {
                throw ToolError(.exists, "Normalising \(name) would replace another input, \(ToolError.quoted(out)); nothing was written.",
                                suggestion: "Choose an --out-dir or --output-template that doesn't point at the inputs.")
            }
        }
        return out
    }

    /// Claims each stdin record's output path in input order (ToolMain calls this serially), so
    /// of two records that would write the same file the earlier one always wins.
    public func prepare(_ record: Record) throws {
        guard tagger == nil, let path = record.path, planned[path] == nil else { return }
        let out = try outputPath(for: path)
        let absOut = LufsNormalizeNaming.absolute(out)
        claimLock.lock()
        let earlier = claims[absOut]
        if earlier == nil { claims[absOut] = path }
        claimLock.unlock()
        if let earlier {
            let name = ToolError.quoted(path)
            throw ToolError(.exists, "\(name) would be written to \(ToolError.quoted(out)), which \(ToolError.quoted(earlier)) earlier in the input also writes; \(name) was not written.",
                            suggestion: "Keep them apart with --relative-to (to keep folders under --out-dir) or --output-template, or normalise them in separate runs.")
        }
    }

    /// The layout the measurement used (the record's, or the file's channel map, or the default
    /// for the channel count, as lufs-measure chooses it), so the output is measured alike.
    static func layout(loudness: JSON?, description: SndfileDescription, channelCount: Int) -> ChannelLayout {
        if channelCount == 1, loudness?["dual_mono"]?.boolValue == true { return .dualMono }
        if let s = loudness?["layout"]?.stringValue, let l = try? ChannelLayout.parse(s), l.roles.count == channelCount,
           !l.isDualMono {
            return l
        }
        if let names = description.channelNames, !names.contains("?"),
           let l = try? ChannelLayout.parse(names.joined(separator: ",")), l.roles.count == channelCount {
            return l
        }
        return ChannelLayout.standard(channelCount: channelCount)
    }

    /// What changed between two identities, in words.
    static func change(from old: FileIdentity, to new: FileIdentity) -> String {
        var parts: [String] = []
        if old.sizeBytes != new.sizeBytes { parts.append("size \(old.sizeBytes) → \(new.sizeBytes) bytes") }
        if old.modifiedNanoseconds != new.modifiedNanoseconds { parts.append("modified since") }
        return parts.joined(separator: ", ")
    }

    static func shellQuoted(_ s: String) -> String {
        s.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
