import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// lufs-measure: BS.1770-4 / EBU R128 loudness of each file under `loudness`, with an optional
/// CI gate (`--target`/`--preset`), a JUnit report and a summary table.
public final class LufsMeasure: RecordTool {
    public static let info = ToolInfo(
        name: "lufs-measure", key: "loudness",
        abstract: "Measure loudness (ITU-R BS.1770-4 / EBU R128): integrated, range, momentary and short-term maxima, sample and true peak.",
        discussion: "Each file is decoded once, in blocks, and measured in a single pass. With --target or --preset every record also gets loudness.gate, and the exit status is 1 when any file misses the target, so the tool can gate a CI job. Values that do not exist (the loudness of silence, the short-term maximum of a file under 3 s) are null, with the reason in loudness.notes.",
        options: [
            LoudnessPreset.option(help: "Gate against a published delivery spec: \(LoudnessPreset.described). Explicit --target, --tolerance, --max-true-peak or --max-short-term override its values."),
            .number("target", "LUFS", in: -70...0, help: "Gate: the integrated loudness files must have (overrides the preset's)."),
            .number("tolerance", "LU", in: 0...30, help: "Gate: how far from --target is still a pass (default: the preset's, else 1).", rules: [.needs("target", "preset")]),
            .number("max-true-peak", "DBTP", in: -60...6, help: "Gate: the highest true peak allowed (overrides the preset's)."),
            .number("max-short-term", "LUFS", in: -70...6, help: "Gate: the highest short-term (3 s) loudness allowed anywhere in a file, as short-form rules set it (ebu-r128-s1: -18). A file shorter than 3 s fails it, having no short-term loudness."),
            .number("max-momentary", "LUFS", in: -70...6, help: "Gate: the highest momentary (400 ms) loudness allowed anywhere in a file."),
            .number("max-lra", "LU", in: 0...100, help: "Gate: the widest loudness range (EBU Tech 3342) allowed. A file shorter than 3 s fails it, having no loudness range."),
            .value("junit", "FILE", help: "Write a JUnit XML report (one testcase per file) to FILE, for CI systems that show them.", rules: [
                .needs("preset", "target", "max-true-peak", "max-short-term", "max-momentary", "qc-preset", "max-clipped-runs", "max-overs", "min-correlation", "max-head-silence", "max-tail-silence", "no-dropouts", "no-dead-channels", "no-inverted-channels", "max-lra", "max-sample-peak", "min-rms", "max-rms", "max-noise-floor", "max-dc-offset", message: "--junit needs a gate: give --preset or --target.")]),
            .value("layout", "LAYOUT", help: "Channel layout for weighting, overriding the file's: \(ChannelLayout.names), or a list like L,R,C,LFE,Ls,Rs or L,R,C,LFE,Lb,Rb,Lss,Rss,Ltf,Rtf,Ltb,Rtb. Weights follow BS.1770's rule: 1.41 for speakers 60° to 120° to the side below 30° of elevation, 1.0 elsewhere, LFE not counted.",
                   values: .choices(ChannelLayout.names.components(separatedBy: ", ")), check: { _ = try LufsMeasure.layout($0) }),
            .whole("stream", "N", in: 0...1023, help: "Measure only audio stream N of a file with several (counted from 0 among its audio streams, like ffmpeg's 0:a:N). Without it every audio stream is measured: loudness is the first one's, loudness.streams lists each."),
            .flag("dual-mono", help: "Count a mono file as two channels (+3 dB), as some platforms measure mono."),
            .flag("summary", help: "Print the gate's summary table on stderr even when stderr is not a terminal."),
            .value("report", "DIR", help: "Also write a loudness report into DIR (created if missing; other files in it are kept): index.html with one row per file, and an SVG picture per file of its loudness and true peak over time, with the gate's target and ceiling. Opens offline."),
            .flag("timeline", help: "Add loudness.timeline to each record: momentary and short-term loudness every 100 ms and true peak per 100 ms (null where undefined), the series behind the report's pictures."),
            .value("timeline-csv", "DIR", help: "Also write each file's loudness over time as DIR/NAME.csv (DIR created if missing; other files in it are kept): a row per 100 ms with time_s, momentary_lufs, short_term_lufs and the true peak so far, the series the report draws; an undefined value is an empty cell.",
                   rules: [.conflicts("decode-only", message: "--decode-only measures nothing, so there is no --timeline-csv to write.")]),
            .flag("per-channel", help: "Add loudness.per_channel: each channel's own integrated loudness (measured alone, weight 1.0, gated on its own blocks; the LFE too) and true peak, named by its position, to find the stem that is off.",
                  rules: [.conflicts("decode-only", message: "--decode-only measures nothing, so there is no --per-channel to give.")]),
            .flag("album", help: "Also measure each album as one programme (gated over all its tracks' blocks, as ReplayGain 2.0 album gain) into loudness.album; an album's records are written once its last track is measured.", rules: [.conflicts("decode-only", message: "--album measures loudness, so it can't be combined with --decode-only.")]),
            .choice("album-by", "tag|folder", AlbumKey.Grouping.allCases.map(\.rawValue), default: AlbumKey.Grouping.tag.rawValue, help: "What makes an album with --album: tag (default: album artist and album tags, a file without them by its folder) or folder (the file's folder only).",
                    completes: .text, rules: [.needs("album")]),
            .flag("dialogue", help: "Add loudness.dialogue: loudness gated over the 400 ms blocks that are at least half dialogue, found by a speech detector (Silero VAD, re-implemented) listening to the centre channel or the downmix; with its share, spans, LRA and the fallback rule (see docs/dialogue.md)."),
            .choice("gate-on", "dialogue|programme", ["dialogue", "programme"], help: "What the gate's target judges: dialogue-gated loudness (implies --dialogue; programme loudness when dialogue is under --min-dialogue-share) or programme loudness (default, except for dialogue-gated presets such as netflix).", completes: .text),
            .number("min-dialogue-share", "FRACTION", in: 0...1, help: "Under this share of dialogue (default 0.15) loudness.dialogue.fallback is true and a dialogue gate judges programme loudness."),
            .flag("decode-only", help: "Decode and count frames but measure nothing: the time decoding alone takes, to compare a measurement with.", rules: [.conflicts("report", "timeline", message: "--decode-only measures nothing, so there is no --report or --timeline to give.")]),
            .flag("keep-analysis", help: "With a cache: also keep each file's limiter analysis there (its loudness and peak every millisecond, about 29 MB an hour of audio), so that lufs-normalize with the same cache limits a loud file in one pass over it instead of two. The measurement takes up to about twice as long.", rules: [
                .conflicts("decode-only", message: "--decode-only analyses nothing, so there is nothing for --keep-analysis to keep.")]),
        ] + LufsMeasure.streamSpecs + CacheOptions.specs + LufsMeasureQC.specs,
        examples: [
            "lufs-measure song.wav",
            "lufs-measure media/ | jq -r '[.path, .loudness.integrated_lufs] | @tsv'",
            "lufs-measure --preset social --junit loudness.xml media/   # exit 1 if any file misses -14 LUFS / -1 dBTP",
            "lufs-measure --preset ebu-r128 --report out/loudness media/   # then open out/loudness/index.html",
            "lufs-measure --preset ebu-r128-s1 spots/   # adverts: -23 LUFS, short-term at most -18; an empty folder fails",
            "lufs-measure --layout 7.1.4 bed.wav | jq -c '.loudness.channels[] | [.name, .weight]'",
            "audio-probe media/ | library-filter | lufs-measure -j 2 > measurements.jsonl",
            "lufs-measure --album music/ | jq -c '{path, album: .loudness.album.integrated_lufs}'",
            "lufs-measure --cache ~/.cache/audio-tools.sqlite --preset podcast media/   # measures only what changed since the last run",
            "lufs-measure --cache c.sqlite --keep-analysis master.wav > master.jsonl   # lufs-normalize --cache c.sqlite then limits it in one read",
            "ffmpeg -v error -re -i stream.mkv -f wav - | lufs-measure --follow --preset ebu-r128 -   # a live meter: a line a second, then the record",
        ],
        exitNotes: "the gate")

