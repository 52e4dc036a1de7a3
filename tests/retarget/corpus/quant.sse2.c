/* quant: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* low 32 bits of a * b per 32-bit lane, without SSE4.1 */
static inline __m128i mullo_epi32_sse2(__m128i a, __m128i b) {
  __m128i even = _mm_mul_epu32(a, b);
  __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
  return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
                            _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
}

void quant_s32_to_u8(uint8_t *dst, const int32_t *src, int scale, int shift, int n) {
  const __m128i k = _mm_set1_epi32(scale);
  const __m128i round = _mm_set1_epi32(1 << (shift - 1));
  const __m128i sh = _mm_cvtsi32_si128(shift);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v[4];
    for (int j = 0; j < 4; j++) {
      __m128i x = _mm_loadu_si128((const __m128i *)(src + i + 4 * j));
      v[j] = _mm_sra_epi32(_mm_add_epi32(mullo_epi32_sse2(x, k), round), sh);
    }
    __m128i w0 = _mm_packs_epi32(v[0], v[1]), w1 = _mm_packs_epi32(v[2], v[3]);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(w0, w1));
  }
  for (; i < n; i++) {
    int32_t v = src[i] * scale;
    dst[i] = sat_u8((v + (1 << (shift - 1))) >> shift);
  }
}

void descale_s16_u8(uint8_t *dst, const int16_t *src, int n) {
  /* saturating +8 only differs from the exact sum above 32759, where both
   * results saturate to 255 anyway */
  const __m128i eight = _mm_set1_epi16(8);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_srai_epi16(_mm_adds_epi16(_mm_loadu_si128((const __m128i *)(src + i)), eight), 4);
    __m128i b = _mm_srai_epi16(_mm_adds_epi16(_mm_loadu_si128((const __m128i *)(src + i + 8)), eight), 4);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(a, b));
  }
  for (; i < n; i++) dst[i] = sat_u8((src[i] + 8) >> 4);
}

void q15_mul_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  const __m128i round = _mm_set1_epi32(1 << 14);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    __m128i lo = _mm_mullo_epi16(va, vb), hi = _mm_mulhi_epi16(va, vb);
    __m128i p0 = _mm_srai_epi32(_mm_add_epi32(_mm_unpacklo_epi16(lo, hi), round), 15);
    __m128i p1 = _mm_srai_epi32(_mm_add_epi32(_mm_unpackhi_epi16(lo, hi), round), 15);
    /* packs saturates the single overflowing case 32768 -> 32767 */
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packs_epi32(p0, p1));
  }
  for (; i < n; i++) {
    int32_t p = ((int32_t)a[i] * b[i] + 16384) >> 15;
    dst[i] = (int16_t)(p > 32767 ? 32767 : p);
  }
}

void dequant_s16(int16_t *dst, const int16_t *coef, const int16_t *qmat, int shift, int n) {
  const __m128i sh = _mm_cvtsi32_si128(shift);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i c = _mm_loadu_si128((const __m128i *)(coef + i));
    __m128i q = _mm_loadu_si128((const __m128i *)(qmat + i));
    __m128i lo = _mm_mullo_epi16(c, q), hi = _mm_mulhi_epi16(c, q);
    __m128i p0 = _mm_sra_epi32(_mm_unpacklo_epi16(lo, hi), sh);
    __m128i p1 = _mm_sra_epi32(_mm_unpackhi_epi16(lo, hi), sh);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packs_epi32(p0, p1));
  }
  for (; i < n; i++) {
    int32_t v = (coef[i] * qmat[i]) >> shift;
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}

void clamp_s16(int16_t *dst, const int16_t *src, int lo, int hi, int n) {
  const __m128i vlo = _mm_set1_epi16((short)lo), vhi = _mm_set1_epi16((short)hi);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_min_epi16(_mm_max_epi16(x, vlo), vhi));
  }
  for (; i < n; i++) {
    int v = src[i] < lo ? lo : src[i];
    dst[i] = (int16_t)(v > hi ? hi : v);
  }
}

void quantize_s16(int16_t *dst, const int16_t *coef, int mul, int n) {
  const __m128i k = _mm_set1_epi16((short)mul);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i c = _mm_loadu_si128((const __m128i *)(coef + i));
    __m128i sign = _mm_srai_epi16(c, 15);
    __m128i mag = _mm_sub_epi16(_mm_xor_si128(c, sign), sign); /* -32768 -> 0x8000 */
    __m128i r = _mm_mulhi_epu16(mag, k);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_sub_epi16(_mm_xor_si128(r, sign), sign));
  }
  for (; i < n; i++) {
    uint32_t mag = (uint32_t)(coef[i] < 0 ? -coef[i] : coef[i]);
    uint32_t r = (mag * (uint32_t)mul) >> 16;
    dst[i] = (int16_t)(uint16_t)(coef[i] < 0 ? 0u - r : r);
  }
}
