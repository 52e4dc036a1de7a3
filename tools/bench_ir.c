/* bench_ir.c — `tine bench-ir` and `tine bench-lift`: the cost of interning nodes (build
 * and lookup per node, bytes per node, with and without locality) and of lifting a random
 * corpus (rules compiled, expressions per second, the Sobel), each measured several times
 * and reported by its median. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

/* Interns `n` nodes: 64 variables, a constant every 16th node, the rest binary ops of
 * u16x16 over earlier nodes. With `window` > 0, operands come from the last `window`
 * nodes seven times in eight (the way expressions are built, bottom-up); with 0 they
 * come from anywhere (the worst case for caches). Then interns every node again. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    size_t nodes;
    double build_ns, lookup_ns, bytes;
} ir_run;

static int bench_run(long n, long window, ir_run *out) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_type_t t = tine_type(TINE_UINT, 16, 16);
    tine_expr_t **pool = malloc(sizeof *pool * (size_t)n);
    int *opsel = malloc(sizeof *opsel * (size_t)n);
    long *ia = malloc(sizeof *ia * (size_t)n), *ib = malloc(sizeof *ib * (size_t)n);
    if (!ctx || !pool || !opsel || !ia || !ib) {
        fprintf(stderr, "tine: out of memory for a corpus of %ld nodes\n", n);
        return 1;
    }
    static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_MIN, TINE_OP_MAX,
                                    TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
    uint64_t s = 42;
    for (long i = 0; i < n; i++) { /* the shape first, so the timed loop only interns */
        opsel[i] = (int)(cli_rand(&s) % 8);
        for (int k = 0; k < 2; k++) {
            uint64_t r = cli_rand(&s);
            long span = (window && (r & 7) != 0 && i > window) ? window : i;
            long v = span ? i - 1 - (long)((r >> 3) % (uint64_t)span) : 0;
            (k ? ib : ia)[i] = v;
        }
    }
    size_t before = tine_ctx_bytes(ctx);
    double t0 = cli_now();
    char name[24];
    for (long i = 0; i < n; i++) {
        if (i < 64) {
            snprintf(name, sizeof name, "v%ld", i);
            pool[i] = tine_var(ctx, name, t);
        } else if (i % 16 == 0) {
            pool[i] = tine_const_uint(ctx, t, (uint64_t)(i & 0xffff));
        } else {
            pool[i] = tine_binary(ctx, ops[opsel[i]], pool[ia[i]], pool[ib[i]]);
        }
    }
    double t1 = cli_now();
    for (long i = 64; i < n; i++)
        if (i % 16 != 0 && tine_binary(ctx, ops[opsel[i]], pool[ia[i]], pool[ib[i]]) != pool[i]) {
            fprintf(stderr, "bench-ir: interning is not stable\n");
            return 1;
        }
    double t2 = cli_now();
    size_t nodes = tine_ctx_nodes(ctx), bytes = tine_ctx_bytes(ctx) - before;
    *out = (ir_run){nodes, (t1 - t0) * 1e9 / (double)n, (t2 - t1) * 1e9 / (double)(n - 64 - n / 16),
                    (double)bytes / (double)nodes};
    free(pool);
    free(opsel);
    free(ia);
    free(ib);
    tine_ctx_free(ctx);
    return 0;
}

int cli_cmd_bench_ir(const options *o) {
    long n = o->nodes < 1000 ? 1000 : o->nodes;
    enum { RUNS = 5 };
    printf("bench-ir: %ld constructor calls per workload, median of %d runs, each in a fresh context\n", n, RUNS);
    printf("(goal: < 100 ns and < 64 bytes per node)\n\n");
    printf("%-28s %9s  %10s  %12s  %10s\n", "workload", "nodes", "ns/node", "ns/re-intern", "bytes/node");
    static const struct { long window; const char *label; } w[] = {{256, "expression-shaped (local)"},
                                                                    {0, "random operands (worst)"}};
    for (int k = 0; k < 2; k++) {
        ir_run r[RUNS];
        double build[RUNS], lookup[RUNS];
        for (int i = 0; i < RUNS; i++) {
            if (bench_run(n, w[k].window, &r[i])) return 1;
            build[i] = r[i].build_ns;
            lookup[i] = r[i].lookup_ns;
        }
        qsort(build, RUNS, sizeof *build, cmp_double);
        qsort(lookup, RUNS, sizeof *lookup, cmp_double);
        printf("%-28s %9zu  %10.1f  %12.1f  %10.1f\n", w[k].label, r[0].nodes, build[RUNS / 2], lookup[RUNS / 2],
               r[0].bytes);
    }
    return 0;
}

