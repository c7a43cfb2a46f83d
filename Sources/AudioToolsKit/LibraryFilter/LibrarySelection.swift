import AudioIO
import Foundation
import ToolRunner

/// What library-filter writes of the songs it was given: those the query (or `--get`) wants,
/// usable or (with --all) not, sorted and paged. Everything waits in a LibraryListing until the
/// input ends, since sorting needs every song before the first line can be written.
package struct LibrarySelection {
    package let query: LibraryQuery
    package let sort: LibrarySort
    package let page: LibraryPage
    package let getIDs: [String]
    package let includeUnusable: Bool
    package var listing: LibraryListing

    package init(query: LibraryQuery, sort: LibrarySort, page: LibraryPage, getIDs: [String], includeUnusable: Bool) {
        self.query = query; self.sort = sort; self.page = page; self.getIDs = getIDs; self.includeUnusable = includeUnusable
        listing = LibraryListing(sortFields: Set(sort.keys.map(\.field)))
    }

    /// Counts one entry in the summary, and keeps its song when it is wanted.
    package mutating func add(_ entry: LibraryEntry) {
        switch entry.kind {
        case .inputError:
            break
        case .skipped(let kind):
            listing.summary.count(.skipped(kind))
        case .song(let outcome):
            listing.summary.count(outcome)
            guard let item = entry.item else { return }
            let wanted = getIDs.isEmpty ? query.matches(item) : getIDs.contains(item.id)
            if wanted && (entry.usable || includeUnusable) {
                // Per song only the sort fields are kept in memory; the finished line goes to disk.
                listing.append(item, line: entry.line ?? entry.record.serialized())
            }
        }
    }

    /// Counts what the walk skipped by name, as what came on stdin is.
    package mutating func countSkipped(_ byKind: [LibrarySkipKind: Int]) {
        for (kind, n) in byKind { listing.summary.skipped[kind, default: 0] += n }
    }

    /// Hands `write` the kept songs' lines in order: the page asked for, or under `--get` each id's
    /// songs in the order of the ids, with an error record for an id no song has any more.
    /// Returns the page's info (nil under `--get`) and whether an id was gone.
    package func write(folders: [String], tool: String, _ write: (String) -> Void) -> (pageInfo: LibraryPage.Info?, gone: Bool) {
        let order = sort.sortedIndices(listing.items)
        if getIDs.isEmpty {
            let (pageOrder, info) = page.apply(to: order)
            for i in pageOrder { write(listing.lines.line(i)) }
            return (info, false)
        }
        var gone = false
        for id in getIDs {
            let found = order.filter { listing.items[$0].id == id }
            for i in found { write(listing.lines.line(i)) }
            if found.isEmpty {
                gone = true
                write(Self.goneRecord(id: id, folders: folders, tool: tool).serialized())
            }
        }
        return (nil, gone)
    }

    /// The one sentence for stderr at the end of the run.
    package func summary(fromIndex: Bool) -> String {
        if fromIndex {
            let n = listing.items.count
            return "\(LibraryText.count(n)) \(n == 1 ? "song" : "songs") found by id in the cache's index, without walking the folders"
        }
        var sentence = listing.summary.sentence
        if !query.isEmpty {
            sentence += "; \(LibraryText.count(listing.items.count)) \(listing.items.count == 1 ? "matches" : "match") the query"
        }
        return sentence
    }

    /// The error record for an id no file in the input has any more.
    package static func goneRecord(id: String, folders: [String], tool: String) -> Record {
        let places = folders.filter { $0 != "-" }
        let whereText = places.isEmpty ? "the input" : places.count == 1 ? ToolError.quoted(places[0]) : "the folders given"
        let e = ToolError(.notFound, "No song with id \(id) is in \(whereText) any more.",
                          suggestion: "It may have been deleted, changed or moved outside these folders; give the folder that holds it now, or pick the song again.")
        var r = Record(["library": .object(["usable": .bool(false), "id": .string(id), "reason": .object([
            "code": .string(e.code.rawValue), "message": .string(e.message), "suggestion": .string(e.suggestion)])])])
        r = r.failing(e, tool: tool)
        return r
    }
}
