import Foundation

/// Writes gain tags into one file: reads what its gain tag holds, leaves the file alone when it
/// already holds the values, else edits a complete copy and renames it over the file. Only the
/// gain fields change; TagLib leaves every other tag, picture and chunk as it was.
public enum GainTagWriter {
    public struct Outcome: Sendable {
        public var format: TagFormat
        /// What was (or, for a dry run, would be) written, in order.
        public var fields: [(key: String, value: String)]
        /// The values the file held before for the same keys (and the removed ones); nil where absent.
        public var previous: [(key: String, value: String?)]
        public var rewritten: Bool
        public var reflinked: Bool
        /// The ID3v2 version of the tag after (MP3, WAV, AIFF): kept, or the one asked for.
        public var id3Version: Int?
    }

    /// The tag format of `path` from its bytes, or a refusal saying why gain tags can't go in.
    public static func format(of path: String) throws -> TagFormat {
        let facts = try probeContainer(FileByteSource(path: path))
        if let refusal = ProbeVerdicts.refusal(for: facts, path: path) { throw refusal }
        guard let f = TagFormat.of(facts.kind) else {
            throw GainTagError.noPlaceForTags(container: facts.container)
        }
        return f
    }

    /// `id3Version` (3 or 4) saves an ID3v2 tag in that version, rewriting a file whose tag holds
    /// the values in the other one; nil keeps the file's version (a new tag is 2.4).
    public static func write(_ path: String, values: GainValues, dryRun: Bool, id3Version: Int? = nil) throws -> Outcome {
        let format = try format(of: path)
        let asked = format.hasID3v2 ? id3Version : nil
        let fields = GainTagSpelling.fields(values, format: format)
        let removals = GainTagSpelling.removals(format: format)
        let before = try TagLibFile.read(path, format: format)
        var previous: [(key: String, value: String?)] = []
        for k in fields.map(\.key) + removals {
            let v = before.fields.first { $0.key.uppercased() == k.uppercased() }?.value
            if removals.contains(k), v == nil { continue }
            previous.append((k, v))
        }
        var outcome = Outcome(format: format, fields: fields, previous: previous, rewritten: false, reflinked: false,
                              id3Version: asked ?? before.id3Version)
        let versionHeld = asked == nil || asked == before.id3Version
        if dryRun || (versionHeld && GainTagSpelling.alreadyHolds(before.fields, fields: fields, removals: removals)) { return outcome }
        outcome.reflinked = try FileReplacement.rewrite(path) { copy in
            try TagLibFile.write(copy, format: format, fields: fields, removing: removals, id3Version: asked)
        }
        outcome.rewritten = true
        if format.hasID3v2, outcome.id3Version == nil { outcome.id3Version = 4 }
        return outcome
    }

    /// Deletes the ReplayGain and R128 fields (`GainTagSpelling.removable`) from the gain tag of
    /// `path`; `previous` lists those found, in file order, with their values. A file with none
    /// is left alone (not rewritten). The edited copy is read back before it replaces the file:
    /// a field still there is a failed save. `id3Version` as for `write`.
    public static func remove(_ path: String, dryRun: Bool, id3Version: Int? = nil) throws -> Outcome {
        let format = try format(of: path)
        let asked = format.hasID3v2 ? id3Version : nil
        let before = try TagLibFile.read(path, format: format)
        let found = before.fields.filter { GainTagSpelling.isRemovable($0.key, format: format) }
        var outcome = Outcome(format: format, fields: [], previous: found.map { (key: $0.key, value: Optional($0.value)) },
                              rewritten: false, reflinked: false, id3Version: before.id3Version)
        if found.isEmpty { return outcome }
        if let asked { outcome.id3Version = asked }
        if dryRun { return outcome }
        var after: TagLibFile.Contents?
        outcome.reflinked = try FileReplacement.rewrite(path) { copy in
            try TagLibFile.write(copy, format: format, fields: [], removing: found.map(\.key), id3Version: asked)
            let check = try TagLibFile.read(copy, format: format)
            guard !check.fields.contains(where: { GainTagSpelling.isRemovable($0.key, format: format) }) else {
                throw TagFileError(path, .saveFailed(format.tagLibContainer))
            }
            after = check
        }
        outcome.rewritten = true
        // TagLib drops an ID3v2 tag left empty: then there is no version to tell.
        outcome.id3Version = after?.id3Version
        return outcome
    }
}

/// Why gain tags can't be written into a file: facts only (the sentences are the tool's).
public enum GainTagError: Error, Equatable, Sendable {
    /// The file's `container` has no place for ReplayGain tags that players read.
    case noPlaceForTags(container: String)
}
