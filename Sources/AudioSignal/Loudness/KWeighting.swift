import Foundation

/// The BS.1770 K-weighting filter (a high-shelf "pre-filter" then the RLB high-pass), derived
/// for any sample rate from the analog prototype behind BS.1770's 48 kHz table by a bilinear
/// transform prewarped at each stage's corner frequency.
package struct KWeighting: Equatable, Sendable {
    /// One second-order section, normalised so that a0 = 1: y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂.
    public struct Biquad: Equatable, Sendable {
        public var b0, b1, b2, a1, a2: Double

        /// Magnitude of the section's response at `frequency` Hz for `sampleRate`.
        public func magnitude(at frequency: Double, sampleRate: Double) -> Double {
            let w = 2 * Double.pi * frequency / sampleRate
            let (c1, s1, c2, s2) = (cos(w), sin(w), cos(2 * w), sin(2 * w))
            let nr = b0 + b1 * c1 + b2 * c2, ni = -(b1 * s1 + b2 * s2)
            let dr = 1 + a1 * c1 + a2 * c2, di = -(a1 * s1 + a2 * s2)
            return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
        }
    }

    /// The high-shelf that models the acoustic effect of the head (+4 dB above ~1.7 kHz).
    public let shelf: Biquad
    /// The revised low-frequency B-weighting high-pass (second order, ~38 Hz). Its numerator is
    /// always exactly 1, −2, 1.
    public let highPass: Biquad
    public let sampleRate: Int

    /// Analog prototype parameters recovered from the BS.1770 48 kHz coefficients.
    package enum Prototype {
        package static let shelfFrequency = 1681.974450955533
        package static let shelfGainDB = 3.999843853973347
        package static let shelfQ = 0.7071752369554196
        /// Exponent relating the shelf's band gain to its high-frequency gain.
        package static let shelfBandExponent = 0.4996667741545416
        package static let highPassFrequency = 38.13547087602444
        package static let highPassQ = 0.5003270373238773
    }

    /// Valid from 8 kHz to 384 kHz (the prototype corners must sit well below Nyquist).
    public init(sampleRate: Int) {
        precondition(sampleRate >= 8000 && sampleRate <= 384_000, "K-weighting needs 8 kHz to 384 kHz")
        self.sampleRate = sampleRate
        let fs = Double(sampleRate)

        var k = tan(Double.pi * Prototype.shelfFrequency / fs)
        let q = Prototype.shelfQ
        let vh = pow(10, Prototype.shelfGainDB / 20)
        let vb = pow(vh, Prototype.shelfBandExponent)
        var a0 = 1 + k / q + k * k
        shelf = Biquad(b0: (vh + vb * k / q + k * k) / a0,
                       b1: 2 * (k * k - vh) / a0,
                       b2: (vh - vb * k / q + k * k) / a0,
                       a1: 2 * (k * k - 1) / a0,
                       a2: (1 - k / q + k * k) / a0)

        k = tan(Double.pi * Prototype.highPassFrequency / fs)
        let qh = Prototype.highPassQ
        a0 = 1 + k / qh + k * k
        highPass = Biquad(b0: 1, b1: -2, b2: 1,
                          a1: 2 * (k * k - 1) / a0,
                          a2: (1 - k / qh + k * k) / a0)
    }

    /// |H_K| at `frequency` Hz: the product of both sections' magnitudes.
    public func magnitude(at frequency: Double) -> Double {
        let fs = Double(sampleRate)
        return shelf.magnitude(at: frequency, sampleRate: fs) * highPass.magnitude(at: frequency, sampleRate: fs)
    }
}
