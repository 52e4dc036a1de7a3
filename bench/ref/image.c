/* image.c — scalar references for the image-processing benchmark kernels (1-9). */
#include "refs.h"

#include <string.h>

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* edge(in): the nearest pixel inside the w x h image */
static int px(const uint8_t *in, ptrdiff_t s, int w, int h, int x, int y) {
    return in[clampi(y, 0, h - 1) * s + clampi(x, 0, w - 1)];
}

void gaussian3x3_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int16_t c = 0;
            static const int k[3] = {1, 2, 1};
            for (int i = -1; i <= 1; i++) {
                int16_t r = (int16_t)(in[(y - 1) * s + x + i] + 2 * in[y * s + x + i] + in[(y + 1) * s + x + i]);
                c = (int16_t)(c + k[i + 1] * r);
            }
            out[y * os + x] = (uint8_t)((c + 8) >> 4);
        }
}

void gaussian5x5_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    static const int k[5] = {1, 4, 6, 4, 1};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int16_t c = 0;
            for (int i = -2; i <= 2; i++) {
                int16_t r = 0;
                for (int j = -2; j <= 2; j++) r = (int16_t)(r + k[j + 2] * px(in, s, w, h, x + i, y + j));
                c = (int16_t)(c + k[i + 2] * r);
            }
            /* c wraps in i16; the arithmetic shift then the u8 cast keep bits 8..15 */
            out[y * os + x] = (uint8_t)(c >> 8);
        }
}

void gaussian7x7_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    static const int k[7] = {1, 6, 15, 20, 15, 6, 1};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int32_t c = 0;
            for (int i = -3; i <= 3; i++) {
                int32_t r = 0;
                for (int j = -3; j <= 3; j++) r += k[j + 3] * in[(y + j) * s + x + i];
                c += k[i + 3] * r;
            }
            out[y * os + x] = (uint8_t)clampi(c >> 12, 0, 255);
        }
}

void conv3x3a16_ref(const uint8_t *in, ptrdiff_t s, const int8_t mask[9], uint8_t *out, ptrdiff_t os, int w,
                    int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int16_t sum = 0;
            for (int i = -1; i <= 1; i++)
                for (int j = -1; j <= 1; j++)
                    sum = (int16_t)(sum + (int16_t)(px(in, s, w, h, x + j, y + i) * mask[(i + 1) * 3 + (j + 1)]));
            out[y * os + x] = (uint8_t)clampi(sum >> 4, 0, 255);
        }
}

void conv3x3a32_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int32_t sum = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int16_t p = (int16_t)(px(in, s, w, h, x + dx, y + dy) * (dy + 3 * dx + 8));
                    sum += p;
                }
            out[y * os + x] = (uint8_t)clampi(sum >> 4, 0, 255);
        }
}

void dilate3x3_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int m = 0;
            for (int i = -1; i <= 1; i++)
                for (int j = -1; j <= 1; j++) {
                    int v = px(in, s, w, h, x + j, y + i);
                    if (v > m) m = v;
                }
            out[y * os + x] = (uint8_t)m;
        }
}

static int mid(int a, int b, int c) {
    int mx = a > b ? a : b, mn = a < b ? a : b;
    int t = mx < c ? mx : c;
    return t > mn ? t : mn;
}

void median3x3_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int mx[3], mn[3], md[3];
            for (int i = 0; i < 3; i++) {
                int a = px(in, s, w, h, x + i - 1, y - 1), b = px(in, s, w, h, x + i - 1, y),
                    c = px(in, s, w, h, x + i - 1, y + 1);
                mx[i] = a > b ? (a > c ? a : c) : (b > c ? b : c);
                mn[i] = a < b ? (a < c ? a : c) : (b < c ? b : c);
                md[i] = mid(a, b, c);
            }
            int p = mx[0] < mx[1] ? (mx[0] < mx[2] ? mx[0] : mx[2]) : (mx[1] < mx[2] ? mx[1] : mx[2]);
            int q = mn[0] > mn[1] ? (mn[0] > mn[2] ? mn[0] : mn[2]) : (mn[1] > mn[2] ? mn[1] : mn[2]);
            out[y * os + x] = (uint8_t)mid(p, q, mid(md[0], md[1], md[2]));
        }
}

void sobel3x3_ref(const uint8_t *in, ptrdiff_t s, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
#define P(dx, dy) ((uint16_t)px(in, s, w, h, x + (dx), y + (dy)))
            uint16_t a = (uint16_t)(P(-1, -1) + 2 * P(0, -1) + P(1, -1)), b = (uint16_t)(P(-1, 1) + 2 * P(0, 1) + P(1, 1));
            uint16_t c = (uint16_t)(P(-1, -1) + 2 * P(-1, 0) + P(-1, 1)), d = (uint16_t)(P(1, -1) + 2 * P(1, 0) + P(1, 1));
#undef P
            uint16_t sx = (uint16_t)(a > b ? a - b : b - a), sy = (uint16_t)(c > d ? c - d : d - c);
            uint16_t t = (uint16_t)(sx + sy);
            out[y * os + x] = (uint8_t)(t > 255 ? 255 : t);
        }
}

void blur3x3_ref(const uint16_t *in, ptrdiff_t s, uint16_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint16_t bx[3];
            for (int i = 0; i < 3; i++)
                bx[i] = (uint16_t)((uint16_t)(in[(y + i) * s + x] + in[(y + i) * s + x + 1] + in[(y + i) * s + x + 2]) / 3);
            out[y * os + x] = (uint16_t)((uint16_t)(bx[0] + bx[1] + bx[2]) / 3);
        }
}

/* One entry point for every reference, by kernel name (for harnesses that load this file
 * as a shared object). in points at element (0, 0); mask is conv3x3a16's. Returns -1 for
 * an unknown name. */
int tine_ref_run(const char *name, const void *in, ptrdiff_t in_stride, const int8_t *mask, void *out,
                 ptrdiff_t out_stride, int w, int h) {
    const uint8_t *i8 = in;
    uint8_t *o8 = out;
    if (!strcmp(name, "gaussian3x3")) gaussian3x3_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "gaussian5x5")) gaussian5x5_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "gaussian7x7")) gaussian7x7_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "conv3x3a16")) conv3x3a16_ref(i8, in_stride, mask, o8, out_stride, w, h);
    else if (!strcmp(name, "conv3x3a32")) conv3x3a32_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "dilate3x3")) dilate3x3_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "median3x3")) median3x3_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "sobel3x3")) sobel3x3_ref(i8, in_stride, o8, out_stride, w, h);
    else if (!strcmp(name, "blur3x3")) blur3x3_ref(in, in_stride, out, out_stride, w, h);
    else return -1;
    return 0;
}
