import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Delivery control: `--bit-rate` and `--quality` reach the encoder (ffprobe reads the rate back),
/// a bad value is a usage error, `--channels` downmixes a 5.1 file and lands on target, and the
/// podcast preset aims a mono file at −19 LUFS.
@Suite(.enabled(if: E2E.has("sox") && E2E.has("ffprobe"), "needs sox and ffprobe"))
struct LufsNormalizeDeliveryE2ETests {
    static func sox(_ args: [String]) throws {
        let made = try E2E.program("/usr/bin/env", ["sox", "-R", "-n"] + args)
        try #require(made.status == 0, "\(made.stderr)")
    }

    static func probe(_ path: String, _ entry: String) throws -> String {
        let p = try E2E.program("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", entry, "-of", "csv=p=0", path])
        return String(decoding: p.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func mp3AtABitRateIsWrittenAtThatRate() throws {
        let dir = E2E.tempDir("delivery-mp3")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sox(["-r", "44100", "-c", "2", "-b", "16", dir + "/a.wav", "synth", "4", "pinknoise", "gain", "-20"])
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "mp3", "--bit-rate", "192k", "--allow-loss", "--out-dir", dir + "/o", dir + "/a.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let n = try #require(r.records.first?["normalized"])
        #expect(n["encoding"]?["bit_rate"]?.intValue == 192_000 && n["encoding"]?["rate_control"]?.stringValue == "cbr")
        #expect(try Self.probe(dir + "/o/a.mp3", "stream=bit_rate") == "192000")
        let lufs = try #require(n["integrated_lufs"]?.doubleValue)
        #expect(abs(lufs + 16) <= 0.2)
        // Without the option the record has no encoding key (the default output is unchanged).
        let plain = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "mp3", "--allow-loss", "--out-dir", dir + "/p", dir + "/a.wav"])
        #expect(plain.records.first?["normalized"]?["encoding"] == nil)
    }

    @Test func vorbisQualityChangesTheRate() throws {
        let dir = E2E.tempDir("delivery-ogg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sox(["-r", "48000", "-c", "2", "-b", "16", dir + "/a.wav", "synth", "4", "pinknoise", "gain", "-20"])
        var rates: [Int] = []
        for q in ["1", "8"] {
            let r = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "ogg", "--quality", q, "--allow-loss", "--out-dir", dir + "/q" + q, dir + "/a.wav"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.records.first?["normalized"]?["encoding"]?["quality"]?.doubleValue == Double(q))
            rates.append(Int(try Self.probe(dir + "/q\(q)/a.ogg", "stream=bit_rate")) ?? 0)
        }
        #expect(rates[0] > 0 && rates[1] > 2 * rates[0], "\(rates)")
    }

    @Test func badValuesAreUsageErrorsNamingTheRange() throws {
        for (args, words) in [(["--format", "mp3", "--bit-rate", "100k"], "192k"), (["--format", "opus", "--quality", "5"], "--bit-rate"),
                              (["--format", "flac", "--bit-rate", "128k"], "lossless"), (["--format", "mp3", "--quality", "9.5"], "0..9"),
                              (["--format", "ogg", "--bit-rate", "128k"], "--quality")] {
            let r = try E2E.run("lufs-normalize", ["--target", "-16", "--allow-loss", "--out-dir", "/nonexistent/never"] + args + ["never.wav"])
            #expect(r.status == 2 && r.stderr.contains(words), "\(args): \(r.stderr)")
        }
    }

    @Test func aSurroundFileDownmixedToStereoLandsOnTarget() throws {
        let dir = E2E.tempDir("delivery-51")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sox(["-r", "48000", "-c", "6", "-b", "24", dir + "/s.wav", "synth", "4", "pinknoise", "gain", "-24"])
        let refused = try E2E.run("lufs-normalize", ["--target", "-16", "--channels", "2", "--out-dir", dir + "/r", dir + "/s.wav"])
        #expect(refused.status == 1 && refused.records.first?["error"]?["code"]?.stringValue == "lossy")
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--channels", "2", "--allow-loss", "--out-dir", dir + "/o", dir + "/s.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let n = try #require(r.records.first?["normalized"])
        #expect(n["format"]?["channels"]?.intValue == 2)
        #expect(n["downmix"]?["from_channels"]?.intValue == 6 && n["downmix"]?["matrix"]?.stringValue == "bs775")
        let again = try E2E.run("lufs-measure", [dir + "/o/s.wav"])
        let l = try #require(again.records.first?["loudness"])
        let measured = try #require(l["integrated_lufs"]?.doubleValue)
        #expect(abs(measured + 16) <= 0.1, "\(l)")
        #expect(try Self.probe(dir + "/o/s.wav", "stream=channels") == "2")
    }

    @Test func aMonoPodcastLandsAtMinus19() throws {
        let dir = E2E.tempDir("delivery-mono")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sox(["-r", "48000", "-c", "1", "-b", "24", dir + "/m.wav", "synth", "4", "pinknoise", "gain", "-30"])
        try Self.sox(["-r", "48000", "-c", "2", "-b", "24", dir + "/st.wav", "synth", "4", "pinknoise", "gain", "-30"])
        let r = try E2E.run("lufs-normalize", ["--preset", "podcast", "--out-dir", dir + "/o", dir + "/m.wav", dir + "/st.wav"])
        #expect(r.status == 0, "\(r.stderr)")
        let mono = try #require(r.records.first { $0["path"]?.stringValue?.hasSuffix("m.wav") == true }?["normalized"])
        let stereo = try #require(r.records.first { $0["path"]?.stringValue?.hasSuffix("st.wav") == true }?["normalized"])
        let monoLUFS = try #require(mono["integrated_lufs"]?.doubleValue)
        #expect(mono["target_lufs"]?.doubleValue == -19 && abs(monoLUFS + 19) <= 0.1)
        #expect(mono["notes"]?.arrayValue?.contains { $0.stringValue?.contains("AES TD1004") == true } == true)
        #expect(stereo["target_lufs"]?.doubleValue == -16)
        // lufs-measure's podcast gate judges the mono file at -19 too.
        let gate = try E2E.run("lufs-measure", ["--preset", "podcast", dir + "/o/m.wav"])
        #expect(gate.status == 0 && gate.records.first?["loudness"]?["gate"]?["target_lufs"]?.doubleValue == -19, "\(gate.stdout)")
        // An explicit --target wins over the preset's rule.
        let t = try E2E.run("lufs-normalize", ["--preset", "podcast", "--target", "-16", "--out-dir", dir + "/t", dir + "/m.wav"])
        #expect(t.records.first?["normalized"]?["target_lufs"]?.doubleValue == -16)
    }
}
