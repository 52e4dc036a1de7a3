#define _POSIX_C_SOURCE 200809L
/* tine.c — the command-line driver, thin over libtine.
 *
 *   tine demo                         the Sobel walk-through (README's main job)
 *   tine print EXPR  [--lanes N]      parse, type and print back
 *   tine expand EXPR [--lanes N]      FPIR ops replaced by their definitions
 *   tine eval EXPR   [--lanes N] [--seed S]   evaluate on random inputs
 *   tine lift EXPR [--lanes N] [--trace-rules]   lift into FPIR with the built-in rules
 *   tine rules --list | --check FILE  the lift rules; or compile a rule file and report
 *   tine compile -e EXPR --target T [--lanes N] [--emit asm|llvm|fpir|lowered] [--select llvm|tine] [--trace-rules]
 *   tine run -e EXPR --target T [--lanes N] [--seed S] [--select ...]   compiled code vs interpreter
 *                                     (JIT here; AArch64 targets under qemu-aarch64: cross.c)
 *   tine compile FILE ...             a kernel file (any name) ahead of time
 *   tine run FILE ...                 run through both selections against the interpreter
 *                                     (tools/run_kernel.c)
 * Options, input files and outputs: tools/cli.c (usage there).
 *   tine ops                          every op, FPIR ops with their definitions
 *   tine bench-ir [--nodes N]         interning speed and memory per node
 *   tine bench-lift [--nodes N]       lifting throughput on a generated corpus; the Sobel
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cross.h"
#include "tine.h"

static const char *const SOBEL_LIFTED =
    "saturating_cast<u8>(\n"
    "  absd(widening_add(a_u8, c_u8) + widening_shl(b_u8, 1), widening_add(d_u8, f_u8) + widening_shl(e_u8, 1)) +\n"
    "  absd(widening_add(g_u8, i_u8) + widening_shl(h_u8, 1), widening_add(j_u8, l_u8) + widening_shl(k_u8, 1)))";

/* Exit codes: 0 success, 1 an error in the input (or a documented limit), 2 usage, 3 an
 * internal error (tine's bug). report() (cli_report) prints a failed call's message and
 * notes an internal one, which main turns into exit code 3. */
enum { EXIT_INTERNAL = 3 };

static void report(tine_ctx_t *ctx, const char *prefix) { cli_report(ctx, prefix); }

static tine_expr_t *parse_or_report(tine_ctx_t *ctx, const char *text) {
    tine_expr_t *e = tine_parse(ctx, text, "<input>");
    if (!e) report(ctx, "");
    return e;
}

static void print_line(tine_ctx_t *ctx, const char *label, const tine_expr_t *e) {
    char *s = tine_print(ctx, e);
    char t[32];
    printf("%s%s\n  : %s\n", label, s, tine_type_str(tine_expr_type(e), t, sizeof t));
    free(s);
}

/* ---- random inputs ------------------------------------------------------------------ */

static void print_lanes(tine_type_t t, const uint64_t *v) {
    putchar('[');
    for (int i = 0; i < t.lanes; i++) {
        if (i) printf(", ");
        if (t.kind == TINE_INT) printf("%" PRId64, (int64_t)v[i]);
        else if (t.kind == TINE_FLOAT) {
            if (t.bits == 32) {
                uint32_t w = (uint32_t)v[i];
                float f;
                memcpy(&f, &w, 4);
                printf("%.9g", f);
            } else {
                double d;
                memcpy(&d, &v[i], 8);
                printf("%.17g", d);
            }
        } else if (t.kind == TINE_BOOL) printf("%s", v[i] ? "true" : "false");
        else printf("%" PRIu64, v[i]);
    }
    printf("]\n");
}

/* Binds every variable and buffer reachable from e to random data; prints them. */
enum { BUFFER_ELEMS = 4096 };
typedef struct {
    void **bufs; /* one per buffer the expression loads from */
    int nbufs, cap;
} bound;

