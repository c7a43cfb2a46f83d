import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Small files built in code: tagged WAVs, MP4 box trees with patched sample entries, and hostile
/// box structures. library-filter's tests use them too.
enum AudioProbeE2EFixture {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
    static func fourcc(_ s: String) -> [UInt8] { s.unicodeScalars.map { UInt8($0.value & 0xFF) } }

    static func box(_ type: String, _ payload: [UInt8] = []) -> [UInt8] { be32(UInt32(8 + payload.count)) + fourcc(type) + payload }
    static func fullBox(_ type: String, _ payload: [UInt8] = []) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", fourcc(major) + [0, 0, 0, 0] + compatible.flatMap(fourcc))
    }

    static func audioEntry(_ type: String, children: [UInt8]) -> [UInt8] {
        let body = [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 8)
            + be16(2) + be16(16) + be16(0) + be16(0) + be32(44100 << 16)
        return box(type, body + children)
    }

    static func videoEntry(_ type: String) -> [UInt8] {
        box(type, [UInt8](repeating: 0, count: 6) + be16(1) + [UInt8](repeating: 0, count: 70))
    }

    static func esds() -> [UInt8] {
        let dsi: [UInt8] = [5, 2, 0x12, 0x10]
        let dcd: [UInt8] = [4, UInt8(13 + dsi.count), 0x40, 0x15] + [UInt8](repeating: 0, count: 11) + dsi
        return fullBox("esds", [3, UInt8(3 + dcd.count), 0, 1, 0] + dcd)
    }

    static func sinf(original: String, scheme: String) -> [UInt8] {
        box("sinf", box("frma", fourcc(original)) + fullBox("schm", fourcc(scheme) + be32(0x10000)) + box("schi"))
    }

    static func trak(handler: String, entry: [UInt8]) -> [UInt8] {
        let stsd = fullBox("stsd", be32(1) + entry)
        let hdlr = fullBox("hdlr", be32(0) + fourcc(handler) + [UInt8](repeating: 0, count: 13))
        let mdhd = fullBox("mdhd", be32(0) + be32(0) + be32(44100) + be32(441000) + be32(0))
        return box("trak", box("mdia", mdhd + hdlr + box("minf", box("stbl", stsd))))
    }

    static func ilst(title: String, artist: String) -> [UInt8] {
        func item(_ type: String, _ text: String) -> [UInt8] { box(type, box("data", be32(1) + be32(0) + Array(text.utf8))) }
        let hdlr = fullBox("hdlr", be32(0) + fourcc("mdir") + fourcc("appl") + [UInt8](repeating: 0, count: 9))
        return box("udta", fullBox("meta", hdlr + box("ilst", item("\u{A9}nam", title) + item("\u{A9}ART", artist))))
    }

    /// An MP4 with one track whose sample entry is `entry`, optional tags and some media bytes.
    static func mp4(brand: String, compatible: [String] = ["isom"], tracks: [[UInt8]], tags: [UInt8] = []) -> Data {
        let mvhd = fullBox("mvhd", be32(0) + be32(0) + be32(1000) + be32(10000) + [UInt8](repeating: 0, count: 80))
        return Data(ftyp(brand, compatible) + box("moov", mvhd + tracks.joined() + tags) + box("mdat", [UInt8](repeating: 0x21, count: 64)))
    }

    /// FairPlay: a `drms` sample entry whose sinf says frma mp4a, schm itun.
    static var fairPlayM4P: Data {
        mp4(brand: "M4P ", compatible: ["M4P ", "mp42"],
            tracks: [trak(handler: "soun", entry: audioEntry("drms", children: esds() + sinf(original: "mp4a", scheme: "itun")))],
            tags: ilst(title: "Bought Song", artist: "Store Artist"))
    }

    static var cencMP4: Data {
        mp4(brand: "mp42", tracks: [trak(handler: "soun", entry: audioEntry("enca", children: esds() + sinf(original: "mp4a", scheme: "cenc")))])
    }

    static var audibleAAX: Data {
        mp4(brand: "aax ", compatible: ["aax ", "M4B "], tracks: [trak(handler: "soun", entry: audioEntry("mp4a", children: esds()))])
    }

    static var silentMOV: Data {
        mp4(brand: "qt  ", compatible: ["qt  "], tracks: [trak(handler: "vide", entry: videoEntry("avc1"))])
    }

    /// A PCM WAV with a LIST/INFO chunk of tags.
    static func taggedWAV(rate: Int, channels: Int, seconds: Double, freq: Double, tags: [String: String]) -> Data {
        let frames = Int(seconds * Double(rate))
        var pcm: [UInt8] = []
        pcm.reserveCapacity(frames * channels * 2)
        for i in 0..<frames {
            let v = Int(8000 * sin(2 * Double.pi * freq * Double(i) / Double(rate)))
            for _ in 0..<channels { pcm += le16(v & 0xFFFF) }
        }
        var info = fourcc("INFO")
        for key in tags.keys.sorted() {
            var text = Array(tags[key]!.utf8) + [0]
            if text.count % 2 == 1 { text.append(0) }
            info += fourcc(key) + le32(text.count) + text
        }
        let fmt = fourcc("fmt ") + le32(16) + le16(1) + le16(channels) + le32(rate) + le32(rate * channels * 2) + le16(channels * 2) + le16(16)
        let list = fourcc("LIST") + le32(info.count) + info
        let data = fourcc("data") + le32(pcm.count) + pcm
        let body = fourcc("WAVE") + fmt + list + data
        return Data(fourcc("RIFF") + le32(body.count) + body)
    }

    static func write(_ data: Data, _ path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }

    /// Runs ffmpeg quietly; false when it failed.
    @discardableResult
    static func ffmpeg(_ args: [String]) throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-y"] + args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// PATH without any folder holding ffmpeg, for the tests of a machine that lacks it.
    static var environmentWithoutFFmpeg: [String: String] {
        var env = ProcessInfo.processInfo.environment
        let dirs = (env["PATH"] ?? "/usr/bin:/bin").split(separator: ":").filter {
            !FileManager.default.isExecutableFile(atPath: "\($0)/ffmpeg") && !FileManager.default.isExecutableFile(atPath: "\($0)/ffprobe")
        }
        env["PATH"] = dirs.joined(separator: ":")
        return env
    }
}

