import AudioIO

/// Everything library-filter keeps of a library while it waits to sort it: the summary counts, and
/// per song only what sorting needs in memory (the sort fields, path and id); the finished output
/// lines wait in a temporary file. So 100,000 songs take a few tens of MiB, not their records' size.
package struct LibraryListing {
    package var summary = LibrarySummary()
    package var items: [LibraryItem] = []
    package let lines = LineSpill()
    package let sortFields: Set<LibraryField>

    package init(sortFields: Set<LibraryField>) { self.sortFields = sortFields }

    package mutating func append(_ item: LibraryItem, line: String) {
        items.append(item.keeping(sortFields))
        lines.append(line)
    }
}
