#include "vector_kernels.h"

/* Products and sums stay separate instructions: the Swift kernel never fuses them. */
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

int vk_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

enum { TAPS_LAST = 15, HALF = 8 };

/* |v|: the sign bit cleared. */
__attribute__((target("avx2"))) static inline __m256 magnitude(__m256 v) {
    return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}

/* (a > b) ? a : b lane by lane, the Swift `b.replacing(with: a, where: a .> b)` (also for NaN). */
__attribute__((target("avx2"))) static inline __m256 larger(__m256 a, __m256 b) {
    return _mm256_max_ps(a, b);
}

__attribute__((target("avx2")))
float vk_true_peak_avx2(const float *base, ptrdiff_t count, const float *coefficients, int paired,
                        ptrdiff_t delay, float *frame_peaks, ptrdiff_t *processed) {
    __m256 mid_c[HALF], sum_c[HALF], diff_c[HALF];
    for (int k = 0; k < HALF; k++) {
        mid_c[k] = _mm256_set1_ps(coefficients[k]);
        sum_c[k] = paired ? _mm256_set1_ps(coefficients[HALF + k]) : _mm256_setzero_ps();
        diff_c[k] = paired ? _mm256_set1_ps(coefficients[2 * HALF + k]) : _mm256_setzero_ps();
    }
    __m256 vbest = _mm256_setzero_ps();
    ptrdiff_t n = 0;
    for (; n + 8 <= count; n += 8) {
        const float *x = base + n;
        __m256 peak;
        __m256 a = _mm256_loadu_ps(x), b = _mm256_loadu_ps(x - TAPS_LAST);
        __m256 u = _mm256_add_ps(a, b);
        if (paired) {
            __m256 v = _mm256_sub_ps(a, b);
            __m256 mid = _mm256_mul_ps(mid_c[0], u);
            __m256 sum = _mm256_mul_ps(sum_c[0], u);
            __m256 diff = _mm256_mul_ps(diff_c[0], v);
            for (int k = 1; k < HALF; k++) {
                a = _mm256_loadu_ps(x - k);
                b = _mm256_loadu_ps(x - TAPS_LAST + k);
                u = _mm256_add_ps(a, b);
                v = _mm256_sub_ps(a, b);
                mid = _mm256_add_ps(mid, _mm256_mul_ps(mid_c[k], u));
                sum = _mm256_add_ps(sum, _mm256_mul_ps(sum_c[k], u));
                diff = _mm256_add_ps(diff, _mm256_mul_ps(diff_c[k], v));
            }
            peak = magnitude(mid);
            __m256 outer = _mm256_add_ps(magnitude(sum), magnitude(diff));
            peak = larger(outer, peak);
        } else {
            __m256 mid = _mm256_mul_ps(mid_c[0], u);
            for (int k = 1; k < HALF; k++) {
                __m256 w = _mm256_add_ps(_mm256_loadu_ps(x - k), _mm256_loadu_ps(x - TAPS_LAST + k));
                mid = _mm256_add_ps(mid, _mm256_mul_ps(mid_c[k], w));
            }
            peak = magnitude(mid);
        }
        if (frame_peaks) {
            __m256 s = magnitude(_mm256_loadu_ps(x - delay));
            peak = larger(s, peak);
        }
        vbest = larger(peak, vbest);
        if (frame_peaks) _mm256_storeu_ps(frame_peaks + n, peak);
    }
    *processed = n;
    /* The lanes in order, as the Swift kernel folds them. */
    float lanes[8], best = 0;
    _mm256_storeu_ps(lanes, vbest);
    for (int l = 0; l < 8; l++) if (lanes[l] > best) best = lanes[l];
    return best;
}

/* TruePeakOversampler.absMax (fewer than 8 values) or OversamplerPeakDetector.absMax (8 on),
 * with their NaN handling: a lane that starts as NaN keeps it and is skipped at the end. */
