import AudioIO
import Foundation

/// What a person reads when a file can't be decoded: the error code, the sentence naming the
/// file, and what to do instead.
extension DecodeError: ToolErrorConvertible, CustomStringConvertible {
    /// Names `self.path`, the file that failed, not the record's path.
    public func toolError(path _: String) -> ToolError {
        let name = ToolError.quoted(path)
        let again = "Download or export the file again; a complete copy will work."
        switch problem {
        case .empty:
            return ToolError(.empty, "\(name) is empty (0 bytes).",
                             suggestion: "The file holds no data; if it is a cloud-only placeholder, download it first, otherwise export it again.")
        case .needsFFmpeg(let container, let codec):
            let c = codec.map { " (\($0))" } ?? ""
            return ToolError(.unsupportedCodec,
                "\(name) holds \(container.uppercased()) audio\(c), which this build can decode only with ffmpeg, and ffmpeg is not installed.",
                suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg), or convert the file to WAV or FLAC first.")
        case .bitstreamInPCM(let codec):
            let codec = ["eac3": "E-AC-3", "truehd": "TrueHD"][codec] ?? codec.uppercased()
            return ToolError(.unsupportedCodec,
                "\(name) is not PCM audio: its samples carry a compressed \(codec) bitstream (IEC 61937, as S/PDIF captures hold it), which ffmpeg can't unpack from a WAV.",
                suggestion: "Measure the source the bitstream was captured from, or extract and decode the \(codec) stream with a tool that reads IEC 61937.")
        case .headerPromisesMore:
            return ToolError(.truncated, "\(name) is cut off: its header promises more audio than the file holds.", suggestion: again)
        case .sampleRateOutOfRange(let rate):
            return ToolError(.unsupportedCodec,
                "\(name) has a sample rate of \(rate) Hz, outside the 8 kHz to 384 kHz the tools work with.",
                suggestion: "Resample it to 48 kHz (for example with sox or ffmpeg) and use that copy.")

        case .unrecognisedFormat:
            return ToolError(.unrecognised, "\(name) is not an audio format this tool can read.",
                             suggestion: DecodeError.whatWorks)
        case .unsupportedEncoding(let libsndfile):
            return ToolError(.unsupportedCodec, "\(name) uses an audio encoding this build can't decode (\(libsndfile)).",
                             suggestion: "Convert it to WAV or FLAC first (for example with ffmpeg).")
        case .permissionDenied(let libsndfile):
            return ToolError(.unreadable, "\(name) can't be read: \(libsndfile)",
                             suggestion: "Give yourself read permission on the file.")
        case .damagedHeader(let libsndfile):
            return ToolError(.malformed, "\(name) looks like audio but its header is damaged (\(libsndfile.trimmingCharacters(in: .punctuationCharacters))).",
                             suggestion: "Export or download the file again; a complete, undamaged copy will work.")
        case .impossibleHeader(let channels, let rate):
            return ToolError(.malformed,
                "\(name) has an impossible header (\(channels) channels at \(rate) Hz).",
                suggestion: "The file is damaged or not what its header claims; export it again from the original.")
        case .damagedAfter(let frames, let libsndfile):
            return ToolError(.truncated,
                "\(name) is damaged or cut off after \(frames) frames (\(libsndfile.trimmingCharacters(in: .punctuationCharacters))).",
                suggestion: again)
        case .cannotSeek(let frame):
            return ToolError(.malformed, "\(name) can't be repositioned to frame \(frame).",
                             suggestion: "Convert the file to WAV or FLAC and use that copy.")
        case .cutOff(let promised, let read):
            return ToolError(.truncated,
                "\(name) is cut off: its header promises \(promised) frames but only \(read) are there.", suggestion: again)
        case .nonFiniteSample(let channel, let frame):
            return ToolError(.nonFiniteSamples,
                "\(name) holds a sample that is not a number (NaN or infinity) in channel \(channel + 1) at frame \(frame).",
                suggestion: "Re-render the file from its source; a plug-in or converter produced invalid floating-point samples.")

        case .linksDiffer(let link, let what):
            return ToolError(.unsupportedCodec,
                "\(name) chains Ogg streams that can't be measured as one: link \(link) has \(what).",
                suggestion: "Split the file into its links (for example with oggz-rip or ffmpeg) and measure each on its own.")
        case .damagedStream(let frames, let why):
            return ToolError(.malformed, "\(name) is damaged after \(frames) frames (\(why)).", suggestion: again)
        case .oggCutOff(let why):
            return ToolError(.truncated, "\(name) is cut off: \(why).", suggestion: again)

        case .ffmpegMissing:
            return ToolError(.unsupportedCodec, "\(name) needs ffmpeg to be decoded, and ffmpeg is not installed.",
                             suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg), or convert the file to WAV or FLAC.")
        case .impossibleStream(let channels, let rate):
            return ToolError(.malformed, "\(name) has an audio stream with an impossible format (\(channels) channels at \(rate) Hz).",
                             suggestion: "The file is damaged; export or download it again.")
        case .noAudioStream:
            return ToolError(.noAudio, "\(name) doesn't contain any audio.",
                             suggestion: "Pick a music or voice file — a video file won't work here.")
        case .undecodable(let ffmpeg):
            return ToolError(.malformed, "\(name) can't be decoded: \(ffmpeg).",
                             suggestion: "The file is damaged; export or download it again.")
        case .nonFiniteDecoded:
            return ToolError(.nonFiniteSamples, "\(name) decodes to samples that are not numbers (NaN or infinity).",
                             suggestion: "Re-encode the file from its source.")
        case .stoppedAfter(let frames, let cut, let ffmpeg):
            return ToolError(cut ? .truncated : .malformed,
                "\(name) \(cut ? "is cut off" : "is damaged") after \(frames) frames (\(ffmpeg)).", suggestion: again)
        case .decodedShort(let promised, let decoded):
            return ToolError(.truncated, "\(name) is cut off: it promises \(promised) frames but only \(decoded) decode.", suggestion: again)

        case .ffprobeMissing:
            return ToolError(.unsupportedCodec, "\(name) needs ffprobe (part of ffmpeg) to list its streams, and it is not installed.",
                             suggestion: "Install ffmpeg (Debian: apt-get install ffmpeg).")
        case .notMedia(let ffprobe):
            return ToolError(.malformed, "\(name) can't be read as a media file: \(ffprobe).",
                             suggestion: "The file is damaged; export or download it again.")
        case .unreadableProbe(let reason):
            return ToolError(.malformed, "ffprobe's description of \(name) can't be read (\(reason)).",
                             suggestion: "Check the installed ffmpeg (ffprobe -version).")
        case .noSuchStream(let n, let count):
            return ToolError(.noAudio, "\(name) has \(count) audio stream\(count == 1 ? "" : "s"), so it has no stream \(n) (streams are counted from 0).",
                             suggestion: "Pick a stream from 0 to \(count - 1) (lufs-measure lists them in loudness.streams), or leave out --stream.")
        }
    }

    /// The `unrecognised` suggestion: the formats the tools really read (ffmpeg's only when installed).
    public static var whatWorks: String {
        let own = "WAV, RF64, W64, AIFF, CAF, FLAC, MP3, Ogg Vorbis or Opus"
        guard FFmpegSource.isAvailable else {
            return "Pick a \(own) file (install ffmpeg for M4A, MKV, WebM, WMA, AC-3, DTS, MPEG-TS, WavPack and TTA), or convert this one to WAV."
        }
        return "Pick a \(own), M4A/MP4, MKV/WebM, WMA, AC-3/E-AC-3, DTS, MPEG-TS, WavPack or TTA file, or convert this one to WAV."
    }

    /// The sentence and suggestion, as a ToolError prints them (where an error is shown as text).
    public var description: String { toolError(path: path).description }
}
