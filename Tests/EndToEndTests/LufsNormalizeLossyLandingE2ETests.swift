import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Lossy outputs written through libsndfile (MP3, Ogg Vorbis, Opus) land after the codec: the
/// written file, measured again by lufs-measure, is within 0.2 LU of the target and at most 0.1 dB
/// over the ceiling, with the limiter at most 1.5 dB deeper than a PCM output's, in at most 2
/// encodes; or the rule (`--codec-peak`) says which limit gave way, with its figure. The record's
/// loudness and true peak are that decoded file's.
@Suite struct LufsNormalizeLossyLandingE2ETests {
    static let hasSox = E2E.has("sox")

    /// Pink noise with a tremolo, 48 kHz stereo (Opus takes 48 kHz), `seconds` long, at `gain` dB;
    /// `master`: with a tone bed and a slow swell instead (the bench's loud master).
    static func material(_ path: String, seconds: Int, gain: Double, master: Bool = false) throws {
        let shape = master ? ["synth", "\(seconds)", "sine", "mix", "110", "tremolo", "0.3", "60"] : ["tremolo", "3", "60"]
        let made = try E2E.program("/usr/bin/env", ["sox", "-R", "-n", "-r", "48000", "-c", "2", "-b", "24", path,
                                                    "synth", "\(seconds)", "pinknoise"] + shape + ["gain", "\(gain)"])
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// Normalises `input` into `format` and checks the written file with lufs-measure.
    @discardableResult
    static func check(_ input: String, format: String, target: Double, jobs: String = "1", out: String,
                      limited: Bool, rule: String? = nil) throws -> (data: Data?, record: JSON) {
        let r = try E2E.run("lufs-normalize", ["--jobs", jobs, "--target", "\(target)", "--true-peak", "-1", "--format", format,
                                               "--allow-loss", "--out-dir", out, input] + (rule.map { ["--codec-peak", $0] } ?? []))
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let n = try #require(r.records.first?["normalized"])
        let written = try #require(n["output"]?.stringValue)
        let again = try E2E.run("lufs-measure", [written])
        let l = try #require(again.records.first?["loudness"])
        let lufs = try #require(l["integrated_lufs"]?.doubleValue), tp = try #require(l["true_peak_dbtp"]?.doubleValue)
        let landing = try #require(n["landing"], "\(format): \(n)")
        #expect(landing["rule"]?.stringValue == (rule ?? "hold"), "\(format): \(n)")
        let gave = landing["gave_way"]?.stringValue
        if gave == "loudness" {
            // The loudness gave way: short of the target by the figure the record gives.
            #expect(abs((n["shortfall_lu"]?.doubleValue ?? .nan) - (target - lufs)) < 0.011, "\(format): \(n)")
        } else {
            #expect(abs(lufs - target) <= 0.2, "\(format) at \(target): \(lufs) LUFS after the codec; \(n)")
            #expect(n["shortfall_lu"] == .null, "\(format): \(n)")
        }
        if gave == "ceiling" {
            #expect(rule == "allow", "\(format): \(n)")
            #expect(abs((landing["over_ceiling_db"]?.doubleValue ?? .nan) - (tp + 1)) < 0.011, "\(format): \(n)")
            // What the encoder was handed stayed under the ceiling.
            #expect((n["codec_check"]?["handed_true_peak_dbtp"]?.doubleValue ?? 0) <= -1, "\(format): \(n)")
        } else {
            #expect(tp <= -1 + 0.1, "\(format) at \(target): \(tp) dBTP after the codec; \(n)")
        }
        // The limiter at most 1.5 dB deeper than the PCM output's.
        #expect((landing["extra_limiting_db"]?.doubleValue ?? 0) <= 1.5 + 1e-9, "\(format): \(n)")
        // The record tells the truth about the written file: lufs-measure's own numbers.
        #expect(n["integrated_lufs"]?.doubleValue == lufs, "\(format): \(n)")
        #expect(n["true_peak_dbtp"]?.doubleValue == tp, "\(format): \(n)")
        let encodes = try #require(n["encodes"]?.intValue)
        #expect(encodes <= 2, "\(format): \(n)")
        #expect(n["codec_trial"]?["trial_seconds"]?.doubleValue != nil, "\(format): \(n)")
        #expect(n["codec_trial"]?["stretches"]?.intValue == 3, "\(format): \(n)")
        // Where the limiter runs, the stretches were chosen from the analysis pass and the written
        // file's peak predicted from the whole file's processed peak (without it the analysis keeps
        // no peaks: the fixed places, and the trial's own peaks).
        #expect(n["codec_trial"]?["stretches_chosen"]?.boolValue == limited, "\(format): \(n)")
        #expect((n["codec_trial"]?["file_true_peak_dbtp"]?.doubleValue != nil) == limited, "\(format): \(n)")
        #expect(n["codec_trial"]?["predicted_true_peak_dbtp"]?.doubleValue != nil, "\(format): \(n)")
        #expect(n["codec_check"]?["handed_integrated_lufs"]?.doubleValue != nil, "\(format): \(n)")
        #expect(n["limiter"]?["applied"]?.boolValue == limited, "\(format): \(n)")
        let notes = n["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("decoded again, after the") }, "\(notes)")
        if encodes > 1 { #expect(notes.contains { $0.contains("encoded again") }, "\(notes)") }
        return (try Data(contentsOf: URL(fileURLWithPath: written)), n)
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func plainGainLandsAfterTheCodec() throws {
        let dir = E2E.tempDir("norm-lossy-plain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/quiet.wav"
        try Self.material(f, seconds: 10, gain: -30)
        for format in ["mp3", "ogg", "opus"] {
            _ = try Self.check(f, format: format, target: -16, out: dir + "/out-" + format, limited: false)
        }
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func aLoudMasterThroughTheLimiterLandsAfterTheCodec() throws {
        let dir = E2E.tempDir("norm-lossy-loud")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/loud.wav"
        try Self.material(f, seconds: 10, gain: -14, master: true)
        for format in ["mp3", "ogg", "opus"] {
            let one = try Self.check(f, format: format, target: -9, out: dir + "/j1-" + format, limited: true)
            if format == "mp3" {
                // The same bytes whatever --jobs.
                let two = try Self.check(f, format: format, target: -9, jobs: "2", out: dir + "/j2-" + format, limited: true)
                #expect(one.data == two.data)
            }
        }
    }

    /// A longer master, whose loudest swells the fixed places (the opening, two fifths, three
    /// quarters) would miss: the trial's stretches are chosen where the processed peaks come
    /// nearest the ceiling, and the written file's peak predicted from the whole file's, so one
    /// encode lands it (Opus overshoots the most of the three, MP3 next).
    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func aLongerMasterLandsInOneEncode() throws {
        let dir = E2E.tempDir("norm-lossy-long")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/long.wav"
        try Self.material(f, seconds: 30, gain: -14, master: true)
        for format in ["opus", "mp3"] {
            _ = try Self.check(f, format: format, target: -9, out: dir + "/out-" + format, limited: true)
        }
    }

    /// Pushed louder than the bound allows (−7 LUFS from the loud master): hold keeps the decoded
    /// peak under the ceiling and gives up loudness; allow keeps the loudness and reports the
    /// overshoot; neither limits more than 1.5 dB deeper than the WAV output of the same job.
    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func pastTheBoundTheRuleSaysWhichLimitGaveWay() throws {
        let dir = E2E.tempDir("norm-lossy-rule")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/loud.wav"
        try Self.material(f, seconds: 10, gain: -14, master: true)
        // The bound is the PCM output's own depth: the WAV of the same job.
        let wav = try E2E.run("lufs-normalize", ["--target", "-7", "--true-peak", "-1", "--format", "wav", "--out-dir", dir + "/wav", f])
        let pcm = try #require(wav.records.first?["normalized"]?["limiter"]?["max_reduction_db"]?.doubleValue)
        for rule in ["hold", "allow"] {
            let n = try Self.check(f, format: "mp3", target: -7, out: dir + "/" + rule, limited: true, rule: rule).record
            let depth = try #require(n["limiter"]?["max_reduction_db"]?.doubleValue)
            #expect(depth <= pcm + 1.5 + 0.02, "\(rule): \(depth) dB against the WAV's \(pcm) dB")
        }
        // The option is checked when parsed.
        let wrong = try E2E.run("lufs-normalize", ["--target", "-7", "--codec-peak", "loose", "--out-dir", dir + "/x", f])
        #expect(wrong.status == 2 && wrong.stderr.contains("hold") && wrong.stderr.contains("allow"), "\(wrong.stderr)")
    }
}
