#include <arm_neon.h>
void use(uint8x16_t v);
void f(const uint8_t *a) {
    use(vld1q_u8(a));
}
