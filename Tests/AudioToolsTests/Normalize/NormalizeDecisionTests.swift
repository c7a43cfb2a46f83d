import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The per-file decisions made before the first sample is read: fade frames, compensation,
/// limiter, dither.
@Suite struct NormalizeDecisionTests {
    func gain(peak: Double, mode: PeakMode = .limit) throws -> NormalizeGainPlan {
        // -20 LUFS to -14: 6 dB of gain, so the predicted true peak is `peak` + 6.
        try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: peak, targetLUFS: -14, ceilingDBTP: -1, mode: mode)
    }

    func decide(_ g: NormalizeGainPlan, mode: PeakMode = .limit, album: Bool = false, fadeIn: Double = 0, fadeOut: Double = 0,
                alwaysLimit: Bool = false, dither: Int? = nil) -> NormalizeDecision {
        NormalizeDecision(gain: g, peakMode: mode, album: album, fadeInSeconds: fadeIn, fadeOutSeconds: fadeOut,
                          fadeCurve: .linear, sampleRate: 48_000, ceilingDBTP: -1, marginDB: 0.15,
                          alwaysLimit: alwaysLimit, ditherBitDepth: dither)
    }

    @Test func fadesAreRoundedToTheNearestFrame() {
        #expect(NormalizeDecision.frames(1.5, sampleRate: 48_000) == 72_000)
        #expect(NormalizeDecision.frames(0.00001, sampleRate: 48_000) == 0)      // 0.48 frames
        #expect(NormalizeDecision.frames(0.0000105, sampleRate: 48_000) == 1)    // 0.504 frames
        #expect(NormalizeDecision.frames(2, sampleRate: 44_100) == 88_200)
    }

    @Test func overTheCeilingLimitsAndCompensates() throws {
        let d = decide(try gain(peak: -3))      // +3 dBTP predicted
        #expect(d.compensate && d.plan.limit && d.plan.gainDB == 6 && !d.hasFades)
        #expect(d.plan.ceilingDBTP == -1 && d.plan.limiterTiming.marginDB == 0.15)
    }

    @Test func theOvershootSaysWhetherTheFirstPassMayLand() throws {
        // Threshold −1.15 dBTP: +0.5 predicted is 1.65 dB over it, +1 is 2.15 dB.
        let light = decide(try gain(peak: -5.5))
        #expect(abs(light.overshootDB - 1.65) < 1e-9 && light.firstPassMayLand)
        let deep = decide(try gain(peak: -5))
        #expect(abs(deep.overshootDB - 2.15) < 1e-9 && !deep.firstPassMayLand)
        let under = decide(try gain(peak: -12), fadeIn: 1)
        #expect(under.overshootDB == 0 && under.firstPassMayLand && under.compensate)
    }

    @Test func underTheCeilingPlainGain() throws {
        let d = decide(try gain(peak: -12))     // -6 dBTP predicted
        #expect(!d.compensate && !d.plan.limit)
    }

    @Test func theLimiterRunsJustUnderItsThresholdToo() throws {
        // Threshold −1.15 dBTP; within 0.05 dB of it the limiter runs (no compensation needed).
        let near = decide(try gain(peak: -7.17))   // −1.17 predicted: inside the 0.05 dB band
        #expect(near.plan.limit && !near.compensate)
        let clear = decide(try gain(peak: -7.25))  // −1.25: clear of it
        #expect(!clear.plan.limit)
        #expect(decide(try gain(peak: -12), alwaysLimit: true).plan.limit)
    }

    @Test func fadesAreCompensatedInLimitAndIgnoreModes() throws {
        let g = try gain(peak: -12)
        let limit = decide(g, fadeIn: 1, fadeOut: 2)
        #expect(limit.compensate && limit.plan.limit && limit.hasFades)
        #expect(limit.fadeInFrames == 48_000 && limit.fadeOutFrames == 96_000)
        #expect(limit.plan.fadeInFrames == 48_000 && limit.plan.fadeOutFrames == 96_000)
        let ignore = decide(try gain(peak: -3, mode: .ignore), mode: .ignore, fadeOut: 1)
        #expect(ignore.compensate && !ignore.plan.limit)
        let reduce = decide(try gain(peak: -3, mode: .reduce), mode: .reduce, fadeIn: 1)
        #expect(!reduce.compensate && !reduce.plan.limit && reduce.plan.gainDB == 2)
    }

    @Test func anAlbumGetsNoCompensationButIsStillLimited() throws {
        let d = decide(try gain(peak: -3), album: true, fadeIn: 1)
        #expect(!d.compensate && d.plan.limit)
    }

    @Test func ditherOnlyForSixteenBitsOrFewerOfLosslessFixedPoint() {
        #expect(NormalizeDecision.ditherBits(bitDepth: 16, isFloat: false, isLossy: false) == 16)
        #expect(NormalizeDecision.ditherBits(bitDepth: 8, isFloat: false, isLossy: false) == 8)
        #expect(NormalizeDecision.ditherBits(bitDepth: 24, isFloat: false, isLossy: false) == nil)
        #expect(NormalizeDecision.ditherBits(bitDepth: 32, isFloat: true, isLossy: false) == nil)
        #expect(NormalizeDecision.ditherBits(bitDepth: nil, isFloat: false, isLossy: true) == nil)
        #expect(NormalizeDecision.ditherBits(bitDepth: nil, isFloat: false, isLossy: false) == nil)
        #expect(decide(try! gain(peak: -12), dither: 16).plan.ditherBitDepth == 16)
    }
}
