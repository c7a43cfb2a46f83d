import Foundation

/// vo-align's writers: the aligned take (one placement, or re-timed per stretch) and the mix.
extension VoAlign {
    /// Writes what --out-dir and --mix ask for, and records it (output, mix, joints, drift_corrected).
    func writeOutputs(take: VoAlignAudioFile, placement p: VoAlignPlacement, into o: inout [String: JSON],
                      notes: inout [String]) throws {
        let rate = take.rate, path = take.original
        let drift = p.measured?.driftPPM
        let stretches = p.segments.map { SegmentedPlacement.Stretch(from: $0.from, delay: Int($0.delay.rounded())) }
        let segmented = stretches.count > 1 ? SegmentedPlacement(stretches: stretches, takeFrames: take.frames,
                                                                   crossfade: Int((Self.crossfadeMS * Double(rate) / 1000).rounded())) : nil
        let corrects = correctDrift && drift != nil && segmented == nil
        o["drift_corrected"] = .bool(corrects)
        if correctDrift && drift == nil {
            notes.append("--correct-drift was asked for but the drift is unknown, so the written audio is not drift-corrected.")
        } else if correctDrift && segmented != nil {
            notes.append("--correct-drift was not applied: the take is re-timed per stretch, each moved by whole frames.")
        }
        let ratio = corrects ? 1 - drift! * 1e-6 : 1
        var written: String?
        var joints: [JSON] = []
        if let dir = outDir {
            var name = path.split(separator: "/").last.map(String.init) ?? path
            if take.decodedByFFmpeg {
                name = Self.stem(name) + ".wav"
                notes.append("\(ToolError.quoted(path)) was decoded through ffmpeg; its aligned audio is written as 24-bit WAV.")
            }
            let out = (dir.hasSuffix("/") ? dir : dir + "/") + name
            if Self.sameFile(out, path) {
                throw ToolError(.exists, "\(ToolError.quoted(path)) would be written over itself: --out-dir is the take's own folder.",
                                suggestion: "Choose another --out-dir for the aligned takes.")
            }
            if let seg = segmented {
                try writeSegmented(take: take, to: out, placement: seg)
                for k in seg.joints.indices {
                    let change = seg.change(at: k)
                    joints.append(.object([
                        "at": Self.frames(seg.joints[k], rate), "at_seconds": .double(Double(seg.joints[k]) / Double(rate), decimals: 6),
                        "crossfade_ms": .double(Self.crossfadeMS), "repeated_frames": .int(max(change, 0)),
                        "dropped_frames": .int(max(-change, 0)),
                    ]))
                }
                notes.append("The written take is re-timed in \(seg.stretches.count) stretches, each where it was performed, with a \(Self.number(Self.crossfadeMS)) ms crossfade at each joint (see joints).")
            } else {
                try writeAligned(take: take.path, to: out, formatCode: take.formatCode, rate: rate,
                                 channels: take.channels, delay: p.delay, ratio: ratio)
            }
            o["output"] = .string(out)
            written = out
        } else {
            o["output"] = .null
        }
        o["joints"] = .array(joints)
        guard let template = mixTemplate, let ref = reference else { o["mix"] = .null; return }
        let out = template.replacingOccurrences(of: "{stem}", with: Self.stem(path.split(separator: "/").last.map(String.init) ?? path))
        if Self.sameFile(out, path) || Self.sameFile(out, ref.original) {
            throw ToolError(.exists, "The mix \(ToolError.quoted(out)) would be written over one of its own inputs.",
                            suggestion: "Choose another --mix name, e.g. 'mix-{stem}.wav'.")
        }
        let peak: Float
        if let seg = segmented {
            // The mix places the re-timed take: the written one, or a temporary rendering of it.
            var temporary: String?
            if written == nil {
                let t = FileManager.default.temporaryDirectory
                    .appendingPathComponent("vo-align-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).wav").path
                try writeSegmented(take: take, to: t, placement: seg)
                temporary = t
            }
            defer { if let t = temporary { unlink(t) } }
            peak = try writeMix(take: written ?? temporary!, takeRate: rate, reference: ref, to: out, delay: 0,
                                ratio: Double(ref.rate) / Double(rate))
        } else {
            peak = try writeMix(take: take.path, takeRate: rate, reference: ref, to: out, delay: p.delay,
                                ratio: ratio * Double(ref.rate) / Double(rate))
        }
        if peak > 1 {
            notes.append("The mix peaks at \(Self.number(20 * log10(Double(peak)), 1)) dBFS, above full scale: lower the take or the reference before mixing.")
        }
        o["mix"] = .string(out)
    }

    /// A file name without its extension.
    static func stem(_ name: String) -> String {
        name.contains(".") && !name.hasPrefix(".") ? String(name[..<name.lastIndex(of: ".")!]) : name
    }

