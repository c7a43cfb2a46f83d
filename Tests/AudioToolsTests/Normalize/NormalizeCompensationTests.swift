import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The gain search of the compensated path, on made-up loudness curves (numbers in, numbers out),
/// and the written-as-it-runs pass against the measure-then-write one on real samples.
@Suite struct NormalizeCompensationTests {
    /// A limiter that takes `loss(gain)` LU at each gain: loudness = source + gain − loss.
    func search(plan gain: Double = 10, target: Double = -10, source: Double = -20, maxPasses: Int = 4,
                loss: (Double) -> Double) -> (CompensationSearch, [Double]) {
        var s = CompensationSearch(plan: NormalizePlan(gainDB: gain), targetLUFS: target, maxPasses: maxPasses)
        var gains: [Double] = []
        while s.mayMeasure {
            gains.append(s.current.gainDB)
            if s.record(source + s.current.gainDB - loss(s.current.gainDB)) { break }
        }
        return (s, gains)
    }

    @Test func onTargetAtOnceEndsAfterOnePass() {
        let (s, gains) = search { _ in 0.03 }
        #expect(gains == [10] && s.passes == 1 && s.current.gainDB == 10)
        #expect(abs(s.measured! - -10.03) < 1e-12 && abs(s.lastShortfallLU! - 0.03) < 1e-12)
    }

    @Test func aConstantLossIsMadeUpInOneStep() {
        // Fades take the same 0.5 LU at any gain: one step of 0.5 dB lands exactly.
        let (s, gains) = search { _ in 0.5 }
        #expect(gains.count == 2 && abs(gains[1] - 10.5) < 1e-12)
        #expect(s.passes == 2 && abs(s.lastShortfallLU!) < 1e-12)
    }

    @Test func aGrowingLossIsFollowedByTheSecant() {
        // Loss rising 0.5 LU per dB above 8 dB of gain: loudness rises at slope 0.5, so after the
        // first step (slope 1) the secant measures 0.5 and lands on the third pass.
        let (s, gains) = search { g in 0.5 * (g - 8) }
        #expect(gains.count == 3)
        #expect(abs(gains[1] - 11) < 1e-12)          // 10 + shortfall 1
        #expect(abs(gains[2] - 12) < 1e-9)           // secant: 11 + 0.5 / 0.5
        #expect(abs(s.lastShortfallLU!) < 1e-9 && s.passes == 3)
    }

    @Test func compensationIsCappedAndPassesAreBounded() {
        // A loss that eats all the gain: the search stops at the cap or after maxPasses − 1 passes.
        let (s, gains) = search(maxPasses: 4) { g in 0.95 * (g - 9) }
        #expect(gains.count == 3 && s.passes == 3 && !s.mayMeasure)
        #expect(s.current.gainDB <= 10 + 6 + 1e-12)
        let (capped, _) = search(maxPasses: 10) { g in 0.95 * (g - 9) }
        #expect(abs(capped.current.gainDB - 16) < 1e-12)
    }

    @Test func silenceEndsTheSearch() {
        var s = CompensationSearch(plan: NormalizePlan(gainDB: 3), targetLUFS: -16, maxPasses: 4)
        #expect(s.record(nil) && s.passes == 1 && s.measured == nil && s.current.gainDB == 3)
    }

    @Test func writingAsItRunsIsTriedOnlyWhenAPassIsLikelyToLand() {
        var s = CompensationSearch(plan: NormalizePlan(gainDB: 10), targetLUFS: -10, maxPasses: 4)
        #expect(s.worthWriting)                      // the first pass
        _ = s.record(-10.3)                          // a 0.3 LU step at 1 LU/dB: likely to miss
        #expect(!s.worthWriting)
        _ = s.record(-10.2)                          // a secant step of 0.2 LU: likely to land
        #expect(s.worthWriting)
        var t = CompensationSearch(plan: NormalizePlan(gainDB: 10), targetLUFS: -10, maxPasses: 4)
        _ = t.record(-10.08)
        #expect(t.worthWriting)
        // Deep limiting ahead: the first pass measures only.
        var deep = CompensationSearch(plan: NormalizePlan(gainDB: 10), targetLUFS: -10, maxPasses: 4, firstPassMayLand: false)
        #expect(!deep.worthWriting)
        _ = deep.record(-10.09)
        #expect(deep.worthWriting)
    }

