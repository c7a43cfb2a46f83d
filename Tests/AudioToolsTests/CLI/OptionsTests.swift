import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

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

    /// A mistyped option is answered with the declared one nearest by edits, from the tool's own table.
    @Test func typosGetTheNearestDeclaredOption() {
        func hint<T: RecordTool>(_ type: T.Type, _ typed: String) -> String? {
            do { _ = try ParsedOptions.parse([typed, "1"], specs: T.info.options + HelpText.common); return nil } catch {
                return (error as? UsageError)?.message
            }
        }
        #expect(hint(LufsMeasure.self, "--traget") == "Unknown option '--traget'. Did you mean --target?")
        #expect(hint(LufsNormalize.self, "--traget") == "Unknown option '--traget'. Did you mean --target?")
        #expect(hint(LufsMeasure.self, "--qc-presets") == "Unknown option '--qc-presets'. Did you mean --qc-preset?")
        #expect(hint(LufsMeasure.self, "--tolerence") == "Unknown option '--tolerence'. Did you mean --tolerance?")
        #expect(hint(LufsNormalize.self, "--outdir") == "Unknown option '--outdir'. Did you mean --out-dir?")
        #expect(hint(LufsNormalize.self, "--dry") == "Unknown option '--dry'. Did you mean --dry-run?")
        #expect(hint(VoAlign.self, "--start") == "Unknown option '--start'. Did you mean --start-at?")
        #expect(hint(LufsMeasure.self, "--xyzzy") == "Unknown option '--xyzzy'.")
        #expect(hint(LufsMeasure.self, "--gen") == "Unknown option '--gen'.", "hidden options are never suggested")
    }

    @Test func editDistanceCountsASwapOfNeighboursAsOneEdit() {
        func d(_ a: String, _ b: String) -> Int { ParsedOptions.editDistance(Array(a.utf8), Array(b.utf8)) }
        #expect(d("traget", "target") == 1)
        #expect(d("", "abc") == 3 && d("abc", "") == 3)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("outdir", "out-dir") == 1)
        #expect(d("same", "same") == 0)
    }

    @Test func dashDashAndStdin() throws {
        let a = try ParsedOptions.parse(["-", "--", "--weird-name.wav"], specs: specs)
        #expect(a.paths == ["-", "--weird-name.wav"])
    }
}
