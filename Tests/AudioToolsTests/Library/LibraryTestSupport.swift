@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Items for query and sort tests, built with only the fields a test cares about.
func libraryItem(_ path: String, id: String? = nil, title: String? = nil, artist: String? = nil,
                 album: String? = nil, genre: String? = nil, year: Int? = nil, track: Int? = nil,
                 duration: Double? = nil, format: String? = "flac", codec: String? = "flac",
                 sampleRate: Int? = 44100, channels: Int? = 2, bitDepth: Int? = 16,
                 size: Int64 = 1_000_000, mtime: Int64 = 0) -> LibraryItem {
    LibraryItem(id: id ?? "id-" + path, path: path, title: title, artist: artist, album: album,
                genre: genre, year: year, track: track, durationSeconds: duration, format: format,
                codec: codec, sampleRate: sampleRate, channels: channels, bitDepth: bitDepth,
                sizeBytes: size, modifiedNanoseconds: mtime)
}

/// The content id of planar samples fed to the builder in blocks of `blockFrames`, as a decoder
/// would hand them over.
func contentID(_ channels: [[Float]], rate: Int = 8000, blockFrames: Int = 1000) -> String {
    let frames = channels[0].count
    var builder = ContentID.Builder(sampleRate: rate, channels: channels.count, totalFrames: frames)
    var start = 0
    while start < frames {
        let n = min(blockFrames, frames - start)
        builder.add(block: AudioBlock(channels: channels.map { Array($0[start..<start + n]) }, frames: n))
        start += n
    }
    return builder.finish()
}
