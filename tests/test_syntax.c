/* test_syntax.c — the text syntax: printing, parsing, and the errors the parser gives.
 *
 * Design note. The syntax has one law, parse(print(e)) == e, where == is pointer equality
 * (nodes are hash-consed, so the same structure is the same node). Four parts pin it:
 *
 *   1. Round trip. A type-directed generator builds random well-typed expressions through
 *      the C API: gen(t, depth) returns an expression of exactly type t, choosing among
 *      the constructors that can produce t (so every combination is valid by design; a
 *      NULL from a constructor is reported with the generator line and the library's
 *      message — either the generator or the library is wrong, and the test says which
 *      call). Each expression is printed at a context lanes chosen independently of the
 *      lanes it was built at, so leaves and constants whose lanes differ from their
 *      position get exercised; then parsed, compared by pointer, and printed again. A
 *      coverage table then checks that the generator really produced every op and the
 *      printed forms the syntax has (lane suffixes, xN(...), -0.0, inf, nan, lane lists).
 *      Seeds are fixed: expression i uses seed SEED + i, so a failure names its index.
 *   2. Golden prints: one-line {input, lanes, expected} rows — precedence, sugar (clamp,
 *      widen, cast<T>, '!'), literal folding, comments, newlines, the FPIR.md Sobel.
 *   3. The error corpus, data/parse_errors.txt: malformed inputs and their exact messages
 *      (format documented at the top of that file), plus inputs too deep to keep in a
 *      file, generated here. `test_syntax --bless` rewrites the corpus with the messages
 *      tine gives now (review the diff before committing it).
 *   4. Stress: a 10,000-term left-deep sum parses, prints back identically, and is the
 *      node the C API builds; so does a 10,000-term chain mixing every binary operator.
 *      (The parser bounds nesting at TINE_MAX_DEPTH, but a left-deep chain is not
 *      nesting: it is as long as the input, so nothing may recurse along it.)
 *
 * Output: a line per failure with the text involved, then
 * "test_syntax: N checks passed, M failed"; the exit status is non-zero on any failure.
 */
#include "internal.h"
#include "ir/ast.h" /* TINE_MAX_DEPTH */

#include <math.h>
#include <time.h>

#include "testutil.h"

/* parse(print(e)) == e, and printing the result gives the same text. `what` names the
 * case in a failure. Returns whether it held. */
static bool check_round_trip(tine_ctx_t *ctx, tine_expr_t *e, const char *what) {
    char *s = tine_print(ctx, e);
    tine_expr_t *e2 = tine_parse(ctx, s, "<printed>");
    bool ok = false;
    if (!e2) {
        fail("%s: the printed form does not parse (lanes %d)\n  printed: %s\n  error: %s", what, tine_lanes(ctx), s,
             tine_error(ctx));
    } else {
        char *s2 = tine_print(ctx, e2);
        if (e2 != e)
            fail("%s: parse(print(e)) is a different node (lanes %d)\n  printed:   %s\n  reprinted: %s", what,
                 tine_lanes(ctx), s, s2);
        else if (strcmp(s, s2) != 0)
            fail("%s: printing twice differs (lanes %d)\n  first:  %s\n  second: %s", what, tine_lanes(ctx), s, s2);
        else ok = true;
        free(s2);
    }
    free(s);
    if (ok) pass();
    return ok;
}

/* ==== 1. the generator ================================================================ */

typedef struct {
    tine_ctx_t *ctx;
    uint64_t rng;
    int fail_line;  /* generator line of the first constructor that returned NULL */
    char *fail_msg; /* the library's message for it (malloc'd) */
} gen_t;

static uint64_t rnd(gen_t *g) { return tine_rand64(&g->rng); }
static int below(gen_t *g, int n) { return (int)(rnd(g) % (uint64_t)n); }

/* Every constructor call goes through OK(): the first NULL records where and why. */
static tine_expr_t *ok_(gen_t *g, tine_expr_t *e, int line) {
    if (!e && !g->fail_line) {
        g->fail_line = line;
        g->fail_msg = tine_strdup(tine_error(g->ctx) ? tine_error(g->ctx) : "(no message)");
    }
    return e;
}
#define OK(x) ok_(g, (x), __LINE__)

static const struct {
    tine_kind_t kind;
    int bits;
} ELEMS[] = {{TINE_UINT, 8}, {TINE_UINT, 16}, {TINE_UINT, 32}, {TINE_UINT, 64}, {TINE_INT, 8},   {TINE_INT, 16},
             {TINE_INT, 32}, {TINE_INT, 64},  {TINE_FLOAT, 32}, {TINE_FLOAT, 64}, {TINE_BOOL, 1}};
enum { NELEMS = sizeof ELEMS / sizeof ELEMS[0] };

static const int LANE_CHOICES[] = {1, 4, 8, 16, 32};

/* Variable base names, including ones that look like types, keywords or suffixes. */
static const char *const NAMES[] = {"a", "b", "c", "x", "y", "a_b", "v2", "$t", "_", "T", "u8", "x4", "inf",
                                    "cast", "min", "a_u8", "true"};
static const char *const BUFFERS[] = {"in", "buf", "p_q"};

static tine_type_t ty(tine_kind_t k, int bits, int lanes) { return tine_type(k, bits, lanes); }
static tine_type_t lanes_of(tine_type_t t, int lanes) { return tine_type_with_lanes(t, lanes); }
static tine_type_t kind_of(tine_type_t t, tine_kind_t k) { return tine_type((tine_kind_t)k, t.bits, t.lanes); }
static tine_type_t random_elem(gen_t *g, int lanes) {
    int i = below(g, NELEMS);
    return ty(ELEMS[i].kind, ELEMS[i].bits, lanes);
}
static tine_type_t random_int(gen_t *g, int lanes) {
    int i = below(g, 8);
    return ty(ELEMS[i].kind, ELEMS[i].bits, lanes);
}
static tine_kind_t random_sign(gen_t *g) { return below(g, 2) ? TINE_INT : TINE_UINT; }

/* An integer value of t as a canonical bit pattern (sign-extended for signed types). */
static uint64_t int_value(gen_t *g, tine_type_t t) {
    uint64_t mx = tine_type_max(t), v;
    uint64_t mn = (uint64_t)tine_type_min(t);
    bool sgn = t.kind == TINE_INT;
    switch (below(g, 10)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return mx;
    case 3: return mn; /* 0 for unsigned */
    case 4: return sgn ? ~(uint64_t)0 : 2;
    case 5: return mx - 1;
    case 6: return sgn ? mn + 1 : 255 & mx;
    case 7: return sgn ? (uint64_t)(int64_t)(below(g, 41) - 20) : (uint64_t)below(g, 20);
    default: v = rnd(g); break;
    }
    if (t.bits < 64) {
        uint64_t mask = ((uint64_t)1 << t.bits) - 1;
        v &= mask;
        if (sgn && (v >> (t.bits - 1)) & 1) v |= ~mask;
    }
    return v;
}

