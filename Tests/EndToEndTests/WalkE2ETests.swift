import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Folder walks as a person's folders really are: cover art and notes beside the audio, symbolic
/// links to folders (some of them loops).
@Suite struct WalkE2ETests {
    /// deliverables/ holds one passing mix, the cover art, a playlist, show notes, a cue sheet,
    /// a .DS_Store, a link back to itself and a link to a folder it also holds.
    static func deliverables() throws -> String {
        let dir = E2E.tempDir("walk")
        let s = E2E.sine(1000, dBFS: -23, seconds: 4, rate: 48000)
        try E2E.write(dir + "/mix.wav", rate: 48000, channels: [s, s])
        try FileManager.default.createDirectory(atPath: dir + "/stems", withIntermediateDirectories: true)
        try E2E.write(dir + "/stems/dialogue.wav", rate: 48000, channels: [s, s])
        for name in ["cover.jpg", "show.m3u", "notes.txt", "album.cue", ".DS_Store"] {
            try Data("not audio\n".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        try FileManager.default.createSymbolicLink(atPath: dir + "/stems/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/stems-again", withDestinationPath: "stems")
        try FileManager.default.createSymbolicLink(atPath: dir + "/self", withDestinationPath: "self")
        return dir
    }

    @Test func aGateOverAFolderWithCoverArtJudgesOnlyItsAudio() throws {
        let dir = try Self.deliverables()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try E2E.run("lufs-measure", ["--preset", "ebu-r128", "--jobs", "2", dir])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let paths = r.records.compactMap { $0["path"]?.stringValue }
        // Each folder walked once, the linked one under the name first met in sorted order.
        #expect(paths == [dir + "/mix.wav", dir + "/stems/dialogue.wav"])
        #expect(!r.stdout.contains("\"error\""))
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("skipped") }
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.contains("4 files skipped") == true, "\(r.stderr)")
        #expect(lines.first?.contains("cover art") == true)
    }

    @Test func everyToolSkipsTheSameFilesInAWalk() throws {
        let dir = try Self.deliverables()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for tool in ["audio-probe", "lufs-measure"] {
            let r = try E2E.run(tool, ["--jobs", "1", dir])
            #expect(r.status == 0, "\(tool): \(r.stderr)")
            #expect(r.records.count == 2, "\(tool): \(r.stdout)")
            #expect(r.stderr.contains("4 files skipped"), "\(tool): \(r.stderr)")
        }
        let f = try E2E.run("library-filter", ["--jobs", "1", dir])
        #expect(f.status == 0, "\(f.stderr)")
        #expect(f.records.count == 2, "\(f.stdout)")
        #expect(f.stderr.contains("4 other files skipped"), "\(f.stderr)")
    }

    @Test func aFileNamedExplicitlyIsStillChecked() throws {
        let dir = try Self.deliverables()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try E2E.run("audio-probe", [dir + "/cover.jpg"])
        #expect(r.status == 1)
        #expect(r.records.first?["error"]?["code"]?.stringValue != nil)
        let viaStdin = try E2E.run("lufs-measure", [], stdin: dir + "/notes.txt\n")
        #expect(viaStdin.status == 1)
        #expect(viaStdin.records.first?["error"]?["code"]?.stringValue != nil)
        #expect(!viaStdin.stderr.contains("skipped"))
    }

    @Test func aLinkLoopIsNeitherAnErrorNorEndless() throws {
        let dir = E2E.tempDir("loop")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
        try E2E.write(dir + "/a/b/take.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/b/up", withDestinationPath: "../..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/x", withDestinationPath: "y")
        try FileManager.default.createSymbolicLink(atPath: dir + "/y", withDestinationPath: "x")
        for tool in ["audio-probe", "lufs-measure", "library-filter"] {
            let r = try E2E.run(tool, [dir])
            #expect(r.status == 0, "\(tool): \(r.stdout) \(r.stderr)")
            #expect(r.records.count == 1, "\(tool): \(r.stdout)")
            #expect(r.records.first?["path"]?.stringValue == dir + "/a/b/take.wav")
        }
    }

