#include <arm_neon.h>
void f(uint8_t *d, const uint16_t *a) {
    vst1q_u8(d, vld1q_u16(a));
}
