import Foundation

/// Where the start and the claimed latency of one take come from: its input record (a
/// recorder's log) overrides the run's options.
struct VoAlignGiven {
    enum Start { case seconds(Double), auto }
    var start: Start
    var startOrigin: String       // "record", "option", "default" ("found" once auto has run)
    var claimMS: Double?
    var claimOrigin: String?      // "record" or "option"

    init(record: Record, path: String, startOption: Start?, latencyOption: Double?) throws {
        func number(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let v = record[key], v != .null else { return nil }
            guard let d = v.doubleValue, d.isFinite, range.contains(d) else {
                throw ToolError(.badInput, "The record of \(ToolError.quoted(path)) has \(key) \(v.serialized()), which is not a number from \(VoAlign.number(range.lowerBound)) to \(VoAlign.number(range.upperBound)).",
                                suggestion: "Fix \(key) in the record (\(key == "start_seconds" ? "the preview time at which recording began, in seconds" : "the recorder's latency in ms, positive when the take is late")), or remove it to use the option.")
            }
            return d
        }
        if let s = try number("start_seconds", 0...86_400) { start = .seconds(s); startOrigin = "record" }
        else if let s = startOption { start = s; startOrigin = "option" }
        else { start = .seconds(0); startOrigin = "default" }
        if let l = try number("latency_ms", -10_000...10_000) { claimMS = l; claimOrigin = "record" }
        else if let l = latencyOption { claimMS = l; claimOrigin = "option" }
    }

    /// How the claim is named in messages.
    var claimSource: String { claimOrigin == "record" ? "latency_ms in its record" : "--latency-ms" }
}

/// What was found for one take: D always; L and S where they can be told apart.
struct VoAlignPlacement {
    var method: String                  // "bleed" or "known"
    var latency: Double?                // L in take frames (exact)
    var start: Int?                     // S in take frames
    var delay: Double                   // D = L − S (exact)
    var segments: [(from: Int, delay: Double, confidence: Double?, windows: Int?)]
    var measured: BleedAligner.Alignment?
    var startOrigin: String
    var latencyOrigin: String?
    var claimChecked: Bool?
}

extension VoAlign {
    static let coarseRate = 8000
    /// The coarse stage correlates at most this much of the take (its middle).
    static let coarseTakeSeconds = 60.0

