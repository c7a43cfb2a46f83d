import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The limited path as a user runs it: a lightly limited file is written in one pass, a deeply
/// limited one predicts its gain from one analysis pass and is written once, and both are the same bytes whatever --jobs
/// (a spare core decodes ahead and measures true peak).
@Suite struct LufsNormalizePassesE2ETests {
    @Test func limitedFilesAreTheSameBytesWhateverJobsAndALightOneTakesOnePass() throws {
        guard E2E.has("sox") else {
            Issue.record("sox is needed for the pink-noise material (make test-deps installs it); not tested.")
            return
        }
        let dir = E2E.tempDir("norm-passes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/noise.wav"
        // Noise-like music (the bench's material): its loudness sits close to its peaks.
        let made = try E2E.program("/usr/bin/env", ["sox", "-R", "-n", "-r", "48000", "-c", "2", "-b", "24", f,
                                                    "synth", "4", "pinknoise", "synth", "4", "sine", "mix", "110",
                                                    "tremolo", "0.3", "60", "gain", "-14"])
        try #require(made.status == 0, "\(made.stderr)")
        let m = try E2E.run("lufs-measure", [f])
        let l = try #require(m.records.first?["loudness"])
        let lufs = try #require(l["integrated_lufs"]?.doubleValue), tp = try #require(l["true_peak_dbtp"]?.doubleValue)
        // The gain that puts the true peak on the limiter's threshold (−1.15 dBTP), plus 0.5 dB
        // (light: the limiter barely touches the loudness) or plus 3.5 dB (deep).
        let onThreshold = (-1.15 - tp) + lufs
        for (label, over) in [("light", 0.5), ("deep", 3.5)] {
            let target = String(format: "%.2f", onThreshold + over)
            var outputs: [Data] = []
            var records: [JSON] = []
            for jobs in ["1", "2"] {
                let out = dir + "/\(label)-j\(jobs)"
                let r = try E2E.run("lufs-normalize", ["--jobs", jobs, "--target", target, "--out-dir", out, "-"], stdin: m.stdout)
                #expect(r.status == 0, "\(r.stdout)")
                var n = try #require(r.records.first?["normalized"]?.objectValue)
                #expect(n["limiter"]?["applied"]?.boolValue == true)
                #expect(abs((n["integrated_lufs"]?.doubleValue ?? 0) - (Double(target) ?? 0)) <= 0.06, "\(label): on target")
                #expect((n["true_peak_dbtp"]?.doubleValue ?? 0) <= -1)
                if label == "light" {
                    #expect(n["passes"]?.intValue == 1, "written as it ran, not measured and run again")
                    #expect(n["compensation_db"]?.doubleValue == 0)
                } else {
                    // One analysis pass predicts the compensation, then one write.
                    #expect(n["passes"]?.intValue == 2 && (n["compensation_db"]?.doubleValue ?? 0) > 0.3)
                }
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: out + "/noise.wav")))
                n["output"] = nil
                records.append(.object(n))
            }
            #expect(outputs[0] == outputs[1], "\(label): the same bytes with --jobs 1 and 2")
            #expect(records[0] == records[1], "\(label): the same record with --jobs 1 and 2")
        }
    }
}
