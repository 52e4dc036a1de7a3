/* predict: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

void pred_paeth_16x16(uint8_t *dst, ptrdiff_t stride, const uint8_t *above,
                      const uint8_t *left, int topleft) {
  /* one row of 16 pixels as 16-bit lanes across the whole register */
  const __m256i top = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)above));
  const __m256i tl = _mm256_set1_epi16((short)topleft);
  const __m256i p_left = _mm256_abs_epi16(_mm256_sub_epi16(top, tl));
  for (int y = 0; y < 16; y++) {
    __m256i l = _mm256_set1_epi16(left[y]);
    __m256i p_top = _mm256_abs_epi16(_mm256_sub_epi16(l, tl));
    __m256i p_tl = _mm256_abs_epi16(_mm256_sub_epi16(_mm256_add_epi16(top, l), _mm256_add_epi16(tl, tl)));
    __m256i not_left = _mm256_or_si256(_mm256_cmpgt_epi16(p_left, p_top), _mm256_cmpgt_epi16(p_left, p_tl));
    __m256i not_top = _mm256_cmpgt_epi16(p_top, p_tl);
    __m256i v = _mm256_blendv_epi8(top, tl, not_top);
    v = _mm256_blendv_epi8(l, v, not_left);
    /* 16-bit lanes -> bytes; packus works per lane, so fetch qwords 0 and 2 */
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(v, v), 0x08);
    _mm_storeu_si128((__m128i *)(dst + y * stride), _mm256_castsi256_si128(packed));
  }
}
