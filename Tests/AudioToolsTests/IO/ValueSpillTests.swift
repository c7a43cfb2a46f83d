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
}
