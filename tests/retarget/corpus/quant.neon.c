/* quant: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void quant_s32_to_u8(uint8_t *dst, const int32_t *src, int scale, int shift, int n) {
  const int32x4_t k = vdupq_n_s32(scale);
  const int32x4_t sh = vdupq_n_s32(-shift); /* negative: rounding shift right */
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    int32x4_t v0 = vrshlq_s32(vmulq_s32(vld1q_s32(src + i), k), sh);
    int32x4_t v1 = vrshlq_s32(vmulq_s32(vld1q_s32(src + i + 4), k), sh);
    int32x4_t v2 = vrshlq_s32(vmulq_s32(vld1q_s32(src + i + 8), k), sh);
    int32x4_t v3 = vrshlq_s32(vmulq_s32(vld1q_s32(src + i + 12), k), sh);
    int16x8_t w0 = vqmovn_high_s32(vqmovn_s32(v0), v1);
    int16x8_t w1 = vqmovn_high_s32(vqmovn_s32(v2), v3);
    vst1q_u8(dst + i, vqmovun_high_s16(vqmovun_s16(w0), w1));
  }
  for (; i + 4 <= n; i += 4) {
    int32x4_t v = vrshlq_s32(vmulq_s32(vld1q_s32(src + i), k), sh);
    uint16x4_t u = vqmovun_s32(v);
    uint8x8_t b = vqmovn_u16(vcombine_u16(u, u));
    vst1_lane_u32((uint32_t *)(void *)(dst + i), vreinterpret_u32_u8(b), 0);
  }
  for (; i < n; i++) {
    int32_t v = src[i] * scale;
    dst[i] = sat_u8((v + (1 << (shift - 1))) >> shift);
  }
}

void descale_s16_u8(uint8_t *dst, const int16_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x8_t lo = vqrshrun_n_s16(vld1q_s16(src + i), 4);
    vst1q_u8(dst + i, vqrshrun_high_n_s16(lo, vld1q_s16(src + i + 8), 4));
  }
  for (; i < n; i++) dst[i] = sat_u8((src[i] + 8) >> 4);
}

void q15_mul_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) vst1q_s16(dst + i, vqrdmulhq_s16(vld1q_s16(a + i), vld1q_s16(b + i)));
  if (i + 4 <= n) {
    vst1_s16(dst + i, vqrdmulh_s16(vld1_s16(a + i), vld1_s16(b + i)));
    i += 4;
  }
  for (; i < n; i++) {
    int32_t p = ((int32_t)a[i] * b[i] + 16384) >> 15;
    dst[i] = (int16_t)(p > 32767 ? 32767 : p);
  }
}

void dequant_s16(int16_t *dst, const int16_t *coef, const int16_t *qmat, int shift, int n) {
  const int32x4_t sh = vdupq_n_s32(-shift);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    int16x8_t c = vld1q_s16(coef + i), q = vld1q_s16(qmat + i);
    int32x4_t lo = vshlq_s32(vmull_s16(vget_low_s16(c), vget_low_s16(q)), sh);
    int32x4_t hi = vshlq_s32(vmull_high_s16(c, q), sh);
    vst1q_s16(dst + i, vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)));
  }
  for (; i < n; i++) {
    int32_t v = (coef[i] * qmat[i]) >> shift;
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}

void clamp_s16(int16_t *dst, const int16_t *src, int lo, int hi, int n) {
  const int16x8_t vlo = vdupq_n_s16((int16_t)lo), vhi = vdupq_n_s16((int16_t)hi);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    int16x8_t x0 = vld1q_s16(src + i), x1 = vld1q_s16(src + i + 8);
    vst1q_s16(dst + i, vminq_s16(vmaxq_s16(x0, vlo), vhi));
    vst1q_s16(dst + i + 8, vminq_s16(vmaxq_s16(x1, vlo), vhi));
  }
  for (; i < n; i++) {
    int v = src[i] < lo ? lo : src[i];
    dst[i] = (int16_t)(v > hi ? hi : v);
  }
}

void quantize_s16(int16_t *dst, const int16_t *coef, int mul, int n) {
  const uint16x4_t k = vdup_n_u16((uint16_t)mul);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    int16x8_t c = vld1q_s16(coef + i);
    /* vabs wraps -32768 to itself, which read as u16 is exactly 32768 */
    uint16x8_t mag = vreinterpretq_u16_s16(vabsq_s16(c));
    uint32x4_t plo = vmull_u16(vget_low_u16(mag), k);
    uint32x4_t phi = vmull_high_n_u16(mag, (uint16_t)mul);
    /* high halves of the 32-bit products */
    uint16x8_t r = vuzp2q_u16(vreinterpretq_u16_u32(plo), vreinterpretq_u16_u32(phi));
    uint16x8_t neg = vcltq_s16(c, vdupq_n_s16(0));
    int16x8_t rs = vreinterpretq_s16_u16(r);
    int16x8_t out = vbslq_s16(neg, vnegq_s16(rs), rs);
    vst1q_s16(dst + i, out);
  }
  for (; i < n; i++) {
    uint32_t mag = (uint32_t)(coef[i] < 0 ? -coef[i] : coef[i]);
    uint32_t r = (mag * (uint32_t)mul) >> 16;
    dst[i] = (int16_t)(uint16_t)(coef[i] < 0 ? 0u - r : r);
  }
}
