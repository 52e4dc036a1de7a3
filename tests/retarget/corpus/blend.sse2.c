/* blend: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t div255(uint32_t x) {
  uint32_t t = x + ((x + 128) >> 8);
  return (uint8_t)((t + 128) >> 8);
}

/* 16-bit lanes, x <= 65025: (x + ((x + 128) >> 8) + 128) >> 8 */
static inline __m128i div255_epu16(__m128i x) {
  const __m128i r = _mm_set1_epi16(128);
  __m128i t = _mm_add_epi16(x, _mm_srli_epi16(_mm_add_epi16(x, r), 8));
  return _mm_srli_epi16(_mm_add_epi16(t, r), 8);
}

void blend_alpha_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                    int alpha, int n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i va = _mm_set1_epi16((short)alpha);
  const __m128i vb = _mm_set1_epi16((short)(255 - alpha));
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src1 + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(src2 + i));
    __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(a, zero), va),
                               _mm_mullo_epi16(_mm_unpacklo_epi8(b, zero), vb));
    __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(a, zero), va),
                               _mm_mullo_epi16(_mm_unpackhi_epi8(b, zero), vb));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(div255_epu16(lo), div255_epu16(hi)));
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * (uint32_t)alpha +
                    (uint32_t)src2[i] * (uint32_t)(255 - alpha));
}

void blend_mask_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                   const uint8_t *mask, int n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i c255 = _mm_set1_epi16(255);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i a = _mm_loadu_si128((const __m128i *)(src1 + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(src2 + i));
    __m128i m = _mm_loadu_si128((const __m128i *)(mask + i));
    __m128i mlo = _mm_unpacklo_epi8(m, zero), mhi = _mm_unpackhi_epi8(m, zero);
    __m128i lo = _mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(a, zero), mlo),
                               _mm_mullo_epi16(_mm_unpacklo_epi8(b, zero), _mm_xor_si128(mlo, c255)));
    __m128i hi = _mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(a, zero), mhi),
                               _mm_mullo_epi16(_mm_unpackhi_epi8(b, zero), _mm_sub_epi16(c255, mhi)));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(div255_epu16(lo), div255_epu16(hi)));
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * mask[i] + (uint32_t)src2[i] * (255u - mask[i]));
}

void blend_premul_rgba(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i c255 = _mm_set1_epi16(255);
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i s = _mm_loadu_si128((const __m128i *)(src + 4 * i));
    __m128i d = _mm_loadu_si128((const __m128i *)(dst + 4 * i));
    __m128i slo = _mm_unpacklo_epi8(s, zero), shi = _mm_unpackhi_epi8(s, zero);
    /* broadcast each pixel's alpha (lane 3 / 7) over its four lanes */
    __m128i alo = _mm_shufflehi_epi16(_mm_shufflelo_epi16(slo, 0xFF), 0xFF);
    __m128i ahi = _mm_shufflehi_epi16(_mm_shufflelo_epi16(shi, 0xFF), 0xFF);
    __m128i lo = _mm_mullo_epi16(_mm_unpacklo_epi8(d, zero), _mm_sub_epi16(c255, alo));
    __m128i hi = _mm_mullo_epi16(_mm_unpackhi_epi8(d, zero), _mm_sub_epi16(c255, ahi));
    __m128i scaled = _mm_packus_epi16(div255_epu16(lo), div255_epu16(hi));
    _mm_storeu_si128((__m128i *)(dst + 4 * i), _mm_adds_epu8(s, scaled));
  }
  for (; i < n; i++) {
    uint32_t ia = 255u - src[4 * i + 3];
    for (int c = 0; c < 4; c++) {
      unsigned v = src[4 * i + c] + div255(dst[4 * i + c] * ia);
      dst[4 * i + c] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}

void add_sat_u8_image(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                      ptrdiff_t src_stride, int w, int h) {
  for (int y = 0; y < h; y++) {
    uint8_t *d = dst + y * dst_stride;
    const uint8_t *s = src + y * src_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
      __m128i a = _mm_loadu_si128((const __m128i *)(d + x));
      __m128i b = _mm_loadu_si128((const __m128i *)(s + x));
      _mm_storeu_si128((__m128i *)(d + x), _mm_adds_epu8(a, b));
    }
    for (; x < w; x++) {
      unsigned v = d[x] + s[x];
      d[x] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}

void add_residual_u8(uint8_t *dst, const uint8_t *pred, const int16_t *res, int n) {
  const __m128i zero = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i p = _mm_loadu_si128((const __m128i *)(pred + i));
    __m128i r0 = _mm_loadu_si128((const __m128i *)(res + i));
    __m128i r1 = _mm_loadu_si128((const __m128i *)(res + i + 8));
    __m128i s0 = _mm_adds_epi16(r0, _mm_unpacklo_epi8(p, zero));
    __m128i s1 = _mm_adds_epi16(r1, _mm_unpackhi_epi8(p, zero));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(s0, s1));
  }
  for (; i < n; i++) {
    int v = pred[i] + res[i];
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void sub_sat_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_subs_epi16(va, vb));
  }
  for (; i < n; i++) {
    int v = a[i] - b[i];
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}
