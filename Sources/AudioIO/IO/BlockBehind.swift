import AudioSignal
import Foundation

/// Planar blocks handed, in order, to `body` on a thread of its own: a meter of what is being
/// written runs beside the work that makes the samples. The blocks are gathered into runs of
/// 64 Ki frames (the threads wake each other seldom), so `body` must not depend on how the stream
/// is cut (a loudness meter doesn't). Bounded: `add` waits while `depth` runs are queued.
/// `finish` hands over the rest and waits for `body` to have seen it; dropped without `finish`
/// (a pass abandoned), the thread stops and ends before the deinit returns.
package final class BlockBehind {
    package static let depth = 3
    package static let handOverFrames = 65_536

    /// What the thread holds: the queue, never the handle, so dropping the handle stops it.
    private final class State: @unchecked Sendable {
        let cond = NSCondition()
        var pool: [AudioBlock]
        var queue: [AudioBlock] = []
        var closing = false, cancelled = false, running = true
        /// No thread could be started: `put` runs `body` itself.
        var inline = false
        let body: (AudioBlock) -> Void

        init(pool: [AudioBlock], body: @escaping (AudioBlock) -> Void) {
            self.pool = pool
            self.body = body
        }

        func run() {
            while true {
                cond.lock()
                while queue.isEmpty && !closing && !cancelled { cond.wait() }
                if cancelled || queue.isEmpty {
                    running = false
                    cond.broadcast()
                    cond.unlock()
                    return
                }
                let block = queue.removeFirst()
                cond.unlock()
                body(block)
                cond.lock()
                pool.append(block)
                cond.broadcast()
                cond.unlock()
            }
        }

        func takeEmpty() -> AudioBlock {
            cond.lock(); defer { cond.unlock() }
            while pool.isEmpty { cond.wait() }
            return pool.removeLast()
        }

        func put(_ block: AudioBlock) {
            if inline {
                body(block)
                cond.lock(); pool.append(block); cond.unlock()
                return
            }
            cond.lock(); queue.append(block); cond.broadcast(); cond.unlock()
        }

        /// Ends the thread, after the queued runs (`drop`: without them), and waits for it.
        func end(drop: Bool) {
            cond.lock()
            if drop { cancelled = true } else { closing = true }
            cond.broadcast()
            while running { cond.wait() }
            cond.unlock()
        }
    }

    private let state: State
    private var current: AudioBlock?
    private var ended = false

    package init(channels: Int, body: @escaping (AudioBlock) -> Void) {
        state = State(pool: (0..<Self.depth).map { _ in AudioBlock(channelCount: channels, capacity: Self.handOverFrames) }, body: body)
        let s = state
        // No thread: the blocks are metered on the caller's thread instead; nothing waits.
        if CheckedThread.start(stackSize: 1 << 20, { s.run() }) != nil {
            s.inline = true
            s.running = false
        }
    }

    deinit { if !ended { state.end(drop: true) } }

    /// Copies `block`'s frames into the run being gathered, handing it over when full.
    package func add(_ block: AudioBlock) {
        precondition(!ended, "BlockBehind: add after finish")
        var start = 0
        while start < block.frames {
            if current == nil {
                current = state.takeEmpty()
                current!.frames = 0
            }
            let n = min(block.frames - start, Self.handOverFrames - current!.frames)
            let at = current!.frames
            for c in 0..<block.channels.count {
                block.channels[c].withUnsafeBufferPointer { s in
                    current!.channels[c].withUnsafeMutableBufferPointer { d in
                        (d.baseAddress! + at).update(from: s.baseAddress! + start, count: n)
                    }
                }
            }
            current!.frames += n
            start += n
            if current!.frames == Self.handOverFrames {
                state.put(current!)
                current = nil
            }
        }
    }

    /// Hands over what is gathered and waits until `body` has seen every frame.
    package func finish() {
        guard !ended else { return }
        if let c = current, c.frames > 0 { state.put(c) }
        current = nil
        ended = true
        state.end(drop: false)
    }
}
