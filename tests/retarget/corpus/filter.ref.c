/* filter: reference implementations (portable C).
 * Signed right shifts of negative values are arithmetic (as on every
 * compiler this corpus targets); that is the behaviour the SIMD code has. */
#include <stddef.h>
#include <stdint.h>

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* 1-2-1 smoothing with rounding: src holds n + 2 pixels. */
void ref_fir3_u8(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = (uint8_t)((src[i] + 2 * src[i + 1] + src[i + 2] + 2) >> 2);
}

/* 1-4-6-4-1 binomial, rounding shift by 4: src holds n + 4 pixels. */
void ref_fir5_u8(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = (uint8_t)((src[i] + 4 * src[i + 1] + 6 * src[i + 2] + 4 * src[i + 3] +
                        src[i + 4] + 8) >> 4);
}

/* Signed 3-tap filter, taps c0..c2 in -42..42 (so the sum fits in 16 bits),
 * Q6 with rounding and saturation: src holds n + 2 pixels. */
void ref_fir3_taps_u8(uint8_t *dst, const uint8_t *src, int c0, int c1, int c2, int n) {
  for (int i = 0; i < n; i++) {
    int acc = c0 * src[i] + c1 * src[i + 1] + c2 * src[i + 2];
    dst[i] = sat_u8((acc + 32) >> 6);
  }
}

/* 3x3 box filter: dst (w x h) from src ((w + 2) x (h + 2)),
 * dst = (sum of the 9 pixels) * 7282 >> 16   (about sum / 9). */
void ref_box3x3_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                   ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int sum = 0;
      for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++) sum += src[(y + dy) * src_stride + x + dx];
      dst[y * dst_stride + x] = (uint8_t)((sum * 7282) >> 16);
    }
}

/* Vertical 1-2-1 over three rows, rounded: (r0 + 2 r1 + r2 + 2) >> 2. */
void ref_vfilt121_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1,
                     const uint8_t *r2, int n) {
  for (int i = 0; i < n; i++) dst[i] = (uint8_t)((r0[i] + 2 * r1[i] + r2[i] + 2) >> 2);
}

/* 3-tap sharpen, truncating: dst = sat_u8((6 s1 - s0 - s2) >> 2),
 * s_k = src[i + k]; src holds n + 2 pixels. */
void ref_sharpen3_u8(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_u8((6 * src[i + 1] - src[i] - src[i + 2]) >> 2);
}
