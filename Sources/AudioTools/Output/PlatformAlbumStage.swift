import Foundation

/// The album stage with --platforms: records leave it with each platform's album-mode figures
/// added, now that `loudness.album` is known.
final class PlatformAlbumStage: RecordStage {
    let inner: AlbumStage

    init(_ inner: AlbumStage) { self.inner = inner }

    func admit(_ record: Record) { inner.admit(record) }
    func admitEnded() { inner.admitEnded() }
    func accept(_ record: Record) -> [Record] { inner.accept(record).map(Self.withAlbum) }
    func ready() -> [Record] { inner.ready().map(Self.withAlbum) }
    func drain() -> [Record] { inner.drain().map(Self.withAlbum) }

    static func withAlbum(_ r: Record) -> Record {
        guard let l = r["loudness"] else { return r }
        var out = r
        out["loudness"] = PlatformsRecord.withAlbum(l)
        return out
    }
}
