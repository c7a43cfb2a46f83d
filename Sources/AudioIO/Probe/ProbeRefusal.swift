/// Why a file's bytes rule it out before a decoder sees it, or why its ends can't be read: the
/// facts; Tools/Errors/ProbeSentences.swift says them to a person.
public struct ProbeRefusal: Error, Equatable, Sendable {
    /// The file refused (named in the sentence).
    public var path: String
    public var reason: Reason

    public init(_ path: String, _ reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public enum Reason: Equatable, Sendable {
        /// A cloud-only placeholder; `name` is the file it stands for.
        case cloudOnly(name: String)
        /// Zero bytes; `audioName` when the file's extension names audio (it may be a placeholder).
        case empty(audioName: Bool)
        /// Copy protection: the scheme ("itun", "wmdrm", "audible", "cenc", ...).
        case protected(scheme: String)
        /// A known kind that isn't audio (an image, a document, a playlist...).
        case notAudio(ContainerKind)
        case midi
        /// No format this tool recognises.
        case unknownFormat
        /// The container parser's fault, in its words.
        case damaged(String)
        /// Where the file ends too soon, in the parser's words.
        case cutOff(String)
        /// No audio track; `video` when there is a video one.
        case noAudio(video: Bool)

        // Reading the ends (ProbeEnds)
        /// The header promises `promised` frames, but the end can't be reached.
        case endUnreachable(promised: Int)
        /// The header says 0 frames.
        case zeroFrames
        /// A header and no audio after it.
        case headerOnly
        /// The header promises `promised` frames; only `present` are there.
        case framesMissing(promised: Int, present: Int)
    }
}
