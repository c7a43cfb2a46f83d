import Foundation

/// Audio read from standard input (`-`), or from a file still being written (`--follow`):
/// sniffed from its first bytes, then read forward only. WAV (with ffmpeg's unknown-length pipe
/// header), RF64, AU and raw PCM are read here, sample for sample as libsndfile reads the same
/// file; FLAC, Ogg, CAF, W64, AIFF, MP3 and ADTS AAC go through one ffmpeg child reading the stream.
public enum StandardInput {
    /// `--raw`: the layout of headerless PCM on standard input, when given.
    nonisolated(unsafe) public static var raw: PCMStreamFormat?

    /// What `path` names when it is standard input.
    public static let path = "-"

    /// Opens standard input for decoding.
    public static func open() throws -> Decoder.Opened {
        // A record naming `-` while standard input is read as records: there is no such file.
        if PipeReader.standardInput.handedToLines { throw FileAccessError(path, .missing) }
        return try open(reader: PipeReader.standardInput, path: path, isPipe: true, raw: raw)
    }

    /// Opens a file that may still be growing: read forward, waiting for more at its end until it
    /// has not grown for `idleSeconds` (or a stop signal).
    public static func openGrowing(_ path: String, idleSeconds: Double) throws -> Decoder.Opened {
        let file = try FileByteSource.input(path)
        let fd = file.duplicateDescriptor()
        guard fd >= 0 else { throw DecodeError(path, .unrecognisedFormat) }
        let reader = PipeReader(fd: fd, idleSeconds: idleSeconds, closesDescriptor: true)
        var opened = try open(reader: reader, path: path, isPipe: false, raw: nil)
        opened.identity = file.identity
        return opened
    }

    /// The usual file extension of the container whose first bytes are `head`, for naming a copy.
    public static func fileExtension(head: [UInt8]) -> String? {
        let magic = String(decoding: head.prefix(4), as: UTF8.self)
        let known = ["RIFF": "wav", "RF64": "wav", "fLaC": "flac", "OggS": "ogg", "caff": "caf", ".snd": "au", "riff": "w64"]
        if magic == "FORM" { return "aiff" }
        return known[magic]
    }

    /// Sniffs `reader` and opens the decoder for what it holds.
    static func open(reader: PipeReader, path: String, isPipe: Bool, raw: PCMStreamFormat?) throws -> Decoder.Opened {
        let identity = FileIdentity(sizeBytes: 0, modifiedNanoseconds: 0)
        func opened(_ s: AudioSource, _ d: SndfileDescription?, _ k: DecoderKind) throws -> Decoder.Opened {
            let f = s.format
            if f.channelCount < 1 || f.channelCount > 64 { throw DecodeError(path, .impossibleHeader(channels: f.channelCount, sampleRate: f.sampleRate)) }
            if f.sampleRate < 8000 || f.sampleRate > 384_000 { throw DecodeError(path, .sampleRateOutOfRange(f.sampleRate)) }
            return Decoder.Opened(path: path, source: s, identity: identity, sndfile: d, facts: nil, decoder: k)
        }
        if let raw {
            return try opened(StreamedPCMSource(path: path, reader: reader, layout: raw, isPipe: isPipe, drainsAfter: false), raw.sndfileDescription, .libsndfile)
        }
        let head = reader.peek(12)
        if head.isEmpty { throw DecodeError(path, .empty) }
        let tag = String(decoding: head.prefix(4), as: UTF8.self)
        var layout: PCMStreamFormat?
        switch tag {
        case "RIFF", "RF64":
            guard head.count >= 12, String(decoding: head[8..<12], as: UTF8.self) == "WAVE" else { throw DecodeError(path, .unrecognisedFormat) }
            layout = try header(reader, path: path, parse: StreamHeaders.wav)
        case ".snd":
            layout = try header(reader, path: path, parse: StreamHeaders.au)
        case "fLaC", "OggS", "caff", "riff", "FORM":
            break
        default:
            guard let mpeg = mpegStream(reader.peek(16384)) else { throw DecodeError(path, .unrecognisedFormat) }
            let s = try StreamedFFmpegSource(path: path, input: reader, isPipe: isPipe, format: mpeg.format, frameLimit: mpeg.frames)
            return try opened(s, nil, .ffmpeg)
        }
        if let layout {
            let s = StreamedPCMSource(path: path, reader: reader, layout: layout, isPipe: isPipe, drainsAfter: isPipe)
            return try opened(s, layout.sndfileDescription, .libsndfile)
        }
        return try opened(try StreamedFFmpegSource(path: path, input: reader, isPipe: isPipe), nil, .ffmpeg)
    }

