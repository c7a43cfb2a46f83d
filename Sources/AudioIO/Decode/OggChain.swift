/// The links of an Ogg physical stream (RFC 3533): logical streams one after another, as
/// streaming and `cat` make them, each starting with its beginning-of-stream page. Found by
/// walking the page headers (27 bytes plus the segment table each; the bodies are skipped), so
/// it costs one small read per page. Also tells whether the file ends where its last page does,
/// on an end-of-stream page: a file cut off inside a page or before its last page is missing audio.
public struct OggChain: Equatable, Sendable {
    public struct Link: Equatable, Sendable {
        /// The serial number of the link's first logical stream.
        public var serial: UInt32
        /// Byte range [start, end) of the link's pages.
        public var start: UInt64
        public var end: UInt64
    }

    public var links: [Link]
    /// Why the file looks cut off (it ends inside a page, or without an end-of-stream page), or nil.
    public var cutOff: String?

    /// Walks `src`'s pages. Junk where a page should start ends the walk as "malformed" would:
    /// the links found so far are kept, and the rest is left to the decoder.
    public static func scan(_ src: ByteSource) throws -> OggChain {
        var links: [Link] = []
        var off: UInt64 = 0
        var lastWasBOS = false
        var lastFlags: UInt8 = 0
        var cut: String?
        let size = src.size
        while off < size {
            let h = try src.read(at: off, count: 27 + 255)
            guard let page = OggPageHeader(h) else {
                let startsAPage = h.count >= 27 ? Array(h.prefix(4)) == Array("OggS".utf8) : h.starts(with: Array("OggS".utf8).prefix(h.count))
                if startsAPage { cut = "the file ends inside an Ogg page header at byte \(off)" }
                break
            }
            let next = off + UInt64(page.headerLength + page.bodyLength)
            let flags = page.flags
            let serial = page.serial
            if flags & 0x02 != 0 && !lastWasBOS {
                if var last = links.popLast() { last.end = off; links.append(last) }
                links.append(Link(serial: serial, start: off, end: size))
            }
            lastWasBOS = flags & 0x02 != 0
            if next > size {
                cut = "the file ends partway through an Ogg page (at byte \(size) of a page running to \(next))"
                break
            }
            lastFlags = flags
            off = next
        }
        if cut == nil, off >= size, !links.isEmpty, lastFlags & 0x04 == 0 {
            cut = "the Ogg stream stops without its end-of-stream page"
        }
        return OggChain(links: links, cutOff: cut)
    }
}
