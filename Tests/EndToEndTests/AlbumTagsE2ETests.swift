import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Albums and ReplayGain as a user runs them: lufs-measure --album, lufs-normalize --album and
/// --write-tags on real files of every taggable format, read back with ffprobe and checked
/// against libebur128.
@Suite struct AlbumTagsE2ETests {
    /// Runs a program and returns its stdout (failing the test on a non-zero status).
    @discardableResult
    static func sh(_ args: [String]) throws -> String {
        let r = try E2E.program("/usr/bin/env", args)
        if r.status != 0 { Issue.record("\(args.joined(separator: " ")) exited with \(r.status)") }
        return String(decoding: r.stdout, as: UTF8.self)
    }

    static func needFFmpeg() -> Bool {
        if E2E.has("ffmpeg") && E2E.has("ffprobe") { return true }
        Issue.record("ffmpeg and ffprobe are needed (make test-deps installs them); albums were not tested.")
        return false
    }

    /// A short track from an ffmpeg source, with album tags (and a cover where `cover` is given).
    static func track(_ path: String, source: String, seconds: Double, codec: [String], album: String = "Night Drive",
                      albumArtist: String = "The Testers", title: String, cover: String? = nil, extra: [String] = []) throws {
        var args = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "\(source):d=\(seconds)"]
        if let cover { args += ["-i", cover, "-map", "0:a", "-map", "1:v", "-c:v", "copy", "-disposition:v", "attached_pic"] }
        args += ["-metadata", "album=\(album)", "-metadata", "album_artist=\(albumArtist)", "-metadata", "title=\(title)",
                 "-metadata", "artist=Someone \(title)"] + codec + extra + [path]
        try sh(args)
    }

    /// The five formats, at different levels, in two folders of one tagged album.
    static func makeAlbum(_ dir: String) throws -> [String] {
        let cover = dir + "/cover.png"
        try sh(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=32x32", "-frames:v", "1", cover])
        try FileManager.default.createDirectory(atPath: dir + "/cd1", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/cd2", withIntermediateDirectories: true)
        let files = [dir + "/cd1/01.flac", dir + "/cd1/02.mp3", dir + "/cd1/03.ogg", dir + "/cd2/04.opus", dir + "/cd2/05.m4a"]
        try track(files[0], source: "anoisesrc=c=pink:a=0.3", seconds: 3, codec: ["-ac", "2", "-c:a", "flac"], title: "One", cover: cover)
        try track(files[1], source: "sine=f=440", seconds: 3, codec: ["-ac", "2", "-c:a", "libmp3lame", "-b:a", "192k", "-id3v2_version", "3"],
                  title: "Two", cover: cover)
        try track(files[2], source: "anoisesrc=c=brown:a=0.2", seconds: 3, codec: ["-ac", "2", "-c:a", "libvorbis"], title: "Three")
        try track(files[3], source: "sine=f=220", seconds: 3, codec: ["-ac", "2", "-c:a", "libopus", "-b:a", "96k", "-af", "volume=-9dB"], title: "Four")
        try track(files[4], source: "anoisesrc=c=white:a=0.05", seconds: 3, codec: ["-ac", "2", "-c:a", "aac", "-b:a", "128k"], title: "Five", cover: cover)
        try FileManager.default.removeItem(atPath: cover)
        return files
    }

    /// Every tag ffprobe reads (format and stream level), keys in capitals.
    static func tags(_ path: String) throws -> [String: String] {
        let j = try JSON.parse(try sh(["ffprobe", "-v", "error", "-show_entries", "format_tags:stream_tags", "-of", "json", path]))
        var out: [String: String] = [:]
        for o in [j["format"]?["tags"]] + (j["streams"]?.arrayValue ?? []).map({ $0["tags"] }) {
            for (k, v) in o?.objectValue ?? [:] { if let s = v.stringValue { out[k.uppercased()] = s } }
        }
        return out
    }

    /// MD5 of the decoded audio, and the number of picture streams.
    static func audioDigest(_ path: String) throws -> String {
        try sh(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a", "-f", "md5", "-"])
    }

    static func pictures(_ path: String) throws -> Int {
        try sh(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=index", "-of", "csv=p=0", path])
            .split(separator: "\n").count
    }

    static func mtime(_ path: String) -> Int64 { (try? FileIdentity.of(path).modifiedNanoseconds) ?? -1 }

    @Test func albumLoudnessIsLibebur128sOverTheSameTracks() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-ref")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // libsndfile-readable formats (the reference decodes with libsndfile too), very different levels.
        let files = [dir + "/a.flac", dir + "/b.ogg", dir + "/c.aiff", dir + "/d.mp3", dir + "/e.opus"]
        try Self.track(files[0], source: "anoisesrc=c=pink:a=0.4", seconds: 6, codec: ["-ac", "2"], title: "a")
        try Self.track(files[1], source: "sine=f=330", seconds: 5, codec: ["-ac", "2", "-c:a", "libvorbis", "-af", "volume=-20dB"], title: "b")
        try Self.track(files[2], source: "anoisesrc=c=brown:a=0.5", seconds: 6, codec: ["-ac", "1", "-write_id3v2", "1"], title: "c")  // AIFF with ID3v2 (album artist)
        try Self.track(files[3], source: "sine=f=880", seconds: 4, codec: ["-ac", "2", "-c:a", "libmp3lame", "-af", "volume=-6dB"], title: "d")
        try Self.track(files[4], source: "anoisesrc=c=white:a=0.02", seconds: 5, codec: ["-ac", "2", "-c:a", "libopus"], title: "e")
        let exe = dir + "/ebur128_album"
        let src = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Bench/ebur128_album.c").path
        try Self.sh(["cc", "-O2", src, "-o", exe, "-lebur128", "-lsndfile", "-lm"])
        guard FileManager.default.isExecutableFile(atPath: exe) else {
            Issue.record("The libebur128 reference could not be built (make test-deps installs libebur128-dev).")
            return
        }
        let ref = try Self.sh([exe] + files).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let run = try E2E.run("lufs-measure", ["--album", "-j", "2", dir])
        let records = run.records.filter { $0["path"]?.stringValue?.hasSuffix("ebur128_album") == false && $0["error"] == nil }
        #expect(records.count == 5)
        let albums = Set(records.compactMap { $0["loudness"]?["album"]?.serialized() })
        #expect(albums.count == 1)  // one album, tagged the same, in one folder
        let album = try #require(records.first?["loudness"]?["album"])
        #expect(album["tracks"]?.intValue == 5)
        #expect(album["key"]?.stringValue == "The Testers — Night Drive")
        let i = try #require(album["integrated_lufs"]?.doubleValue), lra = try #require(album["loudness_range_lu"]?.doubleValue)
        #expect(ref.count == 2)
        #expect(abs(i - ref[0]) <= 0.02, "album \(i) LUFS, libebur128 \(ref[0])")
        // libebur128 keeps one 3 s short-term block a second for the range; we keep one every 100 ms
        // (Tech 3342's 10 Hz), so on a few seconds of audio the ranges differ by a few hundredths.
        #expect(abs(lra - ref[1]) <= 0.3, "album LRA \(lra) LU, libebur128 \(ref[1])")
        // Not the average of the track values.
        let mean = records.compactMap { $0["loudness"]?["integrated_lufs"]?.doubleValue }.reduce(0, +) / 5
        #expect(abs(mean - i) > 0.5)
        let peaks = records.compactMap { $0["loudness"]?["true_peak_dbtp"]?.doubleValue }
        #expect(album["true_peak_dbtp"]?.doubleValue == peaks.max())
    }

    @Test func albumOutputIsTheSameWhateverJobsAndGroupsByTagOrFolder() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-jobs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.makeAlbum(dir)
        // An untagged file in cd1 is an album of its folder.
        try E2E.write(dir + "/cd1/06.wav", rate: 44100, channels: [E2E.sine(500, dBFS: -30, seconds: 2, rate: 44100)])
        let one = try E2E.run("lufs-measure", ["--album", "-j", "1", dir])
        let three = try E2E.run("lufs-measure", ["--album", "--jobs=3", dir])
        #expect(one.status == 0)
        #expect(one.stdout == three.stdout)
        let byPath = Dictionary(uniqueKeysWithValues: one.records.map { ($0["path"]!.stringValue!, $0) })
        #expect(one.records.map { $0["path"]!.stringValue! } == (files + [dir + "/cd1/06.wav"]).sorted())
        for f in files {
            #expect(byPath[f]?["loudness"]?["album"]?["tracks"]?.intValue == 5)
            #expect(byPath[f]?["loudness"]?["album"]?["by"]?.stringValue == "tag")
        }
        #expect(byPath[dir + "/cd1/06.wav"]?["loudness"]?["album"]?["key"]?.stringValue == dir + "/cd1")
        let folders = try E2E.run("lufs-measure", ["--album", "--album-by", "folder", dir]).records
        #expect(folders.filter { $0["path"]!.stringValue!.contains("/cd1/") }.allSatisfy { $0["loudness"]?["album"]?["tracks"]?.intValue == 4 })
        #expect(folders.filter { $0["path"]!.stringValue!.contains("/cd2/") }.allSatisfy { $0["loudness"]?["album"]?["tracks"]?.intValue == 2 })
        // Records from stdin go the same way.
        let piped = try E2E.run("lufs-measure", ["--album", "-j", "2"], stdin: one.records.map { $0["path"]!.stringValue! }.joined(separator: "\n"))
        #expect(piped.stdout == one.stdout)
        let usage = try E2E.run("lufs-measure", ["--album-by", "folder", dir])
        #expect(usage.status == 2)
    }

    @Test func writeTagsIntoAMixedAlbumChangesOnlyTheGainTags() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-tags")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.makeAlbum(dir)
        var digests: [String: String] = [:], before: [String: [String: String]] = [:], pics: [String: Int] = [:]
        for f in files { digests[f] = try Self.audioDigest(f); before[f] = try Self.tags(f); pics[f] = try Self.pictures(f) }
        #expect(pics[files[0]] == 1 && pics[files[1]] == 1 && pics[files[4]] == 1)

        let measured = try E2E.run("lufs-measure", ["--album", dir])
        let tagged = try E2E.run("lufs-normalize", ["--album", "--write-tags", "-"], stdin: measured.stdout)
        #expect(tagged.status == 0, "\(tagged.stdout)")
        let records = Dictionary(uniqueKeysWithValues: tagged.records.map { ($0["path"]!.stringValue!, $0) })
        let albumLUFS = try #require(measured.records.first?["loudness"]?["album"]?["integrated_lufs"]?.doubleValue)
        for f in files {
            let r = try #require(records[f])
            let n = try #require(r["normalized"])
            #expect(n["rewritten"]?.boolValue == true)
            let l = try #require(r["loudness"])
            let t = try Self.tags(f)
            // Audio, other tags and pictures as they were.
            #expect(try Self.audioDigest(f) == digests[f], "\(f): the audio changed")
            #expect(t["TITLE"] == before[f]?["TITLE"] && t["ARTIST"] == before[f]?["ARTIST"] && t["ALBUM"] == "Night Drive")
            #expect(try Self.pictures(f) == pics[f])
            let trackLUFS = try #require(l["integrated_lufs"]?.doubleValue)
            if f.hasSuffix(".opus") {
                #expect(t["R128_TRACK_GAIN"] == String(Int(((-23 - trackLUFS) * 256).rounded())))
                #expect(t["R128_ALBUM_GAIN"] == String(Int(((-23 - albumLUFS) * 256).rounded())))
                #expect(t["REPLAYGAIN_TRACK_GAIN"] == nil)
                continue
            }
            #expect(t["REPLAYGAIN_TRACK_GAIN"] == String(format: "%.2f dB", -18 - trackLUFS))
            #expect(t["REPLAYGAIN_ALBUM_GAIN"] == String(format: "%.2f dB", -18 - albumLUFS))
            #expect(t["REPLAYGAIN_REFERENCE_LOUDNESS"] == "-18.00 LUFS")
            let peak = try #require(t["REPLAYGAIN_TRACK_PEAK"].flatMap(Double.init))
            let tp = pow(10, (l["true_peak_dbtp"]?.doubleValue ?? -200) / 20), sp = pow(10, (l["sample_peak_dbfs"]?.doubleValue ?? -200) / 20)
            #expect(abs(peak - max(tp, sp)) < 1e-6 && peak >= sp - 1e-6)
            #expect(try #require(t["REPLAYGAIN_ALBUM_PEAK"].flatMap(Double.init)) >= peak)
        }
        // The MP3 kept its ID3v2.3 tag.
        let head = try #require(FileHandle(forReadingAtPath: files[1])?.readData(ofLength: 4))
        #expect(Array(head) == [0x49, 0x44, 0x33, 3])
        #expect(records[files[1]]?["normalized"]?["id3_version"]?.stringValue == "2.3")

        // A second pass over the tagged album rewrites nothing.
        let times = files.map(Self.mtime)
        let again = try E2E.run("lufs-measure", ["--album", dir])
        let second = try E2E.run("lufs-normalize", ["--album", "--write-tags"], stdin: again.stdout)
        #expect(second.records.allSatisfy { $0["normalized"]?["rewritten"]?.boolValue == false })
        #expect(files.map(Self.mtime) == times)

        // --dry-run shows old and new values and writes nothing.
        let dry = try E2E.run("lufs-normalize", ["--album", "--write-tags", "--dry-run", "--target", "-16"], stdin: again.stdout)
        #expect(files.map(Self.mtime) == times)
        let flac = try #require(dry.records.first { $0["path"]?.stringValue == files[0] }?["normalized"])
        let trackLUFS = try #require(again.records.first?["loudness"]?["integrated_lufs"]?.doubleValue)
        #expect(flac["previous_tags"]?["REPLAYGAIN_TRACK_GAIN"]?.stringValue == String(format: "%.2f dB", -18 - trackLUFS))
        #expect(flac["tags"]?["REPLAYGAIN_TRACK_GAIN"]?.stringValue == String(format: "%.2f dB", -16 - trackLUFS))
        #expect(flac["dry_run"]?.boolValue == true && flac["rewritten"]?.boolValue == false)
        #expect(try Self.tags(files[0])["REPLAYGAIN_REFERENCE_LOUDNESS"] == "-18.00 LUFS")
    }

    @Test func filesThatCantBeTaggedGetAReasonAndTheBatchGoesOn() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ro = dir + "/locked.flac", ok = dir + "/open.flac", caf = dir + "/song.caf"
        try Self.track(ro, source: "sine=f=300", seconds: 4, codec: [], title: "ro")
        try Self.track(ok, source: "sine=f=400", seconds: 4, codec: [], title: "ok")
        try E2E.write(caf, rate: 48000, channels: [E2E.sine(500, dBFS: -20, seconds: 4, rate: 48000)], container: "caf", codec: "pcm_s16")
        chmod(ro, 0o444)
        let run = try E2E.run("lufs-normalize", ["--write-tags", caf, ro, ok])
        #expect(run.status == 1)
        let byPath = Dictionary(uniqueKeysWithValues: run.records.map { ($0["path"]!.stringValue!, $0) })
        #expect(byPath[ro]?["error"]?["code"]?.stringValue == "read-only")
        #expect(byPath[ro]?["error"]?["message"]?.stringValue?.contains("“locked.flac”") == true)
        #expect(byPath[caf]?["error"]?["code"]?.stringValue == "unsupported-codec")
        #expect(byPath[ok]?["normalized"]?["rewritten"]?.boolValue == true)  // measured here: a bare path
        #expect(try Self.tags(ro)["REPLAYGAIN_TRACK_GAIN"] == nil)
        let usage = try E2E.run("lufs-normalize", ["--write-tags", "--out-dir", dir, ok])
        #expect(usage.status == 2)
        let noAlbum = try E2E.run("lufs-normalize", ["--album", "--write-tags", ok])
        #expect(noAlbum.records.first?["error"]?["code"]?.stringValue == "bad-input")
    }

    @Test func aKillAtAnyMomentLeavesTheOldFileOrTheNewOne() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let original = dir + "/original.flac", f = dir + "/song.flac"
        try Self.track(original, source: "anoisesrc=c=pink:a=0.3", seconds: 40, codec: ["-ac", "2", "-c:a", "flac"], title: "Kill")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        let digest = try Self.audioDigest(original)
        var states: [String] = []
        for delayMs in [0, 5, 15, 30, 60, 120, -1] {
            try? FileManager.default.removeItem(atPath: f)
            try Self.sh(["cp", "-p", original, f])
            // Measured as the copy it is: a copy is a new inode, which a measurement of the original doesn't describe.
            let measured = try E2E.run("lufs-measure", [f]).stdout
            let p = Process()
            p.executableURL = E2E.binDir.appendingPathComponent("lufs-normalize")
            p.arguments = ["--write-tags", "-"]
            let input = Pipe()
            p.standardInput = input
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            try input.fileHandleForWriting.write(contentsOf: Data(measured.utf8))
            try input.fileHandleForWriting.close()
            if delayMs >= 0 {
                usleep(UInt32(delayMs * 1000))
                kill(p.processIdentifier, SIGKILL)
            }
            p.waitUntilExit()  // -1: the run left to finish, which must give the new file
            let now = try Data(contentsOf: URL(fileURLWithPath: f))
            states.append(now == bytes ? "old" : "new")
            if now != bytes {
                #expect(try Self.tags(f)["REPLAYGAIN_TRACK_GAIN"] != nil, "killed after \(delayMs) ms: neither the old file nor the new one")
                #expect(try Self.audioDigest(f) == digest)
                #expect(try Self.tags(f)["TITLE"] == "Kill")
            }
        }
        #expect(states.last == "new")
    }

    @Test func wavAndAiffGetID3v2FramesAndKeepTheirAudio() throws {
        guard Self.needFFmpeg() else { return }
        let dir = E2E.tempDir("album-riff")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A WAV without a RIFF INFO list (ffmpeg reads its ID3v2 chunk only then), an AIFF with a title.
        let wav = dir + "/a.wav", aiff = dir + "/b.aiff"
        try E2E.write(wav, rate: 48000, channels: [E2E.sine(300, dBFS: -20, seconds: 2, rate: 48000)])
        try Self.track(aiff, source: "sine=f=300", seconds: 2, codec: ["-write_id3v2", "1"], title: "Kept")
        let digests = try [wav, aiff].map(Self.audioDigest)
        let run = try E2E.run("lufs-normalize", ["--write-tags", "--target", "-16", wav, aiff])
        #expect(run.status == 0)
        for (k, f) in [wav, aiff].enumerated() {
            let r = try #require(run.records.first { $0["path"]?.stringValue == f }?["normalized"])
            #expect(r["tag_store"]?.stringValue == "ID3v2 TXXX frames")
            let t = try Self.tags(f)
            #expect(t["REPLAYGAIN_TRACK_GAIN"] == r["tags"]?["REPLAYGAIN_TRACK_GAIN"]?.stringValue)
            #expect(t["REPLAYGAIN_REFERENCE_LOUDNESS"] == "-16.00 LUFS")
            #expect(try Self.audioDigest(f) == digests[k])
        }
        #expect(try Self.tags(aiff)["TITLE"] == "Kept")
    }

    @Test func albumNormalisationKeepsTheTracksRelativeLevels() throws {
        let dir = E2E.tempDir("album-norm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rate = 48000
        let music = LufsNormalizeE2ETests.music(rate: rate, seconds: 6, channels: 2, seed: 9)
        // A single, an interlude 12 dB quieter, and a hot track whose peaks will need the limiter.
        try E2E.write(dir + "/1-single.wav", rate: rate, channels: LufsNormalizeE2ETests.scaled(music, 0.5))
        try E2E.write(dir + "/2-interlude.wav", rate: rate, channels: LufsNormalizeE2ETests.scaled(music, 0.125))
        // The hot track: a steady tone with one short click, so limiting its peaks leaves its loudness be.
        var hotTone = E2E.sine(220, dBFS: -12, seconds: 6, rate: rate)
        for i in [3 * rate] { for j in 0..<12 { hotTone[i + j] = 0.8 } }
        try E2E.write(dir + "/3-hot.wav", rate: rate, channels: [hotTone, hotTone])
        let out = dir + "/out"
        let measured = try E2E.run("lufs-measure", ["--album", dir])
        let norm = try E2E.run("lufs-normalize", ["--album", "--target", "-13.5", "--out-dir", out, "-"], stdin: measured.stdout)
        #expect(norm.status == 0, "\(norm.stdout)")
        let inputs = measured.records.compactMap { $0["loudness"]?["integrated_lufs"]?.doubleValue }
        let outputs = try E2E.run("lufs-measure", [out]).records.compactMap { $0["loudness"]?["integrated_lufs"]?.doubleValue }
        #expect(inputs.count == 3 && outputs.count == 3)
        for k in 1..<3 {
            #expect(abs((outputs[k] - outputs[0]) - (inputs[k] - inputs[0])) <= 0.1, "track \(k): in \(inputs), out \(outputs)")
        }
        let gains = Set(norm.records.compactMap { $0["normalized"]?["gain_db"]?.doubleValue })
        #expect(gains.count == 1)
        #expect(norm.records.allSatisfy { $0["normalized"]?["compensation_db"]?.doubleValue == 0 })
        let hot = try #require(norm.records.last?["normalized"])
        #expect(hot["limiter"]?["applied"]?.boolValue == true)
        #expect(hot["notes"]?.arrayValue?.contains { $0.stringValue?.contains("limiter reduced") == true } == true)
        #expect(norm.records[1]["normalized"]?["limiter"]?["applied"]?.boolValue == false)
        #expect((hot["true_peak_dbtp"]?.doubleValue ?? 0) <= -1)

        // --peak reduce: one lower gain for the whole album, set by its loudest peak.
        let reduced = try E2E.run("lufs-normalize", ["--album", "--target", "-13.5", "--peak", "reduce", "--out-dir", dir + "/reduced", "-"],
                                  stdin: measured.stdout)
        let reducedGains = Set(reduced.records.compactMap { $0["normalized"]?["gain_db"]?.doubleValue })
        #expect(reducedGains.count == 1)
        #expect((reducedGains.first ?? 99) < (gains.first ?? 0))
        #expect(reduced.records.allSatisfy { $0["normalized"]?["limiter"]?["applied"]?.boolValue == false })
        #expect(reduced.records.allSatisfy { ($0["normalized"]?["true_peak_dbtp"]?.doubleValue ?? 0) <= -1 })
        #expect(reduced.records.last?["normalized"]?["notes"]?.arrayValue?.contains { $0.stringValue?.contains("the album is") == true } == true)
    }
}
