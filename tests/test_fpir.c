/* test_fpir.c — conformance test of the 22 FPIR ops.
 *
 * Design note
 * -----------
 * What it checks, in five parts (numbered as in main()):
 *   1. Every FPIR op, on every operand-type combination its signature allows, against an
 *      independent scalar reference, lane by lane:
 *        - 8-bit operands: all 65,536 (x, y) pairs (all 256 x for unary ops; unary ops
 *          on 16-bit operands, i.e. abs, saturating_cast and saturating_narrow of a
 *          16-bit value, take all 65,536 x as well);
 *        - extending_add/sub/mul with an 8-bit y: all 256 y × 512 16-bit x (every edge
 *          value plus random ones);
 *        - mul_shr / rounding_mul_shr on 8-bit operands: all 65,536 (x, y) pairs × all
 *          256 shifts (16.7M lanes per op and signedness) would take ~30 s in the normal
 *          build and ~4 min under ASan for the four (op, signedness) pairs, so the test
 *          takes all (x, y) pairs for s ∈ {0..17, 127, 128, 255} (every count up to
 *          2·8+1, where the result stops changing, and the top of the u8 range) plus all
 *          256 s for 2000 random (x, y) pairs: 1.89M lanes per op and signedness.
 *   2. 16-, 32- and 64-bit operands: every combination of edge values (type min, max,
 *      0, ±1, ±2, min+1, max−1, the signed boundary for unsigned types; for shift
 *      amounts 0, 1, 2, w−1, w, w+1, 2w−1, 2w, 2w+1, 127, 128, 255, 256, max, max−1 and,
 *      signed, −1, −2, −(w−1), −w, −(w+1), −2w, −128, min, min+1), plus 10,000 random
 *      tuples per op and type combination (uniform bits, small magnitudes, near-edge
 *      values; shift amounts mostly in [−2w−3, 2w+3]). 64-bit widening ops have 128-bit
 *      results and are read with tine_eval128. rounding_mul_shr must refuse 64 bits.
 *   3. Semantic edge cases pinned one by one with readable messages (FPIR.md examples,
 *      the shift-count choices of tine_ops.h, saturation corners).
 *   4. Every FPIR node equals tine_expand() of it, evaluated on the same lanes, and the
 *      expansion holds no FPIR op and no leaf other than the node's own operands.
 *   5. Every accepted type combination (all integer types 8..64 bits, plus f32, f64, bool
 *      operands) builds with the expected result type, and every other combination is
 *      refused with NULL and an error naming the op.
 *
 * Why the reference is independent: the library evaluates an FPIR op only through its
 * defining expression in tine_ops.h (widen/narrow/cast/shift/min on the IR's wrapping
 * types). The reference functions below never look at that text. They take the operands
 * as exact integers (__int128), compute the op's *mathematical* meaning — exact sums and
 * products, floor division for shifts (x >> k = floor(x / 2^k), computed with `/`),
 * rounding as floor((x + 2^(k−1)) / 2^k), clamping for saturation, reduction mod 2^bits
 * only where the op wraps — and check that the result lies in the result type's range.
 * Where a mathematical shift count is huge, the reference uses its own cut-off (argued
 * in a comment where it is made), not the definitions' min(..., bits + 1).
 *
 * Evaluation goes through the public API (tine_fpir on vector variables, tine_env_bind,
 * tine_eval); tine_eval128 is used only for 128-bit results.
 *
 * Lanes: the bulk of the work uses 128-lane vectors, and each op and type combination
 * additionally gets one 256-lane batch. Reason: a 256-lane value takes 4 KiB (16 bytes a
 * lane), so evaluating a template of more than ~15 nodes outgrows the 64 KiB first chunk
 * of the interpreter's per-evaluation scratch arena, and every such evaluation then
 * allocates and zeroes a 2 MiB chunk: a 256-lane evaluation of rounding_mul_shr on i8
 * costs ~350 µs against ~32 µs at 128 lanes (~2900 vs ~250 µs under ASan). With 256
 * lanes throughout, this test would take ~30 s instead of ~5 s, and minutes under ASan.
 *
 * Usage: test_fpir [seed]   (the random inputs derive from the seed; it is printed
 * with any failure).
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

#define LANES 128      /* bulk batch width (see the design note) */
#define MAX_REPORT 10  /* failures printed per op */
#define NRANDOM 10000  /* random tuples per op and type combination, 16..64 bits */

static tine_ctx_t *g_ctx;
static uint64_t g_seed = 0x74696e6546504952ull; /* "tineFPIR" */
static uint64_t g_rng;
static long long g_pass, g_fail;

/* ---- random numbers (splitmix64) ---------------------------------------------------- */

