import Foundation

/// What became of one input item of library-filter, computed on a worker thread.
struct LibraryEntry {
    enum Kind {
        /// A line that isn't a usable record (bad JSON, newer schema): written as it is.
        case inputError
        case skipped(LibrarySkipKind)
        case song(LibrarySummary.Outcome)
    }
    var kind: Kind
    var item: LibraryItem?
    var record: Record
    /// The record's line, written on the worker (a song's only; nil otherwise).
    var line: String? = nil
    var usable: Bool { if case .song(.usable) = kind { return true }; return false }
}
