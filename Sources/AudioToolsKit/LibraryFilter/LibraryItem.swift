import AudioIO
import Foundation
import JSONValue

/// What a library query, sort or constraint sees of one probed file. The lead fills it from a
/// probe record; nothing here reads files.
public struct LibraryItem: Equatable, Sendable {
    /// Stable identifier (a `ContentID` when the audio could be read, else whatever the lead picks).
    public var id: String
    public var path: String
    public var title: String?
    public var artist: String?
    public var album: String?
    public var genre: String?
    public var year: Int?
    public var track: Int?
    public var durationSeconds: Double?
    /// Container, e.g. "flac", "wav", "mp4".
    public var format: String?
    /// Codec inside the container, e.g. "flac", "pcm_s16le", "aac".
    public var codec: String?
    public var sampleRate: Int?
    public var channels: Int?
    public var bitDepth: Int?
    public var sizeBytes: Int64
    /// Last modification time, nanoseconds since the Unix epoch.
    public var modifiedNanoseconds: Int64

    public init(id: String, path: String, title: String? = nil, artist: String? = nil,
                album: String? = nil, genre: String? = nil, year: Int? = nil, track: Int? = nil,
                durationSeconds: Double? = nil, format: String? = nil, codec: String? = nil,
                sampleRate: Int? = nil, channels: Int? = nil, bitDepth: Int? = nil,
                sizeBytes: Int64 = 0, modifiedNanoseconds: Int64 = 0) {
        self.id = id
        self.path = path
        self.title = title
        self.artist = artist
        self.album = album
        self.genre = genre
        self.year = year
        self.track = track
        self.durationSeconds = durationSeconds
        self.format = format
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitDepth = bitDepth
        self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
    }
}

/// The fields a query or sort can name. Raw values are the names users type.
public enum LibraryField: String, CaseIterable, Sendable {
    case title, artist, album, genre, year, track, duration, format, codec
    case sampleRate = "sample_rate"
    case channels
    case bitDepth = "bit_depth"
    case path, size
    /// Modification time; sort only (queries don't take dates).
    case mtime

    /// Fields a query accepts, in the order error messages list them.
    public static let queryFields: [LibraryField] = allCases.filter { $0 != .mtime }

    /// Looks a user-typed name up, case-insensitively; `-` and `_` are interchangeable, and a few
    /// spellings people reach for (`modified`, `samplerate`, `bitdepth`, `length`) are accepted.
    public static func named(_ name: String) -> LibraryField? {
        let key = name.lowercased().replacingOccurrences(of: "-", with: "_")
        if let field = LibraryField(rawValue: key) { return field }
        switch key {
        case "modified", "mtime_ns": return .mtime
        case "samplerate", "rate": return .sampleRate
        case "bitdepth", "bits": return .bitDepth
        case "length": return .duration
        case "container": return .format
        default: return nil
        }
    }

    /// Position in `allCases`, for small per-field tables.
    package var ordinal: Int {
        switch self {
        case .title: return 0
        case .artist: return 1
        case .album: return 2
        case .genre: return 3
        case .year: return 4
        case .track: return 5
        case .duration: return 6
        case .format: return 7
        case .codec: return 8
        case .sampleRate: return 9
        case .channels: return 10
        case .bitDepth: return 11
        case .path: return 12
        case .size: return 13
        case .mtime: return 14
        }
    }

    /// Whether values of this field are numbers (ranges allowed) rather than text.
    public var isNumeric: Bool {
        switch self {
        case .title, .artist, .album, .genre, .format, .codec, .path: return false
        case .year, .track, .duration, .sampleRate, .channels, .bitDepth, .size, .mtime: return true
        }
    }

    /// The item's text for a text field (nil for numeric fields or a missing tag).
    package func text(of item: LibraryItem) -> String? {
        switch self {
        case .title: return item.title
        case .artist: return item.artist
        case .album: return item.album
        case .genre: return item.genre
        case .format: return item.format
        case .codec: return item.codec
        case .path: return item.path
        default: return nil
        }
    }

