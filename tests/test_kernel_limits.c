/* test_kernel_limits.c — the kernel front end's documented limits (docs/KERNELS.md,
 * "Limits"), and inputs whose work once grew far faster than their size.
 *
 *   1. Each limit (name length, inputs, parameters, declarations, materialized functions,
 *      unrolled terms, reduction nesting, call-chain depth, jammed points, operations
 *      once a schedule's unrolls copy them): a kernel generated exactly
 *      at the limit is accepted and runs (the interpreter, and for the small ones the
 *      compiled code, which must equal it), and one past it is refused with exactly the
 *      located message (its first line).
 *   2. Inputs of issue 10: a 3x3 blur composed 7 times (accepted, runs) and 14 times (a
 *      located limit, not minutes and gigabytes), a 24-line chain of functions each
 *      calling the previous one twice, a 4096-term min lowered for SSE2, a 200,000-term
 *      sum (a located limit, not a stack overflow). ctest's TIMEOUT on this program is
 *      what checks that they finish: there is no timed assertion here.
 *   3. The AOT header of a kernel with a bool parameter, and kernel names the C function
 *      cannot have.
 *   4. Issue 30's run plan: interval bounds built by substitution grew as trees with every
 *      level of a body (a 1.2 MB bound for a small kernel with nested reductions, 5.4 MB
 *      of --emit stmt). The plan's size as printed (every expression of every step as a
 *      tree) must stay within a constant factor of the stages' bodies, for that kernel
 *      and for chains of such functions. And its nest: unswitching no longer copies loops
 *      that hold loops (their number multiplied LLVM's time).
 */
#include "internal.h"
#include "driver/driver.h"
#include "testutil.h"

#include <string.h>

/* A kernel's text built with printf-style pieces. */
static void add(tine_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(tine_buf *b, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    tine_buf_puts(b, line);
}

/* Runs k over a 1-D output of 8 elements on the interpreter (every input u8, 1-D, over
 * [-16, 63], filled with a pattern; every parameter 1) and, when `compile`, compiled for
 * the host with LLVM alone: the two must agree. */
static void runs(tine_ctx_t *ctx, tine_kernel_t *k, const char *what, bool compile) {
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k);
    tine_type_t ot = tine_kernel_output_type(k);
    uint8_t *data = malloc(80);
    for (int i = 0; i < 80; i++) data[i] = (uint8_t)(i * 7 + 3);
    tine_buffer_t *in = calloc((size_t)nin + 1, sizeof *in), **inp = calloc((size_t)nin + 1, sizeof *inp);
    for (int i = 0; i < nin; i++) {
        in[i] = (tine_buffer_t){.data = data, .dims = 1, .min = {-16}, .extent = {80, 1, 1, 1}, .stride = {1, 1, 1, 1}};
        inp[i] = &in[i];
    }
    int64_t one = 1;
    const void **params = calloc((size_t)np + 1, sizeof *params);
    for (int i = 0; i < np; i++) params[i] = &one; /* i32 parameters: the low bytes on a little-endian host */
    size_t bytes = 8 * (size_t)(ot.bits / 8);
    void *want = calloc(1, bytes), *got = calloc(1, bytes);
    tine_buffer_t out = {.data = want, .dims = 1, .min = {0}, .extent = {8, 1, 1, 1}, .stride = {1, 1, 1, 1}};
    int rc = tine_kernel_interpret(k, inp, params, &out);
    check(rc == 0, "%s: the interpreter refuses it: %s", what, tine_error(ctx) ? tine_error(ctx) : "");
    if (compile && rc == 0) {
        tine_compiled_t *c = tine_kernel_compile(k, "host", TINE_SELECT_LLVM);
        check(c != NULL, "%s: does not compile: %s", what, tine_error(ctx) ? tine_error(ctx) : "");
        if (c) {
            out.data = got;
            check(tine_compiled_run(c, inp, params, &out) == 0 && !memcmp(want, got, bytes),
                  "%s: the compiled code differs from the interpreter", what);
            tine_compiled_free(c);
        }
    }
    free(want);
    free(got);
    free(params);
    free(in);
    free(inp);
    free(data);
}