static double float_value(gen_t *g) {
    static const double special[] = {0.0,     -0.0,   1.0,   -1.0,  0.5,  -2.5,  0.1,  1e30,  -1e-30, 3.4028234663852886e38,
                                     1.4e-45, 1e300, 5e-324, 255.0, -128.0, 1e16, 123456.789};
    int r = below(g, 12);
    if (r < 6) return special[below(g, (int)(sizeof special / sizeof special[0]))];
    if (r == 6) return INFINITY;
    if (r == 7) return -INFINITY;
    if (r == 8) return below(g, 2) ? (double)NAN : -(double)NAN;
    if (r == 9) return (double)(below(g, 2001) - 1000) / 8.0;
    uint64_t bits = rnd(g);
    double d;
    memcpy(&d, &bits, 8);
    return isnan(d) ? 42.0 : d;
}

/* The lane bit pattern tine_const_lanes expects for float value d in type t. */
static uint64_t float_bits(tine_type_t t, double d) { return (uint64_t)tine_bits_of_float(t, d); }

static uint64_t lane_value(gen_t *g, tine_type_t t) {
    if (t.kind == TINE_BOOL) return (uint64_t)below(g, 2);
    if (t.kind == TINE_FLOAT) return float_bits(t, float_value(g));
    return int_value(g, t);
}

/* A uniform constant, through each of the constant constructors in turn. */
static tine_expr_t *gen_uniform(gen_t *g, tine_type_t t) {
    tine_ctx_t *ctx = g->ctx;
    if (t.kind == TINE_BOOL) return OK(tine_const_int(ctx, t, below(g, 2)));
    if (t.kind == TINE_FLOAT) {
        if (below(g, 4) == 0) { /* through tine_const_lanes, all lanes equal */
            uint64_t lanes[TINE_MAX_LANES], v = lane_value(g, t);
            for (int i = 0; i < t.lanes; i++) lanes[i] = v;
            return OK(tine_const_lanes(ctx, t, lanes));
        }
        return OK(tine_const_float(ctx, t, float_value(g)));
    }
    uint64_t v = int_value(g, t);
    switch (below(g, 3)) {
    case 0: return OK(t.kind == TINE_INT ? tine_const_int(ctx, t, (int64_t)v) : tine_const_uint(ctx, t, v));
    case 1: {
        uint64_t lanes[TINE_MAX_LANES];
        for (int i = 0; i < t.lanes; i++) lanes[i] = v;
        return OK(tine_const_lanes(ctx, t, lanes));
    }
    default: /* small values through tine_const_int whatever the signedness */
        return OK(tine_const_int(ctx, t, below(g, 2) ? (int64_t)below(g, 100) : tine_type_min(t)));
    }
}

static tine_expr_t *gen_lanes_const(gen_t *g, tine_type_t t) {
    uint64_t lanes[TINE_MAX_LANES];
    for (int i = 0; i < t.lanes; i++) lanes[i] = lane_value(g, t);
    return OK(tine_const_lanes(g->ctx, t, lanes));
}

static tine_expr_t *gen_leaf(gen_t *g, tine_type_t t) {
    int r = below(g, 10);
    if (r < 4) return OK(tine_var(g->ctx, NAMES[below(g, (int)(sizeof NAMES / sizeof NAMES[0]))], t));
    if (r < 8 || t.lanes == 1) return gen_uniform(g, t);
    return gen_lanes_const(g, t);
}

typedef enum {
    P_BINARY, P_SHIFT, P_CMP, P_UNARY, P_SELECT, P_CAST, P_REINTERPRET, P_BROADCAST, P_RAMP,
    P_LOAD, P_CONCAT, P_INTERLEAVE, P_SLICE, P_DEINTERLEAVE, P_REDUCE, P_FPIR, P_INSN, P_COUNT
} production;

/* The x86 instructions whose result has t's element type and whose operands fit at t's
 * lanes; returns how many (codes in out). */
static int insns_for(tine_ctx_t *ctx, tine_type_t t, int *out) {
    const tine_isa *isa = tine_isa_get(ctx, "x86");
    int n = 0, lanes[TINE_INSN_MAX_OPS];
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        if (in->result.kind == t.kind && in->result.bits == t.bits && tine_insn_operand_lanes(in, t.lanes, lanes))
            out[n++] = k;
    }
    return n;
}

static bool is_int(tine_type_t t) { return tine_type_is_int(t) != 0; }

static bool applicable(production p, tine_type_t t) {
    switch (p) {
    case P_BINARY: case P_CMP: case P_SELECT: case P_CAST: case P_SLICE: return p != P_CMP || t.kind == TINE_BOOL;
    case P_SHIFT: case P_FPIR: return is_int(t);
    case P_UNARY: return true;
    case P_REINTERPRET: case P_LOAD: return t.kind != TINE_BOOL;
    case P_BROADCAST: case P_CONCAT: return t.lanes > 1;
    case P_RAMP: return is_int(t) && t.lanes > 1;
    case P_INTERLEAVE: return t.lanes % 2 == 0 || t.lanes % 3 == 0;
    case P_DEINTERLEAVE: return t.lanes * 2 <= TINE_MAX_LANES;
    case P_REDUCE: return t.kind != TINE_BOOL && t.lanes * 2 <= TINE_MAX_LANES;
    case P_INSN: return is_int(t); /* gen() falls back to a leaf when no instruction fits */
    case P_COUNT: break;
    }
    return false;
}

static tine_expr_t *gen(gen_t *g, tine_type_t t, int depth);

/* FPIR ops that can produce result type t (an integer type), by signature. */
static bool fpir_applicable(tine_op_t op, tine_type_t t) {
    switch (op) {
    case TINE_OP_WIDENING_ADD: case TINE_OP_WIDENING_MUL: case TINE_OP_WIDENING_SHL: case TINE_OP_WIDENING_SHR:
    case TINE_OP_EXTENDING_ADD: case TINE_OP_EXTENDING_SUB: case TINE_OP_EXTENDING_MUL:
        return t.bits >= 16;
    case TINE_OP_WIDENING_SUB: return t.kind == TINE_INT && t.bits >= 16;
    case TINE_OP_ABS: case TINE_OP_ABSD: return t.kind == TINE_UINT;
    case TINE_OP_SATURATING_NARROW: return t.bits <= 32;
    case TINE_OP_ROUNDING_MUL_SHR: return t.bits < 64; /* needs 4x-wide intermediates */
    default: return true;
    }
}

