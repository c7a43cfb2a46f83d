import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Failures of the machine's resources are said as such, with the system's reason.
@Suite struct ResourceFailuresE2ETests {
    /// Records to a full standard output (/dev/full) end the run with a sentence, not silently.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full"))
    func aFullStandardOutputIsSaid() throws {
        let dir = E2E.tempDir("dev-full")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s])
        for tool in ["lufs-measure", "library-filter"] {
            let r = try E2E.program("/bin/sh", ["-c", "exec \"$0\" \"$1\" > /dev/full", E2E.binDir.appendingPathComponent(tool).path, dir + "/a.wav"])
            #expect(r.status == 1)
            #expect(r.stderr.contains("can't write the records to standard output: No space left on device"), "\(tool): \(r.stderr)")
        }
    }

    /// Runs `tool args` through sh under `limit` (e.g. "ulimit -v 200000").
    static func limited(_ limit: String, _ tool: String, _ args: [String]) throws -> E2E.Run {
        let r = try E2E.program("/bin/sh", ["-c", limit + "; exec \"$@\"", "sh", E2E.binDir.appendingPathComponent(tool).path] + args)
        return E2E.Run(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: r.stderr)
    }

    /// The code of the one record on stdout.
    static func code(_ r: E2E.Run) -> String? {
        r.stdout.split(separator: "\n").first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .flatMap { ($0["error"] as? [String: Any])?["code"] as? String }
    }

    /// ffmpeg that can't load its libraries under a memory limit the tool itself starts in: a
    /// good M4A is `cannot-start` with ffmpeg's words, not "malformed… download it again".
    @Test(.enabled(if: E2E.has("ffmpeg"), "the M4A is made and decoded by ffmpeg"))
    func ffmpegThatCantStartIsNotADamagedFile() throws {
        let dir = E2E.tempDir("no-ffmpeg-memory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                                                    "-c:a", "aac", dir + "/a.m4a"])
        try #require(make.status == 0, "\(make.stderr)")
        // Low enough that ffmpeg's many libraries don't map, high enough for the tool.
        var seen = false
        for kb in [120_000, 160_000, 200_000, 240_000] {
            let r = try Self.limited("ulimit -v \(kb)", "lufs-measure", [dir + "/a.m4a"])
            #expect(r.status == 0 || r.status == 1, "\(kb): \(r.status) \(r.stderr)")
            guard r.status == 1, let code = Self.code(r) else { continue }
            #expect(!["malformed", "truncated", "unsupported-codec"].contains(code), "\(kb): \(r.stdout)")
            if code == "cannot-start" {
                seen = true
                #expect(r.stdout.contains("ffmpeg could not run"), "\(r.stdout)")
            }
        }
        #expect(seen, "no limit made ffmpeg fail to start while the tool ran")
    }

    /// Out of descriptors, a folder's file is `too-many-files` and the run fails (exit 1) with a
    /// sentence on stderr: never "no audio files found" with exit 0, never a damaged header.
    @Test func tooFewDescriptorsFailTheRunWithASentence() throws {
        let dir = E2E.tempDir("few-files")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/music/sub", withIntermediateDirectories: true)
        let s = E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)
        try E2E.write(dir + "/music/sub/a.flac", rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        var failed = false
        for n in [5, 6, 7, 8, 10] {
            let r = try Self.limited("ulimit -n \(n)", "lufs-measure", [dir + "/music"])
            #expect(r.status == 0 || r.status == 1, "\(n): \(r.status) \(r.stderr)")
            #expect(!r.stderr.contains("no audio files found"), "\(n): \(r.stderr)")
            #expect(!r.stdout.contains("No Error") && !r.stdout.contains("malformed"), "\(n): \(r.stdout)")
            if r.status == 1 {
                failed = true
                #expect(r.stderr.contains("too-many-files: ") && r.stderr.contains("Too many open files"), "\(n): \(r.stderr)")
            } else {
                #expect(Self.code(r) == nil, "\(n): \(r.stdout)")
            }
        }
        #expect(failed, "no limit ran out of descriptors")
    }

    /// Mounts a tmpfs of `kb` KiB at a new folder; nil where mounting isn't permitted.
    static func smallDisk(kb: Int) -> String? {
        let dir = E2E.tempDir("small-disk")
        guard let r = try? E2E.program("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kb)k", "tmpfs", dir]), r.status == 0 else {
            try? FileManager.default.removeItem(atPath: dir)
            return nil
        }
        return dir
    }

    static func unmount(_ dir: String) {
        _ = try? E2E.program("/bin/umount", [dir])
        try? FileManager.default.removeItem(atPath: dir)
    }

    static let canMount: Bool = { smallDisk(kb: 64).map { unmount($0); return true } ?? false }()

    /// A full disk behind ffmpeg's output (an M4A written back) is `disk-full`, not
    /// `unsupported-codec` with a suggestion to pick another format; and --write-tags on a full
    /// disk is `disk-full`, not `unreadable`.
    @Test(.enabled(if: E2E.has("ffmpeg") && canMount, "needs ffmpeg and permission to mount a small tmpfs"))
    func aFullDiskIsSaidAsSuch() throws {
        let dir = E2E.tempDir("full-disk")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=20",
                                                    "-c:a", "aac", "-b:a", "128k", dir + "/a.m4a"])
        try #require(make.status == 0, "\(make.stderr)")
        let disk = try #require(Self.smallDisk(kb: 64))
        defer { Self.unmount(disk) }
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--allow-loss", "--out-dir", disk, dir + "/a.m4a"])
        #expect(r.status == 1)
        #expect(Self.code(r) == "disk-full", "\(r.stdout)")
        #expect(r.stdout.contains("No space left on device"), "\(r.stdout)")
        // A file that fills the disk: its tag copy has no room.
        let full = try #require(Self.smallDisk(kb: 256))
        defer { Self.unmount(full) }
        let s = E2E.sine(440, dBFS: -20, seconds: 2, rate: 48000)
        try E2E.write(full + "/b.flac", rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        _ = try E2E.program("/bin/sh", ["-c", "cat /dev/zero > \"$0\"/fill 2>/dev/null; true", full])
        let t = try E2E.run("lufs-normalize", ["--write-tags", full + "/b.flac"])
        #expect(t.status == 1)
        #expect(Self.code(t) == "disk-full", "\(t.stdout)")
    }
}
