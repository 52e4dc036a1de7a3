/* color: SSE4.1 (pshufb for the 3-byte RGB layout). */
#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* 48 bytes of RGB (a, b, c) -> 16 R, 16 G, 16 B */
static inline void deinterleave_rgb(__m128i a, __m128i b, __m128i c,
                                    __m128i *r, __m128i *g, __m128i *bl) {
  *r = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(a, _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
                   _mm_shuffle_epi8(b, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14, -1, -1, -1, -1, -1))),
      _mm_shuffle_epi8(c, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 4, 7, 10, 13)));
  *g = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(a, _mm_setr_epi8(1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
                   _mm_shuffle_epi8(b, _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15, -1, -1, -1, -1, -1))),
      _mm_shuffle_epi8(c, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 2, 5, 8, 11, 14)));
  *bl = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(a, _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
                   _mm_shuffle_epi8(b, _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1, -1, -1, -1))),
      _mm_shuffle_epi8(c, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 3, 6, 9, 12, 15)));
}

/* 16 R, 16 G, 16 B -> 48 bytes of RGB */
static inline void interleave_rgb(__m128i r, __m128i g, __m128i b, uint8_t *out) {
  __m128i o0 = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(r, _mm_setr_epi8(0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5)),
                   _mm_shuffle_epi8(g, _mm_setr_epi8(-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1))),
      _mm_shuffle_epi8(b, _mm_setr_epi8(-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1)));
  __m128i o1 = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(r, _mm_setr_epi8(-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1)),
                   _mm_shuffle_epi8(g, _mm_setr_epi8(5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10))),
      _mm_shuffle_epi8(b, _mm_setr_epi8(-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1)));
  __m128i o2 = _mm_or_si128(
      _mm_or_si128(_mm_shuffle_epi8(r, _mm_setr_epi8(-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1)),
                   _mm_shuffle_epi8(g, _mm_setr_epi8(-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1))),
      _mm_shuffle_epi8(b, _mm_setr_epi8(10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15)));
  _mm_storeu_si128((__m128i *)out, o0);
  _mm_storeu_si128((__m128i *)(out + 16), o1);
  _mm_storeu_si128((__m128i *)(out + 32), o2);
}

void rgb_to_yuv_u8(uint8_t *y, uint8_t *u, uint8_t *v, const uint8_t *rgb, int n) {
  const __m128i bias = _mm_set1_epi16(128);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i r, g, b;
    deinterleave_rgb(_mm_loadu_si128((const __m128i *)(rgb + 3 * i)),
                     _mm_loadu_si128((const __m128i *)(rgb + 3 * i + 16)),
                     _mm_loadu_si128((const __m128i *)(rgb + 3 * i + 32)), &r, &g, &b);
    __m128i yv[2], uv[2], vv[2];
    for (int half = 0; half < 2; half++) {
      __m128i r16 = half ? _mm_unpackhi_epi8(r, _mm_setzero_si128()) : _mm_cvtepu8_epi16(r);
      __m128i g16 = half ? _mm_unpackhi_epi8(g, _mm_setzero_si128()) : _mm_cvtepu8_epi16(g);
      __m128i b16 = half ? _mm_unpackhi_epi8(b, _mm_setzero_si128()) : _mm_cvtepu8_epi16(b);
      __m128i yy = _mm_add_epi16(_mm_mullo_epi16(r16, _mm_set1_epi16(77)),
                                 _mm_mullo_epi16(g16, _mm_set1_epi16(150)));
      yy = _mm_add_epi16(yy, _mm_mullo_epi16(b16, _mm_set1_epi16(29)));
      yv[half] = _mm_srli_epi16(_mm_add_epi16(yy, bias), 8); /* unsigned: up to 65408 */
      __m128i uu = _mm_sub_epi16(_mm_mullo_epi16(b16, _mm_set1_epi16(127)),
                                 _mm_add_epi16(_mm_mullo_epi16(r16, _mm_set1_epi16(43)),
                                               _mm_mullo_epi16(g16, _mm_set1_epi16(84))));
      __m128i vw = _mm_sub_epi16(_mm_mullo_epi16(r16, _mm_set1_epi16(127)),
                                 _mm_add_epi16(_mm_mullo_epi16(g16, _mm_set1_epi16(106)),
                                               _mm_mullo_epi16(b16, _mm_set1_epi16(21))));
      uv[half] = _mm_add_epi16(_mm_srai_epi16(_mm_add_epi16(uu, bias), 8), bias);
      vv[half] = _mm_add_epi16(_mm_srai_epi16(_mm_add_epi16(vw, bias), 8), bias);
    }
    _mm_storeu_si128((__m128i *)(y + i), _mm_packus_epi16(yv[0], yv[1]));
    _mm_storeu_si128((__m128i *)(u + i), _mm_packus_epi16(uv[0], uv[1]));
    _mm_storeu_si128((__m128i *)(v + i), _mm_packus_epi16(vv[0], vv[1]));
  }
  for (; i < n; i++) {
    int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    y[i] = (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
    u[i] = sat_u8(((-43 * r - 84 * g + 127 * b + 128) >> 8) + 128);
    v[i] = sat_u8(((127 * r - 106 * g - 21 * b + 128) >> 8) + 128);
  }
}

