import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize on video deliverables: the container, every stream, its metadata and chapters
/// come back; the picture's packets are identical; each audio stream, decoded from the written
/// file, is on target under the ceiling.
@Suite(.serialized) struct LufsNormalizeMediaE2ETests {
    /// Runs a program (ffmpeg, ffprobe) and returns its stdout; records an issue if it fails.
    @discardableResult
    static func tool(_ args: [String]) throws -> String {
        let r = try E2E.program("/usr/bin/env", args)
        #expect(r.status == 0, "\(args.prefix(3).joined(separator: " ")) failed: \(r.stderr)")
        return String(decoding: r.stdout, as: UTF8.self)
    }

    static func probe(_ path: String) throws -> JSON {
        try JSON.parse(tool(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-show_chapters", "-of", "json", path]))
    }

    /// The md5 of a stream selection's packets, copied (identical packets, identical digest).
    static func packets(_ path: String, _ map: String) throws -> String {
        try tool(["ffmpeg", "-v", "error", "-i", path, "-map", map, "-c", "copy", "-f", "md5", "-"])
    }

    /// What must survive, per stream: type, codec, rate, layout, language, title, dispositions.
    static func summary(_ probe: JSON) -> [String] {
        (probe["streams"]?.arrayValue ?? []).map { s in
            let disp = (s["disposition"]?.objectValue ?? [:]).filter { $0.value.intValue == 1 }.keys.sorted().joined(separator: "+")
            let tags = s["tags"]?.objectValue ?? [:]
            return [s["codec_type"]?.stringValue, s["codec_name"]?.stringValue, s["sample_rate"]?.stringValue,
                    s["channel_layout"]?.stringValue, tags["language"]?.stringValue, tags["title"]?.stringValue,
                    tags["handler_name"]?.stringValue, disp].map { $0 ?? "-" }.joined(separator: " ")
        }
    }

    static var ready: Bool {
        guard E2E.has("ffmpeg"), E2E.has("ffprobe") else {
            Issue.record("ffmpeg and ffprobe are needed (make test-deps installs them); media normalisation was not tested.")
            return false
        }
        return true
    }

    /// A 3 s clip: small picture, music (stereo) and speech (mono) as two audio streams with
    /// languages, titles and dispositions, subtitles, two chapters and a title.
    static func clip(_ dir: String, ext: String, audio: [String], subtitles: String?) throws -> String {
        let srt = "\(dir)/s.srt", meta = "\(dir)/meta.txt", speech = "\(dir)/speech.wav"
        try "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:02,000 --> 00:00:02,800\nAgain\n".write(toFile: srt, atomically: true, encoding: .utf8)
        try ";FFMETADATA1\ntitle=Test film\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\ntitle=Two\n"
            .write(toFile: meta, atomically: true, encoding: .utf8)
        var speechInput = ["-f", "lavfi", "-i", "sine=f=220:d=3:r=22050,volume=8dB"]
        if E2E.has("espeak-ng") {
            try tool(["espeak-ng", "-w", speech, "Normalising the dialogue stream of a short test film, please."])
            speechInput = ["-i", speech]
        }
        let out = "\(dir)/clip.\(ext)"
        var args = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x54:rate=10:duration=3",
                    "-f", "lavfi", "-i", "sine=f=330:d=3:r=48000,volume=-14dB,aformat=channel_layouts=stereo"] + speechInput
        args += ["-i", srt, "-i", meta, "-map", "0:v", "-map", "1:a", "-map", "2:a"]
        if subtitles != nil { args += ["-map", "3"] }
        args += ["-map_metadata", "4", "-map_chapters", "4", "-c:v", "libx264", "-preset", "ultrafast", "-t", "3"]
        for (i, c) in audio.enumerated() { args += ["-c:a:\(i)", c] }
        if let s = subtitles { args += ["-c:s", s, "-metadata:s:s:0", "language=eng"] }
        args += ["-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Dialogue",
                 "-disposition:a:0", "default", "-disposition:a:1", "comment", out]
        try tool(args)
        return out
    }

    /// Normalises `input` and checks everything the issue promises; returns the record.
    static func normaliseAndCheck(_ input: String, dir: String, lossy: Bool, extra: [String] = []) throws -> JSON? {
        let measured = try E2E.run("lufs-measure", [input])
        #expect(measured.status == 0, "\(measured.stderr)")
        let out = "\(dir)/out"
        let run = try E2E.run("lufs-normalize", ["--preset", "social", "--out-dir", out] + extra, stdin: measured.stdout)
        guard let r = run.records.first, let n = r["normalized"] else {
            Issue.record("no normalized record: \(run.stdout) \(run.stderr)"); return nil
        }
        #expect(run.status == 0)
        let written = "\(out)/" + (input as NSString).lastPathComponent
        let before = try probe(input), after = try probe(written)
        #expect(summary(after) == summary(before))
        #expect(after["chapters"]?.arrayValue?.count == before["chapters"]?.arrayValue?.count)
        #expect(after["format"]?["tags"]?["title"] == before["format"]?["tags"]?["title"])
        #expect(try packets(written, "0:v") == packets(input, "0:v"))
        if before["streams"]?.arrayValue?.contains(where: { $0["codec_type"]?.stringValue == "subtitle" }) == true {
            #expect(try packets(written, "0:s") == packets(input, "0:s"))
        }
        // Every audio stream, decoded from the written file, on target under the ceiling.
        let check = try E2E.run("lufs-measure", [written])
        let l = check.records.first?["loudness"]
        let streams = l?["streams"]?.arrayValue ?? (l.map { [$0] } ?? [])
        #expect(streams.count == before["streams"]?.arrayValue?.filter { $0["codec_type"]?.stringValue == "audio" }.count)
        let writtenStreams = n["streams"]?.arrayValue ?? [n]
        for s in streams {
            let lufs = s["integrated_lufs"]?.doubleValue ?? 0, tp = s["true_peak_dbtp"]?.doubleValue ?? 0
            // On target within the codec's tolerance, or the record says by how much it is not, and why.
            let said = writtenStreams.first { $0["stream"]?.intValue == s["stream"]?.intValue }
            if abs(lufs - -14) > (lossy ? 0.2 : 0.1) + 0.005 {
                #expect(said?["shortfall_lu"]?.doubleValue != nil, "stream \(s["stream"]?.intValue ?? -1): \(lufs) LUFS, no shortfall_lu")
                #expect(n["notes"]?.arrayValue?.contains { $0.stringValue?.contains("than the") == true } == true)
            }
            #expect(tp <= -1, "stream \(s["stream"]?.intValue ?? -1): \(tp) dBTP")
        }
        #expect(n["integrated_lufs"] == l?["integrated_lufs"])
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasPrefix(".") } ?? []
        #expect(leftovers.isEmpty)
        return n
    }

