import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The encoders the zoo lacked (issue 43): twolame, speexenc, sndfile-convert, sox's encodings and
/// ffmpeg's other containers. Each file is measured within 0.05 LU and 0.3 dB true peak of
/// ffmpeg's ebur128, or of a reference made from the same audio where ffmpeg can't read the
/// file (or reads it differently from the encoder's own decoder), or is refused with a code and
/// a sentence. Refusals of files ffmpeg decodes cleanly are known issues, named as such.
@Suite struct DecodeEncodersE2ETests {
    static let haveFFmpeg = DecodeLengthsE2ETests.haveFFmpeg

    /// 5 s of stereo material at 44.1 kHz (pink noise and a tone, the tone louder on the right),
    /// or at `rate` in mono, written to `name` in `dir`.
    static func source(_ dir: String, _ name: String = "src.wav", rate: Int = 44100, mono: Bool = false) throws {
        let pan = mono ? "pan=mono|c0=0.7*c0+0.3*c1" : "pan=stereo|c0=c0|c1=c1+0.3*c0"
        try DecodeLengthsE2ETests.sh(dir, "ffmpeg -v error -y -f lavfi -i anoisesrc=c=pink:a=0.2:d=5:r=\(rate):seed=43"
            + " -f lavfi -i sine=f=440:d=5:r=\(rate) -filter_complex '[0][1]amerge=inputs=2,\(pan)' -c:a pcm_s16le \(name)")
    }

    /// lufs-measure's reading of `path`, or its refusal's code when it gives no reading.
    static func ours(_ path: String) throws -> (lufs: Double, peak: Double)? {
        let r = try #require(E2E.run("lufs-measure", [path]).records.first, "\(path)")
        if let e = r["error"] {
            #expect(e["code"]?.stringValue?.isEmpty == false && (e["message"]?.stringValue?.count ?? 0) > 10, "\(path): \(r)")
            return nil
        }
        let l = r["loudness"]
        let lufs = try #require(l?["integrated_lufs"]?.doubleValue, "\(path): \(r)")
        let peak = try #require(l?["true_peak_dbtp"]?.doubleValue, "\(path): \(r)")
        return (lufs, peak)
    }

