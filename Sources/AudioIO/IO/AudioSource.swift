import AudioSignal

/// What a decoder knows about a stream before reading it.
public struct AudioFormat: Equatable, Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    /// Frames the header promises, when it says (a pipe from ffmpeg may not).
    public var frameCount: Int?

    public init(sampleRate: Int, channelCount: Int, frameCount: Int?) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
    }
}

/// A stream of decoded audio in planar float blocks. Implementations: libsndfile, ffmpeg as a
/// subprocess, and memory (for tests and synthesised signals).
public protocol AudioSource: AnyObject {
    var format: AudioFormat { get }
    /// Fills `block` with up to `maxFrames` frames (resizing its channel arrays if needed) and
    /// returns how many; 0 means the end. Throws the decoder's DecodeError on corrupt or cut-off data.
    func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int
    /// Repositions so the next read starts at `frame`; throws if the source can't seek.
    func seek(toFrame frame: Int) throws
    /// Whether a read costs little next to metering what it gives (PCM, or decoded in another
    /// process): then a share of the meter runs on the decoding thread (`ReadAhead`).
    var decodesCheaply: Bool { get }
}

extension AudioSource {
    public var decodesCheaply: Bool { true }
}

/// A source over samples already in memory, planar.
public final class MemoryAudioSource: AudioSource {
    public let format: AudioFormat
    private let samples: [[Float]]
    private var position = 0

    public init(sampleRate: Int, channels: [[Float]]) {
        precondition(!channels.isEmpty && channels.allSatisfy { $0.count == channels[0].count })
        self.samples = channels
        self.format = AudioFormat(sampleRate: sampleRate, channelCount: channels.count,
                                  frameCount: channels[0].count)
    }

    public func read(into block: inout AudioBlock, maxFrames: Int) throws -> Int {
        let n = min(maxFrames, samples[0].count - position)
        if block.channels.count != samples.count { block.channels = Array(repeating: [], count: samples.count) }
        for c in 0..<samples.count {
            if block.channels[c].count < maxFrames {
                block.channels[c] = [Float](repeating: 0, count: maxFrames)
            }
            if n > 0 {
                block.channels[c].withUnsafeMutableBufferPointer { dst in
                    samples[c].withUnsafeBufferPointer { src in
                        dst.baseAddress!.update(from: src.baseAddress! + position, count: n)
                    }
                }
            }
        }
        block.frames = max(n, 0)
        position += max(n, 0)
        return max(n, 0)
    }

    public func seek(toFrame frame: Int) throws {
        position = min(max(frame, 0), samples[0].count)
    }
}

/// Where processed audio goes. File sinks write to a temporary file and only `commit` renames it
/// into place, so an interrupted run never leaves a partial file under the final name.
public protocol AudioSink: AnyObject {
    func write(_ block: AudioBlock) throws
    /// Makes the output final (for files: flush, close, rename over the destination).
    func commit() throws
    /// Discards everything written (for files: close and remove the temporary file).
    func abandon()
}

/// A sink that keeps what it is given, planar, for tests and in-memory processing.
public final class MemoryAudioSink: AudioSink {
    public private(set) var channels: [[Float]]
    public private(set) var committed = false

    public init(channelCount: Int) {
        channels = Array(repeating: [], count: channelCount)
    }

    public func write(_ block: AudioBlock) throws {
        for c in 0..<channels.count { channels[c].append(contentsOf: block.channels[c][0..<block.frames]) }
    }

    public func commit() throws { committed = true }
    public func abandon() { channels = channels.map { _ in [] } }
}
