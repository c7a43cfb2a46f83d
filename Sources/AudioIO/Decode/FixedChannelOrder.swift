/// The channel orders that formats fix by their channel count, so a file of theirs names its
/// speakers without a channel map: Vorbis I (section 4.3.9), which Opus mapping family 1 also
/// uses (RFC 7845 section 5.1.1.2), and FLAC (its format specification, "channel assignment").
/// Names as the WAVE channel mask spells them; ChannelLayout reads them by its conventions.
public enum FixedChannelOrder {
    /// Vorbis order for 3 to 8 channels (1 and 2 are mono and stereo, as any guess has them).
    public static func vorbis(_ channels: Int) -> [String]? {
        switch channels {
        case 3: return ["FL", "FC", "FR"]
        case 4: return ["FL", "FR", "BL", "BR"]
        case 5: return ["FL", "FC", "FR", "BL", "BR"]
        case 6: return ["FL", "FC", "FR", "BL", "BR", "LFE"]
        case 7: return ["FL", "FC", "FR", "SL", "SR", "BC", "LFE"]
        case 8: return ["FL", "FC", "FR", "SL", "SR", "BL", "BR", "LFE"]
        default: return nil
        }
    }

    /// FLAC order for 3 to 8 channels.
    public static func flac(_ channels: Int) -> [String]? {
        switch channels {
        case 3: return ["FL", "FR", "FC"]
        case 4: return ["FL", "FR", "BL", "BR"]
        case 5: return ["FL", "FR", "FC", "BL", "BR"]
        case 6: return ["FL", "FR", "FC", "LFE", "BL", "BR"]
        case 7: return ["FL", "FR", "FC", "LFE", "BC", "SL", "SR"]
        case 8: return ["FL", "FR", "FC", "LFE", "BL", "BR", "SL", "SR"]
        default: return nil
        }
    }
}

extension Decoder.Opened {
    /// The speakers a format's fixed order names for what libsndfile or libopusfile decoded
    /// (their output keeps the file's order): Vorbis, Opus families 0 and 1, FLAC. Nil for an
    /// Opus family 255 stream (its channels have no positions) and for other formats.
    package var fixedOrderNames: [String]? {
        let ch = source.format.channelCount
        if let opus = source as? OpusFileSource {
            return opus.mappingFamily == 1 || opus.mappingFamily == 0 ? FixedChannelOrder.vorbis(ch) : nil
        }
        guard decoder == .libsndfile, let kind = facts?.kind else { return nil }
        switch kind {
        case .ogg(.vorbis): return FixedChannelOrder.vorbis(ch)
        case .flac, .ogg(.flac): return FixedChannelOrder.flac(ch)
        default: return nil
        }
    }
}
