import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The Ogg renumbering: the same pages under any serial come out as the same bytes, every page's
/// checksum right; what isn't one stream of whole pages is left untouched.
@Suite struct OggSerialTests {
    /// `count` pages of one stream with `serial`; bodies of `size` bytes from a fixed pattern.
    static func stream(serial: UInt32, count: Int, size: Int) -> [UInt8] {
        var out: [UInt8] = []
        for p in 0..<count {
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ p &* 7) }
            let segments = [UInt8](repeating: 255, count: size / 255) + [UInt8(size % 255)]
            out += OggPage.build(flags: p == 0 ? 0x02 : (p == count - 1 ? 0x04 : 0), granule: UInt64(p * 960),
                                 serial: serial, sequence: UInt32(p), segments: segments, body: body[...])
        }
        return out
    }

    /// Writes `bytes` to a temporary file, runs the renumbering on it, and gives back the result.
    static func renumbered(_ bytes: [UInt8]) throws -> (changed: Bool, bytes: [UInt8]) {
        let path = NSTemporaryDirectory() + "ogg-serial-\(UUID().uuidString).ogg"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDWR)
        defer { close(fd) }
        let changed = try OggSerial.makeReproducible(fd: fd)
        return (changed, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    // 40 pages of 60,000 bytes cross the 1 MiB window twice; 3 small pages fit in one.
    @Test(arguments: [(count: 3, size: 600), (count: 40, size: 60_000)])
    func anySerialGivesTheSameBytes(count: Int, size: Int) throws {
        let a = try Self.renumbered(Self.stream(serial: 0x1234_5678, count: count, size: size))
        let b = try Self.renumbered(Self.stream(serial: 0x0BAD_CAFE, count: count, size: size))
        #expect(a.changed && b.changed)
        #expect(a.bytes == b.bytes)
        let pages = try OggPage.all(a.bytes)   // throws on a wrong checksum
        #expect(pages.count == count)
        #expect(Set(pages.map(\.serial)).count == 1)
        #expect(pages.map(\.sequence) == (0..<count).map(UInt32.init))
        // Only the serial and checksum bytes moved.
        let original = Self.stream(serial: 0x1234_5678, count: count, size: size)
        #expect(a.bytes.count == original.count)
        let moved = Set(pages.flatMap { p in Array(p.offset + 14..<p.offset + 18) + Array(p.offset + 22..<p.offset + 26) })
        #expect(zip(a.bytes, original).enumerated().allSatisfy { $0.element.0 == $0.element.1 || moved.contains($0.offset) })
    }

    @Test func twoStreamsOrACutPageAreLeftAlone() throws {
        let two = Self.stream(serial: 1, count: 2, size: 100) + Self.stream(serial: 2, count: 2, size: 100)
        let r = try Self.renumbered(two)
        #expect(!r.changed && r.bytes == two)
        let cut = Array(Self.stream(serial: 1, count: 3, size: 500).dropLast(10))
        let c = try Self.renumbered(cut)
        #expect(!c.changed && c.bytes == cut)
        let notOgg = [UInt8](repeating: 7, count: 100)
        let n = try Self.renumbered(notOgg)
        #expect(!n.changed && n.bytes == notOgg)
    }
}
