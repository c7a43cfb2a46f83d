import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LoudnessPolicyTests {
    @Test func standardLayoutsAndWeights() {
        #expect(ChannelLayout.standard(channelCount: 6).weights == [1, 1, 1, 0, 1.41, 1.41])
        #expect(ChannelLayout.standard(channelCount: 8).description == "L,R,C,LFE,Lb,Rb,Lss,Rss")
        #expect(ChannelLayout.standard(channelCount: 8).weights == [1, 1, 1, 0, 1, 1, 1.41, 1.41])
        #expect(ChannelLayout.standard(channelCount: 4).weights == [1, 1, 1.41, 1.41])
        #expect(ChannelLayout.standard(channelCount: 7).weights == Array(repeating: 1, count: 7))
        #expect(ChannelLayout.dualMono.weights == [2])
    }

    @Test func parsesNamesAndLists() throws {
        #expect(try ChannelLayout.parse("5.1") == .standard(channelCount: 6))
        #expect(try ChannelLayout.parse(" Stereo ") == .standard(channelCount: 2))
        #expect(try ChannelLayout.parse("dual-mono") == .dualMono)
        #expect(try ChannelLayout.parse("l, r ,C,lfe,SL,SR,bl,BR").roles ==
                [.left, .right, .centre, .lfe, .leftSideSurround, .rightSideSurround, .leftBack, .rightBack])
    }

    @Test func parseErrorNamesTheBadToken() {
        do {
            _ = try ChannelLayout.parse("L,R,Q7")
            Issue.record("expected an error")
        } catch {
            #expect(error == LayoutError(text: "L,R,Q7", position: 3, channel: "Q7"))
            let e = error.toolError(path: "")
            #expect(e.code == .badInput)
            #expect(e.message.contains("“Q7”") && e.message.contains("position 3"), "\(e.message)")
        }
        #expect(throws: LayoutError(text: "L,,R", position: 2, channel: nil)) { try ChannelLayout.parse("L,,R") }
    }

    func measurement(_ lufs: Double?, truePeakDB: Double?) -> LoudnessMeasurement {
        let tp = truePeakDB.map { pow(10, $0 / 20) } ?? 0
        return LoudnessMeasurement(integratedLUFS: lufs, loudnessRangeLU: nil, momentaryMaxLUFS: nil, shortTermMaxLUFS: nil,
                                   samplePeaks: [tp], truePeaks: [tp], frames: 48000 * 10, sampleRate: 48000, notes: [])
    }

    @Test func gateReasons() {
        let gate = LoudnessGate(targetLUFS: -14, toleranceLU: 1, maxTruePeakDBTP: -1)
        let low = gate.evaluate(measurement(-18.3, truePeakDB: -0.2))
        #expect(!low.pass)
        #expect(low.reasons == ["-18.3 LUFS is 4.3 LU below the -14 ±1 target",
                                "true peak -0.2 dBTP is above the -1 dBTP ceiling"])
        #expect(gate.evaluate(measurement(-14.9, truePeakDB: -1.0)).pass)
        let loud = gate.evaluate(measurement(-12.5, truePeakDB: -3))
        #expect(loud.reasons == ["-12.5 LUFS is 1.5 LU above the -14 ±1 target"])
        let silent = gate.evaluate(measurement(nil, truePeakDB: nil))
        #expect(!silent.pass && silent.reasons == ["integrated loudness is undefined (silence), so it cannot meet the -14 ±1 target"])
        #expect(LoudnessGate(maxTruePeakDBTP: -1).evaluate(measurement(nil, truePeakDB: -2)).pass)
    }

    @Test func presets() {
        let ebu = LoudnessPreset.named("EBU-R128")
        #expect(ebu?.targetLUFS == -23 && ebu?.maxTruePeakDBTP == -1 && ebu?.toleranceLU == 0.5)
        #expect(LoudnessPreset.named("atsc-a85")?.maxTruePeakDBTP == -2)
        #expect(LoudnessPreset.named("social")?.targetLUFS == -14)
        #expect(LoudnessPreset.named("podcast")?.targetLUFS == -16)
        #expect(LoudnessPreset.all.allSatisfy { !$0.source.isEmpty })
        #expect(LoudnessPreset.named("podcast")!.gate.evaluate(measurement(-16.4, truePeakDB: -1.5)).pass)
    }
}