    /// Finds (or takes as given) where `take` goes on the reference timeline.
    func place(_ take: VoAlignAudioFile, given: VoAlignGiven, notes: inout [String]) throws -> VoAlignPlacement {
        let rate = take.rate, path = take.original
        func known(_ ms: Double, start: Int, origin: String) -> VoAlignPlacement {
            let l = (ms * Double(rate) / 1000).rounded()
            if abs(l / Double(rate) * 1000 - ms) > 1e-9 {
                notes.append("The claimed latency \(Self.number(ms)) ms was rounded to the nearest frame at \(rate) Hz.")
            }
            let d = l - Double(start)
            return VoAlignPlacement(method: "known", latency: l, start: start, delay: d, segments: [(0, d, nil, nil)],
                                    measured: nil, startOrigin: given.startOrigin, latencyOrigin: origin, claimChecked: false)
        }
        guard let ref = reference else {
            guard let claim = given.claimMS, case .seconds(let s) = given.start else {
                throw ToolError(.badInput, "\(ToolError.quoted(path)) has no latency_ms in its record, and neither --reference nor --latency-ms was given.",
                                suggestion: "Add latency_ms to the take's record, or pass --latency-ms or --reference.")
            }
            notes.append("The latency was given (\(given.claimSource)), not measured: confidence, drift and bleed are not known.")
            return known(claim, start: Int((s * Double(rate)).rounded()), origin: given.claimOrigin!)
        }
        var offset: Int
        var auto = false
        switch given.start {
        case .auto:
            auto = true
            offset = try coarsePosition(take: take, reference: ref)
        case .seconds(let s):
            offset = Int((s * Double(rate)).rounded())
            if s * Double(ref.rate) >= Double(ref.frames) {
                throw ToolError(.lowConfidence,
                    "The start \(Self.number(s)) s (\(given.startOrigin == "record" ? "start_seconds in its record" : "--start-at")) is past the end of \(ToolError.quoted(ref.original)), so \(ToolError.quoted(path)) can't be placed on it.",
                    suggestion: "Give the preview time at which recording started, within the reference's \(Self.number(Double(ref.frames) / Double(ref.rate))) seconds, or --start-at auto to find it.")
            }
        }
        let refSignal = try VoAlignFileSignal(path: ref.path, targetRate: rate, offset: offset)
        let takeSignal = try VoAlignFileSignal(path: take.path, targetRate: rate)
        let outcome = try BleedAligner(sampleRate: Double(rate), settings: settings).alignSegments(reference: refSignal, take: takeSignal)
        let found: BleedAligner.Segmented
        switch outcome {
        case .refused(let r):
            if let claim = given.claimMS, !auto {
                notes.append("The claimed latency (\(given.claimSource)) could not be checked: \(r.reason == .noBleed ? "the take holds no trace of the reference" : "no single offset stands out in the bleed"). It was used as given.")
                return known(claim, start: offset, origin: given.claimOrigin!)
            }
            throw refusal(r, take: path, reference: ref.original, given: given)
        case .aligned(let s):
            if s.alignment.confidence < minConfidence {
                if let claim = given.claimMS, !auto {
                    notes.append("The claimed latency (\(given.claimSource)) could not be checked: the bleed's confidence \(Self.number(s.alignment.confidence, 2)) is below \(Self.number(minConfidence, 2)). It was used as given.")
                    return known(claim, start: offset, origin: given.claimOrigin!)
                }
                throw ToolError(.lowConfidence,
                    "\(ToolError.quoted(path)) holds a trace of \(ToolError.quoted(ref.original)) but no single offset stands out: confidence \(Self.number(s.alignment.confidence, 2)), below the \(Self.number(minConfidence, 2)) required (\(s.alignment.inlierCount) of \(s.alignment.windows.count) windows agree).",
                    suggestion: lowConfidenceSuggestion)
            }
            found = s
        }
        // The reference was read from `offset` on: what the aligner finds is D + offset.
        let a = found.alignment
        let delay = a.latencySamples - Double(offset)
        var p = VoAlignPlacement(method: "bleed", latency: nil, start: nil, delay: delay,
                                 segments: found.segments.map { ($0.from, $0.latencySamples - Double(offset), $0.confidence, $0.windows) },
                                 measured: a, startOrigin: given.startOrigin, latencyOrigin: nil, claimChecked: nil)
        if auto {
            p.startOrigin = "found"
            if let claim = given.claimMS {
                // D is measured; with the claimed L, S = L − D.
                let l = (claim * Double(rate) / 1000).rounded()
                p.latency = l
                p.start = Int((l - delay).rounded())
                p.latencyOrigin = given.claimOrigin
                p.claimChecked = false
                notes.append("With the start found (--start-at auto), only the delay is measured, not the latency and the start apart: the start was worked out from the claimed latency (\(given.claimSource)), which could not be checked.")
            } else {
                notes.append("The start was found (--start-at auto): the delay says where the take goes; the latency and the start can't be told apart without a claimed latency (--latency-ms or latency_ms in the record), so both are null.")
            }
        } else {
            p.latency = a.latencySamples
            p.start = offset
            p.latencyOrigin = "measured"
            if let claim = given.claimMS {
                let measuredMS = a.latencySamples / Double(rate) * 1000
                if abs(measuredMS - claim) > toleranceMS {
                    throw ToolError(.latencyMismatch,
                        "The latency claimed for \(ToolError.quoted(path)) (\(Self.number(claim)) ms, \(given.claimSource)) differs from the \(Self.number(measuredMS)) ms measured from the bleed of \(ToolError.quoted(ref.original)) by \(Self.number(abs(measuredMS - claim))) ms, more than the \(Self.number(toleranceMS)) ms tolerance.",
                        suggestion: "Drop the claim (\(given.claimOrigin == "record" ? "remove latency_ms from the take's record" : "leave out --latency-ms")) to use the measured latency, or widen --tolerance-ms if the recorder's figure is known to be loose.")
                }
                p.claimChecked = true
            }
        }
        return p
    }

    /// The coarse stage of --start-at auto: the take's position on the whole reference, in take
    /// frames (the fine stage searches ±--max-latency-ms around it).
    func coarsePosition(take: VoAlignAudioFile, reference ref: VoAlignAudioFile) throws -> Int {
        let cr = Self.coarseRate
        var coarse: [Float] = []
        try take.forEachCoarseBlock(rate: cr) { coarse += $0 }
        // The middle of a long take is enough to find it, and keeps the search fast.
        let keep = Int(Self.coarseTakeSeconds * Double(cr))
        let skip = coarse.count > keep ? (coarse.count - keep) / 2 : 0
        if skip > 0 { coarse = Array(coarse[skip..<(skip + keep)]) }
        guard !coarse.isEmpty else { return 0 }
        var s = TakeLocator.Settings()
        s.leadSeconds = settings.maxLagSeconds + 1
        let locator = TakeLocator(take: coarse, sampleRate: Double(cr), settings: s)
        try ref.forEachCoarseBlock(rate: cr) { locator.add($0) }
        let r = locator.finish()
        let name = ToolError.quoted(take.original), refName = ToolError.quoted(ref.original)
        guard let best = r.best, r.detection >= s.noBleedDetection else {
            throw ToolError(.noBleed, "\(name) holds no trace of \(refName) anywhere in it: it was probably recorded on headphones, or against another backing.",
                            suggestion: "Give the start (--start-at, or start_seconds in the take's record) and the latency the recorder measured (--latency-ms, or latency_ms in the record).")
        }
        if r.rivals.count >= 2 {
            let places = r.rivals.prefix(6).map { Self.clock(Double($0.position - skip) / Double(cr)) }
            let more = r.rivals.count > 6 ? " and \(r.rivals.count - 6) more" : ""
            let count = r.rivals.count >= s.maxCandidates ? "at least \(r.rivals.count)" : "\(r.rivals.count)"
            throw ToolError(.lowConfidence,
                "\(name) fits \(count) places of \(refName) about equally well: at \(places.joined(separator: ", "))\(more). The backing repeats (a loop?), so where the take belongs can't be told from the sound.",
                suggestion: "Give the start with --start-at (or start_seconds in the take's record), the preview time at which recording began; one of the places above.")
        }
        return Int((Double(best.position - skip) * Double(take.rate) / Double(cr)).rounded())
    }

    /// A timeline position for a message: 83.25 → "1:23.25" (seconds below a minute: "23.25 s").
    static func clock(_ seconds: Double) -> String {
        let t = (seconds * 100).rounded() / 100
        if abs(t) < 60 { return "\(number(t, 2)) s" }
        let sign = t < 0 ? "-" : "", a = abs(t)
        let m = Int(a / 60), rest = a - Double(m * 60)
        return "\(sign)\(m):\(rest < 10 ? "0" : "")\(String(format: "%.2f", rest))"
    }

    var lowConfidenceSuggestion: String {
        "Narrow the search with --max-latency-ms (e.g. 300 when the setup's latency is known to be shorter than that), or pass the latency the recorder measured with --latency-ms."
    }

    func refusal(_ r: BleedAligner.Refusal, take: String, reference: String, given: VoAlignGiven) -> ToolError {
        let startSeconds: Double
        if case .seconds(let s) = given.start { startSeconds = s } else { startSeconds = 0 }
        if case .auto = given.start, r.reason == .noBleed {
            return ToolError(.noBleed,
                "\(ToolError.quoted(take)) holds no clear trace of \(ToolError.quoted(reference)) anywhere in it (the best place found, searched again closely, shows none): it was probably recorded on headphones, or against another backing.",
                suggestion: "Give the start (--start-at, or start_seconds in the take's record) and the latency the recorder measured (--latency-ms, or latency_ms in the record).")
        }
        switch r.reason {
        case .noBleed where startSeconds != 0:
            return ToolError(.noBleed,
                "\(ToolError.quoted(take)) holds no trace of \(ToolError.quoted(reference)) within \(Self.number(settings.maxLagSeconds * 1000)) ms of its start \(Self.number(startSeconds)) s: it was recorded on headphones, or started elsewhere on the timeline.",
                suggestion: "Check the start (--start-at, or start_seconds in the take's record), or let vo-align find it with --start-at auto; or pass the latency the recorder measured with --latency-ms.")
        case .noBleed:
            return ToolError(.noBleed,
                "\(ToolError.quoted(take)) holds no trace of \(ToolError.quoted(reference)): it was probably recorded on headphones.",
                suggestion: "Pass the latency the recorder measured with --latency-ms; if recording began partway into the backing track, give that time with --start-at, or --start-at auto to find it.")
        case .lowConfidence:
            return ToolError(.lowConfidence,
                "\(ToolError.quoted(take)) holds a trace of \(ToolError.quoted(reference)) but no single offset stands out (best confidence \(Self.number(r.confidence, 2)), \(r.acceptedCount) of \(r.windows.count) windows clear): the backing may repeat, or the windows disagree.",
                suggestion: lowConfidenceSuggestion)
        }
    }
}
