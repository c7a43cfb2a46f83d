import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The landing of a lossy file (CodecLanding.plan), the check after its codec and the outcome the
/// record gives: analytic values on a limiter whose loudness is a straight line of its depth.
@Suite struct CodecLandingTests {
    typealias L = CodecLanding.Levels
    static func amp(_ db: Double) -> Double { pow(10, db / 20) }

    /// An analytic limiter: the source peaks at 0 dBTP and measures −12 LUFS at 0 dB of gain, and
    /// each dB the limiter reduces takes 0.5 LU away (no margin under its ceiling).
    static let limiter = CodecLanding.Limiter(
        peakDBTP: 0, marginDB: 0,
        loudness: { g, c in -12 + g - 0.5 * max(0, g - c) },
        gain: { t, c in
            let plain = t + 12
            return plain <= c ? plain : (t + 12 - 0.5 * c) / 0.5
        })
    /// The PCM output of a job to −9 LUFS under −1 dBTP: 7 dB of gain, 8 dB of limiting.
    static let pcm = (gainDB: 7.0, limiterCeilingDBTP: -1.0)
    static func aim(_ overshoot: Double, _ rule: CodecPeakRule = .hold, change: Double = 0) -> CodecLanding.Aim {
        CodecLanding.Aim(targetLUFS: -9, ceilingDBTP: -1, rule: rule, loudnessChangeLU: change, overshootDB: overshoot)
    }
    static func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    @Test func theAnalyticLimiterLandsThePCMOutput() {
        #expect(Self.close(Self.limiter.loudness(7, -1), -9))
        #expect(Self.close(Self.limiter.gain(-9, -1), 7))
        #expect(Self.close(Self.limiter.depth(gainDB: 7, limiterCeilingDBTP: -1), 8))
    }

    @Test func aSmallOvershootComesOffTheCeilingOnceWithinTheBound() {
        // 0.6 dB of overshoot: the ceiling drops 0.6 dB and the gain rises 0.6 dB (1.2 dB more
        // limiting, within the 1.5 dB bound); the decoded peak lands on the ceiling, the loudness on target.
        let p = CodecLanding.plan(Self.aim(0.6), limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(p.limiterCeilingDBTP, -1.6))
        #expect(Self.close(p.gainDB, 7.6))
        #expect(Self.close(p.depthDB, 9.2) && Self.close(p.pcmDepthDB, 8))
        #expect(Self.close(p.extraLimitingDB, 1.2))
        #expect(Self.close(p.predictedLUFS, -9) && Self.close(p.predictedTruePeakDBTP, -1))
        #expect(p.gaveWay == nil)
        // The codec's loudness change is handed over: 0.1 LU taken, 0.1 LU more handed (7.8 dB of gain).
        let q = CodecLanding.plan(Self.aim(0.6, change: -0.1), limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(q.gainDB, 7.8) && Self.close(q.predictedLUFS, -9) && q.gaveWay == nil)
    }

    @Test func aLargeOvershootUnderHoldGivesUpLoudness() {
        // 3 dB of overshoot: on target it would limit 14 dB (6 beyond the PCM output's 8). Hold
        // stops at 9.5 dB: the gain comes down to 5.5 dB, the file lands 2.25 LU short, its
        // decoded peak on the ceiling.
        let p = CodecLanding.plan(Self.aim(3), limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(p.limiterCeilingDBTP, -4) && Self.close(p.gainDB, 5.5))
        #expect(Self.close(p.depthDB, 9.5) && Self.close(p.extraLimitingDB, CodecLanding.extraLimitingBudgetDB))
        #expect(Self.close(p.predictedLUFS, -11.25) && Self.close(p.predictedTruePeakDBTP, -1))
        #expect(p.gaveWay == .loudness)
    }

