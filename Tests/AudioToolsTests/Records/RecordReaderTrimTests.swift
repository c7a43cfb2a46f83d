import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The record reader trims a line as Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`
/// does, with or without Foundation.
@Suite struct RecordReaderTrimTests {
    @Test func theTrimIsFoundationsTrim() {
        var lines = ["", " ", "\n", "\r\n", "{\"path\":\"a\"}", " {\"path\":\"a\"}\r\n", "\t\u{0B}\u{0C}x y\t ", "x",
                     "\u{A0}{}\u{A0}", " \u{2028}x\u{85}", "é ", " é", "\u{3000}", "a\u{0301}", " \u{0301}a", "{}\u{FEFF}",
                     "\u{1C}x\u{1F}", "\0x\0", "\u{7F}x"]
        for b in 0..<128 {
            let c = String(UnicodeScalar(UInt8(b)))
            lines += [c, c + "x" + c, " " + c + "x" + c + " ", "x" + c]
        }
        for line in lines {
            #expect(RecordReader.trimmedOfSpace(line) == line.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(line.utf8))")
        }
    }
}
