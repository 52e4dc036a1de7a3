/* camera.c — scalar reference for camera_pipe (BENCHMARKS.md 10), after Halide's
 * apps/camera_pipe (camera_pipe_generator.cpp; colour matrices from process.cpp / FCam).
 *
 *   void camera_pipe_ref(const uint16_t *raw, ptrdiff_t raw_stride, const int16_t matrix[3][4],
 *                        const uint8_t curve[1024], uint8_t *out, ptrdiff_t out_stride,
 *                        ptrdiff_t out_plane, int w, int h);
 *
 * raw: the u16 Bayer image (GRBG: green at even x of even rows, red at odd x of even rows,
 * blue at even x of odd rows, green at odd x of odd rows, counted from raw(16, 12)), `raw`
 * pointing at element (0, 0); it reads raw over [10, 2(w/2) + 21] x [6, 2(h/2) + 17].
 * matrix[c][j]: the Q8.8 colour matrix (row c = output channel, column 3 the offset).
 * curve: the u8 tone curve. out: w x h pixels of 3 planes (red, green, blue), element
 * (x, y, c) at out[x + y * out_stride + c * out_plane].
 *
 * The colour matrix (color_temp 3700) and the tone curve (gamma 2.0, contrast 50, black 25,
 * white 1023) are computed once, in float as Halide's generator does, by make_camera_pipe
 * and passed to the kernel and the reference as the inputs `matrix` (i16, 4 x 3) and
 * `curve` (u8, 1024).
 */
#include "cases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void camera_pipe_ref(const uint16_t *raw, ptrdiff_t raw_stride, const int16_t matrix[3][4], const uint8_t curve[1024],
                     uint8_t *out, ptrdiff_t out_stride, ptrdiff_t out_plane, int w, int h);

/* two's-complement wrap of a value to i16 */
static int16_t wrap16(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }

/* floor(v / d) for d > 0 */
static int32_t floordiv(int32_t v, int32_t d) { return v >= 0 ? v / d : -(int32_t)(((int64_t)-(int64_t)v + d - 1) / d); }

/* Halide's avg: (a + b + 1) / 2 computed in i32, rounding down, back to i16 */
static int16_t avg(int16_t a, int16_t b) { return wrap16(floordiv((int32_t)a + b + 1, 2)); }

static uint8_t avg8(uint8_t a, uint8_t b) { return (uint8_t)(((uint16_t)a + b + 1) / 2); }

static uint16_t absd16(int16_t a, int16_t b) { return (uint16_t)(a > b ? a - b : b - a); }

/* the shifted raw image as i16 and its hot-pixel suppressed version: clamp(s, 0, hi) as
 * Halide's clamp does it, max(min(s, hi), 0) */
static int16_t shifted(const uint16_t *raw, ptrdiff_t st, int x, int y) {
    return (int16_t)raw[(ptrdiff_t)(y + 12) * st + (x + 16)];
}

static int16_t denoise(const uint16_t *raw, ptrdiff_t st, int x, int y) {
    int16_t s = shifted(raw, st, x, y);
    int16_t hi = shifted(raw, st, x - 2, y);
    int16_t n[3] = {shifted(raw, st, x + 2, y), shifted(raw, st, x, y - 2), shifted(raw, st, x, y + 2)};
    for (int i = 0; i < 3; i++)
        if (n[i] > hi) hi = n[i];
    int16_t v = s < hi ? s : hi;
    return v > 0 ? v : 0;
}