static void accepted(tine_ctx_t *ctx, const char *what, tine_buf *b, bool compile) {
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, b->p, "<kernel>");
    check(k != NULL, "%s: refused: %s", what, tine_error(ctx) ? tine_error(ctx) : "");
    if (k) runs(ctx, k, what, compile);
    tine_kernel_free(k);
    free(b->p);
    *b = (tine_buf){0};
}

/* Refused, and the message's first line is `first`. */
static void refused(tine_ctx_t *ctx, const char *what, tine_buf *b, const char *first) {
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, b->p, "<kernel>");
    const char *e = tine_error(ctx) ? tine_error(ctx) : "";
    size_t n = strcspn(e, "\n");
    check(!k && strlen(first) == n && !strncmp(e, first, n), "%s: expected\n  %s\ngot\n  %.*s", what, first, (int)n, e);
    tine_kernel_free(k);
    free(b->p);
    *b = (tine_buf){0};
}

static void test_limits(tine_ctx_t *ctx) {
    tine_buf b = {0};
    char name[80];
    /* names: 64 characters */
    for (int over = 0; over < 2; over++) {
        memset(name, 'n', sizeof name);
        name[64 + over] = 0;
        add(&b, "input %s: u8[1]\noutput out(x): u8 = %s(x)\n", name, name);
        if (!over) accepted(ctx, "a 64-character name", &b, true);
        else refused(ctx, "a 65-character name", &b, "<kernel>:1:7: a name has at most 64 characters; this one has 65");
    }
    /* inputs: 16 */
    for (int over = 0; over < 2; over++) {
        int n = 16 + over;
        for (int i = 0; i < n; i++) add(&b, "input i%d: u8[1]\n", i);
        add(&b, "output out(x): u16 = u16(i0(x))");
        for (int i = 1; i < n; i++) add(&b, " + u16(i%d(x + %d))", i, i % 5);
        add(&b, "\n");
        if (!over) accepted(ctx, "16 inputs", &b, true);
        else refused(ctx, "17 inputs", &b, "<kernel>:17:1: a kernel has at most 16 inputs; 'i16' is one more");
    }
    /* parameters: 64 */
    for (int over = 0; over < 2; over++) {
        int n = 64 + over;
        add(&b, "input in: u8[1]\n");
        for (int i = 0; i < n; i++) add(&b, "param p%d: i32\n", i);
        add(&b, "output out(x): i32 = i32(in(x))");
        for (int i = 0; i < n; i++) add(&b, " + p%d", i);
        add(&b, "\n");
        if (!over) accepted(ctx, "64 parameters", &b, true);
        else refused(ctx, "65 parameters", &b, "<kernel>:66:1: a kernel has at most 64 parameters; 'p64' is one more");
    }
    /* declarations: 1024 */
    for (int over = 0; over < 2; over++) {
        add(&b, "input in: u8[1]\n");
        for (int i = 0; i < 1022 + over; i++) add(&b, "func f%d(x) = in(x + %d)\n", i, i % 3);
        add(&b, "output out(x): u8 = f1021(x)\n");
        if (!over) accepted(ctx, "1024 declarations", &b, false);
        else refused(ctx, "1025 declarations", &b, "<kernel>:1025:1: a kernel has at most 1024 declarations; 'out' is one more");
    }
    /* materialized functions: 16 */
    for (int over = 0; over < 2; over++) {
        int n = 16 + over;
        add(&b, "input in: u8[1]\nfunc f0(x) = in(x)\n");
        for (int i = 1; i <= n; i++) add(&b, "func f%d(x) = f%d(x + 1) + u8(%d)\n", i, i - 1, i);
        add(&b, "output out(x): u8 = f%d(x)\nschedule\n", n);
        for (int i = 1; i <= n; i++) add(&b, "materialize f%d\n", i);
        if (!over) accepted(ctx, "16 materialized functions", &b, true);
        else refused(ctx, "17 materialized functions", &b, "<kernel>:38:1: at most 16 functions can be materialized");
    }
    /* unrolled terms: 8192 per body (2 + 2 * 4095 here), and a nest's product of ranges */
    add(&b, "input in: u8[1]\noutput out(x): u32 = sum(a in 0..2) sum(b in 0..4095) u32(in(x + b %% 3))\n");
    accepted(ctx, "8192 unrolled terms", &b, false);
    add(&b, "input in: u8[1]\noutput out(x): u32 = sum(a in 0..2) sum(b in 0..4095) u32(in(x + b %% 3)) + sum(c in 0..1) u32(in(x))\n");
    refused(ctx, "8193 unrolled terms", &b,
            "<kernel>:2:76: sum(c in a..b) unrolls to 8193 terms with the others before it; a body unrolls at most 8192 "
            "(use parameter bounds for a loop)");
    add(&b, "input in: u8[1]\noutput out(x): u32 = sum(a in 0..3) sum(b in 0..2731) u32(in(x))\n");
    refused(ctx, "a nest of 8193 terms", &b,
            "<kernel>:2:37: sum(b in a..b) unrolls to 8193 terms with the reductions around it; a body unrolls at most "
            "8192 (use parameter bounds for a loop)");
    /* reductions nested 64 deep, constant and loops, in one body and through calls */
    for (int loop = 0; loop < 2; loop++)
        for (int over = 0; over < 2; over++) {
            add(&b, "input in: u8[1]\nparam K: i32\nfunc f(x) = ");
            for (int i = 0; i < 32; i++) add(&b, "sum(r%d in 0..%s) ", i, loop ? "K" : "1");
            add(&b, "u32(in(x))\noutput out(x): u32 = ");
            for (int i = 0; i < 32 + over; i++) add(&b, "sum(s%d in 0..%s) ", i, loop ? "K" : "1");
            add(&b, "f(x)\nschedule\n"); /* a hand schedule (empty): f inlined, not chosen by auto */
            if (!over) accepted(ctx, loop ? "loop reductions nested 64 deep" : "reductions nested 64 deep", &b, !loop);
            else
                refused(ctx, loop ? "loop reductions nested 65 deep" : "reductions nested 65 deep", &b,
                        "<kernel>:3:530: reductions are nested more than 64 deep (counting those of the functions called)");
        }
    /* unrolled points of a stage with loop reductions, jammed: 64 (64 vectors; past it, 8
       vectors x 9 rows: the parser takes unrolls up to 64, and these runs are 1-D) */
    add(&b, "input in: u8[1]\nparam K: i32\noutput out(x): u32 = sum(k in 0..K) u32(in(x + k))\n"
            "schedule\nvectorize out.x 4\nunroll out.x 64\n");
    accepted(ctx, "64 jammed points", &b, true);
    add(&b, "input in: u8[2]\nparam K: i32\noutput out(x, y): u32 = sum(k in 0..K) u32(in(x + k, y))\n"
            "schedule\nvectorize out.x 4\nunroll out.x 8\nunroll out.y 9\n");
    refused(ctx, "72 jammed points", &b,
            "<kernel>:7:1: unroll: 'out' would compute 72 points together (8 x 9), each with its own "
            "accumulators of the loop reductions; at most 64");
    /* a stage's operations times the unrolls copying its code: 32768 (512 x 64 vectors per
       iteration: 101 terms of 3 operations past the first 40 loads; compiling it takes
       seconds, so it is interpreted only), and one operation more */
    for (int over = 0; over < 2; over++) {
        add(&b, "input in: u8[1]\noutput out(x): u32 = u32(in(x))");
        for (int i = 1; i < 102; i++) add(&b, " + u32(in(x + %d)) * %d", i % 40, i);
        add(&b, " * %d\nschedule\nvectorize out.x 4\nunroll out.x 64\n", over ? 1000 : 3);
        if (!over) accepted(ctx, "32768 unrolled operations", &b, false);
        else
            refused(ctx, "32832 unrolled operations", &b,
                    "<kernel>:5:1: unroll: the schedule makes stage 'out' 32832 operations, 513 copied 64 times (unroll "
                    "out.x 64 at 5:1); at most 32768 once unrolled (unroll less, or materialize some of the functions it "
                    "calls)");
    }
    /* issue 30: unroll 64 inside unroll 64, unrolls along a chain of compute_at stages, a 4-D
       unroll with splits (each compiled for minutes): refused at once, naming the unrolls */
    add(&b, "input in: u8[2]\noutput out(x, y): u8 = in(x, y) + in(x + 1, y + 1)\nschedule\nunroll out.y 64\n"
            "unroll out.x 64\n");
    refused(ctx, "unroll 64 inside unroll 64", &b,
            "<kernel>:5:1: unroll: the schedule makes stage 'out' 102400 operations, 25 copied 4096 times (unroll out.y 64 "
            "at 4:1 x unroll out.x 64 at 5:1); at most 32768 once unrolled (unroll less, or materialize some of the "
            "functions it calls)");
    add(&b, "input in: u8[2]\nfunc f(x, y) = in(x, y) + 1\nfunc g(x, y) = f(x, y) + f(x, y + 1)\n"
            "output out(x, y): u8 = g(x, y) + g(x, y + 1)\nschedule\ncompute_at g out.y\ncompute_at f g.y\n"
            "unroll out.y 16\nunroll g.y 16\nunroll f.x 8\n");
    refused(ctx, "unrolls along a chain of compute_at", &b,
            "<kernel>:10:1: unroll: the schedule makes stage 'f' 36864 operations, 18 copied 2048 times (unroll out.y 16 "
            "at 8:1 x unroll g.y 16 at 9:1 x unroll f.x 8 at 10:1); at most 32768 once unrolled (unroll less, or "
            "materialize some of the functions it calls)");
    add(&b, "input in: u8[4]\noutput out(x, y, z, w): u8 = in(x, y, z, w) + in(x + 1, y, z + 1, w)\nschedule\n"
            "split out.y yo yi 8\nsplit out.z zo zi 8\nunroll out.x 4\nunroll out.yi 8\nunroll out.yo 2\n"
            "unroll out.zi 8\nunroll out.w 4\n");
    refused(ctx, "a 4-D unroll with splits", &b,
            "<kernel>:10:1: unroll: the schedule makes stage 'out' 92160 operations, 45 copied 2048 times (unroll out.x 4 "
            "at 6:1 x unroll out.yi 8 at 7:1 x unroll out.yo 2 at 8:1 x unroll out.zi 8 at 9:1 x unroll out.w 4 at "
            "10:1); at most 32768 once unrolled (unroll less, or materialize some of the functions it calls)");
    /* chains of calls: 64 */
    for (int over = 0; over < 2; over++) {
        int n = 64 + over;
        add(&b, "input in: u8[1]\nfunc f1(x) = in(x)\n");
        for (int i = 2; i <= n; i++) add(&b, "func f%d(x) = f%d(x) + u8(1)\n", i, i - 1);
        add(&b, "output out(x): u8 = f%d(x)\n", n);
        if (!over) accepted(ctx, "a chain of 64 calls", &b, true);
        else
            refused(ctx, "a chain of 65 calls", &b,
                    "<kernel>:67:1: calls from 'out' nest 65 deep (out -> f65 -> f64 -> f63 -> ...); at most 64 functions "
                    "can call one another in a chain");
    }
}

