/* test_diffkern.c — compiled kernels against the interpreter, whatever ran before them.
 *
 * Design note. Compiled code must depend only on what holds for every run it accepts:
 * bounds facts that one run's values prove (its parameters, its output's extents, a
 * parallel slice, one stage's loop ranges) must never reach a compile-time rewrite
 * (docs/ARCHITECTURE.md, Bounds). Four parts pin it:
 *
 *   0. Bounds scopes: a fact supplied in a scope is gone when it closes, a clean scope
 *      hides the facts around it, and lifting never reuses a rewrite made under other
 *      facts (u8(min(x, 40)) becomes u8(x) exactly while x in [0, 10] is in view).
 *
 *   1. The miscompiles of issue 10, each as it was found: a run (interpreted, or compiled
 *      and run with the other selection) comes first, then the kernel is compiled and run
 *      with other values: a materialized m(x / 2, y) beside min(x, 40); the same with
 *      max(y, 20) and `parallel out.y`; two stages with loop reductions over K and N; a
 *      kernel interpreted with k = 2, then compiled and run with k = 200 on a wider output.
 *      Every x86 level this CPU runs, both selections; the output must be byte-identical
 *      to the interpreter's. Before the fix each of them differed. And ahead of time: the
 *      object's LLVM IR and the selected stages are the same text in a fresh context and
 *      in one where runs came first.
 *   2. Empty reduction ranges (constant, and loops that do not run) give the identity of
 *      the body's type for sum, min and max and every element type, interpreted and
 *      compiled.
 *   3. Random kernels (seeded; `test_diffkern [COUNT [SEED]]`, default 1000 kernels):
 *      one to three dimensions, one or two inputs, an i32 parameter used in reduction
 *      bounds and coordinates and a parameter of another type used in bodies, repeat-edge
 *      and constant boundaries, up to two materialized functions (one may read the other)
 *      and an inlined one, reductions with constant (also empty) and parameter bounds,
 *      nested, min/max/clamp of coordinates, parameters and loop variables against
 *      constants (what bounds-predicated rules simplify), FPIR ops, casts, selects;
 *      schedules with vector widths, unrolling, tiles and `parallel`, and (in a kernel of two
 *      or three dimensions out of three) m0 computed at the output's last coordinate
 *      (`compute_at`, sometimes with `store_at`): then only the output reads m0, each read's
 *      row a*y + c (a = 1 or 2 per kernel), and the output is neither tiled nor parallel;
 *      every fourth kernel `schedule auto` instead (the automatic scheduler's choice,
 *      pipeline/autosched.c). Each kernel gets
 *      three runs (parameter values, odd output sizes and mins, padded rows), is compiled
 *      once per selection at one x86 level (rotating through the levels this CPU runs),
 *      and the interpretations, compilations and compiled runs happen in a random order,
 *      so a fact leaking from one to another would show. Kernels share a context in
 *      batches, so facts leaking between kernels would show too. Every compiled output
 *      (the whole allocation, padding included) must equal the interpreter's, and a run
 *      the interpreter refuses (an input too small) must be refused by the compiled code.
 *      A failure prints the seed, the kernel's number and text, the level, the order of
 *      events and the first differing element; `test_diffkern 1 SEED` does not reproduce
 *      kernel N > 0 of a run (the generator state depends on the earlier kernels): rerun
 *      with the same COUNT and SEED.
 *      The statement interpreter too: each run (of at most STMT_MAX output elements;
 *      `test_diffkern COUNT SEED STMT_MAX`) is run by tine_kernel_interpret_stmt with every
 *      stage's statement as it is after each pass of the driver (build, partition,
 *      simplify, residue, unswitch, and select, reassoc and hoist with each selection at
 *      the kernel's level), at a random place among the other events, and must give the interpreter's bytes (the whole
 *      allocation) or refuse the run with the same code and message; a failure names the
 *      pass. Every tenth kernel's last run has an input one column wide (refused unless
 *      edge() reads it). The generator also writes `partition f.x auto|always|never` directives, and
 *      every eighth kernel's first run is 1x1 (1x1x1).
 *
 * DIFFKERN_PRINT=1 in the environment prints every random kernel and the CPU time of each
 * compilation (the test's cost is LLVM's: two compilations per kernel).
 *
 * Output: a line per failure, then "test_diffkern: N checks passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "stmt/passes.h"

#include "testutil.h"

#include <inttypes.h>

/* ---- x86 levels this CPU runs --------------------------------------------------------- */

static const char *LEVELS[5];
static int NLEVELS;

static void detect_levels(void) {
    LEVELS[NLEVELS++] = "host";
#if defined(__x86_64__)
    __builtin_cpu_init();
    LEVELS[NLEVELS++] = "x86-64-sse2";
    if (__builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("x86-64-v2")) LEVELS[NLEVELS++] = "x86-64-sse41";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("x86-64-v3")) LEVELS[NLEVELS++] = "x86-64-avx2";
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("x86-64-v4") &&
        __builtin_cpu_supports("avx512vnni"))
        LEVELS[NLEVELS++] = "x86-64-avx512";
#endif
    printf("levels:");
    for (int i = 0; i < NLEVELS; i++) printf(" %s", LEVELS[i]);
    printf("\n");
}

static const char *const SEL_NAME[2] = {"llvm", "tine"};

/* ---- buffers and runs ------------------------------------------------------------------ */

typedef struct {
    tine_buffer_t b;
    size_t bytes;
} buf_t;

static buf_t make_buf(tine_type_t t, int dims, const int64_t *mn, const int64_t *ext, int64_t pad) {
    buf_t r;
    memset(&r, 0, sizeof r);
    r.b.dims = dims;
    size_t count = 1;
    for (int d = 0; d < 4; d++) {
        r.b.min[d] = d < dims ? mn[d] : 0;
        r.b.extent[d] = d < dims ? ext[d] : 1;
        r.b.stride[d] = d == 0 ? 1 : r.b.stride[d - 1] * (r.b.extent[d - 1] + (d == 1 ? pad : 0));
    }
    for (int d = 0; d < dims; d++) count += (size_t)(r.b.extent[d] - 1) * (size_t)r.b.stride[d];
    r.bytes = count * (size_t)(t.bits / 8);
    r.b.data = malloc(r.bytes);
    TINE_ASSERT(r.b.data != NULL);
    return r;
}

static void fill(buf_t *b, uint64_t *seed, int byte) {
    unsigned char *p = b->b.data;
    for (size_t i = 0; i < b->bytes; i++) p[i] = byte >= 0 ? (unsigned char)byte : (unsigned char)tine_rand64(seed);
}

/* The passes of tine_stmt_lower_kernel, in order; those from selection on are run once per
 * selection. */
static const char *const PASSES[] = {"build", "partition", "simplify", "residue", "unswitch", "select", "reassoc", "hoist"};
enum { NPASSES = 8, NPRE = 5, NSTMT = NPRE + 2 * (NPASSES - NPRE) }; /* checks per run */

enum { MAXIN = 2, MAXP = 2, MAXRUNS = 3 };

typedef struct {
    int nin, np;
    buf_t in[MAXIN];
    tine_buffer_t *inp[MAXIN];
    int64_t pv[MAXP];
    const void *params[MAXP];
    int64_t omin[4], oext[4], pad;
    buf_t ref, got[2];
    int ref_rc, got_rc[2];
    char *ref_err; /* the interpreter's message when it refuses the run */
    /* the statement interpreter after each pass (stmt_pass, stmt_sel: the passes before
       selection, then selection with each selection); st_rc 1: not run */
    buf_t st[NSTMT];
    int st_rc[NSTMT];
    char *st_err[NSTMT];
} run_t;

/* Inputs covering [min(2 omin, 0) - margin, max(2 omax, 48) + margin] in every dimension
 * (coordinates may be doubled or clamped to constants up to 48), random contents. */
static void make_run(const tine_kernel_t *k, run_t *r, const int64_t *omin, const int64_t *oext, int64_t pad,
                     const int64_t *pv, uint64_t *seed) {
    enum { MARGIN = 40 };
    memset(r, 0, sizeof *r);
    int dims = tine_kernel_dims(k);
    r->nin = tine_kernel_ninputs(k);
    r->np = tine_kernel_nparams(k);
    TINE_ASSERT(r->nin <= MAXIN && r->np <= MAXP);
    for (int i = 0; i < r->nin; i++) {
        tine_type_t et;
        int id;
        tine_kernel_input(k, i, &et, &id);
        int64_t mn[4], ex[4];
        for (int d = 0; d < id; d++) {
            int64_t lo = d < dims ? omin[d] : 0, hi = d < dims ? omin[d] + oext[d] - 1 : 0;
            mn[d] = (2 * lo < 0 ? 2 * lo : 0) - MARGIN;
            ex[d] = (2 * hi > 48 ? 2 * hi : 48) + MARGIN - mn[d] + 1;
        }
        r->in[i] = make_buf(et, id, mn, ex, (int64_t)(tine_rand64(seed) % 3));
        fill(&r->in[i], seed, -1);
        r->inp[i] = &r->in[i].b;
    }
    for (int i = 0; i < r->np; i++) {
        r->pv[i] = pv[i];
        r->params[i] = &r->pv[i]; /* little-endian: the value's low bytes come first */
    }
    memcpy(r->omin, omin, sizeof r->omin);
    memcpy(r->oext, oext, sizeof r->oext);
    r->pad = pad;
    tine_type_t ot = tine_kernel_output_type(k);
    r->ref = make_buf(ot, dims, omin, oext, pad);
    fill(&r->ref, seed, 0xA5); /* padding must stay as it is */
    for (int s = 0; s < 2; s++) {
        r->got[s] = make_buf(ot, dims, omin, oext, pad);
        fill(&r->got[s], seed, 0xA5);
        r->got_rc[s] = 1; /* not run */
    }
    r->ref_rc = 1;
    for (int s = 0; s < NSTMT; s++) {
        r->st[s] = make_buf(ot, dims, omin, oext, pad);
        fill(&r->st[s], seed, 0xA5);
        r->st_rc[s] = 1;
    }
}

