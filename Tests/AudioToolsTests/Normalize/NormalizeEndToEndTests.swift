import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Whole-pipeline checks on synthetic programme: loudness on target, true peak under the ceiling,
/// length kept. Loudness and true peak come from the test-only reference meters.
@Suite struct NormalizeEndToEndTests {
    struct Outcome {
        var output: [[Float]]
        var report: NormalizeReport
        var plan: NormalizeGainPlan
        var loudness: Double
        var truePeakDB: Double
        /// The output's true peak as the loudness meter (and so lufs-measure) reads it.
        var meterTruePeakDB: Double
    }

    func normalise(_ x: [[Float]], sampleRate: Int, target: Double, ceiling: Double = -1,
                   mode: PeakMode = .limit, ditherBits: Int? = nil,
                   fadeIn: Int = 0, fadeOut: Int = 0) throws -> Outcome {
        let measured = NormTestMeter.integratedLoudness(x, sampleRate: sampleRate)
        let tp = NormTestMeter.truePeakDB(x)
        let gain = try NormalizeGainPlan(measuredLUFS: measured, measuredTruePeakDBTP: tp, targetLUFS: target,
                                         ceilingDBTP: ceiling, mode: mode)
        let plan = NormalizePlan(gain, fadeInFrames: fadeIn, fadeOutFrames: fadeOut, ditherBitDepth: ditherBits)
        let source = MemoryAudioSource(sampleRate: sampleRate, channels: x)
        let sink = MemoryAudioSink(channelCount: x.count)
        var hookFrames = 0
        let report: NormalizeReport
        if gain.limiterNeeded {
            report = try NormalizePipeline.runCompensated(
                plan, targetLUFS: target, source: source, sink: sink,
                makeMeter: { NormTestMeter.probe(channelCount: x.count, sampleRate: sampleRate) },
                onOutputBlock: { hookFrames += $0.frames })
        } else {
            report = try NormalizePipeline.run(plan, source: source, sink: sink, onOutputBlock: { hookFrames += $0.frames })
        }
        #expect(hookFrames == x[0].count)
        #expect(report.framesRead == x[0].count && report.framesWritten == x[0].count)
        #expect(sink.channels.allSatisfy { $0.count == x[0].count })
        let loudness = NormTestMeter.integratedLoudness(sink.channels, sampleRate: sampleRate) ?? -.infinity
        return Outcome(output: sink.channels, report: report, plan: gain, loudness: loudness,
                       truePeakDB: NormTestMeter.truePeakDB(sink.channels),
                       meterTruePeakDB: NormTestMeter.meterTruePeakDB(sink.channels, sampleRate: sampleRate))
    }

    @Test func speechMono44k() throws {
        let x = [NormTestSignals.speech(sampleRate: 44_100, seconds: 4, seed: 1)]
        let o = try normalise(x, sampleRate: 44_100, target: -23)
        #expect(!o.plan.limiterNeeded)
        #expect(abs(o.loudness - -23) <= 0.1)
        #expect(o.truePeakDB <= -1 && o.meterTruePeakDB <= -1)
        #expect(o.report.passes == 1)
    }

    @Test func loudMusicStereo48kIsLimitedAndCompensated() throws {
        let x = NormTestSignals.music(sampleRate: 48_000, seconds: 3, channels: 2, seed: 2)
        let o = try normalise(x, sampleRate: 48_000, target: -14)
        #expect(o.plan.limiterNeeded)
        #expect(o.report.framesLimited > 0 && o.report.maxReductionDB > 1)
        #expect(abs(o.loudness - -14) <= 0.3)
        #expect(o.truePeakDB <= -1 && o.meterTruePeakDB <= -1)
        #expect(o.report.passes >= 2 && o.report.passes <= 3)
        #expect(o.report.compensationDB > 0)
        #expect(abs((o.report.measuredLUFS ?? 0) - o.loudness) < 1e-6)
    }

    @Test func nearSilentSourceTakesLargeGain() throws {
        let music = NormTestSignals.music(sampleRate: 48_000, seconds: 3, channels: 2, seed: 3)
        let l = NormTestMeter.integratedLoudness(music, sampleRate: 48_000)!
        let x = NormTestSignals.scaled(music, by: pow(10, (-60 - l) / 20))
        let o = try normalise(x, sampleRate: 48_000, target: -16)
        #expect(o.plan.gainDB > 40)
        #expect(abs(o.loudness - -16) <= (o.plan.limiterNeeded ? 0.3 : 0.1))
        #expect(o.truePeakDB <= -1 && o.meterTruePeakDB <= -1)
    }

    @Test func alreadyHotSquaredOff96k() throws {
        let sr = 96_000
        let wave = (0..<(2 * sr)).map { Float(tanh(6 * sin(2 * Double.pi * 220 * Double($0) / Double(sr))) / tanh(6)) }
        let x = [wave, wave.map { $0 * 0.9 }]
        let o = try normalise(x, sampleRate: sr, target: -14)
        #expect(o.plan.gainDB < -8)
        #expect(!o.plan.limiterNeeded)
        #expect(abs(o.loudness - -14) <= 0.1)
        #expect(o.truePeakDB <= -1 && o.meterTruePeakDB <= -1)
    }

    @Test func clippedSurround51() throws {
        let music = NormTestSignals.music(sampleRate: 48_000, seconds: 2, channels: 6, seed: 4)
        // Clipped hard and brought down: squared-off edges overshoot between samples.
        let x = music.map { $0.map { max(-1, min(1, $0 * 6)) } }
        #expect(NormTestMeter.truePeakDB(x) > 0)
        let o = try normalise(x, sampleRate: 48_000, target: -16)
        #expect(o.plan.gainDB < 0 && !o.plan.limiterNeeded)
        #expect(abs(o.loudness - -16) <= 0.1)
        #expect(o.truePeakDB <= -1 && o.meterTruePeakDB <= -1)
    }

    @Test func reduceModeLandsUnderTargetByTheShortfall() throws {
        let x = NormTestSignals.music(sampleRate: 44_100, seconds: 2, channels: 2, seed: 3)
        let o = try normalise(x, sampleRate: 44_100, target: -10, mode: .reduce)
        #expect(o.plan.shortfallLU > 0)
        #expect(o.report.framesLimited == 0)
        #expect(abs(o.loudness - (-10 - o.plan.shortfallLU)) <= 0.1)
        #expect(o.truePeakDB <= -1 + 1e-3 && o.meterTruePeakDB <= -1 + 1e-3)
    }

    @Test func ditheredSixteenBitWithFadesIsDeterministic() throws {
        let x = NormTestSignals.music(sampleRate: 44_100, seconds: 2, channels: 1, seed: 6)
        let a = try normalise(x, sampleRate: 44_100, target: -12, ditherBits: 16, fadeIn: 4410, fadeOut: 8820)
        let b = try normalise(x, sampleRate: 44_100, target: -12, ditherBits: 16, fadeIn: 4410, fadeOut: 8820)
        #expect(a.output == b.output)
        #expect(a.report.clampedSamples == 0)
        #expect(a.output[0].allSatisfy { $0 * 32768 == ($0 * 32768).rounded() })
        #expect(a.truePeakDB <= -1 && a.meterTruePeakDB <= -1)
        // Faded to silence, plus dither.
        #expect(abs(a.output[0][0]) <= 1.0 / 32768 && abs(a.output[0].last!) <= 1.0 / 32768)
    }
}
