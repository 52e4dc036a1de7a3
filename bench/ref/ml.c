/* ml.c — scalar references for the quantized-ML elementwise, pooling and depthwise
 * benchmark kernels (BENCHMARKS.md 11 add, 12 mul, 13 average_pool, 14 max_pool,
 * 19 depthwise_conv), and their harness entries.
 *
 * Tensors are u8 in hannk's layout (c, x, y, b): c is dense, `st` gives the strides (in
 * elements) of x, y and b, `p` points at element (0, 0, 0, 0). The output has C x W x H x B
 * elements.
 *
 * void add_ref(const uint8_t *in1, const ptrdiff_t st1[3], const uint8_t *in2, const ptrdiff_t st2[3],
 *              uint8_t z1, int16_t m1, uint8_t z2, int16_t m2, uint8_t out_zero, uint8_t out_min,
 *              uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B);
 * void mul_ref(const uint8_t *in1, const ptrdiff_t st1[3], const uint8_t *in2, const ptrdiff_t st2[3],
 *              uint8_t z1, uint8_t z2, uint8_t out_zero, int32_t om, uint32_t osh, uint8_t out_min,
 *              uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B);
 *     in1, in2 and out all C x W x H x B.
 * void average_pool_ref(const uint8_t *in, const ptrdiff_t st[3], int in_w, int in_h, uint8_t out_min,
 *                       uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B);
 * void max_pool_ref(const uint8_t *in, const ptrdiff_t st[3], int in_w, int in_h, uint8_t out_min,
 *                   uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B);
 *     in is C x in_w x in_h x B; an 8x8 window at stride 2x2, SAME padding (output (x, y)
 *     covers input columns 2x-3 .. 2x+4, rows 2y-3 .. 2y+4; W = ceil(in_w / 2)); taps
 *     outside the input are excluded.
 * void depthwise_conv_ref(const uint8_t *in, const ptrdiff_t st[3], const uint8_t *f, const int32_t *bias,
 *                         uint8_t iz, uint8_t fz, int32_t om, uint32_t osh, uint8_t out_zero,
 *                         uint8_t out_min, uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C,
 *                         int W, int H, int B);
 *     in is C x (W + 2) x (H + 2) x B (no padding), f is C x 3 x 3 (f[c + C * (fx + 3 * fy)]),
 *     bias has C elements; depth multiplier 1, stride 1, dilation 1.
 */
#include "cases.h"

#include <stdlib.h>

/* ---- fixed-point helpers, from BENCHMARKS.md / SEMANTICS.md ---------------------------- */

/* tine's clamp: max with lo, then min with hi (when lo > hi, hi) */
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    int64_t t = v < lo ? lo : v;
    return t > hi ? hi : t;
}

/* floor(v / 2^s), 0 <= s < 63 (an arithmetic right shift, written without shifting a
 * negative value) */
static int64_t floor_shr(int64_t v, int s) { return v >= 0 ? v >> s : -((-(v + 1)) >> s) - 1; }

/* rounding_shr(x, s) on i32 with an unsigned s: floor((x + 2^(s-1)) / 2^s), rounding half
 * up, exact for every s (0 for every s >= 32). */
static int32_t rshr32(int32_t x, uint32_t s) {
    if (s == 0) return x;
    if (s > 32) s = 32; /* the rounded quotient is already 0 at 32 */
    return (int32_t)floor_shr((int64_t)x + ((int64_t)1 << (s - 1)), (int)s);
}

/* m2h(a, b) = rounding_mul_shr(a, b, 31) on i32 (ARM sqrdmulh): the rounded high half of
 * the doubled product, saturated (only INT_MIN * INT_MIN overflows). */
static int32_t m2h32(int32_t a, int32_t b) {
    int64_t p = (int64_t)a * (int64_t)b; /* |p| <= 2^62 */
    return (int32_t)clamp64(floor_shr(p + ((int64_t)1 << 30), 31), INT32_MIN, INT32_MAX);
}

static int16_t i16_sat(int32_t v) { return (int16_t)clamp64(v, INT16_MIN, INT16_MAX); }
static uint8_t u8_sat(int32_t v) { return (uint8_t)clamp64(v, 0, 255); }

/* The shared tail after t: clamp(u8_sat(saturating_add(t, i16(out_zero))), out_min, out_max). */
static uint8_t tail(int16_t t, uint8_t out_zero, uint8_t out_min, uint8_t out_max) {
    int16_t s = i16_sat((int32_t)t + (int32_t)out_zero);
    return (uint8_t)clamp64(u8_sat(s), out_min, out_max);
}

/* wrapping i32 addition */
static int32_t add32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

#define AT(p, st, c, x, y, b) ((p)[(c) + (ptrdiff_t)(x) * (st)[0] + (ptrdiff_t)(y) * (st)[1] + (ptrdiff_t)(b) * (st)[2]])

