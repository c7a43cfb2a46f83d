import AudioIO
import Foundation
import ToolRunner

/// A job that edits the inputs' gain tags instead of writing audio: --write-tags or --remove-tags.
package protocol GainTagJob: Sendable {
    func process(_ record: Record) throws -> Record
}

/// lufs-normalize --remove-tags (rsgain's and loudgain's `-s d`): deletes the ReplayGain and R128
/// fields from each input's gain tag. It needs no measurement, so bare paths and any record do.
package struct GainTagRemoval: GainTagJob {
    package let dryRun: Bool
    /// --id3v2: the version an MP3's, WAV's or AIFF's tag is saved in when it is rewritten.
    package let id3Version: Int?

    package func process(_ record: Record) throws -> Record {
        guard let path = record.path else { return record }
        let outcome: GainTagWriter.Outcome
        do {
            outcome = try GainTagWriter.remove(path, dryRun: dryRun, id3Version: id3Version)
        } catch GainTagError.noPlaceForTags(let container) {
            throw TagRemovalSentences.noTagsToRemove(path: path, container: container)
        }
        var r = record
        r["normalized"] = .object(outcome.removalJSON(dryRun: dryRun, notes: TagRemovalSentences.notes(outcome, dryRun: dryRun)))
        return r
    }
}

extension LufsNormalize {
    /// The tag job --write-tags or --remove-tags asks for (with --id3v2), or nil for audio output.
    package static func tagJob(_ o: ParsedOptions, referenceLUFS: Double, album: Bool) throws -> (any GainTagJob)? {
        try o.checkRules("remove-tags", "id3v2")
        let id3 = try o.choice("id3v2").flatMap { Int($0) }
        if o.flag("remove-tags") { return GainTagRemoval(dryRun: o.flag("dry-run"), id3Version: id3) }
        guard o.flag("write-tags") else { return nil }
        return GainTagging(referenceLUFS: referenceLUFS, album: album, dryRun: o.flag("dry-run"), id3Version: id3)
    }
}
