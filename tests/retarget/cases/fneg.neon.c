/* fneg.neon.c — negations beside the float arithmetic that reads them, for the peephole
 * after selection (tests/retarget/check_cases.sh): a negated factor of vfmaq_f32, vfmsq_f32
 * (the same), a - (-b) (also in a loop widened on AVX2); and a product and a sum that must
 * stay two roundings. */
#include <arm_neon.h>
#include <stdint.h>

/* A fraction of 16 significant bits in [-8, 8): the top half of the word over 2^12 (a
 * division by a power of two, exact). */
static inline float32x4_t frac(const int32_t *p) {
    return vdivq_f32(vcvtq_f32_s32(vshrq_n_s32(vld1q_s32(p), 16)), vcvtq_f32_s32(vdupq_n_s32(4096)));
}

/* The result with 20 bits of its fraction, as an integer (|r| < 2^7: it fits). */
static inline void put(int32_t *d, float32x4_t r) {
    vst1q_s32(d, vcvtq_s32_f32(vmulq_f32(r, vcvtq_f32_s32(vdupq_n_s32(1 << 20)))));
}

void fnma(int32_t *d, const int32_t *a, const int32_t *b, const int32_t *c, int n) {
    for (int i = 0; i + 4 <= n; i += 4) put(d + i, vfmaq_f32(frac(c + i), vnegq_f32(frac(a + i)), frac(b + i)));
}

void fms(int32_t *d, const int32_t *a, const int32_t *b, const int32_t *c, int n) {
    for (int i = 0; i + 4 <= n; i += 4) put(d + i, vfmsq_f32(frac(c + i), frac(a + i), frac(b + i)));
}

void subneg(int32_t *d, const int32_t *a, const int32_t *b, int n) {
    for (int i = 0; i + 4 <= n; i += 4) put(d + i, vsubq_f32(frac(a + i), vnegq_f32(frac(b + i))));
}

/* A product and a sum, each rounded: no FMA in the rewrite (the contract pass stays off). */
void muladd(int32_t *d, const int32_t *a, const int32_t *b, const int32_t *c, int n) {
    for (int i = 0; i + 4 <= n; i += 4) put(d + i, vaddq_f32(vmulq_f32(frac(a + i), frac(b + i)), frac(c + i)));
}

/* Widened on AVX2 (its own conversions only, no helper): the rewrite counted for the wide
 * loop. The integers are shifted to 24 bits so that the sum converts back in range (an
 * out-of-range conversion is another matter). */
void subneg_int(int32_t *d, const int32_t *a, const int32_t *b, int n) {
    for (int i = 0; i + 4 <= n; i += 4) {
        float32x4_t x = vcvtq_f32_s32(vshrq_n_s32(vld1q_s32(a + i), 8));
        float32x4_t y = vcvtq_f32_s32(vshrq_n_s32(vld1q_s32(b + i), 8));
        vst1q_s32(d + i, vcvtq_s32_f32(vsubq_f32(x, vnegq_f32(y))));
    }
}
