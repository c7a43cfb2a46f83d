#include "vector_kernels.h"

/* Products and sums stay separate instructions, as in the Swift SIMD8 code this replaces. */
#pragma clang fp contract(off)
#pragma STDC FP_CONTRACT OFF

/* Eight float lanes as two halves of four (one SSE register each, on x86-64); lane-wise + and *
 * are IEEE single operations. Only used inside this file's functions, so no vector crosses a call. */
typedef float lanes4 __attribute__((vector_size(16), aligned(4)));

#define LOAD4(p) (*(const lanes4 *)(const void *)(p))

/* acc (lanes lo, hi) += row[i ..< i + 8] * x[i ..< i + 8], lane by lane. */
#define MAC8(lo, hi, row, x, i) do { \
        lo += LOAD4((row) + (i)) * LOAD4((x) + (i)); \
        hi += LOAD4((row) + (i) + 4) * LOAD4((x) + (i) + 4); \
    } while (0)

/* The eight lanes added in order from -0, as Swift's SIMD8<Float>.sum(). */
#define SUM8(lo, hi) ((((((((-0.0f + (lo)[0]) + (lo)[1]) + (lo)[2]) + (lo)[3]) + (hi)[0]) + (hi)[1]) + (hi)[2]) + (hi)[3])

void vk_columns_product(const float *w, const float *bias, ptrdiff_t rows, ptrdiff_t stride,
                        const float *const *columns, ptrdiff_t count, float *out) {
    ptrdiff_t t = 0;
    for (; t + 4 <= count; t += 4) {
        const float *x0 = columns[t], *x1 = columns[t + 1], *x2 = columns[t + 2], *x3 = columns[t + 3];
        for (ptrdiff_t r = 0; r < rows; r++) {
            const float *row = w + r * stride;
            lanes4 a0 = {0}, b0 = {0}, a1 = {0}, b1 = {0}, a2 = {0}, b2 = {0}, a3 = {0}, b3 = {0};
            for (ptrdiff_t i = 0; i < stride; i += 8) {
                MAC8(a0, b0, row, x0, i);
                MAC8(a1, b1, row, x1, i);
                MAC8(a2, b2, row, x2, i);
                MAC8(a3, b3, row, x3, i);
            }
            const float b = bias[r];
            out[t * rows + r] = b + SUM8(a0, b0);
            out[(t + 1) * rows + r] = b + SUM8(a1, b1);
            out[(t + 2) * rows + r] = b + SUM8(a2, b2);
            out[(t + 3) * rows + r] = b + SUM8(a3, b3);
        }
    }
    for (; t < count; t++) {
        const float *x0 = columns[t];
        for (ptrdiff_t r = 0; r < rows; r++) {
            const float *row = w + r * stride;
            /* Two accumulators over alternate groups of eight, added lane-wise at the end. */
            lanes4 a0 = {0}, b0 = {0}, a1 = {0}, b1 = {0};
            ptrdiff_t i = 0;
            for (; i + 16 <= stride; i += 16) {
                MAC8(a0, b0, row, x0, i);
                MAC8(a1, b1, row, x0, i + 8);
            }
            if (i < stride) MAC8(a0, b0, row, x0, i);
            const lanes4 lo = a0 + a1, hi = b0 + b1;
            out[t * rows + r] = bias[r] + SUM8(lo, hi);
        }
    }
}
