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
 *      The generator (diffkern_gen.c) also writes, from issue 30: reductions with negative
 *      constant bounds, wrapping arithmetic on reduction variables (r * 2^30 / 2^30, r *
 *      c + INT_MAX) and reinterprets of them, reads of functions and boundaries at
 *      negative and scaled offsets (2 * x - 3, 4 - x), `inline f`, `vectorize f.rN
 *      natural` and `acc A`, f defined again `on arm` (another value: x86 code must keep
 *      the every-target one) or `on x86` (the same value), and `on arm` directives at the
 *      end of the schedule (the output's width, unrolling, f materialized). Every eighth
 *      kernel (every one with DIFFKERN_ARM=1) whose Arm definitions have the same values
 *      also runs its runs of at most 256 elements at arm-64 on the statement interpreter
 *      after the last pass (the Arm instructions evaluated by their semantics), against
 *      the interpreter.
 *   4. Reduction kernels against an evaluator written independently of tine (COUNT of
 *      them, or DIFFKERN_RED_COUNT): diffkern_redgen.c draws a kernel as a tree and
 *      prints it, diffkern_eval.c computes each output element from the tree in C by
 *      docs/SEMANTICS.md (i32 reduction variables, wrapping arithmetic, floor division,
 *      casts by the source's signedness, identities of empty ranges, boundaries), and
 *      tine_kernel_interpret must give the same bytes (or refuse exactly the runs that
 *      read outside the input). Every third (DIFFKERN_RED_SCHED=N: every Nth) also gets
 *      a random schedule (diffkern_redgen.c's dk_schedule: materialize, compute_root,
 *      inline, compute_at at a row or a strip, store_at, store_as, vectorize of
 *      coordinates and of loop reductions with acc, unroll, split, tile, parallel,
 *      partition) and is compiled at a rotating x86 level with one selection, or (a
 *      third of them) run at arm-64 on the statement interpreter, against the
 *      interpreter; a schedule refused must be refused with a located error (counted). Issue 30's finding 1 is checked by hand
 *      too. DIFFKERN_KNOWN_BAD=issue30-1,issue30-2,issue30-3 counts those findings'
 *      classes instead of failing (see known_bad below; ctest sets it until they are
 *      fixed).
 *
 * DIFFKERN_PRINT=1 in the environment prints every random kernel and the CPU time of each
 * compilation (the test's cost is LLVM's: two compilations per kernel).
 *
 * Output: a line per failure, then "test_diffkern: N checks passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "driver/driver.h"

#include "diffkern_eval.h"
#include "diffkern_gen.h"
#include "testutil.h"

#include <inttypes.h>

/* ---- x86 levels this CPU runs --------------------------------------------------------- */

static const char *LEVELS[5];
static int NLEVELS;

static void detect_levels(void) {
    LEVELS[NLEVELS++] = "host";
    /* the registry's fixed targets this CPU runs (the AArch64 ones run under qemu only) */
    tine_ctx_t *ctx = tine_ctx_new();
    for (int i = 0; tine_target_name(ctx, i) && NLEVELS < 5; i++)
        if (tine_target_runs_here(ctx, tine_target_name(ctx, i)) == 1) LEVELS[NLEVELS++] = tine_target_name(ctx, i);
    tine_ctx_free(ctx);
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

/* The passes of tine_compile_stmt, in order; those from selection on are run once per
 * selection. */
/* The driver's statement steps (tine.h's table), build to hoist: those before select once,
 * the others once per selection. */
enum {
    NPASSES = TINE_STEP_HOIST - TINE_STEP_BUILD + 1,
    NPRE = TINE_STEP_SELECT - TINE_STEP_BUILD,
    NSTMT = NPRE + 2 * (NPASSES - NPRE) /* checks per run */
};

enum { MAXIN = 2, MAXP = 3, MAXRUNS = 3 };

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
static const char *stmt_pass(int j) {
    return tine_step_name((tine_step_t)(TINE_STEP_BUILD + (j < NPRE ? j : NPRE + (j - NPRE) / 2)));
}
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
        return (int64_t)(t.bits == 64 ? v : v & ((1ull << t.bits) - 1));
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

static long long kernels_run, runs_compared, runs_refused, stmt_runs, stmt_kernels, arm_runs;
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
        /* arm-64: every eighth kernel (every kernel with DIFFKERN_ARM) whose Arm
           definitions equal its every-target ones, on the statement interpreter after
           the last pass (the Arm instructions evaluated by their semantics), its runs of
           at most 256 elements */
        if ((n % 8 == 5 || getenv("DIFFKERN_ARM")) && !strstr(text, "# f differs on arm"))
            for (int i = 0; i < MAXRUNS; i++) {
                long long ne = 1;
                for (int d = 0; d < 4; d++) ne *= runs[i].oext[d];
                if (ne > 256) continue;
                int s = (n / 8 + i) % 2;
                runs[i].got_rc[s] = tine_kernel_interpret_stmt(k, "hoist", s ? TINE_SELECT_TINE : TINE_SELECT_LLVM,
                                                               "arm-64", runs[i].inp, runs[i].params, &runs[i].got[s].b);
                tine_buf aw = {0};
                tine_buf_printf(&aw, "seed %" PRIu64 ", kernel %d at arm-64 (statements after hoist)\n--- kernel\n%s---",
                                top_seed, n, text);
                compare(k, &runs[i], s, aw.p);
                arm_runs++;
                free(aw.p);
            }
        free(what.p);
    }
    for (int s = 0; s < 2; s++) tine_compiled_free(c[s]);
    for (int i = 0; i < MAXRUNS; i++) free_run(&runs[i]);
    tine_kernel_free(k);
    free(text);
}

/* count kernels from one stream, sharing a context in batches of 50 (so facts leaking
 * between kernels would show) */
static void in_batches(int count, uint64_t top_seed, uint64_t seed, tine_ctx_t *ctx,
                       void (*one)(tine_ctx_t *, int, uint64_t, uint64_t *)) {
    for (int n = 0; n < count; n++) {
        if (n % 50 == 0) {
            tine_ctx_free(ctx);
            ctx = tine_ctx_new();
        }
        one(ctx, n, top_seed, &seed);
    }
    tine_ctx_free(ctx);
}

static void test_random(int count, uint64_t top_seed) {
    in_batches(count, top_seed, top_seed, NULL, one_kernel);
    printf("random kernels: %d (seed %" PRIu64 "), %lld runs compared with both selections, %lld refused by "
           "the interpreter; %lld runs of %lld kernels (at most %lld output elements) on the statement interpreter "
           "after every pass; %lld runs at arm-64\n",
           count, top_seed, runs_compared, runs_refused, stmt_runs, stmt_kernels, stmt_max_elems, arm_runs);
}

/* ==== 4. reduction kernels against an independent evaluator =============================== */

/* Classes of issue 30 that DIFFKERN_KNOWN_BAD (a comma-separated list) names are counted,
 * not failed, while their fixes are under way:
 *   issue30-1  a constant-bound reduction's variable does not wrap: the interpreter
 *              differs from the evaluator, and agrees with it when the same bounds are
 *              written through a parameter (`a + z..b + z`, z = 0);
 *   issue30-2  a valid kernel, or a valid schedule of it, refused with constant bounds,
 *              accepted with those bounds written through a parameter;
 *   issue30-3  compute_at of a one-dimensional function refused as "vectorized along its
 *              only coordinate". */
/* every red_sched_every-th reduction kernel also gets a schedule (DIFFKERN_RED_SCHED) */
static int red_sched_every = 3;
static long long red_kernels, red_elems, red_known[3], red_sched, red_sched_refused, red_compiled,
    red_arm;

/* Element (x, y) of a run's output buffer, zero-extended. */
static uint64_t out_elem(const buf_t *o, int eb, int64_t x, int64_t y) {
    uint64_t v = 0;
    int64_t i = (x - o->b.min[0]) + (o->b.dims > 1 ? (y - o->b.min[1]) * o->b.stride[1] : 0);
    memcpy(&v, (const char *)o->b.data + i * eb, (size_t)eb);
    return v;
}

/* The first element where the output (the interpreter's: ref) differs from the
 * evaluator; false when none does. *outside: the evaluator reads outside the input. */
static bool eval_diff(const dk_kernel_t *dk, const run_t *r, const buf_t *o, int64_t *at, uint64_t *want,
                      uint64_t *got, bool *outside) {
    dk_args_t a = {.in = &r->in[0].b, .p = r->pv[0], .z = r->pv[1], .q = (uint64_t)r->pv[2]};
    int eb = dk->out_t.bits / 8;
    *outside = false;
    for (int64_t y = r->omin[1]; y < r->omin[1] + (dk->dims > 1 ? r->oext[1] : 1); y++)
        for (int64_t x = r->omin[0]; x < r->omin[0] + r->oext[0]; x++) {
            int64_t c[2] = {x, y};
            uint64_t v;
            if (!dk_eval_output(dk, &a, c, &v)) *outside = true;
            if (o && !*outside) {
                red_elems++;
                uint64_t w = out_elem(o, eb, x, y);
                if (w != v) {
                    at[0] = x, at[1] = y, *want = v, *got = w;
                    return true;
                }
            }
        }
    return false;
}

/* The interpreter's output of the same kernel with constant bounds written through z:
 * whether it equals the evaluator at every element of run r. */
static bool param_bounds_agree(tine_ctx_t *ctx, const dk_kernel_t *dk, const run_t *r0) {
    char *text = dk_print(dk, true, "");
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<dk>");
    free(text);
    if (!k) return false;
    uint64_t seed = 1;
    run_t r;
    make_run(k, &r, r0->omin, r0->oext, r0->pad, r0->pv, &seed);
    free(r.in[0].b.data); /* the same input: geometry and contents */
    r.in[0] = r0->in[0];
    r.in[0].b.data = malloc(r0->in[0].bytes);
    TINE_ASSERT(r.in[0].b.data);
    memcpy(r.in[0].b.data, r0->in[0].b.data, r0->in[0].bytes);
    bool ok = tine_kernel_interpret(k, r.inp, r.params, &r.ref.b) == 0;
    int64_t at[2];
    uint64_t w, g;
    bool outside;
    ok = ok && !eval_diff(dk, &r, &r.ref, at, &w, &g, &outside) && !outside;
    free_run(&r);
    tine_kernel_free(k);
    return ok;
}

static void red_kernel(tine_ctx_t *ctx, int n, uint64_t top_seed, uint64_t *seed) {
    dk_kernel_t *dk = malloc(sizeof *dk);
    TINE_ASSERT(dk);
    dk_generate(dk, seed);
    uint64_t sseed = tine_rand64(seed);
    char *text = dk_print(dk, false, "");
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<dk>");
    if (getenv("DIFFKERN_PRINT")) printf("--- reduction kernel %d\n%s", n, text);
    bool pb = false; /* constant bounds written through z */
    if (!k) {
        char *err = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "");
        char *pt = dk_print(dk, true, "");
        tine_kernel_t *pk = tine_kernel_parse(ctx, pt, "<dk>");
        if (pk && known_bad("issue30-2")) { /* counted, and checked with its bounds through z */
            red_known[1]++;
            free(text);
            text = pt;
            k = pk;
            pb = true;
        } else {
            fail("reduction kernel %d (seed %" PRIu64 ") refused%s:\n%s%s", n, top_seed,
                 pk ? " (accepted with its constant bounds written through a parameter: issue 30 finding 2's class)"
                    : "",
                 text, err);
            tine_kernel_free(pk);
            free(pt);
            free(err);
            free(text);
            free(dk);
            return;
        }
        free(err);
    }
    red_kernels++;
    run_t runs[2];
    static const int64_t WX[] = {1, 3, 7, 13, 20};
    for (int i = 0; i < 2; i++) {
        int64_t omin[4] = {0}, oext[4] = {1, 1, 1, 1}, pv[MAXP] = {0};
        for (int d = 0; d < dk->dims; d++) {
            omin[d] = (int64_t)(tine_rand64(seed) % 7) - 3;
            oext[d] = d == 0 ? WX[tine_rand64(seed) % 5] : 1 + (int64_t)(tine_rand64(seed) % 4);
        }
        tine_type_t qt;
        tine_kernel_param(k, 2, &qt);
        pv[0] = (int64_t)(tine_rand64(seed) % 8) - 1;
        pv[2] = param_value(seed, qt, false);
        make_run(k, &runs[i], omin, oext, (int64_t)(tine_rand64(seed) % 3), pv, seed);
        runs[i].ref_rc = tine_kernel_interpret(k, runs[i].inp, runs[i].params, &runs[i].ref.b);
        int64_t at[2] = {0, 0};
        uint64_t want = 0, got = 0;
        bool outside;
        bool differs = eval_diff(dk, &runs[i], runs[i].ref_rc ? NULL : &runs[i].ref, at, &want, &got, &outside);
        if (outside != (runs[i].ref_rc != 0)) {
            fail("reduction kernel %d (seed %" PRIu64 "): the evaluator %s the input, the interpreter %s the run (%s)\n%s",
                 n, top_seed, outside ? "reads outside" : "reads inside", runs[i].ref_rc ? "refuses" : "accepts",
                 tine_error(ctx) ? tine_error(ctx) : "", text);
        } else if (differs) {
            bool f1 = param_bounds_agree(ctx, dk, &runs[i]);
            if (f1 && known_bad("issue30-1")) red_known[0]++;
            else {
                tine_buf d = {0};
                describe_run(&d, k, &runs[i]);
                fail("reduction kernel %d (seed %" PRIu64 "): out(%" PRId64 "%s%.0" PRId64 ") is 0x%" PRIx64
                     " by the evaluator, 0x%" PRIx64 " by tine_kernel_interpret%s\n  run: %s\n--- kernel\n%s---",
                     n, top_seed, at[0], dk->dims > 1 ? ", " : "", dk->dims > 1 ? at[1] : 0, want, got,
                     f1 ? " (equal with its constant bounds written through a parameter: issue 30 finding 1's class)"
                        : "",
                     d.p, text);
                free(d.p);
            }
        } else
            pass();
    }
    /* a third of the kernels with a random schedule: compiled (or on the statement
       interpreter at arm-64) against the interpreter */
    if (n % red_sched_every == 0) {
        red_sched++;
        char *sched = dk_schedule(dk, &sseed);
        char *stext = dk_print(dk, pb, sched);
        tine_clear_error(ctx);
        tine_kernel_t *sk = tine_kernel_parse(ctx, stext, "<dk>");
        if (!sk) {
            char *err = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "");
            /* accepted with its constant bounds through z: a valid schedule refused
               (issue 30 finding 2's class: `materialize s` of s(y) = min(r in -2..1) (r * 3)) */
            char *ptext = pb ? NULL : dk_print(dk, true, sched);
            tine_kernel_t *pk = ptext ? tine_kernel_parse(ctx, ptext, "<dk>") : NULL;
            if (pk && known_bad("issue30-2")) red_known[1]++;
            else if (pk)
                fail("reduction kernel %d (seed %" PRIu64 "): a schedule refused, accepted with the constant bounds "
                     "written through a parameter (issue 30 finding 2's class):\n%s%s",
                     n, top_seed, stext, err);
            else if (strstr(err, "along its only coordinate") && known_bad("issue30-3")) red_known[2]++;
            else if (strncmp(err, "<dk>:", 5) != 0)
                fail("reduction kernel %d (seed %" PRIu64 "): a schedule refused without a location:\n%s%s", n,
                     top_seed, stext, err);
            else
                red_sched_refused++;
            if (getenv("DIFFKERN_PRINT") || getenv("DIFFKERN_REFUSED"))
                printf("refused schedule, reduction kernel %d:\n%s%s\n", n, stext, err);
            tine_kernel_free(pk);
            free(ptext);
            free(err);
        } else {
            int m = n / red_sched_every; /* the scheduled kernels in turn: */
            bool arm = m % 3 == 1 || getenv("DIFFKERN_ARM"); /* a third at arm-64, */
            const char *level = LEVELS[m % NLEVELS];          /* the others at every level */
            int s = m % 2;
            tine_compiled_t *c = arm ? NULL : tine_kernel_compile(sk, level, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
            if (!arm && !c)
                fail("reduction kernel %d (seed %" PRIu64 ") at %s: the %s selection does not compile: %s\n%s", n,
                     top_seed, level, SEL_NAME[s], tine_error(ctx), stext);
            for (int i = 0; i < 2 && (arm || c); i++) {
                run_t *r = &runs[i];
                if (arm) {
                    tine_clear_error(ctx);
                    r->got_rc[s] = tine_kernel_interpret_stmt(sk, "hoist", s ? TINE_SELECT_TINE : TINE_SELECT_LLVM,
                                                              "arm-64", r->inp, r->params, &r->got[s].b);
                    red_arm++;
                } else {
                    r->got_rc[s] = tine_compiled_run(c, r->inp, r->params, &r->got[s].b);
                    red_compiled++;
                }
                char what[200 + 4096];
                snprintf(what, sizeof what, "reduction kernel %d (seed %" PRIu64 ") at %s, scheduled\n--- kernel\n%s---",
                         n, top_seed, arm ? "arm-64 (statements after hoist)" : level, stext);
                compare(sk, r, s, what);
            }
            tine_compiled_free(c);
            tine_kernel_free(sk);
        }
        free(stext);
        free(sched);
    }
    for (int i = 0; i < 2; i++) free_run(&runs[i]);
    tine_kernel_free(k);
    free(text);
    free(dk);
}

