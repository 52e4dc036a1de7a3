/* test_cemit.c — the C emitter (src/codegen/c.c) against the interpreter, differentially.
 *
 * For every expression E of the parts below and every target (x86-64-sse2, -sse41, -avx2,
 * -avx512 where this CPU runs them; arm-64 under qemu-aarch64 where clang-19 builds static
 * AArch64 programs), E is written as C by the emitter twice: unselected (E itself: FPIR
 * expanded, the generic path) and as selected (tine_select_expr with tine's selection: the
 * target's instruction nodes, written as its C intrinsics; left out where selection gives
 * E back). Each expression's code is a block of its own (its variables bound to C names of
 * its inputs, read from arrays the generated file holds: values drawn here from a fixed
 * seed with the edges among them, written as initializers, so the program reads nothing)
 * that stores its value, of the type tine_cemit_type gives; --group N blocks make a C
 * function (default 8: a function per expression, --group 1, costs clang 40% more time).
 * main() calls every function on every input vector and prints each result's lanes. The
 * file of a (target, batch) is built with clang-19 and gcc at -O2 -Wall -Wextra -Werror
 * and the target's flags (tine_target_cflags): the emitted code must compile without a
 * warning. Every lane of every result is compared with tine_eval on E with the same inputs
 * (a bool vector is a mask of 0 or -1 lanes, a scalar bool 0 or 1).
 *
 * Compilers (wants_gcc): clang-19 builds everything; gcc builds the selected and
 * instruction-form code of every x86 level and the unselected code once per part (that C
 * is the same text at every x86 level: --quick builds it with gcc at x86-64-sse2 for part
 * a, -avx512 for part b, both for part c). --full builds everything with both compilers,
 * the AArch64 files with aarch64-linux-gnu-gcc too, and 2000 random expressions.
 *
 * Parts:
 *   a. Every primitive op the emitter writes at every integer type u8 ... i64 and 1, 2, 4,
 *      8, 16, 32, 64 lanes: add sub mul div mod min max neg and or xor not; shl and shr by
 *      a count of either signedness (counts in range, negative, = width, > width), by a
 *      uniform constant in range, by per-lane constants in range and by per-lane constants
 *      in and out of range; eq ne lt le gt ge; select on a bool variable and on a
 *      comparison of another width; cast between every pair of integer types, to bool and
 *      from bool; reinterpret to the other signedness and (tine_bitcast) to other lane
 *      sizes; broadcast, ramp, concat, slice, interleave, deinterleave, vector_reduce_add.
 *      The inputs a, b hold special pairs in their first lanes (INT_MIN / -1, x / 0,
 *      -x / y, equal operands).
 *   b. Every FPIR op at every operand type its signature takes (8 ... 64 bits, both
 *      signednesses), at 8, 16 and 32 lanes; a 128-bit result (the 64-bit widening ops) is
 *      checked through its halves.
 *   c. Random typed expression trees of height <= 4 over 2-3 variables: widening and
 *      narrowing casts, saturating ops, shifts by constants (in and out of range), selects
 *      on conditions (comparisons of other types, their logic and lane moves: masks of two
 *      widths meet), lane moves, FPIR ops, 128-bit intermediates; the same expressions on
 *      every target (300 in --quick).
 *   d. Every instruction form of x86.isa and arm.isa (every immediate's range sampled),
 *      parsed from its name as text at the form's lanes ("pavgb(a_u8x32, b_u8x32)") and
 *      emitted directly (not through selection), for the lowest target that has the form
 *      (arm-64-dotprod and arm-64-i8mm for the forms arm-64 lacks); the C must call the
 *      form's intrinsic.
 *
 * A compile error is traced to the blocks its lines are in: they are reported (the
 * expression, the target, the compiler's message and the C) and left out, and the file is
 * built again without them. A mismatch prints the expression, target, compiler, the C and
 * the lanes; a program that stops, the blocks of the function it stopped in.
 *
 * Cost: the compilers' time (the emitter and the interpreter take a few seconds): files
 * of at most BATCH_FNS blocks, one part each, built two at a time (nproc), the costliest
 * first; -v prints each target's and compiler's CPU seconds per part.
 *
 * Usage: test_cemit [--quick|--full] [-v] [--keep] [--part abcd] [--target NAME] [--seed N]
 *                   [--group N]
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4: each build's CPU time */
#include "internal.h"
#include "codegen/c.h"
#include "ir/ast.h"

#ifndef MAX_REPORT
#define MAX_REPORT 30
#endif
#include "testutil.h"
#include "edges.h" /* g_is_nan */
#include "isa_imm.h"
#include "fpir_typings.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static tine_ctx_t *g_ctx;
static uint64_t g_rng;
static bool g_verbose, g_keep;
static char g_dir[64];

static uint64_t rng(void) { return tine_rand64(&g_rng); }
#define fmt_str tine_xasprintf
static uint64_t rnd(uint64_t n) { return n ? rng() % n : 0; }

/* ---- types and values ------------------------------------------------------------------ */

