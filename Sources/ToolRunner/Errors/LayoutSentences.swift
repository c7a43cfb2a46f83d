import AudioSignal
import Foundation

/// What a person reads for a `--layout` value that names no layout.
extension LayoutError: ToolErrorConvertible, CustomStringConvertible {
    public func toolError(path: String) -> ToolError {
        ToolError(.badInput,
                  channel.map { "The layout “\(text)” has an unknown channel name “\($0)” at position \(position)." }
                      ?? "The layout “\(text)” has an empty channel name at position \(position).",
                  suggestion: "Use a name such as stereo, 5.1, 7.1 or 7.1.4, or a comma list of L, R, C, LFE, Ls, Rs (±110°), Lss, Rss (±90°), Lb, Rb (±135°), Ltf, Rtf, Ltb, Rtb (heights); FL, SL, BL, TFL and BS.2051 codes such as M+030 are accepted too.")
    }

    /// The sentence and suggestion, as `--layout`'s usage error quotes them.
    public var description: String { toolError(path: "").description }
}

/// What a person reads when `--layout` names another number of channels than the file has.
extension LayoutCountMismatch: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        ToolError(.malformed, "\(ToolError.quoted(path)) has \(channels) channels but --layout names \(named).",
                  suggestion: "Give a --layout with \(channels) channels, or leave it out to use the file's own.")
    }
}
