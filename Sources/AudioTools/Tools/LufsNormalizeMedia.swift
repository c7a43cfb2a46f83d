import Foundation

extension LufsNormalize {
    /// A media file (MP4, MOV, Matroska) written back in its own container by MediaFileNormalizer,
    /// or as an audio-only M4A (`m4a`: "m4a" or "alac"). Nil when it is not one MediaMuxer writes back.
    func processMedia(_ record: Record, path: String, outPath: String, opened: Decoder.Opened, m4a: String? = nil) throws -> Record? {
        let settings = MediaNormalization.Settings(targetLUFS: targetLUFS, ceilingDBTP: ceilingDBTP, peakMode: peakMode,
                                                   fadeInSeconds: fadeInSeconds, fadeOutSeconds: fadeOutSeconds, fadeCurve: fadeCurve,
                                                   limiterMarginDB: Self.limiterMargin, roundingAllowanceDB: Self.roundingAllowanceDB,
                                                   maxPasses: Self.maxPasses, maxCompensationDB: Self.maxCompensationDB)
        let media = MediaFileNormalizer(settings: settings, stream: stream, convertsFormat: depth != nil || sampleRate != nil,
                                        allowLoss: allowLoss, overwrite: overwrite || naming.inPlace, presetName: presetName)
        return try media.process(record, path: path, outPath: outPath, opened: opened, m4a: m4a)
    }
}
