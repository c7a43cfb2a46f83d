import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LufsMeasureE2ETests {
    @Test func helpVersionAndUsageErrors() throws {
        let help = try E2E.run("lufs-measure", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: lufs-measure"))
        #expect(help.stdout.contains("--preset"))
        #expect(help.stdout.contains("EXIT STATUS"))
        let v = try E2E.run("lufs-measure", ["--version"])
        #expect(v.status == 0 && v.stdout.contains("audio-tools"))
        for bad in [["--no-such-option"], ["--target", "loud", "x.wav"], ["--preset", "radio", "x.wav"], ["--jobs=0", "x.wav"]] {
            let r = try E2E.run("lufs-measure", bad)
            #expect(r.status == 2, "\(bad)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains("lufs-measure: error:"))
            #expect(r.stderr.contains("USAGE"))
        }
    }

    @Test func sineMeasuresToItsKnownLoudness() throws {
        let dir = E2E.tempDir("sine")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A 1 kHz sine at -23 dBFS in both channels of a stereo file reads -23.0 LUFS (EBU Tech 3341 case 1).
        let s = E2E.sine(1000, dBFS: -23, seconds: 20, rate: 48000)
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [s, s])
        let r = try E2E.run("lufs-measure", ["--jobs", "1", dir + "/tone.wav"])
        #expect(r.status == 0)
        let l = try #require(r.records.first?["loudness"])
        #expect(abs(l["integrated_lufs"]!.doubleValue! - -23) <= 0.1)
        #expect(abs(l["momentary_max_lufs"]!.doubleValue! - -23) <= 0.1)
        #expect(abs(l["short_term_max_lufs"]!.doubleValue! - -23) <= 0.1)
        #expect(abs(l["true_peak_dbtp"]!.doubleValue! - -23) <= 0.2)
        #expect(abs(l["sample_peak_dbfs"]!.doubleValue! - -23) <= 0.05)
        #expect(l["loudness_range_lu"]!.doubleValue! < 0.5)
        #expect(l["file"]?["size_bytes"]?.intValue == Int(try FileIdentity.of(dir + "/tone.wav").sizeBytes))
        #expect(r.records.first?["schema"]?.intValue == 1)
    }

    @Test func undefinedValuesAreNullWithNotes() throws {
        let dir = E2E.tempDir("null")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/silence.wav", rate: 48000, channels: [[Float](repeating: 0, count: 48000 * 5)])
        try E2E.write(dir + "/short.wav", rate: 44100, channels: [E2E.sine(1000, dBFS: -20, seconds: 2, rate: 44100)])
        let r = try E2E.run("lufs-measure", [dir])
        let recs = r.records
        #expect(recs.count == 2)
        let short = try #require(recs[0]["loudness"])
        #expect(short["short_term_max_lufs"] == .null)
        #expect(short["integrated_lufs"]?.doubleValue != nil)
        #expect((short["notes"]?.arrayValue?.count ?? 0) >= 1)
        let silence = try #require(recs[1]["loudness"])
        #expect(silence["integrated_lufs"] == .null)
        #expect(silence["true_peak_dbtp"] == .null)
        #expect((silence["notes"]?.arrayValue?.count ?? 0) >= 1)
        #expect(!r.stdout.contains("nan") && !r.stdout.contains("inf"))
    }

    @Test func everyBadInputGetsExactlyOneErrorRecord() throws {
        let dir = E2E.tempDir("bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        _ = fm.createFile(atPath: dir + "/empty.wav", contents: Data())
        _ = fm.createFile(atPath: dir + "/notes.mp3", contents: Data("these are my notes, not audio\n".utf8))
        let s = E2E.sine(440, dBFS: -20, seconds: 3, rate: 48000)
        try E2E.write(dir + "/full.wav", rate: 48000, channels: [s, s])
        let full = try Data(contentsOf: URL(fileURLWithPath: dir + "/full.wav"))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.wav"))
        var bad = s
        bad[1000] = .nan
        try E2E.write(dir + "/nan.wav", rate: 48000, channels: [bad], codec: "pcm_f32")
        var inf = s
        inf[5] = .infinity
        try E2E.write(dir + "/inf.wav", rate: 48000, channels: [inf], codec: "pcm_f32")
        // A WAV header claiming 60000 channels, and one claiming a rate of 0 Hz.
        try Self.wavHeader(channels: 60000, rate: 48000).write(to: URL(fileURLWithPath: dir + "/wide.wav"))
        try Self.wavHeader(channels: 2, rate: 0).write(to: URL(fileURLWithPath: dir + "/zero.wav"))
        try fm.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: dir + "/locked.wav", contents: full)
        chmod(dir + "/locked.wav", 0)
        let lines = [
            dir + "/missing.wav", dir + "/empty.wav", dir + "/notes.mp3", dir + "/cut.wav", dir + "/nan.wav",
            dir + "/inf.wav", dir + "/wide.wav", dir + "/zero.wav", dir + "/folder", "{not json",
            #"{"name":"x.wav"}"#, #"{"path":"\#(dir)/full.wav","schema":7}"#, dir + "/full.wav",
        ] + (getuid() == 0 ? [] : [dir + "/locked.wav"])
        let r = try E2E.run("lufs-measure", ["-j", "2"], stdin: lines.joined(separator: "\n") + "\n\n")
        #expect(r.status == 1)
        let codes = r.records.map { $0["error"]?["code"]?.stringValue ?? "ok" }
        var expected = ["not-found", "empty", "unrecognised", "truncated", "non-finite-samples", "non-finite-samples",
                        "malformed", "malformed", "not-a-file", "bad-input", "bad-input", "newer-schema", "ok"]
        if getuid() != 0 { expected.append("unreadable") }
        // libsndfile may call impossible headers unrecognised; either is a refusal with a reason.
        for (i, (got, want)) in zip(codes, expected).enumerated() {
            if want == "malformed" { #expect(got == "malformed" || got == "unrecognised", "line \(i): \(got)") } else { #expect(got == want, "line \(i): \(lines[i])") }
        }
        #expect(codes.count == lines.count)
        for rec in r.records where rec["error"] != nil {
            let msg = rec["error"]?["message"]?.stringValue ?? ""
            let sug = rec["error"]?["suggestion"]?.stringValue ?? ""
            #expect(!msg.isEmpty && !sug.isEmpty)
            #expect(!sug.lowercased().contains("try again"))
            if rec["path"]?.stringValue != nil, rec["error"]?["code"]?.stringValue != "newer-schema" {
                #expect(msg.contains("\u{201C}"), "message names the file: \(msg)")
            }
        }
    }

    static func wavHeader(channels: UInt16, rate: UInt32) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + 4000); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(rate)
        u32(rate &* UInt32(channels) &* 2); u16(channels &* 2); u16(16)
        d.append(contentsOf: Array("data".utf8)); u32(4000)
        d.append(Data(count: 4000))
        return d
    }

    @Test func gateFailsInWordsAndWritesJUnit() throws {
        let dir = E2E.tempDir("gate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let quiet = E2E.sine(1000, dBFS: -23, seconds: 4, rate: 48000)
        let right = E2E.sine(1000, dBFS: -14, seconds: 4, rate: 48000)
        try E2E.write(dir + "/a-quiet.wav", rate: 48000, channels: [quiet, quiet])
        try E2E.write(dir + "/b-right.wav", rate: 48000, channels: [right, right])
        let r = try E2E.run("lufs-measure", ["--preset=social", "--junit", dir + "/report.xml", dir + "/a-quiet.wav", dir + "/b-right.wav"])
        #expect(r.status == 1)
        let g0 = try #require(r.records[0]["loudness"]?["gate"])
        #expect(g0["pass"] == .bool(false))
        let reason = g0["reasons"]?.arrayValue?.first?.stringValue ?? ""
        #expect(reason.contains("below"), "\(reason)")
        #expect(reason.contains("-14"), "\(reason)")
        #expect(r.records[1]["loudness"]?["gate"]?["pass"] == .bool(true))
        let xml = try String(contentsOfFile: dir + "/report.xml", encoding: .utf8)
        #expect(xml.contains("<testcase"))
        #expect(xml.components(separatedBy: "<testcase").count - 1 == 2)
        #expect(xml.contains("<failure"))
        let pass = try E2E.run("lufs-measure", ["--target", "-14", "--tolerance", "0.5", "--max-true-peak", "-1", dir + "/b-right.wav"])
        #expect(pass.status == 0)
    }

    @Test func outputIsIdenticalWhateverJobsIs() throws {
        let dir = E2E.tempDir("jobs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for i in 0..<6 {
            let s = E2E.sine(200 + 150 * Double(i), dBFS: -10 - Double(i) * 3, seconds: 1 + Double(i % 3), rate: 44100)
            try E2E.write(dir + "/f\(i).wav", rate: 44100, channels: [s, s.map { $0 * 0.5 }], codec: "pcm_s16")
        }
        _ = FileManager.default.createFile(atPath: dir + "/f3-broken.wav", contents: Data("RIFF".utf8))
        let one = try E2E.run("lufs-measure", ["-j", "1", dir])
        let four = try E2E.run("lufs-measure", ["--jobs=4", dir])
        #expect(one.stdout == four.stdout)
        #expect(one.records.count == 7)
        let again = try E2E.run("lufs-measure", ["-j", "3", dir])
        #expect(again.stdout == one.stdout)
    }

    /// One long file with a core to spare runs as a pipeline (decode, true peak and K-weighting
    /// on threads of their own); with one job it runs on one thread. The records are the same bytes.
    @Test func oneFileOnTwoCoresGivesTheSameRecords() throws {
        let dir = E2E.tempDir("pipeline")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48000
        var state: UInt64 = 7
        func noise() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Double(state >> 40) / Double(1 << 24) - 0.5)
        }
        // Bursts over a tone, loud enough near the end that true peak is found late in the file.
        let n = 20 * rate
        var l = [Float](repeating: 0, count: n), r = l
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            let env = Float(0.2 + 0.6 * (t.truncatingRemainder(dividingBy: 2.5) < 0.4 ? 1 : 0) + (t > 17 ? 0.15 : 0))
            let tone = Float(0.3 * sin(2 * Double.pi * 997 * t))
            l[i] = env * (0.5 * noise()) + tone
            r[i] = env * (0.4 * noise()) - tone
        }
        try E2E.write(dir + "/long.wav", rate: rate, channels: [l, r])
        let one = try E2E.run("lufs-measure", ["-j", "1", "--timeline", dir + "/long.wav"])
        let two = try E2E.run("lufs-measure", ["-j", "2", "--timeline", dir + "/long.wav"])
        #expect(one.status == 0 && one.records.count == 1)
        #expect(one.records.first?["loudness"]?["true_peak_dbtp"]?.doubleValue != nil)
        #expect(two.stdout == one.stdout)
    }

    @Test func recordsPassThroughWithTheirFieldsAndErrorsUntouched() throws {
        let dir = E2E.tempDir("pass")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(1000, dBFS: -20, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s])
        let failed = #"{"error":{"code":"protected","message":"m","suggestion":"s","tool":"audio-probe"},"path":"x.m4p","schema":1}"#
        let input = #"{"path":"\#(dir)/a.wav","take":{"n":1.50}}"# + "\n" + failed + "\n"
        let r = try E2E.run("lufs-measure", [], stdin: input)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].contains(#""take":{"n":1.50}"#))
        #expect(lines[1] == failed)
        #expect(r.status == 1)
    }

    @Test func closedStdoutEndsQuietly() throws {
        let dir = E2E.tempDir("pipe")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(1000, dBFS: -20, seconds: 0.5, rate: 8000)
        try E2E.write(dir + "/a.wav", rate: 8000, channels: [s])
        let input = String(repeating: dir + "/a.wav\n", count: 3000)
        signal(SIGPIPE, SIG_IGN)
        let p = Process()
        p.executableURL = E2E.binDir.appendingPathComponent("lufs-measure")
        p.arguments = ["-j", "2"]
        let inPipe = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = inPipe; p.standardOutput = out; p.standardError = err
        try p.run()
        let writer = Thread { try? inPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8)); try? inPipe.fileHandleForWriting.close() }
        writer.start()
        _ = out.fileHandleForReading.readData(ofLength: 10)
        try out.fileHandleForReading.close()
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(errText.isEmpty, "\(errText)")
    }
}