static const tine_type_t ELEMS[8] = {{TINE_UINT, 8, 1},  {TINE_INT, 8, 1},  {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
                                     {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 64, 1}};
static const int LANES[7] = {1, 2, 4, 8, 16, 32, 64};

static tine_type_t WL(tine_type_t t, int lanes) { return tine_type_with_lanes(t, lanes); }
static tine_type_t ity(int bits, int sgn, int lanes) { return tine_type(sgn ? TINE_INT : TINE_UINT, bits, lanes); }
static const char *tn(tine_type_t t, char *buf) { return tine_type_str(t, buf, 32); }
static uint64_t maskb(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/* A lane's canonical bit pattern: signed lanes sign-extended (as tine_env_bind reads
 * them), unsigned ones masked, bool 0 or 1. */
static uint64_t canon(tine_type_t t, uint64_t v) {
    if (t.kind == TINE_BOOL) return v & 1;
    v &= maskb(t.bits);
    if (t.kind == TINE_INT && t.bits < 64 && (v >> (t.bits - 1) & 1)) v |= ~maskb(t.bits);
    return v;
}
static uint64_t tmin(tine_type_t t) { return t.kind == TINE_INT ? 1ull << (t.bits - 1) : 0; }
static uint64_t tmax(tine_type_t t) { return t.kind == TINE_INT ? maskb(t.bits) >> 1 : maskb(t.bits); }

/* A value of t: edges (0, 1, -1, min, max, min+1, max-1, alternating bits, powers of two
 * and their negations, small values) half the time, random bits the other half. */
static uint64_t gen_value(tine_type_t t) {
    if (t.kind == TINE_BOOL) return rnd(2);
    int b = t.bits;
    uint64_t v;
    switch (rnd(26)) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = ~0ull; break;
    case 3: v = tmin(t); break;
    case 4: v = tmax(t); break;
    case 5: v = tmin(t) + 1; break;
    case 6: v = tmax(t) - 1; break;
    case 7: v = 0x5555555555555555ull; break;
    case 8: v = 0xaaaaaaaaaaaaaaaaull; break;
    case 9: v = 1ull << rnd((uint64_t)b); break;
    case 10: v = 0 - (1ull << rnd((uint64_t)b)); break;
    case 11: v = rnd(17); break;
    case 12: v = 0 - rnd(17); break;
    default: v = rng() >> rnd(64); break;
    }
    return canon(t, v);
}

/* A shift count of type ts for values of vbits bits: in range mostly, and negative, the
 * width, past it, the type's ends. */
static uint64_t gen_shift(tine_type_t ts, int vbits) {
    uint64_t v;
    switch (rnd(16)) {
    case 0: v = (uint64_t)vbits; break;
    case 1: v = (uint64_t)vbits + 1; break;
    case 2: v = (uint64_t)vbits + rnd(64); break;
    case 3: v = ~0ull; break;                 /* -1 (or the type's max) */
    case 4: v = 0 - (uint64_t)vbits; break;   /* -width */
    case 5: v = 0 - rnd((uint64_t)vbits + 2); break;
    case 6: v = tmin(ts); break;
    case 7: v = tmax(ts); break;
    case 8: v = 0; break;
    case 9: v = (uint64_t)vbits - 1; break;
    default: v = rnd((uint64_t)vbits); break;
    }
    return canon(ts, v);
}

/* ---- cases ---------------------------------------------------------------------------- */

enum { MAXV = 8 };
typedef struct {
    char *label;
    tine_expr_t *e;
    char part;          /* 'a' ... 'd' */
    int only;           /* part d: the one target (index into g_tg); -1: every target */
    const char *intrin; /* part d: the C intrinsic the code must call */
    int nvars;
    tine_expr_t *vars[MAXV];
    int nvec;
    uint64_t *in[MAXV]; /* [nvec * lanes] canonical */
    uint64_t *ref;      /* [nvec * lanes(e)] */
    bool ok;
} tcase;

static tcase *g_cases;
static int g_ncases, g_capcases;
static int g_count[4];    /* cases per part */
static bool g_part[4] = {true, true, true, true};
static long g_refused;    /* emitter refusals */

static void collect_vars(tcase *c, const tine_expr_t *e, tine_u64map *seen) {
    uint64_t v;
    if (tine_u64map_get(seen, e->id, &v)) return;
    tine_u64map_put(seen, e->id, 1);
    if (e->op == TINE_OP_VAR) {
        if (c->nvars < MAXV) c->vars[c->nvars++] = (tine_expr_t *)e;
        return;
    }
    for (int j = 0; j < e->nops; j++) collect_vars(c, e->ops[j], seen);
}

/* The special pairs of a and b in the first lanes: division at its edges, equal operands. */
static void special_pairs(tcase *c) {
    const tine_expr_t *a = NULL, *b = NULL;
    for (int j = 0; j < c->nvars; j++) {
        const char *n = tine_expr_name(c->vars[j]);
        if (!strcmp(n, "a")) a = c->vars[j];
        if (!strcmp(n, "b")) b = c->vars[j];
    }
    if (!a || !b || !tine_type_eq(a->type, b->type) || a->type.kind == TINE_BOOL) return;
    int ja = -1, jb = -1;
    for (int j = 0; j < c->nvars; j++) ja = c->vars[j] == a ? j : ja, jb = c->vars[j] == b ? j : jb;
    tine_type_t t = WL(a->type, 1);
    uint64_t m1 = ~0ull;
    const uint64_t P[][2] = {{tmin(t), m1}, {tmin(t), 0}, {7, 0}, {0 - 7ull, 2}, {7, 0 - 2ull}, {m1, tmin(t)},
                             {tmax(t), m1},  {0 - 9ull, 0 - 4ull}, {tmin(t), 1}, {5, 5}, {tmax(t), tmax(t)}, {0, 0}};
    int total = c->nvec * a->type.lanes, np = (int)(sizeof P / sizeof P[0]);
    for (int k = 0; k < total; k++) {
        if (k < np) {
            c->in[ja][k] = canon(t, P[k][0]);
            c->in[jb][k] = canon(t, P[k][1]);
        } else if (rnd(5) == 0) {
            c->in[jb][k] = c->in[ja][k];
        }
    }
}

static void bind_vector(tine_env_t *env, const tcase *c, int v) {
    for (int j = 0; j < c->nvars; j++) {
        int L = c->vars[j]->type.lanes;
        tine_env_bind(env, c->vars[j], c->in[j] + (size_t)v * (size_t)L);
    }
}

/* Adds a case: its variables, inputs and reference lanes. */
static tcase *add_case(char part, tine_expr_t *e, const char *fmt_, ...) __attribute__((format(printf, 3, 4)));
static tcase *add_case(char part, tine_expr_t *e, const char *fmt_, ...) {
    char label[256];
    va_list ap;
    va_start(ap, fmt_);
    vsnprintf(label, sizeof label, fmt_, ap);
    va_end(ap);
    if (!e) {
        fail("%s: the expression cannot be built: %s", label, tine_error(g_ctx));
        return NULL;
    }
    TINE_GROW(g_cases, g_ncases + 1, g_capcases);
    tcase *c = &g_cases[g_ncases];
    memset(c, 0, sizeof *c);
    c->label = tine_strdup(label);
    c->e = e;
    c->part = part;
    c->only = -1;
    tine_u64map seen = {0};
    collect_vars(c, e, &seen);
    tine_u64map_free(&seen);
    int L = e->type.lanes;
    for (int j = 0; j < c->nvars; j++) L = c->vars[j]->type.lanes > L ? c->vars[j]->type.lanes : L;
    c->nvec = L >= 128 ? 2 : 128 / L > 16 ? 16 : 128 / L;
    if (c->nvec < 2) c->nvec = 2;
    for (int j = 0; j < c->nvars; j++) {
        tine_type_t t = c->vars[j]->type, t1 = WL(t, 1);
        const char *n = tine_expr_name(c->vars[j]);
        size_t cnt = (size_t)c->nvec * t.lanes;
        c->in[j] = tine_xmalloc(sizeof(uint64_t) * cnt);
        for (size_t k = 0; k < cnt; k++) c->in[j][k] = n[0] == 's' && t.kind != TINE_BOOL ? gen_shift(t1, t.bits) : gen_value(t1);
    }
    special_pairs(c);
    c->ref = tine_xmalloc(sizeof(uint64_t) * (size_t)c->nvec * e->type.lanes);
    c->ok = true;
    for (int v = 0; v < c->nvec && c->ok; v++) {
        tine_env_t *env = tine_env_new(g_ctx);
        bind_vector(env, c, v);
        if (tine_eval(g_ctx, e, env, c->ref + (size_t)v * e->type.lanes) != 0) {
            fail("%s: the interpreter fails: %s", label, tine_error(g_ctx));
            c->ok = false;
        }
        tine_env_free(env);
    }
    g_count[part - 'a']++;
    g_ncases++;
    return c;
}

static tine_expr_t *var(const char *name, tine_type_t t, int lanes) { return tine_var(g_ctx, name, WL(t, lanes)); }
static tine_expr_t *bin(tine_op_t op, tine_expr_t *a, tine_expr_t *b) { return tine_binary(g_ctx, op, a, b); }
static tine_expr_t *cuni(tine_type_t t, uint64_t v) { /* a uniform constant of t's lanes */
    uint64_t lanes[TINE_MAX_LANES];
    for (int i = 0; i < t.lanes; i++) lanes[i] = canon(WL(t, 1), v);
    return tine_const_lanes(g_ctx, t, lanes);
}
static tine_expr_t *cper(tine_type_t t, uint64_t lo, uint64_t span) { /* per-lane values lo + [0, span) */
    uint64_t lanes[TINE_MAX_LANES];
    for (int i = 0; i < t.lanes; i++) lanes[i] = canon(WL(t, 1), lo + rnd(span));
    return tine_const_lanes(g_ctx, t, lanes);
}

/* ---- part a: primitive ops --------------------------------------------------------------- */

static void part_a(void) {
    static const tine_op_t arith[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                      TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR};
    static const tine_op_t cmps[] = {TINE_OP_EQ, TINE_OP_NE, TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE};
    tine_type_t boolt = tine_type(TINE_BOOL, 1, 1);
    char b1[32], b2[32];
    for (int li = 0; li < 7; li++) {
        int L = LANES[li];
        for (int ti = 0; ti < 8; ti++) {
            tine_type_t t = ELEMS[ti];
            int bits = t.bits;
            tn(t, b1);
            tine_expr_t *a = var("a", t, L), *b = var("b", t, L);
            for (size_t o = 0; o < sizeof arith / sizeof *arith; o++)
                add_case('a', bin(arith[o], a, b), "%s %sx%d", tine_op_name(arith[o]), b1, L);
            add_case('a', tine_unary(g_ctx, TINE_OP_NEG, a), "neg %sx%d", b1, L);
            add_case('a', tine_unary(g_ctx, TINE_OP_NOT, a), "not %sx%d", b1, L);
            for (int left = 0; left < 2; left++) {
                tine_op_t op = left ? TINE_OP_SHL : TINE_OP_SHR;
                const char *on = tine_op_name(op);
                for (int sg = 0; sg < 2; sg++) {
                    add_case('a', bin(op, a, var("s", ity(bits, sg, 1), L)), "%s %sx%d by %s", on, b1, L,
                             tn(ity(bits, sg, 1), b2));
                    if (L > 1) /* one count for every lane: x86's shifts by a count in a register */
                        add_case('a', bin(op, a, tine_broadcast(g_ctx, var("sn", ity(bits, sg, 1), 1), L)),
                                 "%s %sx%d by a broadcast %s", on, b1, L, tn(ity(bits, sg, 1), b2));
                }
                tine_type_t ct = WL(ity(bits, (int)rnd(2), 1), L);
                add_case('a', bin(op, a, cuni(ct, 1 + rnd((uint64_t)bits - 1))), "%s %sx%d by a constant in range", on, b1, L);
                add_case('a', bin(op, a, cper(ct, 0, (uint64_t)bits)), "%s %sx%d by per-lane constants in range", on, b1, L);
                add_case('a', bin(op, a, cuni(ct, (uint64_t)bits)), "%s %sx%d by the width", on, b1, L);
                tine_type_t sct = WL(ity(bits, 1, 1), L);
                add_case('a', bin(op, a, cper(sct, 0 - (uint64_t)bits - 2, 2 * (uint64_t)bits + 5)),
                         "%s %sx%d by per-lane constants in and out of range", on, b1, L);
            }
            for (int k = 0; k < 6; k++) add_case('a', bin(cmps[k], a, b), "%s %sx%d", tine_op_name(cmps[k]), b1, L);
            add_case('a', tine_select(g_ctx, var("c", boolt, L), a, b), "select %sx%d on a bool variable", b1, L);
            tine_type_t u = ity(bits == 8 ? 32 : 8, ti % 2 == 0, L);
            add_case('a', tine_select(g_ctx, bin(TINE_OP_LT, var("p", u, L), var("q", u, L)), a, b),
                     "select %sx%d on a comparison of %s", b1, L, tn(u, b2));
            for (int k = 0; k < 8; k++)
                add_case('a', tine_cast(g_ctx, ELEMS[k], a), "cast %sx%d to %s", b1, L, tn(ELEMS[k], b2));
            add_case('a', tine_cast(g_ctx, boolt, a), "cast %sx%d to bool", b1, L);
            add_case('a', tine_cast(g_ctx, t, var("c", boolt, L)), "cast boolx%d to %s", L, b1);
            tine_type_t other = tine_type_with_kind(t, t.kind == TINE_INT ? TINE_UINT : TINE_INT);
            add_case('a', tine_reinterpret(g_ctx, other, a), "reinterpret %sx%d to %s", b1, L, tn(other, b2));
            for (int nb = 8; nb <= 64; nb *= 2) { /* the lanes repacked */
                if (nb == bits || (L * bits) % nb || L * bits / nb > TINE_MAX_LANES) continue;
                tine_type_t to = ity(nb, (int)rnd(2), L * bits / nb);
                add_case('a', tine_bitcast(g_ctx, to, a), "bitcast %sx%d to %s", b1, L, tn(to, b2));
            }
            if (L > 1) {
                add_case('a', tine_broadcast(g_ctx, var("a", t, 1), L), "broadcast %s to %d", b1, L);
                add_case('a', tine_ramp(g_ctx, var("a", t, 1), var("b", t, 1), L), "ramp %s x%d", b1, L);
                add_case('a', tine_ramp(g_ctx, var("a", t, 1), cuni(t, 3), L), "ramp %s x%d by 3", b1, L);
                tine_expr_t *h[2] = {var("a", t, L / 2), var("b", t, L / 2)};
                add_case('a', tine_concat(g_ctx, 2, h), "concat 2 x %sx%d", b1, L / 2);
                add_case('a', tine_interleave(g_ctx, 2, h), "interleave 2 x %sx%d", b1, L / 2);
                add_case('a', tine_vector_reduce_add(g_ctx, a, 1), "vector_reduce_add(%sx%d, 1)", b1, L);
            }
            if (L >= 4) {
                tine_expr_t *q[3] = {var("a", t, L / 2), var("b", t, L / 4), var("c", t, L / 4)};
                add_case('a', tine_concat(g_ctx, 3, q), "concat %sx%d, x%d, x%d", b1, L / 2, L / 4, L / 4);
                tine_expr_t *f[4] = {var("a", t, L / 4), var("b", t, L / 4), var("d", t, L / 4), var("e", t, L / 4)};
                add_case('a', tine_interleave(g_ctx, 4, f), "interleave 4 x %sx%d", b1, L / 4);
            }
            tine_expr_t *a2 = var("a", t, 2 * L);
            add_case('a', tine_slice(g_ctx, a2, 1, 2, L), "slice(%sx%d, 1, 2, %d)", b1, 2 * L, L);
            add_case('a', tine_slice(g_ctx, a2, L / 2 + 1, 1, L), "slice(%sx%d, %d, 1, %d)", b1, 2 * L, L / 2 + 1, L);
            add_case('a', tine_deinterleave(g_ctx, a2, 2, 1), "deinterleave(%sx%d, 2, 1)", b1, 2 * L);
            if (L >= 32) add_case('a', tine_vector_reduce_add(g_ctx, a2, L), "vector_reduce_add(%sx%d, %d)", b1, 2 * L, L);
            if (L <= 16) { /* from 4L lanes (at 32 and 64 lanes a 2-Kbyte operand costs gcc a second each) */
                tine_expr_t *a4 = var("a", t, 4 * L);
                add_case('a', tine_slice(g_ctx, a4, 2, 3, L), "slice(%sx%d, 2, 3, %d)", b1, 4 * L, L);
                add_case('a', tine_deinterleave(g_ctx, a4, 4, 2), "deinterleave(%sx%d, 4, 2)", b1, 4 * L);
                add_case('a', tine_vector_reduce_add(g_ctx, a4, L), "vector_reduce_add(%sx%d, %d)", b1, 4 * L, L);
            }
        }
    }
}

/* ---- part b: FPIR ops ------------------------------------------------------------------- */

/* A 128-bit value as its halves: concat(T64(r), T64(r >> 64)) holds every bit of r. */
static tine_expr_t *halves(tine_expr_t *r) {
    if (!r) return NULL;
    tine_type_t wt = r->type, h = tine_type((tine_kind_t)wt.kind, 64, 1);
    tine_expr_t *p[2] = {tine_cast(g_ctx, h, r), tine_cast(g_ctx, h, bin(TINE_OP_SHR, r, cuni(wt, 64)))};
    return tine_concat(g_ctx, 2, p);
}

static void fpir_case(int L, tine_op_t op, int n, const tine_type_t *ts, tine_type_t tparam) {
    tine_fpir_sig sig = tine_fpir_table[op - TINE_FPIR_FIRST].sig;
    char lb[200];
    tine_expr_t *args[3];
    for (int i = 0; i < n; i++) {
        const char *name = i == 0 ? "x" : (i == 2 || sig == TINE_SIG_SHIFT || sig == TINE_SIG_SHIFT_WIDE) ? "s" : "y";
        args[i] = var(name, ts[i], L);
    }
    tine_expr_t *e = tine_fpir(g_ctx, op, n, args, tparam);
    bool w = e && e->type.bits > 64;
    if (w) e = halves(e);
    fpir_typing_label(lb, sizeof lb, op, n, ts, tparam, L, w);
    add_case('b', e, "%s", lb);
}

/* One typing of part b at `L` lanes (rounding_mul_shr on 64 bits excepted: not defined). */
static void part_b_case(void *user, tine_op_t op, int n, const tine_type_t *ts, tine_type_t tparam) {
    int L = *(const int *)user;
    if (op == TINE_OP_ROUNDING_MUL_SHR && ts[0].bits == 64) return;
    fpir_case(L, op, n, ts, tparam);
}

static void part_b(void) {
    for (int L = 8; L <= 32; L *= 2) fpir_typings(8, 64, part_b_case, &L);
}

/* ---- part c: random expressions ----------------------------------------------------------- */

typedef struct {
    int nv, L;
    tine_type_t vt[3];
} rgen;

static tine_type_t rand_elem(void) { return ELEMS[rnd(8)]; }

static tine_expr_t *rexpr(const rgen *g, tine_type_t t, int d);
static tine_expr_t *rcond(const rgen *g, tine_type_t t, int d);
static tine_expr_t *fp1(tine_op_t op, int n, tine_expr_t *a, tine_expr_t *b, tine_expr_t *c, tine_type_t tp);

/* A value of 128-bit lanes (what the 64-bit FPIR ops compute in): a 64-bit widening op,
 * and ops on such values (C has no vectors of them: the emitter's lane loops). */
static tine_expr_t *rwide(const rgen *g, int d, int sgn) {
    tine_type_t none = {0, 0, 0}, o = ity(64, (int)rnd(2), 1);
    static const tine_op_t w[] = {TINE_OP_WIDENING_ADD, TINE_OP_WIDENING_SUB, TINE_OP_WIDENING_MUL};
    tine_expr_t *x = fp1(w[rnd(3)], 2, rexpr(g, o, d - 1), rexpr(g, o, d - 1), NULL, none);
    if (x && (x->type.kind == TINE_INT) != sgn) x = tine_reinterpret(g_ctx, ity(128, sgn, 1), x);
    if (!x || d < 2) return x;
    tine_type_t wt = x->type;
    switch (rnd(6)) {
    case 0: return bin(rnd(2) ? TINE_OP_MIN : TINE_OP_MAX, x, rwide(g, d - 1, sgn));
    case 1: return bin(rnd(2) ? TINE_OP_SHR : TINE_OP_SHL, x, cuni(wt, rnd(2) ? 64 : rnd(130)));
    case 2: return tine_select(g_ctx, rcond(g, rand_elem(), d - 1), x, rwide(g, d - 1, sgn));
    case 3: return bin(TINE_OP_ADD + (tine_op_t)rnd(3), x, tine_cast(g_ctx, wt, rexpr(g, rand_elem(), d - 1)));
    default: return x;
    }
}

/* A leaf of element type t: a variable of that type, a cast of one of another, a constant. */
static tine_expr_t *rleaf(const rgen *g, tine_type_t t) {
    tine_type_t tl = WL(t, g->L);
    int r = (int)rnd(10);
    if (r == 0) return cuni(tl, gen_value(t));
    if (r == 1) {
        uint64_t lanes[TINE_MAX_LANES];
        for (int i = 0; i < g->L; i++) lanes[i] = gen_value(t);
        return tine_const_lanes(g_ctx, tl, lanes);
    }
    int pick[3], n = 0;
    for (int j = 0; j < g->nv; j++)
        if (tine_type_eq(g->vt[j], t)) pick[n++] = j;
    static const char names[] = "abc";
    if (n && r < 8) {
        char nm[2] = {names[pick[rnd((uint64_t)n)]], 0};
        return var(nm, t, g->L);
    }
    int j = (int)rnd((uint64_t)g->nv);
    char nm[2] = {names[j], 0};
    tine_expr_t *v = var(nm, g->vt[j], g->L);
    if (g->vt[j].bits == t.bits && rnd(2)) return tine_reinterpret(g_ctx, t, v);
    return tine_cast(g_ctx, t, v);
}

static tine_expr_t *fp1(tine_op_t op, int n, tine_expr_t *a, tine_expr_t *b, tine_expr_t *c, tine_type_t tp) {
    tine_expr_t *args[3] = {a, b, c};
    return tine_fpir(g_ctx, op, n, args, tp);
}

/* A shift count of `bits` bits for a constant shift: in range mostly, sometimes not. */
static tine_expr_t *rcount(const rgen *g, int bits) {
    int sg = (int)rnd(2);
    tine_type_t ct = ity(bits, sg, g->L);
    uint64_t v = rnd(4) ? rnd((uint64_t)bits) : rnd(2) ? (uint64_t)bits + rnd(3) : (sg ? 0 - 1 - rnd(3) : (uint64_t)bits);
    return cuni(ct, v);
}

/* A bool vector of L lanes: comparisons (of t, or of another type), their logic, lane
 * moves of them (masks of two widths meet), a lane of one broadcast, a cast to bool. */
static tine_expr_t *rcond(const rgen *g, tine_type_t t, int d) {
    static const tine_op_t c[] = {TINE_OP_EQ, TINE_OP_NE, TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE};
    int L = g->L;
    tine_type_t u = rnd(2) ? t : rand_elem();
    if (d <= 1) return bin(c[rnd(6)], rleaf(g, u), rleaf(g, u));
    switch (rnd(8)) {
    case 0: case 1: return bin(TINE_OP_AND + (tine_op_t)rnd(3), rcond(g, t, d - 1), rcond(g, rand_elem(), d - 1));
    case 2: return tine_unary(g_ctx, TINE_OP_NOT, rcond(g, t, d - 1));
    case 3: return tine_cast(g_ctx, tine_type(TINE_BOOL, 1, 1), rexpr(g, u, d - 1));
    case 4: {
        if (L == 1) break;
        tine_expr_t *p[2] = {tine_deinterleave(g_ctx, rcond(g, t, d - 1), 2, 0), tine_deinterleave(g_ctx, rcond(g, rand_elem(), d - 1), 2, 1)};
        return rnd(2) ? tine_interleave(g_ctx, 2, p) : tine_concat(g_ctx, 2, p);
    }
    case 5:
        if (L == 1) break;
        return tine_broadcast(g_ctx, tine_slice(g_ctx, rcond(g, t, d - 1), (int)rnd((uint64_t)L), 1, 1), L);
    case 6: return tine_select(g_ctx, rcond(g, t, d - 1), rcond(g, u, d - 1), rcond(g, rand_elem(), d - 1));
    case 7: { /* of 128-bit lanes */
        int sg = (int)rnd(2);
        return bin(c[rnd(6)], rwide(g, d - 1, sg), rwide(g, d - 1, sg));
    }
    default: break;
    }
    return bin(c[rnd(6)], rexpr(g, u, d - 1), rexpr(g, u, d - 1));
}

static tine_expr_t *rexpr(const rgen *g, tine_type_t t, int d) {
    if (d <= 0 || rnd(100) < 15) return rleaf(g, t);
    int b = t.bits, sg = t.kind == TINE_INT, L = g->L;
    tine_type_t none = {0, 0, 0};
    switch (rnd(22)) {
    case 0: case 1: case 2: {
        static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_MIN,
                                        TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR, TINE_OP_DIV, TINE_OP_MOD};
        return bin(ops[rnd(sizeof ops / sizeof *ops)], rexpr(g, t, d - 1), rexpr(g, t, d - 1));
    }
    case 3: case 4: /* a shift by a constant */
        return bin(rnd(2) ? TINE_OP_SHL : TINE_OP_SHR, rexpr(g, t, d - 1), rcount(g, b));
    case 5: /* a shift by an expression */
        return bin(rnd(2) ? TINE_OP_SHL : TINE_OP_SHR, rexpr(g, t, d - 1), rexpr(g, ity(b, (int)rnd(2), 1), d - 1));
    case 6: /* widening cast */
        if (b == 8) break;
        return tine_cast(g_ctx, t, rexpr(g, ity(b >> (1 + rnd((uint64_t)(b == 64 ? 3 : b == 32 ? 2 : 1))), (int)rnd(2), 1), d - 1));
    case 7: /* narrowing cast */
        if (b == 64) break;
        return tine_cast(g_ctx, t, rexpr(g, ity(b << (1 + rnd((uint64_t)(b == 8 ? 3 : b == 16 ? 2 : 1))), (int)rnd(2), 1), d - 1));
    case 8: /* saturating narrowing */
        if (rnd(2) && b < 64) return fp1(TINE_OP_SATURATING_NARROW, 1, rexpr(g, ity(2 * b, sg, 1), d - 1), NULL, NULL, none);
        return fp1(TINE_OP_SATURATING_CAST, 1, rexpr(g, rand_elem(), d - 1), NULL, NULL, t);
    case 9: case 10: {
        static const tine_op_t ops[] = {TINE_OP_SATURATING_ADD, TINE_OP_SATURATING_SUB, TINE_OP_HALVING_ADD,
                                        TINE_OP_HALVING_SUB, TINE_OP_ROUNDING_HALVING_ADD};
        return fp1(ops[rnd(5)], 2, rexpr(g, t, d - 1), rexpr(g, t, d - 1), NULL, none);
    }
    case 11: { /* widening ops, absd, rounding shifts, mul_shr */
        switch (rnd(5)) {
        case 0:
            if (b == 8) break;
            return fp1(rnd(2) ? TINE_OP_WIDENING_ADD : TINE_OP_WIDENING_MUL, 2, rexpr(g, ity(b / 2, sg, 1), d - 1),
                       rexpr(g, ity(b / 2, sg, 1), d - 1), NULL, none);
        case 1:
            if (sg) break;
        {
            tine_type_t o = tine_type_with_kind(t, rnd(2) ? TINE_INT : TINE_UINT);
            return fp1(TINE_OP_ABSD, 2, rexpr(g, o, d - 1), rexpr(g, o, d - 1), NULL, none);
        }
        case 2:
            return fp1(rnd(2) ? TINE_OP_ROUNDING_SHR : TINE_OP_SATURATING_SHL, 2, rexpr(g, t, d - 1), rcount(g, b), NULL,
                       none);
        case 3:
            if (b == 64) break;
            return fp1(rnd(2) ? TINE_OP_MUL_SHR : TINE_OP_ROUNDING_MUL_SHR, 3, rexpr(g, t, d - 1), rexpr(g, t, d - 1),
                       cuni(ity(b, 0, L), rnd((uint64_t)b + 1)), none);
        default:
            if (b == 8) break;
            return fp1(TINE_OP_EXTENDING_ADD, 2, rexpr(g, t, d - 1), rexpr(g, ity(b / 2, (int)rnd(2), 1), d - 1), NULL, none);
        }
        break;
    }
    case 12: case 13: /* a select on a condition (comparisons of other types, often) */
        return tine_select(g_ctx, rcond(g, t, d - 1), rexpr(g, t, d - 1), rexpr(g, t, d - 1));
    case 14: /* a condition as a number */
        return tine_cast(g_ctx, t, rcond(g, t, d - 1));
    case 15: return tine_unary(g_ctx, rnd(2) ? TINE_OP_NEG : TINE_OP_NOT, rexpr(g, t, d - 1));
    case 16: case 17: case 18: { /* lane moves that keep L lanes */
        if (L == 1) break;
        tine_expr_t *x = rexpr(g, t, d - 1), *y = rexpr(g, t, d - 1);
        switch (rnd(6)) {
        case 0: {
            tine_expr_t *p[2] = {tine_slice(g_ctx, x, 0, 1, L / 2), tine_slice(g_ctx, y, L / 2, 1, L / 2)};
            return tine_concat(g_ctx, 2, p);
        }
        case 1: {
            tine_expr_t *p[2] = {tine_deinterleave(g_ctx, x, 2, 0), tine_deinterleave(g_ctx, y, 2, 1)};
            return tine_interleave(g_ctx, 2, p);
        }
        case 2: {
            tine_expr_t *p[2] = {x, y};
            return tine_slice(g_ctx, tine_concat(g_ctx, 2, p), 1 + (int)rnd((uint64_t)L - 1), 1, L);
        }
        case 3: return tine_broadcast(g_ctx, tine_slice(g_ctx, x, (int)rnd((uint64_t)L), 1, 1), L);
        case 4: {
            tine_expr_t *p[2] = {x, y};
            return tine_vector_reduce_add(g_ctx, tine_concat(g_ctx, 2, p), L);
        }
        default: {
            tine_expr_t *p[2] = {x, y};
            return tine_deinterleave(g_ctx, tine_interleave(g_ctx, 2, p), 2, 1);
        }
        }
    }
    case 19: /* reinterpret from the other signedness */
        return tine_reinterpret(g_ctx, t, rexpr(g, tine_type_with_kind(t, sg ? TINE_UINT : TINE_INT), d - 1));
    case 20: { /* 128-bit intermediates cast back, or their high half */
        if (d < 2) break;
        tine_expr_t *x = rwide(g, d - 1, (int)rnd(2));
        if (x && rnd(2)) x = bin(TINE_OP_SHR, x, cuni(x->type, 64));
        return tine_cast(g_ctx, t, x);
    }
    default: break;
    }
    return bin(rnd(2) ? TINE_OP_ADD : TINE_OP_XOR, rexpr(g, t, d - 1), rexpr(g, t, d - 1));
}

