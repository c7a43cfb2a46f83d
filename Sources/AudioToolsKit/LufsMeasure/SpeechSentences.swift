import AudioSignal
import AudioIO
import Foundation
import ToolRunner

/// What a person reads when the speech detector's weights (lufs-measure --dialogue) are missing or
/// not the pinned file: never a silent fall back to energy gating.
extension SpeechModelError: ToolErrorConvertible {
    public func toolError(path: String) -> ToolError {
        switch self {
        case .missing(let name, let searched):
            return ToolError(.notFound, "\(ToolError.quoted(path)) can't be measured for dialogue: the speech detector's weights \(name) are not at \(searched.map { "\u{201C}\($0)\u{201D}" }.joined(separator: ", ")).",
                             suggestion: "Run `make deps` in the source tree (it fetches silero-vad \(SpeechModelFile.detectorVersion) and takes \(name) out of it), install with `make install`, or point \(SpeechModelFile.environmentVariable) at the file.")
        case .damaged(let file, let reason):
            return ToolError(.malformed, "\(ToolError.quoted(path)) can't be measured for dialogue: the speech detector's weights \u{201C}\(file)\u{201D} are damaged or not the pinned file (\(reason)).",
                             suggestion: "Fetch them again with `make speech-model` after deleting the file (silero-vad \(SpeechModelFile.detectorVersion), checked by sha256), or point \(SpeechModelFile.environmentVariable) at a good copy.")
        }
    }
}

/// What a person reads when lufs-normalize is asked for a dialogue-gated target the record can't give.
extension DialogueNormalization.Refusal: ToolErrorConvertible {
    package func toolError(path: String) -> ToolError {
        switch self {
        case .noDialogueMeasurement:
            return ToolError(.staleMeasurement, "\(ToolError.quoted(path)) has no dialogue measurement in its record, so it can't be normalised to a dialogue-gated target; nothing was written.",
                             suggestion: "Measure it with lufs-measure --dialogue and pipe that record in (lufs-measure --dialogue FILE | lufs-normalize …), or give --gate-on programme.")
        case .undefined(let notes):
            return ToolError(.staleMeasurement, "\(ToolError.quoted(path)) has no dialogue loudness to normalise from (\(notes.first ?? "it is null")); nothing was written.",
                             suggestion: "Give --gate-on programme to normalise its programme loudness instead.")
        case .mediaContainer:
            return ToolError(.badInput, "\(ToolError.quoted(path)) is a media container written back through ffmpeg, where dialogue-gated normalisation is not done; nothing was written.",
                             suggestion: "Give an audio --format (wav, flac) to write its audio alone, or --gate-on programme.")
        }
    }
}