static tine_expr_t *gen_fpir(gen_t *g, tine_type_t t, int d) {
    int cand[TINE_FPIR_COUNT], n = 0;
    for (int i = 0; i < TINE_FPIR_COUNT; i++)
        if (fpir_applicable((tine_op_t)(TINE_FPIR_FIRST + i), t)) cand[n++] = TINE_FPIR_FIRST + i;
    tine_op_t op = (tine_op_t)cand[below(g, n)];
    tine_type_t half = tine_type_narrow(t), tp = {0, 0, 0};
    tine_expr_t *a[3] = {NULL, NULL, NULL};
    int arity = tine_fpir_table[op - TINE_FPIR_FIRST].arity;
    tine_kind_t k;
    switch (op) {
    case TINE_OP_WIDENING_ADD:
        a[0] = gen(g, half, d);
        a[1] = gen(g, half, d);
        break;
    case TINE_OP_WIDENING_SUB:
        k = random_sign(g);
        a[0] = gen(g, kind_of(half, k), d);
        a[1] = gen(g, kind_of(half, k), d);
        break;
    case TINE_OP_WIDENING_MUL: {
        /* signed result if either factor is signed */
        int pick = below(g, 3);
        tine_kind_t k0 = t.kind == TINE_UINT ? TINE_UINT : pick == 2 ? TINE_UINT : TINE_INT;
        tine_kind_t k1 = t.kind == TINE_UINT ? TINE_UINT : pick == 1 ? TINE_UINT : TINE_INT;
        a[0] = gen(g, kind_of(half, k0), d);
        a[1] = gen(g, kind_of(half, k1), d);
        break;
    }
    case TINE_OP_WIDENING_SHL: case TINE_OP_WIDENING_SHR:
        a[0] = gen(g, half, d);
        a[1] = gen(g, kind_of(half, random_sign(g)), d);
        break;
    case TINE_OP_EXTENDING_ADD: case TINE_OP_EXTENDING_SUB: case TINE_OP_EXTENDING_MUL:
        a[0] = gen(g, t, d);
        a[1] = gen(g, kind_of(half, random_sign(g)), d);
        break;
    case TINE_OP_ABS: a[0] = gen(g, kind_of(t, random_sign(g)), d); break;
    case TINE_OP_ABSD:
        k = random_sign(g);
        a[0] = gen(g, kind_of(t, k), d);
        a[1] = gen(g, kind_of(t, k), d);
        break;
    case TINE_OP_SATURATING_CAST:
        a[0] = gen(g, random_int(g, t.lanes), d);
        tp = lanes_of(t, below(g, 2) ? 1 : t.lanes); /* the parameter's lanes are ignored */
        break;
    case TINE_OP_SATURATING_NARROW: a[0] = gen(g, tine_type_widen(t), d); break;
    case TINE_OP_ROUNDING_SHR: case TINE_OP_ROUNDING_SHL: case TINE_OP_SATURATING_SHL:
        a[0] = gen(g, t, d);
        a[1] = gen(g, kind_of(t, random_sign(g)), d);
        break;
    case TINE_OP_MUL_SHR: case TINE_OP_ROUNDING_MUL_SHR:
        a[0] = gen(g, t, d);
        a[1] = gen(g, t, d);
        a[2] = gen(g, kind_of(t, TINE_UINT), d);
        break;
    default: /* SAME2: saturating_add/sub, halving_add/sub, rounding_halving_add */
        a[0] = gen(g, t, d);
        a[1] = gen(g, t, d);
        break;
    }
    return OK(tine_fpir(g->ctx, op, arity, a, tp));
}

/* n vectors of element type t whose lanes add up to t.lanes (concat) or are all equal. */
static void gen_parts(gen_t *g, tine_type_t t, int n, bool equal, int d, tine_expr_t **v) {
    int left = t.lanes;
    for (int i = 0; i < n; i++) {
        int l = equal ? t.lanes / n : i == n - 1 ? left : 1 + below(g, left - (n - 1 - i));
        left -= l;
        v[i] = gen(g, lanes_of(t, l), d);
    }
}

static tine_expr_t *gen(gen_t *g, tine_type_t t, int depth) {
    if (g->fail_line) return NULL;
    if (depth <= 0 || below(g, 6) == 0) return gen_leaf(g, t);
    production ps[P_COUNT + 2];
    int np = 0;
    for (int p = 0; p < P_COUNT; p++)
        if (applicable((production)p, t)) ps[np++] = (production)p;
    if (applicable(P_FPIR, t)) ps[np++] = P_FPIR, ps[np++] = P_FPIR; /* 22 ops share one slot: weight it */
    production p = ps[below(g, np)];
    tine_ctx_t *ctx = g->ctx;
    int d = depth - 1;
    tine_expr_t *a, *b, *c, *v[4];
    switch (p) {
    case P_BINARY: {
        static const tine_op_t iops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                         TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        static const tine_op_t fops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MIN, TINE_OP_MAX};
        static const tine_op_t bops[] = {TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        tine_op_t op = t.kind == TINE_FLOAT ? fops[below(g, 6)] : t.kind == TINE_BOOL ? bops[below(g, 3)] : iops[below(g, 10)];
        a = gen(g, t, d);
        b = gen(g, t, d);
        return OK(tine_binary(ctx, op, a, b));
    }
    case P_SHIFT:
        a = gen(g, t, d);
        b = gen(g, kind_of(t, random_sign(g)), d);
        return OK(tine_binary(ctx, below(g, 2) ? TINE_OP_SHL : TINE_OP_SHR, a, b));
    case P_CMP: {
        tine_type_t ot = random_elem(g, t.lanes);
        a = gen(g, ot, d);
        b = gen(g, ot, d);
        return OK(tine_binary(ctx, (tine_op_t)(TINE_OP_EQ + below(g, 6)), a, b));
    }
    case P_UNARY: {
        if (t.kind == TINE_FLOAT && below(g, 3) == 0) { /* fma: the one ternary float op */
            a = gen(g, t, d);
            b = gen(g, t, d);
            c = gen(g, t, d);
            return OK(tine_fma(ctx, a, b, c));
        }
        tine_op_t op = t.kind == TINE_BOOL ? TINE_OP_NOT
                       : t.kind == TINE_FLOAT ? (below(g, 2) ? TINE_OP_NEG : TINE_OP_SQRT)
                                              : (below(g, 2) ? TINE_OP_NEG : TINE_OP_NOT);
        a = gen(g, t, d);
        return OK(tine_unary(ctx, op, a));
    }
    case P_SELECT:
        c = gen(g, ty(TINE_BOOL, 1, t.lanes), d);
        a = gen(g, t, d);
        b = gen(g, t, d);
        return OK(tine_select(ctx, c, a, b));
    case P_CAST:
        a = gen(g, random_elem(g, t.lanes), d);
        return OK(tine_cast(ctx, lanes_of(t, below(g, 2) ? 1 : t.lanes), a)); /* elem's lanes are ignored */
    case P_REINTERPRET: {
        /* one in three to lanes of other bits (reinterpret<u16x8>(a_u8x16)), where some
           element of other bits holds t's bits in at most 256 lanes */
        int other[NELEMS], n = 0;
        for (int i = 0; i < NELEMS - 1; i++) { /* not bool, the last */
            int total = t.lanes * t.bits;
            if (ELEMS[i].bits != t.bits && total % ELEMS[i].bits == 0 && total / ELEMS[i].bits <= TINE_MAX_LANES)
                other[n++] = i;
        }
        if (n && below(g, 3) == 0) {
            int i = other[below(g, n)];
            a = gen(g, ty(ELEMS[i].kind, ELEMS[i].bits, t.lanes * t.bits / ELEMS[i].bits), d);
            return OK(tine_bitcast(ctx, t, a));
        }
        tine_kind_t ks[3] = {TINE_UINT, TINE_INT, TINE_FLOAT};
        tine_kind_t k = ks[below(g, t.bits >= 32 ? 3 : 2)];
        a = gen(g, ty(k, t.bits, t.lanes), d);
        return OK(tine_reinterpret(ctx, t, a));
    }
    case P_BROADCAST:
        a = gen(g, lanes_of(t, 1), d); /* its leaves are scalars */
        return OK(tine_broadcast(ctx, a, t.lanes));
    case P_RAMP:
        a = gen(g, lanes_of(t, 1), d);
        b = gen(g, lanes_of(t, 1), d);
        return OK(tine_ramp(ctx, a, b, t.lanes));
    case P_LOAD:
        a = gen(g, ty(TINE_INT, 32, t.lanes), d);
        return OK(tine_load(ctx, BUFFERS[below(g, 3)], lanes_of(t, 1), a));
    case P_CONCAT: {
        int n = 2 + below(g, t.lanes < 4 ? t.lanes - 1 : 3);
        gen_parts(g, t, n, false, d, v);
        return OK(tine_concat(ctx, n, v));
    }
    case P_INTERLEAVE: {
        int n = t.lanes % 2 == 0 && (t.lanes % 3 != 0 || below(g, 2)) ? (t.lanes % 4 == 0 && below(g, 2) ? 4 : 2) : 3;
        gen_parts(g, t, n, true, d, v);
        return OK(tine_interleave(ctx, n, v));
    }
    case P_SLICE: {
        int count = t.lanes, stride = 1 + below(g, 3), begin = below(g, 4);
        int need = begin + stride * (count - 1) + 1 + below(g, 3);
        if (need > TINE_MAX_LANES) {
            stride = 1;
            begin = below(g, TINE_MAX_LANES - count + 1);
            need = TINE_MAX_LANES;
        }
        a = gen(g, lanes_of(t, need), d);
        return OK(tine_slice(ctx, a, begin, stride, count));
    }
    case P_DEINTERLEAVE: {
        int n = 2 + below(g, 3);
        while (n * t.lanes > TINE_MAX_LANES) n--;
        int k = below(g, n);
        a = gen(g, lanes_of(t, t.lanes * n), d);
        return OK(tine_deinterleave(ctx, a, n, k));
    }
    case P_REDUCE: {
        int n = 2 + below(g, 3);
        while (n * t.lanes > TINE_MAX_LANES) n--;
        a = gen(g, lanes_of(t, t.lanes * n), d);
        return OK(tine_vector_reduce_add(ctx, a, t.lanes));
    }
    case P_FPIR: return gen_fpir(g, t, d);
    case P_INSN: {
        int codes[64], lanes[TINE_INSN_MAX_OPS];
        int n = insns_for(ctx, t, codes);
        if (!n) return gen_leaf(g, t);
        const tine_insn *in = tine_insn_info(ctx, (uint32_t)codes[below(g, n)], NULL);
        tine_insn_operand_lanes(in, t.lanes, lanes);
        for (int j = 0; j < in->nops; j++) v[j] = gen(g, lanes_of(in->optype[j], lanes[j]), d);
        return OK(tine_insn_make(ctx, (uint32_t)(in - tine_isa_get(ctx, "x86")->insn), in->nops, v));
    }
    case P_COUNT: break;
    }
    return NULL;
}