static void part_c(int count) {
    static const int RL[] = {1, 4, 8, 8, 16, 16, 32};
    for (int k = 0; k < count; k++) {
        rgen g;
        g.L = RL[rnd(sizeof RL / sizeof *RL)];
        g.nv = 2 + (int)rnd(2);
        for (int j = 0; j < g.nv; j++) g.vt[j] = rand_elem();
        tine_type_t t = rnd(2) ? g.vt[0] : rand_elem();
        tine_expr_t *e = rexpr(&g, t, 1 + (int)rnd(4));
        if (!e) {
            fail("random expression %d: cannot be built: %s", k, tine_error(g_ctx));
            continue;
        }
        tcase *c = add_case('c', e, "random expression %d", k);
        if (c && !c->nvars) { /* constants only: drawn again */
            free(c->label);
            free(c->ref);
            g_ncases--;
            g_count[2]--;
            k--;
        }
    }
}

/* ---- targets ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    bool arm, main; /* main: parts a-c (else part d's forms only) */
    const char *cflags;
    uint32_t features;
    bool on;
} target;

static target g_tg[] = {
    {"x86-64-sse2", false, true, NULL, 0, false},   {"x86-64-sse41", false, true, NULL, 0, false},
    {"x86-64-avx2", false, true, NULL, 0, false},   {"x86-64-avx512", false, true, NULL, 0, false},
    {"arm-64", true, true, NULL, 0, false},         {"arm-64-dotprod", true, false, NULL, 0, false},
    {"arm-64-i8mm", true, false, NULL, 0, false},
};
enum { NTG = sizeof g_tg / sizeof g_tg[0] };

