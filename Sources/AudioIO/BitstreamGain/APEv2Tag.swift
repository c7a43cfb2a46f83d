/// An APEv2 tag (at the end of an MP3) as mp3gain reads and writes it: items other than
/// mp3gain's kept byte for byte and in order, then MP3GAIN_MINMAX ("min,max", three digits each)
/// and MP3GAIN_UNDO ("+003,+003,N": the steps that undo the change, left and right, and whether
/// wrapping was on), with a header and a footer.
public struct APEv2Tag: Sendable {
    /// Items that are not mp3gain's, each as its raw bytes (size, flags, key, NUL, value).
    package var others: [[UInt8]] = []
    package var footerFlags: UInt32 = 0
    public var mp3gainMinMax: (min: Int, max: Int)?
    public var mp3gainUndo: (left: Int, right: Int, wrap: Bool)?

    public init() {}

    /// Reads a tag's bytes (header, if any, items and footer); `offset` is where it sits in the file.
    public init(_ b: [UInt8], offset: Int) throws(BitstreamGainError) {
        let footer = b.count - 32
        guard footer >= 0, Array(b[footer..<(footer + 8)]) == Array("APETAGEX".utf8) else {
            throw .malformed(what: "APEv2 tag", offset: offset)
        }
        footerFlags = UInt32(OggPage.readLE(b, footer + 20, 4))
        let count = Int(OggPage.readLE(b, footer + 16, 4))
        var at = footerFlags & 0x8000_0000 != 0 ? 32 : 0
        for _ in 0..<count {
            guard at + 8 < footer else { throw .malformed(what: "APEv2 item", offset: offset + at) }
            let size = Int(OggPage.readLE(b, at, 4))
            guard let nul = b[(at + 8)..<footer].firstIndex(of: 0), nul + 1 + size <= footer else {
                throw .malformed(what: "APEv2 item", offset: offset + at)
            }
            let key = String(decoding: b[(at + 8)..<nul], as: UTF8.self).uppercased()
            let value = String(decoding: b[(nul + 1)..<(nul + 1 + size)], as: UTF8.self)
            let end = nul + 1 + size
            if key == "MP3GAIN_UNDO" {
                let parts = value.split(separator: ",")
                guard parts.count >= 2, let l = Int(parts[0].replacingPlus), let r = Int(parts[1].replacingPlus) else {
                    throw .malformed(what: "MP3GAIN_UNDO item", offset: offset + at)
                }
                mp3gainUndo = (l, r, parts.count > 2 && parts[2].uppercased() == "W")
            } else if key == "MP3GAIN_MINMAX" {
                let parts = value.split(separator: ",")
                if parts.count == 2, let lo = Int(parts[0]), let hi = Int(parts[1]) { mp3gainMinMax = (lo, hi) }
            } else {
                others.append(Array(b[at..<end]))
            }
            at = end
        }
    }

    /// The tag's bytes: header, items, footer (APEv2, version 2000).
    public func bytes() -> [UInt8] {
        var items = others
        func item(_ key: String, _ value: String) -> [UInt8] {
            var out: [UInt8] = []
            OggPage.writeLE(&out, UInt64(value.utf8.count), 4)
            OggPage.writeLE(&out, 0, 4)
            return out + Array(key.utf8) + [0] + Array(value.utf8)
        }
        if let m = mp3gainMinMax { items.append(item("MP3GAIN_MINMAX", Self.digits(m.min) + "," + Self.digits(m.max))) }
        if let u = mp3gainUndo {
            items.append(item("MP3GAIN_UNDO", Self.signed(u.left) + "," + Self.signed(u.right) + "," + (u.wrap ? "W" : "N")))
        }
        let body = items.flatMap { $0 }
        func frame(_ flags: UInt32) -> [UInt8] {
            var out = Array("APETAGEX".utf8)
            OggPage.writeLE(&out, 2000, 4)
            OggPage.writeLE(&out, UInt64(body.count + 32), 4)
            OggPage.writeLE(&out, UInt64(items.count), 4)
            OggPage.writeLE(&out, UInt64(flags), 4)
            return out + [UInt8](repeating: 0, count: 8)
        }
        return frame(0xA000_0000) + body + frame(footerFlags | 0x8000_0000)
    }

    /// "%03d".
    package static func digits(_ v: Int) -> String {
        let s = String(abs(v))
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, 3 - s.count)) + s
    }

    /// "%+04d": a sign and three digits.
    package static func signed(_ v: Int) -> String { (v < 0 ? "-" : "+") + digits(abs(v)) }
}

extension Substring {
    fileprivate var replacingPlus: String { hasPrefix("+") ? String(dropFirst()) : String(self) }
}
