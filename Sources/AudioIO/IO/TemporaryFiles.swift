import AudioSignal
import Foundation
import Glibc

/// Temporary files (and spool folders) still in use; removed if the process is interrupted
/// (SIGINT, SIGTERM, SIGHUP) by ChildProcess's handler, so a killed run leaves neither a partial
/// output nor its temporary file behind. The paths are kept in a fixed table of C strings that
/// the handler reads without locks or allocation (no dispatch source, which needs descriptors a
/// run under `ulimit -n` may not have). Every name carries the machine and the process id
/// (`nameSuffix`), so what a kill -9 leaves is removed by a later run
/// (AtomicOutput.removeAbandonedPartials).
public enum TemporaryFiles {
    private static let lock = NSLock()
    private static let slotCount = 4096
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slotCount)
        p.initialize(repeating: nil, count: slotCount)
        return p
    }()

    /// The end of every temporary name of ours: `-MACHINE-PID-RANDOM`, MACHINE eight hex digits
    /// naming this machine since its last boot, so a later run can tell a writer of its own that
    /// is gone from one on another machine sharing the folder (AtomicOutput.partialWriter).
    public static func nameSuffix() -> String {
        "-\(machine)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// This machine since its boot: a hash of the kernel's boot id (a process id is only
    /// meaningful within one boot), else of the host name.
    package static let machine: String = {
        var text = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if text.isEmpty {
            var host = [CChar](repeating: 0, count: 256)
            if gethostname(&host, host.count - 1) == 0 { text = String(cString: host) }
        }
        let h = XXHash64.hash(Array(text.utf8), seed: 0x6d61_6368)
        let hex = String(UInt32(truncatingIfNeeded: h ^ (h >> 32)), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }()

    public static func register(_ path: String) {
        ChildProcess.installHandlers()
        guard let c = PathBytes.withCString(path, { strdup($0) }) else { return }
        lock.lock(); defer { lock.unlock() }
        for i in 0..<slotCount where slots[i] == nil { slots[i] = c; return }
        free(c)
    }

    public static func unregister(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        PathBytes.withCString(path) { c in
            for i in 0..<slotCount {
                if let p = slots[i], strcmp(p, c) == 0 { slots[i] = nil; free(p); return }
            }
        }
    }

    /// Whether `path` is registered (for tests).
    public static func isRegistered(_ path: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return PathBytes.withCString(path) { c in (0..<slotCount).contains { slots[$0].map { strcmp($0, c) == 0 } ?? false } }
    }

    /// Removes every registered file, then every registered (now empty) folder. Async-signal-safe:
    /// only unlink(2) and rmdir(2) over the fixed table.
    package static func removeAll() {
        for i in 0..<slotCount { if let p = slots[i] { unlink(p) } }
        for i in 0..<slotCount { if let p = slots[i] { rmdir(p) } }
    }
}
