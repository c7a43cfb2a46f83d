import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The trial before a lossy file's first encode: where its stretches lie, what it predicts, and
/// how it moves the first encode: analytic values.
@Suite struct CodecLandingTrialTests {
    typealias L = CodecLanding.Levels

    @Test func aShortFileIsTriedWhole() {
        let s = CodecLanding.trialStretches(totalFrames: 48_000 * 6, sampleRate: 48_000)
        #expect(s.count == 1)
        #expect(s[0].start == 0 && s[0].count == 48_000 * 6 && s[0].lead == 0)
        #expect(CodecLanding.trialStretches(totalFrames: 0, sampleRate: 48_000).isEmpty)
    }

    @Test func aLongFileIsTriedInThreeStretchesWithLeads() {
        let s = CodecLanding.trialStretches(totalFrames: 48_000 * 100, sampleRate: 48_000)
        #expect(s.count == 3)
        #expect(s[0].start == 0 && s[0].count == 120_000 && s[0].lead == 0)
        // At 40 s and 75 s, each moved back onto the codecs' frame grid (a multiple of 46,080
        // frames): what it moved by is lead, so the measured part stays where it was.
        #expect(s[1].start == 41 * 46_080 && s[1].count == 144_000 + 48_000 * 40 - 41 * 46_080)
        #expect(s[1].lead == 24_000 + 48_000 * 40 - 41 * 46_080)
        #expect(s[2].start == 78 * 46_080 && s[2].count == 144_000 + 48_000 * 75 - 78 * 46_080)
        #expect(s[2].lead == 24_000 + 48_000 * 75 - 78 * 46_080)
        // Near the end a stretch is moved back to fit.
        let short = CodecLanding.trialStretches(totalFrames: 48_000 * 9, sampleRate: 48_000)
        #expect(short[2].start + short[2].count <= 48_000 * 9)
    }

    @Test func thePredictionIsTheMeanChangeAndTheLargestOvershoot() {
        let t = CodecLanding.Trial(handed: [L(integratedLUFS: -10, truePeakDBTP: -1.15), L(integratedLUFS: -9, truePeakDBTP: -1.15),
                                            L(integratedLUFS: -20, truePeakDBTP: -8)],
                                   decoded: [L(integratedLUFS: -10.1, truePeakDBTP: -0.85), L(integratedLUFS: -9.3, truePeakDBTP: -1.05),
                                             L(integratedLUFS: -30, truePeakDBTP: -9)],
                                   seconds: 7.5)
        // The third stretch's 10 LU change is a trial gone wrong, not a prediction.
        #expect(abs(t.loudnessChangeLU! - -0.2) < 1e-9)
        #expect(abs(t.peakOvershootDB - 0.3) < 1e-9)
        #expect(t.handedTruePeakDBTP == -1.15)
    }

    @Test func theFirstEncodesAimIsThePrediction() {
        let t = CodecLanding.Trial(handed: [L(integratedLUFS: -9, truePeakDBTP: -1.15)],
                                   decoded: [L(integratedLUFS: -9.1, truePeakDBTP: -0.75)], seconds: 2.5)
        let a = CodecLanding.aim(t, targetLUFS: -9, ceilingDBTP: -1, rule: .hold, steersLoudness: true)
        #expect(abs(a.handedTargetLUFS - -8.9) < 1e-9)
        // 0.4 dB seen, 0.4 + 0.4 dB (more than 1.5 x 0.4) made room for.
        #expect(abs(a.overshootDB - 0.8) < 1e-9)
        #expect(abs(CodecLanding.predictedOvershoot(2) - 3) < 1e-9)
        // Not steered (--peak reduce, an album): the loudness is left.
        let n = CodecLanding.aim(t, targetLUFS: -9, ceilingDBTP: -1, rule: .hold, steersLoudness: false)
        #expect(n.handedTargetLUFS == -9)
    }

    @Test func aLongStreamWidensThePredictedOvershoot() {
        // Up to 16 times the trial's measured seconds: the allowance alone (0.5 + 0.4).
        #expect(abs(CodecLanding.predictedOvershoot(0.5, trialSeconds: 7.5, streamSeconds: 120) - 0.9) < 1e-9)
        // A hundred times past that: two tenfolds of 0.25 dB more.
        #expect(abs(CodecLanding.predictedOvershoot(0.5, trialSeconds: 7.5, streamSeconds: 12_000) - 1.4) < 1e-9)
        // A length not known: the allowance alone.
        #expect(abs(CodecLanding.predictedOvershoot(0.5, trialSeconds: nil, streamSeconds: 12_000) - 0.9) < 1e-9)
    }
}
