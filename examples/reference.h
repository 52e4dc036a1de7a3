/* reference.h — the two example kernels written as plain scalar C, the answers every
 * output element of blur3x3.tine and q15_mul.tine is checked against (main.c, cxx_caller.cpp,
 * api/run_kernel.c). Written from the kernels' definitions, not from tine's code; valid C
 * and C++. */
#ifndef EXAMPLE_REFERENCE_H
#define EXAMPLE_REFERENCE_H

#include <stdint.h>

/* blur3x3 at (x, y) of a w x h image (rows `stride` elements apart), edges repeated */
static inline uint8_t ref_blur3x3(const uint8_t *in, int w, int h, int stride, int x, int y) {
    unsigned sum = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int cx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
            int cy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
            sum += in[cy * stride + cx];
        }
    return (uint8_t)((sum + 4) / 9);
}

static inline int16_t ref_sat16(int64_t v) {
    return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

/* the Q15 product of a and b rounded to nearest (halves up) and saturated, plus offset
 * with saturation; the floor division keeps clear of >> on negative numbers */
static inline int16_t ref_q15_mul(int16_t a, int16_t b, int16_t offset) {
    int64_t p = (int64_t)a * b + (1 << 14), q = p / 32768;
    if (p % 32768 < 0) q--;
    return ref_sat16((int64_t)ref_sat16(q) + offset);
}

/* a small deterministic generator for the inputs (the same on every machine) */
static inline uint32_t example_rand(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

#endif
