import AudioSignal
import Foundation

/// A file's identity as a later stage can check it: size, modification time, inode change time
/// and (in a measurement's record) a fingerprint of a few blocks of its bytes. A measurement
/// carries it so that lufs-normalize can refuse one taken of a different state of the file.
/// `touch -r` can restore a modification time but not the change time, which the kernel sets on
/// every write, rename or new inode.
public struct FileIdentity: Equatable, Sendable {
    public var sizeBytes: UInt64
    /// Modification time in nanoseconds since the Unix epoch.
    public var modifiedNanoseconds: Int64
    /// Inode change time (ctime) in nanoseconds since the Unix epoch; nil in a record written by
    /// audio-tools before it was kept.
    public var changedNanoseconds: Int64?
    /// `FileIdentity.fingerprint(path:)` of the file, when it was read; nil otherwise.
    public var fingerprint: String?

    public init(sizeBytes: UInt64, modifiedNanoseconds: Int64, changedNanoseconds: Int64? = nil, fingerprint: String? = nil) {
        self.sizeBytes = sizeBytes
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
        self.fingerprint = fingerprint
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

    /// The identity `stat` or `fstat` gave (no fingerprint).
    package init(stat st: stat) {
        let ns = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        let cns = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        self.init(sizeBytes: UInt64(max(st.st_size, 0)), modifiedNanoseconds: ns, changedNanoseconds: cns)
    }

    /// Bytes read at each of the fingerprint's places.
    package static let fingerprintBlock = 4096
    /// How many evenly spaced blocks the fingerprint reads (the first and the last among them).
    package static let fingerprintBlocks = 4

    /// Where the fingerprint's blocks start in a file of `size` bytes: evenly spaced from the
    /// first byte to the last block (fewer places when the file is small).
    package static func fingerprintOffsets(size: UInt64) -> [UInt64] {
        let block = UInt64(fingerprintBlock), last = size > block ? size - block : 0
        let n = UInt64(fingerprintBlocks - 1)
        var offsets: [UInt64] = []
        for k in 0...n {
            let at = last / n * k + (last % n) * k / n
            if offsets.last != at { offsets.append(at) }
        }
        return offsets
    }

    /// A fingerprint of the bytes of the file at `path`: its size and four blocks of 4 KiB (the
    /// first, the last and two between), hashed as every id is (96 bits, 24 hex digits). A cheap content check beside the
    /// times: an edit in those blocks changes it whatever the times say. Nil when the file can't
    /// be read, or is no longer the file `expected` describes (size and times).
    public static func fingerprint(path: String, expected: FileIdentity? = nil) -> String? {
        let fd = PathBytes.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let now = FileIdentity(stat: st)
        if let e = expected, e.sizeBytes != now.sizeBytes || e.modifiedNanoseconds != now.modifiedNanoseconds
            || (e.changedNanoseconds != nil && e.changedNanoseconds != now.changedNanoseconds) {
            return nil
        }
        var message = Array("audio-tools file fingerprint 1".utf8)
        withUnsafeBytes(of: now.sizeBytes.littleEndian) { message.append(contentsOf: $0) }
        var block = [UInt8](repeating: 0, count: fingerprintBlock)
        for at in fingerprintOffsets(size: now.sizeBytes) {
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, fingerprintBlock, off_t(at)) }
            guard n >= 0 else { return nil }
            message += block[0..<n]
        }
        return XXHash64.hex96(of: message)
    }

    /// This identity with the fingerprint of the file at `path` (read now; left nil when the file
    /// is no longer this one).
    public func fingerprinted(path: String) -> FileIdentity {
        var f = self
        f.fingerprint = Self.fingerprint(path: path, expected: self)
        return f
    }

    /// What a record's identity (`self`) and the file's now (`now`; fingerprints are compared when
    /// both have one) differ in; empty when the record is of this state of the file. Only what
    /// the record carries is compared: a record of an older audio-tools has no change time or
    /// fingerprint.
    public func differences(from now: FileIdentity) -> [Difference] {
        var d: [Difference] = []
        if sizeBytes != now.sizeBytes { d.append(.size) }
        if modifiedNanoseconds != now.modifiedNanoseconds { d.append(.modified) }
        if let c = changedNanoseconds, c != now.changedNanoseconds { d.append(.changed) }
        if let f = fingerprint, let n = now.fingerprint, f != n { d.append(.content) }
        return d
    }

    /// One way a file differs from a record's identity of it.
    public enum Difference: Equatable, Sendable {
        case size, modified, changed, content
    }

    /// Whether this identity (from a record) has what a same-size edit with its modification time
    /// put back can't keep: the change time. A record of an older audio-tools has none.
    public var hasChangeTime: Bool { changedNanoseconds != nil }
}