/* A 3x3 box blur of u16 composed `levels` times, through a repeat-edge boundary, every
 * level inlined (an empty schedule; without one, schedule auto would materialize some). */
static void blur(tine_buf *b, int levels) {
    add(b, "input in: u16[2]\nfunc b0 = edge(in)\n");
    for (int i = 1; i <= levels; i++) {
        add(b, "func b%d(x, y) = (", i);
        for (int d = 0; d < 9; d++) add(b, "%sb%d(x + %d, y + %d)", d ? " + " : "", i - 1, d % 3 - 1, d / 3 - 1);
        add(b, ") / 9\n");
    }
    add(b, "output out(x, y): u16 = b%d(x, y)\nschedule\n", levels); /* every level inlined */
}

static void test_issue_inputs(tine_ctx_t *ctx) {
    tine_buf b = {0};
    blur(&b, 7);
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, b.p, "<kernel>");
    check(k != NULL, "the blur composed 7 times is refused: %s", tine_error(ctx) ? tine_error(ctx) : "");
    if (k) { /* one row: the interpreter reads the input through the boundary */
        uint16_t in[4] = {1, 2, 3, 4}, want[8] = {0}, got[8];
        tine_buffer_t ib = {.data = in, .dims = 2, .extent = {2, 2, 1, 1}, .stride = {1, 2, 1, 1}};
        tine_buffer_t ob = {.data = got, .dims = 2, .extent = {8, 1, 1, 1}, .stride = {1, 8, 1, 1}};
        tine_buffer_t *inp[1] = {&ib};
        check(tine_kernel_interpret(k, inp, NULL, &ob) == 0, "the blur composed 7 times does not run: %s",
              tine_error(ctx) ? tine_error(ctx) : "");
        /* every value lies between the input's least and greatest (truncating averages) */
        for (int i = 0; i < 8; i++) want[i] = got[i] >= 1 && got[i] <= 4;
        for (int i = 0; i < 8; i++) check(want[i], "the blur composed 7 times: element %d is %u", i, got[i]);
    }
    tine_kernel_free(k);
    free(b.p);
    b = (tine_buf){0};
    blur(&b, 14);
    refused(ctx, "the blur composed 14 times", &b,
            "<kernel>:17:1: 'out' has 46832 operations once the functions it calls are inlined; a stage has at most "
            "16384 (materialize some of the functions it calls, or split it)");
    /* 24 functions, each calling the previous one twice */
    add(&b, "input in: u8[2]\nfunc f0(x, y) = in(x, y)\n");
    for (int i = 1; i < 24; i++) add(&b, "func f%d(x, y) = f%d(x, y) + f%d(x + 1, y)\n", i, i - 1, i - 1);
    add(&b, "output out(x, y): u8 = f23(x, y)\n");
    tine_clear_error(ctx);
    k = tine_kernel_parse(ctx, b.p, "<kernel>");
    check(k != NULL, "the 24-line chain is refused: %s", tine_error(ctx) ? tine_error(ctx) : "");
    tine_kernel_free(k);
    free(b.p);
    b = (tine_buf){0};
    /* a 4096-term min lowered for SSE2 (its cost computation was exponential) */
    tine_clear_error(ctx);
    tine_expr_t *e = tine_parse(ctx, "min(r in 0..4096) K_i8", "<expr>");
    tine_expr_t *l = e ? tine_lower(ctx, tine_lift(ctx, e), "x86-64-sse2") : NULL;
    check(l != NULL, "the 4096-term min does not lower: %s", tine_error(ctx) ? tine_error(ctx) : "");
    /* a sum of 200,000 terms: a located limit, found without recursion over the chain */
    add(&b, "input in: u8[1]\noutput out(x): u8 = in(x)");
    for (int i = 1; i < 200000; i++) tine_buf_puts(&b, " + in(x)");
    add(&b, "\n");
    refused(ctx, "a 200,000-term sum", &b,
            "<kernel>:2:1: 'out' has 200006 operations once the functions it calls are inlined; a stage has at most "
            "16384 (materialize some of the functions it calls, or split it)");
    /* a 16,000-term sum is within the limits: it compiles and runs */
    add(&b, "input in: u8[1]\noutput out(x): u8 = in(x)");
    for (int i = 1; i < 16000; i++) add(&b, " + in(x + %d)", i % 5);
    add(&b, "\n");
    accepted(ctx, "a 16,000-term sum", &b, true);
}

