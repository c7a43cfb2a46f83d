import Foundation

/// Everything the cache compares to decide that a file is provably the one it saw: the device and
/// inode (so a file replaced by a rename or a copy is a different file), the size, and the
/// modification and inode change times in nanoseconds (the change time catches an edit whose
/// modification time was put back with `touch -r`).
public struct FileStamp: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var sizeBytes: UInt64
    /// Modification time in nanoseconds since the Unix epoch.
    public var modifiedNanoseconds: Int64
    /// Inode change time (ctime) in nanoseconds since the Unix epoch.
    public var changedNanoseconds: Int64

    public init(device: UInt64, inode: UInt64, sizeBytes: UInt64, modifiedNanoseconds: Int64, changedNanoseconds: Int64 = 0) {
        self.device = device; self.inode = inode; self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
    }

    /// The stamp of the regular file at `path` (symbolic links followed), or nil when there is none.
    public static func of(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileStamp(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), sizeBytes: UInt64(st.st_size),
                         modifiedNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                         changedNanoseconds: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// The size and times, as records carry them (without a fingerprint).
    public var identity: FileIdentity {
        FileIdentity(sizeBytes: sizeBytes, modifiedNanoseconds: modifiedNanoseconds, changedNanoseconds: changedNanoseconds)
    }
}
