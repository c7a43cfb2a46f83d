import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibrarySummaryTests {
    func summary(usable: Int = 0, _ failures: [(ErrorCode, Int)] = [], constraints: Int = 0,
                 skipped: [(LibrarySkipKind, Int)] = []) -> LibrarySummary {
        var s = LibrarySummary()
        for _ in 0..<usable { s.count(.usable) }
        for (code, n) in failures { for _ in 0..<n { s.count(.failed(code)) } }
        for _ in 0..<constraints { s.count(.outsideConstraints) }
        for (kind, n) in skipped { for _ in 0..<n { s.count(.skipped(kind)) } }
        return s
    }

    @Test func fullSentenceWithThousands() {
        let s = summary(usable: 1204, [(.protected, 2001), (.cloudOnly, 150), (.malformed, 30), (.truncated, 20),
                                       (.unsupportedCodec, 5)])
        #expect(s.songs == 3410)
        #expect(s.sentence == "1,204 of 3,410 songs usable: 2,001 protected, 150 cloud-only, 55 broken")
    }

    @Test func singularAndAllUsable() {
        #expect(summary(usable: 1).sentence == "1 of 1 song usable")
        #expect(summary(usable: 2).sentence == "2 of 2 songs usable")
        #expect(summary(usable: 0, [(.empty, 1)]).sentence == "0 of 1 song usable: 1 broken")
    }

    @Test func zeroCategoriesOmittedAndTailsAdded() {
        let s = summary(usable: 3, [(.cloudOnly, 1)], constraints: 12,
                        skipped: [(.playlist, 2), (.artwork, 38)])
        #expect(s.sentence == "3 of 16 songs usable: 1 cloud-only, 12 outside the constraints; 40 other files skipped (cover art, playlists)")
        let one = summary(usable: 5, skipped: [(.cueSheet, 1)])
        #expect(one.sentence == "5 of 5 songs usable; 1 other file skipped (cue sheet)")
    }

    @Test func everyOtherCodeIsBroken() {
        let codes: [ErrorCode] = [.unreadable, .unrecognised, .malformed, .truncated, .empty, .noAudio,
                                  .nonFiniteSamples, .unsupportedCodec]
        let s = summary(codes.map { ($0, 1) })
        #expect(s.broken == codes.count && s.protected == 0 && s.cloudOnly == 0)
    }

    @Test func nothingFound() {
        #expect(LibrarySummary().sentence == "No songs found")
        #expect(summary(skipped: [(.system, 1_000_000)]).sentence == "No songs found; 1,000,000 other files skipped (system files)")
    }

    @Test func thousandsSeparators() {
        #expect(LibraryText.count(0) == "0")
        #expect(LibraryText.count(999) == "999")
        #expect(LibraryText.count(1000) == "1,000")
        #expect(LibraryText.count(1_234_567) == "1,234,567")
        #expect(LibraryText.count(-12_345) == "-12,345")
    }
}

@Suite struct LibrarySummaryJSONTests {
    @Test func countsAsJSON() {
        var s = LibrarySummary()
        s.count(.usable)
        s.count(.failed(.cloudOnly))
        s.count(.skipped(.cueSheet))
        #expect(s.json["songs"]?.intValue == 2)
        #expect(s.json["cloud_only"]?.intValue == 1)
        #expect(s.json["skipped"]?["cue-sheet"]?.intValue == 1)
        #expect(s.json["skipped"]?["artwork"] == nil)
        #expect(s.json["sentence"]?.stringValue == "1 of 2 songs usable: 1 cloud-only; 1 other file skipped (cue sheet)")
    }
}
