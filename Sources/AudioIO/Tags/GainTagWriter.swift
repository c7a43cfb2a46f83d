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
        /// The ID3v2 version kept (MP3, WAV, AIFF).
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

    public static func write(_ path: String, values: GainValues, dryRun: Bool) throws -> Outcome {
        let format = try format(of: path)
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
                              id3Version: before.id3Version)
        if dryRun || GainTagSpelling.alreadyHolds(before.fields, fields: fields, removals: removals) { return outcome }
        outcome.reflinked = try FileReplacement.rewrite(path) { copy in
            try TagLibFile.write(copy, format: format, fields: fields, removing: removals)
        }
        outcome.rewritten = true
        if format == .mp3 || format == .wav || format == .aiff, outcome.id3Version == nil { outcome.id3Version = 4 }
        return outcome
    }
}

/// Why gain tags can't be written into a file: facts only (the sentences are the tool's).
public enum GainTagError: Error, Equatable, Sendable {
    /// The file's `container` has no place for ReplayGain tags that players read.
    case noPlaceForTags(container: String)
}
