import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A length is a promise only when the container states it. MP3s whose length libsndfile's
/// mpg123 would guess from the first frame (no Xing/Info/VBRI count), MP3 in WAV, GSM 6.10 padded
/// past its `fact` count, and AC-3 carried in a 16-bit WAV: each measured as ffmpeg's ebur128
/// measures it (0.05 LU, 0.3 dB true peak), over the frames ffmpeg decodes.
@Suite struct DecodeLengthsE2ETests {
    static let haveFFmpeg = E2E.has("ffmpeg") && E2E.has("ffprobe")

    /// ffmpeg's integrated loudness and true peak (dBTP) of `path`: its ebur128 filter's last readings.
    static func ffmpegReading(_ path: String) throws -> (lufs: Double, peak: Double) {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostats", "-v", "error", "-i", path, "-af",
                                                 "ebur128=metadata=1:peak=true,ametadata=print:file=-", "-f", "null", "-"])
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        func last(_ key: String) -> Double? {
            lines.last { $0.hasPrefix(key + "=") }.flatMap { Double($0.dropFirst(key.count + 1)) }
        }
        let i = try #require(last("lavfi.r128.I"), "ffmpeg measured nothing for \(path)")
        let p = try #require(last("lavfi.r128.true_peak"), "ffmpeg gave no true peak for \(path)")
        return (i, 20 * log10(p))
    }

    /// The frames ffmpeg decodes from `path` (its first audio stream, folded to mono 32-bit float).
    static func ffmpegFrames(_ path: String) throws -> Int {
        let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-v", "quiet", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
        return r.stdout.count / 4
    }

    /// Runs a shell line in `dir`; whether it succeeded.
    @discardableResult
    static func sh(_ dir: String, _ line: String) throws -> Bool {
        let r = try E2E.program("/bin/sh", ["-c", "cd '\(dir)' && " + line])
        #expect(r.status == 0, "\(line): \(r.stderr)")
        return r.status == 0
    }

    /// Expects lufs-measure's reading of `path` to be ffmpeg's, over `frames` (ffmpeg's count by default).
    static func expectAsFFmpeg(_ path: String, frames: Int? = nil) throws {
        let r = try #require(E2E.run("lufs-measure", [path]).records.first, "\(path)")
        let l = r["loudness"]
        let ours = try #require(l?["integrated_lufs"]?.doubleValue, "\(path): \(r)")
        let peak = try #require(l?["true_peak_dbtp"]?.doubleValue, "\(path): \(r)")
        let ref = try ffmpegReading(path)
        #expect(abs(ours - ref.lufs) <= 0.05, "\(path): \(ours) vs ffmpeg \(ref.lufs)")
        #expect(abs(peak - ref.peak) <= 0.3, "\(path): true peak \(peak) vs ffmpeg \(ref.peak)")
        let expected = try frames ?? ffmpegFrames(path)
        #expect(l?["frames"]?.intValue == expected, "\(path): \(r)")
    }

    /// VBR MP3s whose first frame is loud (a second of noise, then a quiet tone): the first frame's
    /// bit rate puts the guessed length near 1.8 s of 12 (5.6 s at -V 0), where libsndfile's mpg123 stopped
    /// decoding, silently. And MP3s whose guess is longer than the audio (leading silence, a CBR
    /// stream without its LAME tag, a big ID3v2 picture, MP3 inside WAV), which were refused as
    /// `truncated`. Every one is decoded to its last frame, as ffmpeg and mpg123 decode it.
    @Test(.enabled(if: haveFFmpeg && E2E.has("lame") && E2E.has("mpg123"), "needs ffmpeg, ffprobe, lame and mpg123"))
    func mp3LengthsGuessedFromTheFirstFrameAreNotPromises() throws {
        let dir = E2E.tempDir("lengths-mp3")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.4:d=1:r=44100:seed=7 -f lavfi -i sine=f=330:d=11:r=44100"
            + " -filter_complex '[1]volume=0.05[q];[0][q]concat=n=2:v=0:a=1,pan=stereo|c0=c0|c1=0.8*c0' -c:a pcm_s16le loud-first.wav")
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i anullsrc=r=44100:cl=stereo:d=2 -f lavfi -i anoisesrc=c=pink:a=0.2:d=10:r=44100:seed=3"
            + " -filter_complex '[1]pan=stereo|c0=c0|c1=c0[n];[0][n]concat=n=2:v=0:a=1' -c:a pcm_s16le quiet-first.wav")
        try Self.sh(dir, "lame --quiet -V 6 -t loud-first.wav v6.mp3 && lame --quiet -V 0 -t loud-first.wav v0.mp3"
            + " && ffmpeg -v error -i loud-first.wav -c:a libmp3lame -q:a 4 -write_xing 0 noxing.mp3"
            + " && lame --quiet -V 6 -t quiet-first.wav silence-first.mp3 && lame --quiet -b 128 -t quiet-first.wav cbr.mp3"
            + " && ffmpeg -v error -f lavfi -i 'nullsrc=s=700x700,geq=random(1)*255:random(2)*255:random(3)*255' -frames:v 1 cover.png"
            + " && ffmpeg -v error -i cbr.mp3 -i cover.png -map 0 -map 1 -c copy -id3v2_version 3 -write_xing 0 cover.mp3"
            + " && ffmpeg -v error -i quiet-first.wav -c:a libmp3lame -b:a 128k -f wav mp3-in.wav")
        for name in ["v6.mp3", "v0.mp3", "noxing.mp3", "silence-first.mp3", "cbr.mp3", "cover.mp3", "mp3-in.wav"] {
            let path = dir + "/" + name
            let frames = try Self.ffmpegFrames(path)
            #expect(frames > 11 * 44100, "\(name): ffmpeg decoded \(frames) frames")
            try Self.expectAsFFmpeg(path, frames: frames)
            if name.hasSuffix(".mp3") {
                // mpg123 itself, reading every frame, agrees on the length.
                let m = try E2E.program("/usr/bin/env", ["mpg123", "-q", "-s", "--mono", path])
                #expect(m.stdout.count / 2 == frames, "\(name): mpg123 decodes \(m.stdout.count / 2) frames, ffmpeg \(frames)")
            }
            // audio-probe checks the ends without calling the file cut off, and counts the frames
            // of an MP3 that states none (its length was a guess from the first frame's bit rate).
            let p = try #require(E2E.run("audio-probe", [path]).records.first, "\(name)")
            #expect(p["error"] == nil, "\(name): \(p)")
            if name.hasSuffix(".mp3") { #expect(p["probe"]?["frames"]?.intValue == frames, "\(name): \(p)") }
        }
    }

    /// audio-probe's facts where ffprobe's header reading falls short: the length of ADTS AAC and
    /// raw AC-3, E-AC-3 and DTS counted frame by frame (they state none; it was null), AC-3 and E-AC-3 in MP4 with the channels
    /// their `dac3`/`dec3` box states (the sample entry's fixed 2 was shown), and a fragmented
    /// MP4's length unknown rather than 0 s.
    @Test(.enabled(if: haveFFmpeg, "needs ffmpeg and ffprobe"))
    func probeFactsFromTheCodecsOwnHeaders() throws {
        let dir = E2E.tempDir("lengths-facts")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = ["anoisesrc=c=pink:a=0.2:d=4:seed=31", "sine=f=300:d=4", "sine=f=500:d=4", "anoisesrc=c=white:a=0.1:d=4:seed=32",
                      "sine=f=700:d=4", "sine=f=60:d=4"].map { "-f lavfi -i \($0)" }.joined(separator: " ")
        try Self.sh(dir, "ffmpeg -v error \(inputs) -filter_complex '[0][1][2][3][4][5]amerge=inputs=6' -ar 48000 -c:a pcm_s16le s51.wav"
            + " && ffmpeg -v error -i s51.wav -c:a ac3 ac3.mp4 && ffmpeg -v error -i s51.wav -c:a eac3 eac3.mp4"
            + " && ffmpeg -v error -i s51.wav -ac 2 -c:a aac -f adts adts.aac"
            + " && ffmpeg -v error -i s51.wav -ac 2 -c:a aac -movflags frag_keyframe+empty_moov frag.mp4"
            + " && ffmpeg -v error -i s51.wav -c:a ac3 -f ac3 raw.ac3 && ffmpeg -v error -i s51.wav -c:a eac3 -f eac3 raw.eac3"
            + " && ffmpeg -v error -i s51.wav -c:a dca -strict -2 -f dts raw.dts")
        for name in ["ac3.mp4", "eac3.mp4"] {
            let p = try #require(E2E.run("audio-probe", [dir + "/" + name]).records.first?["probe"], "\(name)")
            #expect(p["channels"]?.intValue == 6, "\(name): \(p)")
            #expect(p["layout"]?.stringValue == "5.1", "\(name): \(p)")
        }
        // ADTS and raw AC-3, E-AC-3 and DTS state no length: their frames are counted.
        for name in ["adts.aac", "raw.ac3", "raw.eac3", "raw.dts"] {
            let p = try #require(E2E.run("audio-probe", [dir + "/" + name]).records.first?["probe"], "\(name)")
            #expect(p["frames"]?.intValue == (try Self.ffmpegFrames(dir + "/" + name)), "\(name): \(p)")
        }
        let frag = try #require(E2E.run("audio-probe", [dir + "/frag.mp4"]).records.first?["probe"])
        #expect(frag["duration_seconds"] == .null && frag["frames"] == .null, "\(frag)")
    }

    /// Whether ffmpeg has the libspeex encoder (Debian's build does).
    static let haveSpeexEncoder: Bool = {
        guard haveFFmpeg, let r = try? E2E.program("/usr/bin/env", ["ffmpeg", "-hide_banner", "-encoders"]) else { return false }
        return String(decoding: r.stdout, as: UTF8.self).contains(" libspeex ")
    }()

    /// Ogg Speex states no length (it was null): the granule positions give it, with the encoder's
    /// lookahead the decoder still outputs, so audio-probe's frames are what ffmpeg decodes and its
    /// duration ffprobe's; wideband and narrowband, one and three frames a packet.
    @Test(.enabled(if: haveSpeexEncoder, "needs ffmpeg with the libspeex encoder, and ffprobe"),
          arguments: [(16000, 1), (8000, 3)])
    func oggSpeexLengthFromItsGranules(rate: Int, framesPerPacket: Int) throws {
        let dir = E2E.tempDir("lengths-speex")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.2:d=6.3:r=\(rate):seed=9 -c:a libspeex"
            + " -frames_per_packet \(framesPerPacket) s.spx")
        let p = try #require(E2E.run("audio-probe", [dir + "/s.spx"]).records.first?["probe"])
        #expect(p["codec"]?.stringValue == "speex", "\(p)")
        #expect(p["frames"]?.intValue == (try Self.ffmpegFrames(dir + "/s.spx")), "\(p)")
        let r = try E2E.program("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                 dir + "/s.spx"])
        let ffprobe = try #require(Double(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        let ours = try #require(p["duration_seconds"]?.doubleValue, "\(p)")
        #expect(abs(ours - ffprobe) < 0.0005, "ours \(ours) s, ffprobe \(ffprobe) s")
    }

    /// A Matroska file whose video outlasts its audio: the segment's Duration is the video's, so
    /// audio-probe takes the audio track's own DURATION tag, as ffprobe shows it for that stream
    /// (it gave the container's 10 s). A WebM written to a pipe states no length anywhere: null,
    /// as ffprobe's N/A.
    @Test(.enabled(if: haveFFmpeg, "needs ffmpeg and ffprobe"))
    func matroskaLengthIsTheAudioTracks() throws {
        let dir = E2E.tempDir("lengths-mkv")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i testsrc=d=10:s=64x48:r=10 -f lavfi -i sine=d=6:r=48000"
            + " -c:v mpeg4 -c:a libvorbis long.mkv && ffmpeg -v error -f lavfi -i sine=d=6.5:r=48000 -c:a libopus -f webm - > piped.webm")
        let r = try E2E.program("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                                 "stream_tags=DURATION", "-of", "csv=p=0", dir + "/long.mkv"])
        let clock = String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let ffprobe = try #require(MatroskaReader.clockSeconds(clock), "ffprobe gave \(clock)")
        let long = try #require(E2E.run("audio-probe", [dir + "/long.mkv"]).records.first?["probe"])
        let ours = try #require(long["duration_seconds"]?.doubleValue, "\(long)")
        #expect(abs(ours - ffprobe) < 0.0005 && abs(ours - 6) < 0.05, "ours \(ours) s, ffprobe's audio stream \(ffprobe) s")
        let piped = try #require(E2E.run("audio-probe", [dir + "/piped.webm"]).records.first?["probe"])
        #expect(piped["duration_seconds"] == .null && piped["frames"] == .null, "\(piped)")
    }

    /// A stated length is still a promise: an MP3 whose LAME tag counts frames the file doesn't
    /// hold is refused as `truncated`, naming both lengths.
    @Test(.enabled(if: haveFFmpeg && E2E.has("lame"), "needs ffmpeg and lame"))
    func mp3CutShortOfItsLAMETagIsStillTruncated() throws {
        let dir = E2E.tempDir("lengths-mp3-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.2:d=8:r=44100:seed=5 -ac 2 -c:a pcm_s16le src.wav && lame --quiet -V 4 src.wav whole.mp3")
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.mp3"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.mp3"))
        let r = try #require(E2E.run("lufs-measure", [dir + "/cut.mp3"]).records.first)
        #expect(r["error"]?["code"]?.stringValue == "truncated", "\(r)")
        #expect(r["error"]?["message"]?.stringValue?.contains("promises") == true, "\(r)")
    }

    /// GSM 6.10 in WAV (sox): the `fact` chunk's frame count is the length, not the last block's
    /// padding that libsndfile decodes after it; audio-probe, which can't seek in GSM, reads to
    /// the end instead of calling the file cut off.
    @Test(.enabled(if: haveFFmpeg && E2E.has("sox"), "needs ffmpeg, ffprobe and sox"))
    func gsmInWAVStopsAtItsFactCount() throws {
        let dir = E2E.tempDir("lengths-gsm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 10.0123 s at 8 kHz: 80098 frames, not a whole number of 320-frame GSM blocks.
        try Self.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.3:d=11:r=8000:seed=9 -f lavfi -i sine=f=440:d=11:r=8000"
            + " -filter_complex '[0][1]amix=inputs=2:normalize=0' -t 10.0123 -c:a pcm_s16le src.wav"
            + " && sox src.wav -e gsm-full-rate gsm.wav")
        let path = dir + "/gsm.wav"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let fact = try #require((12..<min(bytes.count - 12, 200)).first { bytes[$0] == 0x66 && bytes[$0 + 1] == 0x61 && bytes[$0 + 2] == 0x63 && bytes[$0 + 3] == 0x74 })
        let stated = (0..<4).reduce(0) { $0 | Int(bytes[fact + 8 + $1]) << (8 * $1) }
        #expect(stated == 80098)
        let r = try #require(E2E.run("lufs-measure", [path]).records.first)
        #expect(r["loudness"]?["frames"]?.intValue == stated, "\(r)")
        let ours = try #require(r["loudness"]?["integrated_lufs"]?.doubleValue, "\(r)")
        // ffmpeg decodes up to the padded block; over 10 s its 222 frames of padding move the reading by hundredths at most.
        let ref = try Self.ffmpegReading(path)
        #expect(abs(ours - ref.lufs) <= 0.05, "\(ours) vs \(ref.lufs)")
        // The block past the count ends in a full-scale spike (libsndfile's decode of the padding).
        let peak = try #require(r["loudness"]?["true_peak_dbtp"]?.doubleValue, "\(r)")
        #expect(abs(peak - ref.peak) <= 0.3, "true peak \(peak) vs ffmpeg \(ref.peak)")
        let p = try #require(E2E.run("audio-probe", [path]).records.first)
        #expect(p["error"] == nil, "\(p)")
        #expect(p["probe"]?["duration_seconds"]?.doubleValue == Double(stated) / 8000, "\(p)")
        // A `fact` short by far more than a block is a wrong header, not padding: nothing is cut by it.
        var wrong = bytes
        for k in 0..<4 { wrong[fact + 8 + k] = UInt8((8000 >> (8 * k)) & 0xFF) }
        try Data(wrong).write(to: URL(fileURLWithPath: dir + "/wrong-fact.wav"))
        let w = try #require(E2E.run("lufs-measure", [dir + "/wrong-fact.wav"]).records.first)
        #expect(w["loudness"]?["frames"]?.intValue == 252 * 320, "\(w)")
    }

    /// AC-3 and DTS carried in a 16-bit stereo WAV (IEC 61937 bursts, as S/PDIF captures and DVD
    /// rips hold them) were measured as PCM, 8 LU too loud: they are recognised by the burst
    /// preamble, decoded as 5.1 through ffmpeg's spdif reader, and audio-probe names the codec
    /// and its channels. E-AC-3, which that reader can't unpack (ffmpeg's own WAV reader then
    /// measures the bursts as PCM), is refused saying what it is.
    @Test(.enabled(if: haveFFmpeg, "needs ffmpeg and ffprobe"))
    func bitstreamsCarriedInAWAVAreDecodedNotMeasuredAsPCM() throws {
        let dir = E2E.tempDir("lengths-spdif")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = ["anoisesrc=c=pink:a=0.2:d=6:seed=2", "sine=f=300:d=6", "sine=f=500:d=6", "anoisesrc=c=white:a=0.1:d=6:seed=4",
                      "sine=f=700:d=6", "sine=f=60:d=6"].map { "-f lavfi -i \($0)" }.joined(separator: " ")
        try Self.sh(dir, "ffmpeg -v error \(inputs) -filter_complex '[0][1][2][3][4][5]amerge=inputs=6' -ar 48000 -c:a pcm_s16le s51.wav")
        for (codec, encoder) in [("ac3", "ac3"), ("dts", "dca -strict -2"), ("eac3", "eac3")] {
            try Self.sh(dir, "ffmpeg -v error -i s51.wav -c:a \(encoder) -f spdif \(codec).spdif"
                + " && ffmpeg -v error -f s16le -ar 48000 -ac 2 -i \(codec).spdif -c:a pcm_s16le \(codec)-in.wav")
            let path = dir + "/\(codec)-in.wav"
            let m = try #require(E2E.run("lufs-measure", [path]).records.first)
            if codec == "eac3" {
                #expect(m["error"]?["code"]?.stringValue == "unsupported-codec", "\(m)")
                #expect(m["error"]?["message"]?.stringValue?.contains("E-AC-3 bitstream") == true, "\(m)")
                let p = try #require(E2E.run("audio-probe", [path]).records.first, "\(codec)")
                #expect(p["error"]?["code"]?.stringValue == "unsupported-codec", "\(p)")
                continue
            }
            try Self.expectAsFFmpeg(path)
            #expect(m["loudness"]?["channels"]?.arrayValue?.count == 6, "\(m)")
            let p = try #require(E2E.run("audio-probe", [path]).records.first?["probe"], "\(codec)")
            #expect(p["codec"]?.stringValue == codec, "\(p)")
            #expect(p["channels"]?.intValue == 6, "\(p)")
            #expect(p["decoder"]?.stringValue == "ffmpeg", "\(p)")
        }
    }
}

