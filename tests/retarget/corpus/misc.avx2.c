/* misc: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t hsum256_epi32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return (uint32_t)_mm_cvtsi128_si32(s);
}

int32_t dot_s16(const int16_t *a, const int16_t *b, int n) {
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
  }
  uint32_t s = hsum256_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

int32_t dot_u8s8(const uint8_t *a, const int8_t *b, int n) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(va, vb), ones));
  }
  uint32_t s = hsum256_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

void absdiff_u8(uint8_t *dst, const uint8_t *a, const uint8_t *b, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    /* |a - b| = max - min */
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_sub_epi8(_mm256_max_epu8(va, vb), _mm256_min_epu8(va, vb)));
  }
  for (; i < n; i++) dst[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
}

int find_byte(const uint8_t *s, int n, int c) {
  const __m256i vc = _mm256_set1_epi8((char)c);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    unsigned mask = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(s + i)), vc));
    if (mask) return i + __builtin_ctz(mask);
  }
  if (i + 16 <= n) {
    int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + i)), _mm256_castsi256_si128(vc)));
    if (mask) return i + __builtin_ctz((unsigned)mask);
    i += 16;
  }
  for (; i < n; i++)
    if (s[i] == c) return i;
  return -1;
}

void select_gt_s16(int16_t *dst, const int16_t *a, const int16_t *b, const int16_t *x,
                   const int16_t *y, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i gt = _mm256_cmpgt_epi16(_mm256_loadu_si256((const __m256i *)(a + i)),
                                    _mm256_loadu_si256((const __m256i *)(b + i)));
    __m256i vx = _mm256_loadu_si256((const __m256i *)(x + i));
    __m256i vy = _mm256_loadu_si256((const __m256i *)(y + i));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_blendv_epi8(vy, vx, gt));
  }
  for (; i < n; i++) dst[i] = a[i] > b[i] ? x[i] : y[i];
}

void threshold_u8(uint8_t *dst, const uint8_t *src, int thresh, int n) {
  /* src > t  <=>  max(src, t + 1) == src, for t < 255; t == 255 never fires */
  const __m256i t1 = _mm256_set1_epi8((char)(thresh + 1));
  int i = 0;
  if (thresh < 255) {
    for (; i + 32 <= n; i += 32) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
      _mm256_storeu_si256((__m256i *)(dst + i), _mm256_cmpeq_epi8(_mm256_max_epu8(v, t1), v));
    }
  }
  for (; i < n; i++) dst[i] = src[i] > thresh ? 255 : 0;
}
