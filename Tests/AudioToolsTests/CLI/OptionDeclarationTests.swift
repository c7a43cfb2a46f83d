import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// One declaration per option: its type, range, choices, default and rules drive parsing,
/// validation, --help and the completions.
@Suite struct OptionDeclarationTests {
    let specs: [OptionSpec] = [
        .number("target", "LUFS", in: -70...0, help: "t"),
        .number("tolerance", "LU", in: 0...30, help: "t", rules: [.needs("target", "preset")]),
        .number("duck", "DB", in: -60...0, default: -12, help: "d", rules: [.needs("mix", message: "--duck applies to --mix.")]),
        .number("start", "SECONDS|auto", in: 0...10, words: ["auto"], help: "s",
                invalid: { "--start: '\($0)' is neither a time nor auto." },
                rules: [.needs("reference", when: "auto", message: "--start auto needs --reference.")]),
        .whole("stream", "N", in: 0...1023, help: "s"),
        .whole("offset", "N", help: "o"),
        .choice("peak", "MODE", ["limit", "reduce"], default: "limit", help: "p"),
        .choice("preset", "NAME", ["ebu-r128", "social"], help: "p",
                invalid: { "--preset: '\($0)' is not a preset." }),
        .choice("album-by", "tag|folder", ["tag", "folder"], help: "a", completes: .text, rules: [.needs("album")]),
        .value("reference", "FILE", help: "r"),
        .value("mix", "FILE", help: "m"),
        .value("get", "ID", help: "g", repeatable: true,
               rules: [.conflicts("query", "limit", message: "--get can't be combined with --{other}.")]),
        .value("query", "Q", help: "q"),
        .whole("limit", "N", help: "l"),
        .flag("album", help: "a"),
        .flag("in-place", help: "i", rules: [
            .conflicts("out-dir", message: "--in-place: no --out-dir."),
            .conflicts("format", message: "--in-place: no --format."),
        ]),
        .value("out-dir", "DIR", help: "o"),
        .value("format", "F", help: "f"),
        .flag("no-cache", help: "n", rules: [.conflicts("cache")]),
        .value("cache", "FILE", help: "c"),
    ]

    func parse(_ args: [String]) throws -> ParsedOptions { try ParsedOptions.parse(args, specs: specs) }

    /// A wrong value is a usage error when the command line is parsed, before any tool reads it.
    @Test func valuesAreCheckedWhenParsed() throws {
        #expect(throws: UsageError("--peak: 'clip' is not one of: limit, reduce.")) { try parse(["--peak", "clip", "a.wav"]) }
        #expect(throws: UsageError("--target: '-5x' is not a number.")) { try parse(["--target", "-5x"]) }
        #expect(throws: UsageError("--stream: 'two' is not a whole number.")) { try parse(["--stream=two"]) }
        #expect(throws: UsageError("--start: 'soon' is neither a time nor auto.")) { try parse(["--start", "soon"]) }
    }

    @Test func numbersAreCheckedAgainstTheDeclaredRange() throws {
        #expect(try parse(["--target", " -23.5 "]).double("target") == -23.5)
        #expect(throws: UsageError("--target: 5 is out of range (-70 to 0).")) { try parse(["--target", "5"]).double("target") }
        #expect(throws: UsageError("--target: 'loud' is not a number.")) { try parse(["--target", "loud"]).double("target") }
        #expect(throws: UsageError("--target: 'inf' is not a number.")) { try parse(["--target", "inf"]).double("target") }
        #expect(throws: UsageError("--tolerance: 0.5e2 is out of range (0 to 30).")) { try parse(["--tolerance=0.5e2"]).double("tolerance") }
        #expect(try parse([]).double("target") == nil)
    }

    @Test func wholeNumbersToo() throws {
        #expect(try parse(["--stream", "3"]).int("stream") == 3)
        #expect(throws: UsageError("--stream: 1024 is out of range (0 to 1023).")) { try parse(["--stream", "1024"]).int("stream") }
        #expect(throws: UsageError("--stream: '1.5' is not a whole number.")) { try parse(["--stream", "1.5"]).int("stream") }
        #expect(try parse(["--offset", "-5"]).int("offset") == -5, "no range declared, none checked")
    }

    @Test func defaultsAreReadWhenTheOptionIsMissingButItIsNotGiven() throws {
        let o = try parse([])
        #expect(try o.number("duck") == -12)
        #expect(try o.chosen("peak") == "limit")
        #expect(!o.has("duck") && !o.has("peak"))
        #expect(try parse(["--duck", "-6"]).number("duck") == -6)
    }

