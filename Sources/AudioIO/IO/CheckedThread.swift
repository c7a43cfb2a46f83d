import Foundation
import Glibc

/// A thread started with pthread_create, whose failure is told: Foundation's Thread starts
/// nothing when the system can't make a thread (no memory for its stack under `ulimit -v`, too
/// many threads), and whoever then waits for it waits forever.
package enum CheckedThread {
    private final class Body { let run: () -> Void; init(_ r: @escaping () -> Void) { run = r } }

    /// Starts `body` on a detached thread with a `stackSize`-byte stack; nil, or the system's
    /// error number when no thread could be made (`body` then never runs).
    package static func start(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) -> Int32? {
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        pthread_attr_setstacksize(&attr, stackSize)
        pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attr, { p in
            Unmanaged<Body>.fromOpaque(p!).takeRetainedValue().run()
            return nil
        }, context)
        guard rc != 0 else { return nil }
        Unmanaged<Body>.fromOpaque(context).release()
        return rc
    }

    /// The `no-memory` failure of a thread that couldn't be made (EAGAIN is the system's word for it).
    package static func failure(_ rc: Int32) -> ResourceFailure {
        ResourceFailure("", ResourceFailure.kind(errno: rc) ?? .noMemory, reason: "no thread could be started: \(String(cString: strerror(rc)))")
    }
}
