import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Numbers given to options are read without the spaces and tabs around them, exactly as
/// Foundation's `trimmingCharacters(in: .whitespaces)` would leave them.
@Suite struct OptionTrimTests {
    @Test(arguments: ["-16", " -16", "-16\t", " \t 3.5 \u{00A0}", "\u{2003}12\u{3000}", "", "  ", "a b", " 1 2 ", "\n7\n", "é\u{301} "])
    func trimsAsFoundationDoes(_ s: String) {
        #expect(String(ParsedOptions.trimmed(s)) == s.trimmingCharacters(in: .whitespaces))
    }
}
