import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LoudnessGateTests {
    func measurement(integrated: Double?, shortTerm: Double?, momentary: Double?, seconds: Double = 10) -> LoudnessMeasurement {
        let tp = pow(10, -3.0 / 20)
        return LoudnessMeasurement(integratedLUFS: integrated, loudnessRangeLU: nil, momentaryMaxLUFS: momentary,
                                   shortTermMaxLUFS: shortTerm, samplePeaks: [tp], truePeaks: [tp],
                                   frames: Int(48000 * seconds), sampleRate: 48000, notes: [])
    }

    @Test func shortTermAndMomentaryMaxima() {
        let gate = LoudnessGate(maxShortTermLUFS: -18, maxMomentaryLUFS: -15)
        let loud = gate.evaluate(measurement(integrated: -23, shortTerm: -14.2, momentary: -12.04))
        #expect(!loud.pass)
        #expect(loud.reasons == ["short-term loudness reaches -14.2 LUFS, over the -18 LUFS maximum",
                                 "momentary loudness reaches -12.0 LUFS, over the -15 LUFS maximum"])
        #expect(gate.evaluate(measurement(integrated: -23, shortTerm: -18, momentary: -15)).pass)
        #expect(gate.evaluate(measurement(integrated: -23, shortTerm: -19.5, momentary: -16)).pass)
        // A 2 s file has no short-term loudness: the maximum can't be checked, which fails.
        let short = gate.evaluate(measurement(integrated: -23, shortTerm: nil, momentary: -20, seconds: 2))
        #expect(short.reasons == ["short-term loudness is undefined (shorter than 3 s), so it cannot be checked against the -18 LUFS maximum"])
        // Digital silence is under any maximum (a target, if any, is what it fails).
        #expect(gate.evaluate(measurement(integrated: nil, shortTerm: nil, momentary: nil)).pass)
        let withTarget = LoudnessGate(targetLUFS: -23, toleranceLU: 1, maxShortTermLUFS: -18)
        #expect(withTarget.evaluate(measurement(integrated: nil, shortTerm: nil, momentary: nil)).reasons
                == ["integrated loudness is undefined (silence), so it cannot meet the -23 ±1 target"])
    }

    @Test func regionalAndShortFormPresets() {
        let s1 = LoudnessPreset.named("ebu-r128-s1")
        #expect(s1?.targetLUFS == -23 && s1?.toleranceLU == 0.5 && s1?.maxTruePeakDBTP == -1 && s1?.maxShortTermLUFS == -18)
        let arib = LoudnessPreset.named("ARIB-TR-B32")
        #expect(arib?.targetLUFS == -24 && arib?.toleranceLU == 1 && arib?.maxTruePeakDBTP == -1 && arib?.maxShortTermLUFS == nil)
        let op59 = LoudnessPreset.named("op-59")
        #expect(op59?.targetLUFS == -24 && op59?.toleranceLU == 1 && op59?.maxTruePeakDBTP == -2)
        #expect(LoudnessPreset.named("ebu-r128")?.maxShortTermLUFS == nil)
        // The preset's gate carries its short-term maximum.
        let r = s1!.gate.evaluate(measurement(integrated: -23.2, shortTerm: -16, momentary: -14))
        #expect(r.reasons == ["short-term loudness reaches -16.0 LUFS, over the -18 LUFS maximum"])
        #expect(LoudnessPreset.all.allSatisfy { !$0.source.isEmpty })
    }
}
