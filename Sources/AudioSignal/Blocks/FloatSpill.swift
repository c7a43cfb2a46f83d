/// Floats appended in order and read back in order: `ValueSpill` of Float, a chunk of 256 KiB.
package typealias FloatSpill = ValueSpill<Float>

/// Values appended in order and read back in order, a chunk at a time, held past the first chunk
/// in the installed `SpillStorage` (the tools': an unlinked temporary file): a per-millisecond
/// column of a two-hour stream (7.2 million Floats) costs a chunk of memory, not 29 MB. With no
/// storage, or one that can't be made or written, the values stay in memory (the same values,
/// only more memory). The values come back bit for bit as they went in.
package final class ValueSpill<Value: BitwiseCopyable>: @unchecked Sendable {
    /// Values of a default chunk (256 KiB): kept in memory before they go to the file, and read
    /// back at a time.
    public static var chunkValues: Int { (256 << 10) / MemoryLayout<Value>.stride }
    /// This spill's chunk, values.
    public let chunk: Int
    private var storage: (any SpillStorage)?
    /// Values from `flushed` on: all of them while they fit a chunk or no file can be used.
    private var held: [Value] = []
    private var flushed = 0
    private var inMemory = false

    /// `chunkValues`: values held in memory before they go to the file (a smaller chunk keeps
    /// less in memory and writes more often).
    public init(chunkValues: Int = ValueSpill.chunkValues) {
        precondition(chunkValues > 0)
        chunk = chunkValues
    }

    /// `values`, kept in memory.
    public init(_ values: [Value]) {
        chunk = Self.chunkValues
        held = values
        inMemory = true
    }

    public var count: Int { flushed + held.count }
    public var isEmpty: Bool { count == 0 }

    public func append(_ x: Value) {
        held.append(x)
        if held.count >= chunk && !inMemory { spill() }
    }

    /// `values` appended in order, a chunk at a time.
    public func append(contentsOf values: UnsafeBufferPointer<Value>) {
        var i = 0
        while i < values.count {
            let n = inMemory ? values.count - i : Swift.min(values.count - i, Swift.max(1, chunk - held.count))
            held.append(contentsOf: UnsafeBufferPointer(rebasing: values[i..<(i + n)]))
            i += n
            if held.count >= chunk && !inMemory { spill() }
        }
    }

    /// Every value, in order (for a test, or a caller that wants them all at once).
    public var values: [Value] {
        let n = count
        guard n > 0 else { return [] }
        return [Value](unsafeUninitializedCapacity: n) { all, made in
            read(from: 0, count: n, into: all.baseAddress!)
            made = n
        }
    }

    /// Values `start ..< start + n` copied to `dst`.
    public func read(from start: Int, count n: Int, into dst: UnsafeMutablePointer<Value>) {
        precondition(start >= 0 && n >= 0 && start + n <= count)
        var i = start, done = 0
        let stride = MemoryLayout<Value>.stride
        if i < flushed {
            let fromFile = Swift.min(n, flushed - i)
            let ok = storage!.read(into: UnsafeMutableRawPointer(dst), count: fromFile * stride, at: i * stride)
            precondition(ok, "ValueSpill: the spilled values could not be read back")
            i += fromFile; done = fromFile
        }
        if done < n {
            held.withUnsafeBufferPointer { h in (dst + done).update(from: h.baseAddress! + (i - flushed), count: n - done) }
        }
    }

    /// Calls `body` with each value from `start` on, in order, read a chunk at a time.
    public func forEach(from start: Int, _ body: (Value) -> Void) {
        let reader = Reader(self, from: start)
        for _ in start..<count { body(reader.read()) }
    }

    /// The held chunk written to the storage (made on the first spill); on any failure everything
    /// is brought back to memory and stays there.
    private func spill() {
        let stride = MemoryLayout<Value>.stride
        if storage == nil {
            guard let made = SpillStorageMaker.make?() else { inMemory = true; return }
            storage = made
        }
        let store = storage!
        let written = held.withUnsafeBytes { store.write($0.baseAddress!, count: $0.count, at: flushed * stride) }
        if written {
            flushed += held.count
            held.removeAll(keepingCapacity: true)
            return
        }
        // The disk is full (or failing): what is in the file comes back, and nothing goes there again.
        let back = [Value](unsafeUninitializedCapacity: flushed) { b, made in
            let ok = store.read(into: UnsafeMutableRawPointer(b.baseAddress!), count: flushed * stride, at: 0)
            precondition(ok, "ValueSpill: the spilled values could not be read back")
            made = flushed
        }
        held = back + held
        flushed = 0
        storage = nil
        inMemory = true
    }

    /// The values from `start` on (the first by default), handed out one at a time from a chunk
    /// read at a time.
    public final class Reader {
        private let spill: ValueSpill
        private let buffer: UnsafeMutablePointer<Value>
        private let capacity: Int
        private var next = 0, filled = 0, position: Int

        public init(_ spill: ValueSpill, from start: Int = 0) {
            precondition(start >= 0 && start <= spill.count)
            self.spill = spill
            // No more than the values there are now (a short spill's reader stays small).
            capacity = Swift.max(1, Swift.min(spill.chunk, spill.count - start))
            buffer = .allocate(capacity: capacity)
            position = start
        }

        deinit { buffer.deallocate() }

        /// The next value; past the end is a programming error.
        @inline(__always) public func read() -> Value {
            if next == filled { refill() }
            let v = buffer[next]
            next += 1
            return v
        }

        @inline(never) private func refill() {
            let n = Swift.min(capacity, spill.count - position)
            precondition(n > 0, "ValueSpill.Reader: read past the end")
            spill.read(from: position, count: n, into: buffer)
            position += n
            filled = n
            next = 0
        }
    }
}

/// Every value of a spill, in order; each iteration reads the spill again from its first value.
extension ValueSpill: Sequence {
    public struct Iterator: IteratorProtocol {
        package let reader: Reader
        package var left: Int
        public mutating func next() -> Value? {
            guard left > 0 else { return nil }
            left -= 1
            return reader.read()
        }
    }

    public func makeIterator() -> Iterator { Iterator(reader: Reader(self), left: count) }
    public var underestimatedCount: Int { count }
}
