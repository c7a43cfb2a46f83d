@testable import AudioTools

/// SplitMix64: a fixed-seed generator so synthesised audio is the same on every run.
struct LibraryTestRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 23) - 1 }
}

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
