#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM as a request to stop reading, not to die: for a live meter, which ends
/// its measurement on what was read and reports it. The handler writes one byte to a pipe that
/// every blocked reader polls beside its input, whichever thread the signal lands on. A second
/// signal ends the process at once (its children killed first), as ChildProcess's handler does.
public enum SignalStop {
    nonisolated(unsafe) private static var pipeFDs: (read: Int32, write: Int32) = (-1, -1)
    nonisolated(unsafe) private static var caughtSignal: Int32 = 0

    /// The read end to poll beside an input; -1 when not armed.
    public static var fd: Int32 { pipeFDs.read }
    /// The signal that asked to stop, once one has.
    public static var caught: Int32? { caughtSignal == 0 ? nil : caughtSignal }
    /// The exit status for a run a signal stopped (128 + its number), as a shell reports it.
    public static var exitStatus: Int32? { caught.map { 128 + $0 } }

    /// Installs the handlers (once). ChildProcess's own handlers are installed first, so a
    /// child started later doesn't replace these.
    public static func arm() {
        guard pipeFDs.read < 0 else { return }
        ChildProcess.installHandlers()
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for f in fds { _ = fcntl(f, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        pipeFDs = (fds[0], fds[1])
        // Unblocked here, on the main thread before any worker starts (threads inherit the mask).
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for s in [SIGINT, SIGTERM] {
            let previous = signal(s) { sig in
                if SignalStop.caughtSignal != 0 {
                    ChildProcess.killAllAndWait()
                    TemporaryFiles.removeAll()
                    signal(sig, SIG_DFL)
                    raise(sig)
                    return
                }
                SignalStop.caughtSignal = sig
                var b: UInt8 = 1
                _ = write(SignalStop.pipeFDs.write, &b, 1)
            }
            // A signal the parent set to be ignored (SIGINT for `tool &` in a script) stays ignored.
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(s, SIG_IGN)
            }
        }
    }

    /// Whether a stop was asked for (without blocking).
    public static var requested: Bool { caughtSignal != 0 }

    /// Waits up to `milliseconds` for a stop; true if one was asked for.
    public static func wait(milliseconds: Int32) -> Bool {
        guard fd >= 0 else { usleep(useconds_t(milliseconds) * 1000); return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, milliseconds)
        return requested
    }
}
