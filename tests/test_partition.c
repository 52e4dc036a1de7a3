/* test_partition.c — loop partitioning and the index simplifier.
 *
 * Kernels with boundary conditions (edge(), constant(); 1-D and 2-D; schedules auto,
 * always, never) are built (tine_stmt_build_stage) and run by the statement interpreter
 * before and after partition + simplify on random geometry: mins negative and positive,
 * extents 1, 2, below, at and above the vector width, odd, large; inputs smaller than
 * the output. The outputs must be identical (the benchmark kernels are run the same way
 * on the harness's test cases by test_stmt). The steady state of a 3x3 edge() stencil must have no
 * min/max left in its store. The simplifier is checked on a table of expressions: the
 * exact printed result, and equal values on random inputs.
 */
#include "driver/driver.h"

#include "../bench/harness.h"
#include "testutil.h"

/* ---- runs ------------------------------------------------------------------------------ */

static tine_stmt *passes(tine_stmt_pool *p, const tine_kernel_t *k, tine_stmt *s) {
    tine_stmt *r = tine_stmt_partition(p, k, s);
    return tine_stmt_simplify(p, r);
}

/* k on the statement interpreter, each stage as the driver has it after `pass` ("build";
 * "simplify": partitioned and simplified; "hoist": then LLVM's selection and hoisting); 1
 * when the plan refuses the case, else 0, or -1 after a failure. */
static int run_kernel(tine_kernel_t *k, tine_buffer_t *const *inputs, tine_buffer_t *out, const char *pass,
                      const char *what) {
    if (tine_kernel_check_region(k, inputs, NULL, out) != 0) return 1; /* not a valid case */
    int sel = strcmp(pass, "hoist") ? -1 : TINE_SELECT_LLVM;
    int rc = tine_kernel_interpret_stmt(k, pass, sel, NULL, inputs, NULL, out);
    if (rc == 0) return 0;
    fail("%s: after %s: the run returned %d: %s", what, pass, rc, tine_error(tine_kernel_ctx(k)));
    return -1;
}

/* ---- random geometry on small kernels ------------------------------------------------ */

static const char *const kernels[] = {
    /* 1-D edge */
    "input in: i32[1]\nfunc b = edge(in)\noutput out(x): i32 = b(x - 1) + 2 * b(x) + 3 * b(x + 2)\n",
    /* 1-D constant fill */
    "input in: i32[1]\nfunc b = constant(in, 7)\noutput out(x): i32 = b(x - 3) + b(x) * 5 + b(x + 1)\n",
    /* 2-D edge stencil, u8 (32 lanes) */
    "input in: u8[2]\nfunc b = edge(in)\nfunc p(x, y) = u16(b(x, y))\n"
    "output out(x, y): u8 = u8((p(x - 1, y - 1) + 2 * p(x, y) + p(x + 1, y + 1) + p(x + 1, y - 1)) / 5)\n",
    /* 2-D constant fill, i16 */
    "input in: i16[2]\nfunc b = constant(in, -3)\n"
    "output out(x, y): i16 = b(x - 2, y) + b(x, y - 1) + b(x + 2, y + 1)\n",
    /* stride-2 reads and a reversed coordinate */
    "input in: i32[1]\nfunc b = edge(in)\noutput out(x): i32 = b(2 * x + 1) - b(-x)\n",
    /* a materialized edge stage read by the output */
    "input in: u8[2]\nfunc b = edge(in)\nfunc p(x, y) = u16(b(x - 1, y) + b(x + 1, y))\n"
    "output out(x, y): u16 = p(x, y - 1) + p(x, y + 1)\nschedule\nmaterialize p\n",
    /* clamps against constants (loop invariants, no buffer bounds), either sign of x */
    "input in: i32[1]\nfunc b = edge(in)\noutput out(x): i32 = b(min(x, 5)) + 3 * b(max(x - 2, -7)) + b(min(4 - x, 20))\n",
};

static const char *const schedules[] = {
    "", "schedule\npartition out.x always\n", "schedule\npartition out.x never\npartition out.y always\n",
    "schedule\nvectorize out.x 8\n", "schedule\ntile out x y 16 4\n",
};

static int64_t pick_extent(uint64_t *seed) {
    static const int64_t ext[] = {1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129};
    return ext[tine_rand64(seed) % (sizeof ext / sizeof ext[0])];
}

static int64_t pick_min(uint64_t *seed) { return (int64_t)(tine_rand64(seed) % 201) - 100; }

