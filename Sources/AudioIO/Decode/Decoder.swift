import AudioSignal
import Foundation

/// The program that decodes a file; the raw value is how records name it (`probe.decoder`).
public enum DecoderKind: String, Sendable {
    case libsndfile
    case ffmpeg
    /// Opus in Ogg (libopusfile, the reference decoder).
    case libopusfile
}

/// Opens the right decoder for a file after the checks every tool needs: the file exists, is a
/// regular readable file, and is not empty.
public enum Decoder {
    /// Frames per block that decoders hand to the DSP units.
    public static let blockFrames = 8192

    public struct Opened {
        /// The path it was opened by.
        public var path: String
        public var source: AudioSource
        public var identity: FileIdentity
        /// libsndfile's view of the encoding, when it is the decoder.
        public var sndfile: SndfileDescription?
        /// What the bytes said before decoding.
        public var facts: ContainerFacts?
        /// Which decoder reads it.
        public var decoder: DecoderKind
        /// ffprobe's description of the file, read the first time a reader asks and then kept,
        /// so no reader of this opened input runs ffprobe again.
        private let streamFacts: StreamFacts

        public init(path: String, source: AudioSource, identity: FileIdentity, sndfile: SndfileDescription?,
                    facts: ContainerFacts?, decoder: DecoderKind) {
            self.init(path: path, source: source, identity: identity, sndfile: sndfile, facts: facts, decoder: decoder, streamFacts: StreamFacts())
        }

        package init(path: String, source: AudioSource, identity: FileIdentity, sndfile: SndfileDescription?,
             facts: ContainerFacts?, decoder: DecoderKind, streamFacts: StreamFacts) {
            self.streamFacts = streamFacts
            self.path = path
            self.source = source
            self.identity = identity
            self.sndfile = sndfile
            self.facts = facts
            self.decoder = decoder
        }

        /// The streams and container as ffprobe describes the file: one ffprobe run per opened
        /// input, however many readers ask (started at open for media files, see `startMediaProbe`).
        public func mediaProbe() throws -> MediaProbe {
            try streamFacts.probe(path)
        }

        /// Starts ffprobe now, on a thread of its own, so its run overlaps the decoder's start and
        /// whatever the caller does next; `mediaProbe` then waits for it (or reads it at once).
        public func startMediaProbe() {
            streamFacts.start(path)
        }
    }

