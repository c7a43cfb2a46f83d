import Foundation
import Testing
@testable import AudioIO
@testable import JSONValue

/// lufs-normalize --lossless-gain keeps an undo record in MP4 (aacgain's replaygain_undo item) and
/// Opus (a comment) as in MP3 (mp3gain's APEv2 item); a second run adds to it; and
/// --undo-lossless-gain restores the original audio bit for bit: the packets and the decoded
/// samples always, and for MP3 and Opus the whole file.
@Suite(.serialized) struct LosslessGainUndoE2ETests {
    typealias L = LosslessGainE2ETests
    static let ready = E2E.has("ffmpeg")

    /// name, ffmpeg's arguments, the key of the record's undo facts, whether the whole file comes back.
    static let kinds: [(String, [String], String, Bool)] = [
        ("a.m4a", ["-c:a", "aac", "-b:a", "128k"], "aac", false),
        ("a.opus", ["-c:a", "libopus", "-b:a", "96k"], "opus", true),
        ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"], "mp3gain", true),
    ]

    /// The MD5 of the packets of `map`, copied out.
    static func packets(_ path: String, _ map: String = "0:a") throws -> String {
        try L.tool(["ffmpeg", "-v", "error", "-i", path, "-map", map, "-c", "copy", "-f", "md5", "-"])
    }

    static func normalize(_ args: [String]) throws -> JSON {
        let r = try E2E.run("lufs-normalize", args)
        #expect(r.records.count == 1, "\(r.stderr)")
        return r.records.first ?? .null
    }

    /// Gain, more gain (added to the record), undo: the original again; a second undo is refused.
    static func roundTrip(_ dir: String, _ name: String, key: String, wholeFile: Bool, video: Bool = false) throws {
        let original = dir + "/" + name, work = dir + "/w." + name
        try FileManager.default.copyItem(atPath: original, toPath: work)
        let first = try normalize(["--lossless-gain", "--target", "-16", "--in-place", work])
        let undo1 = try #require(first["normalized"]?[key]?["undo"], "\(first)")
        #expect(first["normalized"]?[key]?["previous_undo"] == .null)
        let second = try normalize(["--lossless-gain", "--target", "-20", "--in-place", work])
        #expect(second["normalized"]?[key]?["previous_undo"] == undo1)
        let undo2 = try #require(second["normalized"]?[key]?["undo"])
        #expect(undo2 != undo1)
        // Opus's gain is in its header, not its packets.
        #expect(FileManager.default.contents(atPath: work) != FileManager.default.contents(atPath: original))
        if key != "opus" { #expect(try packets(work) != packets(original)) }

        let undone = try normalize(["--undo-lossless-gain", "--in-place", work])
        #expect(undone["normalized"]?["mode"]?.stringValue == "undo-lossless-gain", "\(undone)")
        #expect(try packets(work) == packets(original))
        #expect(try L.decode(work) == L.decode(original))
        if video { #expect(try packets(work, "0:v") == packets(original, "0:v")) }
        if wholeFile {
            #expect(FileManager.default.contents(atPath: work) == FileManager.default.contents(atPath: original))
        }
        let again = try normalize(["--undo-lossless-gain", "--in-place", work])
        #expect(again["error"]?["code"]?.stringValue == "bad-input")
        #expect(again["error"]?["message"]?.stringValue?.contains("carries no undo record of lossless gain: nothing to undo") == true)
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: 0..<3)
    func roundTripIsBitForBit(kind: Int) throws {
        let (name, args, key, whole) = Self.kinds[kind]
        let dir = E2E.tempDir("lossless-undo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.make(dir + "/" + name, args)
        try Self.roundTrip(dir, name, key: key, wholeFile: whole)
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func anMP4FilmWithTwoAudioTracksComesBack() throws {
        let dir = E2E.tempDir("lossless-undo-mp4")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.tool(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=160x120:d=3:r=25", "-f", "lavfi", "-i", "sine=f=330:d=3,volume=0.25",
                    "-f", "lavfi", "-i", "anoisesrc=d=3:c=pink:a=0.05", "-map", "0", "-map", "1", "-map", "2", "-ac", "2",
                    "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", dir + "/film.mp4"])
        try Self.roundTrip(dir, "film.mp4", key: "aac", wholeFile: false, video: true)
        // One "left,right" pair a track, the way aacgain writes one.
        try FileManager.default.copyItem(atPath: dir + "/film.mp4", toPath: dir + "/g.mp4")
        let rec = try Self.normalize(["--lossless-gain", "--target", "-16", "--in-place", dir + "/g.mp4"])
        let undo = try #require(rec["normalized"]?["aac"]?["undo"]?.stringValue)
        let steps = try #require(rec["normalized"]?["streams"]?.arrayValue?.compactMap { $0["lossless_gain"]?["steps"]?.intValue })
        #expect(undo == steps.map { "\(-$0),\(-$0)" }.joined(separator: ";"))
        #expect(try AACUndoRecord.read(FileByteSource.input(dir + "/g.mp4")) == undo)
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func undoFollowsTheOutputRulesAndTakesNoTarget() throws {
        let dir = E2E.tempDir("lossless-undo-out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try L.make(dir + "/a.opus", ["-c:a", "libopus", "-b:a", "96k"])
        _ = try Self.normalize(["--lossless-gain", "--target", "-16", "--out-dir", dir + "/gained", dir + "/a.opus"])
        let gained = FileManager.default.contents(atPath: dir + "/gained/a.opus")
        let rec = try Self.normalize(["--undo-lossless-gain", "--out-dir", dir + "/back", dir + "/gained/a.opus"])
        #expect(rec["normalized"]?["steps"]?.arrayValue?.count == 1)
        #expect(FileManager.default.contents(atPath: dir + "/back/a.opus") == FileManager.default.contents(atPath: dir + "/a.opus"))
        #expect(FileManager.default.contents(atPath: dir + "/gained/a.opus") == gained)  // the input is kept
        let conflict = try E2E.run("lufs-normalize", ["--undo-lossless-gain", "--target", "-16", "--in-place", dir + "/a.opus"])
        #expect(conflict.status == 2)
        #expect(conflict.stderr.contains("--undo-lossless-gain only restores the gain a lossless gain changed"))
        // ADTS has nowhere to keep a record.
        try L.make(dir + "/a.aac", ["-c:a", "aac", "-f", "adts"])
        let adts = try Self.normalize(["--undo-lossless-gain", "--out-dir", dir + "/back", dir + "/a.aac"])
        #expect(adts["error"]?["code"]?.stringValue == "bad-input")
    }
}
