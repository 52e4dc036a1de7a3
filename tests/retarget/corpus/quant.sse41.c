/* quant: SSE4.1 / SSSE3 idioms. */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void quant_s32_to_u8(uint8_t *dst, const int32_t *src, int scale, int shift, int n) {
  const __m128i k = _mm_set1_epi32(scale);
  const __m128i round = _mm_set1_epi32(1 << (shift - 1));
  const __m128i sh = _mm_cvtsi32_si128(shift);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i a = _mm_mullo_epi32(_mm_loadu_si128((const __m128i *)(src + i)), k);
    __m128i b = _mm_mullo_epi32(_mm_loadu_si128((const __m128i *)(src + i + 4)), k);
    a = _mm_sra_epi32(_mm_add_epi32(a, round), sh);
    b = _mm_sra_epi32(_mm_add_epi32(b, round), sh);
    /* clamp in 32 bits, then the packs cannot saturate differently */
    a = _mm_max_epi32(_mm_min_epi32(a, _mm_set1_epi32(255)), _mm_setzero_si128());
    b = _mm_max_epi32(_mm_min_epi32(b, _mm_set1_epi32(255)), _mm_setzero_si128());
    __m128i w = _mm_packus_epi32(a, b);
    _mm_storel_epi64((__m128i *)(dst + i), _mm_packus_epi16(w, w));
  }
  for (; i < n; i++) {
    int32_t v = src[i] * scale;
    dst[i] = sat_u8((v + (1 << (shift - 1))) >> shift);
  }
}

void q15_mul_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  const __m128i min16 = _mm_set1_epi16((short)0x8000);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i r = _mm_mulhrs_epi16(_mm_loadu_si128((const __m128i *)(a + i)),
                                 _mm_loadu_si128((const __m128i *)(b + i)));
    /* pmulhrsw wraps -32768 * -32768 to -32768; vqrdmulh saturates */
    r = _mm_xor_si128(r, _mm_cmpeq_epi16(r, min16));
    _mm_storeu_si128((__m128i *)(dst + i), r);
  }
  for (; i < n; i++) {
    int32_t p = ((int32_t)a[i] * b[i] + 16384) >> 15;
    dst[i] = (int16_t)(p > 32767 ? 32767 : p);
  }
}

void quantize_s16(int16_t *dst, const int16_t *coef, int mul, int n) {
  const __m128i k = _mm_set1_epi16((short)mul);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i c = _mm_loadu_si128((const __m128i *)(coef + i));
    __m128i r = _mm_mulhi_epu16(_mm_abs_epi16(c), k);
    /* sign_epi16 zeroes where c == 0, where r is 0 anyway */
    _mm_storeu_si128((__m128i *)(dst + i), _mm_sign_epi16(r, c));
  }
  for (; i < n; i++) {
    uint32_t mag = (uint32_t)(coef[i] < 0 ? -coef[i] : coef[i]);
    uint32_t r = (mag * (uint32_t)mul) >> 16;
    dst[i] = (int16_t)(uint16_t)(coef[i] < 0 ? 0u - r : r);
  }
}
