/// RIFF/RF64/W64 WAV, AIFF/AIFC and CAF: chunk walks for the format chunk and tag chunks.
enum ProbeChunkReaders {
    static let maxChunks = 10_000
    static let tagChunkCap = 64 * 1024

    static func wavCodec(_ tag: UInt16) -> String {
        switch tag {
        case 1: return "pcm"
        case 3: return "float"
        case 2: return "ms-adpcm"
        case 6: return "alaw"
        case 7: return "mulaw"
        case 0x11: return "ima-adpcm"
        case 0x50: return "mp2"
        case 0x55: return "mp3"
        case 0xFF, 0x1610, 0x1600: return "aac"
        case 0x160, 0x161, 0x162, 0x163: return "wma"
        default:
            let hex = String(tag, radix: 16)
            return "wav-0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Parses a WAVE fmt chunk payload (WAVE_FORMAT_EXTENSIBLE resolves to its sub-format).
    static func wavFormat(_ p: [UInt8], into f: inout ContainerFacts) {
        guard var tag = ProbeBytes.le16(p, 0) else { return }
        if tag == 0xFFFE, let sub = ProbeBytes.le16(p, 24) { tag = sub }
        var a = ProbeAudioParameters(format: "fmt \(tag)")
        a.channels = ProbeBytes.le16(p, 2).map { Int($0) }
        a.sampleRate = ProbeBytes.le32(p, 4).map { Double($0) }
        a.bitsPerSample = ProbeBytes.le16(p, 14).map { Int($0) }
        if a.channels == 0 { a.channels = nil }
        if a.sampleRate == 0 { a.sampleRate = nil }
        if a.bitsPerSample == 0 { a.bitsPerSample = nil }
        f.audio = a
        f.codec = wavCodec(tag)
        f.hasAudio = true
    }

    /// RIFF INFO list payload (after the "INFO" word): INAM, IART, IPRD, IGNR, ICRD, ITRK/IPRT.
    static func riffInfo(_ p: ArraySlice<UInt8>) -> ProbeTags {
        let b = Array(p)
        var t = ProbeTags()
        var i = 0
        var n = 0
        while i + 8 <= b.count && n < 1000 {
            n += 1
            let id = ProbeBytes.latin1(b[i..<(i + 4)])
            guard let len = ProbeBytes.le32(b, i + 4), UInt64(len) <= UInt64(b.count - i - 8) else { break }
            let s = i + 8
            let e = s + Int(len)
            // RIFF text is nominally Latin-1 but mostly written as UTF-8: prefer UTF-8 when valid.
            let bytes = b[s..<e].prefix(while: { $0 != 0 })
            let text = String(validating: bytes, as: UTF8.self) ?? ProbeBytes.latin1(bytes)
            let v = ProbeBytes.cleaned(text)
            switch id {
            case "INAM": t.title = t.title ?? v
            case "IART": t.artist = t.artist ?? v
            case "IPRD": t.album = t.album ?? v
            case "IGNR": t.genre = t.genre ?? v
            case "ICRD": t.year = t.year ?? v
            case "ITRK", "IPRT", "TRCK": t.track = t.track ?? v
            default: break
            }
            i = e + Int(len & 1)
        }
        return t
    }

    static func readWAV(_ r: ProbeReader, rf64: Bool, into f: inout ContainerFacts) throws {
        var off: UInt64 = 12
        var dataSize: UInt64?
        var ds64Data: UInt64?
        var chunks = 0
        var riffTags = ProbeTags()
        var id3Tags = ProbeTags()
        while off + 8 <= r.size && chunks < maxChunks {
            chunks += 1
            let h = try r.read(at: off, count: 8)
            guard h.count == 8, let len32 = ProbeBytes.le32(h, 4) else { break }
            let id = ProbeBytes.latin1(h[0..<4])
            let body = off + 8
            var len = UInt64(len32)
            switch id {
            case "ds64":
                let p = try r.read(at: body, count: 28)
                ds64Data = ProbeBytes.le64(p, 8)
            case "fmt ":
                wavFormat(try r.read(at: body, count: Int(min(len, 64))), into: &f)
            case "data":
                if rf64 && len32 == 0xFFFF_FFFF, let d = ds64Data { len = d }
                dataSize = min(len, r.size - body)
            case "LIST":
                let p = try r.read(at: body, count: Int(min(len, UInt64(tagChunkCap))))
                if ProbeBytes.matches(p, 0, "INFO") { riffTags.merge(riffInfo(p[4...])) }
            case "id3 ", "ID3 ":
                if let tag = try ProbeID3Reader.read(r, at: body) { id3Tags.merge(tag.tags) }
            default: break
            }
            if rf64 && len32 == 0xFFFF_FFFF && id == "data" && ds64Data == nil { break }
            guard let next = ProbeBytes.add(body, len), let aligned = ProbeBytes.add(next, len & 1) else { break }
            off = aligned
        }
        f.tags.merge(riffTags)
        f.tags.merge(id3Tags)
        if f.audio == nil { f.problem = f.problem ?? .malformed("it has no format chunk saying how its audio is stored") }
        if let d = dataSize, var a = f.audio, let ch = a.channels, let bits = a.bitsPerSample, let sr = a.sampleRate,
           ["pcm", "float", "alaw", "mulaw"].contains(f.codec ?? "") {
            let frameBytes = UInt64(ch) * UInt64((bits + 7) / 8)
            if frameBytes > 0 { a.duration = Double(d / frameBytes) / sr; f.audio = a }
        }
    }

    static func readW64(_ r: ProbeReader, into f: inout ContainerFacts) throws {
        var off: UInt64 = 40
        var chunks = 0
        while off + 24 <= r.size && chunks < maxChunks {
            chunks += 1
            let h = try r.read(at: off, count: 24)
            guard let size = ProbeBytes.le64(h, 16), size >= 24 else { break }
            if ProbeBytes.matches(h, 0, "fmt ") { wavFormat(try r.read(at: off + 24, count: 64), into: &f) }
            guard let next = ProbeBytes.add(off, size), let aligned = ProbeBytes.add(next, (8 - next % 8) % 8) else { break }
            off = aligned
        }
    }

    /// IEEE 754 80-bit extended (AIFF sample rate) to Double.
    static func extended80(_ b: [UInt8], _ i: Int) -> Double? {
        guard let se = ProbeBytes.be16(b, i), let mant = ProbeBytes.be64(b, i + 2) else { return nil }
        let exp = Int(se & 0x7FFF)
        if exp == 0 && mant == 0 { return 0 }
        if exp == 0x7FFF { return nil }
        let v = Double(mant) * pow2(exp - 16383 - 63)
        return se & 0x8000 != 0 ? -v : v
    }

    static func pow2(_ e: Int) -> Double {
        Double(sign: .plus, exponent: max(-1074, min(1023, e)), significand: 1)
    }

    static func readAIFF(_ r: ProbeReader, compressed: Bool, into f: inout ContainerFacts) throws {
        var off: UInt64 = 12
        var chunks = 0
        while off + 8 <= r.size && chunks < maxChunks {
            chunks += 1
            let h = try r.read(at: off, count: 8)
            guard let len32 = ProbeBytes.be32(h, 4) else { break }
            let id = ProbeBytes.latin1(h[0..<4])
            let body = off + 8
            let len = UInt64(len32)
            switch id {
            case "COMM":
                let p = try r.read(at: body, count: 26)
                var a = ProbeAudioParameters(format: compressed ? nil : "AIFF")
                a.channels = ProbeBytes.be16(p, 0).map { Int($0) }
                a.bitsPerSample = ProbeBytes.be16(p, 6).map { Int($0) }
                a.sampleRate = extended80(p, 8)
                if let rate = a.sampleRate, !(rate.isFinite && rate > 0 && rate < 10_000_000) { a.sampleRate = nil }
                if let frames = ProbeBytes.be32(p, 2), let sr = a.sampleRate { a.duration = Double(frames) / sr }
                var codec = "pcm"
                if compressed, let c = ProbeBytes.be32(p, 18) {
                    let cc = ProbeBytes.fourCC(c)
                    a.format = cc
                    switch cc {
                    case "NONE", "twos", "sowt", "raw ", "in24", "in32": codec = "pcm"
                    case "fl32", "FL32", "fl64", "FL64": codec = "float"
                    case "ulaw", "ULAW": codec = "mulaw"
                    case "alaw", "ALAW": codec = "alaw"
                    case "ima4": codec = "ima-adpcm"
                    default: codec = cc.lowercased()
                    }
                }
                f.audio = a
                f.codec = codec
                f.hasAudio = true
            case "NAME", "AUTH":
                let p = try r.read(at: body, count: Int(min(len, 4096)))
                let v = ProbeBytes.cleaned(ProbeBytes.latin1(p[...]))
                if id == "NAME" { f.tags.title = f.tags.title ?? v } else { f.tags.artist = f.tags.artist ?? v }
            case "ID3 ", "id3 ":
                if let tag = try ProbeID3Reader.read(r, at: body) {
                    var t = tag.tags
                    t.merge(f.tags)
                    f.tags = t
                }
            default: break
            }
            guard let next = ProbeBytes.add(body, len), let aligned = ProbeBytes.add(next, len & 1) else { break }
            off = aligned
        }
        if f.audio == nil { f.problem = f.problem ?? .malformed("it has no COMM chunk saying how its audio is stored") }
    }

    static func readCAF(_ r: ProbeReader, into f: inout ContainerFacts) throws {
        var off: UInt64 = 8
        var chunks = 0
        while off + 12 <= r.size && chunks < maxChunks {
            chunks += 1
            let h = try r.read(at: off, count: 12)
            guard let size = ProbeBytes.be64(h, 4) else { break }
            let id = ProbeBytes.latin1(h[0..<4])
            let body = off + 12
            switch id {
            case "desc":
                let p = try r.read(at: body, count: 32)
                var a = ProbeAudioParameters()
                if let bits = ProbeBytes.be64(p, 0) {
                    let sr = Double(bitPattern: bits)
                    if sr.isFinite && sr > 0 && sr < 10_000_000 { a.sampleRate = sr }
                }
                if let fmt = ProbeBytes.be32(p, 8) {
                    let cc = ProbeBytes.fourCC(fmt)
                    a.format = cc
                    let flags = ProbeBytes.be32(p, 12) ?? 0
                    switch cc {
                    case "lpcm": f.codec = flags & 1 != 0 ? "float" : "pcm"
                    case "aac ": f.codec = "aac"
                    case "alac": f.codec = "alac"
                    case ".mp3": f.codec = "mp3"
                    case "ulaw": f.codec = "mulaw"
                    case "alaw": f.codec = "alaw"
                    case "ima4": f.codec = "ima-adpcm"
                    case "opus": f.codec = "opus"
                    case "flac": f.codec = "flac"
                    default: f.codec = cc
                    }
                }
                a.channels = ProbeBytes.be32(p, 24).flatMap { $0 > 0 && $0 < 65536 ? Int($0) : nil }
                a.bitsPerSample = ProbeBytes.be32(p, 28).flatMap { $0 > 0 && $0 < 256 ? Int($0) : nil }
                f.audio = a
                f.hasAudio = true
            case "info":
                let p = try r.read(at: body, count: Int(min(size, UInt64(tagChunkCap))))
                var i = 4
                var strings: [String] = []
                while i < p.count && strings.count < 512 {
                    let end = p[i...].firstIndex(of: 0) ?? p.count
                    strings.append(ProbeBytes.utf8(p[i..<end]))
                    i = end + 1
                }
                var k = 0
                while k + 1 < strings.count {
                    let v = ProbeBytes.cleaned(strings[k + 1])
                    switch strings[k].lowercased() {
                    case "title": f.tags.title = f.tags.title ?? v
                    case "artist": f.tags.artist = f.tags.artist ?? v
                    case "album": f.tags.album = f.tags.album ?? v
                    case "genre": f.tags.genre = f.tags.genre ?? v
                    case "year", "recorded date": f.tags.year = f.tags.year ?? v
                    case "track number": f.tags.track = f.tags.track ?? v
                    default: break
                    }
                    k += 2
                }
            default: break
            }
            if size == UInt64.max { break }  // data chunk of unknown size runs to the end
            guard let next = ProbeBytes.add(body, size) else { break }
            off = next
        }
    }
}

/// Matroska/WebM EBML elements: the doctype and, from Tracks, what kinds of tracks there are.
enum ProbeEBMLReader {
    /// Variable-length integer at `i`: (value with marker removed, length); all-ones → unknown (nil value).
    static func vint(_ b: [UInt8], _ i: Int, keepMarker: Bool) -> (value: UInt64?, length: Int)? {
        guard let first = ProbeBytes.u8(b, i), first != 0 else { return nil }
        let len = first.leadingZeroBitCount + 1
        guard i + len <= b.count else { return nil }
        var v = UInt64(keepMarker ? first : first & (0xFF >> UInt8(len)))
        var allOnes = (first | ~(0xFF >> UInt8(len))) == 0xFF  // value bits all set
        for k in 1..<max(len, 1) where len > 1 {
            v = v << 8 | UInt64(b[i + k])
            if b[i + k] != 0xFF { allOnes = false }
        }
        return (keepMarker || !allOnes ? v : nil, len)
    }

    /// DocType of the EBML header at the start of `b` ("matroska", "webm").
    static func docType(_ b: [UInt8]) -> String? {
        guard let id = vint(b, 0, keepMarker: true), id.value == 0x1A45DFA3,
              let sz = vint(b, id.length, keepMarker: false) else { return nil }
        var i = id.length + sz.length
        let end = min(b.count, i + Int(min(sz.value ?? UInt64(b.count), UInt64(b.count))))
        while i < end {
            guard let cid = vint(b, i, keepMarker: true), let csz = vint(b, i + cid.length, keepMarker: false),
                  let len = csz.value, len <= UInt64(b.count) else { return nil }
            let s = i + cid.length + csz.length
            let e = s + Int(len)
            guard e <= b.count else { return nil }
            if cid.value == 0x4282 { return ProbeBytes.latin1(b[s..<e]) }
            i = e
        }
        return nil
    }

    static func read(_ r: ProbeReader, into f: inout ContainerFacts) throws {
        // Element header at offset: (id, size, header length); size nil = unknown.
        func element(_ off: UInt64) throws -> (id: UInt64, size: UInt64?, header: Int)? {
            let h = try r.read(at: off, count: 12)
            guard let id = vint(h, 0, keepMarker: true), let id0 = id.value,
                  let sz = vint(h, id.length, keepMarker: false) else { return nil }
            return (id0, sz.value, id.length + sz.length)
        }
        guard let header = try element(0), let hs = header.size else {
            f.problem = .malformed("its EBML header is damaged"); return
        }
        var off = UInt64(header.header) + hs
        var visited = 0
        // Find the Segment, then walk its top-level children until the first Cluster.
        while off < r.size && visited < 10_000 {
            visited += 1
            guard let seg = try element(off) else { return }
            let body = off + UInt64(seg.header)
            if seg.id == 0x18538067 {
                let segEnd = seg.size.flatMap { ProbeBytes.add(body, $0) }.map { min($0, r.size) } ?? r.size
                var c = body
                var tracksSeen = false
                var tagsSeen = false
                var tagsAt: UInt64?
                var info = SegmentInfo()
                while c < segEnd && visited < 10_000 {
                    visited += 1
                    guard let el = try element(c) else { break }
                    let cb = c + UInt64(el.header)
                    if el.id == 0x1F43B675 { break }  // Cluster: media data starts
                    guard let size = el.size, let ce = ProbeBytes.add(cb, size) else { break }
                    switch el.id {
                    case 0x1654AE6B:
                        tracksSeen = true
                        try readTracks(r, from: cb, to: min(ce, r.size), element: element, into: &f)
                    case 0x1549A966:
                        info = readInfo(try r.read(at: cb, count: Int(min(size, 64 * 1024))))
                    case 0x1254C367:
                        tagsSeen = true
                        readTags(try r.read(at: cb, count: Int(min(size, UInt64(tagsCap)))), into: &f.tags)
                    case 0x114D9B74:
                        // SeekHead: where the Tags are when they follow the media (mkvmerge, ffmpeg).
                        if let pos = seekPosition(of: 0x1254C367, in: try r.read(at: cb, count: Int(min(size, 64 * 1024)))) {
                            tagsAt = ProbeBytes.add(body, pos)
                        }
                    default: break
                    }
                    c = ce
                }
                if !tagsSeen, let at = tagsAt, at < r.size, let el = try element(at), el.id == 0x1254C367, let size = el.size {
                    readTags(try r.read(at: at + UInt64(el.header), count: Int(min(size, UInt64(tagsCap)))), into: &f.tags)
                }
                if let title = info.title, f.tags.title == nil { f.tags.title = title }
                if let d = info.seconds, f.audio != nil, f.audio?.duration == nil { f.audio?.duration = d }
                if tracksSeen {
                    f.hasAudio = f.hasAudio ?? false
                    f.hasVideo = f.hasVideo ?? false
                }
                return
            }
            guard let size = seg.size, let next = ProbeBytes.add(body, size) else { return }
            off = next
        }
    }

    static let tagsCap = 256 * 1024

    /// What the segment's Info element says: its title and duration.
    struct SegmentInfo {
        var title: String?
        var seconds: Double?
    }

    static func readInfo(_ p: [UInt8]) -> SegmentInfo {
        var scale: UInt64 = 1_000_000  // TimestampScale default: 1 ms, in ns
        var duration: Double?
        var out = SegmentInfo()
        children(p, 0, p.count) { id, s, e in
            switch id {
            case 0x2AD7B1: if let v = uint(p, s, e), v > 0 { scale = v }
            case 0x4489: duration = float(p, s, e)
            case 0x7BA9: out.title = ProbeBytes.cleaned(ProbeBytes.utf8(p[s..<e]))
            default: break
            }
        }
        if let d = duration {
            let seconds = d * Double(scale) / 1e9
            if seconds.isFinite && seconds > 0 { out.seconds = seconds }
        }
        return out
    }

    /// The position (from the segment's body) a SeekHead gives for element `target`.
    static func seekPosition(of target: UInt64, in p: [UInt8]) -> UInt64? {
        var found: UInt64?
        children(p, 0, p.count) { id, s, e in
            guard id == 0x4DBB, found == nil else { return }  // Seek
            var seekID: UInt64?
            var pos: UInt64?
            children(p, s, e) { cid, cs, ce in
                if cid == 0x53AB { seekID = uint(p, cs, ce) }
                if cid == 0x53AC { pos = uint(p, cs, ce) }
            }
            if seekID == target { found = pos }
        }
        return found
    }

    /// The Tags element's SimpleTags (TITLE, ARTIST, ALBUM, GENRE, DATE_RELEASED, PART_NUMBER...)
    /// into `tags`. A TITLE for the track (TargetTypeValue 30 or below) names the song; one for
    /// the album or file level (50, the default) only when nothing else does.
    static func readTags(_ p: [UInt8], into tags: inout ProbeTags) {
        children(p, 0, p.count) { id, s, e in
            guard id == 0x7373 else { return }  // Tag
            var level: UInt64 = 50
            var simple: [(String, String)] = []
            children(p, s, e) { cid, cs, ce in
                if cid == 0x63C0 {  // Targets
                    children(p, cs, ce) { tid, ts, te in if tid == 0x68CA, let v = uint(p, ts, te) { level = v } }
                } else if cid == 0x67C8 {  // SimpleTag
                    var name: String?
                    var value: String?
                    children(p, cs, ce) { sid, ss, se in
                        if sid == 0x45A3 { name = ProbeBytes.utf8(p[ss..<se]) }
                        if sid == 0x4487 { value = ProbeBytes.cleaned(ProbeBytes.utf8(p[ss..<se])) }
                    }
                    if let n = name, let v = value { simple.append((n.uppercased(), v)) }
                }
            }
            for (name, v) in simple {
                switch name {
                case "TITLE": if level <= 30 || tags.title == nil { tags.title = v }
                case "ARTIST": tags.artist = v
                case "LEAD_PERFORMER", "PERFORMER", "ALBUM_ARTIST": if tags.artist == nil { tags.artist = v }
                case "ALBUM": tags.album = v
                case "GENRE": tags.genre = v
                case "DATE_RELEASED", "DATE", "YEAR", "DATE_RECORDED": if tags.year == nil || name == "DATE_RELEASED" { tags.year = v }
                case "PART_NUMBER", "TRACK", "TRACKNUMBER": if level <= 30 || name != "PART_NUMBER" { tags.track = v }
                default: break
                }
            }
        }
    }

    /// Visits the child elements in `p[start..<end]` (one level), stopping at damage.
    static func children(_ p: [UInt8], _ start: Int, _ end: Int, _ visit: (UInt64, Int, Int) -> Void) {
        var i = start
        var n = 0
        while i < end && n < 4096 {
            n += 1
            guard let id = vint(p, i, keepMarker: true), let idv = id.value,
                  let sz = vint(p, i + id.length, keepMarker: false), let len = sz.value else { return }
            let s = i + id.length + sz.length
            guard s <= end, len <= UInt64(end - s) else { return }
            let e = s + Int(len)
            visit(idv, s, e)
            i = e
        }
    }

    static func readTracks(_ r: ProbeReader, from: UInt64, to: UInt64,
                           element: (UInt64) throws -> (id: UInt64, size: UInt64?, header: Int)?,
                           into f: inout ContainerFacts) throws {
        var off = from
        var n = 0
        while off < to && n < 1000 {
            n += 1
            guard let te = try element(off), let size = te.size, let end = ProbeBytes.add(off + UInt64(te.header), size),
                  end <= to else { break }
            if te.id == 0xAE {
                let p = try r.read(at: off + UInt64(te.header), count: Int(min(size, 64 * 1024)))
                var type: UInt64?
                var codec: String?
                var rate: Double?
                var channels: Int?
                var encrypted = false
                walkFlat(p, 0, p.count, depth: 0) { id, s, e in
                    switch id {
                    case 0x83: type = uint(p, s, e)
                    case 0x86: codec = ProbeBytes.latin1(p[s..<e])
                    case 0xB5: rate = float(p, s, e)
                    case 0x9F: channels = uint(p, s, e).map { Int(min($0, 1024)) }
                    case 0x5035: encrypted = true
                    default: break
                    }
                }
                if type == 1 { f.hasVideo = true }
                if type == 2 {
                    if f.hasAudio != true {
                        f.codec = codec.map(matroskaCodecName)
                        f.audio = ProbeAudioParameters(format: codec, sampleRate: rate, channels: channels)
                        if encrypted { f.protection = Protection(scheme: "cenc") }
                    }
                    f.hasAudio = true
                }
            }
            off = end
        }
    }

    /// Visits elements in `p[start..<end]`, descending into master elements that hold track facts.
    static func walkFlat(_ p: [UInt8], _ start: Int, _ end: Int, depth: Int, _ visit: (UInt64, Int, Int) -> Void) {
        guard depth < 8 else { return }
        var i = start
        var n = 0
        while i < end && n < 4096 {
            n += 1
            guard let id = vint(p, i, keepMarker: true), let idv = id.value,
                  let sz = vint(p, i + id.length, keepMarker: false), let len = sz.value else { return }
            let s = i + id.length + sz.length
            // The header itself may run past the parent's end: check before subtracting.
            guard s <= end, len <= UInt64(end - s) else { return }
            let e = s + Int(len)
            visit(idv, s, e)
            // Audio, ContentEncodings, ContentEncoding, ContentEncryption.
            if [0xE1, 0x6D80, 0x6240, 0x5035].contains(idv) { walkFlat(p, s, e, depth: depth + 1, visit) }
            i = e
        }
    }

    static func uint(_ p: [UInt8], _ s: Int, _ e: Int) -> UInt64? {
        guard e - s >= 1 && e - s <= 8 else { return nil }
        return p[s..<e].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    static func float(_ p: [UInt8], _ s: Int, _ e: Int) -> Double? {
        if e - s == 4, let v = ProbeBytes.be32(p, s) { return Double(Float(bitPattern: v)) }
        if e - s == 8, let v = ProbeBytes.be64(p, s) { return Double(bitPattern: v) }
        return nil
    }

    static func matroskaCodecName(_ id: String) -> String {
        switch id {
        case "A_OPUS": return "opus"
        case "A_VORBIS": return "vorbis"
        case "A_FLAC": return "flac"
        case "A_AAC": return "aac"
        case "A_MPEG/L3": return "mp3"
        case "A_AC3": return "ac-3"
        case "A_EAC3": return "ec-3"
        case "A_ALAC": return "alac"
        default: return id.hasPrefix("A_AAC") ? "aac" : id.hasPrefix("A_PCM") ? "pcm" : id.lowercased()
        }
    }
}
