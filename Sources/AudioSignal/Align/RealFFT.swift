import CKissFFT
import Foundation

/// A real-input FFT of one fixed size over KissFFT. The forward and inverse plans are built once
/// and freed with the object. Not thread-safe: each instance owns one scratch buffer.
///
/// Spectra are interleaved `[re0, im0, re1, im1, …]` with `size / 2 + 1` bins (`size + 2`
/// floats). The inverse is unscaled: `inverse(forward(x))` gives `size · x`.
package final class RealFFT {
    /// Number of time-domain points (even).
    public let size: Int
    /// Number of complex bins of a spectrum: `size / 2 + 1`.
    public var binCount: Int { size / 2 + 1 }

    private let forwardPlan: kiss_fftr_cfg
    private let inversePlan: kiss_fftr_cfg
    private var scratch: UnsafeMutablePointer<Float>

    /// Builds the plans for `size` points; `size` must be even and at least 2.
    public init(size: Int) {
        precondition(size >= 2 && size % 2 == 0, "RealFFT size must be even")
        precondition(size <= Int(Int32.max), "RealFFT size too large")
        self.size = size
        guard let f = kiss_fftr_alloc(Int32(size), 0, nil, nil),
              let i = kiss_fftr_alloc(Int32(size), 1, nil, nil) else {
            fatalError("KissFFT could not allocate a plan of \(size) points")
        }
        forwardPlan = f
        inversePlan = i
        scratch = .allocate(capacity: size + 2)
    }

    deinit {
        // kiss_fftr_free is a macro for free().
        free(UnsafeMutableRawPointer(forwardPlan))
        free(UnsafeMutableRawPointer(inversePlan))
        scratch.deallocate()
    }

    /// The smallest even size ≥ `n` whose half has only the factors 2, 3 and 5 (fast for KissFFT).
    public static func fastSize(atLeast n: Int) -> Int {
        var half = max(1, (n + 1) / 2)
        while true {
            var m = half
            for p in [2, 3, 5] { while m % p == 0 { m /= p } }
            if m == 1 { return half * 2 }
            half += 1
        }
    }

    /// Forward transform of `input` (up to `size` samples, zero-padded) into `spectrum`
    /// (at least `size + 2` floats, interleaved re/im).
    public func forward(_ input: UnsafeBufferPointer<Float>, into spectrum: UnsafeMutableBufferPointer<Float>) {
        precondition(input.count <= size && spectrum.count >= size + 2)
        let n = input.count
        if n > 0 { scratch.update(from: input.baseAddress!, count: n) }
        if n < size { (scratch + n).initialize(repeating: 0, count: size - n) }
        spectrum.baseAddress!.withMemoryRebound(to: kiss_fft_cpx.self, capacity: binCount) { out in
            kiss_fftr(forwardPlan, scratch, out)
        }
    }

    /// Unscaled inverse transform of `spectrum` (`size + 2` floats) into `output` (`size` floats).
    /// The spectrum is left unchanged.
    public func inverse(_ spectrum: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(spectrum.count >= size + 2 && output.count >= size)
        // kiss_fftri reads through a const pointer; copy to scratch so callers may pass read-only memory.
        scratch.update(from: spectrum.baseAddress!, count: size + 2)
        scratch.withMemoryRebound(to: kiss_fft_cpx.self, capacity: binCount) { bins in
            kiss_fftri(inversePlan, bins, output.baseAddress!)
        }
    }

    /// Array convenience for `forward`: returns `size + 2` interleaved floats.
    public func forward(_ input: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: size + 2)
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { forward(i, into: $0) } }
        return out
    }

    /// Array convenience for `inverse` (unscaled).
    public func inverse(_ spectrum: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: size)
        spectrum.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { inverse(s, into: $0) } }
        return out
    }
}
