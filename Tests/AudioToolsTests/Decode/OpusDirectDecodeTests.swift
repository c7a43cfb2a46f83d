import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// The Opus decode callback: a mono or stereo link is decoded by its stream's own decoder, and
/// the samples are bit for bit libopusfile's own (straight through, after seeks, across chained
/// links); a surround link is decoded stream by stream, also bit for bit.
@Suite struct OpusDirectDecodeTests {
    static let opusenc = SpeechTestSupport.which("opusenc")
    static let ffmpeg = SpeechTestSupport.which("ffmpeg")

    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("opusdirect-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)").path
    }

    /// A `seconds`-long Opus file of `channels` channels (a tone and noise that differ per
    /// channel), encoded by opusenc with `extra` options.
    func makeOpus(_ name: String, channels: Int, seconds: Double, extra: [String] = []) throws -> String {
        let wav = tempPath(name + ".wav"), out = tempPath(name)
        defer { unlink(wav) }
        var rng = UInt32(12345)
        let n = Int(seconds * 48000)
        let chans: [[Float]] = (0..<channels).map { c in
            (0..<n).map { i in
                rng = rng &* 1_664_525 &+ 1_013_904_223
                return Float(sin(Double(i) * 0.02 * Double(c + 1))) * 0.3 + (Float(rng >> 8) / Float(1 << 24) - 0.5) * 0.1
            }
        }
        let sink = try SndfileSink(path: wav, formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_s16")!,
                                   sampleRate: 48000, channelCount: channels, overwrite: true)
        try sink.write(AudioBlock(channels: chans, frames: n))
        try sink.commit()
        let r = SpeechTestSupport.run(Self.opusenc!, ["--quiet"] + extra + [wav, out])
        #expect(r.status == 0, "\(r.out)")
        return out
    }

    /// Every sample of `path` read through an `OpusFileSource`, after a seek to `from` when given.
    func samples(_ path: String, direct: Bool, from: Int? = nil) throws -> (out: [[Float]], source: OpusFileSource) {
        let s = try OpusFileSource(path: path, file: nil, directDecode: direct)
        if let from { try s.seek(toFrame: from) }
        var out = Array(repeating: [Float](), count: s.format.channelCount)
        try Decoder.forEachBlock(s) { b in for c in 0..<b.channelCount { out[c] += b.channels[c][0..<b.frames] } }
        return (out, s)
    }

    @Test(.enabled(if: opusenc != nil, "needs opusenc (opus-tools)"), arguments: [1, 2])
    func monoAndStereoAreDecodedDirectlyBitForBit(channels: Int) throws {
        let path = try makeOpus("plain.opus", channels: channels, seconds: 3)
        defer { unlink(path) }
        let (fast, s) = try samples(path, direct: true)
        let (slow, _) = try samples(path, direct: false)
        #expect(fast[0].count == 3 * 48000)
        #expect(fast == slow)
        #expect(s.direct!.directPackets > 100 && s.direct!.defaultPackets == 0)
        // A seek resets libopusfile's decoder, and so the stream's: the same samples after it.
        let (fastSeek, _) = try samples(path, direct: true, from: 70_000)
        let (slowSeek, _) = try samples(path, direct: false, from: 70_000)
        #expect(fastSeek[0].count == 3 * 48000 - 70_000)
        #expect(fastSeek == slowSeek)
    }

    /// The header's output gain is applied by the stream's decoder as by libopusfile's.
    @Test(.enabled(if: opusenc != nil, "needs opusenc (opus-tools)"))
    func theOutputGainIsAppliedTheSame() throws {
        let path = try makeOpus("plain.opus", channels: 2, seconds: 1)
        defer { unlink(path) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let gained = try OpusHeaderGain.apply(bytes, gainQ78: -6 * 256)
        try Data(gained.bytes).write(to: URL(fileURLWithPath: path))
        let (fast, s) = try samples(path, direct: true)
        let (slow, _) = try samples(path, direct: false)
        #expect(s.outputGainDB == -6)
        #expect(fast == slow && s.direct!.directPackets > 0)
    }

    @Test(.enabled(if: opusenc != nil, "needs opusenc (opus-tools)"))
    func chainedLinksAreDecodedDirectlyBitForBit() throws {
        let a = try makeOpus("a.opus", channels: 2, seconds: 1.5)
        let b = try makeOpus("b.opus", channels: 2, seconds: 2, extra: ["--bitrate", "48"])
        let joined = tempPath("ab.opus")
        defer { unlink(a); unlink(b); unlink(joined) }
        try Data(try Data(contentsOf: URL(fileURLWithPath: a)) + Data(contentsOf: URL(fileURLWithPath: b)))
            .write(to: URL(fileURLWithPath: joined))
        let (fast, s) = try samples(joined, direct: true)
        let (slow, _) = try samples(joined, direct: false)
        #expect(s.linkCount == 2 && fast[0].count == 168_000)
        #expect(fast == slow && s.direct!.defaultPackets == 0)
    }

    /// Surround is several streams (mapping family 1, some coupled, some mono): each stream is decoded by its own decoder and its channels placed by
    /// the mapping, bit for bit as libopusfile does, in every packet framing opusenc makes (one
    /// frame; several frames of 60 ms, as VBR or as hard CBR with padding; 2.5 ms frames), and
    /// after a seek.
    @Test(.enabled(if: opusenc != nil, "needs opusenc (opus-tools)"),
          arguments: [(3, ["--bitrate", "96"]), (6, []), (6, ["--framesize", "60"]),
                      (6, ["--framesize", "60", "--hard-cbr", "--bitrate", "200"]),
                      (6, ["--framesize", "2.5"]), (8, ["--bitrate", "256"])])
    func surroundIsDecodedStreamByStreamBitForBit(channels: Int, extra: [String]) throws {
        let path = try makeOpus("surround.opus", channels: channels, seconds: 2, extra: extra)
        defer { unlink(path) }
        let (fast, s) = try samples(path, direct: true)
        let (slow, _) = try samples(path, direct: false)
        #expect(fast.count == channels && fast[0].count == 2 * 48000)
        #expect(s.mappingFamily == 1)
        #expect(fast == slow)
        #expect(s.direct!.directPackets > 30 && s.direct!.defaultPackets == 0)
        let (fastSeek, _) = try samples(path, direct: true, from: 50_000)
        let (slowSeek, _) = try samples(path, direct: false, from: 50_000)
        #expect(fastSeek[0].count == 2 * 48000 - 50_000 && fastSeek == slowSeek)
    }

    /// ffmpeg's own libopus wrapper frames 5.1 packets its own way (its 5.1 layout, 60 ms frames
    /// here): the same samples as libopusfile's too.
    @Test(.enabled(if: opusenc != nil && ffmpeg != nil, "needs opusenc (opus-tools) and ffmpeg"))
    func ffmpegSurroundIsDecodedStreamByStreamBitForBit() throws {
        let source = try makeOpus("src.opus", channels: 6, seconds: 2, extra: ["--bitrate", "320"])
        let path = tempPath("ff51.opus")
        defer { unlink(source); unlink(path) }
        let r = SpeechTestSupport.run(Self.ffmpeg!, ["-nostdin", "-v", "error", "-y", "-i", source, "-c:a", "libopus",
                                                     "-b:a", "192k", "-frame_duration", "60", path])
        #expect(r.status == 0, "\(r.out)")
        let (fast, s) = try samples(path, direct: true)
        let (slow, _) = try samples(path, direct: false)
        #expect(fast.count == 6 && fast[0].count > 90_000)
        #expect(fast == slow && s.direct!.directPackets > 30 && s.direct!.defaultPackets == 0)
    }

    /// The decoder signature (part of cache keys) names libopus's version and the libopus and
    /// libopusfile files this process loaded.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/maps"), "needs /proc"))
    func theDecoderSignatureNamesTheOpusLibraries() {
        let t = DecoderSignature.text
        #expect(t.contains(";libopus=libopus "), "\(t)")
        let opusfile = t.components(separatedBy: ";libopusfile=").last ?? ""
        #expect(opusfile.hasPrefix("/") && opusfile.contains("/libopusfile.so"), "\(t)")
        #expect(!t.contains("unknown"), "\(t)")
    }
}
