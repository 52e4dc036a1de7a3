/* test_dft_gen.c — the DFT generator (src/dft): every size 2..64, both signs, at f64, f32
 * and f32x8 (eight input vectors lane-wise), evaluated by tine's interpreter on random
 * inputs and on impulses (a 1 at each of the 2n real positions) against an O(n^2) DFT in
 * long double; the operation counts against FFTW's codelets; the same counts for every
 * sign and type; the errors of calls it refuses.
 *
 * Error bounds (eps the type's epsilon, log2 n at least 1; C_RMS and C_MAX below):
 *   relative RMS error  ||y - exact||_2 / ||exact||_2            <= C_RMS eps log2 n
 *   max error per output max_k |y_k - exact_k| / ||x||_2         <= C_MAX eps log2 n
 * (||x||_2 is the scale of one output's error: a DFT multiplies norms by sqrt(n), and an
 * FFT's error spread over n outputs is eps log n ||y||_2 / sqrt(n) each). The worst ratio
 * seen per type is printed; `test_dft_gen -v` prints it per size.
 */
#include "dft/gen.h"
#include "internal.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The worst ratios seen over every size and sign (this seed): f64 rms 0.29, max 0.61;
 * f32 0.35, 0.59; f32x8 (more vectors) 0.48, 0.80, at n = 2 and 3 where log2 n is small.
 * The bounds leave a margin of four times that. */
#define C_RMS 2.0
#define C_MAX 3.0

enum { MAXN = 64 };

static bool verbose;

static uint64_t rng_state = 0x0123456789abcdefull;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(rng() >> 11) / 4503599627370496.0 - 1.0; } /* [-1, 1) */

/* y = DFT_sign(x) in long double, x and y interleaved (re, im). */
static void reference(int n, int sign, const long double *x, long double *y) {
    static long double cs[MAXN], sn[MAXN]; /* cos and sin of 2 pi m / n, for the last n */
    static int table_n;
    if (table_n != n) {
        const long double pi = 3.141592653589793238462643383279502884L;
        for (int m = 0; m < n; m++) cs[m] = cosl(2 * pi * m / n), sn[m] = sinl(2 * pi * m / n);
        table_n = n;
    }
    for (int k = 0; k < n; k++) {
        long double sr = 0, si = 0;
        for (int j = 0; j < n; j++) {
            int m = (int)((long)j * k % n);
            long double c = cs[m], s = sign * sn[m];
            sr += x[2 * j] * c - x[2 * j + 1] * s;
            si += x[2 * j] * s + x[2 * j + 1] * c;
        }
        y[2 * k] = sr, y[2 * k + 1] = si;
    }
}

typedef struct {
    double rms, max; /* worst ratios to eps log2 n */
} worst;

/* One type's run: every size and sign. */
typedef struct {
    const char *name;
    tine_type_t t;
    double eps;
    worst w;
    tine_dft_counts counts[MAXN + 1]; /* sign -1's, to compare with +1's and other types' */
} type_run;

