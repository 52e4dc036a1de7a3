/* blend: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t div255(uint32_t x) {
  uint32_t t = x + ((x + 128) >> 8);
  return (uint8_t)((t + 128) >> 8);
}

/* (x + ((x + 128) >> 8) + 128) >> 8, narrowed */
static inline uint8x8_t div255_u16(uint16x8_t x) {
  return vrshrn_n_u16(vrsraq_n_u16(x, x, 8), 8);
}

void blend_alpha_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                    int alpha, int n) {
  const uint8x8_t va = vdup_n_u8((uint8_t)alpha);
  const uint8x8_t vb = vdup_n_u8((uint8_t)(255 - alpha));
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t a = vld1q_u8(src1 + i);
    uint8x16_t b = vld1q_u8(src2 + i);
    uint16x8_t lo = vmull_u8(vget_low_u8(a), va);
    uint16x8_t hi = vmull_u8(vget_high_u8(a), va);
    lo = vmlal_u8(lo, vget_low_u8(b), vb);
    hi = vmlal_u8(hi, vget_high_u8(b), vb);
    vst1q_u8(dst + i, vcombine_u8(div255_u16(lo), div255_u16(hi)));
  }
  if (i + 8 <= n) {
    uint16x8_t x = vmull_u8(vld1_u8(src1 + i), va);
    x = vmlal_u8(x, vld1_u8(src2 + i), vb);
    vst1_u8(dst + i, div255_u16(x));
    i += 8;
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * (uint32_t)alpha +
                    (uint32_t)src2[i] * (uint32_t)(255 - alpha));
}

void blend_mask_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                   const uint8_t *mask, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t a = vld1q_u8(src1 + i);
    uint8x16_t b = vld1q_u8(src2 + i);
    uint8x16_t m = vld1q_u8(mask + i);
    uint8x16_t im = vmvnq_u8(m); /* 255 - m */
    uint16x8_t lo = vmull_u8(vget_low_u8(a), vget_low_u8(m));
    uint16x8_t hi = vmull_high_u8(a, m);
    lo = vmlal_u8(lo, vget_low_u8(b), vget_low_u8(im));
    hi = vmlal_high_u8(hi, b, im);
    /* the other classic form: x/255 = (x + ((x + 128) >> 8) + 128) >> 8
     * as a rounding add-and-narrow-high */
    uint8x8_t rlo = vraddhn_u16(lo, vrshrq_n_u16(lo, 8));
    vst1q_u8(dst + i, vcombine_u8(rlo, vraddhn_u16(hi, vrshrq_n_u16(hi, 8))));
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * mask[i] + (uint32_t)src2[i] * (255u - mask[i]));
}

void blend_premul_rgba(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16x4_t s = vld4q_u8(src + 4 * i);
    uint8x16x4_t d = vld4q_u8(dst + 4 * i);
    uint8x16_t ia = vmvnq_u8(s.val[3]);
    for (int c = 0; c < 4; c++) {
      uint16x8_t lo = vmull_u8(vget_low_u8(d.val[c]), vget_low_u8(ia));
      uint16x8_t hi = vmull_u8(vget_high_u8(d.val[c]), vget_high_u8(ia));
      uint8x16_t scaled = vcombine_u8(div255_u16(lo), div255_u16(hi));
      d.val[c] = vqaddq_u8(s.val[c], scaled);
    }
    vst4q_u8(dst + 4 * i, d);
  }
  for (; i < n; i++) {
    uint32_t ia = 255u - src[4 * i + 3];
    for (int c = 0; c < 4; c++) {
      unsigned v = src[4 * i + c] + div255(dst[4 * i + c] * ia);
      dst[4 * i + c] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}

void add_sat_u8_image(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                      ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst + y * dst_stride;
    const uint8_t *s = src + y * src_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) vst1q_u8(d + x, vqaddq_u8(vld1q_u8(d + x), vld1q_u8(s + x)));
    for (; x + 8 <= w; x += 8) vst1_u8(d + x, vqadd_u8(vld1_u8(d + x), vld1_u8(s + x)));
    for (; x < w; x++) {
      unsigned v = d[x] + s[x];
      d[x] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}

void add_residual_u8(uint8_t *dst, const uint8_t *pred, const int16_t *res, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t p = vld1q_u8(pred + i);
    int16x8_t r0 = vld1q_s16(res + i);
    int16x8_t r1 = vld1q_s16(res + i + 8);
    int16x8_t p0 = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(p)));
    int16x8_t p1 = vreinterpretq_s16_u16(vmovl_high_u8(p));
    /* saturate in 16 bits first: pred + res may leave the s16 range */
    uint8x8_t o0 = vqmovun_s16(vqaddq_s16(r0, p0));
    vst1q_u8(dst + i, vqmovun_high_s16(o0, vqaddq_s16(r1, p1)));
  }
  for (; i < n; i++) {
    int v = pred[i] + res[i];
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void sub_sat_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    int16x8x2_t va = vld1q_s16_x2(a + i);
    int16x8x2_t vb = vld1q_s16_x2(b + i);
    int16x8x2_t r;
    r.val[0] = vqsubq_s16(va.val[0], vb.val[0]);
    r.val[1] = vqsubq_s16(va.val[1], vb.val[1]);
    vst1q_s16_x2(dst + i, r);
  }
  for (; i + 4 <= n; i += 4) vst1_s16(dst + i, vqsub_s16(vld1_s16(a + i), vld1_s16(b + i)));
  for (; i < n; i++) {
    int v = a[i] - b[i];
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}
