import Foundation

/// The measurement a record carries (`loudness`, lufs-measure's output), used only when it is of
/// the file as it is now: its identity (size and modification time) must match.
public enum RecordedLoudness {
    /// The integrated loudness and true peak of `loudness` for the file at `path` whose identity
    /// is `identity`; nil, with a note saying why, when there is no measurement to use (the
    /// file is then measured here). Refuses a measurement of an earlier state of the file, and
    /// one whose loudness is not a number.
    public static func check(_ loudness: JSON?, identity: FileIdentity, path: String) throws
        -> (measured: (integrated: Double?, truePeak: Double?)?, note: String?) {
        guard let l = loudness, l.objectValue != nil, let lufs = l["integrated_lufs"] else {
            return (nil, "The record carried no loudness measurement, so the file was measured here (one extra pass).")
        }
        guard let id = FileIdentity(json: l["file"]) else {
            return (nil, "The record's loudness carries no file identity to check it against, so the file was measured here (one extra pass).")
        }
        let name = ToolError.quoted(path)
        if id != identity { throw stale(path, measured: id, now: identity) }
        if !lufs.isNull && lufs.doubleValue == nil {
            throw ToolError(.badInput, "The loudness in \(name)'s record is not a number.",
                            suggestion: "Pass the record lufs-measure wrote, unchanged.")
        }
        return ((lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue), nil)
    }

    /// The refusal of a measurement taken of the file at `path` when it was `measured`.
    public static func stale(_ path: String, measured: FileIdentity, now: FileIdentity) -> ToolError {
        ToolError(.staleMeasurement, "\(ToolError.quoted(path)) has changed since it was measured (\(change(from: measured, to: now))), so its measurement no longer applies; nothing was written.",
                  suggestion: "Measure it again (lufs-measure \(shellQuoted(path)) | lufs-normalize ...), or pass the bare path to have it measured here.")
    }

    /// The record's measurement of audio stream `ordinal`: the `loudness.streams` entry, or
    /// `loudness` itself when it is of that stream (its `stream` key, or none for stream 0).
    public static func stream(_ loudness: JSON?, ordinal: Int) -> JSON? {
        guard let l = loudness, l.objectValue != nil else { return nil }
        if let list = l["streams"]?.arrayValue, let e = list.first(where: { $0["stream"]?.intValue == ordinal }) { return e }
        let own = l["stream"]?.intValue ?? 0
        return own == ordinal ? l : nil
    }

    /// The layout the measurement used (the record's, or the file's channel map, or the default
    /// for the channel count, as lufs-measure chooses it), so the output is measured alike.
    public static func layout(loudness: JSON?, description: SndfileDescription, channelCount: Int) -> ChannelLayout {
        if channelCount == 1, loudness?["dual_mono"]?.boolValue == true { return .dualMono }
        if let s = loudness?["layout"]?.stringValue, let l = try? ChannelLayout.parse(s), l.roles.count == channelCount,
           !l.isDualMono {
            return l
        }
        if let names = description.channelNames, !names.contains("?"),
           let l = try? ChannelLayout.parse(names.joined(separator: ",")), l.roles.count == channelCount {
            return l
        }
        return ChannelLayout.standard(channelCount: channelCount)
    }

    /// What changed between two identities, in words.
    static func change(from old: FileIdentity, to new: FileIdentity) -> String {
        var parts: [String] = []
        if old.sizeBytes != new.sizeBytes { parts.append("size \(old.sizeBytes) → \(new.sizeBytes) bytes") }
        if old.modifiedNanoseconds != new.modifiedNanoseconds { parts.append("modified since") }
        return parts.joined(separator: ", ")
    }

    /// `s` as one shell word.
    static func shellQuoted(_ s: String) -> String {
        s.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
