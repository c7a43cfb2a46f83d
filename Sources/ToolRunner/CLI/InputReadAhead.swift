import Foundation

/// Reads a sequence to its end on its own thread as fast as it yields, calling `each` on every
/// element there (in order) and `end` after the last; iterating hands the elements over in order,
/// waiting when the reader is behind. The thread ends when the input does.
package final class InputReadAhead<Base: Sequence>: Sequence, IteratorProtocol {
    private let cond = NSCondition()
    private var buffer: [Base.Element] = []
    private var head = 0
    private var done = false

    package init(_ base: Base, each: @escaping (Base.Element) -> Void, end: @escaping () -> Void) {
        let t = Thread { [self] in
            for element in base {
                each(element)
                cond.lock(); buffer.append(element); cond.signal(); cond.unlock()
            }
            end()
            cond.lock(); done = true; cond.broadcast(); cond.unlock()
        }
        t.stackSize = 1 << 22
        t.start()
    }

    package func next() -> Base.Element? {
        cond.lock(); defer { cond.unlock() }
        while head >= buffer.count && !done { cond.wait() }
        guard head < buffer.count else { return nil }
        let e = buffer[head]
        head += 1
        if head > 1024, head * 2 > buffer.count { buffer.removeFirst(head); head = 0 }
        return e
    }
}
