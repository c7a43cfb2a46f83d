import AudioSignal
import CSndfile
import Foundation

/// libsndfile's output file through one large buffer (its virtual I/O). libsndfile writes a
/// few kilobytes at a time (its conversion buffer, plus a short tail per block): some 25,000
/// system calls for a ten-minute 24-bit WAV. Here bytes go out with `pwrite` in runs of up to `capacity`,
/// at the offsets libsndfile gave: a write that doesn't continue the buffered run, a read, and
/// `flush` send the run first, so the file's bytes are exactly libsndfile's.
package final class SndfileWriteBuffer: SndfileVirtualFile {
    package let fd: Int32
    package static let capacity = 1 << 20
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: SndfileWriteBuffer.capacity, alignment: 64)
    /// File offset of the buffer's first byte, and how many bytes it holds.
    private var runStart: Int64 = 0
    private var runLength = 0
    /// The file's length counting buffered bytes.
    private var fileLength: Int64
    package override var length: Int64 { fileLength }
    /// The errno of the first write that failed: every later write is refused (libsndfile then
    /// reports a short write) and `flush` returns it.
    package private(set) var failure: Int32 = 0

    package init(fd: Int32) {
        self.fd = fd
        var st = stat()
        fileLength = fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    deinit { buffer.deallocate() }

    /// Sends the buffered run to the file; 0, or the errno that stopped it (this or an earlier write's).
    @discardableResult
    package func flush() -> Int32 {
        if failure == 0, runLength > 0 { failure = PositionedIO.writeAll(fd, buffer, count: runLength, at: runStart) }
        runLength = 0
        return failure
    }

    package override func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        guard failure == 0, count > 0 else { return 0 }
        if position != runStart + Int64(runLength) || runLength + count > Self.capacity {
            guard flush() == 0 else { return 0 }
            runStart = position
        }
        if count >= Self.capacity {
            failure = PositionedIO.writeAll(fd, bytes, count: count, at: position)
            guard failure == 0 else { return 0 }
            runStart = position + Int64(count)
        } else {
            (buffer + runLength).copyMemory(from: bytes, byteCount: count)
            runLength += count
        }
        position += Int64(count)
        fileLength = max(fileLength, position)
        return count
    }

    package override func read(_ into: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard flush() == 0 else { return 0 }
        let got = PositionedIO.read(fd, into: into, count: count, at: position)
        position += Int64(got)
        return got
    }
}
