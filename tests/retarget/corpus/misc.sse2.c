/* misc: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t hsum_epi32(__m128i v) {
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  return (uint32_t)_mm_cvtsi128_si32(v);
}

int32_t dot_s16(const int16_t *a, const int16_t *b, int n) {
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    acc = _mm_add_epi32(acc, _mm_madd_epi16(va, vb)); /* wraps like the reference */
  }
  uint32_t s = hsum_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

int32_t dot_u8s8(const uint8_t *a, const int8_t *b, int n) {
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    /* sign-extend b: put it in the high byte, shift back arithmetically */
    __m128i b_lo = _mm_srai_epi16(_mm_unpacklo_epi8(vb, vb), 8);
    __m128i b_hi = _mm_srai_epi16(_mm_unpackhi_epi8(vb, vb), 8);
    acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_unpacklo_epi8(va, zero), b_lo));
    acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_unpackhi_epi8(va, zero), b_hi));
  }
  uint32_t s = hsum_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

void absdiff_u8(uint8_t *dst, const uint8_t *a, const uint8_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_or_si128(_mm_subs_epu8(va, vb), _mm_subs_epu8(vb, va)));
  }
  for (; i < n; i++) dst[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
}

int find_byte(const uint8_t *s, int n, int c) {
  const __m128i vc = _mm_set1_epi8((char)c);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + i)), vc));
    if (mask) return i + __builtin_ctz((unsigned)mask);
  }
  for (; i < n; i++)
    if (s[i] == c) return i;
  return -1;
}

void select_gt_s16(int16_t *dst, const int16_t *a, const int16_t *b, const int16_t *x,
                   const int16_t *y, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i gt = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(a + i)),
                                 _mm_loadu_si128((const __m128i *)(b + i)));
    __m128i vx = _mm_loadu_si128((const __m128i *)(x + i));
    __m128i vy = _mm_loadu_si128((const __m128i *)(y + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_or_si128(_mm_and_si128(gt, vx), _mm_andnot_si128(gt, vy)));
  }
  for (; i < n; i++) dst[i] = a[i] > b[i] ? x[i] : y[i];
}

void threshold_u8(uint8_t *dst, const uint8_t *src, int thresh, int n) {
  /* no unsigned byte compare: flip the sign bits and compare signed */
  const __m128i bias = _mm_set1_epi8((char)0x80);
  const __m128i t = _mm_xor_si128(_mm_set1_epi8((char)thresh), bias);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(src + i)), bias);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_cmpgt_epi8(v, t));
  }
  for (; i < n; i++) dst[i] = src[i] > thresh ? 255 : 0;
}