/* ---- coverage: what the generated expressions must have contained --------------------- */

static uint32_t op_seen[TINE_OP_COUNT];
static uint32_t op_elem_seen[TINE_OP_COUNT][NELEMS]; /* by result element type */

static int elem_index(tine_type_t t) {
    for (int i = 0; i < NELEMS; i++)
        if (ELEMS[i].kind == t.kind && ELEMS[i].bits == t.bits) return i;
    return -1;
}

static void count_ops(tine_ctx_t *ctx, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        op_seen[order[i]->op]++;
        int k = elem_index(order[i]->type);
        if (k >= 0) op_elem_seen[order[i]->op][k]++;
    }
    free(order);
}

/* Printed forms the syntax has, each of which the round trip must have gone through.
 * A `word` feature must not continue a name before it ("x(" is not the end of "max(")
 * nor, if it ends in a letter or digit, after it ("true" is not "true_bool"). */
static const struct {
    const char *text, *what;
    bool word;
} FEATURES[] = {
    {"_u8x", "a u8 variable with explicit lanes", false},
    {"_i64x", "an i64 variable with explicit lanes", false},
    {"_f32x", "an f32 variable with explicit lanes", false},
    {"_boolx", "a bool variable with explicit lanes", false},
    {"x1(", "a scalar constant or broadcast operand at a vector position", true},
    {"x(", "a broadcast to the position's lanes", true},
    {"u8[", "a per-lane u8 constant", true},
    {"i64[", "a per-lane i64 constant", true},
    {"f32[", "a per-lane f32 constant", true},
    {"f64[", "a per-lane f64 constant", true},
    {"bool[", "a per-lane bool constant", true},
    {"-0.0", "negative zero", true},
    {"-inf", "minus infinity", true},
    {"nan", "a NaN", true},
    {"-nan", "a NaN with the sign bit set", true},
    {"e+", "a float in exponent form", false},
    {"e-", "a small float in exponent form", false},
    {"true", "a true constant", true},
    {"false", "a false constant", true},
    {"18446744073709551615", "u64.max", true},
    {"-9223372036854775808", "i64.min", true},
    {"-128", "i8.min", true},
    {"saturating_cast<u64>", "saturating_cast to u64", true},
    {"reinterpret<f64>", "reinterpret to f64", true},
    {"x8>(", "a reinterpret to 8 lanes of other bits (its type with lanes)", false},
    {"x1>(", "a reinterpret to one lane of other bits (u64x1)", false},
    {"$t_", "a variable named with '$'", true},
    {"a_u8_", "a variable whose name has a type suffix", true},
    {"in_", "a load", true},
    {" % ", "the % operator", false},
    {"~", "the ~ operator", false},
    {"(u8(", "a typed constant as a cast operand", false},
};
enum { NFEATURES = sizeof FEATURES / sizeof FEATURES[0] };
static int feature_seen[NFEATURES];

