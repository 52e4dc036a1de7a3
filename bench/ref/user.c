/* user.c — the user kernels (bench/user): scalar C references and harness entries.
 *
 * The user kernels are kernels outside the 20 of BENCHMARKS.md, across video, audio,
 * colour and ML layers, written plainly as a user would (no hand schedule: each file ends
 * with `schedule auto`). `tine bench` reports them in a table of their own: how tine does
 * on kernels nobody tuned for it. Each reference below is written from the one-line
 * definition above it, not from the .tine file.
 *
 * Integer semantics are tine's (docs/SEMANTICS.md): sums of i32 wrap, `/` floors, rounding
 * shifts round half up and are computed exactly (at a wider width), saturating casts
 * clamp. Buffers are the harness's (cases.h): dimension 0 dense, strides in elements.
 */
#include "cases.h"

#include <stddef.h>
#include <stdint.h>

/* floor(v / 2^n), exact for any int64 v and 0 <= n < 63 */
static int64_t fdiv_pow2(int64_t v, int n) {
    int64_t d = (int64_t)1 << n, q = v / d;
    return q * d > v ? q - 1 : q;
}

/* tine's rounding_shr(v, n) for n >= 0: floor((v + 2^(n-1)) / 2^n); for a 32-bit v every
 * n beyond 40 gives what 40 gives (0) */
static int64_t round_shr(int64_t v, unsigned n) {
    if (n == 0) return v;
    if (n > 40) n = 40;
    return fdiv_pow2(v + ((int64_t)1 << (n - 1)), (int)n);
}

static int64_t clamp_to(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* an i32 sum that wraps modulo 2^32 */
static int32_t wrap_i32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* ---- video ------------------------------------------------------------------------------ */

/* sad8x8: sad(x, y) = sum over the 8x8 block at (8x, 8y) of |a - b|, u16 */
static void sad8x8_ref(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, uint16_t *out, ptrdiff_t os,
                       int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned s = 0;
            for (int j = 0; j < 8; j++)
                for (int i = 0; i < 8; i++) {
                    int p = a[(8 * y + j) * as + 8 * x + i], q = b[(8 * y + j) * bs + 8 * x + i];
                    s += (unsigned)(p > q ? p - q : q - p);
                }
            out[y * os + x] = (uint16_t)s;
        }
}

/* downsample2x2: out(x, y) = (the four pixels of the 2x2 block at (2x, 2y) + 2) / 4 */
static void downsample2x2_ref(const uint8_t *in, ptrdiff_t is, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = in + 2 * y * is + 2 * x;
            out[y * os + x] = (uint8_t)((p[0] + p[1] + p[is] + p[is + 1] + 2) / 4);
        }
}

/* ---- audio ------------------------------------------------------------------------------ */

/* fir16: out(x) = sat_i16(rounding_shr(sum over k < 16 of in(x + k) * taps(k), 15)) */
static void fir16_ref(const int16_t *in, const int16_t *taps, int16_t *out, int n) {
    for (int x = 0; x < n; x++) {
        int64_t acc = 0;
        for (int k = 0; k < 16; k++) acc += (int64_t)in[x + k] * taps[k];
        out[x] = (int16_t)clamp_to(round_shr(wrap_i32(acc), 15), INT16_MIN, INT16_MAX);
    }
}

/* mix_gain: out(x) = sat_i16(rounding_shr(l(x) * gl + r(x) * gr, 15)), the sum in i32 */
static void mix_gain_ref(const int16_t *l, const int16_t *r, int16_t gl, int16_t gr, int16_t *out, int n) {
    for (int x = 0; x < n; x++) {
        int32_t s = wrap_i32((int64_t)l[x] * gl + (int64_t)r[x] * gr);
        out[x] = (int16_t)clamp_to(round_shr(s, 15), INT16_MIN, INT16_MAX);
    }
}

/* ---- colour ----------------------------------------------------------------------------- */

/* rgb_to_grey: grey(x, y) = (77 R + 150 G + 29 B + 128) >> 8 of planar RGB */
static void rgb_to_grey_ref(const uint8_t *rgb, ptrdiff_t row, ptrdiff_t plane, uint8_t *out, ptrdiff_t os, int w,
                            int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgb + y * row + x;
            out[y * os + x] = (uint8_t)((77u * p[0] + 150u * p[plane] + 29u * p[2 * plane] + 128u) >> 8);
        }
}

