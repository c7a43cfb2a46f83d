import CSndfile
import Foundation

/// A byte range of an open file that libsndfile reads as a whole file (its virtual I/O): one
/// link of a chained Ogg stream, read through a duplicate of the input's descriptor with pread,
/// so the path isn't opened again and the ranges don't share a file position.
final class SndfileByteRange {
    let fd: Int32
    let start: Int64
    let length: Int64
    var position: Int64 = 0

    init?(_ file: FileByteSource, start: UInt64, end: UInt64) {
        let fd = file.duplicateDescriptor()
        guard fd >= 0, end >= start else { return nil }
        self.fd = fd
        self.start = Int64(start)
        self.length = Int64(end - start)
    }

    deinit { close(fd) }

    /// libsndfile's callbacks; `user_data` is this range, unretained (the source holds it).
    static var callbacks: SF_VIRTUAL_IO {
        var io = SF_VIRTUAL_IO()
        io.get_filelen = { user in SndfileByteRange.from(user).length }
        io.seek = { offset, whence, user in
            let r = SndfileByteRange.from(user)
            guard let p = SndfileWriteBuffer.seekTarget(offset, whence, position: r.position, length: r.length) else { return -1 }
            r.position = p
            return p
        }
        io.read = { ptr, count, user in
            let r = SndfileByteRange.from(user)
            let want = max(0, min(count, r.length - r.position))
            guard want > 0, let ptr else { return 0 }
            let got = Int64(PositionedIO.read(r.fd, into: ptr, count: Int(want), at: r.start + r.position))
            r.position += got
            return got
        }
        io.write = { _, _, _ in 0 }
        io.tell = { user in SndfileByteRange.from(user).position }
        return io
    }

    fileprivate static func from(_ user: UnsafeMutableRawPointer?) -> SndfileByteRange {
        Unmanaged<SndfileByteRange>.fromOpaque(user!).takeUnretainedValue()
    }
}
