import AudioIO
import Foundation
import ToolRunner

/// What a person reads when lufs-normalize can't use the measurement a record carries.
extension RecordedLoudness.Refusal: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch self {
        case .stale(_, _, tagging: true):
            return ToolError(.staleMeasurement, "\(name) has changed since it was measured, so its measurement no longer applies; its tags were left as they were.",
                             suggestion: "Measure it again (lufs-measure --album DIR | lufs-normalize --write-tags ...).")
        case .stale(let measured, let now, tagging: false):
            return ToolError(.staleMeasurement, "\(name) has changed since it was measured (\(Self.change(from: measured, to: now))), so its measurement no longer applies; nothing was written.",
                             suggestion: "Measure it again (lufs-measure \(Self.shellQuoted(path)) | lufs-normalize ...), or pass the bare path to have it measured here.")
        case .notANumber:
            return ToolError(.badInput, "The loudness in \(name)'s record is not a number.",
                             suggestion: "Pass the record lufs-measure wrote, unchanged.")
        }
    }

    /// What changed between two identities, in words.
    package static func change(from old: FileIdentity, to new: FileIdentity) -> String {
        var parts: [String] = []
        for d in old.differences(from: new) {
            switch d {
            case .size: parts.append("size \(old.sizeBytes) → \(new.sizeBytes) bytes")
            case .modified: parts.append("modified since")
            case .changed where old.modifiedNanoseconds == new.modifiedNanoseconds:
                parts.append("its inode changed with its modification time the same, as when it is written with the time put back, replaced by a copy, renamed or given other permissions")
            case .changed: break
            case .content: parts.append("its bytes differ")
            }
        }
        return parts.joined(separator: ", ")
    }

    /// `s` as one shell word.
    package static func shellQuoted(_ s: String) -> String {
        s.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
