/* quant: reference implementations (portable C).  >> of negative values is
 * arithmetic; products are formed in 32 bits and never overflow within the
 * documented ranges. */
#include <stddef.h>
#include <stdint.h>

static uint8_t sat_u8(int64_t v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
static int16_t sat_s16(int64_t v) { return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

/* dst = sat_u8((src * scale + 2^(shift-1)) >> shift);
 * |src| <= 2^20, scale in -1024..1024, shift in 1..16. */
void ref_quant_s32_to_u8(uint8_t *dst, const int32_t *src, int scale, int shift, int n) {
  for (int i = 0; i < n; i++) {
    int32_t v = src[i] * scale;
    dst[i] = sat_u8((v + (1 << (shift - 1))) >> shift);
  }
}

/* dst = sat_u8((src + 8) >> 4), exact for every int16 input. */
void ref_descale_s16_u8(uint8_t *dst, const int16_t *src, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_u8((src[i] + 8) >> 4);
}

/* Q15 rounding doubling multiply-high with saturation (vqrdmulh):
 * dst = sat_s16((2 a b + 2^15) >> 16); only -32768 * -32768 saturates. */
void ref_q15_mul_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_s16(((int64_t)2 * a[i] * b[i] + 32768) >> 16);
}

/* dst = sat_s16((coef * qmat) >> shift), shift in 0..15. */
void ref_dequant_s16(int16_t *dst, const int16_t *coef, const int16_t *qmat, int shift, int n) {
  for (int i = 0; i < n; i++) dst[i] = sat_s16((coef[i] * qmat[i]) >> shift);
}

/* dst = min(max(src, lo), hi); lo, hi any int16 values (max first). */
void ref_clamp_s16(int16_t *dst, const int16_t *src, int lo, int hi, int n) {
  for (int i = 0; i < n; i++) {
    int v = src[i] < lo ? lo : src[i];
    dst[i] = (int16_t)(v > hi ? hi : v);
  }
}

/* Sign-magnitude quantizer: r = (|c| * mul) >> 16 (|c| up to 32768),
 * dst = c < 0 ? -r : r, truncated to 16 bits; mul in 0..65535. */
void ref_quantize_s16(int16_t *dst, const int16_t *coef, int mul, int n) {
  for (int i = 0; i < n; i++) {
    uint32_t mag = (uint32_t)(coef[i] < 0 ? -coef[i] : coef[i]);
    uint32_t r = (mag * (uint32_t)mul) >> 16;
    dst[i] = (int16_t)(uint16_t)(coef[i] < 0 ? 0u - r : r);
  }
}
