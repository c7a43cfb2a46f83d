import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What the bytes say without --deep (a transport stream's codec, raw DTS's and WavPack's rate
/// and channels) agrees with ffprobe; vo-align reads every link of a chained Ogg file.
@Suite struct ProbeHeadersAndChainsE2ETests {
    typealias Zoo = DecodeZooE2ETests

    @Test(.enabled(if: Zoo.haveFFmpeg && E2E.has("wavpack"), "needs ffmpeg, ffprobe and wavpack"))
    func headersNameCodecRateAndChannelsWithoutDecoding() throws {
        let dir = E2E.tempDir("probe-headers")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/src.wav", src51 = dir + "/src51.wav"
        try Zoo.material(src)
        try Zoo.material(src51, surround: true, seconds: 2)
        func ff(_ name: String, _ input: String, _ args: [String]) throws {
            #expect(try Zoo.sh("ffmpeg", ["-v", "error", "-y", "-i", input] + args + [dir + "/" + name]), "ffmpeg couldn't make \(name)")
        }
        try ff("dts.bin", src, ["-c:a", "dca", "-strict", "-2", "-f", "dts"])
        try ff("dts51.bin", src51, ["-c:a", "dca", "-strict", "-2", "-f", "dts"])
        try ff("aac-ts.bin", src, ["-c:a", "aac", "-f", "mpegts"])
        try ff("mp2-ts.bin", src, ["-c:a", "mp2", "-f", "mpegts"])
        try ff("ac3-ts.bin", src51, ["-c:a", "ac3", "-f", "mpegts"])
        #expect(try Zoo.sh("wavpack", ["-q", src, "-o", dir + "/wv.bin"]))
        #expect(try Zoo.sh("wavpack", ["-q", src51, "-o", dir + "/wv51.bin"]))
        for name in ["dts.bin", "dts51.bin", "aac-ts.bin", "mp2-ts.bin", "ac3-ts.bin", "wv.bin", "wv51.bin"] {
            let path = dir + "/" + name
            let p = try #require(E2E.run("audio-probe", [path]).records.first?["probe"], "\(name)")
            let f = try Zoo.ffprobe(path)
            #expect(p["codec"]?.stringValue == f.codec, "\(name): \(p)")
            #expect(p["sample_rate"]?.intValue == f.rate && p["channels"]?.intValue == f.channels, "\(name): \(p)")
        }
        // WavPack states its length: ffprobe's, to the frame.
        let wv = try #require(E2E.run("audio-probe", [dir + "/wv.bin"]).records.first?["probe"])
        let seconds = try #require(try Zoo.ffprobe(dir + "/wv.bin").seconds)
        #expect(abs((wv["duration_seconds"]?.doubleValue ?? 0) - seconds) < 0.001, "\(wv)")
    }

    /// A take made of two Ogg Vorbis links (2 s and 1.5 s): placed at a known latency, the aligned
    /// copy holds both links, and stays Ogg Vorbis under its own name.
    @Test(.enabled(if: Zoo.haveFFmpeg && E2E.has("oggenc"), "needs ffmpeg and oggenc (vorbis-tools)"))
    func voAlignReadsEveryLinkOfAChainedTake() throws {
        let dir = E2E.tempDir("align-chain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 9)
        let a = (0..<88200).map { _ in Float(0.1 * rng.gaussian()) }
        let b = (0..<66150).map { i in Float(0.3 * sin(Double(i) * 0.05)) }
        try E2E.write(dir + "/a.wav", rate: 44100, channels: [a, a], codec: "pcm_s16")
        try E2E.write(dir + "/b.wav", rate: 44100, channels: [b, b], codec: "pcm_s16")
        #expect(try Zoo.sh("oggenc", ["-Q", dir + "/a.wav", "-o", dir + "/a.ogg"]))
        #expect(try Zoo.sh("oggenc", ["-Q", dir + "/b.wav", "-o", dir + "/b.ogg"]))
        let take = dir + "/take.ogg"
        try (try Data(contentsOf: URL(fileURLWithPath: dir + "/a.ogg")) + Data(contentsOf: URL(fileURLWithPath: dir + "/b.ogg")))
            .write(to: URL(fileURLWithPath: take))
        let r = try E2E.run("vo-align", ["--latency-ms", "0", "--start-at", "0", "--out-dir", dir + "/out", take])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.records.first?["alignment"]?["output"]?.stringValue == dir + "/out/take.ogg", "\(r.stdout)")
        let out = try SndfileSource(path: dir + "/out/take.ogg")
        #expect(out.description.codec == "vorbis")
        var frames = 0, tail = 0.0
        try Decoder.forEachBlock(out) { blk in
            for i in 0..<blk.frames where frames + i >= 88200 + 22050 && frames + i < 88200 + 44100 {
                tail += Double(blk.channels[0][i] * blk.channels[0][i])
            }
            frames += blk.frames
        }
        // Both links: 154350 frames (Vorbis's own trimming aside), and the tone of the second.
        #expect(abs(frames - 154_350) < 1024, "\(frames) frames")
        #expect(tail / 22050 > 0.03, "the second link's tone is missing (mean square \(tail / 22050))")
    }
}