static void free_run(run_t *r) {
    for (int i = 0; i < r->nin; i++) free(r->in[i].b.data);
    free(r->ref.b.data);
    free(r->got[0].b.data);
    free(r->got[1].b.data);
    free(r->ref_err);
    for (int s = 0; s < NSTMT; s++) {
        free(r->st[s].b.data);
        free(r->st_err[s]);
    }
}

static void describe_run(tine_buf *b, const tine_kernel_t *k, const run_t *r) {
    tine_buf_puts(b, "output min");
    for (int d = 0; d < tine_kernel_dims(k); d++) tine_buf_printf(b, " %" PRId64, r->omin[d]);
    tine_buf_puts(b, ", extent");
    for (int d = 0; d < tine_kernel_dims(k); d++) tine_buf_printf(b, " %" PRId64, r->oext[d]);
    tine_buf_printf(b, ", row padding %" PRId64, r->pad);
    for (int i = 0; i < r->np; i++) tine_buf_printf(b, ", %s = %" PRId64, tine_kernel_param(k, i, NULL), r->pv[i]);
}

/* The first byte where the compiled output differs from the interpreter's, or -1. */
static long first_diff(const run_t *r, int s) {
    const unsigned char *a = r->ref.b.data, *b = r->got[s].b.data;
    for (size_t i = 0; i < r->ref.bytes; i++)
        if (a[i] != b[i]) return (long)i;
    return -1;
}

/* Compares selection s's output (or refusal) on run r with the interpreter's; reports with
 * `what` (the kernel and how it got there). */
static bool compare(const tine_kernel_t *k, const run_t *r, int s, const char *what) {
    long at = -1;
    bool same = (r->ref_rc != 0) == (r->got_rc[s] != 0) && (r->ref_rc != 0 || (at = first_diff(r, s)) < 0);
    if (same) {
        pass();
        return true;
    }
    tine_buf b = {0};
    describe_run(&b, k, r);
    if ((r->ref_rc != 0) != (r->got_rc[s] != 0))
        fail("%s\n  run: %s\n  the interpreter %s, the %s selection's code %s", what, b.p,
             r->ref_rc ? "refuses it" : "runs it", SEL_NAME[s], r->got_rc[s] ? "refuses it" : "runs it");
    else {
        int eb = tine_kernel_output_type(k).bits / 8;
        long e = at / eb;
        uint64_t x = 0, y = 0;
        memcpy(&x, (const char *)r->ref.b.data + e * eb, (size_t)eb);
        memcpy(&y, (const char *)r->got[s].b.data + e * eb, (size_t)eb);
        int64_t st1 = r->ref.b.stride[1] ? r->ref.b.stride[1] : 1;
        fail("%s\n  run: %s\n  %s selection: element %ld (x = %" PRId64 ", row %ld) is 0x%" PRIx64
             ", the interpreter's 0x%" PRIx64,
             what, b.p, SEL_NAME[s], e, r->omin[0] + (int64_t)(e % st1), (long)(e / st1), y, x);
    }
    free(b.p);
    return false;
}

/* Statement check j of a run: the pass and the selection it runs with (the passes before
 * selection do not depend on it: the kernel's first selection). */
static const char *stmt_pass(int j) { return PASSES[j < NPRE ? j : NPRE + (j - NPRE) / 2]; }
static int stmt_sel(int j) { return j < NPRE ? 0 : (j - NPRE) % 2; }

/* Runs check j of run r: the whole kernel on the statement interpreter, each stage as it
 * is after the pass. */
static void stmt_run(tine_kernel_t *k, run_t *r, int j, const char *level) {
    int sel = stmt_sel(j) ? TINE_SELECT_TINE : TINE_SELECT_LLVM;
    tine_clear_error(tine_kernel_ctx(k));
    r->st_rc[j] = tine_kernel_interpret_stmt(k, stmt_pass(j), sel, level, r->inp, r->params, &r->st[j].b);
    if (r->st_rc[j]) r->st_err[j] = tine_strdup(tine_error(tine_kernel_ctx(k)) ? tine_error(tine_kernel_ctx(k)) : "");
}

/* Compares check j's output (or refusal: the same code and message) with the interpreter's. */
static bool stmt_compare(const tine_kernel_t *k, const run_t *r, int j, const char *what) {
    const unsigned char *a = r->ref.b.data, *b = r->st[j].b.data;
    long at = -1;
    if (r->ref_rc == 0 && r->st_rc[j] == 0)
        for (size_t i = 0; i < r->ref.bytes && at < 0; i++)
            if (a[i] != b[i]) at = (long)i;
    bool same = r->ref_rc == r->st_rc[j] && at < 0 &&
                (r->ref_rc == 0 || !strcmp(r->ref_err ? r->ref_err : "", r->st_err[j] ? r->st_err[j] : ""));
    if (same) {
        pass();
        return true;
    }
    tine_buf d = {0};
    describe_run(&d, k, r);
    char pass_name[64];
    snprintf(pass_name, sizeof pass_name, "after pass '%s'%s%s", stmt_pass(j), j >= NPRE ? " with the " : "",
             j >= NPRE ? SEL_NAME[stmt_sel(j)] : "");
    if (at < 0)
        fail("%s\n  run: %s\n  the interpreter returns %d (%s), the statement interpreter %s returns %d (%s)", what, d.p,
             r->ref_rc, r->ref_err ? r->ref_err : "", pass_name, r->st_rc[j], r->st_err[j] ? r->st_err[j] : "");
    else {
        int eb = tine_kernel_output_type(k).bits / 8;
        long e = at / eb;
        uint64_t x = 0, y = 0;
        memcpy(&x, a + e * eb, (size_t)eb);
        memcpy(&y, b + e * eb, (size_t)eb);
        int64_t st1 = r->ref.b.stride[1] ? r->ref.b.stride[1] : 1;
        fail("%s\n  run: %s\n  the statement interpreter %s: element %ld (x = %" PRId64 ", row %ld) is 0x%" PRIx64
             ", the interpreter's 0x%" PRIx64,
             what, d.p, pass_name, e, r->omin[0] + (int64_t)(e % st1), (long)(e / st1), y, x);
    }
    free(d.p);
    return false;
}

/* ==== 0. bounds scopes and the lifting memo ================================================= */

/* u8(min(x, 40)) lifts to u8(x) exactly while a fact x in [0, 10] is in view: facts supplied
 * in a scope vanish when it closes (what was there comes back), a clean scope hides the
 * facts around it, and the per-rule-set lifting memo never returns a rewrite made under
 * other facts. */
static void test_scopes(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, 8);
    tine_expr_t *e = tine_parse(ctx, "u8(min(x_i32, 40))", NULL);
    tine_expr_t *x = tine_var(ctx, "x", tine_type(TINE_INT, 32, 8));
    tine_expr_t *narrow = tine_parse(ctx, "u8(x_i32)", NULL);
    TINE_ASSERT(e && narrow);
    /* whether lifting e drops the min now */
#define DROPS() (tine_lift(ctx, e) == tine_lift(ctx, narrow))
    CHECK(!DROPS(), "scopes: min(x, 40) is dropped with no fact");
    int a = tine_bounds_open(ctx, false);
    tine_bounds_set_var(ctx, x, 0, 10);
    CHECK(DROPS(), "scopes: min(x, 40) is kept with x in [0, 10]");
    int b = tine_bounds_open(ctx, true);
    CHECK(!DROPS(), "scopes: a clean scope does not hide x in [0, 10]");
    tine_bounds_set_var(ctx, x, 0, 100);
    tine_bounds_set_var(ctx, x, 0, 39); /* again in the same scope: replaced */
    CHECK(DROPS(), "scopes: x in [0, 39] supplied in a clean scope is not used");
    tine_bounds_close(ctx, b);
    tine_i128 lo = 0, hi = 0;
    CHECK(tine_bounds(ctx, x, &lo, &hi) && lo == 0 && hi == 10, "scopes: closing does not restore x in [0, 10]");
    int c = tine_bounds_open(ctx, false);
    tine_bounds_set_var(ctx, x, 0, 1000); /* shadows [0, 10] */
    CHECK(!DROPS(), "scopes: a rewrite made under x in [0, 10] is reused under x in [0, 1000]");
    tine_bounds_close(ctx, c);
    CHECK(DROPS(), "scopes: x in [0, 10] is not back after an inner scope");
    tine_bounds_close(ctx, a);
    CHECK(!DROPS(), "scopes: a rewrite made under a closed scope's facts is reused outside it");
