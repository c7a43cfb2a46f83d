import AudioIO
import AudioSignal
import Foundation
import JSONValue
import ToolRunner

/// lufs-normalize --write-tags: the ReplayGain 2.0 / R128 values of each record's measurement
/// (and its album's, with --album), written into the input by GainTagWriter.
package struct GainTagging: GainTagJob {
    package let referenceLUFS: Double
    package let album: Bool
    package let dryRun: Bool
    /// --id3v2: the ID3v2 version to save MP3, WAV and AIFF tags in (nil: each file's own).
    package var id3Version: Int? = nil

    /// The album's loudness and peak from `loudness.album`, or a refusal saying how to get them.
    package static func albumValues(_ record: Record, path: String) throws -> (lufs: Double?, truePeak: Double?, samplePeak: Double?, key: String, tracks: Int) {
        guard let a = record["loudness"]?["album"], a.objectValue != nil, let lufs = a["integrated_lufs"] else {
            throw ToolError(.badInput, "The record of \(ToolError.quoted(path)) has no album measurement (loudness.album), so --album has no album gain to use; nothing was written.",
                            suggestion: "Measure the albums first: lufs-measure --album DIR | lufs-normalize --album ...")
        }
        return (lufs.doubleValue, a["true_peak_dbtp"]?.doubleValue, a["sample_peak_dbfs"]?.doubleValue,
                a["key"]?.stringValue ?? "?", a["tracks"]?.intValue.map { Int($0) } ?? 0)
    }

    package static func linear(_ db: Double?) -> Double { db.map { pow(10, $0 / 20) } ?? 0 }

    package func process(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let name = ToolError.quoted(path)
        let identity = try FileIdentity.of(path)
        var notes: [String] = []
        var loudness = record["loudness"]
        if loudness?.objectValue == nil || loudness?["integrated_lufs"] == nil {
            if album { _ = try Self.albumValues(record, path: path) }
            loudness = try Self.measure(path)
            notes.append("The record carried no loudness measurement, so the file was measured here (one extra pass).")
        } else {
            _ = try RecordedLoudness.isCurrent(loudness, identity: identity, path: path, tagging: true)
        }
        guard let trackLUFS = loudness?["integrated_lufs"]?.doubleValue else {
            throw ToolError(.noAudio, "\(name) has no measurable loudness (silent or below the −70 LUFS gate), so no gain reaches a reference; its tags were left as they were.",
                            suggestion: "Leave the file as it is, or check that the right file was measured.")
        }
        // Peaks are true peaks, never below the sample peak (both are rounded to 0.01 dB in records).
        let trackPeak = max(Self.linear(loudness?["true_peak_dbtp"]?.doubleValue), Self.linear(loudness?["sample_peak_dbfs"]?.doubleValue))
        var values = GainValues(referenceLUFS: referenceLUFS, trackLUFS: trackLUFS, trackPeak: trackPeak)
        if album {
            let a = try Self.albumValues(record, path: path)
            guard let lufs = a.lufs else {
                throw ToolError(.noAudio, "The album of \(name) (“\(a.key)”) has no measurable loudness, so no album gain exists; its tags were left as they were.",
                                suggestion: "Tag it without --album, or check the album's tracks.")
            }
            values.albumLUFS = lufs
            values.albumPeak = max(Self.linear(a.truePeak), Self.linear(a.samplePeak), trackPeak)
        }
        let outcome = try GainTagWriter.write(path, values: values, dryRun: dryRun, id3Version: id3Version)
        if outcome.format == .opus {
            notes.append("Opus keeps R128 gains (RFC 7845: Q7.8 dB relative to −23 LUFS, no peaks) instead of ReplayGain tags; the header's output gain was left as it is.")
        }
        if !outcome.rewritten, !dryRun { notes.append("The tags already held these values, so the file was not rewritten.") }
        let o = outcome.json(values: values, referenceLUFS: referenceLUFS, dryRun: dryRun, notes: notes)
        var r = record
        r["normalized"] = .object(o)
        return r
    }

    /// Track loudness measured here, in the record's form, for a bare path.
    package static func measure(_ path: String) throws -> JSON {
        let opened = try Decoder.open(path)
        let fmt = opened.source.format
        let meter = LoudnessMeter(sampleRate: fmt.sampleRate, weights: ChannelLayout.standard(channelCount: fmt.channelCount).weights)
        try Decoder.forEachBlock(opened.source) { meter.add($0) }
        let m = meter.finish()
        return .object(["integrated_lufs": .optional(m.integratedLUFS, decimals: 2), "true_peak_dbtp": .optional(m.truePeakDBTP, decimals: 2),
                        "sample_peak_dbfs": .optional(m.samplePeakDBFS, decimals: 2)])
    }
}
