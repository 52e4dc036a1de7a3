/* metric: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

uint32_t sad_u8(const uint8_t *a, const uint8_t *b, int n) {
  uint32x4_t total = vdupq_n_u32(0);
  int i = 0;
  while (i + 16 <= n) {
    /* each u16 lane gains at most 2 * 255 per step: flush every 128 steps */
    uint16x8_t acc = vdupq_n_u16(0);
    for (int k = 0; k < 128 && i + 16 <= n; k++, i += 16) {
      uint8x16_t va = vld1q_u8(a + i), vb = vld1q_u8(b + i);
      acc = vabal_u8(acc, vget_low_u8(va), vget_low_u8(vb));
      acc = vabal_high_u8(acc, va, vb);
    }
    total = vpadalq_u16(total, acc);
  }
  uint32_t s = vaddvq_u32(total);
  for (; i < n; i++) s += (uint32_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

uint32_t sad16xh_u8(const uint8_t *src, ptrdiff_t src_stride, const uint8_t *ref,
                    ptrdiff_t stride, int h) {
  uint16x8_t acc = vdupq_n_u16(0); /* h <= 128 rows: no overflow */
  for (int y = 0; y < h; y++) {
    uint8x16_t s = vld1q_u8(src + y * src_stride);
    uint8x16_t r = vld1q_u8(ref + y * stride);
    acc = vabal_u8(acc, vget_low_u8(s), vget_low_u8(r));
    acc = vabal_high_u8(acc, s, r);
  }
  return vaddlvq_u16(acc);
}

uint32_t sse_u8(const uint8_t *a, const uint8_t *b, int n) {
  uint32x4_t acc0 = vdupq_n_u32(0), acc1 = vdupq_n_u32(0);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t d = vabdq_u8(vld1q_u8(a + i), vld1q_u8(b + i));
    acc0 = vpadalq_u16(acc0, vmull_u8(vget_low_u8(d), vget_low_u8(d)));
    acc1 = vpadalq_u16(acc1, vmull_high_u8(d, d));
  }
  if (i + 8 <= n) {
    uint16x8_t d = vabdl_u8(vld1_u8(a + i), vld1_u8(b + i));
    acc0 = vmlal_u16(acc0, vget_low_u16(d), vget_low_u16(d));
    acc1 = vmlal_high_u16(acc1, d, d);
    i += 8;
  }
  uint32_t s = vaddvq_u32(vaddq_u32(acc0, acc1));
  for (; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t)(d * d);
  }
  return s;
}

int32_t sum_s16(const int16_t *a, int n) {
  int32x4_t acc0 = vdupq_n_s32(0), acc1 = vdupq_n_s32(0);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 = vpadalq_s16(acc0, vld1q_s16(a + i));
    acc1 = vpadalq_s16(acc1, vld1q_s16(a + i + 8));
  }
  for (; i + 4 <= n; i += 4) acc0 = vaddw_s16(acc0, vld1_s16(a + i));
  uint32_t s = (uint32_t)vaddvq_s32(vaddq_s32(acc0, acc1));
  for (; i < n; i++) s += (uint32_t)(int32_t)a[i];
  return (int32_t)s;
}

uint32_t minmax_u8(const uint8_t *a, int n) {
  uint8_t mn = 255, mx = 0;
  int i = 0;
  if (n >= 16) {
    uint8x16_t vmn = vld1q_u8(a), vmx = vmn;
    for (i = 16; i + 16 <= n; i += 16) {
      uint8x16_t x = vld1q_u8(a + i);
      vmn = vminq_u8(vmn, x);
      vmx = vmaxq_u8(vmx, x);
    }
    mn = vminvq_u8(vmn);
    mx = vmaxvq_u8(vmx);
  }
  for (; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  return (uint32_t)mn | (uint32_t)mx << 8;
}

void minmax_s16(const int16_t *a, int n, int16_t *out) {
  int16x8_t vmn = vdupq_n_s16(32767), vmx = vdupq_n_s16(-32768);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    int16x8_t x = vld1q_s16(a + i);
    vmn = vminq_s16(vmn, x);
    vmx = vmaxq_s16(vmx, x);
  }
  if (i + 4 <= n) {
    int16x4_t x = vld1_s16(a + i);
    vmn = vcombine_s16(vmin_s16(vget_low_s16(vmn), x), vget_high_s16(vmn));
    vmx = vcombine_s16(vmax_s16(vget_low_s16(vmx), x), vget_high_s16(vmx));
    i += 4;
  }
  /* pairwise folds (the Armv7 way) instead of vminvq / vmaxvq */
  int16x4_t m4 = vpmin_s16(vget_low_s16(vmn), vget_high_s16(vmn));
  int16x4_t x4 = vpmax_s16(vget_low_s16(vmx), vget_high_s16(vmx));
  m4 = vpmin_s16(m4, m4);
  x4 = vpmax_s16(x4, x4);
  m4 = vpmin_s16(m4, m4);
  x4 = vpmax_s16(x4, x4);
  int16_t mn = vget_lane_s16(m4, 0), mx = vget_lane_s16(x4, 0);
  for (; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  out[0] = mn;
  out[1] = mx;
}
