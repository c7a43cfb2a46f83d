import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A file of several audio streams in the report: a labelled panel per stream, each with its own
/// curves, verdict and the gate's limits, on one time axis.
@Suite struct LoudnessReportStreamsTests {
    typealias S = LoudnessTestSignals

    /// A record's `loudness` for a two-stream file: stream 0 (mono, English) and stream 1 (stereo,
    /// no language), each with its series, and the measurements by ordinal.
    static func twoStreams(gate: LoudnessGate?) -> (item: LoudnessReportItem, loudness: JSON, measurements: [Int: LoudnessMeasurement]) {
        let quiet = S.tones([.init(seconds: 6, dBFS: -30)], rate: 48000)
        let loud = S.tones([.init(seconds: 3, dBFS: -30), .init(seconds: 5, dBFS: -8)], rate: 48000)
        let (m0, t0) = LoudnessReportTests.meter([quiet])
        let (m1, t1) = LoudnessReportTests.meter([loud, loud])
        let s0: JSON = .object(["stream": .int(0), "channel_layout": .string("mono"), "language": .string("eng"),
                                "frames": .int(t0.frames), "timeline": t0.json])
        let s1: JSON = .object(["stream": .int(1), "channel_layout": .string("stereo"), "language": .string("und"),
                                "title": .string("Music"), "frames": .int(t1.frames), "timeline": t1.json])
        var loudness = s0.objectValue!
        loudness["streams"] = .array([s0, s1])
        let item = LoudnessReportItem(name: "film.mkv", measurement: m0, timeline: t0, gate: gate)
        return (item, .object(loudness), [0: m0, 1: m1])
    }

    @Test func eachStreamIsDrawnInALabelledPanelWithItsOwnVerdictAndLimits() throws {
        let gate = LoudnessGate(maxShortTermLUFS: -20, maxMomentaryLUFS: -12)
        let (first, loudness, ms) = Self.twoStreams(gate: gate)
        let item = first.addingStreams(loudness, measurements: ms, gate: gate)
        #expect(item.verdict == .pass, "the file's verdict is its first stream's")
        #expect(item.streamLabel == "stream 0 of 2 · mono · eng")
        let second = try #require(item.streams.first)
        #expect(item.streams.count == 1)
        #expect(second.streamLabel == "stream 1 of 2 · stereo · “Music”", "an undetermined language is left out")
        #expect(second.verdict.reasons.count == 2, "the loud stream is over both limits: \(second.verdict)")
        #expect(abs(second.integratedLUFS! - ms[1]!.integratedLUFS!) < 1e-12)

        let svg = LoudnessPicture.svg(item)
        let p = try #require(SVGProbe.parse(svg))
        for prefix in ["", "stream-1-"] {
            for id in ["short-term", "momentary", "true-peak", "short-term-limit", "momentary-limit", "loudness-lane"] {
                #expect(p.byID[prefix + id] != nil, "\(prefix + id)")
            }
        }
        #expect(p.byID["short-term-over-limit"] == nil && p.byID["stream-1-short-term-over-limit"] != nil,
                "only the loud stream goes over its limit")
        // Each panel's clips are its own.
        #expect(svg.contains("url(#stream-1-clip-loudness)") && svg.contains("url(#clip-loudness)"))
        #expect(p.texts.contains { $0.hasPrefix("stream 1 of 2 · stereo") && $0.contains("not the file's") })
        #expect(p.texts.filter { $0 == "S max \u{2212}20" }.count == 2, "both panels label the limit")
        // Stacked: the picture is as tall as both panels, the second starts under the first.
        let height = LoudnessPicture.height(item)
        #expect(height == LoudnessPicture.height(first.addingStreams(loudness, measurements: ms, gate: gate)))
        #expect(svg.contains("height=\"\(height)\""))
        let one = LoudnessPicture.height(first)
        #expect(height > one + one / 2)
        #expect(svg.contains("transform=\"translate(0 \(SVGBuilder.number(LoudnessPicture.layout(item).height)))\""))
        // One time axis: the 8 s stream's; the 6 s stream's curve ends three quarters along.
        let lane = try #require(p.byID["loudness-lane"])
        let left = Double(lane["x"]!)!, width = Double(lane["width"]!)!
        let end0 = SVGProbe.xs(try #require(p.byID["short-term"]?["d"])).max()!
        let end1 = SVGProbe.xs(try #require(p.byID["stream-1-short-term"]?["d"])).max()!
        #expect(abs(end1 - (left + width)) < 1)
        #expect(abs(end0 - (left + width * 6 / 8)) < 1, "\(end0)")
    }

    @Test func aFileOfOneStreamIsDrawnAsBefore() {
        let x = S.tones([.init(seconds: 4, dBFS: -20)], rate: 48000)
        let item = LoudnessReportTests.item([x])
        let loudness: JSON = .object(["integrated_lufs": .double(-20, decimals: 2)])
        let same = item.addingStreams(loudness, measurements: [:], gate: nil)
        #expect(same == item)
        #expect(LoudnessPicture.svg(same) == LoudnessPicture.svg(item))
        #expect(!LoudnessPicture.svg(item).contains("class=\"stream\""))
    }

    @Test func theIndexListsEachStreamUnderItsFile() {
        let gate = LoudnessGate(maxShortTermLUFS: -20)
        let (first, loudness, ms) = Self.twoStreams(gate: gate)
        let item = first.addingStreams(loudness, measurements: ms, gate: gate)
        let html = LoudnessReportIndex.html(title: "lufs-measure", gate: "short-term ≤ −20 LUFS", rows: [.init(item: item, picture: "film.mkv.svg")])
        #expect(html.contains("stream 0 of 2 · mono · eng: this row&apos;s numbers and verdict")
                || html.contains("stream 0 of 2 · mono · eng: this row's numbers and verdict"))
        #expect(html.contains("<span class=\"badge fail\">FAIL</span>"))
        #expect(html.contains("1 of 1 file passed"), "the file's verdict is its first stream's")
        #expect(html.contains("height=\"\(LoudnessPicture.height(item))\""))
    }
}
