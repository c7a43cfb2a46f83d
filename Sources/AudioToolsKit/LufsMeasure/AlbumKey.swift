import Foundation

/// What groups a track into an album: its album artist and album tags, or its folder.
public struct AlbumKey: Hashable, Sendable {
    /// "tag" or "folder": what the grouping used for this track.
    public var by: String
    /// The album as a person reads it: "Album Artist — Album", "Album (in folder)", or the folder.
    public var text: String

    public enum Grouping: String, CaseIterable, Sendable { case tag, folder }

    /// The key for a track. By tag: album artist and album where both are tagged; an album
    /// tag without an album artist is grouped within its folder (two "Greatest Hits" of
    /// different artists stay apart); no album tag, or `--album-by folder`, is the folder.
    public static func of(path: String, albumArtist: String?, album: String?, grouping: Grouping) -> AlbumKey {
        let folder = Self.folder(of: path)
        func clean(_ s: String?) -> String? {
            guard let t = s?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
            return t
        }
        if grouping == .tag, let a = clean(album) {
            if let aa = clean(albumArtist) { return AlbumKey(by: "tag", text: "\(aa) — \(a)") }
            return AlbumKey(by: "tag", text: "\(a) (in \(folder))")
        }
        return AlbumKey(by: "folder", text: folder)
    }

    /// The folder part of a path as given ("." for a bare file name).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }
}
