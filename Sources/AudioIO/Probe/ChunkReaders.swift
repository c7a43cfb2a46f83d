/// RIFF/RF64/W64 WAV, AIFF/AIFC and CAF: chunk walks for the format chunk and tag chunks.
package enum ProbeChunkReaders {
    package static let maxChunks = 10_000
    package static let tagChunkCap = 64 * 1024

    package static func wavCodec(_ tag: UInt16) -> String {
        switch tag {
        case 1: return "pcm"
        case 3: return "float"
        case 2: return "adpcm_ms"
        case 6: return "pcm_alaw"
        case 7: return "pcm_mulaw"
        case 0x11: return "adpcm_ima_wav"
        case 0x31: return "gsm_ms"
        case 0x2000: return "ac3"
        case 0x2001: return "dts"
        case 0x50: return "mp2"
        case 0x55: return "mp3"
        case 0xFF, 0x1610, 0x1600: return "aac"
        case 0x160: return "wmav1"
        case 0x161: return "wmav2"
        case 0x162: return "wmapro"
        case 0x163: return "wmalossless"
        default:
            let hex = String(tag, radix: 16)
            return "wav-0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// Parses a WAVE fmt chunk payload (WAVE_FORMAT_EXTENSIBLE resolves to its sub-format).
    package static func wavFormat(_ p: [UInt8], into f: inout ContainerFacts) {
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
    package static func riffInfo(_ p: ArraySlice<UInt8>) -> ProbeTags {
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

    package static func readWAV(_ r: ProbeReader, rf64: Bool, into f: inout ContainerFacts) throws {
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
            case "fact":
                if len >= 4, let n = ProbeBytes.le32(try r.read(at: body, count: 4), 0) { f.wavFactFrames = UInt64(n) }
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
           ["pcm", "float", "pcm_alaw", "pcm_mulaw"].contains(f.codec ?? "") {
            let frameBytes = UInt64(ch) * UInt64((bits + 7) / 8)
            if frameBytes > 0 { a.duration = Double(d / frameBytes) / sr; f.audio = a }
        }
    }

    package static func readW64(_ r: ProbeReader, into f: inout ContainerFacts) throws {
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
    package static func extended80(_ b: [UInt8], _ i: Int) -> Double? {
        guard let se = ProbeBytes.be16(b, i), let mant = ProbeBytes.be64(b, i + 2) else { return nil }
        let exp = Int(se & 0x7FFF)
        if exp == 0 && mant == 0 { return 0 }
        if exp == 0x7FFF { return nil }
        let v = Double(mant) * pow2(exp - 16383 - 63)
        return se & 0x8000 != 0 ? -v : v
    }

    package static func pow2(_ e: Int) -> Double {
        Double(sign: .plus, exponent: max(-1074, min(1023, e)), significand: 1)
    }

    package static func readAIFF(_ r: ProbeReader, compressed: Bool, into f: inout ContainerFacts) throws {
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
                    case "ulaw", "ULAW": codec = "pcm_mulaw"
                    case "alaw", "ALAW": codec = "pcm_alaw"
                    case "ima4": codec = "adpcm_ima_qt"
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

    package static func readCAF(_ r: ProbeReader, into f: inout ContainerFacts) throws {
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
                    case "ulaw": f.codec = "pcm_mulaw"
                    case "alaw": f.codec = "pcm_alaw"
                    case "ima4": f.codec = "adpcm_ima_qt"
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
