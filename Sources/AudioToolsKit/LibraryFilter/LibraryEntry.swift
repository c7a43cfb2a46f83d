import AudioIO
import Foundation
import ToolRunner

/// What became of one input item of library-filter, computed on a worker thread.
package struct LibraryEntry {
    package enum Kind {
        /// A line that isn't a usable record (bad JSON, newer schema): written as it is.
        case inputError
        case skipped(LibrarySkipKind)
        case song(LibrarySummary.Outcome)
    }
    package var kind: Kind
    package var item: LibraryItem?
    package var record: Record
    /// The record's line, written on the worker (a song's only; nil otherwise).
    package var line: String? = nil
    package var usable: Bool { if case .song(.usable) = kind { return true }; return false }
}
