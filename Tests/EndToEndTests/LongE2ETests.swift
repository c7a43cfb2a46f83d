import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Tests that need more disk and time than the suite's: `make long-test` runs them
/// (AUDIO_TOOLS_LONG_TESTS=1); `make test` lists them as skipped.
@Suite struct LongE2ETests {
    static let enabled = ProcessInfo.processInfo.environment["AUDIO_TOOLS_LONG_TESTS"] == "1"

    /// A WAV output of 4.4 GB (more than its 32-bit sizes state) is written as RF64 and read back
    /// whole. The input is an RF64 of 8 channels of float: 10 s of noise, then 47 minutes of
    /// silence left sparse (no disk, and the silence is under the gate, so the loudness is the
    /// noise's); the output is written for real.
    @Test(.enabled(if: enabled, "writes 4.4 GB: make long-test runs it"))
    func aWAVOver4GiBIsWrittenAsRF64() throws {
        let dir = E2E.tempDir("long-rf64")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/big.wav"
        let rate: UInt32 = 48_000, channels: UInt64 = 8, frames: UInt64 = 48_000 * 60 * 48
        let dataBytes = frames * channels * 4
        let h = E2E.rf64FloatHeader(frames: frames, channels: channels, rate: rate)
        var rng = SplitMix64(seed: 47)
        var noise = [Float](repeating: 0, count: Int(rate) * 10 * Int(channels))
        for i in noise.indices { noise[i] = Float(0.05 * rng.bipolar()) }
        var bytes = Data(h)
        noise.withUnsafeBytes { bytes.append(contentsOf: $0) }
        try bytes.write(to: URL(fileURLWithPath: f))
        #expect(truncate(f, off_t(UInt64(h.count) + dataBytes)) == 0)

        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "wav", "--out-dir", dir + "/out", f])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let n = r.records.first?["normalized"]
        #expect(n?["format"]?["container"]?.stringValue == "rf64", "\(r.stdout)")
        #expect(n?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("written as RF64") == true } == true)
        #expect(n?["frames"]?.intValue == Int(frames))
        let out = dir + "/out/big.wav"
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: out)).read(upToCount: 4)
        #expect(head == Data("RF64".utf8))
        let m = try E2E.run("lufs-measure", [out])
        #expect(m.records.first?["loudness"]?["frames"]?.intValue == Int(frames), "read back whole: \(m.stdout)")
        // AIFF can't hold it: refused before writing.
        let a = try E2E.run("lufs-normalize", ["--target", "-16", "--format", "aiff", "--out-dir", dir + "/aiff", f])
        #expect(a.records.first?["error"]?["code"]?.stringValue == "too-large", "\(a.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/aiff/big.aiff"))
    }
}
