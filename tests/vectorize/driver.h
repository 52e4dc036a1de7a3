/* driver.h — the runtime of the test drivers tests/vectorize/kernels.py generates, one
 * per kernel of bench/vectorize: the kernel's parameters (vzd_kernel), its
 * implementations (vzd_impl: tine's, the C references, the peers), inputs of every kind,
 * comparisons, and the interleaved timing of `tine bench --vectorize`.
 *
 * A generated driver defines its tables and calls vzd_main (at the end of this file):
 *
 *   driver --check-exact REF TEST [--kinds K,K,...] [--trials N] [--seed S]
 *       check.sh: TEST against REF (the C at -O0 -ffp-contract=off) on every input kind,
 *       bit for bit (any NaN equals any NaN), with the buffers aligned and misaligned,
 *       guard words around every buffer, inputs that must not change. Prints every
 *       difference (up to 20) as "MISMATCH kernel=... kind=... trial=... output=..."
 *       and exits 1 when there is one.
 *   driver --check-bench REF [--exact TAG,...] [--trials N]
 *       bench.sh: every other implementation against REF on random inputs: a line
 *       "check TAG STATUS MAXDIFF RESIDUAL ORTHO DIFFER ABSDIFF RELDIFF" per
 *       implementation; STATUS is exact, close (within 1e-3 of the largest output:
 *       rounding), or FAIL (a TAG listed in --exact must be exact). MAXDIFF is the
 *       largest |TEST - REF| over the largest |REF| of the same output array (what the
 *       1e-3 bounds), ABSDIFF the largest |TEST - REF|, RELDIFF the largest
 *       |TEST - REF| / |REF| over the elements where REF is not 0, DIFFER how many
 *       values differ at all. For QR, RESIDUAL = max|A - QR| / max|A| and ORTHO =
 *       max|Q^T Q - I| (the Eigen peer's Q and R are only checked this way: its signs
 *       differ, and its differences are printed as nan); elsewhere they are 0.
 *   driver --bench ROUNDS MS BATCHES SEED TAG...
 *       times the TAGs: ROUNDS rounds, each visiting every TAG once in a fresh shuffled
 *       order (seeded); a visit runs the function untimed, then BATCHES batches of N
 *       calls (N calibrated once so that a batch takes MS milliseconds), back to back on
 *       the same inputs, and prints "time ROUND TAG NS" with the median ns per call of
 *       its batches. Paired by round, the ratios of two TAGs compare runs a few
 *       milliseconds apart.
 *   driver --once TAG
 *       one call of TAG on random inputs (bench_arm.sh traces it under qemu).
 */
#ifndef TINE_VECTORIZE_DRIVER_H
#define TINE_VECTORIZE_DRIVER_H
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    int n;          /* elements */
    int output;     /* written by the kernel (not const) */
    int cols;       /* for messages: row length of a 2-D array, 0 for 1-D */
} vzd_param;

typedef struct {
    const char *tag;                       /* ref, tine, reassoc, naive, nofma, noalias, eigen */
    void (*call)(void *const *p);          /* one call on the buffers p[0 .. nparams-1] */
    void (*loop)(void *const *p, long n);  /* n calls back to back */
} vzd_impl;

typedef struct {
    const char *name;
    const char *family; /* conv2d, matmul, qprod, qr */
    int nparams;
    const vzd_param *params;
    int nimpls;
    const vzd_impl *impls;
} vzd_kernel;

#define VZD_MAXP 8
#define VZD_GUARD 16 /* floats of guard before and after every buffer */

/* ---- random numbers and input kinds ------------------------------------------------- */

