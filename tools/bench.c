/* bench.c — `tine bench`: the benchmark kernels, tine beside its peers in one run.
 *
 * For each kernel and each x86 target this machine runs, five implementations on the
 * same buffers (bench/ref/cases.h):
 *   - tine: the kernel compiled with tine's instruction selection;
 *   - tine auto: the same, with the file's schedule replaced by `schedule auto` (the
 *     automatic scheduler's choice: what a user who writes no schedule gets);
 *   - LLVM alone: the same loops with LLVM's own selection;
 *   - Halide 14: the kernel as a Halide generator (bench/peers/halide), built ahead of
 *     time for the matching Halide target, when the peer is built;
 *   - OpenCV, XNNPACK: the libraries an image or ML engineer reaches for, for the kernels
 *     they have (bench/peers/opencv, bench/peers/xnnpack), when they are installed; each
 *     picks its instructions at run time, so every row times the same code;
 *   - clang, gcc: the scalar C reference (bench/ref) built here at -O3 for the row's
 *     x86-64 level (-march=x86-64, -v2, -v3, -v4 + VNNI), so each row's C baseline has
 *     the instructions the row's tine code has, and no more.
 * Each implementation is first run on every fill pattern and compared byte for byte with
 * the reference; one that differs is reported and not timed. A library peer whose
 * definition differs from the kernel's (rounding, requantization in float, border rules:
 * peer.h) is compared over the elements both define, its largest difference reported,
 * and timed unless that difference exceeds what the peer states. Then the implementations
 * are timed interleaved, each round in a fresh shuffled order (seeded: runs repeat), so
 * that the shared machine's slow moments fall on all of them alike and no implementation
 * always runs right after the same one; a visit to a fast implementation (under 20 ms a
 * run) reruns it untimed first and then times several runs back to back. A kernel's time
 * depends on what ran before it (the scalar C references stream their inputs for hundreds
 * of milliseconds): a rotation kept every predecessor fixed, which made max_pool's
 * identical machine code 1.4x slower as "tine", run after gcc, than as "LLVM alone", run
 * after tine auto; a shuffle alone still left 1.55x between the two over its ten rounds.
 * The median and min–max of every timed run, single thread.
 *
 * The user kernels (bench/user: kernels outside the 20, written plainly, `schedule auto`)
 * run the same way without the tine column (their file's schedule is auto already) and
 * are reported in a table of their own (bench_report.c).
 *
 * Before the kernels, the bench measures this machine's copy and read bandwidth once;
 * each row's roof is the time its bytes (inputs read once, output written once) take at
 * the copy bandwidth (bench_report.c prints each implementation's fraction of it).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/harness.h"
#include "../bench/peers/peer.h"
#include "bench.h"
#include "cli.h"

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

typedef const bench_entry *(*entries_fn)(void);

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the C baselines ------------------------------------------------------------------ */

/* The C flags of each tine target's C baseline (the registry's, src/targets/targets.c).
 * runs: whether this machine runs code built with them. */
static const char *c_march(const char *target, bool *runs) {
    int r;
    const char *flags = tine_target_cflags(target, &r);
    *runs = r;
    return flags;
}

/* Builds bench/ref as a shared object with `compiler` and `march`: its entry table, or
 * NULL if the compiler is not installed or the build fails. compile_ms: the build's time. */
