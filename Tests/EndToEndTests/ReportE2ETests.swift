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

/// The loudness report as a user gets it: `--report DIR` on real files, opened in a browser.
@Suite struct ReportE2ETests {
    /// Speech-like material: a −20 dBFS tone with 0.3 s at −0.1 dBFS (over a −1 dBTP ceiling) at
    /// 3.0 s, 6 s long; a 2 s file; 5 s of digital silence; and a text file named like audio.
    static func material(_ dir: String) throws -> [String] {
        let rate = 48000
        let speech = E2E.sine(1000, dBFS: -20, seconds: 3, rate: rate) + E2E.sine(1000, dBFS: -0.1, seconds: 0.3, rate: rate)
            + E2E.sine(1000, dBFS: -20, seconds: 2.7, rate: rate)
        try E2E.write(dir + "/speech.wav", rate: rate, channels: [speech, speech])
        try E2E.write(dir + "/short.wav", rate: rate, channels: [E2E.sine(1000, dBFS: -18, seconds: 2, rate: rate)])
        try E2E.write(dir + "/silent.wav", rate: rate, channels: [[Float](repeating: 0, count: 5 * rate)])
        try "Show notes: episode 12".write(toFile: dir + "/notes.mp3", atomically: true, encoding: .utf8)
        return ["speech.wav", "short.wav", "silent.wav", "notes.mp3"].map { dir + "/" + $0 }
    }

    static func wellFormed(_ text: String) -> Bool { XMLParser(data: Data(text.utf8)).parse() }

