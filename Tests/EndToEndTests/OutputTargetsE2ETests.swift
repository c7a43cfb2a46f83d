import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// What an output path names is respected: a device or FIFO given as a report target is written
/// through, never replaced; a replaced input keeps its owner, mode and extended attributes, and
/// a link to it stays a link; nothing is written outside --out-dir or through a link inside it.
@Suite struct OutputTargetsE2ETests {
    static func kind(_ path: String) -> mode_t? {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : nil
    }

    static func tone(_ path: String, seconds: Double = 1) throws {
        let s = E2E.sine(440, dBFS: -20, seconds: seconds, rate: 48000)
        try E2E.write(path, rate: 48000, channels: [s])
    }

    @Test func junitToDevNullWritesThroughIt() throws {
        let dir = E2E.tempDir("junit-null")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.tone(dir + "/a.wav")
        var before = stat()
        #expect(stat("/dev/null", &before) == 0)
        let r = try E2E.run("lufs-measure", ["--preset", "social", "--junit", "/dev/null", dir + "/a.wav"])
        // The file misses the social target (exit 1), but the report itself is written.
        #expect(!r.stderr.contains("can't write"), "\(r.stderr)")
        #expect(Self.kind("/dev/null") == S_IFCHR, "/dev/null is no longer a character device")
        var after = stat()
        #expect(stat("/dev/null", &after) == 0 && after.st_rdev == before.st_rdev && after.st_ino == before.st_ino)
    }

    @Test func junitAndPageInfoIntoAFIFOReachItsReader() throws {
        let dir = E2E.tempDir("junit-fifo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.tone(dir + "/a.wav")
        for (tool, args) in [("lufs-measure", ["--preset", "social", "--junit"]), ("library-filter", ["--page-info"])] {
            let fifo = dir + "/\(tool).fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            // The reader is open before the tool starts, so the tool's open for writing doesn't wait.
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            #expect(reader >= 0)
            defer { close(reader) }
            let r = try E2E.run(tool, args + [fifo, dir + "/a.wav"])
            #expect(!r.stderr.contains("can't write"), "\(tool): \(r.stderr)")
            var bytes = [UInt8](repeating: 0, count: 65536)
            let n = read(reader, &bytes, bytes.count)
            let text = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
            #expect(Self.kind(fifo) == S_IFIFO, "\(tool) replaced the FIFO")
            #expect(tool == "lufs-measure" ? text.contains("<testsuite") : text.contains("\"total\""), "\(tool) sent: \(text)")
        }
    }

    /// Sets user.comment on `path` through libc; false where the file system has no user xattrs.
    static func setComment(_ path: String, _ value: String) -> Bool {
        typealias SetFn = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
        guard let f = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr").map({ unsafeBitCast($0, to: SetFn.self) }) else { return false }
        return Array(value.utf8).withUnsafeBytes { f(path, "user.comment", $0.baseAddress, $0.count, 0) } == 0
    }

    static func comment(_ path: String) -> String? {
        typealias GetFn = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
        guard let f = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr").map({ unsafeBitCast($0, to: GetFn.self) }) else { return nil }
        var buf = [UInt8](repeating: 0, count: 256)
        let n = buf.withUnsafeMutableBytes { f(path, "user.comment", $0.baseAddress, $0.count) }
        return n < 0 ? nil : String(decoding: buf.prefix(n), as: UTF8.self)
    }

    /// A private file owned by someone else (when this runs as root) keeps its owner, group, mode
    /// and extended attributes through --in-place, --in-place --lossless-gain and --write-tags.
    @Test(.enabled(if: E2E.has("ffmpeg"), "the MP3 is made with ffmpeg"),
          arguments: [["--in-place"], ["--in-place", "--lossless-gain"], ["--write-tags"]])
    func replacingAFileKeepsItsOwnerModeAndAttributes(_ how: [String]) throws {
        let dir = E2E.tempDir("keep-attrs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/a." + (how.contains("--lossless-gain") ? "mp3" : "flac")
        if how.contains("--lossless-gain") {
            try Self.tone(dir + "/src.wav", seconds: 2)
            let e = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", dir + "/src.wav", "-c:a", "libmp3lame", "-b:a", "128k", file])
            try #require(e.status == 0, "\(e.stderr)")
        } else {
            let s = E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)
            try E2E.write(file, rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        }
        let root = getuid() == 0
        // As root, the owner is `nobody`'s id (65534), which root may set on any file.
        if root { #expect(chown(file, 65534, 65534) == 0) }
        #expect(chmod(file, 0o600) == 0)
        let xattrs = Self.setComment(file, "kept")
        var before = stat()
        #expect(stat(file, &before) == 0)
        let r = try E2E.run("lufs-normalize", ["--target", "-16"] + how + [file])
        #expect(r.status == 0, "\(r.stderr)")
        var after = stat()
        #expect(stat(file, &after) == 0)
        #expect(after.st_ino != before.st_ino || how == ["--write-tags"], "the file was not replaced")
        #expect(after.st_mode & 0o7777 == 0o600, "mode \(String(after.st_mode & 0o7777, radix: 8))")
        #expect(after.st_uid == before.st_uid && after.st_gid == before.st_gid)
        if xattrs { #expect(Self.comment(file) == "kept") }
    }

    /// A link given to --in-place or --write-tags stays a link; the file it points to is replaced.
    @Test(arguments: [["--in-place"], ["--write-tags"]])
    func aLinkIsKeptAndItsFileReplaced(_ how: [String]) throws {
        let dir = E2E.tempDir("keep-link")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        let s = E2E.sine(440, dBFS: -30, seconds: 1, rate: 48000)
        try E2E.write(dir + "/real/a.flac", rate: 48000, channels: [s], container: "flac", codec: "pcm_s16")
        #expect(symlink("real/a.flac", dir + "/link.flac") == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: dir + "/real/a.flac"))
        let r = try E2E.run("lufs-normalize", ["--target", "-16"] + how + [dir + "/link.flac"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.kind(dir + "/link.flac") == S_IFLNK, "the link was replaced")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/real/a.flac")) != original, "the linked file is unchanged")
        #expect(WriteE2ETests.entries(dir + "/real") == ["a.flac"] && WriteE2ETests.entries(dir) == ["link.flac", "real"])
    }
}

extension OutputTargetsE2ETests {
    @Test func aTemplateThatLeavesTheOutDirIsAUsageError() throws {
        let dir = E2E.tempDir("template-out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.tone(dir + "/a.wav")
        for t in ["../outside/{stem}.{ext}", "{dir}/../../{stem}.{ext}", dir + "/abs/{stem}.{ext}"] {
            let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out", "--output-template", t, dir + "/a.wav"])
            #expect(r.status == 2 && r.stderr.contains("outside --out-dir"), "\(t): \(r.status) \(r.stderr)")
        }
        #expect(WriteE2ETests.entries(dir) == ["a.wav"])
    }

    @Test func nothingIsWrittenThroughALinkInsideTheOutDir() throws {
        let dir = E2E.tempDir("outdir-link")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in/sub", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try Self.tone(dir + "/in/sub/a.wav")
        #expect(symlink(dir + "/elsewhere", dir + "/out/sub") == 0)
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out", dir + "/in"])
        #expect(r.status == 1)
        #expect(r.records.first?["error"]?["code"] == .string("write-failed"), "\(r.stdout)")
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("symbolic link inside --out-dir") == true)
        #expect(WriteE2ETests.entries(dir + "/elsewhere") == [])
    }
}
