#include <arm_neon.h>
void f(uint8_t *d, const uint8_t *a) {
    vst1q_u8(d, vfrobq_u8(vld1q_u8(a)));
}
