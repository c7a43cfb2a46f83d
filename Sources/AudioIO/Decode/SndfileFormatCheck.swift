import CSndfile

extension SndfileSink {
    /// Whether libsndfile can write this format code with these parameters.
    package static func canWrite(formatCode code: Int32, sampleRate: Int, channels: Int) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = code
        return sf_format_check(&info) == SF_TRUE
    }

    /// Codec name (as records spell it), bits per sample, float and lossy, of a format code's
    /// sample encoding ("other" for those lufs-normalize doesn't name).
    package static func describe(formatCode code: Int32) -> (codec: String, depth: Int?, isFloat: Bool, isLossy: Bool) {
        switch Int(code) & SF_FORMAT_SUBMASK {
        case SF_FORMAT_PCM_S8: return ("pcm_s8", 8, false, false)
        case SF_FORMAT_PCM_U8: return ("pcm_u8", 8, false, false)
        case SF_FORMAT_PCM_16: return ("pcm_s16", 16, false, false)
        case SF_FORMAT_PCM_24: return ("pcm_s24", 24, false, false)
        case SF_FORMAT_PCM_32: return ("pcm_s32", 32, false, false)
        case SF_FORMAT_FLOAT: return ("pcm_f32", 32, true, false)
        case SF_FORMAT_DOUBLE: return ("pcm_f64", 64, true, false)
        case SF_FORMAT_VORBIS: return ("vorbis", nil, false, true)
        case SF_FORMAT_OPUS: return ("opus", nil, false, true)
        case SF_FORMAT_MPEG_LAYER_III: return ("mp3", nil, false, true)
        default: return ("other", nil, false, false)
        }
    }
}
