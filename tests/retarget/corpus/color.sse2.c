/* color: SSE2 (the functions whose data layout needs no byte shuffle). */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

/* 4 RGBA pixels -> 4 x int32 (77 R + 150 G + 29 B + 128) >> 8 */
static inline __m128i gray4(__m128i px) {
  const __m128i lo_bytes = _mm_set1_epi32(0x00FF00FF);
  const __m128i k_rb = _mm_setr_epi16(77, 29, 77, 29, 77, 29, 77, 29);
  const __m128i k_ga = _mm_setr_epi16(150, 0, 150, 0, 150, 0, 150, 0);
  __m128i rb = _mm_and_si128(px, lo_bytes);  /* R, B as 16-bit lanes */
  __m128i ga = _mm_srli_epi16(px, 8);        /* G, A */
  __m128i s = _mm_add_epi32(_mm_madd_epi16(rb, k_rb), _mm_madd_epi16(ga, k_ga));
  return _mm_srli_epi32(_mm_add_epi32(s, _mm_set1_epi32(128)), 8);
}

void rgba_to_gray(uint8_t *dst, const uint8_t *rgba, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i g0 = gray4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i)));
    __m128i g1 = gray4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i + 16)));
    __m128i g2 = gray4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i + 32)));
    __m128i g3 = gray4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i + 48)));
    __m128i w01 = _mm_packs_epi32(g0, g1), w23 = _mm_packs_epi32(g2, g3);
    _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(w01, w23));
  }
  for (; i + 4 <= n; i += 4) {
    __m128i g = gray4(_mm_loadu_si128((const __m128i *)(rgba + 4 * i)));
    g = _mm_packus_epi16(_mm_packs_epi32(g, g), g);
    int word = _mm_cvtsi128_si32(g);
    dst[i] = (uint8_t)word;
    dst[i + 1] = (uint8_t)(word >> 8);
    dst[i + 2] = (uint8_t)(word >> 16);
    dst[i + 3] = (uint8_t)(word >> 24);
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2] + 128) >> 8);
}

void rgba_to_bgra(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i ga_mask = _mm_set1_epi32((int)0xFF00FF00u);
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i w = _mm_loadu_si128((const __m128i *)(src + 4 * i));
    __m128i rot = _mm_or_si128(_mm_slli_epi32(w, 16), _mm_srli_epi32(w, 16));
    __m128i out = _mm_or_si128(_mm_and_si128(w, ga_mask), _mm_andnot_si128(ga_mask, rot));
    _mm_storeu_si128((__m128i *)(dst + 4 * i), out);
  }
  for (; i < n; i++) {
    uint8_t r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
    dst[4 * i] = b;
    dst[4 * i + 1] = g;
    dst[4 * i + 2] = r;
    dst[4 * i + 3] = a;
  }
}

void merge_rgba_u8(uint8_t *rgba, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                   const uint8_t *a, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i vr = _mm_loadu_si128((const __m128i *)(r + i));
    __m128i vg = _mm_loadu_si128((const __m128i *)(g + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i rg_lo = _mm_unpacklo_epi8(vr, vg), rg_hi = _mm_unpackhi_epi8(vr, vg);
    __m128i ba_lo = _mm_unpacklo_epi8(vb, va), ba_hi = _mm_unpackhi_epi8(vb, va);
    _mm_storeu_si128((__m128i *)(rgba + 4 * i), _mm_unpacklo_epi16(rg_lo, ba_lo));
    _mm_storeu_si128((__m128i *)(rgba + 4 * i + 16), _mm_unpackhi_epi16(rg_lo, ba_lo));
    _mm_storeu_si128((__m128i *)(rgba + 4 * i + 32), _mm_unpacklo_epi16(rg_hi, ba_hi));
    _mm_storeu_si128((__m128i *)(rgba + 4 * i + 48), _mm_unpackhi_epi16(rg_hi, ba_hi));
  }
  for (; i < n; i++) {
    rgba[4 * i] = r[i];
    rgba[4 * i + 1] = g[i];
    rgba[4 * i + 2] = b[i];
    rgba[4 * i + 3] = a[i];
  }
}
