import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize towards a dialogue-gated target (the netflix preset) on programmes whose
/// programme loudness is well above their dialogue loudness, as a film mix's is: what lands on
/// the target is the dialogue, and the notes and the report judge the dialogue, not the programme.
@Suite struct DialogueNormalizeE2ETests {
    static let tools = DialogueE2ETests.weightsBuilt && E2E.has("espeak-ng") && E2E.has("sox")

    /// A music-like bed from sox (a chord under a tremolo, peaking at −1 dBFS), mono at 48 kHz.
    static func bed(_ dir: String, seconds: Int) throws -> [Float] {
        let path = dir + "/bed.wav"
        let r = try E2E.program("/usr/bin/env", ["sox", "-n", "-r", "48000", "-b", "24", "-c", "1", path,
                                                 "synth", "\(seconds)", "sine", "220", "synth", "sine", "mix", "277",
                                                 "synth", "sine", "mix", "330", "tremolo", "3", "40", "gain", "-n", "-1"])
        #expect(r.status == 0, "\(r.stderr)")
        return try LufsNormalizeE2ETests.samples(path)[0]
    }

    static func scaled(_ x: ArraySlice<Float>, dB: Double) -> [Float] {
        let g = Float(pow(10, dB / 20))
        return x.map { $0 * g }
    }

    /// 5 s of loud bed, the speech over the bed 26 dB down, 5 s of loud bed: the programme is
    /// several LU louder than its dialogue.
    static func stereoProgramme(_ dir: String) throws -> String {
        let s = try #require(try DialogueE2ETests.speech(dir))
        let b = try bed(dir, seconds: 20)
        let loud = scaled(b[0..<(5 * 48000)], dB: -3)
        let under = scaled(b[0..<s.count], dB: -26)
        let mono = loud + zip(under, s).map { $0 + $1 } + loud
        let path = dir + "/stereo.wav"
        try E2E.write(path, rate: 48000, channels: [mono, mono])
        return path
    }

    static func lufs(_ r: E2E.Run) throws -> (programme: Double, dialogue: Double) {
        let l = try #require(r.records.first?["loudness"], "\(r.stdout) \(r.stderr)")
        return (try #require(l["integrated_lufs"]?.doubleValue), try #require(l["dialogue"]?["integrated_lufs"]?.doubleValue))
    }

    static func outOfReachNotes(_ n: JSON?) -> [String] {
        (n?["notes"]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0.contains("the target:") }
    }

    @Test(.enabled(if: tools, "needs the detector's weights (make speech-model), espeak-ng and sox"))
    func dialogueLandsOnTheTargetAndNoNoteSaysOtherwise() throws {
        let dir = E2E.tempDir("dialogue-normalize")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.stereoProgramme(dir)
        let measured = try E2E.run("lufs-measure", ["--dialogue", path])
        let source = try Self.lufs(measured)
        #expect(source.programme - source.dialogue > 2, "the programme must be over 2 LU louder than its dialogue: \(source)")
        let n = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/out"], stdin: measured.stdout)
        let norm = try #require(LufsNormalizeE2ETests.normalized(n), "\(n.stdout) \(n.stderr)")
        let after = try #require(norm["dialogue"]?["after_lufs"]?.doubleValue)
        #expect(abs(after - -27) < 0.05)
        #expect(Self.outOfReachNotes(norm).isEmpty, "\(norm["notes"] ?? .null)")
        let check = try Self.lufs(try E2E.run("lufs-measure", ["--dialogue", dir + "/out/stereo.wav"]))
        #expect(abs(check.dialogue - -27) < 0.2, "\(check)")
        // lufs-measure's netflix gate passes it, in the record and in the report alike (the report
        // used to judge the programme, 8 LU over, and draw FAIL beside a passing record).
        let gated = try E2E.run("lufs-measure", ["--preset", "netflix", "--report", dir + "/report", dir + "/out/stereo.wav"])
        #expect(gated.status == 0 && gated.records.first?["loudness"]?["gate"]?["pass"] == .bool(true), "\(gated.stdout)")
        let index = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        #expect(index.contains("1 of 1 file passed") && index.contains("badge pass\">PASS"), "\(index)")
    }

    /// A 5.1 mix whose dialogue is over −27 and whose music has a burst at −0.5 dBFS, so turning
    /// it down still needs the limiter under −2 dBTP. The gain is the dialogue's: nothing is added
    /// back for what the limiter takes from the burst (the limiter's compensation used to pull
    /// the programme itself to −27, the dialogue 5 LU under it), and the report passes it.
    @Test(.enabled(if: tools, "needs the detector's weights (make speech-model), espeak-ng and sox"))
    func aSurroundMixTurnedDownAndLimitedKeepsItsDialogueOnTarget() throws {
        let dir = E2E.tempDir("dialogue-normalize-51")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try #require(try DialogueE2ETests.speech(dir))
        let b = try Self.bed(dir, seconds: 20)
        let five = 5 * 48000
        var loud = Self.scaled(b[0..<five], dB: -16)
        // A 20 ms burst at −0.5 dBFS two seconds in: the peak the limiter has to hold.
        for i in 0..<960 { loud[2 * 48000 + i] += Float(pow(10, -0.5 / 20) * sin(2 * .pi * 1000 * Double(i) / 48000)) }
        let music = loud + Self.scaled(b[0..<s.count], dB: -30) + loud
        let silence = [Float](repeating: 0, count: five)
        let centre = silence + Self.scaled(s[...], dB: -5.5) + silence
        let path = dir + "/five.wav"
        try E2E.write(path, rate: 48000, channels: [music, music, centre, [Float](repeating: 0, count: music.count), music, music])
        let measured = try E2E.run("lufs-measure", ["--dialogue", path])
        let source = try Self.lufs(measured)
        #expect(source.programme - source.dialogue > 2, "\(source)")
        #expect(source.dialogue > -27, "the mix must be turned down: \(source)")
        let n = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/out", "--report", dir + "/report"],
                            stdin: measured.stdout)
        let norm = try #require(LufsNormalizeE2ETests.normalized(n), "\(n.stdout) \(n.stderr)")
        #expect((norm["gain_db"]?.doubleValue ?? 0) < 0)
        #expect(norm["limiter"]?["applied"] == .bool(true), "\(norm)")
        #expect(Self.outOfReachNotes(norm).isEmpty, "\(norm["notes"] ?? .null)")
        let check = try Self.lufs(try E2E.run("lufs-measure", ["--dialogue", dir + "/out/five.wav"]))
        #expect(abs(check.dialogue - -27) < 0.1, "\(check)")
        #expect(norm["dialogue"]?["after_lufs"]?.doubleValue == -27, "\(norm)")
        #expect(norm["compensation_db"]?.doubleValue == 0)
        // The report judges the dialogue against −27 ±2, as the record does: a pass.
        let index = try String(contentsOfFile: dir + "/report/index.html", encoding: .utf8)
        #expect(index.contains("1 of 1 file passed"), "\(index)")
        let svg = try String(contentsOfFile: dir + "/report/five.wav.svg", encoding: .utf8)
        #expect(svg.contains("D \u{2212}27.0"), "the picture shows the dialogue's level")
    }

