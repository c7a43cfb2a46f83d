import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize --lossless-gain on MP4 and MOV with H.264 video, two AAC streams at different
/// loudness and a mov_text subtitle: every audio stream takes its own gain, from its own
/// measurement (the record's, or taken here), the video's and the subtitle's packets stay
/// identical; a stream that can't take its gain refuses the whole file, naming the stream; and
/// without --lossless-gain the refusal suggests it when every stream would reach the target.
@Suite(.serialized) struct LosslessGainAACTracksE2ETests {
    typealias L = LosslessGainE2ETests
    typealias A = LosslessGainAACE2ETests
    static let ready = E2E.has("ffmpeg")

    /// Video, a tone at about −38 LUFS (0:a:0), pink noise at about −28 LUFS (0:a:1), a subtitle.
    static func makeClip(_ dir: String, ext: String, secondAudio: String = "anoisesrc=d=4:c=pink:a=0.05:seed=7",
                         secondCodec: String = "aac") throws -> String {
        let srt = dir + "/subs.srt"
        try "1\n00:00:00,000 --> 00:00:02,000\nHello\n\n2\n00:00:02,000 --> 00:00:04,000\nAgain\n".write(toFile: srt, atomically: true, encoding: .utf8)
        let path = dir + "/clip." + ext
        try L.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:d=4:r=25",
                    "-f", "lavfi", "-i", "sine=f=330:d=4,volume=0.1", "-f", "lavfi", "-i", secondAudio, "-i", srt,
                    "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-c:v", "libx264", "-preset", "ultrafast",
                    "-c:a:0", "aac", "-c:a:1", secondCodec, "-ac", "2", "-c:s", "mov_text", path])
        return path
    }

    /// The steps the rule gives a stream measured at `m` (lufs-measure's entry for it).
    static func expectedSteps(_ m: JSON?, target: Double, ceiling: Double = -1) throws -> Int {
        try LosslessGainPlan(measuredLUFS: m?["integrated_lufs"]?.doubleValue, truePeakDBTP: m?["true_peak_dbtp"]?.doubleValue,
                             targetLUFS: target, ceilingDBTP: ceiling, stepDB: AACGlobalGain.stepDB).steps
    }

    @Test(.enabled(if: ready && E2E.has("ffprobe"), "needs ffmpeg and ffprobe (make test-deps installs them)"), arguments: ["mp4", "mov"])
    func everyAudioStreamTakesItsOwnGain(ext: String) throws {
        let dir = E2E.tempDir("lossless-aac-tracks")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.makeClip(dir, ext: ext)
        let measured = try E2E.run("lufs-measure", [path])
        let loudness = try #require(measured.records.first?["loudness"])
        let r = try E2E.run("lufs-normalize", ["--lossless-gain", "--target", "-18", "--out-dir", dir + "/out"], stdin: measured.stdout)
        let n = try #require(r.records.first?["normalized"], "\(r.stdout) \(r.stderr)")
        let streams = try #require(n["streams"]?.arrayValue, "\(n)")
        #expect(streams.count == 2)
        let out = dir + "/out/clip." + ext
        var steps: [Int] = []
        for (k, s) in streams.enumerated() {
            let own = RecordedLoudness.stream(loudness, ordinal: k)
            let st = try #require(s["lossless_gain"]?["steps"]?.intValue)
            steps.append(st)
            #expect(s["stream"]?.intValue == k && s["measured_here"]?.boolValue == false)
            // The track changed is the stream ffmpeg (and so lufs-measure) numbers k.
            #expect(s["index"] == own?["index"] && s["index"]?.intValue == k + 1)
            // Each stream's gain comes from its own loudness.
            #expect(s["source_integrated_lufs"]?.doubleValue == own?["integrated_lufs"]?.doubleValue)
            #expect(st == (try Self.expectedSteps(own, target: -18)))
            let gain = Double(st) * AACGlobalGain.stepDB
            #expect(abs((s["gain_db"]?.doubleValue ?? 0) - gain) < 1e-3)
            let x = try A.decode(path, "0:a:\(k)"), y = try A.decode(out, "0:a:\(k)")
            #expect(x.count == y.count && x.count > 0)
            #expect(L.residual(x, y, gainDB: gain) <= 1e-3, "stream \(k)")
        }
        #expect(steps[0] != steps[1], "the two streams are at different loudness: \(steps)")
        // The first stream's values stay at the top, as for a file with one audio stream.
        #expect(n["lossless_gain"] == streams[0]["lossless_gain"])
        #expect(n["integrated_lufs"] == streams[0]["integrated_lufs"])
        #expect(n["aac"]?["container"]?.stringValue == "mp4")
        for map in ["0:v:0", "0:s:0"] { #expect(try A.packets(path, map) == A.packets(out, map), "\(map)") }
        // Decoded without a warning (the subtitle has no decoder to run through here).
        for map in ["0:v", "0:a"] { #expect(try A.warnings(out, map: map).isEmpty, "\(map)") }
        let a = try #require(FileManager.default.contents(atPath: path)), b = try #require(FileManager.default.contents(atPath: out))
        // Before the moov (last, as ffmpeg writes it), only the samples change; the moov grows by
        // the undo record TagLib writes.
        let moov = try #require(a.range(of: Data("moov".utf8))).lowerBound - 4
        #expect(b.count > a.count)
        let changed = zip(a[..<moov], b[..<moov]).reduce(0) { $0 + ($1.0 != $1.1 ? 1 : 0) }
        #expect(n["aac"]?["undo"]?.stringValue == steps.map { "\(-$0),\(-$0)" }.joined(separator: ";"))
        let patched = streams.reduce(0) { $0 + ($1["aac"]?["patched_bytes"]?.intValue ?? 0) }
        #expect(changed > 0 && changed <= patched)

        // With no record, each stream is measured here, to the same numbers.
        let here = try E2E.run("lufs-normalize", ["--lossless-gain", "--dry-run", "--target", "-18", "--out-dir", dir + "/dry", path])
        let h = try #require(here.records.first?["normalized"]?["streams"]?.arrayValue, "\(here.stdout) \(here.stderr)")
        #expect(h.map { $0["lossless_gain"]?["steps"]?.intValue } == steps.map { $0 })
        #expect(h.allSatisfy { $0["measured_here"]?.boolValue == true })
        for (k, s) in h.enumerated() {
            let own = RecordedLoudness.stream(loudness, ordinal: k)?["integrated_lufs"]?.doubleValue ?? 0
            #expect(abs((s["source_integrated_lufs"]?.doubleValue ?? 0) - own) <= 0.011, "stream \(k)")
        }
    }

    /// A second stream that is AC-3, or that its true peak keeps from the target, refuses the
    /// whole file naming the stream, and nothing is written; without --lossless-gain the `lossy`
    /// refusal then doesn't suggest it.
    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: ["ac3", "peak"])
    func aStreamThatCantTakeItsGainRefusesTheFile(kind: String) throws {
        let dir = E2E.tempDir("lossless-aac-tracks-refused")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // "peak": noise near full scale, loud already, so a target 8 dB up is out of reach under the ceiling.
        let path = try Self.makeClip(dir, ext: "mp4", secondAudio: kind == "peak" ? "anoisesrc=d=4:c=white:a=0.9:seed=7" : "anoisesrc=d=4:c=pink:a=0.05:seed=7",
                                     secondCodec: kind == "ac3" ? "ac3" : "aac")
        let measured = try E2E.run("lufs-measure", [path])
        let target = kind == "peak" ? "-5" : "-18"
        let r = try E2E.run("lufs-normalize", ["--lossless-gain", "--target", target, "--out-dir", dir + "/out"], stdin: measured.stdout)
        let error = try #require(r.records.first?["error"], "\(r.stdout)")
        #expect(error["code"]?.stringValue == (kind == "ac3" ? "unsupported-codec" : "lossy"))
        let message = error["message"]?.stringValue ?? ""
        #expect(message.contains("audio stream 1"), "\(message)")
        #expect(message.contains(kind == "ac3" ? "ac-3" : "to reach the target"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/clip.mp4"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out"))?.isEmpty ?? true)
        let plain = try E2E.run("lufs-normalize", ["--target", target, "--out-dir", dir + "/out"], stdin: measured.stdout)
        let refusal = try #require(plain.records.first?["error"], "\(plain.stdout)")
        #expect(refusal["code"]?.stringValue == "lossy")
        #expect(refusal["suggestion"]?.stringValue?.contains("--lossless-gain") == false)
    }

    /// Without --lossless-gain, an ADTS file (which can't be written back) and an M4A or a video
    /// file (refused as lossy) get --lossless-gain suggested when it reaches the target; from
    /// every stream's own measurement in a file with several.
    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: ["a.aac", "a.m4a", "clip.mp4"])
    func theRefusalSuggestsLosslessGain(name: String) throws {
        let dir = E2E.tempDir("lossless-aac-hint")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = name == "clip.mp4" ? try Self.makeClip(dir, ext: "mp4") : dir + "/" + name
        if name != "clip.mp4" { try L.make(path, ["-c:a", "aac"], channels: 2) }
        let measured = try E2E.run("lufs-measure", [path])
        let r = try E2E.run("lufs-normalize", ["--target", "-18", "--out-dir", dir + "/out"], stdin: measured.stdout)
        let error = try #require(r.records.first?["error"], "\(r.stdout)")
        #expect(error["code"]?.stringValue == (name == "a.aac" ? "unsupported-codec" : "lossy"), "\(error)")
        #expect(error["suggestion"]?.stringValue?.contains("Or pass --lossless-gain") == true, "\(error)")
        // And it does: the suggested run succeeds.
        let n = try E2E.run("lufs-normalize", ["--lossless-gain", "--dry-run", "--target", "-18", "--out-dir", dir + "/out"], stdin: measured.stdout)
        #expect(n.records.first?["normalized"]?["lossless_gain"]?["steps"]?.intValue != nil, "\(n.stdout)")
    }
}
