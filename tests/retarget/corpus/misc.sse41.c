/* misc: SSSE3 / SSE4.1 idioms. */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

int32_t dot_u8s8(const uint8_t *a, const int8_t *b, int n) {
  const __m128i ones = _mm_set1_epi16(1);
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    /* pairs of u8 * s8 summed to s16 with saturation: exact for b in -64..63 */
    acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_maddubs_epi16(va, vb), ones));
  }
  acc = _mm_hadd_epi32(acc, acc);
  acc = _mm_hadd_epi32(acc, acc);
  uint32_t s = (uint32_t)_mm_cvtsi128_si32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] * b[i]);
  return (int32_t)s;
}

void select_gt_s16(int16_t *dst, const int16_t *a, const int16_t *b, const int16_t *x,
                   const int16_t *y, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i gt = _mm_cmpgt_epi16(_mm_loadu_si128((const __m128i *)(a + i)),
                                 _mm_loadu_si128((const __m128i *)(b + i)));
    __m128i vx = _mm_loadu_si128((const __m128i *)(x + i));
    __m128i vy = _mm_loadu_si128((const __m128i *)(y + i));
    _mm_storeu_si128((__m128i *)(dst + i), _mm_blendv_epi8(vy, vx, gt));
  }
  for (; i < n; i++) dst[i] = a[i] > b[i] ? x[i] : y[i];
}
