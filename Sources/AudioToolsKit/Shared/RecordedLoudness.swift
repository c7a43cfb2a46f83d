import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// The measurement a record carries (`loudness`, lufs-measure's output), used only when it is of
/// the file as it is now: its identity (size, modification and change times, fingerprint) must match.
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

    /// Whether a measurement's identity can be trusted, as `isCurrent` judged it.
    public enum Currency: Equatable, Sendable {
        /// Of this state of the file, by its size, times and fingerprint.
        case current
        /// The record carries no identity to check.
        case unknown
        /// A record of an older audio-tools (`modified_ns`: size and modification time only, which
        /// an edit whose time was put back passes): matching as far as it goes.
        case olderRecord
    }

    /// The one check of a measurement (a `loudness` object, or one stream's entry of it) against
    /// the file at `path` as it is now (`identity`, from its `stat`); throws `.stale` when the
    /// file has changed since. The fingerprint is read only when the times match.
    public static func currency(_ measurement: JSON?, identity: FileIdentity, path: String,
                                tagging: Bool = false) throws(Refusal) -> Currency {
        guard let id = FileIdentity(json: measurement?["file"]) else { return .unknown }
        var now = identity
        if id.fingerprint != nil, now.fingerprint == nil, id.sizeBytes == now.sizeBytes,
           id.modifiedNanoseconds == now.modifiedNanoseconds, id.changedNanoseconds == now.changedNanoseconds {
            // A file that can't be read again, or changed meanwhile, is not the one measured.
            now.fingerprint = FileIdentity.fingerprint(path: path, expected: identity) ?? "unreadable"
        }
        let differences = id.differences(from: now)
        if !differences.isEmpty { throw .stale(measured: id, now: now, tagging: tagging) }
        return id.hasChangeTime ? .current : .olderRecord
    }

    /// `currency`, for the callers that use any measurement that isn't refused (tags, dialogue):
    /// true when it is current or an older record's that matches as far as it goes.
    public static func isCurrent(_ measurement: JSON?, identity: FileIdentity, path: String,
                                 tagging: Bool = false) throws(Refusal) -> Bool {
        try currency(measurement, identity: identity, path: path, tagging: tagging) != .unknown
    }

    /// The integrated loudness and true peak of `loudness` for the file whose identity is
    /// `identity`; nil, with a note saying why, when there is no measurement to use (the file is
    /// then measured here). Refuses a measurement of an earlier state of the file, and one whose
    /// loudness is not a number.
    /// A measurement of an older audio-tools (no change time in its identity) is not used either:
    /// size and modification time can't show an edit whose time was put back.
    public static func check(_ loudness: JSON?, identity: FileIdentity, path: String) throws(Refusal)
        -> (measured: (integrated: Double?, truePeak: Double?)?, note: String?) {
        guard let l = loudness, l.objectValue != nil, let lufs = l["integrated_lufs"] else {
            return (nil, "The record carried no loudness measurement, so the file was measured here (one extra pass).")
        }
        switch try currency(l, identity: identity, path: path) {
        case .current: break
        case .unknown:
            return (nil, "The record's loudness carries no file identity to check it against, so the file was measured here (one extra pass).")
        case .olderRecord:
            return (nil, Self.olderRecordNote)
        }
        if !lufs.isNull && lufs.doubleValue == nil { throw .notANumber }
        return ((lufs.doubleValue, l["true_peak_dbtp"]?.doubleValue), nil)
    }

    /// Why the measurement of a record an older audio-tools wrote was not used.
    public static let olderRecordNote = "The record's loudness was written by an older audio-tools, whose file identity (size and modification time) can't show an edit whose time was put back, so the file was measured here (one extra pass)."

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
