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
        discussion: "With --reference, the latency is found by whitened cross-correlation (GCC-PHAT) between windows of each take and the backing track, refined to a fraction of a sample, together with the clock drift between the two devices, how loud the bleed is, and where the latency changes along the take (alignment.segments). --start-at auto finds where in the whole backing the take was recorded. A latency the recorder claims (--latency-ms, or latency_ms in the take's record) is checked against the bleed. A take that holds no trace of the reference is refused (no-bleed), and so is one where no single offset stands out (low-confidence) or whose claimed latency is wrong (latency-mismatch): the tool never reports an offset it doesn't believe. Input records may carry start_seconds and latency_ms (a recorder's log), which override the options for that take. Video takes and references (MP4, MOV) are read through ffmpeg; the output is audio. A positive latency means the take is late.",
        options: [
            .value("reference", "FILE", help: "The backing track the takes were performed against; the latency is found from its bleed into each take. A video works too (its audio is used)."),
            .value("latency-ms", "MS", help: "The latency the recorder measured (positive: the take is late). Without --reference the take is shifted by exactly that; with it, the claim is checked against the bleed (see --tolerance-ms). A take's latency_ms in its record wins."),
            .value("tolerance-ms", "MS", help: "How far a claimed latency may be from the measured one before the take is refused as latency-mismatch (default \(VoAlign.number(VoAlign.defaultToleranceMS)))."),
            .value("start-at", "SECONDS|auto", help: "Where recording started on the reference timeline (the preview time at which it began; default 0), or auto: search the whole reference for the take. A take's start_seconds in its record wins."),
            .value("max-latency-ms", "MS", help: "Search latencies from -MS to +MS around the start (default 1000)."),
            .value("min-confidence", "X", help: "Refuse a found latency whose confidence (0 to 1) is below X (default \(VoAlign.defaultMinConfidence))."),
            .flag("correct-drift", help: "Resample the written take so that it stays aligned to the end despite the devices' clock drift."),
            .value("out-dir", "DIR", help: "Write each aligned take into DIR under its own name: latency removed (per stretch when it changes, with a 5 ms crossfade at each joint), placed on the reference timeline, same format, depth, rate and channels (WAV for a video or AAC take)."),
            .value("mix", "FILE", help: "Also write the reference with the aligned voice over it, the reference ducked while the voice is active. With several takes, FILE must contain {stem} (the take's name without extension)."),
            .value("duck-db", "DB", help: "How far the reference is lowered under the voice in --mix (default -12)."),
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
        ])

    static let defaultMinConfidence = BleedAligner.Settings().acceptConfidence
    static let defaultToleranceMS = 5.0
    /// Crossfade at each joint of a take re-timed per stretch.
    static let crossfadeMS = 5.0

    let reference: VoAlignAudioFile?
    let knownLatencyMS: Double?
    let startOption: VoAlignGiven.Start?
    let toleranceMS: Double
    let settings: BleedAligner.Settings
    let minConfidence: Double
    let correctDrift: Bool
    let outDir: String?
    let mixTemplate: String?
    let duckDB: Double
    let overwrite: Bool

    public init(options o: ParsedOptions) throws {
        knownLatencyMS = try o.double("latency-ms", in: -10_000...10_000)
        if let v = o.string("start-at"), v != "auto", Double(v.trimmingCharacters(in: .whitespaces)) == nil {
            throw UsageError("--start-at: '\(v)' is neither a time in seconds nor auto.")
        }
        if o.string("start-at") == "auto" { startOption = .auto }
        else { startOption = try o.double("start-at", in: 0...86_400).map { .seconds($0) } }
        toleranceMS = try o.double("tolerance-ms", in: 0...10_000) ?? Self.defaultToleranceMS
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
        let fromStdin = o.paths.isEmpty || o.paths == ["-"]
        if referencePath == nil && knownLatencyMS == nil && !fromStdin {
            throw UsageError("Give --reference (the backing track, to find the latency from its bleed) or --latency-ms (the latency the recorder measured).")
        }
        if referencePath == nil {
            for name in ["max-latency-ms", "min-confidence", "tolerance-ms"] where o.has(name) {
                throw UsageError("--\(name) applies to a latency measured from the reference; give --reference.")
            }
            if correctDrift {
                throw UsageError("--correct-drift needs the drift measured from the bleed: give --reference.")
            }
            if case .auto = startOption {
                throw UsageError("--start-at auto searches the reference for the take: give --reference.")
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
            // Checked (and, for a video, decoded) once per run: a reference that can't be read is
            // a usage error.
            do {
                let r = try VoAlignAudioFile(path)
                guard r.frames > 0 else { throw UsageError("--reference \(ToolError.quoted(path)) holds no audio frames.") }
                reference = r
            } catch let e as ToolError {
                throw UsageError("--reference: \(e.message) \(e.suggestion)")
            } catch let e as ToolErrorConvertible {
                let t = e.toolError(path: path)
                throw UsageError("--reference: \(t.message) \(t.suggestion)")
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
        let take = try VoAlignAudioFile(path)
        let rate = take.rate
        guard take.frames > 0 else {
            throw ToolError(.empty, "\(ToolError.quoted(path)) holds no audio frames.",
                            suggestion: "Export the take again; a file with sound in it will work.")
        }
        let given = try VoAlignGiven(record: record, path: path, startOption: startOption, latencyOption: knownLatencyMS)
        var notes: [String] = []
        let p = try place(take, given: given, notes: &notes)
        var o = measurementFields(p, rate: rate, notes: &notes)
        if let l = p.latency, Int(l.rounded()) < 0 {
            notes.append("The latency is negative: the take is early against the reference. Check the start, or whether the reference has material before the take's.")
        }
        let delayFrames = Int(p.delay.rounded())
        o["latency"] = p.latency.map { Self.frames(Int($0.rounded()), rate) } ?? .null
        o["latency_ms"] = .optional(p.latency.map { $0 / Double(rate) * 1000 }, decimals: 3)
        o["start"] = p.start.map { Self.frames($0, rate) } ?? .null
        o["start_seconds"] = .optional(p.start.map { Double($0) / Double(rate) }, decimals: 6)
        o["delay"] = Self.frames(delayFrames, rate)
        o["delay_ms"] = .double(Double(delayFrames) / Double(rate) * 1000, decimals: 3)
        var origin: [String: JSON] = ["start": .string(p.startOrigin), "latency": p.latencyOrigin.map { .string($0) } ?? .null]
        origin["claim"] = given.claimOrigin.map { .string($0) } ?? .null
        o["origin"] = .object(origin)
        o["claimed_latency_ms"] = .optional(given.claimMS, decimals: 3)
        o["claim_checked"] = p.claimChecked.map { .bool($0) } ?? .null
        o["segments"] = .array(p.segments.map { s in
            let l = p.start.map { s.delay + Double($0) }
            return .object([
                "from": Self.frames(s.from, rate), "from_seconds": .double(Double(s.from) / Double(rate), decimals: 6),
                "latency": l.map { Self.frames(Int($0.rounded()), rate) } ?? .null,
                "latency_ms": .optional(l.map { $0 / Double(rate) * 1000 }, decimals: 3),
                "delay": Self.frames(Int(s.delay.rounded()), rate),
                "delay_ms": .double(Double(Int(s.delay.rounded())) / Double(rate) * 1000, decimals: 3),
                "confidence": .optional(s.confidence, decimals: 3), "windows": s.windows.map { .int($0) } ?? .null,
            ])
        })
        o["reference"] = reference.map { .string($0.original) } ?? .null
        try writeOutputs(take: take, placement: p, into: &o, notes: &notes)
        o["notes"] = .array(notes.map { .string($0) })
        var r = record
        r["alignment"] = .object(o)
        return r
    }

    /// The measured values of the record (null for a known latency) and their notes.
    func measurementFields(_ p: VoAlignPlacement, rate: Int, notes: inout [String]) -> [String: JSON] {
        var o: [String: JSON] = ["method": .string(p.method)]
        guard let a = p.measured else {
            for k in ["confidence", "drift_ppm", "drift_uncertainty_ppm", "bleed_db", "windows_agreeing", "windows_analysed", "latency_samples_exact"] {
                o[k] = .null
            }
            return o
        }
        o["confidence"] = .double(a.confidence, decimals: 3)
        o["drift_ppm"] = .optional(a.driftPPM, decimals: 2)
        o["drift_uncertainty_ppm"] = .optional(a.driftUncertaintyPPM, decimals: 2)
        o["bleed_db"] = .double(a.bleedDB, decimals: 2)
        o["latency_samples_exact"] = .optional(p.latency, decimals: 3)
        o["windows_agreeing"] = .int(a.inlierCount)
        o["windows_analysed"] = .int(a.windows.count)
        if a.driftPPM == nil {
            notes.append("Drift is unknown: fewer than two windows of the take agree (the take is short or the bleed is faint in places).")
        }
        if a.polarity < 0 { notes.append("The backing appears inverted (opposite polarity) in the take.") }
        if p.segments.count > 1 {
            notes.append("The latency changes along the take: \(p.segments.count) stretches (see segments), measured in \(a.windows.count) short windows.")
        }
        if a.inlierCount < a.windows.count {
            notes.append("\(a.windows.count - a.inlierCount) of \(a.windows.count) windows showed no clear bleed or disagreed, and were left out.")
        }
        return o
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
