/// What the first headers of a raw DTS stream, a WavPack file and an MPEG transport stream state,
/// read without decoding: the codec (a transport stream's from its program map), the sample
/// rate and channel count (and WavPack's length), named as ffmpeg names them.
package enum ProbeRawStreamHeaders {
    /// The DTS core frame header after the 0x7FFE8001 sync: rate (SFREQ), channels (AMODE plus
    /// the LFE, plus the back centre of an XCh extension), as ffmpeg's decoder gives them.
    package static func dts(_ b: [UInt8], at i: Int = 0) -> ProbeAudioParameters? {
        guard b.count >= i + 11, ProbeBytes.matches(b, i, [0x7F, 0xFE, 0x80, 0x01]) else { return nil }
        var bits = BitReader(b, from: i + 4)
        bits.skip(1 + 5 + 1 + 7 + 14)             // FTYPE, SHORT, CPF, NBLKS, FSIZE
        let amode = bits.read(6), sfreq = bits.read(4)
        bits.skip(5 + 1 + 1 + 1 + 1 + 1)          // RATE, MIX, DYNF, TIMEF, AUXF, HDCD
        let extID = bits.read(3), ext = bits.read(1)
        bits.skip(1)                              // ASPF
        let lff = bits.read(2)
        let rates = [0, 8000, 16000, 32000, 0, 0, 11025, 22050, 44100, 0, 0, 12000, 24000, 48000, 0, 0]
        let channels = [1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 6, 6, 6, 7, 8, 8]
        var a = ProbeAudioParameters(format: "dts")
        if rates[sfreq] > 0 { a.sampleRate = Double(rates[sfreq]) }
        if amode < 16 { a.channels = channels[amode] + (lff != 0 ? 1 : 0) + (ext == 1 && extID == 0 ? 1 : 0) }
        return a
    }

    /// The first WavPack block header: rate (a table index, or the sample-rate metadata for a
    /// rate outside it), channels (the blocks of the first frame, mono or stereo each), length
    /// (total samples, when stated).
    package static func wavpack(_ r: ProbeReader) throws -> ProbeAudioParameters? {
        let b = try r.read(at: 0, count: 32)
        guard b.count == 32, ProbeBytes.matches(b, 0, "wvpk"), let flags = ProbeBytes.le32(b, 24),
              let total32 = ProbeBytes.le32(b, 12), let size = ProbeBytes.le32(b, 4) else { return nil }
        let rates = [6000, 8000, 9600, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000, 192000]
        let index = Int((flags >> 23) & 0xF)
        var a = ProbeAudioParameters(format: "wavpack")
        if index < rates.count {
            a.sampleRate = Double(rates[index])
        } else if let rate = try wavpackRateMetadata(r, blockSize: Int(size)) {
            a.sampleRate = Double(rate)
        }
        // Channels: one frame is blocks from the initial one (flag 0x800) to the final (0x1000).
        var channels = 0, off: UInt64 = 0
        for _ in 0..<64 {
            let h = try r.read(at: off, count: 32)
            guard h.count == 32, ProbeBytes.matches(h, 0, "wvpk"), let f = ProbeBytes.le32(h, 24),
                  let s = ProbeBytes.le32(h, 4) else { channels = 0; break }
            channels += f & 0x4 != 0 ? 1 : 2
            if f & 0x1000 != 0 { break }
            off += 8 + UInt64(s)
        }
        if channels > 0 { a.channels = channels }
        // Total samples: 32 bits, and 8 more in byte 11 (WavPack 5); all ones means unknown.
        if total32 != 0xFFFF_FFFF, let rate = a.sampleRate {
            let total = UInt64(total32) | UInt64(b[11]) << 32
            a.duration = Double(total) / rate
        }
        return a
    }

    /// The rate in the first block's sample-rate metadata (id 0x27), for rates outside the table.
    private static func wavpackRateMetadata(_ r: ProbeReader, blockSize: Int) throws -> Int? {
        let block = try r.read(at: 0, count: min(8 + blockSize, 4096))
        var i = 32
        while i + 2 <= block.count {
            let id = block[i]
            var len: Int, data: Int
            if id & 0x80 != 0 {
                guard i + 4 <= block.count else { return nil }
                len = (Int(block[i + 1]) | Int(block[i + 2]) << 8 | Int(block[i + 3]) << 16) * 2; data = i + 4
            } else {
                len = Int(block[i + 1]) * 2; data = i + 2
            }
            let actual = id & 0x40 != 0 ? len - 1 : len
            if id & 0x3F == 0x27, actual >= 3, data + 3 <= block.count {
                return Int(block[data]) | Int(block[data + 1]) << 8 | Int(block[data + 2]) << 16
            }
            i = data + len
        }
        return nil
    }

    /// The first audio stream of a transport stream's first program (PAT, then its PMT): its codec
    /// by stream type (and, for private data, by its descriptors), and the rate and channels of
    /// the frame header that starts its first PES packet.
    package static func mpegts(_ r: ProbeReader) throws -> (codec: String, audio: ProbeAudioParameters?)? {
        let head = try r.read(at: 0, count: 4 + 3 * 192)
        let stride = head.count >= 3 * 188 && head[0] == 0x47 && head[188] == 0x47 ? 188 : 192
        let lead = stride == 192 ? 4 : 0     // M2TS: a 4-byte timestamp before each packet
        var pmtPID: Int?, audio: (pid: Int, codec: String)?
        var payloadStart: [UInt8]?
        let limit = min(r.size, 1 << 20)
        var off: UInt64 = 0
        while off + UInt64(stride) <= limit {
            let p = try r.read(at: off + UInt64(lead), count: 188)
            off += UInt64(stride)
            guard p.count == 188, p[0] == 0x47 else { break }
            let pusi = p[1] & 0x40 != 0
            let pid = Int(p[1] & 0x1F) << 8 | Int(p[2])
            let afc = (p[3] >> 4) & 3
            guard afc & 1 != 0 else { continue }                 // no payload
            var i = 4
            if afc & 2 != 0 { i += 1 + Int(p[4]) }
            guard i < 188 else { continue }
            if let a = audio {
                guard pid == a.pid, pusi else { continue }
                payloadStart = pesPayload(Array(p[i...]))
                break
            }
            guard pusi, i + 1 + Int(p[i]) < 188 else { continue }
            let section = Array(p[(i + 1 + Int(p[i]))...])     // after the pointer field
            if pid == 0, pmtPID == nil {
                pmtPID = patFirstProgramPID(section)
            } else if pid == pmtPID {
                guard let found = pmtFirstAudio(section) else { return nil }
                audio = found
            }
        }
        guard let a = audio else { return nil }
        var params: ProbeAudioParameters?
        if let b = payloadStart {
            switch a.codec {
            case "aac":
                if let h = ProbeADTSHeader(b, at: 0) { params = ProbeAudioParameters(format: "adts", sampleRate: Double(h.sampleRate), channels: h.channels) }
            case "mp2", "mp3", "mp1":
                if let h = ProbeMPEGHeader(b, at: 0) {
                    params = ProbeAudioParameters(format: h.codecName, sampleRate: Double(h.sampleRate), channels: h.channels)
                    return (h.codecName, params)
                }
            case "ac3", "eac3":
                var f = ContainerFacts(kind: .mpegts, container: "mpegts", fileSize: 0)
                ProbeRawStreams.readAC3(b, eac3: a.codec == "eac3", into: &f)
                params = f.audio
            case "dts":
                params = dts(b)
            default: break
            }
        }
        return (a.codec, params)
    }

    /// The PES packet's payload (after its header), from the bytes of the TS packet that starts it.
    private static func pesPayload(_ b: [UInt8]) -> [UInt8]? {
        guard b.count >= 9, b[0] == 0, b[1] == 0, b[2] == 1 else { return nil }
        let start = 9 + Int(b[8])
        return start < b.count ? Array(b[start...]) : nil
    }

    /// The PMT PID of the first program (number not 0) in a PAT section.
    private static func patFirstProgramPID(_ s: [UInt8]) -> Int? {
        guard s.count >= 8, s[0] == 0x00 else { return nil }
        let length = Int(s[1] & 0x0F) << 8 | Int(s[2])
        let end = min(s.count, 3 + length - 4)                // before the CRC
        var i = 8
        while i + 4 <= end {
            let program = Int(s[i]) << 8 | Int(s[i + 1])
            if program != 0 { return Int(s[i + 2] & 0x1F) << 8 | Int(s[i + 3]) }
            i += 4
        }
        return nil
    }

    /// The first audio elementary stream of a PMT section, with its codec in ffmpeg's name.
    private static func pmtFirstAudio(_ s: [UInt8]) -> (pid: Int, codec: String)? {
        guard s.count >= 12, s[0] == 0x02 else { return nil }
        let length = Int(s[1] & 0x0F) << 8 | Int(s[2])
        let end = min(s.count, 3 + length - 4)
        var i = 12 + (Int(s[10] & 0x0F) << 8 | Int(s[11]))    // after the program info
        while i + 5 <= end {
            let type = s[i]
            let pid = Int(s[i + 1] & 0x1F) << 8 | Int(s[i + 2])
            let infoLength = Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4])
            let descriptors = Array(s[min(i + 5, end)..<min(i + 5 + infoLength, end)])
            if let codec = codecName(streamType: type, descriptors: descriptors) { return (pid, codec) }
            i += 5 + infoLength
        }
        return nil
    }

    /// ffmpeg's name for an audio stream type (ISO 13818-1, ATSC, Blu-ray), or for private data
    /// (0x06) the audio its descriptors announce (DVB's AC-3, E-AC-3, DTS; a registration).
    package static func codecName(streamType: UInt8, descriptors d: [UInt8]) -> String? {
        switch streamType {
        case 0x03, 0x04: return "mp2"       // MPEG-1/2 audio: the first frame's layer decides
        case 0x0F, 0x1C: return "aac"
        case 0x11: return "aac_latm"
        case 0x80: return "pcm_bluray"
        case 0x81, 0xA1: return "ac3"
        case 0x84, 0x87, 0xA2: return "eac3"
        case 0x82, 0x85, 0x86, 0x8A: return "dts"
        case 0x83: return "truehd"
        case 0x06:
            var i = 0
            while i + 2 <= d.count {
                let tag = d[i], len = Int(d[i + 1])
                switch tag {
                case 0x6A: return "ac3"
                case 0x7A: return "eac3"
                case 0x7B: return "dts"
                case 0x05 where i + 6 <= d.count:
                    switch String(decoding: d[(i + 2)..<(i + 6)], as: UTF8.self) {
                    case "AC-3": return "ac3"
                    case "EAC3": return "eac3"
                    case "DTS1", "DTS2", "DTS3": return "dts"
                    case "Opus": return "opus"
                    default: break
                    }
                default: break
                }
                i += 2 + len
            }
            return nil
        default: return nil
        }
    }

    /// Reads bits most significant first.
    package struct BitReader {
        package let b: [UInt8]
        package var pos: Int
        package init(_ b: [UInt8], from byte: Int) { self.b = b; pos = byte * 8 }
        package mutating func skip(_ n: Int) { pos += n }
        package mutating func read(_ n: Int) -> Int {
            var v = 0
            for _ in 0..<n {
                let byte = pos >> 3
                let bit = byte < b.count ? Int(b[byte] >> (7 - UInt8(pos & 7))) & 1 : 0
                v = v << 1 | bit
                pos += 1
            }
            return v
        }
    }
}
