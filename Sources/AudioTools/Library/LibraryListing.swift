/// Everything library-filter keeps of a library while it waits to sort it: the summary counts, and
/// per song only what sorting needs in memory (the sort fields, path and id); the finished output
/// lines wait in a temporary file. So 100,000 songs take a few tens of MiB, not their records' size.
struct LibraryListing {
    var summary = LibrarySummary()
    var items: [LibraryItem] = []
    let lines = LineSpill()
    let sortFields: Set<LibraryField>

    init(sortFields: Set<LibraryField>) { self.sortFields = sortFields }

    mutating func append(_ item: LibraryItem, line: String) {
        items.append(item.keeping(sortFields))
        lines.append(line)
    }
}
