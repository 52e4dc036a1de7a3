/* transpose: SSE4.1 (insert/extract and pshufb). */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int32_t read_u32(const uint8_t *p) {
  int32_t w;
  memcpy(&w, p, 4);
  return w;
}

void transpose4x4_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                     ptrdiff_t src_stride) {
  __m128i v = _mm_cvtsi32_si128(read_u32(src));
  v = _mm_insert_epi32(v, read_u32(src + src_stride), 1);
  v = _mm_insert_epi32(v, read_u32(src + 2 * src_stride), 2);
  v = _mm_insert_epi32(v, read_u32(src + 3 * src_stride), 3);
  v = _mm_shuffle_epi8(v, _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  int32_t w0 = _mm_cvtsi128_si32(v), w1 = _mm_extract_epi32(v, 1);
  int32_t w2 = _mm_extract_epi32(v, 2), w3 = _mm_extract_epi32(v, 3);
  memcpy(dst, &w0, 4);
  memcpy(dst + dst_stride, &w1, 4);
  memcpy(dst + 2 * dst_stride, &w2, 4);
  memcpy(dst + 3 * dst_stride, &w3, 4);
}
