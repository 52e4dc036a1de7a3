/* metric: reference implementations (portable C).
 * Sums are taken modulo 2^32 (unsigned arithmetic), as the SIMD versions'
 * 32-bit accumulators do; for realistic sizes they never wrap. */
#include <stddef.h>
#include <stdint.h>

/* Sum of absolute differences. */
uint32_t ref_sad_u8(const uint8_t *a, const uint8_t *b, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++) s += (uint32_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

/* SAD of a 16 x h block, h in 0..128. */
uint32_t ref_sad16xh_u8(const uint8_t *src, ptrdiff_t src_stride, const uint8_t *ref,
                        ptrdiff_t stride, int h) {
  uint32_t s = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < 16; x++) {
      int d = src[y * src_stride + x] - ref[y * stride + x];
      s += (uint32_t)(d < 0 ? -d : d);
    }
  return s;
}

/* Sum of squared differences. */
uint32_t ref_sse_u8(const uint8_t *a, const uint8_t *b, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t)(d * d);
  }
  return s;
}

/* Sum of int16 values, wrapping modulo 2^32. */
int32_t ref_sum_s16(const int16_t *a, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++) s += (uint32_t)(int32_t)a[i];
  return (int32_t)s;
}

/* min | max << 8 (255 | 0 << 8 for n == 0). */
uint32_t ref_minmax_u8(const uint8_t *a, int n) {
  uint8_t mn = 255, mx = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  return (uint32_t)mn | (uint32_t)mx << 8;
}

/* out[0] = min, out[1] = max (32767 and -32768 for n == 0). */
void ref_minmax_s16(const int16_t *a, int n, int16_t *out) {
  int16_t mn = 32767, mx = -32768;
  for (int i = 0; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  out[0] = mn;
  out[1] = mx;
}