    @Test func choicesAreCheckedWithTheirOwnWordingWhenTheyHaveOne() throws {
        #expect(try parse(["--peak", "reduce"]).choice("peak") == "reduce")
        #expect(throws: UsageError("--peak: 'clip' is not one of: limit, reduce.")) { try parse(["--peak", "clip"]).choice("peak") }
        #expect(throws: UsageError("--preset: 'radio' is not a preset.")) { try parse(["--preset", "radio"]) }
    }

    /// Every enumerated option takes any case and is read in its declared spelling (what records show).
    @Test func choicesAndWordsIgnoreCaseAndReadBackInTheirDeclaredSpelling() throws {
        #expect(try parse(["--peak", "Limit"]).choice("peak") == "limit")
        #expect(try parse(["--peak", "REDUCE"]).string("peak") == "reduce")
        #expect(try parse(["--preset", "EBU-R128"]).choice("preset") == "ebu-r128")
        #expect(try parse(["--start", "Auto"]).string("start") == "auto")
    }

    @Test func wordsBesideANumber() throws {
        let auto = try parse(["--start", "auto", "--reference", "r.wav"])
        try auto.validate()
        #expect(auto.string("start") == "auto")
        #expect(throws: UsageError("--start: 'soon' is neither a time nor auto.")) { try parse(["--start", "soon"]).validate() }
        #expect(throws: UsageError("--start: 'nan' is not a number.")) { try parse(["--start", "nan"]).validate() }
        #expect(throws: UsageError("--start: 11 is out of range (0 to 10).")) { try parse(["--start", "11"]).validate() }
    }

    @Test func needsRules() throws {
        #expect(throws: UsageError("--tolerance needs --target or --preset.")) { try parse(["--tolerance", "1"]).checkRules("tolerance") }
        try parse(["--tolerance", "1", "--preset", "social"]).checkRules("tolerance")
        #expect(throws: UsageError("--album-by needs --album.")) { try parse(["--album-by", "tag"]).checkRules("album-by") }
        #expect(throws: UsageError("--duck applies to --mix.")) { try parse(["--duck", "-3"]).checkRules("duck") }
        // A rule with a value applies only to that value.
        try parse(["--start", "3"]).checkRules("start")
        #expect(throws: UsageError("--start auto needs --reference.")) { try parse(["--start", "auto"]).checkRules("start") }
        // An option not given has no rules to break.
        try parse(["--target", "-23"]).checkRules("tolerance", "duck", "album-by")
    }

    @Test func conflictRulesNameTheOptionFound() throws {
        #expect(throws: UsageError("--get can't be combined with --limit.")) { try parse(["--get", "a", "--limit", "1"]).checkRules("get") }
        #expect(throws: UsageError("--get can't be combined with --query.")) {
            try parse(["--limit", "1", "--get", "a", "--query", "q"]).checkRules("get")
        }
        #expect(throws: UsageError("--cache and --no-cache contradict each other; give one.")) {
            try parse(["--no-cache", "--cache", "c"]).checkRules("no-cache")
        }
    }

    @Test func anOptionsRulesCanBeCheckedAtDifferentPoints() throws {
        let o = try parse(["--in-place", "--format", "flac"])
        try o.checkRules("in-place", about: "out-dir")
        #expect(throws: UsageError("--in-place: no --format.")) { try o.checkRules("in-place", about: "format") }
        #expect(throws: UsageError("--in-place: no --out-dir.")) {
            try parse(["--in-place", "--format", "flac", "--out-dir", "o"]).checkRules("in-place")
        }
    }

    @Test func requirementsMayWaitForRecordsOnStdin() throws {
        let need = [OptionRequirement(oneOf: ["reference", "target"], exceptReadingStdin: true, message: "Give one.")]
        #expect(throws: UsageError("Give one.")) { try parse(["a.wav"]).check(need) }
        try parse([]).check(need)
        try parse(["-"]).check(need)
        try parse(["--target", "-1", "a.wav"]).check(need)
        let always = [OptionRequirement(oneOf: ["reference"], message: "Give --reference.")]
        #expect(throws: UsageError("Give --reference.")) { try parse(["-"]).check(always) }
    }

    /// validate checks every value (table order), then the requirements, then every rule.
    @Test func validateChecksEverythingDeclaredInTableOrder() throws {
        #expect(throws: UsageError("--target: 'x' is not a number.")) { try parse(["--stream", "x", "--target", "x"]).validate() }
        #expect(throws: UsageError("--stream: 'x' is not a whole number.")) { try parse(["--tolerance", "1", "--stream", "x"]).validate() }
        let need = [OptionRequirement(oneOf: ["reference"], message: "Give --reference.")]
        #expect(throws: UsageError("Give --reference.")) { try parse(["--tolerance", "1", "a.wav"]).validate(requirements: need) }
        #expect(throws: UsageError("--tolerance needs --target or --preset.")) { try parse(["--album-by", "tag", "--tolerance", "1"]).validate() }
        try parse(["--target", "-23", "--tolerance", "1", "--album", "--album-by", "folder"]).validate()
    }

    @Test func helpAndCompletionsComeFromTheSameDeclaration() {
        let info = ToolInfo(name: "t", key: "k", abstract: "A tool.", options: specs)
        let help = HelpText.render(info)
        #expect(help.contains("  --target <LUFS>           t\n"))
        #expect(help.contains("  -j, --jobs <N>            Files processed at once"))
        let bash = ShellCompletion.bash(info)
        #expect(bash.contains("        --peak) words='limit reduce' ;;"))
        #expect(bash.contains("        --album-by) return 0 ;;"), "completes: .text keeps the completion free")
        #expect(bash.contains("        --reference) what=-f ;;"))
        #expect(bash.contains("        --out-dir) what=-d ;;"))
        let man = ManPage.tool(info, others: ["t", "u"])
        #expect(man.contains(".TP\n\\fB\\-\\-get\\fR \\fIID\\fR\ng\nMay be given more than once.\n"))
        #expect(man.contains(".BR u (1),\n.BR audio\\-tools\\-records (7)\n"))
    }

    @Test func jobsIsDeclaredWithItsRange() throws {
        #expect(throws: UsageError("--jobs: 0 is out of range (1 to 1024).")) { try ParsedOptions.parse(["-j", "0"], specs: HelpText.common) }
        #expect(try ParsedOptions.parse(["-j4"], specs: HelpText.common).jobs() == 4)
    }
}

