import AudioSignal

/// A source through a `Downmix` matrix (`--channels`): fewer channels, each a weighted sum.
package final class DownmixSource: AudioSource {
    package let format: AudioFormat
    package let downmix: Downmix
    private let inner: AudioSource
    private var full: AudioBlock

    package var decodesCheaply: Bool { inner.decodesCheaply }

    package init(_ inner: AudioSource, downmix: Downmix) {
        precondition(inner.format.channelCount == downmix.sourceChannelCount)
        self.inner = inner
        self.downmix = downmix
        format = AudioFormat(sampleRate: inner.format.sampleRate, channelCount: downmix.channelCount,
                             frameCount: inner.format.frameCount)
        full = AudioBlock(channelCount: inner.format.channelCount, capacity: 0)
    }

    package func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let n = try inner.read(into: &full, maxFrames: maxFrames)
        full.frames = n
        downmix.apply(full, into: &block)
        return n
    }

    package func seek(toFrame frame: Int) throws { try inner.seek(toFrame: frame) }
}
