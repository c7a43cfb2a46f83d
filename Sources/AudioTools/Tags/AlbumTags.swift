import Foundation

/// Reads the album grouping tags of a file through TagLib (any format it reads).
public enum AlbumTags {
    /// (album artist, album) from the file's tags; nil values when it has none or can't be read.
    public static func read(_ path: String) -> (albumArtist: String?, album: String?) {
        guard let facts = try? probeContainer(FileByteSource(path: path)), let format = TagFormat.of(facts.kind),
              let c = try? TagLibFile.read(path, format: format) else { return (nil, nil) }
        return (c.properties["ALBUMARTIST"], c.properties["ALBUM"])
    }
}
