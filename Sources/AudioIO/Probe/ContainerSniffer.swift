/// The result of sniffing: the kind, plus where a leading ID3v2 tag ends (0 when none).
public struct ContainerSniff: Equatable, Sendable {
    public var kind: ContainerKind
    /// Bytes of ID3v2 tag(s) before the real stream (MP3/AAC/FLAC files may start with one).
    public var leadingTagBytes: UInt64
    /// Where the first audio frame was found, for MP3/ADTS.
    public var firstFrameOffset: UInt64?
    /// The first MP3 frame was found behind bytes that are no tag (players skip them; libsndfile doesn't).
    public var afterJunk = false
}

/// Identifies a file from its bytes, reading the first 4 KiB (plus a few bytes after a leading
/// ID3 tag to confirm the frame sync).
public func sniffContainer(_ src: ByteSource) throws -> ContainerSniff {
    try ProbeSniffer.sniff(ProbeReader(src))
}

package enum ProbeSniffer {
    package static let headLength = 4096

    package static func sniff(_ r: ProbeReader) throws -> ContainerSniff {
        if r.size == 0 { return ContainerSniff(kind: .empty, leadingTagBytes: 0) }
        let b = try r.read(at: 0, count: headLength)
        func m(_ i: Int, _ s: String) -> Bool { ProbeBytes.matches(b, i, s) }
        func plain(_ k: ContainerKind) -> ContainerSniff { ContainerSniff(kind: k, leadingTagBytes: 0) }

        if m(0, "RIFF") || m(0, "RIFX") {
            if m(8, "WAVE") { return plain(.wav) }
            if m(8, "WEBP") { return plain(.webp) }
            if m(8, "AVI ") { return plain(.avi) }
            if m(8, "RMID") { return plain(.midi) }
        }
        if (m(0, "RF64") || m(0, "BW64")) && m(8, "WAVE") { return plain(.rf64) }
        if ProbeBytes.matches(b, 0, w64RiffGUID) && ProbeBytes.matches(b, 24, w64WaveGUID) { return plain(.w64) }
        if m(0, "FORM") {
            if m(8, "AIFF") { return plain(.aiff) }
            if m(8, "AIFC") { return plain(.aifc) }
        }
        if m(0, "fLaC") { return plain(.flac) }
        if m(0, "OggS") { return plain(.ogg(oggCodec(b))) }
        if m(0, "caff") { return plain(.caf) }
        if m(4, "ftyp") { return plain(.isoMedia) }
        if b.count >= 8, ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { m(4, $0) }),
           let sz = ProbeBytes.be32(b, 0), sz == 0 || sz == 1 || sz >= 8 {
            return plain(.isoMedia)
        }
        if ProbeBytes.matches(b, 0, [0x1A, 0x45, 0xDF, 0xA3]) {
            return plain(MatroskaReader.docType(b) == "webm" ? .webm : .matroska)
        }
        if ProbeBytes.matches(b, 0, asfHeaderGUID) { return plain(.asf) }
        if ProbeBytes.matches(b, 4, [0x57, 0x90, 0x75, 0x36]) { return plain(.audibleAA) }
        if m(0, "MThd") { return plain(.midi) }
        if ProbeBytes.matches(b, 0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return plain(.png) }
        if ProbeBytes.matches(b, 0, [0xFF, 0xD8, 0xFF]) { return plain(.jpeg) }
        if m(0, "GIF87a") || m(0, "GIF89a") { return plain(.gif) }
        if m(0, "II*\u{0}") || m(0, "MM\u{0}*") { return plain(.tiff) }
        if m(0, "%PDF-") { return plain(.pdf) }
        if m(0, "PK\u{3}\u{4}") || m(0, "PK\u{5}\u{6}") { return plain(.zip(zipFlavour(b))) }
        if ProbeBytes.matches(b, 0, [0x1F, 0x8B, 0x08]) { return plain(.gzip) }
        if m(0, "BM"), b.count >= 14, let declared = ProbeBytes.le32(b, 2), ProbeBytes.le32(b, 6) == 0,
           UInt64(declared) == r.size || (ProbeBytes.le32(b, 10) ?? 0) >= 26 {
            return plain(.bmp)
        }

        if let k = ProbeRawStreams.sniff(b) { return plain(k) }

        // ID3v2 in front of an audio stream: skip it (and any repeated tags) and look behind it.
        var tagEnd: UInt64 = 0
        var hops = 0
        while hops < 8 {
            let hb = try r.read(at: tagEnd, count: 10)
            guard let total = ProbeID3Reader.totalTagSize(hb) else { break }
            guard let next = ProbeBytes.add(tagEnd, total) else { break }
            tagEnd = next
            hops += 1
        }
        if tagEnd > 0 {
            let after = try r.read(at: tagEnd, count: 4)
            if ProbeBytes.matches(after, 0, "fLaC") {
                return ContainerSniff(kind: .flac, leadingTagBytes: tagEnd)
            }
            if let f = try ProbeMPEGScan.findMPEG(r, from: tagEnd, window: headLength, requireSecond: false) {
                return ContainerSniff(kind: .mp3, leadingTagBytes: tagEnd, firstFrameOffset: f.offset)
            }
            if let f = try ProbeMPEGScan.findADTS(r, from: tagEnd, window: headLength) {
                return ContainerSniff(kind: .adts, leadingTagBytes: tagEnd, firstFrameOffset: f.offset)
            }
            // A tag with nothing recognisable behind it: still an MP3-style file, maybe cut off.
            return ContainerSniff(kind: .mp3, leadingTagBytes: tagEnd)
        }

        // Raw MPEG / ADTS stream: a frame at the start (after optional zero padding) and a second
        // consistent frame right after it, so random bytes rarely pass.
        let firstNonZero = b.firstIndex(where: { $0 != 0 }) ?? b.count
        if firstNonZero < b.count, b[firstNonZero] == 0xFF {
            let at = UInt64(firstNonZero)
            if let f = try ProbeMPEGScan.findMPEG(r, from: at, window: 0, requireSecond: true) {
                return ContainerSniff(kind: .mp3, leadingTagBytes: 0, firstFrameOffset: f.offset)
            }
            if let f = try ProbeMPEGScan.findADTS(r, from: at, window: 0) {
                return ContainerSniff(kind: .adts, leadingTagBytes: 0, firstFrameOffset: f.offset)
            }
        }
        if let t = textKind(b, wholeFile: UInt64(b.count) == r.size) { return plain(t) }
        if let at = try ProbeRawStreams.mpegAfterJunk(r) {
            return ContainerSniff(kind: .mp3, leadingTagBytes: 0, firstFrameOffset: at, afterJunk: true)
        }
        return plain(.unknown)
    }

    package static let w64RiffGUID: [UInt8] = [0x72, 0x69, 0x66, 0x66, 0x2E, 0x91, 0xCF, 0x11,
                                       0xA5, 0xD6, 0x28, 0xDB, 0x04, 0xC1, 0x00, 0x00]
    package static let w64WaveGUID: [UInt8] = [0x77, 0x61, 0x76, 0x65, 0xF3, 0xAC, 0xD3, 0x11,
                                       0x8C, 0xD1, 0x00, 0xC0, 0x4F, 0x8E, 0xDB, 0x8A]
    package static let asfHeaderGUID: [UInt8] = [0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11,
                                         0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]

    /// The first packet of an Ogg stream names its codec.
    package static func oggCodec(_ b: [UInt8]) -> ContainerKind.OggCodec {
        guard let n = ProbeBytes.u8(b, 26) else { return .unknown }
        let p = 27 + Int(n)
        func m(_ s: [UInt8]) -> Bool { ProbeBytes.matches(b, p, s) }
        if m([0x01] + Array("vorbis".utf8)) { return .vorbis }
        if m(Array("OpusHead".utf8)) { return .opus }
        if m([0x7F] + Array("FLAC".utf8)) { return .flac }
        if m(Array("Speex   ".utf8)) { return .speex }
        if m([0x80] + Array("theora".utf8)) { return .theora }
        return .unknown
    }

    /// Office Open XML, OpenDocument and EPUB all start their ZIP with a telling first entry.
    package static func zipFlavour(_ b: [UInt8]) -> ContainerKind.ZipFlavour {
        guard ProbeBytes.matches(b, 0, "PK\u{3}\u{4}"),
              let nameLen = ProbeBytes.le16(b, 26), let extraLen = ProbeBytes.le16(b, 28) else { return .plain }
        let nameEnd = 30 + Int(nameLen)
        guard nameEnd <= b.count else { return .plain }
        let name = ProbeBytes.latin1(b[30..<nameEnd])
        if name == "[Content_Types].xml" || name.hasPrefix("word/") || name.hasPrefix("xl/")
            || name.hasPrefix("ppt/") || name == "_rels/.rels" { return .officeDocument }
        if name == "mimetype" {
            let dataStart = nameEnd + Int(extraLen)
            let mime = dataStart < b.count ? ProbeBytes.latin1(b[dataStart..<min(b.count, dataStart + 64)]) : ""
            if mime.hasPrefix("application/epub+zip") { return .epub }
            return .openDocument
        }
        return .plain
    }

    /// Text by content: valid UTF-8 (or UTF-16 with BOM) without control bytes; then XML, HTML,
    /// playlist or cue sheet by what it says.
    package static func textKind(_ b: [UInt8], wholeFile: Bool) -> ContainerKind? {
        var body = ArraySlice(b)
        var text: String
        if ProbeBytes.matches(b, 0, [0xFF, 0xFE]) || ProbeBytes.matches(b, 0, [0xFE, 0xFF]) {
            let be = b[0] == 0xFE
            var units = [UInt16]()
            var i = 2
            while i + 1 < b.count {
                units.append(be ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i]))
                i += 2
            }
            if units.contains(0) { return nil }
            text = String(decoding: units, as: UTF16.self)
        } else {
            if ProbeBytes.matches(b, 0, [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
            if !wholeFile {
                // The 4 KiB window may cut a multi-byte character: drop an incomplete tail.
                var cut = 0
                for k in 1...3 where body.count >= k {
                    let c = body[body.endIndex - k]
                    if c & 0xC0 == 0xC0 { cut = k; break }
                    if c & 0x80 == 0 { break }
                }
                body = body.dropLast(cut)
            }
            guard !body.isEmpty else { return nil }
            var it = body.makeIterator()
            var decoder = UTF8()
            loop: while true {
                switch decoder.decode(&it) {
                case .scalarValue: continue
                case .emptyInput: break loop
                case .error: return nil
                }
            }
            text = String(decoding: body, as: UTF8.self)
        }
        var controls = 0
        var count = 0
        for s in text.unicodeScalars {
            count += 1
            let v = s.value
            if v == 0 { return nil }
            if v < 0x20 && v != 9 && v != 10 && v != 13 && v != 12 || v == 0x7F { controls += 1 }
        }
        guard count > 0, controls * 100 <= count else { return nil }

        let lower = text.lowercased()
        let trimmed = lower.drop(while: { $0.isWhitespace })
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") { return .html }
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<") && trimmed.contains(">") {
            return lower.contains("<html") ? .html : .xml
        }
        if trimmed.hasPrefix("#extm3u") || trimmed.hasPrefix("[playlist]") { return .text(.playlist) }
        let lines = lower.split(whereSeparator: { $0.isNewline })
            .map { $0.trimmingPrefixWhitespace() }.filter { !$0.isEmpty }
        if lines.contains(where: { $0.hasPrefix("file ") }) && lines.contains(where: { $0.hasPrefix("track ") }) {
            return .text(.cueSheet)
        }
        let audioExts = [".mp3", ".m4a", ".flac", ".wav", ".aac", ".ogg", ".opus", ".aiff", ".aif", ".wma", ".m4b"]
        let listed = lines.filter { l in !l.hasPrefix("#") && audioExts.contains(where: { l.hasSuffix($0) }) }.count
        let content = lines.filter { !$0.hasPrefix("#") }.count
        if content > 0 && listed * 2 > content { return .text(.playlist) }
        return .text(.plain)
    }
}

extension Substring {
    fileprivate func trimmingPrefixWhitespace() -> Substring { drop(while: { $0 == " " || $0 == "\t" }) }
}