/* ---- 11. add ---------------------------------------------------------------------------- */

void add_ref(const uint8_t *in1, const ptrdiff_t st1[3], const uint8_t *in2, const ptrdiff_t st2[3], uint8_t z1,
             int16_t m1, uint8_t z2, int16_t m2, uint8_t out_zero, uint8_t out_min, uint8_t out_max, uint8_t *out,
             const ptrdiff_t sto[3], int C, int W, int H, int B) {
    for (int b = 0; b < B; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < C; c++) {
                    /* (i16(in) - i16(z)) << 6: at most 255 * 64 in magnitude */
                    int32_t a1 = ((int32_t)AT(in1, st1, c, x, y, b) - z1) * 64;
                    int32_t a2 = ((int32_t)AT(in2, st2, c, x, y, b) - z2) * 64;
                    int32_t p = add32(a1 * m1, a2 * m2); /* each product < 2^30 */
                    int16_t t = i16_sat(rshr32(p, 16));
                    AT(out, sto, c, x, y, b) = tail(t, out_zero, out_min, out_max);
                }
}

/* ---- 12. mul ---------------------------------------------------------------------------- */

void mul_ref(const uint8_t *in1, const ptrdiff_t st1[3], const uint8_t *in2, const ptrdiff_t st2[3], uint8_t z1,
             uint8_t z2, uint8_t out_zero, int32_t om, uint32_t osh, uint8_t out_min, uint8_t out_max, uint8_t *out,
             const ptrdiff_t sto[3], int C, int W, int H, int B) {
    uint32_t sh = osh < 15 ? osh : 15;
    for (int b = 0; b < B; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < C; c++) {
                    int32_t a1 = ((int32_t)AT(in1, st1, c, x, y, b) - z1) * 64;
                    int32_t a2 = ((int32_t)AT(in2, st2, c, x, y, b) - z2) * 64;
                    int32_t prod = a1 * a2; /* |prod| <= 16320^2 < 2^31 */
                    int16_t t = i16_sat(rshr32(m2h32(prod, om), sh));
                    AT(out, sto, c, x, y, b) = tail(t, out_zero, out_min, out_max);
                }
}

/* ---- 13. average_pool, 14. max_pool ------------------------------------------------------- */

enum { POOL_F = 8, POOL_S = 2, POOL_PAD = 3 }; /* filter 8x8, stride 2x2, SAME padding */

void average_pool_ref(const uint8_t *in, const ptrdiff_t st[3], int in_w, int in_h, uint8_t out_min,
                      uint8_t out_max, uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B) {
    for (int b = 0; b < B; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int x0 = x * POOL_S - POOL_PAD, y0 = y * POOL_S - POOL_PAD;
                for (int c = 0; c < C; c++) {
                    uint16_t sum = 0;
                    int n = 0;
                    for (int fy = 0; fy < POOL_F; fy++)
                        for (int fx = 0; fx < POOL_F; fx++) {
                            int ix = x0 + fx, iy = y0 + fy;
                            if (ix < 0 || ix >= in_w || iy < 0 || iy >= in_h) continue; /* excluded */
                            sum = (uint16_t)(sum + AT(in, st, c, ix, iy, b));
                            n++;
                        }
                    /* inv = u16_sat((2^17 + n) / (2n)); avg = rounding_mul_shr(sum, inv, 16) */
                    uint16_t inv = (uint16_t)clamp64((131072 + n) / (2 * n), 0, 65535);
                    uint32_t avg = ((uint32_t)sum * inv + 32768u) >> 16;
                    if (avg > 65535) avg = 65535; /* saturating narrow to u16 (never reached) */
                    AT(out, sto, c, x, y, b) = (uint8_t)clamp64(u8_sat((int32_t)avg), out_min, out_max);
                }
            }
}

void max_pool_ref(const uint8_t *in, const ptrdiff_t st[3], int in_w, int in_h, uint8_t out_min, uint8_t out_max,
                  uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B) {
    for (int b = 0; b < B; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int x0 = x * POOL_S - POOL_PAD, y0 = y * POOL_S - POOL_PAD;
                for (int c = 0; c < C; c++) {
                    uint8_t m = out_min;
                    for (int fy = 0; fy < POOL_F; fy++)
                        for (int fx = 0; fx < POOL_F; fx++) {
                            int ix = x0 + fx, iy = y0 + fy;
                            if (ix < 0 || ix >= in_w || iy < 0 || iy >= in_h) continue;
                            uint8_t v = AT(in, st, c, ix, iy, b);
                            if (v > m) m = v;
                        }
                    AT(out, sto, c, x, y, b) = m < out_max ? m : out_max;
                }
            }
}

