/* metric: SSE2. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

/* add the two 64-bit halves, keep 32 bits */
static inline uint32_t hsum_epi64_lo32(__m128i v) {
  return (uint32_t)_mm_cvtsi128_si32(_mm_add_epi64(v, _mm_unpackhi_epi64(v, v)));
}

static inline uint32_t hsum_epi32(__m128i v) {
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  return (uint32_t)_mm_cvtsi128_si32(v);
}

uint32_t sad_u8(const uint8_t *a, const uint8_t *b, int n) {
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(va, vb));
  }
  if (i + 8 <= n) {
    __m128i va = _mm_loadl_epi64((const __m128i *)(a + i));
    __m128i vb = _mm_loadl_epi64((const __m128i *)(b + i));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(va, vb)); /* upper halves are 0 - 0 */
    i += 8;
  }
  uint32_t s = hsum_epi64_lo32(acc);
  for (; i < n; i++) s += (uint32_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
  return s;
}

uint32_t sad16xh_u8(const uint8_t *src, ptrdiff_t src_stride, const uint8_t *ref,
                    ptrdiff_t stride, int h) {
  __m128i acc = _mm_setzero_si128();
  for (int y = 0; y < h; y++) {
    __m128i s = _mm_loadu_si128((const __m128i *)(src + y * src_stride));
    __m128i r = _mm_loadu_si128((const __m128i *)(ref + y * stride));
    acc = _mm_add_epi32(acc, _mm_sad_epu8(s, r));
  }
  return (uint32_t)(_mm_cvtsi128_si32(acc) + _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)));
}

uint32_t sse_u8(const uint8_t *a, const uint8_t *b, int n) {
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i va = _mm_loadu_si128((const __m128i *)(a + i));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + i));
    __m128i dlo = _mm_sub_epi16(_mm_unpacklo_epi8(va, zero), _mm_unpacklo_epi8(vb, zero));
    __m128i dhi = _mm_sub_epi16(_mm_unpackhi_epi8(va, zero), _mm_unpackhi_epi8(vb, zero));
    acc = _mm_add_epi32(acc, _mm_madd_epi16(dlo, dlo));
    acc = _mm_add_epi32(acc, _mm_madd_epi16(dhi, dhi));
  }
  uint32_t s = hsum_epi32(acc);
  for (; i < n; i++) {
    int d = a[i] - b[i];
    s += (uint32_t)(d * d);
  }
  return s;
}

int32_t sum_s16(const int16_t *a, int n) {
  const __m128i ones = _mm_set1_epi16(1);
  __m128i acc = _mm_setzero_si128();
  int i = 0;
  for (; i + 8 <= n; i += 8)
    acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(a + i)), ones));
  uint32_t s = hsum_epi32(acc);
  for (; i < n; i++) s += (uint32_t)(int32_t)a[i];
  return (int32_t)s;
}

uint32_t minmax_u8(const uint8_t *a, int n) {
  __m128i vmn = _mm_set1_epi8((char)0xFF), vmx = _mm_setzero_si128();
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(a + i));
    vmn = _mm_min_epu8(vmn, x);
    vmx = _mm_max_epu8(vmx, x);
  }
  vmn = _mm_min_epu8(vmn, _mm_srli_si128(vmn, 8));
  vmx = _mm_max_epu8(vmx, _mm_srli_si128(vmx, 8));
  vmn = _mm_min_epu8(vmn, _mm_srli_si128(vmn, 4));
  vmx = _mm_max_epu8(vmx, _mm_srli_si128(vmx, 4));
  vmn = _mm_min_epu8(vmn, _mm_srli_si128(vmn, 2));
  vmx = _mm_max_epu8(vmx, _mm_srli_si128(vmx, 2));
  vmn = _mm_min_epu8(vmn, _mm_srli_si128(vmn, 1));
  vmx = _mm_max_epu8(vmx, _mm_srli_si128(vmx, 1));
  uint8_t mn = (uint8_t)_mm_cvtsi128_si32(vmn), mx = (uint8_t)_mm_cvtsi128_si32(vmx);
  for (; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  return (uint32_t)mn | (uint32_t)mx << 8;
}

void minmax_s16(const int16_t *a, int n, int16_t *out) {
  __m128i vmn = _mm_set1_epi16(32767), vmx = _mm_set1_epi16(-32768);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i x = _mm_loadu_si128((const __m128i *)(a + i));
    vmn = _mm_min_epi16(vmn, x);
    vmx = _mm_max_epi16(vmx, x);
  }
  vmn = _mm_min_epi16(vmn, _mm_shuffle_epi32(vmn, _MM_SHUFFLE(1, 0, 3, 2)));
  vmx = _mm_max_epi16(vmx, _mm_shuffle_epi32(vmx, _MM_SHUFFLE(1, 0, 3, 2)));
  vmn = _mm_min_epi16(vmn, _mm_shuffle_epi32(vmn, _MM_SHUFFLE(2, 3, 0, 1)));
  vmx = _mm_max_epi16(vmx, _mm_shuffle_epi32(vmx, _MM_SHUFFLE(2, 3, 0, 1)));
  vmn = _mm_min_epi16(vmn, _mm_shufflelo_epi16(vmn, _MM_SHUFFLE(2, 3, 0, 1)));
  vmx = _mm_max_epi16(vmx, _mm_shufflelo_epi16(vmx, _MM_SHUFFLE(2, 3, 0, 1)));
  int16_t mn = (int16_t)_mm_extract_epi16(vmn, 0), mx = (int16_t)_mm_extract_epi16(vmx, 0);
  for (; i < n; i++) {
    if (a[i] < mn) mn = a[i];
    if (a[i] > mx) mx = a[i];
  }
  out[0] = mn;
  out[1] = mx;
}
