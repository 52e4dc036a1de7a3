/* ml_reduce.c — scalar references for the quantized-ML kernels that reduce over a range
 * given by a parameter (BENCHMARKS.md 15 l2norm, 16 softmax, 17 fully_connected,
 * 18 conv_nn, 20 matmul), and their harness entries.
 *
 * Tensors are u8 with dimension 0 dense, as in Halide's hannk app: l2norm and softmax
 * normalize rows in(x, y) along x; fully_connected reads in(k, b) and a filter f(k, c);
 * conv_nn reads in(ci, x, y, b) and a filter f(co, ci, fx, fy) (the output channel dense,
 * as in hannk's packed filter layout); matmul reads A(k, y) and B(x, k).
 *
 * The references (prototypes; strides in elements, pointers at element 0):
 *
 *   typedef struct { uint8_t in_zero, filter_zero, out_zero, out_min, out_max;
 *                    int32_t out_mult; uint32_t out_shift; } quant_params;
 *
 *   void l2norm_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t zero,
 *                   uint8_t *out, ptrdiff_t out_stride, int w, int h);
 *   void softmax_ref(const uint8_t *in, ptrdiff_t in_stride, int16_t beta_mult, uint16_t beta_shift,
 *                    int16_t om, uint16_t osh, uint8_t oz, uint8_t *out, ptrdiff_t out_stride, int w, int h);
 *   void fully_connected_ref(const uint8_t *in, ptrdiff_t in_stride,     // in(k, b): row b
 *                            const uint8_t *f, ptrdiff_t f_stride,       // f(k, c): row c
 *                            const int32_t *bias, const quant_params *q,
 *                            uint8_t *out, ptrdiff_t out_stride,         // out(c, b): row b
 *                            int k, int c, int b);
 *   void conv_nn_ref(const uint8_t *in, const ptrdiff_t in_stride[4],    // (ci, x, y, b)
 *                    const uint8_t *f, const ptrdiff_t f_stride[4],      // (co, ci, fx, fy)
 *                    const int32_t *bias, int c_in, int fw, int fh,
 *                    int sx, int sy, int dx, int dy, const quant_params *q,
 *                    uint8_t *out, const ptrdiff_t out_stride[4],        // (co, x, y, b)
 *                    int c_out, int w, int h, int batches);
 *   void matmul_ref(const uint8_t *a, ptrdiff_t a_stride,                // A(k, y): row y
 *                   const uint8_t *b, ptrdiff_t b_stride,                // B(x, k): row k
 *                   int k, int32_t a_off, int32_t b_off, int32_t bias, int32_t om, uint32_t osh,
 *                   int32_t ooff, uint8_t omin, uint8_t omax,
 *                   uint8_t *out, ptrdiff_t out_stride, int w, int h);   // out(x, y)
 *
 * Fixed-point helpers follow docs/SEMANTICS.md: m2h(a, b) = rounding_mul_shr(a, b, bits - 1)
 * (ARM sqrdmulh: round half up, saturating, so m2h(MIN, MIN) = MAX); rshr rounds half up;
 * wrapping arithmetic is done in unsigned and cast back.
 */
#include "cases.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t in_zero, filter_zero, out_zero, out_min, out_max;
    int32_t out_mult;
    uint32_t out_shift;
} quant_params;

void l2norm_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t zero, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void softmax_ref(const uint8_t *in, ptrdiff_t in_stride, int16_t beta_mult, uint16_t beta_shift, int16_t om,
                 uint16_t osh, uint8_t oz, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void fully_connected_ref(const uint8_t *in, ptrdiff_t in_stride, const uint8_t *f, ptrdiff_t f_stride,
                         const int32_t *bias, const quant_params *q, uint8_t *out, ptrdiff_t out_stride, int k, int c,
                         int b);
void conv_nn_ref(const uint8_t *in, const ptrdiff_t in_stride[4], const uint8_t *f, const ptrdiff_t f_stride[4],
                 const int32_t *bias, int c_in, int fw, int fh, int sx, int sy, int dx, int dy, const quant_params *q,
                 uint8_t *out, const ptrdiff_t out_stride[4], int c_out, int w, int h, int batches);
void matmul_ref(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride, int k, int32_t a_off,
                int32_t b_off, int32_t bias, int32_t om, uint32_t osh, int32_t ooff, uint8_t omin, uint8_t omax,
                uint8_t *out, ptrdiff_t out_stride, int w, int h);

/* ---- fixed-point helpers ---------------------------------------------------------------- */

/* tine's clamp: max with lo, then min with hi (when lo > hi, hi) */
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
    int64_t t = v < lo ? lo : v;
    return t > hi ? hi : t;
}
static int16_t sat16(int64_t v) { return (int16_t)clamp64(v, INT16_MIN, INT16_MAX); }
static int32_t sat32(int64_t v) { return (int32_t)clamp64(v, INT32_MIN, INT32_MAX); }
static uint8_t satu8(int64_t v) { return (uint8_t)clamp64(v, 0, 255); }
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* floor(v / 2^n) (n < 63) */
static int64_t floor_shr(int64_t v, int n) { return v >= 0 ? v >> n : -(((-(v + 1)) >> n) + 1); }