static int bind_random(tine_ctx_t *ctx, tine_env_t *env, const tine_expr_t *e, uint64_t base_seed,
                       uint64_t *seed, bound *b, unsigned char *seen, int verbose) {
    uint32_t id = tine_expr_id(e);
    if (seen[id / 8] & (1u << (id % 8))) return 0;
    seen[id / 8] |= (unsigned char)(1u << (id % 8));
    for (int i = 0; i < tine_expr_nops(e); i++)
        if (bind_random(ctx, env, tine_expr_operand(e, i), base_seed, seed, b, seen, verbose)) return -1;
    tine_type_t t = tine_expr_type(e);
    char ts[32];
    /* values depend on the seed and the leaf's name, not on the order of the walk, so
       two forms of one expression see the same inputs */
    if (tine_expr_name(e)) {
        *seed = base_seed;
        for (const char *c = tine_expr_name(e); *c; c++) *seed = (*seed ^ (uint8_t)*c) * 0x100000001B3ull;
    }
    if (tine_expr_op(e) == TINE_OP_VAR) {
        uint64_t v[TINE_MAX_LANES];
        for (int i = 0; i < t.lanes; i++) v[i] = cli_random_lane(t, seed);
        if (tine_env_bind(env, e, v)) return -1;
        if (verbose) {
            printf("  %s_%s = ", tine_expr_name(e), tine_type_str(tine_type_with_lanes(t, 1), ts, sizeof ts));
            print_lanes(t, v);
        }
    } else if (tine_expr_op(e) == TINE_OP_LOAD) {
        int bytes = t.bits / 8;
        if (b->nbufs == b->cap) {
            void **nb = realloc(b->bufs, sizeof *nb * (size_t)(b->cap = b->cap ? 2 * b->cap : 8));
            if (!nb) return -1;
            b->bufs = nb;
        }
        unsigned char *data = malloc((size_t)BUFFER_ELEMS * (size_t)bytes);
        if (!data) return -1;
        tine_type_t one = tine_type_with_lanes(t, 1);
        for (int i = 0; i < BUFFER_ELEMS; i++) {
            uint64_t v = cli_random_lane(one, seed);
            cli_store_elem(data + (size_t)i * (size_t)bytes, v, one, (size_t)bytes);
        }
        b->bufs[b->nbufs++] = data;
        if (tine_env_bind_buffer(env, tine_expr_name(e), one, data, BUFFER_ELEMS)) return -1; /* says why */
        if (verbose)
            printf("  %s_%s = buffer of %d random elements\n", tine_expr_name(e), tine_type_str(one, ts, sizeof ts),
                   BUFFER_ELEMS);
    }
    return 0;
}

static int eval_random(tine_ctx_t *ctx, const tine_expr_t *e, uint64_t seed, int verbose, uint64_t *out,
                       tine_env_t **env_out) {
    tine_env_t *env = tine_env_new(ctx);
    bound b = {0};
    size_t n = tine_ctx_nodes(ctx);
    unsigned char *seen = calloc(n / 8 + 1, 1);
    uint64_t state = seed;
    int rc = seen ? bind_random(ctx, env, e, seed, &state, &b, seen, verbose) : -1;
    free(seen);
    if (rc == 0) rc = tine_eval(ctx, e, env, out);
    if (env_out) *env_out = env;
    else tine_env_free(env);
    for (int i = 0; i < b.nbufs; i++) free(b.bufs[i]);
    free(b.bufs);
    return rc;
}

/* ---- commands ------------------------------------------------------------------------ */

static void list_fpir_ops(const tine_expr_t *e, int *used) {
    if (tine_op_is_fpir(tine_expr_op(e))) used[tine_expr_op(e)] = 1;
    for (int i = 0; i < tine_expr_nops(e); i++) list_fpir_ops(tine_expr_operand(e, i), used);
}

