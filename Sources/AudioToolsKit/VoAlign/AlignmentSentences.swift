import AudioIO
import AudioSignal
import Foundation
import ToolRunner

extension BleedAligner.Refusal.Reason {
    /// The record's error code for an alignment refused for this reason.
    public var errorCode: ErrorCode { self == .noBleed ? .noBleed : .lowConfidence }
}

/// What a person reads when vo-align gives a take no placement.
extension AlignmentError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        func q(_ p: String) -> String { ToolError.quoted(p) }
        func n(_ v: Double, _ decimals: Int = 3) -> String { VoAlign.number(v, decimals) }
        switch self {
        case .nothingToPlaceBy(let take):
            return ToolError(.badInput, "\(q(take)) has no latency_ms in its record, and neither --reference nor --latency-ms was given.",
                             suggestion: "Add latency_ms to the take's record, or pass --latency-ms or --reference.")
        case .startPastEnd(let take, let reference, let s, let fromRecord, let referenceSeconds):
            return ToolError(.lowConfidence,
                "The start \(n(s)) s (\(fromRecord ? "start_seconds in its record" : "--start-at")) is past the end of \(q(reference)), so \(q(take)) can't be placed on it.",
                suggestion: "Give the preview time at which recording started, within the reference's \(n(referenceSeconds)) seconds, or --start-at auto to find it.")
        case .belowConfidence(let take, let reference, let confidence, let required, let agreeing, let windows, let searchedWhole):
            return ToolError(.lowConfidence,
                "\(q(take)) holds a trace of \(q(reference)) but no single offset stands out: confidence \(n(confidence, 2)), below the \(n(required, 2)) required (\(agreeing) of the \(windows) windows that show it agree).",
                suggestion: Self.lowConfidenceSuggestion(searchedWhole: searchedWhole))
        case .latencyMismatch(let take, let reference, let claim, let measuredMS, let toleranceMS, let fromRecord):
            return ToolError(.latencyMismatch,
                "The latency claimed for \(q(take)) (\(n(claim)) ms, \(VoAlignGiven.claimSource(fromRecord: fromRecord))) differs from the \(n(measuredMS)) ms measured from the bleed of \(q(reference)) by \(n(abs(measuredMS - claim))) ms, more than the \(n(toleranceMS)) ms tolerance.",
                suggestion: "Drop the claim (\(fromRecord ? "remove latency_ms from the take's record" : "leave out --latency-ms")) to use the measured latency, or widen --tolerance-ms if the recorder's figure is known to be loose.")
        case .notFound(let take, let reference):
            return ToolError(.noBleed, "\(q(take)) holds no trace of \(q(reference)) anywhere in it: it was probably recorded on headphones, or against another backing.",
                             suggestion: "Give the start (--start-at, or start_seconds in the take's record) and the latency the recorder measured (--latency-ms, or latency_ms in the record).")
        case .elsewhere(let take, let reference, let startSeconds, let startOrigin, let maxLagMS, let foundSeconds):
            let given = startOrigin == "record" ? "start_seconds in its record" : startOrigin == "option" ? "--start-at" : "no --start-at given"
            return ToolError(.noBleed,
                "\(q(take)) holds no trace of \(q(reference)) within \(n(maxLagMS)) ms of its start \(n(startSeconds)) s (\(given)), but the backing is clearly in it from about \(Self.clock(foundSeconds)) into the reference: recording began there.",
                suggestion: startOrigin == "record"
                    ? "Fix start_seconds in the take's record (about \(n(foundSeconds, 1))), or remove it and let vo-align find the start with --start-at auto."
                    : "Let vo-align find the start with --start-at auto, or give it: --start-at \(n(foundSeconds, 1)), the preview time at which recording began.")
        case .repeats(let take, let reference, let placesSeconds, let count, let atLeast):
            let places = placesSeconds.map(Self.clock)
            let more = count > 6 ? " and \(count - 6) more" : ""
            let counted = atLeast ? "at least \(count)" : "\(count)"
            return ToolError(.lowConfidence,
                "\(q(take)) fits \(counted) places of \(q(reference)) about equally well: at \(places.joined(separator: ", "))\(more). The backing repeats (a loop?), so where the take belongs can't be told from the sound.",
                suggestion: "Give the start with --start-at (or start_seconds in the take's record), the preview time at which recording began; one of the places above.")
        case .windowsDisagree(let take, let reference, let places, let withBacking, let searchedWhole, let startSeconds):
            return Self.windowsDisagree(take: take, reference: reference, places: places, withBacking: withBacking,
                                        searchedWhole: searchedWhole, startSeconds: startSeconds)
        case .refused(let take, let reference, let reason, let searchedWhole, let startSeconds, let maxLagMS, let confidence, let accepted, let windows):
            if searchedWhole, reason == .noBleed {
                return ToolError(.noBleed,
                    "\(q(take)) holds no clear trace of \(q(reference)) anywhere in it (the best place found, searched again closely, shows none): it was probably recorded on headphones, or against another backing.",
                    suggestion: "Give the start (--start-at, or start_seconds in the take's record) and the latency the recorder measured (--latency-ms, or latency_ms in the record).")
            }
            switch reason {
            case .noBleed where startSeconds != 0:
                return ToolError(.noBleed,
                    "\(q(take)) holds no trace of \(q(reference)) within \(n(maxLagMS)) ms of its start \(n(startSeconds)) s: it was recorded on headphones, or started elsewhere on the timeline.",
                    suggestion: "Check the start (--start-at, or start_seconds in the take's record), or let vo-align find it with --start-at auto; or pass the latency the recorder measured with --latency-ms.")
            case .noBleed:
                return ToolError(.noBleed,
                    "\(q(take)) holds no trace of \(q(reference)): it was probably recorded on headphones.",
                    suggestion: "Pass the latency the recorder measured with --latency-ms; if recording began partway into the backing track, give that time with --start-at, or --start-at auto to find it.")
            case .lowConfidence:
                return ToolError(.lowConfidence,
                    "\(q(take)) holds a trace of \(q(reference)) but no single offset stands out (best confidence \(n(confidence, 2)), \(accepted) of \(windows) windows clear): the backing may repeat, or the windows disagree.",
                    suggestion: Self.lowConfidenceSuggestion(searchedWhole: searchedWhole))
            }
        }
    }

    /// The windows went back and forth between places, or none had a clear majority.
    package static func windowsDisagree(take: String, reference: String, places: [(ms: Double, windows: Int)], withBacking: Int,
                                searchedWhole: Bool, startSeconds: Double) -> ToolError {
        func n(_ v: Double, _ decimals: Int = 3) -> String { VoAlign.number(v, decimals) }
        let shown = places.prefix(4)
        var list = shown.enumerated().map { i, p in "\(n(p.ms, 1)) ms (\(p.windows) of \(withBacking)\(i == 0 ? " windows" : ""))" }
        let rest = places.dropFirst(4).reduce(0) { $0 + $1.windows }
        if rest > 0 { list.append("\(rest) more \(rest == 1 ? "window" : "windows") elsewhere") }
        let what = searchedWhole ? "delay at the place found" : "latency from the start \(n(startSeconds)) s"
        return ToolError(.lowConfidence,
            "\(ToolError.quoted(take)) holds a trace of \(ToolError.quoted(reference)) but its windows don't agree on one \(what): \(list.joined(separator: ", ")); no placement has a clear majority in take order, as when a backing that repeats is searched in the wrong place.",
            suggestion: searchedWhole
                ? "Give the start with --start-at (or start_seconds in the take's record) and a narrower --max-latency-ms, or pass the latency the recorder measured with --latency-ms."
                : "Let vo-align find where the take belongs with --start-at auto (it names every place a repeating backing fits), or check the start (--start-at, or start_seconds in the take's record); or pass the latency the recorder measured with --latency-ms.")
    }

    /// With a start given, a backing that repeats may have been searched in the wrong place.
    package static func lowConfidenceSuggestion(searchedWhole: Bool) -> String {
        let narrow = "narrow the search with --max-latency-ms (e.g. 300 when the setup's latency is known to be shorter than that), or pass the latency the recorder measured with --latency-ms."
        return searchedWhole ? "N" + narrow.dropFirst()
            : "Let vo-align find where the take belongs with --start-at auto (a backing that repeats fits several places), or " + narrow
    }

    /// A timeline position for a message: 83.25 → "1:23.25" (seconds below a minute: "23.25 s").
    package static func clock(_ seconds: Double) -> String {
        let t = (seconds * 100).rounded() / 100
        if abs(t) < 60 { return "\(VoAlign.number(t, 2)) s" }
        let sign = t < 0 ? "-" : "", a = abs(t)
        let m = Int(a / 60), rest = a - Double(m * 60)
        return "\(sign)\(m):\(rest < 10 ? "0" : "")\(String(format: "%.2f", rest))"
    }
}

/// What a person reads when vo-align's aligned take or mix can't be written.
extension AlignedOutputError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        switch self {
        case .overItself(let take):
            return ToolError(.exists, "\(ToolError.quoted(take)) would be written over itself: --out-dir is the take's own folder.",
                             suggestion: "Choose another --out-dir for the aligned takes.")
        case .mixOverInput(let mix):
            return ToolError(.exists, "The mix \(ToolError.quoted(mix)) would be written over one of its own inputs.",
                             suggestion: "Choose another --mix name, e.g. 'mix-{stem}.wav'.")
        case .exists(let output, let mix):
            return ToolError(.exists, "\(mix ? "The mix" : "The aligned take") \(Self.describe(output)) already exists; it was left as it is.",
                             suggestion: "Pass --overwrite to replace it, or choose another \(mix ? "--mix name" : "--out-dir").")
        }
    }

    /// “name” in “folder” (the sink's own message names only the file, which for an aligned
    /// take is also the take's name).
    package static func describe(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let dir = (path as NSString).deletingLastPathComponent
        return dir.isEmpty ? ToolError.quoted(path) : "\(ToolError.quoted(url.lastPathComponent)) in \(ToolError.quoted(dir))"
    }
}