static uint64_t rng(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- integer types as plain data ------------------------------------------------------ */

typedef struct {
    int bits; /* 8, 16, 32, 64, 128 */
    int sgn;  /* 1: signed */
} ity;

static ity U(int bits) { return (ity){bits, 0}; }
static ity S(int bits) { return (ity){bits, 1}; }
static int ity_eq(ity a, ity b) { return a.bits == b.bits && a.sgn == b.sgn; }
static tine_type_t tt(ity t, int lanes) { return tine_type(t.sgn ? TINE_INT : TINE_UINT, t.bits, lanes); }
static const char *iname(ity t, char *buf) {
    snprintf(buf, 8, "%c%d", t.sgn ? 'i' : 'u', t.bits);
    return buf;
}

/* Exact limits; types of at most 64 bits. */
static i128 tmin(ity t) { return t.sgn ? -((i128)1 << (t.bits - 1)) : 0; }
static i128 tmax(ity t) { return t.sgn ? ((i128)1 << (t.bits - 1)) - 1 : ((i128)1 << t.bits) - 1; }

/* ---- exact arithmetic -------------------------------------------------------------------- */

/* floor(a / b) for b > 0 (C's `/` truncates toward zero). */
static i128 fdiv(i128 a, i128 b) {
    i128 q = a / b;
    if (a % b != 0 && a < 0) q -= 1;
    return q;
}

/* floor(a / 2^k), k >= 0, exact for every a: for k >= 127 every i128 a lies in
 * [-2^k, 2^k), so the quotient is 0 or -1 by sign. */
static i128 fdiv_pow2(i128 a, i128 k) {
    if (k >= 127) return a < 0 ? -1 : 0;
    return fdiv(a, (i128)((u128)1 << k));
}

/* floor((a + 2^(k-1)) / 2^k): a / 2^k rounded to nearest, ties up; k >= 0 (k = 0: a).
 * Cut-off: for |a| < 2^64 and k >= 65, a + 2^(k-1) lies in [0, 2^k), so the result is
 * 0; computing with k = 100 instead of any larger k gives that same 0. */
static i128 round_div_pow2(i128 a, i128 k) {
    if (k == 0) return a;
    if (k > 100) k = 100;
    i128 d = (i128)1 << k;
    return fdiv(a + d / 2, d);
}

/* v reduced mod 2^bits into t's range. 128-bit types: values are kept as their
 * two's-complement bit pattern, which is already reduced. */
static i128 wrap(i128 v, ity t) {
    if (t.bits >= 128) return v;
    i128 m = (i128)1 << t.bits;
    i128 r = v % m;
    if (r < 0) r += m;
    if (t.sgn && r > tmax(t)) r -= m;
    return r;
}

static i128 clamp(i128 v, ity t) {
    if (v < tmin(t)) return tmin(t);
    if (v > tmax(t)) return tmax(t);
    return v;
}

/* (v · 2^k) mod 2^bits of t, k >= 0. 2^k is a multiple of 2^bits once k >= bits. */
static i128 mul_pow2_wrap(i128 v, i128 k, ity t) {
    if (k >= t.bits) return 0;
    u128 p = (u128)v * ((u128)1 << k); /* mod 2^128, then mod 2^bits */
    return wrap((i128)p, t);
}

/* ---- the reference, one small function per op ---------------------------------------------
 * v[] are the operands as exact values; c describes the types. The result is the exact
 * value in c->r (for a u128 result: its bit pattern). */

typedef struct {
    int op;   /* tine_op_t */
    int n;    /* operands */
    ity a[3]; /* operand types */
    ity u;    /* saturating_cast's type parameter */
    ity r;    /* result type, as the test expects it */
} tcase;

typedef i128 (*reffn)(const tcase *c, const i128 *v);

static i128 ref_widening_add(const tcase *c, const i128 *v) { (void)c; return v[0] + v[1]; }
static i128 ref_widening_sub(const tcase *c, const i128 *v) { (void)c; return v[0] - v[1]; }
static i128 ref_widening_mul(const tcase *c, const i128 *v) {
    if (c->r.bits == 128 && !c->r.sgn) return (i128)((u128)v[0] * (u128)v[1]); /* u64 × u64 < 2^128 */
    return v[0] * v[1]; /* |x·y| < 2^127 for every other combination */
}
/* x · 2^k in the double-width type (wraps there); a negative k divides by 2^-k, floor. */
static i128 ref_widening_shl(const tcase *c, const i128 *v) {
    return v[1] >= 0 ? mul_pow2_wrap(v[0], v[1], c->r) : fdiv_pow2(v[0], -v[1]);
}
static i128 ref_widening_shr(const tcase *c, const i128 *v) {
    return v[1] >= 0 ? fdiv_pow2(v[0], v[1]) : mul_pow2_wrap(v[0], -v[1], c->r);
}
/* y's value (by its own signedness) taken mod 2^bits of x's type, then x op y wraps. */
static i128 ref_extending_add(const tcase *c, const i128 *v) { return wrap(v[0] + v[1], c->r); }
static i128 ref_extending_sub(const tcase *c, const i128 *v) { return wrap(v[0] - v[1], c->r); }
static i128 ref_extending_mul(const tcase *c, const i128 *v) { return wrap(v[0] * v[1], c->r); }
static i128 ref_abs(const tcase *c, const i128 *v) { (void)c; return v[0] < 0 ? -v[0] : v[0]; }
static i128 ref_absd(const tcase *c, const i128 *v) { (void)c; return v[0] < v[1] ? v[1] - v[0] : v[0] - v[1]; }
static i128 ref_saturating_cast(const tcase *c, const i128 *v) { return clamp(v[0], c->u); }
static i128 ref_saturating_narrow(const tcase *c, const i128 *v) { return clamp(v[0], c->r); }
static i128 ref_saturating_add(const tcase *c, const i128 *v) { return clamp(v[0] + v[1], c->r); }
static i128 ref_saturating_sub(const tcase *c, const i128 *v) { return clamp(v[0] - v[1], c->r); }
static i128 ref_halving_add(const tcase *c, const i128 *v) { (void)c; return fdiv(v[0] + v[1], 2); }
/* floor((x − y) / 2); for unsigned T that is negative when y > x and wraps. */
static i128 ref_halving_sub(const tcase *c, const i128 *v) { return wrap(fdiv(v[0] - v[1], 2), c->r); }
static i128 ref_rounding_halving_add(const tcase *c, const i128 *v) { (void)c; return fdiv(v[0] + v[1] + 1, 2); }
/* k > 0: x / 2^k rounded half up (exact, any k); k = 0: x; k < 0: x · 2^-k wrapped to T. */
static i128 rounding_shift_right(i128 x, i128 k, ity t) {
    return k >= 0 ? round_div_pow2(x, k) : mul_pow2_wrap(x, -k, t);
}
static i128 ref_rounding_shr(const tcase *c, const i128 *v) { return rounding_shift_right(v[0], v[1], c->r); }
static i128 ref_rounding_shl(const tcase *c, const i128 *v) { return rounding_shift_right(v[0], -v[1], c->r); }
/* clamp(floor(x·y / 2^s)) */
static i128 ref_mul_shr(const tcase *c, const i128 *v) {
    if (c->r.bits == 64 && !c->r.sgn) { /* u64 × u64 needs the unsigned 128-bit range */
        u128 p = (u128)v[0] * (u128)v[1];
        u128 q = v[2] >= 128 ? 0 : p / ((u128)1 << v[2]);
        return q > (u128)tmax(c->r) ? tmax(c->r) : (i128)q;
    }
    return clamp(fdiv_pow2(v[0] * v[1], v[2]), c->r);
}
/* clamp(x·y / 2^s rounded half up); only up to 32-bit operands, so |x·y| < 2^64. */
static i128 ref_rounding_mul_shr(const tcase *c, const i128 *v) {
    return clamp(round_div_pow2(v[0] * v[1], v[2]), c->r);
}
/* clamp(x · 2^k) exactly; a negative k divides by 2^-k, floor. For x != 0 and k >= 64,
 * |x · 2^k| >= 2^64 exceeds every 64-bit range, so the result is the limit by sign;
 * for k <= 63, |x · 2^k| < 2^127 is exact in i128. */
static i128 ref_saturating_shl(const tcase *c, const i128 *v) {
    i128 x = v[0], k = v[1];
    if (k < 0) return fdiv_pow2(x, -k);
    if (x == 0) return 0;
    if (k >= 64) return x > 0 ? tmax(c->r) : tmin(c->r);
    return clamp(x * ((i128)1 << k), c->r);
}

/* ---- the op table ----------------------------------------------------------------------- */

/* Operand rules, written from FPIR.md and the brief (independently of fpir.c). */
typedef enum {
    K_SAME_WIDE,     /* x, y same type; result widen(T) */
    K_SAME_WIDE_SGN, /* x, y same type; result signed widen(T) */
    K_MIXED_WIDE,    /* x, y same bits; result widen, signed if either is */
    K_SHIFT_WIDE,    /* x; y same bits, any signedness; result widen(T) */
    K_EXTEND,        /* x of 2n bits, y of n bits, any signedness; result T */
    K_ABS,           /* x; result unsigned(T) */
    K_SAME_UNS,      /* x, y same type; result unsigned(T) */
    K_CAST,          /* x; type parameter U; result U */
    K_NARROW,        /* x of >= 16 bits; result narrow(T) */
    K_SAME,          /* x, y same type; result T */
    K_SHIFT,         /* x; y same bits, any signedness; result T */
    K_MULSHR,        /* x, y same type; s unsigned of the same bits; result T */
} kind_t;

typedef struct {
    tine_op_t op;
    const char *name;
    int arity;
    kind_t kind;
    reffn ref;
    /* per-op statistics */
    int combos;
    long long checks, fails;
} opdef;

#define OP(e, name, ar, k) {TINE_OP_##e, #name, ar, k, ref_##name, 0, 0, 0}
static opdef OPS[] = {
    OP(WIDENING_ADD, widening_add, 2, K_SAME_WIDE),
    OP(WIDENING_SUB, widening_sub, 2, K_SAME_WIDE_SGN),
    OP(WIDENING_MUL, widening_mul, 2, K_MIXED_WIDE),
    OP(WIDENING_SHL, widening_shl, 2, K_SHIFT_WIDE),
    OP(WIDENING_SHR, widening_shr, 2, K_SHIFT_WIDE),
    OP(EXTENDING_ADD, extending_add, 2, K_EXTEND),
    OP(EXTENDING_SUB, extending_sub, 2, K_EXTEND),
    OP(EXTENDING_MUL, extending_mul, 2, K_EXTEND),
    OP(ABS, abs, 1, K_ABS),
    OP(ABSD, absd, 2, K_SAME_UNS),
    OP(SATURATING_CAST, saturating_cast, 1, K_CAST),
    OP(SATURATING_NARROW, saturating_narrow, 1, K_NARROW),
    OP(SATURATING_ADD, saturating_add, 2, K_SAME),
    OP(SATURATING_SUB, saturating_sub, 2, K_SAME),
    OP(HALVING_ADD, halving_add, 2, K_SAME),
    OP(HALVING_SUB, halving_sub, 2, K_SAME),
    OP(ROUNDING_HALVING_ADD, rounding_halving_add, 2, K_SAME),
    OP(ROUNDING_SHR, rounding_shr, 2, K_SHIFT),
    OP(ROUNDING_SHL, rounding_shl, 2, K_SHIFT),
    OP(MUL_SHR, mul_shr, 3, K_MULSHR),
    OP(ROUNDING_MUL_SHR, rounding_mul_shr, 3, K_MULSHR),
    OP(SATURATING_SHL, saturating_shl, 2, K_SHIFT),
};
#undef OP
#define NOPS ((int)(sizeof OPS / sizeof OPS[0]))

static opdef *opdef_of(tine_op_t op) {
    for (int i = 0; i < NOPS; i++)
        if (OPS[i].op == op) return &OPS[i];
    return NULL;
}

/* Whether operand i is a shift amount (drives the choice of edge and random values). */
static int is_shift_operand(const opdef *d, int i) {
    return (i == 1 && (d->kind == K_SHIFT || d->kind == K_SHIFT_WIDE)) || (i == 2 && d->kind == K_MULSHR);
}

/* The expected result type for operand types a (and parameter u), or bits == 0 when the
 * combination must be refused. Types here are integers of 8..64 bits; `isint` says
 * which operands are integers at all. */
static ity expected_result(const opdef *d, int n, const ity *a, const int *isint, ity u, int u_isint) {
    ity bad = {0, 0};
    for (int i = 0; i < n; i++)
        if (!isint[i]) return bad;
    ity x = a[0];
    ity wide = {2 * x.bits, x.sgn};
    switch (d->kind) {
    case K_SAME_WIDE: return ity_eq(a[0], a[1]) ? wide : bad;
    case K_SAME_WIDE_SGN: return ity_eq(a[0], a[1]) ? S(2 * x.bits) : bad;
    case K_MIXED_WIDE: return a[0].bits == a[1].bits ? (ity){2 * x.bits, a[0].sgn | a[1].sgn} : bad;
    case K_SHIFT_WIDE: return a[0].bits == a[1].bits ? wide : bad;
    case K_EXTEND: return a[0].bits == 2 * a[1].bits ? x : bad;
    case K_ABS: return U(x.bits);
    case K_SAME_UNS: return ity_eq(a[0], a[1]) ? U(x.bits) : bad;
    case K_CAST: return u_isint ? u : bad;
    case K_NARROW: return x.bits >= 16 ? (ity){x.bits / 2, x.sgn} : bad;
    case K_SAME: return ity_eq(a[0], a[1]) ? x : bad;
    case K_SHIFT: return a[0].bits == a[1].bits ? x : bad;
    case K_MULSHR:
        if (!ity_eq(a[0], a[1]) || !ity_eq(a[2], U(x.bits))) return bad;
        /* rounding_mul_shr would need 256-bit intermediates on 64-bit operands */
        if (d->op == TINE_OP_ROUNDING_MUL_SHR && x.bits == 64) return bad;
        return x;
    }
    return bad;
}

/* ---- failure reports ------------------------------------------------------------------------ */

static char *fmt_i128(i128 v, char *buf) {
    char tmp[48];
    int n = 0;
    u128 m = v < 0 ? -(u128)v : (u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    int k = 0;
    if (v < 0) buf[k++] = '-';
    while (n) buf[k++] = tmp[--n];
    buf[k] = 0;
    return buf;
}

static char *fmt_u128(u128 m, char *buf) {
    char tmp[48];
    int n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    while (n) buf[k++] = tmp[--n];
    buf[k] = 0;
    return buf;
}

/* A value of type t (exact, or a u128 bit pattern) in decimal. */
static char *fmt_val(i128 v, ity t, char *buf) {
    return t.bits == 128 && !t.sgn ? fmt_u128((u128)v, buf) : fmt_i128(v, buf);
}

static char *case_name(const tcase *c, char *buf, size_t len) {
    char t0[8], t1[8], t2[8], tu[8], tr[8];
    const char *name = tine_op_name((tine_op_t)c->op);
    if (c->op == TINE_OP_SATURATING_CAST)
        snprintf(buf, len, "%s<%s>(%s) -> %s", name, iname(c->u, tu), iname(c->a[0], t0), iname(c->r, tr));
    else if (c->n == 1)
        snprintf(buf, len, "%s(%s) -> %s", name, iname(c->a[0], t0), iname(c->r, tr));
    else if (c->n == 2)
        snprintf(buf, len, "%s(%s, %s) -> %s", name, iname(c->a[0], t0), iname(c->a[1], t1), iname(c->r, tr));
    else
        snprintf(buf, len, "%s(%s, %s, %s) -> %s", name, iname(c->a[0], t0), iname(c->a[1], t1), iname(c->a[2], t2),
                 iname(c->r, tr));
    return buf;
}

/* Records one check of op d (d may be NULL for checks not tied to an op). */
static int check(opdef *d, int ok) {
    if (d) d->checks++;
    if (ok) {
        g_pass++;
        return 1;
    }
    g_fail++;
    if (d) d->fails++;
    return 0;
}

static int may_report(const opdef *d) { return !d || d->fails <= MAX_REPORT; }

/* A failure that is not about one lane's value. */
static void fail_msg(opdef *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_msg(opdef *d, const char *fmt, ...) {
    check(d, 0);
    if (!may_report(d)) return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* ---- part 4 helper: an expansion holds no FPIR op and only the given leaves ---------------- */

/* Returns a description of the first problem, or NULL. */
static const char *expansion_problem(const tine_expr_t *root, tine_expr_t *const *vars, int nvars, char *buf,
                                     size_t len) {
    size_t cap = tine_ctx_nodes(g_ctx) + 1;
    unsigned char *seen = calloc(cap, 1);
    const tine_expr_t **stack = malloc(cap * sizeof *stack);
    if (!seen || !stack) abort();
    size_t sp = 0;
    const char *problem = NULL;
    if (tine_expr_id(root) < cap) {
        stack[sp++] = root;
        seen[tine_expr_id(root)] = 1;
    } else {
        snprintf(buf, len, "the root's id is not below tine_ctx_nodes()");
        problem = buf;
    }
    while (sp && !problem) {
        const tine_expr_t *e = stack[--sp];
        tine_op_t op = tine_expr_op(e);
        if (tine_op_is_fpir(op)) {
            snprintf(buf, len, "the expansion still holds the FPIR op %s", tine_op_name(op));
            problem = buf;
        } else if (op == TINE_OP_VAR) {
            int ok = 0;
            for (int i = 0; i < nvars; i++) ok |= e == vars[i];
            if (!ok) {
                snprintf(buf, len, "the expansion has a variable '%s' that is not an operand", tine_expr_name(e));
                problem = buf;
            }
        } else if (op == TINE_OP_LOAD) {
            snprintf(buf, len, "the expansion has a load");
            problem = buf;
        }
        for (int i = 0; i < tine_expr_nops(e) && !problem; i++) {
            const tine_expr_t *o = tine_expr_operand(e, i);
            if (tine_expr_id(o) >= cap) {
                snprintf(buf, len, "a node id (%u) is not below tine_ctx_nodes()", (unsigned)tine_expr_id(o));
                problem = buf;
            } else if (!seen[tine_expr_id(o)]) {
                seen[tine_expr_id(o)] = 1;
                stack[sp++] = o;
            }
        }
    }
    free(seen);
    free(stack);
    return problem;
}

/* ---- the checker: batches tuples into vectors and compares every lane ------------------------ */

typedef struct {
    opdef *d;
    tcase c;
    int lanes;
    tine_expr_t *var[3], *node, *expd;
    tine_env_t *env;
    int n;                      /* tuples buffered */
    i128 buf[TINE_MAX_LANES][3];
} runner;

static void runner_open(runner *r, opdef *d, tcase c, int lanes) {
    static const char *const names[3] = {"x", "y", "s"};
    char cn[96], tb[32], eb[32];
    memset(r, 0, sizeof *r);
    r->d = d;
    r->c = c;
    r->lanes = lanes;
    case_name(&c, cn, sizeof cn);
    tine_clear_error(g_ctx);
    for (int i = 0; i < c.n; i++) r->var[i] = tine_var(g_ctx, names[i], tt(c.a[i], lanes));
    r->node = tine_fpir(g_ctx, d->op, c.n, r->var, tt(c.u, 1));
    if (!check(d, r->node != NULL)) {
        if (may_report(d)) printf("FAIL %s: tine_fpir refused it: %s\n", cn, tine_error(g_ctx) ? tine_error(g_ctx) : "(no error)");
        return;
    }
    tine_type_t want = tt(c.r, lanes), got = tine_expr_type(r->node);
    if (!check(d, tine_type_eq(want, got))) {
        if (may_report(d))
            printf("FAIL %s: result type is %s, expected %s\n", cn, tine_type_str(got, tb, sizeof tb),
                   tine_type_str(want, eb, sizeof eb));
        r->node = NULL;
        return;
    }
    /* part 4: the expansion */
    r->expd = tine_expand(g_ctx, r->node);
    char why[160];
    const char *problem = NULL;
    if (!r->expd) problem = "tine_expand returned NULL";
    else if (!tine_type_eq(tine_expr_type(r->expd), want)) problem = "the expansion has another type";
    else if (tine_expand(g_ctx, r->expd) != r->expd) problem = "expanding the expansion changes it";
    else problem = expansion_problem(r->expd, r->var, c.n, why, sizeof why);
    if (!check(d, problem == NULL)) {
        if (may_report(d)) printf("FAIL %s: %s\n", cn, problem);
        r->expd = NULL;
    }
    r->env = tine_env_new(g_ctx);
}

/* Evaluates e into got (bit patterns: 64-bit canonical words for results of at most 64
 * bits, as tine_eval returns them; 128-bit words otherwise). */
static int evaluate(const tine_expr_t *e, tine_env_t *env, int bits128, u128 *got) {
    if (bits128) return tine_eval128(g_ctx, e, env, got);
    uint64_t out[TINE_MAX_LANES];
    if (tine_eval(g_ctx, e, env, out) != 0) return -1;
    for (int i = 0; i < tine_expr_type(e).lanes; i++) got[i] = out[i];
    return 0;
}

/* What tine_eval must return for exact value v of type t. */
static u128 pattern_of(i128 v, ity t) { return t.bits == 128 ? (u128)v : (u128)(uint64_t)(u128)v; }

static void report_lane(runner *r, const i128 *v, const char *what, i128 want, const char *what_got, u128 got) {
    if (!may_report(r->d)) return;
    char cn[96], b[4][48], w[48], g[48];
    case_name(&r->c, cn, sizeof cn);
    static const char *const names[3] = {"x", "y", "s"};
    printf("FAIL %s: ", cn);
    for (int i = 0; i < r->c.n; i++) printf("%s%s=%s", i ? " " : "", names[i], fmt_i128(v[i], b[i]));
    /* got as a value of the result type (a non-canonical pattern shows in hex) */
    i128 gv = r->c.r.bits == 128 ? (i128)got : wrap((i128)(uint64_t)got, r->c.r);
    printf(": %s %s, %s %s (0x%016" PRIx64 "%016" PRIx64 ") [seed %" PRIu64 "]\n", what, fmt_val(want, r->c.r, w),
           what_got, fmt_val(gv, r->c.r, g), (uint64_t)(got >> 64), (uint64_t)got, g_seed);
}

static void flush(runner *r) {
    if (r->n == 0) return;
    int n = r->n, L = r->lanes;
    r->n = 0;
    if (!r->node) return;
    char cn[96];
    for (int i = 0; i < r->c.n; i++) {
        uint64_t lanes[TINE_MAX_LANES];
        for (int j = 0; j < L; j++) lanes[j] = (uint64_t)(u128)r->buf[j < n ? j : 0][i];
        if (tine_env_bind(r->env, r->var[i], lanes) != 0) {
            fail_msg(r->d, "%s: tine_env_bind failed: %s", case_name(&r->c, cn, sizeof cn), tine_error(g_ctx));
            return;
        }
    }
    int wide = r->c.r.bits == 128;
    u128 got[TINE_MAX_LANES], gotx[TINE_MAX_LANES];
    if (evaluate(r->node, r->env, wide, got) != 0) {
        fail_msg(r->d, "%s: tine_eval failed: %s", case_name(&r->c, cn, sizeof cn), tine_error(g_ctx));
        return;
    }
    int have_x = r->expd && evaluate(r->expd, r->env, wide, gotx) == 0;
    if (r->expd && !have_x)
        fail_msg(r->d, "%s: evaluating the expansion failed: %s", case_name(&r->c, cn, sizeof cn), tine_error(g_ctx));
    for (int j = 0; j < n; j++) {
        const i128 *v = r->buf[j];
        i128 want = r->d->ref(&r->c, v);
        if (r->c.r.bits <= 64 && (want < tmin(r->c.r) || want > tmax(r->c.r))) {
            /* a bug in this test's reference, reported as a failure all the same */
            report_lane(r, v, "REFERENCE OUT OF RANGE (test bug): reference gives", want, "library", got[j]);
            check(r->d, 0);
            continue;
        }
        if (!check(r->d, got[j] == pattern_of(want, r->c.r))) report_lane(r, v, "expected", want, "got", got[j]);
        if (have_x && !check(r->d, gotx[j] == got[j]))
            report_lane(r, v, "tine_expand() of it gives", wide ? (i128)gotx[j] : wrap((i128)(uint64_t)gotx[j], r->c.r),
                        "the FPIR node gives", got[j]);
    }
}

static void push(runner *r, i128 x, i128 y, i128 s) {
    r->buf[r->n][0] = x;
    r->buf[r->n][1] = y;
    r->buf[r->n][2] = s;
    if (++r->n == r->lanes) flush(r);
}

static void runner_close(runner *r) {
    flush(r);
    tine_env_free(r->env);
    r->env = NULL;
}

/* ---- input values --------------------------------------------------------------------------- */

static int add_unique(i128 *out, int n, i128 v) {
    for (int i = 0; i < n; i++)
        if (out[i] == v) return n;
    out[n] = v;
    return n + 1;
}

/* Edge values of a value operand. */
static int edge_values(ity t, i128 *out) {
    int n = 0;
    i128 lo = tmin(t), hi = tmax(t), half = (i128)1 << (t.bits - 1);
    i128 cand[] = {lo, lo + 1, lo + 2, -2, -1, 0, 1, 2, hi - 1, hi, half - 1, half, half + 1};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
        if (cand[i] >= lo && cand[i] <= hi) n = add_unique(out, n, cand[i]);
    return n;
}

/* Edge values of a shift amount of type t (width w of the shifted value = t.bits);
 * negative counts are wrapped into unsigned types, where they become large counts. */
static int shift_values(ity t, i128 *out) {
    int n = 0;
    i128 w = t.bits;
    i128 cand[] = {0, 1, 2, w - 1, w, w + 1, 2 * w - 1, 2 * w, 2 * w + 1, 127, 128, 255, 256, tmax(t) - 1, tmax(t),
                   -1, -2, -(w - 1), -w, -(w + 1), -2 * w, -128, tmin(t), tmin(t) + 1};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) n = add_unique(out, n, wrap(cand[i], t));
    return n;
}

static i128 random_value(ity t) {
    uint64_t r = rng(), m = rng();
    switch (m % 4) {
    case 0: case 1: return wrap((i128)r, t); /* uniform over the type */
    case 2: {                                  /* small magnitude, either sign */
        int k = 1 + (int)((m >> 8) % (uint64_t)t.bits);
        i128 v = (i128)(r >> (64 - k));
        return wrap((m >> 16) & 1 ? -v : v, t);
    }
    default: { /* near an edge */
        i128 e[16];
        int ne = edge_values(t, e);
        return wrap(e[(m >> 8) % (uint64_t)ne] + (i128)((m >> 20) % 7) - 3, t);
    }
    }
}

static i128 random_shift(ity t) {
    uint64_t r = rng(), m = rng();
    i128 w = t.bits;
    switch (m % 4) {
    case 0: case 1: return wrap((i128)(r % (uint64_t)(4 * w + 7)) - (2 * w + 3), t); /* [-2w-3, 2w+3] */
    case 2: return wrap((i128)(r % (uint64_t)(w + 3)), t);                         /* [0, w+2] */
    default: return wrap((i128)r, t);                                                /* uniform */
    }
}

static i128 random_operand(const runner *r, int i) {
    return is_shift_operand(r->d, i) ? random_shift(r->c.a[i]) : random_value(r->c.a[i]);
}

static int operand_edges(const runner *r, int i, i128 *out) {
    return is_shift_operand(r->d, i) ? shift_values(r->c.a[i], out) : edge_values(r->c.a[i], out);
}

/* ---- parts 1 and 2: one op on one type combination ---------------------------------------- */

static void push_random(runner *r, int count) {
    for (int k = 0; k < count; k++) {
        i128 v[3] = {0, 0, 0};
        for (int i = 0; i < r->c.n; i++) v[i] = random_operand(r, i);
        push(r, v[0], v[1], v[2]);
    }
}

static void run_case(opdef *d, tcase c) {
    runner r;
    runner_open(&r, d, c, LANES);
    d->combos++;
    const ity *a = c.a;
    if (c.n == 1 && a[0].bits <= 16) {
        /* exhaustive */
        for (i128 x = tmin(a[0]); x <= tmax(a[0]); x++) push(&r, x, 0, 0);
    } else if (c.n == 2 && a[0].bits <= 8 && a[1].bits <= 8) {
        for (i128 x = tmin(a[0]); x <= tmax(a[0]); x++)
            for (i128 y = tmin(a[1]); y <= tmax(a[1]); y++) push(&r, x, y, 0);
    } else if (c.n == 2 && d->kind == K_EXTEND && a[1].bits == 8) {
        /* all y × 512 x: the edges, then random ones */
        i128 xs[512];
        int nx = edge_values(a[0], xs);
        while (nx < 512) nx = add_unique(xs, nx, random_value(a[0]));
        for (int i = 0; i < nx; i++)
            for (i128 y = tmin(a[1]); y <= tmax(a[1]); y++) push(&r, xs[i], y, 0);
    } else if (c.n == 3 && a[0].bits == 8) {
        /* all (x, y) for these s, then all s for 2000 random (x, y) */
        static const int svals[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 127, 128, 255};
        for (size_t k = 0; k < sizeof svals / sizeof svals[0]; k++)
            for (i128 x = tmin(a[0]); x <= tmax(a[0]); x++)
                for (i128 y = tmin(a[1]); y <= tmax(a[1]); y++) push(&r, x, y, svals[k]);
        for (int k = 0; k < 2000; k++) {
            i128 x = random_value(a[0]), y = random_value(a[1]);
            for (i128 s = 0; s < 256; s++) push(&r, x, y, s);
        }
    } else {
        /* edge combinations, then random tuples */
        i128 e[3][32];
        int ne[3] = {1, 1, 1};
        e[1][0] = e[2][0] = 0;
        for (int i = 0; i < c.n; i++) ne[i] = operand_edges(&r, i, e[i]);
        for (int i = 0; i < ne[0]; i++)
            for (int j = 0; j < ne[1]; j++)
                for (int k = 0; k < ne[2]; k++) push(&r, e[0][i], e[1][j], e[2][k]);
        push_random(&r, NRANDOM);
    }
    runner_close(&r);

    /* one full-width (256-lane) batch of random tuples */
    runner_open(&r, d, c, TINE_MAX_LANES);
    push_random(&r, TINE_MAX_LANES);
    runner_close(&r);
}

/* Every type combination of op d whose narrowest operand has `bits` bits. */
static void run_op(opdef *d, int bits) {
    static const int sg[2] = {0, 1};
    tcase c;
    memset(&c, 0, sizeof c);
    c.op = d->op;
    c.n = d->arity;
    int isint[3] = {1, 1, 1};
    for (int s0 = 0; s0 < 2; s0++)
        for (int s1 = 0; s1 < 2; s1++) {
            ity x = {bits, sg[s0]}, y = {bits, sg[s1]};
            switch (d->kind) {
            case K_MIXED_WIDE: case K_SHIFT_WIDE: case K_SHIFT: break;
            case K_EXTEND:
                if (bits > 32) continue;
                x.bits = 2 * bits;
                break;
            case K_NARROW:
                if (bits > 32 || s1) continue;
                x.bits = 2 * bits;
                break;
            case K_MULSHR:
                if (s1 || (d->op == TINE_OP_ROUNDING_MUL_SHR && bits == 64)) continue; /* see part 5 */
                y = x;
                c.a[2] = U(bits);
                break;
            case K_CAST: {
                if (s1) continue;
                static const int ub[4] = {8, 16, 32, 64};
                for (int k = 0; k < 8; k++) {
                    c.a[0] = x;
                    c.u = (ity){ub[k / 2], k % 2};
                    c.r = expected_result(d, 1, c.a, isint, c.u, 1);
                    run_case(d, c);
                }
                continue;
            }
            default:
                if (s1) continue;
                y = x;
                break;
            }
            c.a[0] = x;
            c.a[1] = y;
            c.r = expected_result(d, c.n, c.a, isint, c.u, 1);
            if (c.r.bits == 0) {
                fail_msg(d, "test bug: %s combination without a result type", d->name);
                continue;
            }
            run_case(d, c);
        }
}

/* ---- part 3: pinned semantics ------------------------------------------------------------------ */

/* Evaluates op on single-lane variables holding the given values and compares with
 * `want`; also checks that the reference agrees with the pinned value. */
static void pin(tine_op_t op, ity u, int n, ity t0, i128 v0, ity t1, i128 v1, ity t2, i128 v2, i128 want) {
    opdef *d = opdef_of(op);
    ity ts[3] = {t0, t1, t2};
    i128 vs[3] = {v0, v1, v2};
    char desc[160], b[3][48], tn[3][8], w[48], g[48];
    int k = snprintf(desc, sizeof desc, "%s", d->name);
    if (op == TINE_OP_SATURATING_CAST) k += snprintf(desc + k, sizeof desc - (size_t)k, "<%s>", iname(u, tn[0]));
    for (int i = 0; i < n; i++)
        k += snprintf(desc + k, sizeof desc - (size_t)k, "%s%s %s", i ? ", " : "(", iname(ts[i], tn[i]), fmt_i128(vs[i], b[i]));
    snprintf(desc + k, sizeof desc - (size_t)k, ")");

    static const char *const names[3] = {"p", "q", "r"};
    tine_expr_t *var[3];
    tine_clear_error(g_ctx);
    for (int i = 0; i < n; i++) var[i] = tine_var(g_ctx, names[i], tt(ts[i], 1));
    tine_expr_t *e = tine_fpir(g_ctx, op, n, var, tt(u, 1));
    if (!e) {
        fail_msg(d, "%s: tine_fpir refused it: %s", desc, tine_error(g_ctx));
        return;
    }
    tcase c = {op, n, {t0, t1, t2}, u, {0, 0}};
    int isint[3] = {1, 1, 1};
    c.r = expected_result(d, n, c.a, isint, u, 1);
    tine_type_t rt = tine_expr_type(e);
    if (c.r.bits == 0 || !tine_type_eq(rt, tt(c.r, 1))) {
        fail_msg(d, "%s: unexpected result type", desc);
        return;
    }
    tine_env_t *env = tine_env_new(g_ctx);
    for (int i = 0; i < n; i++) {
        uint64_t lane = (uint64_t)(u128)vs[i];
        tine_env_bind(env, var[i], &lane);
    }
    u128 got;
    if (evaluate(e, env, c.r.bits == 128, &got) != 0) {
        fail_msg(d, "%s: evaluation failed: %s", desc, tine_error(g_ctx));
    } else {
        i128 gv = c.r.bits == 128 ? (i128)got : wrap((i128)(uint64_t)got, c.r);
        if (!check(d, got == pattern_of(want, c.r)) && may_report(d))
            printf("FAIL pinned: %s should be %s, the library gives %s (0x%016" PRIx64 "%016" PRIx64 ")\n", desc,
                   fmt_val(want, c.r, w), fmt_val(gv, c.r, g), (uint64_t)(got >> 64), (uint64_t)got);
        i128 ref = d->ref(&c, vs);
        if (!check(d, pattern_of(ref, c.r) == pattern_of(want, c.r)) && may_report(d))
            printf("FAIL pinned: %s should be %s, but this test's reference gives %s (test bug)\n", desc,
                   fmt_val(want, c.r, w), fmt_val(ref, c.r, g));
    }
    tine_env_free(env);
}

#define NONE U(8), 0
#define I8(v) S(8), (v)
#define U8(v) U(8), (v)
#define I16(v) S(16), (v)
#define U16(v) U(16), (v)
#define I32(v) S(32), (v)
#define U32(v) U(32), (v)
#define I64(v) S(64), (i128)(v)
#define U64(v) U(64), (i128)(v)
#define PIN1(op, a, want) pin(TINE_OP_##op, U(8), 1, a, NONE, NONE, want)
#define PIN2(op, a, b, want) pin(TINE_OP_##op, U(8), 2, a, b, NONE, want)
#define PIN3(op, a, b, s, want) pin(TINE_OP_##op, U(8), 3, a, b, s, want)
#define PINCAST(u, a, want) pin(TINE_OP_SATURATING_CAST, u, 1, a, NONE, NONE, want)

static void pinned_semantics(void) {
    const i128 U64MAX = (i128)UINT64_MAX, I64MAX = INT64_MAX, I64MIN = INT64_MIN;
    /* FPIR.md's examples and the brief's list */
    PIN2(ROUNDING_SHR, U8(255), U8(1), 128); /* rounding term at double width */
    PIN1(ABS, I8(-128), 128);                  /* result is unsigned */
    PIN2(HALVING_SUB, U8(0), U8(1), 255);      /* wraps for unsigned */
    PIN2(HALVING_SUB, I8(-128), I8(127), -128);
    PIN2(ROUNDING_HALVING_ADD, U8(255), U8(255), 255);
    PINCAST(U(8), I16(-1), 0);
    PINCAST(S(8), U8(200), 127);
    PINCAST(U(32), I64(-5), 0);
    PINCAST(S(64), U64(UINT64_MAX), I64MAX);
    PIN3(ROUNDING_MUL_SHR, I16(-32768), I16(-32768), U16(15), 32767); /* saturates */
    PIN3(MUL_SHR, I16(-32768), I16(-32768), U16(16), 16384);
    /* negative counts shift left, by the exact magnitude */
    PIN2(ROUNDING_SHR, I8(3), I8(-2), 12);
    PIN2(ROUNDING_SHR, I8(1), I8(-128), 0);
    /* counts >= the width give the exact rounded value */
    PIN2(ROUNDING_SHR, U8(255), U8(8), 1);
    PIN2(ROUNDING_SHR, U8(255), U8(9), 0);
    PIN2(ROUNDING_SHR, I8(-128), U8(8), 0);
    PIN2(ROUNDING_SHR, I8(-128), I8(8), 0);
    PIN2(ROUNDING_SHR, I8(-128), I8(7), -1);
    PIN2(SATURATING_SHL, U8(1), U8(8), 255);
    PIN2(SATURATING_SHL, U8(0), U8(200), 0);
    PIN2(ROUNDING_SHL, U8(3), U8(2), 12);
    PIN2(ROUNDING_SHL, U8(5), I8(-1), 3);
    /* more corners */
    PIN2(ROUNDING_SHR, I8(-3), I8(1), -1);     /* -1.5 rounds half up to -1 */
    PIN2(ROUNDING_SHR, I8(-5), I8(1), -2);     /* -2.5 -> -2 */
    PIN2(ROUNDING_SHR, I8(127), I8(127), 0);
    PIN2(ROUNDING_SHR, U8(200), U8(0), 200);
    PIN2(ROUNDING_SHR, I8(-1), I8(-7), -128);  /* left direction wraps */
    PIN2(ROUNDING_SHR, I8(1), I8(-7), -128);
    PIN2(ROUNDING_SHL, I8(-128), I8(-128), 0); /* right by 128 */
    PIN2(ROUNDING_SHL, I8(100), I8(-8), 0);    /* 100 / 256 = 0.39 rounds to 0 */
    PIN2(ROUNDING_SHL, I8(-128), I8(-8), 0);   /* -128 / 256 = -0.5 rounds half up to 0 */
    PIN2(SATURATING_SHL, I8(-1), I8(7), -128);
    PIN2(SATURATING_SHL, I8(-1), I8(8), -128);
    PIN2(SATURATING_SHL, I8(1), I8(6), 64);
    PIN2(SATURATING_SHL, I8(1), I8(7), 127);
    PIN2(SATURATING_SHL, I8(-128), I8(-1), -64);
    PIN2(SATURATING_SHL, I8(-128), I8(-128), -1);
    PIN2(SATURATING_SHL, U8(200), I8(-8), 0);
    PIN2(SATURATING_SHL, U8(255), I8(127), 255);
    PIN2(SATURATING_ADD, I8(-128), I8(-1), -128);
    PIN2(SATURATING_SUB, U8(3), U8(5), 0);
    PIN2(SATURATING_SUB, I8(-128), I8(1), -128);
    PIN2(HALVING_ADD, I8(-128), I8(-1), -65);
    PIN2(ROUNDING_HALVING_ADD, I8(-128), I8(-1), -64);
    PIN2(ABSD, I8(-128), I8(127), 255);
    PIN2(ABSD, U8(0), U8(255), 255);
    PIN2(WIDENING_SUB, U8(0), U8(255), -255);
    PIN2(WIDENING_MUL, U8(255), I8(-128), -32640);
    PIN2(WIDENING_MUL, I8(-128), I8(-128), 16384);
    PIN2(WIDENING_SHL, U8(255), U8(15), 32768);
    PIN2(WIDENING_SHL, I8(-1), I8(15), -32768);
    PIN2(WIDENING_SHL, U8(255), U8(16), 0);
    PIN2(WIDENING_SHR, I8(-128), U8(200), -1);
    PIN2(WIDENING_SHR, I8(-128), I8(-8), -32768);
    PIN2(EXTENDING_ADD, U16(65535), I8(-1), 65534);
    PIN2(EXTENDING_SUB, I16(-32768), U8(255), 32513);
    PIN2(EXTENDING_MUL, U16(300), I8(-1), 65236);
    PIN1(ABS, I64(I64MIN), (i128)1 << 63);
    PIN1(SATURATING_NARROW, I16(-129), -128);
    PIN1(SATURATING_NARROW, U16(256), 255);
    PIN3(MUL_SHR, U8(255), U8(255), U8(0), 255);
    PIN3(MUL_SHR, I8(-128), I8(127), U8(255), -1);
    PIN3(ROUNDING_MUL_SHR, I8(-128), I8(-128), U8(7), 127); /* ARM sqrdmulh corner */
    PIN3(ROUNDING_MUL_SHR, I8(-128), I8(127), U8(7), -127);
    PIN3(ROUNDING_MUL_SHR, I32(INT32_MIN), I32(INT32_MIN), U32(31), INT32_MAX);
    /* 64-bit operands, 128-bit results */
    PIN2(WIDENING_MUL, U64(UINT64_MAX), U64(UINT64_MAX), (i128)((u128)UINT64_MAX * UINT64_MAX));
    PIN2(WIDENING_MUL, I64(I64MIN), I64(I64MIN), (i128)1 << 126);
    PIN2(WIDENING_MUL, U64(UINT64_MAX), I64(I64MIN), -((i128)UINT64_MAX << 63));
    PIN2(WIDENING_SUB, U64(0), U64(UINT64_MAX), -U64MAX);
    PIN2(WIDENING_SHL, U64(UINT64_MAX), U64(64), (i128)((u128)UINT64_MAX << 64));
    PIN2(WIDENING_SHL, I64(-1), I64(127), (i128)((u128)1 << 127));
    PIN2(ROUNDING_SHR, U64(UINT64_MAX), U64(64), 1);
    PIN2(ROUNDING_SHR, U64(UINT64_MAX), U64(65), 0);
    PIN2(ROUNDING_SHR, U64(UINT64_MAX), U64(UINT64_MAX), 0);
    PIN2(ROUNDING_SHR, I64(I64MIN), I64(63), -1);
    PIN2(ROUNDING_SHR, I64(1), I64(I64MIN), 0);
    PIN2(SATURATING_SHL, I64(I64MIN), I64(I64MAX), I64MIN);
    PIN2(SATURATING_SHL, U64(1), U64(63), (i128)1 << 63);
    PIN2(SATURATING_SHL, U64(1), U64(64), U64MAX);
    PIN3(MUL_SHR, U64(UINT64_MAX), U64(UINT64_MAX), U64(64), U64MAX - 1);
    PIN3(MUL_SHR, I64(I64MIN), I64(I64MIN), U64(126), 1);
    PIN3(MUL_SHR, I64(I64MIN), I64(I64MIN), U64(127), 0);
    PIN2(SATURATING_SUB, U64(0), U64(1), 0);
    PIN2(HALVING_SUB, U64(0), U64(1), U64MAX);
    PINCAST(U(64), I8(-1), 0);
    PINCAST(S(16), U64(UINT64_MAX), 32767);
}

/* ---- part 5: which type combinations build ----------------------------------------------------- */

static void expect_refusal(const char *desc, tine_op_t op, int n, tine_type_t t0, tine_type_t t1, tine_type_t t2,
                           tine_type_t tparam, const char *must_mention) {
    static const char *const names[3] = {"a0", "a1", "a2"};
    tine_type_t ts[3] = {t0, t1, t2};
    tine_expr_t *var[3];
    tine_clear_error(g_ctx);
    for (int i = 0; i < n; i++) var[i] = tine_var(g_ctx, names[i], ts[i]);
    opdef *d = opdef_of(op);
    tine_expr_t *e = tine_fpir(g_ctx, op, n, var, tparam);
    const char *err = tine_error(g_ctx);
    if (!check(d, e == NULL)) {
        if (may_report(d)) printf("FAIL %s: tine_fpir accepted it\n", desc);
        return;
    }
    if (!check(d, err && *err)) {
        if (may_report(d)) printf("FAIL %s: refused without an error message\n", desc);
        return;
    }
    if (!check(d, strstr(err, must_mention) != NULL) && may_report(d))
        printf("FAIL %s: the error does not mention '%s': %s\n", desc, must_mention, err);
}

static void type_combinations(void) {
    /* operand types: all integers of 8..64 bits, and some that are not integers */
    enum { NT = 11 };
    tine_type_t types[NT];
    ity ints[NT];
    int isint[NT];
    static const int ib[4] = {8, 16, 32, 64};
    for (int k = 0; k < 8; k++) {
        ints[k] = (ity){ib[k / 2], k % 2};
        types[k] = tt(ints[k], 4);
        isint[k] = 1;
    }
    types[8] = tine_type(TINE_FLOAT, 32, 4);
    types[9] = tine_type(TINE_FLOAT, 64, 4);
    types[10] = tine_type(TINE_BOOL, 1, 4);
    for (int k = 8; k < NT; k++) {
        ints[k] = U(8);
        isint[k] = 0;
    }
    static const char *const names[3] = {"a0", "a1", "a2"};
    for (int o = 0; o < NOPS; o++) {
        opdef *d = &OPS[o];
        int n = d->arity, np = d->op == TINE_OP_SATURATING_CAST ? NT : 1;
        int total = 1;
        for (int i = 0; i < n; i++) total *= NT;
        for (int idx = 0; idx < total; idx++)
            for (int p = 0; p < np; p++) {
                int k[3] = {idx % NT, idx / NT % NT, idx / (NT * NT)};
                ity a[3];
                int ii[3];
                tine_expr_t *var[3];
                char desc[128], tb[3][32], pb[32], rb[32], eb[32];
                int len = snprintf(desc, sizeof desc, "%s", d->name);
                if (np > 1) len += snprintf(desc + len, sizeof desc - (size_t)len, "<%s>", tine_type_str(tine_type_with_lanes(types[p], 1), pb, sizeof pb));
                tine_clear_error(g_ctx);
                for (int i = 0; i < n; i++) {
                    a[i] = ints[k[i]];
                    ii[i] = isint[k[i]];
                    var[i] = tine_var(g_ctx, names[i], types[k[i]]);
                    len += snprintf(desc + len, sizeof desc - (size_t)len, "%s%s", i ? ", " : "(",
                                    tine_type_str(types[k[i]], tb[i], sizeof tb[i]));
                }
                snprintf(desc + len, sizeof desc - (size_t)len, ")");
                /* the type parameter's lanes are ignored: give it 7 */
                tine_type_t tparam = np > 1 ? tine_type_with_lanes(types[p], 7) : tine_type(TINE_UINT, 8, 1);
                ity want = expected_result(d, n, a, ii, ints[p], np > 1 ? isint[p] : 1);
                tine_expr_t *e = tine_fpir(g_ctx, d->op, n, var, tparam);
                const char *err = tine_error(g_ctx);
                if (want.bits) {
                    tine_type_t wt = tt(want, 4);
                    if (!check(d, e != NULL)) {
                        if (may_report(d)) printf("FAIL %s should build, but: %s\n", desc, err ? err : "(no error)");
                        continue;
                    }
                    int ok = tine_type_eq(tine_expr_type(e), wt) && tine_expr_op(e) == d->op && tine_expr_nops(e) == n;
                    for (int i = 0; i < n && ok; i++) ok = tine_expr_operand(e, i) == var[i];
                    if (!check(d, ok) && may_report(d))
                        printf("FAIL %s builds %s, expected a %s node of type %s on its operands\n", desc,
                               tine_type_str(tine_expr_type(e), rb, sizeof rb), d->name, tine_type_str(wt, eb, sizeof eb));
                    if (!check(d, err == NULL) && may_report(d))
                        printf("FAIL %s builds but leaves an error: %s\n", desc, err);
                } else {
                    if (!check(d, e == NULL)) {
                        if (may_report(d))
                            printf("FAIL %s should be refused, but builds %s\n", desc,
                                   tine_type_str(tine_expr_type(e), rb, sizeof rb));
                        continue;
                    }
                    if (!check(d, err && *err)) {
                        if (may_report(d)) printf("FAIL %s is refused without an error message\n", desc);
                        continue;
                    }
                    if (!check(d, strstr(err, d->name) != NULL) && may_report(d))
                        printf("FAIL %s: the error does not name the op: %s\n", desc, err);
                }
            }
    }

    /* the brief's named cases, with their own messages */
    tine_type_t u8 = tine_type(TINE_UINT, 8, 4), i8 = tine_type(TINE_INT, 8, 4), u16 = tine_type(TINE_UINT, 16, 4),
                i64 = tine_type(TINE_INT, 64, 4), u64 = tine_type(TINE_UINT, 64, 4), f32 = tine_type(TINE_FLOAT, 32, 4),
                u8x8 = tine_type(TINE_UINT, 8, 8), none = tine_type(TINE_UINT, 8, 1);
    expect_refusal("widening_add(u8, i8)", TINE_OP_WIDENING_ADD, 2, u8, i8, none, none, "widening_add");
    expect_refusal("absd(u8, u16)", TINE_OP_ABSD, 2, u8, u16, none, none, "absd");
    expect_refusal("mul_shr(u8, u8, i8)", TINE_OP_MUL_SHR, 3, u8, u8, i8, none, "mul_shr");
    expect_refusal("saturating_narrow(u8)", TINE_OP_SATURATING_NARROW, 1, u8, none, none, none, "saturating_narrow");
    expect_refusal("widening_add(f32, f32)", TINE_OP_WIDENING_ADD, 2, f32, f32, none, none, "widening_add");
    expect_refusal("abs(f32)", TINE_OP_ABS, 1, f32, none, none, none, "abs");
    expect_refusal("saturating_cast<f32>(u8)", TINE_OP_SATURATING_CAST, 1, u8, none, none, tine_type(TINE_FLOAT, 32, 1),
                   "saturating_cast");
    expect_refusal("rounding_mul_shr(i64, i64, u64)", TINE_OP_ROUNDING_MUL_SHR, 3, i64, i64, u64, none,
                   "rounding_mul_shr");
    expect_refusal("rounding_mul_shr(u64, u64, u64)", TINE_OP_ROUNDING_MUL_SHR, 3, u64, u64, u64, none,
                   "rounding_mul_shr");
    expect_refusal("widening_add(u8x4, u8x8) (lanes differ)", TINE_OP_WIDENING_ADD, 2, u8, u8x8, none, none,
                   "widening_add");
    expect_refusal("widening_add with 1 operand", TINE_OP_WIDENING_ADD, 1, u8, none, none, none, "widening_add");
    expect_refusal("widening_add with 3 operands", TINE_OP_WIDENING_ADD, 3, u8, u8, u8, none, "widening_add");
    expect_refusal("abs with 2 operands", TINE_OP_ABS, 2, i8, i8, none, none, "abs");
    expect_refusal("mul_shr with 2 operands", TINE_OP_MUL_SHR, 2, u8, u8, none, none, "mul_shr");
    /* not an FPIR op */
    {
        tine_clear_error(g_ctx);
        tine_expr_t *v[2] = {tine_var(g_ctx, "a0", u8), tine_var(g_ctx, "a1", u8)};
        tine_expr_t *e = tine_fpir(g_ctx, TINE_OP_ADD, 2, v, none);
        if (!check(NULL, e == NULL && tine_error(g_ctx) && *tine_error(g_ctx)))
            printf("FAIL tine_fpir(add, ...) should be refused with an error\n");
        /* a NULL operand propagates */
        tine_expr_t *w[2] = {v[0], NULL};
        if (!check(NULL, tine_fpir(g_ctx, TINE_OP_WIDENING_ADD, 2, w, none) == NULL))
            printf("FAIL tine_fpir with a NULL operand should return NULL\n");
    }
}

/* ---- the op table itself ----------------------------------------------------------------------- */

static void op_table(void) {
    if (!check(NULL, TINE_FPIR_COUNT == NOPS))
        printf("FAIL the library has %d FPIR ops, this test knows %d\n", (int)TINE_FPIR_COUNT, NOPS);
    for (int i = 0; i < NOPS; i++) {
        opdef *d = &OPS[i];
        if (!check(d, tine_op_is_fpir(d->op) && strcmp(tine_op_name(d->op), d->name) == 0 &&
                          tine_op_lookup(d->name) == (int)d->op && tine_fpir_definition(d->op) != NULL))
            printf("FAIL op table: %s is not the FPIR op named so (name '%s')\n", d->name, tine_op_name(d->op));
    }
}

int main(int argc, char **argv) {
    if (argc > 1) g_seed = strtoull(argv[1], NULL, 0);
    g_rng = g_seed;
    g_ctx = tine_ctx_new();
    if (!g_ctx) return 2;

    op_table();
    /* 3: pinned semantics first: their messages are the most readable */
    pinned_semantics();
    /* 5: which combinations build */
    type_combinations();
    /* 1, 2 and 4: every op, type combination and width against the reference and the expansion */
    static const int widths[4] = {8, 16, 32, 64};
    for (int i = 0; i < NOPS; i++) {
        clock_t t0 = clock();
        for (int w = 0; w < 4; w++) run_op(&OPS[i], widths[w]);
        printf("  %-22s %3d type combinations, %10lld checks, %lld failed (%.2f s)\n", OPS[i].name, OPS[i].combos,
               OPS[i].checks, OPS[i].fails, (double)(clock() - t0) / CLOCKS_PER_SEC);
        fflush(stdout);
    }

    tine_ctx_free(g_ctx);
    printf("test_fpir: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