/* Nodes of e as a tree (a DAG's shared nodes counted once per use), saturating; memo
 * keyed by node: sizes of nodes already seen. */
static uint64_t tree_size(tine_ctx_t *ctx, const tine_expr_t *e, tine_u64map *memo) {
    uint64_t v;
    if (tine_u64map_get(memo, (uint64_t)(uintptr_t)e, &v)) return v;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *x = order[i];
        if (tine_u64map_get(memo, (uint64_t)(uintptr_t)x, &v)) continue;
        uint64_t s = 1;
        for (int j = 0; j < x->nops; j++) {
            uint64_t c = 0;
            tine_u64map_get(memo, (uint64_t)(uintptr_t)x->ops[j], &c);
            s = s + c > ((uint64_t)1 << 40) ? (uint64_t)1 << 40 : s + c;
        }
        tine_u64map_put(memo, (uint64_t)(uintptr_t)x, s);
    }
    free(order);
    tine_u64map_get(memo, (uint64_t)(uintptr_t)e, &v);
    return v;
}

/* The nodes of root not in seen, added to it. */
static uint64_t new_nodes(tine_ctx_t *ctx, const tine_expr_t *root, tine_u64map *seen) {
    uint32_t n;
    uint64_t added = 0, v;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    for (uint32_t i = 0; i < n; i++)
        if (!tine_u64map_get(seen, (uint64_t)(uintptr_t)order[i], &v)) {
            tine_u64map_put(seen, (uint64_t)(uintptr_t)order[i], 1);
            added++;
        }
    free(order);
    return added;
}

