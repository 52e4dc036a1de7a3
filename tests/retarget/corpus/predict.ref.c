/* predict: video intra predictors, reference (portable C).
 * dst is a block with row pitch `stride`; above[] is the row above the block,
 * left[] the column to its left, topleft the corner pixel (0..255). */
#include <stddef.h>
#include <stdint.h>

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* DC: (sum of 16 above + 16 left + 16) >> 5 everywhere. */
void ref_pred_dc_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left) {
  int sum = 16;
  for (int i = 0; i < 16; i++) sum += above[i] + left[i];
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) dst[y * stride + x] = (uint8_t)(sum >> 5);
}

/* Horizontal: row y is left[y]. */
void ref_pred_h_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *left) {
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++) dst[y * stride + x] = left[y];
}

/* Vertical: every row is above[0..3]. */
void ref_pred_v_4x4(uint8_t *dst, ptrdiff_t stride, const uint8_t *above) {
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) dst[y * stride + x] = above[x];
}

/* TrueMotion / gradient: clamp(left[y] + above[x] - topleft). */
void ref_pred_tm_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left,
                     int topleft) {
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++) dst[y * stride + x] = sat_u8(left[y] + above[x] - topleft);
}

/* Paeth: of left, top and topleft pick the one closest to left + top - topleft
 * (ties prefer left, then top). */
void ref_pred_paeth_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above,
                          const uint8_t *left, int topleft) {
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++) {
      int top = above[x], l = left[y];
      int p_left = top > topleft ? top - topleft : topleft - top;   /* |base - left| */
      int p_top = l > topleft ? l - topleft : topleft - l;          /* |base - top| */
      int d = top + l - 2 * topleft;
      int p_tl = d < 0 ? -d : d;                                    /* |base - topleft| */
      uint8_t v;
      if (p_left <= p_top && p_left <= p_tl) v = (uint8_t)l;
      else if (p_top <= p_tl) v = (uint8_t)top;
      else v = (uint8_t)topleft;
      dst[y * stride + x] = v;
    }
}
