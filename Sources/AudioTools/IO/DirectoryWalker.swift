import Foundation

/// Walks a directory depth-first in sorted (byte) order, one directory listing in memory at a
/// time. Hidden entries are skipped unless `includeHidden` accepts the name, and so are regular
/// files that `skipFile` accepts, given name and path (it counts them as it likes). Files that aren't regular
/// (pipes, sockets, devices) are skipped and told to `leftOut`. Symbolic links to files are followed; a symbolic link to a folder is followed once:
/// each folder is walked at most once per walk (by device and inode), so a link back up the tree
/// or to a folder already walked is not followed, and neither is a link loop or a link to nothing.
/// Those are counted, never yielded.
public struct DirectoryWalker: Sequence, IteratorProtocol {
    private struct FolderID: Hashable { var dev: UInt64; var ino: UInt64 }
    /// Each folder's entries, with whether readdir said the entry is a regular file (so it needs
    /// no stat of its own: one system call less per file).
    private var stack: [(dir: String, entries: [(name: String, regular: Bool)], index: Int)] = []
    private var visited: Set<FolderID> = []
    private let includeHidden: (String) -> Bool
    private let skipFile: (_ name: String, _ path: String) -> Bool
    private let leftOut: (LeftOut) -> Void

    /// What the walk passed over without yielding it or being asked.
    public enum LeftOut: Sendable { case special, linkNotFollowed }

    public init(root: String, includeHidden: @escaping (String) -> Bool = { _ in false },
                skipFile: @escaping (_ name: String, _ path: String) -> Bool, leftOut: @escaping (LeftOut) -> Void) {
        self.includeHidden = includeHidden
        self.skipFile = skipFile
        self.leftOut = leftOut
        var st = stat()
        if PathBytes.stat(root, &st) == 0 { visited.insert(FolderID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))) }
        push(root)
    }

    private mutating func push(_ dir: String) {
        var names: [(name: String, bytes: [UInt8], regular: Bool)] = []
        if let d = PathBytes.withCString(dir, { opendir($0) }) {
            while let e = readdir(d) {
                let bytes: [UInt8] = withUnsafeBytes(of: e.pointee.d_name) { raw in
                    let b = raw.bindMemory(to: UInt8.self)
                    return Array(b.prefix(while: { $0 != 0 }))
                }
                if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
                let name = PathBytes.string(bytes)
                if bytes.first == 0x2E, !includeHidden(name) { continue }
                names.append((name, bytes, e.pointee.d_type == UInt8(DT_REG)))
            }
            closedir(d)
        }
        names.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        stack.append((dir, names.map { ($0.name, $0.regular) }, 0))
    }

    private mutating func firstVisit(_ st: stat) -> Bool {
        visited.insert(FolderID(dev: UInt64(st.st_dev), ino: UInt64(st.st_ino))).inserted
    }

    /// A regular file's path, unless `skipFile` takes it.
    private func file(_ path: String, name: String) -> String? {
        skipFile(name, path) ? nil : path
    }

    public mutating func next() -> String? {
        while let top = stack.last {
            if top.index >= top.entries.count { stack.removeLast(); continue }
            stack[stack.count - 1].index += 1
            let (name, regular) = top.entries[top.index]
            let path = top.dir.hasSuffix("/") ? top.dir + name : top.dir + "/" + name
            if regular {
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
            case S_IFREG: if let p = file(path, name: name) { return p }
            default: leftOut(.special)
            }
        }
        return nil
    }
}
