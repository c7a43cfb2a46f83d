import AudioIO
import Foundation

/// Whether an output's audio fits the sizes its container can state, decided before anything is
/// written (the frames, channels and sample size are known from the decoded source). WAV, AIFF and
/// the other containers libsndfile writes with 32-bit chunk sizes hold at most 4 GiB; past that
/// their sizes overflow and readers see a fraction of the audio. A WAV that large is written as
/// RF64 (WAV with 64-bit sizes) instead; the others are refused.
public enum OutputSizeLimit {
    /// The most audio bytes a 32-bit-sized container is given: 4 GiB less 1 MiB for its header,
    /// tags and chunk padding.
    public static let maxBytes32: UInt64 = UInt64(UInt32.max) - (1 << 20)
    /// Containers whose sizes are 64-bit (RF64, W64, CAF) or that state none (FLAC, Ogg, MP3 are
    /// streams of frames or pages).
    package static let unlimited: Set<String> = ["rf64", "w64", "caf", "flac", "ogg", "mp3"]

    public enum Decision: Equatable, Sendable {
        case fits
        /// A WAV too large for its sizes: written as RF64.
        case rf64
        /// Too large for the container, which has no larger form: refused.
        case tooLarge(limitBytes: UInt64)
    }

    /// The decision for `audioBytes` of audio (nil: not known, and nothing is changed) in `container`.
    public static func decide(container: String, audioBytes: UInt64?) -> Decision {
        guard let bytes = audioBytes, !unlimited.contains(container), bytes > maxBytes32 else { return .fits }
        return container == "wav" ? .rf64 : .tooLarge(limitBytes: maxBytes32)
    }

    /// The audio bytes of `frames` frames of `format` (PCM or float; nil for a lossy codec or an
    /// unknown length).
    public static func audioBytes(frames: Int?, format: LufsNormalizeFormat) -> UInt64? {
        guard let frames, frames >= 0, let bits = format.bitDepth, !format.isLossy else { return nil }
        let (product, overflow) = UInt64(frames).multipliedReportingOverflow(by: UInt64(format.channelCount) * UInt64((bits + 7) / 8))
        return overflow ? UInt64.max : product
    }

    /// The output too large for its container: facts for the refusal.
    public struct TooLarge: Error, Equatable, Sendable {
        public var container: String
        public var audioBytes: UInt64
        public var limitBytes: UInt64
    }

    /// `format` fitted to `frames` frames: as it is, or as RF64 with a note saying why; throws
    /// `TooLarge` for a container that can't hold it.
    public static func fit(_ format: LufsNormalizeFormat, frames: Int?) throws(TooLarge) -> (format: LufsNormalizeFormat, note: String?) {
        let bytes = audioBytes(frames: frames, format: format)
        switch decide(container: format.container, audioBytes: bytes) {
        case .fits:
            return (format, nil)
        case .rf64:
            var f = format
            f.container = "rf64"
            f.formatCode = SndfileSink.rf64(formatCode: format.formatCode)
            let gb = String(format: "%.2f", Double(bytes!) / 1e9)
            return (f, "The output holds \(gb) GB of audio, more than a WAV file's 32-bit sizes can state (4 GiB), so it was written as RF64, WAV with 64-bit sizes, which ffmpeg, sox and libsndfile read (format.container says rf64).")
        case .tooLarge(let limit):
            throw TooLarge(container: format.displayName, audioBytes: bytes!, limitBytes: limit)
        }
    }
}