/* ---- part d: instruction forms -------------------------------------------------------------- */

static void part_d(const char *isaname) {
    const tine_isa *isa = tine_isa_get(g_ctx, isaname);
    if (!isa) {
        fail("no description '%s'", isaname);
        return;
    }
    bool arm = !strcmp(isaname, "arm");
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        for (int f = 0; f < in->nforms; f++) {
            const tine_insn_form *fm = &in->form[f];
            int tgi = -1;
            for (int i = 0; i < NTG && tgi < 0; i++)
                if (g_tg[i].on && g_tg[i].arm == arm && !(fm->features & ~g_tg[i].features)) tgi = i;
            if (tgi < 0) continue; /* no target here has it */
            int W = fm->bits, rl = W / in->result.bits, lanes[TINE_INSN_MAX_OPS];
            bool reduce = in->probe_result == 1 && in->result.bits < in->form[0].bits;
            if (reduce) {
                bool many = false;
                for (int j = 0; j < in->nops; j++) many |= j != in->imm && in->probe_lanes[j] > 1;
                reduce = many;
            }
            bool ok = true;
            if (reduce) {
                rl = 1;
                for (int j = 0; j < in->nops; j++) lanes[j] = in->probe_lanes[j] * W / in->form[0].bits;
            } else {
                ok = tine_insn_operand_lanes(in, rl, lanes);
            }
            if (!ok) {
                fail("%s (%s): no operand lanes for %d result lanes", in->name, fm->reg, rl);
                continue;
            }
            int64_t iv[8] = {0};
            int niv = in->imm >= 0 ? imm_values(in, iv) : 1;
            for (int i = 0; i < niv; i++) {
                char text[256], tb[32];
                int len = snprintf(text, sizeof text, "%s(", in->name);
                for (int j = 0; j < in->nops; j++) {
                    if (j == in->imm) len += snprintf(text + len, sizeof text - (size_t)len, "%s%lld", j ? ", " : "", (long long)iv[i]);
                    else
                        len += snprintf(text + len, sizeof text - (size_t)len, "%s%c_%s%s", j ? ", " : "", 'a' + j,
                                        tn(WL(in->optype[j], lanes[j]), tb), lanes[j] == 1 ? "x1" : "");
                }
                snprintf(text + len, sizeof text - (size_t)len, ")");
                tine_expr_t *e = tine_parse(g_ctx, text, "form");
                if (!e) {
                    fail("%s (%s): '%s' does not parse: %s", in->name, fm->reg, text, tine_error(g_ctx));
                    continue;
                }
                if (e->type.lanes != rl) {
                    fail("%s (%s): '%s' has %d lanes, not %d", in->name, fm->reg, text, e->type.lanes, rl);
                    continue;
                }
                tcase *c = add_case('d', e, "%s (%s form, %s): %s", in->name, fm->reg, g_tg[tgi].name, text);
                if (c) {
                    c->only = tgi;
                    c->intrin = fm->c;
                }
            }
        }
    }
}