/* rounding_shr(v, n) for n >= 0: floor((v + 2^(n-1)) / 2^n), exact (the operand is at most
 * 32 bits wide, so a count beyond 33 gives what 33 gives: 0) */
static int64_t rshr(int64_t v, uint32_t n) {
    if (n == 0) return v;
    if (n > 33) n = 33;
    return floor_shr(v + ((int64_t)1 << (n - 1)), (int)n);
}

/* m2h (sqrdmulh) on 16- and 32-bit values */
static int16_t m2h16(int16_t a, int16_t b) { return sat16(rshr((int64_t)a * b, 15)); }
static int32_t m2h32(int32_t a, int32_t b) { return sat32(rshr((int64_t)a * b, 31)); }

/* The shared requantization tail of BENCHMARKS.md (quantized ML):
 * t = i16_sat(rshr(m2h(acc, mult), shift)); out = clamp(u8_sat(sat_add(t, i16(zero))), min, max) */
static uint8_t requantize(int32_t acc, const quant_params *q) {
    int16_t t = sat16(rshr(m2h32(acc, q->out_mult), q->out_shift));
    int16_t s = sat16((int32_t)t + q->out_zero);
    uint8_t o = satu8(s);
    return o < q->out_min ? q->out_min : o > q->out_max ? q->out_max : o;
}

/* ---- hannk's fixed-point log2 / exp2 approximations ------------------------------------
 *
 * Implemented from the description of Halide's apps/hannk/halide/common_halide.cpp in its
 * latest formulation (approx_log2 with a cubic quantized to 14 bits, approx_exp2 with a
 * cubic in Q15 and no constant term, approx_reciprocal = exp2(q, -log2(15, x), 15),
 * approx_reciprocal_sqrt = exp2(q, -log2(14, x), 15)). Polynomial coefficients:
 *   log2(1 + f) ~ p3 f^3 + p2 f^2 + p1 f + p0, f in [0, 1), Q14:
 *     p3 = round(0.155971251 * 2^14) = 2555, p2 = round(-0.575039427 * 2^14) = -9421,
 *     p1 = round(1.41903642 * 2^14) = 23249, p0 = round(3.32891346e-4 * 2^14) = 5;
 *   2^f - 1 ~ p3 f^3 + p2 f^2 + p1 f, Q15:
 *     p3 = round(0.0791076597 * 2^15) = 2592, p2 = round(0.224701130 * 2^15) = 7363,
 *     p1 = round(0.696189819 * 2^15) - 1 = 22812 (the sum stays below 2^15).
 * Powers of the fraction are taken with the 16-bit m2h, as hannk does. The integer power
 * 2^n is formed in 32 bits (n < 0 gives 0) and saturated to the result type. */

/* floor(log2(v)) for v > 0, and -1 for v == 0 (31 - count_leading_zeros(v)) */
static int floor_log2(int32_t v) {
    int n = -1;
    for (uint32_t u = (uint32_t)v; u != 0; u >>= 1) n++;
    return n;
}

