import Foundation
import Testing
@testable import AudioIO
@testable import AudioSignal
@testable import AudioToolsKit
@testable import JSONValue
@testable import ToolRunner

@Suite struct RealFFTTests {
    @Test func roundTripIsSizeTimesInput() {
        let n = 96
        let fft = RealFFT(size: n)
        var rng = SplitMix64(seed: 7)
        let x = (0..<n).map { _ in Float(rng.bipolar()) }
        let y = fft.inverse(fft.forward(x))
        for i in 0..<n { #expect(abs(y[i] / Float(n) - x[i]) < 1e-5) }
    }

    @Test func cosineLandsInItsBin() {
        let n = 240, k = 17
        let fft = RealFFT(size: n)
        let x = (0..<n).map { Float(cos(2 * Double.pi * Double(k * $0) / Double(n))) }
        let s = fft.forward(x)
        for b in 0...(n / 2) {
            let mag = (s[2 * b] * s[2 * b] + s[2 * b + 1] * s[2 * b + 1]).squareRoot()
            #expect(abs(mag - (b == k ? Float(n / 2) : 0)) < 1e-3)
        }
    }

    @Test func shortInputIsZeroPadded() {
        let fft = RealFFT(size: 8)
        let s = fft.forward([1])  // an impulse: flat spectrum
        for b in 0...4 { #expect(abs(s[2 * b] - 1) < 1e-6 && abs(s[2 * b + 1]) < 1e-6) }
    }

    @Test func fastSizesHaveSmallFactors() {
        for n in [1, 2, 7, 1001, 96_130, 1_234_567] {
            let m = RealFFT.fastSize(atLeast: n)
            #expect(m >= n && m % 2 == 0)
            var h = m / 2
            for p in [2, 3, 5] { while h % p == 0 { h /= p } }
            #expect(h == 1)
            #expect(Double(m) < Double(max(n, 2)) * 1.25 + 2)
        }
    }
}