#undef DROPS
    tine_ctx_free(ctx);
}

/* ==== 1. the miscompiles of issue 10 ====================================================== */

typedef struct {
    const char *title, *text;
    /* run A (comes first: interpreted, and run compiled with the other selection), then
       run B (compiled with this selection, compared) */
    int64_t amin[4], aext[4], apv[MAXP];
    int64_t bmin[4], bext[4], bpv[MAXP];
    bool stmt; /* run A also on the statement interpreter after every pass, at one level */
} regression_t;

static const regression_t REGRESSIONS[] = {
    {"materialized m(x / 2, y) and min(x, 40), 64x4",
     "input in: u8[2]\n"
     "func m(x, y) = in(x, y)\n"
     "output out(x, y): i32 = min(x, 40) + i32(m(x / 2, y))\n"
     "schedule\n"
     "materialize m\n"
     "vectorize out.x natural\n",
     {0, 0}, {64, 4}, {0}, {0, 0}, {64, 4}, {0}, false},
    {"materialized m(x / 2, y), max(y, 20) and parallel out.y",
     "input in: u8[2]\n"
     "func m(x, y) = in(x, y)\n"
     "output out(x, y): i32 = max(y, 20) + i32(m(x / 2, y))\n"
     "schedule\n"
     "materialize m\n"
     "vectorize out.x natural\n"
     "parallel out.y\n",
     {0, 20}, {64, 8}, {0}, {0, 0}, {64, 40}, {0}, false},
    {"two stages with sum(r in 0..K) and sum(s in 0..N)",
     "input in: u8[2]\n"
     "param K: i32\n"
     "param N: i32\n"
     "func m(x, y) = sum(r in 0..K) (i32(in(x, y)) + min(r, 3))\n"
     "output out(x, y): i32 = sum(s in 0..N) (m(x, y) + min(s, 5))\n"
     "schedule\n"
     "materialize m\n",
     {0, 0}, {64, 4}, {2, 9}, {0, 0}, {64, 4}, {2, 9}, false},
    {"interpreted with k = 2, then compiled and run with k = 200 on a wider output",
     "input in: u8[1]\n"
     "param k: i32\n"
     "output out(x): i32 = min(k, 100) + min(x, 40) + i32(in(x))\n"
     "schedule\n"
     "vectorize out.x natural\n",
     {0}, {16}, {2}, {0}, {64}, {200}, false},
    {"compute_at window with a read inside a reduction that is empty (p >= 3): one row, then three",
     "input in0: i8[2]\n"
     "param p: i32\n"
     "func m0(x, y) = min(r0 in 1..3) (u16(67))\n"
     "output out(x, y): u8 = u8(m0(max(x, 5), 2 * y + 1)) + min(r1 in p..3) ((u8(m0(x + 3, 2 * y + 0)) * u8(y)))\n"
     "schedule\n"
     "compute_at m0 out.y\n"
     "vectorize m0.x 2\n"
     "vectorize out.r1 8\n"
     "vectorize out.x 1\n"
     "unroll out.y 5\n",
     {0, 0}, {20, 1}, {5}, {3, 1}, {17, 3}, {4}, true},
};

/* Ahead of time too: the object's code (LLVM IR) and the stages as selected are the same
 * text emitted in a fresh context and in one where runs came first. */
static void regression_aot(const regression_t *g) {
    uint64_t seed = 11;
    const char *level = LEVELS[NLEVELS - 1];
    char *before[2] = {NULL, NULL}, *after[2];
    size_t n;
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = tine_kernel_parse(ctx, g->text, "<regression>");
    if (k) {
        before[0] = tine_kernel_emit(k, level, TINE_SELECT_TINE, "k", "llvm", &n);
        before[1] = tine_kernel_print_stages(k, TINE_SELECT_TINE, level);
        tine_kernel_free(k);
    }
    tine_ctx_free(ctx);
    ctx = tine_ctx_new();
    k = tine_kernel_parse(ctx, g->text, "<regression>");
    if (!k) {
        fail("regression '%s' does not parse: %s", g->title, tine_error(ctx));
        tine_ctx_free(ctx);
        return;
    }
    run_t a, b;
    make_run(k, &a, g->amin, g->aext, 0, g->apv, &seed);
    make_run(k, &b, g->bmin, g->bext, 0, g->bpv, &seed);
    a.ref_rc = tine_kernel_interpret(k, a.inp, a.params, &a.ref.b);
    tine_compiled_t *c = tine_kernel_compile(k, level, TINE_SELECT_LLVM);
    if (c) a.got_rc[0] = tine_compiled_run(c, a.inp, a.params, &a.got[0].b);
    b.ref_rc = tine_kernel_interpret(k, b.inp, b.params, &b.ref.b);
    after[0] = tine_kernel_emit(k, level, TINE_SELECT_TINE, "k", "llvm", &n);
    after[1] = tine_kernel_print_stages(k, TINE_SELECT_TINE, level);
    for (int w = 0; w < 2; w++)
        CHECK(before[w] && after[w] && !strcmp(before[w], after[w]),
              "regression '%s' at %s: %s after runs, not as in a fresh context:\n%s\n--- "
              "after runs\n%s",
              g->title, level, w ? "other selected stages" : "another object (LLVM IR)", before[w] ? before[w] : "(none)",
              after[w] ? after[w] : "(none)");
    for (int w = 0; w < 2; w++) {
        free(before[w]);
        free(after[w]);
    }
    tine_compiled_free(c);
    free_run(&a);
    free_run(&b);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
}

