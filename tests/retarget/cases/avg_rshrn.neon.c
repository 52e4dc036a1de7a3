#include <arm_neon.h>
#include <stdint.h>
void avg_rows(uint8_t *dst, const uint8_t *a, const uint8_t *b, int n) {
    for (int i = 0; i + 16 <= n; i += 16) {
        uint8x16_t x = vld1q_u8(a + i), y = vld1q_u8(b + i);
        uint16x8_t lo = vaddq_u16(vmovl_u8(vget_low_u8(x)), vmovl_u8(vget_low_u8(y)));
        uint16x8_t hi = vaddq_u16(vmovl_u8(vget_high_u8(x)), vmovl_u8(vget_high_u8(y)));
        vst1q_u8(dst + i, vcombine_u8(vrshrn_n_u16(lo, 1), vrshrn_n_u16(hi, 1)));
    }
}