    /// Streams the placed take into `path` in the take's own format.
    func writeAligned(take: String, to path: String, formatCode: Int32, rate: Int, channels: Int,
                      delay: Double, ratio: Double) throws {
        let placed = try VoAlignPlacedTake(path: take, outputRate: rate, delayFrames: delay, ratio: ratio, quality: .best)
        let what = "The aligned take \(Self.describe(path))"
        let sink = try explainExists(what, option: "--out-dir") {
            try SndfileSink(path: path, formatCode: formatCode, sampleRate: rate, channelCount: channels,
                            overwrite: overwrite)
        }
        do {
            while true {
                let b = try placed.read(Decoder.blockFrames)
                if b.frames == 0 { break }
                try sink.write(b)
            }
            try explainExists(what, option: "--out-dir") { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// “name” in “folder” (the sink's own message names only the file, which for an aligned
    /// take is also the take's name).
    static func describe(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? ToolError.quoted(path) : "\(ToolError.quoted(url.lastPathComponent)) in \(ToolError.quoted(dir))"
    }

    /// Rewords the sink's `exists` refusal in vo-align's terms (which output, which option).
    func explainExists<T>(_ what: String, option: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch where ((error as? ToolErrorConvertible)?.toolError(path: "") ?? error as? ToolError)?.code == .exists {
            throw ToolError(.exists, "\(what) already exists; it was left as it is.",
                            suggestion: "Pass --overwrite to replace it, or choose another \(option).")
        }
    }

    /// Renders reference + placed voice at the reference's rate and format, the reference ducked
    /// while the voice is active; two passes (voice activity first, then the mix), both streamed.
    /// Returns the mix's sample peak.
    func writeMix(take: String, takeRate: Int, reference ref: VoAlignAudioFile, to path: String,
                  delay: Double, ratio: Double) throws -> Float {
        let detector = VoiceActivityDetector(sampleRate: Double(ref.rate))
        // Voice activity needs only the level: the fastest converter will do.
        let scan = try VoAlignPlacedTake(path: take, outputRate: ref.rate, delayFrames: delay, ratio: ratio, quality: .fastest)
        while true {
            let b = try scan.read(Decoder.blockFrames)
            if b.frames == 0 { break }
            var mono = [Float](repeating: 0, count: b.frames)
            let scale = 1 / Float(b.channelCount)
            for c in 0..<b.channelCount { for i in 0..<b.frames { mono[i] += b.channels[c][i] * scale } }
            detector.process(mono)
        }
        detector.finish()
        var duck = DuckingEnvelope.Settings()
        duck.duckDB = duckDB
        let envelope = DuckingEnvelope(activity: detector.activity, frameLength: detector.frameLength,
                                       sampleRate: Double(ref.rate), settings: duck)

        // A mix is a preview: medium quality (90% bandwidth, ~121 dB) at a third of the best's cost.
        let voice = try VoAlignPlacedTake(path: take, outputRate: ref.rate, delayFrames: delay, ratio: ratio, quality: .medium)
        let refSource = try SndfileSource(path: ref.path)
        let total = max(ref.frames, voice.frameCount)
        let channels = max(ref.channels, voice.channelCount)
        let what = "The mix \(Self.describe(path))"
        let sink = try explainExists(what, option: "--mix name") {
            try SndfileSink(path: path, formatCode: ref.formatCode, sampleRate: ref.rate,
                            channelCount: channels, overwrite: overwrite)
        }
        var peak: Float = 0
        do {
            var position = 0
            var refBlock = AudioBlock(channelCount: ref.channels, capacity: 0)
            var refDone = false
            while position < total {
                let n = min(Decoder.blockFrames, total - position)
                var r = AudioBlock(channelCount: ref.channels, capacity: n)
                r.frames = n
                var got = 0
                while got < n && !refDone {
                    let k = try refSource.read(into: &refBlock, maxFrames: n - got)
                    if k == 0 { refDone = true; break }
                    for c in 0..<ref.channels {
                        r.channels[c].replaceSubrange(got..<(got + k), with: refBlock.channels[c][0..<k])
                    }
                    got += k
                }
                var v = try voice.read(n)
                if v.frames < n {
                    for c in 0..<v.channelCount {
                        v.channels[c] = Array(v.channels[c][0..<v.frames]) + [Float](repeating: 0, count: n - v.frames)
                    }
                    v.frames = n
                }
                let mixed = DuckingMixer.mix(reference: r, voice: v, gains: envelope.gains(from: position, count: n))
                peak = max(peak, mixed.peak)
                try sink.write(mixed.block)
                position += n
            }
            try explainExists(what, option: "--mix name") { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
        return peak
    }

    /// Streams the take re-timed per stretch into `path` (whole-frame shifts, the take's own
    /// samples except across the crossfades).
    func writeSegmented(take: VoAlignAudioFile, to path: String, placement: SegmentedPlacement) throws {
        let source = try SndfileSource(path: take.path)
        let what = "The aligned take \(Self.describe(path))"
        let sink = try explainExists(what, option: "--out-dir") {
            try SndfileSink(path: path, formatCode: take.formatCode, sampleRate: take.rate, channelCount: take.channels,
                            overwrite: overwrite)
        }
        do {
            var scratch = AudioBlock(channelCount: take.channels, capacity: 0)
            var position = 0
            while position < placement.outputFrames {
                let n = min(Decoder.blockFrames, placement.outputFrames - position)
                var out = AudioBlock(channelCount: take.channels, capacity: n)
                out.frames = n
                for k in placement.stretches.indices {
                    let span = placement.span(k).clamped(to: position..<(position + n))
                    let d = placement.stretches[k].delay
                    // Output frame m is take frame m + D_k.
                    let lo = max(span.lowerBound, -d), hi = min(span.upperBound, take.frames - d)
                    guard hi > lo else { continue }
                    try source.seek(toFrame: lo + d)
                    var got = 0
                    while got < hi - lo {
                        let k0 = try source.read(into: &scratch, maxFrames: hi - lo - got)
                        if k0 == 0 { break }
                        for i in 0..<k0 {
                            let m = lo + got + i
                            let g = placement.gain(k, at: m)
                            for c in 0..<take.channels { out.channels[c][m - position] += g * scratch.channels[c][i] }
                        }
                        got += k0
                    }
                }
                try sink.write(out)
                position += n
            }
            try explainExists(what, option: "--out-dir") { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
    }
}
