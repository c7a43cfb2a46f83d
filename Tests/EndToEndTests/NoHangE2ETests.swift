import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Every path that starts ffmpeg ends it: refusals after the decoder started, signals and a
/// closed stdout. Each run has a timeout; after each, no ffmpeg reading the test's files is left.
@Suite(.serialized) struct NoHangE2ETests {
    /// Starts a built tool the way a shell does (default signal dispositions, nothing blocked),
    /// stdout to a pipe or /dev/null, stderr kept.
    static func start(_ tool: String, _ args: [String], stdout: ChildProcess.Output = .null) throws -> ChildProcess {
        try ChildProcess(E2E.binDir.appendingPathComponent(tool).path, args, stdout: stdout)
    }

    /// Whether `pid` (a child of this process) has ended, without reaping it.
    static func ended(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }

    /// Waits up to `seconds` for the child to end; nil when it had to be killed (a hang).
    static func finish(_ c: ChildProcess, seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while !ended(c.pid) && Date() < deadline { usleep(10_000) }
        let hung = !ended(c.pid)
        let t = hung ? c.end() : c.wait()
        return hung ? nil : t.status
    }

    /// SIGTERM to a media normalise mid-way: it ends by the signal within 20 s, no ffmpeg
    /// outlives it, and `dir`/out is left empty.
    static func expectStoppedCleanly(_ c: ChildProcess, dir: String, sourceLocation: SourceLocation = #_sourceLocation) {
        kill(c.pid, SIGTERM)
        let status = finish(c, seconds: 20)
        #expect(status == 128 + SIGTERM, "\(status.map(String.init) ?? "hung: killed after 20 s")", sourceLocation: sourceLocation)
        #expect(leftovers(dir).isEmpty, "ffmpeg outlived lufs-normalize", sourceLocation: sourceLocation)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/out")) ?? []).isEmpty, sourceLocation: sourceLocation)
    }

    /// A run that is killed after `seconds`; nil when it had to be (a hang).
    static func run(_ tool: String, _ args: [String], seconds: Double = 30) throws -> Int32? {
        finish(try start(tool, args), seconds: seconds)
    }