/* ---- 19. depthwise_conv ------------------------------------------------------------------ */

void depthwise_conv_ref(const uint8_t *in, const ptrdiff_t st[3], const uint8_t *f, const int32_t *bias, uint8_t iz,
                        uint8_t fz, int32_t om, uint32_t osh, uint8_t out_zero, uint8_t out_min, uint8_t out_max,
                        uint8_t *out, const ptrdiff_t sto[3], int C, int W, int H, int B) {
    for (int b = 0; b < B; b++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < C; c++) {
                    int32_t acc = bias[c];
                    for (int fy = 0; fy < 3; fy++)
                        for (int fx = 0; fx < 3; fx++) {
                            int32_t fv = (int32_t)f[c + (ptrdiff_t)C * (fx + 3 * fy)] - fz;
                            int32_t iv = (int32_t)AT(in, st, c, x + fx, y + fy, b) - iz;
                            acc = add32(acc, fv * iv); /* the sum wraps in i32 */
                        }
                    int16_t t = i16_sat(rshr32(m2h32(acc, om), osh));
                    AT(out, sto, c, x, y, b) = tail(t, out_zero, out_min, out_max);
                }
}

/* ---- harness entries (cases.h) ------------------------------------------------------------ */

/* The strides of x, y, b of a (c, x, y, b) buffer */
static void strides(const ref_buffer *r, ptrdiff_t st[3]) {
    for (int d = 0; d < 3; d++) st[d] = (ptrdiff_t)r->stride[d + 1];
}

/* Output shapes (c, x, y, b) per size: c = 67 (not a multiple of 32, > 64), 5 (narrower
 * than a vector), 97 with two batches; then the quick and full sizes. */
static const int64_t EW_SHAPE[5][4] = {
    {67, 9, 7, 1}, {5, 3, 3, 1}, {97, 5, 3, 2}, {128, 32, 32, 1},
    {128, 128, 128, 1}, /* BENCHMARKS.md gives no size for add / mul: 128 x 128 x 128 */
};

static int make_elementwise(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    const int64_t *e = EW_SHAPE[size];
    case_input(c, "in1", 8, 0, 4, NULL, e, p, seed);
    case_input(c, "in2", 8, 0, 4, NULL, e, p, seed);
    case_output(c, 8, 4, e);
    return 0;
}

static int make_add(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    make_elementwise(c, size, p, seed);
    CASE_PARAMS(c, {"z1", 0}, {"m1", 100}, {"z2", 0}, {"m2", 100}, {"out_zero", 0}, {"out_min", 5},
                {"out_max", 225});
    return 0;
}

/* What add_ref and mul_ref take of a case besides its parameters. */
typedef struct {
    const uint8_t *a, *b;
    ptrdiff_t sa[3], sb[3], so[3];
    int e[4];
} ew_args;

static ew_args ew_of(const bench_case *c) {
    ew_args w = {case_at(&c->in[0], 1, 0, 0, 0, 0), case_at(&c->in[1], 1, 0, 0, 0, 0), {0}, {0}, {0}, {0}};
    strides(&c->in[0], w.sa);
    strides(&c->in[1], w.sb);
    strides(&c->out, w.so);
    for (int d = 0; d < 4; d++) w.e[d] = (int)c->out.extent[d];
    return w;
}

static void run_add(const bench_case *c, void *out) {
    ew_args w = ew_of(c);
    const int64_t *p = c->params;
    add_ref(w.a, w.sa, w.b, w.sb, (uint8_t)p[0],
            (int16_t)p[1], (uint8_t)p[2], (int16_t)p[3], (uint8_t)p[4], (uint8_t)p[5], (uint8_t)p[6], out, w.so,
            w.e[0], w.e[1], w.e[2], w.e[3]);
}

static int make_mul(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    make_elementwise(c, size, p, seed);
    CASE_PARAMS(c, {"z1", 2}, {"z2", 5}, {"out_zero", 5}, {"om", 10000}, {"osh", 1}, {"out_min", 5},
                {"out_max", 225});
    return 0;
}

static void run_mul(const bench_case *c, void *out) {
    ew_args w = ew_of(c);
    const int64_t *p = c->params;
    mul_ref(w.a, w.sa, w.b, w.sb, (uint8_t)p[0], (uint8_t)p[1], (uint8_t)p[2], (int32_t)p[3], (uint32_t)p[4],
            (uint8_t)p[5], (uint8_t)p[6], out, w.so, w.e[0], w.e[1], w.e[2], w.e[3]);
}

/* Pool inputs (c, in_w, in_h, b); the output is (c, ceil(in_w / 2), ceil(in_h / 2), b). The
 * smallest is narrower than the 8x8 window. Full: c = 1024 (BENCHMARKS.md), 64 x 64
 * spatial (our choice). */
