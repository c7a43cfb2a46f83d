import Foundation

/// Decodes on a thread of its own while the caller processes the blocks already decoded: the
/// decode and the DSP of one file overlap on two cores. Blocks reach `body` in order, the same
/// samples `Decoder.forEachBlock` would hand over (in larger blocks), so results that do not depend
/// on block sizes (the meter's) never depend on the threading; an error
/// of the decoder is thrown at the point in the stream where it happened. Every thread started
/// here has ended by the time this returns or throws, on every path.
///
/// With `beside`, a third stage runs on a thread of its own too: it is handed every block, in
/// order, as `body` is, and a block is decoded into again only once both are done with it. The
/// two stages run at their own pace (up to `depth` blocks apart), so neither waits for the other
/// block by block; they must touch disjoint state. `beside` never throws: when `body` throws or
/// the decoder fails it is simply not handed the blocks after that.
public enum ReadAhead {
    /// Blocks in flight: being decoded, waiting, and being processed by each stage.
    static let depth = 6
    /// Frames per block: larger than `Decoder.blockFrames`, so that the threads hand over (and
    /// wake each other) less often.
    static let blockFrames = 4 * Decoder.blockFrames

    @discardableResult
    public static func forEachBlock(_ source: AudioSource, beside: ((AudioBlock) -> Void)? = nil,
                                    _ body: (AudioBlock) throws -> Void) throws -> Int {
        let channels = source.format.channelCount
        let q = Queue(count: depth, consumers: beside == nil ? 1 : 2) {
            AudioBlock(channelCount: channels, capacity: blockFrames)
        }
        final class SourceBox: @unchecked Sendable { let source: AudioSource; init(_ s: AudioSource) { source = s } }
        let box = SourceBox(source)
        let producer = Thread {
            while true {
                // Taken out of the queue, the block is this thread's alone: no copy on refill.
                guard var slot = q.takeEmpty() else { return }
                do {
                    let n = try box.source.read(into: &slot.block, maxFrames: blockFrames)
                    if n == 0 { q.finish(nil, unused: slot); return }
                    q.putFull(slot)
                } catch {
                    q.finish(error, unused: slot); return
                }
            }
        }
        producer.stackSize = 1 << 20
        producer.start()
        if let beside {
            final class StageBox: @unchecked Sendable { let run: (AudioBlock) -> Void; init(_ r: @escaping (AudioBlock) -> Void) { run = r } }
            let stage = StageBox(beside)
            let side = Thread {
                while let slot = q.takeFull(consumer: 1) {
                    stage.run(slot.block)
                    q.returnEmpty(slot)
                }
                q.consumerEnded()
            }
            side.stackSize = 1 << 20
            side.start()
        }
        defer { q.cancel(); q.waitForThreads() }
        var total = 0
        while let slot = q.takeFull(consumer: 0) {
            total += slot.block.frames
            do { try body(slot.block) } catch { q.returnEmpty(slot); throw error }
            q.returnEmpty(slot)
        }
        if let e = q.decoderError { throw e }
        // The side stage has seen every block once the queue has them all back.
        q.waitUntilDrained()
        return total
    }

    /// A block and its place in the queue's pool.
    struct Slot {
        let id: Int
        var block: AudioBlock
    }

    /// The hand-over between the decoding thread and the one or two stages: full blocks in order
    /// to each stage, empty ones back once every stage has returned them, the end (or the
    /// decoder's error) after the last full block.
    final class Queue: @unchecked Sendable {
        private let cond = NSCondition()
        private let count: Int
        private let consumers: Int
        private var empty: [Slot]
        /// Each stage's blocks waiting, oldest first.
        private var full: [[Slot]]
        /// Per slot, how many stages still hold it.
        private var holders: [Int]
        private var ended = false
        private var error: Error?
        private var cancelled = false
        /// Threads (the decoder, the side stage) that have not stopped yet.
        private var running: Int

        init(count: Int, consumers: Int, make: () -> AudioBlock) {
            self.count = count
            self.consumers = consumers
            empty = (0..<count).map { Slot(id: $0, block: make()) }
            full = Array(repeating: [], count: consumers)
            holders = Array(repeating: 0, count: count)
            running = consumers    // the decoder, plus the side stage when there is one
        }

        /// An empty block to fill, or nil when the stages have stopped listening.
        func takeEmpty() -> Slot? {
            cond.lock(); defer { cond.unlock() }
            while empty.isEmpty && !cancelled { cond.wait() }
            if cancelled { running -= 1; cond.broadcast(); return nil }
            return empty.removeLast()
        }

        func putFull(_ s: Slot) {
            cond.lock()
            holders[s.id] = consumers
            for c in 0..<consumers { full[c].append(s) }
            cond.broadcast(); cond.unlock()
        }

        /// The end of the stream, or the decoder's error, after the blocks already put; `unused` is
        /// the block the decoder had taken, back in the pool.
        func finish(_ e: Error?, unused: Slot) {
            cond.lock()
            empty.append(unused)
            ended = true; error = e; running -= 1
            cond.broadcast(); cond.unlock()
        }

        /// Stage `consumer`'s next full block; nil at the end (or once cancelled).
        func takeFull(consumer: Int) -> Slot? {
            cond.lock(); defer { cond.unlock() }
            while full[consumer].isEmpty && !ended && !cancelled { cond.wait() }
            if cancelled || full[consumer].isEmpty { return nil }
            return full[consumer].removeFirst()
        }

        /// The decoder's error, once `takeFull` has returned nil for the main stage.
        var decoderError: Error? {
            cond.lock(); defer { cond.unlock() }
            return error
        }

        /// A stage is done with a block; the last one gives it back to the decoder.
        func returnEmpty(_ s: Slot) {
            cond.lock()
            holders[s.id] -= 1
            if holders[s.id] == 0 { empty.append(s) }
            cond.broadcast(); cond.unlock()
        }

        /// The side stage's thread has stopped.
        func consumerEnded() {
            cond.lock(); running -= 1; cond.broadcast(); cond.unlock()
        }

        /// Waits until every block is back in the pool (each stage has finished with each block).
        func waitUntilDrained() {
            cond.lock(); defer { cond.unlock() }
            while empty.count < count && !cancelled { cond.wait() }
        }

        func cancel() {
            cond.lock(); cancelled = true; cond.broadcast(); cond.unlock()
        }

        /// Waits until the decoding thread (and the side stage) have stopped touching anything.
        func waitForThreads() {
            cond.lock(); defer { cond.unlock() }
            while running > 0 { cond.wait() }
        }
    }
}
