import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A NUL inside a path would cut it short at the system call (“real.flac\0/x/song.wav” names
/// real.flac): such a path is bad input, in a record and on a bare line alike.
@Suite struct RecordReaderNULTests {
    @Test func aNULInAPathIsBadInput() throws {
        let record = try #require(RecordReader.record(fromLine: #"{"path":"real.flac\u0000/x/song.wav"}"#, tool: "t"))
        #expect(record.errorCode == "bad-input")
        #expect(record["error"]?["message"]?.stringValue?.contains("NUL") == true)
        #expect(record.path == "real.flac\u{0}/x/song.wav", "the record keeps its path as it came")
        let bare = try #require(RecordReader.record(fromLine: "a.wav\u{0}b.wav\n", tool: "t"))
        #expect(bare.errorCode == "bad-input")
        #expect(bare["error"]?["message"]?.stringValue?.contains(#"a.wav\0b.wav"#) == true)
        #expect(RecordReader.record(fromLine: #"{"path":"real.flac"}"#, tool: "t")?.hasError == false)
    }
}