/* ---- emitting ------------------------------------------------------------------------------ */

enum { MODE_UNSELECTED, MODE_SELECTED, MODE_DIRECT };
static const char *MODE_NAME[] = {"unselected", "selected", "direct"};

typedef struct {
    int cs, mode;
    const tine_expr_t *emitted;
    char *text;   /* the C function */
    bool out;     /* left out of its file (it did not compile) */
    bool in_file; /* in the file last written (a build of it prints its lines) */
    int line0, line1; /* its lines in the file last written */
    int group;        /* its C function there */
} cfn;

enum { NCC = 2 };
/* The expressions per C function (--group): each is a block of its own, with its own
 * variables and result; a C function per expression costs clang 40% more time (the
 * functions' own code: frames realigned for 512-byte vectors, prologues). */
static int g_group = 8;
typedef struct {
    int tg;
    cfn *fns;
    int nfns, cap;
    char *prelude;
    char src[128];
    int nlines_head;
    bool cc_on[NCC];     /* the compilers that build it */
    int part;            /* 0-3: the part of its cases, 4: several */
} batch;

static batch *g_batches;
static double g_cpu[NTG][NCC][5]; /* the builds' CPU seconds per target, compiler, part (4: mixed) */
static int g_nbatches, g_capbatches;
static long g_fns_total, g_fns_mode[3], g_fns_tg[NTG];
static long g_fns_tpm[NTG][4][3]; /* per target, part, mode */
static long g_fns_insn[NTG][4];   /* selected functions with instruction nodes, per target and part */

static bool has_insn(const tine_expr_t *e, tine_u64map *seen) {
    uint64_t v;
    if (tine_u64map_get(seen, e->id, &v)) return false;
    tine_u64map_put(seen, e->id, 1);
    if (e->op == TINE_OP_INSN) return true;
    for (int j = 0; j < e->nops; j++)
        if (has_insn(e->ops[j], seen)) return true;
    return false;
}

/* The C element type of a variable's arrays (a bool vector is a mask of 8-bit lanes). */
static const char *array_elem(tine_type_t t) {
    static const char *u[] = {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}, *s[] = {"int8_t", "int16_t", "int32_t", "int64_t"};
    if (t.kind == TINE_BOOL) return t.lanes > 1 ? "int8_t" : "int";
    int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3;
    return t.kind == TINE_INT ? s[k] : u[k];
}

/* A block computing e of case cs on input vector v (modulo the case's vectors), its
 * value's bytes into R[id]; NULL with the emitter's error in *err. The blocks go into C
 * functions g_group at a time (a function of its own each cost the compilers more than
 * the code in it). */
static char *emit_block(tine_cemit *ce, int cs, int id, const tine_expr_t *e, char **err) {
    const tcase *c = &g_cases[cs];
    tine_cemit_forget(ce);
    tine_buf f = {0};
    tine_buf_printf(&f, "    { /* %s */\n", c->label);
    for (int j = 0; j < c->nvars; j++) {
        char ty[64], nm[24];
        tine_type_t t = c->vars[j]->type;
        tine_cemit_type(ce, t, ty, sizeof ty);
        snprintf(nm, sizeof nm, "x%d_%d", id, j);
        tine_buf_printf(&f, "        %s %s;\n        memcpy(&%s, &in%d_%d[v %% %d * %d], sizeof %s);\n        (void)%s;\n", ty, nm,
                        nm, cs, j, c->nvec, t.lanes, nm, nm);
        tine_cemit_bind(ce, c->vars[j], nm);
    }
    tine_buf code = {0};
    tine_buf_puts(&code, "");
    const char *r = tine_cemit_value(ce, e, &code);
    if (!r) {
        *err = tine_strdup(tine_error(g_ctx));
        free(code.p);
        free(f.p);
        return NULL;
    }
    tine_buf_puts(&f, code.p);
    free(code.p);
    /* the value has the type tine_cemit_type gives (the initialization checks it) */
    char ty[64];
    tine_buf_printf(&f, "        const %s res = %s;\n        memcpy(R[%d], &res, sizeof res);\n    }\n",
                    tine_cemit_type(ce, e->type, ty, sizeof ty), r, id);
    return f.p;
}

static void add_fn(batch *b, int cs, int mode, const tine_expr_t *e, tine_cemit *ce) {
    char *err = NULL;
    int id = b->nfns;
    char *text = emit_block(ce, cs, id, e, &err);
    if (!text) {
        g_refused++;
        char *p = tine_print(g_ctx, (tine_expr_t *)e);
        fail("%s [%s, %s]: the emitter refuses %s: %s", g_cases[cs].label, g_tg[b->tg].name, MODE_NAME[mode], p, err);
        free(p);
        free(err);
        return;
    }
    if (mode == MODE_DIRECT && g_cases[cs].intrin && !strstr(text, g_cases[cs].intrin))
        fail("%s: the C does not call %s:\n%s", g_cases[cs].label, g_cases[cs].intrin, text);
    TINE_GROW(b->fns, b->nfns + 1, b->cap);
    b->fns[b->nfns++] = (cfn){cs, mode, e, text, false, false, 0, 0, -1};
    g_fns_total++;
    g_fns_mode[mode]++;
    g_fns_tg[b->tg]++;
    int part = g_cases[cs].part - 'a';
    g_fns_tpm[b->tg][part][mode]++;
    if (mode != MODE_UNSELECTED) {
        tine_u64map seen = {0};
        g_fns_insn[b->tg][part] += has_insn(e, &seen);
        tine_u64map_free(&seen);
    }
}

static void literal_into(tine_buf *o, tine_type_t t, uint64_t v) {
    if (t.kind == TINE_BOOL) tine_buf_printf(o, "%d", t.lanes > 1 ? (v ? -1 : 0) : (int)(v & 1));
    else if (t.kind == TINE_INT) {
        int64_t s = (int64_t)v;
        if (s == INT64_MIN) tine_buf_puts(o, "(-9223372036854775807ll - 1)");
        else tine_buf_printf(o, "%lld", (long long)s);
    } else tine_buf_printf(o, "%llu%s", (unsigned long long)v, t.bits == 64 ? "ull" : "u");
}

