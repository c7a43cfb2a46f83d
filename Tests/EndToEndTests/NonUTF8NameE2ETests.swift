import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// File names that aren't UTF-8, as an old Latin-1 library has them ("Caf\xE9.wav"): processed,
/// and the record leads the next tool in the pipe to the same file.
@Suite struct NonUTF8NameE2ETests {
    /// Runs a shell command line (which can spell any bytes with printf) and returns its raw stdout.
    static func sh(_ script: String) throws -> (status: Int32, out: Data, err: String) {
        let r = try E2E.program("/bin/sh", ["-c", script],
                                environment: ProcessInfo.processInfo.environment.merging(["BIN": E2E.binDir.path]) { $1 })
        return (r.status, r.stdout, r.stderr)
    }

    static func lines(_ data: Data) throws -> [JSON] {
        // Every line must be valid UTF-8 JSON.
        let text = try #require(String(validating: Array(data), as: UTF8.self))
        return try text.split(separator: "\n").map { try JSON.parse(String($0)) }
    }

    @Test func aLatin1NameIsProbedMeasuredAndNormalised() throws {
        let dir = E2E.tempDir("latin1")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(1000, dBFS: -20, seconds: 1, rate: 48000)
        try E2E.write(dir + "/plain.wav", rate: 48000, channels: [s, s])
        // Renamed with raw bytes through the shell: "Caf" + 0xE9 + ".wav".
        let mv = try Self.sh("cd '\(dir)' && mv plain.wav \"$(printf 'Caf\\351.wav')\"")
        #expect(mv.status == 0)

        // A walk finds it, and the probe reads it.
        let probe = try Self.sh("\"$BIN/audio-probe\" '\(dir)'")
        #expect(probe.status == 0, "\(probe.err)")
        let probed = try Self.lines(probe.out)
        #expect(probed.count == 1)
        #expect(probed.first?["error"] == nil, "\(probed)")
        let path = try #require(probed.first?["path"]?.stringValue)
        #expect(PathBytes.bytes(path) == Array((dir + "/Caf").utf8) + [0xE9] + Array(".wav".utf8))
        // The escape is documented: byte 0xE9 is U+EFE9.
        #expect(path.hasSuffix("Caf\u{EFE9}.wav"))

        // The record leads the next tools to the same file.
        let chain = try Self.sh("\"$BIN/audio-probe\" '\(dir)' | \"$BIN/lufs-measure\" | \"$BIN/lufs-normalize\" --target -23 --out-dir '\(dir)/out'")
        #expect(chain.status == 0, "\(chain.err)")
        let normalised = try Self.lines(chain.out)
        #expect(normalised.count == 1)
        #expect(normalised.first?["error"] == nil, "\(normalised)")
        #expect(normalised.first?["loudness"]?["integrated_lufs"]?.doubleValue != nil)
        let out = try Self.sh("ls '\(dir)/out' | od -An -c | tr -s ' '")
        #expect(String(decoding: out.out, as: UTF8.self).contains("C a f 351 . w a v"), "\(String(decoding: out.out, as: UTF8.self))")

        // Named on the command line and as a bare path on stdin, the raw bytes work too.
        let arg = try Self.sh("\"$BIN/lufs-measure\" \"$(printf '\(dir)/Caf\\351.wav')\"")
        #expect(arg.status == 0, "\(arg.err)")
        #expect(try Self.lines(arg.out).first?["path"]?.stringValue == path)
        let bare = try Self.sh("printf '\(dir)/Caf\\351.wav\\n' | \"$BIN/lufs-measure\"")
        #expect(bare.status == 0, "\(bare.err)")
        #expect(try Self.lines(bare.out).first?["path"]?.stringValue == path)

        // jq reads the line and gives the same path back.
        if E2E.has("jq") {
            let jq = try Self.sh("\"$BIN/audio-probe\" '\(dir)' | jq -c '{path}' | \"$BIN/lufs-measure\"")
            #expect(jq.status == 0, "\(jq.err)")
            #expect(try Self.lines(jq.out).first?["loudness"] != nil)
        }
    }

    @Test func aLatin1NameDecodedByFFmpeg() throws {
        guard E2E.has("ffmpeg") else { Issue.record("ffmpeg is needed (make test-deps installs it)"); return }
        let dir = E2E.tempDir("latin1-m4a")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try Self.sh("cd '\(dir)' && ffmpeg -v error -f lavfi -i sine=frequency=1000:duration=2 -c:a aac song.m4a && mv song.m4a \"$(printf 'Ch\\342\\200\\231\\351.m4a')\"")
        #expect(make.status == 0, "\(make.err)")
        let r = try Self.sh("\"$BIN/lufs-measure\" '\(dir)'")
        #expect(r.status == 0, "\(r.err)")
        let recs = try Self.lines(r.out)
        #expect(recs.count == 1)
        #expect(recs.first?["loudness"]?["integrated_lufs"]?.doubleValue != nil, "\(recs)")
        #expect(recs.first?["path"]?.stringValue?.hasSuffix("Ch\u{2019}\u{EFE9}.m4a") == true)
    }

    @Test func missingNonUTF8NameIsNotFoundShownReadably() throws {
        let dir = E2E.tempDir("latin1-missing")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.sh("printf '\(dir)/gone\\351.wav\\n' | \"$BIN/audio-probe\"")
        let recs = try Self.lines(r.out)
        #expect(recs.first?["error"]?["code"]?.stringValue == "not-found")
        #expect(recs.first?["error"]?["message"]?.stringValue?.contains("gone\u{FFFD}.wav") == true)
    }
}
