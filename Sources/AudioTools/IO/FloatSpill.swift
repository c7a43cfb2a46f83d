import Foundation

/// Floats appended in order and read back in order, a chunk at a time, held in an unlinked
/// temporary file past the first chunk: a per-millisecond column of a two-hour stream (7.2 million
/// values) costs a chunk of memory, not 29 MB. Nothing is left on disk whatever happens to the
/// process; when no temporary file can be made or written the values stay in memory (the same
/// values, only more memory).
public final class FloatSpill: @unchecked Sendable {
    /// Values kept in memory before they go to the file, and read back at a time (256 KiB).
    public static let chunkValues = 1 << 16
    private var fd: Int32 = -1
    /// Values from `flushed` on: all of them while they fit a chunk or no file can be used.
    private var held: [Float] = []
    private var flushed = 0
    private var inMemory = false

    public init() {}

    /// `values`, kept in memory.
    public init(_ values: [Float]) {
        held = values
        inMemory = true
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public var count: Int { flushed + held.count }

    public func append(_ x: Float) {
        held.append(x)
        if held.count >= Self.chunkValues && !inMemory { spill() }
    }

    /// Every value, in order (for a test, or a caller that wants them all at once).
    public var values: [Float] {
        var all = [Float](repeating: 0, count: count)
        all.withUnsafeMutableBufferPointer { read(from: 0, count: $0.count, into: $0.baseAddress!) }
        return all
    }

    /// Values `start ..< start + n` copied to `dst`.
    public func read(from start: Int, count n: Int, into dst: UnsafeMutablePointer<Float>) {
        precondition(start >= 0 && n >= 0 && start + n <= count)
        var i = start, done = 0
        if i < flushed {
            let fromFile = min(n, flushed - i)
            let ok = Self.readAll(fd, UnsafeMutableRawPointer(dst), fromFile * 4, offset: i * 4)
            precondition(ok, "FloatSpill: the temporary file could not be read back (errno \(errno))")
            i += fromFile; done = fromFile
        }
        if done < n {
            held.withUnsafeBufferPointer { h in (dst + done).update(from: h.baseAddress! + (i - flushed), count: n - done) }
        }
    }

    /// The held chunk written to the file (made on the first spill); on any failure everything
    /// is brought back to memory and stays there.
    private func spill() {
        if fd < 0 {
            var template = Array((FileManager.default.temporaryDirectory.path + "/audio-tools-units-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard made >= 0 else { inMemory = true; return }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            _ = fcntl(made, F_SETFD, FD_CLOEXEC)
            fd = made
        }
        let written = held.withUnsafeBytes { Self.writeAll(fd, $0.baseAddress!, $0.count, offset: flushed * 4) }
        if written {
            flushed += held.count
            held.removeAll(keepingCapacity: true)
            return
        }
        // The disk is full (or failing): what is in the file comes back, and nothing goes there again.
        var back = [Float](repeating: 0, count: flushed)
        let ok = back.withUnsafeMutableBytes { Self.readAll(fd, $0.baseAddress!, $0.count, offset: 0) }
        precondition(ok, "FloatSpill: the temporary file could not be read back (errno \(errno))")
        held = back + held
        flushed = 0
        Glibc.close(fd)
        fd = -1
        inMemory = true
    }

    private static func writeAll(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int, offset: Int) -> Bool {
        var done = 0
        while done < n {
            let w = pwrite(fd, p + done, n - done, off_t(offset + done))
            if w < 0, errno == EINTR { continue }
            if w <= 0 { return false }
            done += w
        }
        return true
    }

    private static func readAll(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int, offset: Int) -> Bool {
        var done = 0
        while done < n {
            let r = pread(fd, p + done, n - done, off_t(offset + done))
            if r < 0, errno == EINTR { continue }
            if r <= 0 { return false }
            done += r
        }
        return true
    }

    /// The values from the first on, handed out one at a time from a chunk read at a time.
    public final class Reader {
        private let spill: FloatSpill
        private let buffer: UnsafeMutablePointer<Float>
        private var next = 0, filled = 0, position = 0

        public init(_ spill: FloatSpill) {
            self.spill = spill
            buffer = .allocate(capacity: FloatSpill.chunkValues)
        }

        deinit { buffer.deallocate() }

        /// The next value; past the end is a programming error.
        @inline(__always) public func read() -> Float {
            if next == filled { refill() }
            let v = buffer[next]
            next += 1
            return v
        }

        @inline(never) private func refill() {
            let n = min(FloatSpill.chunkValues, spill.count - position)
            precondition(n > 0, "FloatSpill.Reader: read past the end")
            spill.read(from: position, count: n, into: buffer)
            position += n
            filled = n
            next = 0
        }
    }
}
