/* A function tine retarget cannot rewrite (its vectors live in a struct) is kept as
 * written, its intrinsics and the helper it calls emulated; the others are rewritten. */
#include <arm_neon.h>
#include <stdint.h>

typedef struct {
    uint8x16_t lo, hi;
} pair_t;

static inline uint8x16_t inc(uint8x16_t v) { return vaddq_u8(v, vdupq_n_u8(1)); }

void pair_add(uint8_t *dst, const uint8_t *a, int n) {
    for (int i = 0; i + 32 <= n; i += 32) {
        pair_t p;
        p.lo = inc(vld1q_u8(a + i));
        p.hi = vhaddq_u8(vld1q_u8(a + i + 16), p.lo);
        vst1q_u8(dst + i, p.lo);
        vst1q_u8(dst + i + 16, p.hi);
    }
}

void add1(uint8_t *dst, const uint8_t *a, int n) {
    for (int i = 0; i + 16 <= n; i += 16) vst1q_u8(dst + i, inc(vld1q_u8(a + i)));
}
