import Foundation

extension ParsedOptions {
    /// `--jobs`, or the number of cores.
    public func jobs() throws -> Int {
        try int("jobs") ?? ParsedOptions.cores
    }

    /// The cores this process may use, asked once: Foundation reads the affinity mask and the
    /// cgroup's quota files for it each time, and a run asks more than once as it starts.
    package static let cores = ProcessInfo.processInfo.activeProcessorCount
}

/// How many of the `--jobs` workers are busy, so one file can use a core no other file is using:
/// with one long file and two jobs, lufs-measure runs decoding, true peak and K-weighting as
/// pipeline stages on threads of their own (decided as the file starts). The answer only moves
/// work between threads, never changes a result.
public final class CoreBudget: @unchecked Sendable {
    public let jobs: Int
    private let lock = NSLock()
    private var busy = 0

    public init(jobs: Int) { self.jobs = jobs }

    /// Runs `body` as one busy worker.
    public func working<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); busy += 1; lock.unlock()
        defer { lock.lock(); busy -= 1; lock.unlock() }
        return try body()
    }

    /// Whether a core is idle now (fewer files in work than jobs).
    public var hasSpareCore: Bool {
        lock.lock(); defer { lock.unlock() }
        return busy < jobs
    }
}
