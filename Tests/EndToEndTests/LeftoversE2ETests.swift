import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// No temporary file outlives its run: SIGTERM removes them, and what a kill -9 leaves is removed
/// by the next run writing into that folder.
@Suite struct LeftoversE2ETests {
    /// Starts `tool` with `args`; stdin is a pipe the caller may write, stdout and stderr go nowhere.
    static func start(_ tool: String, _ args: [String], stdin: Pipe? = nil) throws -> Process {
        let p = Process()
        p.executableURL = E2E.binDir.appendingPathComponent(tool)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = stdin ?? FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Waits (polling, no fixed sleep) until an entry of `dir` whose name contains `marker`
    /// appears while `p` runs; true when it did.
    static func waitFor(_ marker: String, in dir: String, while p: Process) -> Bool {
        for _ in 0..<400_000 where p.isRunning {
            if WriteE2ETests.entries(dir).contains(where: { $0.contains(marker) }) { return true }
            usleep(100)
        }
        return false
    }

    static func hidden(_ dir: String) -> [String] { WriteE2ETests.entries(dir).filter { $0.hasPrefix(".") } }

    @Test func sigtermWhileStandardInputIsKeptLeavesNothing() throws {
        let dir = E2E.tempDir("term-stdin")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Pipe()
        let p = try Self.start("lufs-normalize", ["--target", "-16", "--output", dir + "/out.wav", "-"], stdin: input)
        // Part of a WAV and no end: the tool keeps what came while it waits for more.
        try input.fileHandleForWriting.write(contentsOf: Data(repeating: 0, count: 1 << 16))
        let saw = Self.waitFor(".audio-tools-stdin-", in: dir, while: p)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(saw, "the spooled standard input never appeared")
        #expect(p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGTERM)
        #expect(WriteE2ETests.entries(dir) == [], "left behind: \(WriteE2ETests.entries(dir))")
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "the long input is made with ffmpeg"))
    func sigtermDuringWriteTagsLeavesNothing() throws {
        let dir = E2E.tempDir("term-tags")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Long enough that copying it for the new tags takes a while.
        let make = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=600:sample_rate=48000",
                                                    "-ac", "2", "-c:a", "pcm_s24le", dir + "/long.wav"])
        try #require(make.status == 0, "\(make.stderr)")
        let measured = try E2E.run("lufs-measure", [dir + "/long.wav"])
        try #require(measured.status == 0)
        let input = Pipe()
        let p = try Self.start("lufs-normalize", ["--write-tags"], stdin: input)
        try input.fileHandleForWriting.write(contentsOf: Data(measured.stdout.utf8))
        try input.fileHandleForWriting.close()
        let saw = Self.waitFor(".tags-", in: dir, while: p)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(saw, "the tag copy never appeared")
        #expect(Self.hidden(dir) == [], "left behind: \(Self.hidden(dir))")
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "the M4A is made and written by ffmpeg"))
    func sigtermDuringAnM4ANormalisationLeavesNothing() throws {
        let dir = E2E.tempDir("term-m4a")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=240:sample_rate=48000",
                                                    "-ac", "2", "-c:a", "aac", "-b:a", "128k", dir + "/a.m4a"])
        try #require(make.status == 0, "\(make.stderr)")
        let out = dir + "/out"
        let p = try Self.start("lufs-normalize", ["--target", "-16", "--allow-loss", "--out-dir", out, dir + "/a.m4a"])
        let saw = Self.waitFor(".a.m4a.", in: out, while: p)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(saw, "no temporary file appeared in the output folder")
        #expect(WriteE2ETests.entries(out) == [], "left behind: \(WriteE2ETests.entries(out))")
    }

    /// A run killed outright (kill -9) while keeping standard input leaves its file; the next run
    /// writing into that folder removes it at once: its name says this machine and a process
    /// that is gone, so no ten-minute wait applies.
    @Test func theNextRunRemovesAKilledRunsLeftoverAtOnce() throws {
        let dir = E2E.tempDir("kill-stdin")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -30, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.flac", rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        let input = Pipe()
        let p = try Self.start("lufs-normalize", ["--target", "-16", "--output", dir + "/out.wav", "-"], stdin: input)
        try input.fileHandleForWriting.write(contentsOf: Data(repeating: 0, count: 1 << 16))
        let saw = Self.waitFor(".audio-tools-stdin-", in: dir, while: p)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        try? input.fileHandleForWriting.close()
        try #require(saw, "the spooled standard input never appeared")
        let left = Self.hidden(dir)
        try #require(left.count == 1 && left[0].hasPrefix(".audio-tools-stdin-"), "\(left)")
        let r = try E2E.run("lufs-normalize", ["--write-tags", dir + "/a.flac"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.hidden(dir) == [], "left behind: \(Self.hidden(dir))")
    }

    /// Leftovers of every kind whose writer is gone are removed by the next run in that folder:
    /// this machine's at once, another machine's and old names without a machine once unchanged
    /// for ten minutes; a running writer's, another machine's recent one and names not ours are kept.
    @Test func theNextRunRemovesLeftoversOfADeadWriter() throws {
        let dir = E2E.tempDir("leftover-kinds")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -30, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.flac", rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        let here = TemporaryFiles.machine, there = here == "0badf00d" ? "0badf00e" : "0badf00d"
        let dead = [".a.flac.tags-2147483646-1", ".film.mp4.audio0-2147483646-5.m4a", ".film.mp4.partial-2147483646-6",
                    ".audio-tools-stdin-2147483646-7", ".audio-tools-out-2147483646-8", ".c.flac.tags-\(there)-\(getpid())-2"]
        let kept = [".b.flac.tags-\(getpid())-1", ".not-ours-2147483646-1", ".d.flac.tags-\(here)-\(getpid())-3"]
        let deadNow = [".e.flac.tags-\(here)-2147483646-4", ".film.mp4.audio1-\(here)-2147483646-5.m4a"]
        let keptNow = [".f.flac.tags-\(there)-2147483646-6", ".g.flac.tags-2147483646-7"]
        for name in dead + kept + deadNow + keptNow {
            let path = dir + "/" + name
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            guard !(deadNow + keptNow).contains(name) else { continue }
            var times = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        let r = try E2E.run("lufs-normalize", ["--write-tags", dir + "/a.flac"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.hidden(dir) == (kept + keptNow).sorted(), "\(Self.hidden(dir))")
    }
}