static int cmd_demo(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    int lanes = 16;
    tine_set_lanes(ctx, lanes);
    printf("== The 3x3 Sobel of FPIR.md, %d lanes ==\n\ninput text:\n%s\n\n", lanes, CLI_SOBEL);
    tine_expr_t *e = parse_or_report(ctx, CLI_SOBEL);
    if (!e) return 1;
    print_line(ctx, "parsed and printed back:\n", e);

    int used[TINE_OP_COUNT] = {0};
    list_fpir_ops(e, used);
    printf("\nFPIR ops it uses, with their one definition:\n");
    for (int op = 0; op < TINE_OP_COUNT; op++)
        if (used[op]) printf("  %s(...) := %s\n", tine_op_name((tine_op_t)op), tine_fpir_definition((tine_op_t)op));

    tine_expr_t *x = tine_expand(ctx, e);
    print_line(ctx, "\nexpanded to primitive ops:\n", x);

    tine_expr_t *lifted = parse_or_report(ctx, SOBEL_LIFTED);
    if (!lifted) return 1;
    print_line(ctx, "\nthe lifted form FPIR.md gives:\n", lifted);

    uint64_t r0[TINE_MAX_LANES], r1[TINE_MAX_LANES], r2[TINE_MAX_LANES];
    printf("\nrandom inputs (seed 1):\n");
    if (eval_random(ctx, e, 1, 1, r0, NULL) || eval_random(ctx, x, 1, 0, r1, NULL) ||
        eval_random(ctx, lifted, 1, 0, r2, NULL)) {
        report(ctx, "");
        return 1;
    }
    printf("result of the input form:    ");
    print_lanes(tine_expr_type(e), r0);
    printf("result of the expanded form: ");
    print_lanes(tine_expr_type(x), r1);
    printf("result of the lifted form:   ");
    print_lanes(tine_expr_type(lifted), r2);
    int same = !memcmp(r0, r1, sizeof(uint64_t) * lanes) && !memcmp(r0, r2, sizeof(uint64_t) * lanes);
    printf("\n%s\n", same ? "all three agree bit for bit." : "MISMATCH between the forms");
    tine_ctx_free(ctx);
    return same ? 0 : 1;
}

/* Prints e on stdout, its type on stderr, and frees the context. */
static int print_result(tine_ctx_t *ctx, const tine_expr_t *e) {
    char *s = tine_print(ctx, e);
    char t[32];
    printf("%s\n", s);
    fprintf(stderr, "type: %s\n", tine_type_str(tine_expr_type(e), t, sizeof t));
    free(s);
    tine_ctx_free(ctx);
    return 0;
}

static int cmd_print(const options *o, int expand) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, o->lanes);
    tine_expr_t *e = parse_or_report(ctx, o->expr);
    if (!e) {
        tine_ctx_free(ctx);
        return 1;
    }
    if (expand) e = tine_expand(ctx, e);
    return print_result(ctx, e);
}

static int cmd_eval(const options *o) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, o->lanes);
    tine_expr_t *e = parse_or_report(ctx, o->expr);
    if (!e) {
        tine_ctx_free(ctx);
        return 1;
    }
    if (tine_expr_type(e).bits > 64) {
        fprintf(stderr, "tine: cannot print 128-bit results\n");
        tine_ctx_free(ctx);
        return 1;
    }
    printf("inputs (seed %" PRIu64 ", %d lanes):\n", o->seed, o->lanes);
    uint64_t r[TINE_MAX_LANES];
    if (eval_random(ctx, e, o->seed, 1, r, NULL)) {
        report(ctx, "");
        tine_ctx_free(ctx);
        return 1;
    }
    char t[32];
    printf("result %s = ", tine_type_str(tine_expr_type(e), t, sizeof t));
    print_lanes(tine_expr_type(e), r);
    tine_ctx_free(ctx);
    return 0;
}

typedef struct {
    tine_ctx_t *ctx;
    FILE *out;
} tracer;

static void trace_rule(void *user, const char *rule, const char *file, int line, const tine_expr_t *before,
                       const tine_expr_t *after) {
    tracer *t = user;
    char *b = tine_print(t->ctx, before), *a = tine_print(t->ctx, after);
    fprintf(t->out, "  %s (%s:%d)\n      %s\n   -> %s\n", rule, file, line, b, a);
    free(b);
    free(a);
}

