import Foundation

/// lufs-normalize towards a dialogue-gated target (`--gate-on dialogue`, the netflix preset): the
/// gain comes from the record's `loudness.dialogue.integrated_lufs` (programme loudness when its
/// `fallback` is true), and `normalized.dialogue` says the dialogue loudness before and after.
struct DialogueNormalization: Equatable {
    /// Why a record's dialogue measurement can't be used (sentences in Tools/Errors/SpeechSentences).
    enum Refusal: Error, Equatable {
        /// The record has no `loudness.dialogue` (measured without --dialogue, or not at all).
        case noDialogueMeasurement
        /// It has one, but dialogue loudness is null and programme loudness does not stand in.
        case undefined(notes: [String])
        /// A media container written back through ffmpeg: dialogue-gated normalisation is not done there.
        case mediaContainer
    }

    /// The loudness the gain is planned from.
    let sourceLUFS: Double?
    let dialogueLUFS: Double?
    let fallback: Bool

    /// The record's dialogue measurement, if it is of the file as it is now.
    init(loudness: JSON?, identity: FileIdentity, path: String) throws {
        guard let l = loudness, let d = l["dialogue"], d.objectValue != nil else { throw Refusal.noDialogueMeasurement }
        _ = try RecordedLoudness.isCurrent(l, identity: identity, path: path)
        dialogueLUFS = d["integrated_lufs"]?.doubleValue
        fallback = d["fallback"]?.boolValue ?? false
        if fallback {
            sourceLUFS = l["integrated_lufs"]?.doubleValue
        } else {
            guard let v = dialogueLUFS else { throw Refusal.undefined(notes: d["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []) }
            sourceLUFS = v
        }
    }

    /// `normalized` with `dialogue`: before, and after the gain the writer applied.
    func annotate(_ normalized: JSON, gainDB: Double) -> JSON {
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
