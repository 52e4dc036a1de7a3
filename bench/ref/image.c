/* image.c — scalar references for the image-processing benchmark kernels (1-9). */
#include "refs.h"
#include "cases.h"

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

/* ---- harness entries (cases.h) ------------------------------------------------------ */

/* An image kernel's case: input `in` (u8, or u16 for blur3x3) with `margin` pixels around
 * the output on every side (0 for edge() kernels), output the same element type. */
static int make_image(bench_case *c, case_size size, case_pattern p, uint64_t *seed, int margin, int bits) {
    static const int64_t dims[5][2] = {{67, 45}, {5, 4}, {130, 3}, {256, 64}, {1920, 1080}};
    int64_t w = dims[size][0], h = dims[size][1];
    if (bits == 16 && size == CASE_FULL) w = 960;
    int64_t mn[2] = {-margin, -margin}, ext[2] = {w + 2 * margin, h + 2 * margin}, oext[2] = {w, h};
    case_input(c, "in", bits, 0, 2, mn, ext, p, seed);
    case_output(c, bits, 2, oext);
    return 0;
}

#define IMAGE(name, margin, bits)                                                                   \
    static int make_##name(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {          \
        return make_image(c, size, p, seed, margin, bits);                                          \
    }                                                                                               \
    static void run_##name(const bench_case *c, void *out) {                                        \
        name##_ref(case_at(&c->in[0], bits / 8, 0, 0, 0, 0), (ptrdiff_t)c->in[0].stride[1], out,   \
                   (ptrdiff_t)c->out.stride[1], (int)c->out.extent[0], (int)c->out.extent[1]);      \
    }
IMAGE(gaussian3x3, 1, 8)
IMAGE(gaussian5x5, 0, 8)
IMAGE(gaussian7x7, 3, 8)
IMAGE(conv3x3a32, 0, 8)
IMAGE(dilate3x3, 0, 8)
IMAGE(median3x3, 0, 8)
IMAGE(sobel3x3, 0, 8)
IMAGE(blur3x3, 2, 16)

/* conv3x3a16 has a second input, the i8 mask: BENCHMARKS.md's default for fixed patterns,
 * random for random images */
static int make_conv3x3a16(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    make_image(c, size, p, seed, 0, 8);
    static const int8_t def[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    int64_t ext[2] = {3, 3};
    case_input(c, "m", 8, 1, 2, NULL, ext, p, seed);
    if (p != PAT_RANDOM) memcpy(c->in[1].data, def, sizeof def);
    return 0;
}

static void run_conv3x3a16(const bench_case *c, void *out) {
    conv3x3a16_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, out, (ptrdiff_t)c->out.stride[1],
                   (int)c->out.extent[0], (int)c->out.extent[1]);
}

const bench_entry image_entries[] = {
    {"gaussian3x3", make_gaussian3x3, run_gaussian3x3}, {"gaussian5x5", make_gaussian5x5, run_gaussian5x5},
    {"gaussian7x7", make_gaussian7x7, run_gaussian7x7}, {"conv3x3a16", make_conv3x3a16, run_conv3x3a16},
    {"conv3x3a32", make_conv3x3a32, run_conv3x3a32},    {"dilate3x3", make_dilate3x3, run_dilate3x3},
    {"median3x3", make_median3x3, run_median3x3},       {"sobel3x3", make_sobel3x3, run_sobel3x3},
    {"blur3x3", make_blur3x3, run_blur3x3},             {0}};
