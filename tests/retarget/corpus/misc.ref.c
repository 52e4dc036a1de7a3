/* misc: reference implementations (portable C).
 * Dot products are taken modulo 2^32 like the SIMD 32-bit accumulators. */
#include <stddef.h>
#include <stdint.h>

/* sum a[i] * b[i], int16 x int16 -> int32 (wrapping). */
int32_t ref_dot_s16(const int16_t *a, const int16_t *b, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

/* sum a[i] * b[i], uint8 x int8 with b in -64..63 (so that adjacent pairs of
 * products fit in int16, as pmaddubsw requires). */
int32_t ref_dot_u8s8(const uint8_t *a, const int8_t *b, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

/* |a - b| per byte. */
void ref_absdiff_u8(uint8_t *dst, const uint8_t *a, const uint8_t *b, int n) {
  for (int i = 0; i < n; i++) dst[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
}

/* memchr-like: index of the first byte equal to c (0..255), or -1. */
int ref_find_byte(const uint8_t *s, int n, int c) {
  for (int i = 0; i < n; i++)
    if (s[i] == c) return i;
  return -1;
}

/* dst = a > b ? x : y (signed compare). */
void ref_select_gt_s16(int16_t *dst, const int16_t *a, const int16_t *b, const int16_t *x,
                       const int16_t *y, int n) {
  for (int i = 0; i < n; i++) dst[i] = a[i] > b[i] ? x[i] : y[i];
}

/* Binary threshold: 255 where src > thresh (0..255), else 0. */
void ref_threshold_u8(uint8_t *dst, const uint8_t *src, int thresh, int n) {
  for (int i = 0; i < n; i++) dst[i] = src[i] > thresh ? 255 : 0;
}