    /// The item's number for a numeric field (nil for text fields or a missing value).
    package func number(of item: LibraryItem) -> Double? {
        switch self {
        case .year: return item.year.map(Double.init)
        case .track: return item.track.map(Double.init)
        case .duration: return item.durationSeconds.flatMap { $0.isFinite ? $0 : nil }
        case .sampleRate: return item.sampleRate.map(Double.init)
        case .channels: return item.channels.map(Double.init)
        case .bitDepth: return item.bitDepth.map(Double.init)
        case .size: return Double(item.sizeBytes)
        case .mtime: return Double(item.modifiedNanoseconds)
        default: return nil
        }
    }
}

extension LibraryItem {
    /// This item with only `fields` (plus the id and path every order ends on) kept: what a
    /// listing of 100,000 songs holds per song while it waits to be sorted.
    public func keeping(_ fields: Set<LibraryField>) -> LibraryItem {
        var t = LibraryItem(id: id, path: path, sizeBytes: sizeBytes, modifiedNanoseconds: modifiedNanoseconds)
        for f in fields {
            switch f {
            case .title: t.title = title
            case .artist: t.artist = artist
            case .album: t.album = album
            case .genre: t.genre = genre
            case .year: t.year = year
            case .track: t.track = track
            case .duration: t.durationSeconds = durationSeconds
            case .format: t.format = format
            case .codec: t.codec = codec
            case .sampleRate: t.sampleRate = sampleRate
            case .channels: t.channels = channels
            case .bitDepth: t.bitDepth = bitDepth
            case .path, .size, .mtime: break
            }
        }
        return t
    }
}

extension LibraryItem {
    /// The last component of `path` (a trailing slash ignored), found from the end.
    package static func fileName(_ path: String) -> String {
        if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), path.utf8.index(after: slash) != path.utf8.endIndex {
            return String(path[path.utf8.index(after: slash)...])
        }
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Whether a record's `probe` describes the file as it is now (same size, modification and
    /// change times; a probe of an older audio-tools, without the change time, is probed again).
    package static func isCurrent(_ probe: JSON?, path: String) -> Bool {
        guard let p = probe, p["content_id"]?.stringValue != nil,
              let then = FileIdentity(json: p["file"]), let now = try? FileIdentity.of(path) else { return false }
        return then == now
    }

    /// The members of a `probe` that `init(path:id:probe:)` and library-filter read.
    package static let probeKeys = ["content_id", "tags", "file", "duration_seconds", "container", "codec", "sample_rate", "channels", "bit_depth"]

    /// The number a year or track tag starts with ("1969-09-26" → 1969, "3/12" → 3); nil for none
    /// or one too long to be either.
    package static func leadingNumber(_ s: String?) -> Int? {
        guard let s else { return nil }
        let digits = s.drop(while: { !$0.isNumber }).prefix(while: \.isNumber)
        return digits.isEmpty || digits.count > 9 ? nil : Int(digits)
    }

    /// What search and sort see of a probed file.
    package init(path: String, id: String, probe: JSON?) {
        let tags = probe?["tags"]?.picking(["title", "artist", "album", "genre", "year", "track"])
        func tag(_ k: String) -> String? { tags?[k]?.stringValue }
        let identity = FileIdentity(json: probe?["file"])
        self.init(
            id: id, path: path, title: tag("title"), artist: tag("artist"), album: tag("album"), genre: tag("genre"),
            year: Self.leadingNumber(tag("year")), track: Self.leadingNumber(tag("track")),
            durationSeconds: probe?["duration_seconds"]?.doubleValue, format: probe?["container"]?.stringValue,
            codec: probe?["codec"]?.stringValue, sampleRate: probe?["sample_rate"]?.intValue,
            channels: probe?["channels"]?.intValue, bitDepth: probe?["bit_depth"]?.intValue,
            sizeBytes: Int64(clamping: identity?.sizeBytes ?? 0), modifiedNanoseconds: identity?.modifiedNanoseconds ?? 0)
    }
}

