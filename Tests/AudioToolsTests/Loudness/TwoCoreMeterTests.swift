import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

/// One file on two cores: the threads only move work, so every result is the same bits.
@Suite struct TwoCoreMeterTests {
    typealias S = LoudnessTestSignals

    static func measure(_ x: [[Float]], rate: Int, blockSize: Int, twoCores: (Int) -> Bool) -> LoudnessMeasurement {
        let meter = LoudnessMeter(sampleRate: rate, weights: Array(repeating: 1, count: x.count))
        var block = AudioBlock(channelCount: x.count, capacity: blockSize)
        var i = 0, k = 0
        while i < x[0].count {
            let m = min(blockSize, x[0].count - i)
            for c in 0..<x.count { for j in 0..<m { block.channels[c][j] = x[c][i + j] } }
            block.frames = m
            meter.add(block, onTwoCores: twoCores(k))
            i += m; k += 1
        }
        return meter.finish()
    }

    @Test func sameBitsOnOneOrTwoCores() {
        let x = LoudnessMeterTests.noise(seconds: 4.1, rate: 48000, seed: 11)
        let one = Self.measure(x, rate: 48000, blockSize: 4096) { _ in false }
        #expect(Self.measure(x, rate: 48000, blockSize: 4096) { _ in true } == one)
        // Switching between the two on every other block, as a busy --jobs run does.
        #expect(Self.measure(x, rate: 48000, blockSize: 1000) { $0 % 2 == 0 } == one)
        #expect(one.integratedLUFS != nil && one.truePeaks.count == 2)
    }

    /// The meter split between the decoding thread and the caller's (as lufs-measure runs one
    /// long file with a core to spare), each at its own pace, for every share of the true-peak
    /// channels: the same bits as one thread, the timeline's per-hop peaks included.
    @Test func aMeterSplitAcrossTheDecodingThreadGivesTheSameBits() throws {
        let x = LoudnessMeterTests.noise(seconds: 7.3, rate: 48000, seed: 21) + [LoudnessMeterTests.noise(seconds: 7.3, rate: 48000, seed: 22)[0]]
        let one = LoudnessMeter(sampleRate: 48000, weights: [1, 1, 1.41], collectsTimeline: true)
        try Decoder.forEachBlock(MemoryAudioSource(sampleRate: 48000, channels: x)) { one.add($0) }
        let expected = one.finish()
        for k in 0...3 {
            for timelineBeside in [true, false] {
                let split = LoudnessMeter(sampleRate: 48000, weights: [1, 1, 1.41], collectsTimeline: true)
                let n = try ReadAhead.forEachBlock(MemoryAudioSource(sampleRate: 48000, channels: x),
                                                   afterRead: { split.addPeaks($0, channels: 0..<k, timeline: timelineBeside) }, {
                    split.addPeaks($0, channels: k..<3, timeline: !timelineBeside)
                    split.addLoudness($0)
                })
                #expect(n == x[0].count)
                #expect(split.finish() == expected)
                #expect(split.timeline == one.timeline && split.timeline != nil)
                #expect(split.blocks == one.blocks)
            }
        }
        #expect(expected.frames == x[0].count && expected.truePeaks.count == 3)
    }

