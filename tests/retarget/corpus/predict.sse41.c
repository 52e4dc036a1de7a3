/* predict: SSE4.1. */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

void pred_paeth_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above,
                      const uint8_t *left, int topleft) {
  const __m128i top = _mm_loadu_si128((const __m128i *)above);
  const __m128i top_lo = _mm_cvtepu8_epi16(top);
  const __m128i top_hi = _mm_cvtepu8_epi16(_mm_srli_si128(top, 8));
  const __m128i tl16 = _mm_set1_epi16((short)topleft);
  const __m128i p_left_lo = _mm_abs_epi16(_mm_sub_epi16(top_lo, tl16));
  const __m128i p_left_hi = _mm_abs_epi16(_mm_sub_epi16(top_hi, tl16));
  const __m128i tl8 = _mm_set1_epi8((char)topleft);
  for (int y = 0; y < 16; y++) {
    __m128i l16 = _mm_set1_epi16(left[y]);
    __m128i p_top = _mm_abs_epi16(_mm_sub_epi16(l16, tl16));
    __m128i base_lo = _mm_sub_epi16(_mm_add_epi16(top_lo, l16), tl16);
    __m128i base_hi = _mm_sub_epi16(_mm_add_epi16(top_hi, l16), tl16);
    __m128i p_tl_lo = _mm_abs_epi16(_mm_sub_epi16(base_lo, tl16));
    __m128i p_tl_hi = _mm_abs_epi16(_mm_sub_epi16(base_hi, tl16));
    /* 16-bit masks: not_left = p_left > p_top | p_left > p_tl */
    __m128i nl_lo = _mm_or_si128(_mm_cmpgt_epi16(p_left_lo, p_top), _mm_cmpgt_epi16(p_left_lo, p_tl_lo));
    __m128i nl_hi = _mm_or_si128(_mm_cmpgt_epi16(p_left_hi, p_top), _mm_cmpgt_epi16(p_left_hi, p_tl_hi));
    __m128i nt_lo = _mm_cmpgt_epi16(p_top, p_tl_lo);
    __m128i nt_hi = _mm_cmpgt_epi16(p_top, p_tl_hi);
    __m128i not_left = _mm_packs_epi16(nl_lo, nl_hi); /* 0 / -1 survive packs */
    __m128i not_top = _mm_packs_epi16(nt_lo, nt_hi);
    __m128i v = _mm_blendv_epi8(top, tl8, not_top);
    v = _mm_blendv_epi8(_mm_set1_epi8((char)left[y]), v, not_left);
    _mm_storeu_si128((__m128i *)(dst + y * stride), v);
  }
}