void camera_pipe_ref(const uint16_t *raw, ptrdiff_t rs, const int16_t matrix[3][4], const uint8_t curve[1024],
                     uint8_t *out, ptrdiff_t os, ptrdiff_t op, int w, int h) {
    /* The sharpened pixel (x, y) reads the curved image at x-1..x+1, y-1..y+1: full
     * resolution [-1, w] x [-1, h], quads [-1, w/2] x [-1, h/2]. Those read green at red
     * sites over [-2, w/2] x [-1, h/2 + 1] and at blue sites over [-1, w/2 + 1] x
     * [-2, h/2], which read the four Bayer channels over [-2, w/2 + 1] x [-2, h/2 + 1]. */
    const int qx0 = -2, qy0 = -2, qw = w / 2 + 4, qh = h / 2 + 4; /* quads [-2, w/2 + 1] */
    const int fw = w + 2, fh = h + 2;                             /* full res [-1, w] */
    int16_t *q = calloc((size_t)qw * (size_t)qh * 6, sizeof *q);
    int16_t *fr = malloc(sizeof *fr * (size_t)fw * (size_t)fh * 3);
    uint8_t *cv = malloc((size_t)fw * (size_t)fh * 3);
    if (!q || !fr || !cv) abort();
    size_t qn = (size_t)qw * (size_t)qh, fn = (size_t)fw * (size_t)fh;
    int16_t *q_gr = q, *q_r = q + qn, *q_b = q + 2 * qn, *q_gb = q + 3 * qn, *q_gatr = q + 4 * qn, *q_gatb = q + 5 * qn;
#define Q(p, X, Y) (p)[(size_t)((Y) - qy0) * (size_t)qw + (size_t)((X) - qx0)]
#define F(c, x, y) fr[(size_t)(c) * fn + (size_t)((y) + 1) * (size_t)fw + (size_t)((x) + 1)]
#define CV(c, x, y) cv[(size_t)(c) * fn + (size_t)((y) + 1) * (size_t)fw + (size_t)((x) + 1)]

    /* hot-pixel suppression and the split into the four Bayer channels */
    for (int Y = qy0; Y < qy0 + qh; Y++)
        for (int X = qx0; X < qx0 + qw; X++) {
            Q(q_gr, X, Y) = denoise(raw, rs, 2 * X, 2 * Y);
            Q(q_r, X, Y) = denoise(raw, rs, 2 * X + 1, 2 * Y);
            Q(q_b, X, Y) = denoise(raw, rs, 2 * X, 2 * Y + 1);
            Q(q_gb, X, Y) = denoise(raw, rs, 2 * X + 1, 2 * Y + 1);
        }

    /* green at red and at blue sites, along the direction with the smaller difference */
    for (int Y = -1; Y <= h / 2 + 1; Y++)
        for (int X = -2; X <= w / 2; X++) {
            int16_t v0 = Q(q_gb, X, Y - 1), v1 = Q(q_gb, X, Y), h0 = Q(q_gr, X + 1, Y), h1 = Q(q_gr, X, Y);
            Q(q_gatr, X, Y) = absd16(h0, h1) < absd16(v0, v1) ? avg(h0, h1) : avg(v0, v1);
        }
    for (int Y = -2; Y <= h / 2; Y++)
        for (int X = -1; X <= w / 2 + 1; X++) {
            int16_t v0 = Q(q_gr, X, Y + 1), v1 = Q(q_gr, X, Y), h0 = Q(q_gb, X - 1, Y), h1 = Q(q_gb, X, Y);
            Q(q_gatb, X, Y) = absd16(h0, h1) < absd16(v0, v1) ? avg(h0, h1) : avg(v0, v1);
        }

    /* the remaining colours of each quad, written to the full-resolution planes */
    for (int Y = -1; Y <= h / 2; Y++)
        for (int X = -1; X <= w / 2; X++) {
            int16_t gr = Q(q_gr, X, Y), r = Q(q_r, X, Y), b = Q(q_b, X, Y), gb = Q(q_gb, X, Y);
            int16_t g_r = Q(q_gatr, X, Y), g_b = Q(q_gatb, X, Y);
            /* red and blue at green sites, corrected by green's second derivative */
            int16_t r_gr = wrap16(gr - avg(g_r, Q(q_gatr, X - 1, Y)) + avg(Q(q_r, X - 1, Y), r));
            int16_t b_gr = wrap16(gr - avg(g_b, Q(q_gatb, X, Y - 1)) + avg(b, Q(q_b, X, Y - 1)));
            int16_t r_gb = wrap16(gb - avg(g_r, Q(q_gatr, X, Y + 1)) + avg(r, Q(q_r, X, Y + 1)));
            int16_t b_gb = wrap16(gb - avg(g_b, Q(q_gatb, X + 1, Y)) + avg(b, Q(q_b, X + 1, Y)));
            /* red at blue sites: the diagonal (x, y)-(x-1, y+1) or (x-1, y)-(x, y+1) */
            int16_t rp = wrap16(g_b - avg(g_r, Q(q_gatr, X - 1, Y + 1)) + avg(r, Q(q_r, X - 1, Y + 1)));
            int16_t rn =
                wrap16(g_b - avg(Q(q_gatr, X - 1, Y), Q(q_gatr, X, Y + 1)) + avg(Q(q_r, X - 1, Y), Q(q_r, X, Y + 1)));
            int16_t r_b = absd16(r, Q(q_r, X - 1, Y + 1)) < absd16(Q(q_r, X - 1, Y), Q(q_r, X, Y + 1)) ? rp : rn;
            /* blue at red sites: (x, y)-(x+1, y-1) or (x+1, y)-(x, y-1) */
            int16_t bp = wrap16(g_r - avg(g_b, Q(q_gatb, X + 1, Y - 1)) + avg(b, Q(q_b, X + 1, Y - 1)));
            int16_t bn =
                wrap16(g_r - avg(Q(q_gatb, X + 1, Y), Q(q_gatb, X, Y - 1)) + avg(Q(q_b, X + 1, Y), Q(q_b, X, Y - 1)));
            int16_t b_r = absd16(b, Q(q_b, X + 1, Y - 1)) < absd16(Q(q_b, X + 1, Y), Q(q_b, X, Y - 1)) ? bp : bn;
            /* the quad's four sites: (gr, r / b, gb) */
            const int16_t rgb[4][3] = {{r_gr, gr, b_gr}, {r, g_r, b_r}, {r_b, g_b, b}, {r_gb, gb, b_gb}};
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 2; i++) {
                    int x = 2 * X + i, y = 2 * Y + j;
                    if (x < -1 || x > w || y < -1 || y > h) continue;
                    for (int c = 0; c < 3; c++) F(c, x, y) = rgb[2 * j + i][c];
                }
        }

    /* colour correction (i32, wrapping as i32 would) and the tone curve */
    for (int y = -1; y <= h; y++)
        for (int x = -1; x <= w; x++)
            for (int c = 0; c < 3; c++) {
                uint32_t acc = (uint32_t)(int32_t)matrix[c][3];
                for (int k = 0; k < 3; k++) acc += (uint32_t)(int32_t)matrix[c][k] * (uint32_t)(int32_t)F(k, x, y);
                int16_t v = wrap16(floordiv((int32_t)acc, 256));
                CV(c, x, y) = curve[v < 0 ? 0 : v > 1023 ? 1023 : v];
            }

    /* sharpen: unsharp mask with blur121 vertically, then horizontally; strength 32/32 */
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint8_t by[3];
                for (int i = 0; i < 3; i++)
                    by[i] = avg8(avg8(CV(c, x + i - 1, y - 1), CV(c, x + i - 1, y + 1)), CV(c, x + i - 1, y));
                uint8_t blur = avg8(avg8(by[0], by[2]), by[1]);
                int16_t v = CV(c, x, y);
                int16_t mask = (int16_t)(v - blur);
                int32_t s = v + floordiv(mask * 32, 32);
                out[(ptrdiff_t)c * op + (ptrdiff_t)y * os + x] = (uint8_t)(s < 0 ? 0 : s > 255 ? 255 : s);
            }
