import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct IOTests {
    func tempPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("io-\(getpid())-\(UInt32.random(in: 0...UInt32.max))-\(name)").path
    }

    @Test func promisedFramesComeFromLibsndfilesLog() {
        let log = "File : tr.wav\nLength : 300000\nfmt  : 40\ndata : 864000 (should be 299920)\nEnd\n"
        // 24-bit stereo: 6 bytes a frame.
        #expect(SndfileSource.promisedFrames(log: log, channels: 2, format: Int32(0x010003)) == 144000)
        #expect(SndfileSource.promisedFrames(log: "data : 1000\n", channels: 2, format: Int32(0x010002)) == nil)
    }

    @Test func writeThenReadIsExactAndAtomic() throws {
        let path = tempPath("rt.wav")
        defer { unlink(path) }
        let samples: [Float] = (0..<10000).map { Float(sin(Double($0) * 0.01)) * 0.5 }
        let sink = try SndfileSink(path: path, formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_f32")!,
                                   sampleRate: 48000, channelCount: 1, overwrite: false)
        try sink.write(AudioBlock(channels: [samples], frames: samples.count))
        #expect(!FileManager.default.fileExists(atPath: path), "nothing under the final name before commit")
        try sink.commit()
        let src = try SndfileSource(path: path)
        #expect(src.format == AudioFormat(sampleRate: 48000, channelCount: 1, frameCount: 10000))
        var block = AudioBlock(channelCount: 1, capacity: 0)
        var got: [Float] = []
        while try src.read(into: &block, maxFrames: 3000) > 0 { got += block.channels[0][0..<block.frames] }
        #expect(got == samples)
        #expect(throws: WriteError(path, .exists)) {
            _ = try SndfileSink(path: path, formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_s16")!,
                                sampleRate: 48000, channelCount: 1, overwrite: false)
        }
    }

    @Test func abandonedWritesLeaveNothing() throws {
        let dir = tempPath("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sink = try SndfileSink(path: dir + "/out.wav", formatCode: SndfileSink.formatCode(container: "wav", codec: "pcm_s16")!,
                                   sampleRate: 8000, channelCount: 2, overwrite: false)
        try sink.write(AudioBlock(channels: [[0.1, 0.2], [0.3, 0.4]], frames: 2))
        sink.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func identityRoundTripsThroughJSON() throws {
        let path = tempPath("id.txt")
        _ = FileManager.default.createFile(atPath: path, contents: Data("abc".utf8))
        defer { unlink(path) }
        let id = try FileIdentity.of(path)
        #expect(id.sizeBytes == 3)
        #expect(FileIdentity(json: id.json) == id)
        #expect(throws: FileAccessError(path + ".missing", .missing)) { try FileIdentity.of(path + ".missing") }
    }
}
