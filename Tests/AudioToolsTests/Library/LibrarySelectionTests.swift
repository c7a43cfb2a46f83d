import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What library-filter keeps of its entries and writes at the end: the wanted songs in order, a
/// page, each --get id's songs (or an error record for a gone id), and the summary sentence.
@Suite struct LibrarySelectionTests {
    func entry(_ item: LibraryItem, _ outcome: LibrarySummary.Outcome = .usable) -> LibraryEntry {
        LibraryEntry(kind: .song(outcome), item: item, record: Record(path: item.path), line: item.path)
    }

    func selection(query: String = "", sort: String = "title", offset: Int = 0, limit: Int? = nil,
                   get: [String] = [], all: Bool = false) throws -> LibrarySelection {
        LibrarySelection(query: try LibraryQuery.parse(query), sort: try LibrarySort.parse(sort),
                         page: try LibraryPage.validated(offset: offset, limit: limit), getIDs: get, includeUnusable: all)
    }

    func written(_ s: LibrarySelection, folders: [String] = ["/music"]) -> (lines: [String], info: LibraryPage.Info?, gone: Bool) {
        var lines: [String] = []
        let r = s.write(folders: folders, tool: "library-filter") { lines.append($0) }
        return (lines, r.pageInfo, r.gone)
    }

    @Test func keepsWantedSongsSortedAndPaged() throws {
        var s = try selection(query: "artist:miles", offset: 1, limit: 1)
        s.add(entry(libraryItem("c", title: "C", artist: "Miles")))
        s.add(entry(libraryItem("a", title: "A", artist: "Miles")))
        s.add(entry(libraryItem("b", title: "B", artist: "Bill")))
        s.add(entry(libraryItem("d", title: "D", artist: "Miles"), .outsideConstraints))
        s.add(LibraryEntry(kind: .skipped(.artwork), item: nil, record: Record(path: "cover.jpg")))
        let w = written(s)
        #expect(w.lines == ["c"])
        #expect(w.info?.offset == 1 && w.info?.returned == 1 && w.info?.total == 2)
        #expect(!w.gone)
        #expect(s.listing.summary.songs == 4 && s.listing.summary.skippedTotal == 1)
        #expect(s.summary(fromIndex: false).hasSuffix("; 2 match the query"))
    }

    @Test func unusableSongsOnlyWithAll() throws {
        var s = try selection(all: true)
        s.add(entry(libraryItem("x", title: "X"), .failed(.protected)))
        #expect(written(s).lines == ["x"])
    }

    @Test func getWritesEachIDsSongsAndAnErrorForAGoneOne() throws {
        var s = try selection(get: ["id-b", "0123456789abcdef01234567"])
        s.add(entry(libraryItem("a", title: "A")))
        s.add(entry(libraryItem("b", title: "B")))
        let w = written(s)
        #expect(w.info == nil && w.gone)
        #expect(w.lines.count == 2 && w.lines[0] == "b")
        #expect(w.lines[1].contains("No song with id 0123456789abcdef01234567 is in \(ToolError.quoted("/music")) any more."))
        #expect(w.lines[1].contains("\"code\":\"not-found\""))
        #expect(s.summary(fromIndex: true) == "1 song found by id in the cache's index, without walking the folders")
    }
}
