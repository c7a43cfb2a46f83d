import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize as a user runs it: the built tool writes files, the built lufs-measure reads them.
@Suite struct LufsNormalizeE2ETests {
    // MARK: material

    /// Music-like: a chord of harmonic tones with short noise drum hits every half second (a high crest).
    static func music(rate: Int, seconds: Double, channels: Int, seed: UInt64) -> [[Float]] {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * Double(rate)), fs = Double(rate)
        var out = [[Float]](repeating: [Float](repeating: 0, count: n), count: channels)
        var drum = 0.0, w1 = 0.0
        let decay = exp(-1 / (0.01 * fs))
        for i in 0..<n {
            let t = Double(i) / fs
            let root = [110.0, 146.8, 130.8, 98.0][(i / (rate / 2)) % 4]
            var tone = 0.0
            for h in 1...5 { tone += sin(2 * .pi * root * Double(h) * t) / Double(2 * h) }
            if i % (rate / 2) == 0 { drum = 1 }
            drum *= decay
            let w = rng.bipolar()
            let hit = drum * (w + w1)
            w1 = w
            for c in 0..<channels {
                out[c][i] = Float(0.1 * tone * (1 - 0.1 * Double(c % 3)) + 0.45 * hit)
            }
        }
        return out
    }

    static func scaled(_ x: [[Float]], _ g: Double) -> [[Float]] { x.map { $0.map { Float(Double($0) * g) } } }

    /// Speech from espeak-ng, converted with sox to `rate`; nil (with a recorded issue) without them.
    static func speech(_ path: String, rate: Int) throws -> Bool {
        guard E2E.has("espeak-ng"), E2E.has("sox") else {
            Issue.record("espeak-ng and sox are needed for the speech material (make test-deps installs them); speech was not tested.")
            return false
        }
        let raw = path + ".espeak.wav"
        let text = "Loudness normalisation brings every episode to the same level. Measure once, keep the number, and reuse it. The limiter only touches the peaks."
        var p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["espeak-ng", "-w", raw, text]
        try p.run(); p.waitUntilExit()
        p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["sox", raw, "-b", "16", "-r", "\(rate)", path]
        try p.run(); p.waitUntilExit()
        try? FileManager.default.removeItem(atPath: raw)
        return p.terminationStatus == 0
    }

    static func samples(_ path: String) throws -> [[Float]] {
        let s = try SndfileSource(path: path)
        var out = [[Float]](repeating: [], count: s.format.channelCount)
        try Decoder.forEachBlock(s) { b in for c in 0..<out.count { out[c].append(contentsOf: b.channels[c][0..<b.frames]) } }
        return out
    }

    static func loudness(_ path: String) throws -> JSON {
        let r = try E2E.run("lufs-measure", [path])
        return try #require(r.records.first?["loudness"])
    }

    static func normalized(_ r: E2E.Run, _ i: Int = 0) -> JSON? { r.records.count > i ? r.records[i]["normalized"] : nil }

    // MARK: accuracy

    @Test func everyMaterialLandsOnTargetUnderTheCeiling() throws {
        let dir = E2E.tempDir("norm-acc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inDir = dir + "/in"
        try FileManager.default.createDirectory(atPath: inDir, withIntermediateDirectories: true)
        // Music, stereo 48 kHz 24-bit: drums far above the average, so -16 LUFS needs the limiter.
        try E2E.write(inDir + "/music.wav", rate: 48_000, channels: Self.music(rate: 48_000, seconds: 4, channels: 2, seed: 1))
        // Near-silent, mono 96 kHz 24-bit: about -60 LUFS, a gain over 40 dB.
        try E2E.write(inDir + "/quiet.wav", rate: 96_000, channels: Self.scaled(Self.music(rate: 96_000, seconds: 3, channels: 1, seed: 2), 0.01))
        // Already hot, stereo 44.1 kHz 16-bit: a squared-off tone near full scale (gain down, dithered).
        let hot = (0..<(3 * 44_100)).map { Float(0.98 * tanh(5 * sin(2 * .pi * 220 * Double($0) / 44_100)) / tanh(5)) }
        try E2E.write(inDir + "/hot.wav", rate: 44_100, channels: [hot, hot.map { $0 * 0.9 }], codec: "pcm_s16")
        // Clipped 5.1 48 kHz: hard-clipped programme, inter-sample peaks over 0 dBTP.
        let clipped = Self.music(rate: 48_000, seconds: 3, channels: 6, seed: 3).map { $0.map { max(-1, min(1, $0 * 5)) } }
        try E2E.write(inDir + "/clipped51.wav", rate: 48_000, channels: clipped)
        let hasSpeech = try Self.speech(inDir + "/speech.wav", rate: 44_100)

        let target = -16.0
        let r = try E2E.run("lufs-normalize", ["--target", "\(target)", "--true-peak", "-1", "--out-dir", dir + "/out", "-j", "2", inDir])
        #expect(r.status == 0, "\(r.stderr) \(r.stdout)")
        let names = ["clipped51", "hot", "music", "quiet"] + (hasSpeech ? ["speech"] : [])
        #expect(r.records.count == names.count)
        var limitedSeen = false
        for (i, name) in names.enumerated() {
            let n = try #require(Self.normalized(r, i), "\(name): \(r.records[i])")
            let outPath = dir + "/out/\(name).wav"
            #expect(n["output"]?.stringValue == outPath)
            #expect(n["measured_here"]?.boolValue == true)
            let l = try Self.loudness(outPath)
            let lufs = try #require(l["integrated_lufs"]?.doubleValue)
            let tp = try #require(l["true_peak_dbtp"]?.doubleValue)
            let limited = n["limiter"]?["applied"]?.boolValue == true
            limitedSeen = limitedSeen || limited
            #expect(abs(lufs - target) <= (limited ? 0.3 : 0.1), "\(name): \(lufs) LUFS")
            #expect(tp <= -1, "\(name): \(tp) dBTP")
            // The record tells the truth about the file.
            #expect(abs((n["integrated_lufs"]?.doubleValue ?? 99) - lufs) <= 0.01, "\(name)")
            #expect(abs((n["true_peak_dbtp"]?.doubleValue ?? 99) - tp) <= 0.01, "\(name)")
            #expect(n["losses"]?.arrayValue?.isEmpty == true)
            // Same format, rate, channels and depth as the input.
            let a = try SndfileSource(path: inDir + "/\(name).wav"), b = try SndfileSource(path: outPath)
            #expect(a.description.formatCode == b.description.formatCode, "\(name)")
            #expect(a.format.sampleRate == b.format.sampleRate && a.format.channelCount == b.format.channelCount)
            #expect(a.format.frameCount == b.format.frameCount)
        }
        #expect(limitedSeen)
        #expect(Self.normalized(r, 1)?["dither"]?.boolValue == true)          // 16-bit output
        #expect((Self.normalized(r, 3)?["gain_db"]?.doubleValue ?? 0) > 40)   // near-silent
        #expect(Self.normalized(r, 2)?["limiter"]?["applied"]?.boolValue == true, "\(r.records[2])")
    }

    // MARK: measurement reuse and staleness

    @Test func pipelineReusesTheMeasurementAndABarePathIsMeasured() throws {
        let dir = E2E.tempDir("norm-reuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 48_000, channels: Self.scaled(Self.music(rate: 48_000, seconds: 3, channels: 2, seed: 4), 0.3))
        let m = try E2E.run("lufs-measure", [f])
        let piped = try E2E.run("lufs-normalize", ["--preset", "social", "--out-dir", dir + "/out"], stdin: m.stdout)
        #expect(piped.status == 0, "\(piped.stdout)")
        let n = try #require(Self.normalized(piped))
        #expect(n["measured_here"]?.boolValue == false)
        #expect(n["notes"]?.arrayValue?.contains { $0.stringValue?.contains("measured here") == true } == false)
        #expect(n["target_lufs"]?.doubleValue == -14 && n["ceiling_dbtp"]?.doubleValue == -1 && n["preset"]?.stringValue == "social")
        #expect(piped.records[0]["loudness"] == m.records[0]["loudness"])   // carried through untouched
        let bare = try E2E.run("lufs-normalize", ["--preset", "social", "--out-dir", dir + "/out2", f])
        let b = try #require(Self.normalized(bare))
        #expect(b["measured_here"]?.boolValue == true)
        #expect(b["notes"]?.arrayValue?.contains { $0.stringValue?.contains("measured here") == true } == true)
        #expect((b["passes"]?.intValue ?? 0) == (n["passes"]?.intValue ?? 0) + 1)
        // Same file, same target: the same result whichever way the measurement came (the record's
        // values are rounded to 0.01, so the gains may differ by that much).
        #expect(abs(b["gain_db"]!.doubleValue! - n["gain_db"]!.doubleValue!) <= 0.011)
        #expect(abs(b["integrated_lufs"]!.doubleValue! - n["integrated_lufs"]!.doubleValue!) <= 0.011)
    }

    /// The same input written twice, seconds apart, is the same file to the byte: float WAV and
    /// AIFF carry no time of writing (libsndfile's PEAK chunk would stamp one).
    @Test func outputsAreByteIdenticalWhenWrittenAgainLater() throws {
        let dir = E2E.tempDir("norm-again")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 48_000, channels: Self.scaled(Self.music(rate: 48_000, seconds: 2, channels: 2, seed: 9), 0.3))
        for (format, ext) in [("wav", "wav"), ("aiff", "aiff")] {
            var written: [Data] = []
            for run in 0..<2 {
                if run == 1 { sleep(2) }
                let out = dir + "/out\(run)-\(format)"
                let r = try E2E.run("lufs-normalize", ["--target", "-16", "--format", format, "--bit-depth", "float", "--out-dir", out, f])
                #expect(r.status == 0, "\(r.stdout)")
                written.append(try Data(contentsOf: URL(fileURLWithPath: out + "/a.\(ext)")))
            }
            #expect(written[0] == written[1], "\(format): the two writes differ")
        }
    }

    @Test func staleMeasurementIsRefused() throws {
        let dir = E2E.tempDir("norm-stale")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 44_100, channels: [E2E.sine(440, dBFS: -20, seconds: 2, rate: 44_100)])
        let m = try E2E.run("lufs-measure", [f])
        // Touched: same bytes, newer modification time.
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, f, &times, 0) == 0)
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: m.stdout)
        #expect(r.status == 1)
        #expect(r.records.first?["error"]?["code"]?.stringValue == "stale-measurement")
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("“a.wav”") == true)
        #expect(r.records.first?["error"]?["suggestion"]?.stringValue?.isEmpty == false)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.wav"))
        // Modified content: refused too.
        try E2E.write(f, rate: 44_100, channels: [E2E.sine(440, dBFS: -10, seconds: 3, rate: 44_100)])
        let r2 = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/out"], stdin: m.stdout)
        #expect(r2.records.first?["error"]?["code"]?.stringValue == "stale-measurement")
    }

    // MARK: refusals

    @Test func existingOutputsAreRefusedUnlessOverwrite() throws {
        let dir = E2E.tempDir("norm-exists")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.wav"
        try E2E.write(f, rate: 48_000, channels: [E2E.sine(997, dBFS: -30, seconds: 2, rate: 48_000)])
        let before = try Data(contentsOf: URL(fileURLWithPath: f))
        let args = ["--target", "-20", "--out-dir", dir + "/out", f]
        #expect(try E2E.run("lufs-normalize", args).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/a.wav"))
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir + "/out/a.wav"))
        let again = try E2E.run("lufs-normalize", args)
        #expect(again.status == 1)
        #expect(again.records.first?["error"]?["code"]?.stringValue == "exists")
        #expect(again.records.first?["error"]?["suggestion"]?.stringValue?.contains("--overwrite") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/a.wav")) == Data("keep me".utf8))
        let forced = try E2E.run("lufs-normalize", ["--overwrite"] + args)
        #expect(forced.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/a.wav")) == first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: f)) == before)   // the input is never written
        // No temporary files left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out") == ["a.wav"])
        // An output template that names the input itself is refused without --in-place.
        let ontoItself = try E2E.run("lufs-normalize", ["--target", "-20", "--output-template", "{dir}/{stem}.{ext}", "--overwrite", f])
        #expect(ontoItself.records.first?["error"]?["code"]?.stringValue == "exists")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f)) == before)
    }

    @Test func lossIsRefusedAndAllowLossListsIt() throws {
        let dir = E2E.tempDir("norm-loss")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/song.wav"
        let x = Self.scaled(Self.music(rate: 96_000, seconds: 2, channels: 2, seed: 5), 0.3)
        var tags = AudioTags()
        tags.title = "Night Drive"; tags.artist = "The Testers"; tags.album = "Signals"; tags.genre = "Ambient"
        let sink = try SndfileSink(path: f, formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_s24")!,
                                   sampleRate: 96_000, channelCount: 2, overwrite: true, tags: tags)
        try sink.write(AudioBlock(channels: x, frames: x[0].count))
        try sink.commit()
        let base = ["--target", "-18", "--out-dir", dir + "/out"]
        func refused(_ extra: [String], mentioning word: String) throws {
            let r = try E2E.run("lufs-normalize", base + extra + [f])
            #expect(r.status == 1, "\(extra)")
            let e = r.records.first?["error"]
            #expect(e?["code"]?.stringValue == "lossy", "\(extra): \(r.stdout)")
            #expect(e?["message"]?.stringValue?.contains(word) == true, "\(extra): \(e?["message"]?.stringValue ?? "")")
            #expect(e?["message"]?.stringValue?.contains("“song.wav”") == true)
            #expect(e?["suggestion"]?.stringValue?.contains("--allow-loss") == true)
        }
        try refused(["--bit-depth", "16"], mentioning: "16-bit")
        try refused(["--format", "ogg"], mentioning: "Ogg Vorbis")
        try refused(["--format", "aiff"], mentioning: "album, genre")
        try refused(["--sample-rate", "48000"], mentioning: "48000 Hz")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out"))

        // Default output keeps the tags.
        let kept = try E2E.run("lufs-normalize", base + [f])
        #expect(kept.status == 0)
        #expect(try SndfileSource(path: dir + "/out/song.wav").tags.album == "Signals")

        // Allowed: done, and every loss listed.
        let r = try E2E.run("lufs-normalize", base + ["--allow-loss", "--format", "aiff", "--bit-depth", "16", "--sample-rate", "48000", f])
        #expect(r.status == 0, "\(r.stdout)")
        let n = try #require(Self.normalized(r))
        let losses = n["losses"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(losses.count == 3, "\(losses)")
        #expect(losses.contains { $0.contains("16-bit") } && losses.contains { $0.contains("48000 Hz") } && losses.contains { $0.contains("album") })
        let out = try SndfileSource(path: dir + "/out/song.aiff")
        #expect(out.format.sampleRate == 48_000 && out.description.bitDepth == 16 && out.description.container == "aiff")
        #expect(out.tags.title == "Night Drive" && out.tags.album == nil)
        #expect(n["dither"]?.boolValue == true)
        let l = try Self.loudness(dir + "/out/song.aiff")
        #expect(abs(l["integrated_lufs"]!.doubleValue! - -18) <= 0.1)
        #expect(abs(n["integrated_lufs"]!.doubleValue! - l["integrated_lufs"]!.doubleValue!) <= 0.01)

        // Fewer channels than the source: MP3 holds two.
        let surround = dir + "/surround.wav"
        try E2E.write(surround, rate: 48_000, channels: Self.scaled(Self.music(rate: 48_000, seconds: 1, channels: 6, seed: 6), 0.2))
        let mp3 = try E2E.run("lufs-normalize", base + ["--format", "mp3", surround])
        #expect(mp3.records.first?["error"]?["code"]?.stringValue == "lossy")
        #expect(mp3.records.first?["error"]?["message"]?.stringValue?.contains("channels 3–6") == true)

        // --peak ignore: a usage error into fixed point named on the command line, a record error
        // when the input's own format is fixed point, fine into float.
        let bad = try E2E.run("lufs-normalize", base + ["--peak", "ignore", "--bit-depth", "24", f])
        #expect(bad.status == 2 && bad.stdout.isEmpty)
        let fixed = try E2E.run("lufs-normalize", ["--target", "-8", "--peak", "ignore", "--out-dir", dir + "/ig", f])
        #expect(fixed.records.first?["error"]?["code"]?.stringValue == "lossy")
        let float = try E2E.run("lufs-normalize", ["--target", "-8", "--peak", "ignore", "--bit-depth", "float", "--out-dir", dir + "/ig", f])
        #expect(float.status == 0, "\(float.stdout)")
        let fl = try #require(Self.normalized(float))
        #expect(fl["format"]?["codec"]?.stringValue == "pcm_f32")
        #expect(abs(fl["integrated_lufs"]!.doubleValue! - -8) <= 0.1)
    }

    @Test func outputCollisionsAreRefusedBeforeAnythingIsWritten() throws {
        let dir = E2E.tempDir("norm-coll")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for sub in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: dir + "/in/" + sub, withIntermediateDirectories: true)
            try E2E.write(dir + "/in/\(sub)/take.wav", rate: 44_100, channels: [E2E.sine(440, dBFS: -25, seconds: 1, rate: 44_100)])
        }
        let args = ["--target", "-20", "--out-dir", dir + "/out", dir + "/in/a/take.wav", dir + "/in/b/take.wav"]
        let r = try E2E.run("lufs-normalize", args)
        #expect(r.status == 1)
        #expect(r.records.map { $0["error"]?["code"]?.stringValue } == ["exists", "exists"])
        // Names the file, not the path.
        #expect(r.records.first?["error"]?["message"]?.stringValue?.contains("out/take.wav") == false)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/take.wav"))
        // Two directory arguments each keep the folders below them: here they collide too.
        let two = try E2E.run("lufs-normalize", ["--target", "-20", "--out-dir", dir + "/out", dir + "/in/a", dir + "/in/b"])
        #expect(two.records.map { $0["error"]?["code"]?.stringValue } == ["exists", "exists"])
        // One directory argument above both keeps them apart.
        let d = try E2E.run("lufs-normalize", ["--target", "-20", "--out-dir", dir + "/out", dir + "/in"])
        #expect(d.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/out/a/take.wav") && FileManager.default.fileExists(atPath: dir + "/out/b/take.wav"))
        // Bare paths on stdin: the first claims the output, the second is refused.
        let s = try E2E.run("lufs-normalize", ["--target", "-20", "--out-dir", dir + "/flat", "-j", "1"],
                            stdin: dir + "/in/a/take.wav\n" + dir + "/in/b/take.wav\n")
        #expect(s.records.map { $0["error"]?["code"]?.stringValue } == [nil, "exists"])
        // With several jobs the earlier record still wins, every time: claims are made in input order.
        for run in 0..<3 {
            let out = dir + "/flat-j\(run)"
            let j = try E2E.run("lufs-normalize", ["--target", "-20", "--out-dir", out, "-j", "2"],
                                stdin: dir + "/in/a/take.wav\n" + dir + "/in/b/take.wav\n")
            #expect(j.records.map { $0["error"]?["code"]?.stringValue } == [nil, "exists"])
            #expect(j.records.first?["normalized"]?["output"]?.stringValue == out + "/take.wav")
        }
        // --relative-to keeps them apart.
        let rel = try E2E.run("lufs-normalize", ["--target", "-20", "--out-dir", dir + "/tree", "--relative-to", dir + "/in"],
                              stdin: dir + "/in/a/take.wav\n" + dir + "/in/b/take.wav\n")
        #expect(rel.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/tree/a/take.wav") && FileManager.default.fileExists(atPath: dir + "/tree/b/take.wav"))
    }

    @Test func inPlaceReplacesOnlyThroughACompleteFile() throws {
        let dir = E2E.tempDir("norm-inplace")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/a.flac"
        try E2E.write(f, rate: 48_000, channels: Self.scaled(Self.music(rate: 48_000, seconds: 2, channels: 2, seed: 7), 0.2),
                      container: "flac", codec: "pcm_s16")
        let noOut = try E2E.run("lufs-normalize", ["--target", "-16", f])
        #expect(noOut.status == 2 && noOut.stderr.contains("--out-dir"))
        let r = try E2E.run("lufs-normalize", ["--target", "-16", "--in-place", f])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(Self.normalized(r)?["output"]?.stringValue == f)
        let l = try Self.loudness(f)
        #expect(abs(l["integrated_lufs"]!.doubleValue! - -16) <= 0.1)
        let s = try SndfileSource(path: f)
        #expect(s.description.container == "flac" && s.description.bitDepth == 16)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.flac"])
    }

    // MARK: peak modes and fades

    @Test func peakReduceReportsTheShortfall() throws {
        let dir = E2E.tempDir("norm-reduce")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let f = dir + "/drums.wav"
        try E2E.write(f, rate: 44_100, channels: Self.music(rate: 44_100, seconds: 3, channels: 2, seed: 8))
        let r = try E2E.run("lufs-normalize", ["--target", "-9", "--peak", "reduce", "--out-dir", dir + "/out", f])
        #expect(r.status == 0, "\(r.stdout)")
        let n = try #require(Self.normalized(r))
        let shortfall = try #require(n["shortfall_lu"]?.doubleValue)
        #expect(shortfall > 0.5)
        #expect(n["limiter"]?["frames"]?.intValue == 0)
        #expect(n["notes"]?.arrayValue?.contains { $0.stringValue?.contains("under the -9 LUFS target") == true } == true)
        let l = try Self.loudness(dir + "/out/drums.wav")
        #expect(l["true_peak_dbtp"]!.doubleValue! <= -1)
        #expect(abs(l["integrated_lufs"]!.doubleValue! - (-9 - shortfall)) <= 0.02)
    }

    @Test func fadesFollowTheCurveAtKnownFrames() throws {
        let dir = E2E.tempDir("norm-fade")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Constant amplitude: +a, +a, −a, −a, ... (a tone at a quarter of the rate).
        let rate = 48_000, a: Float = 0.05
        let x = (0..<(4 * rate)).map { ($0 / 2) % 2 == 0 ? a : -a }
        let f = dir + "/tone.wav"
        try E2E.write(f, rate: rate, channels: [x], codec: "pcm_f32")
        for (curve, v) in [("linear", 0.0), ("exponential", 3.0)] {
            var args = ["--target", "-30", "--fade-in", "0.5", "--fade-out", "1", "--fade-curve", curve,
                        "--out-dir", dir + "/" + curve, f]
            if v > 0 { args += ["--fade-velocity", "\(v)"] }
            let r = try E2E.run("lufs-normalize", args)
            #expect(r.status == 0, "\(r.stdout)")
            let y = try Self.samples(dir + "/\(curve)/tone.wav")[0]
            #expect(y.count == x.count)
            let fc = FadeCurve(velocity: v)
            let g = Double(abs(y[2 * rate] / x[2 * rate]))      // the gain away from the fades
            let inFrames = rate / 2, outFrames = rate
            for k in [0, inFrames / 4, inFrames / 2, 3 * inFrames / 4, inFrames - 1] {
                #expect(abs(Double(abs(y[k])) - g * Double(a) * fc.fadeIn(Double(k) / Double(inFrames))) < 1e-6, "\(curve) in \(k)")
            }
            for k in [0, outFrames / 4, outFrames / 2, outFrames - 1] {
                let i = x.count - 1 - k
                #expect(abs(Double(abs(y[i])) - g * Double(a) * fc.fadeIn(Double(k) / Double(outFrames))) < 1e-6, "\(curve) out \(k)")
            }
            #expect(y[inFrames + 10] == x[inFrames + 10] * Float(g) || abs(Double(y[inFrames + 10]) - Double(x[inFrames + 10]) * g) < 1e-7)
            // Fades are counted: the faded file still measures on target.
            let n = try #require(Self.normalized(r))
            #expect(abs(n["integrated_lufs"]!.doubleValue! - -30) <= 0.1)
        }
    }

    @Test func helpAndUsageErrors() throws {
        let help = try E2E.run("lufs-normalize", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("--peak") && help.stdout.contains("--out-dir"))
        for bad in [["--out-dir", "o", "x.wav"], ["--target", "-16", "x.wav"], ["--preset", "loud", "--out-dir", "o", "x.wav"],
                    ["--target", "-16", "--in-place", "--out-dir", "o", "x.wav"], ["--target", "-16", "--out-dir", "o", "--bit-depth", "12", "x.wav"],
                    ["--target", "-16", "--out-dir", "o", "--fade-curve", "linear", "--fade-velocity", "2", "x.wav"]] {
            let r = try E2E.run("lufs-normalize", bad)
            #expect(r.status == 2, "\(bad)")
            #expect(r.stdout.isEmpty && r.stderr.contains("lufs-normalize: error:"))
        }
    }
}
