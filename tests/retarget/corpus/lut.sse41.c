/* lut: SSSE3 pshufb idioms (built with -msse4.1). */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

void lut16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const __m128i tbl = _mm_loadu_si128((const __m128i *)table);
  const __m128i low4 = _mm_set1_epi8(15);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i idx = _mm_and_si128(_mm_loadu_si128((const __m128i *)(src + i)), low4);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_shuffle_epi8(tbl, idx));
  }
  for (; i < n; i++) dst[i] = table[src[i] & 15];
}

void reverse_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i rev = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  int i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128((__m128i *)(dst + i),
                     _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + n - 16 - i)), rev));
  for (; i < n; i++) dst[i] = src[n - 1 - i];
}

uint32_t popcount_sum_u8(const uint8_t *src, int n) {
  const __m128i nib = _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m128i low4 = _mm_set1_epi8(0x0F);
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i lo = _mm_shuffle_epi8(nib, _mm_and_si128(x, low4));
    __m128i hi = _mm_shuffle_epi8(nib, _mm_and_si128(_mm_srli_epi16(x, 4), low4));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_add_epi8(lo, hi), _mm_setzero_si128()));
  }
  uint32_t s = (uint32_t)(_mm_cvtsi128_si32(acc) + _mm_extract_epi32(acc, 2));
  for (; i < n; i++) s += (uint32_t)__builtin_popcount(src[i]);
  return s;
}

void bswap32_u32(uint32_t *dst, const uint32_t *src, int n) {
  const __m128i swap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
  int i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_storeu_si128((__m128i *)(dst + i), _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + i)), swap));
  for (; i < n; i++) {
    uint32_t x = src[i];
    dst[i] = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}

void classify_nibble_u8(uint8_t *dst, const uint8_t *src, const uint8_t *lo_tab,
                        const uint8_t *hi_tab, int n) {
  const __m128i tlo = _mm_loadu_si128((const __m128i *)lo_tab);
  const __m128i thi = _mm_loadu_si128((const __m128i *)hi_tab);
  const __m128i low4 = _mm_set1_epi8(0x0F);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i a = _mm_shuffle_epi8(tlo, _mm_and_si128(x, low4));
    __m128i b = _mm_shuffle_epi8(thi, _mm_and_si128(_mm_srli_epi16(x, 4), low4));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_and_si128(a, b));
  }
  for (; i < n; i++) dst[i] = lo_tab[src[i] & 15] & hi_tab[src[i] >> 4];
}

void remap_low16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const __m128i tbl = _mm_loadu_si128((const __m128i *)table);
  const __m128i fifteen = _mm_set1_epi8(15);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(src + i));
    /* pshufb only ignores indices with bit 7 set: select explicitly */
    __m128i small = _mm_cmpeq_epi8(_mm_min_epu8(x, fifteen), x);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_blendv_epi8(x, _mm_shuffle_epi8(tbl, x), small));
  }
  for (; i < n; i++) dst[i] = src[i] < 16 ? table[src[i]] : src[i];
}
