import Glibc

/// A copy of a file with some runs of bytes replaced (none changing the size): the copy made in
/// the kernel (sendfile, no trip through user memory), the runs written
/// over it, and the whole put in place atomically. Used where a bitstream change touches a few
/// bytes of a large file (AAC samples in an MP4 video).
enum PatchedFileCopy {
    /// Writes `source` with `patches` (offset, bytes; inside the file) to `outPath` through an
    /// AtomicOutput: complete or not at all.
    static func write(_ source: FileByteSource, patches: [(offset: UInt64, bytes: [UInt8])], to outPath: String, overwrite: Bool) throws {
        let out = try AtomicOutput(path: outPath, overwrite: overwrite)
        do {
            let input = source.duplicateDescriptor()
            guard input >= 0 else { throw FileAccessError(source.path, .readFailed) }
            defer { close(input) }
            try copyAll(from: input, to: out, size: source.size, path: source.path)
            for p in patches {
                try p.bytes.withUnsafeBytes { buf in
                    var done = 0
                    while done < buf.count {
                        let n = pwrite(out.fd, buf.baseAddress! + done, buf.count - done, off_t(p.offset) + off_t(done))
                        if n < 0 { if errno == EINTR { continue }; throw WriteError(outPath, .failed(.writing, errno: errno)) }
                        done += n
                    }
                }
            }
            try out.commit()
        } catch { out.abandon(); throw error }
    }

    /// The whole input into the output: sendfile while the kernel takes it, else reads
    /// and writes of 4 MiB.
    static func copyAll(from input: Int32, to out: AtomicOutput, size: UInt64, path: String) throws {
        var inOff: off_t = 0, outOff: off_t = 0
        var kernel = true
        while UInt64(inOff) < size {
            let want = Int(min(size - UInt64(inOff), 1 << 30))
            if kernel {
                let n = sendfile(out.fd, input, &inOff, want)
                if n > 0 { outOff += off_t(n); continue }  // sendfile writes at the output's own position, which is outOff
                if n == 0 { break }
                if errno == EINTR { continue }
                if [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(errno) { kernel = false; continue }
                throw WriteError(out.path, .failed(.writing, errno: errno))
            }
            var buffer = [UInt8](repeating: 0, count: min(want, 4 << 20))
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress!, $0.count, inOff) }
            if n < 0 { if errno == EINTR { continue }; throw FileAccessError(path, .readFailed) }
            if n == 0 { break }
            try buffer.withUnsafeBytes { buf in
                var done = 0
                while done < n {
                    let w = pwrite(out.fd, buf.baseAddress! + done, n - done, outOff + off_t(done))
                    if w < 0 { if errno == EINTR { continue }; throw WriteError(out.path, .failed(.writing, errno: errno)) }
                    done += w
                }
            }
            inOff += off_t(n)
            outOff += off_t(n)
        }
        guard UInt64(outOff) == size else { throw FileAccessError(path, .readFailed) }
    }
}
