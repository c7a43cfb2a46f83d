import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The Ogg checksum and Opus's header gain, on streams built here.
@Suite struct OpusHeaderGainTests {
    /// CRC-32 with polynomial 0x04C11DB7, initial 0, no reflection, no final XOR: the catalogued
    /// CRC-32/CKSUM check value 0x765E7680 without its final XOR.
    @Test func oggChecksumOfTheCheckString() {
        let b = Array("123456789".utf8)
        #expect(OggCRC.checksum(b, 0..<b.count, zeroing: nil) == 0x765E_7680 ^ 0xFFFF_FFFF)
    }

    static func head(gain: Int16) -> [UInt8] {
        var p = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0]
        let g = UInt16(bitPattern: gain)
        p += [UInt8(g & 0xFF), UInt8(g >> 8), 0]
        return p
    }

    static func tags(_ comments: [String], padding: Int = 0) -> [UInt8] {
        var p = Array("OpusTags".utf8)
        OggPage.writeLE(&p, 4, 4)
        p += Array("test".utf8)
        OggPage.writeLE(&p, UInt64(comments.count), 4)
        for c in comments { OggPage.writeLE(&p, UInt64(c.utf8.count), 4); p += Array(c.utf8) }
        return p + [UInt8](repeating: 0, count: padding)
    }

    /// A stream: ID header page, the tags packet on as many pages as it needs, two audio pages.
    static func stream(gain: Int16, tags t: [UInt8]) -> (bytes: [UInt8], audio: [[UInt8]]) {
        var out = OggPage.build(flags: 2, granule: 0, serial: 7, sequence: 0, segments: [19], body: head(gain: gain)[...])
        let tagPages = OpusHeaderGain.paginate(t, serial: 7, firstSequence: 1)
        for p in tagPages { out += p }
        var audio: [[UInt8]] = []
        for i in 0..<2 {
            let body = [UInt8]((0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + i) })
            let page = OggPage.build(flags: i == 1 ? 4 : 0, granule: UInt64(960 * (i + 1)), serial: 7,
                                     sequence: UInt32(1 + tagPages.count + i), segments: [255, 45], body: body[...])
            audio.append(page)
            out += page
        }
        return (out, audio)
    }

    @Test func headerGainMovesAndPagesStayValid() throws {
        let s = Self.stream(gain: -256, tags: Self.tags(["ENCODER=x"]))
        let r = try OpusHeaderGain.apply(s.bytes, gainQ78: 1485)
        #expect(r.oldGainQ78 == -256)
        #expect(r.newGainQ78 == 1229)
        let pages = try OggPage.all(r.bytes)  // every checksum checked
        let body = pages[0].bodyOffset
        #expect(Int(Int16(bitPattern: UInt16(r.bytes[body + 16]) | UInt16(r.bytes[body + 17]) << 8)) == 1229)
        #expect(r.bytes.count == s.bytes.count)
        // Everything after the ID header page is byte-identical.
        #expect(Array(r.bytes[pages[1].offset...]) == Array(s.bytes[pages[1].offset...]))
        #expect(r.tags.isEmpty)
    }

    @Test func r128TagsStayTrueRelativeToTheNewHeaderGain() throws {
        let s = Self.stream(gain: 0, tags: Self.tags(["R128_TRACK_GAIN=-300", "title=a", "r128_album_gain=+12"]))
        let r = try OpusHeaderGain.apply(s.bytes, gainQ78: 512)
        #expect(r.tags.map(\.new) == [-812, -500])
        let pages = try OggPage.all(r.bytes)
        let tagsBody = Array(r.bytes[pages[1].bodyOffset..<(pages[1].bodyOffset + pages[1].bodyLength)])
        #expect(tagsBody == Self.tags(["R128_TRACK_GAIN=-812", "title=a", "r128_album_gain=-500"]))
        // The audio pages are the same bytes (the page count didn't change).
        #expect(Array(r.bytes[pages[2].offset...]) == s.audio.flatMap { $0 })
    }

    /// A tags packet of 255 × 255 − 2 bytes fits one page (255 lacing values); two bytes more of
    /// tag text need a second page, so the audio pages are renumbered and their checksums redone.
    @Test func aTagsPacketThatGrowsOntoAnotherPageIsRepaginated() throws {
        let base = Self.tags(["R128_TRACK_GAIN=5"])
        let filler = 255 * 254 + 254 - base.count  // the packet ends on one page with lacing value 254
        let t = Self.tags(["R128_TRACK_GAIN=5"], padding: filler)
        #expect(t.count == 255 * 254 + 254)
        let s = Self.stream(gain: 0, tags: t)
        #expect(try OggPage.all(s.bytes).count == 4)
        let r = try OpusHeaderGain.apply(s.bytes, gainQ78: 1000)  // "5" → "-995": three bytes more
        let pages = try OggPage.all(r.bytes)
        #expect(pages.count == 5)
        #expect(pages.map(\.sequence) == [0, 1, 2, 3, 4])
        #expect(pages[2].flags & 1 == 1)  // continues the tags packet
        #expect(pages[1].granule == UInt64.max && pages[2].granule == 0)
        let packet = Array(r.bytes[pages[1].bodyOffset..<(pages[1].bodyOffset + pages[1].bodyLength)])
            + Array(r.bytes[pages[2].bodyOffset..<(pages[2].bodyOffset + pages[2].bodyLength)])
        #expect(packet == Self.tags(["R128_TRACK_GAIN=-995"], padding: filler))
        for (i, p) in pages[3...].enumerated() {
            let old = try OggPage.read(s.audio[i], at: 0, index: 0)
            #expect(Array(r.bytes[p.bodyOffset..<(p.bodyOffset + p.bodyLength)]) == Array(s.audio[i][old.bodyOffset...]))
            #expect(p.granule == old.granule)
        }
    }

    @Test func refusals() throws {
        let s = Self.stream(gain: 32000, tags: Self.tags([]))
        #expect(throws: BitstreamGainError.opusGainOutOfRange(q78: 33000)) { try OpusHeaderGain.apply(s.bytes, gainQ78: 1000) }
        var bad = s.bytes
        bad[40] ^= 1
        #expect(throws: BitstreamGainError.self) { try OpusHeaderGain.apply(bad, gainQ78: 1) }
        let two = s.bytes + OggPage.build(flags: 2, granule: 0, serial: 8, sequence: 0, segments: [19], body: Self.head(gain: 0)[...])
        #expect(throws: BitstreamGainError.severalStreams(2)) { try OpusHeaderGain.apply(two, gainQ78: 1) }
    }

    /// The undo record is a comment after the others: added to by a second change, and removed by
    /// the change that applies it, which gives back the original bytes.
    @Test func undoRecordIsAddedToAndRemovedByTheUndo() throws {
        let s = Self.stream(gain: -256, tags: Self.tags(["ENCODER=x", "R128_TRACK_GAIN=-300"]))
        let one = try OpusHeaderGain.plan(s.bytes, gainQ78: 700, undo: .add)
        #expect(one.previousUndoQ78 == nil && one.undoQ78 == -700)
        let a = one.copy.applied(to: s.bytes)
        let pages = try OggPage.all(a)
        #expect(Array(a[pages[1].bodyOffset..<(pages[1].bodyOffset + pages[1].bodyLength)])
            == Self.tags(["ENCODER=x", "R128_TRACK_GAIN=-1000", "AUDIO_TOOLS_LOSSLESS_GAIN_UNDO=-700"]))
        let two = try OpusHeaderGain.plan(a, gainQ78: -200, undo: .add)
        #expect(two.previousUndoQ78 == -700 && two.undoQ78 == -500 && two.newGainQ78 == 244)
        let b = two.copy.applied(to: a)
        #expect(try OpusHeaderGain.undoRecord(b) == -500)
        let back = try OpusHeaderGain.plan(b, gainQ78: -500, undo: .remove)
        #expect(back.undoQ78 == nil && back.newGainQ78 == -256)
        #expect(back.copy.applied(to: b) == s.bytes)
        #expect(try OpusHeaderGain.undoRecord(s.bytes) == nil)
    }

    @Test func aacUndoRecordValues() {
        #expect(AACUndoRecord.value([-4]) == "-4,-4")
        #expect(AACUndoRecord.value([-4, 6]) == "-4,-4;6,6")
        #expect(AACUndoRecord.steps("-4,-4;+6,6")! == [-4, 6])
        #expect(AACUndoRecord.steps("-4,-3") == nil)
        #expect(AACUndoRecord.steps("") == nil)
    }
}
