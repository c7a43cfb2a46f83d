import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The limiter's loudness model gates its hop energies read back in order (no per-hop arrays): the
/// loudness bits it gave when it held them in arrays, and blocks made as the meter makes them.
@Suite struct LimitedLoudnessFlatTests {
    static func column(_ n: Int, seed: UInt64, _ f: (Double) -> Double) -> [Float] {
        var r = SplitMix64(seed: seed)
        return (0..<n).map { _ in Float(f(r.uniform())) }
    }

    @Test func theLoudnessBitsItGaveWithArrays() {
        // 1234 hops of 1 ms units at 48 kHz: noise-like energies that swell, peaks near the ceiling.
        let units = 123_400
        var k = 0
        let energies = Self.column(units, seed: 11) { u in k += 1; return u * 1e-3 * (1 + 0.8 * sin(Double(k) / 9000)) }
        let peaks = Self.column(units + 5, seed: 12) { 0.1 + 0.9 * $0 }
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1)
        let golden: [Bool: [UInt64]] = [true: [13856926044100925431, 13855776270289908394, 13855716407070026371],
                                        false: [13856926044100925430, 13855659406705727478, 13855061272380217334]]
        for limit in [true, false] {
            let m = LimitedLoudnessModel(energies: energies, peaks: peaks, hop: 4800, sampleRate: 48_000, limit: limit, settings: settings)
            #expect([-9.0, 0.0, 4.25].map { m.loudness(gainDB: $0)?.bitPattern } == golden[limit]!.map { $0 }, "limit \(limit)")
            #expect(m.gain(forTarget: -14, planGainDB: 0, maxCompensationDB: 6).bitPattern == 4618441417868443648)
        }
    }

    @Test func gatingBlocksAreTheMetersOnes() {
        var r = SplitMix64(seed: 21)
        let hops = (0..<1000).map { _ in r.uniform() * 1e-2 }
        let spill = ValueSpill<Double>(chunkValues: 64)
        for e in hops { spill.append(e) }
        // As the arrays made them: from the fourth hop, the four last added afresh, oldest first.
        var expected: [Double] = []
        for h in 3..<hops.count {
            var s = 0.0
            for k in (h - 3)...h { s += hops[k] }
            expected.append(s / Double(4 * 4800))
        }
        let blocks = LimitedLoudnessModel.GatingBlocks(hopEnergies: spill, hop: 4800)
        #expect(Array(blocks).map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(Array(blocks).map(\.bitPattern) == expected.map(\.bitPattern))
        let three = ValueSpill<Double>(chunkValues: 64)
        for e in hops.prefix(3) { three.append(e) }
        #expect(Array(LimitedLoudnessModel.GatingBlocks(hopEnergies: three, hop: 4800)).isEmpty)
    }

    @Test func aLongUnlimitedModelGatesWhatItsHopsSay() throws {
        // More hops than a history keeps in memory (100 units a hop), unlimited: each hop's
        // energy is its units' sum times the gain squared, gated as the meter gates.
        let hop = 4800, perHop = LimitedLoudnessModel.unitsPerHop
        let hops = LoudnessMeter.historyChunk + 500
        var k = 0
        let energies = Self.column(hops * perHop, seed: 31) { u in k += 1; return u * (k / perHop % 40 < 3 ? 1e-12 : 1e-3) }
        let m = LimitedLoudnessModel(energies: energies, peaks: [], hop: hop, sampleRate: 48_000, limit: false,
                                     settings: TruePeakLimiter.Settings(ceilingDBTP: -1))
        let a = pow(10, 2.5 / 20)
        var hopEnergies: [Double] = []
        for h in 0..<hops {
            var s = 0.0
            for u in 0..<perHop { s += Double(energies[h * perHop + u]) }
            hopEnergies.append(s * a * a)
        }
        var blocks: [Double] = []
        for h in 3..<hops {
            var s = 0.0
            for j in (h - 3)...h { s += hopEnergies[j] }
            blocks.append(s / Double(4 * hop))
        }
        let expected = try #require(LoudnessMeter.gatedLoudness(blocks, relativeGateLU: LoudnessMeter.integratedRelativeGateLU))
        #expect(m.loudness(gainDB: 2.5)?.bitPattern == expected.bitPattern)
    }
}
