#include <arm_neon.h>
void f(uint8_t *d, const uint8_t *a) {
    uint8x16_t x = vld1q_u8(a);
    __asm__ volatile("" ::: "memory");
    vst1q_u8(d, x);
}
