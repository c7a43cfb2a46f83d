import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct AlbumTagsTests {
    /// How many of this process's descriptors name `path`.
    func descriptors(of path: String) throws -> Int {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"))
                .map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path == real } ?? false
        }.count
    }

    /// TagLib reading through the sniffer's descriptor finds what it finds by name, and the
    /// descriptor it was lent is closed afterwards.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "needs /proc"), arguments: ["flac", "wav"])
    func tagsReadThroughTheOpenDescriptor(container: String) throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("albumtags-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).\(container)").path
        defer { unlink(path) }
        var tags = AudioTags()
        tags.album = "Live at the Hall"
        tags.artist = "Band"
        let sink = try SndfileSink(path: path, formatCode: SndfileSink.formatCode(container: container, codec: "pcm_s16")!,
                                   sampleRate: 44100, channelCount: 1, overwrite: true, tags: tags)
        try sink.write(AudioBlock(channels: [[Float](repeating: 0.1, count: 4410)], frames: 4410))
        try sink.commit()

        let format = try #require(TagFormat.of(try probeContainer(FileByteSource(path: path)).kind))
        let byName = try TagLibFile.read(path, format: format)
        let file = try FileByteSource(path: path)
        let byDescriptor = try TagLibFile.read(file, container: format.tagLibContainer)
        #expect(try descriptors(of: path) == 1, "only the byte source's own is left open")
        #expect(byDescriptor.properties == byName.properties)
        #expect(byDescriptor.fields.map(\.key) == byName.fields.map(\.key))
        #expect(byName.properties["ALBUM"] == "Live at the Hall")
        #expect(AlbumTags.read(path) == (albumArtist: nil, album: "Live at the Hall"))
    }
}
