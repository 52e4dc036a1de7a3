/* color: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* 8 RGBA pixels -> 8 x int32 gray */
static inline __m256i gray8(__m256i px) {
  const __m256i k_rb = _mm256_set1_epi32(77 | (29 << 16));
  const __m256i k_ga = _mm256_set1_epi32(150);
  __m256i rb = _mm256_and_si256(px, _mm256_set1_epi32(0x00FF00FF));
  __m256i ga = _mm256_srli_epi16(px, 8);
  __m256i s = _mm256_add_epi32(_mm256_madd_epi16(rb, k_rb), _mm256_madd_epi16(ga, k_ga));
  return _mm256_srli_epi32(_mm256_add_epi32(s, _mm256_set1_epi32(128)), 8);
}

void rgba_to_gray(uint8_t *dst, const uint8_t *rgba, int n) {
  /* after two in-lane packs the dwords hold pixels 0-3, 8-11, 16-19, 24-27 |
   * 4-7, 12-15, 20-23, 28-31 */
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i g0 = gray8(_mm256_loadu_si256((const __m256i *)(rgba + 4 * i)));
    __m256i g1 = gray8(_mm256_loadu_si256((const __m256i *)(rgba + 4 * i + 32)));
    __m256i g2 = gray8(_mm256_loadu_si256((const __m256i *)(rgba + 4 * i + 64)));
    __m256i g3 = gray8(_mm256_loadu_si256((const __m256i *)(rgba + 4 * i + 96)));
    __m256i packed = _mm256_packus_epi16(_mm256_packs_epi32(g0, g1), _mm256_packs_epi32(g2, g3));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permutevar8x32_epi32(packed, order));
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2] + 128) >> 8);
}

void rgba_to_bgra(uint8_t *dst, const uint8_t *src, int n) {
  const __m256i swap = _mm256_setr_epi8(2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15,
                                        2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
  int i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_si256((__m256i *)(dst + 4 * i),
                        _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(src + 4 * i)), swap));
  for (; i < n; i++) {
    uint8_t r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
    dst[4 * i] = b;
    dst[4 * i + 1] = g;
    dst[4 * i + 2] = r;
    dst[4 * i + 3] = a;
  }
}

static inline __m256i load_2x128(const uint8_t *lo, const uint8_t *hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                 _mm_loadu_si128((const __m128i *)hi), 1);
}

static inline __m256i shuf3(__m256i a, __m256i b, __m256i c, __m128i ma, __m128i mb, __m128i mc) {
  __m256i r = _mm256_shuffle_epi8(a, _mm256_broadcastsi128_si256(ma));
  r = _mm256_or_si256(r, _mm256_shuffle_epi8(b, _mm256_broadcastsi128_si256(mb)));
  return _mm256_or_si256(r, _mm256_shuffle_epi8(c, _mm256_broadcastsi128_si256(mc)));
}

void split_rgb_u8(uint8_t *r, uint8_t *g, uint8_t *b, const uint8_t *rgb, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    /* pixels 0-15 in the low lanes, 16-31 in the high lanes */
    const uint8_t *p = rgb + 3 * i;
    __m256i va = load_2x128(p, p + 48), vb = load_2x128(p + 16, p + 64), vc = load_2x128(p + 32, p + 80);
    __m256i vr = shuf3(va, vb, vc,
                       _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                       _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1),
                       _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13));
    __m256i vg = shuf3(va, vb, vc,
                       _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                       _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1),
                       _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14));
    __m256i vbl = shuf3(va, vb, vc,
                        _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                        _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1),
                        _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15));
    _mm256_storeu_si256((__m256i *)(r + i), vr);
    _mm256_storeu_si256((__m256i *)(g + i), vg);
    _mm256_storeu_si256((__m256i *)(b + i), vbl);
  }
  for (; i < n; i++) {
    r[i] = rgb[3 * i];
    g[i] = rgb[3 * i + 1];
    b[i] = rgb[3 * i + 2];
  }
}

void merge_rgba_u8(uint8_t *rgba, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                   const uint8_t *a, int n) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i vr = _mm256_loadu_si256((const __m256i *)(r + i));
    __m256i vg = _mm256_loadu_si256((const __m256i *)(g + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i rg_lo = _mm256_unpacklo_epi8(vr, vg), rg_hi = _mm256_unpackhi_epi8(vr, vg);
    __m256i ba_lo = _mm256_unpacklo_epi8(vb, va), ba_hi = _mm256_unpackhi_epi8(vb, va);
    __m256i q0 = _mm256_unpacklo_epi16(rg_lo, ba_lo); /* px 0-3   | 16-19 */
    __m256i q1 = _mm256_unpackhi_epi16(rg_lo, ba_lo); /* px 4-7   | 20-23 */
    __m256i q2 = _mm256_unpacklo_epi16(rg_hi, ba_hi); /* px 8-11  | 24-27 */
    __m256i q3 = _mm256_unpackhi_epi16(rg_hi, ba_hi); /* px 12-15 | 28-31 */
    _mm256_storeu_si256((__m256i *)(rgba + 4 * i), _mm256_permute2x128_si256(q0, q1, 0x20));
    _mm256_storeu_si256((__m256i *)(rgba + 4 * i + 32), _mm256_permute2x128_si256(q2, q3, 0x20));
    _mm256_storeu_si256((__m256i *)(rgba + 4 * i + 64), _mm256_permute2x128_si256(q0, q1, 0x31));
    _mm256_storeu_si256((__m256i *)(rgba + 4 * i + 96), _mm256_permute2x128_si256(q2, q3, 0x31));
  }
  for (; i < n; i++) {
    rgba[4 * i] = r[i];
    rgba[4 * i + 1] = g[i];
    rgba[4 * i + 2] = b[i];
    rgba[4 * i + 3] = a[i];
  }
}
