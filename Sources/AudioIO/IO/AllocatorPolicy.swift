#if canImport(Glibc)
import Glibc
#endif

/// How the C allocator treats memory freed between files, for runs that open many files in a
/// row (audio-probe, library-filter). Each file opened through libsndfile allocates decoder
/// buffers of a few hundred KiB; by default glibc serves those with fresh mappings (or returns
/// the freed top of its heap to the system), so every file faults its buffers in again, page by
/// page, which cost more than a fifth of a small file's probe. Kept instead, the next file reuses
/// the same pages. What is kept is bounded by the largest set of buffers in use at once.
public enum AllocatorPolicy {
    /// Applies the policy once per process; later calls do nothing.
    public static func reuseFreedMemory() { _ = applied }

    private static let applied: Bool = {
        #if canImport(Glibc)
        // glibc's <malloc.h> isn't part of the Glibc module: mallopt is looked up by name, and
        // its two parameters are glibc's stable values. Allocations under 4 MiB come from the
        // heap rather than their own mapping, and up to 64 MiB of free heap is kept rather than
        // handed back (glibc's defaults: 128 KiB, then adapting; and 128 KiB).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3
        return mallopt(mmapThreshold, 4 << 20) == 1 && mallopt(trimThreshold, 64 << 20) == 1
        #else
        return false
        #endif
    }()
}