/* The kernel of issue 30's finding 1, built by hand: out(x): u8 = sum(r in 2..3)
 * (u8((r * 1073741824) / 1073741824)) is 254 (r is i32: 2 * 2^30 wraps to -2^31). */
static void test_finding1(tine_ctx_t *ctx) {
    dk_kernel_t *dk = calloc(1, sizeof *dk);
    TINE_ASSERT(dk);
    const dk_type_t I32 = {true, 32}, U8 = {false, 8};
    dk_node_t *P = dk->pool;
    P[0] = (dk_node_t){.kind = DK_RVAR, .t = I32, .index = 0};
    P[1] = (dk_node_t){.kind = DK_CONST, .t = I32, .value = 1073741824};
    P[2] = (dk_node_t){.kind = DK_BIN, .t = I32, .op = DK_MUL, .n = 2, .a = {&P[0], &P[1]}};
    P[3] = (dk_node_t){.kind = DK_BIN, .t = I32, .op = DK_DIV, .n = 2, .a = {&P[2], &P[1]}};
    P[4] = (dk_node_t){.kind = DK_CAST, .t = U8, .n = 1, .a = {&P[3]}};
    P[5] = (dk_node_t){.kind = DK_CONST, .t = I32, .value = 2};
    P[6] = (dk_node_t){.kind = DK_CONST, .t = I32, .value = 3};
    P[7] = (dk_node_t){.kind = DK_RED, .t = U8, .op = DK_SUM, .n = 3, .a = {&P[5], &P[6], &P[4]}};
    dk->nnodes = 8;
    dk->nrvars = 1;
    dk->dims = 1;
    dk->in_t = dk->q_t = U8;
    dk->out_t = U8;
    dk->out = &P[7];
    char *text = dk_print(dk, false, "");
    CHECK(strstr(text, "sum(r0 in 2..3) (u8(((r0 * 1073741824) / 1073741824)))") != NULL, "finding 1's kernel: %s", text);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<dk>");
    TINE_ASSERT(k);
    uint64_t seed = 5;
    int64_t omin[4] = {0}, oext[4] = {4, 1, 1, 1}, pv[MAXP] = {0};
    run_t r;
    make_run(k, &r, omin, oext, 0, pv, &seed);
    int rc = tine_kernel_interpret(k, r.inp, r.params, &r.ref.b);
    int64_t at[2];
    uint64_t want = 0, got = 0;
    bool outside;
    bool differs = eval_diff(dk, &r, &r.ref, at, &want, &got, &outside);
    dk_args_t a = {.in = &r.in[0].b};
    uint64_t v = 0;
    dk_eval_output(dk, &a, omin, &v);
    CHECK(v == 254, "the evaluator gives %" PRIu64 " for finding 1's kernel, not 254", v);
    if (rc == 0 && differs && known_bad("issue30-1")) {
        printf("issue 30 finding 1 (known bad): the interpreter gives %" PRIu64 ", the evaluator %" PRIu64 "\n", got,
               want);
        red_known[0]++;
    } else
        CHECK(rc == 0 && !differs, "issue 30 finding 1: %s gives %" PRIu64 " where the evaluator gives %" PRIu64,
              "out(x): u8 = sum(r in 2..3) (u8((r * 1073741824) / 1073741824))", got, want);
    free_run(&r);
    tine_kernel_free(k);
    free(text);
    free(dk);
}

