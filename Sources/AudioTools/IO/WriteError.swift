/// Why an output couldn't be written, as facts (the system's error number, libsndfile's message,
/// the step that failed); Tools/Errors/IOSentences.swift says them to a person.
public struct WriteError: Error, Equatable, Sendable {
    /// The output that failed.
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// What was being done when the system refused.
    public enum Step: Equatable, Sendable {
        case creatingFolder
        case writing
        case placing
    }

    public enum Problem: Equatable, Sendable {
        /// The system refused `step` with `errno`.
        case failed(Step, errno: Int32)
        /// Another file took the name while the output was being written.
        case appeared
        /// The output exists and overwriting wasn't asked for.
        case exists
        /// libsndfile can't write this format with these parameters.
        case formatRejected(channels: Int, sampleRate: Int)
        /// libsndfile refused to start writing (its message).
        case encoderRefused(libsndfile: String)
        /// A write stopped short: the system's `errno`, or 0 and libsndfile's message.
        case incomplete(errno: Int32, libsndfile: String)
        /// Closing failed: the system's `errno`, or 0 when it didn't say.
        case unfinished(errno: Int32)
    }
}
