import Foundation

extension LufsNormalize {
    /// A media file (MP4, MOV, Matroska) written back in its own container by MediaFileNormalizer,
    /// or as an audio-only M4A (`m4a`: "m4a" or "alac"). Nil when it is not one MediaMuxer writes back.
    func processMedia(_ record: Record, path: String, outPath: String, opened: Decoder.Opened, m4a: String? = nil) throws -> Record? {
        let j = job, limits = LoudnessNormalizeJob.self
        let settings = MediaNormalization.Settings(targetLUFS: j.targetLUFS, ceilingDBTP: j.ceilingDBTP, peakMode: j.peakMode,
                                                   fadeInSeconds: j.fadeInSeconds, fadeOutSeconds: j.fadeOutSeconds, fadeCurve: j.fadeCurve,
                                                   limiterMarginDB: limits.limiterMargin, roundingAllowanceDB: limits.roundingAllowanceDB,
                                                   maxPasses: limits.maxPasses, maxCompensationDB: limits.maxCompensationDB)
        let media = MediaFileNormalizer(settings: settings, stream: j.stream, convertsFormat: j.depth != nil || j.sampleRate != nil,
                                        allowLoss: j.allowLoss, overwrite: j.overwrite || j.naming.inPlace, presetName: j.presetName)
        return try media.process(record, path: path, outPath: outPath, opened: opened, m4a: m4a)
    }
}