static bool name_char(char c) {
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static void note_features(const char *s) {
    for (int i = 0; i < NFEATURES; i++) {
        const char *f = FEATURES[i].text;
        size_t n = strlen(f);
        bool alnum_end = name_char(f[n - 1]) && f[n - 1] != '_';
        for (const char *h = strstr(s, f); h; h = strstr(h + 1, f)) {
            if (FEATURES[i].word && ((h > s && name_char(h[-1])) || (alnum_end && name_char(h[n])))) continue;
            feature_seen[i]++;
            break;
        }
    }
}

static void test_round_trip(int n) {
    const uint64_t SEED = 0x7e57ull << 32;
    tine_ctx_t *ctx = NULL;
    int ok = 0;
    for (int i = 0; i < n; i++) {
        if (i % 250 == 0) { /* fresh contexts now and then: interning starts from empty */
            tine_ctx_free(ctx);
            ctx = tine_ctx_new();
        }
        gen_t g0 = {.ctx = ctx, .rng = SEED + (uint64_t)i}, *g = &g0;
        tine_type_t t = random_elem(g, LANE_CHOICES[below(g, 5)]);
        int depth = 1 + below(g, 6);
        tine_expr_t *e = gen(g, t, depth);
        if (!e) {
            char b[32];
            fail("round trip #%d: generating a %s of depth %d: the constructor at test_syntax.c:%d returned NULL: %s", i,
                 tine_type_str(t, b, sizeof b), depth, g->fail_line, g->fail_msg ? g->fail_msg : "?");
            free(g->fail_msg);
            continue;
        }
        /* print at lanes unrelated to the ones it was built at */
        tine_set_lanes(ctx, LANE_CHOICES[below(g, 5)]);
        char what[48];
        snprintf(what, sizeof what, "round trip #%d", i);
        if (check_round_trip(ctx, e, what)) ok++;
        char *s = tine_print(ctx, e);
        note_features(s);
        free(s);
        count_ops(ctx, e);
    }
    tine_ctx_free(ctx);
    int rarest = 0;
    uint64_t nodes = 0;
    for (int op = 0; op < TINE_OP_COUNT; op++) {
        nodes += op_seen[op];
        if (op_seen[op] < op_seen[rarest]) rarest = op;
    }
    printf("round trip: %d of %d random expressions (%llu nodes; rarest op %s, %u times)\n", ok, n,
           (unsigned long long)nodes, tine_op_name((tine_op_t)rarest), op_seen[rarest]);

    for (int op = 0; op < TINE_OP_COUNT; op++) {
        if (op_seen[op]) pass();
        else fail("round trip: the generator never produced op '%s'", tine_op_name((tine_op_t)op));
    }
    /* leaves of every element type, and every FPIR op at every result type it allows */
    for (int k = 0; k < NELEMS; k++) {
        tine_type_t t = ty(ELEMS[k].kind, ELEMS[k].bits, 1);
        char b[32];
        if (op_elem_seen[TINE_OP_VAR][k] && op_elem_seen[TINE_OP_CONST][k]) pass();
        else fail("round trip: no variable or no constant of type %s", tine_type_str(t, b, sizeof b));
        for (int op = TINE_FPIR_FIRST; op < TINE_OP_COUNT && is_int(t); op++) {
            if (!fpir_applicable((tine_op_t)op, t)) continue;
            if (op_elem_seen[op][k]) pass();
            else fail("round trip: the generator never produced %s with result %s", tine_op_name((tine_op_t)op),
                      tine_type_str(t, b, sizeof b));
        }
    }
    for (int i = 0; i < NFEATURES; i++) {
        if (feature_seen[i]) pass();
        else fail("round trip: no printed expression contained %s (\"%s\")", FEATURES[i].what, FEATURES[i].text);
    }
}

/* ==== 2. golden prints ================================================================== */

static const struct {
    const char *input;
    int lanes;
    const char *expected;
} GOLDEN[] = {
    /* casts and sugar */
    {"u16(a_u8) * 2", 8, "u16(a_u8) * 2"},
    {"clamp(x_i16, 0, 255)", 8, "min(max(x_i16, 0), 255)"},
    /* let binds a value (shared, not recomputed); reductions with constant bounds unroll */
    {"let t = u16(a_u8) + 1 in t * t", 8, "(u16(a_u8) + 1) * (u16(a_u8) + 1)"},
    {"let k = 3 in a_u8 << k", 8, "a_u8 << 3"},
    /* a reduction's variable is an i32 (as in a kernel's loop reductions): cast it */
    {"sum(r in 0..3) (u16(a_u8) << u16(r))", 8,
     "(u16(a_u8) << u16(i32(0))) + (u16(a_u8) << u16(i32(1))) + (u16(a_u8) << u16(i32(2)))"},
    {"sum(r in 2..4) u8((r * 1073741824) / 1073741824)", 8,
     "u8(i32(2) * 1073741824 / 1073741824) + u8(i32(3) * 1073741824 / 1073741824)"},
    {"sum(r in -1..0) u16(r)", 8, "u16(i32(-1))"},
    {"max(r in -1..2) in_u8[ramp(x_i32 + r, 1, 8)]", 8,
     "max(max(in_u8[ramp(x_i32 + -1, 1, 8)], in_u8[ramp(x_i32 + 0, 1, 8)]), in_u8[ramp(x_i32 + 1, 1, 8)])"},
    /* an empty range gives the identity of the body's type */
    {"sum(r in 0..0) (u16(a_u8) << u16(r))", 8, "u16(0)"},
    {"min(r in 5..2) (a_i8 + i8(r))", 8, "i8(127)"},
    {"max(r in 0..0) a_i64", 8, "i64(-9223372036854775808)"},
    {"min(r in 1..1) b_f32", 8, "f32(inf)"},
    {"max(r in 1..1) b_f64", 8, "f64(-inf)"},
    {"sum(r in 0..0) b_f32 + a_f32", 8, "0.0 + a_f32"},
    {"min(a_u8, b_u8)", 8, "min(a_u8, b_u8)"},
    {"widen(a_u8)", 8, "u16(a_u8)"},
    {"narrow(a_i32)", 8, "i16(a_i32)"},
    {"cast<u8>(a_u16)", 8, "u8(a_u16)"},
    {"cast<widen(u16)>(a_u16)", 8, "u32(a_u16)"},
    {"reinterpret<signed(u8)>(a_u8)", 8, "reinterpret<i8>(a_u8)"},
    {"saturating_cast<join(u8, i8)>(a_i32)", 8, "saturating_cast<i16>(a_i32)"},
    /* a reinterpret to lanes of other bits: its type has lanes; its operand is read at the
       position's lanes, as a cast's; chains are one reinterpret; back is the operand */
    {"reinterpret<u16x8>(a_u8x16)", 16, "reinterpret<u16x8>(a_u8)"},
    {"reinterpret<u16x8>(a_u8x16)", 8, "reinterpret<u16x8>(a_u8x16)"},
    {"reinterpret<u8x16>(a_u16x8)", 16, "reinterpret<u8x16>(a_u16x8)"},
    {"reinterpret<u64x1>(a_u8)", 8, "reinterpret<u64x1>(a_u8)"},
    {"reinterpret<u8x8>(x_u64x1)", 8, "reinterpret<u8x8>(x_u64x1)"},
    {"reinterpret<i8x16>(a_u8)", 16, "reinterpret<i8>(a_u8)"},
    {"reinterpret<u8x16>(reinterpret<u16x8>(a_u8))", 16, "a_u8"},
    {"reinterpret<u32x4>(reinterpret<i16x8>(a_u8))", 16, "reinterpret<u32x4>(a_u8)"},
    {"reinterpret<i16>(reinterpret<u16x8>(a_u8))", 16, "reinterpret<i16x8>(a_u8)"},
    {"reinterpret<f32x4>(a_u8)", 16, "reinterpret<f32x4>(a_u8)"},
    {"(reinterpret<u16x8>(a_u8) >> 3) + b_u16x8", 16, "(reinterpret<u16x8>(a_u8) >> 3) + b_u16x8"},
    {"reinterpret<u16x8>(a_u8 + 1) * 2", 16, "reinterpret<u16x8>(a_u8 + 1) * 2"},
    {"u8(a_u8)", 8, "a_u8"},
    {"u16(u8(3))", 8, "u16(u8(3))"},
    {"u16(3)", 8, "u16(3)"},
    {"bool(1)", 8, "true"},
    {"bool(a_u8)", 8, "bool(a_u8)"},
    {"!a_bool", 8, "~a_bool"},
    /* precedence and associativity (C's) */
    {"a_u8 + b_u8 * c_u8", 8, "a_u8 + b_u8 * c_u8"},
    {"(a_u8 + b_u8) * c_u8", 8, "(a_u8 + b_u8) * c_u8"},
    {"a_u8 - (b_u8 - c_u8)", 8, "a_u8 - (b_u8 - c_u8)"},
    {"(a_u8 - b_u8) - c_u8", 8, "a_u8 - b_u8 - c_u8"},
    {"a_u8 / b_u8 / c_u8", 8, "a_u8 / b_u8 / c_u8"},
    {"a_u8 % (b_u8 * c_u8)", 8, "a_u8 % (b_u8 * c_u8)"},
    {"(a_u8 << 1) < b_u8", 8, "a_u8 << 1 < b_u8"},
    {"a_u8 + b_u8 << c_u8", 8, "a_u8 + b_u8 << c_u8"},
    {"a_u8 + (b_u8 << c_u8)", 8, "a_u8 + (b_u8 << c_u8)"},
    {"a_u8 < b_u8 == c_u8 < d_u8", 8, "a_u8 < b_u8 == c_u8 < d_u8"},
    {"a_u8 == b_u8 & c_bool", 8, "a_u8 == b_u8 & c_bool"},
    {"a_u8 & b_u8 | c_u8 ^ d_u8", 8, "a_u8 & b_u8 | c_u8 ^ d_u8"},
    {"(a_u8 | b_u8) & c_u8", 8, "(a_u8 | b_u8) & c_u8"},
    {"-a_i8 * b_i8", 8, "-a_i8 * b_i8"},
    {"-(a_i8 * b_i8)", 8, "-(a_i8 * b_i8)"},
    {"~~a_u8", 8, "~~a_u8"},
    {"a_i8 - -b_i8", 8, "a_i8 - -b_i8"},
    /* literals: typed by their position, folded exactly */
    {"a_u8 + (1 + 2)", 8, "a_u8 + 3"},
    {"a_u8 + 2 * 3 - 1", 8, "a_u8 + 6 - 1"},
    {"a_i8 + (1 - 2)", 8, "a_i8 + -1"},
    {"a_u32 & (1 << 31) - 1", 8, "a_u32 & 2147483647"},
    {"a_u8 + bits(u16)", 8, "a_u8 + 16"},
    {"a_u8 + u8.max", 8, "a_u8 + 255"},
    {"a_i64 + i64.min", 8, "a_i64 + -9223372036854775808"},
    {"a_i8 + (-128)", 8, "a_i8 + -128"},
    {"a_u8 + 0xff", 8, "a_u8 + 255"},
    {"a_u64 & 0xFFFFFFFFFFFFFFFF", 8, "a_u64 & 18446744073709551615"},
    {"a_u8 + u8(1)", 8, "a_u8 + 1"},
    {"u8(1) + u8(2)", 8, "u8(1) + 2"},
    {"min(3, a_u8)", 8, "min(3, a_u8)"},
    {"select(a_u8 < b_u8, a_u8, 0)", 8, "select(a_u8 < b_u8, a_u8, 0)"},
    {"select(c_bool, 1, a_u8)", 8, "select(c_bool, 1, a_u8)"},
    /* floats */
    {"a_f32 + 1", 8, "a_f32 + 1.0"},
    {"a_f32 * 0.1", 8, "a_f32 * 0.100000001"},
    {"a_f64 * 0.1", 8, "a_f64 * 0.10000000000000001"},
    {"a_f32 + 2.5e-3", 8, "a_f32 + 0.00249999994"},
    {"a_f32 + 3.4028234e38", 8, "a_f32 + 3.40282347e+38"},
    {"a_f64 + 5e-324", 8, "a_f64 + 4.9406564584124654e-324"},
    /* below the smallest denormal: the nearest double, 0 (past the largest: parse_errors.txt) */
    {"a_f64 + 1e-400", 8, "a_f64 + 0.0"},
    {"a_f64 - 1.7976931348623157e308", 8, "a_f64 - 1.7976931348623157e+308"},
    {"a_f32 + -0.0", 8, "a_f32 + -0.0"},
    {"-inf + a_f32", 8, "-inf + a_f32"},
    {"a_f64 / nan", 8, "a_f64 / nan"},
    {"a_f64 + -nan", 8, "a_f64 + -nan"},
    {"f32(1)", 8, "f32(1.0)"},
    {"sqrt(a_f64) + .5", 8, "sqrt(a_f64) + 0.5"},
    {"f64[1, -0.0, inf, nan]", 8, "f64[1.0, -0.0, inf, nan]"},
    /* bools */
    {"true", 8, "true"},
    {"x4(false)", 8, "x4(false)"},
    {"bool[1, 0, 0, 1]", 8, "bool[1, 0, 0, 1]"},
    {"a_bool ^ true", 8, "a_bool ^ true"},
    /* lanes: leaves carry an explicit count only where it differs from their position */
    {"a_u8x32 + b_u8x32", 8, "a_u8x32 + b_u8x32"},
    {"a_u8x8 + b_u8", 8, "a_u8 + b_u8"},
    {"a_u8x4 * 3", 16, "a_u8x4 * 3"},
    {"a_u8 + 1", 1, "a_u8 + 1"},
    {"x1(a_u8)", 8, "a_u8x1"},
    {"x(c_u8)", 8, "x(c_u8)"},
    {"x(c_u8 + 1)", 8, "x(c_u8 + 1)"},
    {"x4(c_u8) + a_u8x4", 8, "x4(c_u8) + a_u8x4"},
    {"x(x(a_u8))", 8, "x(a_u8)"},
    {"x(u8(1))", 8, "u8(1)"},
    {"u8[1, 2, 3, 4]", 8, "u8[1, 2, 3, 4]"},
    {"i8[-128, 127]", 8, "i8[-128, 127]"},
    {"u8[7, 7, 7, 7]", 4, "u8(7)"},
    {"u8[7, 7, 7, 7]", 8, "x4(u8(7))"},
    /* vector ops */
    {"ramp(0, 1, 8)", 8, "ramp(0, 1, 8)"},
    {"ramp(x_i32, 2, 4)", 8, "ramp(x_i32, 2, 4)"},
    {"ramp(u8(1), 2, 4)", 8, "ramp(u8(1), 2, 4)"},
    {"in_u8[ramp(x_i32, 1, 16)]", 8, "in_u8[ramp(x_i32, 1, 16)]"},
    {"in_u8[3]", 8, "in_u8[3]"},
    {"in_f32[x_i32x4]", 8, "in_f32[x_i32x4]"},
    {"concat(a_u8x4, b_u8x4)", 8, "concat(a_u8x4, b_u8x4)"},
    {"concat(a_u8)", 8, "a_u8"},
    {"interleave(a_i8x4, b_i8x4)", 8, "interleave(a_i8x4, b_i8x4)"},
    {"slice(a_u8x16, 1, 2, 4)", 8, "slice(a_u8x16, 1, 2, 4)"},
    {"slice(a_u8, 0, 1, 8)", 8, "a_u8"},
    {"deinterleave(a_u8, 2, 1)", 8, "deinterleave(a_u8, 2, 1)"},
    {"vector_reduce_add(a_u16x32, 8)", 8, "vector_reduce_add(a_u16x32, 8)"},
    /* FPIR ops: a bare literal takes the type of its operand position */
    {"saturating_cast<u8>(a_i16)", 8, "saturating_cast<u8>(a_i16)"},
    {"widening_shl(b_u8, 1)", 8, "widening_shl(b_u8, 1)"},
    {"extending_add(a_u16, 3)", 8, "extending_add(a_u16, 3)"},
    {"mul_shr(a_i16, b_i16, 15)", 8, "mul_shr(a_i16, b_i16, 15)"},
    {"widening_mul(a_u8, i8(-1))", 8, "widening_mul(a_u8, i8(-1))"},
    {"rounding_shr(a_i32, u32(2))", 8, "rounding_shr(a_i32, u32(2))"},
    /* layout: comments, newlines, tabs, CRs */
    {"a_u8 # a comment\n + b_u8 # another", 8, "a_u8 + b_u8"},
    {"a_u8\n  *\n  b_u8", 8, "a_u8 * b_u8"},
    {"\ta_u8\t+\tb_u8", 8, "a_u8 + b_u8"},
    {"a_u8 +\r\n b_u8\r\n", 8, "a_u8 + b_u8"},
    /* FPIR.md's worked example, variables typed by suffix */
    {"u8(min(absd(u16(a_u8) + u16(b_u8)*2 + u16(c_u8), u16(d_u8) + u16(e_u8)*2 + u16(f_u8))\n"
     "     + absd(u16(g_u8) + u16(h_u8)*2 + u16(i_u8), u16(j_u8) + u16(k_u8)*2 + u16(l_u8)), 255))",
     16,
     "u8(min(absd(u16(a_u8) + u16(b_u8) * 2 + u16(c_u8), u16(d_u8) + u16(e_u8) * 2 + u16(f_u8)) + "
     "absd(u16(g_u8) + u16(h_u8) * 2 + u16(i_u8), u16(j_u8) + u16(k_u8) * 2 + u16(l_u8)), 255))"},
    {"saturating_cast<u8>(\n"
     "  absd(widening_add(a_u8, c_u8) + widening_shl(b_u8, 1), widening_add(d_u8, f_u8) + widening_shl(e_u8, 1)) +\n"
     "  absd(widening_add(g_u8, i_u8) + widening_shl(h_u8, 1), widening_add(j_u8, l_u8) + widening_shl(k_u8, 1)))",
     16,
     "saturating_cast<u8>(absd(widening_add(a_u8, c_u8) + widening_shl(b_u8, 1), widening_add(d_u8, f_u8) + "
     "widening_shl(e_u8, 1)) + absd(widening_add(g_u8, i_u8) + widening_shl(h_u8, 1), widening_add(j_u8, l_u8) + "
     "widening_shl(k_u8, 1)))"},
};
enum { NGOLDEN = sizeof GOLDEN / sizeof GOLDEN[0] };

static void test_golden(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    int ok = 0;
    for (int i = 0; i < NGOLDEN; i++) {
        tine_set_lanes(ctx, GOLDEN[i].lanes);
        tine_expr_t *e = tine_parse(ctx, GOLDEN[i].input, NULL);
        if (!e) {
            fail("golden #%d: \"%s\" (lanes %d) does not parse:\n%s", i, GOLDEN[i].input, GOLDEN[i].lanes,
                 tine_error(ctx));
            continue;
        }
        char *s = tine_print(ctx, e);
        if (strcmp(s, GOLDEN[i].expected) != 0)
            fail("golden #%d: \"%s\" (lanes %d)\n  expected: %s\n  printed:  %s", i, GOLDEN[i].input, GOLDEN[i].lanes,
                 GOLDEN[i].expected, s);
        else {
            pass();
            ok++;
        }
        free(s);
        char what[32];
        snprintf(what, sizeof what, "golden #%d", i);
        check_round_trip(ctx, e, what);
    }
    tine_ctx_free(ctx);
    printf("golden: %d of %d prints as expected\n", ok, NGOLDEN);
}

/* ==== 3. the error corpus ================================================================ */

/* The input line of a corpus case: "\n", "\t", "\r" and "\\" are escapes. */
static char *unescape(const char *s) {
    char *out = malloc(strlen(s) + 1), *o = out;
    TINE_ASSERT(out != NULL);
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return out;
}

/* Checks that text fails to parse with exactly `expected`; returns the message (malloc'd). */
static char *check_error(tine_ctx_t *ctx, const char *what, const char *text, const char *expected) {
    tine_clear_error(ctx);
    tine_expr_t *e = tine_parse(ctx, text, "<input>");
    if (e) {
        char *s = tine_print(ctx, e);
        fail("%s: parses, but should not: %s\n  printed: %s", what, text, s);
        free(s);
        return tine_strdup("(it parsed)");
    }
    const char *msg = tine_error(ctx) ? tine_error(ctx) : "(no message)";
    if (expected && strcmp(msg, expected) != 0)
        fail("%s: wrong message for: %s\n--- expected\n%s\n--- got\n%s\n---", what, text, expected, msg);
    else if (expected) pass();
    return tine_strdup(msg);
}

static void test_corpus(const char *path, bool bless) {
    char *text = read_file(path);
    if (!text) {
        fail("cannot read %s (the test runs in tests/)", path);
        return;
    }
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, 8);
    tine_buf out = {0}; /* the blessed file */
    int cases = 0, lineno = 0, input_line = 0;
    char *input = NULL; /* the open case's input line, escapes and all */
    tine_buf expected = {0};
    bool have_expected = false;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        char *next_line = nl ? nl + 1 : p + strlen(p);
        if (nl) *nl = 0;
        lineno++;
        if (!strncmp(p, "input:", 6) || p[0] != '|') {
            if (input) { /* the open case ends here */
                char what[64];
                snprintf(what, sizeof what, "%s:%d", path, input_line);
                char *src = unescape(input);
                if (!have_expected && !bless) fail("%s: the case has no expected message", what);
                char *got = check_error(ctx, what, src, bless ? NULL : have_expected ? expected.p : "");
                if (bless) {
                    tine_buf_printf(&out, "input: %s\n", input);
                    for (char *l = got;;) {
                        char *e = strchr(l, '\n');
                        int len = e ? (int)(e - l) : (int)strlen(l);
                        tine_buf_printf(&out, len ? "| %.*s\n" : "|\n", len, l);
                        if (!e) break;
                        l = e + 1;
                    }
                }
                free(got);
                free(src);
                free(input);
                input = NULL;
                cases++;
            }
        }
        if (!strncmp(p, "input:", 6)) {
            input = tine_strdup(p[6] == ' ' ? p + 7 : p + 6);
            input_line = lineno;
            expected.n = 0;
            if (expected.p) expected.p[0] = 0;
            have_expected = false;
        } else if (p[0] == '|') {
            if (!input) fail("%s:%d: an expected line outside a case", path, lineno);
            if (have_expected) tine_buf_putc(&expected, '\n');
            tine_buf_puts(&expected, p[1] == ' ' ? p + 2 : p + 1);
            have_expected = true;
        } else {
            if (p[strspn(p, " \t\r")] != 0 && p[0] != '#')
                fail("%s:%d: not a comment, a blank line, 'input:' or '|': %s", path, lineno, p);
            if (bless) tine_buf_printf(&out, "%s\n", p); /* comments and blank lines are kept */
        }
        p = next_line;
    }
    if (input) { /* the last case, with no blank line after it */
        fail("%s:%d: end the last case with a blank line", path, input_line);
        free(input);
    }
    if (bless) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out.p, 1, out.n, f) != out.n) fail("cannot write %s", path);
        if (f) fclose(f);
        printf("blessed %s: %d cases\n", path, cases);
    }
    free(out.p);
    free(expected.p);
    free(text);
    if (cases < 30) fail("%s: only %d cases; the corpus should have at least 30", path, cases);
    printf("error corpus: %d cases\n", cases);

    /* Inputs too deep for a file: built here, with their messages. */
    const int D = TINE_MAX_DEPTH;
    char msg[1024], *src;
    tine_buf b = {0};
    /* 300 nested parentheses: the 257th '(' is one level too deep */
    for (int i = 0; i < 300; i++) tine_buf_putc(&b, '(');
    tine_buf_puts(&b, "a_u8");
    for (int i = 0; i < 300; i++) tine_buf_putc(&b, ')');
    src = b.p;
    tine_buf m = {0};
    tine_buf_printf(&m, "<input>:1:%d: expression is nested more than %d deep\n%s\n", D + 1, D, src);
    for (int i = 0; i < D; i++) tine_buf_putc(&m, ' ');
    tine_buf_putc(&m, '^');
    free(check_error(ctx, "300 nested parentheses", src, m.p));
    /* the boundary: D - 1 parentheses parse (the expression itself is one level), D do not */
    for (int k = D - 1; k <= D; k++) {
        b.n = 0;
        for (int i = 0; i < k; i++) tine_buf_putc(&b, '(');
        tine_buf_puts(&b, "a_u8");
        for (int i = 0; i < k; i++) tine_buf_putc(&b, ')');
        tine_expr_t *e = tine_parse(ctx, b.p, NULL);
        if (k < D && e == tine_var(ctx, "a", tine_type(TINE_UINT, 8, 8))) pass();
        else if (k == D && !e) pass();
        else fail("%d nested parentheses: expected %s, got: %s", k, k < D ? "a_u8" : "the nesting error",
                  e ? "a_u8" : tine_error(ctx));
    }
    /* 300 prefix minus signs */
    b.n = 0;
    for (int i = 0; i < 300; i++) tine_buf_putc(&b, '-');
    tine_buf_puts(&b, "a_i8");
    m.n = 0;
    tine_buf_printf(&m, "<input>:1:%d: expression is nested more than %d deep\n%s\n", D + 1, D, b.p);
    for (int i = 0; i < D; i++) tine_buf_putc(&m, ' ');
    tine_buf_putc(&m, '^');
    free(check_error(ctx, "300 prefix minus signs", b.p, m.p));
    /* a right-deep chain written out: a_u8 - (a_u8 - (...)) */
    b.n = 0;
    for (int i = 0; i < 300; i++) tine_buf_puts(&b, "a_u8 - (");
    tine_buf_puts(&b, "a_u8");
    for (int i = 0; i < 300; i++) tine_buf_putc(&b, ')');
    tine_clear_error(ctx);
    if (!tine_parse(ctx, b.p, NULL) && tine_error(ctx) && strstr(tine_error(ctx), "nested more than")) pass();
    else fail("a 300-deep right-nested chain: expected the nesting error, got: %s", tine_error(ctx));
    /* 300 nested calls */
    b.n = 0;
    for (int i = 0; i < 300; i++) tine_buf_puts(&b, "abs(");
    tine_buf_puts(&b, "a_u8");
    for (int i = 0; i < 300; i++) tine_buf_putc(&b, ')');
    snprintf(msg, sizeof msg, "nested more than %d deep", D);
    tine_clear_error(ctx);
    if (!tine_parse(ctx, b.p, NULL) && tine_error(ctx) && strstr(tine_error(ctx), msg)) pass();
    else fail("300 nested calls: expected the nesting error, got: %s", tine_error(ctx));
    free(b.p);
    free(m.p);
    tine_ctx_free(ctx);
}