#undef Q
#undef F
#undef CV
    free(q);
    free(fr);
    free(cv);
}

/* ---- harness entry (cases.h) ----------------------------------------------------------- */

/* The Nokia N900's calibration matrices (FCam, via Halide's process.cpp), rows = output
 * channel, column 3 the offset. */
static const float matrix_3200[3][4] = {{1.6697f, -0.2693f, -0.4004f, -42.4346f},
                                        {-0.3576f, 1.0615f, 1.5949f, -37.1158f},
                                        {-0.2175f, -1.8751f, 6.9640f, -26.6970f}};
static const float matrix_7000[3][4] = {{2.2997f, -0.4478f, 0.1706f, -39.0923f},
                                        {-0.3826f, 1.5906f, -0.2080f, -25.4311f},
                                        {-0.0888f, -0.7344f, 2.2832f, -20.0826f}};

/* Linear in inverse kelvin between the two, to Q8.8 (float to int truncates). One float
 * operation per statement, so no compiler fuses them. */
static void color_matrix(float kelvin, int16_t m[3][4]) {
    float num = 1.0f / kelvin - 1.0f / 3200;
    float den = 1.0f / 7000 - 1.0f / 3200;
    float alpha = num / den;
    float beta = 1 - alpha;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            float p = matrix_3200[i][j] * alpha;
            float q = matrix_7000[i][j] * beta;
            float val = p + q;
            m[i][j] = (int16_t)(val * 256.0f);
        }
}

