import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// lufs-normalize's work on one file: the output checked, the source described and what it would
/// lose refused, the record's measurement used when it is of this file as it is now (else the file
/// measured here), the gain planned, the new file written and measured, and `normalized` built.
package struct LoudnessNormalizeJob {
    package var targetLUFS: Double
    /// The preset's mono target (podcast: −19 LUFS), when no --target overrides it.
    package var monoTargetLUFS: Double? = nil
    /// The mono target was chosen for this file (a note says so).
    package var monoTargetNote: String? = nil
    package let ceilingDBTP: Double
    package let presetName: String?
    package let peakMode: PeakMode
    package let naming: LufsNormalizeNaming
    package let overwrite: Bool
    package let allowLoss: Bool
    package let formatName: String?
    package let depth: LufsNormalizeFormat.Depth?
    package let sampleRate: Int?
    package let fadeInSeconds: Double
    package let fadeOutSeconds: Double
    package let fadeCurve: FadeCurve
    package let decodeEncodeOnly: Bool
    package let reportWriter: LoudnessReportWriter?
    /// The tolerance the report's verdict allows around the target (the preset's, else 1 LU).
    package let reportToleranceLU: Double
    /// One gain per album, from loudness.album.
    package let album: Bool
    /// `--stream N`: the one audio stream of a media file to normalise.
    package let stream: Int?
    /// Files in work against --jobs: a core no other file is using decodes ahead, encodes and meters behind.
    package let cores: CoreBudget
    /// Which input writes which output.
    package let outputs: OutputClaims
    /// `--output FILE|-`, and the one output path it gives (StandardInputNormalize).
    package var output: String? = nil
    package var fixedOutPath: String? = nil
    /// --lossless-gain: the gain changed in the bitstream instead (LosslessGainJob.swift).
    package var lossless: LosslessGainJob? = nil
    /// --undo-lossless-gain: the file's undo record of a lossless gain applied instead (LosslessGainUndo.swift).
    package var undo: LosslessGainUndo? = nil
    /// The target is dialogue-gated: the gain comes from the record's `loudness.dialogue`.
    package var dialogueGated = false
    /// `--bit-rate` or `--quality` for a lossy output.
    package var rate: LossyRate? = nil
    /// `--channels`: downmix to this many channels (Downmix).
    package var channels: Int? = nil
    /// The cache's limiter analyses (`--cache`): read instead of an analysis pass, kept after one.
    package var analyses: LimiterAnalysisCache? = nil
    /// `--codec-peak`: the limit a lossy output gives up when both can't hold (CodecLanding.plan).
    package var codecPeakRule: CodecPeakRule = .hold
    /// Limiter margin under the ceiling, dB (NormalizePlan's default).
    package static let limiterMargin = 0.15
    /// Passes over the stream when compensating for the limiter or fades (the written one included).
    package static let maxPasses = 4
    /// The most gain added back for what the limiter takes, dB: beyond it the limiter would be
    /// squashing the programme rather than touching peaks.
    package static let maxCompensationDB = 6.0
    /// Peaks in a record are rounded to 0.01 dB: `--peak reduce` plans from the peak plus this.
    package static let roundingAllowanceDB = 0.01

    /// A media file (MP4, MOV, Matroska) written back in its own container by MediaFileNormalizer,
    /// or as an audio-only M4A (`m4a`: "m4a" or "alac"). Nil when it is not one MediaMuxer writes back.
    package func processMedia(_ record: Record, _ path: String, _ outPath: String, _ opened: Decoder.Opened, _ m4a: String?) throws -> Record? {
        var settings = MediaNormalization.Settings(targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, peakMode: peakMode,
                                                   fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds, fadeCurve: fadeCurve,
                                                   limiterMarginDB: Self.limiterMargin, roundingAllowanceDB: Self.roundingAllowanceDB,
                                                   maxPasses: Self.maxPasses, maxCompensationDB: Self.maxCompensationDB)
        settings.rule = codecPeakRule
        var media = MediaFileNormalizer(settings: settings, stream: stream, convertsFormat: depth != nil || sampleRate != nil,
                                        allowLoss: allowLoss, overwrite: overwrite || naming.inPlace, presetName: presetName)
        media.rate = rate
        if channels != nil, m4a == nil { media.refusesDownmix = true }
        return try media.process(record, path: path, outPath: outPath, opened: opened, m4a: m4a)
    }

    package func normalize(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let name = ToolError.quoted(path)
        if output != nil || path == StandardInput.path { return try normalizeStreamed(record) }  // `-`, --output
        let outPath = try fixedOutPath ?? outputs.outputPath(for: path)
        if !naming.inPlace, !overwrite, PathBytes.exists(outPath) {
            throw ToolError(.exists, "\(ToolError.quoted(outPath)) already exists, so \(name) was not normalised into it; nothing was written.",
                            suggestion: "Pass --overwrite to replace it, or choose another --out-dir or --output-template.")
        }

        if let link = naming.linkInsideOutDir(outPath) {
            throw ToolError(.writeFailed, "\(ToolError.quoted(link)) is a symbolic link inside --out-dir, and no output is written through one, so \(name) was not normalised; nothing was written.",
                            suggestion: "Replace the link with a real folder, or give the folder it points to as --out-dir.")
        }
        if let undo { return try undo.process(record, path: path, outPath: outPath) }
        if let lossless { return try lossless.process(record, path: path, outPath: outPath) }
        let opened = try Decoder.open(path, streams: true)
        // A dialogue-gated target takes the record's dialogue loudness; a record with no `loudness`
        // (a bare path) is measured here, dialogue included.
        let dialogueHere = dialogueGated && !DialogueNormalization.recordHasLoudness(record["loudness"])
        var dialogue = dialogueGated && !dialogueHere ? try DialogueNormalization(loudness: record["loudness"], identity: opened.identity, path: path) : nil
        if let f = formatName, MediaAudioEncoding.m4aFormats.contains(f) {
            if depth != nil || sampleRate != nil {
                throw UsageError("--format \(f) keeps the input's sample rate and depth; leave out --bit-depth and --sample-rate.")
            }
            if dialogueGated { throw DialogueNormalization.Refusal.mediaContainer }
            return try processMedia(record, path, outPath, opened, f)!
        }
        let described: (SndfileDescription, AudioTags)
        if let d = NormalizeSource.sndfileDescription(opened) {
            if let n = stream { try MediaAudioStreams.check(n, count: 1, path: path) }
            described = d
        } else {
            // Decoded by ffmpeg (MP4, MOV, Matroska, ...): written back through ffmpeg in its own
            // container, unless an audio-only --format is asked for.
            if formatName == nil, !decodeEncodeOnly, dialogueGated { throw DialogueNormalization.Refusal.mediaContainer }
            if formatName == nil, !decodeEncodeOnly,
               let r = try processMedia(record, path, outPath, opened, nil) { return r }
            do { described = try NormalizeSource.ffmpegDescription(opened, path: path, formatGiven: formatName != nil) } catch var e as ToolError {
                // ADTS AAC (read, not written back) may still reach the target with --lossless-gain.
                e.suggestion += LosslessGainJob.hint(record, path: path, targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP)
                throw e
            }
        }
        let downmix = try channels.flatMap { try Self.downmix(to: $0, record: record, description: described.0, source: opened.source) }
        let src = try NormalizeSource(input: opened.source, description: described.0, tags: described.1,
                                      format: formatName, depth: depth, sampleRate: sampleRate, downmix: downmix, rate: rate, path: path)
        let out = src.format
        // Not a file measured as dual mono: its one channel already counts twice (the rule's +3 LU).
        if let mono = monoTargetLUFS, out.channelCount == 1, presetName != nil,
           downmix != nil || !RecordedLoudness.layout(loudness: record["loudness"], description: src.description, channelCount: 1).isDualMono {
            // A mono output aims at the preset's mono target: the same work with that target.
            var again = self
            again.targetLUFS = mono
            again.monoTargetLUFS = nil
            again.fixedOutPath = outPath
            again.monoTargetNote = "Mono output: aimed at \(LoudnessGate.compact(mono)) LUFS, the \(presetName!) preset's target for mono (AES TD1004: -16 LUFS for stereo, -19 LUFS for mono)."
            return try again.normalize(record)
        }
        if decodeEncodeOnly { return try copyThrough(record, src, to: outPath) }

        if peakMode == .ignore, !out.isFloat {
            throw ToolError(.lossy, "\(name) would be written as \(LufsNormalizeFormat.depthName(out.bitDepth, false)) fixed point, which can't hold the peaks --peak ignore lets through; nothing was written.",
                            suggestion: "Add --bit-depth float (WAV, AIFF or CAF), or use --peak limit or --peak reduce.")
        }
        if !src.losses.isEmpty, !allowLoss {
            throw ToolError(.lossy, "Normalising \(name) as asked would lose information: \(src.losses.joined(separator: "; ")). Nothing was written.",
                            suggestion: "Pass --allow-loss to go ahead (the losses are then listed in normalized.losses), or choose an output that keeps everything: a lossless --format such as wav or flac, and no lower --bit-depth or --sample-rate."
                                + LosslessGainJob.hint(record, path: path, targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP))
        }

        // With --album: the album's measurement, refused before any work when the record has none.
        let albumValues = album ? try GainTagging.albumValues(record, path: path) : nil
        // The measurement: the record's, if it is of this file as it is now; else measured here.
        var notes: [String] = []
        if let n = monoTargetNote { notes.append(n) }
        if let n = src.sizeNote { notes.append(n) }
        var passes = 0
        let loudness = record["loudness"]
        var layout = RecordedLoudness.layout(loudness: loudness, description: src.description, channelCount: src.input.format.channelCount)
        if let d = downmix {
            layout = ChannelLayout(roles: d.roles)
        } else if out.channelCount < layout.channelCount {
            layout = ChannelLayout(roles: Array(layout.roles.prefix(out.channelCount)))
        }
        let positionLoss = SndfileSink.positionLoss(layout, formatCode: out.formatCode)
        if let loss = positionLoss, !allowLoss {
            throw ToolError(.lossy, "Normalising \(name) as asked would lose information: \(loss). Nothing was written.",
                            suggestion: "Write WAV, CAF or AIFF (--format wav), which record the channel positions, or pass --allow-loss to go ahead (the loss is then listed in normalized.losses).")
        }
        let recorded = try RecordedLoudness.check(loudness, identity: opened.identity, path: path)
        if let note = recorded.note { notes.append(note) }
        let speech = dialogueHere
            ? try DialogueMeasurement(minimumShare: DialogueLoudness.defaultMinimumShare, gateOnDialogue: true)
                .detector(layout: layout, sampleRate: src.source.format.sampleRate)
            : nil
        let source = try src.measurement(recorded: recorded.measured, loudness: loudness, weights: layout.weights,
                                         forReport: reportWriter != nil, speech: speech)
        notes += source.notes
        passes += source.passes
        let measured = source.measured
        if dialogueHere {
            guard let d = source.dialogue else { throw DialogueNormalization.Refusal.noDialogueMeasurement }
            dialogue = try DialogueNormalization(measured: d, programmeLUFS: measured.integrated)
            notes.append("Its dialogue loudness was measured here too, as lufs-measure --dialogue measures it: " +
                         (d.integratedLUFS.map { String(format: "%.2f LUFS", $0) } ?? "undefined") +
                         String(format: ", dialogue %.0f%% of the programme", d.share * 100) +
                         (d.fallback ? " (under the minimum share, so programme loudness is used)." : "."))
        }
        // Dialogue-gated: the programme lands this far above the dialogue target.
        let programmeOffset = dialogue?.programmeOffsetLU(programmeLUFS: measured.integrated)
        let sourceLUFS = albumValues.map { $0.lufs } ?? dialogue.map { $0.sourceLUFS } ?? measured.integrated
        // Album mode: --peak reduce lowers the one gain for the album's loudest peak; the limiter
        // works per track, from the track's own peak.
        var sourcePeak = (albumValues != nil && peakMode == .reduce ? albumValues!.truePeak : measured.truePeak) ?? -200
        if peakMode == .reduce { sourcePeak += Self.roundingAllowanceDB }

        let gain = try NormalizeGainPlan(measuredLUFS: sourceLUFS, measuredTruePeakDBTP: sourcePeak, targetLUFS: targetLUFS,
                                         ceilingDBTP: ceilingDBTP, mode: peakMode)
        // A dialogue-gated gain is the dialogue's: nothing is added back for what the limiter takes
        // from the programme's peaks (music and effects), which would lift the dialogue over the target.
        let decision = NormalizeDecision(gain: gain, peakMode: peakMode, album: album, compensates: dialogue?.judgedLUFS == nil,
                                         fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds, fadeCurve: fadeCurve, sampleRate: out.sampleRate,
                                         ceilingDBTP: ceilingDBTP, marginDB: Self.limiterMargin,
                                         ditherBitDepth: NormalizeDecision.ditherBits(bitDepth: out.bitDepth, isFloat: out.isFloat, isLossy: out.isLossy))
        if let a = albumValues {
            notes.append("Album gain: \(String(format: "%.2f", gain.gainDB)) dB for every track of “\(a.key)” (\(a.tracks) tracks, \(a.lufs.map { String(format: "%.2f", $0) } ?? "no") LUFS as one programme), so the tracks keep their relative levels; no track gets its own compensation gain.")
        }

        var writer = NormalizedFileWriter(outPath: outPath, format: out, tags: src.tags, layout: layout,
                                          overwrite: overwrite || naming.inPlace, collectsTimeline: reportWriter != nil,
                                          maxPasses: Self.maxPasses, maxCompensationDB: Self.maxCompensationDB)
        // A lossy output is checked after its codec: its loudness steered back to the target
        // when the target is the programme's own (not an album's gain or dialogue), its peak always.
        writer.steersLoudness = peakMode == .limit && !album && dialogue == nil
        writer.canLimit = peakMode == .limit
        writer.codecPeakRule = codecPeakRule
        if let analyses, !src.converted {
            let weights = layout.weights, rate = out.sampleRate, identity = opened.identity
            let stamp = LimiterAnalysisCache.stamp(path: path, identity: identity)
            writer.storedAnalysis = StoredLimiterAnalysis(
                load: { analyses.model(path: path, identity: identity, weights: weights, sampleRate: rate, settings: $0) },
                keep: { analyses.store($0, path: path, stamp: stamp, weights: weights) })
        }
        // What is written must keep the record's promise, or it is not put in place.
        let promise = WrittenOutputCheck(targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, peakMode: peakMode,
                                         loudnessIsOwn: albumValues == nil && dialogue == nil, maxCompensationDB: Self.maxCompensationDB)
        let here = source.here
        writer.check = { w in
            let m = w.meter.finish()
            if var miss = promise.miss(integratedLUFS: m.integratedLUFS, truePeakDBTP: m.truePeakDBTP, compensationDB: w.report.compensationDB,
                                       lossyChecked: w.landing != nil,
                                       codecShortfall: w.landing.flatMap { CodecLandingNotes.shortfall($0, targetLUFS: targetLUFS) } != nil,
                                       sourceLUFS: sourceLUFS) {
                miss.measuredHere = here
                throw miss
            }
        }
        // The programme's own target is where the dialogue lands on the target.
        let written = try writer.write(decision, targetLUFS: targetLUFS + (programmeOffset ?? 0), source: src.source, cores: cores)
        let report = written.report, meter = written.meter
        passes += report.passes
        let m = meter.finish()
        var result = NormalizedFileRecord(outPath: outPath, format: out, report: report, written: m, gain: gain, decision: decision,
                                          targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, presetName: presetName, peakMode: peakMode,
                                          album: album, maxCompensationDB: Self.maxCompensationDB,
                                          losses: src.losses + (positionLoss.map { [$0] } ?? []), notes: notes, passes: passes,
                                          measuredHere: source.here, sourceLUFS: sourceLUFS, sourceTruePeakDBTP: measured.truePeak)
        result.landing = written.landing
        result.dialogueLUFS = dialogue?.judgedLUFS
        result.uncheckedReason = written.uncheckedReason
        result.downmix = downmix
        result.rate = out.rate
        reportWriter?.draw(.normalized(name: "\(path) → \(outPath)", output: m, timeline: meter.timeline, source: source.timeline,
                                 sourceIntegratedLUFS: programmeOffset == nil ? sourceLUFS : measured.integrated, sourceTruePeakDBTP: measured.truePeak,
                                 targetLUFS: targetLUFS, toleranceLU: reportToleranceLU, ceilingDBTP: ceilingDBTP,
                                 gainDB: report.gainDB, limitedSeconds: Double(report.framesLimited) / Double(out.sampleRate),
                                 maxReductionDB: report.maxReductionDB,
                                 dialogue: dialogue.flatMap { d in d.judgedLUFS.map { before in
                                     LoudnessReportDialogue(integratedLUFS: before + report.gainDB, share: d.share ?? 0, spans: [])
                                 } }), for: path)
        var r = record
        r["normalized"] = dialogue?.annotate(result.json, gainDB: report.gainDB) ?? result.json
        return r
    }

    /// --decode-encode-only: the same decoder and encoder with nothing between (the bench's floor).
    package func copyThrough(_ record: Record, _ src: NormalizeSource, to outPath: String) throws -> Record {
        let out = src.format
        let sink = try SndfileSink(path: outPath, formatCode: out.formatCode, sampleRate: out.sampleRate,
                                   channelCount: out.channelCount, overwrite: overwrite || naming.inPlace, tags: src.tags)
        sink.steer(out)
        do {
            // With a core to spare, decoding, and encoding, each get a thread, as in a written pass.
            let frames: Int
            if cores.hasSpareCore {
                sink.encodeBehind()
                frames = try ReadAhead.forEachBlock(src.source) { try sink.write($0) }
            } else {
                frames = try Decoder.forEachBlock(src.source) { try sink.write($0) }
            }
            try sink.commit()
            var r = record
            r["normalized"] = .object(["output": .string(outPath), "decode_encode_only": .bool(true),
                                       "frames": .int(frames), "format": out.json])
            return r
        } catch { sink.abandon(); throw error }
    }
}

extension LoudnessNormalizeJob {
    /// The `--channels` matrix for this file, from the channel positions its measurement (or its
    /// header) gives; nil when it already has that many channels (nothing to downmix).
    package static func downmix(to channels: Int, record: Record, description: SndfileDescription, source: AudioSource) throws -> Downmix? {
        let count = source.format.channelCount
        if count == channels { return nil }
        let layout = RecordedLoudness.layout(loudness: record["loudness"], description: description, channelCount: count)
        return try Downmix(roles: layout.roles, to: channels)
    }
}

extension SndfileSink {
    /// Sets `--bit-rate` or `--quality` on a lossy encoder, when the format carries one.
    package func steer(_ format: LufsNormalizeFormat) {
        guard let r = format.rate, let c = LossyRate.Codec(codec: format.codec) else { return }
        setRate(r, codec: c, sampleRate: format.sampleRate)
    }
}
