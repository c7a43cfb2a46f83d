import CSndfile
import Foundation

/// A file libsndfile reads or writes through its virtual I/O: the callbacks, once, over a
/// position this class keeps; what reading and writing do, and the length, come from a subclass
/// (SndfileByteRange reads a range of another file; SndfileWriteBuffer writes through a buffer).
/// `user_data` is the object, unretained: its owner keeps it alive while libsndfile has it.
package class SndfileVirtualFile {
    /// Where libsndfile's next read or write goes.
    package var position: Int64 = 0
    /// The file's length as libsndfile should see it.
    package var length: Int64 { 0 }
    /// Up to `count` bytes from `position` into `into` (moving `position`): the bytes read.
    package func read(_ into: UnsafeMutableRawPointer, _ count: Int) -> Int { 0 }
    /// `count` bytes at `position` (moving it): the bytes taken, 0 when refused.
    package func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int { 0 }

    package static let callbacks: SF_VIRTUAL_IO = {
        var io = SF_VIRTUAL_IO()
        io.get_filelen = { user in SndfileVirtualFile.from(user).length }
        io.seek = { offset, whence, user in
            let f = SndfileVirtualFile.from(user)
            let base: Int64 = whence == SEEK_CUR ? f.position : whence == SEEK_END ? f.length : 0
            guard base + offset >= 0 else { return -1 }
            f.position = base + offset
            return f.position
        }
        io.read = { ptr, count, user in
            guard let ptr, count > 0 else { return 0 }
            return Int64(SndfileVirtualFile.from(user).read(ptr, Int(count)))
        }
        io.write = { ptr, count, user in
            guard let ptr, count > 0 else { return 0 }
            return Int64(SndfileVirtualFile.from(user).write(ptr, Int(count)))
        }
        io.tell = { user in SndfileVirtualFile.from(user).position }
        return io
    }()

    /// The `user_data` to hand libsndfile with `callbacks`.
    package var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func from(_ user: UnsafeMutableRawPointer?) -> SndfileVirtualFile {
        Unmanaged<SndfileVirtualFile>.fromOpaque(user!).takeUnretainedValue()
    }
}
