import Foundation

/// Buffers handed, in order, to `write` on a thread of its own, so an encoder (and the kernel
/// copying its bytes into the page cache) runs beside the work that makes the samples. Bounded:
/// `fill` waits while `depth` buffers are queued. The first failure stops the thread; `fill`
/// and `finish` then return it. Order is kept, so the bytes written are the same either way.
/// The thread holds this object until `finish`: its owner calls it on every path (SndfileSink
/// does in `finishEncoding` and `abandon`, which its deinit calls).
package final class WriteBehind: @unchecked Sendable {
    /// A buffer of interleaved samples, how many frames it holds, and the frames of each `fill`
    /// in it: a codec's output can depend on how its input was cut (libsndfile's Vorbis does), so
    /// the writer hands the encoder the caller's pieces, not the gathered run.
    package struct Buffer {
        package var samples: [Float] = []
        package var frames = 0
        package var pieces: [Int] = []
    }

    package static let depth = 4
    /// Frames gathered before a buffer is handed over: like ReadAhead's blocks, large, so the
    /// threads wake each other seldom.
    package static let handOverFrames = 65_536
    private let cond = NSCondition()
    /// The buffer being filled, not yet queued.
    private var current: Buffer?
    private var pool: [Buffer]
    private var queue: [Buffer] = []
    private var closing = false
    private var dropping = false
    private var running = true
    private var failure: WriteError.Problem?
    private let write: (Buffer) -> WriteError.Problem?

    /// `write` runs on the thread, one buffer at a time (see `Buffer.pieces`); it returns nil, or why it failed.
    package init(write: @escaping (Buffer) -> WriteError.Problem?) {
        self.write = write
        pool = Array(repeating: Buffer(), count: Self.depth)
        // No thread: every wait ends at once, and the output fails with the system's reason.
        if let rc = CheckedThread.start(stackSize: 1 << 20, { [self] in run() }) {
            running = false
            failure = .incomplete(errno: rc == EAGAIN ? ENOMEM : rc, libsndfile: "")
        }
    }

    /// Adds `frames` frames to the buffer being filled, `body` writing them (interleaved) from
    /// the pointer it gets; queues the buffer once it holds `handOverFrames`. `channels`: samples a
    /// frame. nil, or the failure that stopped the thread.
    package func fill(frames: Int, channels: Int, _ body: (UnsafeMutablePointer<Float>) -> Void) -> WriteError.Problem? {
        var b: Buffer
        if let c = current {
            b = c
            current = nil
        } else {
            cond.lock()
            while pool.isEmpty && failure == nil && running { cond.wait() }
            if let failure { cond.unlock(); return failure }
            b = pool.removeLast()
            cond.unlock()
            b.frames = 0
            b.pieces.removeAll(keepingCapacity: true)
        }
        let start = b.frames * channels, needed = start + frames * channels
        if b.samples.count < needed {
            b.samples.append(contentsOf: repeatElement(0, count: max(needed, Self.handOverFrames * channels) - b.samples.count))
        }
        b.samples.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
        b.frames += frames
        b.pieces.append(frames)
        current = b
        if b.frames >= Self.handOverFrames { queueCurrent() }
        return nil
    }

    private func queueCurrent() {
        guard let b = current else { return }
        current = nil
        cond.lock()
        queue.append(b)
        cond.broadcast()
        cond.unlock()
    }

    /// Waits until every queued buffer is written (or dropped, `discarding`) and the thread has
    /// ended; nil, or the failure that stopped it.
    @discardableResult
    package func finish(discarding: Bool = false) -> WriteError.Problem? {
        if discarding { current = nil } else { queueCurrent() }
        cond.lock(); defer { cond.unlock() }
        closing = true
        if discarding { dropping = true }
        cond.broadcast()
        while running { cond.wait() }
        return failure
    }

    private func run() {
        cond.lock()
        while true {
            while queue.isEmpty && !closing { cond.wait() }
            if queue.isEmpty || dropping { break }
            let b = queue.removeFirst()
            cond.unlock()
            let failed = write(b)
            cond.lock()
            pool.append(b)
            if let failed { failure = failed; break }
            cond.broadcast()
        }
        running = false
        queue.removeAll()
        cond.broadcast()
        cond.unlock()
    }
}