/* log2(v) * 2^q for v >= 0 (q = 14 or 15), as i32 */
static int32_t approx_log2(int q, int32_t v) {
    int fl = floor_log2(v);
    /* the 15 bits below the leading one: the fraction f of v / 2^fl = 1 + f, Q15 */
    int64_t normalized = fl <= 15 ? (int64_t)v * ((int64_t)1 << (15 - fl)) : (int64_t)v >> (fl - 15);
    int16_t f1 = (int16_t)(normalized & 0x7fff);
    int16_t f2 = m2h16(f1, f1), f3 = m2h16(f2, f1);
    int16_t poly = (int16_t)(m2h16(2555, f3) + m2h16(-9421, f2) + m2h16(23249, f1) + 5); /* Q14 */
    int32_t frac = (int32_t)poly * (1 << (q - 14));
    return sat32((int64_t)fl * ((int64_t)1 << q) + frac);
}

/* 2^(v / 2^qx) * 2^q (0 <= qx <= 15), saturated to `bits` (16 or 32) bits */
static int32_t approx_exp2(int q, int32_t v, int qx, int bits) {
    int64_t fl = floor_shr(v, qx);
    int64_t n = fl + q, p = n < 0 ? 0 : n > 31 ? 0 : n == 31 ? INT32_MIN : (int64_t)1 << n;
    p = bits == 16 ? sat16(p) : p;
    int16_t f1 = (int16_t)((v - fl * ((int64_t)1 << qx)) << (15 - qx)); /* the fraction, Q15 */
    int16_t f2 = m2h16(f1, f1), f3 = m2h16(f2, f1);
    int16_t poly = (int16_t)(m2h16(2592, f3) + m2h16(7363, f2) + m2h16(22812, f1)); /* 2^f - 1, Q15 */
    if (bits == 16) return sat16(p + m2h16((int16_t)p, poly));
    return sat32(p + m2h32((int32_t)p, (int32_t)poly * 65536));
}

/* ---- 15. l2norm ------------------------------------------------------------------------- */

void l2norm_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t zero, uint8_t *out, ptrdiff_t out_stride, int w,
                int h) {
    for (int y = 0; y < h; y++) {
        const uint8_t *row = in + y * in_stride;
        int32_t ss = 0;
        for (int x = 0; x < w; x++) {
            int32_t z = (int32_t)row[x] - zero;
            ss += z * z;
        }
        /* 2^15 / sqrt(ss) = 2^15 * 2^(-log2(ss) / 2): log2 in Q14 read as Q15 halves it */
        int32_t inv = approx_exp2(15, -approx_log2(14, ss), 15, 32);
        for (int x = 0; x < w; x++) {
            int32_t z = (int32_t)row[x] - zero;
            int16_t t = sat16(rshr((int64_t)z * inv, 8));
            out[y * out_stride + x] = satu8((int32_t)t + 128);
        }
    }
}

/* ---- 16. softmax ------------------------------------------------------------------------ */

void softmax_ref(const uint8_t *in, ptrdiff_t in_stride, int16_t beta_mult, uint16_t beta_shift, int16_t om,
                 uint16_t osh, uint8_t oz, uint8_t *out, ptrdiff_t out_stride, int w, int h) {
    for (int y = 0; y < h; y++) {
        const uint8_t *row = in + y * in_stride;
        uint8_t mx = 0;
        for (int x = 0; x < w; x++) mx = row[x] > mx ? row[x] : mx;
        /* e(x) = 2^(beta * (in - max)) in Q15 (i16); the row's sum of e; its reciprocal */
        int32_t sum = 0;
        for (int x = 0; x < w; x++) {
            int16_t d = (int16_t)(((int32_t)row[x] - mx) * 64);
            sum += approx_exp2(15, m2h16(d, beta_mult), beta_shift, 16);
        }
        int16_t inv = (int16_t)approx_exp2(30, -approx_log2(15, sum), 15, 16); /* 2^30 / sum */
        for (int x = 0; x < w; x++) {
            int16_t d = (int16_t)(((int32_t)row[x] - mx) * 64);
            int16_t e = (int16_t)approx_exp2(15, m2h16(d, beta_mult), beta_shift, 16);
            int16_t t = (int16_t)rshr(m2h16(m2h16(e, inv), om), osh);
            out[y * out_stride + x] = satu8(sat16((int32_t)t + oz));
        }
    }
}

/* ---- 17. fully_connected ---------------------------------------------------------------- */

