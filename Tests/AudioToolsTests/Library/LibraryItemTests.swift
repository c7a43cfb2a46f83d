import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A cached probe (text) read straight into an item gives the item the record's probe gives.
@Suite struct LibraryItemTests {
    static func probe(tags: JSON, file: JSON = .object(["modified_ns": .int(1_600_000_000_123_456_789), "size_bytes": .int(3137)]),
                      extra: [String: JSON] = [:]) -> JSON {
        var o: [String: JSON] = [
            "content_id": .string("80f47017a43f3d50251d0bbf"), "codec": .string("vorbis"), "container": .string("ogg"),
            "channels": .int(2), "sample_rate": .int(44100), "bit_depth": .null, "duration_seconds": .number("215.043"),
            "file": file, "tags": tags, "checked": .string("first and last second"), "layout": .string("stereo"),
        ]
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }

    @Test(arguments: [
        JSON.object(["title": .string("Come Together"), "artist": .string("The Beatles"), "album": .string("Abbey Road"),
                     "genre": .string("Rock"), "year": .string("1969-09-26"), "track": .string("1/17")]),
        JSON.object(["title": .string("Quote \" and \\ back\nslash"), "artist": .string("Ünïcødé ☃"), "album": .null,
                     "genre": .null, "year": .null, "track": .string("A2")]),
        JSON.object(["title": .int(5), "year": .string("no digits"), "track": .string("1234567890")]),
        JSON.object([:]),
        JSON.null,
    ])
    func scannedTextGivesTheRecordsItem(tags: JSON) throws {
        let text = Self.probe(tags: tags).serialized()
        let expected = LibraryItem(path: "a/b.ogg", id: "x", probe: try JSON.parse(text))
        let scanned = try #require(LibraryItem.scanned(path: "a/b.ogg", probeText: text))
        var item = scanned.item
        item.id = "x"
        #expect(item == expected)
        #expect(scanned.contentID == "80f47017a43f3d50251d0bbf")
        // The raw form library-filter used before reads the same.
        #expect(LibraryItem(path: "a/b.ogg", id: "x", probe: JSON.verbatim(text)?.picking(LibraryItem.probeKeys)) == expected)
    }

    @Test func missingOrOddMembersReadAsTheRecordsDo() throws {
        for p in [Self.probe(tags: .null, file: .null),
                  Self.probe(tags: .null, file: .object(["size_bytes": .int(-1), "modified_ns": .int(5)])),
                  Self.probe(tags: .null, file: .object(["size_bytes": .int(10)]), extra: ["channels": .string("2"), "sample_rate": .number("4.41e4")]),
                  // The identity as this audio-tools writes it: seconds and nanoseconds.
                  Self.probe(tags: .null, file: FileIdentity(sizeBytes: 3137, modifiedNanoseconds: 1_600_000_000_123_456_789,
                                                              changedNanoseconds: 1_600_000_001_000_000_000).json),
                  JSON.object(["content_id": .null])] {
            let text = p.serialized()
            let expected = LibraryItem(path: "p", id: "", probe: try JSON.parse(text))
            #expect(LibraryItem.scanned(path: "p", probeText: text)?.item == expected, "\(text)")
            if p["file"]?["mtime_sec"] != nil { #expect(expected.modifiedNanoseconds == 1_600_000_000_123_456_789) }
        }
        #expect(LibraryItem.scanned(path: "p", probeText: "{\"tags\":{\"title\":}") == nil)
        #expect(LibraryItem.scanned(path: "p", probeText: "[1]") == nil)
    }
}