static void fill_random(void *data, size_t bytes, uint64_t *seed) {
    unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++) p[i] = (unsigned char)tine_rand64(seed);
}

static int trials = 40; /* random geometries per kernel and schedule (argv[1]) */

static void test_random_geometry(void) {
    uint64_t seed = 12;
    int runs = 0;
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        for (size_t si = 0; si < sizeof schedules / sizeof schedules[0]; si++) {
            char text[2048];
            const char *sched = schedules[si];
            if (strstr(kernels[ki], "schedule")) {
                if (si) continue; /* a kernel with its own schedule runs with that only */
                sched = "";
            }
            snprintf(text, sizeof text, "%s%s", kernels[ki], sched);
            tine_ctx_t *kc = tine_ctx_new();
            tine_kernel_t *k = tine_kernel_parse(kc, text, "<kernel>");
            if (!k) {
                /* 1-D kernels take no y directive */
                CHECK(strstr(sched, "out.y") || strstr(sched, "tile"), "kernel %zu schedule %zu: %s", ki, si,
                      tine_error(kc));
                tine_ctx_free(kc);
                continue;
            }
            int dims = tine_kernel_dims(k);
            tine_type_t it, ot = tine_kernel_output_type(k);
            tine_kernel_input(k, 0, &it, NULL);
            for (int trial = 0; trial < trials; trial++) {
                tine_buffer_t in = {.dims = dims}, out = {.dims = dims};
                int64_t n_in = 1, n_out = 1;
                for (int d = 0; d < dims; d++) {
                    in.min[d] = pick_min(&seed);
                    in.extent[d] = pick_extent(&seed);
                    out.min[d] = pick_min(&seed);
                    out.extent[d] = pick_extent(&seed) + (trial % 5 == 0 ? 200 : 0);
                    in.stride[d] = n_in;
                    out.stride[d] = n_out;
                    n_in *= in.extent[d] + (d == 0 ? 3 : 0);
                    n_out *= out.extent[d];
                }
                size_t in_bytes = (size_t)n_in * it.bits / 8, out_bytes = (size_t)n_out * ot.bits / 8;
                in.data = malloc(in_bytes);
                fill_random(in.data, in_bytes, &seed);
                unsigned char *want = malloc(out_bytes), *got = malloc(out_bytes);
                memset(want, 0xA5, out_bytes);
                memset(got, 0x5A, out_bytes);
                tine_buffer_t *ins[1] = {&in};
                char what[128];
                snprintf(what, sizeof what, "kernel %zu schedule %zu trial %d", ki, si, trial);
                out.data = want;
                int r0 = run_kernel(k, ins, &out, "build", what);
                if (r0 == 0) {
                    out.data = got;
                    /* hoisting on every other geometry (test_diffkern checks it on every kernel) */
                    for (int ph = 0; ph < 1 + (trial % 2 == 0); ph++) {
                        const char *pn = ph ? "hoist" : "simplify";
                        memset(got, 0x5A, out_bytes);
                        int r1 = run_kernel(k, ins, &out, pn, what);
                        CHECK(r1 == 0 && !memcmp(want, got, out_bytes),
                              "%s: output after %s differs (in min %lld ext %lld, out min %lld ext %lld)", what, pn,
                              (long long)in.min[0], (long long)in.extent[0], (long long)out.min[0],
                              (long long)out.extent[0]);
                    }
                    runs++;
                }
                free(in.data);
                free(want);
                free(got);
            }
            tine_kernel_free(k);
            tine_ctx_free(kc);
        }
    }
    CHECK(runs > 7 * trials, "only %d runs compared", runs);
}

/* The benchmark kernels before and after partitioning: test_stmt. */

/* ---- the steady state of sobel3x3 ------------------------------------------------------ */

typedef struct {
    const tine_stmt *found;
    const char *name;
    int step; /* > 1: a vectorized loop */
} find_loop;

static void find_visit(void *user, const tine_stmt *s) {
    find_loop *f = user;
    if (!f->found && s->kind == TINE_S_FOR && s->loop.name && !strcmp(s->loop.name, f->name) &&
        (f->step > 1) == (s->loop.step > 1))
        f->found = s;
}

static const tine_stmt *find(const tine_stmt *s, const char *name, int step) {
    find_loop f = {NULL, name, step};
    tine_stmt_visit(s, find_visit, &f);
    return f.found;
}

static void first_store(void *user, const tine_stmt *s) {
    if (!*(const tine_stmt **)user && s->kind == TINE_S_STORE) *(const tine_stmt **)user = s;
}

