import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// vo-align's writers: the aligned take (one placement, or re-timed per stretch) and the ducked
/// mix of the reference with it. What was written comes back as facts; the record is the tool's.
package struct AlignedTakeWriter {
    /// Where aligned takes go (none: not written).
    package let outDir: String?
    /// The mix's path, `{stem}` standing for the take's name (none: no mix).
    package let mixTemplate: String?
    package let reference: VoAlignAudioFile?
    package let correctDrift: Bool
    package let duckDB: Double
    package let overwrite: Bool

    /// Crossfade at each joint of a take re-timed per stretch.
    package static let crossfadeMS = 5.0

    /// What was written for one take.
    package struct Written {
        /// The aligned take's path, when --out-dir asked for it.
        package var output: String?
        /// Where stretches join (output frames) and the frames that changed there (+ repeated, − dropped).
        package var joints: [(at: Int, change: Int)] = []
        package var driftCorrected: Bool
        package var mix: String?
        /// The mix's sample peak.
        package var mixPeak: Float?
    }

    /// Whether a take placed so is re-timed per stretch (several segments), and the stretches.
    package static func segmented(_ p: VoAlignPlacement, take: VoAlignAudioFile) -> SegmentedPlacement? {
        let stretches = p.segments.map { SegmentedPlacement.Stretch(from: $0.from, delay: Int($0.delay.rounded())) }
        return stretches.count > 1 ? SegmentedPlacement(stretches: stretches, takeFrames: take.frames,
                                                        crossfade: Int((crossfadeMS * Double(take.rate) / 1000).rounded())) : nil
    }

    /// Writes what --out-dir and --mix ask for.
    package func write(take: VoAlignAudioFile, placement p: VoAlignPlacement) throws -> Written {
        let rate = take.rate
        let drift = p.measured?.driftPPM
        let segmented = Self.segmented(p, take: take)
        let corrects = correctDrift && drift != nil && segmented == nil
        var result = Written(driftCorrected: corrects)
        let ratio = corrects ? 1 - drift! * 1e-6 : 1
        // Every output is checked before any is written: a refused mix leaves no aligned take behind.
        let (takeOut, mixOut) = try plannedOutputs(take: take)
        if let out = takeOut {
            if let seg = segmented {
                try writeSegmented(take: take, to: out, placement: seg)
                result.joints = seg.joints.indices.map { (seg.joints[$0], seg.change(at: $0)) }
            } else {
                try writeAligned(take: take.path, to: out, formatCode: take.formatCode, rate: rate,
                                 channels: take.channels, delay: p.delay, ratio: ratio)
            }
            result.output = out
        }
        guard let out = mixOut, let ref = reference else { return result }
        let peak: Float
        if let seg = segmented {
            // The mix places the re-timed take: the written one, or a temporary rendering of it.
            var temporary: String?
            if result.output == nil {
                let t = FileManager.default.temporaryDirectory
                    .appendingPathComponent("vo-align-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).wav").path
                try writeSegmented(take: take, to: t, placement: seg)
                temporary = t
            }
            defer { if let t = temporary { unlink(t) } }
            peak = try writeMix(take: result.output ?? temporary!, takeRate: rate, reference: ref, to: out, delay: 0,
                                ratio: Double(ref.rate) / Double(rate))
        } else {
            peak = try writeMix(take: take.path, takeRate: rate, reference: ref, to: out, delay: p.delay,
                                ratio: ratio * Double(ref.rate) / Double(rate))
        }
        result.mix = out
        result.mixPeak = peak
        return result
    }

    /// The aligned take's and the mix's paths, each checked (not over an input, not an existing
    /// file unless --overwrite) before anything is written.
    package func plannedOutputs(take: VoAlignAudioFile) throws -> (take: String?, mix: String?) {
        let path = take.original
        var takeOut: String?, mixOut: String?
        if let dir = outDir {
            var name = path.split(separator: "/").last.map(String.init) ?? path
            if take.decodedByFFmpeg { name = Self.stem(name) + ".wav" }
            let out = (dir.hasSuffix("/") ? dir : dir + "/") + name
            if Self.sameFile(out, path) { throw AlignedOutputError.overItself(take: path) }
            takeOut = out
        }
        if let template = mixTemplate, let ref = reference {
            let out = template.replacingOccurrences(of: "{stem}", with: Self.stem(path.split(separator: "/").last.map(String.init) ?? path))
            if Self.sameFile(out, path) || Self.sameFile(out, ref.original) { throw AlignedOutputError.mixOverInput(mix: out) }
            mixOut = out
        }
        if !overwrite {
            if let out = takeOut, PathBytes.exists(out) { throw AlignedOutputError.exists(path: out, mix: false) }
            if let out = mixOut, PathBytes.exists(out) { throw AlignedOutputError.exists(path: out, mix: true) }
        }
        return (takeOut, mixOut)
    }

    /// Whether two paths name the same file.
    package static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard PathBytes.stat(a, &sa) == 0, PathBytes.stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// A file name without its extension.
    package static func stem(_ name: String) -> String {
        name.contains(".") && !name.hasPrefix(".") ? String(name[..<name.lastIndex(of: ".")!]) : name
    }

    /// Streams the placed take into `path` in the take's own format.
    package func writeAligned(take: String, to path: String, formatCode: Int32, rate: Int, channels: Int,
                      delay: Double, ratio: Double) throws {
        let placed = try VoAlignPlacedTake(path: take, outputRate: rate, delayFrames: delay, ratio: ratio, quality: .best)
        let sink = try explainExists(path, mix: false) {
            try SndfileSink(path: path, formatCode: formatCode, sampleRate: rate, channelCount: channels,
                            overwrite: overwrite)
        }
        do {
            while true {
                let b = try placed.read(Decoder.blockFrames)
                if b.frames == 0 { break }
                try sink.write(b)
            }
            try explainExists(path, mix: false) { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
    }

    /// Turns the sink's `exists` refusal (a record error, or a typed one that says it) into which
    /// output it was (the option that names it is the tool's to say).
    package func explainExists<T>(_ path: String, mix: Bool, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as ToolErrorConvertible where e.toolError(path: path).code == .exists {
            throw AlignedOutputError.exists(path: path, mix: mix)
        }
    }

    /// Renders reference + placed voice at the reference's rate and format, the reference ducked
    /// while the voice is active; two passes (voice activity first, then the mix), both streamed.
    /// Returns the mix's sample peak.
    package func writeMix(take: String, takeRate: Int, reference ref: VoAlignAudioFile, to path: String,
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
        let sink = try explainExists(path, mix: true) {
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
            try explainExists(path, mix: true) { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
        return peak
    }

    /// Streams the take re-timed per stretch into `path` (whole-frame shifts, the take's own
    /// samples except across the crossfades).
    package func writeSegmented(take: VoAlignAudioFile, to path: String, placement: SegmentedPlacement) throws {
        let source = try SndfileSource(path: take.path)
        let sink = try explainExists(path, mix: false) {
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
            try explainExists(path, mix: false) { try sink.commit() }
        } catch {
            sink.abandon()
            throw error
        }
    }
}

/// Why an aligned take or mix was not written: facts only (the sentences are the tool's).
package enum AlignedOutputError: Error {
    /// --out-dir is the take's own folder: the take would be written over itself.
    case overItself(take: String)
    /// The mix's path is one of its inputs.
    case mixOverInput(mix: String)
    /// The output (the aligned take, or with `mix` the mix) exists and may not be replaced.
    case exists(path: String, mix: Bool)
}
