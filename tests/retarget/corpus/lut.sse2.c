/* lut: SSE2 (no byte shuffle: compare/select, shift/shuffle sequences). */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

void lut16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const __m128i low4 = _mm_set1_epi8(15);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i idx = _mm_and_si128(_mm_loadu_si128((const __m128i *)(src + i)), low4);
    __m128i out = _mm_setzero_si128();
    for (int k = 0; k < 16; k++) {
      __m128i hit = _mm_cmpeq_epi8(idx, _mm_set1_epi8((char)k));
      out = _mm_or_si128(out, _mm_and_si128(hit, _mm_set1_epi8((char)table[k])));
    }
    _mm_storeu_si128((__m128i *)(dst + i), out);
  }
  for (; i < n; i++) dst[i] = table[src[i] & 15];
}

static inline __m128i reverse_bytes(__m128i x) {
  x = _mm_shuffle_epi32(x, _MM_SHUFFLE(0, 1, 2, 3));
  x = _mm_shufflehi_epi16(_mm_shufflelo_epi16(x, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1));
  return _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
}

void reverse_u8(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128((__m128i *)(dst + i), reverse_bytes(_mm_loadu_si128((const __m128i *)(src + n - 16 - i))));
  for (; i < n; i++) dst[i] = src[n - 1 - i];
}

uint32_t popcount_sum_u8(const uint8_t *src, int n) {
  const __m128i m1 = _mm_set1_epi8(0x55), m2 = _mm_set1_epi8(0x33), m4 = _mm_set1_epi8(0x0F);
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    /* 16-bit shifts, masked so no bit crosses into the neighbouring byte */
    x = _mm_sub_epi8(x, _mm_and_si128(_mm_srli_epi16(x, 1), m1));
    x = _mm_add_epi8(_mm_and_si128(x, m2), _mm_and_si128(_mm_srli_epi16(x, 2), m2));
    x = _mm_and_si128(_mm_add_epi8(x, _mm_srli_epi16(x, 4)), m4);
    acc = _mm_add_epi64(acc, _mm_sad_epu8(x, _mm_setzero_si128()));
  }
  uint32_t s = (uint32_t)_mm_cvtsi128_si32(acc) + (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(acc, acc));
  for (; i < n; i++) {
    unsigned x = src[i];
    x = x - ((x >> 1) & 0x55u);
    x = (x & 0x33u) + ((x >> 2) & 0x33u);
    s += (x + (x >> 4)) & 0x0Fu;
  }
  return s;
}

void bswap32_u32(uint32_t *dst, const uint32_t *src, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    x = _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
    x = _mm_shufflehi_epi16(_mm_shufflelo_epi16(x, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1));
    _mm_storeu_si128((__m128i *)(dst + i), x);
  }
  for (; i < n; i++) {
    uint32_t x = src[i];
    dst[i] = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}
