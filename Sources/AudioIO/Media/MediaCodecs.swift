import Foundation

/// How ffmpeg re-encodes an audio stream in the codec it came in.
public struct MediaAudioEncoding: Equatable, Sendable {
    /// ffmpeg's encoder, e.g. "aac", "libopus", "flac", "pcm_s16le".
    public var encoder: String
    /// The codec's name for people: "AAC", "Opus", "FLAC", "PCM".
    public var displayName: String
    public var isLossy: Bool
    /// Bits per second for a lossy encoder (at least the input's).
    public var bitRate: Int?
    /// ffmpeg sample format to encode from, when the encoder takes more than one.
    public var sampleFormat: String?
    /// Bits a lossless stream holds (the pipeline dithers to 16 bits or fewer).
    public var bitDepth: Int?
    public var sampleRate: Int
    public var channels: Int
    /// ffmpeg's name for the channel layout, when the input states one.
    public var channelLayout: String?
    /// `--bit-rate` or `--quality` when given (`bitRate` is then the asked rate, or nil for a quality).
    public var rate: LossyRate? = nil

    /// The losses list's words for a lossy re-encode, e.g. "AAC re-encoded at 160 kb/s".
    public var lossWords: String { "\(displayName) re-encoded at \(rateWords)" }

    /// "160 kb/s", or "VBR quality 1.5" for a `--quality`.
    public var rateWords: String {
        if case .quality(let q) = rate { return "VBR quality \(LossyRate.text(q))" }
        return "\((bitRate ?? 0) / 1000) kb/s"
    }

    /// ffmpeg's rate arguments for output stream `specifier` ("a", "a:1"): -b or -q.
    public func rateArguments(_ specifier: String) -> [String] {
        if let rate { return rate.ffmpegArguments(specifier) }
        return bitRate.map { ["-b:\(specifier)", String($0)] } ?? []
    }

    /// The encoding that writes `stream` back in its own codec, or nil when this ffmpeg has no
    /// encoder for it (DTS, TrueHD, ...).
    public static func same(as stream: MediaStream) -> MediaAudioEncoding? {
        guard let codec = stream.codec, let rate = stream.sampleRate, let ch = stream.channels, ch > 0 else { return nil }
        let layout = stream.channelLayout.flatMap { $0.isEmpty || $0 == "unknown" ? nil : $0 }
        func lossy(_ encoder: String, _ name: String, perChannel: Int, cap: Int) -> MediaAudioEncoding {
            // At least the input's rate, rounded up to a whole kb/s; a floor for tiny or unstated rates.
            let floor = min(cap, perChannel * ch)
            let stated = stream.bitRate.map { ($0 + 999) / 1000 * 1000 } ?? floor
            return MediaAudioEncoding(encoder: encoder, displayName: name, isLossy: true, bitRate: max(stated, min(floor, 64_000)),
                                      sampleFormat: nil, bitDepth: nil, sampleRate: rate, channels: ch, channelLayout: layout)
        }
        func lossless(_ encoder: String, _ name: String, bits: Int, format: String?) -> MediaAudioEncoding {
            MediaAudioEncoding(encoder: encoder, displayName: name, isLossy: false, bitRate: nil, sampleFormat: format,
                               bitDepth: bits, sampleRate: rate, channels: ch, channelLayout: layout)
        }
        let raw = stream.bitsPerRawSample.flatMap { $0 > 0 ? $0 : nil }
        switch codec {
        case "aac": return lossy("aac", "AAC", perChannel: 96_000, cap: 512_000)
        case "mp3": return lossy("libmp3lame", "MP3", perChannel: 96_000, cap: 320_000)
        case "opus": return lossy("libopus", "Opus", perChannel: 64_000, cap: 510_000)
        case "vorbis": return lossy("libvorbis", "Vorbis", perChannel: 80_000, cap: 500_000)
        case "ac3": return lossy("ac3", "AC-3", perChannel: 96_000, cap: 640_000)
        case "eac3": return lossy("eac3", "E-AC-3", perChannel: 96_000, cap: 1_536_000)
        case "mp2": return lossy("mp2", "MP2", perChannel: 96_000, cap: 384_000)
        case "flac":
            let bits = raw ?? (stream.sampleFormat?.hasPrefix("s16") == true ? 16 : 24)
            return lossless("flac", "FLAC", bits: bits, format: bits <= 16 ? "s16" : "s32")
        case "alac":
            let bits = raw ?? (stream.sampleFormat?.hasPrefix("s16") == true ? 16 : 24)
            return lossless("alac", "ALAC", bits: bits, format: bits <= 16 ? "s16p" : "s32p")
        case "pcm_s16le", "pcm_s16be": return lossless(codec, "PCM", bits: 16, format: nil)
        case "pcm_s24le", "pcm_s24be": return lossless(codec, "PCM", bits: 24, format: nil)
        case "pcm_s32le", "pcm_s32be": return lossless(codec, "PCM", bits: 32, format: nil)
        case "pcm_u8", "pcm_s8": return lossless(codec, "PCM", bits: 8, format: nil)
        case "pcm_f32le", "pcm_f32be", "pcm_f64le", "pcm_f64be":
            return MediaAudioEncoding(encoder: codec, displayName: "PCM float", isLossy: false, bitRate: nil, sampleFormat: nil,
                                      bitDepth: nil, sampleRate: rate, channels: ch, channelLayout: layout)
        default: return nil
        }
    }