    /// Each file's measurement, with the settings the options give.
    package var job: LoudnessMeasureJob
    package var gate: LoudnessGate? { job.gate }
    package var report: LoudnessReportWriter? { job.report }
    public var stage: RecordStage? { job.extras.platforms == nil ? job.albums : job.albums.map(PlatformAlbumStage.init) }
    package let junitPath: String?
    package let summary: Bool
    package let options: ParsedOptions
    package let cache: ResultCache?
    /// The rows of the summary table and the JUnit report.
    private lazy var log = GateLog(gated: gate != nil || job.extras.qcGate != nil)
    /// Whether stderr is a terminal (the summary table is then shown): asked once, not per record.
    private let stderrIsTerminal = isatty(2) != 0

    public init(options o: ParsedOptions) throws {
        let preset = try o.loudnessPreset()
        let target = try o.double("target") ?? preset?.targetLUFS
        let tolerance = try o.double("tolerance") ?? preset?.toleranceLU ?? 1
        let maxTP = try o.double("max-true-peak") ?? preset?.maxTruePeakDBTP
        let maxShortTerm = try o.double("max-short-term") ?? preset?.maxShortTermLUFS
        let maxMomentary = try o.double("max-momentary")
        let maxLRA = try o.double("max-lra")
        try o.checkRules("tolerance")
        let g0 = LoudnessGate(targetLUFS: target, toleranceLU: tolerance, maxTruePeakDBTP: maxTP,
                              maxShortTermLUFS: maxShortTerm, maxMomentaryLUFS: maxMomentary, maxLoudnessRangeLU: maxLRA)
        var gate = g0.isEmpty ? nil : g0
        // A mono file gated by a preset with a mono target (podcast: −19 LUFS), unless --target
        // overrides it or --dual-mono already counts the channel twice (+3 LU, the rule's reason).
        if try o.double("target") == nil, !o.flag("dual-mono") { gate?.monoTargetLUFS = preset?.monoTargetLUFS }
        junitPath = o.string("junit")
        try o.checkRules("junit")
        let layoutOverride: ChannelLayout?
        if let l = o.string("layout") {
            layoutOverride = try LufsMeasure.layout(l)
        } else { layoutOverride = nil }
        let dualMono = o.flag("dual-mono")
        let decodeOnly = o.flag("decode-only")
        summary = o.flag("summary")
        let timeline = o.flag("timeline")
        try o.checkRules("decode-only")
        // The report's gate is the loudness gate's and the QC gate's: either alone is a gate.
        let extras = try LufsMeasureQC.extras(o)
        let gateWords = LoudnessReportWriter.describe(loudness: gate.map { LoudnessReportWriter.describe($0, preset: preset?.name) },
                                                      qc: extras.qcGate.map { LoudnessReportWriter.describe($0, preset: o.string("qc-preset")) })
        let report = try o.string("report").map { try LoudnessReportWriter.forOption($0, title: "lufs-measure", gate: gateWords) }
        let grouping = AlbumKey.Grouping(rawValue: try o.chosen("album-by"))!
        try o.checkRules("album-by", "album")
        let albums = o.flag("album") ? AlbumStage(keyOf: { r in
            guard let p = r.path else { return nil }
            let t: (albumArtist: String?, album: String?) = grouping == .tag ? AlbumTags.read(p) : (nil, nil)
            return AlbumKey.of(path: p, albumArtist: t.albumArtist, album: t.album, grouping: grouping)
        }) : nil
        let stream = try o.int("stream")
        let cores = CoreBudget(jobs: try o.jobs())
        options = o
        let follow = try LufsMeasure.follow(o)
        try o.checkRules("keep-analysis")
        if o.flag("keep-analysis") {
            if follow != nil { throw UsageError("--keep-analysis keeps a file's analysis in the cache, and --follow measures a stream as it arrives, with no cache; leave one out.") }
            if try CacheOptions.path(o) == nil { throw UsageError("--keep-analysis keeps the analysis in the cache: give --cache FILE or set AUDIO_TOOLS_CACHE.") }
        }
        cache = follow == nil ? try CacheOptions.open(o) : nil  // a stream is measured as it arrives
        job = LoudnessMeasureJob(gate: gate, gateLabel: gate.map { LoudnessRecord.gateLabel($0, preset: preset?.name) } ?? .null,
                                 layoutOverride: layoutOverride, dualMono: dualMono, decodeOnly: decodeOnly, timeline: timeline,
                                 report: report, albums: albums, stream: stream, cores: cores,
                                 loudnessCache: cache.map { LoudnessCache(cache: $0, layout: layoutOverride, dualMono: dualMono) }, follow: follow)
            .adding(extras)
        if o.flag("keep-analysis") { job.analyses = cache.map(LimiterAnalysisCache.init) }
        let onDialogue = try o.choice("gate-on").map { $0 == "dialogue" } ?? preset?.gatesOnDialogue ?? false
        if o.flag("dialogue") || onDialogue {
            job.dialogue = DialogueMeasurement(minimumShare: try o.double("min-dialogue-share") ?? DialogueLoudness.defaultMinimumShare, gateOnDialogue: onDialogue)
        }
        if follow != nil && job.dialogue != nil {
            throw UsageError("--follow can't judge dialogue loudness yet (its live loop doesn't run the speech detector): measure the whole file with --preset \(preset?.name ?? "netflix"), or gate --follow on programme loudness (--gate-on programme).")
        }
        job.perChannel = o.flag("per-channel")
        // Last: it makes the folder.
        job.timelineCSV = try o.string("timeline-csv").map(TimelineCSVWriter.init(directory:))
    }

