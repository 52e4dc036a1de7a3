/* the Neon branch is the one retargeted, and the one the output compiles */
#include <stdint.h>
#ifdef __ARM_NEON
#include <arm_neon.h>
#endif
int which(void) {
#if defined(__ARM_NEON) && !defined(__x86_64__)
    return 1;
#else
    return 0;
#endif
}
void add1(uint8_t *d, const uint8_t *a, int n) {
#ifdef __ARM_NEON
    for (int i = 0; i + 16 <= n; i += 16) vst1q_u8(d + i, vaddq_u8(vld1q_u8(a + i), vdupq_n_u8(1)));
#else
    for (int i = 0; i < n; i++) d[i] = (uint8_t)(a[i] + 1);
#endif
}
