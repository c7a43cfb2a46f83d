/// Opus in Ogg (RFC 7845): the ID header's output gain (Q7.8 dB, signed 16-bit little-endian at
/// byte 16 of OpusHead) moved by a gain, with the pages' checksums fixed and the audio packets
/// untouched. R128_TRACK_GAIN / R128_ALBUM_GAIN in OpusTags, which are relative to the header
/// gain, are moved the other way so they still say the same absolute thing. The undo record, a
/// comment `AUDIO_TOOLS_LOSSLESS_GAIN_UNDO=<Q7.8>` (what to add to the header gain to restore it),
/// is added to, or removed when the change undoes it.
public struct OpusHeaderGain: Sendable {
    /// The OpusTags comment that holds the undo record.
    public static let undoComment = "AUDIO_TOOLS_LOSSLESS_GAIN_UNDO"

    /// What a change does with the undo record: leave it (`none`), add to it (the gain taken
    /// away: a new comment, or the sum with the one there), or `remove` it (the change is the undo).
    public enum UndoRecord: Sendable { case none, add, remove }

    /// What was changed.
    public struct Result: Sendable {
        public var bytes: [UInt8]
        public var oldGainQ78: Int
        public var newGainQ78: Int
        /// R128 tags rewritten: name, old value, new value (Q7.8).
        public var tags: [(name: String, old: Int, new: Int)]
    }

    /// One Q7.8 step, dB.
    public static let stepDB = 1.0 / 256

    /// The change as a patched copy of the file: the ID header page's gain and checksum, and
    /// the OpusTags pages when R128 tags change (with the pages after them renumbered when
    /// their count changes).
    public struct Plan: Sendable {
        public var copy: PatchedCopy
        public var oldGainQ78: Int
        public var newGainQ78: Int
        public var tags: [(name: String, old: Int, new: Int)]
        /// The undo record (Q7.8) found in the file, and the one it has after the change (nil: none).
        public var previousUndoQ78: Int?
        public var undoQ78: Int?
    }

    /// `bytes` (a whole .opus file) with `gainQ78` added to the output gain.
    public static func apply(_ bytes: [UInt8], gainQ78: Int, undo: UndoRecord = .none) throws(BitstreamGainError) -> Result {
        let p = try plan(bytes, gainQ78: gainQ78, undo: undo)
        return Result(bytes: p.copy.applied(to: bytes), oldGainQ78: p.oldGainQ78, newGainQ78: p.newGainQ78, tags: p.tags)
    }

    /// The undo record of a whole .opus file (Q7.8), nil when it carries none.
    public static func undoRecord(_ bytes: [UInt8]) throws(BitstreamGainError) -> Int? {
        try plan(bytes, gainQ78: 0).previousUndoQ78
    }

