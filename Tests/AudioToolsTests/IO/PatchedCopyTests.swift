import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A patched copy written through the kernel copy and through reads and writes is the same file
/// as the one made in memory, with patches anywhere (inside a window, across a window's end,
/// in sparse and dense runs), inserts between runs and runs that leave input out.
@Suite struct PatchedCopyTests {
    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("patched-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func inMemoryItIsTheRunsWithThePatchesAndTheInserts() {
        let input = [UInt8](0..<20)
        var c = PatchedCopy()
        c.patch(at: 1, [101, 102])
        c.patch(at: 9, [109])
        c.patch(at: 15, [115])  // in input left out: not in the output
        c.copy(0..<5)
        c.copy(5..<10)  // merged with the run before
        c.insert([200, 201])
        c.insert([202])
        c.copy(17..<20)
        #expect(c.pieces == [.copy(0..<10), .insert([200, 201, 202]), .copy(17..<20)])
        #expect(c.outputSize == 16)
        #expect(c.applied(to: input) == [0, 101, 102, 3, 4, 5, 6, 7, 8, 109, 200, 201, 202, 17, 18, 19])
        #expect(PatchedCopy(bytes: [9, 8]).applied(to: input) == [9, 8])
    }

    /// A megabyte and a bit: dense patches (every 627 bytes, like MP3 frames) in the first
    /// 600 KB, one patch across the first window's end, a clean stretch, then a replaced tail.
    static func plan(size: Int) -> PatchedCopy {
        var c = PatchedCopy()
        var at = 100
        while at < 600_000 {
            c.patch(at: at, [0xAA, 0xBB, 0xCC])
            at += 627
        }
        c.patch(at: PatchedCopy.window * 3 - 2, [1, 2, 3, 4, 5])
        c.patch(at: size - 300, [7])
        c.copy(0..<(size - 200))
        c.insert(Array("TAIL".utf8))
        c.copy((size - 100)..<size)
        return c
    }

    @Test(arguments: [true, false]) func writtenItIsTheSameBytes(kernelCopies: Bool) throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 1_100_003
        var gen = UInt32(12345)
        let input = (0..<size).map { _ -> UInt8 in gen = gen &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: gen >> 16) }
        _ = FileManager.default.createFile(atPath: dir + "/in.bin", contents: Data(input))
        let c = Self.plan(size: size)
        let reader = try InputReader(try FileByteSource.input(dir + "/in.bin"))
        for unnamed in [true, false] {
            let out = try AtomicOutput(path: dir + "/out.bin", overwrite: true, unnamed: unnamed)
            try c.write(from: reader, to: out, kernelCopies: kernelCopies)
            try reader.checkUnchanged()
            try out.commit()
            let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out.bin")))
            #expect(written.count == c.outputSize)
            #expect(written == c.applied(to: input))
        }
    }

    @Test(arguments: [true, false]) func anInputShorterThanThePlanIsAReadFailure(kernelCopies: Bool) throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/in.bin", contents: Data(repeating: 7, count: 1000))
        var c = PatchedCopy()
        c.copy(0..<2000)
        let reader = try InputReader(try FileByteSource.input(dir + "/in.bin"))
        let out = try AtomicOutput(path: dir + "/out.bin", overwrite: false)
        #expect(throws: FileAccessError(dir + "/in.bin", .readFailed)) { try c.write(from: reader, to: out, kernelCopies: kernelCopies) }
        out.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["in.bin"])
    }
}
