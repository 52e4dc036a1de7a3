#include <emmintrin.h>
#include <tmmintrin.h>
#include <stdint.h>
void q15(int16_t *dst, const int16_t *a, const int16_t *b, int n) {
    for (int i = 0; i + 8 <= n; i += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(a + i));
        __m128i y = _mm_loadu_si128((const __m128i *)(b + i));
        _mm_storeu_si128((__m128i *)(dst + i), _mm_mulhrs_epi16(x, y));
    }
}