static inline __m128i rshift7(__m128i x) {
  return _mm_srai_epi16(_mm_add_epi16(x, _mm_set1_epi16(64)), 7);
}

void yuv_to_rgb_u8(uint8_t *rgb, const uint8_t *y, const uint8_t *u, const uint8_t *v, int n) {
  const __m128i c128 = _mm_set1_epi16(128);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i y8 = _mm_loadu_si128((const __m128i *)(y + i));
    __m128i u8 = _mm_loadu_si128((const __m128i *)(u + i));
    __m128i v8 = _mm_loadu_si128((const __m128i *)(v + i));
    __m128i ch[3][2];
    for (int half = 0; half < 2; half++) {
      __m128i yy = half ? _mm_unpackhi_epi8(y8, _mm_setzero_si128()) : _mm_cvtepu8_epi16(y8);
      __m128i du = _mm_sub_epi16(half ? _mm_unpackhi_epi8(u8, _mm_setzero_si128()) : _mm_cvtepu8_epi16(u8), c128);
      __m128i dv = _mm_sub_epi16(half ? _mm_unpackhi_epi8(v8, _mm_setzero_si128()) : _mm_cvtepu8_epi16(v8), c128);
      /* 44 du + 91 dv as one madd on (du, dv) pairs would need 32-bit lanes;
       * the products fit in 16 bits, so plain mullo is exact */
      ch[0][half] = _mm_add_epi16(yy, rshift7(_mm_mullo_epi16(dv, _mm_set1_epi16(179))));
      ch[1][half] = _mm_sub_epi16(yy, rshift7(_mm_add_epi16(_mm_mullo_epi16(du, _mm_set1_epi16(44)),
                                                            _mm_mullo_epi16(dv, _mm_set1_epi16(91)))));
      ch[2][half] = _mm_add_epi16(yy, rshift7(_mm_mullo_epi16(du, _mm_set1_epi16(227))));
    }
    interleave_rgb(_mm_packus_epi16(ch[0][0], ch[0][1]), _mm_packus_epi16(ch[1][0], ch[1][1]),
                   _mm_packus_epi16(ch[2][0], ch[2][1]), rgb + 3 * i);
  }
  for (; i < n; i++) {
    int du = u[i] - 128, dv = v[i] - 128;
    rgb[3 * i] = sat_u8(y[i] + ((179 * dv + 64) >> 7));
    rgb[3 * i + 1] = sat_u8(y[i] - ((44 * du + 91 * dv + 64) >> 7));
    rgb[3 * i + 2] = sat_u8(y[i] + ((227 * du + 64) >> 7));
  }
}

void split_rgb_u8(uint8_t *r, uint8_t *g, uint8_t *b, const uint8_t *rgb, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i vr, vg, vb;
    deinterleave_rgb(_mm_loadu_si128((const __m128i *)(rgb + 3 * i)),
                     _mm_loadu_si128((const __m128i *)(rgb + 3 * i + 16)),
                     _mm_loadu_si128((const __m128i *)(rgb + 3 * i + 32)), &vr, &vg, &vb);
    _mm_storeu_si128((__m128i *)(r + i), vr);
    _mm_storeu_si128((__m128i *)(g + i), vg);
    _mm_storeu_si128((__m128i *)(b + i), vb);
  }
  for (; i < n; i++) {
    r[i] = rgb[3 * i];
    g[i] = rgb[3 * i + 1];
    b[i] = rgb[3 * i + 2];
  }
}

void rgba_to_bgra(uint8_t *dst, const uint8_t *src, int n) {
  const __m128i swap = _mm_setr_epi8(2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
  int i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_storeu_si128((__m128i *)(dst + 4 * i),
                     _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + 4 * i)), swap));
  for (; i < n; i++) {
    uint8_t r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
    dst[4 * i] = b;
    dst[4 * i + 1] = g;
    dst[4 * i + 2] = r;
    dst[4 * i + 3] = a;
  }
}