__attribute__((target("avx2"))) static inline float unit_abs_max(const float *p, ptrdiff_t count) {
    float m = 0;
    if (count < 8) {
        for (ptrdiff_t i = 0; i < count; i++) { float a = __builtin_fabsf(p[i]); if (a > m) m = a; }
        return m;
    }
    __m256 v = magnitude(_mm256_loadu_ps(p + count - 8));
    for (ptrdiff_t i = 0; i + 8 < count; i += 8) {
        __m256 x = magnitude(_mm256_loadu_ps(p + i));
        v = _mm256_blendv_ps(v, x, _mm256_cmp_ps(x, v, _CMP_GT_OQ));
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, v);
    for (int l = 0; l < 8; l++) if (lanes[l] > m) m = lanes[l];
    return m;
}

/* The first i < count with |p[i]| == m, which must be there; p[count .. count + 7) readable.
 * Eight masks of a group of 64 are gathered before one branch: the position is unpredictable. */
__attribute__((target("avx2"))) static inline ptrdiff_t first_of_magnitude(const float *p, ptrdiff_t count, float m) {
    const __m256 vm = _mm256_set1_ps(m);
    for (ptrdiff_t g = 0;; g += 64) {
        uint64_t bits = 0;
        for (int j = 0; j < 8 && g + 8 * j < count; j++) {
            __m256 eq = _mm256_cmp_ps(magnitude(_mm256_loadu_ps(p + g + 8 * j)), vm, _CMP_EQ_OQ);
            bits |= (uint64_t)(unsigned)_mm256_movemask_ps(eq) << (8 * j);
        }
        if (count - g < 64) bits &= ((uint64_t)1 << (count - g)) - 1;
        if (bits) return g + __builtin_ctzll(bits);
    }
}

__attribute__((target("avx2")))
void vk_unit_peaks_avx2(const float *x, const ptrdiff_t *lengths, ptrdiff_t count, const float *lane_taps,
                        ptrdiff_t taps, const int *second_lanes, float *peaks) {
    const __m256 second = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)second_lanes));
    const ptrdiff_t half = taps / 2;
    for (ptrdiff_t u = 0; u < count; x += lengths[u], u++) {
        const ptrdiff_t n = lengths[u];
        const float m = unit_abs_max(x, n);
        float best = m;
        if (m > 0) {
            const ptrdiff_t a = first_of_magnitude(x, n, m);
            /* Lane by lane the sums of LimitedLoudnessAnalyzer.unitPeak, taps in order. */
            const float *first = x + (a - 1) + half, *next = x + a + half;
            __m256 s = _mm256_setzero_ps();
            for (ptrdiff_t k = 0; k < taps; k++) {
                __m256 v = _mm256_blendv_ps(_mm256_set1_ps(first[-k]), _mm256_set1_ps(next[-k]), second);
                s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_loadu_ps(lane_taps + 8 * k), v));
            }
            float lanes[8];
            _mm256_storeu_ps(lanes, magnitude(s));
            for (int l = 0; l < 8; l++) if (lanes[l] > best) best = lanes[l];
        }
        if (best > peaks[u]) peaks[u] = best;
    }
}

int vk_has_sse2(void) { return 1; }

/* Zeroes lanes between -1e-290 and 1e-290, as PairState.flushTiny does. */
static inline __m128d flush_tiny(__m128d v) {
    __m128d tiny = _mm_and_pd(_mm_cmplt_pd(v, _mm_set1_pd(1e-290)), _mm_cmpgt_pd(v, _mm_set1_pd(-1e-290)));
    return _mm_andnot_pd(tiny, v);
}

