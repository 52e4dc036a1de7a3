/* xnnpack_peer.c — the XNNPACK peer of `tine bench` (peer.h): the quantized operators of
 * the benchmark (add, mul, fully_connected, conv_nn, depthwise_conv, average_pool,
 * max_pool, softmax) as XNNPACK's u8 operators, on the benchmark's own buffers.
 *
 * XNNPACK (the CPU engine under TensorFlow Lite and PyTorch Mobile) picks its micro-kernels
 * for the processor when it initializes, so each kernel has one entry, for every row. An
 * entry creates and sets up the operator once at bind (XNNPACK packs the weights then, as
 * an application does once per model) and runs it with no thread pool: one thread.
 *
 * XNNPACK describes quantization by real scales and requantizes with its own fixed-point
 * or float arithmetic, where the kernels compute hannk's integer formulas; the scales are
 * chosen so that the two compute the same real function (each binding says how), and the
 * bench reports the largest difference that remains.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "../peer.h"

struct peer_call {
    xnn_operator_t op;
};

/* An entry's impl: creates the operator for case c, writing into out, and sets it up. */
typedef struct {
    enum xnn_status (*setup)(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n);
} xnn_kernel;

/* the case's parameter called name (0 if it has none: the binder checks the names first) */
static int64_t param(const bench_case *c, const char *name) {
    for (int i = 0; i < c->nparams; i++)
        if (!strcmp(c->param_names[i], name)) return c->params[i];
    return 0;
}

/* whether the case has the inputs and parameters named (comma-separated), so a kernel whose
 * file changed is refused rather than computed with a zero */
static int has(const bench_case *c, const char *inputs, const char *params, const char *kernel, char *err, size_t n) {
    const char *lists[2] = {inputs, params};
    for (int l = 0; l < 2; l++)
        for (const char *p = lists[l]; *p;) {
            size_t len = strcspn(p, ",");
            int found = 0, count = l ? c->nparams : c->ninputs;
            for (int i = 0; i < count; i++) {
                const char *name = l ? c->param_names[i] : c->in_names[i];
                found |= strlen(name) == len && !strncmp(name, p, len);
            }
            if (!found) {
                snprintf(err, n, "%s: the case has no %s %.*s", kernel, l ? "parameter" : "input", (int)len, p);
                return 0;
            }
            p += len + (p[len] == ',');
        }
    return 1;
}

/* whether b is dense: each dimension's stride the product of the extents below it, which
 * XNNPACK's NHWC and NC layouts (channels dense, rows of pixels dense) assume */
static int dense(const ref_buffer *b) {
    int64_t s = 1;
    for (int d = 0; d < b->dims; d++) {
        if (b->extent[d] > 1 && b->stride[d] != s) return 0;
        s *= b->extent[d];
    }
    return 1;
}

static const uint8_t *data(const bench_case *c, int i) { return c->in[i].data; }

/* hannk's requantization t = rshr(m2h(acc, om), shift): acc * om / 2^(31 + shift) */
static double requant_scale(int64_t om, int64_t shift) { return (double)om / ldexp(1.0, 31 + (int)shift); }

/* ---- the operators ------------------------------------------------------------------------- */

/* add: (in1 - z1) * 64 * m1 / 2^16 + (in2 - z2) * 64 * m2 / 2^16: scales m / 1024, output 1 */
static enum xnn_status setup_add(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in1,in2", "z1,m1,z2,m2,out_zero,out_min,out_max", "add", err, n)) return xnn_status_invalid_parameter;
    size_t shape[4] = {(size_t)c->out.extent[3], (size_t)c->out.extent[2], (size_t)c->out.extent[1],
                       (size_t)c->out.extent[0]};
    enum xnn_status s = xnn_create_add_nd_qu8(
        (uint8_t)param(c, "z1"), (float)param(c, "m1") / 1024, (uint8_t)param(c, "z2"), (float)param(c, "m2") / 1024,
        (uint8_t)param(c, "out_zero"), 1.0f, (uint8_t)param(c, "out_min"), (uint8_t)param(c, "out_max"), 0, op);
    return s ? s : xnn_setup_add_nd_qu8(*op, 4, shape, 4, shape, data(c, 0), data(c, 1), out, NULL);
}

