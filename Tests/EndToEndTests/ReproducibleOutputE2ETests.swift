import Foundation
import Testing

/// Outputs whose writers draw numbers at random or stamp the time (libsndfile's Ogg serial,
/// Matroska's segment ids and date) are the same bytes run after run, and still decode.
@Suite struct ReproducibleOutputE2ETests {
    @Test(.enabled(if: E2E.has("ffmpeg"), "ffmpeg decodes the outputs"), arguments: ["ogg", "opus"])
    func theSameInputGivesTheSameBytes(format: String) throws {
        let dir = E2E.tempDir("ogg-repro")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tone = E2E.sine(440, dBFS: -20, seconds: 3, rate: 48000)
        try E2E.write(dir + "/in.wav", rate: 48000, channels: [tone, tone.map { $0 * 0.5 }])
        let measured = try E2E.run("lufs-measure", [dir + "/in.wav"])
        var outputs: [Data] = []
        for run in 1...2 {
            let n = try E2E.run("lufs-normalize", ["--target", "-18", "--format", format, "--allow-loss", "--out-dir", dir + "/out\(run)"],
                                stdin: measured.stdout)
            #expect(n.status == 0, "\(n.stdout) \(n.stderr)")
            let written = try #require(n.records.first?["normalized"]?["output"]?.stringValue)
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: written)))
            // libsndfile seeds its numbers from the clock: runs a moment apart would have differed.
            usleep(20_000)
        }
        #expect(outputs[0] == outputs[1])
        let d = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", dir + "/out1/in.\(format)", "-f", "null", "-"])
        #expect(d.status == 0 && d.stderr.isEmpty, "\(d.stderr)")
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "ffmpeg makes the Matroska file and decodes the outputs"))
    func aMatroskaVideoGivesTheSameBytes() throws {
        let dir = E2E.tempDir("mkv-repro")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=s=64x48:d=3",
                                                    "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:v", "libx264", "-c:a", "libopus", "-ac", "2",
                                                    dir + "/v.mkv"])
        #expect(make.status == 0, "\(make.stderr)")
        let measured = try E2E.run("lufs-measure", [dir + "/v.mkv"])
        var outputs: [Data] = []
        for run in 1...2 {
            let n = try E2E.run("lufs-normalize", ["--target", "-18", "--allow-loss", "--out-dir", dir + "/out\(run)"], stdin: measured.stdout)
            #expect(n.status == 0, "\(n.stdout) \(n.stderr)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: dir + "/out\(run)/v.mkv")))
            usleep(1_100_000)   // Matroska's date has whole seconds
        }
        #expect(outputs[0] == outputs[1])
        let d = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", dir + "/out1/v.mkv", "-f", "null", "-"])
        #expect(d.status == 0 && d.stderr.isEmpty, "\(d.stderr)")
    }
}