static uint64_t vzd_rng;
static uint64_t vzd_next(void) {
    vzd_rng ^= vzd_rng >> 12;
    vzd_rng ^= vzd_rng << 25;
    vzd_rng ^= vzd_rng >> 27;
    return vzd_rng * 2685821657736338717ull;
}
static void vzd_seed(uint64_t s) {
    vzd_rng = s * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    if (!vzd_rng) vzd_rng = 1;
    for (int i = 0; i < 4; i++) vzd_next();
}
static float vzd_uniform(float lo, float hi) { return lo + (hi - lo) * (float)((vzd_next() >> 40) * 0x1p-24); }
static float vzd_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t vzd_u32(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float vzd_sign(float x) { return (vzd_next() >> 63) ? -x : x; }
static float vzd_subnormal(void) { return vzd_sign(vzd_bits((uint32_t)(1 + vzd_next() % 0x7fffff))); }
static float vzd_nan(void) { return vzd_bits(0x7fc00000u | (uint32_t)(vzd_next() % 0x400000) | (uint32_t)((vzd_next() >> 63) << 31)); }

/* The input kinds: what every input element is drawn from. */
#define VZD_KINDS(X)                                                                            \
    X(random, "uniform in [-1, 1]")                                                             \
    X(zeros, "+0 everywhere")                                                                   \
    X(negzero, "-0 in the first input, +0 in the others: products are -0 (0.0f + -0 is +0)")   \
    X(signed_zeros, "+0 or -0")                                                                 \
    X(negative, "uniform in [-4, -0.5]")                                                        \
    X(wide, "sign * 2^e, e uniform in [-60, 60] (cancellation, rounding)")                      \
    X(subnormal, "subnormals, half of them among normals in [-1, 1]")                           \
    X(tiny, "tiny normals (their products underflow) and subnormals")                           \
    X(huge, "+-[1e18, 3.4e38] (products and sums overflow)")                                    \
    X(inf, "uniform in [-1, 1], a quarter of them +-inf")                                       \
    X(nan, "uniform in [-1, 1], a quarter of them NaN")                                         \
    X(specials, "each of +-0, +-1, +-subnormal, +-FLT_MIN, +-FLT_MAX, +-inf, NaN, uniform")
enum {
#define X(k, d) VZD_K_##k,
    VZD_KINDS(X)
#undef X
    VZD_NKINDS
};
static const char *const vzd_kind_names[] = {
#define X(k, d) #k,
    VZD_KINDS(X)
#undef X
};

/* An element of input number `input` (0: the kernel's first). */
static float vzd_draw(int kind, int input) {
    switch (kind) {
    case VZD_K_zeros: return 0.0f;
    case VZD_K_negzero: return input == 0 ? -0.0f : 0.0f;
    case VZD_K_signed_zeros: return vzd_sign(0.0f);
    case VZD_K_negative: return vzd_uniform(-4.0f, -0.5f);
    case VZD_K_wide: return vzd_sign(ldexpf(vzd_uniform(1.0f, 2.0f), (int)(vzd_next() % 121) - 60));
    case VZD_K_subnormal: return vzd_next() & 1 ? vzd_subnormal() : vzd_uniform(-1.0f, 1.0f);
    case VZD_K_tiny: return vzd_next() & 1 ? vzd_subnormal() : vzd_sign(ldexpf(vzd_uniform(1.0f, 2.0f), -126 + (int)(vzd_next() % 20)));
    case VZD_K_huge: return vzd_sign(expf(vzd_uniform(41.4465f, 88.7228f)));
    case VZD_K_inf: return vzd_next() % 4 == 0 ? vzd_sign(INFINITY) : vzd_uniform(-1.0f, 1.0f);
    case VZD_K_nan: return vzd_next() % 4 == 0 ? vzd_nan() : vzd_uniform(-1.0f, 1.0f);
    case VZD_K_specials:
        switch (vzd_next() % 9) {
        case 0: return vzd_sign(0.0f);
        case 1: return vzd_sign(1.0f);
        case 2: return vzd_subnormal();
        case 3: return vzd_sign(1.17549435e-38f);
        case 4: return vzd_sign(3.40282347e+38f);
        case 5: return vzd_sign(INFINITY);
        case 6: return vzd_nan();
        default: return vzd_uniform(-1.0f, 1.0f);
        }
    default: return vzd_uniform(-1.0f, 1.0f);
    }
}

/* ---- buffers -------------------------------------------------------------------------- */

/* One set of buffers for a kernel: every parameter's elements at p[i], VZD_GUARD floats
 * of a known pattern on either side, the start 64-byte aligned plus `misalign` floats. */
typedef struct {
    float *base[VZD_MAXP];
    void *p[VZD_MAXP];
    int misalign;
} vzd_bufs;

static const uint32_t VZD_CANARY = 0x7fa1b2c3u;   /* a NaN no kernel computes */
static const uint32_t VZD_UNWRITTEN = 0x4640e400u; /* 12345.0f: outputs before the call */

static void vzd_alloc(const vzd_kernel *k, vzd_bufs *b, int misalign) {
    b->misalign = misalign;
    for (int i = 0; i < k->nparams; i++) {
        size_t n = (size_t)k->params[i].n + 2 * VZD_GUARD + 16;
        size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
        b->base[i] = aligned_alloc(64, bytes);
        if (!b->base[i]) {
            perror("driver: aligned_alloc");
            exit(2);
        }
        for (size_t j = 0; j < n; j++) b->base[i][j] = vzd_bits(VZD_CANARY);
        b->p[i] = b->base[i] + VZD_GUARD + misalign;
    }
}
static void vzd_free(const vzd_kernel *k, vzd_bufs *b) {
    for (int i = 0; i < k->nparams; i++) free(b->base[i]);
}
static float *vzd_at(const vzd_bufs *b, int i) { return (float *)b->p[i]; }

/* Inputs of `kind` (seeded), outputs VZD_UNWRITTEN, guards VZD_CANARY. */
static void vzd_fill(const vzd_kernel *k, vzd_bufs *b, int kind, uint64_t seed) {
    vzd_seed(seed);
    for (int i = 0, input = 0; i < k->nparams; i++) {
        float *x = vzd_at(b, i);
        for (int g = 1; g <= VZD_GUARD; g++) x[-g] = x[k->params[i].n - 1 + g] = vzd_bits(VZD_CANARY);
        for (int j = 0; j < k->params[i].n; j++)
            x[j] = k->params[i].output ? vzd_bits(VZD_UNWRITTEN) : vzd_draw(kind, input);
        input += !k->params[i].output;
    }
}
static void vzd_copy(const vzd_kernel *k, vzd_bufs *to, const vzd_bufs *from) {
    for (int i = 0; i < k->nparams; i++)
        memcpy(vzd_at(to, i) - VZD_GUARD, vzd_at(from, i) - VZD_GUARD, ((size_t)k->params[i].n + 2 * VZD_GUARD) * sizeof(float));
}

static int vzd_same(float a, float b) { return (isnan(a) && isnan(b)) || vzd_u32(a) == vzd_u32(b); }

static const char *vzd_where(const vzd_param *p, int j, char *buf, size_t n) {
    if (p->cols) snprintf(buf, n, "%s[%d][%d]", p->name, j / p->cols, j % p->cols);
    else snprintf(buf, n, "%s[%d]", p->name, j);
    return buf;
}

/* ---- check.sh: bit-exact against the reference ---------------------------------------- */

static int vzd_reported;
static void vzd_mismatch(const vzd_kernel *k, const char *test, int kind, int trial, int misalign, const char *what,
                         float got, float want) {
    if (vzd_reported++ >= 20) return;
    printf("MISMATCH kernel=%s impl=%s kind=%s trial=%d%s %s: %s=%.9g (0x%08x) C=%.9g (0x%08x)\n", k->name, test,
           vzd_kind_names[kind], trial, misalign ? " misaligned" : "", what, test, (double)got, vzd_u32(got), (double)want,
           vzd_u32(want));
}

static int vzd_check_exact(const vzd_kernel *k, const vzd_impl *ref, const vzd_impl *test, const int *kinds, int nkinds,
                           int trials, uint64_t seed) {
    long compared = 0, bad = 0;
    for (int ki = 0; ki < nkinds; ki++) {
        int kind = kinds[ki];
        int nt = kind == VZD_K_zeros || kind == VZD_K_negzero ? 2 : trials;
        for (int t = 0; t < nt; t++) {
            vzd_bufs want, got, orig;
            int mis = t & 1;
            vzd_alloc(k, &want, mis);
            vzd_alloc(k, &got, mis);
            vzd_alloc(k, &orig, mis);
            vzd_fill(k, &orig, kind, seed ^ ((uint64_t)kind << 32) ^ (uint64_t)t * 0x100000001b3ull);
            vzd_copy(k, &want, &orig);
            vzd_copy(k, &got, &orig);
            ref->call(want.p);
            test->call(got.p);
            for (int i = 0; i < k->nparams; i++) {
                const vzd_param *p = &k->params[i];
                float *w = vzd_at(&want, i), *g = vzd_at(&got, i), *o = vzd_at(&orig, i);
                char where[96];
                for (int j = 0; j < p->n; j++) {
                    compared++;
                    if (p->output ? !vzd_same(g[j], w[j]) : vzd_u32(g[j]) != vzd_u32(o[j])) {
                        bad++;
                        vzd_mismatch(k, test->tag, kind, t, mis,
                                     p->output ? vzd_where(p, j, where, sizeof where)
                                               : (snprintf(where, sizeof where, "input %s[%d] changed", p->name, j), where),
                                     g[j], p->output ? w[j] : o[j]);
                    }
                }
                for (int gi = 1; gi <= VZD_GUARD; gi++) {
                    if (vzd_u32(g[-gi]) != VZD_CANARY) {
                        bad++;
                        snprintf(where, sizeof where, "write before %s (%s[-%d])", p->name, p->name, gi);
                        vzd_mismatch(k, test->tag, kind, t, mis, where, g[-gi], vzd_bits(VZD_CANARY));
                    }
                    if (vzd_u32(g[p->n - 1 + gi]) != VZD_CANARY) {
                        bad++;
                        snprintf(where, sizeof where, "write past %s (%s[%d])", p->name, p->name, p->n - 1 + gi);
                        vzd_mismatch(k, test->tag, kind, t, mis, where, g[p->n - 1 + gi], vzd_bits(VZD_CANARY));
                    }
                }
            }
            vzd_free(k, &want);
            vzd_free(k, &got);
            vzd_free(k, &orig);
        }
    }
    if (bad) printf("FAIL %s %s: %ld of %ld values differ%s\n", k->name, test->tag, bad, compared, vzd_reported > 20 ? " (first 20 shown)" : "");
    else printf("ok %s %s: %ld values bit-exact over %d input kinds\n", k->name, test->tag, compared, nkinds);
    return bad ? 1 : 0;
}

/* ---- bench.sh: the peers against the reference ---------------------------------------- */

/* QR's residuals for the buffers (a, q, r) of n x n: max|A - QR| / max|A| and
 * max|Q^T Q - I|, in double. */
static void vzd_qr_residual(const vzd_kernel *k, const vzd_bufs *b, double *resid, double *ortho) {
    int n = k->params[0].cols;
    const float *a = vzd_at(b, 0), *q = vzd_at(b, 1), *r = vzd_at(b, 2);
    double amax = 0, e = 0, o = 0;
    for (int i = 0; i < n * n; i++) amax = fmax(amax, fabs(a[i]));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, t = 0;
            for (int l = 0; l < n; l++) s += (double)q[i * n + l] * r[l * n + j];
            for (int l = 0; l < n; l++) t += (double)q[l * n + i] * q[l * n + j];
            e = fmax(e, fabs(s - a[i * n + j]));
            o = fmax(o, fabs(t - (i == j)));
            if (isnan(s) || isnan(t)) e = o = INFINITY;
        }
    *resid = amax > 0 ? e / amax : e;
    *ortho = o;
}

