import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LosslessGainPlanTests {
    @Test func roundsToTheNearestStep() throws {
        let p = try LosslessGainPlan(measuredLUFS: -21.75, truePeakDBTP: -20, targetLUFS: -16, ceilingDBTP: -1, stepDB: 1.5)
        #expect(p.steps == 4)
        #expect(p.gainDB == 6)
        #expect(abs(p.residualDB - (-0.25)) < 1e-12)
        let down = try LosslessGainPlan(measuredLUFS: -10, truePeakDBTP: -2, targetLUFS: -14.6, ceilingDBTP: -1, stepDB: 1.5)
        #expect(down.steps == -3)
    }

    @Test func lowersAStepForThePeakAndRefusesWhenThatMissesByMoreThanHalfAStep() throws {
        // 6.6 dB asked: 4 steps (6.0) leave the peak at −1.8, 0.6 dB short (within 0.75): taken.
        let ok = try LosslessGainPlan(measuredLUFS: -20.6, truePeakDBTP: -7.8, targetLUFS: -14, ceilingDBTP: -1, stepDB: 1.5)
        #expect(ok.steps == 4)
        #expect(abs(ok.residualDB - 0.6) < 1e-9)
        // 6.6 dB asked with the peak at −6.8: 4 steps would reach −0.8, over −1, so 3 (4.5 dB),
        // 2.1 dB short: refused, never limited.
        let refused = Result { () throws(BitstreamGainError) in
            try LosslessGainPlan(measuredLUFS: -20.6, truePeakDBTP: -6.8, targetLUFS: -14, ceilingDBTP: -1, stepDB: 1.5)
        }
        guard case .failure(.targetOutOfReach(let needed, let reached, let step)) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(abs(needed - 6.6) < 1e-9 && reached == 4.5 && step == 1.5)
    }

    @Test func opusStepsAreExact() throws {
        let p = try LosslessGainPlan(measuredLUFS: -21.8, truePeakDBTP: -20.96, targetLUFS: -16, ceilingDBTP: -1, stepDB: 1.0 / 256)
        #expect(p.steps == 1485)
        #expect(abs(p.residualDB) <= 1.0 / 512)
    }

    @Test func silenceHasNoGain() {
        #expect(throws: BitstreamGainError.undefinedLoudness) {
            try LosslessGainPlan(measuredLUFS: nil, truePeakDBTP: nil, targetLUFS: -16, ceilingDBTP: -1, stepDB: 1.5)
        }
    }
}