static const int64_t POOL_SHAPE[5][4] = {
    {67, 17, 13, 1}, {5, 3, 2, 1}, {97, 9, 13, 2}, {256, 16, 16, 1}, {1024, 64, 64, 1},
};

static int make_pool(bench_case *c, case_size size, case_pattern p, uint64_t *seed, int with_extents) {
    const int64_t *e = POOL_SHAPE[size];
    int64_t oe[4] = {e[0], (e[1] + 1) / 2, (e[2] + 1) / 2, e[3]};
    case_input(c, "in", 8, 0, 4, NULL, e, p, seed);
    if (with_extents) {
        case_param(c, "in_w", e[1]);
        case_param(c, "in_h", e[2]);
    }
    case_param(c, "out_min", 5);
    case_param(c, "out_max", 225);
    case_output(c, 8, 4, oe);
    return 0;
}

static int make_average_pool(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    return make_pool(c, size, p, seed, 1);
}

static int make_max_pool(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    return make_pool(c, size, p, seed, 0);
}

static void run_average_pool(const bench_case *c, void *out) {
    ptrdiff_t si[3], so[3];
    strides(&c->in[0], si);
    strides(&c->out, so);
    average_pool_ref(case_at(&c->in[0], 1, 0, 0, 0, 0), si, (int)c->in[0].extent[1], (int)c->in[0].extent[2],
                     (uint8_t)c->params[2], (uint8_t)c->params[3], out, so, (int)c->out.extent[0],
                     (int)c->out.extent[1], (int)c->out.extent[2], (int)c->out.extent[3]);
}

static void run_max_pool(const bench_case *c, void *out) {
    ptrdiff_t si[3], so[3];
    strides(&c->in[0], si);
    strides(&c->out, so);
    max_pool_ref(case_at(&c->in[0], 1, 0, 0, 0, 0), si, (int)c->in[0].extent[1], (int)c->in[0].extent[2],
                 (uint8_t)c->params[0], (uint8_t)c->params[1], out, so, (int)c->out.extent[0], (int)c->out.extent[1],
                 (int)c->out.extent[2], (int)c->out.extent[3]);
}

/* depthwise_conv output shapes (c, x, y, b); the input has 2 more columns and rows. Full:
 * 128 channels of 128 x 128 (our choice; BENCHMARKS.md gives no size). */
static const int64_t DW_SHAPE[5][4] = {
    {67, 9, 7, 1}, {5, 3, 3, 1}, {97, 5, 3, 2}, {64, 32, 32, 1}, {128, 128, 128, 1},
};

static int make_depthwise_conv(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    const int64_t *e = DW_SHAPE[size];
    int64_t ie[4] = {e[0], e[1] + 2, e[2] + 2, e[3]}, fe[3] = {e[0], 3, 3};
    case_input(c, "in", 8, 0, 4, NULL, ie, p, seed);
    case_input(c, "f", 8, 0, 3, NULL, fe, p, seed);
    case_input(c, "bias", 32, 1, 1, NULL, e, p, seed);
    if (p == PAT_RANDOM) { /* random biases in [-2^23, 2^23): outputs spread over the range */
        int32_t *bias = c->in[2].data;
        for (int64_t i = 0; i < e[0]; i++) bias[i] = (int32_t)(case_rand(seed) % (1u << 24)) - (1 << 23);
    }
    /* BENCHMARKS.md gives no values for 19: fully_connected's (17) */
    CASE_PARAMS(c, {"iz", 3}, {"fz", 5}, {"om", 32767}, {"osh", 1}, {"out_zero", 7}, {"out_min", 5},
                {"out_max", 250});
    case_output(c, 8, 4, e);
    return 0;
}

static void run_depthwise_conv(const bench_case *c, void *out) {
    ptrdiff_t si[3], so[3];
    strides(&c->in[0], si);
    strides(&c->out, so);
    const int64_t *p = c->params;
    depthwise_conv_ref(case_at(&c->in[0], 1, 0, 0, 0, 0), si, c->in[1].data, c->in[2].data, (uint8_t)p[0],
                       (uint8_t)p[1], (int32_t)p[2], (uint32_t)p[3], (uint8_t)p[4], (uint8_t)p[5], (uint8_t)p[6], out,
                       so, (int)c->out.extent[0], (int)c->out.extent[1], (int)c->out.extent[2],
                       (int)c->out.extent[3]);
}

const bench_entry ml_entries[] = {
    {"add", make_add, run_add},
    {"mul", make_mul, run_mul},
    {"average_pool", make_average_pool, run_average_pool},
    {"max_pool", make_max_pool, run_max_pool},
    {"depthwise_conv", make_depthwise_conv, run_depthwise_conv},
    {0}};
