import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Checks an XML text parses, and collects elements by id and the `over` rectangles.
final class SVGProbe: NSObject, XMLParserDelegate {
    var byID: [String: [String: String]] = [:]
    var overs: [[String: String]] = []
    var texts: [String] = []
    private var inText = false
    private var current = ""
    var error: Error?

    static func parse(_ svg: String) -> SVGProbe? {
        let p = XMLParser(data: Data(svg.utf8))
        let probe = SVGProbe()
        p.delegate = probe
        guard p.parse() else { return nil }
        return probe
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if let id = attributes["id"] { byID[id] = attributes }
        if attributes["class"] == "over" { overs.append(attributes) }
        if name == "text" { inText = true; current = "" }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { if inText { current += string } }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { texts.append(current); inText = false }
    }

    /// The x coordinates of a path's points (M/L/H commands).
    static func xs(_ d: String) -> [Double] {
        var out: [Double] = []
        let scanner = Scanner(string: d)
        scanner.charactersToBeSkipped = CharacterSet(charactersIn: " ,")
        while !scanner.isAtEnd {
            guard let c = scanner.scanCharacter() else { break }
            switch c {
            case "M", "L":
                if let x = scanner.scanDouble() { out.append(x) }
                _ = scanner.scanDouble()
            case "H": if let x = scanner.scanDouble() { out.append(x) }
            case "V", "h", "v": _ = scanner.scanDouble()
            case "l": _ = scanner.scanDouble(); _ = scanner.scanDouble()
            default: break
            }
        }
        return out
    }

    /// The y coordinates a path reaches (M/L/V commands).
    static func ys(_ d: String) -> [Double] {
        var out: [Double] = []
        let scanner = Scanner(string: d)
        scanner.charactersToBeSkipped = CharacterSet(charactersIn: " ,")
        while !scanner.isAtEnd {
            guard let c = scanner.scanCharacter() else { break }
            switch c {
            case "M", "L":
                _ = scanner.scanDouble()
                if let y = scanner.scanDouble() { out.append(y) }
            case "V": if let y = scanner.scanDouble() { out.append(y) }
            case "H", "h", "v": _ = scanner.scanDouble()
            case "l": _ = scanner.scanDouble(); _ = scanner.scanDouble()
            default: break
            }
        }
        return out
    }
}

@Suite struct LoudnessReportTests {
    typealias S = LoudnessTestSignals

    static func meter(_ channels: [[Float]], rate: Int = 48000, blockSize: Int = 4096) -> (LoudnessMeasurement, LoudnessTimeline) {
        let meter = LoudnessMeter(sampleRate: rate, weights: Array(repeating: 1, count: channels.count), collectsTimeline: true)
        S.feed(meter, channels, blockSize: blockSize)
        let m = meter.finish()
        return (m, meter.timeline!)
    }

    // MARK: the timeline

    @Test func timelineHoldsTheWindowsEvery100ms() {
        let rate = 48000
        // 2 s at −30 dBFS, then 4 s at −10 dBFS.
        let x = S.tones([.init(seconds: 2, dBFS: -30), .init(seconds: 4, dBFS: -10)], rate: rate)
        let (m, t) = Self.meter([x])
        #expect(t.count == 60 && t.momentaryLUFS.count == 60 && t.shortTermLUFS.count == 60)
        #expect(t.rateHz == 10)
        #expect(t.momentaryLUFS.prefix(3).allSatisfy { $0 == nil }, "the first 300 ms have no full 400 ms window")
        #expect(t.momentaryLUFS[3] != nil)
        #expect(t.shortTermLUFS.prefix(29).allSatisfy { $0 == nil } && t.shortTermLUFS[29] != nil)
        // A steady tone reads its level: 20 dB between the two parts, once the windows are inside them.
        let quiet = t.momentaryLUFS[10]!, loud = t.momentaryLUFS[50]!
        #expect(abs((loud - quiet) - 20) < 0.01, "\(quiet) \(loud)")
        #expect(abs(t.shortTermLUFS[59]! - loud) < 0.01)
        // The meter's maxima are over 1 ms positions, the timeline's on the 100 ms grid: never above.
        #expect(t.momentaryLUFS.compactMap { $0 }.max()! <= m.momentaryMaxLUFS! + 1e-9)
        // True peak per hop: its maximum is the file's true peak.
        let tpMax = t.truePeakDBTP.compactMap { $0 }.max()!
        #expect(abs(tpMax - m.truePeakDBTP!) < 1e-4, "\(tpMax) vs \(m.truePeakDBTP!)")
        #expect(abs(t.truePeakDBTP[5]! - -30) < 0.05 && abs(t.truePeakDBTP[40]! - -10) < 0.05)
        // The range band is the loudness range.
        #expect(abs((t.rangeHighLUFS! - t.rangeLowLUFS!) - m.loudnessRangeLU!) < 1e-9)
    }

