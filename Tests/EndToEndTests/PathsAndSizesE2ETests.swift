import Foundation
import Testing
@testable import AudioTools

/// A NUL inside a record's path is bad input, never a shorter path.
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
}
