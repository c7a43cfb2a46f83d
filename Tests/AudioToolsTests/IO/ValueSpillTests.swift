import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A spill of Doubles with a small chunk, so a few hundred values cross into its file: the same
/// bits back however they are read (at once, from a position, by a reader, iterated again).
@Suite struct ValueSpillTests {
    static let chunk = 100

    /// The tools' storage: the values past the first chunk go to a temporary file.
    init() { TemporarySpillFile.install() }

    static func values(_ n: Int, seed: UInt64) -> [Double] {
        var r = SplitMix64(seed: seed)
        // Values whose bits a Float would lose, a negative zero and an infinity among them.
        return (0..<n).map { i in i == 7 ? -0.0 : i == 8 ? .infinity : r.gaussian() * 1e-3 + r.uniform() * 1e-17 }
    }

    static func spilled(_ v: [Double]) -> ValueSpill<Double> {
        let s = ValueSpill<Double>(chunkValues: chunk)
        for x in v { s.append(x) }
        return s
    }

    @Test func theBitsComeBackInOrder() {
        let v = Self.values(3 * Self.chunk + 37, seed: 1)
        let s = Self.spilled(v)
        #expect(s.count == v.count && !s.isEmpty)
        #expect(s.values.map(\.bitPattern) == v.map(\.bitPattern))
        // Iterated twice, as the gating reads its blocks.
        #expect(Array(s).map(\.bitPattern) == v.map(\.bitPattern))
        #expect(Array(s).map(\.bitPattern) == v.map(\.bitPattern))
        // From a position in the file, in the chunk in memory, and at the end.
        for from in [0, 1, Self.chunk - 1, 2 * Self.chunk + 5, 3 * Self.chunk + 1, v.count] {
            var got: [Double] = []
            s.forEach(from: from) { got.append($0) }
            #expect(got.map(\.bitPattern) == v[from...].map(\.bitPattern), "from \(from)")
            let reader = ValueSpill<Double>.Reader(s, from: from)
            #expect((from..<v.count).allSatisfy { reader.read().bitPattern == v[$0].bitPattern })
        }
        var part = [Double](repeating: 0, count: 50)
        part.withUnsafeMutableBufferPointer { s.read(from: 2 * Self.chunk - 20, count: 50, into: $0.baseAddress!) }
        #expect(part.map(\.bitPattern) == v[(2 * Self.chunk - 20)..<(2 * Self.chunk + 30)].map(\.bitPattern))
    }

    @Test func aReaderSeesWhatIsAppendedAfterIt() {
        let v = Self.values(2 * Self.chunk + 10, seed: 2)
        let s = Self.spilled(Array(v[0..<30]))
        var got: [Double] = []
        s.forEach(from: 0) { got.append($0) }
        for x in v[30...] { s.append(x) }
        s.forEach(from: 30) { got.append($0) }
        #expect(got.map(\.bitPattern) == v.map(\.bitPattern))
    }

    @Test func emptyAndGivenAtOnce() {
        let empty = ValueSpill<Double>(chunkValues: Self.chunk)
        #expect(empty.isEmpty && empty.values.isEmpty && Array(empty).isEmpty)
        var none = 0
        empty.forEach(from: 0) { _ in none += 1 }
        #expect(none == 0)
        let v = Self.values(Self.chunk * 3, seed: 3)
        let held = ValueSpill(v)
        #expect(held.chunk == ValueSpill<Double>.chunkValues)
        #expect(Array(held).map(\.bitPattern) == v.map(\.bitPattern))
        // The Float spill keeps its chunk of 256 KiB.
        #expect(FloatSpill.chunkValues == 1 << 16 && FloatSpill().chunk == 1 << 16)
    }

    /// A storage that takes `room` bytes and then refuses, as a full disk does.
    final class FillingStorage: SpillStorage {
        var bytes: [UInt8] = []
        let room: Int
        init(room: Int) { self.room = room }
        func write(_ p: UnsafeRawPointer, count: Int, at offset: Int) -> Bool {
            guard offset + count <= room else { return false }
            if bytes.count < offset + count { bytes += [UInt8](repeating: 0, count: offset + count - bytes.count) }
            bytes.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: offset).copyMemory(from: p, byteCount: count) }
            return true
        }
        func read(into p: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Bool {
            guard offset + count <= bytes.count else { return false }
            bytes.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!.advanced(by: offset), byteCount: count) }
            return true
        }
    }

    /// Whatever storage is installed, or none, or one that fills up part-way (as a full disk
    /// does): the same bits back. Each spill gets a storage of its own, so another test's spill
    /// made meanwhile stays right too.
    @Test(arguments: [0, 1, 2, 100])
    func theBitsComeBackWhateverTheStorage(chunksOfRoom: Int) {
        SpillStorageMaker.make = chunksOfRoom == 0 ? nil : { FillingStorage(room: chunksOfRoom * Self.chunk * 8) }
        defer { TemporarySpillFile.install() }
        let v = Self.values(4 * Self.chunk + 11, seed: 5)
        let s = Self.spilled(v)
        #expect(s.values.map(\.bitPattern) == v.map(\.bitPattern))
        #expect(Array(s).map(\.bitPattern) == v.map(\.bitPattern))
    }
}