/// Files the in-process decoders couldn't open, or that no sniffer knew, routed by their bytes
/// (every name here is `.bin`): AU and µ-law SND to libsndfile; Opus in CAF, FLV, AMR-NB and
/// (in a test of its own, as mpcenc may be missing) Musepack SV8 to ffmpeg. Each is measured as ffmpeg's ebur128 measures it, over the frames
/// ffmpeg decodes; they used to be refused as `unrecognised` or `unsupported-codec`.
@Suite struct DecodeRoutesE2ETests {
    @Test(.enabled(if: DecodeLengthsE2ETests.haveFFmpeg && E2E.has("sox"), "needs ffmpeg, ffprobe and sox"))
    func formatsOnlyFFmpegOrLibsndfileReadAreRoutedByTheirBytes() throws {
        let dir = E2E.tempDir("routes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DecodeLengthsE2ETests.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.2:d=6:r=44100:seed=11"
            + " -f lavfi -i sine=f=440:d=6:r=44100 -filter_complex '[0][1]amerge=inputs=2' -c:a pcm_s16le src.wav")
        try DecodeLengthsE2ETests.sh(dir, "sox src.wav -t au au.bin && sox src.wav -t au -e u-law snd.bin"
            + " && sox src.wav -r 8000 -c 1 -t amr-nb amr.bin"
            + " && ffmpeg -v error -i src.wav -c:a libopus -f caf opus-caf.bin"
            + " && ffmpeg -v error -f lavfi -i testsrc=s=160x120:d=6 -i src.wav -c:v libx264 -c:a aac -shortest -f flv flv.bin")
        let names = ["au.bin": "libsndfile", "snd.bin": "libsndfile", "amr.bin": "ffmpeg", "opus-caf.bin": "ffmpeg", "flv.bin": "ffmpeg"]
        for (name, decoder) in names.sorted(by: { $0.key < $1.key }) {
            let path = dir + "/" + name
            try DecodeLengthsE2ETests.expectAsFFmpeg(path)
            let p = try #require(E2E.run("audio-probe", [path]).records.first, "\(name)")
            #expect(p["error"] == nil, "\(name): \(p)")
            #expect(p["probe"]?["decoder"]?.stringValue == decoder, "\(name): \(p)")
        }
    }