static int vzd_in_list(const char *tag, const char *list) {
    size_t n = strlen(tag);
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t m = c ? (size_t)(c - p) : strlen(p);
        if (m == n && !strncmp(p, tag, n)) return 1;
        p = c ? c + 1 : NULL;
    }
    return 0;
}

static int vzd_check_bench(const vzd_kernel *k, const vzd_impl *ref, const char *exact, int trials, uint64_t seed) {
    int failed = 0, qr = !strcmp(k->family, "qr");
    for (int ii = 0; ii < k->nimpls; ii++) {
        const vzd_impl *im = &k->impls[ii];
        if (im == ref) continue;
        double maxdiff = 0, absdiff = 0, reldiff = 0, resid = 0, ortho = 0;
        long differ = 0;
        int guard = 0;
        for (int t = 0; t < trials; t++) {
            vzd_bufs want, got;
            vzd_alloc(k, &want, t & 1);
            vzd_alloc(k, &got, t & 1);
            vzd_fill(k, &want, VZD_K_random, seed + (uint64_t)t);
            vzd_copy(k, &got, &want);
            ref->call(want.p);
            im->call(got.p);
            for (int i = 0; i < k->nparams; i++) {
                const vzd_param *p = &k->params[i];
                const float *w = vzd_at(&want, i), *g = vzd_at(&got, i);
                double scale = 0;
                for (int j = 0; j < p->n; j++) scale = fmax(scale, fabs(w[j]));
                for (int j = 0; j < p->n; j++) {
                    if (!vzd_same(g[j], w[j])) differ++;
                    double d = fabs((double)g[j] - w[j]) / (scale > 0 ? scale : 1);
                    double a = fabs((double)g[j] - w[j]);
                    if (isnan(d) && !vzd_same(g[j], w[j])) d = a = INFINITY;
                    if (isnan(d)) d = a = 0; /* both NaN */
                    if (d > maxdiff) maxdiff = d;
                    if (a > absdiff) absdiff = a;
                    if (w[j] != 0 && a / fabs((double)w[j]) > reldiff) reldiff = a / fabs((double)w[j]);
                }
                for (int gi = 1; gi <= VZD_GUARD; gi++)
                    if (vzd_u32(g[-gi]) != VZD_CANARY || vzd_u32(g[p->n - 1 + gi]) != VZD_CANARY) guard = 1;
            }
            if (qr) {
                double e, o;
                vzd_qr_residual(k, &got, &e, &o);
                resid = fmax(resid, e);
                ortho = fmax(ortho, o);
            }
            vzd_free(k, &want);
            vzd_free(k, &got);
        }
        const char *status;
        int eigen_qr = qr && !strcmp(im->tag, "eigen"); /* signs differ: A = QR only */
        if (guard) status = "FAIL(writes-outside)";
        else if (qr && !(resid <= 1e-4 && ortho <= 1e-4)) status = "FAIL(A!=QR)";
        else if (!differ) status = "exact";
        else if (vzd_in_list(im->tag, exact)) status = "FAIL(not-exact)";
        else if (eigen_qr || maxdiff <= 1e-3) status = "close";
        else status = "FAIL(differs)";
        if (!strncmp(status, "FAIL", 4)) failed = 1;
        printf("check\t%s\t%s\t%.3g\t%.3g\t%.3g\t%ld\t%.3g\t%.3g\n", im->tag, status, eigen_qr ? NAN : maxdiff, resid, ortho,
               differ, eigen_qr ? NAN : absdiff, eigen_qr ? NAN : reldiff);
    }
    return failed;
}

