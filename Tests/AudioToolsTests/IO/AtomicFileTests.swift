import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct AtomicFileTests {
    static func tempDir() -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func nothingIsInTheFolderUntilCommit() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try AtomicOutput(path: dir + "/page.json", overwrite: false)
        try out.write(Array("{\"a\":1}\n".utf8))
        // Linux file systems that take O_TMPFILE (ext4, xfs, btrfs, tmpfs) hold the file unnamed.
        #expect(out.isUnnamed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
        try out.commit()
        #expect(try String(contentsOfFile: dir + "/page.json", encoding: .utf8) == "{\"a\":1}\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["page.json"])
    }

    @Test func abandonLeavesNothingAndExclusiveCreateRefusesAnExistingFile() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try AtomicOutput(path: dir + "/x.wav", overwrite: false)
        try out.write([1, 2, 3])
        out.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
        try AtomicFile.write("old\n", to: dir + "/x.txt")
        let second = try AtomicOutput(path: dir + "/x.txt", overwrite: false)
        #expect(throws: WriteError(dir + "/x.txt", .appeared)) { try second.commit() }
        #expect(try String(contentsOfFile: dir + "/x.txt", encoding: .utf8) == "old\n")
        try AtomicFile.write("new\n", to: dir + "/x.txt")
        #expect(try String(contentsOfFile: dir + "/x.txt", encoding: .utf8) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["x.txt"])
    }

    @Test func aFailedWriteIsWriteFailedWithTheSystemsReason() {
        do {
            try AtomicFile.write("x", to: "/nonexistent-\(getpid())/sub/page.json", createFolders: false)
            Issue.record("the write should have failed")
        } catch let w as WriteError {
            #expect(w.problem == .failed(.writing, errno: ENOENT))
            let e = w.toolError(path: w.path)
            #expect(e.code == .writeFailed)
            #expect(e.message.contains("No such file or directory"), "\(e.message)")
            #expect(e.message.contains("\u{201C}page.json\u{201D}"))
        } catch {
            Issue.record("not a WriteError: \(error)")
        }
        #expect(ErrorCode(rawValue: "write-failed") == .writeFailed)
    }

    @Test func withoutUnnamedFilesAHiddenPartialIsUsedAndNeverLeft() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try AtomicOutput(path: dir + "/a.txt", overwrite: false, unnamed: false)
        #expect(!out.isUnnamed)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.count == 1 && names[0].hasPrefix(".a.txt.partial-\(TemporaryFiles.machine)-\(getpid())-"), "\(names)")
        #expect(AtomicOutput.partialWriter(names[0])?.pid == getpid())
        #expect(AtomicOutput.partialWriter(names[0])?.machine == TemporaryFiles.machine)
        try out.write(Array("one\n".utf8))
        try out.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.txt"])
        let again = try AtomicOutput(path: dir + "/a.txt", overwrite: true, unnamed: false)
        try again.write(Array("two\n".utf8))
        try again.commit()
        #expect(try String(contentsOfFile: dir + "/a.txt", encoding: .utf8) == "two\n")
        let dropped = try AtomicOutput(path: dir + "/b.txt", overwrite: false, unnamed: false)
        dropped.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.txt"])
        #expect(AtomicOutput.partialWriter(".x.partial-12-notanumber") == nil)
        #expect(TemporaryFiles.machine.count == 8)
        #expect(AtomicOutput.partialWriter("x.partial-12-34") == nil)
    }

    /// Every temporary file of ours names its writer, so a later run can tell a dead writer's;
    /// names written before machines were named still say the process.
    @Test func everyTemporaryNameOfOursNamesItsWriter() {
        for (name, pid) in [(".a.flac.tags-42-7", Int32(42)), (".film.mp4.audio0-42-7.m4a", 42), (".film.mp4.audio12-43-1.m4a", 43),
                            (".audio-tools-stdin-44-9", 44), (".audio-tools-out-45-9", 45), (".a-b.wav.partial-46-0", 46),
                            (".x-0badf00d.partial-47-1", 47)] {
            #expect(AtomicOutput.partialWriter(name)?.pid == pid, "\(name)")
            #expect(AtomicOutput.partialWriter(name)?.machine == nil, "\(name)")
        }
        for (name, pid) in [(".a.flac.tags-0badf00d-42-7", Int32(42)), (".film.mp4.audio0-12345678-42-7.m4a", 42),
                            (".audio-tools-stdin-0badf00d-44-9", 44), (".audio-tools-out-0badf00d-45-9", 45),
                            (".a-b.wav.partial-0badf00d-46-0", 46)] {
            #expect(AtomicOutput.partialWriter(name)?.pid == pid, "\(name)")
            #expect(AtomicOutput.partialWriter(name)?.machine != nil, "\(name)")
        }
        #expect(AtomicOutput.partialWriter(".a.flac.tags-0badf00d-42-7")?.machine == "0badf00d")
        for name in [".a.flac.tags-42-7.m4a", ".film.mp4.audioX-42-7.m4a", ".film.mp4.audio0-42-7", "audio-tools-stdin-44-9",
                     ".other-44-9", ".a.tags-0-1", ".a.tags--1-1", ".other-0badf00d-44-9", ".a.tags-0BADF00D-42-7"] {
            #expect(AtomicOutput.partialWriter(name) == nil, "\(name)")
        }
    }
}