static int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Writes batch b's file (the functions not left out). */
static void write_batch(batch *b) {
    tine_buf o = {0};
    tine_buf_puts(&o, "");
    tine_buf_printf(&o, "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include <%s>\n",
                    g_tg[b->tg].arm ? "arm_neon.h" : "immintrin.h");
    tine_buf_puts(&o, b->prelude);
    /* the inputs of the cases in the file, once each */
    tine_u64map done = {0};
    for (int i = 0; i < b->nfns; i++) {
        const cfn *fn = &b->fns[i];
        uint64_t x;
        if (fn->out || tine_u64map_get(&done, (uint64_t)fn->cs, &x)) continue;
        tine_u64map_put(&done, (uint64_t)fn->cs, 1);
        const tcase *c = &g_cases[fn->cs];
        for (int j = 0; j < c->nvars; j++) {
            tine_type_t t = c->vars[j]->type;
            int n = c->nvec * t.lanes;
            tine_buf_printf(&o, "%s in%d_%d[%d] = {", array_elem(t), fn->cs, j, n);
            for (int k = 0; k < n; k++) {
                if (k) tine_buf_puts(&o, ",");
                literal_into(&o, t, c->in[j][k]);
            }
            tine_buf_puts(&o, "};\n");
        }
    }
    tine_u64map_free(&done);
    tine_buf_printf(&o, "static unsigned char R[%d][%d];\n", b->nfns, TINE_MAX_LANES * 8);
    int line = count_lines(o.p) + 1, ngroups = 0, in_group = g_group;
    for (int i = 0; i < b->nfns; i++) {
        cfn *fn = &b->fns[i];
        fn->in_file = !fn->out;
        if (fn->out) {
            fn->line0 = fn->line1 = fn->group = -1;
            continue;
        }
        if (in_group == g_group) { /* the next function */
            if (ngroups) tine_buf_puts(&o, "}\n"), line++;
            tine_buf_printf(&o, "static __attribute__((noinline)) void g%d(int v) {\n    (void)v;\n", ngroups++);
            line += 2;
            in_group = 0;
        }
        in_group++;
        fn->group = ngroups - 1;
        fn->line0 = line;
        tine_buf_puts(&o, fn->text);
        line += count_lines(fn->text);
        fn->line1 = line - 1;
    }
    if (ngroups) tine_buf_puts(&o, "}\n");
    /* per function: the blocks (id, vectors, lanes, lane bytes), ended by -1 */
    tine_buf_printf(&o, "struct blk { int id, nvec, lanes, size; };\nstruct fn { void (*f)(int); struct blk b[%d]; };\n"
                        "static const struct fn fns[] = {\n", g_group + 1);
    for (int g = 0; g < ngroups; g++) {
        tine_buf_printf(&o, "    {g%d, {", g);
        for (int i = 0; i < b->nfns; i++) {
            const cfn *fn = &b->fns[i];
            if (fn->out || fn->group != g) continue;
            tine_type_t rt = fn->emitted->type;
            tine_buf_printf(&o, "{%d, %d, %d, %d}, ", i, g_cases[fn->cs].nvec, rt.lanes,
                            rt.kind == TINE_BOOL ? (rt.lanes > 1 ? 1 : (int)sizeof(int)) : rt.bits / 8);
        }
        tine_buf_puts(&o, "{-1, 0, 0, 0}}},\n");
    }
    /* the lanes printed from the result's bytes (both targets are little-endian) */
    tine_buf_puts(&o, "};\nint main(void) {\n"
                      "    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)\n"
                      "        for (int v = 0; v < 16; v++) {\n"
                      "            int any = 0;\n"
                      "            for (const struct blk *b = fns[k].b; b->id >= 0; b++) any |= v < b->nvec;\n"
                      "            if (!any) break;\n"
                      "            printf(\"g %d\\n\", (int)k);\n" /* where a crash is */
                      "            fflush(stdout);\n"
                      "            fns[k].f(v);\n"
                      "            for (const struct blk *b = fns[k].b; b->id >= 0; b++) {\n"
                      "                if (v >= b->nvec) continue;\n"
                      "                printf(\"%d %d\", b->id, v);\n"
                      "                for (int i = 0; i < b->lanes; i++) {\n"
                      "                    unsigned long long x = 0;\n"
                      "                    for (int j = b->size - 1; j >= 0; j--) x = x << 8 | R[b->id][i * b->size + j];\n"
                      "                    printf(\" %llx\", x);\n"
                      "                }\n"
                      "                putchar('\\n');\n"
                      "            }\n"
                      "        }\n    return 0;\n}\n");
    FILE *fp = fopen(b->src, "w");
    if (!fp || fputs(o.p, fp) < 0 || fclose(fp) != 0) fail("cannot write %s", b->src);
    free(o.p);
}

/* ---- compiling and running -------------------------------------------------------------------- */

static const char *cc_name(const batch *b, int k) {
    if (g_tg[b->tg].arm) return k == 0 ? "clang-19" : "aarch64-linux-gnu-gcc";
    return k == 0 ? "clang-19" : "gcc";
}

static bool g_arm_gcc = true;

/* The command that builds and runs batch b with compiler k: exit 3 when it does not
 * build, 4 when the program fails. */
static char *job_cmd(const batch *b, int k) {
    const target *t = &g_tg[b->tg];
    const char *fl = t->cflags;
    char flags[256];
    if (t->arm && k == 1) { /* gcc takes the -march, not clang's --target, and calls rdm rdma */
        const char *m = strstr(fl, "-march");
        snprintf(flags, sizeof flags, "%s -static", m ? m : "");
        char *r = strstr(flags, "+rdm");
        if (r && r[4] != 'a') memmove(r + 5, r + 4, strlen(r + 4) + 1), r[4] = 'a';
    } else {
        snprintf(flags, sizeof flags, "%s%s", fl, t->arm ? " -static" : "");
    }
    return fmt_str("%s -O2 -Wall -Wextra -Werror %s -o %s.%d %s > %s.%d.log 2>&1 || exit 3; %s%s.%d > %s.%d.out "
                   "2> %s.%d.err || exit 4",
                   cc_name(b, k), flags, b->src, k, b->src, b->src, k, t->arm ? "qemu-aarch64 " : "", b->src, k, b->src, k,
                   b->src, k);
}

typedef struct {
    char *cmd;
    int rc;
    double cpu; /* the job's CPU seconds (its children's) */
} job;