static void test_regressions(void) {
    uint64_t seed = 10;
    for (size_t i = 0; i < sizeof REGRESSIONS / sizeof REGRESSIONS[0]; i++) {
        const regression_t *g = &REGRESSIONS[i];
        regression_aot(g);
        for (int l = 0; l < NLEVELS; l++)
            for (int s = 0; s < 2; s++) {
                tine_ctx_t *ctx = tine_ctx_new();
                tine_kernel_t *k = tine_kernel_parse(ctx, g->text, "<regression>");
                if (!k) {
                    fail("regression '%s' does not parse: %s", g->title, tine_error(ctx));
                    tine_ctx_free(ctx);
                    continue;
                }
                run_t a, b;
                make_run(k, &a, g->amin, g->aext, 0, g->apv, &seed);
                make_run(k, &b, g->bmin, g->bext, 0, g->bpv, &seed);
                /* run A first: the interpreter, then the other selection's code */
                a.ref_rc = tine_kernel_interpret(k, a.inp, a.params, &a.ref.b);
                tine_compiled_t *o = tine_kernel_compile(k, LEVELS[l], s ? TINE_SELECT_LLVM : TINE_SELECT_TINE);
                if (o) a.got_rc[!s] = tine_compiled_run(o, a.inp, a.params, &a.got[!s].b);
                /* then this selection, compiled after all that, on run B */
                tine_compiled_t *c = tine_kernel_compile(k, LEVELS[l], s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
                if (c) b.got_rc[s] = tine_compiled_run(c, b.inp, b.params, &b.got[s].b);
                b.ref_rc = tine_kernel_interpret(k, b.inp, b.params, &b.ref.b);
                char what[300];
                snprintf(what, sizeof what, "regression '%s' at %s", g->title, LEVELS[l]);
                CHECK(o && c && a.ref_rc == 0 && b.ref_rc == 0, "%s: does not compile or run: %s", what,
                      tine_error(ctx) ? tine_error(ctx) : "");
                if (o) compare(k, &a, !s, what);
                if (c) compare(k, &b, s, what);
                /* and on the statement interpreter after every pass, which refuses a load or
                   store outside its buffer (compiled code would write past it unseen) */
                for (int j = 0; j < NSTMT && g->stmt && s == 0 && l == NLEVELS - 1; j++) {
                    stmt_run(k, &a, j, LEVELS[l]);
                    stmt_compare(k, &a, j, what);
                }
                tine_compiled_free(o);
                tine_compiled_free(c);
                free_run(&a);
                free_run(&b);
                tine_kernel_free(k);
                tine_ctx_free(ctx);
            }
    }
}

/* ==== 1b. definitions for one instruction set (`on arm`) ==================================== */

/* A function defined again `on arm` is what arm-64 code computes, and the interpreter runs
 * the every-target definition: the arm-64 selection (on the statement interpreter, which
 * evaluates its instructions by their semantics) equals the interpreter when the two
 * definitions agree and differs when they do not, while x86 code runs the every-target one. */
static void test_on_isa(void) {
    static const char *const text[2] = {
        "input in: u8[2]\nfunc g(x, y) = in(x, y) / 2\non arm\nfunc g(x, y) = in(x, y) >> 1\non all\n"
        "output out(x, y): u8 = g(x, y) + 1\nschedule\nvectorize out.x natural\n",
        "input in: u8[2]\nfunc g(x, y) = in(x, y) / 2\non arm\nfunc g(x, y) = in(x, y) >> 2\non all\n"
        "output out(x, y): u8 = g(x, y) + 1\nschedule\nvectorize out.x natural\n"};
    static const int64_t omin[4] = {-3, 2}, oext[4] = {45, 5, 1, 1}; /* make_run reads 4 */
    uint64_t seed = 77;
    for (int t = 0; t < 2; t++) {
        tine_ctx_t *ctx = tine_ctx_new();
        tine_kernel_t *k = tine_kernel_parse(ctx, text[t], "<on>");
        CHECK(k != NULL, "the `on arm` kernel does not parse: %s", tine_error(ctx));
        if (!k) {
            tine_ctx_free(ctx);
            continue;
        }
        run_t r;
        make_run(k, &r, omin, oext, 0, NULL, &seed);
        r.ref_rc = tine_kernel_interpret(k, r.inp, r.params, &r.ref.b);
        for (int s = 0; s < 2; s++) {
            int rc = tine_kernel_interpret_stmt(k, "hoist", s ? TINE_SELECT_TINE : TINE_SELECT_LLVM, "arm-64", r.inp,
                                                r.params, &r.got[s].b);
            bool same = rc == 0 && r.ref_rc == 0 && !memcmp(r.ref.b.data, r.got[s].b.data, r.ref.bytes);
            CHECK(same == (t == 0), "on arm, %s selection: the arm-64 statement %s the interpreter (%s definition)",
                  SEL_NAME[s], same ? "equals" : "differs from", t ? "a different" : "an equal");
        }
        tine_compiled_t *c = tine_kernel_compile(k, LEVELS[0], TINE_SELECT_TINE);
        int rc = c ? tine_compiled_run(c, r.inp, r.params, &r.got[0].b) : -1;
        CHECK(rc == 0 && !memcmp(r.ref.b.data, r.got[0].b.data, r.ref.bytes),
              "on arm: %s code does not compute the every-target definition", LEVELS[0]);
        tine_compiled_free(c);
        free_run(&r);
        tine_kernel_free(k);
        tine_ctx_free(ctx);
    }
}

/* ==== 2. empty reduction ranges ============================================================== */

/* sum, min and max over an empty constant range (0..0, 3..1) and over a loop range that is
 * empty for the run (0..p with p = 0) give the identity of the body's type, for every
 * element type: on the interpreter and in compiled code of both selections. */
static void test_empty_ranges(void) {
    static const char *const T[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"};
    static const char *const OP[] = {"sum", "min", "max"};
    static const char *const RANGE[] = {"0..0", "3..1", "0..p"};
    uint64_t seed = 3;
    tine_ctx_t *ctx = tine_ctx_new();
    for (int t = 0; t < 10; t++)
        for (int o = 0; o < 3; o++)
            for (int r = 0; r < 3; r++) {
                char text[300];
                snprintf(text, sizeof text,
                         "input in: %s[1]\nparam p: i32\noutput out(x): %s = %s(r in %s) (in(x + r))\n", T[t], T[t],
                         OP[o], RANGE[r]);
                tine_clear_error(ctx);
                tine_kernel_t *k = tine_kernel_parse(ctx, text, "<empty>");
                if (!k) {
                    fail("an empty reduction is refused: %s\n%s", tine_error(ctx), text);
                    continue;
                }
                tine_type_t et = tine_kernel_output_type(k);
                /* the identity's bits */
                uint64_t want;
                if (et.kind == TINE_FLOAT) {
                    double v = o == 0 ? 0.0 : o == 1 ? __builtin_inf() : -__builtin_inf();
                    float f = (float)v;
                    want = 0;
                    if (et.bits == 32) memcpy(&want, &f, 4);
                    else memcpy(&want, &v, 8);
                } else if (o == 0) want = 0;
                else want = o == 1 ? (uint64_t)tine_type_max(et) : (uint64_t)tine_type_min(et);
                int64_t omin[4] = {-2}, oext[4] = {37}, pv[MAXP] = {0};
                run_t run;
                make_run(k, &run, omin, oext, 0, pv, &seed);
                run.ref_rc = tine_kernel_interpret(k, run.inp, run.params, &run.ref.b);
                bool ok = run.ref_rc == 0;
                int eb = et.bits / 8;
                for (int64_t i = 0; i < oext[0] && ok; i++) {
                    uint64_t v = 0;
                    memcpy(&v, (char *)run.ref.b.data + i * eb, (size_t)eb);
                    ok = v == (eb == 8 ? want : want & ((1ull << et.bits) - 1));
                }
                CHECK(ok, "%s(r in %s) over %s: the interpreter does not give the identity", OP[o], RANGE[r], T[t]);
                for (int sel = (t + o + r) % 2; sel < 2; sel += 2) { /* the selections in turn */
                    tine_compiled_t *c = tine_kernel_compile(k, LEVELS[(t + o + r) % NLEVELS],
                                                             sel ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
                    if (c) run.got_rc[sel] = tine_compiled_run(c, run.inp, run.params, &run.got[sel].b);
                    char what[200];
                    snprintf(what, sizeof what, "%s(r in %s) over %s at %s", OP[o], RANGE[r], T[t],
                             LEVELS[(t + o + r) % NLEVELS]);
                    CHECK(c != NULL, "%s: does not compile: %s", what, tine_error(ctx));
                    if (c) compare(k, &run, sel, what);
                    tine_compiled_free(c);
                }
                free_run(&run);
                tine_kernel_free(k);
            }
    tine_ctx_free(ctx);
}

/* ==== 3. random kernels ==================================================================== */

typedef struct {
    uint64_t *seed;
    tine_buf *b;
    int dims;
    /* what a body may read: name, element type; sources of kind 0 are inputs read directly
       (coordinates stay near the region), 1 boundaries and materialized or inlined
       functions (any coordinates) */
    const char *src[8];
    const char *src_type[8];
    int src_kind[8];
    int nsrc;
    const char *ptype; /* the type of parameter q */
    int slide_a;       /* kind 2 sources (computed at out's last coordinate): their rows are slide_a * y + c */
    int loopvars;      /* loop variables in scope: r<rname[0]> .. */
    int reductions;    /* reductions in this body so far */
    int rname[2];      /* the names of the loop variables in scope: each reduction gets its own */
    int nextr;         /* the next reduction's name */
    int cand[8];       /* outermost reductions with parameter bounds in this body: the ones
                          `vectorize f.rN` may name */
    int ncand;
} gen_t;

static const char *const TYPES[] = {"u8", "i8", "u16", "i16", "u32", "i32"};
enum { NTYPES = 6 };
static const char *const COORD[3] = {"x", "y", "z"};

static int rnd(gen_t *g, int n) { return (int)(tine_rand64(g->seed) % (uint64_t)n); }
static const char *rtype(gen_t *g) { return TYPES[rnd(g, NTYPES)]; }
static int type_bits(const char *t) { return atoi(t + 1); }

/* A coordinate of dimension d for a read: near the coordinate, halved or quartered (with
 * an offset: lane patterns per residue, residue.c), clamped to constants, offset by loop
 * variables or by the parameter, or (for boundaries and functions, kind 1) doubled or
 * tripled (strided loads). */
static void gen_coord(gen_t *g, int d, int kind) {
    const char *c = COORD[d];
    if (kind == 2 && d == g->dims - 1) { /* a row of a sliding window: a*y + c, a the same for every read */
        if (g->slide_a == 1) tine_buf_printf(g->b, "%s + %d", c, rnd(g, 5) - 2);
        else tine_buf_printf(g->b, "%d * %s + %d", g->slide_a, c, rnd(g, 5) - 2);
        return;
    }
    if (kind == 2) kind = 1;
    switch (rnd(g, kind ? 9 : 8)) {
    case 0: case 1: tine_buf_puts(g->b, c); break;
    case 2: tine_buf_printf(g->b, "%s + %d", c, rnd(g, 7) - 3); break;
    case 3:
        switch (rnd(g, 4)) {
        case 0: tine_buf_printf(g->b, "%s / 2", c); break;
        case 1: tine_buf_printf(g->b, "(%s + %d) / 2", c, rnd(g, 5) - 2); break;
        case 2: tine_buf_printf(g->b, "%s / 4", c); break;
        default: tine_buf_printf(g->b, "(%s - %d) / 4 + %s / 2", c, rnd(g, 4), c); break;
        }
        break;
    case 4: tine_buf_printf(g->b, "min(%s, %d)", c, rnd(g, 48)); break;
    case 5: tine_buf_printf(g->b, "max(%s, %d)", c, rnd(g, 24)); break;
    case 6:
        if (g->loopvars) tine_buf_printf(g->b, "%s + r%d", c, g->rname[rnd(g, g->loopvars)]);
        else tine_buf_printf(g->b, "clamp(%s, %d, %d)", c, rnd(g, 4), 4 + rnd(g, 40));
        break;
    case 7: tine_buf_printf(g->b, "%s + (p & 3)", c); break;
    default: tine_buf_printf(g->b, rnd(g, 3) ? "%s * 2" : "%s * 3 + 1", c); break;
    }
}

static void gen_expr(gen_t *g, const char *T, int depth);

/* A value of type T that is a leaf: a read, a coordinate, a parameter, a loop variable,
 * a constant; cast to T where it has another type. */
static void gen_leaf(gen_t *g, const char *T) {
    int k = rnd(g, 10);
    if (k < 4 && g->nsrc) {
        int s = rnd(g, g->nsrc);
        bool cast = strcmp(g->src_type[s], T) != 0;
        if (cast) tine_buf_printf(g->b, "%s(", T);
        tine_buf_printf(g->b, "%s(", g->src[s]);
        for (int d = 0; d < g->dims; d++) {
            if (d) tine_buf_puts(g->b, ", ");
            gen_coord(g, d, g->src_kind[s]);
        }
        tine_buf_puts(g->b, cast ? "))" : ")");
        return;
    }
    switch (k) {
    case 4: tine_buf_printf(g->b, "%s(%s)", T, COORD[rnd(g, g->dims)]); break;
    case 5: /* a coordinate, its parity or its half (constant lane patterns, residue.c) */
        tine_buf_printf(g->b, (const char *[]){"%s(%s)", "%s(%s %% 2)", "%s((%s + 1) / 2)", "%s(%s %% 4)"}[rnd(g, 4)],
                        T, COORD[rnd(g, g->dims)]);
        break;
    case 6:
        if (g->loopvars) {
            tine_buf_printf(g->b, "%s(r%d)", T, g->rname[rnd(g, g->loopvars)]);
            break;
        }
        /* fall through */
    case 7: tine_buf_printf(g->b, "%s(q)", T); break;
    case 8: tine_buf_printf(g->b, "%s(p)", T); break;
    default: tine_buf_printf(g->b, "%s(%d)", T, rnd(g, 100)); break;
    }
}

/* Reduction bounds: constants (empty ones too), the parameter, an enclosing loop variable.
 * Whether they make a loop (not constants). */
static bool gen_range(gen_t *g) {
    switch (rnd(g, 7)) {
    case 0: tine_buf_printf(g->b, "%d..%d", rnd(g, 3), rnd(g, 4)); return false; /* may be empty */
    case 1: tine_buf_printf(g->b, "%d..%d", rnd(g, 2), 2 + rnd(g, 2)); return false;
    case 2: case 3: tine_buf_puts(g->b, "0..p"); break;
    case 4: tine_buf_puts(g->b, "0..min(p, 3)"); break;
    case 5: tine_buf_printf(g->b, "%d..p + %d", -rnd(g, 2), rnd(g, 2)); break;
    default:
        if (g->loopvars) tine_buf_printf(g->b, "0..r%d + 1", g->rname[g->loopvars - 1]);
        else tine_buf_puts(g->b, "p..3");
        break;
    }
    return true;
}

static void gen_expr(gen_t *g, const char *T, int depth) {
    if (depth <= 0) {
        gen_leaf(g, T);
        return;
    }
    int bits = type_bits(T);
    /* division and modulo are rare: LLVM's code for vector division is large and slow to
       compile, and the test's budget is compile time */
    static const char *const BIN[] = {"+", "-", "*", "&", "|", "^", "+", "-", "*", "-", "&", "+", "-", "|",
                                      "^", "*", "+", "-", "/", "%"};
    static const char *const SAME2[] = {"saturating_add", "saturating_sub", "halving_add", "rounding_halving_add",
                                        "min", "max"};
    static const char *const WIDE2[] = {"absd", "widening_add", "widening_mul", "widening_sub"};
    switch (rnd(g, 14)) {
    case 0: case 1: case 2:
        tine_buf_puts(g->b, "(");
        gen_expr(g, T, depth - 1);
        tine_buf_printf(g->b, " %s ", BIN[rnd(g, 20)]);
        if (rnd(g, 3)) gen_expr(g, T, depth - 1);
        else tine_buf_printf(g->b, "%d", rnd(g, 100));
        tine_buf_puts(g->b, ")");
        break;
    case 3: /* against constants: what bounds-predicated rules simplify */
        if (rnd(g, 2)) {
            tine_buf_printf(g->b, "%s(", rnd(g, 2) ? "min" : "max");
            gen_expr(g, T, depth - 1);
            tine_buf_printf(g->b, ", %d)", rnd(g, 64));
        } else {
            int lo = rnd(g, 20);
            tine_buf_puts(g->b, "clamp(");
            gen_expr(g, T, depth - 1);
            tine_buf_printf(g->b, ", %d, %d)", lo, lo + rnd(g, 80));
        }
        break;
    case 4:
        tine_buf_printf(g->b, "%s(", SAME2[rnd(g, 6)]);
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    case 5: {
        const char *U = rtype(g);
        tine_buf_printf(g->b, "%s(%s(", T, WIDE2[rnd(g, 4)]);
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, "))");
        break;
    }
    case 6: {
        const char *U = rtype(g);
        tine_buf_printf(g->b, rnd(g, 2) ? "%s(" : "saturating_cast<%s>(", T);
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    }
    case 7:
        tine_buf_puts(g->b, "(");
        gen_expr(g, T, depth - 1);
        tine_buf_printf(g->b, " %s %d)", rnd(g, 2) ? ">>" : "<<", rnd(g, bits));
        break;
    case 8: {
        static const char *const CMP[] = {"<", "<=", "==", "!=", ">", ">="};
        const char *U = rtype(g);
        tine_buf_puts(g->b, "select(");
        gen_expr(g, U, depth - 1);
        tine_buf_printf(g->b, " %s ", CMP[rnd(g, 6)]);
        if (rnd(g, 2)) gen_expr(g, U, depth - 1);
        else tine_buf_printf(g->b, "%d", rnd(g, 64));
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    }
    case 9: case 10:
        if (g->reductions < 3 && g->loopvars < 2) {
            static const char *const RED[] = {"sum", "min", "max"};
            int v = g->nextr++;
            g->reductions++;
            tine_buf_printf(g->b, "%s(r%d in ", RED[rnd(g, 3)], v);
            bool loop = gen_range(g);
            bool cand = loop && !g->loopvars && g->ncand < 8;
            tine_buf_puts(g->b, ") (");
            g->rname[g->loopvars++] = v;
            gen_expr(g, T, depth - 1);
            g->loopvars--;
            /* a reduction nested inside may take its bounds from v, which a vectorized v
               would make a vector: the compiler refuses that, so only leaves are named */
            if (cand && g->nextr == v + 1) g->cand[g->ncand++] = v;
            tine_buf_puts(g->b, ")");
            break;
        }
        /* fall through */
    default: gen_leaf(g, T); break;
    }
}

/* Random split, fuse, reorder (and unroll, partition, parallel of the loops they make) of
 * stage fn's loops, from their own random stream (the kernels' other draws stay as they
 * were). touched[d]: coordinate d already unrolled, partitioned or parallel (not split or
 * fused then); par: its last coordinate's loop is parallel already (so stays outermost);
 * may_par: the stage may run a loop in parallel. The generator keeps the
 * nest as the checker does, so every directive it writes is valid. */
typedef struct {
    char name[24];
    int kind, dim; /* 0 whole, 1 split outer, 2 split inner, 3 fused */
    bool touched;
} gloop;

static void gen_reshape(tine_buf *b, uint64_t *seed, const char *fn, int dims, const bool *touched, bool par, bool may_par) {
    gen_t g = {.seed = seed};
    gloop L[8];
    int n = 0;
    for (int d = dims - 1; d >= 0; d--) {
        L[n] = (gloop){.kind = 0, .dim = d, .touched = touched[d]};
        snprintf(L[n++].name, sizeof L[0].name, "%s", COORD[d]);
    }
    int steps = 1 + rnd(&g, 3);
    for (int step = 0; step < steps; step++) {
        int what = rnd(&g, 4), i = rnd(&g, n);
        if (what == 0 || what == 1) { /* split a whole, untouched loop */
            if (L[i].kind != 0 || L[i].touched || n == 8) continue;
            int f = 1 + rnd(&g, 9), d = L[i].dim;
            memmove(&L[i + 1], &L[i], sizeof *L * (size_t)(n - i));
            n++;
            L[i] = (gloop){.kind = 1, .dim = d};
            L[i + 1] = (gloop){.kind = 2, .dim = d};
            snprintf(L[i].name, sizeof L[i].name, "%so%d", COORD[d], step);
            snprintf(L[i + 1].name, sizeof L[i].name, "%si%d", COORD[d], step);
            tine_buf_printf(b, "split %s.%s %s %s %d\n", fn, COORD[d], L[i].name, L[i + 1].name, f);
            if (rnd(&g, 3) == 0) { /* the inner or outer loop unrolled */
                int j = i + rnd(&g, 2);
                tine_buf_printf(b, "unroll %s.%s %d\n", fn, L[j].name, 2 + rnd(&g, 2));
                L[j].touched = true;
            }
            if (rnd(&g, 4) == 0) {
                static const char *const PART[] = {"auto", "always", "never"};
                int j = i + rnd(&g, 2);
                tine_buf_printf(b, "partition %s.%s %s\n", fn, L[j].name, PART[rnd(&g, 3)]);
                L[j].touched = true;
            }
        } else if (what == 2) { /* fuse loop i with the one just outside it */
            if (i == 0 || L[i].kind != 0 || L[i - 1].kind != 0 || L[i].touched || L[i - 1].touched || L[i].dim == 0 ||
                L[i - 1].dim == 0)
                continue;
            tine_buf_printf(b, "fuse %s.%s %s.%s f%d\n", fn, L[i].name, fn, L[i - 1].name, step);
            L[i - 1] = (gloop){.kind = 3, .dim = L[i].dim};
            snprintf(L[i - 1].name, sizeof L[0].name, "f%d", step);
            memmove(&L[i], &L[i + 1], sizeof *L * (size_t)(n - i - 1));
            n--;
        } else if (n >= 2) { /* reorder: a random order where each split's inner loop stays inside */
            gloop M[8];
            memcpy(M, L, sizeof M);
            for (int j = n - 1; j > 0; j--) {
                int r = rnd(&g, j + 1);
                gloop t = M[j];
                M[j] = M[r];
                M[r] = t;
            }
            bool ok = !par;
            for (int j = 0; j < n; j++)
                for (int m = j + 1; m < n; m++) ok &= !(M[j].kind == 2 && M[m].kind == 1 && M[m].dim == M[j].dim);
            if (!ok) continue;
            tine_buf_puts(b, "reorder");
            for (int j = n - 1; j >= 0; j--) tine_buf_printf(b, " %s.%s", fn, M[j].name); /* innermost first */
            tine_buf_puts(b, "\n");
            memcpy(L, M, sizeof M);
        }
    }
    /* the outermost loop in parallel (not the vector loop) */
    bool now_par = false;
    if (may_par && !par && !(L[0].dim == 0 && L[0].kind != 1) && !L[0].touched && rnd(&g, 3) == 0) {
        tine_buf_printf(b, "parallel %s.%s\n", fn, L[0].name);
        now_par = true;
    }
    /* a tile of two whole, untouched loops, any two in either order (split both, the inner
       loops inside the outer ones: kernel_loops.c) */
    int w[8], nw = 0;
    for (int m = 0; m < n; m++)
        if (L[m].kind == 0 && !L[m].touched && !(now_par && m == 0)) w[nw++] = m;
    if (nw >= 2 && !par && may_par && rnd(&g, 2) == 0) { /* not of a function computed at a loop */
        int i = rnd(&g, nw), j = (i + 1 + rnd(&g, nw - 1)) % nw;
        tine_buf_printf(b, "tile %s %s %s %d %d\n", fn, L[w[i]].name, L[w[j]].name, 1 + rnd(&g, 9), 1 + rnd(&g, 9));
    }
}

/* Whether every read of m0 in the output's body has its first coordinate at x or x + a
 * constant (what channel tiles need). */
static bool reads_at_x(const char *text) {
    const char *o = strstr(text, "output ");
    if (!o) return false;
    for (const char *r = strstr(o, "m0("); r; r = strstr(r + 3, "m0(")) {
        const char *a = r + 3;
        int k, n = 0;
        if (!strncmp(a, "x, ", 3) || !strncmp(a, "x)", 2)) continue;
        if (sscanf(a, "x + %d%n", &k, &n) >= 1 && n && (a[n] == ',' || a[n] == ')')) continue;
        return false;
    }
    return true;
}

/* A random kernel; *parallel says whether it splits its output's last coordinate. */
static char *gen_kernel(uint64_t *seed, int *dims_out, bool automatic) {
    tine_buf b = {0};
    gen_t g = {.seed = seed, .b = &b};
    int dims = g.dims = 1 + rnd(&g, 3) % 2 + (rnd(&g, 12) == 0);
    *dims_out = dims;
    char args[16] = "x";
    if (dims > 1) strcat(args, ", y");
    if (dims > 2) strcat(args, ", z");
    int nin = 1 + (rnd(&g, 3) == 0);
    const char *it[2] = {rtype(&g), rtype(&g)};
    for (int i = 0; i < nin; i++) tine_buf_printf(&b, "input in%d: %s[%d]\n", i, it[i], dims);
    g.ptype = rtype(&g);
    tine_buf_printf(&b, "param p: i32\nparam q: %s\n", g.ptype);
    for (int i = 0; i < nin; i++) {
        g.src[g.nsrc] = i ? "in1" : "in0";
        g.src_type[g.nsrc] = it[i];
        g.src_kind[g.nsrc++] = 0;
    }
    /* boundaries */
    if (rnd(&g, 2)) {
        tine_buf_puts(&b, "func e = edge(in0)\n");
        g.src[g.nsrc] = "e";
        g.src_type[g.nsrc] = it[0];
        g.src_kind[g.nsrc++] = 1;
    }
    if (rnd(&g, 2)) {
        tine_buf_printf(&b, "func z = constant(in%d, %d)\n", nin - 1, rnd(&g, 100));
        g.src[g.nsrc] = "z";
        g.src_type[g.nsrc] = it[nin - 1];
        g.src_kind[g.nsrc++] = 1;
    }
    /* functions: materialized m0, m1 (m1 may read m0), an inlined f */
    static const char *const FN[3] = {"m0", "m1", "f"};
    bool has[3] = {false};
    /* m0 computed at the output's last coordinate (a sliding window): then only the
       output reads it, its rows a*y + c */
    bool at = dims >= 2 && rnd(&g, 3) == 0;
    const char *m0_type = NULL, *ftype[3] = {NULL};
    g.slide_a = 1 + rnd(&g, 2);
    int cand[3][8], ncand[3] = {0};
    for (int f = 0; f < 3; f++) {
        /* each stage costs compile time: one materialized function in two kernels, two in
           eight */
        if (!(f == 0 && at) && (f == 0 ? rnd(&g, 2) : f == 1 ? rnd(&g, 4) : rnd(&g, 3))) continue;
        const char *T = rtype(&g);
        if (f == 0) m0_type = T;
        ftype[f] = T;
        int depth = 1 + rnd(&g, 2);
        g.reductions = g.ncand = 0;
        tine_buf_printf(&b, "func %s(%s) = ", FN[f], args);
        gen_expr(&g, T, depth);
        tine_buf_puts(&b, "\n");
        has[f] = true;
        memcpy(cand[f], g.cand, sizeof g.cand);
        ncand[f] = f < 2 ? g.ncand : 0; /* f is inlined: its reductions are its callers' */
        if (f == 0 && at) continue; /* readable by the output only: added below */
        g.src[g.nsrc] = FN[f];
        g.src_type[g.nsrc] = T;
        g.src_kind[g.nsrc++] = 1;
    }
    at = at && has[0];
    if (at) {
        g.src[g.nsrc] = FN[0];
        g.src_type[g.nsrc] = m0_type;
        g.src_kind[g.nsrc++] = 2;
    }
    const char *OT = rtype(&g);
    g.reductions = g.ncand = 0;
    tine_buf_printf(&b, "output out(%s): %s = ", args, OT);
    /* the output reads every function (so each is computed), then a random body */
    int depth = 1 + rnd(&g, 3);
    bool any = false;
    for (int f = 0; f < 3; f++) {
        if (!has[f]) continue;
        if (any) tine_buf_puts(&b, " + ");
        tine_buf_printf(&b, "%s(%s(", OT, FN[f]);
        for (int d = 0; d < dims; d++) {
            if (d) tine_buf_puts(&b, ", ");
            gen_coord(&g, d, f == 0 && at ? 2 : 1);
        }
        tine_buf_puts(&b, "))");
        any = true;
    }
    /* under schedule auto, each function read at two more taps (one row and one column
       on): stencils whose producers the scheduler may materialize and whose rows it may
       unroll (no random draws: the stream stays the other kernels') */
    for (int f = 0; f < 3 && automatic; f++)
        if (has[f]) {
            for (int t = 1; t <= 2 && t <= dims; t++) {
                tine_buf_printf(&b, " + %s(%s(", OT, FN[f]);
                for (int d = 0; d < dims; d++) tine_buf_printf(&b, "%s%s%s", d ? ", " : "", COORD[d], d == t - 1 ? " + 1" : "");
                tine_buf_puts(&b, "))");
            }
        }
    if (any) tine_buf_puts(&b, " + ");
    gen_expr(&g, OT, depth);
    tine_buf_puts(&b, "\nschedule\n");
    for (int f = 0; f < 2; f++)
        if (has[f]) {
            if (f == 0 && at) {
                tine_buf_printf(&b, "compute_at m0 out.%s\n", COORD[dims - 1]);
                if (rnd(&g, 3) == 0) tine_buf_printf(&b, "store_at m0 out.%s\n", COORD[dims - 1]);
            } else {
                tine_buf_printf(&b, "%s %s\n", rnd(&g, 2) ? "materialize" : "compute_root", FN[f]);
            }
            if (rnd(&g, 2)) tine_buf_printf(&b, "vectorize %s.x %d\n", FN[f], 1 << rnd(&g, 5));
        }
    /* loop reductions vectorized along their variable, any width (sums, min and max of
       every integer type; the ranges p gives are short: fewer terms than lanes, as many,
       a few more) */
    memcpy(cand[2], g.cand, sizeof g.cand);
    ncand[2] = g.ncand;
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < ncand[f]; i++)
            if (rnd(&g, 2)) tine_buf_printf(&b, "vectorize %s.r%d %d\n", f < 2 ? FN[f] : "out", cand[f][i], 1 << rnd(&g, 6));
    if (rnd(&g, 3)) tine_buf_puts(&b, "vectorize out.x natural\n");
    else tine_buf_printf(&b, "vectorize out.x %d\n", 1 << rnd(&g, 5));
    bool touched[3][3] = {{false}}; /* m0, m1, out: coordinates unrolled, partitioned or parallel */
    bool tiled = dims >= 2 && !at && rnd(&g, 6) == 0; /* compute_at: the output's rows in order */
    if (tiled) tine_buf_printf(&b, "tile out x y %d %d\n", 4 << rnd(&g, 3), 1 + rnd(&g, 3));
    /* unrolled points (2 or 3 vectors, 2 or 5 rows: the rows' tails) share the loops of
       their loop reductions when none is vectorized (unroll-and-jam); one draw each, as
       before, so the stream stays the other kernels' */
    bool out_par = false;
    int ux = rnd(&g, 8), uy = dims >= 2 && !tiled ? rnd(&g, 8) : 8;
    if (ux < 2) {
        tine_buf_printf(&b, "unroll out.x %d\n", 2 + ux);
        touched[2][0] = true;
    }
    if (uy < 2) {
        tine_buf_printf(&b, "unroll out.y %d\n", 2 + 3 * uy);
        touched[2][1] = true;
    }
    if (dims >= 2 && !at && rnd(&g, 3) == 0) {
        tine_buf_printf(&b, "parallel out.%s\n", COORD[dims - 1]);
        touched[2][dims - 1] = out_par = true;
    }
    if (dims == 3 && at && rnd(&g, 4) == 0) {
        tine_buf_puts(&b, "unroll out.z 2\n");
        touched[2][2] = true;
    }
    /* partitioning per loop: auto is the default; always splits loops without conditions
       too, never keeps them whole */
    static const char *const PART[] = {"auto", "always", "never"};
    for (int f = 0; f < 3; f++) {
        if (f < 2 && !has[f]) continue;
        for (int d = 0; d < dims; d++)
            if (rnd(&g, 4) == 0) {
                tine_buf_printf(&b, "partition %s.%s %s\n", f < 2 ? FN[f] : "out", COORD[d], PART[rnd(&g, 3)]);
                touched[f][d] = true;
            }
    }
    /* split, fuse, reorder of each stage, half the time (not of a tiled output, nor of one
       another is computed at), from a stream of their own */
    uint64_t rs = 0x5eed;
    for (const char *c = b.p; *c; c++) rs = rs * 31 + (uint8_t)*c;
    for (int f = 0; f < 3 && !automatic; f++)
        if ((f == 2 ? !tiled && !at : has[f]) && tine_rand64(&rs) % 2)
            gen_reshape(&b, &rs, f < 2 ? FN[f] : "out", dims, touched[f], f == 2 && out_par, !(f == 0 && at));
    /* compute_at at a strip: the output's row loop split, m0 computed at its outer loop
       (the directive rewritten in place: the split must come first) */
    char at_dir[64];
    snprintf(at_dir, sizeof at_dir, "compute_at m0 out.%s\n", COORD[dims - 1]);
    char *atp = at && !automatic && !touched[2][dims - 1] ? strstr(b.p, at_dir) : NULL;
    if (atp && tine_rand64(&rs) % 2) {
        int N = 1 + (int)(tine_rand64(&rs) % 9);
        bool unroll = tine_rand64(&rs) % 3 == 0;
        tine_buf nb = {0};
        tine_buf_printf(&nb, "%.*s", (int)(atp - b.p), b.p);
        tine_buf_printf(&nb, "split out.%s so si %d\ncompute_at m0 out.so\n", COORD[dims - 1], N);
        if (unroll) tine_buf_printf(&nb, "unroll out.%s 2\n", tine_rand64(&rs) % 2 ? "so" : "si");
        tine_buf_puts(&nb, atp + strlen(at_dir));
        free(b.p);
        b = nb;
    }
    /* channel tiles: the output's first coordinate split, its outer loop outside the loop
       m0 is computed at (m0 then computed per tile), when every read of m0 has its first
       coordinate at x + a constant */
    atp = at && !automatic && !touched[2][0] ? strstr(b.p, "compute_at m0 out.") : NULL;
    bool ctiled = false;
    if (atp && reads_at_x(b.p) && tine_rand64(&rs) % 2) {
        ctiled = true;
        bool strip = strstr(b.p, "compute_at m0 out.so\n") != NULL;
        tine_buf nb = {0};
        tine_buf_printf(&nb, "%.*s", (int)(atp - b.p), b.p);
        tine_buf_printf(&nb, "split out.x xo xi %d\nreorder out.xi", 1 + (int)(tine_rand64(&rs) % 40));
        if (strip) tine_buf_puts(&nb, " out.si out.so");
        else if (dims == 3) tine_buf_puts(&nb, " out.y out.z");
        else tine_buf_puts(&nb, " out.y");
        tine_buf_puts(&nb, " out.xo\n");
        /* the rest, the output's vector loop now named out.xi */
        for (const char *r = atp, *v; *r; r = v + strlen("vectorize out.x")) {
            v = strstr(r, "vectorize out.x ");
            if (!v) {
                tine_buf_puts(&nb, r);
                break;
            }
            tine_buf_printf(&nb, "%.*svectorize out.xi", (int)(v - r), r);
        }
        free(b.p);
        b = nb;
    }
    /* a second reader of m0 computed at the same loop (compute_at with several readers),
       a third of the time: m2 reads m0 at rows of m0's slope a (a*r + c, or through a
       division: 2 * (r / 2) + c, (2a * r + c) / 2), the output reads m2 at rows y + c;
       from the reshapes' stream, so the rest of the kernel stays as drawn */
    if (at && !automatic && !ctiled && tine_rand64(&rs) % 3 == 0) { /* (a channel tile takes one reader) */
        const char *Y = COORD[dims - 1];
        char rows[2][48], lead[32] = "";
        for (int d = 1; d < dims - 1; d++) snprintf(lead + strlen(lead), sizeof lead - strlen(lead), ", %s", COORD[d]);
        for (int i = 0; i < 2; i++) {
            int c = (int)(tine_rand64(&rs) % 5) - 2, form = (int)(tine_rand64(&rs) % 3);
            if (form == 0 && g.slide_a == 1) snprintf(rows[i], sizeof rows[i], "%s + %d", Y, c);
            else if (form == 0) snprintf(rows[i], sizeof rows[i], "2 * %s + %d", Y, c);
            else if (form == 1 && g.slide_a == 1) snprintf(rows[i], sizeof rows[i], "2 * (%s / 2) + %d", Y, c);
            else snprintf(rows[i], sizeof rows[i], "(%d * %s + %d) / 2", 2 * g.slide_a, Y, c);
        }
        tine_buf nb = {0};
        char *outp = strstr(b.p, "output out(");
        char *sched = strstr(b.p, "\nschedule\n");
        tine_buf_printf(&nb, "%.*s", (int)(outp - b.p), b.p);
        tine_buf_printf(&nb, "func m2(%s) = m0(x%s, %s) - m0(x + 1%s, %s) * 3\n", args, lead, rows[0], lead, rows[1]);
        tine_buf_printf(&nb, "%.*s + %s(m2(x%s, %s + %d))", (int)(sched - outp), outp, OT, lead, Y,
                        (int)(tine_rand64(&rs) % 5) - 2);
        tine_buf_puts(&nb, sched);
        bool strip = strstr(b.p, "compute_at m0 out.so\n") != NULL;
        tine_buf_printf(&nb, "compute_at m2 out.%s\n", strip ? "so" : Y);
        if (tine_rand64(&rs) % 2) tine_buf_printf(&nb, "vectorize m2.x %d\n", 1 << (int)(tine_rand64(&rs) % 5));
        free(b.p);
        b = nb;
    }
    /* store_as: a materialized function's buffer in its own type or a wider one that
       holds it, instead of the narrowest its values fit (from the stream rs) */
    for (int f = 0; f < 2 && !automatic; f++) {
        const char *T = ftype[f];
        if (!has[f] || !T || (T[0] != 'u' && T[0] != 'i') || tine_rand64(&rs) % 3) continue;
        int bits = type_bits(T), wider = bits < 64 ? 2 * bits : bits, pick = (int)(tine_rand64(&rs) % 3);
        char kind = pick == 2 && T[0] == 'u' && bits < 64 ? 'i' : T[0];
        tine_buf_printf(&b, "store_as %s %c%d\n", FN[f], kind, pick ? wider : bits);
    }
    if (automatic) { /* the automatic scheduler's choice instead (the same random stream) */
        char *sched = strstr(b.p, "\nschedule\n");
        b.n = (size_t)(sched - b.p);
        tine_buf_puts(&b, "\nschedule auto\n");
    }
    return b.p;
}

/* A parameter value for type t: small (p is a reduction bound and an offset), or
 * anywhere in the type, its ends included. */
static int64_t param_value(uint64_t *seed, tine_type_t t, bool small) {
    uint64_t v = tine_rand64(seed);
    if (small) return (int64_t)(v % 8) - 1;
    switch (v % 4) {
    case 0: return (int64_t)(v >> 8) % 64;
    case 1: return t.kind == TINE_INT ? tine_type_min(t) : 0;
    case 2: return (int64_t)tine_type_max(t);
    default:
        if (t.kind == TINE_INT) return (int64_t)(v << (64 - t.bits)) >> (64 - t.bits);
        return (int64_t)(v & ((1ull << t.bits) - 1));
    }
}

/* Events of one kernel: interpret run i (0..2), compile selection s (3, 4), run selection
 * s's code on run i (5 + 3 s + i), run i on the statement interpreter after every pass
 * (11 + i). */
enum { EV_INTERP = 0, EV_COMPILE = 3, EV_RUN = 5, EV_STMT = 11, NEV = 14 };

static void random_order(uint64_t *seed, int *ev) {
    /* a random interleaving in which each compiled run comes after its compilation */
    int n = 0;
    bool done[NEV] = {false};
    while (n < NEV) {
        int cand[NEV], nc = 0;
        for (int e = 0; e < NEV; e++) {
            if (done[e]) continue;
            if (e >= EV_RUN && e < EV_STMT && !done[EV_COMPILE + (e - EV_RUN) / 3]) continue;
            cand[nc++] = e;
        }
        int e = cand[tine_rand64(seed) % (uint64_t)nc];
        done[e] = true;
        ev[n++] = e;
    }
}

static void order_str(tine_buf *b, const int *ev) {
    for (int i = 0; i < NEV; i++) {
        int e = ev[i];
        if (i) tine_buf_puts(b, ", ");
        if (e < EV_COMPILE) tine_buf_printf(b, "interpret %d", e);
        else if (e < EV_RUN) tine_buf_printf(b, "compile %s", SEL_NAME[e - EV_COMPILE]);
        else if (e < EV_STMT) tine_buf_printf(b, "run %s %d", SEL_NAME[(e - EV_RUN) / 3], (e - EV_RUN) % 3);
        else tine_buf_printf(b, "statements %d", e - EV_STMT);
    }
}

static long long kernels_run, runs_compared, runs_refused, stmt_runs, stmt_kernels;
static double t_compile, t_select, t_llvm, t_interp, t_stmt;

/* Whether a run is also checked on the statement interpreter after every pass: runs of
 * at most STMT_MAX_ELEMS output elements (the statement interpreter evaluates each vector
 * expression lane by lane through the expression interpreter) */
static long long stmt_max_elems = 1 << 30;
static bool stmt_checked(const run_t *r) {
    long long n = 1;
    for (int d = 0; d < 4; d++) n *= r->oext[d];
    return n <= stmt_max_elems;
}

static void one_kernel(tine_ctx_t *ctx, int n, uint64_t top_seed, uint64_t *seed) {
    int dims;
    char *text = gen_kernel(seed, &dims, n % 4 == 1); /* every fourth kernel: schedule auto */
    const char *level = LEVELS[n % NLEVELS];
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<random>");
    if (!k) { /* the generator writes only valid kernels */
        fail("seed %" PRIu64 ", kernel %d does not parse:\n%s%s", top_seed, n, text, tine_error(ctx));
        free(text);
        return;
    }
    kernels_run++;
    if (getenv("DIFFKERN_PRINT")) printf("--- kernel %d\n%s", n, text);
    run_t runs[MAXRUNS];
    static const int64_t WIDTHS[] = {1, 3, 5, 7, 13, 17, 31, 33, 63, 67, 100};
    for (int i = 0; i < MAXRUNS; i++) {
        int64_t omin[4] = {0}, oext[4] = {1, 1, 1, 1}, pv[MAXP] = {0};
        for (int d = 0; d < dims; d++) {
            omin[d] = (int64_t)(tine_rand64(seed) % 9) - 3;
            oext[d] = d == 0 ? WIDTHS[tine_rand64(seed) % 11] : 1 + (int64_t)(tine_rand64(seed) % (dims > 2 ? 3 : 6));
            if (i == 0 && n % 8 == 0) oext[d] = 1; /* 1x1 (1x1x1): every loop has one iteration */
        }
        for (int p = 0; p < tine_kernel_nparams(k); p++) {
            tine_type_t pt;
            tine_kernel_param(k, p, &pt);
            pv[p] = param_value(seed, pt, p == 0);
        }
        make_run(k, &runs[i], omin, oext, (int64_t)(tine_rand64(seed) % 3), pv, seed);
        /* an input too small (one column where the run reads many) in every tenth kernel's
           last run: the interpreter, the compiled code and the statements refuse it alike
           (unless every read of it goes through edge()) */
        if (i == MAXRUNS - 1 && n % 10 == 3 && runs[i].nin) runs[i].in[0].b.extent[0] = 1;
    }
    int ev[NEV];
    random_order(seed, ev);
    /* DIFFKERN_FROM=n: kernels before n only draw their random numbers (to rerun kernel n alone) */
    const char *from = getenv("DIFFKERN_FROM");
    if (from && n < atoi(from)) {
        for (int i = 0; i < MAXRUNS; i++) free_run(&runs[i]);
        tine_kernel_free(k);
        free(text);
        return;
    }
    tine_compiled_t *c[2] = {NULL, NULL};
    bool compiled_ok = true;
    for (int i = 0; i < NEV; i++) {
        int e = ev[i];
        if (e < EV_COMPILE) {
            run_t *r = &runs[e];
            double t0 = now();
            tine_clear_error(ctx);
            r->ref_rc = tine_kernel_interpret(k, r->inp, r->params, &r->ref.b);
            if (r->ref_rc) r->ref_err = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "");
            t_interp += now() - t0;
        } else if (e < EV_RUN) {
            int s = e - EV_COMPILE;
            double t0 = now();
            clock_t c0 = clock();
            c[s] = tine_kernel_compile(k, level, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
            t_compile += now() - t0;
            if (getenv("DIFFKERN_PRINT")) printf("compile %d %s %s: %.1f ms CPU\n", n, level, SEL_NAME[s], (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC);
            if (c[s]) {
                double sm, lm;
                tine_compiled_times(c[s], &sm, &lm);
                t_select += sm / 1e3;
                t_llvm += lm / 1e3;
            }
            if (!c[s]) {
                fail("seed %" PRIu64 ", kernel %d at %s: the %s selection does not compile: %s\n%s", top_seed, n, level,
                     SEL_NAME[s], tine_error(ctx), text);
                compiled_ok = false;
            }
        } else if (e < EV_STMT) {
            int s = (e - EV_RUN) / 3;
            run_t *r = &runs[(e - EV_RUN) % 3];
            if (c[s]) r->got_rc[s] = tine_compiled_run(c[s], r->inp, r->params, &r->got[s].b);
        } else if (stmt_checked(&runs[e - EV_STMT])) {
            double t0 = now();
            for (int j = 0; j < NSTMT; j++) stmt_run(k, &runs[e - EV_STMT], j, level);
            t_stmt += now() - t0;
        }
    }
    if (compiled_ok) {
        tine_buf what = {0};
        tine_buf_printf(&what, "seed %" PRIu64 ", kernel %d at %s, events ", top_seed, n, level);
        order_str(&what, ev);
        tine_buf_printf(&what, "\n--- kernel\n%s---", text);
        bool stmt_kernel = false;
        for (int i = 0; i < MAXRUNS; i++) {
            runs_compared++;
            runs_refused += runs[i].ref_rc != 0;
            for (int s = 0; s < 2; s++) compare(k, &runs[i], s, what.p);
            if (stmt_checked(&runs[i])) {
                stmt_runs++;
                stmt_kernel = true;
                for (int j = 0; j < NSTMT; j++) stmt_compare(k, &runs[i], j, what.p);
            }
        }
        stmt_kernels += stmt_kernel;
        free(what.p);
    }
    for (int s = 0; s < 2; s++) tine_compiled_free(c[s]);
    for (int i = 0; i < MAXRUNS; i++) free_run(&runs[i]);
    tine_kernel_free(k);
    free(text);
}

static void test_random(int count, uint64_t top_seed) {
    uint64_t seed = top_seed;
    tine_ctx_t *ctx = NULL;
    for (int n = 0; n < count; n++) {
        if (n % 50 == 0) { /* kernels share a context in batches */
            tine_ctx_free(ctx);
            ctx = tine_ctx_new();
        }
        one_kernel(ctx, n, top_seed, &seed);
    }
    tine_ctx_free(ctx);
    printf("random kernels: %d (seed %" PRIu64 "), %lld runs compared with both selections, %lld refused by "
           "the interpreter; %lld runs of %lld kernels (at most %lld output elements) on the statement interpreter "
           "after every pass\n",
           count, top_seed, runs_compared, runs_refused, stmt_runs, stmt_kernels, stmt_max_elems);
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 1000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261123;
    if (argc > 3) stmt_max_elems = atoll(argv[3]);
    detect_levels();
    double t0 = now();
    if (!getenv("DIFFKERN_FROM")) { /* a rerun of one random kernel skips the fixed cases */
        test_scopes();
        test_regressions();
        test_on_isa();
        test_empty_ranges();
    }
    double t1 = now();
    test_random(count, seed);
    printf("times: regressions %.2f s, random kernels %.2f s (compiling %.2f s: selection %.2f s, LLVM %.2f s; "
           "interpreting %.2f s, statements after every pass %.2f s)\n",
           t1 - t0, now() - t1, t_compile, t_select, t_llvm, t_interp, t_stmt);
    printf("test_diffkern: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
