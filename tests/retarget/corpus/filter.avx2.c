/* filter: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

void fir3_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i zero = _mm256_setzero_si256(), two = _mm256_set1_epi16(2);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 1));
    __m256i c = _mm256_loadu_si256((const __m256i *)(src + i + 2));
    __m256i lo = _mm256_add_epi16(_mm256_unpacklo_epi8(a, zero), _mm256_unpacklo_epi8(c, zero));
    __m256i hi = _mm256_add_epi16(_mm256_unpackhi_epi8(a, zero), _mm256_unpackhi_epi8(c, zero));
    lo = _mm256_add_epi16(lo, _mm256_slli_epi16(_mm256_unpacklo_epi8(b, zero), 1));
    hi = _mm256_add_epi16(hi, _mm256_slli_epi16(_mm256_unpackhi_epi8(b, zero), 1));
    lo = _mm256_srli_epi16(_mm256_add_epi16(lo, two), 2);
    hi = _mm256_srli_epi16(_mm256_add_epi16(hi, two), 2);
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_packus_epi16(lo, hi));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((src[i] + 2 * src[i + 1] + src[i + 2] + 2) >> 2);
}

static inline __m256i load16_u16(const uint8_t *p) {
  return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* 16 u16 lanes -> 16 bytes in order */
static inline __m128i pack16(__m256i v) {
  __m256i p = _mm256_packus_epi16(v, v);
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08));
}

void fir5_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i six = _mm256_set1_epi16(6), eight = _mm256_set1_epi16(8);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i s0 = load16_u16(src + i), s1 = load16_u16(src + i + 1), s2 = load16_u16(src + i + 2);
    __m256i s3 = load16_u16(src + i + 3), s4 = load16_u16(src + i + 4);
    __m256i acc = _mm256_add_epi16(_mm256_add_epi16(s0, s4), _mm256_mullo_epi16(s2, six));
    acc = _mm256_add_epi16(acc, _mm256_slli_epi16(_mm256_add_epi16(s1, s3), 2));
    acc = _mm256_srli_epi16(_mm256_add_epi16(acc, eight), 4);
    _mm_storeu_si128((__m128i *)(dst + i), pack16(acc));
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((src[i] + 4 * src[i + 1] + 6 * src[i + 2] + 4 * src[i + 3] +
                        src[i + 4] + 8) >> 4);
}

void fir3_taps_u8(uint8_t *dst, const uint8_t *src, int c0, int c1, int c2, int n) {
  const __m256i round = _mm256_set1_epi16(32);
  const __m256i k0 = _mm256_set1_epi16((short)c0);
  const __m256i k1 = _mm256_set1_epi16((short)c1);
  const __m256i k2 = _mm256_set1_epi16((short)c2);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a0 = load16_u16(src + i), a1 = load16_u16(src + i + 1), a2 = load16_u16(src + i + 2);
    __m256i b0 = load16_u16(src + i + 16), b1 = load16_u16(src + i + 17), b2 = load16_u16(src + i + 18);
    __m256i lo = _mm256_add_epi16(_mm256_mullo_epi16(a0, k0), _mm256_mullo_epi16(a1, k1));
    __m256i hi = _mm256_add_epi16(_mm256_mullo_epi16(b0, k0), _mm256_mullo_epi16(b1, k1));
    lo = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(lo, _mm256_mullo_epi16(a2, k2)), round), 6);
    hi = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(hi, _mm256_mullo_epi16(b2, k2)), round), 6);
    /* packus interleaves 128-bit halves: [lo0 hi0 | lo1 hi1] -> reorder */
    _mm256_storeu_si256((__m256i *)(dst + i),
                        _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8));
  }
  for (; i < n; i++) {
    int acc = c0 * src[i] + c1 * src[i + 1] + c2 * src[i + 2];
    int v = (acc + 32) >> 6;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}

void box3x3_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
               ptrdiff_t src_stride, int w, int h) {
  const __m256i k = _mm256_set1_epi16(7282);
  for (int y = 0; y < h; y++) {
    const uint8_t *s0 = src + y * src_stride;
    const uint8_t *s1 = s0 + src_stride;
    const uint8_t *s2 = s1 + src_stride;
    uint8_t *d = dst + y * dst_stride;
    int x = 0;
    for (; x + 16 <= w; x += 16) {
      __m256i sum = _mm256_setzero_si256();
      for (int dx = 0; dx < 3; dx++) {
        sum = _mm256_add_epi16(sum, load16_u16(s0 + x + dx));
        sum = _mm256_add_epi16(sum, load16_u16(s1 + x + dx));
        sum = _mm256_add_epi16(sum, load16_u16(s2 + x + dx));
      }
      _mm_storeu_si128((__m128i *)(d + x), pack16(_mm256_mulhi_epi16(sum, k)));
    }
    for (; x < w; x++) {
      int sum = s0[x] + s0[x + 1] + s0[x + 2] + s1[x] + s1[x + 1] + s1[x + 2] +
                s2[x] + s2[x + 1] + s2[x + 2];
      d[x] = (uint8_t)((sum * 7282) >> 16);
    }
  }
}

void vfilt121_u8(uint8_t *dst, const uint8_t *r0, const uint8_t *r1,
                 const uint8_t *r2, int n) {
  const __m256i one = _mm256_set1_epi8(1);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(r0 + i));
    __m256i b = _mm256_loadu_si256((const __m256i *)(r1 + i));
    __m256i c = _mm256_loadu_si256((const __m256i *)(r2 + i));
    __m256i t = _mm256_sub_epi8(_mm256_avg_epu8(a, c), _mm256_and_si256(_mm256_xor_si256(a, c), one));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_avg_epu8(t, b));
  }
  for (; i < n; i++) dst[i] = (uint8_t)((r0[i] + 2 * r1[i] + r2[i] + 2) >> 2);
}

void sharpen3_u8(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i six = _mm256_set1_epi16(6);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i s0 = load16_u16(src + i), s1 = load16_u16(src + i + 1), s2 = load16_u16(src + i + 2);
    __m256i acc = _mm256_sub_epi16(_mm256_mullo_epi16(s1, six), _mm256_add_epi16(s0, s2));
    acc = _mm256_srai_epi16(acc, 2);
    __m128i packed = _mm_packus_epi16(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    _mm_storeu_si128((__m128i *)(dst + i), packed);
  }
  for (; i < n; i++) {
    int v = (6 * src[i + 1] - src[i] - src[i + 2]) >> 2;
    dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
  }
}
