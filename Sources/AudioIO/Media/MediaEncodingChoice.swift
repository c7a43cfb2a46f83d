import Foundation

extension MediaAudioEncoding {
    /// What each of the `chosen` audio streams (indices into `audio`) is re-encoded as: its own
    /// codec, or with `m4a` ("m4a" or "alac") that format's; and what that loses, in words.
    /// Refuses a stream that can't be written so.
    /// `rate` (`--bit-rate`, `--quality`) is set on each, refused for a codec that can't take it.
    package static func choose(for chosen: [Int], of audio: [MediaStream], m4a: String?, rate: LossyRate? = nil) throws(MediaEncodingError)
        -> (encodings: [Int: MediaAudioEncoding], losses: [String]) {
        var losses: [String] = []
        var encodings: [Int: MediaAudioEncoding] = [:]
        for k in chosen {
            if let f = m4a {
                guard var e = Self.m4a(f, from: audio[k]) else {
                    throw .notAs(format: f, channels: audio[k].channels ?? 0, sampleRate: audio[k].sampleRate ?? 0)
                }
                if let rate { e = try e.with(rate, stream: k) }
                encodings[k] = e
                let source = same(as: audio[k])
                if e.isLossy {
                    losses.append(source?.isLossy == true ? (source!.displayName == "AAC" ? e.lossWords : "\(source!.displayName) re-encoded as \(e.displayName) at \(e.rateWords)")
                                  : "\(e.displayName) at \(e.rateWords), a lossy codec")
                } else if let bits = e.bitDepth, heldBits(audio[k]) > bits {
                    losses.append("\(heldBits(audio[k]))-bit samples stored as \(bits)-bit \(e.displayName)")
                }
                continue
            }
            guard var e = same(as: audio[k]) else {
                throw .notEncodable(codec: audio[k].codec ?? "unknown", stream: k, ofSeveral: audio.count > 1)
            }
            if let rate { e = try e.with(rate, stream: k) }
            encodings[k] = e
            if e.isLossy { losses.append(audio.count > 1 ? "stream \(k): \(e.lossWords)" : e.lossWords) }
        }
        return (encodings, losses)
    }
}

/// Why an audio stream can't be re-encoded as asked: facts only (the sentences are the tool's).
public enum MediaEncodingError: Error, Equatable, Sendable {
    /// The stream (`channels` at `sampleRate`) doesn't fit the audio-only `format` (m4a or alac).
    case notAs(format: String, channels: Int, sampleRate: Int)
    /// This ffmpeg decodes the stream's `codec` but can't encode it; `ofSeveral` when the file
    /// has other audio streams.
    case notEncodable(codec: String, stream: Int, ofSeveral: Bool)
    /// `--bit-rate` or `--quality` doesn't suit stream `stream`'s codec.
    case rate(LossyRate.Problem, stream: Int)
}

extension MediaAudioEncoding {
    /// This encoding steered by `rate` (the bit rate asked for, or a quality with no bit rate),
    /// or why its codec can't take it.
    package func with(_ rate: LossyRate, stream: Int) throws(MediaEncodingError) -> MediaAudioEncoding {
        let codec = isLossy ? LossyRate.Codec(codec: encoder) : nil
        if let p = rate.check(codec, losslessName: displayName, sampleRate: sampleRate, channels: channels) {
            throw .rate(p, stream: stream)
        }
        var e = self
        e.rate = rate
        if case .bitRate(let b) = rate { e.bitRate = b } else { e.bitRate = nil }
        return e
    }
}
