import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The arithmetic that turns a trial encode into the encode's gain and limiter ceiling.
struct CodecOvershootTests {
    @Test func predictionIsTheCodecsChange() {
        let p = CodecOvershoot.predict(beforeLUFS: -14, beforeTruePeak: -1.2, afterLUFS: -14.3, afterTruePeak: -0.5, seconds: 7.5)
        #expect(abs(p.loudnessChangeLU - -0.3) < 1e-9)
        #expect(abs(p.peakOvershootDB - 0.7) < 1e-9)
        // A peak that came out lower is no overshoot; silence (no loudness) predicts no change.
        let q = CodecOvershoot.predict(beforeLUFS: nil, beforeTruePeak: -3, afterLUFS: -20, afterTruePeak: -3.5, seconds: 1)
        #expect(q.loudnessChangeLU == 0 && q.peakOvershootDB == 0)
        // A change beyond the limit is a trial gone wrong: none predicted.
        #expect(CodecOvershoot.predict(beforeLUFS: -14, beforeTruePeak: nil, afterLUFS: -20, afterTruePeak: nil, seconds: 1).loudnessChangeLU == 0)
    }

    @Test func adjustRaisesTheGainAndLowersTheLimiterUnderTheCeiling() {
        let p = CodecOvershoot.Prediction(loudnessChangeLU: -0.3, peakOvershootDB: 0.7, seconds: 7.5)
        let a = CodecOvershoot.adjust(gainDB: 5, limiterCeilingDBTP: -1, ceilingDBTP: -1, prediction: p, maxCompensationDB: 6)
        #expect(abs(a.gainDB - 5.3) < 1e-9)
        // The trial's 0.7 dB widened as for lossy files: 0.7 + 0.4.
        #expect(abs(a.limiterCeilingDBTP - (-1 - 1.1 - CodecOvershoot.marginDB)) < 1e-9)
        // A two-hour stream after 7.5 s of trial: 0.25 dB for each tenfold past 16 times the trial.
        let long = CodecOvershoot.adjust(gainDB: 5, limiterCeilingDBTP: -1, ceilingDBTP: -1, prediction: p, maxCompensationDB: 6,
                                         streamSeconds: 7200)
        #expect(abs(long.limiterCeilingDBTP - (-1 - 1.1 - 0.25 * log10(7200 / 120) - CodecOvershoot.marginDB)) < 1e-9)
        // The compensation is bounded; no overshoot leaves the limiter's ceiling as it was.
        let b = CodecOvershoot.adjust(gainDB: 0, limiterCeilingDBTP: -1.5, ceilingDBTP: -1,
                                      prediction: .init(loudnessChangeLU: -9, peakOvershootDB: 0, seconds: 1), maxCompensationDB: 2)
        #expect(b.gainDB == 2 && b.limiterCeilingDBTP == -1.5)
    }