    @Test func aPipeInAFolderIsSkippedAndNamedIsRefusedWithoutWaiting() throws {
        let dir = E2E.tempDir("fifo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/take.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        #expect(mkfifo(dir + "/capture.wav", 0o644) == 0)
        let walked = try E2E.run("lufs-measure", [dir])
        #expect(walked.status == 0, "\(walked.stderr)")
        #expect(walked.records.count == 1)
        #expect(walked.stderr.contains("1 file skipped in the walk as not audio (pipe, socket or device"), "\(walked.stderr)")
        // Named, it is refused at once (nothing opens the pipe, so nothing waits for a writer).
        let named = try E2E.run("audio-probe", [dir + "/capture.wav"])
        #expect(named.records.first?["error"]?["code"]?.stringValue == "not-a-file")
    }

    @Test func aFolderHoldingOnlyCoverArtIsAFolderWithNoAudio() throws {
        let dir = E2E.tempDir("only-cover")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: URL(fileURLWithPath: dir + "/cover.jpg"))
        let r = try E2E.run("lufs-measure", ["--preset", "ebu-r128", dir])
        #expect(r.status == 1)
        #expect(r.records.isEmpty, "\(r.stdout)")
        #expect(r.stderr.contains("1 file skipped in the walk as not audio (cover art"), "\(r.stderr)")
        #expect(r.stderr.contains("no audio files found"), "\(r.stderr)")
    }

    /// A gate writes its report, JUnit file and records into the deliverables folder; run again
    /// on that folder it judges the audio, not the sidecars (by name, or by bytes when the name
    /// says nothing), and says on stderr what it left out. A file whose name claims audio still fails.
    @Test func aGateRunAgainOverItsOwnReportAndSidecarsStillPasses() throws {
        let dir = E2E.tempDir("sidecars")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let deliv = dir + "/deliv"
        try FileManager.default.createDirectory(atPath: deliv, withIntermediateDirectories: true)
        let s = E2E.sine(1000, dBFS: -16, seconds: 4, rate: 48000)  // -16 LUFS in stereo: the podcast target
        try E2E.write(deliv + "/episode.wav", rate: 48000, channels: [s, s])
        let first = try E2E.run("lufs-measure", ["--preset", "podcast", "--report", deliv + "/loudness-report",
                                                  "--junit", deliv + "/loudness.xml", deliv + "/"])
        #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
        try first.stdout.write(toFile: deliv + "/measurements.jsonl", atomically: true, encoding: .utf8)
        let sidecars = ["captions.srt": "1\n00:00:00,000 --> 00:00:01,000\nHello\n", "captions.vtt": "WEBVTT\n",
                        "SHA256SUMS.sha256": "00  episode.wav\n", "cues.csv": "start,end\n",
                        "page.json": "{}\n", "LICENSE": "All rights reserved.\n", "manifest": "{\"files\": 1}\n"]
        for (name, text) in sidecars { try text.write(toFile: deliv + "/" + name, atomically: true, encoding: .utf8) }
        let again = try E2E.run("lufs-measure", ["--preset", "podcast", deliv + "/"])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(again.records.compactMap { $0["path"]?.stringValue } == [deliv + "/episode.wav"], "\(again.stdout)")
        // index.html, episode.wav.svg, loudness.xml, measurements.jsonl and the seven above.
        #expect(again.stderr.contains("11 files skipped in the walk as not audio (documents, subtitle files;"), "\(again.stderr)")
        // A file named on the command line is still checked.
        let named = try E2E.run("lufs-measure", ["--preset", "podcast", deliv + "/loudness-report/index.html"])
        #expect(named.status == 1 && named.records.first?["error"]?["code"]?.stringValue == "unrecognised", "\(named.stdout)")
        // A name that claims audio is never skipped: a web page saved as .wav fails the gate.
        try "<!doctype html><html></html>\n".write(toFile: deliv + "/mix.wav", atomically: true, encoding: .utf8)
        let claimed = try E2E.run("lufs-measure", ["--preset", "podcast", deliv + "/"])
        #expect(claimed.status == 1)
        #expect(claimed.records.contains { $0["path"]?.stringValue == deliv + "/mix.wav" && $0["error"] != nil }, "\(claimed.stdout)")
    }

    /// `lufs-measure folder > folder/measurements`: the file the run writes its records to is in
    /// the folder it walks (empty when met: it sorts before the take), and is not measured.
    @Test func theFileStandardOutputWritesToIsNotWalked() throws {
        let dir = E2E.tempDir("own-output")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try E2E.write(dir + "/take.wav", rate: 48000, channels: [E2E.sine(440, dBFS: -20, seconds: 1, rate: 48000)])
        for tool in ["lufs-measure", "audio-probe"] {
            let r = try E2E.program("/bin/sh", ["-c", "exec \"$0\" \"$1\" > \"$1/measurements\"",
                                                E2E.binDir.path + "/" + tool, dir])
            #expect(r.status == 0, "\(tool): \(r.stderr)")
            let written = try String(contentsOfFile: dir + "/measurements", encoding: .utf8)
            let records = written.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
            #expect(records.compactMap { $0["path"]?.stringValue } == [dir + "/take.wav"], "\(tool): \(written)")
            #expect(!written.contains("\"error\""), "\(tool): \(written)")
            #expect(r.stderr.contains("the file standard output is written to skipped in the walk"), "\(tool): \(r.stderr)")
        }
    }
}
