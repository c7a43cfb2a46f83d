import Foundation

extension MediaAudioEncoding {
    /// What each of the `chosen` audio streams (indices into `audio`) is re-encoded as: its own
    /// codec, or with `m4a` ("m4a" or "alac") that format's; and what that loses, in words.
    /// Refuses a stream that can't be written so.
    package static func choose(for chosen: [Int], of audio: [MediaStream], m4a: String?) throws(MediaEncodingError)
        -> (encodings: [Int: MediaAudioEncoding], losses: [String]) {
        var losses: [String] = []
        var encodings: [Int: MediaAudioEncoding] = [:]
        for k in chosen {
            if let f = m4a {
                guard let e = Self.m4a(f, from: audio[k]) else {
                    throw .notAs(format: f, channels: audio[k].channels ?? 0, sampleRate: audio[k].sampleRate ?? 0)
                }
                encodings[k] = e
                let source = same(as: audio[k])
                if e.isLossy {
                    losses.append(source?.isLossy == true ? (source!.displayName == "AAC" ? e.lossWords : "\(source!.displayName) re-encoded as \(e.displayName) at \((e.bitRate ?? 0) / 1000) kb/s")
                                  : "\(e.displayName) at \((e.bitRate ?? 0) / 1000) kb/s, a lossy codec")
                } else if let bits = e.bitDepth, heldBits(audio[k]) > bits {
                    losses.append("\(heldBits(audio[k]))-bit samples stored as \(bits)-bit \(e.displayName)")
                }
                continue
            }
            guard let e = same(as: audio[k]) else {
                throw .notEncodable(codec: audio[k].codec ?? "unknown", stream: k, ofSeveral: audio.count > 1)
            }
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
}
