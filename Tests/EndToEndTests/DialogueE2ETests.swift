import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-measure --dialogue and lufs-normalize with a dialogue-gated target, run as a user would,
/// and the detector's accuracy on programmes made from real recordings (Debian packages).
@Suite struct DialogueE2ETests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let weightsBuilt = FileManager.default.fileExists(atPath: root.appendingPathComponent(".build/models/\(SpeechModelFile.fileName)").path)

    /// espeak-ng speech at 48 kHz, mono (nil without espeak-ng and sox).
    static func speech(_ dir: String) throws -> [Float]? {
        guard E2E.has("espeak-ng"), E2E.has("sox") else { return nil }
        let path = dir + "/speech.wav"
        guard try LufsNormalizeE2ETests.speech(path, rate: 48000) else { return nil }
        return try LufsNormalizeE2ETests.samples(path)[0]
    }

    @Test(.enabled(if: weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: E2E.has("espeak-ng") && E2E.has("sox"), "espeak-ng and sox make the speech"))
    func speechIsFoundAndAToneIsNot() throws {
        let dir = E2E.tempDir("dialogue")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try Self.speech(dir))
        // 4 s of a loud tone, then the speech at its own level, then 4 s of tone again.
        let tone = E2E.sine(440, dBFS: -12, seconds: 4, rate: 48000)
        let mono = tone + s.map { $0 * 0.5 } + tone
        try E2E.write(dir + "/stereo.wav", rate: 48000, channels: [mono, mono])
        let silent = [Float](repeating: 0, count: mono.count)
        try E2E.write(dir + "/five.wav", rate: 48000, channels: [tone + silent.prefix(s.count) + tone, tone + silent.prefix(s.count) + tone, silent.prefix(4 * 48000) + s + silent.prefix(4 * 48000), silent, silent, silent])
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [tone + tone, tone + tone])
        let r = try E2E.run("lufs-measure", ["--dialogue", "--timeline", dir + "/stereo.wav", dir + "/five.wav", dir + "/tone.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let byName = Dictionary(uniqueKeysWithValues: r.records.map { ($0["path"]?.stringValue?.split(separator: "/").last.map(String.init) ?? "", $0["loudness"]?["dialogue"] ?? .null) })
        let speechSeconds = Double(s.count) / 48000, total = speechSeconds + 8
        for name in ["stereo.wav", "five.wav"] {
            let d = try #require(byName[name])
            let share = try #require(d["share"]?.doubleValue)
            #expect(share > 0.5 * speechSeconds / total && share < (speechSeconds + 1) / total, "\(name): \(d)")
            #expect(d["integrated_lufs"]?.doubleValue != nil)
            #expect(d["detector"]?["name"] == .string(SpeechModelFile.detectorName))
            let spans = try #require(d["timeline"]?.arrayValue)
            // No span starts in the leading tone.
            #expect(spans.allSatisfy { ($0.arrayValue?.first?.doubleValue ?? 0) > 3.5 }, "\(spans)")
        }
        #expect(byName["stereo.wav"]?["channels"] == .array([.string("L"), .string("R")]))
        #expect(byName["five.wav"]?["channels"] == .array([.string("C")]))
        let t = try #require(byName["tone.wav"])
        #expect(t["share"]?.doubleValue == 0 && t["integrated_lufs"] == .null && t["fallback"] == .bool(true))
        #expect(t["notes"]?.arrayValue?.contains { $0.stringValue?.contains("no dialogue") == true } == true)

        // The netflix preset judges dialogue, and programme loudness where there is none.
        let g = try E2E.run("lufs-measure", ["--preset", "netflix", dir + "/stereo.wav", dir + "/tone.wav"])
        let gates = g.records.map { $0["loudness"]?["gate"]?["gate_on"]?.stringValue }
        #expect(gates == ["dialogue", "programme"], "\(g.stdout)")

        // lufs-normalize: a record without dialogue is refused; with it, dialogue reaches −27.
        let plain = try E2E.run("lufs-measure", [dir + "/stereo.wav"])
        let refused = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/out"], stdin: plain.stdout)
        #expect(refused.records.first?["error"]?["code"] == .string("stale-measurement"), "\(refused.stdout)")
        #expect(refused.records.first?["error"]?["suggestion"]?.stringValue?.contains("--dialogue") == true)
        let measured = try E2E.run("lufs-measure", ["--dialogue", dir + "/stereo.wav"])
        let n = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/out"], stdin: measured.stdout)
        let after = try #require(n.records.first?["normalized"]?["dialogue"]?["after_lufs"]?.doubleValue, "\(n.stdout) \(n.stderr)")
        #expect(abs(after - -27) < 0.05)
        let check = try E2E.run("lufs-measure", ["--dialogue", dir + "/out/stereo.wav"])
        let remeasured = try #require(check.records.first?["loudness"]?["dialogue"]?["integrated_lufs"]?.doubleValue)
        #expect(abs(remeasured - -27) < 0.5, "\(check.stdout)")
    }

    @Test func missingWeightsAreAnErrorNamingTheFileNeverAFallBack() throws {
        let dir = E2E.tempDir("dialogue-weights")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = E2E.sine(440, dBFS: -20, seconds: 2, rate: 48000)
        try E2E.write(dir + "/tone.wav", rate: 48000, channels: [tone])
        var env = ProcessInfo.processInfo.environment
        env[SpeechModelFile.environmentVariable] = dir + "/nowhere/\(SpeechModelFile.fileName)"
        let r = try E2E.run("lufs-measure", ["--dialogue", dir + "/tone.wav"], environment: env)
        #expect(r.status != 0)
        let e = try #require(r.records.first?["error"])
        #expect(e["code"] == .string("not-found"))
        #expect(e["message"]?.stringValue?.contains("nowhere/\(SpeechModelFile.fileName)") == true, "\(e)")
        #expect(r.records.first?["loudness"] == nil)
        // A damaged file: refused by its size.
        try FileManager.default.createDirectory(atPath: dir + "/nowhere", withIntermediateDirectories: true)
        try Data([0, 1, 2]).write(to: URL(fileURLWithPath: dir + "/nowhere/\(SpeechModelFile.fileName)"))
        let d = try E2E.run("lufs-measure", ["--dialogue", dir + "/tone.wav"], environment: env)
        #expect(d.records.first?["error"]?["code"] == .string("malformed"), "\(d.stdout)")
    }

    /// The programmes of Tests/Bench/dialogue_material.py, unpacked from Debian packages in set-up
    /// (nil, and the test disabled, when apt-get can't fetch them).
    static let material: String? = {
        guard E2E.has("apt-get"), E2E.has("dpkg-deb"), E2E.has("sox"), E2E.has("ffmpeg"), E2E.has("python3") else { return nil }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("audio-tools-dialogue-material").path
        try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let script = root.appendingPathComponent("Tests/Bench").path
        guard let r = try? E2E.program("/usr/bin/env", ["python3", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import dialogue_material as m; m.unpack(sys.argv[2])", script, work]),
              r.status == 0 else { return nil }
        return work
    }()

    @Test(.enabled(if: weightsBuilt, "the detector's weights are not in .build/models (make speech-model)"),
          .enabled(if: material != nil, "apt-get could not fetch the speech, music and effects packages (asterisk-core-sounds-*, asterisk-moh-opsound-wav, warzone2100-music, openttd-opensfx), or sox, ffmpeg or python3 is missing"))
    func accuracyOnRealSpeechOverRealMusicAndEffects() throws {
        let work = try #require(Self.material)
        let script = Self.root.appendingPathComponent("Tests/Bench/dialogue_material.py").path
        let r = try E2E.program("/usr/bin/env", ["python3", script, E2E.binDir.path, work, "stereo:-10", "stereo:0", "stereo:5", "5.1:-5"])
        #expect(r.status == 0, "\(r.stderr)")
        let cases = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
        #expect(cases.count == 4)
        for c in cases {
            let bed = c["bed_db"]?.doubleValue ?? 99
            let error = try #require(c["error_lu"]?.doubleValue, "\(c)")
            #expect(abs(error) <= (bed <= -5 ? 0.5 : 1.0), "\(c)")
            #expect(abs((c["share"]?.doubleValue ?? 9) - (c["true_share"]?.doubleValue ?? 0)) <= 0.05, "\(c)")
            #expect((c["false_dialogue"]?.doubleValue ?? 1) <= 0.05, "\(c)")
            if bed <= -5 { #expect((c["found"]?.doubleValue ?? 0) >= 0.9, "\(c)") }
        }
    }
}