void fully_connected_ref(const uint8_t *in, ptrdiff_t in_stride, const uint8_t *f, ptrdiff_t f_stride,
                         const int32_t *bias, const quant_params *q, uint8_t *out, ptrdiff_t out_stride, int k, int c,
                         int b) {
    for (int bi = 0; bi < b; bi++)
        for (int ci = 0; ci < c; ci++) {
            int32_t acc = bias[ci];
            for (int ki = 0; ki < k; ki++)
                acc = wrap32((int64_t)acc + ((int32_t)f[ci * f_stride + ki] - q->filter_zero) *
                                                ((int32_t)in[bi * in_stride + ki] - q->in_zero));
            out[bi * out_stride + ci] = requantize(acc, q);
        }
}

/* ---- 18. conv_nn ------------------------------------------------------------------------ */

void conv_nn_ref(const uint8_t *in, const ptrdiff_t is[4], const uint8_t *f, const ptrdiff_t fs[4],
                 const int32_t *bias, int c_in, int fw, int fh, int sx, int sy, int dx, int dy, const quant_params *q,
                 uint8_t *out, const ptrdiff_t os[4], int c_out, int w, int h, int batches) {
    for (int b = 0; b < batches; b++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int co = 0; co < c_out; co++) {
                    int32_t acc = bias[co];
                    for (int fy = 0; fy < fh; fy++)
                        for (int fx = 0; fx < fw; fx++)
                            for (int ci = 0; ci < c_in; ci++) {
                                int32_t iv = in[ci * is[0] + (x * sx + fx * dx) * is[1] + (y * sy + fy * dy) * is[2] +
                                                b * is[3]];
                                int32_t fv = f[co * fs[0] + ci * fs[1] + fx * fs[2] + fy * fs[3]];
                                acc = wrap32((int64_t)acc + (fv - q->filter_zero) * (iv - q->in_zero));
                            }
                    out[co * os[0] + x * os[1] + y * os[2] + b * os[3]] = requantize(acc, q);
                }
}

/* ---- 20. matmul ------------------------------------------------------------------------- */

void matmul_ref(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride, int k, int32_t a_off,
                int32_t b_off, int32_t bias, int32_t om, uint32_t osh, int32_t ooff, uint8_t omin, uint8_t omax,
                uint8_t *out, ptrdiff_t out_stride, int w, int h) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = 0, rowsum_a = 0, colsum_b = 0;
            for (int i = 0; i < k; i++) {
                uint32_t av = a[y * a_stride + i], bv = b[i * b_stride + x];
                p += av * bv;
                rowsum_a += av;
                colsum_b += bv;
            }
            /* the sum of (A + a_off)(B + b_off), expanded; wrapping in 32 bits */
            uint32_t m = p + (uint32_t)a_off * colsum_b + (uint32_t)b_off * rowsum_a +
                         (uint32_t)a_off * (uint32_t)b_off * (uint32_t)k;
            int32_t v = m2h32(wrap32((int64_t)(int32_t)m + bias), om);
            int32_t s = wrap32(rshr(v, osh) + ooff);
            uint8_t o = satu8(s);
            out[y * out_stride + x] = o < omin ? omin : o > omax ? omax : o;
        }
}

/* ---- harness entries (cases.h) ------------------------------------------------------ */

/* l2norm and softmax: rows of w elements, h rows. Default (BENCHMARKS.md gives none):
 * 1024 x 256. The rows' reductions are recomputed per output element by the kernels until
 * materialization lands, so the test shapes stay small. */
static const int64_t row_dims[5][2] = {{67, 5}, {5, 4}, {130, 3}, {256, 64}, {1024, 256}};

static int make_l2norm(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t ext[2] = {row_dims[size][0], row_dims[size][1]};
    case_input(c, "in", 8, 0, 2, NULL, ext, p, seed);
    case_param(c, "zero", 128); /* BENCHMARKS.md gives no value: the middle of u8 */
    case_param(c, "W", ext[0]);
    case_output(c, 8, 2, ext);
    return 0;
}

static void run_l2norm(const bench_case *c, void *out) {
    l2norm_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], (uint8_t)c->params[0], out, (ptrdiff_t)c->out.stride[1],
               (int)c->out.extent[0], (int)c->out.extent[1]);
}

