import AudioSignal
import Foundation

extension Decoder.Opened {
    /// The speaker of each channel as the file states it, in the WAVE channel mask's names
    /// ("FL", "FR", "FC", "LFE", "BL", "SL", "TFL", ...): libsndfile's channel map (a
    /// WAVE_FORMAT_EXTENSIBLE mask, a CAF channel layout), the channel layout ffmpeg decoded, or
    /// the order the format fixes (Vorbis, Opus, FLAC: FixedChannelOrder).
    /// Nil when the file doesn't say for every channel.
    public var speakerNames: [String]? {
        if let names = sndfile?.channelNames { return names }
        if let ffmpeg = source as? FFmpegSource, let mask = ffmpeg.channelMask {
            return ChannelLayout.speakerNames(waveMask: mask, channelCount: ffmpeg.format.channelCount)
        }
        return fixedOrderNames
    }
}
