import Foundation

/// A file's identity as a later stage can check it: size and modification time. A measurement
/// carries it so that lufs-normalize can refuse one taken of a different state of the file.
public struct FileIdentity: Equatable, Sendable {
    public var sizeBytes: UInt64
    /// Modification time in nanoseconds since the Unix epoch.
    public var modifiedNanoseconds: Int64

    public init(sizeBytes: UInt64, modifiedNanoseconds: Int64) {
        self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// Checks that `path` names a readable regular file and returns its identity; throws the
    /// contract's not-found, not-a-file or unreadable (a FileAccessError) otherwise. Does not
    /// judge emptiness.
    public static func of(_ path: String) throws -> FileIdentity {
        var st = stat()
        guard PathBytes.stat(path, &st) == 0 else {
            let e = errno
            throw FileAccessError(path, e == ENOENT || e == ENOTDIR ? .missing : .cannotExamine(errno: e))
        }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else { throw FileAccessError(path, .notRegular(folder: kind == S_IFDIR)) }
        guard PathBytes.access(path, R_OK) == 0 else { throw FileAccessError(path, .cannotRead(errno: errno)) }
        return FileIdentity(stat: st)
    }

    /// The identity `stat` or `fstat` gave.
    init(stat st: stat) {
        let ns = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        self.init(sizeBytes: UInt64(max(st.st_size, 0)), modifiedNanoseconds: ns)
    }
}