static int cmd_lift(const options *o) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, o->lanes);
    tine_expr_t *e = parse_or_report(ctx, o->expr);
    if (!e) {
        tine_ctx_free(ctx);
        return 1;
    }
    /* --rules-extra FILE: its rules beside lift.rules (a set of their own, freed here) */
    tine_ruleset_t *extra = NULL;
    if (o->rules_extra) {
        char *text = tine_cli_read_file(o->rules_extra);
        extra = text ? tine_lift_rules_plus(ctx, text, o->rules_extra) : NULL;
        free(text);
        if (!extra) {
            if (text) report(ctx, "");
            tine_ctx_free(ctx);
            return 1;
        }
    }
    if (o->trace) printf("rules applied, in order:\n");
    tracer tr = {ctx, stdout};
    tine_expr_t *r = tine_lift_with(ctx, extra ? extra : tine_lift_rules(ctx), e, o->trace ? trace_rule : NULL, &tr);
    if (o->trace) printf("lifted:\n");
    int rc = print_result(ctx, r);
    tine_rules_free(extra);
    return rc;
}

static int cmd_rules(const options *o) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_ruleset_t *rs = NULL;
    int own = 0;
    if (o->check) {
        char *text = tine_cli_read_file(o->check);
        if (!text) {
            tine_ctx_free(ctx);
            return 1;
        }
        rs = tine_rules_compile(ctx, text, o->check);
        free(text);
        if (!rs) {
            report(ctx, "");
            tine_ctx_free(ctx);
            return 1;
        }
        own = 1;
    } else if (o->list) {
        rs = tine_lift_rules(ctx);
    }
    if (o->list || !o->check) {
        for (int i = 0; i < tine_rules_count(rs); i++) {
            const char *name, *file, *why;
            int line;
            tine_rule_info(rs, i, &name, &file, &line, &why);
            printf("%s:%d: %s  # %s\n", file, line, name, why);
        }
    }
    printf("%d rules\n", tine_rules_count(rs));
    if (own) tine_rules_free(rs);
    tine_ctx_free(ctx);
    return 0;
}

static int selection(const options *o, tine_selection_t *sel) {
    if (!o->select || !strcmp(o->select, "tine")) *sel = TINE_SELECT_TINE;
    else if (!strcmp(o->select, "llvm")) *sel = TINE_SELECT_LLVM;
    else {
        fprintf(stderr, "tine: --select takes llvm or tine, not '%s'\n", o->select);
        return -1;
    }
    return 0;
}

/* 0 if target (--target) is absent or names a target, else 1 after a message naming the
 * known ones. Every compile checks it first, before any output, whether its output uses
 * the target or not (--emit fpir, schedule), so that a misspelt one is never ignored. */
static int check_target(const char *target) {
    /* a list (a multi-target object) is the library's to check, with the closest names */
    if (!target || !strcmp(target, "host") || strchr(target, ',')) return 0;
    tine_ctx_t *ctx = tine_ctx_new();
    bool known = tine_target_isa(target) != NULL; /* the psABI names (x86-64-v3) too */
    for (int i = 0; tine_target_name(ctx, i) && !known; i++) known = !strcmp(tine_target_name(ctx, i), target);
    if (!known) {
        const char *names[32] = {"host"};
        int n = 1;
        fprintf(stderr, "tine: unknown target '%s' (known: host", target);
        for (int i = 0; tine_target_name(ctx, i); i++) {
            fprintf(stderr, " %s", tine_target_name(ctx, i));
            if (n < 32) names[n++] = tine_target_name(ctx, i);
        }
        const char *c = cli_closest(target, names, n);
        fprintf(stderr, ")%s%s%s\n", c ? "; did you mean '" : "", c ? c : "", c ? "'?" : "");
    }
    tine_ctx_free(ctx);
    return !known;
}

