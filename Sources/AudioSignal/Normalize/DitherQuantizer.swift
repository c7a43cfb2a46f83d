import Foundation

/// Rounds float samples to a fixed-point grid of `bitDepth` bits (full scale ±1.0, step
/// 2^−(bitDepth−1)), optionally adding ±1 LSB TPDF dither first, and clamps to the format's range.
/// Output samples are exactly k / 2^(bitDepth−1), so an encoder scaling by 2^(bitDepth−1) gets
/// the integers exactly. Each channel has its own seeded generator: results don't depend on
/// block sizes.
package struct TPDFDitherQuantizer: Sendable {
    public let bitDepth: Int
    public let dither: Bool
    /// Samples that fell outside the format's range and were clamped (0 after a working limiter).
    public private(set) var clampedSamples = 0
    private var generators: [SplitMix64]

    public init(bitDepth: Int, channelCount: Int, dither: Bool = true, seed: UInt64 = 0x4C55_4653) {
        precondition((2...24).contains(bitDepth), "bit depth must be 2...24 for exact float grids")
        self.bitDepth = bitDepth
        self.dither = dither
        generators = (0..<channelCount).map { SplitMix64(seed: seed &+ UInt64($0) &* 0x1000_0000_01B3) }
    }

    /// Quantises the block in place.
    public mutating func process(_ block: inout AudioBlock) {
        // Double keeps the dither's fraction of an LSB even at 24 bits.
        let scale = Double(1 << (bitDepth - 1))
        let inverse = 1 / scale
        let low = -scale, high = scale - 1
        let n = block.frames
        var clamped = 0
        for c in 0..<block.channels.count {
            var rng = generators[c]
            block.channels[c].withUnsafeMutableBufferPointer { x in
                for i in 0..<n {
                    var v = Double(x[i]) * scale
                    if dither { v += Double(rng.triangular()) }
                    v = v.rounded(.toNearestOrEven)
                    if v > high { v = high; clamped += 1 } else if v < low { v = low; clamped += 1 }
                    x[i] = Float(v * inverse)
                }
            }
            generators[c] = rng
        }
        clampedSamples += clamped
    }
}
