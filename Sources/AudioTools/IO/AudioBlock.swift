/// A block of decoded audio, planar: one `[Float]` per channel, each `frames` long.
/// Sources reuse one block and refill it; consumers must not keep it past `add`.
public struct AudioBlock {
    /// Samples per channel, each array holding at least `frames` values (full scale is ±1.0).
    public var channels: [[Float]]
    /// Number of valid frames in every channel array.
    public var frames: Int

    public init(channels: [[Float]], frames: Int) {
        self.channels = channels
        self.frames = frames
    }

    /// An empty block of `channelCount` channels with room for `capacity` frames.
    public init(channelCount: Int, capacity: Int) {
        self.channels = Array(repeating: [Float](repeating: 0, count: capacity), count: channelCount)
        self.frames = 0
    }

    public var channelCount: Int { channels.count }
}
