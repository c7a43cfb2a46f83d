import AudioIO
import Foundation

/// What a person reads when a media file can't be normalised in its own container.
extension MediaNormalization.Refusal: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        switch self {
        case .fadeOutNeedsExactLength:
            return ToolError(.badInput, "\(ToolError.quoted(path)) is a media file, whose length ffmpeg states only roughly, so --fade-out can't be placed on it; nothing was written.",
                             suggestion: "Leave out --fade-out, or choose an audio-only --format (flac or wav).")
        }
    }
}

/// ... when one of its audio streams can't be re-encoded as asked.
extension MediaEncodingError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch self {
        case .notAs(let format, let channels, let sampleRate):
            return ToolError(.unsupportedCodec, "\(name)'s audio (\(channels) channels at \(sampleRate) Hz) can't be written as \(format); nothing was written.",
                             suggestion: "Choose --format flac or wav.")
        case .notEncodable(let codec, let stream, let ofSeveral):
            return ToolError(.unsupportedCodec, "\(name) has \(codec.uppercased()) audio in stream \(stream), which this ffmpeg can read but not encode; nothing was written.",
                             suggestion: ofSeveral ? "Normalise the other streams with --stream N, or choose an audio-only --format (flac or wav)." : "Choose an audio-only --format (flac or wav keep everything the decoded audio has).")
        case .rate(let p, let stream):
            return Self.rateError(p, stream: stream, path: path)
        }
    }
}

/// ... when ffmpeg can't write it back, or the written file can't be put in place.
extension MediaWriteError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        switch self {
        case .folderUncreatable(let destination, let reason):
            return ToolError(.unreadable, "The folder for \(ToolError.quoted(destination)) can't be created: \(reason)",
                             suggestion: "Check that the output folder is on a writable disk.")
        case .noFFmpeg(let input):
            return ToolError(.unsupportedCodec, "\(ToolError.quoted(input)) needs ffmpeg to be written back, and ffmpeg is not installed.",
                             suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg).")
        case .ffmpegFailed(let input, let reason):
            return ToolError(.unsupportedCodec, "\(ToolError.quoted(input)) could not be written back by ffmpeg (\(reason)); nothing was written.",
                             suggestion: "Choose an audio-only --format (flac or wav keep everything the decoded audio has).")
        case .cantPutInPlace(let destination, let reason):
            return ToolError(.unreadable, "\(ToolError.quoted(destination)) can't be put in place: \(reason).", suggestion: "Check that the output folder is writable.")
        case .appeared(let destination):
            return ToolError(.exists, "\(ToolError.quoted(destination)) appeared while it was being written; it was left as it is.",
                             suggestion: "Pass --overwrite to replace it, or choose another output folder.")
        }
    }
}