static int cmd_compile(const options *o) {
    tine_selection_t sel;
    if (selection(o, &sel)) return 2;
    int kind = o->emit ? tine_emit_kind_find(o->emit) : TINE_EMIT_ASM;
    bool fpir = kind == TINE_EMIT_FPIR, lowered = kind == TINE_EMIT_LOWERED;
    if (kind != TINE_EMIT_ASM && kind != TINE_EMIT_LLVM && !fpir && !lowered) {
        fprintf(stderr, "tine: --emit takes asm, llvm, fpir or lowered here, not '%s'\n", o->emit);
        return 2;
    }
    if ((fpir || lowered) && sel != TINE_SELECT_TINE) {
        fprintf(stderr, "tine: --emit %s shows tine's selection; drop --select llvm\n", o->emit);
        return 2;
    }
    const char *target = o->target ? o->target : "host";
    if (check_target(o->target)) return 1;
    tine_ctx_t *ctx = cli_ctx(o);
    if (!ctx) return 2;
    tine_set_lanes(ctx, o->lanes);
    tine_expr_t *e = parse_or_report(ctx, o->expr);
    /* tine's selection, shown step by step on request (on stderr: stdout is the code) */
    tracer tr = {ctx, stderr};
    tine_expr_t *source = e; /* tine_emit_expr selects it; the steps below only show how */
    if (e && sel == TINE_SELECT_TINE) {
        if (o->trace) fprintf(stderr, "lift rules applied, in order:\n");
        e = tine_lift_with(ctx, tine_lift_rules(ctx), e, o->trace ? trace_rule : NULL, &tr);
        if (fpir) return print_result(ctx, e);
        if (o->trace) fprintf(stderr, "lowering rules applied (%s), in order:\n", target);
        tine_expr_t *l = tine_lower_with(ctx, e, target, o->trace ? trace_rule : NULL, &tr);
        if (!l) {
            report(ctx, "tine: ");
            tine_ctx_free(ctx);
            return 1;
        }
        if (lowered) return print_result(ctx, l);
    }
    char *text = e ? tine_emit_expr(ctx, source, target, sel, kind) : NULL;
    if (e && !text) report(ctx, "tine: ");
    if (text) fputs(text, stdout);
    free(text);
    tine_ctx_free(ctx);
    return text ? 0 : 1;
}

/* ---- tine run -e: compiled code against the interpreter ------------------------------- */

enum { VECTORS = 1000 };

/* One input vector: random lanes (edge values among them) for every argument of the
 * compiled code, in mem[a] (malloc'd, size[a] bytes, the layout the code reads), bound in
 * env for the interpreter. A buffer gets BUFFER_ELEMS elements. 0, or -1 out of memory. */
static int make_inputs(const tine_expr_t *const *leaf, int n, uint64_t *seed, void **mem, size_t *size,
                       tine_env_t *env) {
    for (int a = 0; a < n; a++) mem[a] = NULL;
    for (int a = 0; a < n; a++) {
        tine_type_t t = tine_expr_type(leaf[a]);
        int bytes = t.kind == TINE_BOOL ? 1 : t.bits / 8;
        tine_type_t one = tine_type_with_lanes(t, 1);
        size_t count = tine_expr_op(leaf[a]) == TINE_OP_LOAD ? BUFFER_ELEMS : (size_t)t.lanes;
        uint64_t lanes[TINE_MAX_LANES];
        size[a] = count * (size_t)bytes;
        if (!(mem[a] = calloc(count, (size_t)bytes))) return -1;
        for (size_t i = 0; i < count; i++) {
            uint64_t x = cli_random_lane(one, seed);
            if (i < TINE_MAX_LANES) lanes[i] = x;
            cli_store_elem((char *)mem[a] + i * (size_t)bytes, x, one, (size_t)bytes);
        }
        if (tine_expr_op(leaf[a]) == TINE_OP_LOAD) tine_env_bind_buffer(env, tine_expr_name(leaf[a]), one, mem[a], count);
        else tine_env_bind(env, leaf[a], lanes);
    }
    return 0;
}

/* 1 (after printing where) when the compiled code's lanes `got` differ from the
 * interpreter's `want` in vector v, else 0. */
