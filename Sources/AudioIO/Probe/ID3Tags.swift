/// An ID3v2 tag's header facts and the tags read from its text frames.
public struct ID3v2Tag: Equatable, Sendable {
    /// Major version: 2, 3 or 4.
    public var version: Int
    /// Bytes the whole tag occupies (header + body + footer): the audio starts after it.
    public var totalSize: UInt64
    public var tags: ProbeTags
}

/// Reads an ID3v2 tag at `offset` (normally 0); nil when there is none. Reads frame headers and
/// text frames only, so a tag holding megabytes of cover art costs a few KiB.
public func readID3v2(_ src: ByteSource, at offset: UInt64 = 0) throws -> ID3v2Tag? {
    try ProbeID3Reader.read(ProbeReader(src), at: offset)
}

/// Reads an ID3v1 tag from the last 128 bytes; nil when there is none.
public func readID3v1(_ src: ByteSource) throws -> ProbeTags? {
    try ProbeID3Reader.readV1(ProbeReader(src))
}

/// ID3v1 genre names by number (the 80 original plus Winamp's common extensions).
public enum ID3Genres {
    public static let names: [String] = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
        "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
        "Sound Clip", "Gospel", "Noise", "Alternative Rock", "Bass", "Soul", "Punk", "Space", "Meditative",
        "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
        "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta",
        "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave",
        "Psychedelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka",
        "Retro", "Musical", "Rock & Roll", "Hard Rock",
        "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebop", "Latin", "Revival", "Celtic",
        "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock", "Psychedelic Rock", "Symphonic Rock",
        "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic", "Humour", "Speech", "Chanson",
        "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus", "Porn Groove", "Satire",
        "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad", "Power Ballad", "Rhythmic Soul",
        "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Cappella", "Euro-House", "Dance Hall",
    ]

    public static func name(_ n: Int) -> String? { n >= 0 && n < names.count ? names[n] : nil }

    /// Resolves ID3 genre text: "(17)" → "Rock", "(17)Rock Opera" → "Rock Opera", "17" → "Rock",
    /// "(RX)" → "Remix", "(CR)" → "Cover"; anything else is returned as written.
    public static func resolve(_ raw: String) -> String? {
        guard var s = ProbeBytes.cleaned(raw) else { return nil }
        var firstRef: String?
        while s.hasPrefix("("), !s.hasPrefix("(("), let close = s.firstIndex(of: ")") {
            let ref = String(s[s.index(after: s.startIndex)..<close])
            if firstRef == nil {
                if let n = Int(ref) { firstRef = name(n) ?? ref }
                else if ref == "RX" { firstRef = "Remix" }
                else if ref == "CR" { firstRef = "Cover" }
            }
            s = String(s[s.index(after: close)...])
        }
        if s.hasPrefix("((") { s.removeFirst() }
        if let refined = ProbeBytes.cleaned(s) {
            if let n = Int(refined), n >= 0, n < 256 { return name(n) ?? refined }
            return refined
        }
        return firstRef
    }
}

