import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The predicted compensation as a user meets it: a loud master brought to −9 and −8 LUFS under a
/// −1 dBTP ceiling lands on target (measured again by lufs-measure on the file written) in one
/// analysis pass and one write, the same bytes whatever --jobs; a signal during the write leaves
/// nothing behind.
@Suite struct LufsNormalizePredictedE2ETests {
    static let hasSox = E2E.has("sox")

    /// Pink noise with a tone bed and a slow swell (the bench's material), `seconds` long.
    static func material(_ path: String, seconds: Int) throws {
        let made = try E2E.program("/usr/bin/env", ["sox", "-R", "-n", "-r", "48000", "-c", "2", "-b", "24", path,
                                                    "synth", "\(seconds)", "pinknoise", "synth", "\(seconds)", "sine", "mix", "110",
                                                    "tremolo", "0.3", "60", "gain", "-14"])
        try #require(made.status == 0, "\(made.stderr)")
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func loudTargetsLandWithinATenthOfALUInOneWrite() throws {
        let dir = E2E.tempDir("norm-predicted")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/master.wav"
        try Self.material(f, seconds: 20)
        let m = try E2E.run("lufs-measure", [f])
        let source = try #require(m.records.first?["loudness"]?["integrated_lufs"]?.doubleValue)
        // −9 and −8: 3 to 5 dB of limiting on this material; −14: the gentle case, no limiting.
        for (target, limited) in [(-9.0, true), (-8.0, true), (-14.0, false)] {
            var outputs: [Data] = []
            for jobs in ["1", "2"] {
                let out = dir + "/t\(Int(-target))-j\(jobs)"
                let r = try E2E.run("lufs-normalize", ["--jobs", jobs, "--target", "\(target)", "--true-peak", "-1",
                                                       "--out-dir", out, "-"], stdin: m.stdout)
                #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
                let n = try #require(r.records.first?["normalized"])
                #expect(n["limiter"]?["applied"]?.boolValue == limited)
                #expect(n["passes"]?.intValue == (limited ? 2 : 1), "analysis + one write: \(n)")
                if limited {
                    #expect((n["compensation_db"]?.doubleValue ?? 0) > 0, "limiting took loudness that was given back")
                    #expect(abs((n["gain_db"]?.doubleValue ?? 0) - (target - source) - (n["compensation_db"]?.doubleValue ?? 0)) <= 0.011)
                }
                // Measured again from the file.
                let again = try E2E.run("lufs-measure", [out + "/master.wav"])
                let l = try #require(again.records.first?["loudness"])
                #expect(abs((l["integrated_lufs"]?.doubleValue ?? 0) - target) <= 0.1, "\(target): \(l)")
                #expect((l["true_peak_dbtp"]?.doubleValue ?? 0) <= -1, "\(target): \(l)")
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: out + "/master.wav")))
            }
            #expect(outputs[0] == outputs[1], "\(target): the same bytes with --jobs 1 and 2")
        }
    }

    @Test(.enabled(if: hasSox, "sox makes the pink-noise material (make test-deps installs it)"))
    func aSignalDuringThePredictedWriteLeavesNothing() throws {
        let dir = E2E.tempDir("norm-predicted-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/long.wav"
        try Self.material(f, seconds: 60)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let c = try NoHangE2ETests.start("lufs-normalize", ["--target", "-8", "--true-peak", "-1", "--out-dir", out, f])
        // The analysis pass writes nothing; wait for the written pass to open its file, then signal.
        var writing = false
        for _ in 0..<60_000 where !writing && !NoHangE2ETests.ended(c.pid) {
            writing = WriteE2ETests.openPaths(c.pid).contains { $0.hasPrefix(out + "/") }
            if !writing { usleep(500) }
        }
        #expect(writing, "lufs-normalize ended before its output was seen open")
        kill(c.pid, SIGTERM)
        let status = NoHangE2ETests.finish(c, seconds: 20)
        #expect(status == 128 + SIGTERM, "\(status.map(String.init) ?? "hung: killed after 20 s")")
        #expect(WriteE2ETests.entries(out) == [], "left behind: \(WriteE2ETests.entries(out))")
    }
}
