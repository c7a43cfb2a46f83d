import AudioIO
import Foundation

/// What a person reads when the normaliser's chain stops on a stream it can't handle.
extension NormalizePipeline.Failure: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        ToolError(.malformed, "\(ToolError.quoted(path)) could not be normalised (\(self == .unknownLength ? "its length is unknown, which a fade-out needs" : "its channel count changed mid-stream")); nothing was written.",
                  suggestion: "Convert it to WAV or FLAC first.")
    }
}
