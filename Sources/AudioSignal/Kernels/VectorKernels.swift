import CVectorKernels

/// The C kernels written for one instruction set (AVX2, SSE2), behind Swift signatures. Each
/// computes the same bits as the portable Swift kernel it stands for; callers check `hasAVX2` or
/// `hasSSE2`, and `portableOnly`, when they are made.
package enum VectorKernels {
    /// Meters and oversamplers made while this is true keep to the portable Swift kernels: for
    /// tests that compare the two paths.
    @TaskLocal package static var portableOnly = false

    /// Whether this CPU runs AVX2 (false off x86-64).
    package static let hasAVX2: Bool = vk_has_avx2() != 0

    /// `TruePeakOversampler.kernel`'s vector loop on AVX2: positions `base[0 ..< processed]`, the
    /// largest multiple of 8 up to `count` (`base[-15 ...]` is the history). `coefficients` are
    /// the folded taps as scalars (8 middle-branch, then at 4× 8 half sums and 8 half differences).
    /// Returns the lanes' largest peak, folded in lane order, and how many positions were done.
    package static func truePeakAVX2(base: UnsafePointer<Float>, count: Int, coefficients: UnsafePointer<Float>,
                             paired: Bool, delay: Int, framePeaks: UnsafeMutablePointer<Float>?) -> (best: Float, processed: Int) {
        var processed = 0
        let best = vk_true_peak_avx2(base, count, coefficients, paired ? 1 : 0, delay, framePeaks, &processed)
        return (best, processed)
    }

    /// `LimitedLoudnessAnalyzer.unitPeak` over consecutive units of one channel on AVX2 (lengths
    /// from `x` on; `taps / 2` samples readable either side), each result raising `peaks[u]`.
    /// `laneTaps`: 8 floats per tap; `secondLanes`: −1 where a lane reads one sample later.
    package static func unitPeaksAVX2(_ x: UnsafePointer<Float>, lengths: UnsafeBufferPointer<Int>, laneTaps: UnsafePointer<Float>,
                              taps: Int, secondLanes: UnsafePointer<Int32>, peaks: UnsafeMutablePointer<Float>) {
        vk_unit_peaks_avx2(x, lengths.baseAddress, lengths.count, laneTaps, taps, secondLanes, peaks)
    }

    /// Whether `kWeightPair` runs its SSE2 loop (x86-64).
    package static let hasSSE2: Bool = vk_has_sse2() != 0

    /// `LoudnessMeter`'s K-weighting of a channel pair over consecutive pieces, with the pair's
    /// filter state and sums in `state` (x1, x2, y1, y2, z1, z2 as lane pairs, then the sums);
    /// each of the first `closed` pieces adds its weighted energy to `energies`. The same bits as
    /// the Swift loop. With `lanes`, each closed piece's unweighted sums also go to lanes[2p], lanes[2p+1].
    package static func kWeightPair(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, pieces: UnsafeBufferPointer<Int>,
                            closed: Int, coefficients: UnsafePointer<Double>, state: UnsafeMutablePointer<Double>,
                            weights: UnsafePointer<Double>, energies: UnsafeMutablePointer<Double>,
                            lanes: UnsafeMutablePointer<Double>? = nil) {
        vk_kweight_pair_sse2(a, b, pieces.baseAddress, pieces.count, closed, coefficients, state, weights, energies, lanes)
    }

    /// `out[t·rows + r] = bias[r] + w[r] · columns[t]` over rows `stride` floats apart (a multiple
    /// of 8, zero-padded); eight lanes per column, added in lane order. Portable C, compiled
    /// optimised in debug builds too, where the Swift SIMD loop it replaced ran 200× slower.
    package static func columnsProduct(_ w: UnsafePointer<Float>, bias: UnsafePointer<Float>, rows: Int, stride: Int,
                               columns: [UnsafePointer<Float>], into out: UnsafeMutablePointer<Float>) {
        precondition(stride % 8 == 0)
        columns.withUnsafeBufferPointer { c in
            c.withMemoryRebound(to: UnsafePointer<Float>?.self) { vk_columns_product(w, bias, rows, stride, $0.baseAddress, c.count, out) }
        }
    }
}
