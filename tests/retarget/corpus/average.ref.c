/* average: reference implementations (portable C).  >> of negative values is
 * arithmetic. */
#include <stddef.h>
#include <stdint.h>

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* Codec "avg" put: dst = (dst + src + 1) >> 1 over a w x h block. */
void ref_avg_pixels_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                       ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      dst[y * dst_stride + x] = (uint8_t)((dst[y * dst_stride + x] + src[y * src_stride + x] + 1) >> 1);
}

/* Rounding average of two u16 rows (full 16-bit range). */
void ref_avg2_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  for (int i = 0; i < n; i++) dst[i] = (uint16_t)(((uint32_t)a[i] + b[i] + 1) >> 1);
}

/* 2x2 box downsample: dst is w x h, src 2w x 2h; rounded. */
void ref_downsample2x2_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                          ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t *s = src + 2 * y * src_stride + 2 * x;
      dst[y * dst_stride + x] = (uint8_t)((s[0] + s[1] + s[src_stride] + s[src_stride + 1] + 2) >> 2);
    }
}

/* Half-pel in both directions between rows r0 and r1 (n + 1 pixels each). */
void ref_halfpel_hv_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n) {
  for (int i = 0; i < n; i++) dst[i] = (uint8_t)((r0[i] + r0[i + 1] + r1[i] + r1[i + 1] + 2) >> 2);
}

/* H.264-style 6-tap half-pel (1, -5, 20, 20, -5, 1), rounded, clipped;
 * src holds n + 5 pixels, dst[i] sits between src[i + 2] and src[i + 3]. */
void ref_halfpel6_u8(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) {
    int acc = src[i] - 5 * src[i + 1] + 20 * src[i + 2] + 20 * src[i + 3] - 5 * src[i + 4] + src[i + 5];
    dst[i] = sat_u8((acc + 16) >> 5);
  }
}

/* Halving subtract: dst = (a - b) >> 1 (floor), exact for all int16 inputs. */
void ref_halfsub_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  for (int i = 0; i < n; i++) dst[i] = (int16_t)((a[i] - b[i]) >> 1);
}
