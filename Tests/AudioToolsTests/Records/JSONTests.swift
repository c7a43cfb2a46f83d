import Testing
@testable import AudioTools

@Suite struct JSONTests {
    @Test func roundTripsNumbersAndSortsKeys() throws {
        let text = #"{"z":1.50,"a":[1e3,-0,true,null],"m":{"b":"x","a":"\u00e9\n"}}"#
        let v = try JSON.parse(text)
        #expect(v.serialized() == #"{"a":[1e3,-0,true,null],"m":{"a":"é\n","b":"x"},"z":1.50}"#)
    }

    @Test func surrogatePairsAndEscapes() throws {
        let v = try JSON.parse(#""\ud83c\udfb5 \"q\" \\ \/""#)
        #expect(v.stringValue == "🎵 \"q\" \\ /")
        #expect(JSON.string("a\u{01}b").serialized() == #""a\u0001b""#)
    }

    @Test(arguments: ["{", "{\"a\":}", "[1,]", "01", "tru", "\"abc", "{\"a\":1} x", "-", "1.", "{'a':1}"])
    func rejectsInvalid(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSON.parse(text) }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(throws: JSONParseError.self) { try JSON.parse(deep) }
    }

    @Test func doublesAreDeterministicAndFinite() {
        #expect(JSON.double(-23.0049, decimals: 2).serialized() == "-23")
        #expect(JSON.double(-23.456, decimals: 2).serialized() == "-23.46")
        #expect(JSON.double(-0.0).serialized() == "0")
        #expect(JSON.double(.nan) == .null)
        #expect(JSON.double(-.infinity) == .null)
        #expect(JSON.int(48000).serialized() == "48000")
    }
}

@Suite struct RecordReaderTests {
    @Test func barePathKeepsSpaces() {
        let r = RecordReader.record(fromLine: " my song.wav\r", tool: "t")
        #expect(r?.path == " my song.wav")
    }

    @Test func blankLinesAreSkipped() {
        #expect(RecordReader.record(fromLine: "   ", tool: "t") == nil)
    }

    @Test func objectKeepsItsFields() {
        let r = RecordReader.record(fromLine: #"{"path":"a.wav","custom":{"k":1.0}}"#, tool: "t")!
        #expect(!r.hasError)
        #expect(r.serialized() == #"{"custom":{"k":1.0},"path":"a.wav"}"#)
    }

    @Test(arguments: [#"{"path":1}"#, #"{"name":"a.wav"}"#, "{not json", "{\"path\":\"a\"} trailing"])
    func badInputBecomesAnErrorRecord(_ line: String) {
        let r = RecordReader.record(fromLine: line, tool: "lufs-measure")!
        #expect(r.errorCode == "bad-input")
        #expect(r["error"]?["tool"]?.stringValue == "lufs-measure")
        #expect(r["schema"]?.intValue == 1)
    }

    @Test func newerSchemaIsRefused() {
        let r = RecordReader.record(fromLine: #"{"path":"a.wav","schema":2}"#, tool: "t")!
        #expect(r.errorCode == "newer-schema")
        #expect(r["error"]?["message"]?.stringValue?.contains("“a.wav”") == true)
    }

    @Test func failedRecordsPassThroughUntouched() {
        let line = #"{"error":{"code":"empty","message":"m","suggestion":"s","tool":"x"},"path":"a.wav","schema":1}"#
        let r = RecordReader.record(fromLine: line, tool: "t")!
        #expect(r.serialized() == line)
    }
}
