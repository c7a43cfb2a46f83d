/* Vector kernels for audio-tools written for one instruction set, each the exact counterpart of
 * a portable Swift kernel: same operations in the same order, no fused multiply-add, so every
 * result has the bits the Swift code computes. Callers check vk_has_avx2() or vk_has_sse2() first. */
#ifndef VECTOR_KERNELS_H
#define VECTOR_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the CPU runs AVX2 instructions (always 0 off x86-64). */
int vk_has_avx2(void);

/* The true-peak interpolator of TruePeakOversampler.kernel, whole groups of 8 positions only:
 * positions base[0 .. 8*floor(count/8)), reading base[-15 ..] as history.
 *
 * coefficients: the folded taps, one per tap pair k < 8: 8 of the middle branch, then (paired
 * only) 8 half sums and 8 half differences of branches 1 and 3. paired: 4x oversampling (three
 * interpolated points per sample) rather than 2x (one). delay: with frame_peaks, the lag of the
 * input sample that joins each frame's peak. frame_peaks: NULL for the running maximum, else
 * receives every position's peak.
 *
 * Returns the largest peak (0 when no group was processed); *processed receives the positions
 * done (a multiple of 8), the rest being the caller's scalar tail. */
float vk_true_peak_avx2(const float *base, ptrdiff_t count, const float *coefficients, int paired,
                        ptrdiff_t delay, float *frame_peaks, ptrdiff_t *processed);

/* LimitedLoudnessAnalyzer.unitPeak over `count` consecutive units of one channel, unit u being
 * lengths[u] samples on from the previous one's end, the first at x[0] (x[-taps/2 ...] and
 * taps/2, at least 7, samples past the last unit readable). Per unit: its largest |sample| m (NaN skipped as
 * the Swift kernels skip it) and, when m > 0, eight interpolated sums around the first sample of
 * magnitude m: lane l sums lane_taps[8k + l] * x[a - 1 + taps/2 - k] over k in order, reading x
 * one sample later where second_lanes[l] is -1. peaks[u] becomes the largest of m, those sums'
 * magnitudes and its own value (the channels' link). Callers check vk_has_avx2() first. */
void vk_unit_peaks_avx2(const float *x, const ptrdiff_t *lengths, ptrdiff_t count, const float *lane_taps,
                        ptrdiff_t taps, const int *second_lanes, float *peaks);

/* 1 where vk_kweight_pair_sse2 runs the SSE2 loop (x86-64, where SSE2 is always there). */
int vk_has_sse2(void);

/* The two K-weighting stages of LoudnessMeter over a channel pair (two lanes: channels a and b),
 * piece by piece: pieces[p] frames each, consecutive from a[0] and b[0]. state holds the lanes'
 * x1, x2, y1, y2, z1, z2 (two doubles each, lane a first) and then the two running sums of z^2;
 * it is updated. Each of the first `closed` pieces ends a sub-block: its weighted energy
 * (sum_a * weights[0] + sum_b * weights[1]) is added to energies[p], the sums restart at 0, and
 * state values between -1e-290 and 1e-290 become 0 (they would turn subnormal in silences).
 * When lanes is not NULL, the unweighted sums of each closed piece go to lanes[2p] and lanes[2p+1]
 * as well (each channel's own energy, for per-channel loudness). */
void vk_kweight_pair_sse2(const float *a, const float *b, const ptrdiff_t *pieces, ptrdiff_t count,
                          ptrdiff_t closed, const double coefficients[7], double state[14],
                          const double weights[2], double *energies, double *lanes);

/* out[t*rows + r] = bias[r] + (row r of w) . columns[t], for the speech detector's layers: w holds
 * rows of `stride` floats (a multiple of 8, zero-padded), and each column must be readable for
 * `stride` floats. Four columns share each row load; eight lanes accumulate, then add in lane order.
 * Plain C on every CPU, the same bits as the Swift SIMD8 loop it replaced (SileroNetwork). */
void vk_columns_product(const float *w, const float *bias, ptrdiff_t rows, ptrdiff_t stride,
                        const float *const *columns, ptrdiff_t count, float *out);

#ifdef __cplusplus
}
#endif

#endif
