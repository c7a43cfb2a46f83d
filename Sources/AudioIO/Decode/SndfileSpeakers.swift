import AudioSignal
import CSndfile

/// The loudspeakers of a written file in libsndfile's channel-map codes, and what a format that
/// can't record them loses (the inverse of SndfileSource.channelName).
extension SndfileSink {
    /// Records the loudspeaker of each channel in the file (a WAVE_FORMAT_EXTENSIBLE channel
    /// mask, a CAF/AIFF channel layout), so a later measurement weighs the channels alike. Call
    /// before `commit`. A layout the format's map can't state exactly (wides, top-middle pair,
    /// LFE2, a back pair without a side pair...) is written as no map at all, rather than the
    /// default for the channel count, which would claim positions the audio doesn't have.
    public func setSpeakers(_ roles: [ChannelRole]) {
        guard roles.count == channelCount, channelCount > 0 else { return }
        setChannelMap(Self.channelMapCodes(roles) ?? [Int32](repeating: Int32(SF_CHANNEL_MAP_INVALID), count: channelCount))
    }

    /// libsndfile's channel-map codes for `roles`, by the WAVE mask's conventions (its "back"
    /// pair is the 5.1 surround pair unless a side pair is there too); nil if any has none.
    package static func channelMapCodes(_ roles: [ChannelRole]) -> [Int32]? {
        let sidePair = roles.contains(.leftSideSurround) || roles.contains(.rightSideSurround)
        var codes: [Int32] = []
        for r in roles {
            let code: Int
            switch r {
            case .mono: code = SF_CHANNEL_MAP_MONO
            case .left: code = SF_CHANNEL_MAP_LEFT
            case .right: code = SF_CHANNEL_MAP_RIGHT
            case .centre: code = SF_CHANNEL_MAP_CENTER
            case .lfe: code = SF_CHANNEL_MAP_LFE
            case .leftCentre: code = SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER
            case .rightCentre: code = SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER
            case .backCentre: code = SF_CHANNEL_MAP_REAR_CENTER
            case .leftSideSurround: code = SF_CHANNEL_MAP_SIDE_LEFT
            case .rightSideSurround: code = SF_CHANNEL_MAP_SIDE_RIGHT
            case .leftSurround where !sidePair, .leftBack where sidePair: code = SF_CHANNEL_MAP_REAR_LEFT
            case .rightSurround where !sidePair, .rightBack where sidePair: code = SF_CHANNEL_MAP_REAR_RIGHT
            case .topCentre: code = SF_CHANNEL_MAP_TOP_CENTER
            case .topFrontLeft: code = SF_CHANNEL_MAP_TOP_FRONT_LEFT
            case .topFrontRight: code = SF_CHANNEL_MAP_TOP_FRONT_RIGHT
            case .topFrontCentre: code = SF_CHANNEL_MAP_TOP_FRONT_CENTER
            case .topBackLeft: code = SF_CHANNEL_MAP_TOP_REAR_LEFT
            case .topBackRight: code = SF_CHANNEL_MAP_TOP_REAR_RIGHT
            case .topBackCentre: code = SF_CHANNEL_MAP_TOP_REAR_CENTER
            default: return nil
            }
            codes.append(Int32(code))
        }
        return codes
    }
}

extension SndfileSink {
    /// The sentence for `normalized.losses` when a file written in `formatCode` can't record
    /// `layout`, so that a later measurement, guessing from the channel count, would weigh its
    /// channels differently; nil when nothing is lost. WAV, RF64, CAF and AIFF record the
    /// positions (setSpeakers); FLAC, Ogg and the rest don't through libsndfile.
    public static func positionLoss(_ layout: ChannelLayout, formatCode: Int32) -> String? {
        if layout.isDualMono { return nil }
        let major = Int(formatCode) & SF_FORMAT_TYPEMASK
        let keepsMap = [SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64, SF_FORMAT_CAF, SF_FORMAT_AIFF].contains(major)
        if keepsMap, channelMapCodes(layout.roles) != nil { return nil }
        let guess = ChannelLayout.standard(channelCount: layout.channelCount)
        if guess.weights == layout.weights { return nil }
        let container: String
        switch major {
        case SF_FORMAT_FLAC: container = "FLAC"
        case SF_FORMAT_OGG: container = "Ogg"
        case SF_FORMAT_W64: container = "W64"
        case SF_FORMAT_MPEG: container = "MP3"
        default: container = keepsMap ? "this format's channel map" : "this format"
        }
        return "the channel positions (\(layout.description)) can't be recorded in \(container), so a later measurement would weigh the channels as \(guess.description) unless given --layout \(layout.description)"
    }
}
