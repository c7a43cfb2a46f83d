import Foundation

/// `--bit-rate` or `--quality`: how hard a lossy encoder may compress, as the codec's own rate
/// control takes it. Facts and ranges only; the sentences are the tool's.
public enum LossyRate: Equatable, Sendable {
    /// Bits per second for the whole stream (all channels together).
    case bitRate(Int)
    /// The codec's own VBR scale: LAME -V (0 best … 9), Vorbis -q (0 … 10 best), AAC -q:a (0.1 … 2 best).
    case quality(Double)

    /// The codec families the options know, by libsndfile's or ffmpeg's codec name.
    public enum Codec: String, Sendable, CaseIterable {
        case mp3, vorbis, opus, aac, ac3, eac3, mp2

        /// The family of a libsndfile codec name ("mp3", "vorbis", "opus") or an ffmpeg encoder
        /// ("libmp3lame", "libvorbis", "libopus", "aac", ...); nil for a lossless one.
        public init?(codec: String) {
            switch codec {
            case "mp3", "libmp3lame": self = .mp3
            case "vorbis", "libvorbis": self = .vorbis
            case "opus", "libopus": self = .opus
            case "aac": self = .aac
            case "ac3": self = .ac3
            case "eac3": self = .eac3
            case "mp2": self = .mp2
            default: return nil
            }
        }

        /// The `--format` name whose codec this is, if any.
        public init?(format: String) {
            switch format {
            case "mp3": self = .mp3
            case "ogg": self = .vorbis
            case "opus": self = .opus
            case "m4a": self = .aac
            default: return nil
            }
        }

        /// The quality scale the codec takes, or nil when it has none (Opus is steered by bit rate).
        public var qualityRange: ClosedRange<Double>? {
            switch self {
            case .mp3: return 0...9
            case .vorbis: return 0...10
            case .aac: return 0.1...2
            default: return nil
            }
        }

        /// Whether a larger quality number is better (Vorbis, AAC) or worse (LAME's -V).
        public var higherQualityIsBetter: Bool { self != .mp3 }

        /// The bit rates the codec takes for the whole stream, b/s, at `sampleRate` with
        /// `channels` (nil: any); nil when it is steered by quality only (Vorbis through libsndfile).
        public func bitRateRange(channels: Int?) -> ClosedRange<Int>? {
            switch self {
            case .mp3: return 8_000...320_000
            case .vorbis: return nil
            case .opus: return channels.map { 6_000 * $0 ... 256_000 * $0 } ?? 6_000...512_000
            case .aac: return 16_000...512_000
            case .ac3: return 32_000...640_000
            case .eac3: return 32_000...6_144_000
            case .mp2: return 32_000...384_000
            }
        }

        /// MP3's bit rates (kb/s) for a sample rate: MPEG-1 at 32 kHz and over, MPEG-2 at 16 to
        /// 24 kHz, MPEG-2.5 under; any of them without a rate.
        public static func mp3KilobitRates(sampleRate: Int?) -> [Int] {
            let mpeg1 = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            let mpeg2 = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            guard let r = sampleRate else { return Array(Set(mpeg1 + mpeg2)).sorted() }
            if r >= 32_000 { return mpeg1 }
            return r >= 16_000 ? mpeg2 : mpeg2.filter { $0 <= 64 }
        }
    }

    /// Why a rate doesn't suit a codec: facts only.
    public enum Problem: Error, Equatable, Sendable {
        /// The codec has no quality scale (Opus, AC-3...): give a bit rate.
        case noQualityScale(Codec)
        /// The codec is steered by quality only here (Vorbis): give a quality.
        case noBitRate(Codec)
        case qualityOutOfRange(Codec, Double, ClosedRange<Double>)
        case bitRateOutOfRange(Codec, Int, ClosedRange<Int>)
        /// MP3 takes only its standard rates (kb/s) at this sample rate.
        case notAnMP3Rate(Int, sampleRate: Int?, allowed: [Int])
        /// The output is lossless: there is no rate to set.
        case lossless(codec: String)
    }

    /// Whether `codec` (nil: lossless, named `losslessName`) can take this rate, for a stream of
    /// `sampleRate` and `channels` when they are known.
    public func check(_ codec: Codec?, losslessName: String = "", sampleRate: Int? = nil, channels: Int? = nil) -> Problem? {
        guard let codec else { return .lossless(codec: losslessName) }
        switch self {
        case .quality(let q):
            guard let range = codec.qualityRange else { return .noQualityScale(codec) }
            return range.contains(q) ? nil : .qualityOutOfRange(codec, q, range)
        case .bitRate(let b):
            guard let range = codec.bitRateRange(channels: channels) else { return .noBitRate(codec) }
            if codec == .mp3 {
                let allowed = Codec.mp3KilobitRates(sampleRate: sampleRate)
                return b % 1000 == 0 && allowed.contains(b / 1000) ? nil : .notAnMP3Rate(b, sampleRate: sampleRate, allowed: allowed)
            }
            return range.contains(b) ? nil : .bitRateOutOfRange(codec, b, range)
        }
    }

    /// `--bit-rate`'s value: "192k", "192000", "1.5M" (b/s, rounded to a whole b/s); nil if not one.
    public static func parseBitRate(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(t), scale = 1.0
        if t.hasSuffix("k") { number = t.dropLast(); scale = 1000 } else if t.hasSuffix("m") { number = t.dropLast(); scale = 1_000_000 }
        guard let v = Double(number), v.isFinite, v > 0 else { return nil }
        let b = (v * scale).rounded()
        return b < 1e9 ? Int(b) : nil
    }

    /// A quality as written in records and messages: "2", "1.5".
    public static func text(_ q: Double) -> String { q == q.rounded() ? String(Int(q)) : String(q) }

    /// The ffmpeg arguments for this rate on output stream `specifier` ("a", "a:1"...).
    public func ffmpegArguments(_ specifier: String) -> [String] {
        switch self {
        case .bitRate(let b): return ["-b:\(specifier)", String(b)]
        case .quality(let q): return ["-q:\(specifier)", Self.text(q)]
        }
    }

    /// How the encoder is steered: "cbr" (MP3 at a bit rate), "abr" (AAC and the others at a bit
    /// rate), "vbr" (a quality, or Opus's bit-rate-targeted VBR).
    public func rateControl(_ codec: Codec) -> String {
        switch self {
        case .quality: return "vbr"
        case .bitRate: return codec == .mp3 ? "cbr" : codec == .opus ? "vbr" : "abr"
        }
    }
}