extension LibraryItem {
    /// `init(path:id:probe:)` from a probe kept as text (a cache hit), read in one scan without
    /// building the probe's members: the same item (id left empty), and the probe's content id.
    /// nil when the text isn't a compact object.
    package static func scanned(path: String, probeText: String) -> (item: LibraryItem, contentID: String?)? {
        var item = LibraryItem(id: "", path: path)
        var contentID: String?
        var text = probeText
        let ok = text.withUTF8 { buf -> Bool in
            /// A member's value as the JSON reader would see it (scalars are read without the parser).
            func value(_ v: UnsafeBufferPointer<UInt8>) -> JSON { JSON.raw(String(decoding: v, as: UTF8.self)).resolved }
            /// `value(v).stringValue`, a string without escapes taken straight from its bytes.
            func string(_ v: UnsafeBufferPointer<UInt8>) -> String? {
                if v.count >= 2, v[0] == UInt8(ascii: "\""), !v.contains(UInt8(ascii: "\\")) {
                    return String(decoding: UnsafeBufferPointer(rebasing: v[1..<(v.count - 1)]), as: UTF8.self)
                }
                return value(v).stringValue
            }
            /// `value(v).intValue`, plain digits (with a sign) read straight from their bytes.
            func int(_ v: UnsafeBufferPointer<UInt8>) -> Int? {
                var i = 0, negative = false, n = 0
                if v.first == UInt8(ascii: "-") { negative = true; i = 1 }
                guard v.count > i, v.count - i <= 18 else { return value(v).intValue }
                while i < v.count {
                    let d = v[i] &- UInt8(ascii: "0")
                    guard d <= 9 else { return value(v).intValue }
                    n = n * 10 + Int(d)
                    i += 1
                }
                return negative ? -n : n
            }
            func isKey(_ k: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
                k.count == name.utf8CodeUnitCount && memcmp(k.baseAddress!, name.utf8Start, k.count) == 0
            }
            var nested = true
            let top = JSON.forEachMember(of: buf) { k, v in
                guard !k.isEmpty, !k.contains(UInt8(ascii: "\\")) else { return }
                switch k[0] {
                case UInt8(ascii: "t") where isKey(k, "tags"):
                    guard v.first == UInt8(ascii: "{") else { return }
                    nested = nested && JSON.forEachMember(of: v) { tk, tv in
                        if isKey(tk, "title") { item.title = string(tv) }
                        else if isKey(tk, "artist") { item.artist = string(tv) }
                        else if isKey(tk, "album") { item.album = string(tv) }
                        else if isKey(tk, "genre") { item.genre = string(tv) }
                        else if isKey(tk, "year") { item.year = Self.leadingNumber(string(tv)) }
                        else if isKey(tk, "track") { item.track = Self.leadingNumber(string(tv)) }
                    }
                case UInt8(ascii: "f") where isKey(k, "file"):
                    guard v.first == UInt8(ascii: "{") else { return }
                    var size: Int?, modified: Int?, sec: Int?, nsec: Int?
                    nested = nested && JSON.forEachMember(of: v) { fk, fv in
                        if isKey(fk, "size_bytes") { size = int(fv) }
                        else if isKey(fk, "mtime_sec") { sec = int(fv) }
                        else if isKey(fk, "mtime_nsec") { nsec = int(fv) }
                        else if isKey(fk, "modified_ns") { modified = int(fv) }  // an older audio-tools' record
                    }
                    if let sec, let nsec, abs(sec) < Int.max / 2_000_000_000 { modified = sec * 1_000_000_000 + nsec }
                    if let size, let modified, size >= 0 {
                        item.sizeBytes = Int64(clamping: UInt64(size))
                        item.modifiedNanoseconds = Int64(modified)
                    }
                case UInt8(ascii: "c") where isKey(k, "content_id"): contentID = string(v)
                case UInt8(ascii: "c") where isKey(k, "container"): item.format = string(v)
                case UInt8(ascii: "c") where isKey(k, "codec"): item.codec = string(v)
                case UInt8(ascii: "c") where isKey(k, "channels"): item.channels = int(v)
                case UInt8(ascii: "d") where isKey(k, "duration_seconds"): item.durationSeconds = value(v).doubleValue
                case UInt8(ascii: "s") where isKey(k, "sample_rate"): item.sampleRate = int(v)
                case UInt8(ascii: "b") where isKey(k, "bit_depth"): item.bitDepth = int(v)
                default: break
                }
            }
            return top && nested
        }
        return ok ? (item, contentID) : nil
    }
}

