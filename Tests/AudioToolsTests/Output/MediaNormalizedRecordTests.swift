import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The notes of a media file written back tell the story `encodes` counts: one clause for each
/// check that sent the file to another encode, so the clauses over all streams are `encodes` − 1.
@Suite struct MediaNormalizedRecordTests {
    /// A music video encoded three times for its one stream: both further encodes are explained.
    @Test func eachFurtherEncodeIsExplained() throws {
        let note = try #require(MediaNormalizedRecord.reencodeNote(
            who: "The stream", codec: "AAC", predicted: true,
            corrections: [(afterEncode: 1, reasons: ["peak"]), (afterEncode: 2, reasons: ["loudness", "peak"])]))
        #expect(note == "The stream: the prediction missed: after the first encode the decoded true peak was over the ceiling; after the second encode the decoded true peak was over the ceiling and the loudness off the target (AAC encoder); so each time the gain and the limiter's ceiling were corrected and the file encoded again (2 times).")
        let once = try #require(MediaNormalizedRecord.reencodeNote(who: "Stream 1", codec: "AAC", predicted: false,
                                                                   corrections: [(afterEncode: 2, reasons: ["loudness"])]))
        #expect(once == "Stream 1: after the second encode the decoded loudness was off the target (AAC encoder); so the gain and the limiter's ceiling were corrected and the file encoded again.")
        #expect(MediaNormalizedRecord.reencodeNote(who: "Stream 0", codec: "AAC", predicted: true, corrections: []) == nil)
    }
}