static void test_reductions(int count, uint64_t top_seed) {
    if (getenv("DIFFKERN_RED_SCHED") && atoi(getenv("DIFFKERN_RED_SCHED")) > 0)
        red_sched_every = atoi(getenv("DIFFKERN_RED_SCHED"));
    tine_ctx_t *ctx = tine_ctx_new();
    test_finding1(ctx);
    in_batches(count, top_seed, top_seed ^ 0xd1ffe7a1ULL, ctx, red_kernel);
    printf("reduction kernels: %d (seed %" PRIu64 "), %lld accepted, %lld elements equal to the evaluator; "
           "%lld scheduled: %lld refused with a located error, %lld runs compiled, %lld at arm-64; known bad "
           "(DIFFKERN_KNOWN_BAD): issue30-1 %lld, issue30-2 %lld, issue30-3 %lld\n",
           count, top_seed, red_kernels, red_elems, red_sched, red_sched_refused, red_compiled, red_arm, red_known[0],
           red_known[1], red_known[2]);
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
    double t2 = now();
    /* DIFFKERN_RED_COUNT: another count of reduction kernels (0: none) */
    test_reductions(getenv("DIFFKERN_RED_COUNT") ? atoi(getenv("DIFFKERN_RED_COUNT")) : count, seed);
    printf("times: regressions %.2f s, random kernels %.2f s (compiling %.2f s: selection %.2f s, LLVM %.2f s; "
           "interpreting %.2f s, statements after every pass %.2f s), reduction kernels %.2f s\n",
           t1 - t0, t2 - t1, t_compile, t_select, t_llvm, t_interp, t_stmt, now() - t2);
    printf("test_diffkern: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
