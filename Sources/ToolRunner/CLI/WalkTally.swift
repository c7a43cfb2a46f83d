import AudioIO
import Foundation

/// What directory walks left out, for the one line every tool writes on stderr at the end of a
/// run. Shared by the walks of one run; counts are taken on the input thread.
public final class WalkTally: @unchecked Sendable {
    private let lock = NSLock()
    private var kinds: [LibrarySkipKind: Int] = [:]
    private var special = 0
    private var links = 0
    private var ownOutput = 0

    public init() {}

    package func skipped(_ kind: LibrarySkipKind) { lock.lock(); kinds[kind, default: 0] += 1; lock.unlock() }
    package func skippedSpecial() { lock.lock(); special += 1; lock.unlock() }
    package func linkNotFollowed() { lock.lock(); links += 1; lock.unlock() }
    package func skippedOwnOutput() { lock.lock(); ownOutput += 1; lock.unlock() }

    /// Files skipped as not audio (by name, or not regular files at all).
    public var filesSkipped: Int { lock.lock(); defer { lock.unlock() }; return kinds.values.reduce(0, +) + special }
    /// Symbolic links not followed: loops, folders walked already, links to nothing.
    public var linksNotFollowed: Int { lock.lock(); defer { lock.unlock() }; return links }

    /// The files skipped by name, by kind.
    public var skippedByKind: [LibrarySkipKind: Int] { lock.lock(); defer { lock.unlock() }; return kinds }

    /// "4 files skipped in the walk as not audio (cover art, playlist, document); 2 symbolic links
    /// not followed (a loop, a folder walked already, or a link to nothing)", or nil when nothing
    /// was left out. Without `byName`, the files skipped by name are left out of it (for a tool
    /// that counts them in its own summary).
    public var sentence: String? { sentence(byName: true) }

    public func sentence(byName: Bool) -> String? {
        lock.lock(); defer { lock.unlock() }
        var parts: [String] = []
        let kinds = byName ? self.kinds : [:]
        let files = kinds.values.reduce(0, +) + special
        if files > 0 {
            var names = LibrarySkipKind.allCases.compactMap { k in kinds[k].flatMap { $0 > 0 ? k.noun(count: $0) : nil } }
            if special > 0 { names.append(special == 1 ? "pipe, socket or device" : "pipes, sockets or devices") }
            parts.append("\(files) \(files == 1 ? "file" : "files") skipped in the walk as not audio (\(names.joined(separator: ", ")); a file named on the command line is still checked)")
        }
        if ownOutput > 0 {
            parts.append("the file standard output is written to skipped in the walk (it is this run's output, not its input)")
        }
        if links > 0 {
            parts.append("\(links) symbolic \(links == 1 ? "link" : "links") not followed (a loop, a folder walked already, or a link to nothing)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