static uint64_t bits_of(tine_type_t t, long double v) { return tine_float_to_bits(t, (double)v); }
static long double value_of(tine_type_t t, uint64_t b) {
    if (t.bits == 32) {
        float f;
        uint32_t u = (uint32_t)b;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Checks the outputs for lane l of the inputs x (2n values, representable at the type). */
static void check_vector(type_run *r, int n, int sign, const char *what, const long double *x, const long double *y) {
    long double exact[2 * MAXN], e2 = 0, x2 = 0, d2 = 0, dmax = 0;
    reference(n, sign, x, exact);
    for (int i = 0; i < 2 * n; i++) {
        long double d = fabsl(y[i] - exact[i]);
        e2 += exact[i] * exact[i], x2 += x[i] * x[i], d2 += d * d;
        if (d > dmax) dmax = d;
    }
    double lg = fmax(1.0, log2((double)n)), scale = r->eps * lg;
    double rms = e2 > 0 ? (double)sqrtl(d2 / e2) / scale : 0, mx = x2 > 0 ? (double)(dmax / sqrtl(x2)) / scale : 0;
    if (rms > r->w.rms) r->w.rms = rms;
    if (mx > r->w.max) r->w.max = mx;
    check(rms <= C_RMS && mx <= C_MAX, "%s n=%d sign %d, %s: rms error %.3g and max error %.3g (x eps log2 n), bounds %g, %g",
          r->name, n, sign, what, rms, mx, C_RMS, C_MAX);
}

/* The nodes between the inputs and the outputs, walked here independently of the
 * generator's count: only adds, subs, muls, negations and constants of type t (no FMA:
 * fusing is a later pass's), counted each once. */
static bool walk_ops(tine_expr_t *const *in, int nin, tine_expr_t *const *out, int nout, tine_type_t t,
                     tine_dft_counts *c) {
    enum { CAP = 1 << 16 };
    static const tine_expr_t *seen[CAP];
    memset(seen, 0, sizeof seen);
    static tine_expr_t *stack[CAP];
    int sp = 0, nseen = 0;
    bool ok = true;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < nout; i++) stack[sp++] = out[i];
    while (sp) {
        tine_expr_t *x = stack[--sp];
        bool leaf = false;
        for (int i = 0; i < nin; i++) leaf |= x == in[i];
        if (leaf) continue;
        size_t h = (size_t)(((uint64_t)(uintptr_t)x * 0x9E3779B97F4A7C15ull) >> 40) & (CAP - 1);
        while (seen[h] && seen[h] != x) h = (h + 1) & (CAP - 1);
        if (seen[h]) continue;
        seen[h] = x;
        if (++nseen > CAP / 2) return false;
        ok &= tine_type_eq(tine_expr_type(x), t);
        switch (tine_expr_op(x)) {
        case TINE_OP_ADD: case TINE_OP_SUB: c->adds++; break;
        case TINE_OP_MUL: c->muls++; break;
        case TINE_OP_NEG: c->negs++; break;
        case TINE_OP_CONST: c->consts++; break;
        default: ok = false; break;
        }
        for (int i = 0; i < tine_expr_nops(x); i++) {
            if (sp == CAP) return false;
            stack[sp++] = tine_expr_operand(x, i);
        }
    }
    return ok;
}

/* Generates the DFT of size n and checks it on random vectors and impulses. */
static void check_size(tine_ctx_t *ctx, type_run *r, int n, int sign, tine_expr_t *const *in) {
    tine_expr_t *out[2 * MAXN];
    tine_dft_counts c;
    if (!tine_dft_gen(ctx, n, sign, r->t, in, out, &c)) {
        fail("%s n=%d sign %d: tine_dft_gen failed: %s", r->name, n, sign, tine_error(ctx));
        return;
    }
    if (sign < 0)
        r->counts[n] = c;
    else
        check(!memcmp(&c, &r->counts[n], sizeof c), "%s n=%d: sign +1 has other counts than -1", r->name, n);
    check(c.negs == 0, "%s n=%d sign %d: %d negations", r->name, n, sign, c.negs);
    tine_dft_counts w = {0, 0, 0, 0};
    check(walk_ops(in, 2 * n, out, 2 * n, r->t, &w) && !memcmp(&w, &c, sizeof w),
          "%s n=%d sign %d: the DAG holds other ops than add, sub, mul, neg and constants of the type, or other "
          "counts (%d %d %d %d) than the generator's (%d %d %d %d)",
          r->name, n, sign, w.adds, w.muls, w.negs, w.consts, c.adds, c.muls, c.negs, c.consts);
    int lanes = r->t.lanes, nout = 2 * n, per = TINE_MAX_LANES / lanes; /* outputs per evaluation */
    tine_expr_t *groups[2 * MAXN];
    int ng = 0;
    for (int i = 0; i < nout; i += per) {
        int k = nout - i < per ? nout - i : per;
        groups[ng++] = k == 1 ? out[i] : tine_concat(ctx, k, out + i);
    }
    /* the vectors: 3 batches of random ones, then the impulses, `lanes` per evaluation */
    int nrandom = 3 * lanes, nvec = nrandom + nout;
    for (int v0 = 0; v0 < nvec; v0 += lanes) {
        static long double x[TINE_MAX_LANES][2 * MAXN], y[TINE_MAX_LANES][2 * MAXN];
        int nl = nvec - v0 < lanes ? nvec - v0 : lanes;
        for (int l = 0; l < lanes; l++)
            for (int i = 0; i < nout; i++) {
                int v = v0 + (l < nl ? l : 0);
                x[l][i] = v < nrandom ? value_of(r->t, bits_of(r->t, uniform())) : (i == v - nrandom);
            }
        tine_env_t *env = tine_env_new(ctx);
        for (int i = 0; i < nout; i++) {
            uint64_t b[TINE_MAX_LANES];
            for (int l = 0; l < lanes; l++) b[l] = bits_of(r->t, x[l][i]);
            tine_env_bind(env, in[i], b);
        }
        int o = 0;
        for (int g = 0; g < ng; g++) {
            uint64_t got[TINE_MAX_LANES];
            if (tine_eval(ctx, groups[g], env, got) != 0) {
                fail("%s n=%d: tine_eval failed: %s", r->name, n, tine_error(ctx));
                tine_env_free(env);
                return;
            }
            int k = tine_expr_type(groups[g]).lanes / lanes;
            for (int j = 0; j < k; j++, o++)
                for (int l = 0; l < lanes; l++) y[l][o] = value_of(r->t, got[j * lanes + l]);
        }
        tine_env_free(env);
        for (int l = 0; l < nl; l++) {
            char what[48];
            int v = v0 + l;
            if (v < nrandom)
                snprintf(what, sizeof what, "random vector %d", v);
            else
                snprintf(what, sizeof what, "impulse at %d", v - nrandom);
            check_vector(r, n, sign, what, x[l], y[l]);
        }
    }
}

static void run_type(type_run *r) {
    double t0 = now();
    for (int n = 2; n <= MAXN; n++) {
        double wr = r->w.rms, wm = r->w.max;
        r->w.rms = r->w.max = 0;
        tine_ctx_t *ctx = tine_ctx_new();
        tine_expr_t *in[2 * MAXN];
        for (int i = 0; i < 2 * n; i++) {
            char name[16];
            snprintf(name, sizeof name, "x%d", i);
            in[i] = tine_var(ctx, name, r->t);
        }
        check_size(ctx, r, n, -1, in);
        check_size(ctx, r, n, 1, in);
        tine_ctx_free(ctx);
        if (verbose)
            printf("  %s n=%2d: adds %4d muls %4d consts %3d; worst rms %.3f max %.3f (x eps log2 n)\n", r->name, n,
                   r->counts[n].adds, r->counts[n].muls, r->counts[n].consts, r->w.rms, r->w.max);
        r->w.rms = fmax(r->w.rms, wr), r->w.max = fmax(r->w.max, wm);
    }
    printf("%-6s sizes 2..%d, both signs: worst rms error %.3f, max error %.3f (x eps log2 n); %.2f s\n", r->name,
           MAXN, r->w.rms, r->w.max, now() - t0);
}

/* FFTW 3.3's scalar codelets n1_N.c (dft/scalar/codelets), the non-FMA variant: each
 * file's header line "This function contains A FP additions, M FP multiplications". The
 * same totals are the codelets' kdft_desc operation counts {add, mul, fma} as built into
 * libfftw3 (A = add + fma, M = mul + fma; n1_16.o: {136, 16, 8}: 144 and 24). */
static const struct {
    int n, adds, muls;
} fftw[] = {
    {2, 4, 0},      /* n1_2.c:  4 FP additions, 0 FP multiplications */
    {3, 12, 4},     /* n1_3.c:  12 FP additions, 4 FP multiplications */
    {4, 16, 0},     /* n1_4.c:  16 FP additions, 0 FP multiplications */
    {5, 32, 12},    /* n1_5.c:  32 FP additions, 12 FP multiplications */
    {6, 36, 8},     /* n1_6.c:  36 FP additions, 8 FP multiplications */
    {7, 60, 36},    /* n1_7.c:  60 FP additions, 36 FP multiplications */
    {8, 52, 4},     /* n1_8.c:  52 FP additions, 4 FP multiplications */
    {9, 80, 40},    /* n1_9.c:  80 FP additions, 40 FP multiplications */
    {10, 84, 24},   /* n1_10.c: 84 FP additions, 24 FP multiplications */
    {11, 140, 100}, /* n1_11.c: 140 FP additions, 100 FP multiplications */
    {12, 96, 16},   /* n1_12.c: 96 FP additions, 16 FP multiplications */
    {13, 176, 68},  /* n1_13.c: 176 FP additions, 68 FP multiplications */
    {14, 148, 72},  /* n1_14.c: 148 FP additions, 72 FP multiplications */
    {15, 156, 56},  /* n1_15.c: 156 FP additions, 56 FP multiplications */
    {16, 144, 24},  /* n1_16.c: 144 FP additions, 24 FP multiplications */
    {20, 208, 48},  /* n1_20.c: 208 FP additions, 48 FP multiplications */
    {25, 352, 184}, /* n1_25.c: 352 FP additions, 184 FP multiplications */
    {32, 372, 84},  /* n1_32.c: 372 FP additions, 84 FP multiplications */
    {64, 912, 248}, /* n1_64.c: 912 FP additions, 248 FP multiplications */
};

static void check_fftw_counts(const type_run *r) {
    printf("   n   adds (FFTW)   muls (FFTW)\n");
    for (size_t i = 0; i < sizeof fftw / sizeof fftw[0]; i++) {
        const tine_dft_counts *c = &r->counts[fftw[i].n];
        printf("  %2d  %4d (%4d)   %4d (%4d)\n", fftw[i].n, c->adds, fftw[i].adds, c->muls, fftw[i].muls);
        check(c->adds == fftw[i].adds && c->muls == fftw[i].muls, "n=%d: %d adds, %d muls; FFTW's n1_%d: %d, %d",
              fftw[i].n, c->adds, c->muls, fftw[i].n, fftw[i].adds, fftw[i].muls);
    }
}

/* Inputs that are any nodes, not variables (here v_i * 2 + 1): the outputs are the DFT of
 * their values, and the counts stop at them. */
static void check_node_inputs(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_type_t t = tine_type(TINE_FLOAT, 64, 1);
    enum { N = 12 };
    tine_expr_t *v[2 * N], *in[2 * N], *out[2 * N];
    tine_expr_t *two = tine_const_float(ctx, t, 2), *one = tine_const_float(ctx, t, 1);
    for (int i = 0; i < 2 * N; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        v[i] = tine_var(ctx, name, t);
        in[i] = tine_binary(ctx, TINE_OP_ADD, tine_binary(ctx, TINE_OP_MUL, v[i], two), one);
    }
    tine_dft_counts c;
    bool ok = tine_dft_gen(ctx, N, -1, t, in, out, &c);
    check(ok, "inputs that are expressions: %s", ok ? "" : tine_error(ctx));
    if (ok) {
        long double x[2 * N], y[2 * N];
        tine_env_t *env = tine_env_new(ctx);
        for (int i = 0; i < 2 * N; i++) {
            double val = uniform();
            uint64_t b = tine_float_to_bits(t, val);
            tine_env_bind(env, v[i], &b);
            x[i] = 2.0L * val + 1;
        }
        reference(N, -1, x, y);
        double err = 0;
        for (int i = 0; i < 2 * N; i++) {
            uint64_t b;
            if (tine_eval(ctx, out[i], env, &b) != 0) {
                err = INFINITY;
                break;
            }
            err = fmax(err, (double)fabsl(value_of(t, b) - y[i]));
        }
        tine_env_free(env);
        check(err < 1e-13, "inputs that are expressions: error %g", err);
        check(c.adds == 96 && c.muls == 16, "inputs that are expressions: the counts stop at the inputs (%d, %d)", c.adds,
              c.muls);
    }
    tine_ctx_free(ctx);
}

/* What the generator refuses, each with a message. */
static void check_refusals(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_type_t f64 = tine_type(TINE_FLOAT, 64, 1), f32 = tine_type(TINE_FLOAT, 32, 1);
    tine_expr_t *in[2 * MAXN + 2], *out[2 * MAXN + 2];
    for (int i = 0; i < 2 * MAXN + 2; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        in[i] = tine_var(ctx, name, f64);
    }
    check(!tine_dft_size_ok(1) && !tine_dft_size_ok(65) && !tine_dft_size_ok(0) && tine_dft_size_ok(2) &&
              tine_dft_size_ok(64),
          "tine_dft_size_ok: 2..64");
    struct {
        const char *what;
        int n, sign;
        tine_type_t t;
    } bad[] = {
        {"n = 1", 1, -1, f64},
        {"n = 65", 65, -1, f64},
        {"n = -4", -4, -1, f64},
        {"sign 0", 8, 0, f64},
        {"sign 2", 8, 2, f64},
        {"type i32", 8, -1, tine_type(TINE_INT, 32, 1)},
        {"inputs of another type", 8, -1, f32},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tine_clear_error(ctx);
        bool ok = tine_dft_gen(ctx, bad[i].n, bad[i].sign, bad[i].t, in, out, NULL);
        check(!ok && tine_error(ctx) && tine_error_kind(ctx) == TINE_ERROR_INPUT, "%s: %s", bad[i].what,
              ok ? "accepted" : "refused without an input error");
    }
    tine_expr_t *keep = in[3];
    in[3] = NULL;
    check(!tine_dft_gen(ctx, 4, 1, f64, in, out, NULL) && tine_error(ctx), "a NULL input is refused");
    in[3] = keep;
    check(tine_dft_gen(ctx, 4, 1, f64, in, out, NULL), "counts may be NULL: %s", tine_error(ctx));
    tine_ctx_free(ctx);
}

int main(int argc, char **argv) {
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    type_run runs[] = {
        {"f64", tine_type(TINE_FLOAT, 64, 1), DBL_EPSILON, {0, 0}, {{0}}},
        {"f32", tine_type(TINE_FLOAT, 32, 1), FLT_EPSILON, {0, 0}, {{0}}},
        {"f32x8", tine_type(TINE_FLOAT, 32, 8), FLT_EPSILON, {0, 0}, {{0}}},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) run_type(&runs[i]);
    for (int n = 2; n <= MAXN; n++)
        for (size_t i = 1; i < sizeof runs / sizeof runs[0]; i++)
            check(!memcmp(&runs[i].counts[n], &runs[0].counts[n], sizeof runs[0].counts[n]),
                  "n=%d: %s has other counts than f64", n, runs[i].name);
    check_fftw_counts(&runs[0]);
    check_node_inputs();
    check_refusals();
    printf("test_dft_gen: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