/* ---- bench.sh: timing ----------------------------------------------------------------- */

static double vzd_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int vzd_cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int vzd_bench(const vzd_kernel *k, int rounds, double ms, int batches, uint64_t seed, const vzd_impl **sel, int nsel) {
    vzd_bufs b;
    vzd_alloc(k, &b, 0);
    vzd_fill(k, &b, VZD_K_random, seed);
    long calls[16];
    double samples[64];
    if (batches > 64) batches = 64;
    for (int s = 0; s < nsel; s++) { /* calls per batch: a batch takes ms milliseconds */
        long n = 1;
        sel[s]->loop(b.p, 16);
        for (;;) {
            double t0 = vzd_now();
            sel[s]->loop(b.p, n);
            double t = vzd_now() - t0;
            if (t >= ms * 1e-3 || n >= (1l << 40)) {
                calls[s] = t > 0 ? (long)((double)n * ms * 1e-3 / t) + 1 : n;
                break;
            }
            n = t < ms * 1e-4 ? n * 10 : n * 2;
        }
    }
    vzd_seed(seed ^ 0x5eedull);
    int order[16];
    for (int r = 0; r < rounds; r++) {
        for (int s = 0; s < nsel; s++) order[s] = s;
        for (int s = nsel - 1; s > 0; s--) {
            int j = (int)(vzd_next() % (uint64_t)(s + 1)), x = order[s];
            order[s] = order[j];
            order[j] = x;
        }
        for (int oi = 0; oi < nsel; oi++) {
            int s = order[oi];
            sel[s]->loop(b.p, calls[s] / 8 + 1);
            for (int bi = 0; bi < batches; bi++) {
                double t0 = vzd_now();
                sel[s]->loop(b.p, calls[s]);
                samples[bi] = (vzd_now() - t0) * 1e9 / (double)calls[s];
            }
            qsort(samples, (size_t)batches, sizeof *samples, vzd_cmpd);
            printf("time\t%d\t%s\t%.4f\n", r + 1, sel[s]->tag, batches % 2 ? samples[batches / 2]
                                                                       : 0.5 * (samples[batches / 2 - 1] + samples[batches / 2]));
        }
        fflush(stdout);
    }
    vzd_free(k, &b);
    return 0;
}