static int lanes_differ(tine_type_t rt, int v, const void *got, const uint64_t *want) {
    int bytes = rt.kind == TINE_BOOL ? 1 : rt.bits / 8;
    for (int i = 0; i < rt.lanes; i++) {
        uint64_t g = 0;
        memcpy(&g, (const char *)got + (size_t)i * (size_t)bytes, (size_t)bytes);
        uint64_t w = want[i];
        if (bytes < 8) w &= (UINT64_C(1) << (8 * bytes)) - 1;
        if (g != w) {
            printf("mismatch (vector %d, lane %d): compiled 0x%" PRIx64 ", interpreter 0x%" PRIx64 "\n", v, i, g, w);
            return 1;
        }
    }
    return 0;
}

/* The compiled code under test: JIT-compiled here, or (cross.h) run under qemu. */
typedef struct {
    tine_jit_t *jit;
    cross_run *cross;
    const tine_expr_t *const *leaf; /* its arguments, in order */
    int n;
} compiled;

/* VECTORS random input vectors through the compiled code and the interpreter: the number
 * of vectors that differ (at most 5 are reported), or -1 after printing why the code
 * could not run. Vectors the interpreter rejects (a load out of bounds) are not run. */
static int compare_runs(tine_ctx_t *ctx, const tine_expr_t *e, compiled *c, uint64_t seed) {
    enum { OUT = 8 * TINE_MAX_LANES };
    tine_type_t rt = tine_expr_type(e);
    size_t out_bytes = (size_t)rt.lanes * (size_t)(rt.kind == TINE_BOOL ? 1 : rt.bits / 8);
    uint64_t(*want)[TINE_MAX_LANES] = calloc(VECTORS, sizeof *want);
    unsigned char *got = calloc(VECTORS, OUT), *ok = calloc(VECTORS, 1), *packed = calloc(VECTORS, out_bytes);
    void **mem = calloc((size_t)c->n + 1, sizeof *mem);
    size_t *size = calloc((size_t)c->n + 1, sizeof *size);
    int rc = want && got && ok && packed && mem && size ? 0 : -1;
    for (int v = 0; v < VECTORS && rc == 0; v++) {
        tine_env_t *env = tine_env_new(ctx);
        rc = make_inputs(c->leaf, c->n, &seed, mem, size, env);
        if (rc == 0) {
            ok[v] = tine_eval(ctx, e, env, want[v]) == 0;
            if (!ok[v]) tine_clear_error(ctx); /* an input the interpreter rejects: skipped */
            if (c->jit && ok[v]) tine_jit_call(c->jit, (const void *const *)mem, got + (size_t)v * OUT);
            if (c->cross) rc = cross_add(c->cross, (const void *const *)mem, size, ok[v]) ? -2 : 0;
        }
        for (int a = 0; a < c->n; a++) free(mem[a]);
        tine_env_free(env);
    }
    if (rc == 0 && c->cross) {
        rc = cross_finish(c->cross, out_bytes, packed, VECTORS) ? -2 : 0;
        for (int v = 0; v < VECTORS; v++) memcpy(got + (size_t)v * OUT, packed + (size_t)v * out_bytes, out_bytes);
    }
    if (rc == -1) fprintf(stderr, "tine: out of memory\n");
    int bad = 0;
    for (int v = 0; v < VECTORS && rc == 0 && bad < 5; v++)
        if (ok[v]) bad += lanes_differ(rt, v, got + (size_t)v * OUT, want[v]);
    free(want);
    free(got);
    free(ok);
    free(packed);
    free(mem);
    free(size);
    return rc ? -1 : bad;
}

/* Runs the compiled expression on random inputs and compares every lane with the
 * interpreter: JIT-compiled here, or under qemu for an AArch64 target (cross.c). */