/* Distinct nodes of the stages' one-lane bodies and loop reductions: the kernel's size. */
static uint64_t bodies_size(tine_ctx_t *ctx, const tine_kernel_t *k) {
    tine_u64map seen = {0};
    uint64_t total = 0;
    for (int s = 0; s < tine_kernel_nstages(k); s++) {
        const tine_stage *st = tine_kernel_stage(k, s);
        total += new_nodes(ctx, st->body1, &seen);
        for (int i = 0; i < st->reds1.n; i++)
            total += new_nodes(ctx, st->reds1.v[i].lo, &seen) + new_nodes(ctx, st->reds1.v[i].hi, &seen) +
                     new_nodes(ctx, st->reds1.v[i].update, &seen);
    }
    tine_u64map_free(&seen);
    return total;
}

/* The plan of kernel `text` as printed, in expression nodes, at most `factor` times the
 * kernel's bodies. */
static void plan_linear(tine_ctx_t *ctx, const char *what, const char *text, uint64_t factor) {
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<kernel>");
    check(k != NULL, "%s: refused: %s", what, tine_error(ctx) ? tine_error(ctx) : "");
    if (!k) return;
    tine_stmt_pool pool;
    tine_stmt_pool_init(&pool, ctx);
    tine_kernel_plan_t plan;
    int rc = tine_stmt_plan(&pool, k, &plan);
    check(rc == 0, "%s: no plan: %s", what, tine_error(ctx) ? tine_error(ctx) : "");
    if (rc == 0) {
        tine_u64map memo = {0};
        uint64_t size = 0;
        for (int i = 0; i < plan.nsteps; i++) {
            const tine_plan_step *s = &plan.steps[i];
            if (s->var) size += tree_size(ctx, s->value, &memo);
            else {
                size += tree_size(ctx, s->check->assert_.cond, &memo);
                for (int j = 0; j < s->check->assert_.nargs; j++) size += tree_size(ctx, s->check->assert_.args[j], &memo);
            }
        }
        tine_u64map_free(&memo);
        uint64_t body = bodies_size(ctx, k);
        check(size <= factor * body, "%s: the plan prints %llu nodes, more than %llu times the bodies' %llu", what,
              (unsigned long long)size, (unsigned long long)factor, (unsigned long long)body);
        tine_kernel_plan_free(&plan);
    }
    tine_stmt_pool_free(&pool);
    tine_kernel_free(k);
}