/* ---- main ----------------------------------------------------------------------------- */

static const vzd_impl *vzd_find(const vzd_kernel *k, const char *tag) {
    for (int i = 0; i < k->nimpls; i++)
        if (!strcmp(k->impls[i].tag, tag)) return &k->impls[i];
    fprintf(stderr, "driver %s: no implementation '%s'\n", k->name, tag);
    exit(2);
}

static int vzd_main(int argc, char **argv, const vzd_kernel *k) {
    uint64_t seed = 20240601;
    int trials = -1;
    const char *kinds_arg = NULL, *exact = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kinds") && i + 1 < argc) kinds_arg = argv[++i];
        else if (!strcmp(argv[i], "--exact") && i + 1 < argc) exact = argv[++i];
    }
    if (argc >= 4 && !strcmp(argv[1], "--check-exact")) {
        int kinds[VZD_NKINDS], nk = 0;
        for (int kd = 0; kd < VZD_NKINDS; kd++)
            if (!kinds_arg || vzd_in_list(vzd_kind_names[kd], kinds_arg)) kinds[nk++] = kd;
        if (!nk) {
            fprintf(stderr, "driver: no input kind in '%s'\n", kinds_arg);
            return 2;
        }
        return vzd_check_exact(k, vzd_find(k, argv[2]), vzd_find(k, argv[3]), kinds, nk, trials > 0 ? trials : 16, seed);
    }
    if (argc >= 3 && !strcmp(argv[1], "--check-bench"))
        return vzd_check_bench(k, vzd_find(k, argv[2]), exact, trials > 0 ? trials : 20, seed);
    if (argc >= 7 && !strcmp(argv[1], "--bench")) {
        const vzd_impl *sel[16];
        int nsel = 0;
        for (int i = 6; i < argc && nsel < 16; i++) sel[nsel++] = vzd_find(k, argv[i]);
        return vzd_bench(k, atoi(argv[2]), atof(argv[3]), atoi(argv[4]), strtoull(argv[5], NULL, 0), sel, nsel);
    }
    if (argc >= 3 && !strcmp(argv[1], "--once")) { /* bench_arm.sh: one call to trace under qemu */
        const vzd_impl *im = vzd_find(k, argv[2]);
        vzd_bufs b;
        vzd_alloc(k, &b, 0);
        vzd_fill(k, &b, VZD_K_random, seed);
        im->call(b.p);
        vzd_free(k, &b);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--kinds")) {
        for (int kd = 0; kd < VZD_NKINDS; kd++) printf("%s\n", vzd_kind_names[kd]);
        return 0;
    }
    fprintf(stderr,
            "usage: %s --check-exact REF TEST [--kinds K,...] [--trials N] [--seed S]\n"
            "       %s --check-bench REF [--exact TAG,...] [--trials N] [--seed S]\n"
            "       %s --bench ROUNDS MS BATCHES SEED TAG...\n",
            argv[0], argv[0], argv[0]);
    return 2;
}

#endif
