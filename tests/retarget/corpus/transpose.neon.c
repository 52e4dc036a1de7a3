/* transpose: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

void transpose4x4_u32(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                      ptrdiff_t src_stride) {
  uint32x4_t r0 = vld1q_u32(src), r1 = vld1q_u32(src + src_stride);
  uint32x4_t r2 = vld1q_u32(src + 2 * src_stride), r3 = vld1q_u32(src + 3 * src_stride);
  uint32x4x2_t t01 = vtrnq_u32(r0, r1);
  uint32x4x2_t t23 = vtrnq_u32(r2, r3);
  vst1q_u32(dst, vcombine_u32(vget_low_u32(t01.val[0]), vget_low_u32(t23.val[0])));
  vst1q_u32(dst + dst_stride, vcombine_u32(vget_low_u32(t01.val[1]), vget_low_u32(t23.val[1])));
  vst1q_u32(dst + 2 * dst_stride, vcombine_u32(vget_high_u32(t01.val[0]), vget_high_u32(t23.val[0])));
  vst1q_u32(dst + 3 * dst_stride, vcombine_u32(vget_high_u32(t01.val[1]), vget_high_u32(t23.val[1])));
}

void transpose8x8_u16(uint16_t *dst, ptrdiff_t dst_stride, const uint16_t *src,
                      ptrdiff_t src_stride) {
  uint16x8_t r[8];
  for (int i = 0; i < 8; i++) r[i] = vld1q_u16(src + i * src_stride);
  uint16x8x2_t b0 = vtrnq_u16(r[0], r[1]), b1 = vtrnq_u16(r[2], r[3]);
  uint16x8x2_t b2 = vtrnq_u16(r[4], r[5]), b3 = vtrnq_u16(r[6], r[7]);
  uint32x4x2_t c0 = vtrnq_u32(vreinterpretq_u32_u16(b0.val[0]), vreinterpretq_u32_u16(b1.val[0]));
  uint32x4x2_t c1 = vtrnq_u32(vreinterpretq_u32_u16(b0.val[1]), vreinterpretq_u32_u16(b1.val[1]));
  uint32x4x2_t c2 = vtrnq_u32(vreinterpretq_u32_u16(b2.val[0]), vreinterpretq_u32_u16(b3.val[0]));
  uint32x4x2_t c3 = vtrnq_u32(vreinterpretq_u32_u16(b2.val[1]), vreinterpretq_u32_u16(b3.val[1]));
#define LO(x) vreinterpret_u16_u32(vget_low_u32(x))
#define HI(x) vreinterpret_u16_u32(vget_high_u32(x))
  vst1q_u16(dst + 0 * dst_stride, vcombine_u16(LO(c0.val[0]), LO(c2.val[0])));
  vst1q_u16(dst + 1 * dst_stride, vcombine_u16(LO(c1.val[0]), LO(c3.val[0])));
  vst1q_u16(dst + 2 * dst_stride, vcombine_u16(LO(c0.val[1]), LO(c2.val[1])));
  vst1q_u16(dst + 3 * dst_stride, vcombine_u16(LO(c1.val[1]), LO(c3.val[1])));
  vst1q_u16(dst + 4 * dst_stride, vcombine_u16(HI(c0.val[0]), HI(c2.val[0])));
  vst1q_u16(dst + 5 * dst_stride, vcombine_u16(HI(c1.val[0]), HI(c3.val[0])));
  vst1q_u16(dst + 6 * dst_stride, vcombine_u16(HI(c0.val[1]), HI(c2.val[1])));
  vst1q_u16(dst + 7 * dst_stride, vcombine_u16(HI(c1.val[1]), HI(c3.val[1])));
#undef LO
#undef HI
}

void transpose16x16_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                       ptrdiff_t src_stride) {
  uint8x16_t r[16];
  for (int i = 0; i < 16; i++) r[i] = vld1q_u8(src + i * src_stride);
  /* 2x2 blocks of bytes */
  for (int i = 0; i < 16; i += 2) {
    uint8x16_t a = vtrn1q_u8(r[i], r[i + 1]);
    uint8x16_t b = vtrn2q_u8(r[i], r[i + 1]);
    r[i] = a;
    r[i + 1] = b;
  }
  /* 2x2 blocks of byte pairs */
  for (int i = 0; i < 16; i += 4)
    for (int k = 0; k < 2; k++) {
      uint16x8x2_t t = vtrnq_u16(vreinterpretq_u16_u8(r[i + k]), vreinterpretq_u16_u8(r[i + k + 2]));
      r[i + k] = vreinterpretq_u8_u16(t.val[0]);
      r[i + k + 2] = vreinterpretq_u8_u16(t.val[1]);
    }
  /* 2x2 blocks of 4-byte groups */
  for (int i = 0; i < 16; i += 8)
    for (int k = 0; k < 4; k++) {
      uint32x4x2_t t = vtrnq_u32(vreinterpretq_u32_u8(r[i + k]), vreinterpretq_u32_u8(r[i + k + 4]));
      r[i + k] = vreinterpretq_u8_u32(t.val[0]);
      r[i + k + 4] = vreinterpretq_u8_u32(t.val[1]);
    }
  /* swap 8-byte halves */
  for (int k = 0; k < 8; k++) {
    vst1q_u8(dst + k * dst_stride, vcombine_u8(vget_low_u8(r[k]), vget_low_u8(r[k + 8])));
    vst1q_u8(dst + (k + 8) * dst_stride, vcombine_u8(vget_high_u8(r[k]), vget_high_u8(r[k + 8])));
  }
}