    static func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// The report draws each stream's series, but without --timeline the record carries none of
    /// them: a file of two audio streams gives the same record with and without --report.
    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make a file of two audio streams"))
    func aReportLeavesNoSeriesInTheRecordOfSeveralStreams() throws {
        let dir = E2E.tempDir("report-streams")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48000
        try E2E.write(dir + "/a.wav", rate: rate, channels: [E2E.sine(1000, dBFS: -20, seconds: 3, rate: rate)])
        try E2E.write(dir + "/b.wav", rate: rate, channels: [E2E.sine(500, dBFS: -26, seconds: 3, rate: rate)])
        let made = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", dir + "/a.wav", "-i", dir + "/b.wav",
                                                    "-map", "0:a", "-map", "1:a", "-c:a", "flac", dir + "/two.mka"])
        #expect(made.status == 0, "\(made.stderr)")
        let plain = try E2E.run("lufs-measure", ["--no-progress", dir + "/two.mka"])
        let drawn = try E2E.run("lufs-measure", ["--no-progress", "--report", dir + "/report", dir + "/two.mka"])
        #expect(plain.status == 0 && drawn.status == 0, "\(plain.stderr) \(drawn.stderr)")
        #expect(plain.stdout.contains("\"streams\""), "two streams are measured")
        #expect(!drawn.stdout.contains("\"timeline\""), "no series in the record without --timeline")
        #expect(drawn.stdout == plain.stdout)
    }

    @Test func measureWritesAPictureAndARowPerFileAndKeepsOtherFiles() throws {
        let dir = E2E.tempDir("report")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = try Self.material(dir)
        let report = dir + "/report"
        try FileManager.default.createDirectory(atPath: report + "/old", withIntermediateDirectories: true)
        try "keep me".write(toFile: report + "/keep.txt", atomically: true, encoding: .utf8)
        try "old".write(toFile: report + "/old/a.txt", atomically: true, encoding: .utf8)

        let r = try E2E.run("lufs-measure", ["--preset", "ebu-r128", "--report", report, "--timeline"] + inputs)
        #expect(r.status == 1, "the gate fails: \(r.stderr)")
        #expect(Self.files(report) == ["index.html", "keep.txt", "old", "short.wav.svg", "silent.wav.svg", "speech.wav.svg"],
                "one picture per measured file, nothing else touched, no temporary files left")
        #expect(try String(contentsOfFile: report + "/keep.txt", encoding: .utf8) == "keep me")

        let html = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        #expect(html.contains("0 of 4 files passed (3 failed the gate, 1 could not be measured)"))
        let order = ["speech.wav", "short.wav", "silent.wav", "notes.mp3"].map { html.range(of: dir + "/" + $0)!.lowerBound }
        #expect(order == order.sorted(), "rows in input order")
        #expect(html.contains("not audio"), "the error message is in its row")
        #expect(html.contains("true peak") && html.contains("above the -1 dBTP ceiling"))
        for banned in ["http:", "https:", "<script", "@import", "<link", "url("] {
            #expect(!html.contains(banned), "the page needs no network: \(banned)")
        }

        let speech = try String(contentsOfFile: report + "/speech.wav.svg", encoding: .utf8)
        #expect(Self.wellFormed(speech))
        #expect(speech.contains("class=\"over\""), "the over is marked")
        #expect(speech.contains("data-start-seconds=\"3.0\""), "where the signal has it")
        #expect(speech.contains("data-duration-seconds=\"6.000\""))
        for name in ["short.wav.svg", "silent.wav.svg"] {
            let svg = try String(contentsOfFile: report + "/" + name, encoding: .utf8)
            #expect(Self.wellFormed(svg), "\(name) is well-formed")
            #expect(svg.contains("undefined"), "\(name) states its undefined values")
            #expect(!svg.contains("-inf") && !svg.contains("nan"))
        }

        // --timeline: the series behind the pictures, in the record.
        let recs = r.records
        let t = try #require(recs.first?["loudness"]?["timeline"])
        #expect(t["rate_hz"]?.doubleValue == 10)
        let momentary = try #require(t["momentary_lufs"]?.arrayValue)
        #expect(momentary.count == 60 && t["true_peak_dbtp"]?.arrayValue?.count == 60 && t["short_term_lufs"]?.arrayValue?.count == 60)
        #expect(momentary.prefix(3).allSatisfy { $0 == .null } && momentary[3].doubleValue != nil)
        let silent = try #require(recs[2]["loudness"]?["timeline"]?["momentary_lufs"]?.arrayValue)
        #expect(silent.allSatisfy { $0 == .null }, "silence is null under the gate, never -inf")
    }

    @Test func reportIsTheSameWhateverJobsIsAndRecordsAreUnchangedWithoutTimeline() throws {
        let dir = E2E.tempDir("report-jobs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = try Self.material(dir)
        let plain = try E2E.run("lufs-measure", ["-j", "1"] + inputs)
        let one = try E2E.run("lufs-measure", ["-j", "1", "--report", dir + "/r1"] + inputs)
        let three = try E2E.run("lufs-measure", ["-j", "3", "--report", dir + "/r3"] + inputs)
        #expect(one.stdout == plain.stdout, "--report alone changes no record")
        #expect(three.stdout == plain.stdout)
        #expect(Self.files(dir + "/r1") == Self.files(dir + "/r3"))
        for f in Self.files(dir + "/r1") {
            #expect(FileManager.default.contents(atPath: dir + "/r1/" + f) == FileManager.default.contents(atPath: dir + "/r3/" + f), "\(f)")
        }
        let html = try String(contentsOfFile: dir + "/r1/index.html", encoding: .utf8)
        #expect(html.contains("3 of 4 files measured (1 could not be measured)"))

        // The cache keeps measurements, not series: a cached file still gets its timeline and
        // picture, and a later run without --timeline gets no timeline from the cache.
        let cache = dir + "/cache.sqlite"
        let first = try E2E.run("lufs-measure", ["--cache", cache] + inputs)
        #expect(first.stdout == plain.stdout)
        let series = try E2E.run("lufs-measure", ["--cache", cache, "--timeline", "--report", dir + "/rc"] + inputs)
        #expect(series.records.first?["loudness"]?["timeline"]?["momentary_lufs"]?.arrayValue?.count == 60)
        #expect(FileManager.default.fileExists(atPath: dir + "/rc/speech.wav.svg"))
        let after = try E2E.run("lufs-measure", ["--cache", cache] + inputs)
        #expect(after.stdout == plain.stdout, "no timeline leaks into the cached records")
    }

    @Test func normalizeDrawsEachOutputOverItsSource() throws {
        let dir = E2E.tempDir("report-norm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48000
        try E2E.write(dir + "/quiet.wav", rate: rate, channels: [E2E.sine(1000, dBFS: -30, seconds: 4, rate: rate)])
        // Measured upstream: the report reads the source once more to draw it.
        let measured = try E2E.run("lufs-measure", [dir + "/quiet.wav"])
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out", "--report", dir + "/report"],
                            stdin: measured.stdout)
        #expect(r.status == 0, "\(r.stderr)")
        let rec = try #require(r.records.first)
        #expect(rec["normalized"]?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("--report") == true } == true)
        let svg = try String(contentsOfFile: dir + "/report/quiet.wav.svg", encoding: .utf8)
        #expect(Self.wellFormed(svg))
        #expect(svg.contains("id=\"source-short-term\"") && svg.contains("id=\"short-term\"") && svg.contains("id=\"source-true-peak\""))
        #expect(svg.contains("gain +"), "the gain is stated")
        let html = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        #expect(html.contains("1 of 1 file passed"))
        #expect(html.contains("→"), "before → after")

        // With the timeline in the record, the source is drawn from it: no extra pass.
        let withTimeline = try E2E.run("lufs-measure", ["--timeline", dir + "/quiet.wav"])
        let again = try E2E.run("lufs-normalize", ["--target", "-16", "--overwrite", "--out-dir", dir + "/out", "--report", dir + "/report2"],
                                stdin: withTimeline.stdout)
        let n = try #require(again.records.first?["normalized"])
        #expect(n["passes"]?.intValue == (rec["normalized"]?["passes"]?.intValue).map { $0 - 1 }, "one pass fewer")
        #expect(n["notes"]?.arrayValue?.contains { $0.stringValue?.contains("--report") == true } == false)
        let svg2 = try String(contentsOfFile: dir + "/report2/quiet.wav.svg", encoding: .utf8)
        #expect(svg2.contains("id=\"source-short-term\""))
    }

    @Test func aReportPathThatIsAFileIsRefused() throws {
        let dir = E2E.tempDir("report-refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "x".write(toFile: dir + "/taken", atomically: true, encoding: .utf8)
        let r = try E2E.run("lufs-measure", ["--report", dir + "/taken", dir + "/none.wav"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("is not a folder"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let d = try E2E.run("lufs-measure", ["--decode-only", "--timeline", dir + "/none.wav"])
        #expect(d.status == 2 && d.stderr.contains("--decode-only"))
    }

    // MARK: in a browser

    /// Headless Chromium's screenshot of `url` at `width`×`height`; nil (with an issue recorded)
    /// when Chromium is missing or fails.
    static func screenshot(_ file: String, width: Int, height: Int, dir: String) throws -> Data? {
        guard let chromium = ["chromium", "chromium-browser"].first(where: E2E.has) else {
            Issue.record("chromium is not installed: run make test-deps (it installs the Debian package chromium)")
            return nil
        }
        let png = dir + "/shot-\(UInt32.random(in: 0...UInt32.max)).png"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own profile folder, so parallel runs don't share one; `timeout` so it can never hang.
        p.arguments = ["timeout", "-k", "10", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
                       "--hide-scrollbars", "--no-first-run", "--user-data-dir=\(dir)/profile-\(UInt32.random(in: 0...UInt32.max))",
                       "--screenshot=\(png)", "--window-size=\(width),\(height)", URL(fileURLWithPath: file).absoluteString]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard let data = FileManager.default.contents(atPath: png) else {
            Issue.record("chromium wrote no screenshot (exit \(p.terminationStatus))")
            return nil
        }
        return data
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ d: Data) -> (Int, Int)? {
        let b = [UInt8](d.prefix(24))
        guard b.count == 24, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], b[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        return (u32(16), u32(20))
    }

    /// The PNG's pixels as RGB bytes, decoded by ffmpeg.
    static func rgb(_ png: Data, dir: String) throws -> [UInt8] {
        let path = dir + "/decode-\(UInt32.random(in: 0...UInt32.max)).png"
        try png.write(to: URL(fileURLWithPath: path))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return [UInt8](data)
    }

    /// Variance of the grey level, and the share of pixels close to the report's red.
    static func look(_ px: [UInt8]) -> (variance: Double, red: Double) {
        var sum = 0.0, sum2 = 0.0, red = 0
        let n = px.count / 3
        for i in 0..<n {
            let r = Double(px[3 * i]), g = Double(px[3 * i + 1]), b = Double(px[3 * i + 2])
            let y = 0.299 * r + 0.587 * g + 0.114 * b
            sum += y; sum2 += y * y
            if r > 180, g < 110, b < 120 { red += 1 }
        }
        let mean = sum / Double(max(n, 1))
        return (sum2 / Double(max(n, 1)) - mean * mean, Double(red) / Double(max(n, 1)))
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to decode the screenshots (make test-deps installs it)"))
    func thePictureAndTheIndexRenderInABrowser() throws {
        let dir = E2E.tempDir("report-browser")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = try Self.material(dir)
        let report = dir + "/report"
        _ = try E2E.run("lufs-measure", ["--preset", "ebu-r128", "--report", report] + inputs)
        let svg = try String(contentsOfFile: report + "/speech.wav.svg", encoding: .utf8)
        let after = try #require(svg.range(of: "height=\"")).upperBound
        let height = try #require(Int(svg[after...].prefix { $0.isNumber }))

        guard let picture = try Self.screenshot(report + "/speech.wav.svg", width: 1000, height: height, dir: dir) else { return }
        let size = try #require(Self.pngSize(picture), "a PNG")
        #expect(size == (1000, height))
        let p = Self.look(try Self.rgb(picture, dir: dir))
        #expect(p.variance > 200, "not blank: grey-level variance \(p.variance)")
        #expect(p.red > 0.002, "the over and the failed verdict show in red (\(p.red))")

        guard let index = try Self.screenshot(report + "/index.html", width: 1100, height: 900, dir: dir) else { return }
        #expect(Self.pngSize(index).map { $0 == (1100, 900) } == true)
        let i = Self.look(try Self.rgb(index, dir: dir))
        #expect(i.variance > 200, "the index is not blank: \(i.variance)")
        #expect(i.red > 0.001, "its failures show in red (\(i.red))")
    }
}
