import AudioIO
import AudioSignal
import Foundation
import JSONValue

/// lufs-normalize towards a dialogue-gated target (`--gate-on dialogue`, the netflix preset): the
/// gain comes from the record's `loudness.dialogue.integrated_lufs` (programme loudness when its
/// `fallback` is true), or from the file measured here with the speech detector when the record
/// carries no `loudness` at all; `normalized.dialogue` says the dialogue loudness before and after.
package struct DialogueNormalization: Equatable {
    /// Why a record's dialogue measurement can't be used (sentences in Tools/Errors/SpeechSentences).
    package enum Refusal: Error, Equatable {
        /// The record has no `loudness.dialogue` (measured without --dialogue, or not at all).
        case noDialogueMeasurement
        /// It has one, but dialogue loudness is null and programme loudness does not stand in.
        case undefined(notes: [String])
        /// A media container written back through ffmpeg: dialogue-gated normalisation is not done there.
        case mediaContainer
    }

    /// The loudness the gain is planned from.
    package let sourceLUFS: Double?
    package let dialogueLUFS: Double?
    package let fallback: Bool
    /// The fraction of the programme that is dialogue (nil when the record doesn't say).
    package let share: Double?

    /// Whether the record carries a measurement to take the dialogue loudness from; without one
    /// the file is measured here, dialogue included, as it is for a programme target.
    package static func recordHasLoudness(_ loudness: JSON?) -> Bool { loudness?.objectValue != nil }

    /// The dialogue measured here (the record carried no `loudness`), by the same detector and
    /// rules as lufs-measure --dialogue.
    package init(measured d: DialogueLoudness, programmeLUFS: Double?) throws {
        dialogueLUFS = d.integratedLUFS
        fallback = d.fallback
        share = d.share
        if fallback {
            sourceLUFS = programmeLUFS
        } else {
            guard let v = dialogueLUFS else { throw Refusal.undefined(notes: d.notes) }
            sourceLUFS = v
        }
    }

    /// The record's dialogue measurement, if it is of the file as it is now.
    package init(loudness: JSON?, identity: FileIdentity, path: String) throws {
        guard let l = loudness, let d = l["dialogue"], d.objectValue != nil else { throw Refusal.noDialogueMeasurement }
        _ = try RecordedLoudness.isCurrent(l, identity: identity, path: path)
        dialogueLUFS = d["integrated_lufs"]?.doubleValue
        fallback = d["fallback"]?.boolValue ?? false
        share = d["share"]?.doubleValue
        if fallback {
            sourceLUFS = l["integrated_lufs"]?.doubleValue
        } else {
            guard let v = dialogueLUFS else { throw Refusal.undefined(notes: d["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []) }
            sourceLUFS = v
        }
    }

    /// The dialogue loudness a landing is judged on: nil under the fallback rule, where the
    /// programme is what is judged.
    package var judgedLUFS: Double? { fallback ? nil : dialogueLUFS }

    /// Programme minus dialogue loudness of the source, LU: the gain moves both alike, so the
    /// programme lands this far above the dialogue target when the dialogue lands on it. Nil under
    /// the fallback rule or when either loudness is undefined.
    package func programmeOffsetLU(programmeLUFS: Double?) -> Double? {
        guard let p = programmeLUFS, let d = judgedLUFS else { return nil }
        return p - d
    }

    /// `normalized` with `dialogue`: before, and after the gain the writer applied.
    package func annotate(_ normalized: JSON, gainDB: Double) -> JSON {
        guard case .object(var o) = normalized else { return normalized }
        o["dialogue"] = .object([
            "gated_on": .string(fallback ? "programme" : "dialogue"),
            "fallback": .bool(fallback),
            "before_lufs": .optional(dialogueLUFS, decimals: 2),
            "after_lufs": .optional(dialogueLUFS.map { $0 + gainDB }, decimals: 2),
        ])
        return .object(o)
    }
}
