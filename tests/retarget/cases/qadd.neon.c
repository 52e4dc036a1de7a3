/* vqaddq_u8 is one instruction on every x86 level: paddusb */
#include <arm_neon.h>
#include <stdint.h>
void add_sat(uint8_t *d, const uint8_t *a, const uint8_t *b, int n) {
    for (int i = 0; i + 16 <= n; i += 16) vst1q_u8(d + i, vqaddq_u8(vld1q_u8(a + i), vld1q_u8(b + i)));
}
