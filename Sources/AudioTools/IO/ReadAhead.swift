import Foundation

/// Decodes on a thread of its own while the caller processes the blocks already decoded: the
/// decode and the DSP of one file overlap on two cores. Blocks reach `body` in order and exactly as
/// `Decoder.forEachBlock` would hand them over, so results never depend on the threading; an error
/// of the decoder is thrown at the point in the stream where it happened. The decoding thread has
/// ended by the time this returns or throws, on every path.
public enum ReadAhead {
    /// Blocks decoded ahead: one being filled, one being processed, one spare.
    static let depth = 3

    @discardableResult
    public static func forEachBlock(_ source: AudioSource, _ body: (AudioBlock) throws -> Void) throws -> Int {
        let channels = source.format.channelCount
        let q = Queue(count: depth) { AudioBlock(channelCount: channels, capacity: Decoder.blockFrames) }
        final class SourceBox: @unchecked Sendable { let source: AudioSource; init(_ s: AudioSource) { source = s } }
        let box = SourceBox(source)
        let producer = Thread {
            while true {
                // Taken out of the queue, the block is this thread's alone: no copy on refill.
                guard var b = q.takeEmpty() else { return }
                do {
                    let n = try box.source.read(into: &b, maxFrames: Decoder.blockFrames)
                    if n == 0 { q.finish(nil); return }
                    q.putFull(b)
                } catch {
                    q.finish(error); return
                }
            }
        }
        producer.stackSize = 1 << 20
        producer.start()
        defer { q.cancel(); q.waitForProducer() }
        var total = 0
        while let b = try q.takeFull() {
            total += b.frames
            do { try body(b) } catch { q.returnEmpty(b); throw error }
            q.returnEmpty(b)
        }
        return total
    }

    /// The hand-over between the decoding thread and the caller: full blocks in order, empty ones
    /// back, the end (or the decoder's error) after the last full block.
    final class Queue: @unchecked Sendable {
        private let cond = NSCondition()
        private var empty: [AudioBlock]
        private var full: [AudioBlock] = []
        private var ended = false
        private var error: Error?
        private var cancelled = false
        private var producerDone = false

        init(count: Int, make: () -> AudioBlock) { empty = (0..<count).map { _ in make() } }

        /// An empty block to fill, or nil when the caller has stopped listening.
        func takeEmpty() -> AudioBlock? {
            cond.lock(); defer { cond.unlock() }
            while empty.isEmpty && !cancelled { cond.wait() }
            if cancelled { producerDone = true; cond.broadcast(); return nil }
            return empty.removeLast()
        }

        func putFull(_ b: AudioBlock) {
            cond.lock(); full.append(b); cond.broadcast(); cond.unlock()
        }

        /// The end of the stream, or the decoder's error, after the blocks already put.
        func finish(_ e: Error?) {
            cond.lock(); ended = true; error = e; producerDone = true; cond.broadcast(); cond.unlock()
        }

        /// The next full block; nil at the end; throws the decoder's error in its place.
        func takeFull() throws -> AudioBlock? {
            cond.lock(); defer { cond.unlock() }
            while full.isEmpty && !ended { cond.wait() }
            if !full.isEmpty { return full.removeFirst() }
            if let e = error { throw e }
            return nil
        }

        func returnEmpty(_ b: AudioBlock) {
            cond.lock(); empty.append(b); cond.broadcast(); cond.unlock()
        }

        func cancel() {
            cond.lock(); cancelled = true; cond.broadcast(); cond.unlock()
        }

        /// Waits until the decoding thread has stopped touching the source.
        func waitForProducer() {
            cond.lock(); defer { cond.unlock() }
            while !producerDone { cond.wait() }
        }
    }
}
