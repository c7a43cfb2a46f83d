import Foundation

extension LufsNormalize {
    /// A media file (MP4, MOV, Matroska) written back in its own container: every audio stream
    /// (or the `--stream` one) normalised from its own measurement and re-encoded in its codec,
    /// everything else copied. Nil when the file is not one MediaMuxer writes back.
    /// `m4a` ("m4a" or "alac"): an audio-only M4A of the first (or `--stream`) audio stream,
    /// with the file's tags and cover art, from any input.
    func processMedia(_ record: Record, path: String, outPath: String, opened: Decoder.Opened, m4a: String? = nil) throws -> Record? {
        let name = ToolError.quoted(path)
        let probe = try opened.mediaProbe()
        guard let muxer = m4a != nil ? "ipod" : MediaContainer.muxer(formatName: probe.formatName, path: outPath) else { return nil }
        let audio = probe.audioStreams
        guard !audio.isEmpty else {
            throw ToolError(.noAudio, "\(name) doesn't contain any audio.", suggestion: "Pick a file with a sound track.")
        }
        if let n = stream { try MediaAudioStreams.check(n, count: audio.count, path: path) }
        if m4a == nil, depth != nil || sampleRate != nil {
            throw ToolError(.unsupportedCodec, "\(name) is written back in its own container with its audio's own sample rate and depth, so --bit-depth and --sample-rate can't apply; nothing was written.",
                            suggestion: "Leave them out, or choose an audio-only --format (flac or wav) to convert.")
        }
        let chosen = stream.map { [$0] } ?? (m4a != nil ? [0] : Array(audio.indices))
        // An M4A holds the chosen audio stream and the cover art; anything else is left out.
        var delivered = probe.deliveredStreams
        var losses: [String] = []
        if m4a != nil {
            let keep = Set(chosen.map { audio[$0].index })
            delivered = delivered.filter { keep.contains($0.index) || $0.isCoverArt }
            let left = probe.deliveredStreams.count - delivered.count
            if left > 0 { losses.append("\(left) stream\(left == 1 ? "" : "s") left out (\(m4a!) holds one audio stream and cover art)") }
        }

        // What each stream is re-encoded as, and what that loses.
        let chosenEncodings = try MediaAudioEncoding.choose(for: chosen, of: audio, m4a: m4a, path: path)
        let encodings = chosenEncodings.encodings
        losses += chosenEncodings.losses
        if peakMode == .ignore, let k = chosen.first(where: { encodings[$0]!.encoder.hasPrefix("pcm_f") == false }) {
            throw ToolError(.lossy, "\(name) would be written with \(encodings[k]!.displayName) audio, which can't hold the peaks --peak ignore lets through; nothing was written.",
                            suggestion: "Use --peak limit or --peak reduce.")
        }
        if !losses.isEmpty, !allowLoss {
            let codecs = Set(chosen.compactMap { encodings[$0]!.isLossy ? encodings[$0]!.displayName : nil }).sorted().joined(separator: " and ")
            let what = m4a != nil ? "Writing \(name) as \(m4a!) would lose information" : "Normalising \(name) means re-encoding its \(codecs) audio, a generation loss"
            throw ToolError(.lossy, "\(what) (\(losses.joined(separator: "; "))); nothing was written.",
                            suggestion: "Pass --allow-loss to go ahead (the loss is then listed in normalized.losses), or --format flac or wav for a lossless audio-only file.")
        }

        // Each stream's measurement: the record's when it is of this file as it is now.
        let loudness = record["loudness"]
        var notes: [String] = []
        var jobs: [MediaNormalizer.Job] = []
        var sources: [Int: (lufs: Double?, tp: Double?, here: Bool)] = [:]
        var gains: [Int: NormalizeGainPlan] = [:]
        for k in chosen {
            let e = encodings[k]!
            let entry = RecordedLoudness.stream(loudness, ordinal: k)
            var layout = ChannelLayout.standard(channelCount: e.channels)
            if let s = entry?["layout"]?.stringValue, let l = try? ChannelLayout.parse(s), l.roles.count == e.channels { layout = l }
            var measured: (Double?, Double?)? = nil
            if let l = entry, let lufs = l["integrated_lufs"] {
                if let id = FileIdentity(json: l["file"]) {
                    if id != opened.identity {
                        throw RecordedLoudness.stale(path, measured: id, now: opened.identity)
                    }
                    measured = (lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue)
                }
            }
            var here = false
            if measured == nil {
                let meter = LoudnessMeter(sampleRate: e.sampleRate, weights: layout.weights)
                try Decoder.forEachBlock(try FFmpegSource(path: path, audioStream: k)) { meter.add($0) }
                let m = meter.finish()
                measured = (m.integratedLUFS, m.truePeakDBTP)
                here = true
            }
            sources[k] = (measured!.0, measured!.1, here)
            var peak = measured!.1 ?? -200
            if peakMode == .reduce { peak += Self.roundingAllowanceDB }
            let gain: NormalizeGainPlan
            do {
                gain = try NormalizeGainPlan(measuredLUFS: measured!.0, measuredTruePeakDBTP: peak, targetLUFS: targetLUFS,
                                             ceilingDBTP: ceilingDBTP, mode: peakMode)
            } catch { throw error.toolError(path: path) }
            gains[k] = gain
            if fadeOutSeconds > 0 {
                throw ToolError(.badInput, "\(name) is a media file, whose length ffmpeg states only roughly, so --fade-out can't be placed on it; nothing was written.",
                                suggestion: "Leave out --fade-out, or choose an audio-only --format (flac or wav).")
            }
            let decision = NormalizeDecision(gain: gain, peakMode: peakMode, fadeInSeconds: fadeInSeconds, fadeOutSeconds: 0,
                                             fadeCurve: fadeCurve, sampleRate: e.sampleRate, ceilingDBTP: ceilingDBTP,
                                             marginDB: Self.limiterMargin, alwaysLimit: e.isLossy, ditherBitDepth: e.ditherBits)
            jobs.append(MediaNormalizer.Job(ordinal: k, encoding: e, plan: decision.plan, compensate: decision.compensate,
                                            targetLUFS: targetLUFS, weights: layout.weights))
        }
        if sources.values.contains(where: \.here) {
            notes.append("The record carried no measurement of \(chosen.count > 1 ? "some streams" : "the stream") of this file as it is, so \(chosen.count > 1 ? "they were" : "it was") measured here (one extra pass).")
        }
        let run = try MediaNormalizer.run(input: path, probe: probe, delivered: delivered, jobs: jobs, muxer: muxer, destination: outPath,
                                          overwrite: overwrite || naming.inPlace,
                                          settings: .init(ceilingDBTP: ceilingDBTP, maxPasses: Self.maxPasses,
                                                          maxCompensationDB: Self.maxCompensationDB))
        let copied = delivered.count - chosen.count
        notes.append("Written through ffmpeg as \(muxer): \(chosen.count) audio stream\(chosen.count == 1 ? "" : "s") re-encoded, \(copied) stream\(copied == 1 ? "" : "s") copied unchanged, with the file's metadata\(probe.chapterCount > 0 ? " and \(probe.chapterCount) chapters" : ""). The numbers are measured on the written file, decoded again.")
        if run.encodes > 1 {
            for r in run.streams where r.ceilingLoweredDB > 0 {
                notes.append("Stream \(r.ordinal): the \(encodings[r.ordinal]!.displayName) encoder pushed the true peak over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling, so the limiter's ceiling was lowered by \(String(format: "%.2f", r.ceilingLoweredDB)) dB and the file encoded again.")
            }
        }
        var streamObjects: [JSON] = []
        for r in run.streams {
            let m = r.measured, src = sources[r.ordinal]!
            if let tp = m.truePeakDBTP, (tp * 100).rounded() / 100 > ceilingDBTP, peakMode != .ignore {
                notes.append("Stream \(r.ordinal): after \(run.encodes) encodes the decoded true peak is \(String(format: "%.2f", tp)) dBTP, over the \(LoudnessGate.compact(ceilingDBTP)) dBTP ceiling.")
            }
            if peakMode != .reduce, let lufs = m.integratedLUFS, abs(lufs - targetLUFS) > 0.5 {
                notes.append("Stream \(r.ordinal): the output is \(String(format: "%.2f", abs(lufs - targetLUFS))) LU \(lufs < targetLUFS ? "under" : "over") the target.")
            }
            var o: [String: JSON] = MediaAudioStreams.json(audio[r.ordinal], ordinal: r.ordinal)
            let e = encodings[r.ordinal]!
            o["encoder"] = .string(e.encoder)
            if let b = e.bitRate { o["bit_rate"] = .int(b) }
            o["gain_db"] = .double(r.report.gainDB, decimals: 2)
            o["compensation_db"] = .double(r.report.compensationDB, decimals: 2)
            o["integrated_lufs"] = .optional(m.integratedLUFS, decimals: 2)
            o["true_peak_dbtp"] = .optional(m.truePeakDBTP, decimals: 2)
            o["sample_peak_dbfs"] = .optional(m.samplePeakDBFS, decimals: 2)
            o["limiter"] = .object(["frames": .int(r.report.framesLimited), "max_reduction_db": .double(r.report.maxReductionDB, decimals: 2),
                                    "applied": .bool(r.report.framesLimited > 0), "ceiling_lowered_db": .double(r.ceilingLoweredDB, decimals: 2)])
            o["source_integrated_lufs"] = .optional(src.lufs, decimals: 2)
            o["source_true_peak_dbtp"] = .optional(src.tp, decimals: 2)
            o["measured_here"] = .bool(src.here)
            o["passes"] = .int(r.passes + (src.here ? 1 : 0))
            o["frames"] = .int(r.report.framesWritten)
            o["dither"] = .bool(e.ditherBits != nil)
            if peakMode == .reduce, let g = gains[r.ordinal], g.shortfallLU > 0 {
                o["shortfall_lu"] = .optional(m.integratedLUFS.map { targetLUFS - $0 } ?? g.shortfallLU, decimals: 2)
            }
            streamObjects.append(.object(o))
        }
        var o = streamObjects[0].objectValue!
        o["output"] = .string(outPath)
        o["losses"] = .array(losses.map { .string($0) })
        o["target_lufs"] = .double(targetLUFS)
        o["ceiling_dbtp"] = .double(ceilingDBTP)
        o["preset"] = presetName.map { .string($0) } ?? .null
        o["peak_mode"] = .string(peakMode.rawValue)
        o["encodes"] = .int(run.encodes)
        let first = encodings[chosen[0]]!
        o["format"] = .object(["container": .string(muxer), "streams": .int(delivered.count), "codec": .string(first.encoder),
                               "sample_rate": .int(first.sampleRate), "channels": .int(first.channels),
                               "bit_depth": first.bitDepth.map { .int($0) } ?? .null])
        o["notes"] = .array(notes.map { .string($0) })
        if streamObjects.count > 1 || stream != nil { o["streams"] = .array(streamObjects) }
        var r = record
        r["normalized"] = .object(o)
        return r
    }
}
