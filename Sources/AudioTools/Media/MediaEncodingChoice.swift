import Foundation

extension MediaAudioEncoding {
    /// What each of the `chosen` audio streams (indices into `audio`) is re-encoded as: its own
    /// codec, or with `m4a` ("m4a" or "alac") that format's; and what that loses, in words.
    /// Refuses, naming the file at `path`, a stream that can't be written so.
    static func choose(for chosen: [Int], of audio: [MediaStream], m4a: String?, path: String) throws
        -> (encodings: [Int: MediaAudioEncoding], losses: [String]) {
        let name = ToolError.quoted(path)
        var losses: [String] = []
        var encodings: [Int: MediaAudioEncoding] = [:]
        for k in chosen {
            if let f = m4a {
                guard let e = Self.m4a(f, from: audio[k]) else {
                    throw ToolError(.unsupportedCodec, "\(name)'s audio (\(audio[k].channels ?? 0) channels at \(audio[k].sampleRate ?? 0) Hz) can't be written as \(f); nothing was written.",
                                    suggestion: "Choose --format flac or wav.")
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
                throw ToolError(.unsupportedCodec, "\(name) has \((audio[k].codec ?? "unknown").uppercased()) audio in stream \(k), which this ffmpeg can read but not encode; nothing was written.",
                                suggestion: audio.count > 1 ? "Normalise the other streams with --stream N, or choose an audio-only --format (flac or wav)." : "Choose an audio-only --format (flac or wav keep everything the decoded audio has).")
            }
            encodings[k] = e
            if e.isLossy { losses.append(audio.count > 1 ? "stream \(k): \(e.lossWords)" : e.lossWords) }
        }
        return (encodings, losses)
    }
}