package enum ProbeID3Reader {
    /// Bound for reading a whole unsynchronised tag into memory; beyond it, only the first part is read.
    package static let wholeTagCap = 1 << 20
    /// Text frames longer than this are not tags anyone wants shown.
    package static let textFrameCap = 64 * 1024
    package static let maxFrames = 4096

    package static func syncsafe(_ b: [UInt8], _ i: Int) -> UInt32? {
        guard i >= 0, i + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard b[i + k] < 0x80 else { return nil }
            v = v << 7 | UInt32(b[i + k])
        }
        return v
    }

    /// Total bytes of the tag whose 10-byte header is `h`, or nil when `h` isn't a valid ID3v2 header.
    package static func totalTagSize(_ h: [UInt8]) -> UInt64? {
        guard h.count >= 10, ProbeBytes.matches(h, 0, "ID3"), (2...4).contains(h[3]), h[4] != 0xFF,
              let size = syncsafe(h, 6) else { return nil }
        let footer: UInt64 = (h[3] == 4 && h[5] & 0x10 != 0) ? 10 : 0
        return 10 + UInt64(size) + footer
    }

    package static func read(_ r: ProbeReader, at offset: UInt64) throws -> ID3v2Tag? {
        let h = try r.read(at: offset, count: 10)
        guard let total = totalTagSize(h) else { return nil }
        let version = Int(h[3])
        let flags = h[5]
        let bodySize = UInt64(syncsafe(h, 6) ?? 0)
        let bodyStart = offset + 10
        var tag = ID3v2Tag(version: version, totalSize: total, tags: ProbeTags())
        // v2.2 "compression" flag: no defined scheme, frames unreadable.
        if version == 2 && flags & 0x40 != 0 { return tag }

        let tagUnsync = flags & 0x80 != 0
        // Body accessor: relative offset → bytes. v2.2/2.3 tag-level unsynchronisation changes
        // frame sizes, so that body is read whole (bounded) and decoded first.
        let fetch: (Int, Int) throws -> [UInt8]
        let available: Int
        if tagUnsync && version < 4 {
            let raw = try r.read(at: bodyStart, count: Int(min(bodySize, UInt64(wholeTagCap))))
            let body = removeUnsynchronisation(raw)
            available = body.count
            fetch = { off, n in
                guard off >= 0, off < body.count, n > 0 else { return [] }
                return Array(body[off..<min(body.count, off + n)])
            }
        } else {
            let inFile = r.size > bodyStart ? r.size - bodyStart : 0
            available = Int(min(bodySize, inFile, UInt64(Int32.max)))
            fetch = { off, n in
                guard off >= 0, off < available, n > 0 else { return [] }
                return try r.read(at: bodyStart + UInt64(off), count: min(n, available - off))
            }
        }

        var pos = 0
        if flags & 0x40 != 0 {  // extended header
            let eh = try fetch(0, 4)
            if version == 3 {
                guard let n = ProbeBytes.be32(eh, 0) else { return tag }
                pos = 4 + Int(min(n, UInt32(Int32.max - 4)))
            } else {
                guard let n = syncsafe(eh, 0), n >= 6 else { return tag }
                pos = Int(n)
            }
        }

        let headerLen = version == 2 ? 6 : 10
        var frames = 0
        while pos + headerLen <= available && frames < maxFrames {
            frames += 1
            let fh = try fetch(pos, headerLen)
            guard fh.count == headerLen else { break }
            let idLen = version == 2 ? 3 : 4
            guard fh[0..<idLen].allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }
            let id = ProbeBytes.latin1(fh[0..<idLen])
            let size: Int
            var frameFlags: UInt16 = 0
            if version == 2 {
                size = Int(ProbeBytes.be24(fh, 3) ?? 0)
            } else if version == 3 {
                size = Int(ProbeBytes.be32(fh, 4) ?? 0)
                frameFlags = ProbeBytes.be16(fh, 8) ?? 0
            } else {
                // Some writers put plain (non-syncsafe) sizes in v2.4; fall back when the bytes say so.
                size = Int(syncsafe(fh, 4) ?? ProbeBytes.be32(fh, 4) ?? 0)
                frameFlags = ProbeBytes.be16(fh, 8) ?? 0
            }
            let dataStart = pos + headerLen
            guard size > 0, size <= available - dataStart else { break }
            pos = dataStart + size
            guard let field = field(for: id), size <= textFrameCap else { continue }

            var data = try fetch(dataStart, size)
            if version == 3 {
                if frameFlags & 0x00C0 != 0 { continue }  // compressed or encrypted
                if frameFlags & 0x0020 != 0 { data = Array(data.dropFirst(1)) }
            } else if version == 4 {
                if frameFlags & 0x000C != 0 { continue }
                if frameFlags & 0x0040 != 0 { data = Array(data.dropFirst(1)) }
                if frameFlags & 0x0001 != 0 { data = Array(data.dropFirst(4)) }
                if frameFlags & 0x0002 != 0 || tagUnsync { data = removeUnsynchronisation(data) }
            }
            guard let text = decodeText(data) else { continue }
            store(field, text, into: &tag.tags)
        }
        return tag
    }

    package enum Field { case title, artist, album, genre, year, date, track }

    package static func field(for id: String) -> Field? {
        switch id {
        case "TIT2", "TT2": return .title
        case "TPE1", "TP1": return .artist
        case "TALB", "TAL": return .album
        case "TCON", "TCO": return .genre
        case "TYER", "TYE": return .year
        case "TDRC": return .date
        case "TRCK", "TRK": return .track
        default: return nil
        }
    }

    package static func store(_ f: Field, _ text: String, into t: inout ProbeTags) {
        switch f {
        case .title: t.title = t.title ?? text
        case .artist: t.artist = t.artist ?? text
        case .album: t.album = t.album ?? text
        case .genre: t.genre = t.genre ?? ID3Genres.resolve(text)
        case .year, .date: t.year = t.year ?? text
        case .track: t.track = t.track ?? text
        }
    }

    /// Undoes ID3 unsynchronisation: every 0xFF 0x00 pair loses its 0x00.
    package static func removeUnsynchronisation(_ b: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            out.append(b[i])
            if b[i] == 0xFF && i + 1 < b.count && b[i + 1] == 0x00 { i += 2 } else { i += 1 }
        }
        return out
    }

    /// A text frame body: encoding byte, then text; the first of several NUL-separated values.
    package static func decodeText(_ d: [UInt8]) -> String? {
        guard let enc = d.first else { return nil }
        let body = d.dropFirst()
        switch enc {
        case 0: return ProbeBytes.cleaned(ProbeBytes.latin1(body))
        case 3: return ProbeBytes.cleaned(ProbeBytes.utf8(body))
        case 1, 2: return ProbeBytes.cleaned(utf16(body, defaultBigEndian: enc == 2))
        default: return nil
        }
    }

    /// UTF-16 honouring a BOM, up to the first NUL code unit.
    package static func utf16(_ b: ArraySlice<UInt8>, defaultBigEndian: Bool) -> String {
        var be = defaultBigEndian
        var i = b.startIndex
        if b.count >= 2 {
            if b[i] == 0xFF && b[i + 1] == 0xFE { be = false; i += 2 }
            else if b[i] == 0xFE && b[i + 1] == 0xFF { be = true; i += 2 }
        }
        var units = [UInt16]()
        while i + 1 < b.endIndex {
            let u = be ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i])
            if u == 0 { break }
            units.append(u)
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    package static func readV1(_ r: ProbeReader) throws -> ProbeTags? {
        guard r.size >= 128 else { return nil }
        let b = try r.read(at: r.size - 128, count: 128)
        guard b.count == 128, ProbeBytes.matches(b, 0, "TAG") else { return nil }
        var t = ProbeTags()
        t.title = ProbeBytes.cleaned(ProbeBytes.latin1(b[3..<33]))
        t.artist = ProbeBytes.cleaned(ProbeBytes.latin1(b[33..<63]))
        t.album = ProbeBytes.cleaned(ProbeBytes.latin1(b[63..<93]))
        t.year = ProbeBytes.cleaned(ProbeBytes.latin1(b[93..<97]))
        if b[125] == 0 && b[126] != 0 { t.track = String(b[126]) }
        t.genre = ID3Genres.name(Int(b[127]))
        return t
    }
}
