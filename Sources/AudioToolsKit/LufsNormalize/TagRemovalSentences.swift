import AudioIO
import Foundation
import ToolRunner

/// What lufs-normalize --remove-tags says: its notes and its refusal.
enum TagRemovalSentences {
    static func noTagsToRemove(path: String, container: String) -> ToolError {
        ToolError(.unsupportedCodec, "\(ToolError.quoted(path)) is \(container.uppercased()), whose tags this tool can't edit, so no ReplayGain tags were removed from it.",
                  suggestion: "Leave it out of the batch, or remove its tags with a tagger that edits \(container.uppercased()) files.")
    }

    static func notes(_ outcome: GainTagWriter.Outcome, dryRun: Bool) -> [String] {
        if outcome.previous.isEmpty {
            return ["The file has no ReplayGain or R128 tags, so there was nothing to remove; it was not rewritten."]
        }
        var notes: [String] = []
        var seen: [String: Int] = [:]
        var order: [String] = []
        for (key, _) in outcome.previous {
            let k = GainTagSpelling.recordKey(key)
            if seen[k] == nil { order.append(k) }
            seen[k, default: 0] += 1
        }
        for k in order where seen[k]! > 1 {
            notes.append("\(k) was there \(seen[k]!) times (removed_tags shows the first value); \(dryRun ? "every one would be removed" : "every one was removed").")
        }
        if outcome.rewritten, outcome.format.hasID3v2, outcome.id3Version == nil {
            notes.append("The ID3v2 tag held nothing else, so it was left out of the file.")
        }
        return notes
    }
}