void vk_kweight_pair_sse2(const float *a, const float *b, const ptrdiff_t *pieces, ptrdiff_t count,
                          ptrdiff_t closed, const double coefficients[7], double state[14],
                          const double weights[2], double *energies, double *lanes) {
    const __m128d b0 = _mm_set1_pd(coefficients[0]), b1 = _mm_set1_pd(coefficients[1]),
                  b2 = _mm_set1_pd(coefficients[2]), a1 = _mm_set1_pd(coefficients[3]),
                  a2 = _mm_set1_pd(coefficients[4]), c1 = _mm_set1_pd(coefficients[5]),
                  c2 = _mm_set1_pd(coefficients[6]), two = _mm_set1_pd(2.0);
    __m128d x1 = _mm_loadu_pd(state), x2 = _mm_loadu_pd(state + 2), y1 = _mm_loadu_pd(state + 4),
            y2 = _mm_loadu_pd(state + 6), z1 = _mm_loadu_pd(state + 8), z2 = _mm_loadu_pd(state + 10),
            sum = _mm_loadu_pd(state + 12);
    ptrdiff_t i = 0;
    for (ptrdiff_t p = 0; p < count; p++) {
        const ptrdiff_t end = i + pieces[p];
        for (; i < end; i++) {
            /* The same operations, in the same order, as LoudnessMeter.filterPair's scalar code. */
            __m128d x = _mm_cvtps_pd(_mm_unpacklo_ps(_mm_load_ss(a + i), _mm_load_ss(b + i)));
            __m128d y = _mm_sub_pd(_mm_sub_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(b0, x), _mm_mul_pd(b1, x1)),
                                                         _mm_mul_pd(b2, x2)),
                                              _mm_mul_pd(a2, y2)),
                                   _mm_mul_pd(a1, y1));
            __m128d z = _mm_sub_pd(_mm_sub_pd(_mm_add_pd(_mm_sub_pd(y, _mm_mul_pd(two, y1)), y2),
                                              _mm_mul_pd(c2, z2)),
                                   _mm_mul_pd(c1, z1));
            x2 = x1; x1 = x; y2 = y1; y1 = y; z2 = z1; z1 = z;
            sum = _mm_add_pd(sum, _mm_mul_pd(z, z));
        }
        if (p < closed) {
            double s[2];
            _mm_storeu_pd(s, sum);
            energies[p] += s[0] * weights[0] + s[1] * weights[1];
            if (lanes) { lanes[2 * p] = s[0]; lanes[2 * p + 1] = s[1]; }
            sum = _mm_setzero_pd();
            x1 = flush_tiny(x1); x2 = flush_tiny(x2); y1 = flush_tiny(y1);
            y2 = flush_tiny(y2); z1 = flush_tiny(z1); z2 = flush_tiny(z2);
        }
    }
    _mm_storeu_pd(state, x1); _mm_storeu_pd(state + 2, x2); _mm_storeu_pd(state + 4, y1);
    _mm_storeu_pd(state + 6, y2); _mm_storeu_pd(state + 8, z1); _mm_storeu_pd(state + 10, z2);
    _mm_storeu_pd(state + 12, sum);
}

#else

int vk_has_avx2(void) { return 0; }
int vk_has_sse2(void) { return 0; }

void vk_kweight_pair_sse2(const float *a, const float *b, const ptrdiff_t *pieces, ptrdiff_t count,
                          ptrdiff_t closed, const double coefficients[7], double state[14],
                          const double weights[2], double *energies, double *lanes) {
    (void)a; (void)b; (void)pieces; (void)count; (void)closed; (void)coefficients; (void)state;
    (void)weights; (void)energies; (void)lanes;
}

void vk_unit_peaks_avx2(const float *x, const ptrdiff_t *lengths, ptrdiff_t count, const float *lane_taps,
                        ptrdiff_t taps, const int *second_lanes, float *peaks) {
    (void)x; (void)lengths; (void)count; (void)lane_taps; (void)taps; (void)second_lanes; (void)peaks;
}

float vk_true_peak_avx2(const float *base, ptrdiff_t count, const float *coefficients, int paired,
                        ptrdiff_t delay, float *frame_peaks, ptrdiff_t *processed) {
    (void)base; (void)count; (void)coefficients; (void)paired; (void)delay; (void)frame_peaks;
    *processed = 0;
    return 0;
}

#endif
