import Foundation
import Glibc

/// Checks, before a file is worked on, that the memory the process may still map (under a
/// `ulimit -v`) leaves room for the work: Swift stops the process outright when an allocation
/// fails, so a limit that is too low must be found while it can still be said (`no-memory`).
public enum MemoryHeadroom {
    /// What one file's work maps at most beyond what the process already has, with margin: the
    /// read-ahead and write-behind blocks, the meters, a decoder's buffers, two thread stacks.
    package static let bytes = 32 << 20

    /// Throws `no-memory` for `path` (empty: the run itself, before any file) when `bytes` more
    /// can't be mapped; free without a limit. At the start of a run it also keeps the worker
    /// threads, whose stacks couldn't be mapped, from never starting while the run waits for them.
    public static func check(_ path: String) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        guard let p = malloc(bytes) else {
            throw ResourceFailure(path, .noMemory, reason: "\(String(cString: strerror(ENOMEM))) under a limit of \(limit.rlim_cur >> 20) MB")
        }
        free(p)
    }
}