@Suite struct AudioProbeE2ETests {
    typealias F = AudioProbeE2EFixture

    static func probe(_ args: [String], environment: [String: String]? = nil) throws -> (E2E.Run, [String: JSON]) {
        let r = try E2E.run("audio-probe", ["-j", "2"] + args, environment: environment)
        var byName: [String: JSON] = [:]
        for rec in r.records {
            if let p = rec["path"]?.stringValue { byName[String(p.split(separator: "/").last!)] = rec }
        }
        return (r, byName)
    }

    @Test func helpAndUsage() throws {
        let help = try E2E.run("audio-probe", ["--help"])
        #expect(help.status == 0 && help.stdout.contains("--deep") && help.stdout.contains("EXIT STATUS"))
        let bad = try E2E.run("audio-probe", ["--deep=yes", "x.wav"])
        #expect(bad.status == 2 && bad.stdout.isEmpty && bad.stderr.contains("audio-probe: error:"))
    }

    @Test func wavFactsAreExactAndTheIdFollowsTheAudio() throws {
        let dir = E2E.tempDir("probe-wav")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -12, seconds: 1.5, rate: 48000)
        try E2E.write(dir + "/a.wav", rate: 48000, channels: [s, s], codec: "pcm_s16")
        // The FLAC gets exactly the WAV's samples, as a lossless re-encode would.
        let wav = try SndfileSource(path: dir + "/a.wav")
        var block = AudioBlock(channelCount: 2, capacity: 72000)
        _ = try wav.read(into: &block, maxFrames: 72000)
        try E2E.write(dir + "/a-copy.flac", rate: 48000, channels: block.channels, container: "flac", codec: "pcm_s16")
        try F.write(F.taggedWAV(rate: 22050, channels: 1, seconds: 1, freq: 300,
                                tags: ["INAM": "Clair", "IART": "Debussy", "IPRD": "Suite", "IGNR": "Classical", "ICRD": "1905", "ITRK": "3"]),
                    dir + "/tagged.wav")
        let (r, recs) = try Self.probe([dir])
        #expect(r.status == 0, "\(r.stdout)")
        let p = try #require(recs["a.wav"]?["probe"])
        #expect(p["container"] == .string("wav"))
        #expect(p["codec"] == .string("pcm_s16"))
        #expect(p["bit_depth"]?.intValue == 16)
        #expect(p["sample_rate"]?.intValue == 48000)
        #expect(p["channels"]?.intValue == 2)
        #expect(p["layout"] == .string("stereo"))
        #expect(p["frames"]?.intValue == 72000)
        #expect(p["duration"] == .object(["frames": .int(72000), "rate": .int(48000)]))
        #expect(p["duration_seconds"]?.doubleValue == 1.5)
        #expect(p["has_audio"] == .bool(true) && p["has_video"] == .bool(false))
        #expect(p["protection"] == .null)
        #expect(p["decoder"] == .string("libsndfile"))
        #expect(p["size_bytes"]?.intValue == Int(try FileIdentity.of(dir + "/a.wav").sizeBytes))
        let id = try #require(p["content_id"]?.stringValue)
        #expect(id.count == 24 && id.allSatisfy(\.isHexDigit))
        // The same audio losslessly in FLAC has the same id; other audio doesn't.
        #expect(recs["a-copy.flac"]?["probe"]?["content_id"]?.stringValue == id)
        #expect(recs["a-copy.flac"]?["probe"]?["codec"] == .string("flac"))
        let t = try #require(recs["tagged.wav"]?["probe"])
        #expect(t["content_id"]?.stringValue != id)
        #expect(t["tags"] == .object(["title": .string("Clair"), "artist": .string("Debussy"), "album": .string("Suite"),
                                      "genre": .string("Classical"), "year": .string("1905"), "track": .string("3")]))
        #expect(t["layout"] == .string("mono") && t["frames"]?.intValue == 22050)
    }

    @Test func protectedAndSilentContainersAreRefusedWithTheirFactsKept() throws {
        let dir = E2E.tempDir("probe-drm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try F.write(F.fairPlayM4P, dir + "/bought.m4p")
        try F.write(F.cencMP4, dir + "/stream.mp4")
        try F.write(F.audibleAAX, dir + "/book.aax")
        try F.write(F.silentMOV, dir + "/holiday.mov")
        try F.write(Data("these are my notes, not audio\n".utf8), dir + "/notes.mp3")
        _ = FileManager.default.createFile(atPath: dir + "/Song.m4a", contents: Data())
        _ = FileManager.default.createFile(atPath: dir + "/.Later.m4a.icloud", contents: Data("bplist00".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/.hidden.wav", contents: Data("x".utf8))
        let (r, recs) = try Self.probe([dir])
        #expect(r.status == 1)
        #expect(recs[".hidden.wav"] == nil, "other hidden files are not walked")
        func error(_ name: String) -> JSON? { recs[name]?["error"] }

        let fp = try #require(recs["bought.m4p"])
        #expect(fp["error"]?["code"] == .string("protected"))
        #expect(fp["error"]?["message"] == .string("“bought.m4p” is protected by the store it came from and can't be exported."))
        #expect(fp["error"]?["suggestion"]?.stringValue?.contains("music you own or imported") == true)
        #expect(fp["probe"]?["protection"] == .object(["scheme": .string("itun"), "original_codec": .string("aac")]))
        #expect(fp["probe"]?["container"] == .string("m4p"))
        #expect(fp["probe"]?["codec"] == .string("aac"))
        #expect(fp["probe"]?["decoder"] == .null)
        #expect(fp["probe"]?["tags"]?["title"] == .string("Bought Song"))
        #expect(fp["probe"]?["tags"]?["artist"] == .string("Store Artist"))

        #expect(error("stream.mp4")?["code"] == .string("protected"))
        #expect(recs["stream.mp4"]?["probe"]?["protection"]?["scheme"] == .string("cenc"))
        #expect(error("book.aax")?["code"] == .string("protected"))
        #expect(recs["book.aax"]?["probe"]?["protection"]?["scheme"] == .string("audible"))
        #expect(error("book.aax")?["message"]?.stringValue?.contains("Audible") == true)

        #expect(error("holiday.mov")?["code"] == .string("no-audio"))
        #expect(error("holiday.mov")?["message"] == .string("“holiday.mov” doesn't contain any audio."))
        #expect(error("holiday.mov")?["suggestion"] == .string("Pick a music or voice file — a video file won't work here."))
        #expect(recs["holiday.mov"]?["probe"]?["has_video"] == .bool(true))
        #expect(recs["holiday.mov"]?["probe"]?["has_audio"] == .bool(false))

        #expect(error("notes.mp3")?["code"] == .string("unrecognised"))
        #expect(recs["notes.mp3"]?["probe"]?["container"] == .string("text"))
        // Zero bytes is empty, whatever the name: cloud-only needs evidence (the .icloud stub).
        #expect(error("Song.m4a")?["code"] == .string("empty"))
        #expect(error(".Later.m4a.icloud")?["code"] == .string("cloud-only"))
        #expect(error(".Later.m4a.icloud")?["message"]?.stringValue?.contains("“Later.m4a”") == true)
        for rec in r.records {
            #expect(rec["schema"]?.intValue == 1)
            #expect(error(String(rec["path"]!.stringValue!.split(separator: "/").last!))?["tool"] == .string("audio-probe"))
        }
    }

    @Test func cutOffFilesAreTruncatedAndDeepFindsDamageInBetween() throws {
        let dir = E2E.tempDir("probe-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = E2E.sine(440, dBFS: -12, seconds: 12, rate: 44100)
        try E2E.write(dir + "/full.wav", rate: 44100, channels: [s], codec: "pcm_s16")
        try E2E.write(dir + "/full.flac", rate: 44100, channels: [s], container: "flac", codec: "pcm_s16")
        let wav = try Data(contentsOf: URL(fileURLWithPath: dir + "/full.wav"))
        try wav.prefix(wav.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.wav"))
        let flac = try Data(contentsOf: URL(fileURLWithPath: dir + "/full.flac"))
        try flac.prefix(flac.count * 2 / 3).write(to: URL(fileURLWithPath: dir + "/cut.flac"))
        // Damage in the middle only: the first and last seconds still decode.
        var mid = [UInt8](flac)
        for i in mid.count / 2..<(mid.count / 2 + 4000) { mid[i] = mid[i] &* 7 &+ 13 }
        try Data(mid).write(to: URL(fileURLWithPath: dir + "/mid.flac"))

        let (quick, q) = try Self.probe([dir])
        #expect(quick.status == 1)
        #expect(q["full.wav"]?["error"] == nil && q["full.flac"]?["error"] == nil)
        #expect(q["cut.wav"]?["error"]?["code"] == .string("truncated"))
        #expect(q["cut.flac"]?["error"]?["code"] == .string("truncated"))
        #expect(q["cut.flac"]?["probe"]?["container"] == .string("flac"), "facts stay in a refused record")
        #expect(q["mid.flac"]?["error"] == nil, "without --deep only the ends are decoded")

        let (deep, d) = try Self.probe(["--deep", dir + "/mid.flac", dir + "/full.flac"])
        #expect(deep.status == 1)
        let bad = try #require(d["mid.flac"])
        #expect(bad["error"] != nil)
        let at = try #require(bad["probe"]?["deep"]?["first_bad_frame"]?.intValue)
        #expect(at > 44100 && at < 12 * 44100 - 44100, "damage is reported in the middle: \(at)")
        #expect(d["full.flac"]?["probe"]?["deep"]?["checked"] == .bool(true))
        #expect(d["full.flac"]?["probe"]?["content_id"] == q["full.flac"]?["probe"]?["content_id"], "--deep gives the same id")
    }

    @Test func hostileBoxStructuresAreRefusedNotCrashed() throws {
        let dir = E2E.tempDir("probe-hostile")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ftyp = F.ftyp("M4A ", ["M4A ", "mp42"])
        // A box claiming 4 GiB in a small file; a 64-bit size near 2^64; a zero-size box inside moov
        // (no track survives it: no-audio is a right answer too); `wave` boxes nested 2,000 deep in a
        // sample entry; a size smaller than a box header (no way forward).
        try F.write(Data(ftyp + F.be32(0xFFFF_FFF0) + F.fourcc("moov") + [UInt8](repeating: 0, count: 64)), dir + "/overflow.m4a")
        try F.write(Data(ftyp + F.be32(1) + F.fourcc("moov") + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF8] + [UInt8](repeating: 0, count: 32)), dir + "/huge64.m4a")
        try F.write(Data(ftyp + F.box("moov", F.be32(0) + F.fourcc("trak") + [UInt8](repeating: 0, count: 24))), dir + "/zero.m4a")
        var nested: [UInt8] = []
        for _ in 0..<2000 { nested = F.box("wave", nested) }
        try F.write(Data(ftyp + F.box("moov", F.trak(handler: "soun", entry: F.audioEntry("mp4a", children: nested)))), dir + "/nested.m4a")
        try F.write(Data(ftyp + F.be32(4) + F.fourcc("moov") + [UInt8](repeating: 0, count: 40)), dir + "/tiny.m4a")
        let (r, recs) = try Self.probe([dir])
        #expect(r.status == 1)
        #expect(recs.count == 5)
        for (name, rec) in recs {
            let code = rec["error"]?["code"]?.stringValue
            let allowed = name == "zero.m4a" ? ["malformed", "truncated", "no-audio"] : ["malformed", "truncated", "unrecognised"]
            #expect(allowed.contains(code ?? "ok"), "\(name): \(code ?? "usable")")
            #expect(rec["error"]?["message"]?.stringValue?.contains("“\(name)”") == true)
        }
    }

    @Test(.enabled(if: E2E.has("ffmpeg"), "needs ffmpeg to make the fixtures (make test-deps installs it)"))
    func commonFormatsWithTagsAndTheFFmpegDecoder() throws {
        let dir = E2E.tempDir("probe-ff")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tags = ["-metadata", "title=Song T", "-metadata", "artist=Artist A", "-metadata", "album=Album B",
                    "-metadata", "genre=Jazz", "-metadata", "date=2019", "-metadata", "track=4"]
        let src = ["-f", "lavfi", "-i", "sine=f=440:d=2:sample_rate=44100", "-ac", "2"]
        try F.ffmpeg(src + tags + [dir + "/s.mp3"])
        try F.ffmpeg(src + tags + [dir + "/s.flac"])
        try F.ffmpeg(src + tags + ["-c:a", "libvorbis", dir + "/s.ogg"])
        try F.ffmpeg(src + tags + ["-c:a", "aac", dir + "/aac.m4a"])
        try F.ffmpeg(src + tags + ["-c:a", "alac", dir + "/alac.m4a"])
        try F.ffmpeg(src + ["-c:a", "wmav2", dir + "/s.wma"])
        try F.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=64x48", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "mpeg4", "-c:a", "aac",
                      "-shortest", dir + "/clip.mov"])
        try F.ffmpeg(["-f", "lavfi", "-i", "testsrc=d=1:s=64x48", "-c:v", "mpeg4", dir + "/silent.mov"])
        let (r, recs) = try Self.probe([dir])
        #expect(recs.count == 8)
        let expected: [(String, String, String, String)] = [
            ("s.mp3", "mp3", "mp3", "libsndfile"), ("s.flac", "flac", "flac", "libsndfile"), ("s.ogg", "ogg", "vorbis", "libsndfile"),
            ("aac.m4a", "m4a", "aac", "ffmpeg"), ("alac.m4a", "m4a", "alac", "ffmpeg"),
        ]
        for (name, container, codec, decoder) in expected {
            let rec = try #require(recs[name])
            #expect(rec["error"] == nil, "\(name): \(rec)")
            let p = try #require(rec["probe"])
            #expect(p["container"] == .string(container), "\(name)")
            #expect(p["codec"] == .string(codec), "\(name)")
            #expect(p["decoder"] == .string(decoder), "\(name)")
            #expect(p["sample_rate"]?.intValue == 44100 && p["channels"]?.intValue == 2, "\(name)")
            let frames = try #require(p["frames"]?.intValue)
            #expect(abs(frames - 88200) < 3000, "\(name): \(frames)")
            #expect(p["duration_seconds"] == .double(Double(frames) / 44100, decimals: 6))
            #expect(p["tags"]?["title"] == .string("Song T"), "\(name)")
            #expect(p["tags"]?["artist"] == .string("Artist A"), "\(name)")
            #expect(p["tags"]?["album"] == .string("Album B"), "\(name)")
            #expect(p["tags"]?["genre"] == .string("Jazz"), "\(name)")
            #expect(p["tags"]?["year"]?.stringValue?.hasPrefix("2019") == true, "\(name)")
            #expect(p["content_id"]?.stringValue?.count == 24)
        }
        #expect(recs["alac.m4a"]?["probe"]?["bit_depth"]?.intValue == 16)
        #expect(recs["alac.m4a"]?["probe"]?["content_id"] == recs["s.flac"]?["probe"]?["content_id"], "lossless copies share an id")
        #expect(recs["s.wma"]?["error"] == nil && recs["s.wma"]?["probe"]?["decoder"] == .string("ffmpeg"))
        let clip = try #require(recs["clip.mov"])
        #expect(clip["error"] == nil, "a video with sound is usable: \(clip)")
        #expect(clip["probe"]?["has_video"] == .bool(true) && clip["probe"]?["has_audio"] == .bool(true))
        #expect(recs["silent.mov"]?["error"]?["code"] == .string("no-audio"))
        #expect(r.status == 1)

        // The same files on a machine without ffmpeg: MP4 and WMA audio need it, and say so.
        let (without, w) = try Self.probe([dir], environment: F.environmentWithoutFFmpeg)
        #expect(without.status == 1)
        for name in ["aac.m4a", "alac.m4a", "s.wma", "clip.mov"] {
            let rec = try #require(w[name])
            #expect(rec["error"]?["code"] == .string("unsupported-codec"), "\(name): \(rec)")
            #expect(rec["error"]?["suggestion"]?.stringValue?.contains("Install ffmpeg") == true, "\(name)")
            #expect(rec["probe"]?["decoder"] == .null, "\(name)")
        }
        #expect(w["aac.m4a"]?["probe"]?["codec"] == .string("aac"))
        #expect(w["alac.m4a"]?["probe"]?["codec"] == .string("alac"))
        #expect(w["aac.m4a"]?["probe"]?["tags"]?["title"] == .string("Song T"))
        for name in ["s.mp3", "s.flac", "s.ogg"] { #expect(w[name]?["error"] == nil, "\(name) needs no ffmpeg") }
    }
}
