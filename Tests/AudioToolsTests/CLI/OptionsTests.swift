import Foundation
import Testing
@testable import AudioTools

@Suite struct OptionsTests {
    let specs: [OptionSpec] = [
        .value("target", "LUFS", help: "t"),
        .value("tag", "T", help: "t", repeatable: true),
        .flag("dual-mono", help: "d"),
    ] + HelpText.common

    @Test func bothSpellingsOfValues() throws {
        let a = try ParsedOptions.parse(["--target", "-14", "x.wav", "--jobs=3", "--dual-mono"], specs: specs)
        #expect(try a.double("target") == -14)
        #expect(a.paths == ["x.wav"])
        #expect(try a.int("jobs") == 3)
        #expect(a.flag("dual-mono"))
        let b = try ParsedOptions.parse(["--target=-23.5", "-j4"], specs: specs)
        #expect(try b.double("target") == -23.5)
        #expect(try b.int("jobs") == 4)
    }

    @Test func repeatedNonRepeatableIsAnError() {
        #expect(throws: UsageError.self) { try ParsedOptions.parse(["--target", "1", "--target", "2"], specs: specs) }
        #expect((try? ParsedOptions.parse(["--tag", "a", "--tag=b"], specs: specs).strings("tag")) == ["a", "b"])
    }

    @Test func errorsNameTheOption() {
        #expect(throws: UsageError("Unknown option '--targte'. Did you mean --target?")) {
            try ParsedOptions.parse(["--targte", "1"], specs: specs)
        }
        #expect(throws: UsageError("--target needs a value <LUFS>.")) { try ParsedOptions.parse(["--target"], specs: specs) }
        #expect(throws: UsageError("--dual-mono takes no value.")) { try ParsedOptions.parse(["--dual-mono=1"], specs: specs) }
        let p = try! ParsedOptions.parse(["--target", "loud"], specs: specs)
        #expect(throws: UsageError("--target: 'loud' is not a number.")) { try p.double("target") }
    }

    @Test func dashDashAndStdin() throws {
        let a = try ParsedOptions.parse(["-", "--", "--weird-name.wav"], specs: specs)
        #expect(a.paths == ["-", "--weird-name.wav"])
    }
}
