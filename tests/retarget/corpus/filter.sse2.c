/* filter: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

void fir3_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i zero = _mm_setzero_si128(), two = _mm_set1_epi16(2);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 1));
    __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 2));
    __m128i lo = _mm_add_epi16(_mm_unpacklo_epi8(a, zero), _mm_unpacklo_epi8(c, zero));
    __m128i hi = _mm_add_epi16(_mm_unpackhi_epi8(a, zero), _mm_unpackhi_epi8(c, zero));
    lo = _mm_add_epi16(lo, _mm_slli_epi16(_mm_unpacklo_epi8(b, zero), 1));
    hi = _mm_add_epi16(hi, _mm_slli_epi16(_mm_unpackhi_epi8(b, zero), 1));
    lo = _mm_srli_epi16(_mm_add_epi16(lo, two), 2);
    hi = _mm_srli_epi16(_mm_add_epi16(hi, two), 2);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(lo, hi));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((src[i] + 2 * src[i + 1] + src[i + 2] + 2) >> 2);
}

void fir5_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i six = _mm_set1_epi16(6), eight = _mm_set1_epi16(8);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i s0 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i)), zero);
    __m128i s1 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i + 1)), zero);
    __m128i s2 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i + 2)), zero);
    __m128i s3 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i + 3)), zero);
    __m128i s4 = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(src + i + 4)), zero);
    __m128i acc = _mm_add_epi16(_mm_add_epi16(s0, s4), _mm_mullo_epi16(s2, six));
    acc = _mm_add_epi16(acc, _mm_slli_epi16(_mm_add_epi16(s1, s3), 2));
    acc = _mm_srli_epi16(_mm_add_epi16(acc, eight), 4);
    _mm_storel_epi64((__m128i *)(dst + i), _mm_packus_epi16(acc, acc));
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((src[i] + 4 * src[i + 1] + 6 * src[i + 2] + 4 * src[i + 3] +
                        src[i + 4] + 8) >> 4);
}

void fir3_taps_u8(uint8_t *dst, const uint8_t *src, int c0, int c1, int c2, int n) {
  const __m128i zero = _mm_setzero_si128(), round = _mm_set1_epi16(32);
  const __m128i k0 = _mm_set1_epi16((short)c0);
  const __m128i k1 = _mm_set1_epi16((short)c1);
  const __m128i k2 = _mm_set1_epi16((short)c2);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i s0 = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i s1 = _mm_loadu_si128((const __m128i *)(src + i + 1));
    __m128i s2 = _mm_loadu_si128((const __m128i *)(src + i + 2));
    __m128i lo = _mm_mullo_epi16(_mm_unpacklo_epi8(s0, zero), k0);
    __m128i hi = _mm_mullo_epi16(_mm_unpackhi_epi8(s0, zero), k0);
    lo = _mm_add_epi16(lo, _mm_mullo_epi16(_mm_unpacklo_epi8(s1, zero), k1));
    hi = _mm_add_epi16(hi, _mm_mullo_epi16(_mm_unpackhi_epi8(s1, zero), k1));
    lo = _mm_add_epi16(lo, _mm_mullo_epi16(_mm_unpacklo_epi8(s2, zero), k2));
    hi = _mm_add_epi16(hi, _mm_mullo_epi16(_mm_unpackhi_epi8(s2, zero), k2));
    lo = _mm_srai_epi16(_mm_add_epi16(lo, round), 6);
    hi = _mm_srai_epi16(_mm_add_epi16(hi, round), 6);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(lo, hi));
  }
  for (; i < n; i++) {
    int acc = c0 * src[i] + c1 * src[i + 1] + c2 * src[i + 2];
    int v = (acc + 32) >> 6;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

static inline __m128i load8_u16(const uint8_t *p) {
  return _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128());
}

void box3x3_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
               ptrdiff_t src_stride, int w, int h) {
  const __m128i k = _mm_set1_epi16(7282);
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    const uint8_t *s2 = s1 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    for (; x + 8 <= w; x += 8) {
      __m128i sum = _mm_add_epi16(_mm_add_epi16(load8_u16(s0 + x), load8_u16(s0 + x + 1)),
                                  load8_u16(s0 + x + 2));
      sum = _mm_add_epi16(sum, _mm_add_epi16(_mm_add_epi16(load8_u16(s1 + x), load8_u16(s1 + x + 1)),
                                             load8_u16(s1 + x + 2)));
      sum = _mm_add_epi16(sum, _mm_add_epi16(_mm_add_epi16(load8_u16(s2 + x), load8_u16(s2 + x + 1)),
                                             load8_u16(s2 + x + 2)));
      __m128i q = _mm_mulhi_epi16(sum, k);
      _mm_storel_epi64((__m128i *)(d + x), _mm_packus_epi16(q, q));
    }
    for (; x < w; x++) {
      int sum = s0[x] + s0[x + 1] + s0[x + 2] + s1[x] + s1[x + 1] + s1[x + 2] +
                s2[x] + s2[x + 1] + s2[x + 2];
      d[x] = (uint8_t)((sum * 7282) >> 16);
    }
  }
}

void vfilt121_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1,
                 const uint8_t *r2, int n) {
  const __m128i one = _mm_set1_epi8(1);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(r0 + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(r1 + i));
    __m128i c = _mm_loadu_si128((const __m128i *)(r2 + i));
    /* truncating average: avg rounds up, so take back the odd bit */
    __m128i t = _mm_sub_epi8(_mm_avg_epu8(a, c), _mm_and_si128(_mm_xor_si128(a, c), one));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_avg_epu8(t, b));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + 2 * r1[i] + r2[i] + 2) >> 2);
}

void sharpen3_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i zero = _mm_setzero_si128(), six = _mm_set1_epi16(6);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i s0 = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i s1 = _mm_loadu_si128((const __m128i *)(src + i + 1));
    __m128i s2 = _mm_loadu_si128((const __m128i *)(src + i + 2));
    __m128i lo = _mm_mullo_epi16(_mm_unpacklo_epi8(s1, zero), six);
    __m128i hi = _mm_mullo_epi16(_mm_unpackhi_epi8(s1, zero), six);
    lo = _mm_sub_epi16(lo, _mm_add_epi16(_mm_unpacklo_epi8(s0, zero), _mm_unpacklo_epi8(s2, zero)));
    hi = _mm_sub_epi16(hi, _mm_add_epi16(_mm_unpackhi_epi8(s0, zero), _mm_unpackhi_epi8(s2, zero)));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(_mm_srai_epi16(lo, 2), _mm_srai_epi16(hi, 2)));
  }
  for (; i < n; i++) {
    int v = (6 * src[i + 1] - src[i] - src[i + 2]) >> 2;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}
