import CSndfile
import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// Which container an output of a given size goes into: 32-bit-sized containers hold at most
/// 4 GiB less a MiB for their header; a WAV past that is RF64, an AIFF is refused.
@Suite struct OutputSizeLimitTests {
    static func wav(_ codec: String, depth: Int, channels: Int, container: String = "wav") -> LufsNormalizeFormat {
        let code = SndfileSink.formatCode(container: container, codec: codec)!
        return LufsNormalizeFormat(container: container, codec: codec, bitDepth: depth, isFloat: codec.hasPrefix("pcm_f"),
                                   isLossy: false, sampleRate: 48_000, channelCount: channels, formatCode: code)
    }

    @Test func theDecisionByByteCount() {
        let limit = OutputSizeLimit.maxBytes32
        #expect(limit == 4_294_967_295 - 1_048_576)
        #expect(OutputSizeLimit.decide(container: "wav", audioBytes: limit) == .fits)
        #expect(OutputSizeLimit.decide(container: "wav", audioBytes: limit + 1) == .rf64)
        #expect(OutputSizeLimit.decide(container: "aiff", audioBytes: limit) == .fits)
        #expect(OutputSizeLimit.decide(container: "aiff", audioBytes: limit + 1) == .tooLarge(limitBytes: limit))
        #expect(OutputSizeLimit.decide(container: "au", audioBytes: 5 << 30) == .tooLarge(limitBytes: limit))
        for big in ["rf64", "w64", "caf", "flac", "ogg", "mp3"] {
            #expect(OutputSizeLimit.decide(container: big, audioBytes: 1 << 40) == .fits, "\(big)")
        }
        #expect(OutputSizeLimit.decide(container: "wav", audioBytes: nil) == .fits, "an unknown length changes nothing")
    }

    @Test func theByteCountIsFramesTimesChannelsTimesSampleBytes() throws {
        // The 48-minute float WAV: 139.2 M frames of 8 channels of 4 bytes.
        let f = Self.wav("pcm_f32", depth: 32, channels: 8)
        #expect(OutputSizeLimit.audioBytes(frames: 139_200_000, format: f) == 139_200_000 * 32)
        #expect(OutputSizeLimit.audioBytes(frames: 10, format: Self.wav("pcm_s24", depth: 24, channels: 2)) == 60)
        #expect(OutputSizeLimit.audioBytes(frames: nil, format: f) == nil)
        let fitted = try OutputSizeLimit.fit(f, frames: 139_200_000)
        #expect(fitted.format.container == "rf64" && fitted.note?.contains("RF64") == true)
        #expect(fitted.format.formatCode & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_RF64))
        #expect(fitted.format.formatCode & Int32(SF_FORMAT_SUBMASK) == f.formatCode & Int32(SF_FORMAT_SUBMASK))
        #expect(SndfileSink.canWrite(formatCode: fitted.format.formatCode, sampleRate: 48_000, channels: 8))
        let small = try OutputSizeLimit.fit(f, frames: 48_000)
        #expect(small.format == f && small.note == nil)
        let aiff = Self.wav("pcm_s24", depth: 24, channels: 6, container: "aiff")
        #expect(throws: OutputSizeLimit.TooLarge.self) { try OutputSizeLimit.fit(aiff, frames: 3 * 3600 * 48_000) }
        let e = OutputSizeLimit.TooLarge(container: "AIFF", audioBytes: 9_331_200_000, limitBytes: OutputSizeLimit.maxBytes32).toolError(path: "a.aiff")
        #expect(e.code == .tooLarge && e.message.contains("9.33 GB") && e.message.hasSuffix("nothing was written."))
    }
}
