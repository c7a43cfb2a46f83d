import Foundation

/// Whole reads and writes at a file offset (`pread`/`pwrite`, retried after a signal and after a
/// short count), for the places that keep their own position in a file.
package enum PositionedIO {
    /// Writes all `count` bytes at `offset`: 0, or the errno that stopped it (EIO when the
    /// system wrote nothing and gave no reason).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int, at offset: Int64) -> Int32 {
        var done = 0
        while done < count {
            let n = pwrite(fd, bytes + done, count - done, off_t(offset) + off_t(done))
            if n < 0 { if errno == EINTR { continue }; return errno }
            if n == 0 { return EIO }
            done += n
        }
        return 0
    }

    /// Reads up to `count` bytes at `offset`, short only at the end of the file or on an error:
    /// the bytes read.
    package static func read(_ fd: Int32, into: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        var got = 0
        while got < count {
            let n = pread(fd, into + got, count - got, off_t(offset) + off_t(got))
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            got += n
        }
        return got
    }
}
