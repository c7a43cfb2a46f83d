import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// `lufs-measure -` on audio piped from ffmpeg, and `--follow` on a real-time stream.
@Suite(.serialized) struct StandardInputE2ETests {
    static let ffmpeg = E2E.has("ffmpeg")
    static let tool = E2E.binDir.appendingPathComponent("lufs-measure").path

    /// Runs a shell line (with the tools' folder first on PATH); stdout, exit status.
    func sh(_ line: String) throws -> (status: Int32, stdout: String) {
        let env = ["PATH": E2E.binDir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let r = try E2E.program("/bin/sh", ["-c", line], environment: env)
        return (r.status, String(decoding: r.stdout, as: UTF8.self))
    }

    /// A record without what differs between a pipe and a file: the path, and `loudness.file`.
    func withoutSource(_ line: String) throws -> JSON {
        guard case .object(var o) = try JSON.parse(line), case .object(var l)? = o["loudness"] else { return .null }
        o["path"] = nil
        l["file"] = nil
        o["loudness"] = .object(l)
        return .object(o)
    }

    /// Five seconds of stereo made with ffmpeg: quiet for two seconds, louder after, pink noise under a tone.
    func material(_ dir: String, seconds: Int = 5) throws -> String {
        let src = "\(dir)/src.wav"
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
            "sine=f=997:d=\(seconds):r=48000,volume='if(lt(t,2),0.1,0.6)':eval=frame", "-f", "lavfi", "-i", "anoisesrc=c=pink:a=0.05:d=\(seconds):r=48000",
            "-filter_complex", "[0][1]amix=inputs=2:normalize=0,pan=stereo|c0=c0|c1=0.5*c0", "-c:a", "pcm_s24le", src])
        #expect(r.status == 0, "\(r.stderr)")
        return src
    }

    @Test(.enabled(if: ffmpeg, "needs ffmpeg to make and pipe the material"))
    func wavFlacAndRawPipesMeasureAsTheFile() throws {
        let dir = E2E.tempDir("stdin")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try material(dir)
        _ = try sh("cd '\(dir)' && ffmpeg -v error -i src.wav -c:a flac src.flac && ffmpeg -v error -i src.wav -c:a pcm_s16le s16.wav")
        let cases: [(file: String, pipe: String)] = [
            ("src.wav", "ffmpeg -v error -i src.wav -c:a copy -f wav - | lufs-measure -"),          // unknown-length pipe WAV
            ("src.wav", "cat src.wav | lufs-measure -"),
            ("src.flac", "ffmpeg -v error -i src.flac -c:a copy -f flac - | lufs-measure -"),
            ("s16.wav", "ffmpeg -v error -i s16.wav -f s16le - | lufs-measure --raw 48000:2:s16le -"),
        ]
        _ = src
        for c in cases {
            let disk = try sh("cd '\(dir)' && lufs-measure \(c.file)")
            let pipe = try sh("cd '\(dir)' && \(c.pipe)")
            #expect(disk.status == 0 && pipe.status == 0, "\(c.pipe)")
            #expect(try withoutSource(pipe.stdout) == withoutSource(disk.stdout), "\(c.pipe)")
            let r = try JSON.parse(pipe.stdout)
            #expect(r["path"]?.stringValue == "-")
            #expect(r["loudness"]?["file"]?["pipe"]?.boolValue == true)
            #expect(r["loudness"]?["integrated_lufs"]?.doubleValue != nil)
        }
    }

    /// MP3 (with its LAME tag, with an ID3v2 tag in front, without either) and ADTS AAC piped
    /// in: read through the ffmpeg child, measured as the file is (the LAME tag's end padding
    /// trimmed as from the file), where they used to be refused as `unrecognised`.
    @Test(.enabled(if: ffmpeg && E2E.has("lame"), "needs ffmpeg and lame to make the material"))
    func mp3AndADTSPipesMeasureAsTheFile() throws {
        let dir = E2E.tempDir("stdin-mpeg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try material(dir)
        let made = try sh("cd '\(dir)' && lame --quiet -V 4 src.wav tagged.mp3 && lame --quiet -b 128 -t src.wav bare.mp3"
            + " && lame --quiet -V 2 --tt Title --ta Artist --id3v2-only src.wav id3.mp3"
            + " && ffmpeg -v error -i src.wav -c:a aac -f adts adts.aac")
        #expect(made.status == 0)
        for file in ["tagged.mp3", "bare.mp3", "id3.mp3", "adts.aac"] {
            let disk = try sh("cd '\(dir)' && lufs-measure \(file)")
            let pipe = try sh("cd '\(dir)' && cat \(file) | lufs-measure -")
            #expect(disk.status == 0 && pipe.status == 0, "\(file): \(pipe.stdout)")
            let d = try JSON.parse(disk.stdout), p = try JSON.parse(pipe.stdout)
            #expect(p["error"] == nil, "\(file): \(pipe.stdout)")
            #expect(p["loudness"]?["frames"]?.intValue == d["loudness"]?["frames"]?.intValue, "\(file): \(pipe.stdout) vs \(disk.stdout)")
            for key in ["integrated_lufs", "true_peak_dbtp", "loudness_range_lu"] {
                let a = try #require(p["loudness"]?[key]?.doubleValue, "\(file) \(key)"), b = try #require(d["loudness"]?[key]?.doubleValue)
                #expect(abs(a - b) <= 0.011, "\(file) \(key): \(a) vs \(b)")
            }
            #expect(p["loudness"]?["file"]?["pipe"]?.boolValue == true)
        }
    }

    @Test(.enabled(if: ffmpeg, "needs ffmpeg for the material"))
    func badInputs() throws {
        let dir = E2E.tempDir("stdin-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try material(dir)
        // Garbage: unrecognised, exit 1.
        let garbage = try sh("head -c 20000 /dev/urandom | lufs-measure -")
        #expect(garbage.status == 1)
        #expect(try JSON.parse(garbage.stdout)["error"]?["code"]?.stringValue == "unrecognised")
        // A pipe closed inside a frame: the record of what was read, with a note.
        let cut = try sh("cd '\(dir)' && ffmpeg -v error -i src.wav -c:a copy -f wav - | head -c 300001 | lufs-measure -")
        #expect(cut.status == 0)
        let r = try JSON.parse(cut.stdout)
        let notes = r["loudness"]?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(r["loudness"]?["frames"]?.intValue == (300001 - 80) / 6 || notes.contains { $0.contains("inside a frame") })
        #expect(notes.contains { $0.contains("inside a frame") }, "\(notes)")
        // JSON records on standard input still work with `-`, and without it.
        let records = try sh("cd '\(dir)' && echo '{\"path\":\"src.wav\"}' | lufs-measure - && echo src.wav | lufs-measure")
        #expect(records.status == 0)
        #expect(records.stdout.split(separator: "\n").count == 2)
        #expect(try JSON.parse(String(records.stdout.split(separator: "\n")[0]))["path"]?.stringValue == "src.wav")
    }

    @Test(.enabled(if: E2E.has("script"), "needs script(1) for a terminal on stdin"))
    func terminalOnStandardInputIsAUsageError() throws {
        let r = try sh("script -qec 'lufs-measure -' /dev/null < /dev/null")
        #expect(r.status == 2)
        #expect(r.stdout.contains("standard input is a terminal"))
    }

    /// Starts `ffmpeg -re … | lufs-measure args -` as two processes, so the test can signal the tool alone.
    func liveStream(_ src: String, _ args: [String]) throws -> (producer: Process, tool: Process, out: FileHandle) {
        let producer = Process(), tool = Process()
        producer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        producer.arguments = ["ffmpeg", "-nostdin", "-v", "quiet", "-re", "-i", src, "-c:a", "copy", "-f", "wav", "-"]
        tool.executableURL = URL(fileURLWithPath: Self.tool)
        tool.arguments = args + ["-"]
        let link = Pipe(), out = Pipe()
        producer.standardOutput = link
        producer.standardError = FileHandle.nullDevice
        tool.standardInput = link
        tool.standardOutput = out
        tool.standardError = FileHandle.nullDevice
        try producer.run()
        try tool.run()
        return (producer, tool, out.fileHandleForReading)
    }

    /// The next line of `h` (nil at its end), read a byte at a time so nothing is read ahead.
    func line(_ h: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while let d = try? h.read(upToCount: 1), let b = d.first {
            if b == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(b)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    @Test(.enabled(if: ffmpeg, "needs ffmpeg for the real-time stream"))
    func followARealTimeStream() throws {
        signal(SIGPIPE, SIG_IGN)
        let dir = E2E.tempDir("follow")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try material(dir)
        let live = try liveStream(src, ["--follow", "--preset", "ebu-r128"])
        // The first line comes while the stream is still playing: lines are written as they are measured.
        let first = try #require(line(live.out))
        #expect(live.producer.isRunning, "the first line came only after the 5 s stream ended")
        var lines = [first]
        while let l = line(live.out) { lines.append(l) }
        live.tool.waitUntilExit()
        live.producer.waitUntilExit()
        let follow = try lines.dropLast().map { try JSON.parse($0)["follow"] }
        // A line per second of audio, then the final record; the gate's verdict is the exit status.
        #expect(follow.map { $0?["seconds"]?.doubleValue } == [1, 2, 3, 4, 5])
        let final = try JSON.parse(lines.last!)
        #expect(final["loudness"]?["frames"]?.intValue == 240_000)
        #expect(live.tool.terminationStatus == (final["loudness"]?["gate"]?["pass"]?.boolValue == true ? 0 : 1))
        #expect(follow.allSatisfy { $0?["gate"]?["pass"]?.boolValue != nil })
        // Each line's integrated loudness, range and true peak so far are the prefix's, measured from disk.
        for (k, f) in follow.enumerated() {
            let n = (k + 1) * 48000
            let cut = try sh("cd '\(dir)' && ffmpeg -v error -y -i src.wav -af atrim=end_sample=\(n) -c:a pcm_s24le p.wav && lufs-measure p.wav")
            let l = try JSON.parse(cut.stdout)["loudness"]
            #expect(l?["frames"]?.intValue == n)
            for key in ["integrated_lufs", "loudness_range_lu", "true_peak_dbtp", "sample_peak_dbfs", "momentary_max_lufs", "short_term_max_lufs"] {
                #expect(f?[key] == l?[key], "\(key) at \(k + 1) s")
            }
        }
    }

    @Test(.enabled(if: ffmpeg, "needs ffmpeg to write the file in real time"))
    func followAFileStillBeingWritten() throws {
        let dir = E2E.tempDir("follow-file")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try material(dir, seconds: 4)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["ffmpeg", "-nostdin", "-v", "quiet", "-re", "-i", src, "-c:a", "copy", dir + "/growing.wav"]
        try writer.run()
        while writer.isRunning, !FileManager.default.fileExists(atPath: dir + "/growing.wav") { usleep(10_000) }
        let r = try E2E.run("lufs-measure", ["--follow", dir + "/growing.wav"])
        writer.waitUntilExit()
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(r.status == 0)
        #expect(try lines.dropLast().map { try JSON.parse($0)["follow"]?["seconds"]?.doubleValue } == [1, 2, 3, 4])
        let final = try JSON.parse(try #require(lines.last))
        #expect(final["loudness"]?["frames"]?.intValue == 4 * 48000)
        let disk = try JSON.parse(try E2E.run("lufs-measure", [dir + "/growing.wav"]).stdout)
        #expect(final["loudness"]?["integrated_lufs"] == disk["loudness"]?["integrated_lufs"])
        #expect(final["loudness"]?["file"] == disk["loudness"]?["file"])
    }

    @Test(.enabled(if: ffmpeg, "needs ffmpeg for the real-time stream"))
    func sigintPrintsTheRecordOfWhatWasRead() throws {
        signal(SIGPIPE, SIG_IGN)
        let dir = E2E.tempDir("follow-sig")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try material(dir, seconds: 30)
        let live = try liveStream(src, ["--follow"])
        defer { if live.producer.isRunning { live.producer.terminate() } }
        let a = try #require(line(live.out)), b = try #require(line(live.out))
        kill(live.tool.processIdentifier, SIGINT)
        var rest: [String] = []
        while let l = line(live.out) { rest.append(l) }
        live.tool.waitUntilExit()
        #expect(live.tool.terminationStatus == 128 + SIGINT)
        #expect(try JSON.parse(a)["follow"]?["seconds"]?.doubleValue == 1)
        #expect(try JSON.parse(b)["follow"]?["seconds"]?.doubleValue == 2)
        let final = try JSON.parse(try #require(rest.last))
        let frames = try #require(final["loudness"]?["frames"]?.intValue)
        #expect(frames >= 96_000 && frames < 30 * 48000)
        #expect(final["loudness"]?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("SIGINT") == true } == true)
        #expect(rest.dropLast().allSatisfy { (try? JSON.parse($0)["follow"]) != nil })
    }
}

/// The other tools with audio on standard input: lufs-normalize (spooled; --output FILE or -),
/// audio-probe, vo-align's take.
@Suite struct StandardInputToolsE2ETests {
    func sh(_ line: String) throws -> (status: Int32, stdout: Data, stderr: String) {
        let env = ["PATH": E2E.binDir.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        return try E2E.program("/bin/sh", ["-c", line], environment: env)
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg for the material"))
    func normalizeProbeAndAlignFromAPipe() throws {
        let dir = E2E.tempDir("stdin-tools")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48000
        try E2E.write(dir + "/a.wav", rate: rate, channels: [E2E.sine(997, dBFS: -30, seconds: 4, rate: rate), E2E.sine(440, dBFS: -33, seconds: 4, rate: rate)])
        // lufs-normalize: the same output bytes from the pipe as from the file.
        let a = try sh("cd '\(dir)' && cat a.wav | lufs-normalize --target -16 --output pipe.wav - && lufs-normalize --target -16 --output file.wav a.wav")
        #expect(a.status == 0, "\(a.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/pipe.wav") == FileManager.default.contents(atPath: dir + "/file.wav"))
        #expect(try JSON.parse(String(decoding: a.stdout, as: UTF8.self).split(separator: "\n")[0].description)["path"]?.stringValue == "-")
        // --output -: the audio on stdout, the record on stderr; no temporary file left beside it.
        let b = try sh("cd '\(dir)' && cat a.wav | lufs-normalize --target -16 --output - - 2> rec.jsonl > out.wav && cat rec.jsonl")
        #expect(b.status == 0)
        #expect(FileManager.default.contents(atPath: dir + "/out.wav") == FileManager.default.contents(atPath: dir + "/file.wav"))
        #expect(try JSON.parse(String(decoding: b.stdout, as: UTF8.self))["normalized"]?["output"]?.stringValue == "-")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.wav", "file.wav", "out.wav", "pipe.wav", "rec.jsonl"])
        // Without --output there is no name to write under: a refusal, nothing written.
        let c = try sh("cd '\(dir)' && cat a.wav | lufs-normalize --target -16 --out-dir o -")
        #expect(c.status == 1)
        #expect(try JSON.parse(String(decoding: c.stdout, as: UTF8.self))["error"]?["code"]?.stringValue == "bad-input")
        // audio-probe: the file's facts, the path `-`, the file a pipe.
        let p = try JSON.parse(String(decoding: try sh("cd '\(dir)' && cat a.wav | audio-probe -").stdout, as: UTF8.self))
        let q = try JSON.parse(String(decoding: try sh("cd '\(dir)' && audio-probe a.wav").stdout, as: UTF8.self))
        #expect(p["path"]?.stringValue == "-" && p["probe"]?["file"]?["pipe"]?.boolValue == true)
        #expect(p["probe"]?["content_id"] == q["probe"]?["content_id"] && p["probe"]?["content_id"]?.stringValue != nil)
        #expect(p["probe"]?["frames"] == q["probe"]?["frames"])
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg for the take"))
    func voAlignTakesATakeOnStandardInput() throws {
        let dir = E2E.tempDir("stdin-vo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try sh("cd '\(dir)' && ffmpeg -v error -f lavfi -i 'anoisesrc=c=pink:d=8:r=48000:a=0.3' -c:a pcm_s24le ref.wav && ffmpeg -v error -i ref.wav -f lavfi -i 'sine=f=300:d=8:r=48000' -filter_complex '[0]adelay=250,volume=0.1[b];[b][1]amix=inputs=2:normalize=0' -t 8 -c:a pcm_s24le take.wav")
        #expect(make.status == 0, "\(make.stderr)")
        let pipe = try sh("cd '\(dir)' && cat take.wav | vo-align --reference ref.wav --out-dir out -")
        let file = try sh("cd '\(dir)' && vo-align --reference ref.wav take.wav")
        #expect(pipe.status == 0 && file.status == 0, "\(pipe.stderr)")
        let a = try JSON.parse(String(decoding: pipe.stdout, as: UTF8.self)), b = try JSON.parse(String(decoding: file.stdout, as: UTF8.self))
        #expect(a["path"]?.stringValue == "-")
        #expect(a["alignment"]?["file"]?["pipe"]?.boolValue == true)
        #expect(a["alignment"]?["latency"] == b["alignment"]?["latency"] && a["alignment"]?["latency_ms"]?.doubleValue == 250)
        #expect(FileManager.default.fileExists(atPath: dir + "/out/stdin.wav"))
    }
}
