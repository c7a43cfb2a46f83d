import Foundation
import Glibc

/// What a file written to replace another keeps of it: owner, group, permission bits and
/// extended attributes (ACLs among them) where the file system has them. One helper for every
/// replacement (`--in-place`, `--overwrite`, `--write-tags`), so they all keep the same things.
public struct FileAttributes {
    package let owner: uid_t
    package let group: gid_t
    package let mode: mode_t
    package let extended: [(name: [CChar], value: [UInt8])]

    /// The attributes of the regular file at `path` (a link is not followed); nil when there is
    /// no regular file there.
    public init?(of path: String) {
        var st = stat()
        guard PathBytes.lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        owner = st.st_uid
        group = st.st_gid
        mode = st.st_mode & 0o7777
        extended = PathBytes.withCString(path) { FileAttributes.extendedAttributes(of: $0) }
    }

    /// Gives the file open as `fd` these attributes, as far as this process may: the owner first
    /// (which clears set-id bits), then the mode, then the extended attributes. What the system
    /// refuses (another owner, when not privileged; attributes the file system lacks) is left.
    public func apply(to fd: Int32) {
        _ = fchown(fd, owner, group)
        _ = fchmod(fd, mode)
        guard let set = FileAttributes.fsetxattr else { return }
        for a in extended {
            _ = a.value.withUnsafeBytes { v in set(fd, a.name, v.baseAddress, v.count, 0) }
        }
    }

    // The xattr calls, which Glibc's Swift module leaves out (sys/xattr.h), looked up in libc.
    private typealias ListFn = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias GetFn = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
    private typealias SetFn = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
    private static func libc<T>(_ name: String, _ type: T.Type) -> T? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: type) }
    }
    private static let llistxattr = libc("llistxattr", ListFn.self)
    private static let lgetxattr = libc("lgetxattr", GetFn.self)
    private static let fsetxattr = libc("fsetxattr", SetFn.self)

    /// The file at `path`'s extended attributes, names with their values (empty where there are
    /// none or the file system has none).
    package static func extendedAttributes(of path: UnsafePointer<CChar>) -> [(name: [CChar], value: [UInt8])] {
        guard let llistxattr, let lgetxattr else { return [] }
        let size = llistxattr(path, nil, 0)
        guard size > 0 else { return [] }
        var names = [CChar](repeating: 0, count: size)
        let got = llistxattr(path, &names, size)
        guard got > 0 else { return [] }
        var result: [(name: [CChar], value: [UInt8])] = []
        for raw in names.prefix(got).split(separator: 0) {
            let name = Array(raw) + [0]
            let n = lgetxattr(path, name, nil, 0)
            guard n >= 0 else { continue }
            var value = [UInt8](repeating: 0, count: n)
            let m = value.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, n) }
            guard m >= 0 else { continue }
            result.append((name, Array(value.prefix(m))))
        }
        return result
    }

    /// The regular file a link at `path` points to, so replacing it keeps the link; `path`
    /// itself when it is not a link to a regular file.
    public static func linkTarget(_ path: String) -> String {
        var st = stat()
        guard PathBytes.lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK,
              PathBytes.stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
              let real = PathBytes.withCString(path, { realpath($0, nil) }) else { return path }
        defer { free(real) }
        return PathBytes.string(cString: real)
    }
}