/* mul: (in1 - z1) * 64 * (in2 - z2) * 64 requantized by om, osh: one scale for the product */
static enum xnn_status setup_mul(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in1,in2", "z1,z2,out_zero,om,osh,out_min,out_max", "mul", err, n)) return xnn_status_invalid_parameter;
    int64_t sh = param(c, "osh") < 15 ? param(c, "osh") : 15; /* the kernel's shift stops at 15 */
    size_t shape[4] = {(size_t)c->out.extent[3], (size_t)c->out.extent[2], (size_t)c->out.extent[1],
                       (size_t)c->out.extent[0]};
    enum xnn_status s = xnn_create_multiply_nd_qu8(
        (uint8_t)param(c, "z1"), 1.0f, (uint8_t)param(c, "z2"), 1.0f, (uint8_t)param(c, "out_zero"),
        (float)(1 / (4096 * requant_scale(param(c, "om"), sh))), (uint8_t)param(c, "out_min"),
        (uint8_t)param(c, "out_max"), 0, op);
    return s ? s : xnn_setup_multiply_nd_qu8(*op, 4, shape, 4, shape, data(c, 0), data(c, 1), out, NULL);
}

/* the pools: 8x8 windows at stride 2, TensorFlow's SAME padding (3 before, the rest after) */
static enum xnn_status setup_pool(const bench_case *c, void *out, xnn_operator_t *op, int average) {
    size_t ch = (size_t)c->in[0].extent[0];
    uint8_t lo = (uint8_t)param(c, "out_min"), hi = (uint8_t)param(c, "out_max");
    enum xnn_status s =
        average ? xnn_create_average_pooling2d_nhwc_qu8(0, 0, 0, 0, 8, 8, 2, 2, ch, ch, ch, 0, 1.0f, 0, 1.0f, lo, hi,
                                                        XNN_FLAG_TENSORFLOW_SAME_PADDING, op)
                : xnn_create_max_pooling2d_nhwc_u8(0, 0, 0, 0, 8, 8, 2, 2, 1, 1, ch, ch, ch, lo, hi,
                                                   XNN_FLAG_TENSORFLOW_SAME_PADDING, op);
    if (s) return s;
    size_t b = (size_t)c->in[0].extent[3], h = (size_t)c->in[0].extent[2], w = (size_t)c->in[0].extent[1];
    return average ? xnn_setup_average_pooling2d_nhwc_qu8(*op, b, h, w, data(c, 0), out, NULL)
                   : xnn_setup_max_pooling2d_nhwc_u8(*op, b, h, w, data(c, 0), out, NULL);
}

static enum xnn_status setup_average_pool(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    return has(c, "in", "out_min,out_max", "average_pool", err, n) ? setup_pool(c, out, op, 1)
                                                                    : xnn_status_invalid_parameter;
}

static enum xnn_status setup_max_pool(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    return has(c, "in", "out_min,out_max", "max_pool", err, n) ? setup_pool(c, out, op, 0)
                                                                : xnn_status_invalid_parameter;
}

/* A convolution with hannk's tail: input and filter scales 1, so the accumulator's scale is
 * 1 and the output's is 1 / (om / 2^(31 + shift)). kernel: XNNPACK's layout; names: the
 * case's shift, output minimum and maximum. */
static enum xnn_status conv(const bench_case *c, void *out, xnn_operator_t *op, const uint8_t *kernel, uint32_t groups,
                            size_t cin, size_t cout, uint32_t sy, uint32_t sx, uint32_t dy, uint32_t dx,
                            const char *const names[3], uint32_t flags) {
    size_t ch_in = (size_t)c->in[0].extent[0], ch_out = (size_t)c->out.extent[0];
    enum xnn_status s = xnn_create_convolution2d_nhwc_qu8(
        0, 0, 0, 0, 3, 3, sy, sx, dy, dx, groups, cin, cout, ch_in, ch_out, (uint8_t)param(c, "iz"), 1.0f,
        (uint8_t)param(c, "fz"), 1.0f, kernel, c->in[2].data, (uint8_t)param(c, "out_zero"),
        (float)(1 / requant_scale(param(c, "om"), param(c, names[0]))), (uint8_t)param(c, names[1]),
        (uint8_t)param(c, names[2]), flags, op);
    if (s) return s;
    return xnn_setup_convolution2d_nhwc_qu8(*op, (size_t)c->in[0].extent[3], (size_t)c->in[0].extent[2],
                                            (size_t)c->in[0].extent[1], data(c, 0), out, NULL);
}

/* depthwise_conv: f(c, fx, fy), c dense, is XNNPACK's depthwise layout [fy][fx][c] */
static enum xnn_status setup_depthwise(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in,f,bias", "iz,fz,om,osh,out_zero,out_min,out_max", "depthwise_conv", err, n))
        return xnn_status_invalid_parameter;
    static const char *const names[3] = {"osh", "out_min", "out_max"};
    return conv(c, out, op, data(c, 1), (uint32_t)c->out.extent[0], 1, 1, 1, 1, 1, 1, names,
                XNN_FLAG_DEPTHWISE_CONVOLUTION);
}

