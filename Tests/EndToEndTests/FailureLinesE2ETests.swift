import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A record that fails gets one line on stderr, `tool: file: code: message`, from the stage where
/// it failed only; `--quiet` leaves it out. The records themselves are unchanged.
@Suite struct FailureLinesE2ETests {
    /// A folder with one good file and one that isn't audio.
    static func folder() throws -> (dir: String, good: String, bad: String) {
        let dir = E2E.tempDir("faillines")
        let good = dir + "/good.wav", bad = dir + "/bad.wav"
        try E2E.write(good, rate: 48000, channels: [E2E.sine(997, dBFS: -20, seconds: 1, rate: 48000)])
        try Data("this is not a wave file at all".utf8).write(to: URL(fileURLWithPath: bad))
        return (dir, good, bad)
    }

    /// The line a failed record should have on stderr, from its own error.
    static func line(_ tool: String, _ record: JSON) -> String {
        let e = record["error"]!
        return "\(tool): \(record["path"]!.stringValue!): \(e["code"]!.stringValue!): \(e["message"]!.stringValue!)\n"
    }

    @Test func aRefusalIsSaidOnStderrOnceUnlessQuiet() throws {
        let (dir, good, bad) = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try E2E.run("lufs-measure", [good, bad])
        #expect(r.status == 1)
        let failed = r.records.filter { $0["error"] != nil }
        #expect(failed.count == 1 && failed.first?["path"]?.stringValue == bad)
        let expected = Self.line("lufs-measure", failed[0])
        #expect(r.stderr.components(separatedBy: expected).count == 2, "said once: \(r.stderr)")
        #expect(!r.stderr.contains(good))

        let quiet = try E2E.run("lufs-measure", ["--quiet", good, bad])
        #expect(quiet.status == 1 && quiet.stdout == r.stdout)
        #expect(!quiet.stderr.contains(bad), "\(quiet.stderr)")
    }

    /// `lufs-measure | lufs-normalize`: the file refused by the measurement is said by
    /// lufs-measure only; lufs-normalize passes its record on without a line of its own, and
    /// says what fails in its own stage.
    @Test func aRecordThatCameInFailedIsNotSaidAgain() throws {
        let (dir, good, bad) = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let measured = try E2E.run("lufs-measure", [good, bad])
        // The output exists already, so the good file is refused here (exists) in this stage.
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: dir + "/out/good.wav"))
        let n = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: measured.stdout)
        #expect(n.status == 1)
        #expect(!n.stderr.contains(bad), "\(n.stderr)")
        let own = n.records.first { $0["path"]?.stringValue == good }!
        #expect(own["error"]?["code"]?.stringValue == "exists")
        #expect(n.stderr.contains(Self.line("lufs-normalize", own)), "\(n.stderr)")
    }

    /// An input line that isn't a record is told about too, by its place.
    @Test func anInputLineThatIsNotARecord() throws {
        let r = try E2E.run("audio-probe", [], stdin: "{\"no path\": 1}\n")
        #expect(r.status == 1)
        let failed = try #require(r.records.first)
        let e = failed["error"]!
        #expect(r.stderr.contains("audio-probe: standard input: \(e["code"]!.stringValue!): \(e["message"]!.stringValue!)\n"), "\(r.stderr)")
        let lf = try E2E.run("library-filter", [], stdin: "{\"no path\": 1}\n")
        #expect(lf.status == 1)
        #expect(lf.stderr.contains("library-filter: standard input: \(e["code"]!.stringValue!): \(e["message"]!.stringValue!)\n"), "\(lf.stderr)")
        #expect(!(try E2E.run("library-filter", ["--quiet"], stdin: "{\"no path\": 1}\n")).stderr.contains("standard input: "))
    }
}
