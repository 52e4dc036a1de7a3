/* color: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

static inline uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

static inline int16x8_t widen_s16(uint8x8_t x) { return vreinterpretq_s16_u16(vmovl_u8(x)); }

void rgb_to_yuv_u8(uint8_t *y, uint8_t *u, uint8_t *v, const uint8_t *rgb, int n) {
  const uint8x8_t ky_r = vdup_n_u8(77), ky_g = vdup_n_u8(150), ky_b = vdup_n_u8(29);
  const int16x8_t bias = vdupq_n_s16(128);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16x3_t px = vld3q_u8(rgb + 3 * i);
    uint8x8_t y8[2], u8[2], v8[2];
    for (int half = 0; half < 2; half++) {
      uint8x8_t r = half ? vget_high_u8(px.val[0]) : vget_low_u8(px.val[0]);
      uint8x8_t g = half ? vget_high_u8(px.val[1]) : vget_low_u8(px.val[1]);
      uint8x8_t b = half ? vget_high_u8(px.val[2]) : vget_low_u8(px.val[2]);
      uint16x8_t yy = vmull_u8(r, ky_r);
      yy = vmlal_u8(yy, g, ky_g);
      yy = vmlal_u8(yy, b, ky_b);
      y8[half] = vrshrn_n_u16(yy, 8);
      int16x8_t r16 = widen_s16(r), g16 = widen_s16(g), b16 = widen_s16(b);
      /* U in wrapping u16 arithmetic; the final value fits in s16 */
      uint16x8_t uw = vmull_u8(b, vdup_n_u8(127));
      uw = vmlsl_u8(uw, r, vdup_n_u8(43));
      uw = vmlsl_u8(uw, g, vdup_n_u8(84));
      int16x8_t uu = vreinterpretq_s16_u16(uw);
      int16x8_t vv = vmulq_n_s16(r16, 127);
      vv = vmlsq_n_s16(vv, g16, 106);
      vv = vmlsq_n_s16(vv, b16, 21);
      /* 128 + ((x + 128) >> 8) */
      u8[half] = vqmovun_s16(vrsraq_n_s16(bias, uu, 8));
      v8[half] = vqmovun_s16(vrsraq_n_s16(bias, vv, 8));
    }
    vst1q_u8(y + i, vcombine_u8(y8[0], y8[1]));
    vst1q_u8(u + i, vcombine_u8(u8[0], u8[1]));
    vst1q_u8(v + i, vcombine_u8(v8[0], v8[1]));
  }
  for (; i < n; i++) {
    int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    y[i] = (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
    u[i] = sat_u8(((-43 * r - 84 * g + 127 * b + 128) >> 8) + 128);
    v[i] = sat_u8(((127 * r - 106 * g - 21 * b + 128) >> 8) + 128);
  }
}

static inline void yuv8_to_rgb(uint8x8_t yy, uint8x8_t u8, uint8x8_t v8, uint8x8_t out[3]) {
  const uint8x8_t c128 = vdup_n_u8(128);
  int16x8_t du = vreinterpretq_s16_u16(vsubl_u8(u8, c128));
  int16x8_t dv = vreinterpretq_s16_u16(vsubl_u8(v8, c128));
  int16x8_t y16 = widen_s16(yy);
  out[0] = vqmovun_s16(vaddq_s16(y16, vrshrq_n_s16(vmulq_n_s16(dv, 179), 7)));
  out[1] = vqmovun_s16(vsubq_s16(y16, vrshrq_n_s16(vmlaq_n_s16(vmulq_n_s16(du, 44), dv, 91), 7)));
  out[2] = vqmovun_s16(vaddq_s16(y16, vrshrq_n_s16(vmulq_n_s16(du, 227), 7)));
}

void yuv_to_rgb_u8(uint8_t *rgb, const uint8_t *y, const uint8_t *u, const uint8_t *v, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t yy = vld1q_u8(y + i), uu = vld1q_u8(u + i), vv = vld1q_u8(v + i);
    uint8x8_t lo[3], hi[3];
    yuv8_to_rgb(vget_low_u8(yy), vget_low_u8(uu), vget_low_u8(vv), lo);
    yuv8_to_rgb(vget_high_u8(yy), vget_high_u8(uu), vget_high_u8(vv), hi);
    uint8x16x3_t out;
    for (int c = 0; c < 3; c++) out.val[c] = vcombine_u8(lo[c], hi[c]);
    vst3q_u8(rgb + 3 * i, out);
  }
  if (i + 8 <= n) {
    uint8x8_t px[3];
    yuv8_to_rgb(vld1_u8(y + i), vld1_u8(u + i), vld1_u8(v + i), px);
    uint8x8x3_t out = {{px[0], px[1], px[2]}};
    vst3_u8(rgb + 3 * i, out);
    i += 8;
  }
  for (; i < n; i++) {
    int du = u[i] - 128, dv = v[i] - 128;
    rgb[3 * i] = sat_u8(y[i] + ((179 * dv + 64) >> 7));
    rgb[3 * i + 1] = sat_u8(y[i] - ((44 * du + 91 * dv + 64) >> 7));
    rgb[3 * i + 2] = sat_u8(y[i] + ((227 * du + 64) >> 7));
  }
}

