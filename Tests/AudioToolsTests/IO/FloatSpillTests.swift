import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Floats kept past their first chunk in a temporary file: the same values back, in order, and a
/// loudness model over spilled columns giving the same bits as one over arrays.
@Suite struct FloatSpillTests {
    /// A few chunks and a part, so reads cross from the file into the chunk still in memory.
    static let count = 3 * FloatSpill.chunkValues + 1234

    /// The tools' storage: the values past the first chunk go to a temporary file.
    init() { TemporarySpillFile.install() }

    static func values(_ n: Int, seed: UInt64) -> [Float] {
        var r = SplitMix64(seed: seed)
        return (0..<n).map { _ in Float(r.uniform()) }
    }

    static func spilled(_ v: [Float]) -> FloatSpill {
        let s = FloatSpill()
        for x in v { s.append(x) }
        return s
    }

    @Test func theValuesComeBackInOrder() {
        let v = Self.values(Self.count, seed: 1)
        let s = Self.spilled(v)
        #expect(s.count == v.count)
        #expect(s.values == v)
        // A stretch across the file's end and the chunk in memory.
        let from = 3 * FloatSpill.chunkValues - 10
        var part = [Float](repeating: 0, count: 100)
        part.withUnsafeMutableBufferPointer { s.read(from: from, count: 100, into: $0.baseAddress!) }
        #expect(part == Array(v[from ..< from + 100]))
        let reader = FloatSpill.Reader(s)
        #expect((0..<v.count).allSatisfy { reader.read() == v[$0] })
    }

    @Test func valuesGivenAtOnceStayInMemoryAndReadTheSame() {
        let v = Self.values(FloatSpill.chunkValues + 7, seed: 2)
        let s = FloatSpill(v)
        #expect(s.values == v)
        let reader = FloatSpill.Reader(s)
        #expect((0..<v.count).allSatisfy { reader.read() == v[$0] })
    }

    @Test func aModelOverSpilledColumnsGivesTheSameLoudnessBits() throws {
        // A chunk and a part of units (1 ms each at 48 kHz), so the columns spill: noise-like
        // energies, peaks the limiter works on. Kept short: the model is slow in debug builds.
        let n = FloatSpill.chunkValues + 4_000
        let energies = Self.values(n, seed: 3).map { $0 * 1e-3 }
        let peaks = Self.values(n + 3, seed: 4).map { 0.2 + 0.8 * $0 }
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1)
        for limit in [true, false] {
            let inMemory = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: 4800, sampleRate: 48_000, limit: limit, settings: settings)
            let spilled = LimitedLoudnessModel(energyColumn: Self.spilled(energies), peakColumn: Self.spilled(peaks), hop: 4800,
                                               sampleRate: 48_000, limit: limit, settings: settings)
            for g in [-6.0, 3.5] {
                let a = try #require(inMemory.loudness(gainDB: g)), b = try #require(spilled.loudness(gainDB: g))
                #expect(a.bitPattern == b.bitPattern, "limit \(limit), gain \(g): \(a) vs \(b)")
            }
            #expect(inMemory.gain(forTarget: -14, planGainDB: 0, maxCompensationDB: 6)
                    == spilled.gain(forTarget: -14, planGainDB: 0, maxCompensationDB: 6))
        }
    }
}
