import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The report draws what the gate checks, on a file of two AAC streams: each stream in a panel of
/// its own, labelled, with the short-term and momentary limits drawn as labelled lines.
@Suite struct ReportStreamsE2ETests {
    /// The picture's elements by id, its stream groups' labels and its texts.
    final class Elements: NSObject, XMLParserDelegate {
        var ids: [String: [String: String]] = [:]
        var streams: [(n: String, label: String)] = []
        var texts: [String] = []
        private var text: String?

        static func parse(_ svg: String) -> Elements? {
            let p = XMLParser(data: Data(svg.utf8))
            let e = Elements()
            p.delegate = e
            return p.parse() ? e : nil
        }
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if let id = attributes["id"] { ids[id] = attributes }
            if attributes["class"] == "stream" { streams.append((attributes["data-stream"] ?? "", attributes["data-label"] ?? "")) }
            if name == "text" { text = "" }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text? += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let t = text { texts.append(t); text = nil }
        }
    }

    /// 8 s of MP4 with two AAC streams: a quiet mono one in English, a loud stereo one in French
    /// that is over both limits from 3 s on.
    static func film(_ dir: String) throws -> String {
        let path = dir + "/film.mp4"
        let made = try E2E.program("/usr/bin/env", [
            "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=8:sample_rate=48000",
            "-f", "lavfi", "-i", "anoisesrc=d=8:a=0.02:r=48000,volume='if(lt(t,3),1,12)':eval=frame",
            "-filter_complex", "[0:a]volume=0.1[a0];[1:a]aformat=channel_layouts=stereo[a1]",
            "-map", "[a0]", "-map", "[a1]", "-c:a", "aac", "-b:a", "128k",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make an MP4 of two AAC streams"))
    func everyStreamIsDrawnWithTheLimitsTheGateChecks() throws {
        let dir = E2E.tempDir("report-two-streams")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let film = try Self.film(dir)
        let gate = ["--max-short-term", "-24", "--max-momentary", "-20"]
        let r = try E2E.run("lufs-measure", ["--no-progress", "--report", dir + "/report"] + gate + [film])
        #expect(r.status == 0, "the file's gate is its first stream's, which passes: \(r.stderr)")
        let rec = try #require(r.records.first)
        let streams = try #require(rec["loudness"]?["streams"]?.arrayValue)
        #expect(streams.count == 2)
        #expect(streams[1]["gate"]?["pass"]?.boolValue == false, "the loud stream is over its limits")

        let svg = try String(contentsOfFile: dir + "/report/film.mp4.svg", encoding: .utf8)
        let p = try #require(Elements.parse(svg), "well-formed")
        #expect(p.streams.map(\.n) == ["0", "1"], "a panel per stream")
        #expect(p.streams.first?.label == "stream 0 of 2 · mono · eng")
        #expect(p.streams.last?.label == "stream 1 of 2 · stereo · fra")
        for prefix in ["", "stream-1-"] {
            for id in ["short-term", "momentary", "true-peak", "short-term-limit", "momentary-limit"] {
                #expect(p.ids[prefix + id] != nil, "\(prefix + id) is drawn")
            }
            let st = try #require(p.ids[prefix + "short-term"]?["d"])
            #expect(st.filter { $0 == "L" }.count > 20, "\(prefix)short-term is a curve, not a dot")
        }
        #expect(p.ids["short-term-over-limit"] == nil && p.ids["stream-1-short-term-over-limit"] != nil
                && p.ids["stream-1-momentary-over-limit"] != nil, "only the loud stream is red over its limits")
        #expect(p.texts.filter { $0 == "S max \u{2212}24" }.count == 2 && p.texts.filter { $0 == "M max \u{2212}20" }.count == 2,
                "each panel labels both limits: \(p.texts.filter { $0.contains("max") })")
        // The limit lines sit at the same height in each panel's lane: both lanes share the scale's rule.
        let y0 = Double(try #require(p.ids["short-term-limit"]?["y1"]))!
        let m0 = Double(try #require(p.ids["momentary-limit"]?["y1"]))!
        #expect(m0 < y0, "−20 LUFS is drawn above −24 LUFS")

        let html = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        #expect(html.contains("stream 1 of 2 · stereo · fra"))
        #expect(html.contains("1 of 1 file passed"))

        // The record is the same with or without the report (no series without --timeline).
        let plain = try E2E.run("lufs-measure", ["--no-progress"] + gate + [film])
        #expect(plain.stdout == r.stdout)

        // --stream 1: that stream alone is the file's verdict, and it is drawn.
        let one = try E2E.run("lufs-measure", ["--no-progress", "--stream", "1", "--report", dir + "/one"] + gate + [film])
        #expect(one.status == 1, "stream 1 fails the gate: \(one.stderr)")
        let svg1 = try String(contentsOfFile: dir + "/one/film.mp4.svg", encoding: .utf8)
        let p1 = try #require(Elements.parse(svg1))
        #expect(p1.ids["short-term-over-limit"] != nil && p1.ids["stream-1-short-term"] == nil)
        #expect(p1.texts.contains { $0.hasPrefix("stream 1 · stereo · fra") })
    }

    @Test(.enabled(if: E2E.has("ffmpeg") && E2E.has("chromium"), "needs ffmpeg and chromium (make test-deps installs them)"))
    func thePictureOfTwoStreamsRendersAtItsFullHeight() throws {
        let dir = E2E.tempDir("report-two-streams-browser")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let film = try Self.film(dir)
        _ = try E2E.run("lufs-measure", ["--no-progress", "--report", dir + "/report", "--max-short-term", "-24", film])
        let svg = try String(contentsOfFile: dir + "/report/film.mp4.svg", encoding: .utf8)
        let after = try #require(svg.range(of: "height=\"")).upperBound
        let height = try #require(Int(svg[after...].prefix { $0.isNumber }))
        #expect(height > 900, "two panels")
        guard let png = try ReportE2ETests.screenshot(dir + "/report/film.mp4.svg", width: 1000, height: height, dir: dir) else { return }
        #expect(ReportE2ETests.pngSize(png).map { $0 == (1000, height) } == true)
        let px = try ReportE2ETests.rgb(png, dir: dir)
        // The lower half holds the second panel: not blank, and red where its curve is over the limit.
        let lower = Array(px[((px.count / 6) * 3)...])
        let look = ReportE2ETests.look(lower)
        #expect(look.variance > 200, "the second panel is drawn: \(look.variance)")
        #expect(look.red > 0.0005, "its curve over the limit shows in red (\(look.red))")
    }
}
