import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibrarySortTests {
    func paths(_ sort: LibrarySort, _ items: [LibraryItem]) -> [String] { sort.sorted(items).map(\.path) }

    @Test func parsesFieldsAndDirections() throws {
        #expect(try LibrarySort.parse("artist,year-").keys == [.init(.artist), .init(.year, ascending: false)])
        #expect(try LibrarySort.parse(" duration- , title+ ").keys == [.init(.duration, ascending: false), .init(.title)])
        #expect(try LibrarySort.parse("modified-").keys == [.init(.mtime, ascending: false)])
        #expect(try LibrarySort.parse("sample-rate") == LibrarySort(keys: [.init(.sampleRate)]))
        #expect(try LibrarySort.parse("") == .default)
        #expect(LibrarySort.default.keys == [.init(.mtime, ascending: false)])
    }

    @Test func parseErrorsPointAtTheBadField() throws {
        let unknown = #expect(throws: LibrarySort.ParseError.self) { try LibrarySort.parse("artist,colour-") }
        #expect(unknown?.position == 8)
        #expect(unknown?.message.hasPrefix("unknown sort field 'colour' at character 8") == true)
        let empty = #expect(throws: LibrarySort.ParseError.self) { try LibrarySort.parse("artist,,year") }
        #expect(empty?.position == 8)
    }

    @Test func defaultIsNewestFirst() {
        let items = [libraryItem("a", mtime: 100), libraryItem("b", mtime: 300), libraryItem("c", mtime: 200)]
        #expect(paths(.default, items) == ["b", "c", "a"])
        // Nanosecond differences beyond Double precision still order correctly.
        let big = Int64(1_700_000_000_000_000_000)
        let close = [libraryItem("x", mtime: big), libraryItem("y", mtime: big + 1)]
        #expect(paths(.default, close) == ["y", "x"])
    }

    @Test func multiKeyWithDirections() throws {
        let items = [
            libraryItem("1", artist: "Beatles", year: 1965),
            libraryItem("2", artist: "abba", year: 1976),
            libraryItem("3", artist: "Beatles", year: 1969),
            libraryItem("4", artist: "ABBA", year: 1974),
        ]
        #expect(paths(try .parse("artist,year-"), items) == ["2", "4", "3", "1"])
        #expect(paths(try .parse("artist-,year"), items) == ["1", "3", "4", "2"])
    }

    @Test func missingValuesGoLastEitherWay() throws {
        let items = [libraryItem("a", year: 2000), libraryItem("b"), libraryItem("c", year: 1990),
                     libraryItem("d", title: "  ")]
        #expect(paths(try .parse("year"), items) == ["c", "a", "b", "d"])
        #expect(paths(try .parse("year-"), items) == ["a", "c", "b", "d"])
        let titled = [libraryItem("a", title: "Zed"), libraryItem("b", title: ""), libraryItem("c", title: "alpha")]
        #expect(paths(try .parse("title-"), titled) == ["a", "c", "b"])
        #expect(paths(try .parse("title"), titled) == ["c", "a", "b"])
    }

    @Test func textIsCaseAccentAndNumberAware() throws {
        let items = [libraryItem("1", title: "Track 10"), libraryItem("2", title: "track 9"),
                     libraryItem("3", title: "Écho"), libraryItem("4", title: "Track 009b"),
                     libraryItem("5", title: "echo 2")]
        // "Écho" folds to "echo", which is a prefix of "echo 2".
        #expect(paths(try .parse("title"), items) == ["3", "5", "2", "4", "1"])
    }

    @Test func tiesFallBackToPathThenIdSoOrderIsTotal() throws {
        let items = [libraryItem("b", id: "2", year: 1), libraryItem("a", id: "9", year: 1),
                     libraryItem("b", id: "1", year: 1), libraryItem("A", id: "5", year: 1)]
        let sort = try LibrarySort.parse("year")
        let expected = ["A/5", "a/9", "b/1", "b/2"]
        #expect(sort.sorted(items).map { $0.path + "/" + $0.id } == expected)
        // Same result from every starting permutation.
        var rng = SplitMix64(seed: 7)
        for _ in 0..<10 {
            var shuffled = items
            for i in stride(from: shuffled.count - 1, to: 0, by: -1) {
                shuffled.swapAt(i, Int(rng.next() % UInt64(i + 1)))
            }
            #expect(sort.sorted(shuffled).map { $0.path + "/" + $0.id } == expected)
        }
        #expect(sort.areInIncreasingOrder(items[2], items[0]))
        #expect(!sort.areInIncreasingOrder(items[0], items[2]))
        #expect(!sort.areInIncreasingOrder(items[0], items[0]))
    }

    @Test func numericFields() throws {
        let items = [libraryItem("a", duration: 300, size: 5), libraryItem("b", duration: 12.5, size: 50),
                     libraryItem("c", duration: .nan, size: 1)]
        #expect(paths(try .parse("duration-"), items) == ["a", "b", "c"])
        #expect(paths(try .parse("duration"), items) == ["b", "a", "c"])
        #expect(paths(try .parse("size-"), items) == ["b", "a", "c"])
    }
}

@Suite struct LibrarySortPropertyTests {
    /// Random items with many ties and missing values; every adjacent pair of the sorted output
    /// must agree with the pairwise comparison, and the sort must not depend on input order.
    @Test func sortedAgreesWithPairwiseOrder() throws {
        var rng = SplitMix64(seed: 42)
        let words = ["Alpha", "alpha", "Beta", "\u{C9}t\u{E9}", "ete", "Track 2", "Track 10", ""]
        var items: [LibraryItem] = []
        for i in 0..<300 {
            let pick = { (n: UInt64) in Int(rng.next() % n) }
            items.append(libraryItem("/m/\(words[pick(8)])/\(pick(20)).flac", id: "\(i % 250)",
                                     title: pick(5) == 0 ? nil : words[pick(8)],
                                     artist: words[pick(8)], year: pick(4) == 0 ? nil : 1990 + pick(5),
                                     duration: pick(6) == 0 ? nil : Double(pick(50)) / 2,
                                     mtime: Int64(pick(10))))
        }
        for text in ["artist,year-", "title-,duration", "duration-", "mtime-", "year,title", "path"] {
            let sort = try LibrarySort.parse(text)
            let sorted = sort.sorted(items)
            #expect(sorted.count == items.count)
            for k in 1..<sorted.count {
                #expect(!sort.areInIncreasingOrder(sorted[k], sorted[k - 1]), "\(text) at \(k)")
            }
            #expect(sort.sorted(items.reversed()).map { $0.path + "#" + $0.id } == sorted.map { $0.path + "#" + $0.id })
            #expect(sort.sortedIndices(items).map { items[$0].path } == sorted.map(\.path))
        }
    }
}