    @Test func timelineDoesNotDependOnBlockSizesAndMeasurementIsUnchanged() {
        let x = LoudnessMeterTests.noise(seconds: 3.05, rate: 44100, seed: 7)
        let (m1, t1) = Self.meter(x, rate: 44100, blockSize: 4096)
        let (_, t2) = Self.meter(x, rate: 44100, blockSize: 333)
        #expect(t1 == t2)
        // True peak on a second thread (an idle --jobs core) fills the same timeline.
        let split = LoudnessMeter(sampleRate: 44100, weights: [1, 1], collectsTimeline: true)
        for start in stride(from: 0, to: x[0].count, by: 4096) {
            let end = min(start + 4096, x[0].count)
            split.add(AudioBlock(channels: x.map { Array($0[start..<end]) }, frames: end - start), onTwoCores: true)
        }
        _ = split.finish()
        #expect(split.timeline == t1)
        #expect(m1 == S.measure(x, rate: 44100), "collecting a timeline changes nothing in the measurement")
        // 3.05 s: 31 entries, the last a partial hop with a peak but no loudness window.
        #expect(t1.count == 31)
        #expect(t1.shortTermLUFS[29] != nil)
        #expect(t1.momentaryLUFS[30] == nil && t1.truePeakDBTP[30] != nil)
        #expect(abs(t1.endSeconds(30) - 3.05) < 1e-9)
    }

    @Test func silenceAndQuietAreNullNotMinusInfinity() {
        let x = S.tones([.init(seconds: 1, dBFS: nil), .init(seconds: 1, dBFS: -80), .init(seconds: 1, dBFS: -20)], rate: 48000)
        let (_, t) = Self.meter([x])
        #expect(t.truePeakDBTP[2] == nil, "digital silence has no peak")
        #expect(t.truePeakDBTP[15] != nil, "−80 dBFS has one")
        #expect(t.momentaryLUFS[15] == nil, "under the −70 LUFS gate")
        #expect(t.momentaryLUFS[29] != nil)
        let json = t.json.serialized()
        #expect(!json.contains("inf") && !json.contains("nan"))
    }

    @Test func timelineReadsBackFromItsRecord() throws {
        let x = S.tones([.init(seconds: 3.55, dBFS: -20)], rate: 44100)
        let (m, t) = Self.meter([x], rate: 44100)
        let loudness = JSON.object(["frames": .int(m.frames), "timeline": t.json])
        let back = try #require(LoudnessTimeline(loudness: try JSON.parse(loudness.serialized())))
        #expect(back.count == t.count && back.frames == t.frames && back.hopFrames == t.hopFrames)
        for i in 0..<t.count {
            #expect(back.momentaryLUFS[i].map { abs($0 - t.momentaryLUFS[i]!) < 0.0051 } ?? (t.momentaryLUFS[i] == nil))
            #expect(back.truePeakDBTP[i].map { abs($0 - t.truePeakDBTP[i]!) < 0.0051 } ?? (t.truePeakDBTP[i] == nil))
        }
        // A timeline that does not fit its file is not used.
        #expect(LoudnessTimeline(loudness: .object(["frames": .int(m.frames + 44100), "timeline": t.json])) == nil)
        #expect(LoudnessTimeline(loudness: .object(["frames": .int(m.frames)])) == nil)
    }

    @Test func manyOversStayAFewShapes() throws {
        // An hour over the ceiling every other 100 ms: 18 000 stretches, drawn as one band.
        let n = 36_000
        let tp: [Double?] = (0..<n).map { $0 % 2 == 0 ? 0.5 : -3 }
        let t = LoudnessTimeline(sampleRate: 48000, hopFrames: 4800, frames: n * 4800, momentaryLUFS: [Double?](repeating: -10, count: n),
                                 shortTermLUFS: [Double?](repeating: -10, count: n), truePeakDBTP: tp)
        let item = LoudnessReportItem(name: "hot.wav", verdict: .measured, timeline: t, ceilingDBTP: -1)
        #expect(item.overs.count == 18_000)
        let svg = LoudnessPicture.svg(item)
        let p = try #require(SVGProbe.parse(svg))
        #expect(p.overs.count == 1 && svg.utf8.count < 100_000)
        #expect(p.texts.contains { $0.contains("18000 stretches over the ceiling") })
    }