    /// Expects `path` measured within 0.05 LU and 0.3 dB true peak of ffmpeg's reading of
    /// `reference` (the file itself by default).
    static func expectAsFFmpeg(_ path: String, reference: String? = nil) throws {
        let ref = try DecodeLengthsE2ETests.ffmpegReading(reference ?? path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let m = try ours(path) else {
            Issue.record("\(name) was refused; ffmpeg reads \(ref.lufs) LUFS, \(ref.peak) dBTP")
            return
        }
        #expect(abs(m.lufs - ref.lufs) <= 0.05, "\(name): \(m.lufs) vs ffmpeg \(ref.lufs)")
        #expect(abs(m.peak - ref.peak) <= 0.3, "\(name): true peak \(m.peak) vs ffmpeg \(ref.peak)")
    }

    /// MPEG-1 Layer II by twolame: CBR, VBR, one named .mp3 and one with no extension at all.
    @Test(.enabled(if: haveFFmpeg && E2E.has("twolame"), "needs ffmpeg, ffprobe and twolame"))
    func twolameLayerII() throws {
        let dir = E2E.tempDir("enc-twolame")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.source(dir)
        try DecodeLengthsE2ETests.sh(dir, "twolame --quiet src.wav cbr.mp2 && twolame --quiet -v -V 0 src.wav vbr.mp2"
            + " && cp cbr.mp2 layer2.mp3 && cp vbr.mp2 layer2")
        for name in ["cbr.mp2", "vbr.mp2", "layer2.mp3", "layer2"] {
            try Self.expectAsFFmpeg(dir + "/" + name)
            let p = try #require(E2E.run("audio-probe", [dir + "/" + name]).records.first, "\(name)")
            #expect(p["probe"]?["codec"]?.stringValue == "mp2", "\(name): \(p)")
        }
    }

    /// Ogg Speex by speexenc, narrowband from 8 kHz and wideband from 16 kHz. ffmpeg's ebur128
    /// can't take its Speex stream directly (the decoder leaves the layout unset), so ffmpeg's
    /// decode to a mono WAV is what it measures.
    @Test(.enabled(if: haveFFmpeg && E2E.has("speexenc"), "needs ffmpeg, ffprobe and speexenc (speex)"))
    func speexencNarrowAndWideband() throws {
        let dir = E2E.tempDir("enc-speex")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.source(dir, "nb.wav", rate: 8000, mono: true)
        try Self.source(dir, "wb.wav", rate: 16000, mono: true)
        try DecodeLengthsE2ETests.sh(dir, "speexenc --quiet -n nb.wav nb.spx && speexenc --quiet -w wb.wav wb.spx"
            + " && ffmpeg -v error -i nb.spx -ac 1 -c:a pcm_f32le nb-ff.wav && ffmpeg -v error -i wb.spx -ac 1 -c:a pcm_f32le wb-ff.wav")
        for band in ["nb", "wb"] {
            try Self.expectAsFFmpeg(dir + "/\(band).spx", reference: dir + "/\(band)-ff.wav")
        }
    }

    /// sox's encodings that ffmpeg also reads. MS ADPCM is measured against sox's own decode:
    /// ffmpeg's adpcm_ms decoder departs from sox's and libsndfile's (which agree with each other
    /// and sit closer to the source), by a few tenths of a dB in the peaks.
    @Test(.enabled(if: haveFFmpeg && E2E.has("sox"), "needs ffmpeg, ffprobe and sox"))
    func soxEncodings() throws {
        let dir = E2E.tempDir("enc-sox")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.source(dir)
        try DecodeLengthsE2ETests.sh(dir, "sox src.wav -e unsigned -b 8 u8.wav && sox src.wav -e a-law alaw.wav"
            + " && sox src.wav -e u-law ulaw.wav && sox src.wav -e ima-adpcm ima.wav && sox src.wav -e ms-adpcm ms.wav"
            + " && sox src.wav -e floating-point -b 32 f32.aifc && sox src.wav -e signed -b 8 s8.aiff"
            + " && sox ms.wav -b 16 ms-sox.wav")
        for name in ["u8.wav", "alaw.wav", "ulaw.wav", "ima.wav", "f32.aifc", "s8.aiff"] {
            try Self.expectAsFFmpeg(dir + "/" + name)
        }
        try Self.expectAsFFmpeg(dir + "/ms.wav", reference: dir + "/ms-sox.wav")
    }

    /// libsndfile's writers (sndfile-convert). What ffmpeg reads is measured as ffmpeg measures
    /// it; MAT4, MAT5 and Sound Designer II, which ffmpeg can't read, must be measured as their
    /// source is or refused with a sentence. NIST SPHERE, VOC, IRCAM, PAF, PVF and AVR are known by
    /// their magic and read by libsndfile.
    @Test(.enabled(if: haveFFmpeg && E2E.has("sndfile-convert") && E2E.has("sox"),
                   "needs ffmpeg, ffprobe, sndfile-convert (sndfile-programs) and sox"))
    func sndfileConvertFormats() throws {
        let dir = E2E.tempDir("enc-sndfile")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.source(dir)
        let plain = ["s.w64", "s.rf64", "s.wavex", "s.caf", "s.aif", "s.au"]
        let older = ["s.nist", "s.voc", "s.ircam", "s.paf", "s.pvf", "s.avr"]
        let unreadable = ["s.mat", "s.mat5", "s.sd2"]
        let made = (plain + older + unreadable).map { "sndfile-convert src.wav \($0)" }
            + ["sndfile-convert -alac16 src.wav alac.caf", "sndfile-convert -ima-adpcm src.wav ima.wav",
               "sndfile-convert -ms-adpcm src.wav ms.wav", "sndfile-convert -ulaw src.wav ulaw.wav",
               "sox ms.wav -b 16 ms-sox.wav"]
        try DecodeLengthsE2ETests.sh(dir, made.joined(separator: " >/dev/null && ") + " >/dev/null")
        for name in plain + older + ["alac.caf", "ima.wav", "ulaw.wav"] {
            try Self.expectAsFFmpeg(dir + "/" + name)
        }
        try Self.expectAsFFmpeg(dir + "/ms.wav", reference: dir + "/ms-sox.wav")
        for name in unreadable {
            if let m = try Self.ours(dir + "/" + name) {
                let ref = try DecodeLengthsE2ETests.ffmpegReading(dir + "/src.wav")
                #expect(abs(m.lufs - ref.lufs) <= 0.05 && abs(m.peak - ref.peak) <= 0.3, "\(name): \(m) vs the source's \(ref)")
            }
        }
    }

    /// ffmpeg's encoders in containers the zoo lacked, and WavPack's lossy and hybrid modes.
    /// MPEG program streams and RealMedia are known by their magic and go to ffmpeg;
    /// SMPTE 302M in a transport stream, whose last packet ffmpeg itself calls invalid, is refused
    /// as damaged.
    @Test(.enabled(if: haveFFmpeg && E2E.has("wavpack"), "needs ffmpeg, ffprobe and wavpack"))
    func ffmpegContainersAndWavPackLossy() throws {
        let dir = E2E.tempDir("enc-ffmpeg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.source(dir)
        let made: [(String, String)] = [
            ("wma2.wma", "-c:a wmav2"), ("wma1.wma", "-c:a wmav1"), ("wma2.mkv", "-c:a wmav2"), ("alac.m4a", "-c:a alac"),
            ("ac3.mkv", "-c:a ac3"), ("ac3.avi", "-c:a ac3"), ("dts.mkv", "-c:a dca -strict -2"),
            ("truehd.mka", "-c:a truehd -strict -2"), ("pcm.mov", "-c:a pcm_s16be"), ("pcm24.mov", "-c:a pcm_s24le"),
            ("pcm.avi", "-c:a pcm_s16le"), ("pcm.mkv", "-c:a pcm_s16le"), ("vorbis.webm", "-c:a libvorbis"),
            ("mp3.avi", "-c:a libmp3lame"), ("mp3.flv", "-c:a libmp3lame"), ("nelly.flv", "-c:a nellymoser -ar 22050 -ac 1"),
            ("ima4.aiff", "-c:a adpcm_ima_qt"), ("ima4.mov", "-c:a adpcm_ima_qt"), ("aac.3gp", "-c:a aac"),
            ("flac.mp4", "-c:a flac -strict -2"), ("mp2.mpg", "-c:a mp2"), ("ra.rm", "-c:a real_144 -ar 8000 -ac 1"),
            ("s302m.ts", "-c:a s302m -strict -2 -ar 48000"),
        ]
        let lines = made.map { "ffmpeg -v error -y -i src.wav \($0.1) \($0.0)" }
            + ["wavpack -q -b256 src.wav -o lossy.wv", "wavpack -q -b256 -c src.wav -o hybrid.wv"]
        try DecodeLengthsE2ETests.sh(dir, lines.joined(separator: " && "))
        for name in made.map(\.0) + ["lossy.wv", "hybrid.wv"] where name != "s302m.ts" {
            try Self.expectAsFFmpeg(dir + "/" + name)
        }
        // ffmpeg's own SMPTE 302M muxing ends in a packet ffmpeg's decoder calls invalid.
        let s302m = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", dir + "/s302m.ts", "-f", "null", "-"])
        #expect(s302m.stderr.contains("invalid header"), "\(s302m.stderr)")
        let r = try #require(E2E.run("lufs-measure", [dir + "/s302m.ts"]).records.first)
        #expect(r["error"]?["code"]?.stringValue == "malformed", "\(r)")
        #expect(r["error"]?["message"]?.stringValue?.contains("damaged after") == true, "\(r)")
    }
}
