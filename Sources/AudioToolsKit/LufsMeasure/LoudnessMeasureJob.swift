import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// lufs-measure's work on one file: the cache's measurement, or the file decoded once and
/// measured (each audio stream, or the `--stream` one), drawn into the report, handed to its
/// album, stored in the cache, and written as the record's `loudness`.
package struct LoudnessMeasureJob {
    package let gate: LoudnessGate?
    /// The gate's settings as `loudness.gate` shows them (null without a gate).
    package let gateLabel: JSON
    package let layoutOverride: ChannelLayout?
    package let dualMono: Bool
    package let decodeOnly: Bool
    package let timeline: Bool
    package let report: LoudnessReportWriter?
    /// The album stage (with --album).
    package let albums: AlbumStage?
    /// `--stream N`: the one audio stream to measure.
    package let stream: Int?
    package let cores: CoreBudget
    package let loudnessCache: LoudnessCache?
    /// `--follow`: read as it arrives, a line per interval (LoudnessFollow).
    package var follow: LoudnessFollow? = nil
    /// --qc and --platforms (LoudnessMeasureJob+QC.swift).
    package var extras = LoudnessExtras()
    /// `--dialogue`: the speech detector and `loudness.dialogue` (cached under the detector's version).
    package var dialogue: DialogueMeasurement? = nil
    /// `--keep-analysis`: the limiter's analysis of each file made beside its measurement and kept
    /// in the cache for lufs-normalize (a file whose analysis is missing is measured afresh).
    package var analyses: LimiterAnalysisCache? = nil
    /// `--per-channel`: `loudness.per_channel`, each channel's own loudness and true peak.
    package var perChannel = false
    /// `--timeline-csv DIR`: each file's series as a CSV table in DIR.
    package var timelineCSV: TimelineCSVWriter? = nil

    /// The loudness object without its series: `timeline` off it and off each of its `streams`
    /// (a file of several streams carries one per stream), as a record without --timeline has it.
    package static func withoutSeries(_ loudness: JSON) -> JSON {
        guard case .object(var o) = loudness else { return loudness }
        o["timeline"] = nil
        if case .array(let streams)? = o["streams"] {
            o["streams"] = .array(streams.map { s in
                guard case .object(var so) = s else { return s }
                so["timeline"] = nil
                return .object(so)
            })
        }
        return .object(o)
    }

    package func measure(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        // The cache keeps no gating blocks, so --album measures every file afresh (and still stores it).
        let loudnessCache = try dialogue.map { self.loudnessCache?.keyed(dialogue: try $0.cacheKey) } ?? self.loudnessCache
        var cached: (entry: LoudnessCache.Entry?, stamp: FileStamp?) = decodeOnly || stream != nil || albums != nil || !extras.isEmpty
            ? (nil, nil) : loudnessCache?.lookup(path: path, forGate: gate != nil) ?? (nil, nil)
        if dialogue?.gateOnDialogue == true, gate != nil, cached.entry?.dialogue == nil { cached.entry = nil }
        // With --keep-analysis, a hit counts only when the file's analysis is kept too.
        let openedForHit: Decoder.Opened? = analyses != nil && cached.entry != nil ? try Decoder.open(path) : nil
        if let o = openedForHit, let analyses, !analyses.has(path: path, identity: o.identity, weights: try measuredWeights(o),
                                                             sampleRate: o.source.format.sampleRate) {
            cached.entry = nil
        }
        // The cache keeps measurements, not series: --timeline and --report measure afresh.
        if let hit = cached.entry, !timeline, report == nil, timelineCSV == nil, !perChannel {
            var out = record
            out["loudness"] = hit.loudness(gate: gate.map { g in { m in
                if let d = hit.dialogue, self.dialogue?.gateOnDialogue == true {
                    return DialogueMeasurement.gateJSON(g, label: self.gateLabel, m, dialogueLUFS: d.integratedLUFS, fallback: d.fallback)
                }
                return LoudnessRecord.gateJSON(g, label: self.gateLabel, m)
            } })
            return out
        }
        let opened = try openedForHit ?? follow?.open(path) ?? Decoder.open(path)
        let source = opened.source
        let analysisStamp = analyses == nil ? nil : LimiterAnalysisCache.stamp(path: path, identity: opened.identity)
        let fmt = source.format
        if decodeOnly {
            let frames = try Decoder.forEachBlock(source) { _ in }
            var r = record
            r["loudness"] = .object(["frames": .int(frames), "sample_rate": .int(fmt.sampleRate), "decode_only": .bool(true)])
            return r
        }
        let chosen = try ChannelLayout.choose(override: layoutOverride, speakerNames: opened.speakerNames, channelCount: fmt.channelCount)
        var out = record
        var firstMeasurement: LoudnessMeasurement?
        var firstBlocks: LoudnessBlocks?
        var firstDialogue: DialogueLoudness?
        var each: [Int: LoudnessMeasurement] = [:]  // every stream's, by ordinal, for the report
        var analysis: (model: LimitedLoudnessModel, weights: [Double])?
        var loudness = try measureStreams(path: path, opened: opened, firstLayout: chosen.layout,
                                          firstNote: chosen.note, firstSource: chosen.source.rawValue,
                                          keepFirst: { firstMeasurement = $0; firstBlocks = $1 }, keepDialogue: { firstDialogue = $0 },
                                          keepEach: { each[$0] = $1 }, keepAnalysis: analyses == nil ? nil : { analysis = ($0, $1) })
        if let q = takeQC(&loudness) { out["qc"] = q }
        loudness = DecodeNotes.adding(opened.decodeNotes, to: loudness)
        // The series ride in the JSON from the stream measurement; the report draws them, and
        // they stay in the record only with --timeline (never in the cache).
        loudness = StreamedInputRecord.mark(loudness, opened: opened)  // `-` or --follow: the pipe, its notes
        var plain = Self.withoutSeries(loudness)
        if let m = firstMeasurement ?? stream.flatMap({ each[$0] }) {
            // A dialogue-gated gate judges the dialogue loudness in the report as in the record.
            var judged = m
            if dialogue?.gateOnDialogue == true, let d = firstDialogue, !d.fallback { judged.integratedLUFS = d.integratedLUFS }
            var item = LoudnessReportItem(name: path, measurement: judged, timeline: LoudnessTimeline(loudness: loudness), gate: gate)
            item.integratedLUFS = m.integratedLUFS
            report?.draw(item.addingQC(out["qc"])
                .addingDialogue(loudness["dialogue"]).addingChannels(loudness["per_channel"])
                .addingStreams(loudness, measurements: each, gate: gate), for: path)
        }
        if let t = LoudnessTimeline(loudness: loudness) { timelineCSV?.prepare(t, for: path) }
        if !timeline { loudness = DialogueMeasurement.withoutSpans(loudness) }  // drawn above, not recorded
        plain = DialogueMeasurement.withoutSpans(plain)
        if !timeline { loudness = plain }
        out["loudness"] = loudness
        // --album: the file's one stream goes into its album (a file of several streams is not counted).
        if let m = firstMeasurement, let b = firstBlocks, loudness["streams"] == nil {
            albums?.deposit(path: path, track: AlbumStage.Track(blocks: b, samplePeak: m.samplePeaks.max() ?? 0, truePeak: m.truePeaks.max()))
        }
        // Only a file's one stream is kept: a hit re-evaluates the gate on it alone.
        if stream == nil, loudness["streams"] == nil, extras.isEmpty, !perChannel, dialogue == nil || firstDialogue != nil, let m = firstMeasurement {
            loudnessCache?.store(path: path, stamp: cached.stamp, identity: opened.identity, loudness: plain, measurement: m,
                                 dialogue: firstDialogue.map { ($0.integratedLUFS, $0.fallback) })
        }
        if stream == nil, loudness["streams"] == nil, let a = analysis {
            analyses?.store(a.model, path: path, stamp: analysisStamp, weights: a.weights)
        }
        return out
    }

    /// The channel weights the file's (first) stream is measured with, as `measure` weighs it.
    package func measuredWeights(_ opened: Decoder.Opened) throws -> [Double] {
        let n = opened.source.format.channelCount
        if dualMono && n == 1 { return ChannelLayout.dualMono.weights }
        return try ChannelLayout.choose(override: layoutOverride, speakerNames: opened.speakerNames, channelCount: n).layout.weights
    }

    /// One stream's `loudness` object: `source` measured under `layout` (or dual mono).
    /// `keep` is handed the measurement itself (the cache keeps it, to evaluate gates on a hit).
    package func measure(_ source: AudioSource, layout: ChannelLayout, identity: FileIdentity,
                 note layoutNote: String?, layoutSource: String,
                 keep: ((LoudnessMeasurement, LoudnessBlocks) -> Void)? = nil,
                 keepDialogue: ((DialogueLoudness) -> Void)? = nil,
                 keepAnalysis: ((LimitedLoudnessModel, [Double]) -> Void)? = nil) throws -> JSON {
        let dual = dualMono && source.format.channelCount == 1
        let weighted = dual ? ChannelLayout.dualMono : layout
        let meter = LoudnessMeter(sampleRate: source.format.sampleRate, weights: weighted.weights, collectsTimeline: timeline || report != nil || timelineCSV != nil,
                                  measuresChannels: perChannel, timelinePeaksSoFar: !timeline && report == nil && follow == nil)
        let qc = qcAnalyser(source.format, layout: layout, meter: meter)
        let speech = try dialogue?.detector(layout: weighted, sampleRate: source.format.sampleRate)
        // The limiter's analysis, as lufs-normalize's analysis pass would make it (LimiterAnalysisCache):
        // the meter's K-weighting serves it too, where the two filter alike.
        let analyzer = keepAnalysis == nil ? nil
            : LimitedLoudnessAnalyzer.beside(meter, limit: true)
                ?? LimitedLoudnessAnalyzer(sampleRate: source.format.sampleRate, weights: weighted.weights, limit: true)
        // A core no other file is using when the file starts: decoding (with the true peak of some
        // channels) on one thread, K-weighting (and the other channels' true peak) on this one.
        if let f = follow {
            try f.run(source, meter: meter, gate: gate.map { ($0, gateLabel) })
        } else if cores.hasSpareCore {
            let n = source.format.channelCount
            // The limiter's analysis, when kept, takes the decoding thread's share of true peak.
            let k = analyzer != nil ? 0 : LoudnessMeter.peakChannelsBesideDecoding(channelCount: n, decodingIsCheap: source.decodesCheaply)
            try ReadAhead.forEachBlock(source, afterRead: { analyzer?.add($0); meter.addPeaks($0, channels: 0..<k, timeline: true) }, {
                meter.addPeaks($0, channels: k..<n, timeline: false)
                meter.addLoudness($0)
                qc?.add($0)
                try speech?.add($0)
            })
        } else {
            try Decoder.forEachBlock(source) { meter.add($0); qc?.add($0); try speech?.add($0); analyzer?.add($0) }
        }
        if let analyzer { keepAnalysis?(analyzer.finish(settings: TruePeakLimiter.Settings(ceilingDBTP: -1)), weighted.weights) }
        var m = meter.finish()
        if let n = layoutNote, !dual { m.notes.append(n) }
        if !dual, let n = layout.ffmpegWeightingNote { m.notes.append(n) }
        var loudness = LoudnessRecord.json(m, layout: layout, dualMono: dual, identity: identity,
                                           gate: gate.map { ($0, gateLabel) })
        if case .object(var o) = loudness { o["layout_source"] = .string(layoutSource); loudness = .object(o) }
        loudness = addingExtras(loudness, m, qc: qc, layout: layout, blocks: meter.blocks.momentary)
        if let t = meter.timeline, case .object(var o) = loudness { o["timeline"] = t.json; loudness = .object(o) }
        loudness = PerChannelRecord.adding(meter.channelLoudness, layout: layout, to: loudness)
        if let d = dialogue, let s = speech {
            loudness = try d.apply(s, blocks: meter.blocks, measurement: m, layout: weighted, gate: gate.map { ($0, gateLabel) }, timeline: timeline || (report != nil && keep != nil), to: loudness, found: keepDialogue)
        }
        keep?(m, meter.blocks)
        return loudness
    }

    /// The `loudness` of a file: its only stream, the `--stream` one, or its first audio stream
    /// with every audio stream under `streams` when it has more than one.
    package func measureStreams(path: String, opened: Decoder.Opened, firstLayout: ChannelLayout,
                        firstNote: String?, firstSource: String,
                        keepFirst: ((LoudnessMeasurement, LoudnessBlocks) -> Void)? = nil,
                        keepDialogue: ((DialogueLoudness) -> Void)? = nil,
                        keepEach: ((Int, LoudnessMeasurement) -> Void)? = nil,
                        keepAnalysis: ((LimitedLoudnessModel, [Double]) -> Void)? = nil) throws -> JSON {
        // The record's identity has the fingerprint of the file's bytes (a stream has no file to read).
        let identity = opened.identity.changedNanoseconds == nil ? opened.identity : opened.identity.fingerprinted(path: path)
        func first(_ source: AudioSource) throws -> JSON {
            try measure(source, layout: firstLayout, identity: identity, note: firstNote, layoutSource: firstSource,
                        keep: { keepFirst?($0, $1); keepEach?(0, $0) }, keepDialogue: keepDialogue, keepAnalysis: keepAnalysis)
        }
        guard let streams = try MediaAudioStreams.list(path, opened: opened, needed: stream != nil) else {
            if let n = stream { try MediaAudioStreams.check(n, count: 1, path: path) }
            return try first(opened.source)
        }
        func one(_ k: Int, _ source: AudioSource) throws -> [String: JSON] {
            var o: [String: JSON]
            if k == 0 {
                o = try first(source).objectValue ?? [:]
            } else if let l = layoutOverride, l.roles.count == source.format.channelCount {
                o = try measure(source, layout: l, identity: identity, note: nil, layoutSource: "option",
                                keep: { m, _ in keepEach?(k, m) }).objectValue ?? [:]
            } else {
                // Weighted by the positions ffmpeg decoded for this stream, as the first one is.
                let names = (source as? FFmpegSource)?.channelMask.flatMap {
                    ChannelLayout.speakerNames(waveMask: $0, channelCount: source.format.channelCount)
                }
                let r = ChannelLayout.resolve(speakerNames: names, channelCount: source.format.channelCount)
                o = try measure(source, layout: r.layout, identity: identity, note: r.guessed ? r.layout.guessNote : nil,
                                layoutSource: r.fromFile ? "file" : "channel-count", keep: { m, _ in keepEach?(k, m) }).objectValue ?? [:]
            }
            for (key, v) in MediaAudioStreams.json(streams[k], ordinal: k) { o[key] = v }
            return o
        }
        if let n = stream {
            try MediaAudioStreams.check(n, count: streams.count, path: path)
            let source = n == 0 ? opened.source : try FFmpegSource(path: path, audioStream: n)
            return .object(try one(n, source))
        }
        guard streams.count > 1 else { return try first(opened.source) }
        var all: [[String: JSON]] = [try one(0, opened.source)]
        for k in 1..<streams.count { all.append(try one(k, try FFmpegSource(path: path, audioStream: k))) }
        var first = all[0]
        first["streams"] = .array(all.map { .object($0) })
        return .object(first)
    }
}
