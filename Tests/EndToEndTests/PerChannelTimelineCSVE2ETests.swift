import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-measure --per-channel (each channel's own loudness, named by position) and
/// --timeline-csv DIR (the report's series as a CSV table per file).
@Suite struct PerChannelTimelineCSVE2ETests {
    static func ffmpeg(_ args: [String]) throws {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + args)
        try #require(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.stderr)")
    }

    /// A 5.1 mix with its centre 10 dB under the other channels and a silent LFE: --per-channel
    /// names C as the quiet one and gives the LFE nulls with a note.
    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make the 5.1 file (make test-deps installs it)"))
    func perChannelNamesTheQuietCentre() throws {
        let dir = E2E.tempDir("perchannel")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mix = dir + "/mix.wav"
        try Self.ffmpeg(["-f", "lavfi", "-i", "anoisesrc=d=5:c=pink:a=0.1:seed=7", "-filter_complex",
                         "asplit=6[l][r][c][lfe][ls][rs];[c]volume=-10dB[cq];[lfe]volume=0[z];[l][r][cq][z][ls][rs]join=inputs=6:channel_layout=5.1:map=0.0-FL|1.0-FR|2.0-FC|3.0-LFE|4.0-BL|5.0-BR",
                         "-c:a", "pcm_s24le", mix])
        let r = try E2E.run("lufs-measure", ["--per-channel", mix])
        #expect(r.status == 0, "\(r.stderr)")
        let l = try #require(r.records.first?["loudness"])
        let entries = try #require(l["per_channel"]?.arrayValue)
        let names = entries.compactMap { $0["channel"]?.stringValue }
        #expect(names == ["L", "R", "C", "LFE", "Ls", "Rs"], "\(names)")
        let lufs = entries.map { $0["integrated_lufs"]?.doubleValue }
        let tp = entries.map { $0["true_peak_dbtp"]?.doubleValue }
        let left = try #require(lufs[0]), centre = try #require(lufs[2])
        #expect(abs(left - centre - 10) <= 0.05, "L \(left), C \(centre)")
        for k in [1, 4, 5] { #expect(lufs[k] == left, "\(names[k]) \(lufs[k] as Any)") }
        #expect(lufs[3] == nil && tp[3] == nil)
        let notes = l["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.hasPrefix("Channel LFE (4 of 6) is digital silence") }, "\(notes)")
        // Each channel's true peak is the one `channels` gives it.
        let peaks = l["channels"]?.arrayValue?.map { $0["true_peak_dbtp"]?.doubleValue } ?? []
        #expect(peaks == tp)
        // The quiet one among the full-range channels.
        let quietest = zip(names, lufs).filter { $0.0 != "LFE" }.min { ($0.1 ?? 0) < ($1.1 ?? 0) }?.0
        #expect(quietest == "C")

        // Without the option the record is as it was: no key, no note.
        let plain = try E2E.run("lufs-measure", [mix])
        let pl = try #require(plain.records.first?["loudness"])
        #expect(pl["per_channel"] == nil)
        #expect(!(pl["notes"]?.arrayValue?.contains { $0.stringValue?.hasPrefix("Channel ") == true } ?? true))
        #expect(pl["integrated_lufs"] == l["integrated_lufs"])
    }

    /// A --cache hit never brings back per_channel (the cache keeps the plain measurement), and
    /// --per-channel with a cache measures afresh.
    @Test func perChannelAndTheCache() throws {
        let dir = E2E.tempDir("perchannel-cache")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(1000, dBFS: -20, seconds: 2, rate: 48000)
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [s, [Float](repeating: 0, count: s.count)])
        let cache = dir + "/c.sqlite"
        let first = try E2E.run("lufs-measure", ["--cache", cache, "--per-channel", dir + "/tone.wav"])
        let again = try E2E.run("lufs-measure", ["--cache", cache, dir + "/tone.wav"])
        let fresh = try E2E.run("lufs-measure", ["--no-cache", dir + "/tone.wav"])
        #expect(first.records.first?["loudness"]?["per_channel"]?.arrayValue?.count == 2)
        #expect(again.stdout == fresh.stdout)
        let r = try #require(first.records.first?["loudness"]?["per_channel"]?.arrayValue)
        #expect(r[1]["integrated_lufs"] == .null && r[1]["channel"]?.stringValue == "R")
    }

    /// The CSV: its header, a row per timeline entry, the same values as --timeline's series
    /// (the true peak as its running maximum), names in input order, the same bytes for any --jobs.
    @Test func timelineCSVIsTheTimelinesSeries() throws {
        let dir = E2E.tempDir("timeline-csv")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: true)
        let quiet = E2E.sine(440, dBFS: -40, seconds: 1.5, rate: 44100), loud = E2E.sine(1000, dBFS: -12, seconds: 2.05, rate: 44100)
        let silence = [Float](repeating: 0, count: 22050)
        let a = silence + quiet + loud + quiet
        try E2E.write(dir + "/take.wav", rate: 44100, channels: [a, a.map { $0 * 0.5 }])
        try E2E.write(dir + "/b/take.wav", rate: 44100, channels: [loud])
        let out = dir + "/csv"
        let r = try E2E.run("lufs-measure", ["-j", "2", "--timeline", "--timeline-csv", out, dir + "/take.wav", dir + "/b/take.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(names == ["take.wav-2.csv", "take.wav.csv"])
        for (record, name) in zip(r.records, ["take.wav.csv", "take.wav-2.csv"]) {
            let t = try #require(LoudnessTimeline(loudness: record["loudness"]))
            let text = try String(contentsOfFile: out + "/" + name, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "time_s,momentary_lufs,short_term_lufs,true_peak_dbtp")
            #expect(lines.last == "")  // ends with a newline
            let rows = lines.dropFirst().dropLast().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            #expect(rows.count == t.count)
            func cell(_ v: Double?) -> String { v.map { String(format: "%.2f", ($0 * 100).rounded() / 100) } ?? "" }
            var peak: Double?
            for (i, row) in rows.enumerated() {
                if let p = t.truePeakDBTP[i] { peak = max(peak ?? p, p) }
                #expect(row.count == 4)
                #expect(row == [String(format: "%.3f", t.endSeconds(i)), cell(t.momentaryLUFS[i]), cell(t.shortTermLUFS[i]), cell(peak)],
                        "\(name) row \(i)")
            }
            // The values match the record's own rounded series, cell for cell.
            let m = record["loudness"]?["timeline"]?["momentary_lufs"]?.arrayValue ?? []
            for (i, row) in rows.enumerated() where i < m.count {
                #expect(row[1].isEmpty == (m[i] == .null))
                if let v = m[i].doubleValue { #expect(Double(row[1]) == v, "row \(i)") }
            }
        }
        // The first file opens with half a second of silence: empty cells, no -inf.
        let first = try String(contentsOfFile: out + "/take.wav.csv", encoding: .utf8)
        #expect(first.split(separator: "\n")[1] == "0.100,,,")
        #expect(!first.contains("inf"))
        // One job writes the same bytes (and collects only the true peak so far, as --timeline isn't given).
        let out1 = dir + "/csv1"
        _ = try E2E.run("lufs-measure", ["-j", "1", "--timeline-csv", out1, dir + "/take.wav", dir + "/b/take.wav"])
        for name in names {
            #expect(FileManager.default.contents(atPath: out1 + "/" + name) == FileManager.default.contents(atPath: out + "/" + name), "\(name)")
        }
        // Without --timeline or --report only the peak so far is collected (what can't raise it
        // is skipped): the same bytes, on one thread or two (one file, two jobs).
        let out2 = dir + "/csv2j"
        _ = try E2E.run("lufs-measure", ["-j", "2", "--timeline-csv", out2, dir + "/take.wav"])
        #expect(FileManager.default.contents(atPath: out2 + "/take.wav.csv") == FileManager.default.contents(atPath: out + "/take.wav.csv"))
        // Without --timeline the record has no series: --timeline-csv adds nothing to it.
        let plain = try E2E.run("lufs-measure", ["--timeline-csv", dir + "/csv2", dir + "/take.wav"])
        let bare = try E2E.run("lufs-measure", [dir + "/take.wav"])
        #expect(plain.stdout == bare.stdout)
    }

    @Test func timelineCSVRefusesAFileForAFolder() throws {
        let dir = E2E.tempDir("timeline-csv-file")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/taken", contents: Data("x".utf8))
        let r = try E2E.run("lufs-measure", ["--timeline-csv", dir + "/taken", dir + "/nothing.wav"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--timeline-csv:") && r.stderr.contains("is not a folder"), "\(r.stderr)")
        let d = try E2E.run("lufs-measure", ["--decode-only", "--per-channel", dir + "/nothing.wav"])
        #expect(d.status == 2 && d.stderr.contains("--per-channel"), "\(d.stderr)")
    }
}
