import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A format zoo made by the encoders people use, from material made here: each file is measured
/// within 0.05 LU of ffmpeg's ebur128 (the reference), probed as ffprobe describes it, and a
/// genuinely cut copy is still refused as cut off.
@Suite struct DecodeZooE2ETests {
    static let tolerance = 0.05

    /// Runs `program` (found on PATH) and says whether it succeeded.
    @discardableResult
    static func sh(_ program: String, _ args: [String]) throws -> Bool {
        try E2E.program("/usr/bin/env", [program] + args).status == 0
    }

    /// ffmpeg's integrated loudness of `path` (its ebur128 filter, to three decimals).
    static func ffmpegLUFS(_ path: String) throws -> Double? {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostats", "-v", "error", "-i", path, "-af",
                                                 "ebur128=metadata=1,ametadata=print:key=lavfi.r128.I:file=-", "-f", "null", "-"])
        let last = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").last { $0.hasPrefix("lavfi.r128.I=") }
        return last.flatMap { Double($0.dropFirst("lavfi.r128.I=".count)) }
    }

    /// ffprobe's codec, rate, channels and duration of the first audio stream.
    static func ffprobe(_ path: String) throws -> (codec: String, rate: Int, channels: Int, seconds: Double?) {
        let r = try E2E.program("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                                 "stream=codec_name,sample_rate,channels,duration:format=duration", "-of", "json", path])
        let j = try JSON.parse(String(decoding: r.stdout, as: UTF8.self))
        let s = try #require(j["streams"]?.arrayValue?.first)
        let seconds = s["duration"]?.stringValue.flatMap(Double.init) ?? j["format"]?["duration"]?.stringValue.flatMap(Double.init)
        return (s["codec_name"]?.stringValue ?? "", Int(s["sample_rate"]?.stringValue ?? "") ?? 0, s["channels"]?.intValue ?? 0, seconds)
    }

    /// Stereo material (pink noise and a tone, 4 s at 44.1 kHz), or 5.1 (a different signal per
    /// channel, 48 kHz) when `surround`.
    static func material(_ path: String, surround: Bool = false, seconds: Int = 4) throws {
        let d = "d=\(seconds)"
        let args: [String]
        if surround {
            let inputs = ["anoisesrc=c=pink:a=0.2:\(d)", "sine=f=300:\(d)", "sine=f=500:\(d)", "anoisesrc=c=white:a=0.1:\(d)",
                          "sine=f=700:\(d)", "sine=f=60:\(d)"].flatMap { ["-f", "lavfi", "-i", $0] }
            args = inputs + ["-filter_complex", "[0][1][2][3][4][5]amerge=inputs=6", "-ar", "48000", "-c:a", "pcm_s16le", path]
        } else {
            args = ["-f", "lavfi", "-i", "anoisesrc=c=pink:a=0.2:\(d)", "-f", "lavfi", "-i", "sine=f=440:\(d)", "-filter_complex",
                    "[0][1]amerge=inputs=2,pan=stereo|c0=c0|c1=c1+0.3*c2", "-ar", "44100", "-c:a", "pcm_s16le", path]
        }
        #expect(try sh("ffmpeg", ["-v", "error", "-y"] + args), "ffmpeg couldn't make \(path)")
    }

    /// lufs-measure's record of `path`.
    static func measure(_ path: String) throws -> JSON {
        try #require(E2E.run("lufs-measure", [path]).records.first)
    }

    /// Expects `path` measured within the tolerance of `reference` (ffmpeg's reading by default),
    /// with no guessed-layout note.
    static func expectMatches(_ path: String, reference: Double? = nil, layoutFromFile: Bool = false) throws {
        let r = try measure(path)
        let ours = try #require(r["loudness"]?["integrated_lufs"]?.doubleValue, "\(path): \(r)")
        let ref = try #require(try reference ?? ffmpegLUFS(path), "ffmpeg measured nothing for \(path)")
        #expect(abs(ours - ref) <= tolerance, "\(path): \(ours) vs \(ref)")
        if layoutFromFile {
            #expect(r["loudness"]?["layout_source"]?.stringValue == "file", "\(path): \(r)")
            let notes = r["loudness"]?["notes"]?.arrayValue ?? []
            #expect(!notes.contains { $0.stringValue?.contains("guessed") == true }, "\(path): \(notes)")
        }
    }

    /// Expects audio-probe's codec, rate, channels and duration to be ffprobe's; `seconds` where
    /// ffprobe's duration is wrong (it counts an Opus stream's pre-skip as audio).
    static func expectProbeAgrees(_ path: String, decoder: String? = nil, seconds: Double? = nil) throws {
        let p = try #require(E2E.run("audio-probe", [path]).records.first?["probe"], "\(path)")
        let f = try ffprobe(path)
        #expect(p["codec"]?.stringValue == f.codec, "\(path): \(p)")
        #expect(p["sample_rate"]?.intValue == f.rate, "\(path): \(p)")
        #expect(p["channels"]?.intValue == f.channels, "\(path): \(p)")
        if let s = seconds ?? f.seconds, let ours = p["duration_seconds"]?.doubleValue {
            #expect(abs(ours - s) < 0.001 + 1.0 / Double(f.rate), "\(path): \(ours) vs \(s)")
        } else {
            Issue.record("\(path): no duration (\(p))")
        }
        if let decoder { #expect(p["decoder"]?.stringValue == decoder, "\(path): \(p)") }
    }

    static let haveFFmpeg = E2E.has("ffmpeg") && E2E.has("ffprobe")

    @Test(.enabled(if: haveFFmpeg, "needs ffmpeg and ffprobe"))
    func opusTranscodedFromVorbisByFFmpegIsDecodedInFull() throws {
        let dir = E2E.tempDir("zoo-opus")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/src.wav")
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", dir + "/src.wav", "-c:a", "libvorbis", dir + "/song.ogg"]))
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", dir + "/song.ogg", "-c:a", "libopus", dir + "/song.opus"]))
        try Self.expectMatches(dir + "/song.opus")
        try Self.expectProbeAgrees(dir + "/song.opus", decoder: "libopusfile", seconds: 4)
        let deep = try #require(E2E.run("audio-probe", ["--deep", dir + "/song.opus"]).records.first?["probe"])
        #expect(deep["deep"]?["checked"]?.boolValue == true, "\(deep)")
    }

    @Test(.enabled(if: haveFFmpeg && E2E.has("opusenc"), "needs ffmpeg and opusenc (opus-tools)"))
    func opusencStereoAndSurroundMatchFFmpeg() throws {
        let dir = E2E.tempDir("zoo-opusenc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/st.wav")
        try Self.material(dir + "/51.wav", surround: true)
        #expect(try Self.sh("opusenc", ["--quiet", dir + "/st.wav", dir + "/st.opus"]))
        #expect(try Self.sh("opusenc", ["--quiet", dir + "/51.wav", dir + "/51.opus"]))
        try Self.expectMatches(dir + "/st.opus")
        try Self.expectMatches(dir + "/51.opus", layoutFromFile: true)
        try Self.expectProbeAgrees(dir + "/51.opus", decoder: "libopusfile", seconds: 4)
        let p = try #require(E2E.run("audio-probe", [dir + "/51.opus"]).records.first?["probe"])
        #expect(p["layout"]?.stringValue == "L,C,R,Ls,Rs,LFE", "\(p)")
    }

    @Test(.enabled(if: haveFFmpeg && E2E.has("oggenc") && E2E.has("flac"), "needs ffmpeg, oggenc (vorbis-tools) and flac"))
    func surroundVorbisAndFLACAreLabelledByTheirFixedOrder() throws {
        let dir = E2E.tempDir("zoo-51")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/51.wav", surround: true)
        #expect(try Self.sh("oggenc", ["-Q", dir + "/51.wav", "-o", dir + "/51.ogg"]))
        #expect(try Self.sh("flac", ["-s", "-f", dir + "/51.wav", "-o", dir + "/51.flac"]))
        try Self.expectMatches(dir + "/51.ogg", layoutFromFile: true)
        try Self.expectMatches(dir + "/51.flac", layoutFromFile: true)
        let p = try #require(E2E.run("audio-probe", [dir + "/51.ogg"]).records.first?["probe"])
        #expect(p["layout"]?.stringValue == "L,C,R,Ls,Rs,LFE", "\(p)")
    }

    @Test(.enabled(if: haveFFmpeg && E2E.has("oggenc"), "needs ffmpeg and oggenc (vorbis-tools)"))
    func chainedVorbisIsMeasuredAsOneProgramme() throws {
        let dir = E2E.tempDir("zoo-chain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/a.wav", seconds: 4)
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=1000:d=3", "-af", "volume=-12dB",
                                       "-ac", "2", "-ar", "44100", dir + "/b.wav"]))
        #expect(try Self.sh("oggenc", ["-Q", dir + "/a.wav", "-o", dir + "/a.ogg"]))
        #expect(try Self.sh("oggenc", ["-Q", dir + "/b.wav", "-o", dir + "/b.ogg"]))
        let chain = dir + "/chain.ogg"
        let joined = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.ogg")) + Data(contentsOf: URL(fileURLWithPath: dir + "/b.ogg"))
        try joined.write(to: URL(fileURLWithPath: chain))
        // The reference: each link decoded on its own by ffmpeg, the two joined, then measured.
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", dir + "/a.ogg", "-i", dir + "/b.ogg", "-filter_complex",
                                       "[0][1]concat=n=2:v=0:a=1", "-c:a", "pcm_f32le", dir + "/ref.wav"]))
        try Self.expectMatches(chain, reference: try Self.ffmpegLUFS(dir + "/ref.wav"))
        let r = try Self.measure(chain)
        #expect(r["loudness"]?["frames"]?.intValue == 7 * 44100, "\(r)")
        let p = try #require(E2E.run("audio-probe", ["--deep", chain]).records.first?["probe"])
        #expect(p["links"]?.intValue == 2, "\(p)")
        #expect(p["frames"]?.intValue == 7 * 44100, "\(p)")
        #expect(p["deep"]?["checked"]?.boolValue == true, "\(p)")

        // A link with another channel count can't be one programme: refused, saying why.
        try Self.material(dir + "/51.wav", surround: true, seconds: 2)
        #expect(try Self.sh("oggenc", ["-Q", dir + "/51.wav", "-o", dir + "/51.ogg"]))
        let mixed = dir + "/mixed.ogg"
        try (try Data(contentsOf: URL(fileURLWithPath: dir + "/a.ogg")) + Data(contentsOf: URL(fileURLWithPath: dir + "/51.ogg")))
            .write(to: URL(fileURLWithPath: mixed))
        let e = try Self.measure(mixed)["error"]
        #expect(e?["code"]?.stringValue == "unsupported-codec", "\(String(describing: e))")
        #expect(e?["message"]?.stringValue?.contains("link 2 has 6 channels") == true, "\(String(describing: e))")
    }

    @Test(.enabled(if: haveFFmpeg && E2E.has("oggenc"), "needs ffmpeg and oggenc (vorbis-tools)"))
    func cutOggFilesAreStillCutOff() throws {
        let dir = E2E.tempDir("zoo-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/src.wav")
        #expect(try Self.sh("oggenc", ["-Q", dir + "/src.wav", "-o", dir + "/song.ogg"]))
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", dir + "/src.wav", "-c:a", "libopus", dir + "/song.opus"]))
        for name in ["song.ogg", "song.opus"] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let cut = dir + "/cut-" + name
            try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
            for tool in ["lufs-measure", "audio-probe"] {
                let r = try #require(E2E.run(tool, [cut]).records.first)
                #expect(r["error"]?["code"]?.stringValue == "truncated", "\(tool) \(name): \(r)")
            }
        }
    }

    @Test(.enabled(if: haveFFmpeg, "needs ffmpeg"))
    func opusOutputGainIsAppliedAndNoted() throws {
        let dir = E2E.tempDir("zoo-gain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/src.wav")
        let plain = dir + "/plain.opus", gained = dir + "/gained.opus"
        #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", dir + "/src.wav", "-c:a", "libopus", plain]))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain)))
        // The OpusHead packet fills the first page: its output gain (Q7.8 dB) at packet byte 16.
        let packet = 27 + Int(bytes[26])
        #expect(Array(bytes[packet..<(packet + 8)]) == Array("OpusHead".utf8))
        let gain = Int16(-6 * 256)
        bytes[packet + 16] = UInt8(truncatingIfNeeded: gain)
        bytes[packet + 17] = UInt8(truncatingIfNeeded: gain >> 8)
        Self.setOggCRC(&bytes, pageStart: 0, pageEnd: packet + bytes[27..<packet].reduce(0) { $0 + Int($1) })
        try Data(bytes).write(to: URL(fileURLWithPath: gained))
        let a = try #require(try Self.measure(plain)["loudness"]?["integrated_lufs"]?.doubleValue)
        let r = try Self.measure(gained)
        let b = try #require(r["loudness"]?["integrated_lufs"]?.doubleValue, "\(r)")
        #expect(abs((a - b) - 6) < 0.02, "\(a) vs \(b)")
        let notes = r["loudness"]?["notes"]?.arrayValue ?? []
        #expect(notes.contains { $0.stringValue?.contains("output gain of -6.00 dB") == true }, "\(notes)")
    }

    /// Files libsndfile can't read but ffmpeg can, routed by their bytes (the names here say
    /// nothing: every file is called `.bin`): each measured as ffmpeg measures it, and
    /// `audio-probe --deep` names its codec, rate, channels and length as ffprobe does.
    @Test(.enabled(if: haveFFmpeg && E2E.has("wavpack") && E2E.has("flac") && E2E.has("lame"),
                   "needs ffmpeg, wavpack, flac and lame"))
    func whatFFmpegReadsIsRoutedByItsBytes() throws {
        let dir = E2E.tempDir("zoo-route")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/src.wav"
        try Self.material(src)
        func ff(_ name: String, _ args: [String]) throws {
            #expect(try Self.sh("ffmpeg", ["-v", "error", "-y", "-i", src] + args + [dir + "/" + name]), "ffmpeg couldn't make \(name)")
        }
        // A WAV written to a pipe: its sizes say "unknown".
        let piped = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", src, "-f", "wav", "-"])
        try piped.stdout.write(to: URL(fileURLWithPath: dir + "/piped.bin"))
        try ff("ac3.bin", ["-c:a", "ac3", "-f", "ac3"])
        try ff("eac3.bin", ["-c:a", "eac3", "-f", "eac3"])
        try ff("dts.bin", ["-c:a", "dca", "-strict", "-2", "-f", "dts"])
        try ff("aac-ts.bin", ["-c:a", "aac", "-f", "mpegts"])
        try ff("mp2-ts.bin", ["-c:a", "mp2", "-f", "mpegts"])
        try ff("tta.bin", ["-c:a", "tta", "-f", "tta"])
        try ff("alac-caf.bin", ["-c:a", "alac", "-f", "caf"])
        #expect(try Self.sh("wavpack", ["-q", src, "-o", dir + "/wv.bin"]))
        #expect(try Self.sh("flac", ["-s", "-f", "--ogg", src, "-o", dir + "/ogg-flac.bin"]))
        #expect(try Self.sh("lame", ["--quiet", src, dir + "/plain.mp3"]))
        var junk = [UInt8](repeating: 0, count: 3000)
        for i in junk.indices { junk[i] = UInt8(truncatingIfNeeded: i &* 7919 &+ 13) | 0x01 }
        try (Data(junk) + Data(contentsOf: URL(fileURLWithPath: dir + "/plain.mp3"))).write(to: URL(fileURLWithPath: dir + "/junk-mp3.bin"))
        // FLAC with an ID3v1 tag appended: every frame is there.
        #expect(try Self.sh("flac", ["-s", "-f", src, "-o", dir + "/v1.flac"]))
        try (Data(contentsOf: URL(fileURLWithPath: dir + "/v1.flac")) + Data("TAG".utf8) + Data(count: 125))
            .write(to: URL(fileURLWithPath: dir + "/id3v1-flac.bin"))

        // ffprobe counts the ALAC packet's padding in CAF as audio (the material is 4 s), and
        // estimates E-AC-3's and a transport stream's length: there, what ffmpeg decodes is the length.
        func decodedSeconds(_ name: String) throws -> Double {
            let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", dir + "/" + name, "-f", "s16le", "-ac", "1", "-"])
            return Double(r.stdout.count / 2) / Double(try Self.ffprobe(dir + "/" + name).rate)
        }
        let seconds: [String: Double] = ["alac-caf.bin": 4, "eac3.bin": try decodedSeconds("eac3.bin"),
                                         "aac-ts.bin": try decodedSeconds("aac-ts.bin"), "mp2-ts.bin": try decodedSeconds("mp2-ts.bin")]
        for name in ["piped.bin", "ac3.bin", "eac3.bin", "dts.bin", "aac-ts.bin", "mp2-ts.bin", "tta.bin", "alac-caf.bin",
                     "wv.bin", "ogg-flac.bin", "junk-mp3.bin", "id3v1-flac.bin"] {
            let path = dir + "/" + name
            try Self.expectMatches(path)
            let p = try #require(E2E.run("audio-probe", ["--deep", path]).records.first?["probe"], "\(name)")
            let f = try Self.ffprobe(path)
            let codec = p["codec"]?.stringValue
            // PCM is named by its sample format without the byte order; a transport stream's codec
            // comes from its program map.
            if f.codec.hasPrefix("pcm_") { #expect(codec?.hasPrefix("pcm") == true, "\(name): \(p)") }
            else { #expect(codec == f.codec, "\(name): \(p)") }
            #expect(p["sample_rate"]?.intValue == f.rate && p["channels"]?.intValue == f.channels, "\(name): \(p)")
            let ours: Double = try #require(p["duration_seconds"]?.doubleValue, "\(name): \(p)")
            let theirs: Double = try #require(seconds[name] ?? f.seconds, "\(name)")
            let slack: Double = 0.001 + 1.0 / Double(f.rate)
            #expect(abs(ours - theirs) < slack, "\(name): \(ours) vs \(theirs)")
            #expect(p["deep"]?["checked"]?.boolValue == true, "\(name): \(p)")
        }
    }

    /// Cutting a file still loses audio, and that is still said: a cut WAV and a cut FLAC.
    @Test(.enabled(if: haveFFmpeg && E2E.has("flac"), "needs ffmpeg and flac"))
    func genuinelyCutFilesAreTruncated() throws {
        let dir = E2E.tempDir("zoo-cut2")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.material(dir + "/src.wav")
        #expect(try Self.sh("flac", ["-s", "-f", dir + "/src.wav", "-o", dir + "/src.flac"]))
        for name in ["src.wav", "src.flac"] {
            let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let cut = dir + "/cut-" + name
            try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
            for tool in ["lufs-measure", "audio-probe"] {
                let r = try #require(E2E.run(tool, [cut]).records.first)
                #expect(r["error"]?["code"]?.stringValue == "truncated", "\(tool) \(name): \(r)")
            }
        }
    }

    /// Recomputes an Ogg page's CRC (polynomial 0x04C11DB7, no reflection, the CRC field zero).
    static func setOggCRC(_ b: inout [UInt8], pageStart: Int, pageEnd: Int) {
        for i in 22..<26 { b[pageStart + i] = 0 }
        var crc: UInt32 = 0
        for i in pageStart..<pageEnd {
            crc ^= UInt32(b[i]) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for i in 0..<4 { b[pageStart + 22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
    }
}
