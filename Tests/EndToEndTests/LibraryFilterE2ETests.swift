import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct LibraryFilterE2ETests {
    typealias F = AudioProbeE2EFixture

    /// A library folder mixing three usable songs with everything that isn't: protected, Audible,
    /// a silent video, text named .mp3, a cut-off WAV, a zero-byte .m4a, an iCloud placeholder,
    /// and non-songs (cover art, playlist, cue sheet, text). Modification times set the default order.
    static func makeLibrary() throws -> String {
        let dir = E2E.tempDir("library")
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/Miles/Kind of Blue", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/Debussy", withIntermediateDirectories: true)
        let songs: [(String, Int, Int, Double, Double, [String: String], TimeInterval)] = [
            ("Miles/Kind of Blue/02 Blue in Green.wav", 44100, 2, 2.0, 330,
             ["INAM": "Blue in Green", "IART": "Miles Davis", "IPRD": "Kind of Blue", "IGNR": "Jazz", "ICRD": "1959", "ITRK": "3"], 1_000_000),
            ("Miles/Kind of Blue/01 So What.wav", 44100, 2, 3.0, 440,
             ["INAM": "So What", "IART": "Miles Davis", "IPRD": "Kind of Blue", "IGNR": "Jazz", "ICRD": "1959", "ITRK": "1"], 3_000_000),
            ("Debussy/Clair de Lune.wav", 22050, 1, 1.0, 262,
             ["INAM": "Clair de Lune", "IART": "Claude Debussy", "IPRD": "Suite bergamasque", "IGNR": "Classical", "ICRD": "1905"], 2_000_000),
        ]
        for (path, rate, ch, seconds, freq, tags, mtime) in songs {
            try F.write(F.taggedWAV(rate: rate, channels: ch, seconds: seconds, freq: freq, tags: tags), dir + "/" + path)
            try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: mtime)], ofItemAtPath: dir + "/" + path)
        }
        try F.write(F.fairPlayM4P, dir + "/bought.m4p")
        try F.write(F.audibleAAX, dir + "/book.aax")
        try F.write(F.silentMOV, dir + "/holiday.mov")
        try F.write(Data("shopping list\n".utf8), dir + "/notes.mp3")
        let full = F.taggedWAV(rate: 8000, channels: 1, seconds: 2, freq: 200, tags: [:])
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.wav"))
        _ = fm.createFile(atPath: dir + "/Song.m4a", contents: Data())
        _ = fm.createFile(atPath: dir + "/.Cloud Song.m4a.icloud", contents: Data("bplist00".utf8))
        _ = fm.createFile(atPath: dir + "/Miles/Kind of Blue/cover.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0]))
        _ = fm.createFile(atPath: dir + "/mix.m3u", contents: Data("#EXTM3U\n".utf8))
        _ = fm.createFile(atPath: dir + "/Debussy/album.cue", contents: Data("FILE x.wav WAVE\n".utf8))
        _ = fm.createFile(atPath: dir + "/readme.txt", contents: Data("hi\n".utf8))
        return dir
    }

    static let sentence = "3 of 10 songs usable: 2 protected, 1 cloud-only, 4 broken; 4 other files skipped (cover art, playlist, cue sheet, document)"

    static func names(_ r: E2E.Run) -> [String] {
        r.records.compactMap { $0["path"]?.stringValue.map { String($0.split(separator: "/").last!) } }
    }

    @Test func keepsOnlyUsableSongsAndSaysWhatBecameOfTheRest() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try E2E.run("library-filter", ["-j", "2", dir])
        #expect(r.status == 0, "filtering out unusable files is the job, not a failure: \(r.stderr)")
        // Default order: most recently modified first.
        #expect(Self.names(r) == ["01 So What.wav", "Clair de Lune.wav", "02 Blue in Green.wav"])
        for rec in r.records {
            let lib = try #require(rec["library"])
            #expect(lib["usable"] == .bool(true) && lib["reason"] == .null)
            #expect(lib["id"] == rec["probe"]?["content_id"])
            #expect(lib["id"]?.stringValue?.count == 24)
            #expect(rec["schema"]?.intValue == 1 && rec["error"] == nil)
        }
        #expect(r.stderr.contains("library-filter: " + Self.sentence), "\(r.stderr)")

        // --all adds the unusable songs with their reasons; non-songs stay out.
        let all = try E2E.run("library-filter", ["--all", "--no-summary", dir])
        #expect(all.status == 0 && all.stderr.isEmpty)
        #expect(all.records.count == 10)
        var codes: [String: String] = [:]
        for rec in all.records where rec["library"]?["usable"] == .bool(false) {
            let name = String(rec["path"]!.stringValue!.split(separator: "/").last!)
            codes[name] = rec["library"]?["reason"]?["code"]?.stringValue
            #expect(rec["library"]?["reason"]?["message"]?.stringValue?.isEmpty == false)
            #expect(rec["library"]?["reason"]?["suggestion"]?.stringValue?.isEmpty == false)
            #expect(rec["error"]?["code"] == rec["library"]?["reason"]?["code"])
        }
        #expect(codes == ["bought.m4p": "protected", "book.aax": "protected", "holiday.mov": "no-audio", "notes.mp3": "unrecognised",
                          "cut.wav": "truncated", "Song.m4a": "empty", ".Cloud Song.m4a.icloud": "cloud-only"])
        let m4p = all.records.first { $0["path"]?.stringValue?.hasSuffix("bought.m4p") == true }
        #expect(m4p?["probe"]?["tags"]?["title"] == .string("Bought Song"), "a protected song still shows its tags")
        #expect(m4p?["library"]?["id"]?.stringValue?.count == 24, "unusable songs get a stable id from their bytes")
    }

    @Test func readsAudioProbeRecordsTheSameWayItReadsFolders() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let probed = try E2E.run("audio-probe", ["-j", "2", dir])
        #expect(probed.status == 1)
        let piped = try E2E.run("library-filter", ["-j", "2"], stdin: probed.stdout)
        let direct = try E2E.run("library-filter", ["-j", "2", dir])
        #expect(piped.status == 0)
        #expect(piped.stdout == direct.stdout)
        // audio-probe's walk already left out the cover art, playlist, cue sheet and notes, and said so.
        #expect(piped.stderr.contains("3 of 10 songs usable: 2 protected, 1 cloud-only, 4 broken\n"), "\(piped.stderr)")
        #expect(probed.stderr.contains("4 files skipped in the walk as not audio (cover art, playlist, cue sheet, document"), "\(probed.stderr)")
        #expect(direct.stderr.contains(Self.sentence), "\(direct.stderr)")
        // Bare paths are probed; a line that isn't a record is reported and makes the exit status 1.
        let paths = try E2E.run("library-filter", [], stdin: "\(dir)/Debussy/Clair de Lune.wav\n{oops\n\(dir)/bought.m4p\n")
        #expect(paths.status == 1)
        #expect(paths.records.count == 2)
        #expect(paths.records[0]["error"]?["code"] == .string("bad-input"))
        #expect(paths.records[1]["library"]?["usable"] == .bool(true))
        #expect(paths.stderr.contains("1 of 2 songs usable: 1 protected"))
    }

    @Test func searchSortPagesAndPageInfo() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func run(_ args: [String]) throws -> E2E.Run { try E2E.run("library-filter", args + [dir]) }
        #expect(Self.names(try run(["--query", "miles", "--sort", "track"])) == ["01 So What.wav", "02 Blue in Green.wav"])
        #expect(Self.names(try run(["--query", "year:1900..1950"])) == ["Clair de Lune.wav"])
        #expect(Self.names(try run(["--query", "artist:davis -title:what"])) == ["02 Blue in Green.wav"])
        #expect(Self.names(try run(["--query", "genre:jazz duration:..2.5"])) == ["02 Blue in Green.wav"])
        #expect(Self.names(try run(["--sort", "title"])) == ["02 Blue in Green.wav", "Clair de Lune.wav", "01 So What.wav"])
        #expect(Self.names(try run(["--sort", "year-,title-"])) == ["01 So What.wav", "02 Blue in Green.wav", "Clair de Lune.wav"])
        let q = try run(["--query", "miles"])
        #expect(q.stderr.contains("; 2 match the query"))

        let info = dir + "/page.json"
        let p1 = try E2E.run("library-filter", ["--sort", "title", "--limit", "2", "--page-info", info, dir])
        #expect(Self.names(p1) == ["02 Blue in Green.wav", "Clair de Lune.wav"])
        let page1 = try JSON.parse(try String(contentsOfFile: info, encoding: .utf8))
        #expect(page1 == .object(["offset": .int(0), "limit": .int(2), "returned": .int(2), "total": .int(3),
                                  "has_more": .bool(true), "next_offset": .int(2)]))
        let p2 = try E2E.run("library-filter", ["--sort", "title", "--offset", "2", "--limit", "2", "--page-info=" + info, dir])
        #expect(Self.names(p2) == ["01 So What.wav"])
        let page2 = try JSON.parse(try String(contentsOfFile: info, encoding: .utf8))
        #expect(page2["has_more"] == .bool(false) && page2["next_offset"] == .null && page2["returned"]?.intValue == 1)

        // Bad queries and values are usage errors that point at the bad part; nothing on stdout.
        for (args, needle) in [(["--query", "colour:red"], "colour"), (["--sort", "loudness"], "loudness"),
                               (["--offset", "-1"], "--offset"), (["--get", "xyz"], "xyz"),
                               (["--min-duration", "10", "--max-duration", "5"], "--min-duration"),
                               (["--get", "0123456789abcdef01234567", "--limit", "1"], "--limit")] {
            let bad = try run(args)
            #expect(bad.status == 2, "\(args)")
            #expect(bad.stdout.isEmpty)
            #expect(bad.stderr.contains(needle), "\(args): \(bad.stderr)")
        }
    }

    @Test func constraintsMakeSongsUnusableWithTheOptionNamed() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try E2E.run("library-filter", ["--min-duration", "1.5", "--channels", "2", dir])
        #expect(Set(Self.names(r)) == ["01 So What.wav", "02 Blue in Green.wav"])
        #expect(r.stderr.contains("2 of 10 songs usable: 2 protected, 1 cloud-only, 4 broken, 1 outside the constraints"), "\(r.stderr)")
        let all = try E2E.run("library-filter", ["--all", "--min-duration", "1.5", dir])
        let clair = try #require(all.records.first { $0["path"]?.stringValue?.hasSuffix("Clair de Lune.wav") == true })
        #expect(clair["library"]?["usable"] == .bool(false))
        #expect(clair["library"]?["reason"]?["code"] == .string("outside-constraints"))
        #expect(clair["library"]?["reason"]?["suggestion"]?.stringValue?.contains("--min-duration") == true)
        #expect(clair["error"] == nil, "a song outside the limits is not broken")
    }

    @Test func idsSurviveRenamesAndMovesAndAGoneIdIsAnError() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try E2E.run("library-filter", ["--query", "title:clair", dir])
        let id = try #require(first.records.first?["library"]?["id"]?.stringValue)
        let m4pID = try #require(try E2E.run("library-filter", ["--all", dir]).records
            .first { $0["path"]?.stringValue?.hasSuffix(".m4p") == true }?["library"]?["id"]?.stringValue)

        // The library is reorganised: renamed and moved into another folder.
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/Archive/Piano", withIntermediateDirectories: true)
        try fm.moveItem(atPath: dir + "/Debussy/Clair de Lune.wav", toPath: dir + "/Archive/Piano/03 Clair.wav")
        try fm.moveItem(atPath: dir + "/bought.m4p", toPath: dir + "/Archive/renamed.m4p")
        let again = try E2E.run("library-filter", ["--query", "title:clair", dir])
        #expect(again.records.first?["library"]?["id"]?.stringValue == id)

        let got = try E2E.run("library-filter", ["--get", id, "--no-summary", dir])
        #expect(got.status == 0)
        #expect(got.records.count == 1)
        #expect(got.records.first?["path"]?.stringValue == dir + "/Archive/Piano/03 Clair.wav")
        let gotM4P = try E2E.run("library-filter", ["--all", "--get", m4pID, dir])
        #expect(gotM4P.records.first?["path"]?.stringValue == dir + "/Archive/renamed.m4p")

        try fm.removeItem(atPath: dir + "/Archive/Piano/03 Clair.wav")
        let gone = try E2E.run("library-filter", ["--get", id, dir])
        #expect(gone.status == 1)
        #expect(gone.records.count == 1)
        let e = try #require(gone.records.first?["error"])
        #expect(e["code"] == .string("not-found"))
        #expect(e["message"]?.stringValue?.contains(id) == true)
        #expect(e["suggestion"]?.stringValue?.isEmpty == false)
        #expect(gone.records.first?["library"]?["id"] == .string(id))
    }

    @Test func outputIsIdenticalWhateverJobsIs() throws {
        let dir = try Self.makeLibrary()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = try E2E.run("library-filter", ["--all", "-j", "1", dir])
        let two = try E2E.run("library-filter", ["--all", "--jobs=2", dir])
        #expect(one.records.count == 10)
        #expect(one.stdout == two.stdout)
        #expect(one.stderr == two.stderr)
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make the M4A and MOV fixtures (make test-deps installs it)"))
    func mp4SongsAndVideosWithSound() throws {
        let dir = E2E.tempDir("library-ff")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try F.ffmpeg(["-f", "lavfi", "-i", "sine=f=330:d=1", "-metadata", "title=Tune", "-c:a", "aac", dir + "/tune.m4a"])
        try F.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=64x48", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "mpeg4", "-c:a", "aac",
                      "-shortest", dir + "/clip.mov"])
        let r = try E2E.run("library-filter", ["--sort", "path", dir])
        #expect(Self.names(r) == ["clip.mov", "tune.m4a"])
        #expect(r.records.first?["probe"]?["has_video"] == .bool(true))
        let without = try E2E.run("library-filter", ["--all", dir], environment: F.environmentWithoutFFmpeg)
        #expect(without.status == 0)
        #expect(without.records.allSatisfy { $0["library"]?["reason"]?["code"] == .string("unsupported-codec") })
        #expect(without.stderr.contains("0 of 2 songs usable: 2 broken"), "\(without.stderr)")
    }
}