/* ==== 4. stress ============================================================================ */

static void test_stress(int terms) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, 8);
    tine_buf b = {0};
    for (int i = 0; i < terms; i++) tine_buf_puts(&b, i ? " + a_u8" : "a_u8");
    double t0 = now();
    tine_expr_t *e = tine_parse(ctx, b.p, NULL);
    double t1 = now();
    if (!e) {
        fail("stress: a %d-term sum does not parse: %.300s", terms, tine_error(ctx));
    } else {
        char *s = tine_print(ctx, e);
        double t2 = now();
        if (strcmp(s, b.p) == 0) pass();
        else fail("stress: a %d-term sum prints back differently (first 200 characters: %.200s)", terms, s);
        free(s);
        /* the same node as the C API's left-deep chain */
        tine_expr_t *a = tine_var(ctx, "a", tine_type(TINE_UINT, 8, 8)), *sum = a;
        for (int i = 1; i < terms; i++) sum = tine_binary(ctx, TINE_OP_ADD, sum, a);
        if (sum == e) pass();
        else fail("stress: the parsed %d-term sum is not the node the C API builds", terms);
        printf("stress: %d-term sum parsed in %.1f ms, printed in %.1f ms\n", terms, 1e3 * (t1 - t0), 1e3 * (t2 - t1));
    }
    /* the same length with every binary operator mixed in, no parentheses: precedence
     * climbing nests it, and the printer must need no parentheses to write it back */
    static const char *const ops[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"};
    static const char *const vars[] = {"a_u8", "b_u8", "c_u8", "d_u8"};
    uint64_t rng = 0x5eed;
    b.n = 0;
    for (int i = 0; i < terms; i++) {
        if (i) tine_buf_printf(&b, " %s ", ops[tine_rand64(&rng) % 10]);
        tine_buf_puts(&b, vars[tine_rand64(&rng) % 4]);
    }
    e = tine_parse(ctx, b.p, NULL);
    if (!e) {
        fail("stress: a %d-term mixed chain does not parse: %.300s", terms, tine_error(ctx));
    } else {
        char *s = tine_print(ctx, e);
        if (strcmp(s, b.p) == 0) pass();
        else fail("stress: a %d-term mixed chain prints back differently (first 200 characters: %.200s)", terms, s);
        free(s);
        check_round_trip(ctx, e, "stress: the mixed chain");
    }
    free(b.p);
    tine_ctx_free(ctx);
}

int main(int argc, char **argv) {
    bool bless = argc > 1 && !strcmp(argv[1], "--bless");
    double t0 = now();
    test_round_trip(2000);
    double t1 = now();
    test_golden();
    test_corpus("data/parse_errors.txt", bless);
    double t2 = now();
    test_stress(10000);
    double t3 = now();
    printf("times: round trip %.2f s, golden + corpus %.2f s, stress %.2f s\n", t1 - t0, t2 - t1, t3 - t2);
    printf("test_syntax: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
