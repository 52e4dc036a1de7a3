/* misc: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

int32_t dot_s16(const int16_t *a, const int16_t *b, int n) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    int16x8_t va = vld1q_s16(a + i), vb = vld1q_s16(b + i);
    acc0 = vmlal_s16(acc0, vget_low_s16(va), vget_low_s16(vb));
    acc1 = vmlal_high_s16(acc1, va, vb);
  }
  if (i + 4 <= n) {
    acc0 = vmlal_s16(acc0, vld1_s16(a + i), vld1_s16(b + i));
    i += 4;
  }
  uint32_t s = (uint32_t)vaddvq_s32(vaddq_s32(acc0, acc1));
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

int32_t dot_u8s8(const uint8_t *a, const int8_t *b, int n) {
  int32x4_t acc = vdupq_n_s32(0);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t va = vld1q_u8(a + i);
    int8x16_t vb = vld1q_s8(b + i);
    /* u8 * s8 fits in s16 exactly */
    int16x8_t p0 = vmulq_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(va))), vmovl_s8(vget_low_s8(vb)));
    int16x8_t p1 = vmulq_s16(vreinterpretq_s16_u16(vmovl_high_u8(va)), vmovl_high_s8(vb));
    acc = vpadalq_s16(acc, p0);
    acc = vpadalq_s16(acc, p1);
  }
  uint32_t s = (uint32_t)vaddvq_s32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

void absdiff_u8(uint8_t *dst, const uint8_t *a, const uint8_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) vst1q_u8(dst + i, vabdq_u8(vld1q_u8(a + i), vld1q_u8(b + i)));
  if (i + 8 <= n) {
    vst1_u8(dst + i, vabd_u8(vld1_u8(a + i), vld1_u8(b + i)));
    i += 8;
  }
  for (; i < n; i++) dst[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
}

int find_byte(const uint8_t *s, int n, int c) {
  const uint8x16_t vc = vdupq_n_u8((uint8_t)c);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t eq = vceqq_u8(vld1q_u8(s + i), vc);
    if (vmaxvq_u8(eq)) {
      /* no movemask on Neon: shift-narrow packs each byte's match into a
       * nibble of a 64-bit mask */
      uint64_t mask = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(eq), 4)), 0);
      return i + (__builtin_ctzll(mask) >> 2);
    }
  }
  for (; i < n; i++)
    if (s[i] == c) return i;
  return -1;
}

void select_gt_s16(int16_t *dst, const int16_t *a, const int16_t *b, const int16_t *x,
                   const int16_t *y, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    uint16x8_t gt = vcgtq_s16(vld1q_s16(a + i), vld1q_s16(b + i));
    vst1q_s16(dst + i, vbslq_s16(gt, vld1q_s16(x + i), vld1q_s16(y + i)));
  }
  if (i + 4 <= n) {
    uint16x4_t gt = vcgt_s16(vld1_s16(a + i), vld1_s16(b + i));
    vst1_s16(dst + i, vbsl_s16(gt, vld1_s16(x + i), vld1_s16(y + i)));
    i += 4;
  }
  for (; i < n; i++) dst[i] = a[i] > b[i] ? x[i] : y[i];
}

void threshold_u8(uint8_t *dst, const uint8_t *src, int thresh, int n) {
  const uint8x16_t t = vdupq_n_u8((uint8_t)thresh);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    uint8x16x2_t v = vld1q_u8_x2(src + i);
    vst1q_u8(dst + i, vcgtq_u8(v.val[0], t));
    vst1q_u8(dst + i + 16, vcgtq_u8(v.val[1], t));
  }
  for (; i + 16 <= n; i += 16) vst1q_u8(dst + i, vcgtq_u8(vld1q_u8(src + i), t));
  for (; i < n; i++) dst[i] = src[i] > thresh ? 255 : 0;
}
