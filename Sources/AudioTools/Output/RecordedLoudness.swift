import Foundation

/// The measurement a record carries (`loudness`, lufs-measure's output), used only when it is of
/// the file as it is now: its identity (size and modification time) must match.
public enum RecordedLoudness {
    /// Why a record's measurement can't be used: facts only (the sentences are the tool's, in
    /// Tools/Errors/).
    public enum Refusal: Error, Equatable, Sendable {
        /// It was taken of the file when it was `measured`; the file is `now` different.
        /// `tagging`: the refusal of lufs-normalize --write-tags, which leaves the tags alone.
        case stale(measured: FileIdentity, now: FileIdentity, tagging: Bool)
        /// Its integrated loudness is neither a number nor null.
        case notANumber
    }

    /// The one check of a measurement (a `loudness` object, or one stream's entry of it) against
    /// the file as it is now (`identity`): true when it is of this state of the file, false when
    /// it carries no identity to check; throws `.stale` when the file has changed since.
    public static func isCurrent(_ measurement: JSON?, identity: FileIdentity, tagging: Bool = false) throws(Refusal) -> Bool {
        guard let id = FileIdentity(json: measurement?["file"]) else { return false }
        if id != identity { throw .stale(measured: id, now: identity, tagging: tagging) }
        return true
    }

    /// The integrated loudness and true peak of `loudness` for the file whose identity is
    /// `identity`; nil, with a note saying why, when there is no measurement to use (the file is
    /// then measured here). Refuses a measurement of an earlier state of the file, and one whose
    /// loudness is not a number.
    public static func check(_ loudness: JSON?, identity: FileIdentity) throws(Refusal)
        -> (measured: (integrated: Double?, truePeak: Double?)?, note: String?) {
        guard let l = loudness, l.objectValue != nil, let lufs = l["integrated_lufs"] else {
            return (nil, "The record carried no loudness measurement, so the file was measured here (one extra pass).")
        }
        guard try isCurrent(l, identity: identity) else {
            return (nil, "The record's loudness carries no file identity to check it against, so the file was measured here (one extra pass).")
        }
        if !lufs.isNull && lufs.doubleValue == nil { throw .notANumber }
        return ((lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue), nil)
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
}
