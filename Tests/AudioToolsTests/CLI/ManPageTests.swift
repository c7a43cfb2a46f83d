import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct RoffTests {
    @Test func escapesBackslashesAndHyphens() {
        #expect(Roff.escape(#"--peak a\b"#) == #"\-\-peak a\eb"#)
        #expect(Roff.line(".hidden") == #"\&.hidden"#)
        #expect(Roff.line("'quoted") == #"\&'quoted"#)
        #expect(Roff.line("plain") == "plain")
    }

    @Test func inlineMarkdown() {
        #expect(Roff.inline("use `--jobs 2` **now**, *maybe*") == #"use \fB\-\-jobs 2\fR \fBnow\fR, \fImaybe\fR"#)
        #expect(Roff.inline("see [lufs-measure](lufs-measure.md) and [the format](docs/records.md)", tools: ToolCatalog.names)
                == #"see \fBlufs\-measure\fR(1) and \fBaudio\-tools\-records\fR(7)"#)
        // Only the tools it is handed are pages of their own.
        #expect(Roff.inline("see [lufs-measure](lufs-measure.md)") == #"see lufs\-measure"#)
        #expect(Roff.inline("a * b and an unclosed `tick") == "a * b and an unclosed `tick")
    }

    @Test func tableCellsKeepPipesInsideCode() {
        #expect(Roff.tableCells("| 1 | closed early (e.g. `| head`) |") == ["1", "closed early (e.g. `| head`)"])
        #expect(Roff.tableCells(#"| a \| b | c |"#) == ["a | b", "c"])
    }

    @Test func markdownBlocks() {
        let md = """
            # Title words

            > A note for readers of the Markdown.

            Intro line one
            continues here.

            ## What it does

            - first item
              wraps on
            - second

            | code | meaning |
            | --- | --- |
            | `x-y` | the meaning |

            <!-- setup: a hidden set-up,
            over two lines -->
            <!-- expect: exit 1 -->
            ```sh
            .start -x
            ```
            """
        let (title, body) = Roff.markdown(md)
        #expect(title == "Title words")
        #expect(body == """
            .SH DESCRIPTION
            .PP
            Intro line one continues here.
            .SH "WHAT IT DOES"
            .IP \\(bu 2
            first item wraps on
            .IP \\(bu 2
            second
            .TP
            \\fBx\\-y\\fR
            the meaning
            .PP
            .RS 4
            .nf
            \\&.start \\-x
            .fi
            .RE
            """)
    }
}

@Suite struct ManPageTests {
    @Test func everyToolPageHasTheSectionsAndEveryVisibleOption() {
        for info in ToolCatalog.all {
            let page = ManPage.tool(info, others: ToolCatalog.names)
            let sections = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
            let at = sections.map { page.range(of: "\n.SH \($0)\n")?.lowerBound }
            #expect(!at.contains(nil), "\(info.name): \(sections) missing")
            #expect(at.compactMap { $0 } == at.compactMap { $0 }.sorted(), "\(info.name): sections out of order")
            for o in info.options + HelpText.common {
                let tag = "\\fB\\-\\-" + Roff.escape(o.name) + "\\fR"
                #expect(page.contains(tag) == !o.hidden, "\(info.name) --\(o.name)")
            }
            for other in ToolCatalog.names where other != info.name {
                #expect(page.contains(".BR " + Roff.escape(other) + " (1)"))
            }
            #expect(!page.contains(".BR " + Roff.escape(info.name) + " (1)"), "\(info.name) refers to itself")
            #expect(page.contains(".BR audio\\-tools\\-records (7)"))
            #expect(page.contains("\"audio\\-tools \(AudioToolsVersion.string)\""))
        }
    }

    @Test func customExitStatusIsReadBackIntoRows() {
        let status = HelpText.exitStatus(LibraryFilter.info)
        #expect(status.rows.map(\.0) == ["0", "1", "2"])
        #expect(status.rows[0].1.hasPrefix("the run worked"))
        #expect(status.notes.count == 1 && status.notes[0].hasPrefix("Output is the usable songs"))
        let standard = HelpText.exitStatus(LufsMeasure.info)
        #expect(standard.rows.map(\.0) == ["0", "1", "2"])
        #expect(standard.rows[0].1 == "every record succeeded (and the gate passed)")
    }

    @Test func recordsPageNamesEveryErrorCode() throws {
        let md = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/records.md"), encoding: .utf8)
        let page = ManPage.records(markdown: md, tools: ToolCatalog.names)
        #expect(page.contains(".TH AUDIO\\-TOOLS\\-RECORDS 7"))
        for code in ErrorCode.allCases {
            #expect(page.contains(".TP\n\\fB" + Roff.escape(code.rawValue) + "\\fR\n"), "\(code.rawValue) missing from docs/records.md's table")
        }
        for tool in ToolCatalog.names { #expect(page.contains(".BR " + Roff.escape(tool) + " (1)")) }
    }
}

@Suite struct OptionValuesTests {
    @Test func placeholdersFileAndDirMeanPaths() {
        #expect(OptionSpec.value("junit", "FILE", help: "h").values == .file)
        #expect(OptionSpec.value("out-dir", "DIR", help: "h").values == .directory)
        #expect(OptionSpec.value("target", "LUFS", help: "h").values == .text)
        #expect(OptionSpec.value("t", "FILE", help: "h", values: .text).values == .text)
        #expect(OptionSpec.value("p", "NAME", help: "h", values: .choices(["a"])).choices == ["a"])
        #expect(OptionSpec.flag("x", help: "h").values == .text)
    }

    @Test func enumeratedOptionsOfferWhatTheToolsAccept() {
        func spec(_ info: ToolInfo, _ name: String) -> OptionSpec? { info.options.first { $0.name == name } }
        #expect(spec(LufsMeasure.info, "preset")?.choices == LoudnessPreset.all.map(\.name))
        #expect(spec(LufsNormalize.info, "preset")?.choices == LoudnessPreset.all.map(\.name))
        #expect(spec(LufsNormalize.info, "peak")?.choices == PeakMode.allCases.map(\.rawValue))
        #expect(spec(LufsNormalize.info, "format")?.choices == LufsNormalizeFormat.formats.keys.sorted() + MediaAudioEncoding.m4aFormats)
        for layout in spec(LufsMeasure.info, "layout")?.choices ?? [] { #expect((try? ChannelLayout.parse(layout)) != nil, "\(layout)") }
        for depth in spec(LufsNormalize.info, "bit-depth")?.choices ?? [] { #expect(LufsNormalizeFormat.Depth(depth) != nil, "\(depth)") }
        #expect(spec(LufsMeasure.info, "layout")?.choices.contains("5.1") == true)
        #expect(spec(LufsMeasure.info, "layout")?.choices.contains("stereo") == true)
    }

    @Test func generatorOptionsAreHiddenButParsed() throws {
        let help = HelpText.render(LufsMeasure.info)
        #expect(!help.contains("generate"))
        let parsed = try ParsedOptions.parse(["--generate-completion", "fish", "--generate-man"], specs: LufsMeasure.info.options + HelpText.common)
        #expect(parsed.string("generate-completion") == "fish" && parsed.flag("generate-man"))
        #expect(throws: UsageError("Unknown option '--gen'.")) {
            try ParsedOptions.parse(["--gen"], specs: LufsMeasure.info.options + HelpText.common)
        }
    }
}

@Suite struct ShellCompletionTests {
    @Test func everyScriptNamesEveryVisibleOptionAndChoice() {
        for info in ToolCatalog.all {
            for shell in ShellCompletion.shells {
                // The header comment names the generator's own option; the code must not offer it.
                let script = ShellCompletion.script(shell, for: info)!.split(separator: "\n")
                    .filter { !$0.hasPrefix("# ") }.joined(separator: "\n") + "\n"
                for o in info.options + HelpText.common {
                    let spelled = shell == "fish" ? " -l \(o.name) " : "--\(o.name)"
                    #expect(script.contains(spelled) == !o.hidden, "\(shell) \(info.name) --\(o.name)")
                    for c in o.choices where !o.hidden { #expect(script.contains(c), "\(shell) \(info.name) --\(o.name) \(c)") }
                }
            }
        }
    }

    @Test func pathOptionsCompletePaths() {
        let bash = ShellCompletion.bash(VoAlign.info)
        #expect(bash.contains("        --reference) what=-f ;;"))
        #expect(bash.contains("        --out-dir) what=-d ;;"))
        #expect(bash.contains("        --duck-db) return 0 ;;"))
        #expect(bash.contains("complete -F _audio_tools_vo_align vo-align\n"))
        let zsh = ShellCompletion.zsh(VoAlign.info)
        #expect(zsh.hasPrefix("#compdef vo-align\n"))
        #expect(zsh.contains(":dir:_files -/'"))
        let fish = ShellCompletion.fish(LufsMeasure.info)
        #expect(fish.contains("complete -c lufs-measure -l junit -r -F -d "))
        #expect(fish.contains("complete -c lufs-measure -s j -l jobs -x -d "))
    }

    @Test func descriptionsAreFirstSentences() {
        #expect(ShellCompletion.summary("Show this help and exit.") == "Show this help and exit")
        #expect(ShellCompletion.summary("Files at once (default: 4). Never mind.") == "Files at once (default: 4)")
        #expect(ShellCompletion.zshDescription("a [b]: c") == #"a \[b\]\: c"#)
        #expect(ShellCompletion.fishQuoted("it's") == #"'it\'s'"#)
    }
}
