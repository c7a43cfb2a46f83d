/// Streams and containers that only ffmpeg decodes here, known by their sync words rather than
/// their names (raw AC-3, E-AC-3 and DTS, MPEG transport streams, WavPack, TTA), and files of a
/// container libsndfile knows whose bytes it can't read (a WAV written to a pipe, whose sizes say
/// "unknown"; ALAC in CAF; FLAC in Ogg; MP3 behind junk bytes).
package enum ProbeRawStreams {
    /// The kind of a raw stream or transport container at the start of `b`, or nil.
    package static func sniff(_ b: [UInt8]) -> ContainerKind? {
        func m(_ i: Int, _ s: String) -> Bool { ProbeBytes.matches(b, i, s) }
        if m(0, "wvpk") { return .wavpack }
        if m(0, "TTA1") { return .tta }
        if m(0, ".snd"), b.count >= 24, let off = ProbeBytes.be32(b, 4), off >= 24 { return .au }
        if m(0, "MPCK") || (m(0, "MP+") && b.count > 3 && b[3] & 0x0F == 7) { return .musepack }
        if m(0, "FLV"), b.count >= 9, b[3] == 1 { return .flv }
        if m(0, "#!AMR") { return .amr }
        if m(0, "NIST_1A\n") { return .nist }
        if m(0, "Creative Voice File\u{1A}") { return .voc }
        if b.count >= 4, (b[0] == 0x64 && b[1] == 0xA3 && (1...4).contains(b[2]) && b[3] == 0)
            || (b[0] == 0 && (1...4).contains(b[1]) && b[2] == 0xA3 && b[3] == 0x64) { return .ircam }
        if m(0, " paf") || m(0, "fap ") { return .paf }
        if m(0, "PVF1\n") || m(0, "PVF2\n") { return .pvf }
        if m(0, "2BIT") { return .avr }
        if ProbeBytes.matches(b, 0, [0x00, 0x00, 0x01, 0xBA]) { return .mpegps }
        if m(0, ".RMF") { return .realmedia }
        if b.count >= 3 * 188, b[0] == 0x47, b[188] == 0x47, b[376] == 0x47 { return .mpegts }
        if b.count >= 4 + 3 * 192, b[4] == 0x47, b[196] == 0x47, b[388] == 0x47 { return .mpegts }
        if ProbeBytes.matches(b, 0, [0x7F, 0xFE, 0x80, 0x01]) { return .dts }
        if ProbeBytes.matches(b, 0, [0x0B, 0x77]), b.count >= 8, let next = syncAgain(b, [0x0B, 0x77]), next > 0 {
            let bsid = b[5] >> 3
            if bsid <= 10 { return .ac3 }
            if bsid <= 16 { return .eac3 }
        }
        return nil
    }

    /// Where the sync word appears again after the start (a second frame), or nil.
    private static func syncAgain(_ b: [UInt8], _ sync: [UInt8]) -> Int? {
        var i = 2
        while i + sync.count <= b.count {
            if b[i] == sync[0] && ProbeBytes.matches(b, i, sync) { return i }
            i += 1
        }
        return nil
    }

    /// The facts the first frame header of a raw stream states (codec, rate, channels, and for
    /// TTA the length), in ffmpeg's codec names.
    package static func read(_ r: ProbeReader, kind: ContainerKind, into f: inout ContainerFacts) throws {
        let b = try r.read(at: 0, count: 64)
        // A transport or program stream, or RealMedia, may hold video and audio: ffprobe says.
        let muxed = kind == .mpegts || kind == .mpegps || kind == .realmedia
        f.hasVideo = muxed ? nil : false
        f.hasAudio = muxed ? nil : true
        switch kind {
        case .ac3, .eac3:
            readAC3(b, eac3: kind == .eac3, into: &f)
        case .dts:
            f.codec = "dts"
            f.audio = ProbeRawStreamHeaders.dts(b)
        case .wavpack:
            f.codec = "wavpack"
            f.audio = try ProbeRawStreamHeaders.wavpack(r)
        case .mpegts:
            if let ts = try ProbeRawStreamHeaders.mpegts(r) {
                f.codec = ts.codec
                f.audio = ts.audio
            }
        case .au:
            readAU(b, size: r.size, into: &f)
        case .musepack:
            f.codec = ProbeBytes.matches(b, 0, "MPCK") ? "musepack8" : "musepack7"
        case .flv:
            // The header's flags say whether it has audio (4) and video (1) tags.
            f.hasAudio = b[4] & 4 != 0
            f.hasVideo = b[4] & 1 != 0
        case .amr:
            let wide = ProbeBytes.matches(b, 0, "#!AMR-WB")
            f.codec = wide ? "amr_wb" : "amr_nb"
            f.audio = ProbeAudioParameters(format: f.codec, sampleRate: wide ? 16000 : 8000, channels: 1)
        case .tta:
            f.codec = "tta"
            if let ch = ProbeBytes.le16(b, 6), let bits = ProbeBytes.le16(b, 8), let sr = ProbeBytes.le32(b, 10),
               let frames = ProbeBytes.le32(b, 14), sr > 0 {
                var a = ProbeAudioParameters(format: "tta", sampleRate: Double(sr), channels: Int(ch), bitsPerSample: Int(bits))
                a.duration = Double(frames) / Double(sr)
                f.audio = a
            }
        default:
            break
        }
    }

    /// A Sun/NeXT AU header (big-endian: data offset, data size or 0xFFFFFFFF, encoding, rate,
    /// channels): codec in ffmpeg's names, and the length when the size is stated.
    package static func readAU(_ b: [UInt8], size: UInt64, into f: inout ContainerFacts) {
        guard let off = ProbeBytes.be32(b, 4), let bytes = ProbeBytes.be32(b, 8), let enc = ProbeBytes.be32(b, 12),
              let rate = ProbeBytes.be32(b, 16), let ch = ProbeBytes.be32(b, 20) else { return }
        let codecs: [UInt32: (String, Int)] = [1: ("pcm_mulaw", 8), 2: ("pcm_s8", 8), 3: ("pcm_s16be", 16), 4: ("pcm_s24be", 24),
                                               5: ("pcm_s32be", 32), 6: ("pcm_f32be", 32), 7: ("pcm_f64be", 64), 27: ("pcm_alaw", 8)]
        let c = codecs[enc]
        f.codec = c?.0 ?? "au-\(enc)"
        var a = ProbeAudioParameters(format: "au", sampleRate: rate > 0 ? Double(rate) : nil, channels: ch > 0 ? Int(ch) : nil,
                                     bitsPerSample: c?.1)
        if let bits = c?.1, rate > 0, ch > 0 {
            let data = bytes == 0xFFFF_FFFF ? (size > UInt64(off) ? size - UInt64(off) : 0) : min(UInt64(bytes), size > UInt64(off) ? size - UInt64(off) : 0)
            a.duration = Double(data / (UInt64(ch) * UInt64(bits / 8))) / Double(rate)
        }
        f.audio = a
    }

    /// An AC-3 or E-AC-3 frame header at the start of `b`: codec, rate and channels.
    package static func readAC3(_ b: [UInt8], eac3: Bool, into f: inout ContainerFacts) {
        guard b.count >= 8 else { return }
        f.codec = eac3 ? "eac3" : "ac3"
        var a = ProbeAudioParameters(format: f.codec)
        let fscod = Int(b[4] >> 6)
        if !eac3 {
            a.sampleRate = fscod < 3 ? [48000, 44100, 32000][fscod] : nil
            // acmod, then the mix levels it implies, then lfeon (ATSC A/52 table 5.1).
            var bits = UInt32(b[6]) << 8 | UInt32(b[7])
            let acmod = Int(bits >> 13); bits <<= 3
            if acmod & 1 != 0 && acmod != 1 { bits <<= 2 }
            if acmod & 4 != 0 { bits <<= 2 }
            if acmod == 2 { bits <<= 2 }
            let lfe = (bits >> 15) & 1
            a.channels = [2, 1, 2, 3, 3, 4, 4, 5][acmod] + Int(lfe)
        } else {
            let fscod2 = Int(b[4] >> 4) & 3
            a.sampleRate = fscod < 3 ? [48000, 44100, 32000][fscod] : fscod2 < 3 ? [24000, 22050, 16000][fscod2] : nil
            let acmod = Int(b[4] >> 1) & 7
            a.channels = [2, 1, 2, 3, 3, 4, 4, 5][acmod] + Int(b[4] & 1)
        }
        f.audio = a
    }

    /// The samples a raw AC-3, E-AC-3 or DTS stream decodes to, walking its frame headers to the
    /// end of the file (these streams state no length); nil when the walk stops at bytes that
    /// are no frame of the stream, or for another kind.
    package static func countSamples(_ r: ProbeReader, kind: ContainerKind) throws -> Int? {
        var off: UInt64 = 0, samples = 0
        while off + 12 <= r.size {
            let b = try r.read(at: off, count: 12)
            guard let (bytes, n) = frame(b, kind: kind), bytes > 0 else { break }
            samples += n
            off += UInt64(bytes)
        }
        let rest = try r.read(at: off, count: 3)
        guard r.size - off < 12 || ProbeBytes.matches(rest, 0, "TAG") else { return nil }
        return samples > 0 ? samples : nil
    }

    /// One frame's length in bytes and the samples it adds, from its header at the start of `b`.
    private static func frame(_ b: [UInt8], kind: ContainerKind) -> (Int, Int)? {
        switch kind {
        case .ac3, .eac3:
            guard b[0] == 0x0B, b[1] == 0x77 else { return nil }
            let bsid = b[5] >> 3
            if bsid > 10 {
                // E-AC-3: strmtyp 2, substreamid 3, frmsiz 11 (words - 1), fscod 2, numblkscod 2.
                let strmtyp = b[2] >> 6, words = (Int(b[2] & 7) << 8 | Int(b[3])) + 1
                let fscod = b[4] >> 6, blocks = fscod == 3 ? 6 : [1, 2, 3, 6][Int(b[4] >> 4) & 3]
                // Dependent substreams (strmtyp 1) and other programmes' substreams add no time.
                let independent = strmtyp != 1 && (b[2] >> 3) & 7 == 0
                return (words * 2, independent ? 256 * blocks : 0)
            }
            // AC-3: fscod 2, frmsizecod 6; 1536 samples a frame.
            let fscod = Int(b[4] >> 6), code = Int(b[4] & 0x3F)
            guard fscod < 3, code < 38 else { return nil }
            let kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][code / 2]
            let words = fscod == 0 ? 2 * kbps : fscod == 2 ? 3 * kbps : kbps * 1000 * 1536 / 44100 / 16 + (code & 1)
            return (words * 2, 1536)
        case .dts:
            guard ProbeBytes.matches(b, 0, [0x7F, 0xFE, 0x80, 0x01]) else { return nil }
            // FTYPE 1, SHORT 5, CPF 1, NBLKS 7, FSIZE 14: (NBLKS + 1) blocks of 32 samples, FSIZE + 1 bytes.
            let v = UInt32(b[4]) << 24 | UInt32(b[5]) << 16 | UInt32(b[6]) << 8 | UInt32(b[7])
            let nblks = Int(v >> 18) & 0x7F, fsize = Int(v >> 4) & 0x3FFF
            guard fsize >= 95 else { return nil }
            return (fsize + 1, (nblks + 1) * 32)
        default:
            return nil
        }
    }

    /// A compressed bitstream carried in 16-bit PCM (IEC 61937, as S/PDIF captures and DVD rips
    /// hold AC-3, E-AC-3 and DTS in a WAV): the burst preamble Pa = 0xF872, Pb = 0x4E1F in the
    /// first 64 KiB of the data chunk, its data type (Pc), and the codec's own header in the
    /// burst (words byte-swapped back). Nil for a WAV holding PCM.
    package static func iec61937(_ r: ProbeReader) throws -> (codec: String, audio: ProbeAudioParameters?)? {
        var off: UInt64 = 12
        for _ in 0..<64 {
            let h = try r.read(at: off, count: 8)
            guard h.count == 8, let len = ProbeBytes.le32(h, 4) else { return nil }
            if ProbeBytes.matches(h, 0, "data") {
                let b = try r.read(at: off + 8, count: 65536)
                var i = 0
                while i + 8 <= b.count {
                    if b[i] == 0x72, b[i + 1] == 0xF8, b[i + 2] == 0x1F, b[i + 3] == 0x4E {
                        return burst(Array(b[(i + 4)...]))
                    }
                    i += 2
                }
                return nil
            }
            off += 8 + UInt64(len) + UInt64(len & 1)
            if off >= r.size { return nil }
        }
        return nil
    }

    /// What an IEC 61937 burst holds, from Pc (data type in its low 5 bits) and the payload after Pd.
    private static func burst(_ b: [UInt8]) -> (codec: String, audio: ProbeAudioParameters?)? {
        guard b.count >= 4 else { return nil }
        let type = Int(b[0]) & 0x1F
        // The payload's 16-bit words are little-endian samples: swap them back to the codec's bytes.
        var p = [UInt8](repeating: 0, count: min(64, (b.count - 4) & ~1))
        for k in stride(from: 0, to: p.count, by: 2) { p[k] = b[4 + k + 1]; p[k + 1] = b[4 + k] }
        switch type {
        case 1, 21:
            var f = ContainerFacts(kind: .wav, container: "wav", fileSize: 0)
            readAC3(p, eac3: type == 21, into: &f)
            return (type == 21 ? "eac3" : "ac3", f.audio)
        case 11, 12, 13, 17: return ("dts", ProbeRawStreamHeaders.dts(p))
        case 7: return ("aac", nil)
        case 22: return ("truehd", nil)
        case 4, 5, 6, 8, 9, 10:
            let h = ProbeMPEGHeader(p, at: 0)
            return (h?.codecName ?? "mp2", h.map { ProbeAudioParameters(format: $0.codecName, sampleRate: Double($0.sampleRate), channels: $0.channels) })
        default: return ("iec61937-\(type)", nil)
        }
    }

    /// Whether a WAV's sizes say "unknown" (0xFFFFFFFF or 0 with audio after the header, as a
    /// program writing to a pipe leaves them): such a file is read to its end, not called cut off.
    package static func isStreamedWAV(_ r: ProbeReader) throws -> Bool {
        let head = try r.read(at: 0, count: 12)
        guard let riff = ProbeBytes.le32(head, 4) else { return false }
        var off: UInt64 = 12
        for _ in 0..<64 {
            let h = try r.read(at: off, count: 8)
            guard h.count == 8, let len = ProbeBytes.le32(h, 4) else { return false }
            if ProbeBytes.matches(h, 0, "data") {
                let audioAfter = r.size > off + 8
                return audioAfter && (len == 0xFFFF_FFFF || len == 0 || riff == 0xFFFF_FFFF || riff == 0)
            }
            off += 8 + UInt64(len) + UInt64(len & 1)
            if off >= r.size { return false }
        }
        return false
    }

    /// A frame of MPEG audio somewhere in the first 64 KiB with two more consistent frames right
    /// behind it: an MP3 whose first frame follows junk (a broken tag, a partial download's
    /// leftovers) that players skip. Nil when there is no such run of frames.
    package static func mpegAfterJunk(_ r: ProbeReader) throws -> UInt64? {
        var from: UInt64 = 0
        let end: UInt64 = min(r.size, 65536)
        while from < end {
            guard let f = try ProbeMPEGScan.findMPEG(r, from: from, window: Int(end - from), requireSecond: true) else { return nil }
            let second = f.offset + UInt64(f.header.frameLength)
            if let h2 = ProbeMPEGHeader(try r.read(at: second, count: 4), at: 0), f.header.isConsistent(with: h2),
               let h3 = ProbeMPEGHeader(try r.read(at: second + UInt64(h2.frameLength), count: 4), at: 0), h2.isConsistent(with: h3) {
                return f.offset
            }
            from = f.offset + 1
        }
        return nil
    }
}
