import AudioIO
import Foundation
import JSONValue

extension GainTagWriter.Outcome {
    /// lufs-normalize --write-tags' `normalized` object: the tags written (or, dry, that would be),
    /// those they replace, and the gains they hold.
    package func json(values: GainValues, referenceLUFS: Double, dryRun: Bool, notes: [String]) -> [String: JSON] {
        var o: [String: JSON] = [
            "mode": .string("tags"),
            "tag_format": .string(format.rawValue),
            "tag_store": .string(format.store),
            "tags": .object(Dictionary(fields.map { (GainTagSpelling.recordKey($0.key), JSON.string($0.value)) }, uniquingKeysWith: { a, _ in a })),
            "previous_tags": .object(Dictionary(previous.map { (GainTagSpelling.recordKey($0.key), $0.value.map(JSON.string) ?? .null) }, uniquingKeysWith: { a, _ in a })),
            "rewritten": .bool(rewritten),
            "dry_run": .bool(dryRun),
            "reference_lufs": .double(referenceLUFS),
            "track_gain_db": .double(values.trackGainDB, decimals: 2),
            "album_gain_db": .optional(values.albumGainDB, decimals: 2),
            "notes": .array(notes.map { .string($0) }),
        ]
        if rewritten { o["reflink"] = .bool(reflinked) }
        if let v = id3Version { o["id3_version"] = .string("2.\(v)") }
        return o
    }
}

extension GainTagWriter.Outcome {
    /// lufs-normalize --remove-tags' `normalized` object: the fields removed (or, dry, that would
    /// be), by their ReplayGain name, with the values they held.
    package func removalJSON(dryRun: Bool, notes: [String]) -> [String: JSON] {
        var o: [String: JSON] = [
            "mode": .string("remove-tags"),
            "tag_format": .string(format.rawValue),
            "tag_store": .string(format.store),
            "removed_tags": .object(Dictionary(previous.map { (GainTagSpelling.recordKey($0.key), $0.value.map(JSON.string) ?? .null) }, uniquingKeysWith: { a, _ in a })),
            "rewritten": .bool(rewritten),
            "dry_run": .bool(dryRun),
            "notes": .array(notes.map { .string($0) }),
        ]
        if rewritten { o["reflink"] = .bool(reflinked) }
        if let v = id3Version { o["id3_version"] = .string("2.\(v)") }
        return o
    }
}
