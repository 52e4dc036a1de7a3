/* driver.c — `tine bench --dft`'s driver (tests/dft/bench.sh, bench_arm.sh): one transform
 * size and type, tine's codelets beside FFTW 3.3 and KissFFT, first checked against a
 * long-double O(N^2) DFT, then timed in interleaved rounds.
 *
 * The bench script compiles it once per (N, type, target) with -include CODELETS.h, a
 * header it generates that defines:
 *
 *   DFT_N            the transform size
 *   DFT_F64          1: double, 0: float
 *   DFT_INVERSE      1: the codelets compute the backward transform (sign +1), 0: forward (-1)
 *   DFT_CODELETS(X)  X(id, "label", symbol) for each codelet linked in, tine's full
 *                    pipeline first (the ratios are to it): the ablations (--no-peephole,
 *                    --no-schedule, both) and, on aarch64, FFTW's Neon codelet behind the
 *                    same signature (tests/dft/fftw_neon.c)
 *
 * and may include tine's own `--emit h` header first, so a prototype of tine's that differs
 * from the one below fails the build. Every codelet is
 *
 *   void NAME(const T *in, T *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
 *             ptrdiff_t ostride, ptrdiff_t odist);
 *
 * T float or double, interleaved complex elements (re, im), strides and distances counted
 * in complex elements: fftw[f]_plan_many_dft's layout; unnormalized; forward sign -1.
 *
 * DFT_PEERS (default 1) links FFTW (fftw[f]_plan_many_dft, FFTW_MEASURE, planned once on
 * the timed buffers before they are filled) and, for float, KissFFT (kiss_fft per
 * transform over the batch, as a KissFFT user batches); bench_arm.sh builds with
 * DFT_PEERS=0 for qemu-aarch64 (its peer is FFTW's Neon codelet, in the table).
 *
 *   driver [--check] [--batch B] [--rounds R] [--visits K] [--ms MS] [--seed S] [--target T] [--quiet]
 *       Checks every implementation on random inputs in [-1, 1): each codelet on the
 *       contiguous layout (istride 1, idist N) with 1, 3, 7 and B transforms, a strided
 *       one (istride 2, idist 2N+1, ostride 3, odist 3N+2; 5 transforms), an interleaved
 *       one (istride 4, idist 1: 4 transforms) and 0 transforms; FFTW and KissFFT on the
 *       B contiguous transforms they are timed on. The input must be left unchanged, and
 *       every output element no transform owns (gaps, guards around the buffer) must keep
 *       its sentinel. The error is the relative RMS over the layout, sqrt(sum |y - ref|^2 /
 *       sum |ref|^2); above 1e-4 (float) or 1e-12 (double) the implementation is wrong. A
 *       line per check; any failure: a message on stderr and exit 1, nothing timed.
 *       Then (without --check) the timing: R rounds (21), each visiting every implementation
 *       once, in an order rotated by one per round; a visit is K timings (3) back to back,
 *       its value their median; a timing is REPS back-to-back batches of B transforms
 *       (1000) on the same buffers, REPS calibrated per implementation so that one timing
 *       lasts at least MS milliseconds (1). Per implementation: the median
 *       ns per transform over the rounds, the quartiles, min and max; per peer and
 *       ablation its time over tine's in the same round, the median over rounds (FFTW/tine
 *       above 1: tine faster; an ablation over tine above 1: the pass it lacks helps).
 *       Prints a table (unless --quiet) and one line "RESULT<TAB>key=value<TAB>..." with
 *       everything the bench script collects.
 *   driver --once ID [--howmany H]
 *       One call of codelet ID on H (64) contiguous transforms of random input, nothing
 *       printed: bench_arm.sh traces it under qemu-aarch64.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef DFT_N
#error "driver.c: compile with -include CODELETS.h (DFT_N, DFT_F64, DFT_INVERSE, DFT_CODELETS)"
#endif
#ifndef DFT_PEERS
#define DFT_PEERS 1
#endif

#if DFT_F64
typedef double real;
#define TYPE_NAME "f64"
#define TOLERANCE 1e-12
#else
typedef float real;
#define TYPE_NAME "f32"
#define TOLERANCE 1e-4
#endif
#define SIGN (DFT_INVERSE ? 1 : -1)

#if DFT_PEERS
#include <fftw3.h>
#if DFT_F64
#define FFTW(x) fftw_##x
typedef fftw_complex fftw_cpx;
#else
#define FFTW(x) fftwf_##x
typedef fftwf_complex fftw_cpx;
#include <kissfft/kiss_fft.h>
#define HAVE_KISS 1
#endif
#endif
#ifndef HAVE_KISS
#define HAVE_KISS 0
#endif

typedef void codelet_fn(const real *in, real *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
                        ptrdiff_t ostride, ptrdiff_t odist);
/* Each codelet's prototype: one that differs from tine's own header (included by
 * CODELETS.h) is a compile error. */