    /// A stream of MPEG audio or ADTS AAC frames whose first bytes are `b`: ffmpeg's demuxer for
    /// it (nil after an ID3v2 tag that hides the first frame: ffmpeg finds it), and an MP3's
    /// gapless length from its LAME tag (ffmpeg trims the end padding only where it can seek).
    /// A frame header counts when the next frame agrees (or lies past `b`). Nil for anything else.
    package static func mpegStream(_ b: [UInt8]) -> (format: String?, frames: Int?)? {
        var at = 0
        if b.count >= 10, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33, b[3] != 0xFF, b[4] != 0xFF {
            // The tag's size: four 7-bit bytes, then 10 more for a footer.
            let size = (6..<10).reduce(0) { $0 << 7 | Int(b[$1] & 0x7F) } + (b[5] & 0x10 != 0 ? 20 : 10)
            guard size + 4 <= b.count, ProbeMPEGHeader(b, at: size) != nil else { return (nil, nil) }
            at = size
        }
        if let h = ProbeMPEGHeader(b, at: at) {
            let next = at + h.frameLength
            let agrees = next + 4 > b.count ? b.count >= next : ProbeMPEGHeader(b, at: next).map(h.isConsistent) ?? false
            if agrees { return ("mp3", h.gaplessLength(Array(b[at...]))) }
        }
        if let h = ProbeADTSHeader(b, at: 0) {
            let next = h.frameLength
            if next + 7 > b.count { return b.count >= next ? ("aac", nil) : nil }
            if let h2 = ProbeADTSHeader(b, at: next), h2.sampleRate == h.sampleRate { return ("aac", nil) }
        }
        return at > 0 ? (nil, nil) : nil
    }

    /// Reads a header from what `reader` holds ahead (looking further until `parse` decides),
    /// then takes its bytes; nil when it is not PCM this reader converts (ffmpeg decodes it).
    package static func header(_ reader: PipeReader, path: String,
                       parse: ([UInt8]) -> StreamHeaders.Parsed) throws -> PCMStreamFormat? {
        var n = 4096
        while true {
            let b = reader.peek(n)
            switch parse(b) {
            case .pcm(let f, let length):
                reader.skip(UInt64(length))
                return f
            case .other: return nil
            case .damaged(let why): throw DecodeError(path, .damagedHeader(libsndfile: why))
            case .needMore:
                guard b.count == n, n < 1 << 22 else {
                    throw DecodeError(path, .damagedHeader(libsndfile: "the input ended inside the header"))
                }
                n *= 4
            }
        }
    }
}