/* The first store in s (NULL: none, or no s). */
static const tine_stmt *store_in(const tine_stmt *s) {
    const tine_stmt *st = NULL;
    if (s) tine_stmt_visit(s, first_store, &st);
    return st;
}

static int count_minmax(tine_ctx_t *c, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(c, e, &n);
    int m = 0;
    /* on i32: the clamps of coordinates (the kernel's own clamp of values is u16) */
    for (uint32_t i = 0; i < n; i++)
        m += (order[i]->op == TINE_OP_MIN || order[i]->op == TINE_OP_MAX) && order[i]->type.kind == TINE_INT &&
             order[i]->type.bits == 32;
    free(order);
    return m;
}

/* A kernel's text parsed in kc and its last stage built in *sp (initialized here); NULL
 * after a failed check, with the pool left uninitialized. */
static tine_kernel_t *build_last(tine_ctx_t *kc, const char *text, const char *name, tine_stmt_pool *sp,
                                 tine_stmt **built) {
    tine_kernel_t *k = tine_kernel_parse(kc, text, name);
    CHECK(k != NULL, "%s: %s", name, tine_error(kc));
    if (!k) return NULL;
    tine_stmt_pool_init(sp, kc);
    *built = tine_stmt_build_stage(sp, k, tine_kernel_nstages(k) - 1);
    return k;
}

static void test_sobel_steady(void) {
    char *text = read_file("../bench/kernels/sobel3x3.tine");
    CHECK(text != NULL, "cannot read sobel3x3.tine");
    if (!text) return;
    tine_ctx_t *kc = tine_ctx_new();
    tine_stmt_pool sp;
    tine_stmt *built;
    tine_kernel_t *k = build_last(kc, text, "sobel3x3", &sp, &built);
    if (k) {
        tine_stmt *s = passes(&sp, k, built);
        /* the steady y loop, and in it the steady vector loop over x */
        const tine_stmt *y = find(s, "out.y", 1), *x = y ? find(y->loop.body, "out.x", 32) : NULL;
        CHECK(y && x, "sobel3x3: no steady out.y / out.x loops");
        CHECK(find(s, "out.y.pro", 1) && find(s, "out.y.epi", 1), "sobel3x3: no out.y.pro / out.y.epi");
        if (x) {
            const tine_stmt *st = store_in(x->loop.body);
            CHECK(st != NULL, "sobel3x3: no store in the steady state");
            if (st) {
                int mm = count_minmax(kc, st->store.value) + count_minmax(kc, st->store.index);
                char *idx = tine_print(kc, st->store.index);
                CHECK(mm == 0, "sobel3x3: %d min/max left in the steady store", mm);
                /* the store's index: one ramp with a scalar base */
                CHECK(st->store.index->op == TINE_OP_RAMP, "sobel3x3: the steady store's index is %s", idx);
                if (getenv("TINE_TEST_VERBOSE")) {
                    char *all = tine_stmt_print(kc, s);
                    printf("%s\n", all);
                    free(all);
                }
                free(idx);
            }
        }
        /* the clamps were there before */
        const tine_stmt *st0 = store_in(built);
        CHECK(st0 && count_minmax(kc, st0->store.value) > 0, "sobel3x3: the built nest has no clamp");
        tine_stmt_pool_free(&sp);
        tine_kernel_free(k);
    }
    tine_ctx_free(kc);
    free(text);
}

/* ---- a clamp against a parameter ---------------------------------------------------------- */

/* A vector index min(x, n - 1), n a parameter (matmul's packing of A): the steady vector
 * loop reads a dense ramp (no gather), with the clamp left to the edges. */
static void test_invariant_clamp(void) {
    const char *text = "input in: u8[1]\nparam n: i32\noutput out(x): u8 = in(min(x, n - 1))\n"
                       "schedule\nvectorize out.x 16\n";
    tine_ctx_t *kc = tine_ctx_new();
    tine_stmt_pool sp;
    tine_stmt *built;
    tine_kernel_t *k = build_last(kc, text, "clamp", &sp, &built);
    if (k) {
        const tine_stmt *x0 = find(built, "out.x", 16), *st0 = x0 ? store_in(x0->loop.body) : NULL;
        CHECK(st0 && count_minmax(kc, st0->store.value) == 1, "clamp: the built vector loop has no clamp");
        tine_stmt *s = passes(&sp, k, built);
        const tine_stmt *x = find(s, "out.x", 16), *st = x ? store_in(x->loop.body) : NULL;
        CHECK(x != NULL, "clamp: no steady vector loop");
        CHECK(st && count_minmax(kc, st->store.value) == 0, "clamp: a min/max is left in the steady store");
        tine_stmt_pool_free(&sp);
        tine_kernel_free(k);
    }
    tine_ctx_free(kc);
}

