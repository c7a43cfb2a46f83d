import CSndfile
import Foundation

/// libsndfile's output file through one large buffer (its virtual I/O). libsndfile writes a
/// few kilobytes at a time (its conversion buffer, plus a short tail per block): some 25,000
/// system calls for a ten-minute 24-bit WAV. Here bytes go out with `pwrite` in runs of up to `capacity`,
/// at the offsets libsndfile gave: a write that doesn't continue the buffered run, a read, and
/// `flush` send the run first, so the file's bytes are exactly libsndfile's.
final class SndfileWriteBuffer {
    let fd: Int32
    static let capacity = 1 << 20
    private let buffer = UnsafeMutableRawPointer.allocate(byteCount: SndfileWriteBuffer.capacity, alignment: 64)
    /// File offset of the buffer's first byte, and how many bytes it holds.
    private var runStart: Int64 = 0
    private var runLength = 0
    /// Where libsndfile's next read or write goes.
    private var position: Int64 = 0
    /// The file's length counting buffered bytes.
    private var length: Int64
    /// The errno of the first write that failed: every later write is refused (libsndfile then
    /// reports a short write) and `flush` returns it.
    private(set) var failure: Int32 = 0

    init(fd: Int32) {
        self.fd = fd
        var st = stat()
        length = fstat(fd, &st) == 0 ? Int64(st.st_size) : 0
    }

    deinit { buffer.deallocate() }

    /// Sends the buffered run to the file; 0, or the errno that stopped it (this or an earlier write's).
    @discardableResult
    func flush() -> Int32 {
        if failure == 0, runLength > 0 { failure = PositionedIO.writeAll(fd, buffer, count: runLength, at: runStart) }
        runLength = 0
        return failure
    }

    private func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
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
        length = max(length, position)
        return count
    }

    private func read(_ into: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard flush() == 0 else { return 0 }
        let got = PositionedIO.read(fd, into: into, count: count, at: position)
        position += Int64(got)
        return got
    }

    /// libsndfile's callbacks; `user_data` is this buffer, unretained (the sink holds it).
    static var callbacks: SF_VIRTUAL_IO {
        var io = SF_VIRTUAL_IO()
        io.get_filelen = { user in SndfileWriteBuffer.from(user).length }
        io.seek = { offset, whence, user in
            let b = SndfileWriteBuffer.from(user)
            guard let p = SndfileWriteBuffer.seekTarget(offset, whence, position: b.position, length: b.length) else { return -1 }
            b.position = p
            return p
        }
        io.read = { ptr, count, user in
            guard let ptr, count > 0 else { return 0 }
            return Int64(SndfileWriteBuffer.from(user).read(ptr, Int(count)))
        }
        io.write = { ptr, count, user in
            guard let ptr, count > 0 else { return 0 }
            return Int64(SndfileWriteBuffer.from(user).write(ptr, Int(count)))
        }
        io.tell = { user in SndfileWriteBuffer.from(user).position }
        return io
    }

    /// Where a virtual file's seek lands (`whence` SEEK_SET, SEEK_CUR or SEEK_END); nil before its start.
    static func seekTarget(_ offset: Int64, _ whence: Int32, position: Int64, length: Int64) -> Int64? {
        let base: Int64 = whence == SEEK_CUR ? position : whence == SEEK_END ? length : 0
        return base + offset >= 0 ? base + offset : nil
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> SndfileWriteBuffer {
        Unmanaged<SndfileWriteBuffer>.fromOpaque(user!).takeUnretainedValue()
    }
}
