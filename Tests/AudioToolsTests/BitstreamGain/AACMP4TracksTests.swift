import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Several AAC tracks of one MP4: their patches merged into one ascending pass, a refusal naming
/// the stream it is about, and `normalized` listing each stream's steps and result.
@Suite struct AACMP4TracksTests {
    typealias Patch = AACMP4Samples.Patch

    /// Two tracks' interleaved chunks come out in file order, whatever order the tracks gave them.
    @Test func patchesOfSeveralTracksMergeAscending() throws {
        let video = [Patch(offset: 100, bytes: [1, 2]), Patch(offset: 300, bytes: [3]), Patch(offset: 500, bytes: [4, 5, 6])]
        let second = [Patch(offset: 102, bytes: [7]), Patch(offset: 301, bytes: [8, 9]), Patch(offset: 10, bytes: [0])]
        let merged = try AACMP4Samples.merged([video, second])
        #expect(merged.map(\.offset) == [10, 100, 102, 300, 301, 500])
        #expect(merged.map(\.bytes).joined().count == 10)
        var copy = PatchedCopy()
        for p in merged { copy.patch(at: Int(p.offset), p.bytes) }
        #expect(copy.patchCount == 6)
        #expect(try AACMP4Samples.merged([[], []]).isEmpty)
    }

    /// Chunks of two tracks that share bytes are a damaged table: refused, never a crash.
    @Test func overlappingChunksAreRefused() {
        let a = [Patch(offset: 100, bytes: [1, 2, 3])], b = [Patch(offset: 102, bytes: [4])]
        #expect(throws: BitstreamGainError.malformed(what: "MP4 chunk (two audio tracks' samples overlap)", offset: 102)) {
            try AACMP4Samples.merged([a, b])
        }
    }

    @Test(arguments: [
        (BitstreamGainError.unsupportedFormat("HE-AAC (SBR, whose band energies are absolute and would not follow global_gain)"), "unsupported-codec"),
        (.targetOutOfReach(neededDB: 7.4, reachedDB: 1.5, stepDB: AACGlobalGain.stepDB), "lossy"),
        (.scaleFactorOutOfRange(frame: 3, value: 256), "lossy"),
        (.undefinedLoudness, "no-audio"),
    ])
    func aStreamsRefusalNamesTheStream(reason: BitstreamGainError, code: String) {
        let e = BitstreamGainStreamError(stream: 1, reason: reason).toolError(path: "films/clip.mp4")
        let plain = reason.toolError(path: "films/clip.mp4")
        #expect(e.code.rawValue == code)
        #expect(e.message.hasPrefix("“clip.mp4”'s audio stream 1 "), "\(e.message)")
        #expect(e.message.contains("every audio stream of a file, each by its own gain, or none"))
        #expect(e.message.hasSuffix("."))
        #expect(e.suggestion == plain.suggestion)
    }

    /// With several streams, `streams` lists each one's steps and result, and the top keeps the
    /// first stream's, as a file with one stream has them.
    @Test func theRecordListsEveryStream() throws {
        func plan(_ lufs: Double) throws -> LosslessGainPlan {
            try LosslessGainPlan(measuredLUFS: lufs, truePeakDBTP: lufs + 10, targetLUFS: -18, ceilingDBTP: -1, stepDB: AACGlobalGain.stepDB)
        }
        let streams = [
            LosslessGainRecord.Stream(ordinal: 0, index: 1, plan: try plan(-30), sourceLUFS: -30, sourceTruePeakDBTP: -20,
                                      measuredHere: false, facts: ["blocks": .int(10)], factsKey: "aac"),
            LosslessGainRecord.Stream(ordinal: 1, index: 2, plan: try plan(-24), sourceLUFS: -24, sourceTruePeakDBTP: -14,
                                      measuredHere: true, facts: ["blocks": .int(11)], factsKey: "aac"),
        ]
        let r = LosslessGainRecord(outPath: "out/clip.mp4", dryRun: false, codec: "aac", plan: streams[0].plan, sourceLUFS: -30,
                                   sourceTruePeakDBTP: -20, targetLUFS: -18, ceilingDBTP: -1, presetName: nil, measuredHere: false,
                                   notes: [], bitstream: ["aac": .object(["blocks": .int(10)])], streams: streams).json
        let list = try #require(r["streams"]?.arrayValue)
        #expect(list.count == 2)
        #expect(list.map { $0["lossless_gain"]?["steps"]?.intValue } == [8, 4])
        #expect(list.map { $0["stream"]?.intValue } == [0, 1] && list.map { $0["index"]?.intValue } == [1, 2])
        #expect(list[1]["integrated_lufs"]?.doubleValue == -17.98)
        #expect(list[1]["measured_here"]?.boolValue == true && list[1]["aac"]?["blocks"]?.intValue == 11)
        #expect(r["lossless_gain"] == list[0]["lossless_gain"] && r["integrated_lufs"] == list[0]["integrated_lufs"])
        #expect(r["notes"]?.arrayValue?.last?.stringValue?.contains("stream 0: 8 steps, stream 1: 4 steps") == true)
        // One stream: no list, as before.
        var one = LosslessGainRecord(outPath: "o.m4a", dryRun: true, codec: "aac", plan: streams[0].plan, sourceLUFS: -30,
                                     sourceTruePeakDBTP: -20, targetLUFS: -18, ceilingDBTP: -1, presetName: nil, measuredHere: false,
                                     notes: [], bitstream: [:])
        #expect(one.json["streams"] == nil)
        one.streams = [streams[0]]
        #expect(one.json["streams"] == nil)
    }
}