    @Test func mp4WithTwoAACStreamsSubtitlesAndChapters() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-mp4")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: "mp4", audio: ["aac", "aac"], subtitles: "mov_text")
        // Measured per stream, languages and titles named.
        let m = try E2E.run("lufs-measure", [input]).records.first?["loudness"]
        let streams = m?["streams"]?.arrayValue ?? []
        #expect(streams.map { $0["language"]?.stringValue } == ["eng", "fra"])
        #expect(streams.map { $0["codec"]?.stringValue } == ["aac", "aac"])
        #expect(m?["integrated_lufs"] == streams.first?["integrated_lufs"])
        let one = try E2E.run("lufs-measure", ["--stream", "1", input]).records.first?["loudness"]
        #expect(one?["stream"]?.intValue == 1 && one?["integrated_lufs"] == streams.last?["integrated_lufs"])
        #expect(try E2E.run("lufs-measure", ["--stream", "2", input]).records.first?["error"]?["code"]?.stringValue == "no-audio")

        // Lossy without --allow-loss: refused, naming the codec; nothing written, nothing left running.
        let refused = try E2E.run("lufs-normalize", ["--preset", "social", "--out-dir", "\(dir)/out", input])
        let e = refused.records.first?["error"]
        #expect(e?["code"]?.stringValue == "lossy")
        #expect(e?["message"]?.stringValue?.contains("AAC") == true)
        #expect(e?["suggestion"]?.stringValue?.contains("--allow-loss") == true)
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out/clip.mp4"))
        #expect(NoHangE2ETests.leftovers(dir).isEmpty)

        let n = try Self.normaliseAndCheck(input, dir: dir, lossy: true, extra: ["--allow-loss"])
        let losses = n?["losses"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(losses.count == 2 && losses.allSatisfy { $0.contains("AAC re-encoded at") })
        #expect(n?["streams"]?.arrayValue?.count == 2)
        for (s, src) in zip(n?["streams"]?.arrayValue ?? [], streams) {
            #expect((s["bit_rate"]?.intValue ?? 0) >= (src["bit_rate"]?.intValue ?? 0))
        }
        // Again: the output exists.
        let again = try E2E.run("lufs-normalize", ["--preset", "social", "--allow-loss", "--out-dir", "\(dir)/out", input])
        #expect(again.records.first?["error"]?["code"]?.stringValue == "exists")
    }