    @Test(.enabled(if: DecodeLengthsE2ETests.haveFFmpeg && E2E.has("mpcenc"), "needs ffmpeg and mpcenc (musepack-tools)"))
    func musepackIsDecodedByFFmpeg() throws {
        let dir = E2E.tempDir("routes-mpc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DecodeLengthsE2ETests.sh(dir, "ffmpeg -v error -f lavfi -i anoisesrc=c=pink:a=0.2:d=5:r=44100:seed=12 -ac 2 -c:a pcm_s16le src.wav"
            + " && mpcenc --silent src.wav sv8.mpc && mv sv8.mpc sv8.bin")
        try DecodeLengthsE2ETests.expectAsFFmpeg(dir + "/sv8.bin")
        let p = try #require(E2E.run("audio-probe", [dir + "/sv8.bin"]).records.first)
        #expect(p["probe"]?["codec"]?.stringValue == "musepack8", "\(p)")
    }
}

/// 7.1 and ffmpeg: ffmpeg's `ebur128` weighs the back pair 1.41, BS.1770-4 by position 1.0. The
/// 7.1 record says so in its notes, and weighing the back pair as surrounds (`--layout` with Ls,
/// Rs in its place) gives ffmpeg's reading; a 5.1 record has no such note.
@Suite struct FFmpegSevenOneE2ETests {
    @Test(.enabled(if: DecodeLengthsE2ETests.haveFFmpeg, "needs ffmpeg and ffprobe"))
    func sevenOneSaysWhyFFmpegReadsItLouder() throws {
        let dir = E2E.tempDir("seven-one")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let inputs = (0..<8).map { "-f lavfi -i anoisesrc=c=pink:a=0.1:d=5:r=48000:seed=\($0 + 20)" }.joined(separator: " ")
        try DecodeLengthsE2ETests.sh(dir, "ffmpeg -v error \(inputs) -filter_complex '[0][1][2][3][4][5][6][7]amerge=inputs=8,"
            + "aformat=channel_layouts=7.1' -c:a pcm_s16le s71.wav && ffmpeg -v error -i s71.wav -af 'pan=5.1|c0=c0|c1=c1|c2=c2|c3=c3|c4=c4|c5=c5' -c:a pcm_s16le s51.wav")
        let r = try #require(E2E.run("lufs-measure", [dir + "/s71.wav"]).records.first)
        let notes = r["loudness"]?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("ebur128") && $0.contains("Lb, Rb 1.41") }, "\(notes)")
        let ours = try #require(r["loudness"]?["integrated_lufs"]?.doubleValue)
        let ref = try DecodeLengthsE2ETests.ffmpegReading(dir + "/s71.wav")
        #expect(ref.lufs - ours > 0.2, "\(ours) vs ffmpeg \(ref.lufs)")
        let asFFmpeg = try #require(E2E.run("lufs-measure", ["--layout", "L,R,C,LFE,Ls,Rs,Lss,Rss", dir + "/s71.wav"]).records.first)
        let weighed = try #require(asFFmpeg["loudness"]?["integrated_lufs"]?.doubleValue, "\(asFFmpeg)")
        #expect(abs(weighed - ref.lufs) <= 0.05, "\(weighed) vs ffmpeg \(ref.lufs)")
        let five = try #require(E2E.run("lufs-measure", [dir + "/s51.wav"]).records.first)
        let fiveNotes = five["loudness"]?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(!fiveNotes.contains { $0.contains("ebur128") }, "\(fiveNotes)")
    }
}
