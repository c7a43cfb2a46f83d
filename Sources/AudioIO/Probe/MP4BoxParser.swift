/// Walks ISO base media / QuickTime boxes and extracts brands, tracks, sample entries,
/// protection and iTunes-style tags; `problem` is set when the walk had to stop on bad structure.
public func readMP4Structure(_ src: ByteSource) throws -> (structure: MP4Structure, problem: ProbeProblem?) {
    let w = ProbeMP4Walker(ProbeReader(src))
    try w.run()
    return (w.s, w.problem)
}

package final class ProbeMP4Walker {
    package static let maxDepth = 32
    package static let maxBoxes = 100_000
    /// Largest leaf payload read into memory (hdlr, mdhd, ilst data, esds...).
    package static let leafCap = 64 * 1024

    package struct Box {
        package var type: UInt32
        package var start: UInt64
        /// Where the payload begins (after size, type, largesize, uuid).
        package var payload: UInt64
        package var end: UInt64
        package var typeName: String { ProbeBytes.fourCC(type) }
    }

    /// Raised to abandon the walk; the problem is kept in `problem`.
    package struct Stop: Error {}

    package let r: ProbeReader
    package var s = MP4Structure()
    package var problem: ProbeProblem?
    private var boxCount = 0

    package init(_ r: ProbeReader) { self.r = r }

    private func fail(_ p: ProbeProblem) -> Stop {
        if problem == nil { problem = p }
        return Stop()
    }

    package func run() throws {
        do {
            try forEachChild(from: 0, to: r.size, depth: 0) { box in
                switch box.typeName {
                case "ftyp": try self.readFtyp(box)
                case "moov":
                    self.s.hasMovieBox = true
                    try self.walkMoov(box, depth: 1)
                default: break
                }
            }
        } catch is Stop {
            // Facts gathered so far stay; `problem` says why the walk ended.
        }
    }

    /// Reads the header of the box at `off` inside a parent ending at `parentEnd`; nil at the
    /// end of the parent (including QuickTime's 4-byte zero terminator and trailing padding).
    package func header(at off: UInt64, parentEnd: UInt64, depth: Int) throws -> Box? {
        guard off < parentEnd else { return nil }
        let remaining = parentEnd - off
        if remaining < 8 { return nil }
        let h = try r.read(at: off, count: 16)
        guard h.count >= 8, let size32 = ProbeBytes.be32(h, 0), let type = ProbeBytes.be32(h, 4) else {
            throw fail(.truncated("the file stops in the middle of a box header"))
        }
        boxCount += 1
        if boxCount > ProbeMP4Walker.maxBoxes {
            throw fail(.malformed("it holds more boxes than any real media file would"))
        }
        var headerSize: UInt64 = 8
        let end: UInt64
        switch size32 {
        case 0:
            if depth > 0 && type == 0 { return nil }  // QuickTime terminator
            end = parentEnd
        case 1:
            guard remaining >= 16 else { throw fail(.malformed("a box's 64-bit size is cut off")) }
            guard let large = ProbeBytes.be64(h, 8) else {
                throw fail(.truncated("the file stops in the middle of a box header"))
            }
            guard large >= 16 else { throw fail(.malformed("a box is smaller than its own header")) }
            guard let e = ProbeBytes.add(off, large) else {
                throw fail(.malformed("a box size is too large to be real"))
            }
            headerSize = 16
            end = e
        case 2...7:
            throw fail(.malformed("a box is smaller than its own header"))
        default:
            guard let e = ProbeBytes.add(off, UInt64(size32)) else {
                throw fail(.malformed("a box size is too large to be real"))
            }
            end = e
        }
        if type == ProbeBytes.fourCC("uuid") { headerSize += 16 }
        if end > parentEnd {
            if depth == 0 && end > r.size && Self.isPrintable(type) {
                throw fail(.truncated("the file ends partway through its “\(ProbeBytes.fourCC(type))” box"))
            }
            throw fail(.malformed(depth == 0 ? "a box claims more bytes than the file holds"
                                             : "a box claims more bytes than the box around it holds"))
        }
        guard headerSize <= end - off else { throw fail(.malformed("a box is smaller than its own header")) }
        return Box(type: type, start: off, payload: off + headerSize, end: end)
    }

    package static func isPrintable(_ t: UInt32) -> Bool {
        (0..<4).allSatisfy { k in
            let c = UInt8(truncatingIfNeeded: t >> UInt32(24 - 8 * k))
            return c >= 0x20 && c < 0x7F || c == 0xA9
        }
    }

    /// Calls `body` for each child box in [from, to). Offsets strictly increase, so it ends.
    package func forEachChild(from: UInt64, to: UInt64, depth: Int, _ body: (Box) throws -> Void) throws {
        guard depth <= ProbeMP4Walker.maxDepth else {
            throw fail(.malformed("its boxes are nested deeper than any real media file"))
        }
        var off = from
        while let box = try header(at: off, parentEnd: to, depth: depth) {
            try body(box)
            guard box.end > off else { break }
            off = box.end
        }
    }

    package func payload(_ box: Box, cap: Int = ProbeMP4Walker.leafCap) throws -> [UInt8] {
        let n = min(box.end - box.payload, UInt64(cap))
        return try r.read(at: box.payload, count: Int(n))
    }

    package func readFtyp(_ box: Box) throws {
        let p = try payload(box, cap: 4096)
        guard let major = ProbeBytes.be32(p, 0) else { return }
        if s.majorBrand == nil { s.majorBrand = ProbeBytes.fourCC(major) }
        var i = 8
        while let b = ProbeBytes.be32(p, i), s.compatibleBrands.count < 256 {
            if b != 0 { s.compatibleBrands.append(ProbeBytes.fourCC(b)) }
            i += 4
        }
    }

    package func walkMoov(_ moov: Box, depth: Int) throws {
        try forEachChild(from: moov.payload, to: moov.end, depth: depth) { box in
            switch box.typeName {
            case "mvhd":
                let p = try self.payload(box, cap: 64)
                if let (ts, d) = Self.timescaleAndDuration(p) { self.s.movieTimescale = ts; self.s.movieDuration = d }
            case "trak":
                var t = MP4TrackFacts()
                try self.walkTrak(box, depth: depth + 1, into: &t)
                if self.s.tracks.count < 1024 { self.s.tracks.append(t) }
            case "udta": try self.walkUdta(box, depth: depth + 1)
            case "meta": try self.walkMeta(box, depth: depth + 1)
            default: break
            }
        }
    }

    /// mvhd/mdhd: version 0 has 32-bit times, version 1 64-bit.
    package static func timescaleAndDuration(_ p: [UInt8]) -> (UInt32, UInt64?)? {
        guard let v = ProbeBytes.u8(p, 0) else { return nil }
        if v == 1 {
            guard let ts = ProbeBytes.be32(p, 20), let d = ProbeBytes.be64(p, 24) else { return nil }
            return (ts, d == UInt64.max ? nil : d)
        }
        guard let ts = ProbeBytes.be32(p, 12), let d = ProbeBytes.be32(p, 16) else { return nil }
        return (ts, d == UInt32.max ? nil : UInt64(d))
    }

    package func walkTrak(_ trak: Box, depth: Int, into t: inout MP4TrackFacts) throws {
        var track = t
        try forEachChild(from: trak.payload, to: trak.end, depth: depth) { box in
            guard box.typeName == "mdia" else { return }
            try self.forEachChild(from: box.payload, to: box.end, depth: depth + 1) { m in
                switch m.typeName {
                case "mdhd":
                    let p = try self.payload(m, cap: 64)
                    if let (ts, d) = Self.timescaleAndDuration(p) { track.timescale = ts; track.duration = d }
                case "hdlr":
                    let p = try self.payload(m, cap: 64)
                    if let h = ProbeBytes.be32(p, 8) { track.handler = ProbeBytes.fourCC(h) }
                case "minf":
                    try self.forEachChild(from: m.payload, to: m.end, depth: depth + 2) { mi in
                        guard mi.typeName == "stbl" else { return }
                        try self.forEachChild(from: mi.payload, to: mi.end, depth: depth + 3) { st in
                            guard st.typeName == "stsd" else { return }
                            try self.readStsd(st, depth: depth + 4, into: &track)
                        }
                    }
                default: break
                }
            }
        }
        // A fragmented file's moov states 0 (its samples are in the fragments): unknown, not 0 s.
        if track.handler == "soun", var a = track.audio, let ts = track.timescale, ts > 0, let d = track.duration, d > 0 {
            a.duration = Double(d) / Double(ts)
            track.audio = a
        }
        t = track
    }

    package static let protectedEntries: Set<String> = ["drms", "drmi", "p608", "enca", "encv", "enct", "encs", "aavd"]

    package func readStsd(_ stsd: Box, depth: Int, into t: inout MP4TrackFacts) throws {
        // Full box header (4) + entry count (4), then the first sample entry.
        guard let first = ProbeBytes.add(stsd.payload, 8), first < stsd.end else { return }
        guard let entry = try header(at: first, parentEnd: stsd.end, depth: depth) else { return }
        let fourcc = entry.typeName
        t.sampleEntry = fourcc
        if Self.protectedEntries.contains(fourcc) {
            let scheme: String
            switch fourcc {
            case "drms", "drmi", "p608": scheme = "itun"
            case "aavd": scheme = "audible"
            default: scheme = "cenc"
            }
            t.protection = Protection(scheme: scheme)
        }
        let head = try r.read(at: entry.start, count: Int(min(entry.end - entry.start, 128)))
        var childStart: UInt64?
        if t.handler == "soun" || (t.handler == nil && head.count >= 36) {
            let version = ProbeBytes.be16(head, 16) ?? 0
            var a = ProbeAudioParameters(format: fourcc)
            switch version {
            case 2:
                if let bits = ProbeBytes.be64(head, 40) { a.sampleRate = Double(bitPattern: bits) }
                a.channels = ProbeBytes.be32(head, 48).map { Int($0) }
                a.bitsPerSample = ProbeBytes.be32(head, 56).map { Int($0) }
                childStart = 72
            default:
                a.channels = ProbeBytes.be16(head, 24).map { Int($0) }
                a.bitsPerSample = ProbeBytes.be16(head, 26).map { Int($0) }
                a.sampleRate = ProbeBytes.be32(head, 32).map { Double($0) / 65536 }
                childStart = version == 1 ? 52 : 36
            }
            if let rate = a.sampleRate, !(rate.isFinite && rate > 0 && rate < 10_000_000) { a.sampleRate = nil }
            if a.channels == 0 { a.channels = nil }
            if a.bitsPerSample == 0 { a.bitsPerSample = nil }
            if t.handler == "soun" { t.audio = a }
        } else if t.handler == "vide" {
            childStart = 86
        }
        guard let cs = childStart, let from = ProbeBytes.add(entry.start, cs), from <= entry.end else { return }
        try walkSampleEntryChildren(from: from, to: entry.end, depth: depth + 1, into: &t)
    }

    /// `inSinf`: inside a protection scheme box, where `frma` means protection (in QuickTime's
    /// `wave` atom an `frma` only repeats the plain format).
    package func walkSampleEntryChildren(from: UInt64, to: UInt64, depth: Int, inSinf: Bool = false, into t: inout MP4TrackFacts) throws {
        var track = t
        try forEachChild(from: from, to: to, depth: depth) { box in
            switch box.typeName {
            case "sinf", "schi":
                try self.walkSampleEntryChildren(from: box.payload, to: box.end, depth: depth + 1, inSinf: true, into: &track)
            case "wave":  // QuickTime: decoder config wrapped in a 'wave' atom
                try self.walkSampleEntryChildren(from: box.payload, to: box.end, depth: depth + 1, inSinf: inSinf, into: &track)
            case "frma" where !inSinf:
                break
            case "frma":
                let p = try self.payload(box, cap: 8)
                if let f = ProbeBytes.be32(p, 0) {
                    var prot = track.protection ?? Protection(scheme: "unknown")
                    prot.originalFormat = ProbeBytes.fourCC(f)
                    track.protection = prot
                }
            case "schm":
                let p = try self.payload(box, cap: 16)
                if let sch = ProbeBytes.be32(p, 4) {
                    var prot = track.protection ?? Protection(scheme: "unknown")
                    prot.scheme = ProbeBytes.fourCC(sch).trimmingTrailingSpaces()
                    track.protection = prot
                }
            case "esds":
                let p = try self.payload(box, cap: 4096)
                if let es = ProbeESDescriptor.parse(Array(p.dropFirst(4))) {
                    track.objectTypeIndication = es.objectTypeIndication
                    track.audioObjectType = es.audioObjectType
                    if var a = track.audio {
                        if let sr = es.sampleRate { a.sampleRate = Double(sr) }
                        if let ch = es.channels, ch > 0 { a.channels = ch }
                        track.audio = a
                    }
                }
            case "dac3", "dec3":
                // The AC-3 / E-AC-3 specific box states the channels (acmod, lfeon; ETSI TS 102 366
                // Annex F): the sample entry's channel count is a fixed 2.
                let p = try self.payload(box, cap: 16)
                if var a = track.audio, let ch = Self.ac3Channels(Array(p), eac3: box.typeName == "dec3") {
                    a.channels = ch
                    track.audio = a
                }
            case "alac":
                // Full box header then ALACSpecificConfig (24 bytes). In QuickTime 'wave' the
                // 'alac' child may also be a bare 4-byte marker: then nothing to read.
                let p = try self.payload(box, cap: 64)
                if p.count >= 28, var a = track.audio {
                    a.bitsPerSample = Int(p[4 + 5])
                    a.channels = Int(p[4 + 9])
                    if let sr = ProbeBytes.be32(p, 4 + 20), sr > 0 { a.sampleRate = Double(sr) }
                    track.audio = a
                }
            default: break
            }
        }
        t = track
    }

    /// Channels from a `dac3` payload (fscod 2, bsid 5, bsmod 3, acmod 3, lfeon 1 bits) or a
    /// `dec3` one (data_rate 13, num_ind_sub 3, then the first substream's fscod 2, bsid 5, 1,
    /// asvc 1, bsmod 3, acmod 3, lfeon 1): the channels acmod names, plus the LFE.
    package static func ac3Channels(_ p: [UInt8], eac3: Bool) -> Int? {
        let acmod: Int, lfe: Int
        if eac3 {
            guard let v = ProbeBytes.be32(p, 0) else { return nil }
            acmod = Int(v >> 1) & 7; lfe = Int(v & 1)
        } else {
            guard p.count >= 3 else { return nil }
            let v = Int(p[0]) << 16 | Int(p[1]) << 8 | Int(p[2])
            acmod = (v >> 11) & 7; lfe = (v >> 10) & 1
        }
        return [2, 1, 2, 3, 3, 4, 4, 5][acmod] + lfe
    }

    package func walkUdta(_ udta: Box, depth: Int) throws {
        try forEachChild(from: udta.payload, to: udta.end, depth: depth) { box in
            let name = box.typeName
            if name == "meta" { try self.walkMeta(box, depth: depth + 1); return }
            // Classic QuickTime user data text: 16-bit length, 16-bit language, text.
            guard let field = Self.itemField(name), name.hasPrefix("©") else { return }
            let p = try self.payload(box, cap: 4096)
            guard let len = ProbeBytes.be16(p, 0), 4 + Int(len) <= p.count else { return }
            Self.store(field, ProbeBytes.cleaned(ProbeBytes.utf8(p[4..<(4 + Int(len))])), into: &self.s.tags, fill: true)
        }
    }

    package func walkMeta(_ meta: Box, depth: Int) throws {
        // ISO: full box (4 bytes version/flags). QuickTime: plain box. Tell by what follows.
        let peek = try r.read(at: meta.payload, count: 8)
        var start = meta.payload
        let childType = ProbeBytes.matches(peek, 4, "hdlr") || ProbeBytes.matches(peek, 4, "ilst")
            || ProbeBytes.matches(peek, 4, "keys") || ProbeBytes.matches(peek, 4, "free")
        if !childType && ProbeBytes.be32(peek, 0) == 0 { start += 4 }
        guard start <= meta.end else { return }
        // QuickTime metadata (hdlr "mdta"): a `keys` box names the items, and each ilst item's
        // type is then the 1-based index of its key ("com.apple.quicktime.title", or "title").
        var keys: [String] = []
        try forEachChild(from: start, to: meta.end, depth: depth) { box in
            guard box.typeName == "keys" else { return }
            keys = Self.quickTimeKeys(try self.payload(box, cap: 64 * 1024))
        }
        try forEachChild(from: start, to: meta.end, depth: depth) { box in
            guard box.typeName == "ilst" else { return }
            try self.forEachChild(from: box.payload, to: box.end, depth: depth + 1) { item in
                let keyed = item.type >= 1 && Int(item.type) <= keys.count ? Self.keyField(keys[Int(item.type) - 1]) : nil
                guard let field = keyed ?? Self.itemField(item.typeName) else { return }
                try self.forEachChild(from: item.payload, to: item.end, depth: depth + 2) { d in
                    guard d.typeName == "data" else { return }
                    let p = try self.payload(d, cap: 4096)
                    guard p.count >= 8 else { return }
                    let value = Array(p[8...])
                    let text: String?
                    switch item.typeName {
                    case "trkn":
                        guard let n = ProbeBytes.be16(value, 2), n > 0 else { return }
                        let total = ProbeBytes.be16(value, 4) ?? 0
                        text = total > 0 ? "\(n)/\(total)" : "\(n)"
                    case "gnre":
                        guard let g = ProbeBytes.be16(value, 0), g > 0 else { return }
                        text = ID3Genres.name(Int(g) - 1)
                    default:
                        text = ProbeBytes.cleaned(ProbeBytes.utf8(value[...]))
                    }
                    Self.store(field, text, into: &self.s.tags, fill: false)
                }
            }
        }
    }

    package enum ItemField { case title, artist, album, genre, year, track }

    /// The key names of a QuickTime `keys` box: version/flags, count, then (size, namespace, name).
    package static func quickTimeKeys(_ p: [UInt8]) -> [String] {
        guard let count = ProbeBytes.be32(p, 4) else { return [] }
        var out: [String] = []
        var i = 8
        while out.count < min(Int(count), 1024), let size = ProbeBytes.be32(p, i), size >= 8, i + Int(size) <= p.count {
            out.append(ProbeBytes.utf8(p[(i + 8)..<(i + Int(size))]))
            i += Int(size)
        }
        return out
    }

    /// The field a QuickTime metadata key names, by its last dotted part
    /// ("com.apple.quicktime.artist" → artist).
    package static func keyField(_ key: String) -> ItemField? {
        let last = key.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch last {
        case "title", "displayname": return .title
        case "artist", "author", "performer": return .artist
        case "album": return .album
        case "genre": return .genre
        case "year", "date", "creationdate": return .year
        case "track", "tracknumber": return .track
        default: return nil
        }
    }

    package static func itemField(_ name: String) -> ItemField? {
        switch name {
        case "©nam": return .title
        case "©ART": return .artist
        case "©alb": return .album
        case "©gen", "gnre": return .genre
        case "©day": return .year
        case "trkn": return .track
        default: return nil
        }
    }

    /// ilst values win over classic udta text (`fill` only fills empty fields).
    package static func store(_ f: ItemField, _ v: String?, into t: inout ProbeTags, fill: Bool) {
        guard let v else { return }
        switch f {
        case .title: if !fill || t.title == nil { t.title = v }
        case .artist: if !fill || t.artist == nil { t.artist = v }
        case .album: if !fill || t.album == nil { t.album = v }
        case .genre: if !fill || t.genre == nil { t.genre = v }
        case .year: if !fill || t.year == nil { t.year = v }
        case .track: if !fill || t.track == nil { t.track = v }
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// The parts of an MPEG-4 ES_Descriptor (esds) that say what the audio really is.
package struct ProbeESDescriptor {
    package var objectTypeIndication: UInt8?
    package var audioObjectType: Int?
    package var sampleRate: Int?
    package var channels: Int?

    /// Descriptor: tag byte, then a length in up to four 7-bit groups.
    package static func descriptor(_ b: [UInt8], _ i: Int) -> (tag: UInt8, body: Int, length: Int)? {
        guard let tag = ProbeBytes.u8(b, i) else { return nil }
        var len = 0
        var k = i + 1
        for _ in 0..<4 {
            guard let c = ProbeBytes.u8(b, k) else { return nil }
            len = len << 7 | Int(c & 0x7F)
            k += 1
            if c & 0x80 == 0 { break }
        }
        guard len <= b.count - k else { return nil }
        return (tag, k, len)
    }

    package static func parse(_ b: [UInt8]) -> ProbeESDescriptor? {
        guard let es = descriptor(b, 0), es.tag == 3 else { return nil }
        var i = es.body
        guard let flags = ProbeBytes.u8(b, i + 2) else { return nil }
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0 { i += 1 + Int(ProbeBytes.u8(b, i) ?? 0) }
        if flags & 0x20 != 0 { i += 2 }
        var out = ProbeESDescriptor()
        guard let dc = descriptor(b, i), dc.tag == 4 else { return out }
        out.objectTypeIndication = ProbeBytes.u8(b, dc.body)
        guard let dsi = descriptor(b, dc.body + 13), dsi.tag == 5, dsi.length >= 2 else { return out }
        var bits = ProbeBitCursor(b, byteOffset: dsi.body, byteLimit: dsi.body + dsi.length)
        guard var aot = bits.read(5) else { return out }
        if aot == 31 { guard let ext = bits.read(6) else { return out }; aot = 32 + ext }
        out.audioObjectType = aot
        guard let fi = bits.read(4) else { return out }
        if fi == 15 {
            out.sampleRate = bits.read(24)
        } else if fi < ProbeADTSHeader.rates.count {
            out.sampleRate = ProbeADTSHeader.rates[fi]
        }
        if let cc = bits.read(4) { out.channels = cc == 7 ? 8 : cc }
        return out
    }
}

/// MSB-first bit reader bounded to a byte range.
package struct ProbeBitCursor {
    package let b: [UInt8]
    package var bit: Int
    package let limitBits: Int

    package init(_ b: [UInt8], byteOffset: Int, byteLimit: Int) {
        self.b = b
        self.bit = byteOffset * 8
        self.limitBits = min(byteLimit, b.count) * 8
    }

    package mutating func read(_ n: Int) -> Int? {
        guard n <= 32, bit + n <= limitBits else { return nil }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int((b[bit >> 3] >> (7 - UInt8(bit & 7))) & 1)
            bit += 1
        }
        return v
    }
}
