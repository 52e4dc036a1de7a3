/* swap.sse2.c — swaps of lane pairs (the real and imaginary parts of complex values) around
 * lane-wise arithmetic, for the peephole's swap rules after selection
 * (tests/retarget/check_cases.sh): a swap of the sum of two swapped vectors is the plain
 * sum, no swap left. */
#include <emmintrin.h>
#include <stdint.h>

void swapadd(int32_t *d, const int32_t *a, const int32_t *b, int n) {
    for (int i = 0; i + 4 <= n; i += 4) {
        __m128i x = _mm_loadu_si128((const __m128i *)(a + i)), y = _mm_loadu_si128((const __m128i *)(b + i));
        __m128i s = _mm_add_epi32(_mm_shuffle_epi32(x, 0xB1), _mm_shuffle_epi32(y, 0xB1));
        _mm_storeu_si128((__m128i *)(d + i), _mm_shuffle_epi32(s, 0xB1));
    }
}