    @Test func aLargeOvershootUnderAllowGivesUpTheCeiling() {
        // Allow keeps the 9.5 dB bound and the target: gain and ceiling rise 2.25 dB together
        // (to 7.75 dB and −1.75 dBTP, handed under the ceiling); decoded, 3 dB over that: +1.25 dBTP.
        let p = CodecLanding.plan(Self.aim(3, .allow), limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(p.limiterCeilingDBTP, -1.75) && Self.close(p.gainDB, 7.75))
        #expect(Self.close(p.depthDB, 9.5) && Self.close(p.predictedLUFS, -9))
        #expect(Self.close(p.predictedTruePeakDBTP, 1.25))
        #expect(p.gaveWay == .ceiling)
        // The ceiling never rises over the PCM output's: a target out of the PCM output's own reach falls short.
        let far = CodecLanding.Aim(targetLUFS: -3, ceilingDBTP: -1, rule: .allow, overshootDB: 3)
        let f = CodecLanding.plan(far, limiter: Self.limiter, pcm: (gainDB: 19, limiterCeilingDBTP: -1))
        #expect(f.limiterCeilingDBTP <= -1 + 1e-9 && f.depthDB <= f.pcmDepthDB + CodecLanding.extraLimitingBudgetDB + 1e-9)
    }

    @Test func theSecondEncodeIsPlannedFromWhatTheFirstMeasuredWithinTheSameBound() {
        let first = CodecLanding.plan(Self.aim(0.6), limiter: Self.limiter, pcm: Self.pcm)
        // On target and at most 0.1 dB over the ceiling: the first encode stands.
        #expect(!CodecLanding.missed(first, decoded: L(integratedLUFS: -9.15, truePeakDBTP: -0.92), aim: Self.aim(0.6)))
        // 0.3 dB over: planned again with the overshoot measured (0.9 dB) and 0.1 dB more for
        // the last encode, and the bound holds.
        let decoded = L(integratedLUFS: -9.05, truePeakDBTP: -0.7)
        #expect(CodecLanding.missed(first, decoded: decoded, aim: Self.aim(0.6)))
        let again = CodecLanding.reaimed(Self.aim(0.6), handed: L(integratedLUFS: -9, truePeakDBTP: -1.6), decoded: decoded)
        #expect(Self.close(again.overshootDB, 1.0) && Self.close(again.loudnessChangeLU, -0.05))
        let second = CodecLanding.plan(again, limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(second.limiterCeilingDBTP, -2))
        #expect(second.depthDB <= second.pcmDepthDB + CodecLanding.extraLimitingBudgetDB + 1e-9)
        // Under allow the peak is not a reason to encode again; a loudness off the target is.
        #expect(!CodecLanding.missed(first, decoded: decoded, aim: Self.aim(0.6, .allow)))
        #expect(CodecLanding.missed(first, decoded: L(integratedLUFS: -9.3, truePeakDBTP: -1), aim: Self.aim(0.6, .allow)))
        // A plan that gave up loudness is judged on the loudness it predicted.
        let held = CodecLanding.plan(Self.aim(3), limiter: Self.limiter, pcm: Self.pcm)
        #expect(!CodecLanding.missed(held, decoded: L(integratedLUFS: -11.3, truePeakDBTP: -1.05), aim: Self.aim(3)))
    }

    @Test func thePCMDepthMovesWithTheWrittenLimitersReading() {
        // Planned at 9.2 dB against the PCM output's 8; the limiter read 9.8 as written: the same
        // peak read 0.6 dB deeper, so the PCM output's is 8.6 and the extra limiting still 1.2.
        let p = CodecLanding.plan(Self.aim(0.6), limiter: Self.limiter, pcm: Self.pcm)
        #expect(Self.close(CodecLanding.pcmDepth(p, writtenDepthDB: 9.8), 8.6))
        // A PCM output that doesn't limit stays at 0.
        let quiet = CodecLanding.plan(Self.aim(0.6), limiter: Self.limiter, pcm: (gainDB: -2, limiterCeilingDBTP: -1))
        #expect(CodecLanding.pcmDepth(quiet, writtenDepthDB: 3) == 0)
    }

