import Foundation
import Testing
@testable import AudioIO
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize --remove-tags and --id3v2 on real files of every format --write-tags tags,
/// read back with TagLib (the tool's own dry run) and with a second tag library, mutagen.
@Suite struct TagRemovalE2ETests {
    /// Debian's python3 with mutagen (make test-deps installs python3-mutagen).
    static let mutagen: Bool = (try? E2E.program("/usr/bin/python3", ["-c", "import mutagen"]).status == 0) ?? false
    static let ready = mutagen && E2E.has("ffmpeg")
    static let why: Comment = "needs ffmpeg and python3-mutagen (make test-deps installs them)"

    /// mutagen's view of a file: its tag keys in capitals, and the ID3v2 version ("2.3.0") if any.
    static func mutagenTags(_ path: String) throws -> (keys: Set<String>, version: String?) {
        let script = """
        import json, sys, mutagen
        f = mutagen.File(sys.argv[1])
        keys = [str(k).upper() for k in (f.tags.keys() if f.tags is not None else [])]
        v = getattr(f.tags, "version", None)
        print(json.dumps({"keys": keys, "version": ".".join(map(str, v)) if v else None}))
        """
        let r = try E2E.program("/usr/bin/python3", ["-c", script, path])
        let j = try JSON.parse(String(decoding: r.stdout, as: UTF8.self))
        return (Set((j["keys"]?.arrayValue ?? []).compactMap(\.stringValue)), j["version"]?.stringValue)
    }

