import AudioIO
import Foundation
import JSONValue

/// The encoding lufs-normalize writes: the input's own by default, or what `--format`,
/// `--bit-depth` and `--sample-rate` ask for; and what that would lose.
public struct LufsNormalizeFormat: Equatable, Sendable {
    public var container: String
    public var codec: String
    /// Bits per sample for PCM (nil for lossy codecs).
    public var bitDepth: Int?
    public var isFloat: Bool
    public var isLossy: Bool
    public var sampleRate: Int
    public var channelCount: Int
    public var formatCode: Int32
    /// `--bit-rate` or `--quality`, for a lossy codec (not part of `json`: the record's `encoding` says it).
    public var rate: LossyRate? = nil

    /// `--format` names: container, codec family (nil: PCM at the chosen depth), file extension.
    public static let formats: [String: (container: String, lossyCodec: String?, ext: String)] = [
        "wav": ("wav", nil, "wav"), "flac": ("flac", nil, "flac"), "aiff": ("aiff", nil, "aiff"),
        "caf": ("caf", nil, "caf"), "w64": ("w64", nil, "w64"), "rf64": ("rf64", nil, "wav"),
        "ogg": ("ogg", "vorbis", "ogg"), "opus": ("ogg", "opus", "opus"), "mp3": ("mp3", "mp3", "mp3"),
    ]

    /// Readable names of codecs and containers for messages.
    package static func displayName(container: String, codec: String) -> String {
        switch codec {
        case "vorbis": return "Ogg Vorbis"
        case "opus": return "Opus"
        case "mp3": return "MP3"
        case "mp2": return "MP2"
        case "ulaw", "pcm_mulaw": return "µ-law"
        case "alaw", "pcm_alaw": return "A-law"
        case "adpcm": return "ADPCM"
        case "gsm", "gsm_ms": return "GSM 6.10"
        default: return container == "flac" ? "FLAC" : container.uppercased()
        }
    }

    public var displayName: String { Self.displayName(container: container, codec: codec) }

    /// Bits of precision a sample keeps: PCM depth, 24 for 32-bit float, 53 for double; nil lossy.
    package static func precisionBits(bitDepth: Int?, isFloat: Bool, isLossy: Bool) -> Int? {
        if isLossy { return nil }
        guard let d = bitDepth else { return nil }
        if isFloat { return d == 64 ? 53 : 24 }
        return d
    }

    /// Which tags each container keeps when libsndfile (1.2) writes it; `software` is never carried.
    package static func tagsHeld(container: String) -> Set<String> {
        let all: Set<String> = ["title", "artist", "album", "genre", "date", "comment", "tracknumber", "copyright"]
        switch container {
        case "wav", "rf64", "flac", "ogg", "caf": return all
        case "aiff": return ["title", "artist", "comment", "copyright"]
        case "mp3": return all.subtracting(["copyright"])
        default: return []
        }
    }

    /// The tags as (name, value) pairs, in a fixed order.
    package static func tagList(_ t: AudioTags) -> [(String, String)] {
        let pairs: [(String, String?)] = [("title", t.title), ("artist", t.artist), ("album", t.album), ("genre", t.genre),
                                          ("date", t.date), ("comment", t.comment), ("tracknumber", t.trackNumber),
                                          ("copyright", t.copyright)]
        return pairs.compactMap { n, v in v.map { (n, $0) } }
    }

    /// `tags` without those `container` can't hold, and the names of the dropped ones.
    package static func keptTags(_ tags: AudioTags, container: String) -> (AudioTags, [String]) {
        let held = tagsHeld(container: container)
        var out = AudioTags()
        var dropped: [String] = []
        for (name, value) in tagList(tags) {
            guard held.contains(name) else { dropped.append(name); continue }
            switch name {
            case "title": out.title = value
            case "artist": out.artist = value
            case "album": out.album = value
            case "genre": out.genre = value
            case "date": out.date = value
            case "comment": out.comment = value
            case "tracknumber": out.trackNumber = value
            default: out.copyright = value
            }
        }
        return (out, dropped)
    }

    /// `--bit-depth` values: 8, 16, 24, 32 (PCM), float, double.
    public enum Depth: Equatable, Sendable {
        case pcm(Int)
        case float
        case double

        public init?(_ text: String) {
            switch text.lowercased() {
            case "8": self = .pcm(8)
            case "16": self = .pcm(16)
            case "24": self = .pcm(24)
            case "32": self = .pcm(32)
            case "float", "f32", "32f": self = .float
            case "double", "f64", "64f": self = .double
            default: return nil
            }
        }

        package var codecs: [String] {
            switch self {
            case .pcm(8): return ["pcm_s8", "pcm_u8"]
            case .pcm(let d): return ["pcm_s\(d)"]
            case .float: return ["pcm_f32"]
            case .double: return ["pcm_f64"]
            }
        }
    }

    /// Whether libsndfile can write this format code with these parameters.
    package static func writable(_ code: Int32, sampleRate: Int, channels: Int) -> Bool {
        SndfileSink.canWrite(formatCode: code, sampleRate: sampleRate, channels: channels)
    }

    /// Codec name, bits, float and lossy of a libsndfile format code.
    package static func describe(code: Int32) -> (codec: String, depth: Int?, isFloat: Bool, isLossy: Bool) {
        SndfileSink.describe(formatCode: code)
    }

