import Foundation
import ToolRunner

/// The album stage with --platforms: records leave it with each platform's album-mode figures
/// added, now that `loudness.album` is known.
package final class PlatformAlbumStage: RecordStage {
    package let inner: AlbumStage

    package init(_ inner: AlbumStage) { self.inner = inner }

    package func admit(_ record: Record) { inner.admit(record) }
    package func admitEnded() { inner.admitEnded() }
    package func accept(_ record: Record) -> [Record] { inner.accept(record).map(Self.withAlbum) }
    package func ready() -> [Record] { inner.ready().map(Self.withAlbum) }
    package func drain() -> [Record] { inner.drain().map(Self.withAlbum) }

    package static func withAlbum(_ r: Record) -> Record {
        guard let l = r["loudness"] else { return r }
        var out = r
        out["loudness"] = PlatformsRecord.withAlbum(l)
        return out
    }
}