void rgba_to_gray(uint8_t *dst, const uint8_t *rgba, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16x4_t px = vld4q_u8(rgba + 4 * i);
    uint16x8_t lo = vmull_u8(vget_low_u8(px.val[0]), vdup_n_u8(77));
    uint16x8_t hi = vmull_high_u8(px.val[0], vdupq_n_u8(77));
    lo = vmlal_u8(lo, vget_low_u8(px.val[1]), vdup_n_u8(150));
    hi = vmlal_high_u8(hi, px.val[1], vdupq_n_u8(150));
    lo = vmlal_u8(lo, vget_low_u8(px.val[2]), vdup_n_u8(29));
    hi = vmlal_high_u8(hi, px.val[2], vdupq_n_u8(29));
    vst1q_u8(dst + i, vrshrn_high_n_u16(vrshrn_n_u16(lo, 8), hi, 8));
  }
  if (i + 8 <= n) {
    uint8x8x4_t px = vld4_u8(rgba + 4 * i);
    uint16x8_t acc = vmull_u8(px.val[0], vdup_n_u8(77));
    acc = vmlal_u8(acc, px.val[1], vdup_n_u8(150));
    acc = vmlal_u8(acc, px.val[2], vdup_n_u8(29));
    vst1_u8(dst + i, vrshrn_n_u16(acc, 8));
    i += 8;
  }
  for (; i < n; i++)
    dst[i] = (uint8_t)((77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2] + 128) >> 8);
}

void rgba_to_bgra(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16x4_t px = vld4q_u8(src + 4 * i);
    uint8x16_t t = px.val[0];
    px.val[0] = px.val[2];
    px.val[2] = t;
    vst4q_u8(dst + 4 * i, px);
  }
  /* 4 pixels at a time as 32-bit words: keep G/A, rotate R/B by 16 bits */
  for (; i + 4 <= n; i += 4) {
    uint32x4_t w = vreinterpretq_u32_u8(vld1q_u8(src + 4 * i));
    uint32x4_t ga = vandq_u32(w, vdupq_n_u32(0xFF00FF00u));
    uint32x4_t rot = vsliq_n_u32(vshrq_n_u32(w, 16), w, 16); /* rotate by 16 */
    uint32x4_t rb = vbicq_u32(rot, vdupq_n_u32(0xFF00FF00u));
    vst1q_u8(dst + 4 * i, vreinterpretq_u8_u32(vorrq_u32(ga, rb)));
  }
  for (; i < n; i++) {
    uint8_t r = src[4 * i], g = src[4 * i + 1], b = src[4 * i + 2], a = src[4 * i + 3];
    dst[4 * i] = b;
    dst[4 * i + 1] = g;
    dst[4 * i + 2] = r;
    dst[4 * i + 3] = a;
  }
}

void split_rgb_u8(uint8_t *r, uint8_t *g, uint8_t *b, const uint8_t *rgb, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16x3_t px = vld3q_u8(rgb + 3 * i);
    vst1q_u8(r + i, px.val[0]);
    vst1q_u8(g + i, px.val[1]);
    vst1q_u8(b + i, px.val[2]);
  }
  for (; i + 8 <= n; i += 8) {
    uint8x8x3_t px = vld3_u8(rgb + 3 * i);
    vst1_u8(r + i, px.val[0]);
    vst1_u8(g + i, px.val[1]);
    vst1_u8(b + i, px.val[2]);
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
  for (; i + 16 <= n; i += 16) {
    uint8x16x4_t px;
    px.val[0] = vld1q_u8(r + i);
    px.val[1] = vld1q_u8(g + i);
    px.val[2] = vld1q_u8(b + i);
    px.val[3] = vld1q_u8(a + i);
    vst4q_u8(rgba + 4 * i, px);
  }
  if (i + 8 <= n) {
    /* zip-based interleave of 8 pixels */
    uint8x8x2_t rg = vzip_u8(vld1_u8(r + i), vld1_u8(g + i));
    uint8x8x2_t ba = vzip_u8(vld1_u8(b + i), vld1_u8(a + i));
    uint16x4x2_t lo = vzip_u16(vreinterpret_u16_u8(rg.val[0]), vreinterpret_u16_u8(ba.val[0]));
    uint16x4x2_t hi = vzip_u16(vreinterpret_u16_u8(rg.val[1]), vreinterpret_u16_u8(ba.val[1]));
    vst1q_u8(rgba + 4 * i, vreinterpretq_u8_u16(vcombine_u16(lo.val[0], lo.val[1])));
    vst1q_u8(rgba + 4 * i + 16, vreinterpretq_u8_u16(vcombine_u16(hi.val[0], hi.val[1])));
    i += 8;
  }
  for (; i < n; i++) {
    rgba[4 * i] = r[i];
    rgba[4 * i + 1] = g[i];
    rgba[4 * i + 2] = b[i];
    rgba[4 * i + 3] = a[i];
  }
}
