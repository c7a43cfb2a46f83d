import AudioIO
import Foundation

/// `library-filter --get ID` without a walk: the cache knows where it last saw each id. The
/// answer is used only when every id given has at least one file that is still exactly where and
/// what the cache saw, at a place the walk of the folders given would reach; otherwise the caller
/// walks, as without a cache.
public enum LibraryIndex {
    /// The paths holding the songs with `ids` under `roots`, or nil when the index can't answer.
    /// `includeHidden` is the walk's rule for hidden names.
    public static func locate(ids: [String], roots: [String], cache: ResultCache, settings: String,
                              includeHidden: (String) -> Bool) -> [String]? {
        guard !ids.isEmpty, !roots.isEmpty, !roots.contains("-") else { return nil }
        var found: [String] = []
        for id in ids {
            let here = cache.paths(libraryID: id, kind: ProbeCache.kind, settings: settings).filter { entry in
                !found.contains(entry.path) && roots.contains { reachable(entry.path, from: $0, includeHidden: includeHidden) }
                    && FileStamp.of(entry.path) == entry.stamp && access(entry.path, R_OK) == 0
            }
            guard !here.isEmpty else { return nil }
            found += here.map(\.path)
        }
        return found
    }

    /// Whether walking `root` yields `path`: the path as the walk spells it, through real
    /// folders (symbolic links to folders aren't followed), no hidden names but an accepted last one.
    package static func reachable(_ path: String, from root: String, includeHidden: (String) -> Bool) -> Bool {
        var st = stat()
        guard stat(root, &st) == 0 else { return false }
        if (st.st_mode & S_IFMT) != S_IFDIR { return path == root }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return false }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let last = parts.last, !parts.contains(where: \.isEmpty) else { return false }
        var dir = String(prefix.dropLast())
        for part in parts.dropLast() {
            guard !part.hasPrefix(".") else { return false }
            dir += "/" + part
            guard lstat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return false }
        }
        return !last.hasPrefix(".") || includeHidden(last)
    }
}
