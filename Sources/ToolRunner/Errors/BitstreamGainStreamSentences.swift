import AudioIO
import Foundation

/// What a person reads when one audio stream of a file keeps lufs-normalize --lossless-gain from
/// changing the file: the stream's own refusal, naming the stream, and why the others weren't
/// changed either.
extension BitstreamGainStreamError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        var e = reason.toolError(path: path)
        let name = ToolError.quoted(path)
        if let r = e.message.range(of: name) { e.message.replaceSubrange(r, with: "\(name)'s audio stream \(stream)") }
        let why = "--lossless-gain changes every audio stream of a file, each by its own gain, or none"
        if e.message.hasSuffix("nothing was written.") {
            e.message = String(e.message.dropLast()) + " (\(why))."
        } else {
            e.message += " Nothing was written (\(why))."
        }
        return e
    }
}