    /// The `--format` names that write an M4A through ffmpeg.
    public static let m4aFormats = ["m4a", "alac"]

    /// Bits of precision a stream's samples carry (24 for lossy and float: what a 24-bit
    /// lossless copy holds without loss of anything audible, and what ALAC stores at most).
    package static func heldBits(_ s: MediaStream) -> Int {
        if let c = s.codec, c.hasPrefix("pcm_f") { return 32 }
        if let e = same(as: s), !e.isLossy, let b = e.bitDepth { return b }
        return 24
    }

    /// `--format m4a` (AAC, at least the input's bit rate when it is AAC, else 128 kb/s a
    /// channel) or `--format alac` (the input's depth, 16 or 24 bits) for any stream.
    public static func m4a(_ format: String, from s: MediaStream) -> MediaAudioEncoding? {
        guard let rate = s.sampleRate, let ch = s.channels, ch > 0, ch <= 8 else { return nil }
        let layout = s.channelLayout.flatMap { $0.isEmpty || $0 == "unknown" ? nil : $0 }
        if format == "alac" {
            let bits = heldBits(s) <= 16 ? 16 : 24
            return MediaAudioEncoding(encoder: "alac", displayName: "ALAC", isLossy: false, bitRate: nil,
                                      sampleFormat: bits <= 16 ? "s16p" : "s32p", bitDepth: bits, sampleRate: rate,
                                      channels: ch, channelLayout: layout)
        }
        guard rate <= 96_000 else { return nil }
        let floor = min(512_000, 128_000 * ch)
        let stated = s.codec == "aac" ? s.bitRate.map { ($0 + 999) / 1000 * 1000 } ?? floor : floor
        return MediaAudioEncoding(encoder: "aac", displayName: "AAC", isLossy: true, bitRate: max(stated, floor / 2),
                                  sampleFormat: nil, bitDepth: nil, sampleRate: rate, channels: ch, channelLayout: layout)
    }

    /// Bits the pipeline should dither to (fixed point of 16 bits or fewer), else nil.
    public var ditherBits: Int? { !isLossy && (bitDepth ?? 24) <= 16 ? bitDepth : nil }
}

/// Which ffmpeg muxer writes a container back, from ffprobe's format name and the file name.
public enum MediaContainer {
    public static func muxer(formatName: String, path: String) -> String? {
        let ext = (path as NSString).pathExtension.lowercased()
        if formatName.hasPrefix("mov,mp4") {
            switch ext {
            case "mov", "qt": return "mov"
            case "m4a", "m4b": return "ipod"
            case "3gp": return "3gp"
            default: return "mp4"
            }
        }
        if formatName.hasPrefix("matroska") { return ext == "webm" ? "webm" : "matroska" }
        if formatName == "avi" { return "avi" }
        return nil
    }
}
