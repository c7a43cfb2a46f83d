import AudioSignal
import Foundation

/// Decodes on a thread of its own while the caller processes the blocks already decoded: the
/// decode and the DSP of one file overlap on two cores. Blocks reach `body` in order, the same
/// samples `Decoder.forEachBlock` would hand over (in larger blocks), so results that do not depend
/// on block sizes (the meter's) never depend on the threading; an error of the decoder is thrown
/// at the point in the stream where it happened. Every thread started here has ended by the time
/// this returns or throws, on every path.
///
/// `afterRead`, when given, runs on the decoding thread on each block just decoded, before `body`
/// gets it: a share of the DSP moved to that thread so that the two threads carry similar loads
/// (two threads on two cores switch far less than three would). It sees every block in order; it
/// and `body` run at the same time on different blocks, so they must touch disjoint state. It
/// never throws: when `body` throws or the decoder fails it is simply not handed the blocks after.
public enum ReadAhead {
    /// Blocks in flight: being decoded, waiting, and being processed.
    package static let depth = 4
    /// Frames per block: larger than `Decoder.blockFrames`, so that the threads hand over (and
    /// wake each other) less often. 64 Ki frames (1.4 s at 48 kHz) measured best on two cores:
    /// with 32 Ki a ten-minute stereo file took 8% more CPU and 11% more time.
    package static let blockFrames = 8 * Decoder.blockFrames

    @discardableResult
    public static func forEachBlock(_ source: AudioSource, afterRead: ((AudioBlock) -> Void)? = nil,
                                    _ body: (AudioBlock) throws -> Void) throws -> Int {
        let channels = source.format.channelCount
        let q = Queue(count: depth) { AudioBlock(channelCount: channels, capacity: blockFrames) }
        final class Work: @unchecked Sendable {
            let source: AudioSource
            let afterRead: ((AudioBlock) -> Void)?
            init(_ s: AudioSource, _ a: ((AudioBlock) -> Void)?) { source = s; afterRead = a }
        }
        let work = Work(source, afterRead)
        let started = CheckedThread.start(stackSize: 1 << 20) {
            while true {
                // Taken out of the queue, the block is this thread's alone: no copy on refill.
                guard var slot = q.takeEmpty() else { return }
                do {
                    let n = try work.source.read(into: &slot.block, maxFrames: blockFrames)
                    if n == 0 { q.finish(nil, unused: slot); return }
                    work.afterRead?(slot.block)
                    q.putFull(slot)
                } catch {
                    q.finish(error, unused: slot); return
                }
            }
        }
        // No decoding thread: nothing to wait for, the file fails as no-memory.
        if let rc = started { throw CheckedThread.failure(rc) }
        defer { q.cancel(); q.waitForDecoder() }
        var total = 0
        while let slot = q.takeFull() {
            total += slot.block.frames
            do { try body(slot.block) } catch { q.returnEmpty(slot); throw error }
            q.returnEmpty(slot)
        }
        if let e = q.decoderError { throw e }
        return total
    }

    /// A block and its place in the queue's pool.
    package struct Slot {
        package let id: Int
        package var block: AudioBlock
    }

    /// The hand-over between the decoding thread and the caller: full blocks in order, empty ones
    /// back, the end (or the decoder's error) after the last full block.
    package final class Queue: @unchecked Sendable {
        private let cond = NSCondition()
        private var empty: [Slot]
        private var full: [Slot] = []
        private var ended = false
        private var error: Error?
        private var cancelled = false
        private var decoderRunning = true

        package init(count: Int, make: () -> AudioBlock) {
            empty = (0..<count).map { Slot(id: $0, block: make()) }
        }

        /// An empty block to fill, or nil once the caller has stopped listening.
        package func takeEmpty() -> Slot? {
            cond.lock(); defer { cond.unlock() }
            while empty.isEmpty && !cancelled { cond.wait() }
            if cancelled { decoderRunning = false; cond.broadcast(); return nil }
            return empty.removeLast()
        }

        package func putFull(_ s: Slot) {
            cond.lock(); full.append(s); cond.broadcast(); cond.unlock()
        }

        /// The end of the stream, or the decoder's error, after the blocks already put; `unused` is
        /// the block the decoder had taken, back in the pool. The decoder stops here.
        package func finish(_ e: Error?, unused: Slot) {
            cond.lock()
            empty.append(unused)
            ended = true; error = e; decoderRunning = false
            cond.broadcast(); cond.unlock()
        }

        /// The next full block; nil at the end (or once cancelled).
        package func takeFull() -> Slot? {
            cond.lock(); defer { cond.unlock() }
            while full.isEmpty && !ended && !cancelled { cond.wait() }
            if cancelled || full.isEmpty { return nil }
            return full.removeFirst()
        }

        /// The decoder's error, once `takeFull` has returned nil.
        package var decoderError: Error? {
            cond.lock(); defer { cond.unlock() }
            return error
        }

        package func returnEmpty(_ s: Slot) {
            cond.lock(); empty.append(s); cond.broadcast(); cond.unlock()
        }

        package func cancel() {
            cond.lock(); cancelled = true; cond.broadcast(); cond.unlock()
        }

        /// Waits until the decoding thread has stopped touching anything.
        package func waitForDecoder() {
            cond.lock(); defer { cond.unlock() }
            while decoderRunning { cond.wait() }
        }
    }
}