/* conv_nn: f(co, ci, fx, fy), co dense, copied into XNNPACK's [co][fy][fx][ci] (which it
 * packs at creation; the copy is freed then) */
static enum xnn_status setup_conv_nn(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in,f,bias", "C,sx,sy,dx,dy,iz,fz,om,shift,out_zero,omin,omax", "conv_nn", err, n))
        return xnn_status_invalid_parameter;
    const ref_buffer *f = &c->in[1];
    size_t co = (size_t)f->extent[0], ci = (size_t)f->extent[1];
    if (f->extent[2] != 3 || f->extent[3] != 3 || (int64_t)ci != param(c, "C")) {
        snprintf(err, n, "conv_nn: the filter is not C_out x C x 3 x 3");
        return xnn_status_invalid_parameter;
    }
    uint8_t *k = malloc(co * ci * 9);
    if (!k) return xnn_status_out_of_memory;
    const uint8_t *src = f->data;
    for (size_t o = 0; o < co; o++)
        for (size_t fy = 0; fy < 3; fy++)
            for (size_t fx = 0; fx < 3; fx++)
                for (size_t i = 0; i < ci; i++)
                    k[((o * 3 + fy) * 3 + fx) * ci + i] = src[o * f->stride[0] + i * f->stride[1] +
                                                              fx * f->stride[2] + fy * f->stride[3]];
    static const char *const names[3] = {"shift", "omin", "omax"};
    enum xnn_status s = conv(c, out, op, k, 1, ci, co, (uint32_t)param(c, "sy"), (uint32_t)param(c, "sx"),
                             (uint32_t)param(c, "dy"), (uint32_t)param(c, "dx"), names, 0);
    free(k);
    return s;
}

/* fully_connected: f(k, c), k dense, is XNNPACK's [output][input] */
static enum xnn_status setup_fc(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in,f,bias", "K,iz,fz,om,shift,out_zero,omin,omax", "fully_connected", err, n))
        return xnn_status_invalid_parameter;
    size_t k = (size_t)param(c, "K"), ch = (size_t)c->out.extent[0];
    enum xnn_status s = xnn_create_fully_connected_nc_qu8(
        k, ch, (size_t)c->in[0].stride[1], (size_t)c->out.stride[1], (uint8_t)param(c, "iz"), 1.0f,
        (uint8_t)param(c, "fz"), 1.0f, data(c, 1), c->in[2].data, (uint8_t)param(c, "out_zero"),
        (float)(1 / requant_scale(param(c, "om"), param(c, "shift"))), (uint8_t)param(c, "omin"),
        (uint8_t)param(c, "omax"), 0, op);
    return s ? s : xnn_setup_fully_connected_nc_qu8(*op, (size_t)c->out.extent[1], data(c, 0), out, NULL);
}

/* softmax: the kernel's e = 2^((in - max) * 64 * beta_mult / 2^(15 + beta_shift)) is
 * exp((in - max) * scale) with scale = ln 2 * 64 * beta_mult / 2^(15 + beta_shift); its
 * output is the probability times om / 2^osh. XNNPACK's u8 softmax has one output scale,
 * 1/256 with zero point 0 (TensorFlow Lite's): the kernel's parameters must ask for it. */
static enum xnn_status setup_softmax(const bench_case *c, void *out, xnn_operator_t *op, char *err, size_t n) {
    if (!has(c, "in", "beta_mult,beta_shift,om,osh,oz,W", "softmax", err, n)) return xnn_status_invalid_parameter;
    double per_unit = ldexp(1.0, (int)param(c, "osh")) / (double)param(c, "om");
    if (fabs(per_unit * 256 - 1) > 0.01 || param(c, "oz") != 0) {
        snprintf(err, n, "softmax: XNNPACK's output is 1/256 a step from 0; the case's is %g from %d", per_unit,
                 (int)param(c, "oz"));
        return xnn_status_invalid_parameter;
    }
    /* XNNPACK's table holds lrint(min((2^32 - 1) / W, 2^23 - 1) * exp(...)): for W a power of
     * two from 512 up that is 2^32 / W at the row's maximum, so a row of W equal values sums
     * to 2^32, which its u32 sum wraps to 0 (an assertion in its code, a division by zero
     * without). Such a case is refused, not run. */
    size_t w = (size_t)c->out.extent[0];
    if (w >= 512 && !(w & (w - 1)))
        for (int64_t y = 0; y < c->out.extent[1]; y++) {
            const uint8_t *row = data(c, 0) + y * c->in[0].stride[1];
            size_t x = 1;
            while (x < w && row[x] == row[0]) x++;
            if (x == w) {
                snprintf(err, n, "softmax: XNNPACK's u32 sum of a row of %zu equal values wraps to 0 (its table "
                                 "entry is 2^32 / %zu): not run on this data", w, w);
                return xnn_status_unsupported_parameter;
            }
        }
    int64_t bs = param(c, "beta_shift") < 15 ? param(c, "beta_shift") : 15;
    double scale = log(2.0) * 64 * (double)param(c, "beta_mult") / ldexp(1.0, 15 + (int)bs);
    enum xnn_status s = xnn_create_softmax_nc_qu8(w, (size_t)c->in[0].stride[1], (size_t)c->out.stride[1],
                                                  (float)scale, 0, 0x1.0p-8f, 0, op);
    return s ? s : xnn_setup_softmax_nc_qu8(*op, (size_t)c->out.extent[1], data(c, 0), out, NULL);
}

