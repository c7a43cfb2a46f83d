import Foundation
import ToolRunner

/// What a person reads when the output would be larger than its format can state.
extension OutputSizeLimit.TooLarge: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let gb = String(format: "%.2f", Double(audioBytes) / 1e9)
        return ToolError(.tooLarge, "\(ToolError.quoted(path)) would be \(gb) GB of audio as \(container), whose 32-bit sizes hold at most 4 GiB (readers would see only part of it); nothing was written.",
                         suggestion: "Write it as --format wav (RF64 when this large), caf, w64 or flac, which hold any length.")
    }
}
