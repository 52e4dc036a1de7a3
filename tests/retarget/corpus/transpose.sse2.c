/* transpose: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void transpose4x4_u32(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                      ptrdiff_t src_stride) {
  __m128i r0 = _mm_loadu_si128((const __m128i *)src);
  __m128i r1 = _mm_loadu_si128((const __m128i *)(src + src_stride));
  __m128i r2 = _mm_loadu_si128((const __m128i *)(src + 2 * src_stride));
  __m128i r3 = _mm_loadu_si128((const __m128i *)(src + 3 * src_stride));
  __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
  __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
  _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi64(t0, t1));
  _mm_storeu_si128((__m128i *)(dst + dst_stride), _mm_unpackhi_epi64(t0, t1));
  _mm_storeu_si128((__m128i *)(dst + 2 * dst_stride), _mm_unpacklo_epi64(t2, t3));
  _mm_storeu_si128((__m128i *)(dst + 3 * dst_stride), _mm_unpackhi_epi64(t2, t3));
}

void transpose8x8_u16(uint16_t *dst, ptrdiff_t dst_stride, const uint16_t *src,
                      ptrdiff_t src_stride) {
  __m128i r[8];
  for (int i = 0; i < 8; i++) r[i] = _mm_loadu_si128((const __m128i *)(src + i * src_stride));
  __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpacklo_epi16(r[2], r[3]);
  __m128i a2 = _mm_unpacklo_epi16(r[4], r[5]), a3 = _mm_unpacklo_epi16(r[6], r[7]);
  __m128i a4 = _mm_unpackhi_epi16(r[0], r[1]), a5 = _mm_unpackhi_epi16(r[2], r[3]);
  __m128i a6 = _mm_unpackhi_epi16(r[4], r[5]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
  __m128i b0 = _mm_unpacklo_epi32(a0, a1), b1 = _mm_unpacklo_epi32(a2, a3);
  __m128i b2 = _mm_unpackhi_epi32(a0, a1), b3 = _mm_unpackhi_epi32(a2, a3);
  __m128i b4 = _mm_unpacklo_epi32(a4, a5), b5 = _mm_unpacklo_epi32(a6, a7);
  __m128i b6 = _mm_unpackhi_epi32(a4, a5), b7 = _mm_unpackhi_epi32(a6, a7);
  _mm_storeu_si128((__m128i *)(dst + 0 * dst_stride), _mm_unpacklo_epi64(b0, b1));
  _mm_storeu_si128((__m128i *)(dst + 1 * dst_stride), _mm_unpackhi_epi64(b0, b1));
  _mm_storeu_si128((__m128i *)(dst + 2 * dst_stride), _mm_unpacklo_epi64(b2, b3));
  _mm_storeu_si128((__m128i *)(dst + 3 * dst_stride), _mm_unpackhi_epi64(b2, b3));
  _mm_storeu_si128((__m128i *)(dst + 4 * dst_stride), _mm_unpacklo_epi64(b4, b5));
  _mm_storeu_si128((__m128i *)(dst + 5 * dst_stride), _mm_unpackhi_epi64(b4, b5));
  _mm_storeu_si128((__m128i *)(dst + 6 * dst_stride), _mm_unpacklo_epi64(b6, b7));
  _mm_storeu_si128((__m128i *)(dst + 7 * dst_stride), _mm_unpackhi_epi64(b6, b7));
}

void transpose16x16_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                       ptrdiff_t src_stride) {
  __m128i r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = _mm_loadu_si128((const __m128i *)(src + i * src_stride));
  /* interleaving row i with row i + 8 rotates the (row, column) bit index by
   * one place; four rounds swap row and column */
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < 8; i++) {
      t[2 * i] = _mm_unpacklo_epi8(r[i], r[i + 8]);
      t[2 * i + 1] = _mm_unpackhi_epi8(r[i], r[i + 8]);
    }
    for (int i = 0; i < 16; i++) r[i] = t[i];
  }
  for (int i = 0; i < 16; i++) _mm_storeu_si128((__m128i *)(dst + i * dst_stride), r[i]);
}

void zip_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    _mm_storeu_si128((__m128i *)(dst + 2 * i), _mm_unpacklo_epi16(va, vb));
    _mm_storeu_si128((__m128i *)(dst + 2 * i + 8), _mm_unpackhi_epi16(va, vb));
  }
  for (; i < n; i++) {
    dst[2 * i] = a[i];
    dst[2 * i + 1] = b[i];
  }
}

void unzip_u8(uint8_t *even, uint8_t *odd, const uint8_t *src, int n) {
  const __m128i lo_mask = _mm_set1_epi16(0x00FF);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i lo = _mm_loadu_si128((const __m128i *)(src + 2 * i));
    __m128i hi = _mm_loadu_si128((const __m128i *)(src + 2 * i + 16));
    __m128i e = _mm_packus_epi16(_mm_and_si128(lo, lo_mask), _mm_and_si128(hi, lo_mask));
    __m128i o = _mm_packus_epi16(_mm_srli_epi16(lo, 8), _mm_srli_epi16(hi, 8));
    _mm_storeu_si128((__m128i *)(even + i), e);
    _mm_storeu_si128((__m128i *)(odd + i), o);
  }
  for (; i < n; i++) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

static inline __m128i load_u32(const uint8_t *p) {
  int32_t w;
  memcpy(&w, p, 4);
  return _mm_cvtsi32_si128(w);
}

static inline void store_u32(uint8_t *p, __m128i v) {
  int32_t w = _mm_cvtsi128_si32(v);
  memcpy(p, &w, 4);
}

void transpose4x4_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                     ptrdiff_t src_stride) {
  __m128i a = _mm_unpacklo_epi8(load_u32(src), load_u32(src + src_stride));
  __m128i b = _mm_unpacklo_epi8(load_u32(src + 2 * src_stride), load_u32(src + 3 * src_stride));
  __m128i t = _mm_unpacklo_epi16(a, b); /* dword k = column k */
  store_u32(dst, t);
  store_u32(dst + dst_stride, _mm_srli_si128(t, 4));
  store_u32(dst + 2 * dst_stride, _mm_srli_si128(t, 8));
  store_u32(dst + 3 * dst_stride, _mm_srli_si128(t, 12));
}
