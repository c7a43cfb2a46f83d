import Foundation

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
        discussion: "With --reference, the latency is found by whitened cross-correlation (GCC-PHAT) between windows of each take and the backing track, refined to a fraction of a sample, together with the clock drift between the two devices and how loud the bleed is. A take that holds no trace of the reference is refused (no-bleed), and so is one where no single offset stands out (low-confidence): the tool never reports an offset it doesn't believe. With --latency-ms the take is shifted by exactly that. A positive latency means the take is late. See docs/vo-align.md.",
        options: [
            .value("reference", "FILE", help: "The backing track the takes were performed against; the latency is found from its bleed into each take."),
            .value("latency-ms", "MS", help: "The latency the recorder measured (positive: the take is late); shifts each take by exactly that instead of searching."),
            .value("start-at", "SECONDS", help: "Where recording started on the reference timeline (the preview time at which it began; default 0)."),
            .value("max-latency-ms", "MS", help: "Search latencies from -MS to +MS (default 1000)."),
            .value("min-confidence", "X", help: "Refuse a found latency whose confidence (0 to 1) is below X (default \(VoAlign.defaultMinConfidence))."),
            .flag("correct-drift", help: "Resample the written take so that it stays aligned to the end despite the devices' clock drift."),
            .value("out-dir", "DIR", help: "Write each aligned take into DIR under its own name: latency removed, placed on the reference timeline, same format, depth, rate and channels."),
            .value("mix", "FILE", help: "Also write the reference with the aligned voice over it, the reference ducked while the voice is active. With several takes, FILE must contain {stem} (the take's name without extension)."),
            .value("duck-db", "DB", help: "How far the reference is lowered under the voice in --mix (default -12)."),
            .flag("overwrite", help: "Replace existing output files (default: refuse with code `exists`)."),
        ],
        examples: [
            "vo-align --reference backing.wav take1.wav take2.wav",
            "vo-align --reference backing.wav --out-dir aligned/ --mix 'mix-{stem}.wav' takes/",
            "vo-align --latency-ms 182 --start-at 12.5 --out-dir aligned/ take3.wav",
            "vo-align --reference backing.wav takes/ | jq -r '[.path, .alignment.latency_ms] | @tsv'",
        ])

    static let defaultMinConfidence = BleedAligner.Settings().acceptConfidence

    struct Reference {
        var path: String
        var rate: Int
        var channels: Int
        var frames: Int
        var formatCode: Int32
    }

    let reference: Reference?
    let knownLatencyMS: Double?
    let startSeconds: Double
    let settings: BleedAligner.Settings
    let minConfidence: Double
    let correctDrift: Bool
    let outDir: String?
    let mixTemplate: String?
    let duckDB: Double
    let overwrite: Bool

    public init(options o: ParsedOptions) throws {
        knownLatencyMS = try o.double("latency-ms", in: -10_000...10_000)
        startSeconds = try o.double("start-at", in: 0...86_400) ?? 0
        var s = BleedAligner.Settings()
        if let m = try o.double("max-latency-ms", in: 1...60_000) { s.maxLagSeconds = m / 1000 }
        minConfidence = try o.double("min-confidence", in: 0...1) ?? Self.defaultMinConfidence
        s.acceptConfidence = minConfidence
        settings = s
        correctDrift = o.flag("correct-drift")
        outDir = o.string("out-dir")
        mixTemplate = o.string("mix")
        duckDB = try o.double("duck-db", in: -60...0) ?? -12
        overwrite = o.flag("overwrite")

        let referencePath = o.string("reference")
        if referencePath == nil && knownLatencyMS == nil {
            throw UsageError("Give --reference (the backing track, to find the latency from its bleed) or --latency-ms (the latency the recorder measured).")
        }
        if knownLatencyMS != nil {
            for name in ["max-latency-ms", "min-confidence"] where o.has(name) {
                throw UsageError("--\(name) applies to a latency found from the reference; it can't be used with --latency-ms.")
            }
            if correctDrift {
                throw UsageError("--correct-drift needs the drift measured from the bleed, so it can't be used with --latency-ms.")
            }
        }
        if mixTemplate != nil && referencePath == nil {
            throw UsageError("--mix needs --reference: the mix is the reference with the voice over it.")
        }
        if o.has("duck-db") && mixTemplate == nil { throw UsageError("--duck-db applies to --mix; give --mix FILE.") }
        if correctDrift && outDir == nil && mixTemplate == nil {
            throw UsageError("--correct-drift changes the written audio; give --out-dir or --mix.")
        }
        if let m = mixTemplate {
            if m.isEmpty || m.hasSuffix("/") { throw UsageError("--mix: give a file name, e.g. 'mix-{stem}.wav'.") }
            let single = o.paths.count == 1 && o.paths[0] != "-" && !Self.isDirectory(o.paths[0])
            if !single && !m.contains("{stem}") {
                throw UsageError("--mix '\(m)' would be the same file for every take: put {stem} in it (e.g. 'mix-{stem}.wav'), or give one take.")
            }
        }
        if let d = outDir, d.isEmpty { throw UsageError("--out-dir needs a folder.") }

        if let path = referencePath {
            // Checked once per run: a reference that can't be read is a usage error.
            do {
                let opened = try Decoder.open(path)
                let f = opened.source.format
                guard let frames = f.frameCount, frames > 0 else {
                    throw UsageError("--reference \(ToolError.quoted(path)) holds no audio frames.")
                }
                reference = Reference(path: path, rate: f.sampleRate, channels: f.channelCount, frames: frames,
                                      formatCode: opened.sndfile?.formatCode ?? 0)
            } catch let e as ToolError {
                throw UsageError("--reference: \(e.message) \(e.suggestion)")
            }
        } else {
            reference = nil
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        PathBytes.isDirectory(path)
    }

    public func process(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let opened = try Decoder.open(path)
        let take = opened.source.format
        let rate = take.sampleRate
        guard let takeFrames = take.frameCount, takeFrames > 0 else {
            throw ToolError(.empty, "\(ToolError.quoted(path)) holds no audio frames.",
                            suggestion: "Export the take again; a file with sound in it will work.")
        }
        let startFrames = Int((startSeconds * Double(rate)).rounded())
        var notes: [String] = []
        var o: [String: JSON] = [:]

        // Latency L at the take's first frame, in take frames (exact, maybe fractional).
        let latencyExact: Double
        var drift: Double?
        if let ms = knownLatencyMS {
            latencyExact = (ms * Double(rate) / 1000).rounded()
            o["method"] = .string("known")
            o["confidence"] = .null
            o["drift_ppm"] = .null
            o["drift_uncertainty_ppm"] = .null
            o["bleed_db"] = .null
            o["windows_agreeing"] = .null
            o["windows_analysed"] = .null
            notes.append("The latency was given (--latency-ms), not measured: confidence, drift and bleed are not known.")
            if abs(latencyExact / Double(rate) * 1000 - ms) > 1e-9 {
                notes.append("--latency-ms \(Self.number(ms)) was rounded to the nearest frame at \(rate) Hz.")
            }
        } else {
            let ref = reference!
            let refSignal = try VoAlignFileSignal(path: ref.path, targetRate: rate, offset: startFrames)
            if refSignal.frameCount <= 0 {
                throw ToolError(.lowConfidence,
                    "--start-at \(Self.number(startSeconds)) is past the end of \(ToolError.quoted(ref.path)), so \(ToolError.quoted(path)) can't be placed on it.",
                    suggestion: "Give the preview time at which recording started, within the reference's \(Self.number(Double(ref.frames) / Double(ref.rate))) seconds.")
            }
            let takeSignal = try VoAlignFileSignal(path: path, targetRate: rate)
            let aligner = BleedAligner(sampleRate: Double(rate), settings: settings)
            switch try aligner.align(reference: refSignal, take: takeSignal) {
            case .refused(let r):
                throw refusal(r, take: path, reference: ref.path)
            case .aligned(let a):
                if a.confidence < minConfidence {
                    throw ToolError(.lowConfidence,
                        "\(ToolError.quoted(path)) holds a trace of \(ToolError.quoted(ref.path)) but no single offset stands out: confidence \(Self.number(a.confidence, 2)), below the \(Self.number(minConfidence, 2)) required (\(a.inlierCount) of \(a.windows.count) windows agree).",
                        suggestion: lowConfidenceSuggestion)
                }
                // The reference was read from the start on: what the aligner finds is L itself.
                latencyExact = a.latencySamples
                drift = a.driftPPM
                o["method"] = .string("bleed")
                o["confidence"] = .double(a.confidence, decimals: 3)
                o["drift_ppm"] = .optional(a.driftPPM, decimals: 2)
                o["drift_uncertainty_ppm"] = .optional(a.driftUncertaintyPPM, decimals: 2)
                o["bleed_db"] = .double(a.bleedDB, decimals: 2)
                o["latency_samples_exact"] = .double(latencyExact, decimals: 3)
                o["windows_agreeing"] = .int(a.inlierCount)
                o["windows_analysed"] = .int(a.windows.count)
                if a.driftPPM == nil {
                    notes.append("Drift is unknown: fewer than two windows of the take agree (the take is short or the bleed is faint in places).")
                }
                if a.polarity < 0 { notes.append("The backing appears inverted (opposite polarity) in the take.") }
                if a.inlierCount < a.windows.count {
                    notes.append("\(a.windows.count - a.inlierCount) of \(a.windows.count) windows showed no clear bleed or disagreed, and were left out.")
                }
            }
        }
        let latencyFrames = Int(latencyExact.rounded())
        if latencyFrames < 0 {
            notes.append("The latency is negative: the take is early against the reference. Check --start-at, or whether the reference has material before the take's.")
        }
        // D: delay of the reference inside the take (take frame t lands on reference frame t − D).
        let delayExact = latencyExact - Double(startFrames)
        let delayFrames = latencyFrames - startFrames

        o["latency"] = Self.frames(latencyFrames, rate)
        o["latency_ms"] = .double(latencyExact / Double(rate) * 1000, decimals: 3)
        o["start"] = Self.frames(startFrames, rate)
        o["start_seconds"] = .double(Double(startFrames) / Double(rate), decimals: 6)
        o["delay"] = Self.frames(delayFrames, rate)
        o["delay_ms"] = .double(Double(delayFrames) / Double(rate) * 1000, decimals: 3)
        o["reference"] = reference.map { .string($0.path) } ?? .null
        o["drift_corrected"] = .bool(correctDrift && drift != nil)
        if correctDrift && drift == nil {
            notes.append("--correct-drift was asked for but the drift is unknown, so the written audio is not drift-corrected.")
        }
        let driftRatio = correctDrift ? 1 - (drift ?? 0) * 1e-6 : 1

        if let dir = outDir {
            let out = (dir.hasSuffix("/") ? dir : dir + "/") + (path.split(separator: "/").last.map(String.init) ?? path)
            if Self.sameFile(out, path) {
                throw ToolError(.exists, "\(ToolError.quoted(path)) would be written over itself: --out-dir is the take's own folder.",
                                suggestion: "Choose another --out-dir for the aligned takes.")
            }
            try writeAligned(take: path, to: out, formatCode: opened.sndfile?.formatCode ?? 0, rate: rate,
                             channels: take.channelCount, delay: delayExact, ratio: driftRatio)
            o["output"] = .string(out)
        } else {
            o["output"] = .null
        }
        if let template = mixTemplate, let ref = reference {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let stem = name.contains(".") && !name.hasPrefix(".") ? String(name[..<name.lastIndex(of: ".")!]) : name
            let out = template.replacingOccurrences(of: "{stem}", with: stem)
            if Self.sameFile(out, path) || Self.sameFile(out, ref.path) {
                throw ToolError(.exists, "The mix \(ToolError.quoted(out)) would be written over one of its own inputs.",
                                suggestion: "Choose another --mix name, e.g. 'mix-{stem}.wav'.")
            }
            let peak = try writeMix(take: path, takeRate: rate, reference: ref, to: out, delay: delayExact,
                                    ratio: driftRatio * Double(ref.rate) / Double(rate))
            if peak > 1 {
                notes.append("The mix peaks at \(Self.number(20 * log10(Double(peak)), 1)) dBFS, above full scale: lower the take or the reference before mixing.")
            }
            o["mix"] = .string(out)
        } else {
            o["mix"] = .null
        }
        o["notes"] = .array(notes.map { .string($0) })
        var r = record
        r["alignment"] = .object(o)
        return r
    }

    var lowConfidenceSuggestion: String {
        "Narrow the search with --max-latency-ms (e.g. 300 when the setup's latency is known to be shorter than that), or pass the latency the recorder measured with --latency-ms."
    }

    func refusal(_ r: BleedAligner.Refusal, take: String, reference: String) -> ToolError {
        switch r.reason {
        case .noBleed where startSeconds != 0:
            return ToolError(.noBleed,
                "\(ToolError.quoted(take)) holds no trace of \(ToolError.quoted(reference)) within \(Self.number(settings.maxLagSeconds * 1000)) ms of --start-at \(Self.number(startSeconds)) s: it was recorded on headphones, or started elsewhere on the timeline.",
                suggestion: "Check --start-at (the preview time at which recording began), or pass the latency the recorder measured with --latency-ms.")
        case .noBleed:
            return ToolError(.noBleed,
                "\(ToolError.quoted(take)) holds no trace of \(ToolError.quoted(reference)): it was probably recorded on headphones.",
                suggestion: "Pass the latency the recorder measured with --latency-ms; if recording began partway into the backing track, give that time with --start-at.")
        case .lowConfidence:
            return ToolError(.lowConfidence,
                "\(ToolError.quoted(take)) holds a trace of \(ToolError.quoted(reference)) but no single offset stands out (best confidence \(Self.number(r.confidence, 2)), \(r.acceptedCount) of \(r.windows.count) windows clear): the backing may repeat, or the windows disagree.",
                suggestion: lowConfidenceSuggestion)
        }
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
        do { return try body() } catch let e as ToolError where e.code == .exists {
            throw ToolError(.exists, "\(what) already exists; it was left as it is.",
                            suggestion: "Pass --overwrite to replace it, or choose another \(option).")
        }
    }

    /// Renders reference + placed voice at the reference's rate and format, the reference ducked
    /// while the voice is active; two passes (voice activity first, then the mix), both streamed.
    /// Returns the mix's sample peak.
    func writeMix(take: String, takeRate: Int, reference ref: Reference, to path: String,
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

    static func frames(_ n: Int, _ rate: Int) -> JSON { .object(["frames": .int(n), "rate": .int(rate)]) }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard PathBytes.stat(a, &sa) == 0, PathBytes.stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// A number for a message: whole numbers without decimals, others with up to `decimals`.
    static func number(_ v: Double, _ decimals: Int = 3) -> String {
        if v == v.rounded() { return String(Int(v)) }
        var s = String(format: "%.\(decimals)f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
