/* quant: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void quant_s32_to_u8(uint8_t *dst, const int32_t *src, int scale, int shift, int n) {
  const __m256i k = _mm256_set1_epi32(scale);
  const __m256i round = _mm256_set1_epi32(1 << (shift - 1));
  const __m256i sh = _mm256_set1_epi32(shift);
  /* dwords after packs + packus: 0-3 8-11 16-19 24-27 | 4-7 12-15 20-23 28-31 */
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i v[4];
    for (int j = 0; j < 4; j++) {
      __m256i x = _mm256_loadu_si256((const __m256i *)(src + i + 8 * j));
      v[j] = _mm256_srav_epi32(_mm256_add_epi32(_mm256_mullo_epi32(x, k), round), sh);
    }
    __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permutevar8x32_epi32(b, order));
  }
  for (; i < n; i++) {
    int32_t v = src[i] * scale;
    dst[i] = sat_u8((v + (1 << (shift - 1))) >> shift);
  }
}

void descale_s16_u8(uint8_t *dst, const int16_t *src, int n) {
  const __m256i eight = _mm256_set1_epi16(8);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = _mm256_srai_epi16(_mm256_adds_epi16(_mm256_loadu_si256((const __m256i *)(src + i)), eight), 4);
    __m256i b = _mm256_srai_epi16(_mm256_adds_epi16(_mm256_loadu_si256((const __m256i *)(src + i + 16)), eight), 4);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
  }
  for (; i < n; i++) dst[i] = sat_u8((src[i] + 8) >> 4);
}

void q15_mul_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  const __m256i min16 = _mm256_set1_epi16((short)0x8000);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i r = _mm256_mulhrs_epi16(_mm256_loadu_si256((const __m256i *)(a + i)),
                                    _mm256_loadu_si256((const __m256i *)(b + i)));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_xor_si256(r, _mm256_cmpeq_epi16(r, min16)));
  }
  for (; i < n; i++) {
    int32_t p = ((int32_t)a[i] * b[i] + 16384) >> 15;
    dst[i] = (int16_t)(p > 32767 ? 32767 : p);
  }
}

void dequant_s16(int16_t *dst, const int16_t *coef, const int16_t *qmat, int shift, int n) {
  const __m128i sh = _mm_cvtsi32_si128(shift);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i c = _mm256_loadu_si256((const __m256i *)(coef + i));
    __m256i q = _mm256_loadu_si256((const __m256i *)(qmat + i));
    __m256i lo = _mm256_mullo_epi16(c, q), hi = _mm256_mulhi_epi16(c, q);
    __m256i p0 = _mm256_sra_epi32(_mm256_unpacklo_epi16(lo, hi), sh);
    __m256i p1 = _mm256_sra_epi32(_mm256_unpackhi_epi16(lo, hi), sh);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_packs_epi32(p0, p1)); /* in-lane: order kept */
  }
  for (; i < n; i++) {
    int32_t v = (coef[i] * qmat[i]) >> shift;
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}

void clamp_s16(int16_t *dst, const int16_t *src, int lo, int hi, int n) {
  const __m256i vlo = _mm256_set1_epi16((short)lo), vhi = _mm256_set1_epi16((short)hi);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_min_epi16(_mm256_max_epi16(x, vlo), vhi));
  }
  for (; i < n; i++) {
    int v = src[i] < lo ? lo : src[i];
    dst[i] = (int16_t)(v > hi ? hi : v);
  }
}

void quantize_s16(int16_t *dst, const int16_t *coef, int mul, int n) {
  const __m256i k = _mm256_set1_epi16((short)mul);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i c = _mm256_loadu_si256((const __m256i *)(coef + i));
    __m256i r = _mm256_mulhi_epu16(_mm256_abs_epi16(c), k);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_sign_epi16(r, c));
  }
  for (; i < n; i++) {
    uint32_t mag = (uint32_t)(coef[i] < 0 ? -coef[i] : coef[i]);
    uint32_t r = (mag * (uint32_t)mul) >> 16;
    dst[i] = (int16_t)(uint16_t)(coef[i] < 0 ? 0u - r : r);
  }
}
