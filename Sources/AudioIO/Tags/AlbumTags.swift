import Foundation

/// Reads the album grouping tags of a file through TagLib (any format it reads).
public enum AlbumTags {
    /// (album artist, album) from the file's tags; nil values when it has none or can't be read.
    /// The file is opened once: TagLib reads through the descriptor the sniffer read.
    public static func read(_ path: String) -> (albumArtist: String?, album: String?) {
        guard let file = try? FileByteSource(path: path), let facts = try? probeContainer(file), let format = TagFormat.of(facts.kind),
              let c = try? TagLibFile.read(file, container: format.tagLibContainer) else { return (nil, nil) }
        return (c.properties["ALBUMARTIST"], c.properties["ALBUM"])
    }
}
