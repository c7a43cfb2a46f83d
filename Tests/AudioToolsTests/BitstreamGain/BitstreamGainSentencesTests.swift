import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The words a person reads for each refusal: the file named, the code, a suggestion that acts.
@Suite struct BitstreamGainSentencesTests {
    @Test(arguments: [
        (BitstreamGainError.unsupportedFormat("AAC in ADTS"), "unsupported-codec"),
        (.malformed(what: "MPEG audio frame", offset: 417), "malformed"),
        (.badChecksum(page: 3), "malformed"),
        (.severalStreams(2), "unsupported-codec"),
        (.opusGainOutOfRange(q78: 40000), "lossy"),
        (.r128TagOutOfRange(name: "R128_TRACK_GAIN", q78: -40000), "lossy"),
        (.globalGainOutOfRange(frame: 12, value: 256), "lossy"),
        (.undefinedLoudness, "no-audio"),
        (.targetOutOfReach(neededDB: 7.4, reachedDB: 6.02, stepDB: MP3GlobalGain.stepDB), "lossy"),
    ])
    func eachRefusalNamesTheFileAndSaysWhatToDo(error: BitstreamGainError, code: String) {
        let e = error.toolError(path: "dir/song.mp3")
        #expect(e.code.rawValue == code)
        #expect(e.message.contains("“dir/song.mp3”") || e.message.contains("“song.mp3”"))
        #expect(!e.suggestion.isEmpty)
        #expect(!e.suggestion.lowercased().contains("try again"))
    }

    @Test func outOfReachSaysBothGains() {
        let e = BitstreamGainError.targetOutOfReach(neededDB: 7.4, reachedDB: 6.02, stepDB: MP3GlobalGain.stepDB).toolError(path: "a.mp3")
        #expect(e.message.contains("+7.40 dB") && e.message.contains("+6.02 dB"))
        #expect(e.suggestion.contains("--allow-loss"))
    }
}
