/* blend: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t div255(uint32_t x) {
  uint32_t t = x + ((x + 128) >> 8);
  return (uint8_t)((t + 128) >> 8);
}

/* 16-bit lanes, x <= 65025: (x + ((x + 128) >> 8) + 128) >> 8 */
static inline __m256i div255_epu16(__m256i x) {
  const __m256i r = _mm256_set1_epi16(128);
  __m256i t = _mm256_add_epi16(x, _mm256_srli_epi16(_mm256_add_epi16(x, r), 8));
  return _mm256_srli_epi16(_mm256_add_epi16(t, r), 8);
}

void blend_alpha_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                    int alpha, int n) {
  const __m256i zero = _mm256_setzero_si256();
  /* (src1, src2) pairs times (alpha, 255 - alpha) with madd_epi16 */
  const __m256i w = _mm256_set1_epi32((alpha & 0xFFFF) | ((255 - alpha) << 16));
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(src1 + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(src2 + i));
    __m256i ab_lo = _mm256_unpacklo_epi8(a, b);
    __m256i ab_hi = _mm256_unpackhi_epi8(a, b);
    __m256i p0 = _mm256_madd_epi16(_mm256_unpacklo_epi8(ab_lo, zero), w);
    __m256i p1 = _mm256_madd_epi16(_mm256_unpackhi_epi8(ab_lo, zero), w);
    __m256i p2 = _mm256_madd_epi16(_mm256_unpacklo_epi8(ab_hi, zero), w);
    __m256i p3 = _mm256_madd_epi16(_mm256_unpackhi_epi8(ab_hi, zero), w);
    /* sums are <= 65025: packus_epi32 keeps them exactly; the in-lane
     * unpack/pack pairs cancel, so no cross-lane fix-up is needed */
    __m256i lo = _mm256_packus_epi32(p0, p1);
    __m256i hi = _mm256_packus_epi32(p2, p3);
    _mm256_storeu_si256((__m256i *)(dst + i),
                        _mm256_packus_epi16(div255_epu16(lo), div255_epu16(hi)));
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * (uint32_t)alpha +
                    (uint32_t)src2[i] * (uint32_t)(255 - alpha));
}

void blend_mask_u8(uint8_t *dst, const uint8_t *src1, const uint8_t *src2,
                   const uint8_t *mask, int n) {
  const __m256i c255 = _mm256_set1_epi16(255);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    /* 16 pixels per step, widened across the whole register */
    __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src1 + i)));
    __m256i b = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src2 + i)));
    __m256i m = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(mask + i)));
    __m256i x = _mm256_add_epi16(_mm256_mullo_epi16(a, m),
                                 _mm256_mullo_epi16(b, _mm256_sub_epi16(c255, m)));
    __m256i r = div255_epu16(x);
    /* packus works per 128-bit lane: bring the high lane's bytes down */
    __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(r, r), 0x08);
    _mm_storeu_si128((__m128i *)(dst + i), _mm256_castsi256_si128(p));
  }
  for (; i < n; i++)
    dst[i] = div255((uint32_t)src1[i] * mask[i] + (uint32_t)src2[i] * (255u - mask[i]));
}

void blend_premul_rgba(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i c255 = _mm256_set1_epi16(255);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i s = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
    __m256i d = _mm256_loadu_si256((const __m256i *)(dst + 4 * i));
    __m256i slo = _mm256_unpacklo_epi8(s, zero), shi = _mm256_unpackhi_epi8(s, zero);
    __m256i alo = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(slo, 0xFF), 0xFF);
    __m256i ahi = _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(shi, 0xFF), 0xFF);
    __m256i lo = _mm256_mullo_epi16(_mm256_unpacklo_epi8(d, zero), _mm256_sub_epi16(c255, alo));
    __m256i hi = _mm256_mullo_epi16(_mm256_unpackhi_epi8(d, zero), _mm256_sub_epi16(c255, ahi));
    __m256i scaled = _mm256_packus_epi16(div255_epu16(lo), div255_epu16(hi));
    _mm256_storeu_si256((__m256i *)(dst + 4 * i), _mm256_adds_epu8(s, scaled));
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
    for (; x + 32 <= w; x += 32) {
      __m256i a = _mm256_loadu_si256((const __m256i *)(d + x));
      __m256i b = _mm256_loadu_si256((const __m256i *)(s + x));
      _mm256_storeu_si256((__m256i *)(d + x), _mm256_adds_epu8(a, b));
    }
    if (x + 16 <= w) {
      __m128i a = _mm_loadu_si128((const __m128i *)(d + x));
      __m128i b = _mm_loadu_si128((const __m128i *)(s + x));
      _mm_storeu_si128((__m128i *)(d + x), _mm_adds_epu8(a, b));
      x += 16;
    }
    for (; x < w; x++) {
      unsigned v = d[x] + s[x];
      d[x] = (uint8_t)(v > 255 ? 255 : v);
    }
  }
}

void add_residual_u8(uint8_t *dst, const uint8_t *pred, const int16_t *res, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i p0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(pred + i)));
    __m256i p1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(pred + i + 16)));
    __m256i r0 = _mm256_loadu_si256((const __m256i *)(res + i));
    __m256i r1 = _mm256_loadu_si256((const __m256i *)(res + i + 16));
    __m256i packed = _mm256_packus_epi16(_mm256_adds_epi16(r0, p0), _mm256_adds_epi16(r1, p1));
    /* lanes hold [0..7 16..23 | 8..15 24..31]: restore the order */
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute4x64_epi64(packed, 0xD8));
  }
  for (; i < n; i++) {
    int v = pred[i] + res[i];
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void sub_sat_s16(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_subs_epi16(va, vb));
  }
  for (; i < n; i++) {
    int v = a[i] - b[i];
    dst[i] = (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
  }
}