    /// The layout `--layout` names, or the usage error saying what is wrong with it.
    package static func layout(_ text: String) throws -> ChannelLayout {
        do { return try ChannelLayout.parse(text) } catch { throw UsageError("--layout: \(error)") }
    }

    /// `--cache-prune` alone prunes the cache.
    public static func withoutInput(_ options: ParsedOptions) { CacheOptions.withoutInput(options) }

    public func process(_ record: Record) throws -> Record {
        try job.cores.working { try job.measure(record) }
    }

    public func emitted(_ record: Record) {
        report?.emitted(record)
        job.timelineCSV?.emitted(record)
        // A QC gate alone is a gate too: its failures set the exit status.
        guard log.gated || summary || junitPath != nil || stderrIsTerminal else { return }
        log.add(record)
    }

    /// A gate over nothing fails: each folder argument that held no audio, or an input with no
    /// records at all, is an error (stderr, exit 1, a JUnit error). Without a gate, a warning.
    public func inputEnded(emptyDirectories: [String], records: Int) {
        guard log.gated else {
            for d in emptyDirectories { Diagnostics.warn(InputReport.noAudioMessage(d)) }
            return
        }
        var empty = emptyDirectories.map { (name: $0, message: InputReport.noAudioMessage($0)) }
        if records == 0, empty.isEmpty { empty.append((name: "(input)", message: "no audio files found in the input")) }
        for e in empty {
            Diagnostics.warn("error: \(e.message), so the gate has nothing to pass and fails.")
            log.addNothing(name: e.name, message: e.message)
        }
    }

    public func finish(stderrIsTerminal: Bool) -> Bool {
        CacheOptions.finish(cache, options: options)
        if let j = junitPath {
            do { try AtomicFile.write(log.junit, to: j) } catch {
                Diagnostics.warn("can't write the JUnit report to \(ToolError.quoted(j)): \(error)")
                return false
            }
        }
        if (stderrIsTerminal || summary), !log.rows.isEmpty, !job.decodeOnly { Diagnostics.write(log.summaryTable) }
        let reportWritten = (report?.finish() ?? true) && (job.timelineCSV?.finish() ?? true)
        return !log.anyFailed && reportWritten
    }
}
