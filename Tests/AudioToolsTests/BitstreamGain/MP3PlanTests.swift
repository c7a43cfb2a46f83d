import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The dry run's walk over a read-only mapping (`MP3GlobalGain.plan`) finds what the change that
/// writes finds: the same facts, the same refusals; and a mapped file cut short is a read failure.
@Suite struct MP3PlanTests {
    typealias F = MP3GlobalGainTests

    static func facts(_ c: MP3GlobalGain.Change) -> [Int?] {
        [c.frames, c.minGain, c.maxGain, c.previousUndo?.left, c.previousUndo?.right, c.undo.left, c.undo.right]
    }

    static func planned(_ file: [UInt8], steps: Int) throws -> MP3GlobalGain.Change {
        try file.withUnsafeBytes { try MP3GlobalGain.plan($0, steps: steps) }
    }

    /// A frame with its padding bit set: one byte longer.
    static func padded(_ f: [UInt8]) -> [UInt8] {
        var p = f
        p[2] |= 0x02
        return p + [0x33]
    }

    @Test func thePlanIsWhatTheChangeDid() throws {
        let a = F.frame(gains: [150, 160, 170, 180]), b = F.frame(mono: true, crc: true, gains: [140, 141])
        var files = [F.mixedFile(), a + Self.padded(a) + b + Self.padded(b) + a, Self.padded(a) + Self.padded(a)]
        // An undo record already there is added to.
        files.append(try MP3GlobalGain.apply(F.mixedFile(), steps: 2).bytes)
        for file in files {
            for steps in [-3, 0, 4] {
                let r = try MP3GlobalGain.apply(file, steps: steps)
                let c = MP3GlobalGain.Change(frames: r.frames, minGain: r.minGain, maxGain: r.maxGain, previousUndo: r.previousUndo, undo: r.undo)
                #expect(Self.facts(try Self.planned(file, steps: steps)) == Self.facts(c))
                let small = try MP3GlobalGain.apply(file, steps: steps, window: 100)
                #expect(small.bytes == r.bytes)
            }
        }
    }

    @Test func theSameRefusals() {
        let file = F.frame(gains: [10, 10, 10, 10]) + F.frame(gains: [250, 10, 10, 10]) + F.frame(gains: [10, 10, 10, 254])
        let padding = F.frame(gains: [1, 1, 1, 1]) + [UInt8](repeating: 0, count: 500) + [1] + [UInt8](repeating: 0, count: 10)
        #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 2, value: 256)) { try Self.planned(file, steps: 2) }
        #expect(throws: BitstreamGainError.globalGainOutOfRange(frame: 0, value: -1)) { try Self.planned(file, steps: -11) }
        #expect(throws: BitstreamGainError.malformed(what: "MPEG audio frame", offset: 417)) { try Self.planned(padding, steps: 1) }
        #expect(throws: BitstreamGainError.unsupportedFormat("MP3 without Layer III frames")) { try Self.planned([UInt8](repeating: 0, count: 50), steps: 1) }
    }

    static func tempFile(_ bytes: [UInt8]) -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("mp3plan-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        #expect(FileManager.default.createFile(atPath: p, contents: Data(bytes)))
        return p
    }

    @Test func aMappedFileIsPlannedAsItsBytesAre() throws {
        let file = F.mixedFile()
        let path = Self.tempFile(file)
        defer { unlink(path) }
        let reader = try InputReader(try FileByteSource.input(path))
        let c = try #require(try reader.withMappedBytes(size: file.count) { try MP3GlobalGain.plan($0, steps: 3) })
        #expect(Self.facts(c) == Self.facts(try Self.planned(file, steps: 3)))
        // An empty file is not mapped: the caller reads it.
        let empty = Self.tempFile([])
        defer { unlink(empty) }
        #expect(try InputReader(try FileByteSource.input(empty)).withMappedBytes(size: 0) { _ in 1 } == nil)
    }

    /// Cut short under the mapping, the file's lost pages read as zeros instead of killing the
    /// process with SIGBUS, and the read fails as a short read does.
    @Test func aFileCutShortWhileMappedIsAReadFailure() throws {
        let size = 5 * 4096
        let path = Self.tempFile([UInt8](repeating: 7, count: size))
        defer { unlink(path) }
        let reader = try InputReader(try FileByteSource.input(path))
        var seen: [UInt8] = []
        #expect(throws: FileAccessError.self) {
            _ = try reader.withMappedBytes(size: size) { b in
                seen.append(b[0])
                #expect(truncate(path, 4096) == 0)
                seen.append(b[size - 1])
                seen.append(b[2 * 4096])
                return 0
            }
        }
        #expect(seen == [7, 0, 0])
        // Mapped again at its new size, it reads as it is.
        #expect(try reader.withMappedBytes(size: 4096) { b in b.allSatisfy { $0 == 7 } } == true)
    }
}
