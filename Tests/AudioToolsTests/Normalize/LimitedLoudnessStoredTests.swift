import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A model's columns kept as bytes (LimitedLoudnessModel+Stored) and read back: the same model,
/// bit for bit, for any limiter settings; anything else is refused rather than misread.
@Suite struct LimitedLoudnessStoredTests {
    @Test func theColumnsComeBackAsTheSameModel() throws {
        let x = NormTestSignals.music(sampleRate: 44_100, seconds: 3, channels: 2, seed: 21)
        let plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let m = try LimitedLoudnessModelTests.model(x, plan: plan, rate: 44_100)
        let bytes = try #require(m.storedColumns())
        #expect(bytes.count == LimitedLoudnessModel.storedHeaderBytes + 4 * (m.energyValues().count + m.peakValues().count))
        #expect(Array(bytes.prefix(4)) == Array("LLM1".utf8))
        for ceiling in [-1.0, -2.5] {
            var timing = plan.limiterTiming
            timing.ceilingDBTP = ceiling
            let back = try #require(LimitedLoudnessModel.fromStored(bytes, sampleRate: 44_100, settings: timing))
            let direct = try #require(m.withLimiter(timing))
            #expect(back.energyValues() == m.energyValues() && back.peakValues() == m.peakValues())
            #expect(back.hop == m.hop && back.threshold == direct.threshold && back.lookahead == direct.lookahead)
            for g in [0.0, 6.0, 9.5] {
                #expect(back.loudness(gainDB: g)?.bitPattern == direct.loudness(gainDB: g)?.bitPattern, "\(ceiling) dBTP, +\(g) dB")
            }
            #expect(back.gain(forTarget: -9, planGainDB: 8, maxCompensationDB: 6).bitPattern
                    == direct.gain(forTarget: -9, planGainDB: 8, maxCompensationDB: 6).bitPattern)
        }
    }

    @Test func onlyTheSourcesOwnAnalysisIsKept() throws {
        let x = NormTestSignals.music(sampleRate: 48_000, seconds: 1, channels: 1, seed: 22)
        let unlimited = try LimitedLoudnessModelTests.model(x, plan: NormalizePlan(gainDB: 0, limit: false), rate: 48_000)
        #expect(unlimited.storedColumns() == nil, "no peaks to replay a limiter with")
        let m = try LimitedLoudnessModelTests.model(x, plan: NormalizePlan(gainDB: 0, limit: true), rate: 48_000)
        let gained = LimitedLoudnessModel(energies: m.energyValues(), peaks: m.peakValues(), hop: m.hop, sampleRate: 48_000,
                                          limit: true, settings: .init(ceilingDBTP: -1), analysedGainDB: 3)
        #expect(gained.storedColumns() == nil, "made at a gain: not the source's")
    }

    @Test func otherBytesAreRefused() throws {
        let x = NormTestSignals.music(sampleRate: 48_000, seconds: 1, channels: 2, seed: 23)
        let m = try LimitedLoudnessModelTests.model(x, plan: NormalizePlan(gainDB: 0, limit: true), rate: 48_000)
        let bytes = try #require(m.storedColumns())
        let s = TruePeakLimiter.Settings(ceilingDBTP: -1)
        #expect(LimitedLoudnessModel.fromStored(bytes, sampleRate: 44_100, settings: s) == nil, "another rate")
        #expect(LimitedLoudnessModel.fromStored(Array(bytes.dropLast()), sampleRate: 48_000, settings: s) == nil, "cut short")
        #expect(LimitedLoudnessModel.fromStored(bytes + [0, 0, 0, 0], sampleRate: 48_000, settings: s) == nil, "too long")
        #expect(LimitedLoudnessModel.fromStored(Array("LLM2".utf8) + bytes.dropFirst(4), sampleRate: 48_000, settings: s) == nil, "another layout")
        #expect(LimitedLoudnessModel.fromStored([], sampleRate: 48_000, settings: s) == nil)
        var swapped = bytes  // more energies than peaks
        withUnsafeBytes(of: UInt64(m.peakValues().count + 1).littleEndian) { swapped.replaceSubrange(8..<16, with: $0) }
        #expect(LimitedLoudnessModel.fromStored(swapped, sampleRate: 48_000, settings: s) == nil)
    }
}

/// The analysis made beside a meter (lufs-measure --keep-analysis) takes the meter's sub-block
/// energies: they must be the analysis pass's own, bit for bit, or the kept analysis would give
/// lufs-normalize another gain than its own pass.
@Suite struct LimitedLoudnessBesideMeterTests {
    @Test(.enabled(if: VectorKernels.hasSSE2, "the meter's energies are taken only where it runs the SSE2 kernel (x86-64)"),
          arguments: [(1, 48_000), (2, 44_100), (3, 48_000), (6, 96_000)])
    func theMetersEnergiesAreTheAnalysisPasss(channels: Int, rate: Int) throws {
        var x = NormTestSignals.music(sampleRate: rate, seconds: 2.37, channels: channels, seed: UInt64(30 + channels))
        // Silence, then a quiet tail: the filters' state decays towards tiny values there.
        for c in 0..<channels { for i in (x[c].count / 3)..<(x[c].count / 2) { x[c][i] = 0 } }
        for c in 0..<channels { for i in (x[c].count * 3 / 4)..<x[c].count { x[c][i] *= 1e-6 } }
        let weights = (0..<channels).map { [1.0, 1.0, 1.0, 0.0, 1.41, 1.41][$0] }
        let own = LimitedLoudnessAnalyzer(sampleRate: rate, weights: weights, limit: true)
        let meter = LoudnessMeter(sampleRate: rate, weights: weights)
        let beside = try #require(LimitedLoudnessAnalyzer.beside(meter, limit: true))
        #expect(LimitedLoudnessAnalyzer.beside(meter, limit: true) == nil, "one analyzer per meter")
        var start = 0, k = 0
        let sizes = [4096, 777, 1, 10_000]
        while start < x[0].count {
            let n = min(sizes[k % sizes.count], x[0].count - start)
            let block = AudioBlock(channels: x.map { Array($0[start..<(start + n)]) }, frames: n)
            own.add(block)
            meter.add(block)
            beside.add(block)
            start += n
            k += 1
        }
        let settings = TruePeakLimiter.Settings(ceilingDBTP: -1)
        let a = own.finish(settings: settings), b = beside.finish(settings: settings)
        #expect(a.energyValues().map(\.bitPattern) == b.energyValues().map(\.bitPattern))
        #expect(a.peakValues() == b.peakValues())
        #expect(a.storedColumns() == b.storedColumns())
    }
}

/// Whole-array forms of the stored columns, for these tests.
extension LimitedLoudnessModel {
    func storedColumns() -> [UInt8]? {
        guard let count = storedByteCount else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { all in
            writeStored { piece, at in (all.baseAddress! + at).copyMemory(from: piece.baseAddress!, byteCount: piece.count) }
        }
        return bytes
    }

    static func fromStored(_ bytes: [UInt8], sampleRate: Int, settings: TruePeakLimiter.Settings) -> LimitedLoudnessModel? {
        bytes.withUnsafeBytes { all in
            fromStored(count: bytes.count, sampleRate: sampleRate, settings: settings) { buffer, n, at in
                buffer.copyMemory(from: all.baseAddress! + at, byteCount: n)
            }
        }
    }
}
