import Foundation

/// Walks a directory depth-first in sorted (byte) order, one directory listing in memory at a
/// time. Hidden entries are skipped unless `includeHidden` accepts the name, and so are regular
/// files that `skipFile` accepts, given name and path (it counts them as it likes). Files that aren't regular
/// (pipes, sockets, devices) are skipped and told to `leftOut`. Symbolic links to files are followed; a symbolic link to a folder is followed once:
/// each folder is walked at most once per walk (by device and inode), so a link back up the tree
/// or to a folder already walked is not followed, and neither is a link loop or a link to nothing.
/// Those are counted, never yielded. The file `excluding` names (by device and inode: the
/// file this process's standard output writes to) is never yielded either, and told to `leftOut`.
public struct DirectoryWalker: Sequence, IteratorProtocol {
    public struct FolderID: Hashable, Sendable { var dev: UInt64; var ino: UInt64 }
    /// Each folder's entries, with whether readdir said the entry is a regular file (so it needs
    /// no stat of its own: one system call less per file) and its inode number.
    private var stack: [(dir: String, entries: [(name: String, regular: Bool, ino: UInt64)], index: Int)] = []
    private var visited: Set<FolderID> = []
    private let includeHidden: (String) -> Bool
    private let skipFile: (_ name: String, _ path: String) -> Bool
    private let leftOut: (LeftOut) -> Void
    private let excluding: FolderID?
    /// Folders that couldn't be opened for want of the machine's resources (EMFILE, ENFILE,
    /// ENOMEM), not yet taken by `takeUnopened`: the walk can't say they hold nothing.
    private var unopened: [(path: String, errno: Int32)] = []

    /// What the walk passed over without yielding it or being asked.
    public enum LeftOut: Sendable { case special, linkNotFollowed, excluded }

    public init(root: String, includeHidden: @escaping (String) -> Bool = { _ in false },
                skipFile: @escaping (_ name: String, _ path: String) -> Bool, leftOut: @escaping (LeftOut) -> Void,
                excluding: FolderID? = nil) {
        self.excluding = excluding
        self.includeHidden = includeHidden
        self.skipFile = skipFile
        self.leftOut = leftOut
        var st = stat()
        if PathBytes.stat(root, &st) == 0 { visited.insert(FolderID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))) }
        push(root)
    }

    private mutating func push(_ dir: String) {
        var names: [(name: String, bytes: [UInt8], regular: Bool, ino: UInt64)] = []
        if let d = PathBytes.withCString(dir, { opendir($0) }) {
            while let e = readdir(d) {
                let bytes = PathBytes.entryName(e)
                if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
                let name = PathBytes.string(bytes)
                if bytes.first == 0x2E, !includeHidden(name) { continue }
                names.append((name, bytes, e.pointee.d_type == UInt8(DT_REG), UInt64(e.pointee.d_ino)))
            }
            closedir(d)
        } else if ResourceFailure.kind(errno: errno) != nil {
            unopened.append((dir, errno))
        }
        names.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        stack.append((dir, names.map { ($0.name, $0.regular, $0.ino) }, 0))
    }

    /// The folders the walk couldn't open for want of resources since the last call.
    public mutating func takeUnopened() -> [(path: String, errno: Int32)] {
        defer { unopened = [] }
        return unopened
    }

    private mutating func firstVisit(_ st: stat) -> Bool {
        visited.insert(FolderID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))).inserted
    }

    /// A regular file's path, unless `skipFile` takes it.
    private func file(_ path: String, name: String) -> String? {
        skipFile(name, path) ? nil : path
    }

    /// The file of this process's standard output, when it is a regular file (`> folder/out`):
    /// a walk of that folder must not read what the run is writing.
    public static func standardOutputFile() -> FolderID? {
        var st = stat()
        guard fstat(1, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FolderID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))
    }

    /// Whether `path` (whose readdir inode is `ino`, or whose `st` is known) is the excluded file;
    /// only an inode match costs a stat.
    private func isExcluded(_ path: String, ino: UInt64, st known: stat? = nil) -> Bool {
        guard let x = excluding else { return false }
        if let st = known { return UInt64(st.st_dev) == x.dev && UInt64(st.st_ino) == x.ino }
        guard ino == x.ino else { return false }
        var st = stat()
        return PathBytes.stat(path, &st) == 0 && UInt64(st.st_dev) == x.dev && UInt64(st.st_ino) == x.ino
    }

    public mutating func next() -> String? {
        while let top = stack.last {
            if top.index >= top.entries.count { stack.removeLast(); continue }
            stack[stack.count - 1].index += 1
            let (name, regular, ino) = top.entries[top.index]
            let path = top.dir.hasSuffix("/") ? top.dir + name : top.dir + "/" + name
            if regular {
                if isExcluded(path, ino: ino) { leftOut(.excluded); continue }
                if let p = file(path, name: name) { return p }
                continue
            }
            var st = stat()
            guard PathBytes.lstat(path, &st) == 0 else { return path }
            var kind = st.st_mode & S_IFMT
            if kind == S_IFLNK {
                guard PathBytes.stat(path, &st) == 0 else { leftOut(.linkNotFollowed); continue }
                kind = st.st_mode & S_IFMT
                if kind == S_IFDIR, !firstVisit(st) { leftOut(.linkNotFollowed); continue }
            } else if kind == S_IFDIR, !firstVisit(st) {
                continue
            }
            switch kind {
            case S_IFDIR: push(path)
            case S_IFREG:
                if isExcluded(path, ino: ino, st: st) { leftOut(.excluded); continue }
                if let p = file(path, name: name) { return p }
            default: leftOut(.special)
            }
        }
        return nil
    }
}
