import Foundation

/// Why a child program could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let program: String
    public let errno: Int32
    public var description: String { "\(program) could not be started: \(String(cString: strerror(errno)))" }
}

/// A child program (ffmpeg) started with posix_spawn, with its stdout and optionally its stdin as
/// pipes and its stderr kept in an anonymous memory file, so no thread has to drain it and the
/// child can never block on it. Every running child is registered: `end()`, `deinit`, SIGINT,
/// SIGTERM, SIGHUP and `exit` all kill and reap it, so no path leaves one running or blocked on a
/// pipe nobody reads.
public final class ChildProcess {
    public enum Input { case null, pipe }
    public enum Output { case pipe, null }

    /// How the child ended: its exit status (or 128 + signal) and what it wrote on stderr.
    public struct Termination {
        public var status: Int32
        public var stderr: String
    }

    public let pid: pid_t
    public let program: String
    private var outFD: Int32 = -1
    private var inFD: Int32 = -1
    private var errFD: Int32 = -1
    /// Write ends of the extra input pipes (the child's fds 3, 4, ...); -1 once closed.
    private var extraFDs: [Int32] = []
    private let extraLock = NSLock()
    private var termination: Termination?

    /// Starts `path` with `arguments`. The pipes are close-on-exec in this process, so a child
    /// started on another thread never inherits them (which would keep a pipe open forever).
    /// `extraInputs` more input pipes reach the child as fds 3, 4, ... (ffmpeg's `pipe:3`), each
    /// written with `write(_:toExtra:)` and ended with `closeExtra(_:)`.
    public init(_ path: String, _ arguments: [String], stdin: Input = .null, stdout: Output = .pipe,
                extraInputs: Int = 0) throws {
        let name = (path as NSString).lastPathComponent
        program = name
        ChildProcess.installHandlers()
        var inFD: Int32 = -1, outFD: Int32 = -1, errFD: Int32 = -1
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        var toClose: [Int32] = []
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attr)
            for fd in toClose { Glibc.close(fd) }
        }
        var extra: [Int32] = []
        func fail(_ e: Int32) -> ChildProcessError {
            for fd in [outFD, inFD, errFD] + extra where fd >= 0 { Glibc.close(fd) }
            return ChildProcessError(program: name, errno: e)
        }
        // The child gets default dispositions for the signals this process ignores or handles.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        // Each argument's bytes as PathBytes has them, so a file name that isn't UTF-8 reaches the child intact.
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { a in PathBytes.withCString(a) { strdup($0) } } + [nil]
        defer { for p in argv { free(p) } }
        var child: pid_t = 0
        // Pipes are made and the child spawned under one lock, and every descriptor of ours is
        // close-on-exec before the lock is released, so a child started on another thread never
        // inherits another child's pipe (which would keep that pipe open forever). The child is
        // registered as soon as it exists; a signal in that instant still ends it, since its
        // stdout pipe closes when this process dies.
        ChildProcess.lock.lock()
        defer { ChildProcess.lock.unlock() }
        func makePipe() -> (read: Int32, write: Int32)? {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { return nil }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
        switch stdin {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            guard let p = makePipe() else { throw fail(errno) }
            inFD = p.write; toClose.append(p.read)
            posix_spawn_file_actions_adddup2(&actions, p.read, 0)
        }
        switch stdout {
        case .null: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .pipe:
            guard let p = makePipe() else { throw fail(errno) }
            outFD = p.read; toClose.append(p.write)
            posix_spawn_file_actions_adddup2(&actions, p.write, 1)
        }
        // Extra input pipes: the read ends are first moved above the fds they will become, so
        // one dup2 never overwrites a read end another dup2 still needs.
        for i in 0..<max(0, extraInputs) {
            guard let p = makePipe() else { throw fail(errno) }
            let high = fcntl(p.read, F_DUPFD_CLOEXEC, Int32(3 + extraInputs + 16))
            Glibc.close(p.read)
            guard high >= 0 else { Glibc.close(p.write); throw fail(errno) }
            extra.append(p.write); toClose.append(high)
            posix_spawn_file_actions_adddup2(&actions, high, Int32(3 + i))
        }
        // stderr goes to an unlinked temporary file: nothing to drain, nothing left on disk.
        var template = Array((NSTemporaryDirectory() + "/audio-tools-stderr-XXXXXX").utf8CString)
        errFD = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if errFD >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        // Kept above the extra inputs' numbers: a file that got fd 3 would be replaced by the
        // first extra pipe before it became fd 2, and ffmpeg's errors (a full disk) were lost.
        if errFD >= 0, errFD < Int32(3 + extraInputs) {
            let high = fcntl(errFD, F_DUPFD_CLOEXEC, Int32(3 + extraInputs + 16))
            Glibc.close(errFD)
            errFD = high
        }
        if errFD >= 0 {
            _ = fcntl(errFD, F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let rc = posix_spawn(&child, path, &actions, &attr, argv, environ)
        guard rc == 0 else { throw fail(rc) }
        ChildProcess.register(child)
        pid = child
        self.inFD = inFD; self.outFD = outFD; self.errFD = errFD
        self.extraFDs = extra
    }

    deinit { end() }

    /// Reads up to `count` bytes of the child's stdout into `buffer`; 0 at the end of the stream.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        guard outFD >= 0 else { return 0 }
        while true {
            let n = Glibc.read(outFD, buffer, count)
            if n >= 0 { return n }
            if errno != EINTR { return 0 }
        }
    }

    /// Reads up to `count` bytes of stdout; empty at the end of the stream.
    public func readData(upTo count: Int) -> Data {
        var data = Data(count: count)
        let n = data.withUnsafeMutableBytes { read(into: $0.baseAddress!, count: count) }
        data.count = n
        return data
    }

    /// Writes all of `bytes` to the child's stdin; false when the child stopped reading.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard inFD >= 0, var p = bytes.baseAddress else { return bytes.isEmpty }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(inFD, p, left)
            if n < 0 { if errno == EINTR { continue }; return false }
            p += n; left -= n
        }
        return true
    }

    /// Writes all of `bytes` to extra input pipe `i` (the child's fd 3 + i); false when the child
    /// stopped reading it or the pipe is closed. Each extra pipe may be written from its own thread.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer, toExtra i: Int) -> Bool {
        extraLock.lock()
        let fd = i < extraFDs.count ? extraFDs[i] : -1
        extraLock.unlock()
        guard fd >= 0, var p = bytes.baseAddress else { return bytes.isEmpty && fd >= 0 }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 { if errno == EINTR { continue }; return false }
            p += n; left -= n
        }
        return true
    }

    /// Closes extra input pipe `i`, so the child sees the end of that input.
    public func closeExtra(_ i: Int) {
        extraLock.lock(); defer { extraLock.unlock() }
        if i < extraFDs.count, extraFDs[i] >= 0 { Glibc.close(extraFDs[i]); extraFDs[i] = -1 }
    }

    /// Stops reading the child's stdout: its next write fails (as with `| head -1`).
    public func closeOutput() {
        if outFD >= 0 { Glibc.close(outFD); outFD = -1 }
    }

    /// Closes the child's stdin, so it sees the end of its input.
    public func closeInput() {
        if inFD >= 0 { Glibc.close(inFD); inFD = -1 }
        for i in extraFDs.indices { closeExtra(i) }
    }

    /// Waits for the child to end by itself (after its stdout reached its end, or its input was
    /// closed) and reaps it.
    @discardableResult
    public func wait() -> Termination {
        if let t = termination { return t }
        closeInput()
        return reap()
    }

    /// Ends the child now, whatever it is doing: closes the pipes, kills it and reaps it. Safe to
    /// call more than once, and after `wait()`.
    @discardableResult
    public func end() -> Termination {
        if let t = termination { return t }
        // SIGKILL, not SIGTERM: ffmpeg only notes a SIGTERM and stays blocked in a write. Killed
        // before the pipes close, so a thread blocked writing to an extra pipe gets EPIPE at once.
        Glibc.kill(pid, SIGKILL)
        closeInput()
        closeOutput()
        return reap()
    }

    private func reap() -> Termination {
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        ChildProcess.lock.lock()
        ChildProcess.unregister(pid)
        ChildProcess.lock.unlock()
        closeOutput()
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (they are macros in C).
        let status = (st & 0x7f) == 0 ? (st >> 8) & 0xff : 128 + (st & 0x7f)
        var text = Data()
        if errFD >= 0 {
            var buf = [UInt8](repeating: 0, count: 65536)
            var off: off_t = 0
            while text.count < 1 << 20 {
                let n = buf.withUnsafeMutableBytes { pread(errFD, $0.baseAddress, $0.count, off) }
                if n <= 0 { break }
                text.append(contentsOf: buf[0..<n]); off += off_t(n)
            }
            Glibc.close(errFD); errFD = -1
        }
        let t = Termination(status: status, stderr: String(decoding: text, as: UTF8.self))
        termination = t
        return t
    }

    // MARK: the registry the signal handler reads

    private static let lock = NSLock()
    private static let slotCount = 4096
    /// Running children's pids, 0 for a free slot. A fixed array, so the signal handler reads it
    /// without locks or allocation.
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<pid_t> = {
        let p = UnsafeMutablePointer<pid_t>.allocate(capacity: slotCount)
        p.initialize(repeating: 0, count: slotCount)
        return p
    }()

    private static func register(_ pid: pid_t) {
        for i in 0..<slotCount where slots[i] == 0 { slots[i] = pid; return }
    }

    private static func unregister(_ pid: pid_t) {
        for i in 0..<slotCount where slots[i] == pid { slots[i] = 0; return }
    }

    /// Kills every registered child (async-signal-safe: only kill(2) over a fixed array).
    package static func killAll() {
        for i in 0..<slotCount {
            let p = slots[i]
            if p > 0 { Glibc.kill(p, SIGKILL) }
        }
    }

    /// Kills every registered child and waits (up to two seconds) until each is gone, without
    /// reaping it: a child inside open(2) when the signal lands still creates its file, so the
    /// temporary files are removed only once no child can make one again (async-signal-safe).
    package static func killAllAndWait() {
        killAll()
        for i in 0..<slotCount {
            let p = slots[i]
            guard p > 0 else { continue }
            for _ in 0..<200 {
                var info = siginfo_t()  // si_pid stays 0 while the child runs (WNOHANG)
                if waitid(P_PID, id_t(p), &info, WEXITED | WNOWAIT | WNOHANG) != 0 || info._sifields._sigchld.si_pid == p { break }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
        }
    }

    /// Whether `pid` is a running child of ours that signals and exit would kill (for tests).
    public static func isRegistered(_ pid: pid_t) -> Bool {
        lock.lock(); defer { lock.unlock() }
        return (0..<slotCount).contains { slots[$0] == pid }
    }

    nonisolated(unsafe) private static var installed = false

    /// On SIGINT, SIGTERM and SIGHUP: kill the children and remove the temporary files
    /// (TemporaryFiles), then die of the same signal, so the
    /// shell sees the usual status. At exit (a closed stdout, a usage error): kill them too.
    /// Installed once, when the first child starts.
    package static func installHandlers() {
        lock.lock(); defer { lock.unlock() }
        if installed { return }
        installed = true
        for s in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(s) { sig in
                // Children first, so none is left writing into a temporary file once it is removed.
                ChildProcess.killAllAndWait()
                TemporaryFiles.removeAll()
                signal(sig, SIG_DFL)
                raise(sig)
            }
            // A signal the parent set to be ignored (SIGINT for `tool &` in a script) stays ignored.
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(s, SIG_IGN)
            }
        }
        atexit { ChildProcess.killAll() }
    }
}
