import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A record's measurement is used only when it is of the file as it is now.
@Suite struct RecordedLoudnessTests {
    let id = FileIdentity(sizeBytes: 1000, modifiedNanoseconds: 5, changedNanoseconds: 7)

    @Test func aMeasurementOfTheFileAsItIsIsUsed() throws {
        let l: JSON = .object(["integrated_lufs": .double(-20.5), "true_peak_dbtp": .double(-3.25), "file": id.json])
        let r = try RecordedLoudness.check(l, identity: id, path: "a.wav")
        #expect(r.measured?.integrated == -20.5 && r.measured?.truePeak == -3.25 && r.note == nil)
        // Silence is measured as null, which is a measurement too.
        let silent: JSON = .object(["integrated_lufs": .null, "file": id.json])
        let s = try RecordedLoudness.check(silent, identity: id, path: "a.wav")
        #expect(s.measured != nil && s.measured?.integrated == nil)
    }

    @Test func noMeasurementOrNoIdentityMeansMeasuringHere() throws {
        let none = try RecordedLoudness.check(nil, identity: id, path: "a.wav")
        #expect(none.measured == nil && none.note?.contains("no loudness measurement") == true)
        let anonymous = try RecordedLoudness.check(.object(["integrated_lufs": .double(-20)]), identity: id, path: "a.wav")
        #expect(anonymous.measured == nil && anonymous.note?.contains("no file identity") == true)
    }

    /// A record of an older audio-tools (`modified_ns`, no change time) can't show an edit whose
    /// modification time was put back: it is read, and the file measured here.
    @Test func anOlderRecordIsReadAndTheFileMeasuredHere() throws {
        let older: JSON = .object(["integrated_lufs": .double(-20), "file": .object(["size_bytes": .int(1000), "modified_ns": .int(5)])])
        let r = try RecordedLoudness.check(older, identity: id, path: "a.wav")
        #expect(r.measured == nil && r.note == RecordedLoudness.olderRecordNote)
        let grown = FileIdentity(sizeBytes: 1001, modifiedNanoseconds: 5, changedNanoseconds: 7)
        #expect(throws: RecordedLoudness.Refusal.self) { try RecordedLoudness.check(older, identity: grown, path: "a.wav") }
    }

    @Test func aStaleOrBrokenMeasurementIsRefused() {
        let changed = FileIdentity(sizeBytes: 1200, modifiedNanoseconds: 9, changedNanoseconds: 7)
        let l: JSON = .object(["integrated_lufs": .double(-20), "file": id.json])
        #expect(throws: RecordedLoudness.Refusal.stale(measured: id, now: changed, tagging: false)) { try RecordedLoudness.check(l, identity: changed, path: "a.wav") }
        let e = RecordedLoudness.Refusal.stale(measured: id, now: changed, tagging: false).toolError(path: "a b.wav")
        #expect(e.message.contains("size 1000 → 1200 bytes, modified since") && e.suggestion.contains("lufs-measure 'a b.wav'"))
        let text: JSON = .object(["integrated_lufs": .string("loud"), "file": id.json])
        #expect(throws: RecordedLoudness.Refusal.notANumber) { try RecordedLoudness.check(text, identity: id, path: "a.wav") }
    }

    @Test func eachStreamFindsItsOwnMeasurement() {
        let one: JSON = .object(["integrated_lufs": .double(-20)])
        #expect(RecordedLoudness.stream(one, ordinal: 0) == one && RecordedLoudness.stream(one, ordinal: 1) == nil)
        let second: JSON = .object(["integrated_lufs": .double(-21), "stream": .int(1)])
        #expect(RecordedLoudness.stream(second, ordinal: 1) == second && RecordedLoudness.stream(second, ordinal: 0) == nil)
        let e0: JSON = .object(["stream": .int(0), "integrated_lufs": .double(-22)])
        let e2: JSON = .object(["stream": .int(2), "integrated_lufs": .double(-23)])
        let all: JSON = .object(["integrated_lufs": .double(-22), "streams": .array([e0, e2])])
        #expect(RecordedLoudness.stream(all, ordinal: 2) == e2 && RecordedLoudness.stream(all, ordinal: 0) == e0)
        #expect(RecordedLoudness.stream(nil, ordinal: 0) == nil && RecordedLoudness.stream(.string("x"), ordinal: 0) == nil)
    }
}
