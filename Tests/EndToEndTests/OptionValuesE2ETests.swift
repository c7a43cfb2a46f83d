import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Every option that takes a value, of every tool, read from the tools' own declarations: a wrong
/// value is a usage error (status 2) that names the option, never a crash. Enumerated values take
/// any case and are read in their declared spelling.
@Suite struct OptionValuesE2ETests {
    /// Options whose value is a path to create or free text, which no value can make wrong before
    /// the run: any name is a file or folder the tool may write, any words a search.
    static let exempt: Set<String> = [
        "cache",            // the SQLite file, created when missing
        "junit",            // the JUnit report to write
        "report",           // the report folder, created when missing
        "timeline-csv",     // the folder of timeline tables, created when missing
        "out-dir",          // the output folder, created when missing
        "relative-to",      // any folder the paths on stdin may lie under
        "output",           // the one output file to write
        "page-info",        // the page-info file to write
        "mix",              // the mix file to write
        "query",            // bare words are a search
    ]

    /// What makes the rest of a tool's command line valid, so the option under test is the only
    /// thing wrong (pairs of option and value; a pair naming the option under test is left out).
    /// `--report REPORT` (a folder the tool creates as it starts) shows that the wrong value is
    /// refused before anything is touched.
    static let base: [String: [[String]]] = [
        "lufs-measure": [["--report", "REPORT"]],
        "lufs-normalize": [["--target", "-16"], ["--output-template", "{dir}/{stem}.n.{ext}"], ["--report", "REPORT"]],
        "vo-align": [["--latency-ms", "0"]],
    ]

    @Test func everyWrongValueIsAUsageErrorNamingItsOption() throws {
        let dir = E2E.tempDir("optval")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let take = dir + "/never-read.wav"
        var checked = 0
        for info in ToolCatalog.all {
            for spec in info.options + HelpText.common where !Self.exempt.contains(spec.name) {
                guard case .value = spec.kind else { continue }
                let wrong: String
                switch spec.type {
                case .number, .whole: wrong = "-5x"
                case .text, .choice: wrong = dir + "/bogus-value"
                }
                let report = dir + "/report"
                let rest = (Self.base[info.name] ?? []).filter { $0[0] != "--" + spec.name }.flatMap { $0 }
                    .map { $0 == "REPORT" ? report : $0 }
                let r = try E2E.run(info.name, rest + ["--" + spec.name, wrong, take])
                let what = "\(info.name) --\(spec.name) \(wrong): status \(r.status), stderr \(r.stderr)"
                #expect(r.status == 2, "\(what)")
                #expect(r.stderr.contains("--" + spec.name), "\(what)")
                #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"), "\(what)")
                #expect(r.stdout.isEmpty, "\(what)")
                #expect(!FileManager.default.fileExists(atPath: report), "\(what): the report folder was made")
                checked += 1
            }
        }
        #expect(checked > 60, "the tools declare more value options than were checked: \(checked)")
        let declared = Set(ToolCatalog.all.flatMap { $0.options.map(\.name) })
        #expect(Self.exempt.isSubset(of: declared), "an exempt option no tool declares: \(Self.exempt.subtracting(declared))")
    }

    /// A mistyped option is answered with the nearest declared one.
    @Test func aTypoGetsDidYouMean() throws {
        let r = try E2E.run("lufs-measure", ["--traget", "-16", "f.wav"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("lufs-measure: error: Unknown option '--traget'. Did you mean --target?\n"))
    }

    /// The issue's repro: an unknown QC preset named the choices instead of crashing, and one in
    /// capitals is the preset itself, with the same record.
    @Test func qcPresetsAndOtherChoicesTakeAnyCase() throws {
        let dir = E2E.tempDir("optcase")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/f.wav"
        try E2E.write(f, rate: 48000, channels: [E2E.sine(997, dBFS: -20, seconds: 2, rate: 48000)])
        let unknown = try E2E.run("lufs-measure", ["--qc-preset", "spotify", f])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--qc-preset: 'spotify' is not one of: \(QCGate.presetNames.joined(separator: ", ")).\n"))
        let lower = try E2E.run("lufs-measure", ["--qc-preset", "acx", f])
        let upper = try E2E.run("lufs-measure", ["--qc-preset", "ACX", f])
        #expect(upper.status == lower.status && upper.status != 2)
        #expect(upper.stdout == lower.stdout && !upper.stdout.isEmpty)
        let preset = try E2E.run("lufs-measure", ["--preset", "Podcast", f])
        #expect(preset.stdout == (try E2E.run("lufs-measure", ["--preset", "podcast", f])).stdout)
        #expect(preset.stdout.contains("\"podcast\""))
        let mp3 = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "MP3", "--allow-loss", "--out-dir", dir + "/out", f])
        #expect(mp3.status == 0, "\(mp3.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/out/f.mp3"))
    }
}
