import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// audio-probe's check of the first and last second, read the cheapest way each decoder allows
/// (16-bit words, interleaved floats, a seek past the middle), gives the same ids as decoding
/// every frame, and the same ids as the first release made for the same samples.
@Suite struct ProbeEndsE2ETests {
    /// A WAV written byte by byte: `frames` frames of stereo at 44.1 kHz, the first `silence` of
    /// them digital silence, then noise from integer arithmetic (about −12 dBFS); 16 or 24 bits.
    static func wav(bits: Int, frames: Int, silence: Int) -> Data {
        let bytes = bits / 8, channels = 2, rate = 44100
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var d = Data()
        d.reserveCapacity(44 + frames * channels * bytes)
        let dataBytes = frames * channels * bytes
        d += Array("RIFF".utf8) + le(36 + dataBytes, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(channels, 2)
        d += le(rate, 4) + le(rate * channels * bytes, 4) + le(channels * bytes, 2) + le(bits, 2) + Array("data".utf8) + le(dataBytes, 4)
        for i in 0..<frames {
            for c in 0..<channels {
                var w = i < silence ? 0 : ((i &* 2_654_435_761 &+ c &* 40_503) >> 7 & 0x3FFF) - 8192
                if bits == 24 { w = w * 256 + (i < silence ? 0 : (i &* 7 &+ c) & 0xFF) }
                d += le(w, bytes)
            }
        }
        return d
    }

    /// Ids the first release gave these files (made then, kept here so they can't drift).
    static let id16 = "593b8b58fa99c26eae942436", id24 = "fd43563789fe008c9520ba05"

    @Test func theEndsGiveTheIdsOfEveryFrameAndOfTheFirstRelease() throws {
        let dir = E2E.tempDir("probe-ends")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 3.5 s: the head second (after a quarter second of silence), a middle that is sought
        // past, and the last second.
        let frames = 154_350, silence = 11_025
        try Self.wav(bits: 16, frames: frames, silence: silence).write(to: URL(fileURLWithPath: dir + "/s16.wav"))
        try Self.wav(bits: 24, frames: frames, silence: silence).write(to: URL(fileURLWithPath: dir + "/s24.wav"))
        var names = ["s16.wav", "s24.wav"]
        if E2E.has("sox") {
            for b in ["s16", "s24"] {
                let r = try E2E.program("/usr/bin/env", ["sox", "\(dir)/\(b).wav", "\(dir)/\(b).flac"])
                #expect(r.status == 0, "\(r.stderr)")
                names.append("\(b).flac")
            }
        }
        if E2E.has("ffmpeg") {
            let r = try E2E.program("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", "\(dir)/s16.wav", "-b:a", "128k", "\(dir)/s.mp3"])
            #expect(r.status == 0, "\(r.stderr)")
            names.append("s.mp3")
        }
        func ids(_ extra: [String]) throws -> [String: String] {
            let r = try E2E.run("audio-probe", ["-j", "2"] + extra + names.map { "\(dir)/\($0)" })
            #expect(r.status == 0, "\(r.stdout)")
            var out: [String: String] = [:]
            for rec in r.records {
                let name = String(rec["path"]!.stringValue!.split(separator: "/").last!)
                out[name] = rec["probe"]?["content_id"]?.stringValue
                #expect(rec["probe"]?["frames"]?.intValue == frames || name == "s.mp3", "\(name)")
            }
            return out
        }
        let quick = try ids([]), deep = try ids(["--deep"])
        for name in names { #expect(quick[name] != nil && quick[name] == deep[name], "\(name): --deep decodes every frame, same id") }
        #expect(quick["s16.wav"] == Self.id16)
        #expect(quick["s24.wav"] == Self.id24)
        if E2E.has("sox") {
            #expect(quick["s16.flac"] == Self.id16, "a lossless copy has the same id")
            #expect(quick["s24.flac"] == Self.id24)
        }
    }

    /// A float WAV, byte by byte, stereo at 8 kHz: a quiet ramp with the given samples replaced.
    static func floatWAV(frames: Int, replacing: [(frame: Int, channel: Int, value: Float)]) -> Data {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var samples = (0..<frames * 2).map { Float($0 % 200) / 1000 }
        for r in replacing { samples[r.frame * 2 + r.channel] = r.value }
        let dataBytes = samples.count * 4
        var d = Data(Array("RIFF".utf8) + le(36 + dataBytes, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(3, 2) + le(2, 2))
        d += le(8000, 4) + le(8000 * 8, 4) + le(8, 2) + le(32, 2) + Array("data".utf8) + le(dataBytes, 4)
        for x in samples { d += le(Int(x.bitPattern), 4) }
        return d
    }

    @Test func aSampleThatIsNotANumberIsNamedAsEveryToolNamesIt() throws {
        let dir = E2E.tempDir("probe-nan")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Channel 2 goes bad first in time, channel 1 later: the message names the first bad
        // sample of the lowest channel that has one, as lufs-measure's planar reader does.
        let path = dir + "/bad.wav"
        try Self.floatWAV(frames: 20_000, replacing: [(300, 1, .nan), (800, 0, .infinity)]).write(to: URL(fileURLWithPath: path))
        let probe = try E2E.run("audio-probe", [path])
        let error = try #require(probe.records.first?["error"])
        #expect(error["code"] == .string("non-finite-samples"), "\(probe.stdout)")
        let message = try #require(error["message"]?.stringValue)
        #expect(message.contains("in channel 1 at frame 800"), "\(message)")
        let measure = try E2E.run("lufs-measure", [path])
        #expect(measure.records.first?["error"]?["message"]?.stringValue == message)
    }
}