static void count_loop(void *user, const tine_stmt *s) {
    if (s->kind == TINE_S_FOR) ++*(int *)user;
}

/* The loops of the statement after the passes before unswitching and after it. */
typedef struct {
    int before, after;
} loop_counts;

static void count_pass(void *user, const char *pass, const tine_stmt *s) {
    loop_counts *c = user;
    int n = 0;
    tine_stmt_visit(s, count_loop, &n);
    if (!strcmp(pass, "residue")) c->before = n;
    if (!strcmp(pass, "unswitch")) c->after = n;
}

/* Unswitching copied the vectorized reduction of issue 30's kernel, each copy with the
 * two reductions run per term, four times in every part of the nest: 2,773 loops in one
 * function, over two minutes in LLVM's loop passes. A loop holding loops is not split. */
static void test_unswitch_nested(tine_ctx_t *ctx, const char *text) {
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<kernel>");
    check(k != NULL, "issue 30's kernel: refused: %s", tine_error(ctx) ? tine_error(ctx) : "");
    if (!k) return;
    tine_stmt_pool pool;
    tine_stmt_pool_init(&pool, ctx);
    loop_counts c = {-1, -1};
    tine_stmt *s = tine_compile_stmt(&pool, k, -1, "x86-64-avx2", count_pass, &c);
    check(s != NULL && c.before > 0 && c.after == c.before,
          "issue 30's kernel: unswitching copies loops that hold loops: %d loops before it, %d after", c.before, c.after);
    tine_stmt_pool_free(&pool);
    tine_kernel_free(k);
}

