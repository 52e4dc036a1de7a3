/* _mm_mulhrs_epi16 by a constant above i16.min: one SQRDMULH, nothing to fix */
#include <tmmintrin.h>
#include <stdint.h>
void scale(int16_t *dst, const int16_t *a, int n) {
    for (int i = 0; i + 8 <= n; i += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(a + i));
        _mm_storeu_si128((__m128i *)(dst + i), _mm_mulhrs_epi16(x, _mm_set1_epi16(23170)));
    }
}
