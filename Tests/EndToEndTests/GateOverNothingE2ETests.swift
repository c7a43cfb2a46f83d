import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A gate passes only on something measured: an empty folder, or nothing at all, fails it.
@Suite struct GateOverNothingE2ETests {
    @Test func emptyFolderFailsTheGate() throws {
        let dir = E2E.tempDir("nothing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let deliverables = dir + "/deliverables"
        try FileManager.default.createDirectory(atPath: deliverables, withIntermediateDirectories: true)
        let r = try E2E.run("lufs-measure", ["--preset", "ebu-r128", "--junit", dir + "/loudness.xml", deliverables + "/"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("no audio files found in “deliverables”"), "\(r.stderr)")
        let xml = try String(contentsOfFile: dir + "/loudness.xml", encoding: .utf8)
        #expect(xml.contains("errors=\"1\"") && xml.contains("<error message=\"no audio files found in"), "\(xml)")

        // Beside a folder that passes, the empty one still fails the run.
        let good = dir + "/good"
        try FileManager.default.createDirectory(atPath: good, withIntermediateDirectories: true)
        let tone = E2E.sine(1000, dBFS: -23, seconds: 4, rate: 48000)
        try E2E.write(good + "/tone.wav", rate: 48000, channels: [tone, tone])
        let both = try E2E.run("lufs-measure", ["--preset", "ebu-r128", good, deliverables])
        #expect(both.status == 1 && both.records.count == 1)
        #expect(both.records.first?["loudness"]?["gate"]?["pass"] == .bool(true))
        #expect(both.stderr.contains("no audio files found in “deliverables”"))
        let alone = try E2E.run("lufs-measure", ["--preset", "ebu-r128", good])
        #expect(alone.status == 0, "\(alone.stderr)")

        // Without a gate an empty folder is only a warning.
        let plain = try E2E.run("lufs-measure", [deliverables])
        #expect(plain.status == 0)
        #expect(plain.stderr.contains("no audio files found in “deliverables”"))
    }

    @Test func noInputAtAllFailsTheGate() throws {
        let r = try E2E.run("lufs-measure", ["--target", "-16"], stdin: "")
        #expect(r.status == 1)
        #expect(r.stderr.contains("no audio files"), "\(r.stderr)")
        let plain = try E2E.run("lufs-measure", [], stdin: "")
        #expect(plain.status == 0)
        // A QC gate alone is a gate too.
        let qc = try E2E.run("lufs-measure", ["--qc-preset", "streaming"], stdin: "")
        #expect(qc.status == 1 && qc.stderr.contains("no audio files"), "\(qc.stderr)")
    }

    @Test func shortTermMaximumGate() throws {
        let dir = E2E.tempDir("shortterm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 20 s at -26 dBFS with 4 s at -14 dBFS in the middle: integrated near -23, short-term -14.
        var s = E2E.sine(1000, dBFS: -26, seconds: 20, rate: 48000)
        let loud = E2E.sine(1000, dBFS: -14, seconds: 4, rate: 48000)
        s.replaceSubrange(8 * 48000 ..< 12 * 48000, with: loud)
        try E2E.write(dir + "/ad.wav", rate: 48000, channels: [s, s])
        let r = try E2E.run("lufs-measure", ["--target", "-20", "--tolerance", "10", "--max-short-term", "-18", "--max-momentary", "-10", dir + "/ad.wav"])
        #expect(r.status == 1)
        let g = try #require(r.records.first?["loudness"]?["gate"])
        #expect(g["max_short_term_lufs"]?.doubleValue == -18 && g["max_momentary_lufs"]?.doubleValue == -10)
        let reasons = g["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(reasons.count == 1 && reasons[0].hasPrefix("short-term loudness reaches -14.") && reasons[0].hasSuffix(", over the -18 LUFS maximum"), "\(reasons)")
        let s1 = try E2E.run("lufs-measure", ["--preset", "ebu-r128-s1", dir + "/ad.wav"])
        #expect(s1.status == 1)
        #expect(s1.records.first?["loudness"]?["gate"]?["preset"] == .string("ebu-r128-s1"))
        #expect((s1.records.first?["loudness"]?["gate"]?["reasons"]?.arrayValue ?? []).contains { $0.stringValue?.hasPrefix("short-term loudness reaches") == true })
        let bad = try E2E.run("lufs-measure", ["--max-short-term", "loud", dir + "/ad.wav"])
        #expect(bad.status == 2)
        let help = try E2E.run("lufs-measure", ["--help"])
        #expect(help.stdout.contains("--max-short-term") && help.stdout.contains("ebu-r128-s1") && help.stdout.contains("op-59"))
    }
}
