import AudioIO
import AudioSignal
import Foundation
import ToolRunner

/// The delivery options (`--bit-rate`, `--quality`, `--channels`): declared here, checked against
/// the `--format` codec before any file is touched.
extension LufsNormalize {
    static let deliverySpecs: [OptionSpec] = [
        .value("bit-rate", "RATE", help: "Lossy output's bit rate for the whole file (all channels together), e.g. 192k or 96000: MP3 at a constant rate (32k..320k, its standard rates), Opus its VBR target (6k..256k a channel), AAC (m4a, video) 16k..512k; not Vorbis (use --quality). Default: MP3 LAME -V 4, Vorbis -q 4, Opus libopus's own, AAC and video streams at least the input's rate.",
               check: { _ = try LufsNormalize.bitRate($0) },
               rules: [.conflicts("quality", message: "--bit-rate and --quality both set how hard the encoder compresses; give one of them.")]),
        .number("quality", "Q", in: 0...10, help: "Lossy output's VBR quality on the codec's own scale: MP3 LAME -V 0..9 (0 best), Vorbis -q 0..10 (10 best), AAC -q:a 0.1..2 (2 best); not Opus (use --bit-rate)."),
        .choice("channels", "N", ["1", "2"], help: "Downmix to 2 (ITU-R BS.775: L + 0.7071 C + 0.7071 Ls, the LFE dropped) or 1 channel (the mid, (L + R) / 2, of that); loses channels, so it needs --allow-loss. The loudness is measured again on the downmix. Audio-file outputs only (not video or --format m4a/alac)."),
    ]

    /// `--bit-rate`'s value in b/s, or the usage error.
    package static func bitRate(_ text: String) throws -> Int {
        guard let b = LossyRate.parseBitRate(text) else {
            throw UsageError("--bit-rate: '\(text)' is not a bit rate; give bits per second for the whole file, e.g. 192k or 96000.")
        }
        return b
    }

    /// `--bit-rate` or `--quality`, checked against the codec `--format` names (a lossless one
    /// refuses both); nil when neither is given. Without `--format` the input's codec is checked
    /// per file.
    package static func lossyRate(_ o: ParsedOptions, format: String?) throws -> LossyRate? {
        try o.checkRules("bit-rate")
        let rate: LossyRate
        if let b = o.string("bit-rate") { rate = .bitRate(try bitRate(b)) } else if let q = try o.double("quality") { rate = .quality(q) } else { return nil }
        if let f = format {
            let flag = rate.isBitRate ? "--bit-rate" : "--quality"
            if let p = rate.check(LossyRate.Codec(format: f), losslessName: f == "alac" ? "ALAC" : f.uppercased()) {
                throw UsageError("\(flag) with --format \(f): \(p.sentence)")
            }
        }
        return rate
    }

    /// `--channels`, refused where the downmix isn't made (media write-back, M4A/ALAC).
    package static func channels(_ o: ParsedOptions, format: String?) throws -> Int? {
        guard let c = try o.choice("channels").flatMap(Int.init) else { return nil }
        if let f = format, MediaAudioEncoding.m4aFormats.contains(f) {
            throw UsageError("--channels downmixes audio-file outputs only, not --format \(f) (written through ffmpeg); choose --format flac, wav, mp3, ogg or opus.")
        }
        return c
    }
}

extension LossyRate {
    var isBitRate: Bool { if case .bitRate = self { return true } else { return false } }
}