    /// ffprobe's answer about an opened input's streams, asked at most once (shared by copies of
    /// `Opened`): run in the background by `start`, or by the first reader.
    package final class StreamFacts: @unchecked Sendable {
        private let condition = NSCondition()
        private var result: Result<MediaProbe, Error>?
        private var running = false

        package func start(_ path: String) {
            condition.lock()
            guard result == nil, !running else { condition.unlock(); return }
            running = true
            condition.unlock()
            // ffprobe ends by itself (it is a ChildProcess: a signal or exit kills it too).
            let thread = Thread { self.finish(Result { try MediaProbe.probe(path) }) }
            thread.stackSize = 1 << 20
            thread.start()
        }

        package func probe(_ path: String) throws -> MediaProbe {
            condition.lock()
            while running { condition.wait() }
            if let r = result { condition.unlock(); return try r.get() }
            running = true
            condition.unlock()
            let r = Result { try MediaProbe.probe(path) }
            finish(r)
            return try r.get()
        }

        private func finish(_ r: Result<MediaProbe, Error>) {
            condition.lock()
            result = r
            running = false
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Whether a file decoded by ffmpeg is one whose streams every tool asks ffprobe about
    /// (several sound tracks, a Matroska file), so the probe is started as it is opened. A video
    /// with one sound track is not: only lufs-normalize asks about it (`open(_:streams:)`).
    package static func asksForStreams(_ facts: ContainerFacts) -> Bool {
        switch facts.kind {
        case .matroska, .webm: return true
        case .isoMedia:
            guard let tracks = facts.mp4?.tracks else { return true }
            return tracks.filter { $0.handler == "soun" }.count > 1
        default: return false
        }
    }

    /// Which decoder this build uses for a container, or nil when none can read it (ffmpeg
    /// missing for MP4/Matroska/ASF, or not an audio container at all).
    public static func decoderKind(for kind: ContainerKind) -> DecoderKind? {
        switch kind {
        case .wav, .rf64, .w64, .aiff, .aifc, .flac, .mp3, .caf, .au, .nist, .voc, .ircam, .paf, .pvf, .avr: return .libsndfile
        case .ogg(.opus): return .libopusfile
        case .ogg(.flac): return FFmpegSource.isAvailable ? .ffmpeg : nil
        case .ogg(let c): return c == .speex || c == .theora ? (FFmpegSource.isAvailable ? .ffmpeg : nil) : .libsndfile
        case .isoMedia, .matroska, .webm, .asf, .avi, .adts: return FFmpegSource.isAvailable ? .ffmpeg : nil
        case .ac3, .eac3, .dts, .mpegts, .wavpack, .tta, .musepack, .flv, .amr, .mpegps, .realmedia:
            return FFmpegSource.isAvailable ? .ffmpeg : nil
        default: return nil
        }
    }

    /// Opens `path` for decoding after the checks every tool needs: the file exists, is a
    /// readable regular file, is not empty, and its bytes are audio that isn't protected
    /// (protected files are never handed to a decoder). The path is opened once: the identity,
    /// the sniffing and libsndfile's decoding all go through that one descriptor.
    /// `streams`: the caller will ask ffprobe about the streams (lufs-normalize's media path), so
    /// a file ffmpeg decodes has it started at once.
    public static func open(_ path: String, streams wanted: Bool = false) throws -> Opened {
        if path == StandardInput.path { return try StandardInput.open() }  // `-`: audio on standard input
        let file = try FileByteSource.input(path)
        let identity = file.identity
        if identity.sizeBytes == 0 {
            throw DecodeError(path, .empty)
        }
        let facts = try probeContainer(file)
        if let refusal = ProbeVerdicts.refusal(for: facts, path: path) { throw refusal }
        return try open(path, facts: facts, identity: identity, file: file, streams: wanted)
    }

    /// The decoder for a file whose bytes were judged usable, or `unsupported-codec` saying what
    /// to install when this build has none for it.
    public static func requireDecoder(_ path: String, facts: ContainerFacts) throws -> DecoderKind {
        if facts.iec61937, !spdifCodecs.contains(facts.codec ?? "") { throw DecodeError(path, .bitstreamInPCM(codec: facts.codec ?? "unknown")) }
        guard let kind = facts.ffmpegOnly ? (FFmpegSource.isAvailable ? .ffmpeg : nil) : decoderKind(for: facts.kind) else {
            throw DecodeError(path, .needsFFmpeg(container: facts.container, codec: facts.codec))
        }
        return kind
    }

    /// What ffmpeg's `spdif` reader unpacks from IEC 61937 bursts (not E-AC-3 or TrueHD).
    package static let spdifCodecs: Set<String> = ["ac3", "dts", "aac", "mp1", "mp2", "mp3"]

    /// Frames the container states for its audio track, when its timescale is the sample rate.
    public static func statedFrames(_ facts: ContainerFacts) -> Int? {
        guard let t = facts.mp4?.tracks.first(where: { $0.handler == "soun" }), let ts = t.timescale, let d = t.duration,
              let rate = t.audio?.sampleRate ?? facts.audio?.sampleRate, Double(ts) == rate, d > 0, d < UInt64(Int.max) else { return nil }
        return Int(d)
    }

    /// Opens the decoder for a file whose bytes were already judged usable; libsndfile reads
    /// through `file`'s descriptor when given one (ffmpeg, a separate program, opens the path).
    public static func open(_ path: String, facts: ContainerFacts, identity: FileIdentity,
                            file: FileByteSource? = nil, streams wanted: Bool = false) throws -> Opened {
        let kind = try requireDecoder(path, facts: facts)
        if kind == .ffmpeg {
            let streams = StreamFacts()
            // ffprobe and the decoder's ffmpeg start together (each reads the file's headers).
            if wanted || asksForStreams(facts) { streams.start(path) }
            let s = try FFmpegSource(path: path, expectedFrames: statedFrames(facts), inputFormat: facts.iec61937 ? "spdif" : nil)
            return Opened(path: path, source: s, identity: identity, sndfile: nil, facts: facts, decoder: kind, streamFacts: streams)
        }
        if let ogg = try openOgg(path, facts: facts, identity: identity, file: file) { return ogg }
        let s = try SndfileSource(path: path, file: file)
        // A compressed WAV's `fact` count is its length: the last block's padding is not audio.
        if facts.kind == .wav, let stated = facts.wavFactFrames, s.description.isLossy || !s.description.codec.hasPrefix("pcm_"),
           stated < UInt64(Int.max) {
            s.stopAtStatedLength(Int(stated))
        }
        if s.isTruncatedByHeader {
            throw DecodeError(path, .headerPromisesMore)
        }
        if s.format.sampleRate < 8000 || s.format.sampleRate > 384_000 {
            throw DecodeError(path, .sampleRateOutOfRange(s.format.sampleRate))
        }
        return Opened(path: path, source: s, identity: identity, sndfile: s.description, facts: facts, decoder: kind)
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