    /// A bare path (no record) with a dialogue-gated preset is measured here with the speech
    /// detector, as a programme preset measures one: the same gain as measuring it first.
    @Test(.enabled(if: tools, "needs the detector's weights (make speech-model), espeak-ng and sox"))
    func aBarePathIsMeasuredHereForItsDialogue() throws {
        let dir = E2E.tempDir("dialogue-normalize-bare")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.stereoProgramme(dir)
        let bare = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/bare", path])
        #expect(bare.status == 0, "\(bare.stdout) \(bare.stderr)")
        let norm = try #require(LufsNormalizeE2ETests.normalized(bare), "\(bare.stdout)")
        #expect(norm["measured_here"] == .bool(true))
        #expect(norm["dialogue"]?["gated_on"] == .string("dialogue"))
        #expect(abs((norm["dialogue"]?["after_lufs"]?.doubleValue ?? 0) - -27) < 0.05, "\(norm)")
        #expect(norm["notes"]?.arrayValue?.contains { $0.stringValue?.contains("dialogue loudness was measured here") == true } == true)
        let measured = try E2E.run("lufs-measure", ["--dialogue", path])
        let piped = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/piped"], stdin: measured.stdout)
        #expect(norm["gain_db"] == LufsNormalizeE2ETests.normalized(piped)?["gain_db"])
        #expect(norm["dialogue"]?["before_lufs"] == measured.records.first?["loudness"]?["dialogue"]?["integrated_lufs"])
        // Without the detector's weights it is the detector's error, never a programme fallback.
        var env = ProcessInfo.processInfo.environment
        env[SpeechModelFile.environmentVariable] = dir + "/nowhere/\(SpeechModelFile.fileName)"
        let missing = try E2E.run("lufs-normalize", ["--preset", "netflix", "--out-dir", dir + "/none", path], environment: env)
        #expect(missing.records.first?["error"]?["code"] == .string("not-found"), "\(missing.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/none/stereo.wav"))
    }
}
