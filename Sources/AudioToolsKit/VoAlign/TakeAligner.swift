import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

extension VoAlignGiven {
    /// The take's start and claimed latency: its record's `start_seconds` and `latency_ms` (a
    /// recorder's log) when present, else the run's options.
    package init(record: Record, path: String, startOption: Start?, latencyOption: Double?) throws {
        func number(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let v = record[key], v != .null else { return nil }
            guard let d = v.doubleValue, d.isFinite, range.contains(d) else {
                throw ToolError(.badInput, "The record of \(ToolError.quoted(path)) has \(key) \(v.serialized()), which is not a number from \(AlignmentRecord.number(range.lowerBound)) to \(AlignmentRecord.number(range.upperBound)).",
                                suggestion: "Fix \(key) in the record (\(key == "start_seconds" ? "the preview time at which recording began, in seconds" : "the recorder's latency in ms, positive when the take is late")), or remove it to use the option.")
            }
            return d
        }
        var given = VoAlignGiven(start: .seconds(0), startOrigin: "default")
        if let s = try number("start_seconds", 0...86_400) { given.start = .seconds(s); given.startOrigin = "record" }
        else if let s = startOption { given.start = s; given.startOrigin = "option" }
        if let l = try number("latency_ms", -10_000...10_000) { given.claimMS = l; given.claimOrigin = "record" }
        else if let l = latencyOption { given.claimMS = l; given.claimOrigin = "option" }
        self = given
    }
}

/// vo-align's work on one take: placed on the reference timeline (from the options and the take's
/// record), written out as --out-dir and --mix ask, and described in the record's `alignment`.
package struct TakeAligner {
    package let reference: VoAlignAudioFile?
    package let knownLatencyMS: Double?
    package let startOption: VoAlignGiven.Start?
    package let toleranceMS: Double
    package let settings: BleedAligner.Settings
    package let minConfidence: Double
    package let correctDrift: Bool
    package let outDir: String?
    package let mixTemplate: String?
    package let duckDB: Double
    package let overwrite: Bool

    package func align(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let take = try VoAlignAudioFile(path)
        let rate = take.rate
        guard take.frames > 0 else {
            throw ToolError(.empty, "\(ToolError.quoted(path)) holds no audio frames.",
                            suggestion: "Export the take again; a file with sound in it will work.")
        }
        let given = try VoAlignGiven(record: record, path: path, startOption: startOption, latencyOption: knownLatencyMS)
        var placementNotes: [PlacementNote] = []
        let placer = TakePlacer(reference: reference, settings: settings, minConfidence: minConfidence, toleranceMS: toleranceMS)
        let p = try placer.place(take, given: given, notes: &placementNotes)
        var notes = placementNotes.map(\.sentence)
        var o = AlignmentRecord.fields(p, given: given, rate: rate, reference: reference?.original, notes: &notes)
        try writeOutputs(take: take, placement: p, into: &o, notes: &notes)
        o["notes"] = .array(notes.map { .string($0) })
        var r = record
        r["alignment"] = .object(o)
        return r
    }

    /// Writes what --out-dir and --mix ask for, and records it (output, mix, joints, drift_corrected).
    package func writeOutputs(take: VoAlignAudioFile, placement p: VoAlignPlacement, into o: inout [String: JSON],
                      notes: inout [String]) throws {
        let rate = take.rate, path = take.original
        let segmented = AlignedTakeWriter.segmented(p, take: take)
        if correctDrift && p.measured?.driftPPM == nil {
            notes.append("--correct-drift was asked for but the drift is unknown, so the written audio is not drift-corrected.")
        } else if correctDrift && segmented != nil {
            notes.append("--correct-drift was not applied: the take is re-timed per stretch, each moved by whole frames.")
        }
        if outDir != nil, take.decodedByFFmpeg {
            notes.append("\(ToolError.quoted(path)) was decoded through ffmpeg; its aligned audio is written as 24-bit WAV.")
        }
        let writer = AlignedTakeWriter(outDir: outDir, mixTemplate: mixTemplate, reference: reference, correctDrift: correctDrift,
                                       duckDB: duckDB, overwrite: overwrite)
        let w = try writer.write(take: take, placement: p)
        AlignmentRecord.outputFields(w, rate: rate, into: &o)
        if w.output != nil, let seg = segmented {
            notes.append("The written take is re-timed in \(seg.stretches.count) stretches, each where it was performed, with a \(AlignmentRecord.number(AlignedTakeWriter.crossfadeMS)) ms crossfade at each joint (see joints).")
        }
        if let peak = w.mixPeak, peak > 1 {
            notes.append("The mix peaks at \(AlignmentRecord.number(20 * log10(Double(peak)), 1)) dBFS, above full scale: lower the take or the reference before mixing.")
        }
    }
}
