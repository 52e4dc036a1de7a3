/* metric: AVX2. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint32_t hsum256_epi32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return (uint32_t)_mm_cvtsi128_si32(s);
}

uint32_t sad_u8(const uint8_t *a, const uint8_t *b, int n) {
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i va = _mm256_loadu_si256((const __m256i *)(a + i));
    __m256i vb = _mm256_loadu_si256((const __m256i *)(b + i));
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(va, vb));
  }
  uint32_t s = hsum256_epi32(acc); /* odd dwords are zero */
  for (; i < n; i++) s += (uint32_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

uint32_t sad16xh_u8(const uint8_t *src, ptrdiff_t src_stride, const uint8_t *ref,
                    ptrdiff_t stride, int h) {
  __m256i acc = _mm256_setzero_si256();
  int y = 0;
  for (; y + 2 <= h; y += 2) {
    __m256i s = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src + y * src_stride))),
        _mm_loadu_si128((const __m128i *)(src + (y + 1) * src_stride)), 1);
    __m256i r = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(ref + y * stride))),
        _mm_loadu_si128((const __m128i *)(ref + (y + 1) * stride)), 1);
    acc = _mm256_add_epi32(acc, _mm256_sad_epu8(s, r));
  }
  __m128i acc128 = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  if (y < h) {
    __m128i s = _mm_loadu_si128((const __m128i *)(src + y * src_stride));
    __m128i r = _mm_loadu_si128((const __m128i *)(ref + y * stride));
    acc128 = _mm_add_epi32(acc128, _mm_sad_epu8(s, r));
  }
  return (uint32_t)(_mm_cvtsi128_si32(acc128) + _mm_extract_epi32(acc128, 2));
}

uint32_t sse_u8(const uint8_t *a, const uint8_t *b, int n) {
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i va = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(a + i)));
    __m256i vb = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(b + i)));
    __m256i d = _mm256_sub_epi16(va, vb);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(d, d));
  }
  uint32_t s = hsum256_epi32(acc);
  for (; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t)(d * d);
  }
  return s;
}

int32_t sum_s16(const int16_t *a, int n) {
  __m256i acc = _mm256_setzero_si256();
  int i = 0;
  for (; i + 16 <= n; i += 16)
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(a + i)),
                                                  _mm256_set1_epi16(1)));
  uint32_t s = hsum256_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(int32_t)a[i];
  return (int32_t)s;
}

uint32_t minmax_u8(const uint8_t *a, int n) {
  __m256i vmn = _mm256_set1_epi8((char)0xFF), vmx = _mm256_setzero_si256();
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(a + i));
    vmn = _mm256_min_epu8(vmn, x);
    vmx = _mm256_max_epu8(vmx, x);
  }
  __m128i mn128 = _mm_min_epu8(_mm256_castsi256_si128(vmn), _mm256_extracti128_si256(vmn, 1));
  __m128i mx128 = _mm_max_epu8(_mm256_castsi256_si128(vmx), _mm256_extracti128_si256(vmx, 1));
  /* widen to u16 and let phminposuw find the minimum (bits 0-15 of the
   * result; bits 16-18 hold its index) */
  __m128i mn16 = _mm_min_epu16(_mm_cvtepu8_epi16(mn128), _mm_unpackhi_epi8(mn128, _mm_setzero_si128()));
  /* max(x) = 255 - min(255 - x) */
  __m128i inv = _mm_xor_si128(mx128, _mm_set1_epi8((char)0xFF));
  __m128i mx16 = _mm_min_epu16(_mm_cvtepu8_epi16(inv), _mm_unpackhi_epi8(inv, _mm_setzero_si128()));
  uint8_t mn = (uint8_t)(_mm_cvtsi128_si32(_mm_minpos_epu16(mn16)) & 0xFFFF);
  uint8_t mx = (uint8_t)(255 - (_mm_cvtsi128_si32(_mm_minpos_epu16(mx16)) & 0xFFFF));
  for (; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  return (uint32_t)mn | (uint32_t)mx << 8;
}

void minmax_s16(const int16_t *a, int n, int16_t *out) {
  __m256i vmn = _mm256_set1_epi16(32767), vmx = _mm256_set1_epi16(-32768);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(a + i));
    vmn = _mm256_min_epi16(vmn, x);
    vmx = _mm256_max_epi16(vmx, x);
  }
  __m128i mn = _mm_min_epi16(_mm256_castsi256_si128(vmn), _mm256_extracti128_si256(vmn, 1));
  __m128i mx = _mm_max_epi16(_mm256_castsi256_si128(vmx), _mm256_extracti128_si256(vmx, 1));
  /* signed -> unsigned order by flipping the sign bit, then phminposuw;
   * for the maximum flip the other 15 bits instead (reverses the order) */
  const __m128i sign = _mm_set1_epi16((short)0x8000), rest = _mm_set1_epi16(0x7FFF);
  int umn = _mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(mn, sign))) & 0xFFFF;
  int umx = _mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(mx, rest))) & 0xFFFF;
  int16_t smn = (int16_t)(umn ^ 0x8000), smx = (int16_t)(umx ^ 0x7FFF);
  for (; i < n; i++) {
    if (a[i] < smn) smn = a[i];
    if (a[i] > smx) smx = a[i];
  }
  out[0] = smn;
  out[1] = smx;
}