/* ---- bench-lift ---------------------------------------------------------------------- */

/* Random integer expressions shaped like fixed-point code: narrow inputs cast wider,
 * added, multiplied and shifted by constants, clamped to type limits, averaged and
 * rounded. Each call returns a node of element type t (lanes 16). */
static tine_expr_t *gen_expr(tine_ctx_t *ctx, uint64_t *s, tine_type_t t, int depth) {
    uint64_t r = cli_rand(s);
    tine_type_t nt = tine_type_narrow(t);
    bool can_narrow = tine_type_valid(nt);
    if (depth <= 0 || r % 8 == 0) {
        char name[8];
        snprintf(name, sizeof name, "%c", 'a' + (int)(cli_rand(s) % 6));
        return tine_var(ctx, name, t);
    }
    tine_expr_t *a, *b;
    switch ((r >> 3) % 10) {
    case 0: case 1: /* widened operands */
        if (can_narrow) {
            a = tine_cast(ctx, t, gen_expr(ctx, s, tine_type_with_kind(nt, (tine_kind_t)(cli_rand(s) & 1)), depth - 1));
            b = tine_cast(ctx, t, gen_expr(ctx, s, tine_type_with_kind(nt, (tine_kind_t)(cli_rand(s) & 1)), depth - 1));
            static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL};
            return tine_binary(ctx, ops[cli_rand(s) % 3], a, b);
        }
        /* fall through */
    case 2: case 3: {
        static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_MIN, TINE_OP_MAX,
                                        TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        return tine_binary(ctx, ops[cli_rand(s) % 8], gen_expr(ctx, s, t, depth - 1), gen_expr(ctx, s, t, depth - 1));
    }
    case 4: /* shift or multiply by a small constant */
        a = gen_expr(ctx, s, t, depth - 1);
        if (cli_rand(s) & 1) return tine_binary(ctx, TINE_OP_MUL, a, tine_const_int(ctx, t, 1 << (cli_rand(s) % 4)));
        return tine_binary(ctx, cli_rand(s) & 1 ? TINE_OP_SHL : TINE_OP_SHR, a, tine_const_int(ctx, t, (int64_t)(cli_rand(s) % 4)));
    case 5: /* rounding: (x + 2^(k-1)) >> k */
        if (can_narrow) {
            int k = 1 + (int)(cli_rand(s) % 6);
            a = tine_cast(ctx, t, gen_expr(ctx, s, nt, depth - 1));
            a = tine_binary(ctx, TINE_OP_ADD, a, tine_const_int(ctx, t, 1 << (k - 1)));
            return tine_binary(ctx, TINE_OP_SHR, a, tine_const_int(ctx, t, k));
        }
        return gen_expr(ctx, s, t, depth - 1);
    case 6: /* narrow with a clamp */
        if (tine_type_valid(tine_type_widen(t)) && t.bits <= 32) {
            tine_type_t w = tine_type_widen(t);
            a = gen_expr(ctx, s, w, depth - 1);
            a = tine_binary(ctx, TINE_OP_MAX, a, tine_const_int(ctx, w, tine_type_min(t)));
            a = tine_binary(ctx, TINE_OP_MIN, a, tine_const_int(ctx, w, (int64_t)tine_type_max(t)));
            return tine_cast(ctx, t, a);
        }
        return gen_expr(ctx, s, t, depth - 1);
    case 7: /* absolute difference */
        a = gen_expr(ctx, s, t, depth - 1);
        b = gen_expr(ctx, s, t, depth - 1);
        return tine_select(ctx, tine_binary(ctx, TINE_OP_GT, a, b), tine_binary(ctx, TINE_OP_SUB, a, b),
                           tine_binary(ctx, TINE_OP_SUB, b, a));
    case 8: /* average */
        if (can_narrow) {
            a = tine_binary(ctx, TINE_OP_ADD, tine_cast(ctx, t, gen_expr(ctx, s, nt, depth - 1)),
                            tine_cast(ctx, t, gen_expr(ctx, s, nt, depth - 1)));
            if (cli_rand(s) & 1) a = tine_binary(ctx, TINE_OP_ADD, a, tine_const_int(ctx, t, 1));
            return tine_binary(ctx, TINE_OP_SHR, a, tine_const_int(ctx, t, 1));
        }
        return gen_expr(ctx, s, t, depth - 1);
    default: /* a cast from another width */
        if (can_narrow) return tine_cast(ctx, t, gen_expr(ctx, s, tine_type_with_kind(nt, (tine_kind_t)(cli_rand(s) & 1)), depth - 1));
        return gen_expr(ctx, s, t, depth - 1);
    }
}