void zip_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint16x8x2_t lo, hi;
    lo.val[0] = vld1q_u16(a + i);
    lo.val[1] = vld1q_u16(b + i);
    hi.val[0] = vld1q_u16(a + i + 8);
    hi.val[1] = vld1q_u16(b + i + 8);
    vst2q_u16(dst + 2 * i, lo); /* interleaving store */
    vst2q_u16(dst + 2 * i + 16, hi);
  }
  for (; i + 8 <= n; i += 8) {
    uint16x8_t va = vld1q_u16(a + i), vb = vld1q_u16(b + i);
    vst1q_u16(dst + 2 * i, vzip1q_u16(va, vb));
    vst1q_u16(dst + 2 * i + 8, vzip2q_u16(va, vb));
  }
  if (i + 4 <= n) {
    uint16x4x2_t z = vzip_u16(vld1_u16(a + i), vld1_u16(b + i));
    vst1q_u16(dst + 2 * i, vcombine_u16(z.val[0], z.val[1]));
    i += 4;
  }
  for (; i < n; i++) {
    dst[2 * i] = a[i];
    dst[2 * i + 1] = b[i];
  }
}

void unzip_u8(uint8_t *even, uint8_t *odd, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    uint8x16x2_t a = vld2q_u8(src + 2 * i); /* de-interleaving load */
    uint8x16x2_t b = vld2q_u8(src + 2 * i + 32);
    vst1q_u8(even + i, a.val[0]);
    vst1q_u8(odd + i, a.val[1]);
    vst1q_u8(even + i + 16, b.val[0]);
    vst1q_u8(odd + i + 16, b.val[1]);
  }
  for (; i + 16 <= n; i += 16) {
    uint8x16_t lo = vld1q_u8(src + 2 * i), hi = vld1q_u8(src + 2 * i + 16);
    vst1q_u8(even + i, vuzp1q_u8(lo, hi));
    vst1q_u8(odd + i, vuzp2q_u8(lo, hi));
  }
  if (i + 8 <= n) {
    uint8x8x2_t u = vuzp_u8(vld1_u8(src + 2 * i), vld1_u8(src + 2 * i + 8));
    vst1_u8(even + i, u.val[0]);
    vst1_u8(odd + i, u.val[1]);
    i += 8;
  }
  for (; i < n; i++) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

void transpose4x4_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                     ptrdiff_t src_stride) {
  static const uint8_t idx[16] = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
  /* gather four 4-byte rows into one q register */
  uint32x4_t v = vdupq_n_u32(0);
  v = vld1q_lane_u32((const uint32_t *)(const void *)(src + 0 * src_stride), v, 0);
  v = vld1q_lane_u32((const uint32_t *)(const void *)(src + 1 * src_stride), v, 1);
  v = vld1q_lane_u32((const uint32_t *)(const void *)(src + 2 * src_stride), v, 2);
  v = vld1q_lane_u32((const uint32_t *)(const void *)(src + 3 * src_stride), v, 3);
  uint32x4_t t = vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(v), vld1q_u8(idx)));
  vst1q_lane_u32((uint32_t *)(void *)(dst + 0 * dst_stride), t, 0);
  vst1q_lane_u32((uint32_t *)(void *)(dst + 1 * dst_stride), t, 1);
  vst1q_lane_u32((uint32_t *)(void *)(dst + 2 * dst_stride), t, 2);
  vst1q_lane_u32((uint32_t *)(void *)(dst + 3 * dst_stride), t, 3);
}
