/* transpose: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline __m256i load_2x128(const void *lo, const void *hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                 _mm_loadu_si128((const __m128i *)hi), 1);
}

static inline void store_2x128(void *lo, void *hi, __m256i v) {
  _mm_storeu_si128((__m128i *)lo, _mm256_castsi256_si128(v));
  _mm_storeu_si128((__m128i *)hi, _mm256_extracti128_si256(v, 1));
}

void transpose4x4_u32(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                      ptrdiff_t src_stride) {
  __m256i a = load_2x128(src, src + src_stride);                  /* r0 | r1 */
  __m256i b = load_2x128(src + 2 * src_stride, src + 3 * src_stride); /* r2 | r3 */
  /* t = r0[0] r2[0] r0[1] r2[1] | r1[0] r3[0] r1[1] r3[1], u likewise for 2, 3 */
  __m256i t = _mm256_unpacklo_epi32(a, b), u = _mm256_unpackhi_epi32(a, b);
  const __m256i idx = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  store_2x128(dst, dst + dst_stride, _mm256_permutevar8x32_epi32(t, idx));
  store_2x128(dst + 2 * dst_stride, dst + 3 * dst_stride, _mm256_permutevar8x32_epi32(u, idx));
}

void transpose8x8_u16(uint16_t *dst, ptrdiff_t dst_stride, const uint16_t *src,
                      ptrdiff_t src_stride) {
  /* rows i and i + 4 share a register */
  __m256i y0 = load_2x128(src, src + 4 * src_stride);
  __m256i y1 = load_2x128(src + 1 * src_stride, src + 5 * src_stride);
  __m256i y2 = load_2x128(src + 2 * src_stride, src + 6 * src_stride);
  __m256i y3 = load_2x128(src + 3 * src_stride, src + 7 * src_stride);
  __m256i a0 = _mm256_unpacklo_epi16(y0, y1), a1 = _mm256_unpacklo_epi16(y2, y3);
  __m256i a2 = _mm256_unpackhi_epi16(y0, y1), a3 = _mm256_unpackhi_epi16(y2, y3);
  /* columns (0,1), (2,3), (4,5), (6,7); rows 0-3 in the low lane, 4-7 high */
  __m256i b0 = _mm256_unpacklo_epi32(a0, a1), b1 = _mm256_unpackhi_epi32(a0, a1);
  __m256i b2 = _mm256_unpacklo_epi32(a2, a3), b3 = _mm256_unpackhi_epi32(a2, a3);
  /* gather each column's two 4-row halves: qwords 0, 2 | 1, 3 */
  store_2x128(dst + 0 * dst_stride, dst + 1 * dst_stride, _mm256_permute4x64_epi64(b0, 0xD8));
  store_2x128(dst + 2 * dst_stride, dst + 3 * dst_stride, _mm256_permute4x64_epi64(b1, 0xD8));
  store_2x128(dst + 4 * dst_stride, dst + 5 * dst_stride, _mm256_permute4x64_epi64(b2, 0xD8));
  store_2x128(dst + 6 * dst_stride, dst + 7 * dst_stride, _mm256_permute4x64_epi64(b3, 0xD8));
}

void transpose16x16_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                       ptrdiff_t src_stride) {
  /* y[k] holds rows k and k + 8; each round interleaves row i with row i + 8,
   * which after regrouping the 128-bit halves is an in-lane unpack */
  __m256i y[8], t[8];
  for (int k = 0; k < 8; k++) y[k] = load_2x128(src + k * src_stride, src + (k + 8) * src_stride);
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 4; i++) {
      __m256i a = _mm256_permute2x128_si256(y[i], y[i + 4], 0x20); /* row i   | row i+4  */
      __m256i b = _mm256_permute2x128_si256(y[i], y[i + 4], 0x31); /* row i+8 | row i+12 */
      t[2 * i] = _mm256_unpacklo_epi8(a, b);
      t[2 * i + 1] = _mm256_unpackhi_epi8(a, b);
    }
    for (int k = 0; k < 8; k++) y[k] = t[k];
  }
  for (int k = 0; k < 8; k++) store_2x128(dst + k * dst_stride, dst + (k + 8) * dst_stride, y[k]);
}

void zip_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    __m256i lo = _mm256_unpacklo_epi16(va, vb); /* 0-3 | 8-11 */
    __m256i hi = _mm256_unpackhi_epi16(va, vb); /* 4-7 | 12-15 */
    _mm256_storeu_si256((__m256i *)(dst + 2 * i), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(dst + 2 * i + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  for (; i < n; i++) {
    dst[2 * i] = a[i];
    dst[2 * i + 1] = b[i];
  }
}

void unzip_u8(uint8_t *even, uint8_t *odd, const uint8_t *src, int n) {
  const __m256i lo_mask = _mm256_set1_epi16(0x00FF);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i lo = _mm256_loadu_si256((const __m256i *)(src + 2 * i));
    __m256i hi = _mm256_loadu_si256((const __m256i *)(src + 2 * i + 32));
    __m256i e = _mm256_packus_epi16(_mm256_and_si256(lo, lo_mask), _mm256_and_si256(hi, lo_mask));
    __m256i o = _mm256_packus_epi16(_mm256_srli_epi16(lo, 8), _mm256_srli_epi16(hi, 8));
    _mm256_storeu_si256((__m256i *)(even + i), _mm256_permute4x64_epi64(e, 0xD8));
    _mm256_storeu_si256((__m256i *)(odd + i), _mm256_permute4x64_epi64(o, 0xD8));
  }
  for (; i < n; i++) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}