/* Runs the commands, `par` at a time. */
static void run_jobs(job *jobs, int n, int par) {
    pid_t pid[8];
    int idx[8], running = 0, next = 0;
    if (par > 8) par = 8;
    while (next < n || running) {
        while (running < par && next < n) {
            pid_t p = fork();
            if (p == 0) {
                execl("/bin/sh", "sh", "-c", jobs[next].cmd, (char *)NULL);
                _exit(127);
            }
            if (p < 0) {
                jobs[next++].rc = -1;
                continue;
            }
            pid[running] = p;
            idx[running++] = next++;
        }
        if (!running) break;
        int st;
        struct rusage ru;
        pid_t p = wait4(-1, &st, 0, &ru);
        if (p < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < running; i++)
            if (pid[i] == p) {
                jobs[idx[i]].rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
                jobs[idx[i]].cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                                   (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
                pid[i] = pid[running - 1];
                idx[i] = idx[running - 1];
                running--;
                break;
            }
    }
}

/* ---- comparing ------------------------------------------------------------------------------- */

static void show_lanes(tine_buf *o, tine_type_t t, const uint64_t *v, int n) {
    tine_buf_puts(o, "[");
    for (int i = 0; i < n; i++) {
        if (i) tine_buf_puts(o, " ");
        if (t.kind == TINE_INT) tine_buf_printf(o, "%lld", (long long)canon(WL(t, 1), v[i]));
        else if (t.kind == TINE_BOOL) tine_buf_printf(o, "%d", (int)(v[i] & 1));
        else tine_buf_printf(o, "%llu", (unsigned long long)canon(WL(t, 1), v[i]));
    }
    tine_buf_puts(o, "]");
}

/* What a failure of fn shows: the expression (and what was emitted), the inputs of vector
 * v (v < 0: none) and the C. */
static char *describe(const batch *b, const cfn *fn, int v) {
    const tcase *c = &g_cases[fn->cs];
    tine_buf o = {0};
    tine_buf_puts(&o, "");
    char *p = tine_print(g_ctx, c->e);
    tine_buf_printf(&o, "  E: %s\n", p);
    free(p);
    if (fn->emitted != c->e) {
        p = tine_print(g_ctx, (tine_expr_t *)fn->emitted);
        tine_buf_printf(&o, "  emitted (%s): %s\n", MODE_NAME[fn->mode], p);
        free(p);
    }
    for (int j = 0; v >= 0 && j < c->nvars; j++) {
        tine_type_t t = c->vars[j]->type;
        char tb[32];
        tine_buf_printf(&o, "  %s_%s (x%d) = ", tine_expr_name(c->vars[j]), tn(t, tb), j);
        show_lanes(&o, t, c->in[j] + (size_t)v * t.lanes, t.lanes);
        tine_buf_puts(&o, "\n");
    }
    tine_buf_printf(&o, "  C (%s):\n%s", b->src, fn->text);
    return o.p;
}

/* The lanes of every function's results in batch b's output under compiler k. */
static void compare(batch *b, int k, const char *text) {
    const target *tg = &g_tg[b->tg];
    int *seen = tine_xcalloc((size_t)b->nfns, sizeof(int));
    bool *bad = tine_xcalloc((size_t)b->nfns, sizeof(bool));
    uint64_t got[TINE_MAX_LANES];
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        if (line[0] == 'g') { /* the function called next */
            line = nl ? nl + 1 : NULL;
            continue;
        }
        char *end;
        long id = strtol(line, &end, 10);
        long v = strtol(end, &end, 10);
        if (id < 0 || id >= b->nfns || !b->fns[id].in_file) {
            fail("%s [%s, %s]: the program printed an unknown function's line: %.60s", b->src, tg->name, cc_name(b, k), line);
            break;
        }
        cfn *fn = &b->fns[id];
        const tcase *c = &g_cases[fn->cs];
        tine_type_t rt = fn->emitted->type, r1 = WL(rt, 1);
        int L = rt.lanes;
        for (int i = 0; i < L; i++) got[i] = strtoull(end, &end, 16);
        seen[id]++;
        const uint64_t *want = c->ref + (size_t)v * L;
        int bad_lane = -1;
        for (int i = 0; i < L && bad_lane < 0; i++) {
            bool ok;
            if (rt.kind == TINE_BOOL && L > 1) ok = (got[i] == 0 || got[i] == 0xff) && (got[i] != 0) == (want[i] != 0);
            else if (rt.kind == TINE_BOOL) ok = got[i] == (want[i] != 0); /* a scalar bool is 0 or 1 */
            else ok = canon(r1, got[i]) == canon(r1, want[i]);
            /* which NaN an arithmetic op returns is not tine's semantics (SEMANTICS.md) */
            if (!ok && rt.kind == TINE_FLOAT) ok = g_is_nan(rt.bits, got[i]) && g_is_nan(rt.bits, want[i]);
            if (!ok) bad_lane = i;
        }
        if (bad_lane < 0) pass();
        else if (!bad[id]) { /* the first vector that differs */
            bad[id] = true;
            if (fail_reported()) {
                tine_buf o = {0};
                tine_buf_puts(&o, "");
                tine_buf_puts(&o, "  got  ");
                if (rt.kind == TINE_BOOL && L > 1)
                    for (int i = 0; i < L; i++) tine_buf_printf(&o, "%s%llx", i ? " " : "[", (unsigned long long)got[i]);
                else show_lanes(&o, rt, got, L);
                tine_buf_puts(&o, rt.kind == TINE_BOOL && L > 1 ? "] (mask lanes)\n  want " : "\n  want ");
                show_lanes(&o, rt, want, L);
                char *d = describe(b, fn, (int)v);
                printf("FAIL: %s [%s, %s, %s]: lane %d of input vector %ld differs from the interpreter\n%s\n%s\n", c->label,
                       tg->name, cc_name(b, k), MODE_NAME[fn->mode], bad_lane, v, o.p, d);
                free(d);
                free(o.p);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < b->nfns; i++)
        if (b->fns[i].in_file && seen[i] != g_cases[b->fns[i].cs].nvec)
            fail("%s [%s, %s]: function f%d printed %d results, not %d", b->src, tg->name, cc_name(b, k), i, seen[i],
                 g_cases[b->fns[i].cs].nvec);
    free(seen);
    free(bad);
}

/* ---- compile errors ------------------------------------------------------------------------- */

/* The function at a line of the file last written (one left out has no lines). */
static int fn_at_line(const batch *b, long line) {
    for (int i = 0; i < b->nfns; i++)
        if (line >= b->fns[i].line0 && line <= b->fns[i].line1) return i;
    return -1;
}

/* Traces the messages of a failed build of b (compiler k) to the functions they are in,
 * reports each and marks it to be left out; false when a message is outside every
 * function (the prelude's or the driver's: not retried). */
static bool trace_errors(batch *b, int k, const char *log) {
    const target *tg = &g_tg[b->tg];
    tine_buf *msg = tine_xcalloc((size_t)b->nfns, sizeof(tine_buf));
    bool outside = false;
    int cur = -1, nimpl = 0;
    size_t sl = strlen(b->src);
    tine_buf other = {0};
    tine_buf_puts(&other, "");
    for (const char *line = log; line && *line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        /* FILE:LINE: anywhere on the line */
        for (const char *p = line; p < line + len; p++) {
            if (!strncmp(p, b->src, sl) && p[sl] == ':') {
                char *after;
                long ln = strtol(p + sl + 1, &after, 10);
                if (after == p + sl + 1) break; /* "FILE: In function" */
                int f = fn_at_line(b, ln);
                if (f >= 0) cur = f;
                else if (strstr(line, "error") && strstr(line, "error") < line + len) cur = -1, outside = true;
                break;
            }
        }
        if (cur >= 0 && cur < b->nfns) {
            if (!msg[cur].p) tine_buf_puts(&msg[cur], ""), nimpl++;
            if (msg[cur].n < 4000) tine_buf_printf(&msg[cur], "    %.*s\n", len, line);
        } else if (other.n < 4000) {
            tine_buf_printf(&other, "    %.*s\n", len, line);
        }
        line = nl ? nl + 1 : NULL;
    }
    for (int i = 0; i < b->nfns; i++) {
        if (!msg[i].p) continue;
        cfn *fn = &b->fns[i];
        if (fail_reported()) {
            char *d = describe(b, fn, -1);
            printf("FAIL: %s [%s, %s, %s]: the C does not compile warning-free:\n%s%s\n", g_cases[fn->cs].label, tg->name,
                   cc_name(b, k), MODE_NAME[fn->mode], msg[i].p, d);
            free(d);
        }
        fn->out = true;
        free(msg[i].p);
    }
    if (outside || !nimpl)
        fail("%s [%s, %s]: does not build, and not for one function's code:\n%s", b->src, tg->name, cc_name(b, k), other.p);
    free(other.p);
    free(msg);
    return !outside && nimpl > 0;
}

/* A program that stopped: in the C function after the last one whose lines are all there
 * (its blocks are reported and left out). */
static bool trace_crash(batch *b, int k, const char *outtext, const char *errtext) {
    int g = -1, n = 0;
    for (const char *line = outtext; line && *line;) {
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        if (line[0] == 'g') g = atoi(line + 2);
        line = nl + 1;
    }
    for (int i = 0; i < b->nfns; i++) {
        cfn *fn = &b->fns[i];
        if (!fn->in_file || fn->group != g) continue;
        char *d = describe(b, fn, -1);
        fail("%s [%s, %s, %s]: the program stops in the function of this block: %s\n%s", g_cases[fn->cs].label,
             g_tg[b->tg].name, cc_name(b, k), MODE_NAME[fn->mode], errtext, d);
        free(d);
        fn->out = true;
        n++;
    }
    if (!n) fail("%s [%s, %s]: the program fails: %s", b->src, g_tg[b->tg].name, cc_name(b, k), errtext);
    return n > 0;
}

/* ---- the toolchains ---------------------------------------------------------------------------- */

/* Whether a shell command succeeds (its output read to the end and dropped). */
static bool probe(const char *cmd) {
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    for (char sink[4096]; fread(sink, 1, sizeof sink, p) > 0;) {}
    return pclose(p) == 0;
}

static const char *arm_missing(void) {
    struct stat st;
    if (stat("/usr/aarch64-linux-gnu", &st) != 0) return "the AArch64 sysroot /usr/aarch64-linux-gnu is missing";
    if (!probe("command -v qemu-aarch64 >/dev/null 2>&1")) return "qemu-aarch64 is not installed";
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "printf '#include <arm_neon.h>\\nint main(void){return vaddv_u8(vdup_n_u8(1)) != 8;}\\n' > %s/probe.c && "
             "clang-19 --target=aarch64-linux-gnu -O1 -static -o %s/probe %s/probe.c 2>&1 && qemu-aarch64 %s/probe 2>&1",
             g_dir, g_dir, g_dir, g_dir);
    if (!probe(cmd)) return "clang-19 cannot build and qemu-aarch64 run a static AArch64 program";
    snprintf(cmd, sizeof cmd, "aarch64-linux-gnu-gcc -O1 -static -o %s/probe %s/probe.c 2>&1 && qemu-aarch64 %s/probe 2>&1",
             g_dir, g_dir, g_dir);
    g_arm_gcc = probe(cmd);
    return NULL;
}

/* ---- main ----------------------------------------------------------------------------------- */

enum { BATCH_FNS = 2000 };

static bool g_full;

/* Whether gcc builds a function too. Every function is built by clang-19 for its target;
 * by gcc, the selected and instruction-form functions of every x86 target, and the
 * unselected ones once: the C the emitter writes for an expression without instruction
 * nodes is the same text at every x86 level, which gcc builds (in --quick) at one end of
 * the levels per part: the primitive ops at x86-64-sse2 (where gcc splits the most
 * vectors), the FPIR ops at x86-64-avx512, the random expressions at both. --full builds
 * everything with both compilers, the AArch64 files with aarch64-linux-gnu-gcc too. */
static bool wants_gcc(const target *t, int mode, char part) {
    if (g_full) return true;
    if (t->arm) return false;
    if (mode != MODE_UNSELECTED) return true;
    bool lo = !strcmp(t->name, "x86-64-sse2"), hi = !strcmp(t->name, "x86-64-avx512");
    return part == 'a' ? lo : part == 'b' ? hi : lo || hi;
}

/* The emitter of each open batch (by index into g_batches). */
static tine_cemit *g_open_ce[2];

static void close_batch(int *bi, int slot) {
    if (*bi < 0) return;
    batch *b = &g_batches[*bi];
    tine_buf pre = {0};
    tine_buf_puts(&pre, "");
    tine_cemit_prelude(g_open_ce[slot], &pre);
    b->prelude = pre.p;
    tine_cemit_free(g_open_ce[slot]);
    g_open_ce[slot] = NULL;
    *bi = -1;
}

/* The open batch of a target, part and compilers (slot 1: gcc too), opened if need be. */
static int batch_for(int *open, int ti, int part, int slot) {
    int bi = open[slot];
    if (bi >= 0 && (g_batches[bi].nfns >= BATCH_FNS || g_batches[bi].part != part)) close_batch(&open[slot], slot);
    if (open[slot] >= 0) return open[slot];
    tine_cemit *ce = tine_cemit_new(g_ctx, g_tg[ti].name, "    ");
    if (!ce) {
        fail("no emitter for %s: %s", g_tg[ti].name, tine_error(g_ctx));
        return -1;
    }
    TINE_GROW(g_batches, g_nbatches + 1, g_capbatches);
    batch *b = &g_batches[g_nbatches];
    memset(b, 0, sizeof *b);
    b->tg = ti;
    b->part = part;
    b->cc_on[0] = true;
    b->cc_on[1] = slot == 1;
    snprintf(b->src, sizeof b->src, "%s/b%d.c", g_dir, g_nbatches);
    g_open_ce[slot] = ce;
    return open[slot] = g_nbatches++;
}

static void emit_one(int *open, int ti, int ci, int mode, const tine_expr_t *e) {
    int slot = wants_gcc(&g_tg[ti], mode, g_cases[ci].part), bi = batch_for(open, ti, g_cases[ci].part - 'a', slot);
    if (bi >= 0) add_fn(&g_batches[bi], ci, mode, e, g_open_ce[slot]);
}

static void emit_all(void) {
    for (int ti = 0; ti < NTG; ti++) {
        target *t = &g_tg[ti];
        if (!t->on) continue;
        int open[2] = {-1, -1};
        for (int ci = 0; ci < g_ncases; ci++) {
            tcase *c = &g_cases[ci];
            if (!c->ok || (c->only >= 0 && c->only != ti) || (c->only < 0 && !t->main)) continue;
            if (c->only >= 0) {
                emit_one(open, ti, ci, MODE_DIRECT, c->e);
                continue;
            }
            emit_one(open, ti, ci, MODE_UNSELECTED, c->e);
            tine_expr_t *s = tine_select_expr(g_ctx, c->e, TINE_SELECT_TINE, t->name);
            if (!s) fail("%s [%s]: selection fails: %s", c->label, t->name, tine_error(g_ctx));
            else if (!tine_type_eq(s->type, c->e->type)) fail("%s [%s]: selection changes the type", c->label, t->name);
            else if (s != c->e) emit_one(open, ti, ci, MODE_SELECTED, s);
        }
        close_batch(&open[0], 0);
        close_batch(&open[1], 1);
    }
}

/* The estimated CPU time of building batch i / NCC with compiler i % NCC. */
static double job_cost(int i) {
    static const double per_fn[5] = {1.7, 5.5, 4, 2, 3}; /* ms per function by part (clang) */
    const batch *b = &g_batches[i / NCC];
    return b->nfns * per_fn[b->part] * (i % NCC ? 2.5 : 1);
}

int main(int argc, char **argv) {
    bool full = false;
    const char *only_target = NULL;
    uint64_t seed = 0x63656d6974ull; /* "cemit" */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full")) full = true;
        else if (!strcmp(argv[i], "--quick")) full = false;
        else if (!strcmp(argv[i], "-v")) g_verbose = true;
        else if (!strcmp(argv[i], "--keep")) g_keep = true;
        else if (!strcmp(argv[i], "--part") && i + 1 < argc) {
            const char *p = argv[++i];
            for (int k = 0; k < 4; k++) g_part[k] = strchr(p, 'a' + k) != NULL;
        } else if (!strcmp(argv[i], "--target") && i + 1 < argc) only_target = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--group") && i + 1 < argc) g_group = atoi(argv[++i]) < 1 ? 1 : atoi(argv[i]);
        else {
            fprintf(stderr, "usage: test_cemit [--quick|--full] [-v] [--keep] [--part abcd] [--target NAME] [--seed N] "
                            "[--group N]\n");
            return 2;
        }
    }
    double t0 = now();
    g_ctx = tine_ctx_new();
    g_rng = seed;
    snprintf(g_dir, sizeof g_dir, "/tmp/tine-cemit-XXXXXX");
    if (!mkdtemp(g_dir)) {
        fail("cannot make a temporary directory");
        return 1;
    }
    const char *arm_why = arm_missing();
    for (int i = 0; i < NTG; i++) {
        target *t = &g_tg[i];
        int runs = 0;
        t->cflags = tine_target_cflags(t->name, &runs);
        t->features = tine_target_features(g_ctx, t->name, NULL);
        t->on = t->cflags && (t->arm ? !arm_why : runs && tine_target_runs_here(g_ctx, t->name) == 1);
        if (only_target && strcmp(only_target, t->name)) t->on = false;
        if (!t->on && t->main && (!only_target || !strcmp(only_target, t->name)))
            printf("test_cemit: %s skipped: %s\n", t->name, t->arm ? arm_why : "this CPU does not run its code");
    }
    if (g_part[0]) part_a();
    if (g_part[1]) part_b();
    g_full = full;
    if (g_part[2]) part_c(full ? 2000 : 300);
    if (g_part[3]) {
        part_d("x86");
        part_d("arm");
    }
    double t1 = now();
    emit_all();
    for (int i = 0; i < g_nbatches; i++) write_batch(&g_batches[i]);
    double t2 = now();
    /* build and run, two at a time; a file whose build fails for some functions' code is
       built again without them */
    long par = sysconf(_SC_NPROCESSORS_ONLN);
    par = par < 1 ? 1 : par > 8 ? 8 : par;
    bool *pending = tine_xcalloc((size_t)g_nbatches * NCC, 1);
    for (int i = 0; i < g_nbatches; i++)
        for (int k = 0; k < NCC; k++) pending[i * NCC + k] = g_batches[i].cc_on[k] && (!g_tg[g_batches[i].tg].arm || k == 0 || g_arm_gcc);
    long njobs = 0;
    for (int round = 0; round < 4; round++) {
        job *jobs = tine_xcalloc((size_t)g_nbatches * NCC, sizeof *jobs);
        int *jb = tine_xcalloc((size_t)g_nbatches * NCC, sizeof(int));
        int n = 0;
        for (int i = 0; i < g_nbatches * NCC; i++)
            if (pending[i]) jb[n++] = i;
        /* the costliest builds first (the last ones then are short): estimated per function
           and part as measured (gcc takes ~2.5 times clang's time) */
        for (int x = 1; x < n; x++)
            for (int y = x; y > 0 && job_cost(jb[y]) > job_cost(jb[y - 1]); y--) {
                int tmp = jb[y];
                jb[y] = jb[y - 1];
                jb[y - 1] = tmp;
            }
        for (int x = 0; x < n; x++) jobs[x].cmd = job_cmd(&g_batches[jb[x] / NCC], jb[x] % NCC);
        if (!n) {
            free(jobs);
            free(jb);
            break;
        }
        njobs += n;
        run_jobs(jobs, n, (int)par);
        bool rewrite = false;
        for (int j = 0; j < n; j++) {
            batch *b = &g_batches[jb[j] / NCC];
            int k = jb[j] % NCC;
            char path[256];
            pending[jb[j]] = false;
            g_cpu[b->tg][k][b->part] += jobs[j].cpu;
            if (jobs[j].rc == 0) {
                snprintf(path, sizeof path, "%s.%d.out", b->src, k);
                char *text = read_file(path);
                if (text) compare(b, k, text);
                else fail("%s: no output", path);
                free(text);
            } else if (jobs[j].rc == 3) {
                snprintf(path, sizeof path, "%s.%d.log", b->src, k);
                char *log = read_file(path);
                if (log && trace_errors(b, k, log)) pending[jb[j]] = rewrite = true;
                free(log);
            } else {
                snprintf(path, sizeof path, "%s.%d.out", b->src, k);
                char *outtext = read_file(path);
                snprintf(path, sizeof path, "%s.%d.err", b->src, k);
                char *errtext = read_file(path);
                if (jobs[j].rc == 4 && trace_crash(b, k, outtext ? outtext : "", errtext ? errtext : ""))
                    pending[jb[j]] = rewrite = true;
                else if (jobs[j].rc != 4) fail("%s: the job failed (%d): %s", b->src, jobs[j].rc, jobs[j].cmd);
                free(outtext);
                free(errtext);
            }
            free(jobs[j].cmd);
        }
        free(jobs);
        free(jb);
        if (rewrite)
            for (int i = 0; i < g_nbatches; i++)
                if (pending[i * NCC] || pending[i * NCC + 1]) write_batch(&g_batches[i]);
    }
    for (int i = 0; i < g_nbatches * NCC; i++)
        if (pending[i])
            fail("%s [%s, %s]: still does not build after leaving out what failed four times", g_batches[i / NCC].src,
                 g_tg[g_batches[i / NCC].tg].name, cc_name(&g_batches[i / NCC], i % NCC));
    free(pending);
    double t3 = now();

    printf("test_cemit: cases: %d primitive, %d FPIR, %d random, %d instruction forms\n", g_count[0], g_count[1],
           g_count[2], g_count[3]);
    for (int i = 0; i < NTG; i++) {
        if (!g_tg[i].on) continue;
        printf("test_cemit: %-15s %5ld functions:", g_tg[i].name, g_fns_tg[i]);
        for (int p = 0; p < 4; p++) {
            long n = g_fns_tpm[i][p][0] + g_fns_tpm[i][p][1] + g_fns_tpm[i][p][2];
            if (!n) continue;
            if (p == 3) printf(" d %ld forms", g_fns_tpm[i][p][2]);
            else printf(" %c %ld + %ld selected (%ld with instructions),", 'a' + p, g_fns_tpm[i][p][0], g_fns_tpm[i][p][1],
                        g_fns_insn[i][p]);
        }
        printf("\n");
    }
    printf("test_cemit: %ld functions (%ld unselected, %ld selected, %ld instruction forms) in %d files, %ld builds%s; "
           "%ld refused by the emitter\n",
           g_fns_total, g_fns_mode[0], g_fns_mode[1], g_fns_mode[2], g_nbatches, njobs,
           g_arm_gcc ? "" : " (no aarch64-linux-gnu-gcc)", g_refused);
    printf("test_cemit: cases and references %.1f s, emit %.1f s, build and run %.1f s\n", t1 - t0, t2 - t1, t3 - t2);
    double total = 0;
    for (int i = 0; i < NTG; i++)
        for (int k = 0; k < NCC; k++) {
            double sum = 0;
            for (int p = 0; p < 5; p++) sum += g_cpu[i][k][p];
            total += sum;
            if (sum > 0 && g_verbose)
                printf("test_cemit:   %-15s %-22s CPU %5.1f s (a %.1f, b %.1f, c %.1f, d %.1f)\n", g_tg[i].name,
                       k == 0 ? "clang-19" : g_tg[i].arm ? "aarch64-linux-gnu-gcc" : "gcc", sum, g_cpu[i][k][0],
                       g_cpu[i][k][1], g_cpu[i][k][2], g_cpu[i][k][3]);
        }
    printf("test_cemit: the builds and runs took %.1f CPU seconds\n", total);
    if (!g_keep) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
        probe(cmd);
    } else {
        printf("test_cemit: files kept in %s\n", g_dir);
    }
    for (int i = 0; i < g_nbatches; i++) {
        for (int k = 0; k < g_batches[i].nfns; k++) free(g_batches[i].fns[k].text);
        free(g_batches[i].fns);
        free(g_batches[i].prelude);
    }
    free(g_batches);
    for (int i = 0; i < g_ncases; i++) {
        free(g_cases[i].label);
        free(g_cases[i].ref);
        for (int j = 0; j < g_cases[i].nvars; j++) free(g_cases[i].in[j]);
    }
    free(g_cases);
    tine_ctx_free(g_ctx);
    printf("test_cemit: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
