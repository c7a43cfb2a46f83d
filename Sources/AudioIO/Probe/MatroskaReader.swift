/// Matroska/WebM EBML elements: the doctype and, from Tracks, what kinds of tracks there are.
package enum MatroskaReader {
    /// Variable-length integer at `i`: (value with marker removed, length); all-ones → unknown (nil value).
    package static func vint(_ b: [UInt8], _ i: Int, keepMarker: Bool) -> (value: UInt64?, length: Int)? {
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
    package static func docType(_ b: [UInt8]) -> String? {
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

    package static func read(_ r: ProbeReader, into f: inout ContainerFacts) throws {
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
                var audioUID: UInt64?
                var trackSeconds: [UInt64: Double] = [:]
                while c < segEnd && visited < 10_000 {
                    visited += 1
                    guard let el = try element(c) else { break }
                    let cb = c + UInt64(el.header)
                    if el.id == 0x1F43B675 { break }  // Cluster: media data starts
                    guard let size = el.size, let ce = ProbeBytes.add(cb, size) else { break }
                    switch el.id {
                    case 0x1654AE6B:
                        tracksSeen = true
                        try readTracks(r, from: cb, to: min(ce, r.size), element: element, into: &f, audioUID: &audioUID)
                    case 0x1549A966:
                        info = readInfo(try r.read(at: cb, count: Int(min(size, 64 * 1024))))
                    case 0x1254C367:
                        tagsSeen = true
                        readTags(try r.read(at: cb, count: Int(min(size, UInt64(tagsCap)))), into: &f.tags, trackSeconds: &trackSeconds)
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
                    readTags(try r.read(at: at + UInt64(el.header), count: Int(min(size, UInt64(tagsCap)))), into: &f.tags,
                             trackSeconds: &trackSeconds)
                }
                if let title = info.title, f.tags.title == nil { f.tags.title = title }
                // The audio track's own DURATION tag (ffmpeg and mkvmerge write one per track) over
                // the segment's Duration, which is the longest track's (a longer video's).
                if let uid = audioUID, let d = trackSeconds[uid], f.audio != nil { f.audio?.duration = d }
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

    package static let tagsCap = 256 * 1024

    /// What the segment's Info element says: its title and duration.
    package struct SegmentInfo {
        package var title: String?
        package var seconds: Double?
    }

    package static func readInfo(_ p: [UInt8]) -> SegmentInfo {
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
    package static func seekPosition(of target: UInt64, in p: [UInt8]) -> UInt64? {
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
    /// A track's DURATION tag (`HH:MM:SS.nnnnnnnnn`) goes to `trackSeconds`, by the TrackUID it targets.
    package static func readTags(_ p: [UInt8], into tags: inout ProbeTags, trackSeconds: inout [UInt64: Double]) {
        children(p, 0, p.count) { id, s, e in
            guard id == 0x7373 else { return }  // Tag
            var level: UInt64 = 50
            var trackUIDs: [UInt64] = []
            var simple: [(String, String)] = []
            children(p, s, e) { cid, cs, ce in
                if cid == 0x63C0 {  // Targets
                    children(p, cs, ce) { tid, ts, te in
                        if tid == 0x68CA, let v = uint(p, ts, te) { level = v }
                        if tid == 0x63C5, let v = uint(p, ts, te) { trackUIDs.append(v) }
                    }
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
            if trackUIDs.count == 1, let d = simple.first(where: { $0.0 == "DURATION" }).flatMap({ clockSeconds($0.1) }) {
                trackSeconds[trackUIDs[0]] = d
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

    /// Seconds from `HH:MM:SS.fraction`, or nil when it isn't that.
    package static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let sec = Double(parts[2]),
              h >= 0, m >= 0, m < 60, sec >= 0, sec < 60 else { return nil }
        let v = Double(h * 3600 + m * 60) + sec
        return v > 0 && v.isFinite ? v : nil
    }

    /// Visits the child elements in `p[start..<end]` (one level), stopping at damage.
    package static func children(_ p: [UInt8], _ start: Int, _ end: Int, _ visit: (UInt64, Int, Int) -> Void) {
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

    package static func readTracks(_ r: ProbeReader, from: UInt64, to: UInt64,
                           element: (UInt64) throws -> (id: UInt64, size: UInt64?, header: Int)?,
                           into f: inout ContainerFacts, audioUID: inout UInt64?) throws {
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
                var uid: UInt64?
                walkFlat(p, 0, p.count, depth: 0) { id, s, e in
                    switch id {
                    case 0x83: type = uint(p, s, e)
                    case 0x86: codec = ProbeBytes.latin1(p[s..<e])
                    case 0xB5: rate = float(p, s, e)
                    case 0x9F: channels = uint(p, s, e).map { Int(min($0, 1024)) }
                    case 0x5035: encrypted = true
                    case 0x73C5: uid = uint(p, s, e)
                    default: break
                    }
                }
                if type == 1 { f.hasVideo = true }
                if type == 2 {
                    if f.hasAudio != true {
                        f.codec = codec.map(matroskaCodecName)
                        f.audio = ProbeAudioParameters(format: codec, sampleRate: rate, channels: channels)
                        if encrypted { f.protection = Protection(scheme: "cenc") }
                        audioUID = uid
                    }
                    f.hasAudio = true
                }
            }
            off = end
        }
    }

    /// Visits elements in `p[start..<end]`, descending into master elements that hold track facts.
    package static func walkFlat(_ p: [UInt8], _ start: Int, _ end: Int, depth: Int, _ visit: (UInt64, Int, Int) -> Void) {
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

    package static func uint(_ p: [UInt8], _ s: Int, _ e: Int) -> UInt64? {
        guard e - s >= 1 && e - s <= 8 else { return nil }
        return p[s..<e].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    package static func float(_ p: [UInt8], _ s: Int, _ e: Int) -> Double? {
        if e - s == 4, let v = ProbeBytes.be32(p, s) { return Double(Float(bitPattern: v)) }
        if e - s == 8, let v = ProbeBytes.be64(p, s) { return Double(bitPattern: v) }
        return nil
    }

    package static func matroskaCodecName(_ id: String) -> String {
        switch id {
        case "A_OPUS": return "opus"
        case "A_VORBIS": return "vorbis"
        case "A_FLAC": return "flac"
        case "A_AAC": return "aac"
        case "A_MPEG/L3": return "mp3"
        case "A_AC3": return "ac3"
        case "A_EAC3": return "eac3"
        case "A_ALAC": return "alac"
        case "A_DTS", "A_DTS/EXPRESS", "A_DTS/LOSSLESS": return "dts"
        case "A_TRUEHD": return "truehd"
        case "A_MPEG/L2": return "mp2"
        case "A_MPEG/L1": return "mp1"
        case "A_WAVPACK4": return "wavpack"
        case "A_TTA1": return "tta"
        default: return id.hasPrefix("A_AAC") ? "aac" : id.hasPrefix("A_PCM") ? "pcm" : id.lowercased()
        }
    }
}
