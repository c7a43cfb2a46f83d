/// A block of decoded audio, planar: one `[Float]` per channel, each `frames` long.
/// Sources reuse one block and refill it; consumers must not keep it past `add`.
public struct AudioBlock {
    /// Samples per channel, each array holding at least `frames` values (full scale is ±1.0).
    public var channels: [[Float]]
    /// Number of valid frames in every channel array.
    public var frames: Int

    /// A block over `channels` (one array per channel, each at least `frames` long).
    public init(channels: [[Float]], frames: Int) {
        self.channels = channels
        self.frames = frames
    }

    /// An empty block of `channelCount` channels with room for `capacity` frames.
    public init(channelCount: Int, capacity: Int) {
        self.channels = Array(repeating: [Float](repeating: 0, count: capacity), count: channelCount)
        self.frames = 0
    }

    /// The number of channels.
    public var channelCount: Int { channels.count }

    /// The first `ch` channels' frames interleaved into `dst` (room for `frames × ch` samples).
    /// Not an overload of `interleave(channels:into:)`: `&array` would convert to this pointer.
    package func interleave(channels ch: Int, to dst: UnsafeMutablePointer<Float>) {
        let n = frames
        if ch == 2 {
            // Stereo, the common case, four frames at a time (the compiler makes it shuffles).
            channels[0].withUnsafeBufferPointer { l in
                channels[1].withUnsafeBufferPointer { r in
                    let a = l.baseAddress!, b = r.baseAddress!
                    var i = 0
                    while i + 4 <= n {
                        let x = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD4<Float>.self)
                        let y = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD4<Float>.self)
                        let z = SIMD8<Float>(x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3])
                        UnsafeMutableRawPointer(dst + 2 * i).storeBytes(of: z, as: SIMD8<Float>.self)
                        i += 4
                    }
                    while i < n { dst[2 * i] = a[i]; dst[2 * i + 1] = b[i]; i += 1 }
                }
            }
            return
        }
        for c in 0..<ch {
            channels[c].withUnsafeBufferPointer { src in
                var d = c
                for i in 0..<n { dst[d] = src[i]; d += ch }
            }
        }
    }

    /// The first `ch` channels' frames interleaved (frame by frame, channel by channel) into
    /// `buffer`, grown when too small; the count of samples written, `frames × ch`.
    @discardableResult
    package func interleave(channels ch: Int, into buffer: inout [Float]) -> Int {
        let n = frames
        guard n * ch > 0 else { return 0 }
        if buffer.count < n * ch { buffer = [Float](repeating: 0, count: n * ch) }
        buffer.withUnsafeMutableBufferPointer { interleave(channels: ch, to: $0.baseAddress!) }
        return n * ch
    }
}
