@testable import AudioTools

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