/* ---- the peer ------------------------------------------------------------------------------ */

static int runs_here(const peer_entry *e) {
    (void)e;
    static int ok = -1;
    if (ok < 0) ok = xnn_initialize(NULL) == xnn_status_success;
    return ok;
}

static double compile_ms(const peer_entry *e) {
    (void)e;
    return -1; /* a prebuilt library */
}

static void unbind(peer_call *call) {
    if (!call) return;
    if (call->op) xnn_delete_operator(call->op);
    free(call);
}

static peer_call *bind(const peer_entry *e, const bench_case *c, void *out, char *err, size_t n) {
    if (!runs_here(e)) {
        snprintf(err, n, "%s: XNNPACK does not initialize on this processor", e->kernel);
        return NULL;
    }
    for (int i = 0; i < c->ninputs; i++)
        if (c->in_bits[i] != (i == 2 ? 32 : 8) || !dense(&c->in[i])) {
            snprintf(err, n, "%s: input %s is not a dense u8 tensor (i32 bias)", e->kernel, c->in_names[i]);
            return NULL;
        }
    if (c->out_bits != 8 || !dense(&c->out)) {
        snprintf(err, n, "%s: the output is not a dense u8 tensor", e->kernel);
        return NULL;
    }
    peer_call *call = calloc(1, sizeof *call);
    if (!call) {
        snprintf(err, n, "%s: out of memory", e->kernel);
        return NULL;
    }
    err[0] = 0;
    enum xnn_status s = ((const xnn_kernel *)e->impl)->setup(c, out, &call->op, err, n);
    if (s != xnn_status_success) {
        if (!err[0]) snprintf(err, n, "%s: XNNPACK refused the operator (status %d)", e->kernel, (int)s);
        unbind(call);
        return NULL;
    }
    return call;
}

static int run(peer_call *call) { return (int)xnn_run_operator(call->op, NULL); }

#define ENTRY(kernel, setup, differs, tolerance, f1, f2)                                                         \
    {kernel, NULL, "XNNPACK (u8 operators)", runs_here, compile_ms, bind, run, unbind, &(const xnn_kernel){setup}, \
     differs, tolerance, {0, f1, f2, 0}}

static const peer_entry entries[] = {
    ENTRY("add", setup_add, "requantizes in XNNPACK's fixed point (scales m/1024), rounding differently", 1, 0, 0),
    ENTRY("mul", setup_mul,
          "requantizes the product in float (one scale, om / 2^(31 + osh) times 4096), rounding differently", 1, 0, 0),
    ENTRY("average_pool", setup_average_pool,
          "XNNPACK's u8 average divides by the whole window, padding included, at the edges (the kernel by the taps "
          "inside): outputs whose window crosses the edge not compared",
          1, 2, 2),
    ENTRY("max_pool", setup_max_pool, NULL, 0, 0, 0),
    ENTRY("depthwise_conv", setup_depthwise, "requantizes the i32 sum in float (scale om / 2^(31 + osh)), rounding "
                                             "where the kernel's fixed point rounds half up",
          1, 0, 0),
    ENTRY("fully_connected", setup_fc, "requantizes the i32 sum in float (scale om / 2^(31 + shift))", 1, 0, 0),
    ENTRY("conv_nn", setup_conv_nn,
          "requantizes the i32 sum in float (scale om / 2^(31 + shift)); weights packed once at bind", 1, 0, 0),
    ENTRY("softmax", setup_softmax,
          "exp and reciprocal in float (a table per operator), where the kernel has hannk's fixed-point "
          "polynomials",
          2, 0, 0),
    {0}};

const peer_entry *tine_peer_entries(void) { return entries; }
