/* blend: reference implementations (portable C).
 *
 * x/255 rounding used by the blenders, exact for 0 <= x <= 65025:
 *   div255(x) = (x + ((x + 128) >> 8) + 128) >> 8
 */
#include <stddef.h>
#include <stdint.h>

static uint8_t div255(uint32_t x) {
  uint32_t t = x + ((x + 128) >> 8);
  return (uint8_t)((t + 128) >> 8);
}

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

static int16_t sat_s16(int v) {
  return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* dst = div255(src1 * alpha + src2 * (255 - alpha)), alpha in 0..255. */
void ref_blend_alpha_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                        int alpha, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * (uint32_t)alpha +
                    (uint32_t)src2[i] * (uint32_t)(255 - alpha));
}

/* Per-pixel alpha: dst = div255(src1 * m + src2 * (255 - m)). */
void ref_blend_mask_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                       const uint8_t *mask, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * mask[i] + (uint32_t)src2[i] * (255u - mask[i]));
}

/* Premultiplied RGBA "src over dst", n pixels, all four channels:
 * dst.c = min(255, src.c + div255(dst.c * (255 - src.a))). */
void ref_blend_premul_rgba(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) {
    uint32_t ia = 255u - src[4 * i + 3];
    for (int c = 0; c < 4; c++) {
      int v = src[4 * i + c] + div255(dst[4 * i + c] * ia);
      dst[4 * i + c] = sat_u8(v);
    }
  }
}

/* dst += src with unsigned saturation over a w x h image. */
void ref_add_sat_u8_image(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                          ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      dst[y * dst_stride + x] = sat_u8(dst[y * dst_stride + x] + src[y * src_stride + x]);
}

/* Reconstruction: dst = clamp(pred + residual, 0, 255). */
void ref_add_residual_u8(uint8_t *dst, const uint8_t *pred, const int16_t *res, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_u8(pred[i] + res[i]);
}

/* dst = a - b with signed 16-bit saturation. */
void ref_sub_sat_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_s16(a[i] - b[i]);
}