    /// Processes whose command line mentions `dir` (ffmpeg children decoding its files).
    static func processes(mentioning dir: String) -> [Int32] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard pid != me, let d = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(dir)
        }
    }

    /// Waits briefly for children that are being reaped; returns those still there.
    static func leftovers(_ dir: String) -> [Int32] {
        for _ in 0..<100 {
            let left = processes(mentioning: dir)
            if left.isEmpty { return [] }
            usleep(20_000)
        }
        return processes(mentioning: dir)
    }

    /// An AAC-in-MP4 and an Opus-in-Matroska file (`lossy`), or PCM in Matroska, which costs
    /// nothing to make at any length and is still decoded by ffmpeg.
    static func material(_ dir: String, seconds: Int, lossy: Bool = true) throws -> [String] {
        guard E2E.has("ffmpeg") else {
            Issue.record("ffmpeg is needed (make test-deps installs it); the no-hang paths were not tested.")
            return []
        }
        let files = lossy ? [("\(dir)/clip.mp4", "aac"), ("\(dir)/clip.mkv", "libopus")] : [("\(dir)/pcm.mkv", "pcm_s16le")]
        for (out, codec) in files {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=\(seconds):r=48000",
                           "-ac", "2", "-c:a", codec, out]
            try p.run(); p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        return files.map(\.0)
    }

    /// The reported hang: lufs-normalize refuses an MP4 or MKV after its decoder started, and
    /// ffmpeg is blocked writing samples nobody reads. Many times, since it was a race.
    @Test func refusalsAfterTheDecoderStartedReturn() throws {
        let dir = E2E.tempDir("nohang")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.material(dir, seconds: 20)
        guard !files.isEmpty else { return }
        for i in 0..<12 {
            for f in files {
                let status = try Self.run("lufs-normalize", ["--preset", "social", "--out-dir", "\(dir)/out", f])
                #expect(status == 1, "run \(i) on \(f): \(status.map(String.init) ?? "hung, killed after 30 s")")
                #expect(Self.leftovers(dir).isEmpty, "run \(i) left ffmpeg running")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out/clip.mp4"))
    }

    /// audio-probe decodes the first and last second through ffmpeg (a restart in between).
    @Test func probesEndTheirDecoders() throws {
        let dir = E2E.tempDir("nohang-probe")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.material(dir, seconds: 20)
        guard !files.isEmpty else { return }
        for _ in 0..<5 {
            #expect(try Self.run("audio-probe", ["--deep"] + files) == 0)
            #expect(try Self.run("audio-probe", files) == 0)
            #expect(Self.leftovers(dir).isEmpty)
        }
    }

    /// A FIFO named on the command line (no writer will ever come) is refused as `not-a-file` by
    /// every tool that reads files, never opened and waited on.
    @Test func aFIFONamedOnTheCommandLineIsRefusedNotWaitedOn() throws {
        let dir = E2E.tempDir("nohang-fifo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/pipe.wav"
        try #require(mkfifo(fifo, 0o644) == 0)
        // library-filter drops an unusable song with status 0; the others fail the record, 1.
        let runs: [(String, [String], Int32)] = [("audio-probe", [fifo], 1), ("library-filter", ["--all", fifo], 0), ("lufs-measure", [fifo], 1),
                                                 ("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out", fifo], 1)]
        var ended = true
        for (tool, args, expected) in runs {
            let status = Self.finish(try Self.start(tool, args, stdout: .pipe), seconds: 20)
            #expect(status == expected, "\(tool) hung or failed otherwise: \(String(describing: status))")
            ended = ended && status != nil
        }
        guard ended else { return }
        let r = try E2E.run("library-filter", ["--all", fifo])
        #expect(r.records.first?["error"]?["code"]?.stringValue == "not-a-file", "\(r.stdout)")
    }

    /// SIGTERM and SIGINT while ffmpeg decodes: the tool ends, of that signal, and so does ffmpeg.
    @Test(arguments: [SIGTERM, SIGINT]) func signalsEndTheDecoder(sig: Int32) throws {
        let dir = E2E.tempDir("nohang-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.material(dir, seconds: 600, lossy: false)
        guard let mkv = files.last else { return }
        let c = try Self.start("lufs-measure", [mkv, mkv, mkv])
        // Wait for the decoder to start, then signal the tool alone (not its process group).
        var started = false
        for _ in 0..<1000 where !started { started = !Self.processes(mentioning: dir).isEmpty; if !started { usleep(5_000) } }
        #expect(started, "ffmpeg never started")
        kill(c.pid, sig)
        let status = Self.finish(c, seconds: 20)
        #expect(status != nil, "lufs-measure did not end on signal \(sig)")
        #expect(status == 128 + sig, "lufs-measure should die of the signal it got")
        #expect(Self.leftovers(dir).isEmpty, "ffmpeg outlived lufs-measure")
    }

    /// A reader that stops reading (`| head -1`): the tool ends quietly and takes ffmpeg with it.
    @Test func aClosedStdoutEndsTheDecoders() throws {
        let dir = E2E.tempDir("nohang-stdout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.material(dir, seconds: 10, lossy: false)
        guard !files.isEmpty else { return }
        let c = try Self.start("lufs-measure", ["-j", "2"] + Array(repeating: files, count: 40).flatMap { $0 }, stdout: .pipe)
        #expect(!c.readData(upTo: 100).isEmpty)
        c.closeOutput()
        let status = Self.finish(c, seconds: 60)
        #expect(status == 1, "\(status.map(String.init) ?? "hung: killed after 60 s")")
        #expect(Self.leftovers(dir).isEmpty)
    }
}