    /// The MD5 of the audio packets as stored (stream copy): the audio bytes, not a decode.
    static func packets(_ path: String) throws -> String {
        String(decoding: try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "md5", "-"]).stdout, as: UTF8.self)
    }

    static func make(_ path: String, _ codec: [String]) throws {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=2", "-ac", "2",
                                                 "-metadata", "title=Kept", "-metadata", "artist=Someone"] + codec + [path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    static func isGain(_ key: String) -> Bool { key.contains("REPLAYGAIN_") || key.contains("R128_") }

    @Test(.enabled(if: ready, why)) func removesOnlyTheGainTagsOfEveryFormat() throws {
        let dir = E2E.tempDir("tag-remove")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = [dir + "/a.mp3", dir + "/b.flac", dir + "/c.ogg", dir + "/d.opus", dir + "/e.m4a"]
        try Self.make(files[0], ["-c:a", "libmp3lame", "-b:a", "128k"])
        try Self.make(files[1], ["-c:a", "flac"])
        try Self.make(files[2], ["-c:a", "libvorbis"])
        try Self.make(files[3], ["-c:a", "libopus", "-b:a", "64k"])
        try Self.make(files[4], ["-c:a", "aac", "-b:a", "96k"])
        let audio = try files.map(Self.packets)
        let tagged = try E2E.run("lufs-normalize", ["--write-tags"] + files)
        #expect(tagged.status == 0, "\(tagged.stdout)")
        var before: [String: Set<String>] = [:]
        for f in files {
            let keys = try Self.mutagenTags(f).keys
            #expect(keys.contains { Self.isGain($0) }, "\(f): \(keys)")
            before[f] = keys
        }

        // Dry run: the records list what would go, and no byte changes.
        let bytes = try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let dry = try E2E.run("lufs-normalize", ["--remove-tags", "--dry-run"] + files)
        #expect(dry.status == 0)
        #expect(try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == bytes)
        for r in dry.records {
            let n = try #require(r["normalized"])
            #expect(n["mode"]?.stringValue == "remove-tags" && n["dry_run"]?.boolValue == true && n["rewritten"]?.boolValue == false)
            let removed = Set(n["removed_tags"]?.objectValue?.keys.map { $0 } ?? [])
            let expected: Set<String> = r["path"]?.stringValue == files[3] ? ["R128_TRACK_GAIN"]
                : ["REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK", "REPLAYGAIN_REFERENCE_LOUDNESS"]
            #expect(removed == expected, "\(r)")
        }

        // The removal: the gain tags go, everything else stays (mutagen), the audio packets too.
        let run = try E2E.run("lufs-normalize", ["--remove-tags"] + files)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.records.allSatisfy { $0["normalized"]?["rewritten"]?.boolValue == true })
        for (k, f) in files.enumerated() {
            let keys = try Self.mutagenTags(f).keys
            #expect(!keys.contains { Self.isGain($0) }, "\(f): \(keys)")
            #expect(keys == before[f]!.filter { !Self.isGain($0) }, "\(f): other tags changed")
            #expect(try Self.packets(f) == audio[k], "\(f): the audio changed")
        }
        // TagLib agrees (the tool's own reading), and a file with nothing to remove is not rewritten.
        let mtimes = files.map { (try? FileIdentity.of($0).modifiedNanoseconds) ?? -1 }
        let again = try E2E.run("lufs-normalize", ["--remove-tags"] + files)
        #expect(again.status == 0)
        for r in again.records {
            #expect(r["normalized"]?["removed_tags"]?.objectValue?.isEmpty == true)
            #expect(r["normalized"]?["rewritten"]?.boolValue == false)
            #expect(r["normalized"]?["notes"]?.arrayValue?.first?.stringValue?.contains("nothing to remove") == true)
        }
        #expect(files.map { (try? FileIdentity.of($0).modifiedNanoseconds) ?? -1 } == mtimes)
    }

    @Test(.enabled(if: ready, why)) func id3v2VersionIsTheOneAskedFor() throws {
        let dir = E2E.tempDir("tag-id3")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mp3 = dir + "/a.mp3", flac = dir + "/b.flac"
        try Self.make(mp3, ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "4"])
        try Self.make(flac, ["-c:a", "flac"])
        let three = try E2E.run("lufs-normalize", ["--write-tags", "--id3v2", "3", mp3, flac])
        #expect(three.status == 0, "\(three.stdout)")
        #expect(try Self.mutagenTags(mp3).version == "2.3.0")
        #expect(three.records.first?["normalized"]?["id3_version"]?.stringValue == "2.3")
        #expect(three.records.last?["normalized"]?["id3_version"] == nil)  // FLAC has no ID3v2 tag
        // The same values in the other version: rewritten, into 2.4.
        let four = try E2E.run("lufs-normalize", ["--write-tags", "--id3v2", "4", mp3])
        #expect(four.records.first?["normalized"]?["rewritten"]?.boolValue == true)
        #expect(try Self.mutagenTags(mp3).version == "2.4.0")
        #expect(try Self.mutagenTags(mp3).keys.contains("TXXX:REPLAYGAIN_TRACK_GAIN"))
        // --remove-tags saves the tag it rewrites in the version asked for.
        let removed = try E2E.run("lufs-normalize", ["--remove-tags", "--id3v2", "3", mp3])
        #expect(removed.records.first?["normalized"]?["id3_version"]?.stringValue == "2.3")
        let after = try Self.mutagenTags(mp3)
        #expect(after.version == "2.3.0" && after.keys.contains("TIT2") && !after.keys.contains { Self.isGain($0) })
        // WAV and AIFF keep their ID3v2 tag in a chunk: the version asked for there too.
        let wav = dir + "/c.wav", aiff = dir + "/d.aiff"
        try Self.make(wav, [])
        try Self.make(aiff, ["-write_id3v2", "1"])
        let riff = try E2E.run("lufs-normalize", ["--write-tags", "--id3v2", "3", wav, aiff])
        #expect(riff.status == 0, "\(riff.stdout)")
        for f in [wav, aiff] {
            let t = try Self.mutagenTags(f)
            #expect(t.version == "2.3.0" && t.keys.contains("TXXX:REPLAYGAIN_TRACK_GAIN"), "\(f): \(t)")
        }
        // Usage errors, before any file is touched.
        #expect(try E2E.run("lufs-normalize", ["--remove-tags", "--write-tags", mp3]).status == 2)
        #expect(try E2E.run("lufs-normalize", ["--write-tags", "--id3v2", "2.4", mp3]).status == 2)
    }
}
