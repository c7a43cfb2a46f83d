import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The gating over histories read back in order: the percentiles picked without sorting are the
/// ones sorting gives, the gated loudness and range the bits of the array forms they replaced, and
/// a meter whose histories went to their files measures what its blocks say.
@Suite struct FlatGatingTests {
    /// The loudness range as it was computed from an array: filtered, sorted, indexed.
    static func sortedRange(_ blocks: [Double]) -> Double? {
        let absolute = LoudnessMeter.energy(ofLUFS: LoudnessMeter.absoluteGateLUFS)
        var sum = ExactSum(), count = 0
        for z in blocks where z > absolute { sum.add(z); count += 1 }
        guard count > 0 else { return nil }
        let relative = sum.value / Double(count) * pow(10, LoudnessMeter.rangeRelativeGateLU / 10)
        let kept = blocks.filter { $0 > absolute && $0 > relative }.sorted()
        guard !kept.isEmpty else { return nil }
        func percentile(_ p: Double) -> Double {
            -0.691 + 10 * log10(kept[Int((Double(kept.count - 1) * p).rounded(.toNearestOrAwayFromZero))])
        }
        return percentile(0.95) - percentile(0.10)
    }

    static func blocks(_ n: Int, seed: UInt64) -> [Double] {
        var r = SplitMix64(seed: seed)
        // Loud and quiet stretches, a silence under the absolute gate, and runs of equal values.
        return (0..<n).map { i in
            if i % 1000 < 40 { return 1e-9 * r.uniform() }
            if i % 500 < 30 { return 2.5e-3 }
            return 1e-3 * (0.1 + r.uniform()) * (i % 7 < 3 ? 1 : 8)
        }
    }

    @Test func ranksAreTheSortedValues() {
        var r = SplitMix64(seed: 5)
        // Few values (sorted at once), many spread ones, many nearly equal (narrowed digit by
        // digit to the last bits), negatives and zeros of both signs.
        let sets: [[Double]] = [
            (0..<300).map { _ in r.gaussian() },
            (0..<20_000).map { _ in r.uniform() * 1e-2 },
            (0..<20_000).map { i in 1e-3 + Double(i % 3000) * 1e-19 },
            (0..<5000).map { i in i % 5 == 0 ? 0.0 : i % 5 == 1 ? -0.0 : i % 5 == 2 ? -r.uniform() : 1 + r.uniform() * 1e-15 },
            [Double](repeating: 0.125, count: 4000),
        ]
        for (k, set) in sets.enumerated() {
            let keep: (Double) -> Bool = { $0 < 0.9 || $0 >= 1 }
            let sorted = set.filter(keep).sorted()
            let ranks = Set([0, 1, sorted.count / 10, sorted.count / 2, sorted.count * 95 / 100, sorted.count - 2, sorted.count - 1])
            for rank in ranks.sorted() {
                let v = RankSelection.value(rank: rank, among: set, where: keep)
                #expect(v == sorted[rank], "set \(k), rank \(rank)")
            }
        }
        #expect(RankSelection.value(ofKey: RankSelection.key(-3.5)) == -3.5)
        #expect(RankSelection.key(-1) < RankSelection.key(-0.0) && RankSelection.key(-0.0) < RankSelection.key(0) && RankSelection.key(0) < RankSelection.key(1e-300))
    }

    @Test(arguments: [0, 25, 4000, 50_000])
    func rangeIsTheSortedOnesBits(n: Int) {
        let b = Self.blocks(n, seed: UInt64(n + 1))
        #expect(LoudnessMeter.loudnessRange(b)?.bitPattern == Self.sortedRange(b)?.bitPattern)
        // Read back from a spill: the same bits as the array.
        let s = ValueSpill<Double>(chunkValues: 333)
        for z in b { s.append(z) }
        #expect(LoudnessMeter.loudnessRange(s)?.bitPattern == Self.sortedRange(b)?.bitPattern)
        #expect(LoudnessMeter.gatedLoudness(s, relativeGateLU: -10)?.bitPattern
                == LoudnessMeter.gatedLoudness(b, relativeGateLU: -10)?.bitPattern)
    }

    @Test func aLongMetersHistoriesSpillAndMeasureTheSame() {
        // 8 kHz (a hop of 800 frames), a few hundred hops past a history's chunk: 14 minutes.
        let rate = 8000, hops = LoudnessMeter.historyChunk + 300
        var r = SplitMix64(seed: 9)
        let meter = LoudnessMeter(sampleRate: rate, weights: [1], measuresTruePeak: false)
        var level = 0.1
        for h in 0..<hops {
            if h % 50 == 0 { level = h % 1000 < 100 ? 1e-5 : 0.02 + 0.3 * r.uniform() }
            let samples = (0..<800).map { _ in Float(level * r.bipolar()) }
            meter.add(AudioBlock(channels: [samples], frames: 800))
        }
        let m = meter.finish()
        let b = meter.blocks
        #expect(b.momentary.count > LoudnessMeter.historyChunk && b.shortTerm.count > LoudnessMeter.historyChunk)
        #expect(m.integratedLUFS?.bitPattern == LoudnessMeter.gatedLoudness(b.momentary, relativeGateLU: -10)?.bitPattern)
        #expect(m.loudnessRangeLU?.bitPattern == Self.sortedRange(b.shortTerm)?.bitPattern)
        #expect(m.integratedLUFS != nil && m.loudnessRangeLU != nil)
    }

    @Test func goldenBitsOfTheArrayForms() {
        // Values the array forms gave before the histories could be read back from a file.
        var r = SplitMix64(seed: 13)
        let blocks: [Double] = (0..<5000).map { i in i % 997 < 60 ? 1e-9 * r.uniform() : 1e-3 * (0.2 + r.uniform()) * (i % 3 == 0 ? 1 : 2.5) }
        #expect(LoudnessMeter.loudnessRange(blocks)?.bitPattern == 4620085132185309672)
        #expect(LoudnessMeter.gatedLoudness(blocks, relativeGateLU: -10)?.bitPattern == 13852285534576919627)
    }
}