typedef struct {
    double compile, lift; /* seconds */
    size_t exprs, corpus, changed, made;
    int rules;
} lift_run;

/* One measurement: a fresh context, the rules compiled, a corpus of `want` distinct nodes
 * generated (not timed), then lifted (timed). */
static int bench_lift_once(long want, lift_run *out) {
    tine_ctx_t *ctx = tine_ctx_new();
    double t0 = cli_now();
    tine_ruleset_t *rs = tine_lift_rules(ctx);
    double t1 = cli_now();
    static const tine_type_t types[] = {{TINE_UINT, 16, 16}, {TINE_INT, 16, 16}, {TINE_UINT, 8, 16},
                                        {TINE_INT, 32, 16}, {TINE_UINT, 32, 16}, {TINE_INT, 8, 16}};
    size_t cap = 1024, n = 0, before = tine_ctx_nodes(ctx);
    tine_expr_t **roots = malloc(cap * sizeof *roots);
    uint64_t s = 7;
    while (roots && tine_ctx_nodes(ctx) - before < (size_t)want) {
        tine_expr_t *e = gen_expr(ctx, &s, types[cli_rand(&s) % 6], 6);
        if (!e) continue;
        if (n == cap) roots = realloc(roots, (cap *= 2) * sizeof *roots);
        if (roots) roots[n++] = e;
    }
    if (!roots) {
        fprintf(stderr, "tine: out of memory for a corpus of %ld nodes\n", want);
        return 1;
    }
    size_t corpus = tine_ctx_nodes(ctx) - before;
    double t2 = cli_now();
    for (size_t i = 0; i < n; i++) tine_lift_with(ctx, rs, roots[i], NULL, NULL);
    double t3 = cli_now();
    size_t made = tine_ctx_nodes(ctx) - before - corpus, changed = 0;
    for (size_t i = 0; i < n; i++) changed += tine_lift_with(ctx, rs, roots[i], NULL, NULL) != roots[i];
    *out = (lift_run){t1 - t0, t3 - t2, n, corpus, changed, made, tine_rules_count(rs)};
    free(roots);
    tine_ctx_free(ctx);
    return 0;
}

int cli_cmd_bench_lift(const options *o) {
    long want = o->nodes < 1000 ? 1000 : o->nodes;
    enum { RUNS = 5 };
    lift_run runs[RUNS];
    double lift[RUNS], compile[RUNS], sobel[RUNS];
    for (int r = 0; r < RUNS; r++) {
        if (bench_lift_once(want, &runs[r])) return 1;
        lift[r] = runs[r].lift;
        compile[r] = runs[r].compile;
    }
    /* the Sobel of FPIR.md, each time in a fresh context with the rules compiled */
    char *text = NULL;
    for (int r = 0; r < RUNS; r++) {
        tine_ctx_t *c = tine_ctx_new();
        tine_lift_rules(c);
        tine_expr_t *e = tine_parse(c, CLI_SOBEL, "<sobel>");
        double t0 = cli_now();
        tine_expr_t *lifted = tine_lift(c, e);
        sobel[r] = cli_now() - t0;
        if (!text) text = tine_print(c, lifted);
        tine_ctx_free(c);
    }
    qsort(lift, RUNS, sizeof *lift, cmp_double);
    qsort(compile, RUNS, sizeof *compile, cmp_double);
    qsort(sobel, RUNS, sizeof *sobel, cmp_double);
    const lift_run *r0 = &runs[0];
    printf("bench-lift: median of %d runs, each in a fresh context\n", RUNS);
    printf("  rules:      %d compiled in %.2f ms\n", r0->rules, compile[RUNS / 2] * 1e3);
    printf("  corpus:     %zu expressions, %zu distinct nodes (%zu changed by lifting, %zu nodes made)\n",
           r0->exprs, r0->corpus, r0->changed, r0->made);
    printf("  lifting:    %.3f s, %.2f M nodes/s (fastest run %.2f, slowest %.2f; goal: >= 1 M nodes/s)\n",
           lift[RUNS / 2], (double)r0->corpus / lift[RUNS / 2] / 1e6, (double)r0->corpus / lift[0] / 1e6,
           (double)r0->corpus / lift[RUNS - 1] / 1e6);
    printf("  Sobel:      %.1f us to lift (FPIR definitions instantiated on first use included)\n  -> %s\n",
           sobel[RUNS / 2] * 1e6, text);
    free(text);
    return 0;
}