/* alpha_blend: out = (a * alpha + b * (255 - alpha) + 127) / 255 */
static void alpha_blend_ref(const uint8_t *a, ptrdiff_t as, const uint8_t *b, ptrdiff_t bs, const uint8_t *al,
                            ptrdiff_t als, uint8_t *out, ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned t = al[y * als + x];
            out[y * os + x] = (uint8_t)((a[y * as + x] * t + b[y * bs + x] * (255 - t) + 127) / 255);
        }
}

/* ---- ML layers -------------------------------------------------------------------------- */

/* gemv_i8: out(n) = sum over k < K of w(k, n) * in(k), i8 operands, wrapping i32 */
static void gemv_i8_ref(const int8_t *wt, ptrdiff_t ws, const int8_t *in, int k, int32_t *out, int n) {
    for (int i = 0; i < n; i++) {
        uint32_t acc = 0;
        for (int j = 0; j < k; j++) acc += (uint32_t)((int32_t)wt[i * ws + j] * in[j]);
        out[i] = (int32_t)acc;
    }
}

/* requant_i8: out = sat_i8(sat_i16(rounding_shr(rounding_mul_shr(acc, m, 31), shift)) +sat zero) */
static void requant_i8_ref(const int32_t *acc, ptrdiff_t as, int32_t m, uint8_t shift, int16_t zero, int8_t *out,
                           ptrdiff_t os, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int64_t v = clamp_to(round_shr((int64_t)acc[y * as + x] * m, 31), INT32_MIN, INT32_MAX);
            int64_t t = clamp_to(round_shr(v, shift), INT16_MIN, INT16_MAX);
            t = clamp_to(t + zero, INT16_MIN, INT16_MAX);
            out[y * os + x] = (int8_t)clamp_to(t, INT8_MIN, INT8_MAX);
        }
}

/* ---- harness entries (cases.h) ------------------------------------------------------ */

/* Images: the output's extents per size; the full size is a 1080p frame's (sad8x8: its
 * blocks; downsample2x2: its 4:2:0 chroma plane). */
static const int64_t frame[5][2] = {{67, 45}, {5, 4}, {130, 3}, {256, 64}, {1920, 1080}};

static int make_sad8x8(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t blocks[5][2] = {{17, 5}, {5, 4}, {33, 3}, {64, 36}, {240, 135}};
    int64_t in[2] = {8 * blocks[size][0], 8 * blocks[size][1]};
    case_input(c, "a", 8, 0, 2, NULL, in, p, seed);
    case_input(c, "b", 8, 0, 2, NULL, in, p == PAT_CHECKER ? PAT_ZERO : p, seed); /* checker: |max - 0| */
    case_output(c, 16, 2, blocks[size]);
    return 0;
}

static void run_sad8x8(const bench_case *c, void *out) {
    sad8x8_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, (ptrdiff_t)c->in[1].stride[1], out,
               (ptrdiff_t)c->out.stride[1], (int)c->out.extent[0], (int)c->out.extent[1]);
}

static int make_downsample2x2(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t o[2] = {frame[size][0] / (size == CASE_FULL ? 2 : 1), frame[size][1] / (size == CASE_FULL ? 2 : 1)};
    int64_t in[2] = {2 * o[0], 2 * o[1]};
    case_input(c, "in", 8, 0, 2, NULL, in, p, seed);
    case_output(c, 8, 2, o);
    return 0;
}

static void run_downsample2x2(const bench_case *c, void *out) {
    downsample2x2_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], out, (ptrdiff_t)c->out.stride[1],
                      (int)c->out.extent[0], (int)c->out.extent[1]);
}

/* Audio: samples per size; the full size is 10 s at 48 kHz. */
static const int64_t samples[5] = {67, 5, 130, 4800, 480000};

/* fir16's taps: a fixed low-pass in Q15 (a filter is designed, not drawn), the same for
 * every fill pattern; the sum of |taps| is 31660 < 2^15, so no sum of products of i16
 * samples leaves i32 */
static const int16_t fir_taps[16] = {-120, -310, -400, 0, 1200, 3100, 4900, 5800,
                                     5800, 4900, 3100, 1200, 0,    -400, -310, -120};

static int make_fir16(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t n[1] = {samples[size]}, in[1] = {samples[size] + 15}, nt[1] = {16};
    case_input(c, "in", 16, 1, 1, NULL, in, p, seed);
    case_input(c, "taps", 16, 1, 1, NULL, nt, PAT_ZERO, seed);
    for (int k = 0; k < 16; k++) ((int16_t *)c->in[1].data)[k] = fir_taps[k];
    case_output(c, 16, 1, n);
    return 0;
}

static void run_fir16(const bench_case *c, void *out) {
    fir16_ref(c->in[0].data, c->in[1].data, out, (int)c->out.extent[0]);
}

