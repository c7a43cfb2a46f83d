import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A NUL inside a record's path is bad input, never a shorter path; an output too large for its
/// format's sizes is refused before anything is written.
@Suite struct PathsAndSizesE2ETests {
    @Test func aNULInAPathIsBadInput() throws {
        let dir = E2E.tempDir("trusted-nul")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = dir + "/real.wav"
        try E2E.write(real, rate: 44_100, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 44_100)])
        let line = JSON.object(["path": .string(real + "\u{0}/x/song.wav")]).serialized() + "\n"
        #expect(line.contains(#"\u0000"#))
        let m = try E2E.run("lufs-measure", [], stdin: line)
        #expect(m.status == 1)
        #expect(m.records.first?["error"]?["code"]?.stringValue == "bad-input", "\(m.stdout)")
        #expect(m.records.first?["loudness"] == nil)
        let out = dir + "/out"
        let n = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", out, "--relative-to", dir], stdin: line)
        #expect(n.status == 1)
        #expect(n.records.first?["error"]?["code"]?.stringValue == "bad-input", "\(n.stdout)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty ?? true, "nothing written")
    }

    /// An AIFF output past 4 GiB is refused before anything is read or written. The input is a
    /// sparse RF64 of 6.4 GB of float silence, which takes no room on disk.
    @Test func anAIFFTooLargeForItsSizesIsRefusedBeforeWriting() throws {
        let dir = E2E.tempDir("trusted-large")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/big.wav"
        let frames: UInt64 = 800_000_000, channels: UInt64 = 2, rate: UInt32 = 48_000
        let dataBytes = frames * channels * 4
        let h = E2E.rf64FloatHeader(frames: frames, channels: channels, rate: rate)
        try Data(h).write(to: URL(fileURLWithPath: f))
        #expect(truncate(f, off_t(UInt64(h.count) + dataBytes)) == 0)
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "aiff", "--bit-depth", "24", "--out-dir", dir + "/out", f])
        #expect(r.status == 1)
        let e = r.records.first?["error"]
        #expect(e?["code"]?.stringValue == "too-large", "\(r.stdout) \(r.stderr)")
        #expect(e?["message"]?.stringValue?.contains("4.80 GB") == true, "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/big.aiff"))
    }
}
