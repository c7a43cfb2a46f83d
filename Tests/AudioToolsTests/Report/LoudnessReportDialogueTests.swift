import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The report with `--dialogue`: the spans shaded where they are, dialogue loudness printed.
@Suite struct LoudnessReportDialogueTests {
    /// The `rect class="dialogue"` elements' (x, width, from, to).
    static func bands(_ svg: String) -> [(x: Double, width: Double, from: String, to: String)] {
        svg.components(separatedBy: "\n").filter { $0.contains("class=\"dialogue\"") }.map { line in
            func attr(_ n: String) -> String {
                let r = line.range(of: " \(n)=\"")!
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            return (Double(attr("x"))!, Double(attr("width"))!, attr("data-from-seconds"), attr("data-to-seconds"))
        }
    }

    @Test func spansAreShadedAtTheirTimesAndDialogueLoudnessIsPrinted() throws {
        let x = LoudnessTestSignals.tones([.init(seconds: 10, dBFS: -20)], rate: 48000)
        var item = LoudnessReportTests.item([x])
        let record: JSON = .object(["integrated_lufs": .double(-26.5, decimals: 2), "share": .double(0.4, decimals: 4),
                                    "timeline": .array([.array([.double(1, decimals: 3), .double(3, decimals: 3)]),
                                                        .array([.double(6, decimals: 3), .double(8, decimals: 3)])])])
        item = item.addingDialogue(record)
        let svg = LoudnessPicture.svg(item)
        let p = try #require(SVGProbe.parse(svg), "the SVG is well-formed XML")
        let lane = try #require(p.byID["loudness-lane"])
        let left = Double(lane["x"]!)!, width = Double(lane["width"]!)!
        let b = Self.bands(svg)
        #expect(b.count == 2)
        for (band, (from, to)) in zip(b, [(1.0, 3.0), (6.0, 8.0)]) {
            #expect(abs(band.x - (left + width * from / 10)) < 0.6 && abs(band.width - width * (to - from) / 10) < 0.6, "\(band)")
            #expect(band.from == String(format: "%.3f", from) && band.to == String(format: "%.3f", to))
        }
        // Under the curves: drawn before them.
        #expect(svg.range(of: "class=\"dialogue\"")!.lowerBound < svg.range(of: "id=\"momentary\"")!.lowerBound)
        #expect(p.texts.contains { $0.contains("Dialogue \u{2212}26.5 LUFS (40%)") }, "the figure beside programme loudness")
        #expect(p.texts.contains("D \u{2212}26.5") && p.byID["dialogue-integrated"] != nil)
        #expect(p.texts.contains("dialogue"), "a legend entry")
        let html = LoudnessReportIndex.html(title: "lufs-measure", gate: nil, rows: [.init(item: item, picture: "a.svg")])
        #expect(html.contains("<div class=\"dialogue\">dialogue -26.5</div></td>"))

        // Without --dialogue, none of it.
        let plainSVG = LoudnessPicture.svg(LoudnessReportTests.item([x]))
        #expect(Self.bands(plainSVG).isEmpty && !plainSVG.contains("Dialogue") && !plainSVG.contains("dialogue"))
        // No dialogue found: the figure says undefined, nothing is shaded.
        let none = LoudnessReportTests.item([x]).addingDialogue(.object(["integrated_lufs": .null, "share": .double(0, decimals: 4)]))
        let noneSVG = LoudnessPicture.svg(none)
        #expect(Self.bands(noneSVG).isEmpty && noneSVG.contains("Dialogue undefined (0%)"))
    }

    /// The rect lines' fill-opacity and data-mean-probability, in order.
    static func shades(_ svg: String) -> [(opacity: Double, mean: String?)] {
        svg.components(separatedBy: "\n").filter { $0.contains("class=\"dialogue\"") }.map { line in
            func attr(_ n: String) -> String? {
                guard let r = line.range(of: " \(n)=\"") else { return nil }
                return String(line[r.upperBound...].prefix { $0 != "\"" })
            }
            return (Double(attr("fill-opacity")!)!, attr("data-mean-probability"))
        }
    }

    @Test func spansAreShadedByHowSureTheDetectorWas() throws {
        let x = LoudnessTestSignals.tones([.init(seconds: 10, dBFS: -20)], rate: 48000)
        func item(_ means: [Double]?) -> LoudnessReportItem {
            var o: [String: JSON] = ["integrated_lufs": .double(-26.5, decimals: 2), "share": .double(0.4, decimals: 4),
                                     "timeline": .array([.array([.double(1, decimals: 3), .double(3, decimals: 3)]),
                                                         .array([.double(6, decimals: 3), .double(8, decimals: 3)])])]
            if let means { o["timeline_mean_probability"] = .array(means.map { .double($0, decimals: 3) }) }
            return LoudnessReportTests.item([x]).addingDialogue(.object(o))
        }
        let sure = item([0.92, 0.41])
        #expect(sure.dialogue?.spans.map(\.meanProbability) == [0.92, 0.41])
        let svg = LoudnessPicture.svg(sure)
        let p = try #require(SVGProbe.parse(svg), "the SVG is well-formed XML")
        let shades = Self.shades(svg)
        #expect(shades.map(\.mean) == ["0.920", "0.410"])
        #expect(shades[0].opacity > 2 * shades[1].opacity, "the sure span is much darker than the unsure one: \(shades)")
        // The shade rises with the probability, from faint to about a third.
        let ramp = stride(from: 0.0, through: 1.0, by: 0.1).map { LoudnessPicture.dialogueOpacity($0) }
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 < $1 } && ramp.first! > 0 && ramp.last! <= 0.4, "\(ramp)")
        // Hovering a span names its probability.
        #expect(svg.contains("<title>dialogue 1.000–3.000 s, mean speech probability 0.920</title>"))
        // A legend line says what the shade means, in place of the plain "dialogue" key, on a taller picture.
        #expect(p.texts.contains { $0.hasPrefix("dialogue, shaded by the detector") && $0.contains("the paler, the less sure") })
        #expect(!p.texts.contains("dialogue"))
        #expect(LoudnessPicture.height(sure) == LoudnessPicture.height(item(nil)) + 18)

        // A record without the probabilities (or with a count that doesn't match): one shade, the plain key.
        for plain in [item(nil), item([0.9])] {
            let plainSVG = LoudnessPicture.svg(plain)
            #expect(Self.shades(plainSVG).map(\.opacity) == [LoudnessPicture.dialogueFlatOpacity, LoudnessPicture.dialogueFlatOpacity])
            #expect(Self.shades(plainSVG).allSatisfy { $0.mean == nil } && !plainSVG.contains("shaded by"))
        }
    }
}
