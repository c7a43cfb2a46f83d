import AudioIO
import Foundation

/// What a person reads when lufs-normalize --lossless-gain can't change a file's bitstream gain.
extension BitstreamGainError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        let reencode = "Pass --allow-loss without --lossless-gain to re-encode it (a generation loss), or --write-tags for ReplayGain tags."
        func db(_ v: Double) -> String { String(format: "%+.2f dB", v) }
        switch self {
        case .unsupportedFormat(let what):
            return ToolError(.unsupportedCodec, "\(name) is \(what), whose gain --lossless-gain can't change in the bitstream (it changes MP3, AAC-LC and Opus); nothing was written.",
                             suggestion: "Leave out --lossless-gain: a lossless file is normalised with no loss anyway, and a lossy one is re-encoded with --allow-loss (a generation loss), or tagged with --write-tags (ReplayGain).")
        case .malformed(let what, let offset):
            return ToolError(.malformed, "\(name) has no valid \(what) at byte \(offset), so its gain was not changed; nothing was written.",
                             suggestion: "Check the file with ffmpeg -v error -i FILE -f null -; a damaged file is better re-encoded (--allow-loss without --lossless-gain).")
        case .badChecksum(let page):
            return ToolError(.malformed, "\(name) has a wrong checksum on Ogg page \(page), so its gain was not changed; nothing was written.",
                             suggestion: "The file is damaged; fetch it again, or re-encode it (--allow-loss without --lossless-gain).")
        case .severalStreams(let n):
            return ToolError(.unsupportedCodec, "\(name) holds \(n) Ogg streams (chained or multiplexed), and --lossless-gain changes a file with one; nothing was written.",
                             suggestion: "Split the streams apart first, or re-encode (--allow-loss without --lossless-gain).")
        case .opusGainOutOfRange(let q):
            return ToolError(.lossy, "\(name) would need an Opus header gain of \(db(Double(q) / 256)), outside the ±128 dB the header holds; nothing was written.",
                             suggestion: reencode)
        case .r128TagOutOfRange(let tag, let q):
            return ToolError(.lossy, "\(name)'s \(tag) tag would become \(db(Double(q) / 256)) to stay true, outside the ±128 dB it holds; nothing was written.",
                             suggestion: "Remove the R128 tags first, or re-encode (--allow-loss without --lossless-gain).")
        case .globalGainOutOfRange(let frame, let value):
            return ToolError(.lossy, "\(name) can't take the gain in its bitstream: frame \(frame)'s global_gain would become \(value), outside 0–255; nothing was written.",
                             suggestion: "Choose a target nearer the file's loudness, or " + reencode.prefix(1).lowercased() + reencode.dropFirst())
        case .scaleFactorOutOfRange(let frame, let value):
            return ToolError(.lossy, "\(name) can't take the gain in its bitstream: a scale factor of AAC block \(frame), coded relative to global_gain, would become \(value), outside its range; nothing was written.",
                             suggestion: "Choose a target nearer the file's loudness, or " + reencode.prefix(1).lowercased() + reencode.dropFirst())
        case .undefinedLoudness:
            return ToolError(.noAudio, "\(name) has no measurable loudness (silent or below the −70 LUFS gate), so no gain reaches a target.",
                             suggestion: "Leave the file as it is, or check that the right file was measured.")
        case .targetOutOfReach(let needed, let reached, let step):
            return ToolError(.lossy, "\(name) needs \(db(needed)) to reach the target, but the bitstream gain can only reach \(db(reached)) (steps of \(step > 1 ? "1.5 dB" : "1/256 dB"), under the true-peak ceiling; no limiter without decoding); nothing was written.",
                             suggestion: "Lower the target or raise --true-peak; or pass --allow-loss without --lossless-gain to re-encode it (a generation loss; the limiter then keeps the peaks under the ceiling); or pass --write-tags for ReplayGain tags.")
        case .noUndoRecord(let format):
            return ToolError(.badInput, "\(name) (\(format)) carries no undo record of lossless gain: nothing to undo, and nothing was written.",
                             suggestion: "Only a file whose gain --lossless-gain (or mp3gain, or aacgain) changed can be undone; leave this one as it is.")
        case .undoChannelsDiffer(let left, let right):
            return ToolError(.unsupportedCodec, "\(name)'s undo record moves its channels by different steps (left \(left), right \(right)), which --undo-lossless-gain doesn't apply; nothing was written.",
                             suggestion: "Undo it with mp3gain -u, which wrote it.")
        }
    }
}
