import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// `lufs-measure --dialogue --report`: the spans the record gives with --timeline are the ones
/// shaded (as dark as the detector was sure of each), dialogue loudness is printed, and the records
/// are what they are without the report.
@Suite struct DialogueReportE2ETests {
    /// The `rect class="dialogue"` elements' data-from-seconds and data-to-seconds.
    static func bands(_ svg: String) -> [(from: String, to: String)] {
        svg.components(separatedBy: "\n").filter { $0.contains("class=\"dialogue\"") }.map { line in
            func attr(_ n: String) -> String {
                let r = line.range(of: " \(n)=\"")!
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            return (attr("data-from-seconds"), attr("data-to-seconds"))
        }
    }

    @Test(.enabled(if: DialogueE2ETests.weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: E2E.has("espeak-ng") && E2E.has("sox"), "espeak-ng and sox make the speech"))
    func reportShadesTheDialogueSpans() throws {
        let dir = E2E.tempDir("dialogue-report")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try DialogueE2ETests.speech(dir))
        let tone = E2E.sine(440, dBFS: -12, seconds: 4, rate: 48000)
        let mono = tone + s.map { $0 * 0.5 } + tone
        try E2E.write(dir + "/stereo.wav", rate: 48000, channels: [mono, mono])
        let input = dir + "/stereo.wav"
        try FileManager.default.copyItem(atPath: input, toPath: dir + "/copy.wav")
        let timeline = try E2E.run("lufs-measure", ["--dialogue", "--timeline", "-j", "2", input, dir + "/copy.wav"])
        let d = try #require(timeline.records.first?["loudness"]?["dialogue"])
        let spans = try #require(d["timeline"]?.arrayValue?.compactMap { $0.arrayValue?.compactMap(\.doubleValue) })
        #expect(!spans.isEmpty)
        // Each span's mean speech probability: clean speech is well over the detector's onset.
        let means = try #require(d["timeline_mean_probability"]?.arrayValue?.compactMap { $0.doubleValue })
        #expect(means.count == spans.count && means.allSatisfy { $0 > Double(DialogueSpans.onset) && $0 <= 1 }, "\(d)")
        // The same on one core as on two, for either file.
        let one = try E2E.run("lufs-measure", ["--dialogue", "--timeline", "-j", "1", input, dir + "/copy.wav"])
        #expect(one.stdout == timeline.stdout)
        #expect(timeline.records.last?["loudness"]?["dialogue"] == d)
        let dialogueLUFS = try #require(d["integrated_lufs"]?.doubleValue)

        let plain = try E2E.run("lufs-measure", ["--dialogue", input])
        let reported = try E2E.run("lufs-measure", ["--dialogue", "--report", dir + "/r", input])
        #expect(reported.status == 0, "\(reported.stderr)")
        #expect(reported.stdout == plain.stdout, "--report changes no record (no spans without --timeline)")
        #expect(plain.records.first?["loudness"]?["dialogue"]?["timeline"] == nil)
        #expect(plain.records.first?["loudness"]?["dialogue"]?["timeline_mean_probability"] == nil)

        let svg = try String(contentsOfFile: dir + "/r/stereo.wav.svg", encoding: .utf8)
        let bands = Self.bands(svg)
        #expect(bands.map { [$0.from, $0.to] } == spans.map { $0.map { String(format: "%.3f", $0) } }, "one band per span, at its times")
        #expect(svg.components(separatedBy: "data-mean-probability=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
                    == means.map { String(format: "%.3f", $0) }, "each band says its span's probability")
        #expect(svg.contains("shaded by the detector"))
        #expect(svg.contains("Dialogue " + ReportText.dB(dialogueLUFS) + " LUFS"))
        let html = try String(contentsOfFile: dir + "/r/index.html", encoding: .utf8)
        #expect(html.contains("<div class=\"dialogue\">dialogue \(ReportText.plain(dialogueLUFS))</div>"))
    }
}
