import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize on an MP4 with two AAC streams, one the limiter works on and one far under the
/// ceiling: each stream of the written file, decoded and measured again, lands within 0.2 LU of
/// the target (the lossy tolerance) under the ceiling, after one encode.
@Suite(.serialized) struct LufsNormalizeMediaTargetE2ETests {
    static let ready = E2E.has("ffmpeg") && E2E.has("ffprobe")

    @Test(.enabled(if: ready, "ffmpeg and ffprobe are needed (make test-deps installs them)"))
    func everyAACStreamLandsOnTarget() throws {
        let dir = E2E.tempDir("media-target")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = "\(dir)/film.mp4"
        // 12 s (the trial takes stretches, not the whole stream): a loud, peaky kick over noise
        // that needs the limiter at -14 LUFS, and a quiet pink-noise stem 15 dB under the target.
        let made = try E2E.program("/usr/bin/env", [
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=10:duration=12",
            "-f", "lavfi", "-i", "aevalsrc=exprs=0.9*sin(2*PI*55*t)*exp(-10*mod(t\\,0.5))+0.1*(random(0)-0.5):d=12:s=48000",
            "-f", "lavfi", "-i", "anoisesrc=d=12:c=pink:r=48000:a=0.2:seed=7",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", input])
        #expect(made.status == 0, "\(made.stderr)")
        let measured = try E2E.run("lufs-measure", [input])
        #expect(measured.status == 0, "\(measured.stderr)")
        let run = try E2E.run("lufs-normalize", ["--preset", "social", "--allow-loss", "--out-dir", "\(dir)/out"], stdin: measured.stdout)
        let n = run.records.first?["normalized"]
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(n?["encodes"]?.intValue == 1, "\(run.stdout)")
        let said = n?["streams"]?.arrayValue ?? []
        #expect(said.count == 2)
        // The limited stream's ceiling was moved for the codec by one trial, not two.
        #expect(said.first?["codec_trial"]?["trials"]?.intValue ?? 1 == 1, "\(run.stdout)")
        // Each lossy stream says how it landed on the one landing model (and the top says the first's).
        for s in said {
            let l = s["landing"]
            #expect(l?["rule"]?.stringValue == "hold", "\(run.stdout)")
            #expect(l?["over_ceiling_db"]?.doubleValue != nil && (l?["extra_limiting_db"]?.doubleValue ?? 9) <= 1.5 + 0.005, "\(run.stdout)")
        }
        #expect(n?["landing"] == said.first?["landing"])

        let check = try E2E.run("lufs-measure", ["\(dir)/out/film.mp4"])
        let streams = check.records.first?["loudness"]?["streams"]?.arrayValue ?? []
        #expect(streams.count == 2, "\(check.stdout)")
        for s in streams {
            let k = s["stream"]?.intValue ?? -1
            let lufs = s["integrated_lufs"]?.doubleValue ?? 0, tp = s["true_peak_dbtp"]?.doubleValue ?? 0
            #expect(abs(lufs - -14) <= 0.2, "stream \(k): \(lufs) LUFS after the codec, \(run.stdout)")
            #expect(tp <= -1, "stream \(k): \(tp) dBTP")
            // The record says what the written file measures.
            let r = said.first { $0["stream"]?.intValue == k }
            #expect(r?["integrated_lufs"]?.doubleValue.map { abs($0 - lufs) <= 0.011 } == true, "stream \(k): \(r?["integrated_lufs"]?.doubleValue ?? .nan) recorded, \(lufs) measured")
        }
    }
}
