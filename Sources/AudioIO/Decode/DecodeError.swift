/// Why a file couldn't be decoded, as facts: which file and what the decoder found. The tool
/// boundary (Tools/Errors/DecodeSentences.swift) says it to a person.
public struct DecodeError: Error, Equatable, Sendable {
    /// The file that failed (named in the sentence, whichever record it belongs to).
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public enum Problem: Equatable, Sendable {
        // Opening (Decoder)
        /// The file holds 0 bytes.
        case empty
        /// Only ffmpeg decodes this container, and it isn't installed.
        case needsFFmpeg(container: String, codec: String?)
        /// libsndfile clamped a data chunk that runs past the end of the file.
        case headerPromisesMore
        /// 16-bit PCM carrying a compressed bitstream (IEC 61937) that no decoder here unpacks:
        /// `codec` names what the bursts hold (E-AC-3, TrueHD...).
        case bitstreamInPCM(codec: String)
        /// A sample rate outside 8 kHz...384 kHz.
        case sampleRateOutOfRange(Int)

        // libsndfile
        /// libsndfile doesn't recognise the format.
        case unrecognisedFormat
        /// libsndfile knows the container but not the encoding (its message).
        case unsupportedEncoding(libsndfile: String)
        /// libsndfile was refused the file (its message).
        case permissionDenied(libsndfile: String)
        /// libsndfile found the header damaged (its message).
        case damagedHeader(libsndfile: String)
        case impossibleHeader(channels: Int, sampleRate: Int)
        /// A read failed after `frames` frames (libsndfile's message).
        case damagedAfter(frames: Int, libsndfile: String)
        case cannotSeek(frame: Int)
        /// The header promised `promised` frames; only `read` were there.
        case cutOff(promised: Int, read: Int)
        /// A NaN or infinity at `frame` in `channel` (counted from 0).
        case nonFiniteSample(channel: Int, frame: Int)

        // Ogg chains (libopusfile, chained Vorbis)
        /// Link `link` (counted from 1) of a chained Ogg file changes `what` (channels or rate),
        /// which one measurement can't span.
        case linksDiffer(link: Int, what: String)
        /// The decoder found the stream damaged after `frames` frames (its words).
        case damagedStream(frames: Int, why: String)
        /// The Ogg stream stops before its end-of-stream page (`why` says where).
        case oggCutOff(why: String)

        // ffmpeg
        /// ffmpeg is needed for this file and isn't installed.
        case ffmpegMissing
        case impossibleStream(channels: Int, sampleRate: Int)
        /// ffmpeg found no audio stream to decode.
        case noAudioStream
        /// ffmpeg refused the file (its first line of errors).
        case undecodable(ffmpeg: String)
        /// ffmpeg decoded NaN or infinity.
        case nonFiniteDecoded
        /// ffmpeg stopped with errors after `frames` frames; `cutOff` when they say the file ends early.
        case stoppedAfter(frames: Int, cutOff: Bool, ffmpeg: String)
        /// The container promised `promised` frames; only `decoded` came out.
        case decodedShort(promised: Int, decoded: Int)

        // ffprobe
        case ffprobeMissing
        /// ffprobe refused the file (its first line of errors).
        case notMedia(ffprobe: String)
        /// ffprobe's JSON couldn't be parsed.
        case unreadableProbe(reason: String)
        /// `--stream n` of a file with `count` audio streams.
        case noSuchStream(Int, count: Int)
    }
}
