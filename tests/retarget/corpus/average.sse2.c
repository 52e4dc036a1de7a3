/* average: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

void avg_pixels_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                   ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst + y * dst_stride;
    const uint8_t *s = src + y * src_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
      __m128i a = _mm_loadu_si128((const __m128i *)(d + x));
      __m128i b = _mm_loadu_si128((const __m128i *)(s + x));
      _mm_storeu_si128((__m128i *)(d + x), _mm_avg_epu8(a, b));
    }
    if (x + 8 <= w) {
      __m128i a = _mm_loadl_epi64((const __m128i *)(d + x));
      __m128i b = _mm_loadl_epi64((const __m128i *)(s + x));
      _mm_storel_epi64((__m128i *)(d + x), _mm_avg_epu8(a, b));
      x += 8;
    }
    for (; x < w; x++) d[x] = (uint8_t)((d[x] + s[x] + 1) >> 1);
  }
}

void avg2_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_avg_epu16(va, vb));
  }
  for (; i < n; i++) dst[i] = (uint16_t)(((uint32_t)a[i] + b[i] + 1) >> 1);
}

/* horizontal pair sums of 16 bytes as 8 u16 */
static inline __m128i pair_sums(__m128i x) {
  return _mm_add_epi16(_mm_and_si128(x, _mm_set1_epi16(0x00FF)), _mm_srli_epi16(x, 8));
}

void downsample2x2_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                      ptrdiff_t src_stride, int w, int h) {
  const __m128i two = _mm_set1_epi16(2);
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + 2 * y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
      __m128i lo = _mm_add_epi16(pair_sums(_mm_loadu_si128((const __m128i *)(s0 + 2 * x))),
                                 pair_sums(_mm_loadu_si128((const __m128i *)(s1 + 2 * x))));
      __m128i hi = _mm_add_epi16(pair_sums(_mm_loadu_si128((const __m128i *)(s0 + 2 * x + 16))),
                                 pair_sums(_mm_loadu_si128((const __m128i *)(s1 + 2 * x + 16))));
      lo = _mm_srli_epi16(_mm_add_epi16(lo, two), 2);
      hi = _mm_srli_epi16(_mm_add_epi16(hi, two), 2);
      _mm_storeu_si128((__m128i *)(d + x), _mm_packus_epi16(lo, hi));
    }
    for (; x < w; x++)
      d[x] = (uint8_t)((s0[2 * x] + s0[2 * x + 1] + s1[2 * x] + s1[2 * x + 1] + 2) >> 2);
  }
}

void halfpel_hv_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1, int n) {
  const __m128i zero = _mm_setzero_si128(), two = _mm_set1_epi16(2);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a0 = _mm_loadu_si128((const __m128i *)(r0 + i));
    __m128i a1 = _mm_loadu_si128((const __m128i *)(r0 + i + 1));
    __m128i b0 = _mm_loadu_si128((const __m128i *)(r1 + i));
    __m128i b1 = _mm_loadu_si128((const __m128i *)(r1 + i + 1));
    __m128i lo = _mm_add_epi16(_mm_add_epi16(_mm_unpacklo_epi8(a0, zero), _mm_unpacklo_epi8(a1, zero)),
                               _mm_add_epi16(_mm_unpacklo_epi8(b0, zero), _mm_unpacklo_epi8(b1, zero)));
    __m128i hi = _mm_add_epi16(_mm_add_epi16(_mm_unpackhi_epi8(a0, zero), _mm_unpackhi_epi8(a1, zero)),
                               _mm_add_epi16(_mm_unpackhi_epi8(b0, zero), _mm_unpackhi_epi8(b1, zero)));
    lo = _mm_srli_epi16(_mm_add_epi16(lo, two), 2);
    hi = _mm_srli_epi16(_mm_add_epi16(hi, two), 2);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(lo, hi));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + r0[i + 1] + r1[i] + r1[i + 1] + 2) >> 2);
}

void halfpel6_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i k20 = _mm_set1_epi16(20), k5 = _mm_set1_epi16(5), r16 = _mm_set1_epi16(16);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i s[6];
    for (int t = 0; t < 6; t++)
      s[t] = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i + t)), zero);
    __m128i acc = _mm_add_epi16(s[0], s[5]);
    acc = _mm_add_epi16(acc, _mm_mullo_epi16(_mm_add_epi16(s[2], s[3]), k20));
    acc = _mm_sub_epi16(acc, _mm_mullo_epi16(_mm_add_epi16(s[1], s[4]), k5));
    acc = _mm_srai_epi16(_mm_add_epi16(acc, r16), 5);
    _mm_storel_epi64((__m128i *)(dst + i), _mm_packus_epi16(acc, acc));
  }
  for (; i < n; i++) {
    int acc = src[i] - 5 * src[i + 1] + 20 * src[i + 2] + 20 * src[i + 3] - 5 * src[i + 4] + src[i + 5];
    int v = (acc + 16) >> 5;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

/* (a - b) >> 1 == (a >> 1) - (b >> 1) - (~a & b & 1), without leaving 16 bits */
void halfsub_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  const __m128i one = _mm_set1_epi16(1);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    __m128i borrow = _mm_and_si128(_mm_andnot_si128(va, vb), one);
    __m128i r = _mm_sub_epi16(_mm_sub_epi16(_mm_srai_epi16(va, 1), _mm_srai_epi16(vb, 1)), borrow);
    _mm_storeu_si128((__m128i *)(dst + i), r);
  }
  for (; i < n; i++) dst[i] = (int16_t)((a[i] - b[i]) >> 1);
}
