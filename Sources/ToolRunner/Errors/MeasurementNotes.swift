import AudioSignal
import Foundation

/// The sentence a record's `loudness.notes` gives for each undefined value of a measurement.
extension LoudnessMeasurement.Undefined {
    /// `seconds`: the measured audio's duration, named when it is too short.
    package func sentence(seconds: Double) -> String {
        let duration = String(format: "%.3f s", seconds)
        switch self {
        case .integratedTooShort: return "Integrated loudness is undefined: the audio (\(duration)) is shorter than one 400 ms gating block."
        case .integratedSilent: return "Integrated loudness is undefined: every 400 ms block is below the −70 LUFS absolute gate (silence)."
        case .rangeTooShort: return "Loudness range is undefined: the audio (\(duration)) is shorter than one 3 s short-term block."
        case .rangeSilent: return "Loudness range is undefined: every 3 s block is below the −70 LUFS absolute gate (silence)."
        case .momentaryTooShort: return "Maximum momentary loudness is undefined: the audio (\(duration)) is shorter than 400 ms."
        case .momentarySilent: return "Maximum momentary loudness is undefined: the audio is digital silence."
        case .shortTermTooShort: return "Maximum short-term loudness is undefined: the audio (\(duration)) is shorter than 3 s."
        case .shortTermSilent: return "Maximum short-term loudness is undefined: the audio is digital silence."
        case .truePeakNotMeasured: return "True peak was not measured."
        case .peaksSilent: return "Sample and true peak levels are undefined in dB: the audio is digital silence."
        case .samplePeakSilent: return "The sample peak level is undefined in dB: the audio is digital silence."
        }
    }
}

extension LoudnessMeasurement {
    /// Every note of the measurement in a person's words: why each undefined value is undefined,
    /// then what the caller added.
    package var sentences: [String] {
        let seconds = Double(frames) / Double(sampleRate)
        return undefined.map { $0.sentence(seconds: seconds) } + notes
    }
}

extension DialogueLoudness.Reason {
    /// The sentence a record's `dialogue.notes` gives.
    package var sentence: String {
        switch self {
        case .tooShort: return "Dialogue loudness is undefined: the audio is shorter than one second."
        case .noDialogue: return "Dialogue loudness is undefined: no dialogue was found."
        case .noDialogueBlock: return "Dialogue loudness is undefined: no 400 ms block is at least half dialogue."
        case .dialogueSilent: return "Dialogue loudness is undefined: every dialogue block is below the −70 LUFS absolute gate."
        case .noRangeBlock: return "Dialogue loudness range is undefined: no 3 s block is at least half dialogue."
        case .underMinimumShare(let share, let minimum):
            return String(format: "Dialogue is %.1f%% of the programme, under the %.0f%% minimum: a gate judges programme loudness.",
                          share * 100, minimum * 100)
        }
    }
}

extension DialogueLoudness {
    /// Every note of the dialogue measurement in a person's words.
    package var notes: [String] { reasons.map(\.sentence) }
}