/// The tools' inits check their declared rules where they checked them by hand before, with the
/// same words (the end-to-end tests run the executables; these make the tools directly).
@Suite struct ToolOptionRulesTests {
    func usage<T: RecordTool>(_ type: T.Type, _ args: [String]) -> String? {
        do {
            let o = try ParsedOptions.parse(args, specs: T.info.options + HelpText.common)
            _ = try T(options: o)
            try o.validate(requirements: T.info.requirements)
            return nil
        } catch let e as UsageError { return e.message } catch { return "\(error)" }
    }

    @Test func lufsMeasure() {
        #expect(usage(LufsMeasure.self, ["--tolerance", "2", "x.wav"]) == "--tolerance needs --target or --preset.")
        #expect(usage(LufsMeasure.self, ["--tolerance", "40", "x.wav"]) == "--tolerance: 40 is out of range (0 to 30).")
        #expect(usage(LufsMeasure.self, ["--junit", "j.xml", "x.wav"]) == "--junit needs a gate: give --preset or --target.")
        #expect(usage(LufsMeasure.self, ["--preset", "radio", "x.wav"])?.hasPrefix("--preset: 'radio' is not a preset; choose one of: ebu-r128") == true)
        #expect(usage(LufsMeasure.self, ["--album-by", "folder", "x.wav"]) == "--album-by needs --album.")
        #expect(usage(LufsMeasure.self, ["--album", "--album-by", "year", "x.wav"]) == "--album-by: 'year' is not one of: tag, folder.")
        #expect(usage(LufsMeasure.self, ["--decode-only", "--timeline", "x.wav"]) == "--decode-only measures nothing, so there is no --report or --timeline to give.")
        #expect(usage(LufsMeasure.self, ["--album", "--decode-only", "x.wav"]) == "--album measures loudness, so it can't be combined with --decode-only.")
        // Two errors: a wrong value is found when the command line is parsed, before any rule.
        #expect(usage(LufsMeasure.self, ["--tolerance", "2", "--max-true-peak", "9", "x.wav"]) == "--max-true-peak: 9 is out of range (-60 to 6).")
        #expect(usage(LufsMeasure.self, ["--tolerance", "2", "--stream", "x", "x.wav"]) == "--stream: 'x' is not a whole number.")
    }

