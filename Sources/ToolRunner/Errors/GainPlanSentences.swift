import AudioSignal
import Foundation

/// What a person reads when lufs-normalize's gain plan refuses a file.
extension NormalizeGainPlan.Refusal: ToolErrorConvertible, CustomStringConvertible {
    /// What is wrong, after the file's name.
    public var description: String {
        switch self {
        case .undefinedLoudness:
            return "has no measurable loudness (silent or below the −70 LUFS gate), so no gain reaches a target."
        case .ignoreNeedsFloatOutput:
            return "would keep peaks over the ceiling, which only a floating-point output can hold."
        case .nonFiniteInput(let what):
            return "has a \(what) that is not a finite number."
        }
    }

    /// The refusal as a record error for the file at `path`.
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch self {
        case .undefinedLoudness:
            return ToolError(.noAudio, "\(name) \(description)",
                             suggestion: "Leave the file as it is, or check that the right file was measured.")
        case .ignoreNeedsFloatOutput:
            return ToolError(.badInput, "\(name) \(description)",
                             suggestion: "Write a float format (e.g. 32-bit float WAV), or use --peak limit or --peak reduce.")
        case .nonFiniteInput:
            return ToolError(.badInput, "\(name) \(description)",
                             suggestion: "Measure the file again and normalise from the new measurement.")
        }
    }
}
