import AudioSignal
import Foundation

/// The words for a channel whose own figures are undefined (lufs-measure --per-channel).
package enum PerChannelSentences {
    /// One sentence for channel `name` (`ordinal` of `count`): why its figures are null.
    package static func note(_ undefined: [LoudnessMeasurement.Undefined], channel name: String, ordinal: Int, of count: Int) -> String {
        let which = "Channel \(name) (\(ordinal) of \(count))"
        let silentPeaks = undefined.contains(.peaksSilent) || undefined.contains(.samplePeakSilent)
        if undefined.contains(.integratedTooShort) {
            return "\(which) has no integrated loudness of its own: the audio is shorter than one 400 ms gating block" + (silentPeaks ? ", and it is digital silence, so its true peak is null too." : ".")
        }
        if undefined.contains(.integratedSilent) {
            return silentPeaks
                ? "\(which) is digital silence: its integrated loudness and true peak are null."
                : "\(which) has no integrated loudness of its own: every 400 ms block of it is below the −70 LUFS absolute gate."
        }
        return "\(which) is digital silence: its true peak is null."
    }
}