/* softmax parameters (BENCHMARKS.md gives none): an input scale times beta of 1/16, i.e.
 * 2^(log2(e)/16 * (in - max)): beta_mult = round(log2(e)/16 * 2^15) = 2955 with beta_shift 6
 * (d = diff << 6; m2h(d, 2955) / 2^6 = diff * log2(e)/16); output scale 1/256, zero 0:
 * om = 32767 (~1.0), osh = 7 (Q15 -> Q8). */
static int make_softmax(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    int64_t ext[2] = {row_dims[size][0], row_dims[size][1]};
    case_input(c, "in", 8, 0, 2, NULL, ext, p, seed);
    CASE_PARAMS(c, {"beta_mult", 2955}, {"beta_shift", 6}, {"om", 32767}, {"osh", 7}, {"oz", 0}, {"W", ext[0]});
    case_output(c, 8, 2, ext);
    return 0;
}

static void run_softmax(const bench_case *c, void *out) {
    softmax_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], (int16_t)c->params[0], (uint16_t)c->params[1],
                (int16_t)c->params[2], (uint16_t)c->params[3], (uint8_t)c->params[4], out, (ptrdiff_t)c->out.stride[1],
                (int)c->out.extent[0], (int)c->out.extent[1]);
}

/* The tail's parameters of fully_connected and conv_nn (BENCHMARKS.md 17), after the
 * reduction bounds; bias(c) = 10000 for every pattern. */
static void tail_params(bench_case *c) {
    CASE_PARAMS(c, {"iz", 3}, {"fz", 5}, {"om", 32767}, {"shift", 1}, {"out_zero", 7}, {"omin", 5},
                {"omax", 250});
}

static quant_params tail_of(const bench_case *c, int first) {
    const int64_t *v = c->params + first;
    quant_params q = {.in_zero = (uint8_t)v[0], .filter_zero = (uint8_t)v[1], .out_mult = (int32_t)v[2],
                      .out_shift = (uint32_t)v[3], .out_zero = (uint8_t)v[4], .out_min = (uint8_t)v[5],
                      .out_max = (uint8_t)v[6]};
    return q;
}

static void bias_input(bench_case *c, int64_t channels, uint64_t *seed) {
    int64_t ext[1] = {channels};
    case_input(c, "bias", 32, 1, 1, NULL, ext, PAT_ZERO, seed);
    for (int64_t i = 0; i < channels; i++) ((int32_t *)c->in[c->ninputs - 1].data)[i] = 10000;
}

/* fully_connected: in(k, b), f(k, c), bias(c); out(c, b). Sizes {C, B, K}; default
 * (BENCHMARKS.md gives none): K = 1024 inputs, 1024 outputs, batch 1. The test shapes'
 * K is large enough that the outputs do not all clamp at omin. */
static int make_fully_connected(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][3] = {{67, 3, 301}, {5, 2, 64}, {130, 2, 150}, {256, 4, 256}, {1024, 1, 1024}};
    int64_t C = dims[size][0], B = dims[size][1], K = dims[size][2];
    int64_t in_ext[2] = {K, B}, f_ext[2] = {K, C}, out_ext[2] = {C, B};
    case_input(c, "in", 8, 0, 2, NULL, in_ext, p, seed);
    case_input(c, "f", 8, 0, 2, NULL, f_ext, p, seed);
    bias_input(c, C, seed);
    case_param(c, "K", K);
    tail_params(c);
    case_output(c, 8, 2, out_ext);
    return 0;
}

static void run_fully_connected(const bench_case *c, void *out) {
    quant_params q = tail_of(c, 1);
    fully_connected_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, (ptrdiff_t)c->in[1].stride[1],
                        c->in[2].data, &q, out, (ptrdiff_t)c->out.stride[1], (int)c->params[0], (int)c->out.extent[0],
                        (int)c->out.extent[1]);
}

/* conv_nn: in(ci, x, y, b), f(co, ci, fx, fy), bias(co); out(co, x, y, b); no boundary
 * (the input covers every tap). Sizes {C_out, W, H, B, C_in}, filter 3x3 (the kernel's
 * filter loops have constant bounds; the filter's extents are passed to the reference),
 * stride 1, dilation 1; default: 32 output channels, 128 x 128, batch 1, 32 input channels. */
