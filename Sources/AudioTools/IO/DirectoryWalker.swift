import Foundation

/// Walks a directory depth-first in sorted (byte) order, one directory listing in memory at a
/// time. Hidden entries are skipped unless `includeHidden` accepts the name. Files that aren't
/// regular (pipes, sockets, devices) are skipped and counted in `tally`, and so, with
/// `skipNonAudio`, are files plainly not audio by name (cover art, playlists, cue sheets,
/// documents, system files). Symbolic links to files are followed; a symbolic link to a folder is followed once:
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
    private let skipNonAudio: Bool
    private let tally: WalkTally

    public init(root: String, includeHidden: @escaping (String) -> Bool = { _ in false },
                skipNonAudio: Bool = true, tally: WalkTally = WalkTally()) {
        self.includeHidden = includeHidden
        self.skipNonAudio = skipNonAudio
        self.tally = tally
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

    /// A regular file's path, unless its name says it is plainly not audio.
    private func file(_ path: String, name: String) -> String? {
        if skipNonAudio, let kind = LibrarySkipKind.classify(fileName: name) { tally.skipped(kind); return nil }
        return path
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
                guard PathBytes.stat(path, &st) == 0 else { tally.linkNotFollowed(); continue }
                kind = st.st_mode & S_IFMT
                if kind == S_IFDIR, !firstVisit(st) { tally.linkNotFollowed(); continue }
            } else if kind == S_IFDIR, !firstVisit(st) {
                continue
            }
            switch kind {
            case S_IFDIR: push(path)
            case S_IFREG: if let p = file(path, name: name) { return p }
            default: tally.skippedSpecial()
            }
        }
        return nil
    }
}

/// What directory walks left out, for the one line every tool writes on stderr at the end of a
/// run. Shared by the walks of one run; counts are taken on the input thread.
public final class WalkTally: @unchecked Sendable {
    private let lock = NSLock()
    private var kinds: [LibrarySkipKind: Int] = [:]
    private var special = 0
    private var links = 0

    public init() {}

    func skipped(_ kind: LibrarySkipKind) { lock.lock(); kinds[kind, default: 0] += 1; lock.unlock() }
    func skippedSpecial() { lock.lock(); special += 1; lock.unlock() }
    func linkNotFollowed() { lock.lock(); links += 1; lock.unlock() }

    /// Files skipped as not audio (by name, or not regular files at all).
    public var filesSkipped: Int { lock.lock(); defer { lock.unlock() }; return kinds.values.reduce(0, +) + special }
    /// Symbolic links not followed: loops, folders walked already, links to nothing.
    public var linksNotFollowed: Int { lock.lock(); defer { lock.unlock() }; return links }

    /// The files skipped by name, by kind.
    public var skippedByKind: [LibrarySkipKind: Int] { lock.lock(); defer { lock.unlock() }; return kinds }

    /// "4 files skipped in the walk as not audio (cover art, playlist, document); 2 symbolic links
    /// not followed (a loop, a folder walked already, or a link to nothing)", or nil when nothing
    /// was left out. Without `byName`, the files skipped by name are left out of it (for a tool
    /// that counts them in its own summary).
    public var sentence: String? { sentence(byName: true) }

    public func sentence(byName: Bool) -> String? {
        lock.lock(); defer { lock.unlock() }
        var parts: [String] = []
        let kinds = byName ? self.kinds : [:]
        let files = kinds.values.reduce(0, +) + special
        if files > 0 {
            var names = LibrarySkipKind.allCases.compactMap { k in kinds[k].flatMap { $0 > 0 ? k.noun(count: $0) : nil } }
            if special > 0 { names.append(special == 1 ? "pipe, socket or device" : "pipes, sockets or devices") }
            parts.append("\(files) \(files == 1 ? "file" : "files") skipped in the walk as not audio (\(names.joined(separator: ", ")); a file named on the command line is still checked)")
        }
        if links > 0 {
            parts.append("\(links) symbolic \(links == 1 ? "link" : "links") not followed (a loop, a folder walked already, or a link to nothing)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
