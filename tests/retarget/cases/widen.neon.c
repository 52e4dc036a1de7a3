/* Loops of 128-bit vectors that tine retarget widens on AVX2 and AVX-512, and loops it
 * must not widen, or only when the pointers do not overlap at run time. */
#include <arm_neon.h>
#include <stdint.h>

/* four loads a copy, one window of memory: the copies join into one computation */
void scale_s32_u8(uint8_t *dst, const int32_t *src, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        int32x4_t v0 = vshrq_n_s32(vld1q_s32(src + i), 4);
        int32x4_t v1 = vshrq_n_s32(vld1q_s32(src + i + 4), 4);
        int32x4_t v2 = vshrq_n_s32(vld1q_s32(src + i + 8), 4);
        int32x4_t v3 = vshrq_n_s32(vld1q_s32(src + i + 12), 4);
        int16x8_t w0 = vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1));
        int16x8_t w1 = vcombine_s16(vqmovn_s32(v2), vqmovn_s32(v3));
        vst1q_u8(dst + i, vcombine_u8(vqmovun_s16(w0), vqmovun_s16(w1)));
    }
    for (; i < n; i++) {
        int32_t v = src[i] >> 4;
        dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* each iteration reads what the one before wrote: never widened */
void carry_add1(uint8_t *p, int n) {
    int i = 0;
    for (; i + 24 <= n; i += 16) vst1q_u8(p + i + 8, vaddq_u8(vld1q_u8(p + i), vdupq_n_u8(1)));
}

/* widened, but run as written when dst and src overlap (checked before the loop) */
void add1(uint8_t *dst, const uint8_t *src, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) vst1q_u8(dst + i, vaddq_u8(vld1q_u8(src + i), vdupq_n_u8(1)));
    for (; i < n; i++) dst[i] = (uint8_t)(src[i] + 1);
}

/* an accumulator: each copy adds into its own slice, the slices added after the loop */
uint32_t sum_u8(const uint8_t *p, int n) {
    uint32x4_t acc = vdupq_n_u32(0);
    int i = 0;
    for (; i + 16 <= n; i += 16) acc = vpadalq_u16(acc, vpaddlq_u8(vld1q_u8(p + i)));
    uint32_t s = vaddvq_u32(acc);
    for (; i < n; i++) s += p[i];
    return s;
}

/* two accumulators, a min and a max */
int32_t range_s16(const int16_t *p, int n) {
    int16x8_t mn = vdupq_n_s16(32767), mx = vdupq_n_s16(-32768);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        int16x8_t x = vld1q_s16(p + i);
        mn = vminq_s16(mn, x);
        mx = vmaxq_s16(mx, x);
    }
    int m0 = vminvq_s16(mn), m1 = vmaxvq_s16(mx);
    for (; i < n; i++) {
        if (p[i] < m0) m0 = p[i];
        if (p[i] > m1) m1 = p[i];
    }
    return m1 - m0;
}

/* an accumulator the body also stores (a running sum): not widened */
void running_u32(uint32_t *out, const uint32_t *p, int n) {
    uint32x4_t acc = vdupq_n_u32(0);
    for (int i = 0; i + 4 <= n; i += 4) {
        acc = vaddq_u32(acc, vld1q_u32(p + i));
        vst1q_u32(out + i, acc);
    }
}