/// The headers of the PCM containers read from a stream, parsed from their first bytes.
package enum StreamHeaders {
    package enum Parsed: Equatable {
        /// PCM of this layout after `headerLength` bytes.
        case pcm(PCMStreamFormat, headerLength: Int)
        /// A valid header of an encoding not read here.
        case other
        case damaged(String)
        case needMore
    }

    /// RIFF/RF64 WAVE: `fmt ` (PCM, float or extensible of either), then `data`. A data size of
    /// 0 or 0xFFFFFFFF (ffmpeg writing to a pipe) means unknown: read to the end of the input.
    package static func wav(_ b: [UInt8]) -> Parsed {
        func u16(_ o: Int) -> UInt32 { UInt32(b[o]) | UInt32(b[o + 1]) << 8 }
        func u32(_ o: Int) -> UInt32 { u16(o) | u16(o + 2) << 16 }
        func u64(_ o: Int) -> UInt64 { UInt64(u32(o)) | UInt64(u32(o + 4)) << 32 }
        guard b.count >= 12 else { return .needMore }
        let rf64 = b[0] == 0x52 && b[1] == 0x46 && b[2] == 0x36
        var off = 12
        var fmt: (tag: UInt32, ch: Int, rate: Int, align: Int, bits: Int, mask: UInt32?)?
        var ds64Data: UInt64?
        while true {
            guard b.count >= off + 8 else { return .needMore }
            let id = String(decoding: b[off..<off + 4], as: UTF8.self)
            let size = u32(off + 4)
            if id == "data" {
                guard let f = fmt else { return .damaged("the data chunk comes before the fmt chunk") }
                var encoding: PCMStreamFormat.Encoding?
                let bytes = f.ch > 0 ? f.align / f.ch : 0
                switch (f.tag, f.bits, bytes) {
                case (1, 8, 1): encoding = .u8
                case (1, 16, 2): encoding = .s16le
                case (1, 24, 3): encoding = .s24le
                case (1, 32, 4): encoding = .s32le
                case (3, 32, 4): encoding = .f32le
                case (3, 64, 8): encoding = .f64le
                default: encoding = nil
                }
                guard let e = encoding, f.align == f.ch * e.bytes else { return .other }
                var dataBytes: UInt64? = size == 0 || size == 0xFFFF_FFFF ? nil : UInt64(size)
                if rf64, size == 0xFFFF_FFFF { dataBytes = ds64Data.flatMap { $0 == 0 || $0 == UInt64.max ? nil : $0 } }
                return .pcm(PCMStreamFormat(sampleRate: f.rate, channelCount: f.ch, encoding: e, dataBytes: dataBytes,
                                            channelMask: f.mask, container: rf64 ? "rf64" : "wav"), headerLength: off + 8)
            }
            let end = off + 8 + Int(size)
            guard size < 1 << 22 else { return .damaged("a \(id) chunk of \(size) bytes before the samples") }
            guard b.count >= end else { return .needMore }
            if id == "fmt " {
                guard size >= 16 else { return .damaged("the fmt chunk is \(size) bytes") }
                let o = off + 8
                var tag = u16(o)
                var mask: UInt32?
                if tag == 0xFFFE, size >= 40 {
                    mask = u32(o + 20)
                    tag = u16(o + 24)
                }
                fmt = (tag, Int(u16(o + 2)), Int(u32(o + 4)), Int(u16(o + 12)), Int(u16(o + 14)), mask)
            } else if id == "ds64", size >= 16 {
                ds64Data = u64(off + 16)
            }
            off = end + Int(size & 1)
        }
    }

    /// Sun/NeXT AU (big-endian): offset, size (0xFFFFFFFF unknown), encoding, rate, channels.
    package static func au(_ b: [UInt8]) -> Parsed {
        func u32(_ o: Int) -> UInt32 { UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3]) }
        guard b.count >= 24 else { return .needMore }
        let offset = Int(u32(4)), size = u32(8), enc = u32(12), rate = Int(u32(16)), ch = Int(u32(20))
        guard offset >= 24, offset < 1 << 22 else { return .damaged("the header says the samples start at byte \(offset)") }
        guard b.count >= offset else { return .needMore }
        let e: PCMStreamFormat.Encoding
        switch enc {
        case 2: e = .s8
        case 3: e = .s16be
        case 4: e = .s24be
        case 5: e = .s32be
        case 6: e = .f32be
        case 7: e = .f64be
        default: return .other
        }
        return .pcm(PCMStreamFormat(sampleRate: rate, channelCount: ch, encoding: e,
                                    dataBytes: size == 0xFFFF_FFFF ? nil : UInt64(size), container: "au"), headerLength: offset)
    }
}

extension Decoder.Opened {
    /// Whether it is read forward as it arrives (standard input, a growing file): there is
    /// nothing to probe or seek, and its record says so.
    public var isStreamed: Bool { source is StreamedAudio }
}
