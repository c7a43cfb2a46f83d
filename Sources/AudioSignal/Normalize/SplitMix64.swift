import Foundation

/// SplitMix64: a tiny, fast, seedable generator. The one generator of the project, shared by the
/// TPDF dither (whose output must be byte-identical run to run) and the tests' synthesised signals.
package struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) from the top 53 bits of one draw.
    @inline(__always)
    public mutating func uniform() -> Double { Double(next() >> 11) / 9_007_199_254_740_992 }

    /// Uniform in [lo, hi).
    @inline(__always)
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }

    /// Uniform in [−1, 1).
    @inline(__always)
    public mutating func bipolar() -> Double { 2 * uniform() - 1 }

    /// Standard normal (Box–Muller, cosine branch; two draws per value).
    public mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    /// Triangular (TPDF) noise in (−1, 1), in LSB: the difference of two uniforms on [0, 1),
    /// each 24 bits taken from one 64-bit draw.
    @inline(__always)
    public mutating func triangular() -> Float {
        let x = next()
        let scale: Float = 1.0 / 16_777_216
        return Float(x >> 40) * scale - Float((x >> 16) & 0xFF_FFFF) * scale
    }
}
