import Foundation

/// ASF (WMA/WMV) header objects: which streams exist, whether Windows Media DRM is present, the
/// audio's rate, channels and bit rate (Stream Properties), the play duration (File Properties),
/// and the title/author of the Content Description object.
package enum ProbeASFReader {
    /// GUID text ("F8699E40-5B4D-...") to its on-disk byte order (first three fields little-endian).
    package static func guid(_ s: String) -> [UInt8] {
        let hex = s.filter { $0 != "-" }
        var raw = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            raw.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        guard raw.count == 16 else { return raw }
        return [raw[3], raw[2], raw[1], raw[0], raw[5], raw[4], raw[7], raw[6]] + raw[8...]
    }

    package static let streamProperties = guid("B7DC0791-A9B7-11CF-8EE6-00C00C205365")
    package static let audioMedia = guid("F8699E40-5B4D-11CF-A8FD-00805F5C442B")
    package static let videoMedia = guid("BC19EFC0-5B4D-11CF-A8FD-00805F5C442B")
    package static let fileProperties = guid("8CABDCA1-A947-11CF-8EE4-00C00C205365")
    package static let extendedContentDescription = guid("D2D0A440-E307-11D2-97F0-00A0C95EA850")
    package static let contentDescription = guid("75B22633-668E-11CF-A6D9-00AA0062CE6C")
    package static let drmObjects = [
        guid("2211B3FB-BD23-11D2-B4B7-00A0C955FC6E"),  // Content Encryption (WMDRM v1)
        guid("298AE614-2622-4C17-B935-DAE07EE9289C"),  // Extended Content Encryption (WMDRM v7+)
        guid("43058533-6981-49E6-9B74-AD12CB86D58C"),  // Advanced Content Encryption (PlayReady)
    ]
    package static let headerCap = 256 * 1024

    /// The Extended Content Description's name/value pairs that carry tags (WM/AlbumTitle,
    /// WM/Genre, WM/Year, WM/TrackNumber...): count, then (name length, UTF-16LE name, value type,
    /// value length, value). Text fills only what the Content Description left empty.
    package static func readExtendedContent(_ p: [UInt8], into tags: inout ProbeTags) {
        guard let count = ProbeBytes.le16(p, 0) else { return }
        var i = 2
        for _ in 0..<min(Int(count), 512) {
            guard let nl = ProbeBytes.le16(p, i), i + 2 + Int(nl) + 4 <= p.count else { return }
            let name = ProbeID3Reader.utf16(p[(i + 2)..<(i + 2 + Int(nl))], defaultBigEndian: false)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\u{0}"))
            let at = i + 2 + Int(nl)
            guard let type = ProbeBytes.le16(p, at), let vl = ProbeBytes.le16(p, at + 2), at + 4 + Int(vl) <= p.count else { return }
            let v = p[(at + 4)..<(at + 4 + Int(vl))]
            let text: String?
            switch type {
            case 0: text = ProbeBytes.cleaned(ProbeID3Reader.utf16(v, defaultBigEndian: false))
            case 3: text = ProbeBytes.le32(Array(v), 0).map { String($0) }
            case 5: text = ProbeBytes.le16(Array(v), 0).map { String($0) }
            default: text = nil
            }
            i = at + 4 + Int(vl)
            guard let t = text else { continue }
            switch name.lowercased() {
            case "wm/albumtitle": tags.album = tags.album ?? t
            case "wm/genre": tags.genre = tags.genre ?? t
            case "wm/year", "date": tags.year = tags.year ?? t
            case "wm/tracknumber": tags.track = t
            case "wm/track": if tags.track == nil, let n = Int(t) { tags.track = String(n + 1) }  // 0-based
            case "wm/albumartist", "author": tags.artist = tags.artist ?? t
            default: break
            }
        }
    }

    package static func read(_ r: ProbeReader, into f: inout ContainerFacts) throws {
        let h = try r.read(at: 0, count: 30)
        guard let headerSize = ProbeBytes.le64(h, 16), headerSize >= 30 else {
            f.problem = .malformed("its ASF header is damaged"); return
        }
        guard headerSize <= r.size else {
            f.problem = .truncated("the file ends inside its ASF header"); return
        }
        let end = min(headerSize, UInt64(headerCap))
        var off: UInt64 = 30
        var objects = 0
        var sawStream = false
        var playSeconds: Double?
        while off + 24 <= end && objects < 10_000 {
            objects += 1
            let oh = try r.read(at: off, count: 24)
            guard let size = ProbeBytes.le64(oh, 16), size >= 24, let next = ProbeBytes.add(off, size) else {
                f.problem = .malformed("an ASF header object has an impossible size"); return
            }
            let id = Array(oh[0..<16])
            if id == streamProperties {
                let p = try r.read(at: off + 24, count: 16 + 16 + 8 + 4 + 4 + 2 + 4 + 18)
                let type = Array(p.prefix(16))
                sawStream = true
                if type == audioMedia {
                    if f.hasAudio != true {
                        // Type-specific data (WAVEFORMATEX) follows the 54 fixed bytes.
                        let wf = Array(p.dropFirst(54))
                        if let tag = ProbeBytes.le16(wf, 0) {
                            f.codec = ProbeChunkReaders.wavCodec(tag)
                            f.audio = ProbeAudioParameters(format: "asf 0x" + String(tag, radix: 16),
                                                           sampleRate: ProbeBytes.le32(wf, 4).map(Double.init),
                                                           channels: ProbeBytes.le16(wf, 2).map(Int.init),
                                                           bitsPerSample: ProbeBytes.le16(wf, 14).map(Int.init))
                            // nAvgBytesPerSec: what the encoder states for the stream.
                            f.audio?.bitRate = ProbeBytes.le32(wf, 8).flatMap { $0 > 0 ? Int($0) * 8 : nil }
                        }
                    }
                    f.hasAudio = true
                } else if type == videoMedia {
                    f.hasVideo = true
                }
            } else if id == fileProperties {
                // File ID 16, File Size 8, Creation Date 8, Data Packets 8, Play Duration 8 (100 ns),
                // Send Duration 8, Preroll 8 (ms), Flags 4 (bit 0: broadcast, durations unknown).
                let p = try r.read(at: off + 24, count: 80)
                if let play = ProbeBytes.le64(p, 40), let preroll = ProbeBytes.le64(p, 56), let flags = ProbeBytes.le32(p, 64),
                   flags & 1 == 0, play > 0 {
                    let s = Double(play) / 10_000_000 - Double(preroll) / 1000
                    if s > 0 && s.isFinite { playSeconds = s }
                }
            } else if id == extendedContentDescription {
                readExtendedContent(try r.read(at: off + 24, count: Int(min(size - 24, 64 * 1024))), into: &f.tags)
            } else if drmObjects.contains(id) {
                f.protection = Protection(scheme: "wmdrm")
            } else if id == contentDescription {
                let p = try r.read(at: off + 24, count: Int(min(size - 24, 4096)))
                if let tl = ProbeBytes.le16(p, 0), let al = ProbeBytes.le16(p, 2) {
                    let t0 = 10, a0 = 10 + Int(tl)
                    if a0 <= p.count { f.tags.title = ProbeBytes.cleaned(ProbeID3Reader.utf16(p[t0..<a0], defaultBigEndian: false)) }
                    if a0 + Int(al) <= p.count { f.tags.artist = ProbeBytes.cleaned(ProbeID3Reader.utf16(p[a0..<(a0 + Int(al))], defaultBigEndian: false)) }
                }
            }
            off = next
        }
        if let s = playSeconds, f.audio != nil, f.audio?.duration == nil { f.audio?.duration = s }
        if sawStream {
            f.hasAudio = f.hasAudio ?? false
            f.hasVideo = f.hasVideo ?? false
        }
    }
}
