import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

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

    @Test func verbatimTextIsWrittenAsItIsAndReadLikeTheParsedValue() throws {
        let value = try JSON.parse(#"{"a":[1e3,-0,true,null],"m":{"a":"é\n","b":"x \"q\""},"z":1.50}"#)
        let text = value.serialized()
        let raw = try #require(JSON.verbatim(text))
        #expect(raw.serialized() == text)
        #expect(raw == value && value == raw)
        #expect(raw["m"]?["b"]?.stringValue == "x \"q\"")
        #expect(raw["z"]?.doubleValue == 1.5)
        #expect(raw["a"]?.arrayValue?.count == 4)
        // Inside a record it is spliced in place: the same line as the parsed value gives.
        #expect(JSON.object(["k": raw, "b": .int(2)]).serialized() == JSON.object(["k": value, "b": .int(2)]).serialized())
    }

    @Test(arguments: ["", " 1", #"{"a": 1}"#, #"{"a":1"#, "[1,]", #""a\u12""#, #""a\u0001" "#, "nul", "1.", #"{"a":1}{}"#, "\"tab\there\""])
    func verbatimRefusesWhatIsNotCompactJSON(_ text: String) {
        #expect(JSON.verbatim(text) == nil)
    }

    @Test func membersSplitTheTopLevelOnly() throws {
        let text = #"{"k\"ey":[1,{"x":"}"}],"plain":"a,b","n":null,"o":{"refusal":1}}"#
        let m = try #require(JSON.members(text))
        #expect(m.count == 4)
        #expect(m["k\"ey"]?.serialized() == #"[1,{"x":"}"}]"#)
        #expect(m["plain"]?.stringValue == "a,b")
        #expect(m["n"]?.isNullText == true)
        #expect(m["o"]?["refusal"]?.intValue == 1)
        #expect(JSON.object(m).serialized() == (try JSON.parse(text)).serialized())
        #expect(JSON.members("{}")?.isEmpty == true)
        // Scalars read from their text as the parser would read them.
        let scalars = try #require(JSON.members(#"{"a":-1.50e3,"b":true,"c":false,"d":null,"e":"x\u00e9\"","f":"plain"}"#))
        for (k, v) in scalars { #expect(v.resolved == (try JSON.parse(v.serialized())), "\(k)") }
        #expect(scalars["a"]?.resolved == .number("-1.50e3") && scalars["f"]?.resolved == .string("plain"))
        for bad in ["[1]", "{\"a\":1,\"a\":2}", "{\"a\":1} ", "{\"a\" :1}", "{\"a\":1,}", "{"] {
            #expect(JSON.members(bad) == nil, "\(bad)")
        }
        // Picking keeps only the members asked for, still as text.
        let picked = try #require(JSON.verbatim(text)).picking(["plain", "o", "absent"])
        #expect(picked.objectValue?.keys.sorted() == ["o", "plain"])
        #expect(picked["o"]?.serialized() == #"{"refusal":1}"#)
        // Opening a raw object gives its members, still as text.
        let opened = try #require(JSON.verbatim(text)).opened
        #expect(opened.objectValue?.count == 4)
        #expect(opened.serialized() == (try JSON.parse(text)).serialized())
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

    /// Each member of a compact object, key and value as written; anything else is refused.
    @Test func forEachMemberWalksACompactObject() {
        func members(_ text: String) -> [String]? {
            var t = text, seen: [String] = []
            let ok = t.withUTF8 { JSON.forEachMember(of: $0) { k, v in
                seen.append(String(decoding: k, as: UTF8.self) + "=" + String(decoding: v, as: UTF8.self))
            } }
            return ok ? seen : nil
        }
        #expect(members(#"{"a":1,"b":{"c":[1,2]},"d\"e":"x\ny","f":null}"#) == ["a=1", #"b={"c":[1,2]}"#, #"d\"e="x\ny""#, "f=null"])
        #expect(members("{}") == [])
        for bad in ["", "[1]", #"{"a":1"#, #"{"a":1}x"#, #"{"a" :1}"#, #"{"a":}"#, #"{"a":1,}"#, "{,}"] {
            #expect(members(bad) == nil, "\(bad)")
        }
    }
}

