import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The capabilities throw facts; the tool boundary says them. These check the codes and a few
/// sentences the end-to-end tests don't reach.
@Suite struct ErrorSentencesTests {
    @Test func aStaleMeasurementIsSaidForTheWayItWasUsed() {
        let then = FileIdentity(sizeBytes: 10, modifiedNanoseconds: 1), now = FileIdentity(sizeBytes: 10, modifiedNanoseconds: 2)
        let normalising = RecordedLoudness.Refusal.stale(measured: then, now: now, tagging: false).toolError(path: "d/a.wav")
        #expect(normalising.code == .staleMeasurement && normalising.message.contains("(modified since)") && normalising.message.hasSuffix("nothing was written."))
        let tagging = RecordedLoudness.Refusal.stale(measured: then, now: now, tagging: true).toolError(path: "d/a.wav")
        #expect(tagging.code == .staleMeasurement && tagging.message.hasSuffix("its tags were left as they were."))
        #expect(RecordedLoudness.Refusal.notANumber.toolError(path: "a.wav").code == .badInput)
    }

    @Test func theStaleCheckLooksOnlyAtTheIdentity() throws {
        let id = FileIdentity(sizeBytes: 10, modifiedNanoseconds: 1, changedNanoseconds: 5)
        #expect(try RecordedLoudness.currency(.object(["file": id.json]), identity: id, path: "a.wav") == .current)
        #expect(try RecordedLoudness.currency(.object(["integrated_lufs": .double(-20)]), identity: id, path: "a.wav") == .unknown)
        #expect(try RecordedLoudness.currency(nil, identity: id, path: "a.wav") == .unknown)
        // A record of an older audio-tools (size and modification time only) matches as far as it goes.
        let older = JSON.object(["file": .object(["size_bytes": .int(10), "modified_ns": .int(1)])])
        #expect(try RecordedLoudness.currency(older, identity: id, path: "a.wav") == .olderRecord)
        #expect(try RecordedLoudness.isCurrent(older, identity: id, path: "a.wav"))
        let other = FileIdentity(sizeBytes: 11, modifiedNanoseconds: 1, changedNanoseconds: 5)
        #expect(throws: RecordedLoudness.Refusal.stale(measured: id, now: other, tagging: true)) {
            try RecordedLoudness.isCurrent(.object(["file": id.json]), identity: other, path: "a.wav", tagging: true)
        }
        // The change time alone (an edit with its modification time put back) is stale too.
        var touched = id
        touched.changedNanoseconds = 6
        #expect(throws: RecordedLoudness.Refusal.stale(measured: id, now: touched, tagging: false)) {
            try RecordedLoudness.isCurrent(.object(["file": id.json]), identity: touched, path: "a.wav")
        }
        let said = RecordedLoudness.Refusal.stale(measured: id, now: touched, tagging: false).toolError(path: "a.wav").message
        #expect(said.contains("its inode changed with its modification time the same"), "\(said)")
    }

    @Test func alignmentRefusalsKeepTheirCodes() {
        func refused(_ reason: BleedAligner.Refusal.Reason, whole: Bool, start: Double) -> ToolError {
            AlignmentError.refused(take: "t/take.wav", reference: "backing.wav", reason: reason, searchedWhole: whole, startSeconds: start,
                                   maxLagMS: 1000, confidence: 0.4, accepted: 2, windows: 9).toolError(path: "t/take.wav")
        }
        #expect(refused(.noBleed, whole: true, start: 0).message.contains("anywhere in it (the best place found"))
        #expect(refused(.noBleed, whole: false, start: 3).message.contains("within 1000 ms of its start 3 s"))
        #expect(refused(.noBleed, whole: false, start: 0).code == .noBleed)
        let low = refused(.lowConfidence, whole: false, start: 0)
        #expect(low.code == .lowConfidence && low.message.contains("(best confidence 0.4, 2 of 9 windows clear)"))
        let mismatch = AlignmentError.latencyMismatch(take: "take.wav", reference: "backing.wav", claimMS: 300, measuredMS: 120,
                                                      toleranceMS: 5, claimFromRecord: true).toolError(path: "take.wav")
        #expect(mismatch.code == .latencyMismatch && mismatch.message.contains("(300 ms, latency_ms in its record)")
                && mismatch.message.contains("by 180 ms") && mismatch.suggestion.contains("remove latency_ms"))
        let loop = AlignmentError.repeats(take: "take.wav", reference: "loop.wav", placesSeconds: [1, 83.25, 3, 4, 5, 6],
                                          count: 8, atLeast: true).toolError(path: "take.wav")
        #expect(loop.message.contains("fits at least 8 places") && loop.message.contains("at 1 s, 1:23.25, 3 s, 4 s, 5 s, 6 s and 2 more."))
    }

    @Test func placementNotesNameWhereTheClaimCameFrom() {
        #expect(PlacementNote.latencyGiven(claimFromRecord: false).sentence.contains("(--latency-ms)"))
        #expect(PlacementNote.claimUnchecked(claimFromRecord: true, why: .belowConfidence(0.31, required: 0.5)).sentence
                == "The claimed latency (latency_ms in its record) could not be checked: the bleed's confidence 0.31 is below 0.5. It was used as given.")
        #expect(PlacementNote.claimRounded(ms: 120.01, rate: 48000).sentence == "The claimed latency 120.01 ms was rounded to the nearest frame at 48000 Hz.")
    }

    @Test func outputAndMediaRefusalsKeepTheirCodes() {
        #expect(OutputClaimError.claimedEarlier(output: "out/a.wav", by: "x/a.wav").toolError(path: "y/a.wav").message
                == "“a.wav” would be written to “a.wav”, which “a.wav” earlier in the input also writes; “a.wav” was not written.")
        #expect(OutputClaimError.outsideRelativeTo.toolError(path: "a.wav").code == .badInput)
        #expect(OutputClaimError.isAnotherInput("b.wav").toolError(path: "a.wav").code == .exists)
        #expect(AlignedOutputError.exists(path: "out/take.wav", mix: false).toolError(path: "take.wav").message
                == "The aligned take “take.wav” in “out” already exists; it was left as it is.")
        #expect(MediaWriteError.appeared(destination: "o/v.mp4").toolError(path: "v.mp4").code == .exists)
        #expect(MediaWriteError.ffmpegFailed(input: "v.mp4", reason: "boom").toolError(path: "v.mp4").message
                == "“v.mp4” could not be written back by ffmpeg (boom); nothing was written.")
        #expect(MediaEncodingError.notEncodable(codec: "dts", stream: 1, ofSeveral: true).toolError(path: "v.mkv").message
                == "“v.mkv” has DTS audio in stream 1, which this ffmpeg can read but not encode; nothing was written.")
        #expect(NormalizePipeline.Failure.unknownLength.toolError(path: "a.wav").code == .malformed)
        #expect(GainTagError.noPlaceForTags(container: "w64").toolError(path: "a.w64").code == .unsupportedCodec)
    }
    @Test func aLayoutOfAnotherChannelCountIsMalformed() {
        let e = LayoutCountMismatch(channels: 6, named: 2).toolError(path: "d/bed.wav")
        #expect(e.code == .malformed && e.message == "“bed.wav” has 6 channels but --layout names 2.")
        #expect(e.suggestion == "Give a --layout with 6 channels, or leave it out to use the file's own.")
    }
}
