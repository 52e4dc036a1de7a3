/* predict: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void pred_dc_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left) {
  const __m128i zero = _mm_setzero_si128();
  __m128i s = _mm_add_epi16(_mm_sad_epu8(_mm_loadu_si128((const __m128i *)above), zero),
                            _mm_sad_epu8(_mm_loadu_si128((const __m128i *)left), zero));
  s = _mm_add_epi16(s, _mm_unpackhi_epi64(s, s));
  int sum = _mm_cvtsi128_si32(s);
  __m128i dc = _mm_set1_epi8((char)((sum + 16) >> 5));
  for (int y = 0; y < 16; y++) _mm_storeu_si128((__m128i *)(dst + y * stride), dc);
}

void pred_h_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *left) {
  __m128i l = _mm_loadl_epi64((const __m128i *)left);
  l = _mm_unpacklo_epi8(l, l);                /* l0 l0 l1 l1 ... l7 l7 */
  __m128i lo = _mm_unpacklo_epi16(l, l);      /* l0 x4, l1 x4, l2 x4, l3 x4 */
  __m128i hi = _mm_unpackhi_epi16(l, l);      /* l4 .. l7 */
  _mm_storel_epi64((__m128i *)(dst + 0 * stride), _mm_shuffle_epi32(lo, 0x00));
  _mm_storel_epi64((__m128i *)(dst + 1 * stride), _mm_shuffle_epi32(lo, 0x55));
  _mm_storel_epi64((__m128i *)(dst + 2 * stride), _mm_shuffle_epi32(lo, 0xAA));
  _mm_storel_epi64((__m128i *)(dst + 3 * stride), _mm_shuffle_epi32(lo, 0xFF));
  _mm_storel_epi64((__m128i *)(dst + 4 * stride), _mm_shuffle_epi32(hi, 0x00));
  _mm_storel_epi64((__m128i *)(dst + 5 * stride), _mm_shuffle_epi32(hi, 0x55));
  _mm_storel_epi64((__m128i *)(dst + 6 * stride), _mm_shuffle_epi32(hi, 0xAA));
  _mm_storel_epi64((__m128i *)(dst + 7 * stride), _mm_shuffle_epi32(hi, 0xFF));
}

void pred_v_4x4(uint8_t *dst, ptrdiff_t stride, const uint8_t *above) {
  int32_t word;
  memcpy(&word, above, 4);
  __m128i a = _mm_cvtsi32_si128(word);
  for (int y = 0; y < 4; y++) {
    int32_t out = _mm_cvtsi128_si32(a);
    memcpy(dst + y * stride, &out, 4);
  }
}

void pred_tm_8x8(uint8_t *dst, ptrdiff_t stride, const uint8_t *above, const uint8_t *left,
                 int topleft) {
  const __m128i zero = _mm_setzero_si128();
  __m128i d = _mm_sub_epi16(_mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)above), zero),
                            _mm_set1_epi16((short)topleft));
  for (int y = 0; y < 8; y += 2) {
    __m128i r0 = _mm_add_epi16(d, _mm_set1_epi16(left[y]));
    __m128i r1 = _mm_add_epi16(d, _mm_set1_epi16(left[y + 1]));
    __m128i rows = _mm_packus_epi16(r0, r1);
    _mm_storel_epi64((__m128i *)(dst + y * stride), rows);
    _mm_storel_epi64((__m128i *)(dst + (y + 1) * stride), _mm_srli_si128(rows, 8));
  }
}

/* a <= b for unsigned bytes */
static inline __m128i le_epu8(__m128i a, __m128i b) { return _mm_cmpeq_epi8(_mm_min_epu8(a, b), a); }

static inline __m128i abs_epi16_sse2(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

void pred_paeth_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above,
                      const uint8_t *left, int topleft) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i top = _mm_loadu_si128((const __m128i *)above);
  const __m128i tl = _mm_set1_epi8((char)topleft);
  const __m128i p_left = _mm_or_si128(_mm_subs_epu8(top, tl), _mm_subs_epu8(tl, top));
  const __m128i dt_lo = _mm_sub_epi16(_mm_unpacklo_epi8(top, zero), _mm_set1_epi16((short)topleft));
  const __m128i dt_hi = _mm_sub_epi16(_mm_unpackhi_epi8(top, zero), _mm_set1_epi16((short)topleft));
  for (int y = 0; y < 16; y++) {
    __m128i l = _mm_set1_epi8((char)left[y]);
    __m128i p_top = _mm_or_si128(_mm_subs_epu8(l, tl), _mm_subs_epu8(tl, l));
    __m128i dl = _mm_set1_epi16((short)(left[y] - topleft));
    /* packus saturates |.| (<= 510) to 255: comparisons unchanged */
    __m128i p_tl = _mm_packus_epi16(abs_epi16_sse2(_mm_add_epi16(dt_lo, dl)),
                                    abs_epi16_sse2(_mm_add_epi16(dt_hi, dl)));
    __m128i use_left = _mm_and_si128(le_epu8(p_left, p_top), le_epu8(p_left, p_tl));
    __m128i use_top = le_epu8(p_top, p_tl);
    __m128i v = _mm_or_si128(_mm_and_si128(use_top, top), _mm_andnot_si128(use_top, tl));
    v = _mm_or_si128(_mm_and_si128(use_left, l), _mm_andnot_si128(use_left, v));
    _mm_storeu_si128((__m128i *)(dst + y * stride), v);
  }
}
