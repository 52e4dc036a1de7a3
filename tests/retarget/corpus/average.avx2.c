/* average: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

void avg_pixels_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                   ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst + y * dst_stride;
    const uint8_t *s = src + y * src_stride;
    int x = 0;
    for (; x + 32 <= w; x += 32) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(d + x));
      __m256i b = _mm256_loadu_si256((const __m256i *)(s + x));
      _mm256_storeu_si256((__m256i *)(d + x), _mm256_avg_epu8(a, b));
    }
    for (; x < w; x++) d[x] = (uint8_t)((d[x] + s[x] + 1) >> 1);
  }
}

void avg2_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_avg_epu16(va, vb));
  }
  for (; i < n; i++) dst[i] = (uint16_t)(((uint32_t)a[i] + b[i] + 1) >> 1);
}

void downsample2x2_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                      ptrdiff_t src_stride, int w, int h) {
  const __m256i ones = _mm256_set1_epi8(1), two = _mm256_set1_epi16(2);
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + 2 * y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    for (; x + 32 <= w; x += 32) {
      /* maddubs with 1s: horizontal pair sums (at most 510, no saturation) */
      __m256i lo = _mm256_add_epi16(
          _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(s0 + 2 * x)), ones),
          _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(s1 + 2 * x)), ones));
      __m256i hi = _mm256_add_epi16(
          _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(s0 + 2 * x + 32)), ones),
          _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(s1 + 2 * x + 32)), ones));
      lo = _mm256_srli_epi16(_mm256_add_epi16(lo, two), 2);
      hi = _mm256_srli_epi16(_mm256_add_epi16(hi, two), 2);
      _mm256_storeu_si256((__m256i *)(d + x), _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8));
    }
    for (; x < w; x++)
      d[x] = (uint8_t)((s0[2 * x] + s0[2 * x + 1] + s1[2 * x] + s1[2 * x + 1] + 2) >> 2);
  }
}

void halfpel_hv_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n) {
  const __m256i two = _mm256_set1_epi16(2);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r0 + i)));
    __m256i a1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r0 + i + 1)));
    __m256i b0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r1 + i)));
    __m256i b1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r1 + i + 1)));
    __m256i s = _mm256_add_epi16(_mm256_add_epi16(a0, a1), _mm256_add_epi16(b0, b1));
    s = _mm256_srli_epi16(_mm256_add_epi16(s, two), 2);
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(s, s), 0x08);
    _mm_storeu_si128((__m128i *)(dst + i), _mm256_castsi256_si128(p));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + r0[i + 1] + r1[i] + r1[i + 1] + 2) >> 2);
}

void halfpel6_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i k20 = _mm256_set1_epi16(20), k5 = _mm256_set1_epi16(5), r16 = _mm256_set1_epi16(16);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i s[6];
    for (int t = 0; t < 6; t++) s[t] = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + i + t)));
    __m256i acc = _mm256_add_epi16(s[0], s[5]);
    acc = _mm256_add_epi16(acc, _mm256_mullo_epi16(_mm256_add_epi16(s[2], s[3]), k20));
    acc = _mm256_sub_epi16(acc, _mm256_mullo_epi16(_mm256_add_epi16(s[1], s[4]), k5));
    acc = _mm256_srai_epi16(_mm256_add_epi16(acc, r16), 5);
    __m128i lo = _mm256_castsi256_si128(acc), hi = _mm256_extracti128_si256(acc, 1);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(lo, hi));
  }
  for (; i < n; i++) {
    int acc = src[i] - 5 * src[i + 1] + 20 * src[i + 2] + 20 * src[i + 3] - 5 * src[i + 4] + src[i + 5];
    int v = (acc + 16) >> 5;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void halfsub_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  const __m256i one = _mm256_set1_epi16(1);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    __m256i borrow = _mm256_and_si256(_mm256_andnot_si256(va, vb), one);
    __m256i r = _mm256_sub_epi16(_mm256_sub_epi16(_mm256_srai_epi16(va, 1), _mm256_srai_epi16(vb, 1)), borrow);
    _mm256_storeu_si256((__m256i *)(dst + i), r);
  }
  for (; i < n; i++) dst[i] = (int16_t)((a[i] - b[i]) >> 1);
}
