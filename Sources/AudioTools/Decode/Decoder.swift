import Foundation

/// Opens the right decoder for a file after the checks every tool needs: the file exists, is a
/// regular readable file, and is not empty.
public enum Decoder {
    /// Frames per block that decoders hand to the DSP units.
    public static let blockFrames = 8192

    public struct Opened {
        public var source: AudioSource
        public var identity: FileIdentity
        /// libsndfile's view of the encoding, when it is the decoder.
        public var sndfile: SndfileDescription?
        /// What the bytes said before decoding.
        public var facts: ContainerFacts?
        /// "libsndfile" or "ffmpeg".
        public var decoder: String
    }

    /// Which decoder this build uses for a container, or nil when none can read it (ffmpeg
    /// missing for MP4/Matroska/ASF, or not an audio container at all).
    public static func decoderName(for kind: ContainerKind) -> String? {
        switch kind {
        case .wav, .rf64, .w64, .aiff, .aifc, .flac, .mp3, .caf: return "libsndfile"
        case .ogg(let c): return c == .speex || c == .theora ? (FFmpegSource.isAvailable ? "ffmpeg" : nil) : "libsndfile"
        case .isoMedia, .matroska, .webm, .asf, .avi, .adts: return FFmpegSource.isAvailable ? "ffmpeg" : nil
        default: return nil
        }
    }

    /// Opens `path` for decoding after the checks every tool needs: the file exists, is a
    /// readable regular file, is not empty, and its bytes are audio that isn't protected
    /// (protected files are never handed to a decoder).
    public static func open(_ path: String) throws -> Opened {
        let identity = try FileIdentity.of(path)
        if identity.sizeBytes == 0 {
            throw ToolError(.empty, "\(ToolError.quoted(path)) is empty (0 bytes).",
                            suggestion: "The file holds no data; if it is a cloud-only placeholder, download it first, otherwise export it again.")
        }
        let facts = try probeContainer(FileByteSource(path: path))
        if let refusal = ProbeVerdicts.refusal(for: facts, path: path) { throw refusal }
        return try open(path, facts: facts, identity: identity)
    }

    /// The decoder for a file whose bytes were judged usable, or `unsupported-codec` saying what
    /// to install when this build has none for it.
    public static func requireDecoder(_ path: String, facts: ContainerFacts) throws -> String {
        guard let name = decoderName(for: facts.kind) else {
            let codec = facts.codec.map { " (\($0))" } ?? ""
            throw ToolError(.unsupportedCodec,
                "\(ToolError.quoted(path)) holds \(facts.container.uppercased()) audio\(codec), which this build can decode only with ffmpeg, and ffmpeg is not installed.",
                suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg), or convert the file to WAV or FLAC first.")
        }
        return name
    }

    /// Frames the container states for its audio track, when its timescale is the sample rate.
    public static func statedFrames(_ facts: ContainerFacts) -> Int? {
        guard let t = facts.mp4?.tracks.first(where: { $0.handler == "soun" }), let ts = t.timescale, let d = t.duration,
              let rate = t.audio?.sampleRate ?? facts.audio?.sampleRate, Double(ts) == rate, d < UInt64(Int.max) else { return nil }
        return Int(d)
    }

    /// Opens the decoder for a file whose bytes were already judged usable.
    public static func open(_ path: String, facts: ContainerFacts, identity: FileIdentity) throws -> Opened {
        let name = try requireDecoder(path, facts: facts)
        if name == "ffmpeg" {
            let s = try FFmpegSource(path: path, expectedFrames: statedFrames(facts))
            return Opened(source: s, identity: identity, sndfile: nil, facts: facts, decoder: name)
        }
        let s = try SndfileSource(path: path)
        if s.isTruncatedByHeader {
            throw ToolError(.truncated,
                "\(ToolError.quoted(path)) is cut off: its header promises more audio than the file holds.",
                suggestion: "Download or export the file again; a complete copy will work.")
        }
        if s.format.sampleRate < 8000 || s.format.sampleRate > 384_000 {
            throw ToolError(.unsupportedCodec,
                "\(ToolError.quoted(path)) has a sample rate of \(s.format.sampleRate) Hz, outside the 8 kHz to 384 kHz the tools work with.",
                suggestion: "Resample it to 48 kHz (for example with sox or ffmpeg) and use that copy.")
        }
        return Opened(source: s, identity: identity, sndfile: s.description, facts: facts, decoder: name)
    }

    /// Reads `source` to the end in blocks, handing each to `body`; returns the frames read.
    @discardableResult
    public static func forEachBlock(_ source: AudioSource, _ body: (AudioBlock) throws -> Void) throws -> Int {
        var block = AudioBlock(channelCount: source.format.channelCount, capacity: blockFrames)
        var total = 0
        while true {
            let n = try source.read(into: &block, maxFrames: blockFrames)
            if n == 0 { break }
            total += n
            try body(block)
        }
        return total
    }
}