    // MARK: the picture

    static func item(_ channels: [[Float]], gate: LoudnessGate? = LoudnessGate(targetLUFS: -23, toleranceLU: 1, maxTruePeakDBTP: -1),
                     name: String = "show/episode 1.wav") -> LoudnessReportItem {
        let (m, t) = meter(channels)
        return LoudnessReportItem(name: name, measurement: m, timeline: t, gate: gate)
    }

    @Test func pictureIsWellFormedAndItsCurveSpansTheFile() throws {
        // 6 s: the curve's last point is at the plot's right edge, its first at 0.4 s.
        let x = S.tones([.init(seconds: 6, dBFS: -20)], rate: 48000)
        let item = Self.item([x], name: "a&b <c>.wav")
        let svg = LoudnessPicture.svg(item)
        let p = try #require(SVGProbe.parse(svg), "the SVG is well-formed XML")
        let lane = try #require(p.byID["loudness-lane"])
        let left = Double(lane["x"]!)!, width = Double(lane["width"]!)!
        let xs = SVGProbe.xs(try #require(p.byID["momentary"]?["d"]))
        #expect(abs(xs.max()! - (left + width)) < 0.6, "ends at the end of the file")
        #expect(abs(xs.min()! - (left + width * 0.4 / 6)) < 0.6, "starts with the first 400 ms window")
        let st = SVGProbe.xs(try #require(p.byID["short-term"]?["d"]))
        #expect(abs(st.min()! - (left + width * 3 / 6)) < 0.6 && abs(st.max()! - (left + width)) < 0.6)
        #expect(svg.contains("data-duration-seconds=\"6.000\""))
        #expect(p.texts.contains { $0.contains("a&b <c>.wav") }, "the name is escaped, not dropped")
        #expect(p.byID["integrated"] != nil && p.byID["target-band"] != nil && p.byID["ceiling"] != nil)
        #expect(p.texts.contains("0:06") && p.texts.contains("0:00"), "time in m:ss")
    }

    @Test func anOverIsMarkedWhereTheSignalHasIt() throws {
        // −20 dBFS, with 0.3 s at −0.2 dBFS (over a −1 dBTP ceiling) from 4.0 s.
        let x = S.tones([.init(seconds: 4, dBFS: -20), .init(seconds: 0.3, dBFS: -0.2), .init(seconds: 1.7, dBFS: -20)], rate: 48000)
        let item = Self.item([x])
        let overs = item.overs
        #expect(overs.count == 1)
        #expect(abs(overs[0].start - 4.0) < 0.101 && abs(overs[0].end - 4.3) < 0.101, "\(overs)")
        let p = try #require(SVGProbe.parse(LoudnessPicture.svg(item)))
        #expect(p.overs.count == 1)
        #expect(p.overs.first?["data-start-seconds"] == "4.0")
        #expect(p.texts.contains { $0.contains("1 stretch over the ceiling, at 0:04.0") })
        // The same file under a 0 dBTP ceiling has none.
        var relaxed = item
        relaxed.ceilingDBTP = 0
        #expect(relaxed.overs.isEmpty)
        #expect(try #require(SVGProbe.parse(LoudnessPicture.svg(relaxed))).overs.isEmpty)
    }

    @Test func shortTermAndMomentaryLimitsAreDrawnWithTheCurveAboveThemInRed() throws {
        // 4 s at −40 dBFS, then 4 s at −10: only the loud half is over a −25 LUFS short-term limit.
        let x = S.tones([.init(seconds: 4, dBFS: -40), .init(seconds: 4, dBFS: -10)], rate: 48000)
        let item = Self.item([x], gate: LoudnessGate(maxShortTermLUFS: -25, maxMomentaryLUFS: 0))
        let p = try #require(SVGProbe.parse(LoudnessPicture.svg(item)))
        #expect(p.byID["short-term-limit"] != nil && p.byID["momentary-limit"] != nil)
        #expect(p.byID["momentary-over-limit"] == nil, "nothing is over a 0 LUFS momentary limit")
        let lane = try #require(p.byID["loudness-lane"])
        let left = Double(lane["x"]!)!, width = Double(lane["width"]!)!
        let over = SVGProbe.xs(try #require(p.byID["short-term-over-limit"]?["d"]))
        #expect(over.min()! > left + width * 4 / 8 - 1, "the red stretch starts with the loud half")
        #expect(p.texts.contains("S max \u{2212}25") && p.texts.contains("M max 0"))
        // The limit line sits at −25 LUFS on the lane's scale, between the tick lines around it.
        let y = Double(try #require(p.byID["short-term-limit"]?["y1"]))!
        #expect(y > Double(lane["y"]!)! && y < Double(lane["y"]!)! + Double(lane["height"]!)!)
        // Without the limits, none of it is drawn.
        let plain = try #require(SVGProbe.parse(LoudnessPicture.svg(Self.item([x], gate: nil))))
        #expect(plain.byID["short-term-limit"] == nil && plain.byID["short-term-over-limit"] == nil)
    }

    @Test func shortAndSilentFilesDrawWithTheirUndefinedValuesStated() throws {
        let cases: [(String, [Float], String)] = [
            ("2 s", S.tones([.init(seconds: 2, dBFS: -20)], rate: 48000), "Under 3 s long"),
            ("0.3 s", S.tones([.init(seconds: 0.3, dBFS: -20)], rate: 48000), "Under 400 ms long"),
            ("silence", [Float](repeating: 0, count: 48000 * 5), "Digital silence"),
        ]
        for (label, x, expected) in cases {
            let item = Self.item([x])
            let svg = LoudnessPicture.svg(item)
            let p = try #require(SVGProbe.parse(svg), "\(label): well-formed")
            #expect(p.texts.contains { $0.contains(expected) }, "\(label): says why")
            for bad in ["-inf", "nan", "infinity"] { #expect(!svg.lowercased().contains(bad), "\(label): no \(bad) drawn") }
            #expect(p.texts.contains { $0.contains("undefined") }, "\(label): the undefined values are named")
        }
    }

    @Test func longFilesStaySmallAndKeepTheirPeaks() throws {
        // Two hours at 10 Hz with one 100 ms spike: reduced to pixel columns, the spike stays.
        let n = 72_000
        var tp = [Double?](repeating: -12, count: n)
        tp[41_234] = 0.5
        var m = [Double?](repeating: -24, count: n)
        m[41_234] = -3
        let t = LoudnessTimeline(sampleRate: 48000, hopFrames: 4800, frames: n * 4800, momentaryLUFS: m,
                                 shortTermLUFS: [Double?](repeating: -23, count: n), truePeakDBTP: tp)
        let item = LoudnessReportItem(name: "long.wav", verdict: .measured, integratedLUFS: -23, truePeakDBTP: 0.5,
                                      momentaryMaxLUFS: -3, timeline: t, ceilingDBTP: -1)
        let svg = LoudnessPicture.svg(item)
        #expect(svg.utf8.count < 150_000, "\(svg.utf8.count) bytes")
        let p = try #require(SVGProbe.parse(svg))
        #expect(p.overs.count == 1)
        #expect(p.texts.contains("2:00:00") && p.texts.contains("0:30:00"), "h:mm:ss past an hour")
        // The momentary spike reaches −3 LUFS on the scale, the true-peak area reaches +0.5.
        let ys = SVGProbe.ys(try #require(p.byID["momentary"]?["d"]))
        let lane = try #require(p.byID["loudness-lane"])
        let top = Double(lane["y"]!)!, height = Double(lane["height"]!)!
        #expect(ys.min()! < top + height * 0.35, "the spike is drawn high in the lane")
        let peakYs = SVGProbe.ys(try #require(p.byID["true-peak"]?["d"]))
        let ceilingY = Double(try #require(p.byID["ceiling"]?["y1"]))!
        #expect(peakYs.min()! < ceilingY, "the single over-ceiling peak is drawn above the ceiling")
    }

    @Test func normalisedPictureDrawsTheSourceUnderTheOutput() throws {
        let x = S.tones([.init(seconds: 5, dBFS: -30)], rate: 48000)
        let y = S.tones([.init(seconds: 5, dBFS: -16)], rate: 48000)
        let (sm, st) = Self.meter([x]), (om, ot) = Self.meter([y])
        let item = LoudnessReportItem.normalized(name: "a.wav → out/a.wav", output: om, timeline: ot, source: st,
                                                 sourceIntegratedLUFS: sm.integratedLUFS, sourceTruePeakDBTP: sm.truePeakDBTP,
                                                 targetLUFS: om.integratedLUFS!, toleranceLU: 1, ceilingDBTP: -1, gainDB: 14,
                                                 limitedSeconds: 0, maxReductionDB: 0)
        #expect(item.verdict == .pass)
        #expect(item.sourceIntegratedLUFS! < item.integratedLUFS! - 13)
        let p = try #require(SVGProbe.parse(LoudnessPicture.svg(item)))
        #expect(p.byID["source-short-term"] != nil && p.byID["short-term"] != nil && p.byID["source-true-peak"] != nil)
        #expect(p.texts.contains { $0.contains("gain +14.0 dB") && $0.contains("→") })
    }

    // MARK: the index

    @Test func indexListsEveryInputInOrderAndNeedsNoNetwork() {
        let x = S.tones([.init(seconds: 4, dBFS: -20)], rate: 48000)
        let gate = LoudnessGate(targetLUFS: -23, toleranceLU: 1, maxTruePeakDBTP: -1)
        let rows: [LoudnessReportIndex.Row] = [
            .init(item: Self.item([x], gate: gate, name: "b.wav"), picture: "b.wav.svg"),
            .init(item: LoudnessReportItem(name: "notes.mp3", verdict: .error("“notes.mp3” is a text file, not audio.")), picture: nil),
            .init(item: Self.item([S.tones([.init(seconds: 4, dBFS: -26)], rate: 48000)], gate: gate, name: "a <x>.wav"), picture: "a _x_.wav.svg"),
        ]
        let html = LoudnessReportIndex.html(title: "lufs-measure", gate: "ebu-r128: -23 ±1 LUFS", rows: rows)
        #expect(html.contains("1 of 3 files passed (1 failed the gate, 1 could not be measured)"))
        let b = html.range(of: "b.wav")!.lowerBound, notes = html.range(of: "notes.mp3")!.lowerBound
        let a = html.range(of: "a &lt;x&gt;.wav")!.lowerBound
        #expect(b < notes && notes < a, "input order")
        #expect(html.contains("is a text file, not audio"))
        #expect(!html.contains(" over</div>"), "no overs in these rows")
        var hot = rows
        hot[0].item = Self.item([S.tones([.init(seconds: 2, dBFS: -20), .init(seconds: 0.2, dBFS: -0.1), .init(seconds: 2, dBFS: -20)], rate: 48000)],
                                gate: gate, name: "b.wav")
        #expect(LoudnessReportIndex.html(title: "lufs-measure", gate: "g", rows: hot).contains("<div class=\"reason\">1 over</div></td>"),
                "the true-peak cell counts the overs")
        #expect(html.contains("src=\"a%20_x_.wav.svg\""))
        for banned in ["http:", "https:", "<script", "@import", "//", "<link"] {
            #expect(!html.contains(banned), "no \(banned) in the page")
        }
        let svg = LoudnessPicture.svg(rows[0].item)
        #expect(!svg.contains("href") && !svg.contains("<image") && !svg.contains("@import"))
        #expect(svg.components(separatedBy: "http").count == 2, "only the SVG namespace name, never fetched")
    }

    @Test func pictureNamesAreSafeAndUniqueInInputOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("report-names-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try LoudnessReportWriter(directory: dir, title: "t", gate: nil, warn: { _ in })
        #expect(w.pictureName(for: "a/take 1.wav") == "take_1.wav.svg")
        #expect(w.pictureName(for: "b/take 1.wav") == "take_1.wav-2.svg")
        #expect(w.pictureName(for: "B/TAKE 1.WAV") == "TAKE_1.WAV-3.svg", "unique without regard to case")
        #expect(w.pictureName(for: ".hidden") == "_hidden.svg")
        #expect(w.pictureName(for: "index.html") == "index.html.svg")
    }

    @Test func aFileIsNotAReportFolder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("report-file-\(getpid())").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: ReportFolderError.notAFolder(file)) {
            _ = try LoudnessReportWriter(directory: file, title: "t", gate: nil, warn: { _ in })
        }
        #expect(throws: ReportFolderError.cantCreate(file + "/sub", reason: "")) {
            do { _ = try LoudnessReportWriter(directory: file + "/sub", title: "t", gate: nil, warn: { _ in }) }
            catch ReportFolderError.cantCreate(let d, _) { throw ReportFolderError.cantCreate(d, reason: "") }
        }
    }

    @Test func timesReadAsMinutesAndSeconds() {
        #expect(ReportText.time(0) == "0:00")
        #expect(ReportText.time(59.4) == "0:59")
        #expect(ReportText.time(61) == "1:01")
        #expect(ReportText.time(3725) == "1:02:05")
        #expect(ReportText.time(1800, hours: true) == "0:30:00")
        #expect(ReportText.time(2.5, tenths: true) == "0:02.5")
        #expect(ReportText.dB(-23.04) == "\u{2212}23.0" && ReportText.dB(-0.01) == "0.0" && ReportText.dB(nil) == "—")
        #expect(LoudnessPicture.timeTicks(10) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(LoudnessPicture.timeTicks(7200).count == 9)
    }
}
