#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Reading an input through a read-only mapping of it: a scan that looks at a few bytes of every
/// page reads the page cache in place instead of copying the whole file out of it.
extension InputReader {
    /// `body` over the file's first `size` bytes, mapped read-only; nil, without calling `body`,
    /// when they can't be mapped (an empty file, no mapping to be had), so the caller reads them
    /// instead. A file cut short while mapped would raise SIGBUS: its lost pages read as zeros
    /// instead, and this throws the read failure a short read throws, whatever `body` made of them.
    public func withMappedBytes<R>(size: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        guard size > 0, let slot = MappedReadGuard.claim() else { return nil }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            MappedReadGuard.release(slot)
            return nil
        }
        MappedReadGuard.watch(slot, start: Int(bitPattern: p), count: size)
        defer {
            MappedReadGuard.release(slot)
            munmap(p, size)
        }
        let result = Result { try body(UnsafeRawBufferPointer(start: p, count: size)) }
        if MappedReadGuard.faulted(slot) { throw FileAccessError(path, .readFailed) }
        return try result.get()
    }
}

/// The mappings being read, for the SIGBUS handler: a fault inside one (its file was cut short)
/// gets a page of zeros mapped over it and is noted; any other fault goes to the handler that was
/// there before (by default the signal kills the process, as it would have).
package enum MappedReadGuard {
    /// Mappings read at once (one per job); past that a reader reads without a mapping.
    package static let slots = 64

    /// Per slot: the mapping's start, its end (0 free, -1 claimed), and whether it faulted.
    package nonisolated(unsafe) static let table: UnsafeMutablePointer<Atomic<Int>> = {
        let t = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: 3 * slots)
        for i in 0..<(3 * slots) { (t + i).initialize(to: Atomic(0)) }
        return t
    }()

    package nonisolated(unsafe) static var previous = sigaction()
    package nonisolated(unsafe) static var pageSize = 4096

    /// The handler, installed before the first mapping.
    package static let installed: Bool = {
        _ = table
        pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = onSIGBUS
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, &previous) == 0
    }()

    package static func claim() -> Int? {
        guard installed else { return nil }
        for i in 0..<slots where table[3 * i + 1].compareExchange(expected: 0, desired: -1, ordering: .acquiringAndReleasing).exchanged {
            return i
        }
        return nil
    }

    package static func watch(_ slot: Int, start: Int, count: Int) {
        table[3 * slot + 2].store(0, ordering: .relaxed)
        table[3 * slot].store(start, ordering: .relaxed)
        table[3 * slot + 1].store(start + count, ordering: .releasing)
    }

    package static func faulted(_ slot: Int) -> Bool { table[3 * slot + 2].load(ordering: .acquiring) != 0 }

    package static func release(_ slot: Int) { table[3 * slot + 1].store(0, ordering: .releasing) }
}

/// SIGBUS: a read past the end of a mapped file that shrank, or someone else's fault.
private func onSIGBUS(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    let t = MappedReadGuard.table
    if let info {
        let address = Int(bitPattern: info.pointee._sifields._sigfault.si_addr)
        for i in 0..<MappedReadGuard.slots {
            let end = t[3 * i + 1].load(ordering: .acquiring)
            guard end > 0, address < end, address >= t[3 * i].load(ordering: .relaxed) else { continue }
            let page = address & ~(MappedReadGuard.pageSize - 1)
            t[3 * i + 2].store(1, ordering: .releasing)
            _ = mmap(UnsafeMutableRawPointer(bitPattern: page), MappedReadGuard.pageSize, PROT_READ,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            return
        }
    }
    // Not ours: the handler before ours takes it; a default or ignored one is put back, and the
    // access, made again, then does what it would have done without us.
    let before = MappedReadGuard.previous
    if before.sa_flags & SA_SIGINFO != 0, let handler = before.__sigaction_handler.sa_sigaction {
        handler(signal, info, context)
        return
    }
    var restore = before
    sigaction(SIGBUS, &restore, nil)
}
