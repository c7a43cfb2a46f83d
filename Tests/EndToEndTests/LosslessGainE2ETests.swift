import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// lufs-normalize --lossless-gain on MP3 and Opus made by ffmpeg: the decoded output is the
/// decoded input times the gain, sample for sample; nothing else in the file changes; mp3gain
/// undoes it; a second run adds to the first run's undo record.
@Suite(.serialized) struct LosslessGainE2ETests {
    static let ready = E2E.has("ffmpeg")

    @discardableResult
    static func tool(_ args: [String]) throws -> String {
        let r = try E2E.program("/usr/bin/env", args)
        #expect(r.status == 0, "\(args.prefix(3).joined(separator: " ")) failed: \(r.stderr)")
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Music-like material: two tones and pink noise, at about −32 LUFS with peaks near −22 dBTP.
    static func make(_ path: String, _ codec: [String], channels: Int = 2, extra: [String] = []) throws {
        try tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                  "sine=f=220:d=6,volume=0.2[a];anoisesrc=d=6:c=pink:a=0.1:seed=3[b];sine=f=1375:d=6,volume=0.08[c];[a][b][c]amix=inputs=3:normalize=0",
                  "-ac", String(channels)] + extra + codec + [path])
    }

    /// ffmpeg's decode as floats.
    static func decode(_ path: String) throws -> [Float] {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-"])
        #expect(r.status == 0 && r.stderr.isEmpty, "ffmpeg decoding \(path): \(r.stderr)")
        return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// sqrt(Σ(y − g·x)² / Σ(g·x)²).
    static func residual(_ x: [Float], _ y: [Float], gainDB: Double) -> Double {
        let g = pow(10, gainDB / 20)
        var num = 0.0, den = 0.0
        for (a, b) in zip(x, y) { let e = Double(a) * g; num += (Double(b) - e) * (Double(b) - e); den += e * e }
        return (num / den).squareRoot()
    }

    static func normalize(_ dir: String, _ file: String, _ args: [String]) throws -> JSON {
        let measured = try E2E.run("lufs-measure", [dir + "/" + file])
        let r = try E2E.run("lufs-normalize", ["--lossless-gain"] + args, stdin: measured.stdout)
        #expect(r.records.count == 1, "\(r.stderr)")
        return r.records.first ?? .null
    }

    static let mp3Kinds: [(String, [String], Int, [String])] = [
        ("cbr-stereo.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"], 2, []),
        ("vbr-stereo.mp3", ["-c:a", "libmp3lame", "-q:a", "2"], 2, []),
        ("cbr-mono.mp3", ["-c:a", "libmp3lame", "-b:a", "64k"], 1, []),
        ("mpeg2-mono.mp3", ["-c:a", "libmp3lame", "-b:a", "32k", "-ar", "22050"], 1, []),
        ("id3-xing.mp3", ["-c:a", "libmp3lame", "-q:a", "5", "-id3v2_version", "3", "-write_id3v1", "1"], 2,
         ["-metadata", "title=Lossless", "-metadata", "artist=Gain"]),
    ]

    /// A path with no measurement is measured here, weighted as lufs-measure weights it: a 5.1
    /// Opus file is in Vorbis order (L, C, R, Ls, Rs, LFE), so the gain is the target minus what
    /// lufs-measure says, to the header gain's step.
    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func aSurroundOpusWithoutARecordIsMeasuredAsLufsMeasureMeasuresIt() throws {
        let dir = E2E.tempDir("lossless-51")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s51.opus"
        try Self.make(path, ["-c:a", "libopus", "-b:a", "256k"], channels: 6)
        let measured = try E2E.run("lufs-measure", [path])
        let lufs = try #require((measured.records.first ?? .null)["loudness"]?["integrated_lufs"]?.doubleValue)
        let r = try E2E.run("lufs-normalize", ["--lossless-gain", "--dry-run", "--target", "-20", "--out-dir", dir + "/out", path])
        let gain = try #require((r.records.first ?? .null)["normalized"]?["lossless_gain"]?["gain_db"]?.doubleValue)
        #expect(abs(gain - (-20 - lufs)) <= 0.01, "gain \(gain) dB for a file lufs-measure finds at \(lufs) LUFS")
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"), arguments: 0..<5)
    func mp3GainIsExactAndTheRestKept(kind: Int) throws {
        let (name, codec, channels, extra) = Self.mp3Kinds[kind]
        let dir = E2E.tempDir("lossless-mp3")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.make(dir + "/" + name, codec, channels: channels, extra: extra)
        let rec = try Self.normalize(dir, name, ["--target", "-16", "--out-dir", dir + "/out"])
        let n = rec["normalized"]
        let steps = try #require(n?["lossless_gain"]?["steps"]?.intValue)
        #expect(steps > 0)
        let gainDB = Double(steps) * MP3GlobalGain.stepDB
        #expect(abs(n!["gain_db"]!.doubleValue! - gainDB) < 1e-4)
        #expect(abs(n!["lossless_gain"]!["residual_db"]!.doubleValue!) <= MP3GlobalGain.stepDB / 2)
        let a = try Self.decode(dir + "/" + name), b = try Self.decode(dir + "/out/" + name)
        #expect(a.count == b.count)
        #expect(Self.residual(a, b, gainDB: gainDB) <= 1e-3)
        // Every byte before the first audio frame (ID3v2, the Xing/LAME frame) is the same, and so is ID3v1.
        let src = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), out = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + name))
        if extra.isEmpty == false { #expect(src.suffix(128) == out.suffix(128)) }
        let tags = try Self.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags", "-of", "json", dir + "/out/" + name])
        if extra.isEmpty == false { #expect(tags.contains("Lossless")) }
        if E2E.has("mpg123") {
            let m = try E2E.program("/usr/bin/env", ["mpg123", "-q", "-t", dir + "/out/" + name])
            #expect(m.status == 0 && m.stderr.isEmpty, "mpg123: \(m.stderr)")
        }
    }

    @Test(.enabled(if: ready && E2E.has("mp3gain"), "needs ffmpeg and mp3gain (make test-deps installs them)"))
    func mp3gainUndoesItAndASecondRunAddsToTheUndoRecord() throws {
        let dir = E2E.tempDir("lossless-undo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.make(dir + "/a.mp3", ["-c:a", "libmp3lame", "-b:a", "160k"])
        let original = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.mp3"))
        let first = try Self.normalize(dir, "a.mp3", ["--target", "-16", "--output-template", "{dir}/{stem}.1.{ext}"])
        let s1 = try #require(first["normalized"]?["lossless_gain"]?["steps"]?.intValue)
        #expect(first["normalized"]?["mp3gain"]?["undo"]?.stringValue == String(format: "%+04d,%+04d", -s1, -s1))
        // The same steps as mp3gain -g: identical audio frames.
        try FileManager.default.copyItem(atPath: dir + "/a.mp3", toPath: dir + "/g.mp3")
        try Self.tool(["mp3gain", "-q", "-g", String(s1), dir + "/g.mp3"])
        let ours = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.1.mp3")), theirs = try Data(contentsOf: URL(fileURLWithPath: dir + "/g.mp3"))
        #expect(ours.prefix(original.count) == theirs.prefix(original.count))
        // A second run on the output reads the first run's undo record and adds to it.
        let second = try Self.normalize(dir, "a.1.mp3", ["--target", "-20", "--output-template", "{dir}/{stem}.2.{ext}"])
        let s2 = try #require(second["normalized"]?["lossless_gain"]?["steps"]?.intValue)
        #expect(second["normalized"]?["mp3gain"]?["previous_undo"]?.stringValue == String(format: "%+04d,%+04d", -s1, -s1))
        #expect(second["normalized"]?["mp3gain"]?["undo"]?.stringValue == String(format: "%+04d,%+04d", -s1 - s2, -s1 - s2))
        // mp3gain -u gives back the original audio frames.
        try Self.tool(["mp3gain", "-q", "-u", dir + "/a.1.2.mp3"])
        let undone = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.1.2.mp3"))
        #expect(undone.prefix(original.count) == original)
        #expect(try Self.decode(dir + "/a.1.2.mp3") == Self.decode(dir + "/a.mp3"))
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func opusHeaderGainIsExactAndPacketsUntouched() throws {
        let dir = E2E.tempDir("lossless-opus")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.make(dir + "/a.opus", ["-c:a", "libopus", "-b:a", "96k"], extra: ["-metadata", "R128_TRACK_GAIN=-256"])
        let rec = try Self.normalize(dir, "a.opus", ["--target", "-16", "--out-dir", dir + "/out"])
        let q = try #require(rec["normalized"]?["lossless_gain"]?["steps"]?.intValue)
        #expect(abs(rec["normalized"]!["lossless_gain"]!["residual_db"]!.doubleValue!) <= 1.0 / 512 + 1e-4)
        #expect(rec["normalized"]?["opus"]?["r128_tags"]?["R128_TRACK_GAIN"]?.intValue == -256 - q)
        let a = try Self.decode(dir + "/a.opus"), b = try Self.decode(dir + "/out/a.opus")
        #expect(a.count == b.count)
        #expect(Self.residual(a, b, gainDB: Double(q) / 256) <= 1e-3)
        let md5 = { (p: String) throws -> String in try Self.tool(["ffmpeg", "-v", "error", "-i", p, "-map", "0:a", "-c", "copy", "-f", "md5", "-"]) }
        #expect(try md5(dir + "/a.opus") == md5(dir + "/out/a.opus"))
        let tags = try Self.tool(["ffprobe", "-v", "error", "-show_entries", "stream_tags", "-of", "json", dir + "/out/a.opus"])
        #expect(tags.contains("\(-256 - q)"))
    }

    @Test(.enabled(if: ready, "needs ffmpeg (make test-deps installs it)"))
    func refusalsAndDryRun() throws {
        let dir = E2E.tempDir("lossless-refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.make(dir + "/a.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"])
        // --dry-run: the steps, and no file.
        let dry = try Self.normalize(dir, "a.mp3", ["--target", "-16", "--dry-run", "--out-dir", dir + "/out"])
        #expect(dry["normalized"]?["dry_run"]?.boolValue == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.mp3"))
        // A target the peak doesn't allow: refused, never limited.
        let loud = try Self.normalize(dir, "a.mp3", ["--target", "-3", "--out-dir", dir + "/out"])
        #expect(loud["error"]?["code"]?.stringValue == "lossy")
        #expect(loud["error"]?["suggestion"]?.stringValue?.contains("--allow-loss") == true)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.mp3"))
        // --in-place replaces the input with the changed file (its frames scaled, its undo record written).
        try FileManager.default.copyItem(atPath: dir + "/a.mp3", toPath: dir + "/c.mp3")
        let before = try Self.decode(dir + "/c.mp3")
        let placed = try Self.normalize(dir, "c.mp3", ["--target", "-16", "--in-place"])
        let steps = try #require(placed["normalized"]?["lossless_gain"]?["steps"]?.intValue)
        #expect(Self.residual(before, try Self.decode(dir + "/c.mp3"), gainDB: Double(steps) * MP3GlobalGain.stepDB) <= 1e-3)
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/c.mp3")).suffix(64), as: UTF8.self).contains("MP3GAIN_UNDO"))
        // A format with no bitstream gain (Ogg Vorbis) is refused with its reason.
        try Self.make(dir + "/b.ogg", ["-c:a", "libvorbis", "-q:a", "3"])
        let vorbis = try Self.normalize(dir, "b.ogg", ["--target", "-16", "--out-dir", dir + "/out"])
        #expect(vorbis["error"]?["code"]?.stringValue == "unsupported-codec")
        // Without --lossless-gain, an MP3 that would be re-encoded is refused as lossy, and the
        // suggestion names --lossless-gain.
        let measured = try E2E.run("lufs-measure", [dir + "/a.mp3"])
        let plain = try E2E.run("lufs-normalize", ["--target", "-16", "--out-dir", dir + "/plain"], stdin: measured.stdout)
        #expect(plain.records.first?["error"]?["suggestion"]?.stringValue?.contains("--lossless-gain") == true)
    }
}
