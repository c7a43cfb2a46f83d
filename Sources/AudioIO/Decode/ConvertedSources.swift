import AudioSignal
import Foundation

/// A source converted to another sample rate through libsamplerate, streaming; `seek(toFrame: 0)`
/// restarts the conversion from the beginning (the only seek lufs-normalize's passes need).
package final class ResampledSource: AudioSource {
    package let format: AudioFormat
    private let inner: AudioSource
    private let quality: Resampler.Quality
    private var resampler: Resampler
    private var inputBlock: AudioBlock
    /// Converted frames not yet handed out: `pending[c][pendingStart...]`.
    private var pending: [[Float]]
    private var pendingStart = 0
    private var ended = false

    /// The conversion runs in `read`, on the decoding thread.
    package var decodesCheaply: Bool { false }

    package init(_ inner: AudioSource, toRate: Int, quality: Resampler.Quality = .best) throws {
        self.inner = inner
        self.quality = quality
        let f = inner.format
        resampler = try Resampler(fromRate: f.sampleRate, toRate: toRate, channels: f.channelCount, quality: quality)
        let ratio = Double(toRate) / Double(f.sampleRate)
        format = AudioFormat(sampleRate: toRate, channelCount: f.channelCount,
                             frameCount: f.frameCount.map { Int((Double($0) * ratio).rounded()) })
        inputBlock = AudioBlock(channelCount: f.channelCount, capacity: Decoder.blockFrames)
        pending = Array(repeating: [], count: f.channelCount)
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let ch = format.channelCount
        while pending[0].count - pendingStart < maxFrames && !ended {
            let n = try inner.read(into: &inputBlock, maxFrames: Decoder.blockFrames)
            let out: AudioBlock
            if n == 0 {
                inputBlock.frames = 0
                out = try resampler.process(inputBlock, endOfInput: true)
                ended = true
            } else {
                out = try resampler.process(inputBlock, endOfInput: false)
            }
            if pendingStart > 0 {
                for c in 0..<ch { pending[c].removeFirst(pendingStart) }
                pendingStart = 0
            }
            for c in 0..<ch { pending[c].append(contentsOf: out.channels[c][0..<out.frames]) }
        }
        let n = min(maxFrames, pending[0].count - pendingStart)
        if block.channels.count != ch { block.channels = Array(repeating: [], count: ch) }
        for c in 0..<ch {
            if block.channels[c].count < maxFrames { block.channels[c] = [Float](repeating: 0, count: maxFrames) }
            if n > 0 {
                block.channels[c].withUnsafeMutableBufferPointer { dst in
                    pending[c].withUnsafeBufferPointer { dst.baseAddress!.update(from: $0.baseAddress! + pendingStart, count: n) }
                }
            }
        }
        pendingStart += n
        block.frames = n
        return n
    }

    package func seek(toFrame frame: Int) throws {
        precondition(frame == 0, "a converted stream only restarts from the beginning")
        try inner.seek(toFrame: 0)
        resampler = try Resampler(fromRate: inner.format.sampleRate, toRate: format.sampleRate,
                                  channels: format.channelCount, quality: quality)
        pending = Array(repeating: [], count: format.channelCount)
        pendingStart = 0
        ended = false
    }
}

/// The first `channelCount` channels of a source (for an output format that holds fewer).
package final class ChannelSubsetSource: AudioSource {
    package let format: AudioFormat
    private let inner: AudioSource
    private var full: AudioBlock

    package var decodesCheaply: Bool { inner.decodesCheaply }

    package init(_ inner: AudioSource, channelCount: Int) {
        self.inner = inner
        format = AudioFormat(sampleRate: inner.format.sampleRate, channelCount: channelCount,
                             frameCount: inner.format.frameCount)
        full = AudioBlock(channelCount: inner.format.channelCount, capacity: 0)
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let n = try inner.read(into: &full, maxFrames: maxFrames)
        if block.channels.count != format.channelCount { block.channels = Array(repeating: [], count: format.channelCount) }
        for c in 0..<format.channelCount {
            if block.channels[c].count < maxFrames { block.channels[c] = [Float](repeating: 0, count: maxFrames) }
            if n > 0 {
                block.channels[c].withUnsafeMutableBufferPointer { dst in
                    full.channels[c].withUnsafeBufferPointer { dst.baseAddress!.update(from: $0.baseAddress!, count: n) }
                }
            }
        }
        block.frames = n
        return n
    }

    package func seek(toFrame frame: Int) throws { try inner.seek(toFrame: frame) }
}
