/* lut: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

void lut16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  /* vpshufb looks up within each 128-bit lane: give both lanes the table */
  const __m256i tbl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
  const __m256i low4 = _mm256_set1_epi8(15);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i idx = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(src + i)), low4);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_shuffle_epi8(tbl, idx));
  }
  for (; i < n; i++) dst[i] = table[src[i] & 15];
}

void reverse_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i rev = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                       15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(src + n - 32 - i)), rev);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute4x64_epi64(v, 0x4E)); /* swap lanes */
  }
  for (; i < n; i++) dst[i] = src[n - 1 - i];
}

uint32_t popcount_sum_u8(const uint8_t *src, int n) {
  const __m256i nib = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                       0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
    __m256i lo = _mm256_shuffle_epi8(nib, _mm256_and_si256(x, low4));
    __m256i hi = _mm256_shuffle_epi8(nib, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4));
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256()));
  }
  __m128i s128 = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  uint32_t s = (uint32_t)_mm_cvtsi128_si32(_mm_add_epi64(s128, _mm_unpackhi_epi64(s128, s128)));
  for (; i < n; i++) s += (uint32_t)__builtin_popcount(src[i]);
  return s;
}

void bswap32_u32(uint32_t *dst, const uint32_t *src, int n) {
  const __m256i swap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
                                        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
  int i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_si256((__m256i *)(dst + i),
                        _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(src + i)), swap));
  for (; i < n; i++) {
    uint32_t x = src[i];
    dst[i] = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}

void classify_nibble_u8(uint8_t *dst, const uint8_t *src, const uint8_t *lo_tab,
                        const uint8_t *hi_tab, int n) {
  const __m256i tlo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo_tab));
  const __m256i thi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi_tab));
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
    __m256i a = _mm256_shuffle_epi8(tlo, _mm256_and_si256(x, low4));
    __m256i b = _mm256_shuffle_epi8(thi, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_and_si256(a, b));
  }
  for (; i < n; i++) dst[i] = lo_tab[src[i] & 15] & hi_tab[src[i] >> 4];
}

void remap_low16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const __m256i tbl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)table));
  const __m256i fifteen = _mm256_set1_epi8(15);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
    __m256i small = _mm256_cmpeq_epi8(_mm256_min_epu8(x, fifteen), x);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_blendv_epi8(x, _mm256_shuffle_epi8(tbl, x), small));
  }
  for (; i < n; i++) dst[i] = src[i] < 16 ? table[src[i]] : src[i];
}
