import Foundation

/// Integer-factor decimation to the detector's 16 kHz (48 kHz ÷ 3, 32 kHz ÷ 2, 96 kHz ÷ 6): a
/// Blackman-windowed sinc low-pass of 16 taps per factor, cut at 7.2 kHz, evaluated only at the
/// kept samples. A fifth of what libsamplerate's fastest converter costs on the same audio, which
/// was half of --dialogue's time; other rates still go through libsamplerate.
package final class SpeechDecimator {
    package let factor: Int
    /// The filter, symmetric, a multiple of 8 long.
    package let taps: [Float]
    /// The last `taps.count − 1` input samples, then the block being filtered.
    private var buffer: [Float]
    /// Input samples to skip before the next kept one.
    private var skip = 0

    package init(factor: Int) {
        self.factor = factor
        let n = 16 * factor + (8 - (16 * factor) % 8) % 8
        let cutoff = 7_200.0 / Double(16_000 * factor)  // cycles per input sample
        var h = (0..<n).map { i -> Double in
            let t = Double(i) - Double(n - 1) / 2
            let sinc = t == 0 ? 2 * cutoff : sin(2 * .pi * cutoff * t) / (.pi * t)
            let w = 0.42 - 0.5 * cos(2 * .pi * Double(i) / Double(n - 1)) + 0.08 * cos(4 * .pi * Double(i) / Double(n - 1))
            return sinc * w
        }
        let sum = h.reduce(0, +)
        h = h.map { $0 / sum }
        taps = h.map { Float($0) }
        buffer = [Float](repeating: 0, count: n - 1)
    }

    /// The 16 kHz samples of the next `count` input samples, appended to `out`.
    package func process(_ input: UnsafeBufferPointer<Float>, into out: inout [Float]) {
        let n = taps.count, keep = n - 1
        buffer.append(contentsOf: input)
        buffer.withUnsafeBufferPointer { b in
            taps.withUnsafeBufferPointer { t in
                let bp = UnsafeRawPointer(b.baseAddress!), tp = UnsafeRawPointer(t.baseAddress!)
                var p = skip  // output j uses buffer[p ..< p + n]
                while p + n <= b.count {
                    var a0 = SIMD8<Float>(), a1 = SIMD8<Float>()
                    var k = 0
                    while k + 16 <= n {
                        a0 += bp.loadUnaligned(fromByteOffset: 4 * (p + k), as: SIMD8<Float>.self) * tp.loadUnaligned(fromByteOffset: 4 * k, as: SIMD8<Float>.self)
                        a1 += bp.loadUnaligned(fromByteOffset: 4 * (p + k + 8), as: SIMD8<Float>.self) * tp.loadUnaligned(fromByteOffset: 4 * (k + 8), as: SIMD8<Float>.self)
                        k += 16
                    }
                    if k < n { a0 += bp.loadUnaligned(fromByteOffset: 4 * (p + k), as: SIMD8<Float>.self) * tp.loadUnaligned(fromByteOffset: 4 * k, as: SIMD8<Float>.self) }
                    out.append((a0 + a1).sum())
                    p += factor
                }
                skip = p - (b.count - keep)
            }
        }
        buffer.removeFirst(buffer.count - keep)
    }
}
