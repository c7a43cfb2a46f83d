import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibraryPageTests {
    let items = Array(0..<10)

    @Test func firstMiddleAndLastPages() {
        let first = LibraryPage(offset: 0, limit: 4).apply(to: items)
        #expect(first.items == [0, 1, 2, 3])
        #expect(first.info == .init(offset: 0, limit: 4, returned: 4, total: 10, hasMore: true, nextOffset: 4))
        let middle = LibraryPage(offset: 4, limit: 4).apply(to: items)
        #expect(middle.items == [4, 5, 6, 7])
        #expect(middle.info.nextOffset == 8)
        let last = LibraryPage(offset: 8, limit: 4).apply(to: items)
        #expect(last.items == [8, 9])
        #expect(last.info == .init(offset: 8, limit: 4, returned: 2, total: 10, hasMore: false, nextOffset: nil))
    }

    @Test func exactFitHasNoMore() {
        let page = LibraryPage(offset: 6, limit: 4).apply(to: items)
        #expect(page.items == [6, 7, 8, 9])
        #expect(!page.info.hasMore && page.info.nextOffset == nil)
    }

    @Test func noLimitReturnsTheRest() {
        let page = LibraryPage(offset: 3).apply(to: items)
        #expect(page.items == Array(3..<10))
        #expect(page.info == .init(offset: 3, limit: nil, returned: 7, total: 10, hasMore: false, nextOffset: nil))
    }

    @Test func offsetBeyondTheEnd() {
        let page = LibraryPage(offset: 25, limit: 5).apply(to: items)
        #expect(page.items.isEmpty)
        #expect(page.info == .init(offset: 25, limit: 5, returned: 0, total: 10, hasMore: false, nextOffset: nil))
        #expect(LibraryPage(offset: 10).apply(to: items).info.returned == 0)
    }

    @Test func limitZeroOnlyCounts() {
        let page = LibraryPage(offset: 2, limit: 0).apply(to: items)
        #expect(page.items.isEmpty)
        #expect(page.info == .init(offset: 2, limit: 0, returned: 0, total: 10, hasMore: true, nextOffset: 2))
        let empty = LibraryPage(offset: 0, limit: 0).apply(to: [Int]())
        #expect(empty.info == .init(offset: 0, limit: 0, returned: 0, total: 0, hasMore: false, nextOffset: nil))
    }

    @Test func hugeLimitDoesNotOverflow() {
        let page = LibraryPage(offset: 5, limit: Int.max).apply(to: items)
        #expect(page.items == Array(5..<10))
        #expect(page.info.hasMore == false)
    }

    @Test func infoWithoutSliceAgrees() {
        for offset in [0, 3, 9, 10, 30] {
            for limit in [nil, 0, 1, 4, 100] as [Int?] {
                let page = LibraryPage(offset: offset, limit: limit)
                #expect(page.info(total: items.count) == page.apply(to: items).info)
            }
        }
    }

    @Test func walkingNextOffsetVisitsEveryItemOnce() {
        var seen: [Int] = []
        var offset: Int? = 0
        while let start = offset {
            let page = LibraryPage(offset: start, limit: 3).apply(to: items)
            seen += page.items
            offset = page.info.nextOffset
        }
        #expect(seen == items)
    }

    @Test func negativeValuesAreRefused() {
        #expect(throws: ToolError.self) { try LibraryPage.validated(offset: -1, limit: nil) }
        #expect(throws: ToolError.self) { try LibraryPage.validated(offset: 0, limit: -3) }
        #expect((try? LibraryPage.validated(offset: 2, limit: 0)) == LibraryPage(offset: 2, limit: 0))
        #expect(LibraryPage(offset: -4, limit: -1) == LibraryPage(offset: 0, limit: 0))
    }
}

@Suite struct LibraryPageJSONTests {
    @Test func infoSerialisesWithContractKeys() {
        let more = LibraryPage(offset: 0, limit: 2).info(total: 5)
        #expect(more.json.serialized() == #"{"has_more":true,"limit":2,"next_offset":2,"offset":0,"returned":2,"total":5}"#)
        let all = LibraryPage().info(total: 3)
        #expect(all.json.serialized() == #"{"has_more":false,"limit":null,"next_offset":null,"offset":0,"returned":3,"total":3}"#)
    }
}