    @Test func theOutcomeSaysWhichLimitGaveWayWithItsFigure() {
        let short = CodecLanding.outcome(rule: .hold, decoded: L(integratedLUFS: -11.25, truePeakDBTP: -1.04), targetLUFS: -9,
                                         ceilingDBTP: -1, steersLoudness: true, depthDB: 9.5, pcmDepthDB: 8)
        #expect(short == CodecLanding.Outcome(rule: .hold, gaveWay: .loudness, extraLimitingDB: 1.5, overCeilingDB: 0))
        let over = CodecLanding.outcome(rule: .allow, decoded: L(integratedLUFS: -9.02, truePeakDBTP: 1.25), targetLUFS: -9,
                                        ceilingDBTP: -1, steersLoudness: true, depthDB: 9.5, pcmDepthDB: nil)
        #expect(over == CodecLanding.Outcome(rule: .allow, gaveWay: .ceiling, extraLimitingDB: nil, overCeilingDB: 2.25))
        // 0.08 dB over is within the margin: nothing gave way, the figure is still reported.
        let met = CodecLanding.outcome(rule: .hold, decoded: L(integratedLUFS: -9.1, truePeakDBTP: -0.92), targetLUFS: -9,
                                       ceilingDBTP: -1, steersLoudness: true, depthDB: 9.2, pcmDepthDB: 8)
        #expect(met.gaveWay == nil && Self.close(met.overCeilingDB, 0.08))
    }

    @Test func theChangeAndOvershootAreDecodedLessHanded() {
        let h = L(integratedLUFS: -14, truePeakDBTP: -2), d = L(integratedLUFS: -14.3, truePeakDBTP: -2.5)
        #expect(abs(CodecLanding.loudnessChange(handed: h, decoded: d)! - (-0.3)) < 1e-9)
        #expect(CodecLanding.peakOvershoot(handed: h, decoded: d) == 0)
        #expect(CodecLanding.loudnessChange(handed: L(integratedLUFS: nil, truePeakDBTP: nil), decoded: d) == nil)
    }

    @Test func aModelTakesAnotherLimiterCeilingWithoutAnotherAnalysis() throws {
        let x = (0..<(48_000 * 3)).map { Float(0.5 * sin(2 * Double.pi * 997 * Double($0) / 48_000)) }
        var plan = NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: true)
        let model = try NormalizePipeline.analyse(plan, source: MemoryAudioSource(sampleRate: 48_000, channels: [x, x]), weights: [1, 1])
        plan.limiterTiming.ceilingDBTP = -4
        let lower = try #require(model.withLimiter(plan.limiterTiming))
        // At +6 dB the tone's peak (about 0 dBTP) is limited to the ceiling less the margin.
        let a = try #require(model.loudness(gainDB: 6)), b = try #require(lower.loudness(gainDB: 6))
        #expect(abs((a - b) - 3) < 0.1, "\(a) \(b)")
        // A model made without the limiter kept no peaks: it can't turn the limiter on.
        let plain = try NormalizePipeline.analyse(NormalizePlan(gainDB: 0, ceilingDBTP: -1, limit: false),
                                                  source: MemoryAudioSource(sampleRate: 48_000, channels: [x, x]), weights: [1, 1])
        #expect(plain.withLimiter(plan.limiterTiming) == nil)
    }

    @Test func aSinksFileDecodesBeforeItIsCommitted() throws {
        let dir = NSTemporaryDirectory() + "codec-landing-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.ogg"
        let code = try #require(SndfileSink.formatCode(container: "ogg", codec: "vorbis"))
        let sink = try SndfileSink(path: path, formatCode: code, sampleRate: 48_000, channelCount: 1, overwrite: false)
        var block = AudioBlock(channelCount: 1, capacity: 48_000)
        block.channels[0] = (0..<48_000).map { Float(0.25 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        block.frames = 48_000
        try sink.write(block)
        try sink.finishEncoding()
        let readable = try #require(sink.readablePath)
        #expect(!FileManager.default.fileExists(atPath: path), "not in place before the commit")
        let opened = try Decoder.open(readable)
        let frames = try Decoder.forEachBlock(opened.source) { _ in }
        #expect(abs(frames - 48_000) < 2_048)
        try sink.commit()
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
