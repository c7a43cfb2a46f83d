import CSndfile
import Foundation

extension SndfileSink {
    /// Steers libsndfile's lossy encoder (before the first write): MP3 at a constant bit rate or a
    /// LAME -V quality, Vorbis at a -q quality, Opus at a bit rate (per channel, its VBR target).
    /// libsndfile takes a "compression level" from 0 (best) to 1; each codec maps it linearly
    /// (libsndfile 1.2: MP3 320 − 288·level kb/s at 32 kHz and over, 160 − 152·level at 16 to
    /// 24 kHz, 64 − 56·level under, and LAME -V 10·level; Vorbis quality 1 − level; Opus
    /// 6 + 250·(1 − level) kb/s a channel). The level is set a quarter of a unit past the rate
    /// asked for, so the encoder's truncation to a whole number lands on it (LAME then rounds an
    /// MP3 rate to its nearest standard one, which the options have already required).
    package func setRate(_ rate: LossyRate, codec: LossyRate.Codec, sampleRate: Int) {
        guard let h = handleForSettings else { return }
        var level: Double
        switch (codec, rate) {
        case (.mp3, .bitRate(let b)):
            var mode = Int32(SF_BITRATE_MODE_CONSTANT)
            _ = sf_command(h, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            let (top, bottom): (Double, Double) = sampleRate >= 32_000 ? (320, 32) : sampleRate >= 16_000 ? (160, 8) : (64, 8)
            level = (top - Double(b) / 1000 - 0.25) / (top - bottom)
        case (.mp3, .quality(let q)):
            var mode = Int32(SF_BITRATE_MODE_VARIABLE)
            _ = sf_command(h, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            level = q / 10
        case (.vorbis, .quality(let q)):
            level = 1 - q / 10
        case (.opus, .bitRate(let b)):
            level = 1 - (Double(b / max(1, channelCount)) - 6000 + 0.25) / 250_000
        default:
            return
        }
        level = min(1, max(0, level))
        _ = sf_command(h, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size))
    }
}
