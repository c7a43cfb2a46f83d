import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibraryConstraintsTests {
    @Test func noLimitsPassEverything() {
        let c = LibraryConstraints()
        #expect(c.isEmpty)
        #expect(c.violation(libraryItem("/a/x.wav", duration: nil, sampleRate: nil, channels: nil)) == nil)
    }

    @Test func tooShort() {
        let c = LibraryConstraints(minDuration: 30)
        let v = c.check(libraryItem("/music/misc/intro.wav", duration: 4.2))
        #expect(v?.message == "\u{201C}intro.wav\u{201D} is 4.2 s long, shorter than the 30 s minimum.")
        #expect(v?.suggestion == "Lower --min-duration to 4.2 or less to keep it.")
        #expect(c.violation(libraryItem("/m/ok.wav", duration: 30)) == nil)  // limit inclusive
    }

    @Test func nearTheLimitShowsEnoughDecimals() {
        let v = LibraryConstraints(minDuration: 30).violation(libraryItem("/m/a.wav", duration: 29.96))
        #expect(v == "\u{201C}a.wav\u{201D} is 29.96 s long, shorter than the 30 s minimum.")
    }

    @Test func tooLong() {
        let c = LibraryConstraints(maxDuration: 600)
        let v = c.check(libraryItem("/m/mix.flac", duration: 7380))
        #expect(v?.message == "\u{201C}mix.flac\u{201D} is 2 h 03 min long, longer than the 10 min maximum.")
        #expect(v?.suggestion == "Raise --max-duration to 7380 or more to keep it.")
        #expect(c.violation(libraryItem("/m/a.flac", duration: 200.5)) == nil)
        let minutes = LibraryConstraints(maxDuration: 300).violation(libraryItem("/m/b.flac", duration: 320))
        #expect(minutes == "\u{201C}b.flac\u{201D} is 5 min 20 s long, longer than the 5 min maximum.")
    }

    @Test func unknownDurationFailsDurationLimits() {
        let v = LibraryConstraints(minDuration: 1).violation(libraryItem("/m/q.ogg", duration: nil))
        #expect(v?.contains("no known duration") == true)
    }

    @Test func sampleRate() {
        let c = LibraryConstraints(minSampleRate: 44100)
        #expect(c.violation(libraryItem("/m/lofi.mp3", sampleRate: 22050))
                == "\u{201C}lofi.mp3\u{201D} is at 22,050 Hz, below the 44,100 Hz minimum.")
        #expect(c.check(libraryItem("/m/lofi.mp3", sampleRate: 22050))?.suggestion == "Lower --min-sample-rate to 22050 or less to keep it.")
        #expect(c.violation(libraryItem("/m/cd.flac", sampleRate: 44100)) == nil)
        #expect(c.violation(libraryItem("/m/hi.flac", sampleRate: 96000)) == nil)
    }

    @Test func channels() {
        let c = LibraryConstraints(channels: 2)
        #expect(c.violation(libraryItem("/m/mono.wav", channels: 1))
                == "\u{201C}mono.wav\u{201D} has 1 channel (mono), not the 2 channels (stereo) required.")
        #expect(c.violation(libraryItem("/m/st.wav", channels: 2)) == nil)
        #expect(LibraryConstraints(channels: 1).violation(libraryItem("/m/51.wav", channels: 6))
                == "\u{201C}51.wav\u{201D} has 6 channels, not the 1 channel (mono) required.")
    }

    @Test func durationCheckedFirst() {
        let c = LibraryConstraints(minDuration: 30, minSampleRate: 44100, channels: 2)
        let v = c.violation(libraryItem("/m/x.wav", duration: 2, sampleRate: 8000, channels: 1))
        #expect(v?.contains("shorter than") == true)
    }

    @Test func validation() throws {
        #expect(throws: ToolError.self) { try LibraryConstraints(minDuration: 60, maxDuration: 30).validate() }
        #expect(throws: ToolError.self) { try LibraryConstraints(minDuration: -1).validate() }
        #expect(throws: ToolError.self) { try LibraryConstraints(maxDuration: .nan).validate() }
        #expect(throws: ToolError.self) { try LibraryConstraints(minSampleRate: 0).validate() }
        #expect(throws: ToolError.self) { try LibraryConstraints(channels: 0).validate() }
        try LibraryConstraints(minDuration: 30, maxDuration: 30, minSampleRate: 44100, channels: 2).validate()
    }

    @Test func durationText() {
        #expect(LibraryText.duration(4.2) == "4.2 s")
        #expect(LibraryText.duration(30) == "30 s")
        #expect(LibraryText.duration(59.97) == "1 min")
        #expect(LibraryText.duration(200) == "3 min 20 s")
        #expect(LibraryText.duration(3600) == "1 h")
        #expect(LibraryText.duration(3725) == "1 h 02 min")
    }
}
