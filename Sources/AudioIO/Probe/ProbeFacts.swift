/// What a file is, judged from its first bytes (never its extension).
public enum ContainerKind: Equatable, Hashable, Sendable {
    case wav, rf64, w64, aiff, aifc, flac, ogg(OggCodec), mp3, adts, caf
    /// ISO base media / QuickTime: mp4, m4a, m4b, mov, 3gp, aax (the brand tells which).
    case isoMedia
    case matroska, webm, asf, avi
    /// Raw AC-3, E-AC-3 and DTS streams, MPEG transport streams, WavPack and TTA: ffmpeg decodes them.
    case ac3, eac3, dts, mpegts, wavpack, tta
    /// Sun/NeXT AU (`.snd`): libsndfile reads it.
    case au
    /// Musepack (SV7 `MP+`, SV8 `MPCK`), Flash Video and AMR: only ffmpeg decodes them.
    case musepack, flv, amr
    /// NIST SPHERE, Creative VOC, IRCAM/BICSF, Ensoniq PARIS (PAF), Portable Voice Format and
    /// Audio Visual Research (AVR): older formats libsndfile reads.
    case nist, voc, ircam, paf, pvf, avr
    /// MPEG program streams (VOB-style) and RealMedia: only ffmpeg decodes them.
    case mpegps, realmedia
    /// Audible's older .aa audiobook format (always DRM-protected).
    case audibleAA
    case midi
    case png, jpeg, gif, bmp, webp, tiff, pdf, zip(ZipFlavour), gzip
    case text(TextFlavour), xml, html
    case empty, unknown

    /// The codec an Ogg stream's first page announces.
    public enum OggCodec: String, Sendable { case vorbis, opus, flac, speex, theora, unknown }
    /// What a ZIP archive is packing, from its first entry's name.
    public enum ZipFlavour: String, Sendable { case plain, officeDocument, openDocument, epub }
    /// Plain text by its content.
    public enum TextFlavour: String, Sendable { case playlist, cueSheet, plain }

    /// Short lowercase name, as a record would show it ("ogg", "mp3", "png", "text").
    public var name: String {
        switch self {
        case .wav: return "wav"
        case .rf64: return "rf64"
        case .w64: return "w64"
        case .aiff: return "aiff"
        case .aifc: return "aifc"
        case .flac: return "flac"
        case .ogg: return "ogg"
        case .mp3: return "mp3"
        case .adts: return "aac"
        case .caf: return "caf"
        case .isoMedia: return "mp4"
        case .matroska: return "matroska"
        case .webm: return "webm"
        case .asf: return "asf"
        case .avi: return "avi"
        case .ac3: return "ac3"
        case .eac3: return "eac3"
        case .dts: return "dts"
        case .mpegts: return "mpegts"
        case .wavpack: return "wv"
        case .tta: return "tta"
        case .au: return "au"
        case .musepack: return "mpc"
        case .flv: return "flv"
        case .amr: return "amr"
        case .nist: return "nist"
        case .voc: return "voc"
        case .ircam: return "ircam"
        case .paf: return "paf"
        case .pvf: return "pvf"
        case .avr: return "avr"
        case .mpegps: return "mpeg"
        case .realmedia: return "rm"
        case .audibleAA: return "aa"
        case .midi: return "midi"
        case .png: return "png"
        case .jpeg: return "jpeg"
        case .gif: return "gif"
        case .bmp: return "bmp"
        case .webp: return "webp"
        case .tiff: return "tiff"
        case .pdf: return "pdf"
        case .zip: return "zip"
        case .gzip: return "gzip"
        case .text(let f): return f == .playlist ? "playlist" : f == .cueSheet ? "cue" : "text"
        case .xml: return "xml"
        case .html: return "html"
        case .empty: return "empty"
        case .unknown: return "unknown"
        }
    }

    /// True for containers that can hold audio (a decoder may be able to read them).
    public var isMediaContainer: Bool {
        switch self {
        case .wav, .rf64, .w64, .aiff, .aifc, .flac, .ogg, .mp3, .adts, .caf, .isoMedia,
             .matroska, .webm, .asf, .avi, .audibleAA, .ac3, .eac3, .dts, .mpegts, .wavpack, .tta, .au, .musepack, .flv, .amr,
             .nist, .voc, .ircam, .paf, .pvf, .avr, .mpegps, .realmedia:
            return true
        default:
            return false
        }
    }
}

/// The handful of tags a library listing shows; nil when the file doesn't say.
public struct ProbeTags: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var genre: String?
    public var year: String?
    public var track: String?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil,
                genre: String? = nil, year: String? = nil, track: String? = nil) {
        self.title = title; self.artist = artist; self.album = album
        self.genre = genre; self.year = year; self.track = track
    }

    public var isEmpty: Bool { self == ProbeTags() }

    /// Fills fields still nil from `other` (the first tag found wins).
    public mutating func merge(_ other: ProbeTags) {
        title = title ?? other.title; artist = artist ?? other.artist; album = album ?? other.album
        genre = genre ?? other.genre; year = year ?? other.year; track = track ?? other.track
    }
}

