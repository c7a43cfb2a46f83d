import Foundation
import Testing
@testable import JSONValue

/// lufs-measure's level gates as a user runs them: ACX's peak, RMS and noise floor in
/// --qc-preset acx, --max-lra and --max-dc-offset, each failure named with its figure (and time)
/// in the record and the JUnit report; a chapter inside ACX's rules passes.
@Suite struct QCLevelsE2ETests {
    static let rate = 44100

    /// Deterministic white noise of RMS `dBFS` (uniform, so peak = RMS + 4.77 dB).
    static func noise(seconds: Double, dBFS: Double, seed: UInt64) -> [Float] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        let a = Float(pow(10, dBFS / 20) * 3.0.squareRoot())
        return (0..<Int(seconds * Double(rate))).map { _ in
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return (Float(Double(x >> 11) / Double(1 << 53)) * 2 - 1) * a
        }
    }

    /// A chapter: 1 s of room tone, 9 s of a 220-Hz "voice" at `peak` dBFS, 2 s of room tone,
    /// the room tone at `room` dBFS RMS under everything.
    static func chapter(_ path: String, peak: Double, room: Double) throws {
        let voice = E2E.sine(220, dBFS: peak, seconds: 9, rate: rate)
        var x = noise(seconds: 12, dBFS: room, seed: 5)
        for k in voice.indices { x[rate + k] += voice[k] }
        try E2E.write(path, rate: rate, channels: [x], codec: "pcm_f32")
    }

    static func reasons(_ run: E2E.Run) -> [String] {
        (run.records.first?["qc"]?["gate"]?["reasons"]?.arrayValue ?? []).compactMap(\.stringValue)
    }

    @Test func acxPassesAChapterInsideItsRulesAndNamesEachBrokenOne() throws {
        let dir = E2E.tempDir("qc-acx")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.chapter(dir + "/good.wav", peak: -18, room: -72)
        try Self.chapter(dir + "/hot.wav", peak: -1, room: -72)
        try Self.chapter(dir + "/quiet.wav", peak: -30, room: -72)
        try Self.chapter(dir + "/noisy.wav", peak: -18, room: -50)

        let good = try E2E.run("lufs-measure", ["--qc-preset", "acx", dir + "/good.wav"])
        #expect(good.status == 0, "\(good.stdout)")
        let l = try #require(good.records.first?["qc"]?["levels"])
        #expect(abs((l["sample_peak_dbfs"]?.doubleValue ?? 0) - -18) < 0.1)
        // 9 s of a -21 dBFS RMS sine in 12 s (the room tone adds nothing measurable).
        #expect(abs((l["rms_dbfs"]?.doubleValue ?? 0) - (-18 - 10 * log10(2) + 10 * log10(9.0 / 12))) < 0.05, "\(l)")
        #expect(abs((l["noise_floor_dbfs"]?.doubleValue ?? 0) - -72) < 0.5, "\(l)")
        let t = l["noise_floor_at_seconds"]?.doubleValue ?? -1
        #expect(t < 0.5 || t >= 10, "the quietest 0.5 s is in the room tone: \(t)")

        let hot = Self.reasons(try E2E.run("lufs-measure", ["--qc-preset", "acx", dir + "/hot.wav"]))
        #expect(hot.contains { $0.hasPrefix("--max-sample-peak -3: the sample peak is -1.0 dBFS, in M at ") }, "\(hot)")
        #expect(hot.contains { $0.hasPrefix("--max-rms -18: the RMS level is ") }, "\(hot)")
        let quiet = Self.reasons(try E2E.run("lufs-measure", ["--qc-preset", "acx", dir + "/quiet.wav"]))
        #expect(quiet == ["--min-rms -23: the RMS level is -34.3 dBFS, under -23 dBFS"], "\(quiet)")

        let junit = dir + "/acx.xml"
        let noisy = try E2E.run("lufs-measure", ["--qc-preset", "acx", "--junit", junit, "--report", dir + "/r", dir + "/noisy.wav"])
        #expect(noisy.status == 1)
        let r = Self.reasons(noisy)
        #expect(r.count == 1 && r[0].hasPrefix("--max-noise-floor -60: the noise floor is -50.") && r[0].hasSuffix(", over -60 dBFS"), "\(r)")
        let f = noisy.records.first?["qc"]?["gate"]?["failures"]?.arrayValue?.first
        #expect(f?["gate"]?.stringValue == "max-noise-floor" && f?["at_seconds"]?.doubleValue != nil)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("failures=\"1\"") && xml.contains("--max-noise-floor -60: the noise floor is -50."), "\(xml)")
        let index = try String(contentsOfFile: dir + "/r/index.html", encoding: .utf8)
        #expect(index.contains("--max-noise-floor -60: the noise floor is -50.") && index.contains("noise floor ≤ -60 dBFS"))
        let svg = try String(contentsOfFile: dir + "/r/noisy.wav.svg", encoding: .utf8)
        #expect(svg.contains("data-gate=\"max-noise-floor\""))
    }

    /// Without a level gate, --qc writes no levels (the record is as before).
    @Test func noLevelsWithoutALevelGate() throws {
        let dir = E2E.tempDir("qc-levels")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.chapter(dir + "/good.wav", peak: -18, room: -72)
        let q = try E2E.run("lufs-measure", ["--qc", "--qc-preset", "streaming", dir + "/good.wav"]).records.first?["qc"]
        #expect(q?["levels"] == nil && q?["gate"] != nil)
        let g = try E2E.run("lufs-measure", ["--preset", "podcast", dir + "/good.wav"]).records.first?["loudness"]?["gate"]
        #expect(g?["max_loudness_range_lu"] == nil && g?["pass"] != nil)
    }

    @Test func maxLRAPassesAndFails() throws {
        let dir = E2E.tempDir("qc-lra")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 10 s at -20 dBFS then 10 s at -40 dBFS: a range of about 20 LU.
        let swell = Self.noise(seconds: 10, dBFS: -20, seed: 1) + Self.noise(seconds: 10, dBFS: -40, seed: 2)
        try E2E.write(dir + "/swell.wav", rate: Self.rate, channels: [swell], codec: "pcm_f32")
        let junit = dir + "/lra.xml"
        let fail = try E2E.run("lufs-measure", ["--max-lra", "10", "--junit", junit, dir + "/swell.wav"])
        #expect(fail.status == 1)
        let g = try #require(fail.records.first?["loudness"]?["gate"])
        #expect(g["max_loudness_range_lu"]?.doubleValue == 10)
        let reasons = g["reasons"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(reasons.count == 1 && reasons[0].hasPrefix("loudness range ") && reasons[0].hasSuffix(" LU is above the 10 LU maximum"), "\(reasons)")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("is above the 10 LU maximum"))
        let pass = try E2E.run("lufs-measure", ["--max-lra", "30", dir + "/swell.wav"])
        #expect(pass.status == 0 && pass.records.first?["loudness"]?["gate"]?["pass"] == .bool(true))
    }

    @Test func dcOffsetGateNamesTheChannel() throws {
        let dir = E2E.tempDir("qc-dc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = Self.noise(seconds: 3, dBFS: -20, seed: 3), b = Self.noise(seconds: 3, dBFS: -20, seed: 4)
        try E2E.write(dir + "/dc.wav", rate: Self.rate, channels: [a, b.map { $0 + 0.02 }], codec: "pcm_f32")
        let run = try E2E.run("lufs-measure", ["--max-dc-offset", "-40", dir + "/dc.wav"])
        #expect(run.status == 1)
        let r = Self.reasons(run)
        #expect(r.count == 1 && r[0].hasPrefix("--max-dc-offset -40: ") && r[0].contains("the DC offset (a channel's mean) is -3") && r[0].hasSuffix(" dBFS in R, over -40 dBFS"), "\(r)")
    }
}
