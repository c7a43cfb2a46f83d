import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The one-pass prediction of what the limiter does to the loudness, against analytic values and
/// against the limiter itself.
@Suite struct LimitedLoudnessModelTests {
    static let rate = 48_000

    static func sine(_ frequency: Double, amplitude: Double, seconds: Double, rate: Int = rate) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
    }

    static func model(_ x: [[Float]], plan: NormalizePlan, blockFrames: Int = 4096, rate: Int = rate) throws -> LimitedLoudnessModel {
        var p = plan
        p.blockFrames = blockFrames
        return try NormalizePipeline.analyse(p, source: MemoryAudioSource(sampleRate: rate, channels: x),
                                             weights: [Double](repeating: 1, count: x.count))
    }

    /// The limiter and meter as the written pass runs them: the integrated loudness written at `gainDB`.
    static func limitedLoudness(_ x: [[Float]], plan: NormalizePlan, gainDB: Double, rate: Int = rate) throws -> Double? {
        var p = plan
        p.gainDB = gainDB
        let meter = LoudnessMeter(sampleRate: rate, weights: [Double](repeating: 1, count: x.count), measuresTruePeak: false)
        _ = try NormalizePipeline.run(p, source: MemoryAudioSource(sampleRate: rate, channels: x), sink: nil,
                                      onOutputBlock: { meter.add($0) })
        return meter.finish().integratedLUFS
    }

    @Test func aSteadySineUnderTheThresholdIsItsAnalyticLoudnessPlusTheGain() throws {
        // 997 Hz at amplitude A in both channels: Σ G·mean(y²) = 2 · A²/2 · |K(997)|².
        let a = 0.1
        let s = Self.sine(997, amplitude: a, seconds: 5)
        let m = try Self.model([s, s], plan: NormalizePlan(gainDB: 0, limit: true))
        let k = KWeighting(sampleRate: Self.rate).magnitude(at: 997)
        let analytic = -0.691 + 10 * log10(a * a * k * k)
        for g in [0.0, 3.0, 9.0] {  // the peak stays under the −1.15 dBFS threshold up to +18.8 dB
            let l = try #require(m.loudness(gainDB: g))
            #expect(abs(l - (analytic + g)) < 0.01, "\(g) dB: \(l) against \(analytic + g)")
        }
    }

    @Test func aSteadySineOverTheThresholdIsHeldAtTheThreshold() throws {
        // Every peak is the same, so the limiter holds the sine's amplitude at its threshold
        // (ceiling −1 less the 0.15 dB margin) whatever the gain: the loudness stops rising.
        let a = 0.5
        let s = Self.sine(997, amplitude: a, seconds: 5)
        let plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let m = try Self.model([s, s], plan: plan)
        let k = KWeighting(sampleRate: Self.rate).magnitude(at: 997)
        let t = pow(10, -1.15 / 20)
        let held = -0.691 + 10 * log10(t * t * k * k)
        for g in [6.0, 8.0, 10.0] {  // the peak (−6.02 dBFS) reaches the threshold at +4.87 dB
            let l = try #require(m.loudness(gainDB: g))
            #expect(abs(l - held) < 0.02, "\(g) dB: \(l) against \(held)")
            let real = try #require(try Self.limitedLoudness([s, s], plan: plan, gainDB: g))
            #expect(abs(l - real) < 0.02, "\(g) dB: model \(l), limiter \(real)")
        }
        // A target above the held loudness is out of reach: the most compensation allowed.
        #expect(m.gain(forTarget: held + 1, planGainDB: 3, maxCompensationDB: 6) == 9)
        // One under it is reached by a gain that puts the peak under the threshold.
        let g = m.gain(forTarget: held - 1, planGainDB: 3, maxCompensationDB: 6)
        #expect(abs(g - (20 * log10(t / a) - 1)) < 0.01, "\(g)")
    }

    @Test func fadesAreModelledExactlyWithoutALimiter() throws {
        // A fade-in over half the programme, no limiter: the model is the meter of the faded signal.
        let x = NormTestSignals.music(sampleRate: Self.rate, seconds: 8, channels: 2, seed: 5)
        let plan = NormalizePlan(gainDB: 4, fadeInFrames: 4 * Self.rate, limit: false)
        let m = try Self.model(x, plan: plan)
        for g in [0.0, 4.0, -3.0] {
            let l = try #require(m.loudness(gainDB: g))
            let real = try #require(try Self.limitedLoudness(x, plan: plan, gainDB: g))
            #expect(abs(l - real) < 0.005, "\(g) dB: model \(l), written \(real)")
        }
    }

    @Test func theModelFollowsTheLimiterOnNoiseLikeMusicAtEveryDepth() throws {
        // Noise-like music loses loudness to the limiter fastest: from light to 8 dB of reduction.
        let x = NormTestSignals.music(sampleRate: Self.rate, seconds: 12, channels: 2, seed: 7)
        let tp = NormTestMeter.truePeakDB(x)
        let plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let m = try Self.model(x, plan: plan)
        for over in [0.5, 2.0, 4.0, 8.0] {
            let g = -1.15 - tp + over
            let l = try #require(m.loudness(gainDB: g))
            let real = try #require(try Self.limitedLoudness(x, plan: plan, gainDB: g))
            #expect(abs(l - real) < 0.04, "\(over) dB over: model \(l), limiter \(real)")
        }
    }

    @Test func aProgrammeEndingInsideAHopIsModelledToo() throws {
        // 7.2537 s at 44.1 kHz: the last hop is partial, and the meter leaves it out.
        let x = NormTestSignals.music(sampleRate: 44_100, seconds: 7.2537, channels: 2, seed: 11)
        let plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let m = try Self.model(x, plan: plan, rate: 44_100)
        #expect(m.energyValues().count % 100 != 0)
        let g = -1.15 - NormTestMeter.truePeakDB(x) + 4
        let l = try #require(m.loudness(gainDB: g))
        let real = try #require(try Self.limitedLoudness(x, plan: plan, gainDB: g, rate: 44_100))
        #expect(abs(l - real) < 0.04, "model \(l), limiter \(real)")
    }

    @Test func theAnalysisIsTheSameWhateverTheBlocks() throws {
        let x = NormTestSignals.music(sampleRate: 44_100, seconds: 3, channels: 3, seed: 9)
        let plan = NormalizePlan(gainDB: 0, fadeOutFrames: 20_000, limit: true, totalFrames: x[0].count)
        let a = try Self.model(x, plan: plan, blockFrames: 4096, rate: 44_100)
        let b = try Self.model(x, plan: plan, blockFrames: 777, rate: 44_100)
        #expect(a.energyValues() == b.energyValues() && a.peakValues() == b.peakValues())
        #expect(a.peakValues().count >= a.energyValues().count && a.energyValues().count == x[0].count * 100 / 4410)
    }

    /// runPredicted into memory: what it wrote, its report, and how many outputs it made.
    static func runPredicted(_ x: [[Float]], target: Double, ditherBits: Int? = nil, firstPassMayLand: Bool = false,
                             decodeAhead: Bool = false) throws -> (written: [[Float]], report: NormalizeReport, outputs: Int) {
        let measured = NormTestMeter.integratedLoudness(x, sampleRate: rate)
        let gain = try NormalizeGainPlan(measuredLUFS: measured, measuredTruePeakDBTP: NormTestMeter.truePeakDB(x),
                                         targetLUFS: target, ceilingDBTP: -1, mode: .limit)
        let plan = NormalizePlan(gain, ditherBitDepth: ditherBits)
        var sinks: [MemoryAudioSink] = []
        let weights = [Double](repeating: 1, count: x.count)
        let r = try NormalizePipeline.runPredicted(
            plan, targetLUFS: target, source: MemoryAudioSource(sampleRate: rate, channels: x), weights: weights,
            makeOutput: {
                let sink = MemoryAudioSink(channelCount: x.count)
                sinks.append(sink)
                let m = LoudnessMeter(sampleRate: rate, weights: weights)
                return .init(sink: sink, onOutputBlock: { m.add($0) }, integrated: { m.finish().integratedLUFS })
            }, firstPassMayLand: firstPassMayLand, decodeAhead: decodeAhead)
        #expect(r.output.sink === sinks.last)
        return (sinks.last!.channels, r.report, sinks.count)
    }

    @Test func aDeeplyLimitedFileLandsOnTargetInOneWrite() throws {
        let x = NormTestSignals.music(sampleRate: Self.rate, seconds: 10, channels: 2, seed: 3)
        let l = NormTestMeter.integratedLoudness(x, sampleRate: Self.rate)!
        let tp = NormTestMeter.truePeakDB(x)
        for over in [3.5, 5.0] {
            let target = l + (-1.15 - tp) + over
            for bits in [nil, 16] as [Int?] {
                let r = try Self.runPredicted(x, target: target, ditherBits: bits)
                #expect(r.outputs == 1 && r.report.passes == 2, "analysis + one write: \(r.report.passes)")
                #expect(r.report.compensationDB > 0.2 && r.report.compensationDB < 6 && r.report.framesLimited > 0, "\(over): \(r.report)")
                let written = try #require(NormTestMeter.integratedLoudness(r.written, sampleRate: Self.rate))
                #expect(abs(written - target) <= 0.05, "\(over) dB over: \(written) against \(target)")
                #expect(abs((r.report.measuredLUFS ?? 0) - written) < 0.02)
                #expect(NormTestMeter.meterTruePeakDB(r.written, sampleRate: Self.rate) <= -1)
                #expect(r.report.predictionMissLU == nil)
                // A core decoding ahead changes no sample.
                let ahead = try Self.runPredicted(x, target: target, ditherBits: bits, decodeAhead: true)
                #expect(ahead.written == r.written && ahead.report == r.report)
            }
        }
    }

    /// Decoding ahead, the analysis finds the peaks on the decoding thread and K-weights on the
    /// caller's: the same energies and peaks, bit for bit, as on one thread.
    @Test func theAnalysisOnTwoThreadsIsTheSameBits() throws {
        let x = NormTestSignals.music(sampleRate: Self.rate, seconds: 7, channels: 2, seed: 4)
        let plan = NormalizePlan(gainDB: 0, limit: true, totalFrames: x[0].count)
        func model(_ ahead: Bool) throws -> LimitedLoudnessModel {
            try NormalizePipeline.analyse(plan, source: MemoryAudioSource(sampleRate: Self.rate, channels: x), weights: [1, 1],
                                          decodeAhead: ahead)
        }
        let one = try model(false), two = try model(true)
        #expect(one.energyValues().count > 6_000 && one.peakValues().count == one.energyValues().count)
        #expect(two.energyValues().map(\.bitPattern) == one.energyValues().map(\.bitPattern))
        #expect(two.peakValues().map(\.bitPattern) == one.peakValues().map(\.bitPattern))
    }

    @Test func aLightlyLimitedFileIsWrittenFirstAndKeptWhenItLands() throws {
        let x = NormTestSignals.music(sampleRate: Self.rate, seconds: 6, channels: 2, seed: 2)
        let l = NormTestMeter.integratedLoudness(x, sampleRate: Self.rate)!
        let tp = NormTestMeter.truePeakDB(x)
        let target = l + (-1.15 - tp) + 0.1
        let r = try Self.runPredicted(x, target: target, firstPassMayLand: true)
        #expect(r.outputs == 1 && r.report.passes == 1 && r.report.framesLimited > 0)
        #expect(r.report.compensationDB == 0)
        // Too deep for the first pass to land: it was analysed as it ran, so it is abandoned and
        // written once more at the predicted gain; two passes in all.
        let deep = l + (-1.15 - tp) + 5
        let d = try Self.runPredicted(x, target: deep, firstPassMayLand: true)
        #expect(d.outputs == 2 && d.report.passes == 2, "\(d.report.passes)")
        #expect(d.report.compensationDB > 1 && d.report.predictionMissLU == nil)
        #expect(abs(NormTestMeter.integratedLoudness(d.written, sampleRate: Self.rate)! - deep) <= 0.05)
    }
}
