import AudioIO
import AudioSignal
import Foundation

/// What a person reads when `--bit-rate` or `--quality` doesn't suit the output's codec.
extension LossyRate.Problem: ToolErrorConvertible {
    /// The codec's name for people.
    package static func name(_ c: LossyRate.Codec) -> String {
        switch c {
        case .mp3: return "MP3"
        case .vorbis: return "Vorbis"
        case .opus: return "Opus"
        case .aac: return "AAC"
        case .ac3: return "AC-3"
        case .eac3: return "E-AC-3"
        case .mp2: return "MP2"
        }
    }

    private static func kbps(_ b: Int) -> String {
        b % 1000 == 0 ? "\(b / 1000)k" : String(format: "%.1fk", Double(b) / 1000)
    }

    /// The reason and what to do instead, as one sentence (the usage error's words).
    package var sentence: String {
        switch self {
        case .noQualityScale(let c):
            return "\(Self.name(c)) has no quality scale (its VBR is steered by a bit rate): use --bit-rate instead of --quality, e.g. --bit-rate 96k."
        case .noBitRate(let c):
            return "\(Self.name(c)) is encoded by quality here, not by bit rate: use --quality 0..10 (Vorbis -q; default 4, about 128 kb/s for stereo) instead of --bit-rate."
        case .qualityOutOfRange(let c, let q, let r):
            let scale = c == .mp3 ? "LAME's -V scale, 0 best" : c == .vorbis ? "Vorbis -q, 10 best" : "ffmpeg's AAC -q:a, 2 best"
            return "--quality \(LossyRate.text(q)) is outside \(Self.name(c))'s range \(LossyRate.text(r.lowerBound))..\(LossyRate.text(r.upperBound)) (\(scale))."
        case .bitRateOutOfRange(let c, let b, let r):
            return "--bit-rate \(Self.kbps(b)) is outside \(Self.name(c))'s range \(Self.kbps(r.lowerBound))..\(Self.kbps(r.upperBound)) (for the whole stream, all channels together)."
        case .notAnMP3Rate(let b, let rate, let allowed):
            let at = rate.map { " at \($0) Hz" } ?? ""
            return "--bit-rate \(Self.kbps(b)) is not one of MP3's bit rates\(at): \(allowed.map { "\($0)k" }.joined(separator: ", "))."
        case .lossless(let codec):
            return "--bit-rate and --quality set a lossy encoder's rate, and \(codec.isEmpty ? "this output" : codec) is lossless: leave them out, or choose a lossy --format (mp3, ogg, opus, m4a)."
        }
    }

    public func toolError(path: String) -> ToolError {
        ToolError(.unsupportedCodec, "\(ToolError.quoted(path)) can't be written as asked: \(sentence) Nothing was written.",
                  suggestion: "Give a value the output's codec takes (docs/lufs-normalize.md, “Delivery: bit rate, quality, channels”), or choose another --format.")
    }
}

/// ... when `--channels` can't downmix a file's layout.
extension Downmix.Refusal: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch self {
        case .notFewer(let source, let channels):
            return ToolError(.unsupportedCodec, "\(name) has \(source) channel\(source == 1 ? "" : "s"), so --channels \(channels) would not be a downmix (channels are never made up); nothing was written.",
                             suggestion: "Leave out --channels for this file, or ask for fewer channels than it has.")
        case .unplaced(let roles):
            return ToolError(.unsupportedCodec, "\(name) has channels the downmix matrix has no place for (\(roles.map(\.label).joined(separator: ", "))): --channels downmixes left, right, centre, LFE and surround or back channels only; nothing was written.",
                             suggestion: "Downmix it with a matrix of your own first (ffmpeg -af pan=...), then normalise.")
        case .unsupportedCount(let n):
            return ToolError(.unsupportedCodec, "--channels \(n) is not a downmix lufs-normalize makes (1 or 2).", suggestion: "Use --channels 1 or 2.")
        }
    }
}

/// ... when a media stream can't take the `--bit-rate` or `--quality` asked for.
extension MediaEncodingError {
    /// The rate problem's sentence naming the stream, for a file with several.
    package static func rateError(_ p: LossyRate.Problem, stream: Int, path: String) -> ToolError {
        var e = p.toolError(path: path)
        e.message = "\(ToolError.quoted(path))'s audio stream \(stream) can't be written as asked: \(p.sentence) Nothing was written."
        return e
    }
}
