import AudioIO
import JSONValue
import ToolRunner

/// Tallies what became of each file in a library scan and says it in one sentence, e.g.
/// "1,204 of 3,410 songs usable: 2,001 protected, 150 cloud-only, 55 broken, 12 outside the
/// constraints; 40 other files skipped (cover art, playlists)".
public struct LibrarySummary: Equatable, Sendable {
    /// What became of one file.
    public enum Outcome: Equatable, Sendable {
        case usable
        /// Refused by the probe with this code.
        case failed(ErrorCode)
        /// Readable, but outside --min-duration, --max-duration, --min-sample-rate or --channels.
        case outsideConstraints
        /// Not a song, recognised by name.
        case skipped(LibrarySkipKind)
    }

    public var usable = 0
    /// DRM-protected (e.g. FairPlay .m4p).
    public var protected = 0
    /// In cloud storage, not downloaded.
    public var cloudOnly = 0
    /// Unreadable, unrecognised, malformed, truncated, empty, no audio, non-finite samples,
    /// unsupported codec, or any other refusal.
    public var broken = 0
    public var outsideConstraints = 0
    public var skipped: [LibrarySkipKind: Int] = [:]

    public init() {}

    /// Counts one file.
    public mutating func count(_ outcome: Outcome) {
        switch outcome {
        case .usable: usable += 1
        case .failed(.protected): protected += 1
        case .failed(.cloudOnly): cloudOnly += 1
        case .failed: broken += 1
        case .outsideConstraints: outsideConstraints += 1
        case .skipped(let kind): skipped[kind, default: 0] += 1
        }
    }

    /// Files that looked like songs: everything but the skipped ones.
    public var songs: Int { usable + protected + cloudOnly + broken + outsideConstraints }

    /// Files skipped by name.
    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    /// The counts as a record field: songs, usable, protected, cloud_only, broken,
    /// outside_constraints, skipped (by kind, zero kinds left out) and the sentence.
    public var json: JSON {
        var kinds: [String: JSON] = [:]
        for (kind, n) in skipped where n > 0 { kinds[kind.rawValue] = .int(n) }
        return .object([
            "songs": .int(songs), "usable": .int(usable), "protected": .int(protected),
            "cloud_only": .int(cloudOnly), "broken": .int(broken),
            "outside_constraints": .int(outsideConstraints), "skipped": .object(kinds),
            "sentence": .string(sentence),
        ])
    }

    /// The sentence; counts use ',' between thousands whatever the locale.
    public var sentence: String {
        var text: String
        if songs == 0 {
            text = "No songs found"
        } else {
            text = "\(LibraryText.count(usable)) of \(LibraryText.count(songs, "song", "songs")) usable"
            var reasons: [String] = []
            if protected > 0 { reasons.append("\(LibraryText.count(protected)) protected") }
            if cloudOnly > 0 { reasons.append("\(LibraryText.count(cloudOnly)) cloud-only") }
            if broken > 0 { reasons.append("\(LibraryText.count(broken)) broken") }
            if outsideConstraints > 0 { reasons.append("\(LibraryText.count(outsideConstraints)) outside the constraints") }
            if !reasons.isEmpty { text += ": " + reasons.joined(separator: ", ") }
        }
        let skippedCount = skippedTotal
        if skippedCount > 0 {
            let kinds = LibrarySkipKind.allCases.compactMap { kind in
                skipped[kind].flatMap { $0 > 0 ? kind.noun(count: $0) : nil }
            }
            let files = LibraryText.count(skippedCount, "other file", "other files")
            text += "; \(files) skipped (\(kinds.joined(separator: ", ")))"
        }
        return text
    }
}