    @Test func mkvWithOpusAndSubtitles() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-mkv")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: "mkv", audio: ["libopus", "libopus"], subtitles: "srt")
        _ = try Self.normaliseAndCheck(input, dir: dir, lossy: true, extra: ["--allow-loss"])
    }

    /// PCM in MOV and FLAC in Matroska are written back losslessly: no flag, 0.1 LU.
    @Test(arguments: [("mov", "pcm_s24le"), ("mkv", "flac")]) func losslessAudioInVideoNeedsNoFlag(ext: String, codec: String) throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-lossless")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: ext, audio: [codec, codec], subtitles: nil)
        let n = try Self.normaliseAndCheck(input, dir: dir, lossy: false)
        #expect(n?["losses"]?.arrayValue?.isEmpty == true)
        #expect(n?["encodes"]?.intValue == 1)
    }

    /// `--stream 1`: only the dialogue is touched; the music's packets are copied.
    @Test func oneStreamOnly() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-one")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: "mov", audio: ["pcm_s16le", "pcm_s16le"], subtitles: nil)
        let run = try E2E.run("lufs-normalize", ["--preset", "social", "--stream", "1", "--out-dir", "\(dir)/out", input])
        let n = run.records.first?["normalized"]
        #expect(n?["streams"]?.arrayValue?.map { $0["stream"]?.intValue } == [1], "\(run.stdout)")
        let written = "\(dir)/out/clip.mov"
        #expect(try Self.packets(written, "0:a:0") == Self.packets(input, "0:a:0"))
        #expect(try Self.packets(written, "0:a:1") != Self.packets(input, "0:a:1"))
        let l = try E2E.run("lufs-measure", ["--stream", "1", written]).records.first?["loudness"]
        #expect(abs((l?["integrated_lufs"]?.doubleValue ?? 0) + 14) <= 0.1)
        // A depth or rate the container's audio won't be given is refused, not ignored.
        let depth = try E2E.run("lufs-normalize", ["--preset", "social", "--bit-depth", "24", "--out-dir", "\(dir)/depth", input])
        #expect(depth.records.first?["error"]?["code"]?.stringValue == "unsupported-codec")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/depth/clip.mov"))
    }

    /// A measurement of the file before it changed is refused before ffmpeg writes anything.
    @Test func staleMeasurementIsRefused() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-stale")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: "mov", audio: ["pcm_s16le", "pcm_s16le"], subtitles: nil)
        let measured = try E2E.run("lufs-measure", [input]).stdout
        let h = FileHandle(forWritingAtPath: input)!
        h.seekToEndOfFile(); h.write(Data([0, 0, 0, 8, 102, 114, 101, 101])); h.closeFile()   // a trailing 'free' box
        let run = try E2E.run("lufs-normalize", ["--preset", "social", "--out-dir", "\(dir)/out"], stdin: measured)
        #expect(run.records.first?["error"]?["code"]?.stringValue == "stale-measurement")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/out/clip.mov"))
        #expect(NoHangE2ETests.leftovers(dir).isEmpty)
    }

    /// AAC in M4A stays AAC in M4A with its tags and cover; `--format m4a` and `alac` from a WAV.
    @Test func m4aKeepsTagsAndCoverAndAnyInputBecomesM4A() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-m4a")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let song = "\(dir)/song.m4a", wav = "\(dir)/take.wav"
        try Self.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=500:d=3:r=44100,volume=-12dB", "-f", "lavfi", "-i", "color=red:s=32x32:d=1",
                       "-map", "0", "-map", "1", "-frames:v", "1", "-ac", "2", "-c:a", "aac", "-b:a", "128k", "-c:v", "mjpeg", "-disposition:v", "attached_pic",
                       "-metadata", "title=Song", "-metadata", "artist=Someone", song])
        try Self.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=500:d=3:r=44100,volume=-20dB", "-ac", "2", "-c:a", "pcm_s16le",
                       "-metadata", "title=Take", wav])
        let n = try Self.normaliseAndCheck(song, dir: dir, lossy: true, extra: ["--allow-loss"])
        #expect(n?["losses"]?.arrayValue?.first?.stringValue?.hasPrefix("AAC re-encoded at 128 kb/s") == true)
        let out = try Self.probe("\(dir)/out/song.m4a")
        #expect(out["format"]?["tags"]?["artist"]?.stringValue == "Someone")

        let refused = try E2E.run("lufs-normalize", ["--preset", "social", "--format", "m4a", "--out-dir", "\(dir)/m4a", wav])
        #expect(refused.records.first?["error"]?["code"]?.stringValue == "lossy")
        for (format, codec, lossy) in [("m4a", "aac", true), ("alac", "alac", false)] {
            let run = try E2E.run("lufs-normalize", ["--preset", "social", "--format", format, "--allow-loss", "--out-dir", "\(dir)/\(format)", wav])
            #expect(run.status == 0, "\(run.stdout)")
            let written = "\(dir)/\(format)/take.m4a"
            let p = try Self.probe(written)
            #expect(p["streams"]?.arrayValue?.map { $0["codec_name"]?.stringValue } == [codec])
            #expect(p["format"]?["tags"]?["title"]?.stringValue == "Take")
            let l = try E2E.run("lufs-measure", [written]).records.first?["loudness"]
            #expect(abs((l?["integrated_lufs"]?.doubleValue ?? 0) + 14) <= (lossy ? 0.5 : 0.1))
            #expect((l?["true_peak_dbtp"]?.doubleValue ?? 0) <= -1)
        }
    }

    /// SIGTERM while ffmpeg encodes: the tool dies of it, every ffmpeg ends, no temporary file
    /// is left and nothing is put in place.
    @Test func aSignalDuringTheEncodeLeavesNothing() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = "\(dir)/long.mov"
        // Four minutes at 8 kHz under a tiny picture: cheap to make, long enough to be caught encoding.
        try Self.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=16x16:r=1:d=240",
                       "-f", "lavfi", "-i", "sine=d=240:r=8000", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "pcm_s16le", input])
        let c = try NoHangE2ETests.start("lufs-normalize", ["--preset", "social", "--peak", "reduce", "--out-dir", "\(dir)/out", input])
        // Wait for the encoder (the ffmpeg reading pipe:3), then signal the tool alone.
        var encoding = false
        for _ in 0..<6000 where !encoding {
            encoding = NoHangE2ETests.processes(mentioning: dir).contains { pid in
                let d = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
                return String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains("pipe:3")
            }
            if !encoding { usleep(5_000) }
        }
        #expect(encoding, "the encoder never started")
        NoHangE2ETests.expectStoppedCleanly(c, dir: dir)
    }

    /// Every stream's tags and dispositions, whole, for comparing input and output.
    static func everyStream(_ probe: JSON) -> [String] {
        (probe["streams"]?.arrayValue ?? []).map { s in
            let disp = (s["disposition"]?.objectValue ?? [:]).filter { $0.value.intValue == 1 }.keys.sorted().joined(separator: "+")
            let tags = (s["tags"]?.objectValue ?? [:]).filter { ["language", "title", "handler_name"].contains($0.key) }
            return "\(s["codec_type"]?.stringValue ?? "-") \(tags.keys.sorted().map { "\($0)=\(tags[$0]?.stringValue ?? "")" }.joined(separator: ",")) \(disp)"
        }
    }

    @Test(arguments: ["mp4", "mov", "mkv"]) func everyStreamKeepsItsTagsAndDispositions(ext: String) throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-tags-\(ext)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try Self.clip(dir, ext: ext, audio: ["aac", "aac"], subtitles: ext == "mkv" ? "srt" : "mov_text")
        let run = try E2E.run("lufs-normalize", ["--preset", "social", "--allow-loss", "--out-dir", "\(dir)/out", input])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let before = try Self.probe(input), after = try Self.probe("\(dir)/out/clip.\(ext)")
        #expect(Self.everyStream(after) == Self.everyStream(before))
        #expect(Self.everyStream(before).contains { $0.hasPrefix("subtitle") && $0.contains("language=eng") })
        #expect(after["format"]?["tags"]?["title"] == before["format"]?["tags"]?["title"])
        #expect(after["chapters"]?.arrayValue?.count == before["chapters"]?.arrayValue?.count)
        let n = run.records.first?["normalized"]
        let encodes = try #require(n?["encodes"]?.intValue)
        // The notes tell the story `encodes` counts: a note on the file's encodes exactly when
        // there was more than one, and every stream's entry counts the file's encodes.
        let notes = (n?["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(notes.contains { $0.hasPrefix("The file was encoded \(encodes) times in all") } == (encodes > 1), "\(notes)")
        #expect(notes.contains { $0.contains("encoded again") } == (encodes > 1), "\(notes)")
        for s in n?["streams"]?.arrayValue ?? [] {
            #expect(s["encodes"]?.intValue == encodes)
            if let c = s["codec_trial"] { #expect(c["trial_seconds"]?.doubleValue ?? 0 > 0) }
            #expect(s["encodes"]?.intValue != nil && s["passes"]?.intValue != nil)
        }
    }

    @Test func aSecondStreamIn60IsWeightedByItsPositions() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-six")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = "\(dir)/six.mkv"
        // The second stream is 6.0 (FL FR FC BC SL SR): its fourth channel is a back centre, where
        // the channel count's guess (5.1) puts an LFE that weighs nothing.
        try Self.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=d=3:s=64x48",
                       "-f", "lavfi", "-i", "sine=f=330:d=3,aformat=channel_layouts=stereo", "-f", "lavfi", "-i", "anoisesrc=d=3:a=0.1",
                       "-filter_complex", "[2]pan=6.0|FL=0.1*c0|FR=0.1*c0|FC=0.1*c0|BC=c0|SL=0.1*c0|SR=0.1*c0[s]",
                       "-map", "0", "-map", "1", "-map", "[s]", "-c:v", "mpeg4", "-c:a", "flac", "-shortest", input])
        let measured = try E2E.run("lufs-measure", [input]).records.first?["loudness"]?["streams"]?.arrayValue?.last
        #expect(measured?["layout"]?.stringValue == "L,R,C,Cb,Lss,Rss")
        // Measured here (no record) and from the record: the same source loudness, on target.
        for stdin in [nil, try E2E.run("lufs-measure", [input]).stdout] {
            let out = "\(dir)/out\(stdin == nil ? "a" : "b")"
            let run = try E2E.run("lufs-normalize", ["--preset", "ebu-r128", "--out-dir", out] + (stdin == nil ? [input] : []), stdin: stdin)
            let s = run.records.first?["normalized"]?["streams"]?.arrayValue?.last
            #expect(s?["source_integrated_lufs"] == measured?["integrated_lufs"], "\(run.stdout)")
            let check = try E2E.run("lufs-measure", ["\(out)/six.mkv"]).records.first?["loudness"]?["streams"]?.arrayValue?.last
            #expect(abs((check?["integrated_lufs"]?.doubleValue ?? 0) - -23) <= 0.1)
        }
    }

    @Test func aSignalDuringTheTrialEncodeLeavesNothing() throws {
        guard Self.ready else { return }
        let dir = E2E.tempDir("media-trial-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = "\(dir)/long.mp4", tmp = "\(dir)/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        try Self.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=blue:s=16x16:r=1:d=120",
                       "-f", "lavfi", "-i", "anoisesrc=d=120:r=48000:a=0.2", "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast",
                       "-c:a", "aac", "-b:a", "64k", "-shortest", input])
        // At 32 kb/s a channel the codec's loudness change is steered, so a trial encode runs first:
        // an ffmpeg of lufs-normalize's writing Matroska on its stdout, once it is being fed.
        // Nothing of it may land in TMPDIR, here inside the test's folder.
        let c = try ChildProcess("/usr/bin/env", ["TMPDIR=\(tmp)", E2E.binDir.appendingPathComponent("lufs-normalize").path,
                                                  "--preset", "social", "--allow-loss", "--out-dir", "\(dir)/out", input], stdout: .null)
        func trialEncoder() -> Int32? {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { Int32($0) }.first { pid in
                let stat = String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/stat") ?? Data(), as: UTF8.self)
                let parent = stat.split(separator: ")").last?.split(separator: " ").dropFirst().first.flatMap { Int32($0) }
                let d = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
                let line = String(decoding: d.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
                return parent == c.pid && line.contains("-f matroska pipe:1")
            }
        }
        var trial = false
        for _ in 0..<6000 where !trial {
            // Started before the analysis pass: wait until it has taken in some of the trial.
            if let pid = trialEncoder(), let io = FileManager.default.contents(atPath: "/proc/\(pid)/io"),
               let read = String(decoding: io, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("rchar:") })?
                   .split(separator: " ").last.flatMap({ Int($0) }), read > 1 << 20 {
                trial = true
            }
            if !trial { usleep(2_000) }
        }
        #expect(trial, "the trial encode never started")
        NoHangE2ETests.expectStoppedCleanly(c, dir: dir)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty)
    }
}