    /// The written-as-it-runs runCompensated against the measure-then-write one: the same
    /// samples, the same gain, in fewer passes when the first pass lands.
    func compare(_ x: [[Float]], target: Double, ditherBits: Int?, fadeIn: Int = 0) throws -> (old: NormalizeReport, new: NormalizeReport, attempts: Int) {
        let rate = 48_000
        let measured = NormTestMeter.integratedLoudness(x, sampleRate: rate)
        let gain = try NormalizeGainPlan(measuredLUFS: measured, measuredTruePeakDBTP: NormTestMeter.truePeakDB(x),
                                         targetLUFS: target, ceilingDBTP: -1, mode: .limit)
        let plan = NormalizePlan(gain, fadeInFrames: fadeIn, ditherBitDepth: ditherBits)
        let weights = [Double](repeating: 1, count: x.count)
        func probe() -> NormalizePipeline.LoudnessProbe {
            let m = LoudnessMeter(sampleRate: rate, weights: weights, measuresTruePeak: false)
            return .init(add: { m.add($0) }, integrated: { m.finish().integratedLUFS })
        }
        let oldSink = MemoryAudioSink(channelCount: x.count)
        let old = try NormalizePipeline.runCompensated(plan, targetLUFS: target, source: MemoryAudioSource(sampleRate: rate, channels: x),
                                                       sink: oldSink, makeMeter: probe, maxPasses: 4, meterWrittenPass: false)
        var sinks: [MemoryAudioSink] = []
        let result = try NormalizePipeline.runCompensated(
            plan, targetLUFS: target, source: MemoryAudioSource(sampleRate: rate, channels: x),
            makeOutput: {
                let sink = MemoryAudioSink(channelCount: x.count)
                sinks.append(sink)
                let m = LoudnessMeter(sampleRate: rate, weights: weights)
                return .init(sink: sink, onOutputBlock: { m.add($0) }, integrated: { m.finish().integratedLUFS })
            }, makeMeter: probe, maxPasses: 4, decodeAhead: true)
        #expect(result.output.sink === sinks.last)
        #expect(sinks.last!.channels == oldSink.channels, "the same samples written")
        #expect(result.report.gainDB == old.gainDB && result.report.compensationDB == old.compensationDB)
        #expect(result.report.framesLimited == old.framesLimited && result.report.framesWritten == old.framesWritten)
        #expect(result.report.measuredLUFS == old.measuredLUFS)
        return (old, result.report, sinks.count)
    }

    @Test func aPassThatLandsIsTheWrittenOne() throws {
        // Lightly limited: the first pass lands, so it is written and kept (one pass, not two).
        let x = NormTestSignals.music(sampleRate: 48_000, seconds: 3, channels: 2, seed: 2)
        let l = NormTestMeter.integratedLoudness(x, sampleRate: 48_000)!
        let tp = NormTestMeter.truePeakDB(x)
        // A target 0.1 dB past the one that puts the true peak on the ceiling's limiter threshold.
        let target = l + (-1.15 - tp) + 0.1
        for bits in [nil, 16] as [Int?] {
            let r = try compare(x, target: target, ditherBits: bits)
            #expect(r.new.framesLimited > 0)
            #expect(r.old.passes == 2 && r.new.passes == 1 && r.attempts == 1, "\(r.old.passes) \(r.new.passes) \(r.attempts) \(r.new.framesLimited)")
        }
    }

    @Test func aPassThatMissesIsAbandonedAndTheSearchGoesOn() throws {
        // Hot: the first pass misses, and the search then takes the old path's gains.
        let x = NormTestSignals.music(sampleRate: 48_000, seconds: 3, channels: 2, seed: 2)
        for bits in [nil, 16] as [Int?] {
            let r = try compare(x, target: -8, ditherBits: bits, fadeIn: 4800)
            #expect(r.new.passes <= r.old.passes && r.attempts >= 2)
            #expect(r.new.compensationDB > 0)
        }
    }
}