/* Before the plan shared its bounds: 430,169 nodes for issue 30's kernel (2,300 times its
 * bodies' 186), past 2^40 for the chains; now 6 to 12 times the bodies. */
static void test_plan_size(tine_ctx_t *ctx) {
    static const char *const head = "input in0: i64[2]\nparam K: i32\nfunc bin0 = constant(in0, 0)\n"
                                    "func f0(x, y) = i16(bin0(x, y)) - min(r0 in 0..K) i16(bin0(x, 2 * y))\n";
    static const char *const schedules[] = {"split out.y yo yi 1\nunroll out.yi 4\nvectorize out.r1 2\n",
                                            "split out.y yo yi 1\nunroll out.yi 8\nvectorize out.r1 2\n", ""};
    for (int i = 0; i < 3; i++) {
        tine_buf b = {0};
        add(&b, "%s", head);
        add(&b, "func f1(x, y) = max(u32(f0(2 * x - 1, y - 3)), u32(f0(2 * x + 2, y))) ^ sum(r1 in 0..K) "
                "extending_mul(u32(f0(r1, y)), f0(2, y))\n");
        add(&b, "output out(x, y): u64 = absd(u64(f0(x, 2 * y + 1)), u64(f1(x + 1, 2 * (y / 2) - 1)))\nschedule\n%s",
            schedules[i]);
        char what[64];
        snprintf(what, sizeof what, "issue 30's kernel (schedule %d)", i);
        plan_linear(ctx, what, b.p, 24);
        if (i == 0) test_unswitch_nested(ctx, b.p);
        free(b.p);
    }
    /* chains: each level reads the one below at shifted and scaled rows, inside and
       outside a reduction */
    for (int levels = 2; levels <= 4; levels++) {
        tine_buf b = {0};
        add(&b, "%s", head);
        for (int l = 1; l <= levels; l++)
            add(&b, "func f%d(x, y) = max(f%d(2 * x - 1, y - 3), f%d(x + 2, 2 * y)) - min(r%d in 0..K) f%d(r%d, y / 2)\n", l,
                l - 1, l - 1, l, l - 1, l);
        add(&b, "output out(x, y): i16 = f%d(x, 2 * y + 1) + f%d(x + 1, y - 1)\nschedule\n", levels, levels);
        char what[64];
        snprintf(what, sizeof what, "a chain of %d reducing functions", levels);
        plan_linear(ctx, what, b.p, 24);
        free(b.p);
    }
}

static void test_c_names(tine_ctx_t *ctx) {
    tine_kernel_t *k = tine_kernel_parse(ctx, "input in: u8[1]\nparam p: bool\noutput out(x): u8 = select(p, in(x), u8(1))\n",
                                         "<kernel>");
    check(k != NULL, "a bool parameter is refused: %s", tine_error(ctx) ? tine_error(ctx) : "");
    if (!k) return;
    size_t n;
    char *h = tine_kernel_emit(k, "x86-64-avx2", TINE_SELECT_LLVM, "kern", "h", &n);
    check(h && strstr(h, "_Bool p, "), "a bool parameter's type in the header: %s", h ? h : tine_error(ctx));
    free(h);
    static const char *const bad[] = {"int", "bool", "malloc", "tine_stage0", "__x", "int32_t", "INT8_MAX"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tine_clear_error(ctx);
        h = tine_kernel_emit(k, "x86-64-avx2", TINE_SELECT_LLVM, bad[i], "h", &n);
        check(!h && tine_error(ctx) && strstr(tine_error(ctx), "cannot be its C function's name"),
              "the kernel name '%s' is accepted (%s)", bad[i], tine_error(ctx) ? tine_error(ctx) : "");
        free(h);
    }
    tine_kernel_free(k);
}

int main(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    test_limits(ctx);
    test_issue_inputs(ctx);
    test_plan_size(ctx);
    test_c_names(ctx);
    tine_ctx_free(ctx);
    printf("test_kernel_limits: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