    /// Why no output format could be found.
    public enum Problem: Error, Equatable {
        /// The container can't store the requested sample format (e.g. float in FLAC).
        case depthNotHeld(container: String, depth: String)
        /// libsndfile can't write this combination at all.
        case notWritable(String)
    }

    /// Resolves the output encoding for an input described by `input`, and lists what it would
    /// lose against the input (channels beyond what the container holds are dropped: `channelCount`
    /// then says how many are kept).
    public static func resolve(input: SndfileDescription, inputRate: Int, inputChannels: Int, tags: AudioTags,
                               format: String?, depth: Depth?, sampleRate: Int?) throws(Problem)
        -> (format: LufsNormalizeFormat, tags: AudioTags, losses: [String]) {
        let rate = sampleRate ?? inputRate
        let container: String
        var lossyCodec: String?
        if let f = format, let spec = formats[f] {
            container = spec.container
            lossyCodec = spec.lossyCodec
        } else {
            container = input.container
            lossyCodec = input.isLossy ? input.codec : nil
        }
        var code: Int32?
        if format == nil, depth == nil, !input.isLossy || lossyCodec != nil {
            code = input.formatCode    // the input's exact encoding (ALAC, u8, ...)
        }
        if code == nil, let lc = lossyCodec {
            code = SndfileSink.formatCode(container: container, codec: lc)
        }
        if code == nil {
            let wanted: Depth
            if let depth { wanted = depth } else if input.isLossy || input.bitDepth == nil {
                wanted = .pcm(24)
            } else if input.isFloat {
                wanted = input.bitDepth == 64 ? .double : .float
            } else {
                wanted = .pcm(input.bitDepth!)
            }
            // FLAC holds no float and at most 24 bits: the nearest it holds (a loss, listed below).
            var candidates = wanted.codecs
            if container == "flac" {
                switch wanted {
                case .float, .double, .pcm(32):
                    if depth != nil { throw .depthNotHeld(container: "FLAC", depth: depth == .pcm(32) ? "32-bit" : "floating-point") }
                    candidates = ["pcm_s24"]
                default: break
                }
            }
            code = candidates.lazy.compactMap { SndfileSink.formatCode(container: container, codec: $0) }
                .first { writable($0, sampleRate: rate, channels: 1) }
            guard code != nil else { throw .notWritable("\(displayName(container: container, codec: "")) with \(candidates.joined(separator: "/"))") }
        }
        var channels = inputChannels
        while channels > 0, !writable(code!, sampleRate: rate, channels: channels) { channels -= 1 }
        guard channels > 0 else { throw .notWritable("\(displayName(container: container, codec: "")) at \(rate) Hz") }
        let d = describe(code: code!)
        let isLossy = d.isLossy || (lossyCodec != nil)
        let out = LufsNormalizeFormat(container: container,
                                      codec: container == "flac" ? "flac" : (d.codec == "other" ? input.codec : d.codec),
                                      bitDepth: d.codec == "other" ? input.bitDepth : d.depth,
                                      isFloat: d.isFloat, isLossy: isLossy,
                                      sampleRate: rate, channelCount: channels, formatCode: code!)
        var losses: [String] = []
        if isLossy {
            losses.append(input.isLossy
                ? "re-encoding \(displayName(container: input.container, codec: input.codec)) as \(out.displayName) loses detail again (each lossy generation adds its own artefacts)"
                : "encoding as \(out.displayName), a lossy codec, discards detail the \(displayName(container: input.container, codec: input.codec)) input has")
        } else if let inBits = precisionBits(bitDepth: input.bitDepth, isFloat: input.isFloat, isLossy: input.isLossy),
                  let outBits = precisionBits(bitDepth: out.bitDepth, isFloat: out.isFloat, isLossy: false), outBits < inBits {
            losses.append("\(Self.depthName(input.bitDepth, input.isFloat)) samples are written as \(Self.depthName(out.bitDepth, out.isFloat))\(outBits <= 16 ? " (with TPDF dither)" : "")")
        }
        if channels < inputChannels {
            losses.append("\(out.displayName) holds at most \(channels) channel\(channels == 1 ? "" : "s"): channel\(inputChannels - channels == 1 ? "" : "s") \(channels + 1)\(inputChannels - channels == 1 ? "" : "–\(inputChannels)") of \(inputChannels) are left out")
        }
        if rate < inputRate {
            losses.append("converting from \(inputRate) Hz to \(rate) Hz removes everything above \(Self.kHz(rate / 2))")
        }
        let (kept, dropped) = keptTags(tags, container: container)
        if !dropped.isEmpty {
            losses.append("\(out.displayName) can't hold the tag\(dropped.count == 1 ? "" : "s") \(dropped.joined(separator: ", ")), so \(dropped.count == 1 ? "it is" : "they are") left out")
        }
        return (out, kept, losses)
    }

    package static func depthName(_ bits: Int?, _ isFloat: Bool) -> String {
        guard let b = bits else { return "decoded" }
        return isFloat ? "\(b)-bit float" : "\(b)-bit"
    }

    package static func kHz(_ hz: Int) -> String {
        hz % 1000 == 0 ? "\(hz / 1000) kHz" : String(format: "%.2f kHz", Double(hz) / 1000)
    }

    /// The record form: container, codec, bit depth, rate, channels.
    public var json: JSON {
        .object([
            "container": .string(container), "codec": .string(codec),
            "bit_depth": bitDepth.map { .int($0) } ?? .null, "float": .bool(isFloat),
            "sample_rate": .int(sampleRate), "channels": .int(channelCount),
        ])
    }
}
