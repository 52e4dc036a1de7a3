/* predict: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

void pred_dc_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left) {
  uint16x8_t s = vpaddlq_u8(vld1q_u8(above));
  s = vpadalq_u8(s, vld1q_u8(left));
  uint32_t sum = vaddlvq_u16(s);
  uint8x16_t dc = vdupq_n_u8((uint8_t)((sum + 16) >> 5));
  for (int y = 0; y < 16; y++) vst1q_u8(dst + y * stride, dc);
}

void pred_h_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *left) {
  uint8x8_t l = vld1_u8(left);
  vst1_u8(dst + 0 * stride, vdup_lane_u8(l, 0));
  vst1_u8(dst + 1 * stride, vdup_lane_u8(l, 1));
  vst1_u8(dst + 2 * stride, vdup_lane_u8(l, 2));
  vst1_u8(dst + 3 * stride, vdup_lane_u8(l, 3));
  vst1_u8(dst + 4 * stride, vdup_lane_u8(l, 4));
  vst1_u8(dst + 5 * stride, vdup_lane_u8(l, 5));
  vst1_u8(dst + 6 * stride, vdup_lane_u8(l, 6));
  vst1_u8(dst + 7 * stride, vdup_lane_u8(l, 7));
}

void pred_v_4x4(uint8_t *dst, ptrdiff_t stride, const uint8_t *above) {
  uint32x2_t a = vld1_dup_u32((const uint32_t *)(const void *)above);
  for (int y = 0; y < 4; y++) vst1_lane_u32((uint32_t *)(void *)(dst + y * stride), a, 0);
}

void pred_tm_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left,
                 int topleft) {
  /* above - topleft, widened; wraps in u16 but is exact read as s16 */
  int16x8_t d = vreinterpretq_s16_u16(vsubl_u8(vld1_u8(above), vdup_n_u8((uint8_t)topleft)));
  uint8x8_t l = vld1_u8(left);
  uint16x8_t l16 = vmovl_u8(l);
  for (int y = 0; y < 8; y += 2) {
    /* two rows per q register */
    int16x8_t r0 = vaddq_s16(d, vreinterpretq_s16_u16(vdupq_n_u16(vgetq_lane_u16(l16, 0))));
    int16x8_t r1 = vaddq_s16(d, vreinterpretq_s16_u16(vdupq_n_u16(vgetq_lane_u16(l16, 1))));
    uint8x16_t rows = vqmovun_high_s16(vqmovun_s16(r0), r1);
    vst1_u8(dst + y * stride, vget_low_u8(rows));
    vst1_u8(dst + (y + 1) * stride, vget_high_u8(rows));
    l16 = vextq_u16(l16, l16, 2); /* next two left pixels into lanes 0, 1 */
  }
}

void pred_paeth_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above,
                      const uint8_t *left, int topleft) {
  const uint8x16_t top = vld1q_u8(above);
  const uint8x16_t tl = vdupq_n_u8((uint8_t)topleft);
  const uint8x16_t p_left = vabdq_u8(top, tl);
  /* top - topleft as s16, for |top + left - 2 topleft| */
  const int16x8_t dt_lo = vreinterpretq_s16_u16(vsubl_u8(vget_low_u8(top), vget_low_u8(tl)));
  const int16x8_t dt_hi = vreinterpretq_s16_u16(vsubl_high_u8(top, tl));
  for (int y = 0; y < 16; y++) {
    uint8x16_t l = vdupq_n_u8(left[y]);
    uint8x16_t p_top = vabdq_u8(l, tl);
    int16x8_t dl = vdupq_n_s16((int16_t)(left[y] - topleft));
    /* |.| can reach 510: saturating to 255 keeps every comparison with
     * p_left / p_top (both <= 255) unchanged */
    uint8x16_t p_tl = vcombine_u8(vqmovn_u16(vreinterpretq_u16_s16(vabsq_s16(vaddq_s16(dt_lo, dl)))),
                                  vqmovn_u16(vreinterpretq_u16_s16(vabsq_s16(vaddq_s16(dt_hi, dl)))));
    uint8x16_t use_left = vandq_u8(vcleq_u8(p_left, p_top), vcleq_u8(p_left, p_tl));
    uint8x16_t use_top = vcleq_u8(p_top, p_tl);
    uint8x16_t v = vbslq_u8(use_left, l, vbslq_u8(use_top, top, tl));
    vst1q_u8(dst + y * stride, v);
  }
}
