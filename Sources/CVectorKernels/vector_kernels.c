#include "vector_kernels.h"

/* Products and sums stay separate instructions: the Swift kernel never fuses them. */
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__)
#include <immintrin.h>

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

#else

int vk_has_avx2(void) { return 0; }

float vk_true_peak_avx2(const float *base, ptrdiff_t count, const float *coefficients, int paired,
                        ptrdiff_t delay, float *frame_peaks, ptrdiff_t *processed) {
    (void)base; (void)count; (void)coefficients; (void)paired; (void)delay; (void)frame_peaks;
    *processed = 0;
    return 0;
}

#endif
