#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to the bytes of a file or buffer, so parsers read only the headers they need.
public protocol ByteSource: AnyObject {
    /// Total number of bytes.
    var size: UInt64 { get }
    /// Up to `count` bytes starting at `offset`; fewer at the end, none past it.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

/// Bytes already in memory (tests, fuzzing, small buffers).
public final class MemoryByteSource: ByteSource {
    public let bytes: [UInt8]
    public var size: UInt64 { UInt64(bytes.count) }

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < UInt64(bytes.count) else { return [] }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}

/// A regular file read with `pread`, never loaded whole; the descriptor closes with the object.
public final class FileByteSource: ByteSource {
    public let path: String
    public let size: UInt64
    /// Size and modification time from the open descriptor (`fstat`).
    public let identity: FileIdentity
    private let fd: Int32

    /// Opens `path` read-only; throws a FileAccessError (not-found, not-a-file or unreadable).
    /// Non-blocking, so a FIFO without a writer is refused instead of waited on forever.
    public init(path: String) throws {
        self.path = path
        let fd = PathBytes.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            let err = errno
            throw FileByteSource.openError(path: path, errno: err)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let err = errno
            close(fd)
            throw FileByteSource.openError(path: path, errno: err)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileAccessError(path, .openNotRegular(folder: (st.st_mode & S_IFMT) == S_IFDIR))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.fd = fd
        self.size = UInt64(max(st.st_size, 0))
        self.identity = FileIdentity(stat: st)
    }

    private init(path: String, fd: Int32, stat st: stat) {
        self.path = path
        self.fd = fd
        self.size = UInt64(max(st.st_size, 0))
        self.identity = FileIdentity(stat: st)
    }

    /// Opens an input once for everything a tool does with it: the identity comes from this
    /// descriptor's `fstat`, the sniffer reads through it and a decoder can be handed it. Refuses
    /// as `FileIdentity.of` does (not-found, not-a-file, unreadable), with its sentences.
    public static func input(_ path: String) throws -> FileByteSource {
        let fd = PathBytes.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        let err = errno
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            if fd >= 0 { close(fd) }
            // The checks without opening say which refusal it is; a file that passes them now
            // changed under us, and the open's own error stands.
            _ = try FileIdentity.of(path)
            throw FileByteSource.openError(path: path, errno: fd < 0 ? err : EIO)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return FileByteSource(path: path, fd: fd, stat: st)
    }

    /// A second descriptor on the same open file (no new open of the path), for a decoder that
    /// reads through its own descriptor; close-on-exec like the first, the caller closes it.
    package func duplicateDescriptor() -> Int32 { fcntl(fd, F_DUPFD_CLOEXEC, 0) }

    deinit { close(fd) }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0, offset < size, offset <= UInt64(Int64.max) else { return [] }
        let want = Int(min(UInt64(count), size - offset))
        var out = [UInt8](repeating: 0, count: want)
        var got = 0
        while got < want {
            let n = out.withUnsafeMutableBytes { buf in
                pread(fd, buf.baseAddress! + got, want - got, off_t(offset) + off_t(got))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(path, .readFailed)
            }
            if n == 0 { break }  // the file shrank under us: a short read, as at EOF
            got += n
        }
        if got < want { out.removeLast(want - got) }
        return out
    }

    package static func openError(path: String, errno err: Int32) -> FileAccessError {
        switch err {
        case ENOENT, ENOTDIR: return FileAccessError(path, .openMissing)
        case EISDIR: return FileAccessError(path, .openNotRegular(folder: true))
        case EACCES, EPERM: return FileAccessError(path, .openDenied)
        default: return FileAccessError(path, .openFailed(errno: err))
        }
    }
}