#define DECLARE(id, label, sym) codelet_fn sym;
DFT_CODELETS(DECLARE)
#undef DECLARE

enum { N = DFT_N, MAX_IMPLS = 16, MAX_ROUNDS = 1001, MAX_VISITS = 15 };

typedef struct impl impl;
struct impl {
    const char *id, *label;
    codelet_fn *fn;             /* a codelet; NULL for a peer */
    void (*batch)(impl *);      /* one batch of B transforms on the shared buffers */
    long reps;                  /* batches per timing */
    double ns[MAX_ROUNDS];      /* ns per transform, per round */
    double err;                 /* relative RMS on the B contiguous transforms */
};

static struct {
    long batch, rounds, visits, howmany_once;
    double ms;
    uint64_t seed;
    const char *target, *once;
    int check_only, quiet;
    real *in, *out; /* the shared buffers: B*N complex elements each, 64-byte aligned */
#if DFT_PEERS
    FFTW(plan) plan;
    double plan_s;
    char *plan_text;
#endif
#if HAVE_KISS
    kiss_fft_cfg kiss;
#endif
} g = {.batch = 1000, .rounds = 21, .visits = 3, .howmany_once = 64, .ms = 1.0, .seed = 20240601, .target = "host"};

static uint64_t rng_state;
static uint64_t splitmix(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* uniform in [-1, 1) */
static real random_real(void) { return (real)((double)(splitmix() >> 11) * 0x1p-52 - 1.0); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *alloc64(size_t bytes) {
    size_t n = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, n ? n : 64);
    if (!p) {
        fprintf(stderr, "driver: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* ---- the reference: a long-double O(N^2) DFT ------------------------------------------- */

static long double wr[N], wi[N]; /* exp(SIGN * 2 pi i k / N) */
static void twiddles(void) {
    const long double pi = 3.141592653589793238462643383279502884L;
    for (int k = 0; k < N; k++) {
        wr[k] = cosl(2 * pi * k / N);
        wi[k] = SIGN * sinl(2 * pi * k / N);
    }
}
/* y[k] = sum_j x[j] w^(jk) for one transform at x (istride is) into y (ostride os), in
 * long double. */
static void reference(const real *x, ptrdiff_t is, long double *y) {
    for (int k = 0; k < N; k++) {
        long double sr = 0, si = 0;
        for (int j = 0; j < N; j++) {
            int w = (int)((long)j * k % N);
            long double xr = x[2 * j * is], xi = x[2 * j * is + 1];
            sr += xr * wr[w] - xi * wi[w];
            si += xr * wi[w] + xi * wr[w];
        }
        y[2 * k] = sr, y[2 * k + 1] = si;
    }
}

/* ---- checks ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    long howmany; /* -1: the batch */
    ptrdiff_t is, id, os, od; /* 0: the contiguous defaults (1, N) */
} layout;
/* idist 2N+1 and odist 3N+2 are not multiples of the strides: a codelet that derives one
 * from the other, or steps by N, reads or writes the wrong elements. */
static const layout LAYOUTS[] = {
    {"contiguous", 1, 1, N, 1, N},
    {"contiguous", 3, 1, N, 1, N},
    {"contiguous", 7, 1, N, 1, N},
    {"contiguous", -1, 1, N, 1, N},
    {"strided", 5, 2, 2 * N + 1, 3, 3 * N + 2},
    {"interleaved", 4, 4, 1, 4, 1},
    {"empty", 0, 1, N, 1, N},
};
enum { GUARD = 16 }; /* complex elements before and after every buffer */

static int failures;
static void report(const char *id, const char *what, long howmany, double err, const char *problem) {
    int bad = problem || !(err <= TOLERANCE);
    printf("check\t%s\t%s\t%ld\t%.3g\t%s\n", id, what, howmany, err, bad ? "FAIL" : "ok");
    if (!bad) return;
    failures++;
    if (problem)
        fprintf(stderr, "driver: N=%d %s %s: %s (%s layout, %ld transforms)\n", N, TYPE_NAME, id, problem, what,
                howmany);
    else
        fprintf(stderr,
                "driver: N=%d %s %s: relative RMS error %.3g > %.0e (%s layout, %ld transforms): it does not compute "
                "the %s DFT\n",
                N, TYPE_NAME, id, err, TOLERANCE, what, howmany, DFT_INVERSE ? "backward" : "forward");
}

/* sqrt(sum |y - ref|^2 / sum |ref|^2) over howmany transforms of y (ostride os, odist od)
 * against the reference of x (istride is, idist id). */
static double rel_rms(const real *x, ptrdiff_t is, ptrdiff_t id, const real *y, ptrdiff_t os, ptrdiff_t od,
                      long howmany) {
    long double num = 0, den = 0, r[2 * N];
    for (long t = 0; t < howmany; t++) {
        reference(x + 2 * t * id, is, r);
        for (int k = 0; k < N; k++) {
            const real *v = y + 2 * (t * od + k * os);
            long double dr = v[0] - r[2 * k], di = v[1] - r[2 * k + 1];
            num += dr * dr + di * di;
            den += r[2 * k] * r[2 * k] + r[2 * k + 1] * r[2 * k + 1];
        }
    }
    if (howmany == 0) return 0;
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* The number of complex elements a layout spans. */
static long extent(long howmany, ptrdiff_t s, ptrdiff_t d) { return howmany ? (howmany - 1) * d + (N - 1) * s + 1 : 0; }

static void check_codelet(const impl *c, const layout *l) {
    long hm = l->howmany < 0 ? g.batch : l->howmany;
    long ni = extent(hm, l->is, l->id) + 2 * GUARD, no = extent(hm, l->os, l->od) + 2 * GUARD;
    real *in = alloc64(sizeof(real) * 2 * ni), *saved = alloc64(sizeof(real) * 2 * ni);
    real *out = alloc64(sizeof(real) * 2 * no);
    unsigned char *owned = alloc64((size_t)no);
    memset(owned, 0, (size_t)no);
    const real sentinel = (real)-7.25;
    for (long i = 0; i < 2 * ni; i++) in[i] = random_real();
    memcpy(saved, in, sizeof(real) * 2 * ni);
    for (long i = 0; i < 2 * no; i++) out[i] = sentinel;
    for (long t = 0; t < hm; t++)
        for (int k = 0; k < N; k++) owned[GUARD + t * l->od + k * l->os] = 1;
    c->fn(in + 2 * GUARD, out + 2 * GUARD, hm, l->is, l->id, l->os, l->od);
    char problem[160] = "";
    if (memcmp(in, saved, sizeof(real) * 2 * ni)) snprintf(problem, sizeof problem, "changed its input");
    for (long i = 0; i < no && !problem[0]; i++)
        if (!owned[i] && (out[2 * i] != sentinel || out[2 * i + 1] != sentinel))
            snprintf(problem, sizeof problem, "wrote complex element %ld of the output, which no transform owns%s",
                     i - GUARD, i < GUARD || i >= no - GUARD ? " (outside the buffer)" : "");
    double err = rel_rms(in + 2 * GUARD, l->is, l->id, out + 2 * GUARD, l->os, l->od, hm);
    char what[96];
    snprintf(what, sizeof what, "%s(is=%td,id=%td,os=%td,od=%td)", l->name, l->is, l->id, l->os, l->od);
    report(c->id, what, hm, err, problem[0] ? problem : NULL);
    free(in), free(saved), free(out), free(owned);
}

/* ---- the implementations ------------------------------------------------------------------ */

static void fill_shared(void) {
    for (long i = 0; i < 2 * g.batch * N; i++) g.in[i] = random_real();
}
static impl impls[MAX_IMPLS];
static int nimpls, ncodelets;

static void batch_codelet(impl *c) { c->fn(g.in, g.out, g.batch, 1, N, 1, N); }
#if DFT_PEERS
static void batch_fftw(impl *c) {
    (void)c;
    FFTW(execute)(g.plan);
}
#endif
#if HAVE_KISS
static void batch_kiss(impl *c) {
    (void)c;
    const kiss_fft_cpx *x = (const kiss_fft_cpx *)g.in;
    kiss_fft_cpx *y = (kiss_fft_cpx *)g.out;
    for (long b = 0; b < g.batch; b++) kiss_fft(g.kiss, x + b * N, y + b * N);
}
#endif

/* Checks a peer on the shared buffers (B contiguous transforms). */
static void check_shared(impl *p) {
    fill_shared();
    real *saved = alloc64(sizeof(real) * 2 * g.batch * N);
    memcpy(saved, g.in, sizeof(real) * 2 * g.batch * N);
    for (long i = 0; i < 2 * g.batch * N; i++) g.out[i] = (real)-7.25;
    p->batch(p);
    int changed = memcmp(saved, g.in, sizeof(real) * 2 * g.batch * N) != 0;
    p->err = rel_rms(g.in, 1, N, g.out, 1, N, g.batch);
    report(p->id, "contiguous(is=1,id=N,os=1,od=N)", g.batch, p->err, changed ? "changed its input" : NULL);
    free(saved);
}

static void setup(void) {
#define ADD_CODELET(cid, clabel, sym) impls[nimpls++] = (impl){.id = #cid, .label = clabel, .fn = sym, .batch = batch_codelet};
    DFT_CODELETS(ADD_CODELET)
#undef ADD_CODELET
    ncodelets = nimpls;
    g.in = alloc64(sizeof(real) * 2 * (size_t)g.batch * N);
    g.out = alloc64(sizeof(real) * 2 * (size_t)g.batch * N);
    memset(g.in, 0, sizeof(real) * 2 * (size_t)g.batch * N);
#if DFT_PEERS
    if (!g.once) {
        /* FFTW_MEASURE overwrites both buffers while it plans: they are filled afterwards. */
        int n = N;
        double t0 = now();
        g.plan = FFTW(plan_many_dft)(1, &n, (int)g.batch, (fftw_cpx *)g.in, NULL, 1, N, (fftw_cpx *)g.out, NULL, 1, N,
                                     DFT_INVERSE ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_MEASURE);
        g.plan_s = now() - t0;
        if (!g.plan) {
            fprintf(stderr, "driver: FFTW gave no plan for N=%d x %ld\n", N, g.batch);
            exit(2);
        }
        g.plan_text = FFTW(sprint_plan)(g.plan);
        for (char *s = g.plan_text; s && *s; s++)
            if (*s == '\n' || *s == '\t') *s = ' ';
        impls[nimpls++] = (impl){.id = "fftw", .label = "FFTW", .batch = batch_fftw};
#if HAVE_KISS
        g.kiss = kiss_fft_alloc(N, DFT_INVERSE, NULL, NULL);
        impls[nimpls++] = (impl){.id = "kiss", .label = "KissFFT", .batch = batch_kiss};
#endif
    }
#endif
}

/* ---- timing -------------------------------------------------------------------------------- */

static double time_reps(impl *p, long reps) {
    double t0 = now();
    for (long r = 0; r < reps; r++) p->batch(p);
    return now() - t0;
}

static void calibrate(impl *p) {
    p->batch(p); /* untimed: code and buffers warm */
    long reps = 1;
    for (;;) {
        double t = time_reps(p, reps);
        if (t * 1e3 >= g.ms) break;
        double want = g.ms * 1e-3 / (t > 1e-9 ? t : 1e-9) * 1.2;
        reps = want > 2.0 * reps ? (long)want : 2 * reps;
    }
    p->reps = reps;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
typedef struct {
    double median, q1, q3, min, max;
} stats;
static double quantile(const double *sorted, long n, double q) {
    double pos = q * (double)(n - 1);
    long i = (long)pos;
    double f = pos - (double)i;
    return i + 1 < n ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[n - 1];
}
static stats summarize(const double *v, long n) {
    double s[MAX_ROUNDS];
    memcpy(s, v, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    return (stats){quantile(s, n, 0.5), quantile(s, n, 0.25), quantile(s, n, 0.75), s[0], s[n - 1]};
}
/* the median over rounds of a's time over b's */
static double ratio(const impl *a, const impl *b) {
    double r[MAX_ROUNDS];
    for (long i = 0; i < g.rounds; i++) r[i] = a->ns[i] / b->ns[i];
    return summarize(r, g.rounds).median;
}

/* A visit: g.visits timings back to back, the median kept (a timing the scheduler cut into
 * on a busy machine does not decide the round). */
static void run_timing(void) {
    for (int i = 0; i < nimpls; i++) calibrate(&impls[i]);
    for (long r = 0; r < g.rounds; r++)
        for (int k = 0; k < nimpls; k++) {
            impl *p = &impls[(r + k) % nimpls];
            double t[MAX_VISITS];
            for (long v = 0; v < g.visits; v++) t[v] = time_reps(p, p->reps) * 1e9 / ((double)p->reps * (double)g.batch);
            p->ns[r] = summarize(t, g.visits).median;
        }
}

static void print_results(void) {
    const impl *tine = &impls[0];
    if (!g.quiet) {
        printf("\nN=%d %s %s, target %s: batches of %ld transforms, %ld rounds, a visit the median of %ld timings "
               ">= %g ms\n", N, TYPE_NAME, DFT_INVERSE ? "backward" : "forward", g.target, g.batch, g.rounds, g.visits,
               g.ms);
        printf("  %-22s %12s %21s %9s %9s  %s\n", "", "ns/transform", "quartiles", "min", "max",
               "median of per-round ratios");
        for (int i = 0; i < nimpls; i++) {
            const impl *p = &impls[i];
            stats s = summarize(p->ns, g.rounds);
            char q[48], rat[64] = "";
            snprintf(q, sizeof q, "%.2f..%.2f", s.q1, s.q3);
            if (i > 0 && i < ncodelets) snprintf(rat, sizeof rat, "%s / tine %.3f", p->id, ratio(p, tine));
            else if (i >= ncodelets) snprintf(rat, sizeof rat, "%s / tine %.3f (above 1: tine faster)", p->label, ratio(p, tine));
            printf("  %-22s %12.2f %21s %9.2f %9.2f  %s\n", p->label, s.median, q, s.min, s.max, rat);
        }
#if DFT_PEERS
        printf("  FFTW %s: plan %s, planned in %.3f s (FFTW_MEASURE, no wisdom)\n", FFTW(version), g.plan_text,
               g.plan_s);
#endif
    }
    printf("RESULT\tn=%d\ttype=%s\ttarget=%s\tdir=%s\tbatch=%ld\trounds=%ld\tvisits=%ld\tms=%g", N, TYPE_NAME,
           g.target, DFT_INVERSE ? "backward" : "forward", g.batch, g.rounds, g.visits, g.ms);
    for (int i = 0; i < nimpls; i++) {
        const impl *p = &impls[i];
        stats s = summarize(p->ns, g.rounds);
        printf("\t%s_ns=%.4g\t%s_q1=%.4g\t%s_q3=%.4g\t%s_min=%.4g\t%s_max=%.4g\t%s_err=%.3g\t%s_reps=%ld", p->id,
               s.median, p->id, s.q1, p->id, s.q3, p->id, s.min, p->id, s.max, p->id, p->err, p->id, p->reps);
        if (i > 0) printf("\t%s_over_tine=%.4g", p->id, ratio(p, tine));
    }
#if DFT_PEERS
    printf("\tfftw_version=%s\tfftw_plan_s=%.3f\tfftw_plan=%s", FFTW(version), g.plan_s, g.plan_text);
#endif
    printf("\n");
}

/* ---- main ------------------------------------------------------------------------------------ */

static int usage(void) {
    fprintf(stderr, "usage: driver [--check] [--batch B] [--rounds R] [--visits K] [--ms MS] [--seed S] [--target T] [--quiet]\n"
                    "       driver --once ID [--howmany H]\n");
    return 2;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--check")) g.check_only = 1;
        else if (!strcmp(a, "--quiet")) g.quiet = 1;
        else if (!v) return usage();
        else if (!strcmp(a, "--batch")) g.batch = atol(v), i++;
        else if (!strcmp(a, "--rounds")) g.rounds = atol(v), i++;
        else if (!strcmp(a, "--visits")) g.visits = atol(v), i++;
        else if (!strcmp(a, "--ms")) g.ms = atof(v), i++;
        else if (!strcmp(a, "--seed")) g.seed = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--target")) g.target = v, i++;
        else if (!strcmp(a, "--once")) g.once = v, i++;
        else if (!strcmp(a, "--howmany")) g.howmany_once = atol(v), i++;
        else return usage();
    }
    if (g.batch < 1 || g.rounds < 1 || g.rounds > MAX_ROUNDS - 1 || g.visits < 1 || g.visits > MAX_VISITS || !(g.ms > 0) || g.howmany_once < 0) return usage();
    rng_state = g.seed;
    twiddles();
    if (g.once) { /* one call, for a trace: the batch is howmany_once transforms */
        g.batch = g.howmany_once ? g.howmany_once : 1;
        setup();
        for (int i = 0; i < ncodelets; i++)
            if (!strcmp(impls[i].id, g.once)) {
                fill_shared();
                impls[i].fn(g.in, g.out, g.howmany_once, 1, N, 1, N);
                return 0;
            }
        fprintf(stderr, "driver: no codelet %s\n", g.once);
        return 2;
    }
    setup();
    printf("# N=%d %s %s, target %s, seed %llu, tolerance %.0e relative RMS\n", N, TYPE_NAME,
           DFT_INVERSE ? "backward" : "forward", g.target, (unsigned long long)g.seed, TOLERANCE);
    for (int i = 0; i < ncodelets; i++) {
        for (size_t l = 0; l < sizeof LAYOUTS / sizeof LAYOUTS[0]; l++) check_codelet(&impls[i], &LAYOUTS[l]);
        /* the error on the timed layout, for the RESULT line */
        fill_shared();
        impls[i].batch(&impls[i]);
        impls[i].err = rel_rms(g.in, 1, N, g.out, 1, N, g.batch);
    }
    for (int i = ncodelets; i < nimpls; i++) check_shared(&impls[i]);
    if (failures) {
        fprintf(stderr, "driver: %d check%s failed: nothing timed\n", failures, failures > 1 ? "s" : "");
        return 1;
    }
    if (g.check_only) return 0;
    fill_shared();
    run_timing();
    print_results();
#if DFT_PEERS
    FFTW(destroy_plan)(g.plan);
    free(g.plan_text);
#endif
#if HAVE_KISS
    kiss_fft_free(g.kiss);
#endif
    free(g.in), free(g.out);
    return 0;
}