/* ---- the simplifier on a table -------------------------------------------------------- */

static const struct {
    const char *in, *out;
} simp_cases[] = {
    {"(x_i32 + 3) - 3", "x_i32"},
    {"x_i32 * 1 + 0", "x_i32"},
    {"2 * (x_i32 + 1) - x_i32", "x_i32 + 2"},
    {"y_i32 + x_i32 - y_i32", "x_i32"},
    {"x_i32 - y_i32 + 5 - 7", "x_i32 - y_i32 - 2"},
    {"min(3, 5) + max(x_i32, x_i32)", "x_i32 + 3"},
    {"x_i32 / 1 + x_i32 % 1", "x_i32"},
    {"(x_i32 * 4 + 2) / 4", "(x_i32 * 4 + 2) / 4"},
    {"ramp(x_i32, 1, 8) + x8(y_i32)", "ramp(x_i32 + y_i32, 1, 8)"},
    {"ramp(x_i32, 1, 8) + ramp(y_i32, 2, 8)", "ramp(x_i32 + y_i32, 3, 8)"},
    {"x8(x_i32 + 1) - x8(x_i32)", "x8(i32(1))"},
    {"(ramp(x_i32, 1, 8) - x8(m_i32)) + (x8(y_i32) - x8(n_i32)) * x8(s_i32)",
     "ramp(x_i32 - m_i32 + (y_i32 - n_i32) * s_i32, 1, 8)"},
    {"-(x_i32 - y_i32)", "y_i32 - x_i32"},
    {"select(i32(3) > 2, x_i32, y_i32)", "x_i32"},
    {"x_i32 * y_i32 + 0", "x_i32 * y_i32"},
    {"(x_i32 + 2147483647) + 1", "x_i32 + -2147483648"},
};

static void test_simplify_table(void) {
    tine_ctx_t *c = tine_ctx_new();
    tine_set_lanes(c, 1);
    uint64_t seed = 3;
    for (size_t i = 0; i < sizeof simp_cases / sizeof simp_cases[0]; i++) {
        tine_expr_t *e = tine_parse(c, simp_cases[i].in, "<case>");
        CHECK(e != NULL, "parse %s: %s", simp_cases[i].in, tine_error(c));
        if (!e) continue;
        tine_expr_t *r = tine_simplify_expr(c, e);
        char *got = tine_print(c, r);
        tine_expr_t *want = tine_parse(c, simp_cases[i].out, "<want>");
        char *wtext = want ? tine_print(c, want) : NULL;
        CHECK(got && wtext && !strcmp(got, wtext), "simplify %s: got %s, wanted %s", simp_cases[i].in, got,
              wtext ? wtext : simp_cases[i].out);
        CHECK(tine_simplify_expr(c, r) == r, "simplify %s: not a fixpoint", simp_cases[i].in);
        /* equal values for random inputs */
        const char *names[] = {"x", "y", "m", "n", "s"};
        for (int t = 0; t < 200; t++) {
            tine_env_t *env = tine_env_new(c);
            for (int v = 0; v < 5; v++) {
                char nm[8];
                snprintf(nm, sizeof nm, "%s_i32", names[v]);
                uint64_t val = tine_rand64(&seed);
                int32_t x = t % 3 == 0 ? (int32_t)val : (int32_t)(val % 41) - 20;
                uint64_t lane = (uint64_t)(int64_t)x;
                tine_env_bind(env, tine_var(c, names[v], tine_type(TINE_INT, 32, 1)), &lane);
            }
            uint64_t a[8], b[8];
            int ra = tine_eval(c, e, env, a), rb = tine_eval(c, r, env, b);
            CHECK(ra == 0 && rb == 0 && !memcmp(a, b, sizeof(uint64_t) * e->type.lanes),
                  "simplify %s: values differ", simp_cases[i].in);
            tine_env_free(env);
        }
        free(got);
        free(wtext);
    }
    tine_ctx_free(c);
}

int main(int argc, char **argv) {
    if (argc > 1) trials = atoi(argv[1]) > 0 ? atoi(argv[1]) : trials;
    test_simplify_table();
    test_sobel_steady();
    test_invariant_clamp();
    test_random_geometry();
    printf("test_partition: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
