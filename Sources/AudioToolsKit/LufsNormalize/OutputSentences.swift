import AudioIO
import Foundation
import ToolRunner

/// What a person reads when lufs-normalize's output for an input can't be claimed.
extension OutputClaimError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let name = ToolError.quoted(path)
        switch self {
        case .outsideRelativeTo:
            return ToolError(.badInput, "\(name) is not inside the --relative-to folder, so its place under --out-dir is unknown.",
                             suggestion: "Give a --relative-to folder that contains every input, or leave it out to keep only file names.")
        case .sharedWith(let others, let out):
            return ToolError(.exists, "\(name) and \(others.map(ToolError.quoted).joined(separator: ", ")) would all be written to \(ToolError.quoted(out)); none of them was written.",
                             suggestion: "Keep them apart with --output-template (e.g. '{dir}/{stem}.{ext}' under --out-dir, which keeps the folders), or normalise them in separate runs.")
        case .isTheInput:
            return ToolError(.exists, "Normalising \(name) would replace it: the output path is the input itself; nothing was written.",
                             suggestion: "Pass --in-place to replace the input on purpose, or choose another --out-dir or --output-template.")
        case .isAnotherInput(let out):
            return ToolError(.exists, "Normalising \(name) would replace another input, \(ToolError.quoted(out)); nothing was written.",
                             suggestion: "Choose an --out-dir or --output-template that doesn't point at the inputs.")
        case .claimedEarlier(let out, let earlier):
            return ToolError(.exists, "\(name) would be written to \(ToolError.quoted(out)), which \(ToolError.quoted(earlier)) earlier in the input also writes; \(name) was not written.",
                             suggestion: "Keep them apart with --relative-to (to keep folders under --out-dir) or --output-template, or normalise them in separate runs.")
        }
    }
}

/// ... when the output can't be written in the format asked.
extension LufsNormalizeFormat.Problem: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        let why: String
        switch self {
        case .depthNotHeld(let c, let d): why = "\(c) can't hold \(d) samples"
        case .notWritable(let what): why = "this build can't write \(what)"
        }
        return ToolError(.unsupportedCodec, "\(ToolError.quoted(path)) can't be written as asked: \(why).",
                         suggestion: "Choose another --format or --bit-depth (WAV takes every depth and channel count).")
    }
}

/// ... when gain tags have no place in a file.
extension GainTagError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        switch self {
        case .noPlaceForTags(let container):
            return ToolError(.unsupportedCodec, "\(ToolError.quoted(path)) is \(container.uppercased()), which has no place for ReplayGain tags that players read; nothing was written.",
                             suggestion: "Keep the gain in another way (lufs-normalize --out-dir writes normalised audio), or convert the file to FLAC, which holds the tags.")
        }
    }
}
