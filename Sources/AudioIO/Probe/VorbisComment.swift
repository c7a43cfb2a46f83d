/// A Vorbis comment block (FLAC block type 4, Ogg Vorbis/Opus/FLAC second packet).
public struct VorbisComment: Equatable, Sendable {
    public var vendor: String
    /// FIELD=value pairs in file order; field names upper-cased.
    public var fields: [(String, String)]
    public var tags: ProbeTags

    public static func == (a: VorbisComment, b: VorbisComment) -> Bool {
        a.vendor == b.vendor && a.tags == b.tags && a.fields.map { $0.0 + "=" + $0.1 } == b.fields.map { $0.0 + "=" + $0.1 }
    }

    /// Parses comment packet bytes (without any packet-type prefix). Cut-off packets give the
    /// fields that are complete; nil when even the vendor string doesn't fit.
    public static func parse(_ b: [UInt8]) -> VorbisComment? {
        guard let vlen = ProbeBytes.le32(b, 0), UInt64(vlen) <= UInt64(b.count - 4) else { return nil }
        var i = 4 + Int(vlen)
        var c = VorbisComment(vendor: ProbeBytes.utf8(b[4..<i]), fields: [], tags: ProbeTags())
        guard let n = ProbeBytes.le32(b, i) else { return c }
        i += 4
        var k: UInt32 = 0
        while k < n && c.fields.count < 10_000 {
            k += 1
            guard let len = ProbeBytes.le32(b, i), UInt64(len) <= UInt64(b.count - i - 4) else { break }
            let s = i + 4
            i = s + Int(len)
            guard len <= 65536 else { continue }  // pictures and other blobs
            let text = String(decoding: b[s..<i], as: UTF8.self)
            guard let eq = text.firstIndex(of: "=") else { continue }
            let key = text[..<eq].uppercased()
            let value = String(text[text.index(after: eq)...])
            c.fields.append((key, value))
            guard let v = ProbeBytes.cleaned(value) else { continue }
            switch key {
            case "TITLE": c.tags.title = c.tags.title ?? v
            case "ARTIST": c.tags.artist = c.tags.artist ?? v
            case "ALBUM": c.tags.album = c.tags.album ?? v
            case "GENRE": c.tags.genre = c.tags.genre ?? v
            case "DATE", "YEAR": c.tags.year = c.tags.year ?? v
            case "TRACKNUMBER": c.tags.track = c.tags.track ?? v
            default: break
            }
        }
        return c
    }
}

/// FLAC metadata blocks: STREAMINFO and VORBIS_COMMENT, skipping pictures and padding.
package enum ProbeFLACReader {
    package static let commentCap = 256 * 1024

    package static func read(_ r: ProbeReader, at start: UInt64, into f: inout ContainerFacts) throws {
        guard try ProbeBytes.matches(r.read(at: start, count: 4), 0, "fLaC") else { return }
        var off = start + 4
        var blocks = 0
        while blocks < 1024 {
            blocks += 1
            let h = try r.read(at: off, count: 4)
            guard h.count == 4, let len = ProbeBytes.be24(h, 1) else {
                f.problem = .truncated("the file ends inside its FLAC metadata"); return
            }
            let type = h[0] & 0x7F
            let body = off + 4
            guard body + UInt64(len) <= r.size else {
                f.problem = .truncated("the file ends inside its FLAC metadata"); return
            }
            if type == 0 {
                let p = try r.read(at: body, count: 34)
                if p.count >= 18, let hi = ProbeBytes.be32(p, 10), let lo = ProbeBytes.be32(p, 14) {
                    let rate = Int(hi >> 12)
                    let channels = Int((hi >> 9) & 7) + 1
                    let bits = Int((hi >> 4) & 31) + 1
                    let total = UInt64(hi & 0xF) << 32 | UInt64(lo)
                    var a = ProbeAudioParameters(format: "flac", channels: channels, bitsPerSample: bits)
                    if rate > 0 {
                        a.sampleRate = Double(rate)
                        if total > 0 { a.duration = Double(total) / Double(rate) }
                    }
                    f.audio = a
                    f.hasAudio = true
                }
            } else if type == 4 {
                let p = try r.read(at: body, count: min(Int(len), commentCap))
                if let c = VorbisComment.parse(p) { f.tags.merge(c.tags) }
            } else if type == 127 {
                f.problem = .malformed("a FLAC metadata block has the reserved type 127"); return
            }
            off = body + UInt64(len)
            if h[0] & 0x80 != 0 { return }
        }
    }
}

