/// Ogg pages (RFC 3533): finding them and their packets' segments (the checksum is IO/OggCRC).
public struct OggPage: Equatable, Sendable {
    /// Byte offset of the page's "OggS" in the file.
    public var offset: Int
    /// Header type flags (0x01 continued packet, 0x02 first page, 0x04 last page).
    public var flags: UInt8
    public var granule: UInt64
    public var serial: UInt32
    public var sequence: UInt32
    /// The lacing values.
    public var segments: [UInt8]
    /// Where the body starts in the file, and its length.
    public var bodyOffset: Int
    public var bodyLength: Int
    /// Bytes the whole page takes.
    public var length: Int { bodyOffset + bodyLength - offset }

    /// The page at `offset` of `bytes`; throws when it is not a whole page with a right checksum
    /// (`index` is its number, for the error).
    public static func read(_ bytes: [UInt8], at offset: Int, index: Int) throws(BitstreamGainError) -> OggPage {
        guard let h = OggPageHeader(bytes, at: offset), bytes[offset + 4] == 0 else { throw .malformed(what: "Ogg page", offset: offset) }
        let body = offset + h.headerLength, bodyLength = h.bodyLength
        guard body + bodyLength <= bytes.count else { throw .malformed(what: "Ogg page", offset: offset) }
        let page = OggPage(offset: offset, flags: h.flags, granule: h.granule, serial: h.serial, sequence: h.sequence,
                           segments: h.segments, bodyOffset: body, bodyLength: bodyLength)
        let stored = h.checksum
        if OggCRC.checksum(bytes, offset..<(body + bodyLength), zeroing: offset + 22) != stored { throw .badChecksum(page: index) }
        return page
    }

    /// Every page of `bytes`, in order; throws unless the pages cover the file exactly.
    public static func all(_ bytes: [UInt8]) throws(BitstreamGainError) -> [OggPage] {
        var pages: [OggPage] = []
        var at = 0
        while at < bytes.count {
            let p = try read(bytes, at: at, index: pages.count)
            pages.append(p)
            at += p.length
        }
        return pages
    }

    /// The page's bytes with `body` as its body, `segments` as its lacing and a fresh checksum.
    public static func build(flags: UInt8, granule: UInt64, serial: UInt32, sequence: UInt32,
                             segments: [UInt8], body: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0x4F, 0x67, 0x67, 0x53, 0, flags]
        out.reserveCapacity(27 + segments.count + body.count)
        writeLE(&out, granule, 8)
        writeLE(&out, UInt64(serial), 4)
        writeLE(&out, UInt64(sequence), 4)
        writeLE(&out, 0, 4)
        out.append(UInt8(segments.count))
        out += segments
        out += body
        let crc = OggCRC.checksum(out, 0..<out.count, zeroing: nil)
        for i in 0..<4 { out[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return out
    }

    package static func readLE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in (0..<n).reversed() { v = v << 8 | UInt64(b[at + i]) }
        return v
    }

    package static func writeLE(_ out: inout [UInt8], _ v: UInt64, _ n: Int) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
}