    @Test func correctionOnlyWhenOffTargetOrOverTheCeiling() {
        #expect(CodecOvershoot.correction(measuredLUFS: -14.15, measuredTruePeak: -1.2, preCodecPeakDBTP: -1.5, limiterCeilingDBTP: -1,
                                          targetLUFS: -14, ceilingDBTP: -1, lossy: true, checkLoudness: true) == nil)
        let c = CodecOvershoot.correction(measuredLUFS: -14.15, measuredTruePeak: -1.2, preCodecPeakDBTP: -1.5, limiterCeilingDBTP: -1,
                                          targetLUFS: -14, ceilingDBTP: -1, lossy: false, checkLoudness: true)
        #expect(abs((c?.gainDeltaDB ?? 0) - 0.15) < 1e-9 && c?.limiterCeilingDBTP == -1)
        // A peak 4 dB over what the encoder was fed, with the limiter idle well under the ceiling:
        // the limiter's ceiling goes under the ceiling by the overshoot, not just by the excess.
        let d = CodecOvershoot.correction(measuredLUFS: -14, measuredTruePeak: -0.6, preCodecPeakDBTP: -4.6, limiterCeilingDBTP: -1,
                                          targetLUFS: -14, ceilingDBTP: -1, lossy: true, checkLoudness: true)
        #expect(d?.gainDeltaDB == 0)
        #expect(abs((d?.limiterCeilingDBTP ?? 0) - (-1 - 4 - CodecOvershoot.marginDB)) < 1e-9)
        // Under --peak reduce the loudness is not steered.
        #expect(CodecOvershoot.correction(measuredLUFS: -20, measuredTruePeak: -1.5, preCodecPeakDBTP: -1.6, limiterCeilingDBTP: -1,
                                          targetLUFS: -14, ceilingDBTP: -1, lossy: true, checkLoudness: false) == nil)
    }

    @Test func stretches() {
        #expect(CodecOvershoot.stretches(durationSeconds: 2).map(\.start) == [0])
        let s = CodecOvershoot.stretches(durationSeconds: 100)
        #expect(s.map(\.start) == [0, 40, 75] && s.map(\.lead) == [0, 0.5, 0.5])
        // At 48 kHz each starts on the codecs' frame grid (46,080 frames, 0.96 s) at or before its
        // place, the difference added to its lead; at 44.1 kHz the grid isn't whole milliseconds.
        let g = CodecOvershoot.stretches(durationSeconds: 30, sampleRate: 48_000)
        #expect(g.map(\.start) == [0, 11.52, 22.08])
        #expect(abs(g[1].lead - 0.98) < 1e-9 && abs(g[2].lead - 0.92) < 1e-9)
        #expect(abs(g[1].length - 3.48) < 1e-9 && abs(g[2].length - 3.42) < 1e-9)
        #expect(CodecOvershoot.stretches(durationSeconds: 30, sampleRate: 44_100).map(\.start) == [0, 12, 22.5])
        #expect(CodecOvershoot.needsSecondTrial(gainMoveDB: 0.1, ceilingMoveDB: 0.5, limited: false) == false)
        #expect(CodecOvershoot.needsSecondTrial(gainMoveDB: 0.1, ceilingMoveDB: 0.5, limited: true))
        #expect(CodecOvershoot.needsSecondTrial(gainMoveDB: 0.4, ceilingMoveDB: 0, limited: false))
    }

    @Test func aTrialOnlyWhereTheCodecIsARisk() {
        // 3 dB under the ceiling at 64 kb/s a channel, not limited: encoded at once.
        #expect(!CodecOvershoot.needsTrial(fedPeakDBTP: -4, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -2, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -8, ceilingDBTP: -1, limited: true, bitRatePerChannel: 64_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: -8, ceilingDBTP: -1, limited: false, bitRatePerChannel: 35_000))
        #expect(CodecOvershoot.needsTrial(fedPeakDBTP: nil, ceilingDBTP: -1, limited: false, bitRatePerChannel: 64_000))
    }

    @Test func onlyALoweredLimiterIsFoundWithoutTheCodec() {
        // A limited stream whose ceiling came down by up to 1 dB, the gain moved little: no second trial.
        #expect(CodecOvershoot.limiterOnlyMoved(gainMoveDB: 0.1, ceilingMoveDB: 0.35, limited: true))
        #expect(!CodecOvershoot.limiterOnlyMoved(gainMoveDB: 0.1, ceilingMoveDB: 0.35, limited: false))
        #expect(!CodecOvershoot.limiterOnlyMoved(gainMoveDB: 0.5, ceilingMoveDB: 0.35, limited: true))
        #expect(!CodecOvershoot.limiterOnlyMoved(gainMoveDB: 0, ceilingMoveDB: 1.5, limited: true))
        #expect(!CodecOvershoot.limiterOnlyMoved(gainMoveDB: 0.2, ceilingMoveDB: 0, limited: true))
    }

    static let whole3s = CodecOvershoot.stretches(durationSeconds: 3)

    @Test func makeUpGainWithoutTheLimiterIsTheLoudnessMissing() throws {
        // 1 kHz at -20 dBFS a channel, 3 s: without the limiter loudness follows gain dB for dB,
        // so the gain found is the plan's plus what is missing, in one step.
        let rate = 48_000
        let tone: [Float] = (0..<(3 * rate)).map { (i: Int) -> Float in
            let phase: Double = 2 * Double.pi * 1000 * Double(i) / Double(rate)
            return Float(0.1 * sin(phase))
        }
        let captured = [[tone, tone]]
        let plan = NormalizePlan(gainDB: 2)
        let at = try #require(try CodecTrial.loudness(plan: plan, sampleRate: rate, weights: [1, 1], stretches: Self.whole3s, captured: captured))
        let found = try MediaNormalizer.limiterMakeUp(plan, wanted: at + 1.5, sampleRate: rate, weights: [1, 1], stretches: Self.whole3s,
                                                      captured: captured)
        #expect(abs(found.gainDB - 3.5) < 0.01)
        #expect(found.slope.map { abs($0 - 1) < 0.01 } == true)
    }
}
