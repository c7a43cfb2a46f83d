import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Audio read forward from a stream: the headers, the sniffing rule, and samples identical to
/// what libsndfile decodes from the same file.
@Suite struct StandardInputTests {
    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stdin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)").path
    }

    /// Every sample of `path` as libsndfile decodes it, and as the stream reader does.
    func bothDecodes(_ path: String) throws -> (file: [[Float]], stream: [[Float]], opened: Decoder.Opened) {
        func all(_ s: AudioSource) throws -> [[Float]] {
            var out = [[Float]](repeating: [], count: s.format.channelCount)
            try Decoder.forEachBlock(s) { b in for c in 0..<out.count { out[c] += b.channels[c][0..<b.frames] } }
            return out
        }
        let file = try all(SndfileSource(path: path))
        let fd = open(path, O_RDONLY)
        let reader = PipeReader(fd: fd, closesDescriptor: true)
        let opened = try StandardInput.open(reader: reader, path: "-", isPipe: true, raw: nil)
        return (file, try all(opened.source), opened)
    }

    @Test(arguments: [("wav", "pcm_u8"), ("wav", "pcm_s16"), ("wav", "pcm_s24"), ("wav", "pcm_s32"), ("wav", "pcm_f32"),
                      ("wav", "pcm_f64"), ("au", "pcm_s8"), ("au", "pcm_s16"), ("au", "pcm_s24"), ("au", "pcm_s32"),
                      ("au", "pcm_f32"), ("au", "pcm_f64")])
    func samplesAreLibsndfiles(container: String, codec: String) throws {
        let path = tempPath("x.\(container)")
        defer { unlink(path) }
        var g = SystemRandomNumberGenerator()
        let a: [Float] = [-1, 1 - 1.0 / 32768, 0, 1e-9] + (0..<5000).map { _ in Float.random(in: -1..<1, using: &g) }
        let b = a.reversed().map { $0 * 0.5 }
        let code = container == "au"
            ? Int32(0x030000) | (SndfileSink.formatCode(container: "wav", codec: codec)! & 0xFFFF)
            : SndfileSink.formatCode(container: container, codec: codec)!
        let sink = try SndfileSink(path: path, formatCode: code, sampleRate: 44100, channelCount: 2, overwrite: true)
        try sink.write(AudioBlock(channels: [a, Array(b)], frames: a.count))
        try sink.commit()
        let d = try bothDecodes(path)
        #expect(d.file.map { $0.map(\.bitPattern) } == d.stream.map { $0.map(\.bitPattern) })
        #expect(d.opened.sndfile?.codec == codec)
        #expect(d.opened.isStreamed)
    }

    /// ffmpeg writing to a pipe can't go back to fill in sizes: 0xFFFFFFFF (or 0) means "to the end".
    @Test func unknownLengthWAVHeaders() {
        func header(riff: UInt32, data: UInt32, extensible: Bool) -> [UInt8] {
            func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * UInt32($0)) & 0xFF) } }
            func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
            var fmt = le16(extensible ? 0xFFFE : 1) + le16(6) + le32(48000) + le32(48000 * 18) + le16(18) + le16(24)
            if extensible { fmt += le16(22) + le16(24) + le32(0x3F) + le16(1) + [UInt8](repeating: 0, count: 14) }
            return Array("RIFF".utf8) + le32(riff) + Array("WAVE".utf8) + Array("fmt ".utf8) + le32(UInt32(fmt.count)) + fmt
                + Array("LIST".utf8) + le32(4) + Array("INFO".utf8) + Array("data".utf8) + le32(data)
        }
        for size: UInt32 in [0xFFFF_FFFF, 0] {
            let h = header(riff: size, data: size, extensible: true)
            guard case .pcm(let f, let length) = StreamHeaders.wav(h) else { Issue.record("not read"); continue }
            #expect(f.dataBytes == nil && f.encoding == .s24le && f.channelCount == 6 && f.sampleRate == 48000 && length == h.count)
            #expect(StreamedPCMSourceNames.of(f) == ["FL", "FR", "FC", "LFE", "BL", "BR"])
        }
        let known = header(riff: 1000, data: 180, extensible: false)
        #expect(StreamHeaders.wav(known) == .pcm(PCMStreamFormat(sampleRate: 48000, channelCount: 6, encoding: .s24le, dataBytes: 180, container: "wav"), headerLength: known.count))
        #expect(StreamHeaders.wav(Array(known.prefix(30))) == .needMore)
    }

    @Test func sniffingTellsAudioFromLines() {
        #expect(StandardInputArgument.isAudio(Array("RIFF\u{FF}\u{FF}".utf8)))
        #expect(StandardInputArgument.isAudio(Array("fLaC".utf8)))
        #expect(StandardInputArgument.isAudio([0x12, 0x00, 0x7F, 0x41]))  // garbage: audio, then unrecognised
        #expect(!StandardInputArgument.isAudio(Array("{\"path\":\"a.wav\"}\n".utf8)))
        #expect(!StandardInputArgument.isAudio(Array("music/a song.flac\n".utf8)))
        #expect(!StandardInputArgument.isAudio([]))
    }

    @Test func rawLayouts() {
        #expect(PCMStreamFormat.raw("48000:2:s16le") == PCMStreamFormat(sampleRate: 48000, channelCount: 2, encoding: .s16le, container: "raw"))
        #expect(PCMStreamFormat.raw("44100:1:F32LE")?.encoding == .f32le)
        for bad in ["48000:2", "48000:0:s16le", "x:2:s16le", "48000:2:s16", "48000:2:s16le:1"] { #expect(PCMStreamFormat.raw(bad) == nil) }
    }

    @Test func garbageAndEmptyAreRefused() throws {
        let path = tempPath("g")
        defer { unlink(path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data([0x00, 0x01, 0x02, 0x03] + Array(repeating: 0x55, count: 100)))
        #expect(throws: DecodeError("-", .unrecognisedFormat)) {
            try StandardInput.open(reader: PipeReader(fd: open(path, O_RDONLY), closesDescriptor: true), path: "-", isPipe: true, raw: nil)
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(throws: DecodeError("-", .empty)) {
            try StandardInput.open(reader: PipeReader(fd: open(path, O_RDONLY), closesDescriptor: true), path: "-", isPipe: true, raw: nil)
        }
    }
}

/// The speaker names a stream's channel mask gives (as libsndfile's channel map names them).
enum StreamedPCMSourceNames {
    static func of(_ f: PCMStreamFormat) -> [String]? { f.sndfileDescription.channelNames }
}
