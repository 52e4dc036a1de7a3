/* filter: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

void fir3_u8(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t a = vld1q_u8(src + i);
    uint8x16_t b = vld1q_u8(src + i + 1);
    uint8x16_t c = vld1q_u8(src + i + 2);
    uint16x8_t lo = vaddl_u8(vget_low_u8(a), vget_low_u8(c));
    uint16x8_t hi = vaddl_high_u8(a, c);
    lo = vaddq_u16(lo, vshll_n_u8(vget_low_u8(b), 1));
    hi = vaddq_u16(hi, vshll_high_n_u8(b, 1));
    vst1q_u8(dst + i, vcombine_u8(vrshrn_n_u16(lo, 2), vrshrn_n_u16(hi, 2)));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((src[i] + 2 * src[i + 1] + src[i + 2] + 2) >> 2);
}

void fir5_u8(uint8_t *dst, const uint8_t *src, int n) {
  const uint8x8_t six = vdup_n_u8(6);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8x8_t s0 = vld1_u8(src + i), s1 = vld1_u8(src + i + 1), s2 = vld1_u8(src + i + 2);
    uint8x8_t s3 = vld1_u8(src + i + 3), s4 = vld1_u8(src + i + 4);
    uint16x8_t acc = vaddl_u8(s0, s4);
    acc = vmlal_u8(acc, s2, six);
    acc = vmlaq_n_u16(acc, vaddl_u8(s1, s3), 4);
    vst1_u8(dst + i, vrshrn_n_u16(acc, 4));
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((src[i] + 4 * src[i + 1] + 6 * src[i + 2] + 4 * src[i + 3] +
                        src[i + 4] + 8) >> 4);
}

void fir3_taps_u8(uint8_t *dst, const uint8_t *src, int c0, int c1, int c2, int n) {
  /* taps in the lanes of one d register, used with the by-lane forms */
  int16x4_t k = vdup_n_s16(0);
  k = vset_lane_s16((int16_t)c0, k, 0);
  k = vset_lane_s16((int16_t)c1, k, 1);
  k = vset_lane_s16((int16_t)c2, k, 2);
  const int16x8_t k2 = vdupq_lane_s16(k, 2);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t s0 = vld1q_u8(src + i), s1 = vld1q_u8(src + i + 1), s2 = vld1q_u8(src + i + 2);
    int16x8_t lo = vmulq_lane_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(s0))), k, 0);
    int16x8_t hi = vmulq_lane_s16(vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(s0))), k, 0);
    lo = vmlaq_lane_s16(lo, vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(s1))), k, 1);
    hi = vmlaq_lane_s16(hi, vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(s1))), k, 1);
    lo = vmlaq_s16(lo, vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(s2))), k2);
    hi = vmlaq_s16(hi, vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(s2))), k2);
    vst1q_u8(dst + i, vcombine_u8(vqrshrun_n_s16(lo, 6), vqrshrun_n_s16(hi, 6)));
  }
  for (; i < n; i++) {
    int acc = c0 * src[i] + c1 * src[i + 1] + c2 * src[i + 2];
    int v = (acc + 32) >> 6;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void box3x3_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
               ptrdiff_t src_stride, int w, int h) {
  /* sum * 7282 >> 16 == vqdmulh(sum, 3641) for 0 <= sum <= 2295 */
  const int16x8_t k = vdupq_n_s16(3641);
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    const uint8_t *s2 = s1 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    /* column sums of 16 columns give 8 outputs through vext */
    for (; x + 14 <= w; x += 8) {
      uint8x16_t a = vld1q_u8(s0 + x), b = vld1q_u8(s1 + x), c = vld1q_u8(s2 + x);
      uint16x8_t col_lo = vaddw_u8(vaddl_u8(vget_low_u8(a), vget_low_u8(b)), vget_low_u8(c));
      uint16x8_t col_hi = vaddw_high_u8(vaddl_high_u8(a, b), c);
      uint16x8_t sum = vaddq_u16(col_lo, vextq_u16(col_lo, col_hi, 1));
      sum = vaddq_u16(sum, vextq_u16(col_lo, col_hi, 2));
      int16x8_t q = vqdmulhq_s16(vreinterpretq_s16_u16(sum), k);
      vst1_u8(d + x, vmovn_u16(vreinterpretq_u16_s16(q)));
    }
    for (; x < w; x++) {
      int sum = s0[x] + s0[x + 1] + s0[x + 2] + s1[x] + s1[x + 1] + s1[x + 2] +
                s2[x] + s2[x + 1] + s2[x + 2];
      d[x] = (uint8_t)((sum * 7282) >> 16);
    }
  }
}

void vfilt121_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1,
                 const uint8_t *r2, int n) {
  int i = 0;
  /* rhadd(hadd(a, c), b) == (a + 2b + c + 2) >> 2 exactly */
  for (; i + 16 <= n; i += 16) {
    uint8x16_t a = vld1q_u8(r0 + i), b = vld1q_u8(r1 + i), c = vld1q_u8(r2 + i);
    vst1q_u8(dst + i, vrhaddq_u8(vhaddq_u8(a, c), b));
  }
  for (; i + 8 <= n; i += 8) {
    uint8x8_t a = vld1_u8(r0 + i), b = vld1_u8(r1 + i), c = vld1_u8(r2 + i);
    vst1_u8(dst + i, vrhadd_u8(vhadd_u8(a, c), b));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + 2 * r1[i] + r2[i] + 2) >> 2);
}

void sharpen3_u8(uint8_t *dst, const uint8_t *src, int n) {
  const uint8x8_t six = vdup_n_u8(6);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t s0 = vld1q_u8(src + i), s1 = vld1q_u8(src + i + 1), s2 = vld1q_u8(src + i + 2);
    /* wrapping u16 arithmetic; the true value (-510..1530) fits in s16 */
    uint16x8_t lo = vsubw_u8(vsubw_u8(vmull_u8(vget_low_u8(s1), six), vget_low_u8(s0)), vget_low_u8(s2));
    uint16x8_t hi = vsubw_high_u8(vsubw_high_u8(vmull_high_u8(s1, vdupq_n_u8(6)), s0), s2);
    vst1q_u8(dst + i, vcombine_u8(vqshrun_n_s16(vreinterpretq_s16_u16(lo), 2),
                                  vqshrun_n_s16(vreinterpretq_s16_u16(hi), 2)));
  }
  for (; i < n; i++) {
    int v = (6 * src[i + 1] - src[i] - src[i + 2]) >> 2;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}
