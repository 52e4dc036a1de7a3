/* color: reference implementations (portable C).
 * Interleaved RGB is 3 bytes per pixel (R, G, B), RGBA 4 bytes (R, G, B, A).
 * Fixed-point "YUV-ish" (BT.601-like, full range):
 *   Y = (77 R + 150 G + 29 B + 128) >> 8
 *   U = sat_u8(((-43 R - 84 G + 127 B + 128) >> 8) + 128)
 *   V = sat_u8(((127 R - 106 G - 21 B + 128) >> 8) + 128)
 * and back, with du = U - 128, dv = V - 128:
 *   R = sat_u8(Y + ((179 dv + 64) >> 7))
 *   G = sat_u8(Y - ((44 du + 91 dv + 64) >> 7))
 *   B = sat_u8(Y + ((227 du + 64) >> 7))
 * All intermediate values fit in 16 bits; >> of negatives is arithmetic. */
#include <stddef.h>
#include <stdint.h>

static uint8_t sat_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void ref_rgb_to_yuv_u8(uint8_t *y, uint8_t *u, uint8_t *v, const uint8_t *rgb, int n) {
  for (int i = 0; i < n; i++) {
    int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    y[i] = (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
    u[i] = sat_u8(((-43 * r - 84 * g + 127 * b + 128) >> 8) + 128);
    v[i] = sat_u8(((127 * r - 106 * g - 21 * b + 128) >> 8) + 128);
  }
}

void ref_yuv_to_rgb_u8(uint8_t *rgb, const uint8_t *y, const uint8_t *u, const uint8_t *v, int n) {
  for (int i = 0; i < n; i++) {
    int du = u[i] - 128, dv = v[i] - 128;
    rgb[3 * i] = sat_u8(y[i] + ((179 * dv + 64) >> 7));
    rgb[3 * i + 1] = sat_u8(y[i] - ((44 * du + 91 * dv + 64) >> 7));
    rgb[3 * i + 2] = sat_u8(y[i] + ((227 * du + 64) >> 7));
  }
}

/* RGBA -> gray, alpha ignored. */
void ref_rgba_to_gray(uint8_t *dst, const uint8_t *rgba, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = (uint8_t)((77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2] + 128) >> 8);
}

/* RGBA <-> BGRA (swap bytes 0 and 2 of every pixel). */
void ref_rgba_to_bgra(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) {
    dst[4 * i] = src[4 * i + 2];
    dst[4 * i + 1] = src[4 * i + 1];
    dst[4 * i + 2] = src[4 * i];
    dst[4 * i + 3] = src[4 * i + 3];
  }
}

/* Interleaved RGB -> three planes. */
void ref_split_rgb_u8(uint8_t *r, uint8_t *g, uint8_t *b, const uint8_t *rgb, int n) {
  for (int i = 0; i < n; i++) {
    r[i] = rgb[3 * i];
    g[i] = rgb[3 * i + 1];
    b[i] = rgb[3 * i + 2];
  }
}

/* Four planes -> interleaved RGBA. */
void ref_merge_rgba_u8(uint8_t *rgba, const uint8_t *r, const uint8_t *g, const uint8_t *b,
                       const uint8_t *a, int n) {
  for (int i = 0; i < n; i++) {
    rgba[4 * i] = r[i];
    rgba[4 * i + 1] = g[i];
    rgba[4 * i + 2] = b[i];
    rgba[4 * i + 3] = a[i];
  }
}