/// Ogg pages: the codec header (first packet) and the comment header (second packet).
package enum ProbeOggReader {
    package static let packetCap = 256 * 1024
    package static let maxPages = 64

    /// Reassembles the first two packets of the first logical stream, bounded in size and pages.
    package static func firstPackets(_ r: ProbeReader) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        var off: UInt64 = 0
        var serial: UInt32?
        var pages = 0
        while packets.count < 2 && pages < maxPages {
            pages += 1
            let h = try r.read(at: off, count: 27 + 255)
            guard let page = OggPageHeader(h) else { break }
            let pageSerial: UInt32? = page.serial
            let lacing = page.segments
            let bodyLen = page.bodyLength
            let bodyStart = off + UInt64(page.headerLength)
            if serial == nil { serial = pageSerial }
            if pageSerial == serial {
                let body = try r.read(at: bodyStart, count: bodyLen)
                var i = 0
                for l in lacing {
                    let take = min(Int(l), max(0, body.count - i))
                    if current.count < packetCap { current.append(contentsOf: body[i..<(i + take)].prefix(packetCap - current.count)) }
                    i += take
                    if l < 255 {
                        packets.append(current)
                        current = []
                        if packets.count == 2 { break }
                    }
                }
                // A comment packet larger than the cap: parse the part we hold.
                if current.count >= packetCap && packets.count == 1 { packets.append(current); break }
            }
            off = bodyStart + UInt64(bodyLen)
        }
        return packets
    }

    package static func read(_ r: ProbeReader, codec: ContainerKind.OggCodec, into f: inout ContainerFacts) throws {
        let packets = try firstPackets(r)
        guard let id = packets.first else { return }
        switch codec {
        case .vorbis:
            f.codec = "vorbis"; f.hasAudio = true
            var a = ProbeAudioParameters(format: "vorbis")
            if let ch = ProbeBytes.u8(id, 11) { a.channels = Int(ch) }
            if let sr = ProbeBytes.le32(id, 12), sr > 0 { a.sampleRate = Double(sr) }
            f.audio = a
            if packets.count > 1, ProbeBytes.matches(packets[1], 0, [0x03] + Array("vorbis".utf8)),
               let c = VorbisComment.parse(Array(packets[1].dropFirst(7))) { f.tags.merge(c.tags) }
        case .opus:
            f.codec = "opus"; f.hasAudio = true
            var a = ProbeAudioParameters(format: "opus", sampleRate: 48000)
            if let ch = ProbeBytes.u8(id, 9) { a.channels = Int(ch) }
            f.audio = a
            if packets.count > 1, ProbeBytes.matches(packets[1], 0, "OpusTags"),
               let c = VorbisComment.parse(Array(packets[1].dropFirst(8))) { f.tags.merge(c.tags) }
        case .flac:
            // Ogg FLAC: 0x7F "FLAC" major minor, header count (2), "fLaC", then STREAMINFO block.
            f.codec = "flac"; f.hasAudio = true
            let inner = Array(id.dropFirst(9))
            let mem = ProbeReader(MemoryByteSource(inner))
            var sub = ContainerFacts(kind: .flac, container: "flac", fileSize: UInt64(inner.count))
            try ProbeFLACReader.read(mem, at: 0, into: &sub)
            f.audio = sub.audio
            if packets.count > 1, packets[1].first.map({ $0 & 0x7F }) == 4 {
                if let c = VorbisComment.parse(Array(packets[1].dropFirst(4))) { f.tags.merge(c.tags) }
            }
        case .speex:
            f.codec = "speex"; f.hasAudio = true
            var a = ProbeAudioParameters(format: "speex")
            if let sr = ProbeBytes.le32(id, 36), sr > 0 { a.sampleRate = Double(sr) }
            if let ch = ProbeBytes.le32(id, 48), ch > 0, ch < 256 { a.channels = Int(ch) }
            f.audio = a
            if packets.count > 1, let c = VorbisComment.parse(packets[1]) { f.tags.merge(c.tags) }
        case .theora:
            f.codec = "theora"; f.hasVideo = true
        case .unknown:
            break
        }
    }
}