/// DRM found in the bytes: a scheme ("itun" FairPlay, "cenc"/"cbcs"/"cens"/"cbc1" Common
/// Encryption, "audible", or a protected sample entry's fourcc) and the format it hides.
public struct Protection: Equatable, Sendable {
    public var scheme: String
    public var originalFormat: String?

    public init(scheme: String, originalFormat: String? = nil) {
        self.scheme = scheme
        self.originalFormat = originalFormat
    }
}

/// Parameters of the (first) audio stream as the container header states them.
public struct ProbeAudioParameters: Equatable, Sendable {
    /// Sample entry / format fourcc or tag when the container has one ("mp4a", "alac", "fmt 1").
    public var format: String?
    public var sampleRate: Double?
    public var channels: Int?
    public var bitsPerSample: Int?
    /// Duration in seconds, when the header states it (mdhd, STREAMINFO, COMM, data size).
    public var duration: Double?
    /// The stated bit rate in bits per second (ASF's average bytes per second × 8).
    public var bitRate: Int?

    public init(format: String? = nil, sampleRate: Double? = nil, channels: Int? = nil,
                bitsPerSample: Int? = nil, duration: Double? = nil) {
        self.format = format; self.sampleRate = sampleRate; self.channels = channels
        self.bitsPerSample = bitsPerSample; self.duration = duration
    }
}

/// One track of an ISO/QuickTime file.
public struct MP4TrackFacts: Equatable, Sendable {
    /// hdlr handler type: "soun", "vide", "text", "sbtl", "subt", "tmcd", "meta", "hint"...
    public var handler: String?
    public var timescale: UInt32?
    public var duration: UInt64?
    /// First stsd sample entry fourcc ("mp4a", "alac", "drms", "avc1"...).
    public var sampleEntry: String?
    public var audio: ProbeAudioParameters?
    public var protection: Protection?
    /// For mp4a: the MPEG-4 object type (0x40 AAC, 0x6B/0x69 MP3) and AAC audio object type.
    public var objectTypeIndication: UInt8?
    public var audioObjectType: Int?

    public init() {}
}

/// What an ISO/QuickTime box walk found.
public struct MP4Structure: Equatable, Sendable {
    public var majorBrand: String?
    public var compatibleBrands: [String] = []
    public var tracks: [MP4TrackFacts] = []
    public var movieTimescale: UInt32?
    public var movieDuration: UInt64?
    public var tags = ProbeTags()
    /// True once a `moov` box was seen (an mdat-only file has no playable structure).
    public var hasMovieBox = false

    public init() {}
}

/// Why the bytes can't be used even though their kind is known.
public enum ProbeProblem: Equatable, Sendable {
    /// Structure is wrong; the text says what, e.g. "a box claims more bytes than the file holds".
    case malformed(String)
    /// The file stops before its own structure says it should; the text says where.
    case truncated(String)
}

/// Everything the bytes say about a file, before any decoding.
public struct ContainerFacts: Equatable, Sendable {
    public var kind: ContainerKind
    /// Container name for records: "wav", "mp4", "m4a", "m4b", "mov", "flac", "ogg", "opus"...
    public var container: String
    /// Codec name when known: "pcm", "float", "aac", "alac", "mp3", "vorbis", "opus", "flac"...
    public var codec: String?
    /// nil when the header doesn't say (leave it to the decoder).
    public var hasAudio: Bool?
    public var hasVideo: Bool?
    public var protection: Protection?
    public var tags: ProbeTags
    public var audio: ProbeAudioParameters?
    public var mp4: MP4Structure?
    public var problem: ProbeProblem?
    /// Size of the file in bytes.
    public var fileSize: UInt64
    /// Bytes the probe fetched from the source (page granularity).
    public var bytesRead: UInt64
    /// The container is one libsndfile knows, but these bytes are ones it can't read (a WAV
    /// whose sizes say "unknown", ALAC in CAF, MP3 behind junk): ffmpeg decodes them.
    public var ffmpegOnly = false
    /// The frames per channel a WAV `fact` chunk states for a compressed encoding (GSM, ADPCM,
    /// MP3 in WAV): the length, where a decoder would also hand out its last block's padding.
    public var wavFactFrames: UInt64?
    /// An MP3 whose length is only estimated from its first frame's bit rate (no Xing, Info or
    /// VBRI frame count): never a promise, so nothing is called cut off by it.
    public var mpegLengthIsEstimate = false
    /// Where an MP3's or ADTS stream's first frame starts (after any ID3v2 tag).
    public var mpegFirstFrame: UInt64?
    /// A WAV whose 16-bit PCM samples carry a compressed bitstream (IEC 61937 bursts): `codec`
    /// and `audio` describe the bitstream, which ffmpeg decodes.
    public var iec61937 = false

    public init(kind: ContainerKind, container: String, fileSize: UInt64) {
        self.kind = kind
        self.container = container
        self.tags = ProbeTags()
        self.fileSize = fileSize
        self.bytesRead = 0
    }
}
