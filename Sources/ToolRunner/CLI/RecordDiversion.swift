import Foundation

/// Where records go when standard output carries audio (`--output -`): the runner must know, to
/// keep its failure lines off a stream that already holds the records.
package enum RecordDiversion {
    /// The original standard output, where the audio goes; 1 while records go there too.
    package nonisolated(unsafe) static var audioOutput: Int32 = 1

    /// Whether records go to standard error.
    package static var isDiverted: Bool { audioOutput != 1 }

    /// Keeps standard output for the audio and sends the records to standard error.
    package static func divert() {
        audioOutput = dup(1)
        _ = fcntl(audioOutput, F_SETFD, FD_CLOEXEC)
        dup2(2, 1)
    }
}
