import Foundation

/// Where a format keeps its gain tags, as far as writing them goes.
public enum TagFormat: String, CaseIterable, Sendable {
    case flac, oggVorbis = "ogg-vorbis", opus, mp3, wav, aiff, mp4

    /// The tag format of a sniffed container, or nil when gain tags can't be written into it.
    public static func of(_ kind: ContainerKind) -> TagFormat? {
        switch kind {
        case .flac: return .flac
        case .ogg(.vorbis): return .oggVorbis
        case .ogg(.opus): return .opus
        case .mp3: return .mp3
        case .wav: return .wav
        case .aiff, .aifc: return .aiff
        case .isoMedia: return .mp4
        default: return nil
        }
    }

    /// Whether the gains go in an ID3v2 tag, which has a version (2.3 or 2.4).
    public var hasID3v2: Bool { self == .mp3 || self == .wav || self == .aiff }

    /// The tag that holds the gains, in words (for records and messages).
    public var store: String {
        switch self {
        case .flac, .oggVorbis: return "Vorbis comment"
        case .opus: return "Opus comment header (R128)"
        case .mp3, .wav, .aiff: return "ID3v2 TXXX frames"
        case .mp4: return "iTunes freeform atoms"
        }
    }
}

/// ReplayGain 2.0 and RFC 7845 (Opus R128) values for one track, from a BS.1770 measurement.
/// Pure arithmetic and formatting: what to write, not how.
public struct GainValues: Equatable, Sendable {
    /// The loudness the gains bring a track to (ReplayGain 2.0: -18 LUFS).
    public var referenceLUFS: Double
    public var trackLUFS: Double
    /// Linear peak (true peak, never below the sample peak).
    public var trackPeak: Double
    public var albumLUFS: Double?
    public var albumPeak: Double?

    public static let defaultReferenceLUFS = -18.0
    /// RFC 7845 §5.2.1: R128 gains are relative to -23 LUFS (EBU R 128).
    public static let r128ReferenceLUFS = -23.0

    public init(referenceLUFS: Double = GainValues.defaultReferenceLUFS, trackLUFS: Double, trackPeak: Double,
                albumLUFS: Double? = nil, albumPeak: Double? = nil) {
        self.referenceLUFS = referenceLUFS
        self.trackLUFS = trackLUFS
        self.trackPeak = trackPeak
        self.albumLUFS = albumLUFS
        self.albumPeak = albumPeak
    }

    public var trackGainDB: Double { referenceLUFS - trackLUFS }
    public var albumGainDB: Double? { albumLUFS.map { referenceLUFS - $0 } }

    /// "-6.23 dB", as players parse it (two decimals, no plus sign).
    public static func gainText(_ db: Double) -> String {
        let r = (db * 100).rounded() / 100
        return String(format: "%.2f dB", r == 0 ? 0 : r)
    }

    /// A linear peak with six decimals, "0.987654".
    public static func peakText(_ linear: Double) -> String { String(format: "%.6f", max(0, linear)) }

    /// "-18.00 LUFS".
    public static func referenceText(_ lufs: Double) -> String { String(format: "%.2f LUFS", lufs) }

    /// RFC 7845 Q7.8: the gain to -23 LUFS in 1/256 dB, rounded and clamped to a signed 16-bit integer.
    public static func q78(_ db: Double) -> Int {
        Int(max(-32768, min(32767, (db * 256).rounded())))
    }

    /// The R128 gain of a loudness, as Q7.8.
    public static func r128Gain(lufs: Double) -> Int { q78(r128ReferenceLUFS - lufs) }
}

/// The spelling of gain tags in each format: field names and values.
public enum GainTagSpelling {
    /// The fields to set, in a fixed order (the order they are written and reported in).
    public static func fields(_ v: GainValues, format: TagFormat) -> [(key: String, value: String)] {
        if format == .opus {
            var f = [(key: "R128_TRACK_GAIN", value: String(GainValues.r128Gain(lufs: v.trackLUFS)))]
            if let a = v.albumLUFS { f.append((key: "R128_ALBUM_GAIN", value: String(GainValues.r128Gain(lufs: a)))) }
            return f
        }
        var f: [(key: String, value: String)] = [
            ("REPLAYGAIN_TRACK_GAIN", GainValues.gainText(v.trackGainDB)),
            ("REPLAYGAIN_TRACK_PEAK", GainValues.peakText(v.trackPeak)),
        ]
        if let g = v.albumGainDB {
            f.append(("REPLAYGAIN_ALBUM_GAIN", GainValues.gainText(g)))
            f.append(("REPLAYGAIN_ALBUM_PEAK", GainValues.peakText(v.albumPeak ?? v.trackPeak)))
        }
        f.append(("REPLAYGAIN_REFERENCE_LOUDNESS", GainValues.referenceText(v.referenceLUFS)))
        return f.map { (key: nativeKey($0.0, format: format), value: $0.1) }
    }

    /// Fields to delete as well: ReplayGain fields in an Opus file, which RFC 7845 §5.2.1 says
    /// must not be there (players would apply both).
    public static func removals(format: TagFormat) -> [String] {
        format == .opus ? replayGainNames : []
    }

    package static let replayGainNames = ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_ALBUM_GAIN",
                                  "REPLAYGAIN_ALBUM_PEAK", "REPLAYGAIN_REFERENCE_LOUDNESS"]

    /// What --remove-tags deletes, in any format: the ReplayGain fields (with the loudness ranges
    /// rsgain and loudgain add) and the Opus R128 gains.
    public static let removable = replayGainNames + ["REPLAYGAIN_TRACK_RANGE", "REPLAYGAIN_ALBUM_RANGE",
                                                     "R128_TRACK_GAIN", "R128_ALBUM_GAIN"]

    /// Whether a native key of `format`'s gain tag is one of `removable`, in any case (an MP4
    /// atom only under com.apple.iTunes).
    public static func isRemovable(_ key: String, format: TagFormat) -> Bool {
        let k = key.uppercased()
        return removable.contains { nativeKey($0, format: format).uppercased() == k }
    }

    /// A ReplayGain name as the format stores it: Vorbis comment field names and TXXX
    /// descriptions in capitals, MP4 freeform atoms under com.apple.iTunes in lower case (as
    /// foobar2000, iTunes-era taggers and the players reading them spell them).
    public static func nativeKey(_ name: String, format: TagFormat) -> String {
        format == .mp4 ? "----:com.apple.iTunes:" + name.lowercased() : name
    }

    /// The key a record shows for a native key ("REPLAYGAIN_TRACK_GAIN" for the MP4 atom too).
    public static func recordKey(_ native: String) -> String {
        let prefix = "----:com.apple.iTunes:"
        return (native.hasPrefix(prefix) ? String(native.dropFirst(prefix.count)) : native).uppercased()
    }

    /// Whether the tag fields already hold exactly what would be written: every field to set is
    /// there once, with this value (keys compared ignoring case), and nothing to remove is there.
    public static func alreadyHolds(_ existing: [(key: String, value: String)], fields: [(key: String, value: String)],
                                    removals: [String]) -> Bool {
        for f in fields {
            let same = existing.filter { $0.key.uppercased() == f.key.uppercased() }
            guard same.count == 1, same[0].value == f.value else { return false }
        }
        let gone = Set(removals.map { $0.uppercased() })
        return !existing.contains { gone.contains($0.key.uppercased()) }
    }
}
