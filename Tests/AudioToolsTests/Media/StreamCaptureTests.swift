import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// A short stream read whole by the analysis pass is kept, sample for sample, for its encode; a
/// long one, or one not read to its end, is not.
struct StreamCaptureTests {
    static func ramp(_ frames: Int) -> [[Float]] {
        [(0..<frames).map { Float($0) }, (0..<frames).map { -Float($0) }]
    }

    static func readAll(_ s: AudioSource, blockFrames: Int) throws {
        var block = AudioBlock(channelCount: s.format.channelCount, capacity: blockFrames)
        while try s.read(into: &block, maxFrames: blockFrames) > 0 {}
    }

    @Test func keepsTheWholeStreamWhateverTheBlocks() throws {
        let samples = Self.ramp(10_007)
        for blockFrames in [1, 256, 4096, 20_000] {
            let c = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: samples))
            try Self.readAll(c, blockFrames: blockFrames)
            #expect(c.whole.map { $0 == samples } == true, "blocks of \(blockFrames)")
        }
    }

    @Test func aSeekBackAndAReReadKeepNothingTwice() throws {
        let samples = Self.ramp(5000)
        let c = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: samples))
        var block = AudioBlock(channelCount: 2, capacity: 1000)
        _ = try c.read(into: &block, maxFrames: 1000)
        _ = try c.read(into: &block, maxFrames: 1000)
        try c.seek(toFrame: 500)
        try Self.readAll(c, blockFrames: 700)
        #expect(c.whole.map { $0 == samples } == true)
    }

    @Test func aLongStreamOrOneNotReadToItsEndIsNotKept() throws {
        // Over the limit (samples of all channels): nothing kept.
        let long = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(600)), limit: 1000)
        try Self.readAll(long, blockFrames: 128)
        #expect(long.whole == nil)
        let fits = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(500)), limit: 1000)
        try Self.readAll(fits, blockFrames: 128)
        #expect(fits.whole?.first?.count == 500)
        // Stopped before the end: not the whole stream.
        let cut = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(500)))
        var block = AudioBlock(channelCount: 2, capacity: 128)
        _ = try cut.read(into: &block, maxFrames: 128)
        #expect(cut.whole == nil)
        // A decoder that doesn't know the length, told by the container it is over the limit: nothing kept.
        let told = StreamCapture(LengthUnknown(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(500))), limit: 1000,
                                 expectedFrames: 600)
        try Self.readAll(told, blockFrames: 128)
        #expect(told.whole == nil)
        let untold = StreamCapture(LengthUnknown(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(500))), limit: 1000)
        try Self.readAll(untold, blockFrames: 128)
        #expect(untold.whole?.first?.count == 500)
        // Skipped ahead: what was skipped is not kept, so neither is the stream.
        let skipped = StreamCapture(MemoryAudioSource(sampleRate: 48000, channels: Self.ramp(500)))
        try skipped.seek(toFrame: 100)
        try Self.readAll(skipped, blockFrames: 128)
        #expect(skipped.whole == nil)
    }
}

/// A source whose format doesn't say how long it is, as an ffmpeg pipe's doesn't.
private final class LengthUnknown: AudioSource {
    let inner: AudioSource
    init(_ inner: AudioSource) { self.inner = inner }
    var format: AudioFormat { var f = inner.format; f.frameCount = nil; return f }
    var decodesCheaply: Bool { inner.decodesCheaply }
    func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int { try inner.read(into: &block, maxFrames: maxFrames) }
    func seek(toFrame frame: Int) throws { try inner.seek(toFrame: frame) }
}