    @Test func lufsNormalize() {
        #expect(usage(LufsNormalize.self, ["--dry-run", "--target", "-16", "--out-dir", "o", "x.wav"])
                == "--dry-run goes with --write-tags, --remove-tags or --lossless-gain (normalising into new files never touches the inputs anyway).")
        #expect(usage(LufsNormalize.self, ["--remove-tags", "--write-tags", "x.mp3"])
                == "--remove-tags only deletes the gain tags of the inputs, so it can't be combined with --write-tags.")
        #expect(usage(LufsNormalize.self, ["--remove-tags", "--album", "x.mp3"])
                == "--remove-tags only deletes the gain tags of the inputs, so it can't be combined with --album.")
        // An encoder's setting with a mode that writes no audio would be ignored: refused instead.
        #expect(usage(LufsNormalize.self, ["--remove-tags", "--bit-rate", "192k", "x.mp3"])
                == "--remove-tags only deletes the gain tags of the inputs, so it can't be combined with --bit-rate.")
        #expect(usage(LufsNormalize.self, ["--undo-lossless-gain", "--in-place", "--channels", "1", "x.mp3"])
                == "--undo-lossless-gain only restores the gain a lossless gain changed, so it can't be combined with --channels.")
        #expect(usage(LufsNormalize.self, ["--id3v2", "3", "--target", "-16", "--out-dir", "o", "x.mp3"])
                == "--id3v2 says which ID3v2 version --write-tags or --remove-tags saves; give one of them.")
        #expect(usage(LufsNormalize.self, ["--write-tags", "--id3v2", "2", "x.mp3"]) == "--id3v2: '2' is not one of: 3, 4.")
        #expect(usage(LufsNormalize.self, ["--remove-tags", "--dry-run", "--id3v2", "3", "x.mp3"]) == nil)
        #expect(usage(LufsNormalize.self, ["--write-tags", "--id3v2", "4", "x.mp3"]) == nil)
        #expect(usage(LufsNormalize.self, ["--target", "-16", "--in-place", "--out-dir", "o", "x.wav"])
                == "--in-place replaces the inputs, so it can't be combined with --out-dir or --output-template.")
        #expect(usage(LufsNormalize.self, ["--target", "-16", "--in-place", "--format", "flac", "x.wav"])
                == "--in-place keeps each file's name, so it can't change its --format; use --out-dir or --output-template.")
        #expect(usage(LufsNormalize.self, ["--target", "-16", "--out-dir", "o", "--decode-encode-only", "--report", "r", "x.wav"])
                == "--decode-encode-only normalises nothing, so there is no --report to draw.")
        #expect(usage(LufsNormalize.self, ["--target", "0", "--out-dir", "o", "x.wav"]) == "--target: 0 is out of range (-70 to -1).")
        #expect(usage(LufsNormalize.self, ["--target", "-16", "--out-dir", "o", "--bit-depth", "12", "x.wav"])
                == "--bit-depth: '12' is not one of: 8, 16, 24, 32, float.")
        #expect(usage(LufsNormalize.self, ["--dry-run", "--peak", "clip", "x.wav"]) == "--peak: 'clip' is not one of: limit, reduce, ignore.")
    }

    @Test func voAlign() {
        #expect(usage(VoAlign.self, ["x.wav"])
                == "Give --reference (the backing track, to find the latency from its bleed) or --latency-ms (the latency the recorder measured).")
        #expect(usage(VoAlign.self, ["--tolerance-ms", "3"]) == "--tolerance-ms applies to a latency measured from the reference; give --reference.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--start-at", "auto", "x.wav"]) == "--start-at auto searches the reference for the take: give --reference.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--start-at", "soon", "x.wav"]) == "--start-at: 'soon' is neither a time in seconds nor auto.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--correct-drift", "--start-at", "auto", "x.wav"])
                == "--correct-drift needs the drift measured from the bleed: give --reference.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--mix", "m.wav", "x.wav"]) == "--mix needs --reference: the mix is the reference with the voice over it.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--duck-db", "-3", "x.wav"]) == "--duck-db applies to --mix; give --mix FILE.")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "--duck-db", "3", "x.wav"]) == "--duck-db: 3 is out of range (-60 to 0).")
        #expect(usage(VoAlign.self, ["--latency-ms", "20", "x.wav"]) == nil)
    }

    @Test func libraryFilterAndCache() {
        #expect(usage(LibraryFilter.self, ["--get", "0123456789abcdef01234567", "--limit", "1"]) == "--get finds songs by id and can't be combined with --limit.")
        #expect(usage(LibraryFilter.self, ["--get", "xyz", "--limit", "1"]) == "--get: 'xyz' is not a library id (24 hex digits, as library.id shows).")
        #expect(usage(LibraryFilter.self, ["--limit", "x"]) == "--limit: 'x' is not a whole number.")
        #expect(usage(AudioProbe.self, ["--no-cache", "--cache", "c"]) == "--cache and --no-cache contradict each other; give one.")
    }
}
