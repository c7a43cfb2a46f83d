import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct NormalizeGainPlanTests {
    @Test func limitModeKeepsTargetGainAndFlagsLimiter() throws {
        let plan = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -3, targetLUFS: -14,
                                         ceilingDBTP: -1, mode: .limit)
        #expect(plan.gainDB == 6)
        #expect(abs(plan.linearGain - 1.9952623149688795) < 1e-12)
        #expect(plan.predictedTruePeakDBTP == 3)
        #expect(plan.limiterNeeded)
        #expect(plan.shortfallLU == 0)
    }

    @Test func limitModeWithoutOvershootNeedsNoLimiter() throws {
        let plan = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -10, targetLUFS: -16,
                                         ceilingDBTP: -1, mode: .limit)
        #expect(plan.gainDB == 4 && !plan.limiterNeeded && plan.predictedTruePeakDBTP == -6)
    }

    @Test func reduceLowersGainToCeilingAndReportsShortfall() throws {
        let plan = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -3, targetLUFS: -14,
                                         ceilingDBTP: -1, mode: .reduce)
        #expect(plan.gainDB == 2)
        #expect(plan.predictedTruePeakDBTP == -1)
        #expect(plan.shortfallLU == 4)
        #expect(!plan.limiterNeeded)
        // Under the ceiling, reduce is plain gain.
        let easy = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -12, targetLUFS: -14,
                                         ceilingDBTP: -1, mode: .reduce)
        #expect(easy.gainDB == 6 && easy.shortfallLU == 0)
    }

    @Test func ignoreOnlyIntoFloat() throws {
        let plan = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -3, targetLUFS: -14,
                                         ceilingDBTP: -1, mode: .ignore)
        #expect(plan.gainDB == 6 && plan.exceedsCeiling && !plan.limiterNeeded)
        #expect(throws: NormalizeGainPlan.Refusal.ignoreNeedsFloatOutput) {
            try plan.validate(outputIsFloatingPoint: false)
        }
        try plan.validate(outputIsFloatingPoint: true)
        let limited = try NormalizeGainPlan(measuredLUFS: -20, measuredTruePeakDBTP: -3, targetLUFS: -14,
                                            ceilingDBTP: -1, mode: .limit)
        try limited.validate(outputIsFloatingPoint: false)
    }

    @Test func silenceIsRefusedWithReason() {
        #expect(throws: NormalizeGainPlan.Refusal.undefinedLoudness) {
            try NormalizeGainPlan(measuredLUFS: nil, measuredTruePeakDBTP: -.infinity, targetLUFS: -14,
                                  ceilingDBTP: -1, mode: .limit)
        }
        #expect(throws: NormalizeGainPlan.Refusal.undefinedLoudness) {
            try NormalizeGainPlan(measuredLUFS: -.infinity, measuredTruePeakDBTP: -90, targetLUFS: -14,
                                  ceilingDBTP: -1, mode: .limit)
        }
        let error = NormalizeGainPlan.Refusal.undefinedLoudness.toolError(path: "a/quiet.wav")
        #expect(error.code == .noAudio)
        #expect(error.message.hasPrefix("\u{201C}quiet.wav\u{201D}"))
        #expect(!error.suggestion.isEmpty)
    }
}
