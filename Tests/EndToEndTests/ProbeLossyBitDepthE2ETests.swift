import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A lossy codec has no bit depth: audio-probe says null (as docs/audio-probe.md does), not the
/// nominal 16 an MP4 or ASF header states; lossless files keep theirs.
@Suite struct ProbeLossyBitDepthE2ETests {
    typealias F = AudioProbeE2EFixture

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make the fixtures (make test-deps installs it)"))
    func lossyCodecsHaveNoBitDepth() throws {
        let dir = E2E.tempDir("probe-depth"); defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = ["-f", "lavfi", "-i", "sine=f=440:d=1:sample_rate=44100", "-ac", "2"]
        try F.ffmpeg(src + ["-c:a", "aac", dir + "/aac.m4a"])
        try F.ffmpeg(src + ["-c:a", "libmp3lame", dir + "/s.mp3"])
        try F.ffmpeg(src + ["-c:a", "wmav2", dir + "/s.wma"])
        try F.ffmpeg(src + ["-c:a", "alac", "-sample_fmt", "s16p", dir + "/alac.m4a"])
        try F.ffmpeg(src + ["-c:a", "pcm_s24le", dir + "/s.wav"])
        for deep in [false, true] {
            let (_, recs) = try AudioProbeE2ETests.probe((deep ? ["--deep"] : []) + [dir])
            for name in ["aac.m4a", "s.mp3", "s.wma"] {
                let rec = try #require(recs[name], "\(name)")
                #expect(rec["error"] == nil, "\(name): \(rec)")
                #expect(rec["probe"]?["bit_depth"] == .null, "\(name) (deep: \(deep)): \(rec)")
            }
            #expect(recs["alac.m4a"]?["probe"]?["bit_depth"]?.intValue == 16, "deep: \(deep)")
            #expect(recs["s.wav"]?["probe"]?["bit_depth"]?.intValue == 24, "deep: \(deep)")
        }
        // Refused for want of ffmpeg, the facts read from the container still carry no invented depth.
        let (_, w) = try AudioProbeE2ETests.probe([dir], environment: F.environmentWithoutFFmpeg)
        #expect(w["aac.m4a"]?["error"]?["code"] == .string("unsupported-codec"))
        #expect(w["aac.m4a"]?["probe"]?["bit_depth"] == .null, "\(String(describing: w["aac.m4a"]))")
    }
}
