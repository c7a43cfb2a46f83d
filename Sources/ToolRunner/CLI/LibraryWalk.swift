import AudioIO
import Foundation

/// The walk every tool does of a folder argument: DirectoryWalker with the library's rule for
/// files plainly not audio by name (cover art, playlists, cue sheets, documents, subtitles, system
/// files) or, when the name claims nothing, by their first bytes; what it leaves out is counted in
/// a WalkTally. The file this process's standard output writes to is never read (`lufs-measure
/// folder > folder/measurements` must not measure its own records).
extension DirectoryWalker {
    public init(root: String, includeHidden: @escaping (String) -> Bool = { _ in false },
                skipNonAudio: Bool = true, tally: WalkTally = WalkTally()) {
        self.init(root: root, includeHidden: includeHidden, skipFile: { name, path in
            guard skipNonAudio, let kind = LibrarySkipKind.classify(fileName: name)
                    ?? LibrarySkipKind.classify(bytesOf: path, fileName: name) else { return false }
            tally.skipped(kind)
            return true
        }, leftOut: { what in
            switch what {
            case .special: tally.skippedSpecial()
            case .linkNotFollowed: tally.linkNotFollowed()
            case .excluded: tally.skippedOwnOutput()
            }
        }, excluding: Self.standardOutputFile())
    }
}
