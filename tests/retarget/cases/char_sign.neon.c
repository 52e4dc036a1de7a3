/* --check's own test: plain char is unsigned on AArch64 and signed on x86, so this
 * function's results differ between the source's target and the rewrite's, as --check
 * must report (its vector half is retargeted faithfully) */
#include <arm_neon.h>
#include <stdint.h>
int negatives(const char *p, uint8_t *d, int n) {
    int k = 0;
    for (int i = 0; i < n; i++) k += p[i] < 0;
    for (int i = 0; i + 16 <= n; i += 16) vst1q_u8(d + i, vld1q_u8((const uint8_t *)p + i));
    return k;
}