    /// True peak goes beside the decoding where that thread would otherwise wait: a cheaply
    /// decoded mono or 3-channel file (K-weighting works on channel pairs, so an odd channel costs
    /// the other thread a whole pair), never beside a costly decode.
    @Test func theDecodingThreadTakesTruePeakWhereItBalancesTheThreads() {
        #expect(LoudnessMeter.peakChannelsBesideDecoding(channelCount: 1, decodingIsCheap: true) == 1)
        #expect(LoudnessMeter.peakChannelsBesideDecoding(channelCount: 2, decodingIsCheap: true) == 0)
        #expect(LoudnessMeter.peakChannelsBesideDecoding(channelCount: 3, decodingIsCheap: true) == 1)
        #expect(LoudnessMeter.peakChannelsBesideDecoding(channelCount: 6, decodingIsCheap: true) == 0)
        for n in 1...8 { #expect(LoudnessMeter.peakChannelsBesideDecoding(channelCount: n, decodingIsCheap: false) == 0) }
        #expect(MemoryAudioSource(sampleRate: 48000, channels: [[0]]).decodesCheaply)
    }

    @Test func theDecodingThreadSeesEveryBlockInOrderBeforeTheCaller() throws {
        let x = LoudnessMeterTests.noise(seconds: 3.1, rate: 48000, seed: 4)
        final class Seen: @unchecked Sendable { var samples: [Float] = []; var blocks = 0 }
        let side = Seen()
        var main: [Float] = []
        try ReadAhead.forEachBlock(MemoryAudioSource(sampleRate: 48000, channels: x),
                                   afterRead: { side.samples += $0.channels[1][0..<$0.frames]; side.blocks += 1 }, { b in
            main += b.channels[1][0..<b.frames]
            // The decoding thread has finished with a block before the caller is handed it.
            #expect(side.samples.count >= main.count)
        })
        #expect(main == x[1] && side.samples == x[1])
    }

    /// When the caller stops early, or the decoder fails, the decoding thread's share stops too:
    /// no thread runs on after the call, and it never sees a block past the failure.
    @Test func theDecodingThreadsShareStopsWithTheCaller() {
        for _ in 0..<30 {
            let source = FailingSource(failAt: 1_000_000)
            final class Count: @unchecked Sendable { var n = 0 }
            let sideCount = Count()
            var count = 0
            #expect(throws: ToolError.self) {
                try ReadAhead.forEachBlock(source, afterRead: { _ in sideCount.n += 1 }, { _ in
                    count += 1
                    if count == 3 { throw ToolError(.malformed, "stop", suggestion: "") }
                })
            }
            let reads = source.reads, seen = sideCount.n
            usleep(2000)
            #expect(source.reads == reads && sideCount.n == seen, "a thread kept running after the call returned")
            #expect(reads <= 3 + ReadAhead.depth && seen <= reads)
        }
        let failing = FailingSource(failAt: 4)
        final class Firsts: @unchecked Sendable { var values: [Float] = [] }
        let side = Firsts()
        var main: [Float] = []
        #expect(throws: ToolError.self) {
            try ReadAhead.forEachBlock(failing, afterRead: { side.values.append($0.channels[0][0]) }, { main.append($0.channels[0][0]) })
        }
        #expect(main == [1, 2, 3, 4])
        #expect(side.values == [1, 2, 3, 4])
    }

    /// A source that fails after a number of blocks, counting its reads.
    final class FailingSource: AudioSource {
        let format = AudioFormat(sampleRate: 48000, channelCount: 2, frameCount: nil)
        let failAt: Int
        private(set) var reads = 0
        init(failAt: Int) { self.failAt = failAt }
        func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
            reads += 1
            if reads > failAt { throw ToolError(.truncated, "cut off", suggestion: "") }
            if block.channels.count != 2 { block.channels = [[], []] }
            for c in 0..<2 where block.channels[c].count < maxFrames { block.channels[c] = [Float](repeating: 0, count: maxFrames) }
            for c in 0..<2 { for i in 0..<maxFrames { block.channels[c][i] = Float(reads) } }
            block.frames = maxFrames
            return maxFrames
        }
        func seek(toFrame frame: Int) throws {}
    }

    @Test func readAheadHandsOverTheSameBlocksInOrder() throws {
        let x = LoudnessMeterTests.noise(seconds: 2.3, rate: 48000, seed: 3)
        var direct: [[Float]] = [[], []], ahead: [[Float]] = [[], []]
        try Decoder.forEachBlock(MemoryAudioSource(sampleRate: 48000, channels: x)) { b in
            for c in 0..<2 { direct[c] += b.channels[c][0..<b.frames] }
        }
        let n = try ReadAhead.forEachBlock(MemoryAudioSource(sampleRate: 48000, channels: x)) { b in
            for c in 0..<2 { ahead[c] += b.channels[c][0..<b.frames] }
        }
        #expect(n == x[0].count)
        #expect(ahead == direct && direct == x)
    }

    /// The decoder's error arrives after the blocks before it, where it happened.
    @Test func aDecoderErrorArrivesInItsPlace() {
        let source = FailingSource(failAt: 5)
        var seen: [Float] = []
        #expect(throws: ToolError.self) {
            try ReadAhead.forEachBlock(source) { seen.append($0.channels[0][0]) }
        }
        #expect(seen == [1, 2, 3, 4, 5])
    }

    /// A consumer that stops early stops the decoding thread: it has ended when the call returns.
    @Test func aConsumerErrorStopsTheDecoder() {
        for _ in 0..<50 {
            let source = FailingSource(failAt: 1_000_000)
            var count = 0
            #expect(throws: ToolError.self) {
                try ReadAhead.forEachBlock(source) { _ in
                    count += 1
                    if count == 3 { throw ToolError(.malformed, "stop", suggestion: "") }
                }
            }
            let reads = source.reads
            usleep(2000)
            #expect(source.reads == reads, "the decoder kept reading after the call returned")
            #expect(reads <= 3 + ReadAhead.depth)
        }
    }
}