/* FCam's tone curve as Halide's apply_curve builds it: linear luminance in (black, white],
 * gamma, a piecewise quadratic contrast curve, to u8 (0 at or below black, 255 above
 * white). */
static void tone_curve(float gamma, float contrast, int black, int white, uint8_t curve[1024]) {
    float inv_range = 1.0f / (float)(white - black);
    float b = 2.0f - powf(2.0f, contrast / 100.0f);
    float b2 = 2.0f * b;
    float a = 2.0f - b2;
    for (int x = 0; x < 1024; x++) {
        float xf = (float)(x - black) * inv_range;
        xf = xf < 0.0f ? 0.0f : xf > 1.0f ? 1.0f : xf;
        float g = powf(xf, 1.0f / gamma), z;
        if (g > 0.5f) {
            float u = 1.0f - g;
            float au = a * u;
            float auu = au * u;
            float bu = b * u;
            float sum = auu + bu;
            z = 1.0f - sum;
        } else {
            float ag = a * g;
            float agg = ag * g;
            float bg = b * g;
            z = agg + bg;
        }
        float z255 = z * 255.0f;
        float v = z255 + 0.5f;
        v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
        curve[x] = x <= black ? 0 : x > white ? 255 : (uint8_t)v;
    }
}

/* Output W x H x 3; raw 2592 x 1968 (BENCHMARKS.md) for the 2560 x 1920 output of Halide's
 * process.cpp, the same 32 x 48 margin for the quick size; the test shapes get exactly
 * the extent read, [0, 2(W/2) + 22) x [0, 2(H/2) + 18). Random raw images are 10-bit
 * values with one pixel in 16 any u16 (hot pixels, and negative once shifted into i16). */
static int make_camera_pipe(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][2] = {{67, 7}, {13, 5}, {131, 3}, {256, 64}, {2560, 1920}};
    int64_t w = dims[size][0], h = dims[size][1];
    int64_t rext[2] = {2 * (w / 2) + 22, 2 * (h / 2) + 18};
    if (size >= CASE_QUICK) rext[0] = w + 32, rext[1] = h + 48;
    case_input(c, "raw", 16, 0, 2, NULL, rext, p, seed);
    if (p == PAT_RANDOM) {
        uint16_t *r = c->in[0].data;
        for (int64_t i = 0; i < rext[0] * rext[1]; i++)
            if (case_rand(seed) % 16) r[i] &= 1023;
    }
    int64_t mext[2] = {4, 3}, cext[1] = {1024};
    case_input(c, "matrix", 16, 1, 2, NULL, mext, p, seed);
    color_matrix(3700.0f, (int16_t(*)[4])c->in[1].data);
    case_input(c, "curve", 8, 0, 1, NULL, cext, p, seed);
    tone_curve(2.0f, 50.0f, 25, 1023, c->in[2].data);
    int64_t oext[3] = {w, h, 3};
    case_output(c, 8, 3, oext);
    return 0;
}

static void run_camera_pipe(const bench_case *c, void *out) {
    camera_pipe_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], (const int16_t(*)[4])c->in[1].data,
                    c->in[2].data, out, (ptrdiff_t)c->out.stride[1], (ptrdiff_t)c->out.stride[2],
                    (int)c->out.extent[0], (int)c->out.extent[1]);
}

const bench_entry camera_entries[] = {{"camera_pipe", make_camera_pipe, run_camera_pipe}, {0}};