/* mix_gain: gains of -3 dB (23170 ~ 0.7071) and -6 dB (16384 = 0.5); their sum is below
 * 2^16, so the i32 sum never wraps */
static int make_mix_gain(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t n[1] = {samples[size]};
    case_input(c, "l", 16, 1, 1, NULL, n, p, seed);
    case_input(c, "r", 16, 1, 1, NULL, n, p, seed);
    CASE_PARAMS(c, {"gl", 23170}, {"gr", 16384});
    case_output(c, 16, 1, n);
    return 0;
}

static void run_mix_gain(const bench_case *c, void *out) {
    mix_gain_ref(c->in[0].data, c->in[1].data, (int16_t)c->params[0], (int16_t)c->params[1], out,
                 (int)c->out.extent[0]);
}

static int make_rgb_to_grey(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t in[3] = {frame[size][0], frame[size][1], 3};
    case_input(c, "rgb", 8, 0, 3, NULL, in, p, seed);
    case_output(c, 8, 2, frame[size]);
    return 0;
}

static void run_rgb_to_grey(const bench_case *c, void *out) {
    rgb_to_grey_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], (ptrdiff_t)c->in[0].stride[2], out,
                    (ptrdiff_t)c->out.stride[1], (int)c->out.extent[0], (int)c->out.extent[1]);
}

static int make_alpha_blend(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    case_input(c, "a", 8, 0, 2, NULL, frame[size], p, seed);
    case_input(c, "b", 8, 0, 2, NULL, frame[size], p == PAT_RANDOM ? p : PAT_STRIPES, seed);
    case_input(c, "alpha", 8, 0, 2, NULL, frame[size], p, seed);
    case_output(c, 8, 2, frame[size]);
    return 0;
}

static void run_alpha_blend(const bench_case *c, void *out) {
    alpha_blend_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, (ptrdiff_t)c->in[1].stride[1],
                    c->in[2].data, (ptrdiff_t)c->in[2].stride[1], out, (ptrdiff_t)c->out.stride[1],
                    (int)c->out.extent[0], (int)c->out.extent[1]);
}

/* gemv_i8: {N outputs, K inputs}; the full size a 1024 x 1024 layer */
static int make_gemv_i8(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][2] = {{67, 301}, {5, 64}, {130, 150}, {256, 256}, {1024, 1024}};
    int64_t w[2] = {dims[size][1], dims[size][0]}, in[1] = {dims[size][1]}, out[1] = {dims[size][0]};
    case_input(c, "w", 8, 1, 2, NULL, w, p, seed);
    case_input(c, "in", 8, 1, 1, NULL, in, p, seed);
    case_param(c, "K", dims[size][1]);
    case_output(c, 32, 1, out);
    return 0;
}

static void run_gemv_i8(const bench_case *c, void *out) {
    gemv_i8_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, (int)c->params[0], out,
                (int)c->out.extent[0]);
}

/* requant_i8: a 1024-channel layer's accumulators, 256 rows. m = 1518500250 (~0.7071 in
 * Q31), shift 7, zero -5. Random accumulators are kept within +-2^15 (an accumulator's
 * usual range, where the output spans i8 and saturates only at its ends); the other
 * patterns keep i32's extremes, which saturate at every step. */
static int make_requant_i8(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][2] = {{67, 45}, {5, 4}, {130, 3}, {256, 64}, {1024, 256}};
    case_input(c, "acc", 32, 1, 2, NULL, dims[size], p, seed);
    if (p == PAT_RANDOM) {
        int32_t *a = c->in[0].data;
        for (int64_t i = 0; i < dims[size][0] * dims[size][1]; i++) a[i] = (int32_t)(fdiv_pow2(a[i], 16));
    }
    CASE_PARAMS(c, {"m", 1518500250}, {"shift", 7}, {"zero", -5});
    case_output(c, 8, 2, dims[size]);
    return 0;
}

static void run_requant_i8(const bench_case *c, void *out) {
    requant_i8_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], (int32_t)c->params[0], (uint8_t)c->params[1],
                   (int16_t)c->params[2], out, (ptrdiff_t)c->out.stride[1], (int)c->out.extent[0],
                   (int)c->out.extent[1]);
}

#define USER(name) {#name, make_##name, run_##name}
const bench_entry user_entries[] = {USER(sad8x8),      USER(downsample2x2), USER(fir16),   USER(mix_gain),
                                    USER(rgb_to_grey), USER(alpha_blend),   USER(gemv_i8), USER(requant_i8),
                                    {0}};