    /// What `apply` changes, as a patched copy of `bytes` (a whole .opus file).
    public static func plan(_ bytes: [UInt8], gainQ78: Int, undo: UndoRecord = .none) throws(BitstreamGainError) -> Plan {
        let pages = try OggPage.all(bytes)
        let serials = Set(pages.map(\.serial))
        if serials.count > 1 { throw .severalStreams(serials.count) }
        guard pages.count >= 2, let head = pages.first, head.bodyLength >= 19,
              Array(bytes[head.bodyOffset..<(head.bodyOffset + 8)]) == Array("OpusHead".utf8) else {
            throw .unsupportedFormat("Ogg without an Opus stream")
        }
        let at = head.bodyOffset + 16
        let old = Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))
        let new = old + gainQ78
        guard new >= -32768, new <= 32767 else { throw .opusGainOutOfRange(q78: new) }

        // The OpusTags packet: from page 1 to the page where a segment under 255 ends it, which
        // must also be that page's last segment (the first audio packet starts a new page).
        var tagsBody: [UInt8] = []
        var last = 1
        while true {
            guard last < pages.count else { throw .malformed(what: "OpusTags packet", offset: pages[1].offset) }
            let p = pages[last]
            tagsBody += bytes[p.bodyOffset..<(p.bodyOffset + p.bodyLength)]
            if let end = p.segments.firstIndex(where: { $0 < 255 }) {
                guard end == p.segments.count - 1 else { throw .malformed(what: "OpusTags page", offset: p.offset) }
                break
            }
            last += 1
        }
        let rewritten = try rewriteTags(tagsBody, by: gainQ78, undo: undo, offset: pages[1].offset)
        let newTags = rewritten.packet, changed = rewritten.r128

        // The ID header page with the new gain and its checksum.
        var page = Array(bytes[head.offset..<(head.offset + head.length)])
        let g = UInt16(bitPattern: Int16(new))
        page[at - head.offset] = UInt8(g & 0xFF)
        page[at - head.offset + 1] = UInt8(g >> 8)
        let crc = OggCRC.checksum(page, 0..<page.count, zeroing: 22)
        var copy = PatchedCopy()
        copy.patch(at: head.offset + 22, (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) })
        copy.patch(at: at, page[(at - head.offset)...(at - head.offset + 1)])
        copy.copy(0..<pages[1].offset)

        let rest = pages[last].offset + pages[last].length
        if newTags == tagsBody {
            copy.copy(pages[1].offset..<bytes.count)
            return Plan(copy: copy, oldGainQ78: old, newGainQ78: new, tags: [],
                        previousUndoQ78: rewritten.previousUndo, undoQ78: rewritten.undo)
        }
        let tagPages = paginate(newTags, serial: head.serial, firstSequence: pages[1].sequence)
        for p in tagPages { copy.insert(p) }
        let shift = Int64(tagPages.count) - Int64(last)
        if shift == 0 {
            copy.copy(rest..<bytes.count)
        } else {
            for p in pages[(last + 1)...] {
                let seq = UInt32(truncatingIfNeeded: Int64(p.sequence) + shift)
                copy.insert(OggPage.build(flags: p.flags, granule: p.granule, serial: p.serial, sequence: seq,
                                          segments: p.segments, body: bytes[p.bodyOffset..<(p.bodyOffset + p.bodyLength)]))
            }
        }
        return Plan(copy: copy, oldGainQ78: old, newGainQ78: new, tags: changed,
                    previousUndoQ78: rewritten.previousUndo, undoQ78: rewritten.undo)
    }

    /// One packet laid out on pages of at most 255 segments: the first page starts it, each
    /// further page continues it (flag 0x01); a page where it doesn't end has granule −1.
    package static func paginate(_ packet: [UInt8], serial: UInt32, firstSequence: UInt32) -> [[UInt8]] {
        var lacing = [UInt8](repeating: 255, count: packet.count / 255)
        lacing.append(UInt8(packet.count % 255))
        var pages: [[UInt8]] = []
        var seg = 0, byte = 0
        while seg < lacing.count {
            let n = min(255, lacing.count - seg)
            let segs = Array(lacing[seg..<(seg + n)])
            let len = segs.reduce(0) { $0 + Int($1) }
            let ends = seg + n == lacing.count
            pages.append(OggPage.build(flags: seg == 0 ? 0 : 1, granule: ends ? 0 : UInt64.max, serial: serial,
                                       sequence: firstSequence &+ UInt32(pages.count), segments: segs,
                                       body: packet[byte..<(byte + len)]))
            seg += n
            byte += len
        }
        return pages
    }

    /// The OpusTags packet with R128_TRACK_GAIN and R128_ALBUM_GAIN lowered by `gainQ78` and the
    /// undo record dealt with as `undo` says (a new one goes last among the comments); what changed;
    /// everything else byte for byte.
    package static func rewriteTags(_ p: [UInt8], by gainQ78: Int, undo: UndoRecord, offset: Int) throws(BitstreamGainError)
        -> (packet: [UInt8], r128: [(name: String, old: Int, new: Int)], previousUndo: Int?, undo: Int?) {
        func le32(_ at: Int) throws(BitstreamGainError) -> Int {
            guard at + 4 <= p.count else { throw .malformed(what: "OpusTags packet", offset: offset) }
            return Int(OggPage.readLE(p, at, 4))
        }
        guard p.count >= 16, Array(p[0..<8]) == Array("OpusTags".utf8) else { throw .malformed(what: "OpusTags packet", offset: offset) }
        let vendor = try le32(8)
        var at = 12 + vendor
        let count = try le32(at)
        at += 4
        var out = Array(p[0..<(at - 4)])
        var body: [UInt8] = []
        var kept = 0
        var changed: [(name: String, old: Int, new: Int)] = []
        var previousUndo: Int?
        for _ in 0..<count {
            let n = try le32(at)
            guard at + 4 + n <= p.count else { throw .malformed(what: "OpusTags packet", offset: offset) }
            let comment = p[(at + 4)..<(at + 4 + n)]
            at += 4 + n
            if let eq = comment.firstIndex(of: 0x3D) {
                let name = String(decoding: comment[comment.startIndex..<eq], as: UTF8.self).uppercased()
                if name == undoComment, previousUndo == nil {
                    let text = String(decoding: comment[(eq + 1)...], as: UTF8.self)
                    guard let v = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                        throw .malformed(what: "\(undoComment) comment", offset: offset)
                    }
                    previousUndo = v
                    if undo != .none { continue }
                }
                if name == "R128_TRACK_GAIN" || name == "R128_ALBUM_GAIN" {
                    let text = String(decoding: comment[(eq + 1)...], as: UTF8.self)
                    guard let v = Int(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                        throw .malformed(what: "\(name) tag", offset: offset)
                    }
                    let nv = v - gainQ78
                    guard nv >= -32768, nv <= 32767 else { throw .r128TagOutOfRange(name: name, q78: nv) }
                    let entry = Array(comment[comment.startIndex...eq]) + Array(String(nv).utf8)
                    OggPage.writeLE(&body, UInt64(entry.count), 4)
                    body += entry
                    kept += 1
                    changed.append((name, v, nv))
                    continue
                }
            }
            OggPage.writeLE(&body, UInt64(n), 4)
            body += comment
            kept += 1
        }
        var newUndo = undo == .none ? previousUndo : nil
        if undo == .add {
            let v = (previousUndo ?? 0) - gainQ78
            guard v >= -65535, v <= 65535 else { throw .opusGainOutOfRange(q78: v) }
            let entry = Array((undoComment + "=" + String(v)).utf8)
            OggPage.writeLE(&body, UInt64(entry.count), 4)
            body += entry
            kept += 1
            newUndo = v
        }
        OggPage.writeLE(&out, UInt64(kept), 4)
        out += body
        out += p[at...]  // framing or padding after the comments, kept
        return (out, changed, previousUndo, newUndo)
    }
}