static int cmd_run(const options *o) {
    tine_selection_t sel;
    if (selection(o, &sel)) return 2;
    tine_ctx_t *ctx = cli_ctx(o);
    if (!ctx) return 2;
    tine_set_lanes(ctx, o->lanes);
    tine_expr_t *e = parse_or_report(ctx, o->expr);
    if (!e) {
        tine_ctx_free(ctx);
        return 1;
    }
    const char *target = o->target ? o->target : "host";
    compiled c = {0};
    const tine_expr_t **leaf = NULL;
    if (cross_wanted(ctx, target)) {
        c.cross = cross_open(ctx, e, target, sel, &c.leaf, &c.n);
    } else if ((c.jit = tine_jit_expr(ctx, e, target, sel))) { /* selection lifts */
        c.n = tine_jit_nargs(c.jit);
        if ((leaf = calloc((size_t)c.n + 1, sizeof *leaf)))
            for (int a = 0; a < c.n; a++) leaf[a] = tine_jit_arg(c.jit, a);
        c.leaf = leaf;
        if (!leaf) fprintf(stderr, "tine: out of memory\n");
    } else report(ctx, "tine: ");
    int bad = (c.jit && leaf) || c.cross ? compare_runs(ctx, e, &c, o->seed) : -1;
    free(leaf);
    cross_close(c.cross);
    if (c.jit) tine_jit_free(c.jit);
    tine_ctx_free(ctx);
    if (bad) return 1;
    printf("%d random input vectors: the compiled code and the interpreter agree bit for bit\n", VECTORS);
    return 0;
}

