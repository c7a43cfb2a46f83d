import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The one reader of Ogg page headers, on pages built byte by byte.
@Suite struct OggPageHeaderTests {
    /// "OggS", version 0, flags, granule, serial, sequence, checksum, lacing count and table.
    static func page(flags: UInt8, granule: UInt64, serial: UInt32, sequence: UInt32, checksum: UInt32, lacing: [UInt8]) -> [UInt8] {
        func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        return Array("OggS".utf8) + [0, flags] + le(granule, 8) + le(UInt64(serial), 4) + le(UInt64(sequence), 4)
            + le(UInt64(checksum), 4) + [UInt8(lacing.count)] + lacing
    }

    @Test func readsEveryFieldAndTheBodyLength() throws {
        let b = [0xAA, 0xBB] + Self.page(flags: 0x02, granule: 0x0102_0304_0506_0708, serial: 0xDEAD_BEEF, sequence: 7,
                                         checksum: 0x1234_5678, lacing: [255, 255, 10])
        let h = try #require(OggPageHeader(b, at: 2))
        #expect(h.flags == 0x02 && h.granule == 0x0102_0304_0506_0708 && h.serial == 0xDEAD_BEEF)
        #expect(h.sequence == 7 && h.checksum == 0x1234_5678 && h.segments == [255, 255, 10])
        #expect(h.headerLength == 30 && h.bodyLength == 520)
    }

    @Test func refusesWhatIsNotAWholeHeader() {
        let p = Self.page(flags: 0, granule: 0, serial: 1, sequence: 0, checksum: 0, lacing: [1, 2, 3])
        #expect(OggPageHeader(Array(p.dropLast())) == nil, "the lacing table is cut")
        #expect(OggPageHeader(Array(p.prefix(26))) == nil, "the fixed part is cut")
        #expect(OggPageHeader(Array("OggT".utf8) + p.dropFirst(4)) == nil, "no capture pattern")
        #expect(OggPageHeader(p, at: 1) == nil)
    }
}
