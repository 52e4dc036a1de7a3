/* average: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

void avg_pixels_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                   ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst + y * dst_stride;
    const uint8_t *s = src + y * src_stride;
    int x = 0;
    for (; x + 32 <= w; x += 32) {
      uint8x16x2_t dv = vld1q_u8_x2(d + x);
      uint8x16x2_t sv = vld1q_u8_x2(s + x);
      dv.val[0] = vrhaddq_u8(dv.val[0], sv.val[0]);
      dv.val[1] = vrhaddq_u8(dv.val[1], sv.val[1]);
      vst1q_u8_x2(d + x, dv);
    }
    for (; x + 8 <= w; x += 8) vst1_u8(d + x, vrhadd_u8(vld1_u8(d + x), vld1_u8(s + x)));
    for (; x < w; x++) d[x] = (uint8_t)((d[x] + s[x] + 1) >> 1);
  }
}

void avg2_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) vst1q_u16(dst + i, vrhaddq_u16(vld1q_u16(a + i), vld1q_u16(b + i)));
  for (; i + 4 <= n; i += 4) vst1_u16(dst + i, vrhadd_u16(vld1_u16(a + i), vld1_u16(b + i)));
  for (; i < n; i++) dst[i] = (uint16_t)(((uint32_t)a[i] + b[i] + 1) >> 1);
}

void downsample2x2_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                      ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + 2 * y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
      uint16x8_t lo = vpadalq_u8(vpaddlq_u8(vld1q_u8(s0 + 2 * x)), vld1q_u8(s1 + 2 * x));
      uint16x8_t hi = vpadalq_u8(vpaddlq_u8(vld1q_u8(s0 + 2 * x + 16)), vld1q_u8(s1 + 2 * x + 16));
      vst1q_u8(d + x, vcombine_u8(vrshrn_n_u16(lo, 2), vrshrn_n_u16(hi, 2)));
    }
    for (; x + 4 <= w; x += 4) {
      uint16x4_t sum = vpadal_u8(vpaddl_u8(vld1_u8(s0 + 2 * x)), vld1_u8(s1 + 2 * x));
      uint8x8_t r = vrshrn_n_u16(vcombine_u16(sum, sum), 2);
      vst1_lane_u32((uint32_t *)(void *)(d + x), vreinterpret_u32_u8(r), 0);
    }
    for (; x < w; x++)
      d[x] = (uint8_t)((s0[2 * x] + s0[2 * x + 1] + s1[2 * x] + s1[2 * x + 1] + 2) >> 2);
  }
}

void halfpel_hv_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t a0 = vld1q_u8(r0 + i), a1 = vld1q_u8(r0 + i + 1);
    uint8x16_t b0 = vld1q_u8(r1 + i), b1 = vld1q_u8(r1 + i + 1);
    uint16x8_t lo = vaddq_u16(vaddl_u8(vget_low_u8(a0), vget_low_u8(a1)),
                              vaddl_u8(vget_low_u8(b0), vget_low_u8(b1)));
    uint16x8_t hi = vaddq_u16(vaddl_high_u8(a0, a1), vaddl_high_u8(b0, b1));
    vst1q_u8(dst + i, vcombine_u8(vrshrn_n_u16(lo, 2), vrshrn_n_u16(hi, 2)));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + r0[i + 1] + r1[i] + r1[i + 1] + 2) >> 2);
}

static inline uint8x8_t six_tap(uint8x8_t s0, uint8x8_t s1, uint8x8_t s2, uint8x8_t s3,
                                uint8x8_t s4, uint8x8_t s5) {
  uint16x8_t acc = vaddl_u8(s0, s5);
  acc = vmlaq_n_u16(acc, vaddl_u8(s2, s3), 20);
  acc = vmlsq_n_u16(acc, vaddl_u8(s1, s4), 5); /* wraps; the s16 view is exact */
  return vqrshrun_n_s16(vreinterpretq_s16_u16(acc), 5);
}

void halfpel6_u8(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  /* two 16-byte loads and vext give the six shifted rows; 32 bytes read
   * for 16 outputs, so stay 11 bytes clear of the end */
  for (; i + 27 <= n; i += 16) {
    uint8x16_t v0 = vld1q_u8(src + i), v1 = vld1q_u8(src + i + 16);
    uint8x16_t s1 = vextq_u8(v0, v1, 1), s2 = vextq_u8(v0, v1, 2), s3 = vextq_u8(v0, v1, 3);
    uint8x16_t s4 = vextq_u8(v0, v1, 4), s5 = vextq_u8(v0, v1, 5);
    uint8x8_t lo = six_tap(vget_low_u8(v0), vget_low_u8(s1), vget_low_u8(s2), vget_low_u8(s3),
                           vget_low_u8(s4), vget_low_u8(s5));
    uint8x8_t hi = six_tap(vget_high_u8(v0), vget_high_u8(s1), vget_high_u8(s2), vget_high_u8(s3),
                           vget_high_u8(s4), vget_high_u8(s5));
    vst1q_u8(dst + i, vcombine_u8(lo, hi));
  }
  for (; i + 8 <= n; i += 8)
    vst1_u8(dst + i, six_tap(vld1_u8(src + i), vld1_u8(src + i + 1), vld1_u8(src + i + 2),
                             vld1_u8(src + i + 3), vld1_u8(src + i + 4), vld1_u8(src + i + 5)));
  for (; i < n; i++) {
    int acc = src[i] - 5 * src[i + 1] + 20 * src[i + 2] + 20 * src[i + 3] - 5 * src[i + 4] + src[i + 5];
    int v = (acc + 16) >> 5;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void halfsub_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) vst1q_s16(dst + i, vhsubq_s16(vld1q_s16(a + i), vld1q_s16(b + i)));
  if (i + 4 <= n) {
    vst1_s16(dst + i, vhsub_s16(vld1_s16(a + i), vld1_s16(b + i)));
    i += 4;
  }
  for (; i < n; i++) dst[i] = (int16_t)((a[i] - b[i]) >> 1);
}
