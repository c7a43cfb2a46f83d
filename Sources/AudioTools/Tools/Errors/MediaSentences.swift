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
