import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-measure --qc and --platforms as a user runs them, on files made here with each fault at a
/// known time: every fault is found at its time to 10 ms, a clean busy file and near misses give
/// nothing, and failed gates name themselves in the record, the JUnit report and the HTML report.
@Suite struct QCE2ETests {
    static let rate = 48000

    /// Busy noise at about −16 dBFS RMS, never exactly zero and never near full scale.
    static func noise(seconds: Double, seed: UInt64) -> [Float] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<Int(seconds * Double(rate))).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let u = Float(Double(x >> 11) / Double(1 << 53)) * 2 - 1
            return (u >= 0 ? max(u, 1e-3) : min(u, -1e-3)) * 0.25
        }
    }

    static func frame(_ seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }

    /// 12 s of stereo: 2 s of digital silence at the head and 1.5 s at the tail, clipped runs at
    /// 4.000 s (left) and 6.500 s (right), a 250-ms dropout at 8.000 s.
    static func faults(_ path: String) throws {
        var l = noise(seconds: 12, seed: 1), r = noise(seconds: 12, seed: 2)
        func silence(_ at: Double, _ seconds: Double) { for k in frame(at)..<frame(at + seconds) { l[k] = 0; r[k] = 0 } }
        silence(0, 2); silence(10.5, 1.5); silence(8, 0.25)
        for k in 0..<4 { l[frame(4) + k] = 1 }
        for k in 0..<3 { r[frame(6.5) + k] = -1 }
        try E2E.write(path, rate: rate, channels: [l, r], codec: "pcm_f32")
    }

    static func qc(_ path: String, _ extra: [String] = []) throws -> JSON {
        let run = try E2E.run("lufs-measure", ["--qc"] + extra + [path])
        let rec = try #require(run.records.first, "no record: \(run.stderr)")
        return try #require(rec["qc"], "no qc in \(run.stdout)")
    }

    static func near(_ v: JSON?, _ expected: Double, within: Double = 0.010) -> Bool {
        guard let d = v?.doubleValue else { return false }
        return abs(d - expected) <= within
    }

    @Test func eachFaultIsFoundAtItsTime() throws {
        let dir = E2E.tempDir("qc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.faults(dir + "/faults.wav")
        let q = try Self.qc(dir + "/faults.wav")
        #expect(q["clipping"]?["runs"]?.intValue == 2)
        let times = q["clipping"]?["times"]?.arrayValue ?? []
        #expect(times.count == 2 && Self.near(times[0], 4) && Self.near(times[1], 6.5), "\(times)")
        #expect(q["clipping"]?["time_channels"] == .array([.array([.string("L")]), .array([.string("R")])]))
        #expect(Self.near(q["silence"]?["head_seconds"], 2) && Self.near(q["silence"]?["tail_seconds"], 1.5))
        let drops = q["silence"]?["dropouts"]?.arrayValue ?? []
        #expect(drops.count == 1)
        #expect(Self.near(drops.first?["at_seconds"], 8) && Self.near(drops.first?["duration_seconds"], 0.25))
        #expect(q["channels"]?["silent"]?.arrayValue?.isEmpty == true)
    }

    @Test func invertedDeadAndOffsetChannels() throws {
        let dir = E2E.tempDir("qc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = Self.noise(seconds: 6, seed: 3)
        try E2E.write(dir + "/inverted.wav", rate: Self.rate, channels: [a, a.map { -$0 }], codec: "pcm_f32")
        try E2E.write(dir + "/dead.wav", rate: Self.rate, channels: [a, [Float](repeating: 0, count: a.count)], codec: "pcm_f32")
        try E2E.write(dir + "/dc.wav", rate: Self.rate, channels: [a.map { $0 + 0.01 }, Self.noise(seconds: 6, seed: 4).map { $0 + 0.01 }], codec: "pcm_f32")

        let inv = try Self.qc(dir + "/inverted.wav")
        #expect(inv["channels"]?["inverted"] == .array([.array([.string("L"), .string("R")])]))
        #expect(inv["phase"]?["min_correlation"]?.doubleValue == -1)
        #expect(inv["phase"]?["mono_loss_db"] == .null && (inv["notes"]?.arrayValue?.count ?? 0) >= 1)

        let dead = try Self.qc(dir + "/dead.wav")
        #expect(dead["channels"]?["silent"] == .array([.string("R")]))

        let dc = try Self.qc(dir + "/dc.wav")
        let offsets = dc["dc_offset_dbfs"]?.arrayValue ?? []
        #expect(offsets.count == 2 && offsets.allSatisfy { Self.near($0, -40, within: 0.5) }, "\(offsets)")
    }

    @Test func aCleanBusyFileAndNearMissesGiveNoFindings() throws {
        let dir = E2E.tempDir("qc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var l = Self.noise(seconds: 8, seed: 5), r = Self.noise(seconds: 8, seed: 6)
        try E2E.write(dir + "/clean.wav", rate: Self.rate, channels: [l, r], codec: "pcm_f32")
        // Near misses: two full-scale samples, 9 ms of digital silence.
        l[Self.frame(3)] = 1; l[Self.frame(3) + 1] = 1
        for k in Self.frame(5)..<(Self.frame(5) + Self.frame(0.009)) { l[k] = 0; r[k] = 0 }
        try E2E.write(dir + "/near.wav", rate: Self.rate, channels: [l, r], codec: "pcm_f32")
        for name in ["clean.wav", "near.wav"] {
            let q = try Self.qc(dir + "/" + name, ["--max-clipped-runs", "0", "--no-dropouts", "--max-head-silence", "0", "--max-tail-silence", "0"])
            #expect(q["clipping"]?["runs"]?.intValue == 0, "\(name)")
            #expect(q["silence"]?["dropouts"]?.arrayValue?.isEmpty == true, "\(name)")
            #expect(q["silence"]?["head_seconds"]?.doubleValue == 0 && q["silence"]?["tail_seconds"]?.doubleValue == 0, "\(name)")
            #expect(q["channels"]?["silent"]?.arrayValue?.isEmpty == true && q["channels"]?["inverted"]?.arrayValue?.isEmpty == true
                    && q["channels"]?["identical"]?.arrayValue?.isEmpty == true, "\(name)")
            #expect(q["gate"]?["pass"]?.boolValue == true, "\(name): \(q["gate"] ?? .null)")
        }
        let clean = try Self.qc(dir + "/clean.wav")
        #expect(clean["clipping"]?["overs"]?.intValue == 0)
        #expect(abs(clean["phase"]?["min_correlation"]?.doubleValue ?? 1) < 0.1)
    }

    /// Failed QC gates give reasons naming them in the record, the JUnit report and the report,
    /// where the picture marks each at its time; the exit status is 1.
    @Test func failedGatesNameThemselvesEverywhere() throws {
        let dir = E2E.tempDir("qc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.faults(dir + "/faults.wav")
        let junit = dir + "/qc.xml", report = dir + "/report"
        let run = try E2E.run("lufs-measure", ["--qc-preset", "acx", "--junit", junit, "--report", report, dir + "/faults.wav"])
        #expect(run.status == 1, "\(run.stderr)")
        let gate = try #require(run.records.first?["qc"]?["gate"])
        let reasons = gate["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(gate["pass"]?.boolValue == false)
        for name in ["--max-clipped-runs", "--max-head-silence", "--no-dropouts"] {
            #expect(reasons.contains { $0.hasPrefix(name) }, "\(name) in \(reasons)")
        }
        #expect(!reasons.contains { $0.hasPrefix("--max-tail-silence") }, "1.5 s is within ACX's 5 s")
        #expect(reasons.contains { $0.hasPrefix("--max-clipped-runs 0: 2 clipped runs") && $0.hasSuffix("the first at 4.000 s in L") }, "\(reasons)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"1\"") && xml.contains("--max-clipped-runs") && xml.contains("--no-dropouts"))
        let index = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        #expect(index.contains("--max-head-silence"))
        let svg = try String(contentsOfFile: report + "/faults.wav.svg", encoding: .utf8)
        #expect(svg.contains("data-gate=\"max-clipped-runs\" data-seconds=\"4.000\""))
        #expect(svg.contains("data-gate=\"no-dropouts\" data-seconds=\"8.000\""))
    }

    /// A dead right channel and a right channel that is the left inverted (the mono fold-down is
    /// silent) fail the streaming and acx presets and the channel gates alone, naming the
    /// channels in the record, the JUnit report and the report's row; a clean file and a 5.1 file
    /// whose LFE alone is silent pass.
    @Test func deadAndInvertedChannelsFailTheirGates() throws {
        let dir = E2E.tempDir("qc-channels")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = Self.noise(seconds: 4, seed: 7), zero = [Float](repeating: 0, count: a.count)
        // Related but not copies: the broadcast preset's --min-correlation 0 passes them.
        let b = zip(a, Self.noise(seconds: 4, seed: 8)).map { 0.7 * $0 + 0.3 * $1 }
        try E2E.write(dir + "/dead.wav", rate: Self.rate, channels: [a, zero], codec: "pcm_f32")
        try E2E.write(dir + "/inverted.wav", rate: Self.rate, channels: [a, a.map { -$0 }], codec: "pcm_f32")
        try E2E.write(dir + "/clean.wav", rate: Self.rate, channels: [a, b], codec: "pcm_f32")
        let six = (9..<12).map { Self.noise(seconds: 4, seed: UInt64($0)) }
        try E2E.write(dir + "/nolfe.wav", rate: Self.rate, channels: [a, b, six[0], zero, six[1], six[2]], codec: "pcm_f32")
        let files = ["dead.wav", "inverted.wav", "clean.wav", "nolfe.wav"].map { dir + "/" + $0 }
        for preset in ["streaming", "acx", "broadcast"] {
            // Busy noise at -17 dBFS RMS is over ACX's RMS and noise floor: those are left out here.
            let levels = preset == "acx" ? ["--max-rms", "0", "--max-noise-floor", "0"] : []
            let run = try E2E.run("lufs-measure", ["--qc-preset", preset] + levels + files)
            #expect(run.status == 1, "\(preset): the QC gate alone fails the run")
            let passed = run.records.map { $0["qc"]?["gate"]?["pass"]?.boolValue }
            #expect(passed == [false, false, true, true], "\(preset): \(run.stdout)")
            let gates = run.records.map { ($0["qc"]?["gate"]?["failures"]?.arrayValue ?? []).compactMap { $0["gate"]?.stringValue } }
            #expect(gates[0].contains("no-dead-channels") && gates[1].contains("no-inverted-channels"), "\(preset): \(gates)")
        }
        let junit = dir + "/qc.xml", report = dir + "/report"
        let run = try E2E.run("lufs-measure", ["--no-dead-channels", "--no-inverted-channels", "--summary", "--junit", junit, "--report", report] + files)
        #expect(run.status == 1)
        let reasons = run.records.map { ($0["qc"]?["gate"]?["reasons"]?.arrayValue ?? []).compactMap(\.stringValue) }
        #expect(reasons[0] == ["--no-dead-channels: channel R is digital silence from start to end"], "\(reasons)")
        #expect(reasons[1] == ["--no-inverted-channels: R is L in reverse polarity (the two cancel in a mono fold-down)"], "\(reasons)")
        #expect(reasons[2].isEmpty && reasons[3].isEmpty, "an LFE may be silent: \(reasons)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"2\"") && xml.contains("--no-dead-channels: channel R") && xml.contains("--no-inverted-channels: R is L"), "\(xml)")
        let index = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        #expect(index.contains("--no-dead-channels: channel R") && index.contains("--no-inverted-channels: R is L"))
        #expect(run.stderr.contains("2 of 4 files passed the gate"), "\(run.stderr)")
    }

    /// With only a QC gate, the report's gate is the QC gate: the index names it, counts passes
    /// and failures, and each row and picture says PASS or FAIL, as the exit status does.
    @Test func aQCGateAloneIsTheReportsGate() throws {
        let dir = E2E.tempDir("qc-report")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/clean.wav", rate: Self.rate, channels: [Self.noise(seconds: 4, seed: 21), Self.noise(seconds: 4, seed: 22)],
                      codec: "pcm_f32")
        try Self.faults(dir + "/clipped.wav")
        let report = dir + "/r"
        let run = try E2E.run("lufs-measure", ["--qc-preset", "acx", "--max-rms", "0", "--max-noise-floor", "0", "--report", report,
                                               dir + "/clean.wav", dir + "/clipped.wav"])
        #expect(run.status == 1)
        let index = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        #expect(!index.contains("no gate"), "\(index)")
        #expect(index.contains("gate: QC acx: clipped runs ≤ 0, head silence ≤ 1 s, tail silence ≤ 5 s, no dropouts, no dead channels, no inverted channels, sample peak ≤ -3 dBFS, RMS -23 to 0 dBFS, noise floor ≤ 0 dBFS"), "\(index)")
        #expect(index.contains("<p class=\"summary bad\">1 of 2 files passed (1 failed the gate)</p>"), "\(index)")
        #expect(index.contains("badge pass\">PASS") && index.contains("badge fail\">FAIL") && !index.contains("MEASURED"))
        let clean = try String(contentsOfFile: report + "/clean.wav.svg", encoding: .utf8)
        #expect(clean.contains("clean.wav: PASS</title>"))
        let clipped = try String(contentsOfFile: report + "/clipped.wav.svg", encoding: .utf8)
        #expect(clipped.contains("clipped.wav: FAIL</title>"))
        // With a loudness gate too, both are named.
        let both = try E2E.run("lufs-measure", ["--preset", "podcast", "--max-overs", "0", "--report", dir + "/b", dir + "/clean.wav"])
        let bothIndex = try String(contentsOfFile: dir + "/b/index.html", encoding: .utf8)
        #expect(bothIndex.contains("gate: podcast: -16 ±1 LUFS, true peak ≤ -1 dBTP; QC overs ≤ 0"), "\(both.stderr)")
    }

    /// The platforms' figures follow their rules from the file's own loudness and true peak, and the
    /// summary table gets a column per chosen platform.
    @Test func platformsFollowTheirRules() throws {
        let dir = E2E.tempDir("qc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let quiet = E2E.sine(997, dBFS: -22, seconds: 5, rate: Self.rate)
        try E2E.write(dir + "/quiet.wav", rate: Self.rate, channels: [quiet, quiet])
        let run = try E2E.run("lufs-measure", ["--platform", "spotify,youtube", "--summary", dir + "/quiet.wav"])
        let l = try #require(run.records.first?["loudness"])
        let i = try #require(l["integrated_lufs"]?.doubleValue), tp = try #require(l["true_peak_dbtp"]?.doubleValue)
        let p = l["platforms"]?.arrayValue ?? []
        #expect(p.compactMap { $0["name"]?.stringValue } == ["spotify", "youtube"])
        // Spotify lifts it only as far as 1 dB of true-peak headroom; YouTube leaves it.
        let lift = min(-14 - i, -1 - tp)
        #expect(abs((p.first?["gain_db"]?.doubleValue ?? 99) - lift) < 0.011)
        #expect(abs((p.first?["true_peak_dbtp"]?.doubleValue ?? 99) - (tp + lift)) < 0.011)
        #expect(p.last?["gain_db"]?.doubleValue == 0)
        #expect(run.stderr.contains("spotify") && run.stderr.contains("youtube"), "\(run.stderr)")
        // A float master over full scale, louder than Loud's −11: turned down, it still plays over
        // −1 dB, so Loud's limiter acts (it used to say limited: false only because the gain was
        // not positive).
        var hot = E2E.sine(997, dBFS: -10, seconds: 5, rate: Self.rate)
        for k in stride(from: Self.rate, to: hot.count, by: Self.rate) { hot[k] = 1.3; hot[k + 1] = -1.3 }
        try E2E.write(dir + "/hot.wav", rate: Self.rate, channels: [hot, hot], codec: "pcm_f32")
        let h = try #require(try E2E.run("lufs-measure", ["--platform", "spotify-loud", dir + "/hot.wav"]).records.first?["loudness"])
        let loud = try #require(h["platforms"]?.arrayValue?.first)
        let g = try #require(loud["gain_db"]?.doubleValue), hotTP = try #require(h["true_peak_dbtp"]?.doubleValue)
        #expect(g < 0 && hotTP + g > -1, "turned down and still over -1: \(h)")
        #expect(loud["limited"] == .bool(true) && loud["true_peak_dbtp"] == .null, "\(loud)")
        let bad = try E2E.run("lufs-measure", ["--platform", "myspace", dir + "/quiet.wav"])
        #expect(bad.status != 0 && bad.stderr.contains("myspace"))
    }
}