/* Whether paths a and b name one file (one device and inode: through links, or spelt
 * otherwise, as ./k.tine and k.tine). */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* tine compile FILE: the kernel ahead of time — an object file and its C header
 * (obj, h), assembly or LLVM IR of the whole object (asm, llvm), or the stages' bodies
 * after selection (fpir: lifted for tine, expanded for LLVM alone; lowered: lifted and
 * lowered to the target's instructions). The entry point is named after the file
 * (its name up to the last '.', other characters than letters and digits as '_')
 * unless --name is given. */
/* --dump-after: the step it names (TINE_NSTEPS for all), or -1 after a message listing
 * the names; "help" lists them on stdout, one a line (-2: done). */
static int dump_step(const char *text) {
    if (!strcmp(text, "help")) {
        for (int i = 0; i < TINE_NSTEPS; i++) printf("%s\n", tine_step_name((tine_step_t)i));
        return -2;
    }
    int step = strcmp(text, "all") ? tine_step_find(text) : TINE_NSTEPS;
    if (step < 0) {
        fprintf(stderr, "tine: --dump-after takes a step (");
        for (int i = 0; i < TINE_NSTEPS; i++) fprintf(stderr, "%s%s", i ? ", " : "", tine_step_name((tine_step_t)i));
        fprintf(stderr, ") or all, not '%s'\n", text);
    }
    return step;
}

static int cmd_kernel_compile(const options *o) {
    tine_selection_t sel;
    if (selection(o, &sel)) return 2;
    int step = o->dump_after ? dump_step(o->dump_after) : -1;
    if (step == -2) return 0;
    if (o->dump_after && step < 0) return 2;
    const char *what = o->emit ? o->emit : "obj";
    int kind = tine_emit_kind_find(what); /* every kind is a kernel's */
    if (kind < 0) {
        fprintf(stderr, "tine: --emit takes obj, h, asm, llvm, fpir, lowered, stmt, schedule or tprog for a kernel, not '%s'\n",
                what);
        return 2;
    }
    if ((kind == TINE_EMIT_LOWERED || kind == TINE_EMIT_TPROG) && sel != TINE_SELECT_TINE) {
        fprintf(stderr, "tine: --emit %s shows tine's selection; drop --select llvm\n", what);
        return 2;
    }
    if (kind == TINE_EMIT_OBJ && !o->out && step < 0) { /* object code is not for a terminal */
        fprintf(stderr, "tine: an object file needs -o FILE.o\n");
        return 2;
    }
    if (check_target(o->target)) return 1;
    if (o->out && same_file(o->out, o->file)) {
        fprintf(stderr, "tine: -o %s names the kernel file (%s): the output would overwrite the kernel\n", o->out, o->file);
        return 2;
    }
    tine_ctx_t *ctx = cli_ctx(o);
    if (!ctx) return 2;
    /* --dump-after runs the driver from the text (its front half's steps too) */
    char *text = step >= 0 ? tine_cli_read_file(o->file) : NULL;
    tine_kernel_t *k = step >= 0 ? NULL : cli_load_kernel(ctx, o->file);
    if (step >= 0 ? !text : !k) {
        tine_ctx_free(ctx);
        return 1;
    }
    const char *base = strrchr(o->file, '/');
    char *name = strdup(o->name ? o->name : base ? base + 1 : o->file);
    if (!name) abort();
    if (!o->name) {
        char *dot = strrchr(name, '.');
        if (dot && dot != name) *dot = 0;
        for (char *p = name; *p; p++)
            if (!isalnum((unsigned char)*p)) *p = '_';
    }
    int rc = 0;
    size_t size = 0;
    const char *target = o->target ? o->target : "host";
    /* --emit schedule with --target: that target's schedule, its `on` sections applied */
    tine_kernel_t *kt = k && kind == TINE_EMIT_SCHEDULE && o->target ? tine_kernel_for_target(k, o->target) : k;
    void *bytes = step >= 0 ? tine_kernel_dump_after(ctx, text, o->file, target, sel, name, (tine_emit_kind_t)kind, step)
                            : tine_kernel_emit_kind(kt, target, sel, name, (tine_emit_kind_t)kind, &size);
    if (bytes && step >= 0) size = strlen(bytes);
    if (!bytes) {
        report(ctx, "tine: ");
        rc = 1;
    } else {
        rc = cli_write(o->out, bytes, size);
    }
    free(bytes);
    free(name);
    free(text);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    return rc;
}

static int cmd_ops(void) {
    printf("primitive ops:\n ");
    for (int op = 0; op < TINE_FPIR_FIRST; op++) printf(" %s", tine_op_name((tine_op_t)op));
    printf("\n\nFPIR ops (x, y, s are the operands; T the type of x):\n");
    for (int op = TINE_FPIR_FIRST; op < TINE_OP_COUNT; op++)
        printf("  %-22s := %s\n", tine_op_name((tine_op_t)op), tine_fpir_definition((tine_op_t)op));
    return 0;
}

int tine_cmd_bench(const char *filter, const char *only_target, const char *peers, const char *rules, int quick);

static int dispatch(const options *o) {
    switch (o->form) {
    case CLI_DEMO: return cmd_demo();
    case CLI_OPS: return cmd_ops();
    case CLI_BENCH_IR: return cli_cmd_bench_ir(o);
    case CLI_RULES: return cmd_rules(o);
    case CLI_BENCH_LIFT: return cli_cmd_bench_lift(o);
    case CLI_VERIFY: return cli_verify(o);
    case CLI_REPORT: return cli_cmd_report(o);
    case CLI_ISA: return cli_cmd_isa(o);
    case CLI_BENCH: return o->bench_dft ? cli_bench_dft(o) : o->bench_vectorize ? cli_bench_vectorize(o) : o->bench_retarget ? cli_bench_retarget(o) : tine_cmd_bench(o->filter, o->target, o->peers, o->rules, o->quick);
    case CLI_RUN_KERNEL: return cli_run_kernel(o);
    case CLI_COMPILE_KERNEL: return cmd_kernel_compile(o);
    case CLI_COMPILE_EXPR: return cmd_compile(o);
    case CLI_RUN_EXPR: return cmd_run(o);
    case CLI_EVAL: return cmd_eval(o);
    case CLI_LIFT: return cmd_lift(o);
    case CLI_SYNTH: return cli_cmd_synth(o);
    case CLI_RETARGET: return cli_cmd_retarget(o);
    case CLI_VECTORIZE: return cli_cmd_vectorize(o);
    case CLI_DFT: return cli_cmd_dft(o);
    case CLI_PRINT: return cmd_print(o, 0);
    case CLI_EXPAND: return cmd_print(o, 1);
    case CLI_HELP: return cli_help(o);
    case CLI_VERSION: printf("tine %s\n", CLI_VERSION_TEXT); return 0;
    case CLI_FORMS: break;
    }
    return 2;
}

int main(int argc, char **argv) {
    options o;
    int rc = cli_parse(argc, argv, &o);
    if (!rc) rc = dispatch(&o);
    if (rc && cli_internal_error_seen()) rc = EXIT_INTERNAL;
    cli_free(&o);
    /* whatever went to stdout must have arrived: a full disk is an error, not exit 0 */
    return cli_finish(rc);
}