static int make_conv_nn(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][5] = {
        {67, 5, 3, 1, 7}, {5, 4, 3, 2, 3}, {130, 3, 2, 1, 5}, {32, 32, 32, 1, 16}, {32, 128, 128, 1, 32}};
    const int64_t co = dims[size][0], w = dims[size][1], h = dims[size][2], nb = dims[size][3], ci = dims[size][4];
    const int64_t fw = 3, fh = 3, sx = 1, sy = 1, dx = 1, dy = 1;
    int64_t in_ext[4] = {ci, (w - 1) * sx + (fw - 1) * dx + 1, (h - 1) * sy + (fh - 1) * dy + 1, nb};
    int64_t f_ext[4] = {co, ci, fw, fh}, out_ext[4] = {co, w, h, nb};
    case_input(c, "in", 8, 0, 4, NULL, in_ext, p, seed);
    case_input(c, "f", 8, 0, 4, NULL, f_ext, p, seed);
    bias_input(c, co, seed);
    CASE_PARAMS(c, {"C", ci}, {"sx", sx}, {"sy", sy}, {"dx", dx}, {"dy", dy});
    tail_params(c);
    case_output(c, 8, 4, out_ext);
    return 0;
}

static void run_conv_nn(const bench_case *c, void *out) {
    quant_params q = tail_of(c, 5);
    ptrdiff_t is[4], fs[4], os[4];
    for (int d = 0; d < 4; d++) {
        is[d] = (ptrdiff_t)c->in[0].stride[d];
        fs[d] = (ptrdiff_t)c->in[1].stride[d];
        os[d] = (ptrdiff_t)c->out.stride[d];
    }
    const int64_t *v = c->params;
    conv_nn_ref(c->in[0].data, is, c->in[1].data, fs, c->in[2].data, (int)v[0], (int)c->in[1].extent[2],
                (int)c->in[1].extent[3], (int)v[1], (int)v[2], (int)v[3], (int)v[4], &q, out, os, (int)c->out.extent[0],
                (int)c->out.extent[1], (int)c->out.extent[2], (int)c->out.extent[3]);
}

/* matmul: A(k, y), B(x, k); out(x, y). Sizes {W, H, K} with K a multiple of 4; default
 * (BENCHMARKS.md gives none): 256 x 256 x 256. Parameters: BENCHMARKS.md's (with them, a K
 * below ~64 clamps every output at omin, so the test shapes' K is larger). */
static int make_matmul(bench_case *c, case_size size, case_pattern p, uint64_t *seed) {
    static const int64_t dims[5][3] = {{67, 5, 132}, {5, 4, 96}, {130, 3, 260}, {128, 64, 128}, {256, 256, 256}};
    int64_t w = dims[size][0], h = dims[size][1], k = dims[size][2];
    int64_t a_ext[2] = {k, h}, b_ext[2] = {w, k}, out_ext[2] = {w, h};
    case_input(c, "A", 8, 0, 2, NULL, a_ext, p, seed);
    case_input(c, "B", 8, 0, 2, NULL, b_ext, p, seed);
    CASE_PARAMS(c, {"K", k}, {"a_off", 0}, {"b_off", 0}, {"bias", 10000}, {"om", 65536}, {"osh", 1},
                {"ooff", 0}, {"omin", 5}, {"omax", 250});
    case_output(c, 8, 2, out_ext);
    return 0;
}

static void run_matmul(const bench_case *c, void *out) {
    const int64_t *v = c->params;
    matmul_ref(c->in[0].data, (ptrdiff_t)c->in[0].stride[1], c->in[1].data, (ptrdiff_t)c->in[1].stride[1], (int)v[0],
               (int32_t)v[1], (int32_t)v[2], (int32_t)v[3], (int32_t)v[4], (uint32_t)v[5], (int32_t)v[6],
               (uint8_t)v[7], (uint8_t)v[8], out, (ptrdiff_t)c->out.stride[1], (int)c->out.extent[0],
               (int)c->out.extent[1]);
}

const bench_entry ml_reduce_entries[] = {{"l2norm", make_l2norm, run_l2norm},
                                         {"softmax", make_softmax, run_softmax},
                                         {"fully_connected", make_fully_connected, run_fully_connected},
                                         {"conv_nn", make_conv_nn, run_conv_nn},
                                         {"matmul", make_matmul, run_matmul},
                                         {0}};
