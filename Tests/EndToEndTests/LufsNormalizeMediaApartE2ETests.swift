import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// AAC streams of an MP4 are encoded apart, each by an ffmpeg of its own, then copied into the
/// output: nothing of a stream is lost or added on the way (its length, to the sample), the bytes
/// don't depend on --jobs, and a signal mid-encode leaves nothing behind.
@Suite(.serialized) struct LufsNormalizeMediaApartE2ETests {
    static let ready = E2E.has("ffmpeg") && E2E.has("ffprobe")

    /// Decoded samples per audio stream of `path`.
    static func frames(_ path: String, stream: Int) throws -> Int {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:\(stream)", "-f", "f32le", "-ac", "1", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.count / 4
    }

    @Test(.enabled(if: ready, "ffmpeg and ffprobe are needed (make test-deps installs them)"))
    func eachStreamKeepsItsLengthAndTheBytesDontDependOnJobs() throws {
        let dir = E2E.tempDir("media-apart")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Lengths that are no whole number of AAC frames (1024 samples), at two rates: the encoder's
        // priming and its last, partial frame must come through the copy exactly.
        let input = "\(dir)/clip.mp4"
        _ = try LufsNormalizeMediaE2ETests.tool([
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=10:duration=2.5",
            "-f", "lavfi", "-i", "aevalsrc=exprs=0.9*sin(2*PI*55*t)*exp(-10*mod(t\\,0.5)):d=2.4567:s=48000",
            "-f", "lavfi", "-i", "sine=f=300:d=2.3:r=44100,volume=-20dB", "-map", "0:v", "-map", "1:a", "-map", "2:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "96k", input])
        let measured = try E2E.run("lufs-measure", [input])
        var outputs: [Data] = []
        for jobs in ["1", "2"] {
            let out = "\(dir)/out\(jobs)"
            let run = try E2E.run("lufs-normalize", ["--jobs", jobs, "--preset", "social", "--allow-loss", "--out-dir", out], stdin: measured.stdout)
            #expect(run.status == 0, "\(run.stderr)")
            let n = run.records.first?["normalized"]
            #expect(n?["streams"]?.arrayValue?.count == 2)
            // The temporary files of the encodes are gone.
            #expect((try? FileManager.default.contentsOfDirectory(atPath: out)) == ["clip.mp4"])
            outputs.append(FileManager.default.contents(atPath: "\(out)/clip.mp4") ?? Data())
        }
        #expect(!outputs[0].isEmpty && outputs[0] == outputs[1])
        for k in 0..<2 {
            #expect(try Self.frames("\(dir)/out1/clip.mp4", stream: k) == Self.frames(input, stream: k), "audio stream \(k)")
        }
    }

    /// SIGTERM while the streams encode apart: the tool dies of it, every ffmpeg ends, and neither
    /// the encoders' files nor the output are left.
    @Test(.enabled(if: ready, "ffmpeg and ffprobe are needed (make test-deps installs them)"))
    func aSignalDuringTheEncodeLeavesNothing() throws {
        let dir = E2E.tempDir("media-apart-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = "\(dir)/long.mp4"
        _ = try LufsNormalizeMediaE2ETests.tool([
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=16x16:r=1:d=240",
            "-f", "lavfi", "-i", "sine=d=240:r=48000", "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast",
            "-c:a", "aac", "-b:a", "128k", "-shortest", input])
        let c = try NoHangE2ETests.start("lufs-normalize", ["--preset", "social", "--allow-loss", "--out-dir", "\(dir)/out", input])
        // Wait until a stream's encoder has written some of its file, then signal the tool alone.
        var encoding = false
        for _ in 0..<6000 where !encoding {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/out")) ?? []
            encoding = files.contains { f in
                var st = stat()
                return f.hasSuffix(".m4a") && stat("\(dir)/out/\(f)", &st) == 0 && st.st_size > 1 << 14
            }
            if !encoding { usleep(5_000) }
        }
        #expect(encoding, "no stream was being encoded")
        NoHangE2ETests.expectStoppedCleanly(c, dir: dir)
    }
}