static entries_fn load_ref(const char *compiler, const char *march, double *compile_ms) {
    char so[256], cmd[2048];
    static int serial;
    snprintf(so, sizeof so, "/tmp/tine-bench-ref-%ld-%d.so", (long)getpid(), serial++);
    snprintf(cmd, sizeof cmd, "%s -O3 %s -fPIC -shared -o %s", compiler, march, so);
    static const char *const files[] = {"cases.c", "image.c", "camera.c", "ml.c", "ml_reduce.c", "user.c"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s/bench/ref/%s", TINE_SOURCE_DIR, files[i]);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " -lm 2>/dev/null");
    double t0 = cli_now();
    if (system(cmd) != 0) return NULL;
    *compile_ms = (cli_now() - t0) * 1e3;
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    remove(so);
    if (!h) return NULL;
    entries_fn f;
    void *sym = dlsym(h, "bench_entries");
    memcpy(&f, &sym, sizeof f);
    return sym ? f : NULL;
}

static const bench_entry *find_in(entries_fn f, const char *name) {
    if (!f) return NULL;
    for (const bench_entry *e = f(); e->name; e++)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

/* ---- the roof ------------------------------------------------------------------------- */

static void measure_roof(bench_roof *r, bool quick) {
    size_t n = (quick ? 64u : 256u) << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    r->copy_gbs = r->read_gbs = 0;
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    memset(a, 1, n);
    memset(b, 2, n);
    for (int rep = 0; rep < 5; rep++) {
        double t0 = cli_now();
        memcpy(b, a, n);
        double t = cli_now() - t0;
        if (2.0 * (double)n / t / 1e9 > r->copy_gbs) r->copy_gbs = 2.0 * (double)n / t / 1e9;
        /* four independent sums, so the read is limited by memory, not by one add chain */
        const uint64_t *w = (const uint64_t *)(const void *)b;
        uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        t0 = cli_now();
        for (size_t i = 0; i + 4 <= n / 8; i += 4) s0 += w[i], s1 += w[i + 1], s2 += w[i + 2], s3 += w[i + 3];
        t = cli_now() - t0;
        volatile uint64_t sink = s0 + s1 + s2 + s3;
        (void)sink;
        if ((double)n / t / 1e9 > r->read_gbs) r->read_gbs = (double)n / t / 1e9;
    }
    free(a);
    free(b);
}

static double buffer_bytes(const ref_buffer *b, int bits) {
    double n = bits / 8;
    for (int d = 0; d < b->dims; d++) n *= (double)b->extent[d];
    return n;
}

/* ---- implementations ------------------------------------------------------------------ */

typedef struct {
    int kind;
    meas *m;
    tine_compiled_t *compiled; /* tine, LLVM alone */
    const tine_kernel_t *k;
    case_binding b;
    const peer_entry *peer; /* Halide, OpenCV, XNNPACK */
    peer_call *call;
    const bench_entry *ref; /* clang, gcc */
    const bench_case *c;
    void *out;
} impl;

static int impl_bind(impl *im, const bench_case *c, void *out, char *err, size_t n) {
    im->c = c;
    im->out = out;
    if (im->peer) {
        if (im->call) im->peer->unbind(im->call);
        im->call = im->peer->bind(im->peer, c, out, err, n);
        return im->call ? 0 : -1;
    }
    return im->ref ? 0 : case_bind(c, im->k, out, &im->b, err, n);
}

static int impl_run(impl *im) {
    if (im->peer) return im->peer->run(im->call);
    if (im->ref) {
        im->ref->ref(im->c, im->out);
        return 0;
    }
    return tine_compiled_run(im->compiled, im->b.inputs, im->b.params, &im->b.out);
}

static void impl_release(impl *im) {
    if (im->call) im->peer->unbind(im->call);
    if (im->compiled) tine_compiled_free(im->compiled);
    im->call = NULL;
    im->compiled = NULL;
}

static const char *const PATTERNS[PAT_COUNT] = {"random", "zero", "max", "checker", "stripes"};

/* Runs im on every pattern's case against the reference; marks it MEAS_INEXACT or
 * MEAS_FAILED (and says so) when it does not match everywhere. A library peer may refuse
 * a fill pattern it cannot compute (XNNPACK's softmax on rows of equal values): that
 * pattern is said and left out, and it is still timed on random data. */
static void check_exact(impl *im, const bench_row *row, bench_case *cases, void *const *want, void *got) {
    for (int p = 0; p < PAT_COUNT && im->m->state == MEAS_TIMED; p++) {
        char err[512];
        size_t nb = case_bytes(&cases[p].out, cases[p].out_bits);
        memset(got, 0x5a, nb);
        int64_t at[4] = {0};
        int rc = 0;
        int unbound = impl_bind(im, &cases[p], got, err, sizeof err);
        if (unbound && p != PAT_RANDOM && im->peer && !im->peer->target) {
            fprintf(stderr, "\nbench: %s %s, %s: %s (%s data: not compared)\n", row->kernel, row->target,
                    bench_impl_names[im->kind], err, PATTERNS[p]);
            im->m->refused |= 1u << p;
        } else if (unbound || (rc = impl_run(im))) {
            if (rc) snprintf(err, sizeof err, "the run returned %d", rc);
            fprintf(stderr, "\nbench: %s %s, %s: %s\n", row->kernel, row->target, bench_impl_names[im->kind], err);
            im->m->state = MEAS_FAILED;
        } else if (im->peer && (im->peer->differs || im->peer->frame[0] || im->peer->frame[1] ||
                                im->peer->frame[2] || im->peer->frame[3])) {
            /* compared where both define the output, within the peer's stated difference */
            int64_t d = case_max_difference(&cases[p], got, want[p], im->peer->frame);
            im->m->differs = im->peer->differs;
            if (d > im->m->max_diff) im->m->max_diff = (int)d;
            if (d > im->peer->tolerance) {
                fprintf(stderr, "\nbench: %s %s, %s: differs from the reference by %" PRId64 " (%s data), more than "
                                "the %d its definition allows: not timed\n",
                        row->kernel, row->target, bench_impl_names[im->kind], d, PATTERNS[p], im->peer->tolerance);
                im->m->state = MEAS_INEXACT;
            }
        } else if (case_first_difference(&cases[p], got, want[p], at)) {
            fprintf(stderr, "\nbench: %s %s, %s: NOT bit-exact with the reference (%s data, first at %" PRId64
                            ", %" PRId64 ", %" PRId64 ", %" PRId64 "): not timed\n",
                    row->kernel, row->target, bench_impl_names[im->kind], PATTERNS[p], at[0], at[1], at[2], at[3]);
            im->m->state = MEAS_INEXACT;
        }
    }
}

/* Times the implementations interleaved on c: warm-ups, then rounds of one visit to each,
 * each round in a new shuffled order (a fixed seed). A visit to a fast implementation
 * (under 20 ms a run) runs it once untimed (its own code and data back in the caches,
 * whatever ran before it) and then times k back-to-back runs, k for about 2 ms of them
 * (at most 20); it is visited in every round: at least ten, more (up to 100) for about a
 * second of the fast ones' visits per row. A slow one (the scalar C references) is one
 * timed run per visit, in the first ten rounds only: many short visits spread the
 * machine's slow moments evenly over the fast implementations, whose ratios are the
 * results. The median and min-max over every timed run. */
static void time_interleaved(impl **ims, int n, const bench_case *c, void *got, bench_row *row, bool quick) {
    char err[512];
    for (int i = 0; i < n; i++)
        if (impl_bind(ims[i], c, got, err, sizeof err)) ims[i]->m->state = MEAS_FAILED;
    double round = 0, one[NIMPL] = {0};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < n; i++) {
            double t0 = cli_now();
            if (ims[i]->m->state == MEAS_TIMED) impl_run(ims[i]);
            if (w) one[i] = cli_now() - t0;
        }
    int k[NIMPL];
    for (int i = 0; i < n; i++) {
        k[i] = one[i] < 0.02 ? (int)(0.002 / (one[i] > 1e-6 ? one[i] : 1e-6)) : 1;
        k[i] = k[i] < 1 ? 1 : k[i] > 20 ? 20 : k[i];
        if (one[i] < 0.02) round += one[i] * (k[i] + 1);
    }
    int runs = round > 0 ? (int)((quick ? 0.2 : 1.0) / round) : 100;
    runs = runs < 10 ? 10 : runs > 100 ? 100 : runs;
    double *t[NIMPL] = {0};
    int visits[NIMPL];
    for (int i = 0; i < n; i++) {
        visits[i] = one[i] < 0.02 ? runs : 10;
        if (!(t[i] = malloc(sizeof(double) * (size_t)(visits[i] * k[i])))) goto out;
    }
    int order[NIMPL];
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int r = 0; r < runs; r++) {
        for (int a = n - 1; a > 0; a--) { /* Fisher-Yates with xorshift64 */
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            int b = (int)(seed % (uint64_t)(a + 1)), x = order[a];
            order[a] = order[b], order[b] = x;
        }
        for (int j = 0; j < n; j++) {
            int i = order[j];
            if (r >= visits[i]) continue;
            bool timed = ims[i]->m->state == MEAS_TIMED;
            if (timed && one[i] < 0.02) impl_run(ims[i]);
            for (int q = 0; q < k[i]; q++) {
                double t0 = cli_now();
                if (timed) impl_run(ims[i]);
                t[i][r * k[i] + q] = (cli_now() - t0) * 1e3;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        int m = visits[i] * k[i];
        qsort(t[i], (size_t)m, sizeof *t[i], cmpd);
        ims[i]->m->ms = t[i][m / 2];
        ims[i]->m->min_ms = t[i][0];
        ims[i]->m->max_ms = t[i][m - 1];
    }
    row->runs = runs;
out:
    for (int i = 0; i < n; i++) free(t[i]);
}

/* ---- the command ---------------------------------------------------------------------- */

typedef struct {
    const char *name;
    bool runs;
    entries_fn cref[2]; /* clang, gcc builds for this row */
    double cref_ms[2];
} row_target;

/* peers: NULL (every peer that is built) or a comma-separated list of halide, opencv,
 * xnnpack, c, clang, gcc; sets want[IMPL_*]. 0, or 2 with a message for a name it does not
 * know. */
static int parse_peers(const char *peers, bool want[NIMPL]) {
    for (int i = 0; i < NIMPL; i++) want[i] = i != IMPL_SYNTH && (!peers || i == IMPL_TINE || i == IMPL_AUTO || i == IMPL_LLVM);
    if (!peers) return 0;
    for (const char *p = peers; *p;) {
        size_t len = strcspn(p, ",");
        if (len == 6 && !strncmp(p, "halide", 6)) want[IMPL_HALIDE] = true;
        else if (len == 6 && !strncmp(p, "opencv", 6)) want[IMPL_OPENCV] = true;
        else if (len == 7 && !strncmp(p, "xnnpack", 7)) want[IMPL_XNNPACK] = true;
        else if (len == 1 && *p == 'c') want[IMPL_CLANG] = want[IMPL_GCC] = true;
        else if (len == 5 && !strncmp(p, "clang", 5)) want[IMPL_CLANG] = true;
        else if (len == 3 && !strncmp(p, "gcc", 3)) want[IMPL_GCC] = true;
        else if (len) {
            fprintf(stderr,
                    "tine: bench --peers takes a comma-separated list of halide, opencv, xnnpack, c, clang and gcc, "
                    "not '%.*s'\n",
                    (int)len, p);
            return 2;
        }
        p += len + (p[len] == ',');
    }
    return 0;
}

#ifndef TINE_HALIDE_PEER_PATH
#define TINE_HALIDE_PEER_PATH NULL
#endif
#ifndef TINE_OPENCV_PEER_PATH
#define TINE_OPENCV_PEER_PATH NULL
#endif
#ifndef TINE_XNNPACK_PEER_PATH
#define TINE_XNNPACK_PEER_PATH NULL
#endif

/* The peer modules: where the build put each (NULL: not built) and why it may not be. */
static const struct {
    int kind;
    const char *path, *missing;
} PEERS[] = {
    {IMPL_HALIDE, TINE_HALIDE_PEER_PATH, "libhalide14-0-dev not found, TINE_HALIDE_PEER=OFF or a sanitizer build"},
    {IMPL_OPENCV, TINE_OPENCV_PEER_PATH, "libopencv-imgproc-dev not found, TINE_LIBRARY_PEERS=OFF or a sanitizer build"},
    {IMPL_XNNPACK, TINE_XNNPACK_PEER_PATH,
     "libxnnpack-dev or libpthreadpool-dev not found, TINE_LIBRARY_PEERS=OFF or a sanitizer build"},
};
enum { NPEERS = sizeof PEERS / sizeof *PEERS };

/* Loads the peers wanted into peers[IMPL_*] (NULL for the others); a peer that is not
 * built or does not load is named on stderr. false when one asked for by name is missing. */
static bool load_peers(const bool want[NIMPL], bool explicit, const peer_entry *peers[NIMPL]) {
    bool ok = true;
    for (int i = 0; i < NIMPL; i++) peers[i] = NULL;
    for (int p = 0; p < NPEERS; p++) {
        const char *name = bench_impl_names[PEERS[p].kind];
        if (!want[PEERS[p].kind]) continue;
        char err[1024];
        if (!PEERS[p].path)
            snprintf(err, sizeof err, "not built (%s, when tine was configured; scripts/setup.sh installs the packages)",
                     PEERS[p].missing);
        else if ((peers[PEERS[p].kind] = peer_load(PEERS[p].path, err, sizeof err))) continue;
        fprintf(stderr, "bench: %s: %s%s\n", name, err, explicit ? "" : "; its column is empty");
        ok = !explicit && ok;
    }
    return ok;
}

/* The kernel's text with its schedule replaced by `schedule auto` (a file without one is
 * scheduled automatically already); malloc'd. */
static char *auto_text(const char *text) {
    const char *end = text + strlen(text);
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : end)
        if (!strncmp(p, "schedule", 8) && (p[8] == '\n' || p[8] == ' ' || p[8] == '\t' || !p[8])) {
            end = p;
            break;
        }
    size_t n = (size_t)(end - text);
    char *t = malloc(n + 16);
    if (!t) abort();
    memcpy(t, text, n);
    snprintf(t + n, 16, "%sschedule auto\n", n && t[n - 1] != '\n' ? "\n" : "");
    return t;
}

/* Measures one kernel at one row into r; false on an error that ends the bench. */
static bool bench_row_run(const bench_entry *be, const char *text, const char *path, const row_target *rt,
                          const peer_entry *const *peers, const bool want[NIMPL], bench_case *cases, void *const *want_out,
                          void *got, bench_row *r, bool quick) {
    tine_ctx_t *ctx = tine_ctx_new();
    double t0 = cli_now();
    tine_kernel_t *k = tine_kernel_parse(ctx, text, path);
    r->parse_ms = (cli_now() - t0) * 1e3;
    if (!k) {
        fprintf(stderr, "\n%s\n", tine_error(ctx));
        tine_ctx_free(ctx);
        return false;
    }
    double a0 = cli_now();
    char *atext = auto_text(text);
    tine_kernel_t *ka = tine_kernel_parse(ctx, atext, path);
    free(atext);
    double auto_parse_ms = (cli_now() - a0) * 1e3;
    if (!ka) {
        fprintf(stderr, "\n%s, schedule auto: %s\n", be->name, tine_error(ctx));
        tine_kernel_free(k);
        tine_ctx_free(ctx);
        return false;
    }
    impl ims[NIMPL];
    memset(ims, 0, sizeof ims);
    for (int i = 0; i < NIMPL; i++) {
        ims[i].kind = i;
        ims[i].m = &r->m[i];
        ims[i].k = i == IMPL_AUTO ? ka : k;
        r->m[i].state = MEAS_ABSENT;
        r->m[i].compile_ms = -1;
    }
    for (int s = 0; s < 3; s++) {
        int kind = s == 0 ? IMPL_LLVM : s == 1 ? IMPL_TINE : IMPL_AUTO;
        impl *im = &ims[kind];
        double c0 = cli_now();
        im->compiled = tine_kernel_compile(kind == IMPL_AUTO ? ka : k, rt->name, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
        if (!im->compiled) {
            fprintf(stderr, "\n%s%s: %s\n", be->name, kind == IMPL_AUTO ? ", schedule auto" : "", tine_error(ctx));
            for (int i = 0; i < NIMPL; i++) impl_release(&ims[i]);
            tine_kernel_free(k);
            tine_kernel_free(ka);
            tine_ctx_free(ctx);
            return false;
        }
        im->m->compile_ms = (cli_now() - c0) * 1e3 + (kind == IMPL_AUTO ? auto_parse_ms : r->parse_ms);
        /* a user kernel's file has no hand schedule: its tine column would time tine auto twice */
        im->m->state = kind == IMPL_TINE && r->user ? MEAS_ABSENT : MEAS_TIMED;
        if (kind == IMPL_AUTO) continue;
        double sel_ms, cg_ms;
        tine_compiled_times(im->compiled, &sel_ms, &cg_ms);
        *(s ? &r->lift_ms : &r->expand_ms) = sel_ms;
        *(s ? &r->tine_cg_ms : &r->llvm_cg_ms) = cg_ms;
    }
    /* the same kernel selected with the synthesized lowering rules: a context of its own */
    tine_ctx_t *sctx = NULL;
    tine_kernel_t *ks = NULL;
    if (want[IMPL_SYNTH]) {
        sctx = tine_ctx_new();
        tine_set_lower_rules(sctx, "synthesized");
        double c0 = cli_now();
        ks = tine_kernel_parse(sctx, text, path);
        impl *im = &ims[IMPL_SYNTH];
        im->k = ks;
        im->compiled = ks ? tine_kernel_compile(ks, rt->name, TINE_SELECT_TINE) : NULL;
        if (im->compiled) {
            im->m->compile_ms = (cli_now() - c0) * 1e3;
            im->m->state = MEAS_TIMED;
        } else {
            fprintf(stderr, "\n%s, synthesized rules: %s\n", be->name, tine_error(sctx));
            im->m->state = MEAS_FAILED;
        }
    }
    /* each peer's first entry for the kernel and row that runs here (the Halide peer's
     * AVX-512 row has a build with AVX512-FP16 and one without) */
    for (int i = 0; i < NIMPL; i++)
        for (const peer_entry *pe = peers[i]; pe && pe->kernel && !ims[i].peer; pe++)
            if (!strcmp(pe->kernel, be->name) && (!pe->target || !strcmp(pe->target, rt->name)) && pe->runs_here(pe)) {
                ims[i].peer = pe;
                r->m[i].state = MEAS_TIMED;
                r->m[i].compile_ms = pe->compile_ms(pe);
            }
    for (int c = 0; c < 2; c++) {
        impl *im = &ims[IMPL_CLANG + c];
        if (!want[IMPL_CLANG + c] || !(im->ref = find_in(rt->cref[c], be->name))) continue;
        im->m->state = MEAS_TIMED;
        im->m->compile_ms = rt->cref_ms[c];
    }
    impl *timed[NIMPL];
    int n = 0;
    for (int i = 0; i < NIMPL; i++) {
        if (ims[i].m->state != MEAS_TIMED) continue;
        fprintf(stderr, "\rbench: %-15s %-14s checking %-12s", be->name, rt->name, bench_impl_names[i]);
        check_exact(&ims[i], r, cases, want_out, got);
        if (ims[i].m->state == MEAS_TIMED) timed[n++] = &ims[i];
    }
    fprintf(stderr, "\rbench: %-15s %-14s timing %d implementations", be->name, rt->name, n);
    time_interleaved(timed, n, &cases[PAT_RANDOM], got, r, quick);
    for (int i = 0; i < NIMPL; i++) impl_release(&ims[i]);
    tine_kernel_free(k);
    tine_kernel_free(ka);
    tine_kernel_free(ks);
    tine_ctx_free(ctx);
    if (sctx) tine_ctx_free(sctx);
    return true;
}

/* The rows: the targets (only_target alone, if given) whose code runs here; *known
 * counts those selected, not_run lists the x86 ones this machine cannot run, all every
 * target's name. */
static int select_rows(tine_ctx_t *tctx, const char *only_target, row_target *rows, int *known, const char **all,
                       int *nall, char *not_run, size_t not_run_size) {
    int nrows = 0;
    for (int i = 0; tine_target_name(tctx, i) && *nall < 8; i++) {
        const char *t = all[(*nall)++] = tine_target_name(tctx, i);
        if (only_target && strcmp(only_target, t)) continue;
        ++*known;
        rows[nrows] = (row_target){.name = t, .runs = tine_target_runs_here(tctx, t) == 1};
        if (!rows[nrows].runs && strcmp(tine_target_isa(t), "arm")) /* AArch64 rows: --target, estimated */
            snprintf(not_run + strlen(not_run), not_run_size - strlen(not_run), "%s%s", not_run[0] ? ", " : "", t);
        nrows += rows[nrows].runs;
    }
    return nrows;
}

/* Builds the C references for the rows with each compiler wanted (an empty column when
 * one cannot, said on stderr). */
static void build_crefs(row_target *rows, int nrows, const bool *want) {
    static const char *const compilers[2] = {"clang-19", "gcc"};
    for (int c = 0; c < 2; c++) {
        if (!want[IMPL_CLANG + c]) continue;
        for (int t = 0; t < nrows; t++) {
            bool runs;
            const char *march = c_march(rows[t].name, &runs);
            if (!march || !runs) continue;
            fprintf(stderr, "\rbench: building the C references with %s %s%20s", compilers[c], march, "");
            rows[t].cref[c] = load_ref(compilers[c], march, &rows[t].cref_ms[c]);
            if (!rows[t].cref[c])
                fprintf(stderr, "\nbench: %s %s could not build the C references: its column is empty%s\n",
                        compilers[c], march, c ? "" : " (scripts/setup.sh installs clang-19)");
        }
    }
}

/* Measures kernel be on every row, into res[*nres ...]: 0, or 1 (said why). */
static int bench_kernel(const bench_entry *be, row_target *rows, int nrows, const peer_entry *const *peers, const bool *want,
                        const bench_roof *roof, bench_row *res, int *nres, int quick) {
    int status = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/bench/%s/%s.tine", TINE_SOURCE_DIR, bench_entry_dir(be), be->name);
    char *text = tine_cli_read_file(path);
    if (!text) return 1; /* it said why */
    fprintf(stderr, "\rbench: %-15s preparing inputs and references%20s", be->name, "");
    bench_case cases[PAT_COUNT];
    void *want_out[PAT_COUNT] = {0}, *got = NULL;
    uint64_t seed = 42;
    size_t most = 0;
    int made = 0;
    for (int p = 0; p < PAT_COUNT; p++, made++) {
        cases[p] = (bench_case){.name = be->name};
        if (be->make(&cases[p], quick ? CASE_QUICK : CASE_FULL, (case_pattern)p, &seed) != 0) break;
        size_t nb = case_bytes(&cases[p].out, cases[p].out_bits);
        most = nb > most ? nb : most;
        if (!(want_out[p] = calloc(nb, 1))) break;
        be->ref(&cases[p], want_out[p]);
    }
    if (made < PAT_COUNT || !(got = calloc(most, 1))) {
        fprintf(stderr, "\nbench: %s: cannot make its cases (out of memory?)\n", be->name);
        status = 1;
    }
    for (int t = 0; t < nrows && !status; t++) {
        bench_row *r = &res[(*nres)++];
        r->kernel = be->name;
        r->target = rows[t].name;
        r->user = bench_entry_is_user(be);
        r->bytes = buffer_bytes(&cases[PAT_RANDOM].out, cases[PAT_RANDOM].out_bits);
        for (int i = 0; i < cases[PAT_RANDOM].ninputs; i++)
            r->bytes += buffer_bytes(&cases[PAT_RANDOM].in[i], cases[PAT_RANDOM].in_bits[i]);
        r->roof_ms = roof->copy_gbs > 0 ? r->bytes / (roof->copy_gbs * 1e9) * 1e3 : 0;
        if (!bench_row_run(be, text, path, &rows[t], peers, want, cases, want_out, got, r, quick)) status = 1;
    }
    for (int p = 0; p < made; p++) {
        bench_case_free(&cases[p]);
        free(want_out[p]);
    }
    free(got);
    free(text);
    return status;
}

/* Whether --filter selects be: every kernel without one; the kernels whose name contains
 * it; and for `--filter user`, every user kernel (bench/user) as well. */
static bool selected(const bench_entry *be, const char *filter) {
    return !filter || strstr(be->name, filter) || (!strcmp(filter, "user") && bench_entry_is_user(be));
}

int tine_cmd_bench(const char *filter, const char *only_target, const char *peers, const char *rules, int quick) {
    bool want[NIMPL];
    if (parse_peers(peers, want)) return 2;
    if (rules && strcmp(rules, "hand") && strcmp(rules, "synthesized")) {
        fprintf(stderr, "tine: bench --rules takes hand or synthesized, not '%s'\n", rules);
        return 2;
    }
    want[IMPL_SYNTH] = rules && !strcmp(rules, "synthesized");
    tine_ctx_t *tctx = tine_ctx_new();
    row_target rows[8];
    int known = 0, kernels = 0;
    const char *all[8];
    int nall = 0;
    char not_run[128] = "";
    int nrows = select_rows(tctx, only_target, rows, &known, all, &nall, not_run, sizeof not_run);
    char names[256] = "";
    for (int i = 0; i < nall; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i == 0 ? "" : i == nall - 1 ? " or " : ", ",
                 all[i]);
    /* a target or filter that selects nothing is a mistake, not an empty table */
    if (!known) {
        fprintf(stderr, "tine: bench --target takes %s, not '%s'\n", names, only_target);
        tine_ctx_free(tctx);
        return 2;
    }
    if (only_target && !strcmp(tine_target_isa(only_target), "arm")) { /* estimated, not run: bench_mca.c */
        tine_ctx_free(tctx);
        if (peers) {
            fprintf(stderr, "tine: bench --target %s compares tine with LLVM alone only; drop --peers\n", only_target);
            return 2;
        }
        return tine_bench_mca(filter, only_target);
    }
    if (!nrows) {
        fprintf(stderr, "tine: this machine cannot run %s code\n", only_target);
        tine_ctx_free(tctx);
        return 1;
    }
    for (const bench_entry *be = bench_entries(); be->name; be++) kernels += selected(be, filter);
    if (!kernels) {
        fprintf(stderr, "tine: no benchmark kernel matches --filter '%s'\n", filter);
        tine_ctx_free(tctx);
        return 2;
    }
    const peer_entry *loaded[NIMPL];
    if (!load_peers(want, peers != NULL, loaded)) { /* asked for by name: said why */
        tine_ctx_free(tctx);
        return 1;
    }
    build_crefs(rows, nrows, want);
    fprintf(stderr, "\rbench: measuring this machine's memory bandwidth%30s", "");
    bench_roof roof = {0};
    measure_roof(&roof, quick);
    snprintf(roof.not_run, sizeof roof.not_run, "%s", not_run);
    bench_row *res = calloc((size_t)(kernels * nrows), sizeof *res);
    int nres = 0, status = 0;
    for (const bench_entry *be = bench_entries(); be->name && res && !status; be++) {
        if (!selected(be, filter)) continue;
        status = bench_kernel(be, rows, nrows, loaded, want, &roof, res, &nres, quick);
    }
    fprintf(stderr, "\r%80s\r", "");
    if (!res) fprintf(stderr, "tine: bench: out of memory\n");
    if (!res || status) {
        free(res);
        tine_ctx_free(tctx);
        return 1;
    }
    int failures = 0;
    for (int i = 0; i < nres; i++)
        for (int m = 0; m < NIMPL; m++) failures += res[i].m[m].state == MEAS_INEXACT || res[i].m[m].state == MEAS_FAILED;
    status = bench_report(res, nres, &roof, quick);
    if (failures) printf("%d implementations were NOT bit-exact with the reference or failed (see above)\n", failures);
    free(res);
    tine_ctx_free(tctx);
    return status ? status : failures ? 1 : 0;
}
