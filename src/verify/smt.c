/* smt.c — tine expressions as Z3 bit-vector terms.
 *
 * The walk mirrors the interpreter (src/ir/interp.c) case by case: a DAG is encoded
 * children first, each node once, and an FPIR node or an instruction is encoded by
 * encoding its template with the placeholders bound to the operands' terms. What the
 * interpreter computes on 128-bit words is computed here on terms of the element's own
 * width, which is the same thing: every value is canonical (wrapped to its type).
 *
 * The conventions, as interp.c states them: x / 0 = 0 and x % 0 = 0, floor division and
 * modulo (the remainder takes the divisor's sign); a negative signed shift count shifts
 * the other way; counts of the width or more give 0 (or the sign, shifting a signed value
 * right); casts truncate or extend by the source's signedness.
 *
 * Floats (docs/SEMANTICS.md), two ways:
 *   bit-exact (the default): a float lane is its IEEE bits, a bit-vector like any lane, so
 *     lane moves, selects and reinterprets need nothing new; the ops that compute on floats
 *     read their operands into Z3's floating-point theory (fp from the bits), compute with
 *     round-to-nearest-even and give back bits. Z3 leaves the bits of a NaN open
 *     (fp.to_ieee_bv), and tine does not pin which NaN an arithmetic op returns, so every
 *     arithmetic NaN is written as one canonical quiet NaN (0x7fc00000, 0x7ff8...), and two
 *     float results are equal when their bits are, or both are NaNs (tine_smt_equal): the
 *     proofs treat all NaNs as one. The bit ops (neg, abs, min, max, select) keep their
 *     operands' bits exactly, as the interpreter does.
 *   over the reals (tine_smt_floats_as_reals): a float lane is a real; + - * / and neg are
 *     exact, sqrt an uninterpreted function, fma a * b + c; what has no real meaning
 *     (a float's bits, float -> integer casts) is an uninterpreted function, so a proof
 *     still holds for any meaning they could have. Reassociated sums are equal here
 *     (Diospyros's guarantee), never in the default mode.
 */
#define _POSIX_C_SOURCE 200809L
#include "smt.h"

#include <math.h>
#include <time.h>

typedef struct {
    const tine_expr_t *var;
    Z3_ast *lanes;
} bound_var;

struct product {
    Z3_ast x, y, p;
    bool sx, sy; /* extended by sign */
};

typedef struct {
    const char *name; /* interned */
    tine_type_t elem, index;
    Z3_func_decl f;
} load_fn;

struct tine_smt {
    tine_ctx_t *ctx;
    Z3_context z;
    unsigned timeout_ms;
    bound_var *vars;
    int nvars, capvars;
    load_fn loads[32];
    int nloads;
    Z3_ast *facts;
    int nfacts, capfacts;
    Z3_model model; /* of the last satisfiable query */
    long cross;
    bool abstract;    /* products of extensions as range-bounded variables */
    bool reals;       /* float lanes as reals (tine_smt_floats_as_reals) */
    bool floats;      /* a float was encoded: the solver is Z3's general one, not qfbv */
    struct product *products; /* abstracted products */
    int nproducts, capproducts;
    char z3_error[256];
    tine_arena arena; /* lane arrays */
    /* the numerals made lately, by a hash of their value (Z3 makes each slowly, with
       big-number arithmetic, and a long condition repeats a few) */
    struct numeral {
        tine_u128 v;
        int bits; /* 0: an empty slot */
        Z3_ast a;
    } nums[1024];
};

static void on_z3_error(Z3_context z, Z3_error_code code) {
    (void)z;
    (void)code; /* recorded by the caller through Z3_get_error_code */
}

tine_smt *tine_smt_new(tine_ctx_t *ctx, unsigned timeout_ms) {
    tine_smt *s = tine_xcalloc(1, sizeof *s);
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "model", "true");
    s->z = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    Z3_set_error_handler(s->z, on_z3_error);
    s->ctx = ctx;
    s->timeout_ms = timeout_ms;
    return s;
}

void tine_smt_free(tine_smt *s) {
    if (!s) return;
    if (s->model) Z3_model_dec_ref(s->z, s->model);
    Z3_del_context(s->z);
    free(s->vars);
    free(s->facts);
    free(s->products);
    tine_arena_free(&s->arena);
    free(s);
}

Z3_context tine_smt_z3(tine_smt *s) { return s->z; }
void tine_smt_set_timeout(tine_smt *s, unsigned timeout_ms) { s->timeout_ms = timeout_ms; }
void tine_smt_abstract_products(tine_smt *s, bool on) { s->abstract = on; }
void tine_smt_floats_as_reals(tine_smt *s, bool on) { s->reals = on; }
long tine_smt_cross_lane(const tine_smt *s) { return s->cross; }

Z3_sort tine_smt_sort(tine_smt *s, int bits) { return Z3_mk_bv_sort(s->z, (unsigned)bits); }

static Z3_ast make_num(tine_smt *s, int bits, tine_u128 v) {
    /* a value of 64 bits, or a negative one of 64 bits read at `bits`, without the decimal
       text Z3 would parse (the same numeral: Z3 reduces it modulo 2^bits) */
    if (v <= UINT64_MAX) return Z3_mk_unsigned_int64(s->z, (uint64_t)v, tine_smt_sort(s, bits));
    tine_u128 neg = (bits < 128 ? (tine_u128)1 << bits : 0) - v; /* 2^bits - v */
    if (neg <= (tine_u128)1 << 63) return Z3_mk_int64(s->z, -(int64_t)(neg - 1) - 1, tine_smt_sort(s, bits));
    char buf[48], *p = buf + sizeof buf;
    *--p = 0;
    do {
        *--p = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    return Z3_mk_numeral(s->z, p, tine_smt_sort(s, bits));
}

Z3_ast tine_smt_num(tine_smt *s, int bits, tine_u128 v) {
    if (bits < 128) v &= ((tine_u128)1 << bits) - 1;
    uint64_t h = ((uint64_t)v ^ (uint64_t)(v >> 64) * 0x9e3779b97f4a7c15ull ^ (uint64_t)bits) * 0xff51afd7ed558ccdull;
    struct numeral *n = &s->nums[(h >> 32) % (sizeof s->nums / sizeof s->nums[0])];
    if (n->bits != bits || n->v != v) *n = (struct numeral){v, bits, make_num(s, bits, v)};
    return n->a;
}

/* Extensions are kept as one extension of the narrowest term: the low bits of an extension
 * of x are x's (or x extended less), an extension of an extension is one extension (a
 * sign extension of a zero extension is a zero extension). So a product of values a
 * predicate bounds to bytes is the same byte product term on both sides of a rule (see
 * tine_smt_bind_narrow), not two multipliers the solver must prove equal bit by bit. */
static Z3_ast extension_of(tine_smt *s, Z3_ast v, bool *sign);
static unsigned width(tine_smt *s, Z3_ast v);

Z3_ast tine_smt_resize(tine_smt *s, Z3_ast v, int from_bits, bool from_signed, int to_bits) {
    if (to_bits == from_bits) return v;
    bool inner_sign;
    Z3_ast x = extension_of(s, v, &inner_sign);
    if (x) {
        int m = (int)width(s, x);
        if (to_bits <= m) return to_bits == m ? x : Z3_mk_extract(s->z, (unsigned)to_bits - 1, 0, x);
        if (to_bits < from_bits || from_signed == inner_sign || (!inner_sign && m < from_bits))
            return inner_sign ? Z3_mk_sign_ext(s->z, (unsigned)(to_bits - m), x)
                              : Z3_mk_zero_ext(s->z, (unsigned)(to_bits - m), x);
    }
    if (to_bits < from_bits) return Z3_mk_extract(s->z, (unsigned)to_bits - 1, 0, v);
    unsigned d = (unsigned)(to_bits - from_bits);
    return from_signed ? Z3_mk_sign_ext(s->z, d, v) : Z3_mk_zero_ext(s->z, d, v);
}

static Z3_ast *lanes_alloc(tine_smt *s, int n) { return tine_arena_alloc(&s->arena, sizeof(Z3_ast) * (size_t)n); }

static bound_var *find_var(tine_smt *s, const tine_expr_t *v) {
    for (int i = 0; i < s->nvars; i++)
        if (s->vars[i].var == v) return &s->vars[i];
    return NULL;
}

static bound_var *add_var(tine_smt *s, const tine_expr_t *v) {
    TINE_GROW(s->vars, s->nvars + 1, s->capvars);
    bound_var *b = &s->vars[s->nvars++];
    b->var = v;
    b->lanes = lanes_alloc(s, v->type.lanes);
    return b;
}

void tine_smt_bind(tine_smt *s, const tine_expr_t *var, const Z3_ast *lanes) {
    bound_var *b = find_var(s, var);
    if (!b) b = add_var(s, var);
    memcpy(b->lanes, lanes, sizeof *lanes * (size_t)var->type.lanes);
}

void tine_smt_bind_narrow(tine_smt *s, const tine_expr_t *var, int bits, bool sign) {
    Z3_ast lanes[TINE_MAX_LANES];
    tine_type_t t = var->type;
    char tn[16];
    for (int i = 0; i < t.lanes; i++) {
        char name[128];
        snprintf(name, sizeof name, "%s_%s[%d]_%d", tine_expr_name(var), tine_type_name(t, tn), i, bits);
        Z3_ast x = Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), tine_smt_sort(s, bits));
        lanes[i] = sign ? Z3_mk_sign_ext(s->z, (unsigned)(t.bits - bits), x) : Z3_mk_zero_ext(s->z, (unsigned)(t.bits - bits), x);
    }
    tine_smt_bind(s, var, lanes);
}

void tine_smt_assume(tine_smt *s, Z3_ast fact) {
    TINE_PUSH(s->facts, s->nfacts, s->capfacts, fact);
}

static Z3_ast fresh(tine_smt *s, const char *name, int bits) {
    return Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), tine_smt_sort(s, bits));
}

/* ---- scalar semantics ------------------------------------------------------------------ */

static bool is_signed(tine_type_t t) { return t.kind == TINE_INT; }
static Z3_ast zero(tine_smt *s, int bits) { return tine_smt_num(s, bits, 0); }
static Z3_ast bit(tine_smt *s, Z3_ast cond) { return Z3_mk_ite(s->z, cond, tine_smt_num(s, 1, 1), tine_smt_num(s, 1, 0)); }
static Z3_ast is_true(tine_smt *s, Z3_ast b1) { return Z3_mk_eq(s->z, b1, tine_smt_num(s, 1, 1)); }

static Z3_ast lt(tine_smt *s, tine_type_t t, Z3_ast a, Z3_ast b) {
    return is_signed(t) ? Z3_mk_bvslt(s->z, a, b) : Z3_mk_bvult(s->z, a, b);
}

static Z3_ast shift(tine_smt *s, tine_type_t t, Z3_ast a, tine_type_t ts, Z3_ast c, bool left) {
    Z3_context z = s->z;
    int cb = ts.bits;
    Z3_ast neg = is_signed(ts) ? Z3_mk_bvslt(z, c, zero(s, cb)) : Z3_mk_false(z);
    Z3_ast mag = Z3_mk_ite(z, neg, Z3_mk_bvneg(z, c), c); /* read as unsigned: -MIN is 2^(cb-1) */
    /* mag >= t.bits, compared at a width that holds both */
    int w = (cb > 8 ? cb : 8) + 1;
    Z3_ast big = Z3_mk_bvuge(z, tine_smt_resize(s, mag, cb, false, w), tine_smt_num(s, w, (tine_u128)t.bits));
    Z3_ast m = tine_smt_resize(s, mag, cb, false, t.bits); /* exact where !big */
    Z3_ast sign = is_signed(t) ? Z3_mk_ite(z, Z3_mk_bvslt(z, a, zero(s, t.bits)), tine_smt_num(s, t.bits, ~(tine_u128)0),
                                           zero(s, t.bits))
                               : zero(s, t.bits);
    Z3_ast l = Z3_mk_ite(z, big, zero(s, t.bits), Z3_mk_bvshl(z, a, m));
    Z3_ast r = Z3_mk_ite(z, big, sign, is_signed(t) ? Z3_mk_bvashr(z, a, m) : Z3_mk_bvlshr(z, a, m));
    return Z3_mk_ite(z, neg, left ? r : l, left ? l : r);
}

static Z3_ast divmod(tine_smt *s, tine_type_t t, Z3_ast a, Z3_ast b, bool div) {
    Z3_context z = s->z;
    Z3_ast b0 = Z3_mk_eq(z, b, zero(s, t.bits));
    Z3_ast r;
    if (!is_signed(t)) {
        r = div ? Z3_mk_bvudiv(z, a, b) : Z3_mk_bvurem(z, a, b);
    } else if (div) { /* truncated quotient, one less where the remainder's sign differs from b's */
        Z3_ast q = Z3_mk_bvsdiv(z, a, b), m = Z3_mk_bvsrem(z, a, b);
        Z3_ast fix = Z3_mk_and(z, 2, (Z3_ast[]){Z3_mk_not(z, Z3_mk_eq(z, m, zero(s, t.bits))),
                                                Z3_mk_xor(z, Z3_mk_bvslt(z, m, zero(s, t.bits)),
                                                          Z3_mk_bvslt(z, b, zero(s, t.bits)))});
        r = Z3_mk_ite(z, fix, Z3_mk_bvsub(z, q, tine_smt_num(s, t.bits, 1)), q);
    } else {
        r = Z3_mk_bvsmod(z, a, b); /* the sign of the divisor: floor modulo */
    }
    return Z3_mk_ite(z, b0, zero(s, t.bits), r);
}

static Z3_ast cast(tine_smt *s, tine_type_t to, tine_type_t from, Z3_ast v) {
    if (to.kind == TINE_BOOL) return bit(s, Z3_mk_not(s->z, Z3_mk_eq(s->z, v, zero(s, from.bits))));
    return tine_smt_resize(s, v, from.bits, is_signed(from), to.bits);
}

/* x when v is an extension of x (*sign: a sign extension), else NULL. */
static Z3_ast extension_of(tine_smt *s, Z3_ast v, bool *sign) {
    if (Z3_get_ast_kind(s->z, v) != Z3_APP_AST) return NULL;
    Z3_app app = Z3_to_app(s->z, v);
    Z3_decl_kind k = Z3_get_decl_kind(s->z, Z3_get_app_decl(s->z, app));
    if (k != Z3_OP_SIGN_EXT && k != Z3_OP_ZERO_EXT) return NULL;
    *sign = k == Z3_OP_SIGN_EXT;
    return Z3_get_app_arg(s->z, app, 0);
}

static unsigned width(tine_smt *s, Z3_ast v) { return Z3_get_bv_sort_size(s->z, Z3_get_sort(s->z, v)); }

/* The product of two extensions a = ext(x), b = ext(y) of w bits, where x and y have m and
 * n bits and m + n <= w: the exact (m + n)-bit product, extended; the same term for the
 * same operands in either order. In abstract mode that product is a variable bounded by
 * the range of products of m- and n-bit values (an over-approximation: what is proven for
 * it holds for the real product). NULL when a and b are not such extensions. */
static Z3_ast product(tine_smt *s, Z3_ast a, Z3_ast b) {
    bool sa = false, sb = false; /* set by extension_of when it finds an extension */
    Z3_ast x = extension_of(s, a, &sa), y = extension_of(s, b, &sb);
    if (!x || !y) return NULL;
    unsigned m = width(s, x), n = width(s, y), w = width(s, a), k = m + n;
    if (k > w || k > 128) return NULL;
    if (Z3_get_ast_id(s->z, x) > Z3_get_ast_id(s->z, y) || (x == y && sa && !sb)) { /* one order */
        Z3_ast t = x; x = y; y = t;
        bool u = sa; sa = sb; sb = u;
        unsigned v = m; m = n; n = v;
    }
    bool sp = sa || sb; /* the product's signedness */
    Z3_ast p;
    if (!s->abstract) {
        p = Z3_mk_bvmul(s->z, tine_smt_resize(s, x, (int)m, sa, (int)k), tine_smt_resize(s, y, (int)n, sb, (int)k));
        return tine_smt_resize(s, p, (int)k, sp, (int)w);
    }
    for (int i = 0; i < s->nproducts; i++) {
        const struct product *q = &s->products[i];
        if (q->x == x && q->y == y && q->sx == sa && q->sy == sb) return tine_smt_resize(s, q->p, (int)k, sp, (int)w);
    }
    char name[32];
    snprintf(name, sizeof name, "product%d", s->nproducts);
    p = fresh(s, name, (int)k);
    /* the range of x * y over x's and y's types, at k + 2 bits (exact there); it is
       bounded only where k + 2 <= 128: then |x| <= 2^m, |y| <= 2^n and every corner
       product fits a 128-bit signed value (two 64-bit operands, k = 128, would not) */
    if (k + 2 <= 128) {
        tine_i128 xlo = sa ? -((tine_i128)1 << (m - 1)) : 0, xhi = sa ? ((tine_i128)1 << (m - 1)) - 1 : ((tine_i128)1 << m) - 1;
        tine_i128 ylo = sb ? -((tine_i128)1 << (n - 1)) : 0, yhi = sb ? ((tine_i128)1 << (n - 1)) - 1 : ((tine_i128)1 << n) - 1;
        tine_i128 c[4] = {xlo * ylo, xlo * yhi, xhi * ylo, xhi * yhi}, lo = c[0], hi = c[0];
        for (int i = 1; i < 4; i++) {
            lo = c[i] < lo ? c[i] : lo;
            hi = c[i] > hi ? c[i] : hi;
        }
        Z3_ast pw = tine_smt_resize(s, p, (int)k, sp, (int)k + 2);
        tine_smt_assume(s, Z3_mk_bvsge(s->z, pw, tine_smt_num(s, (int)k + 2, (tine_u128)lo)));
        tine_smt_assume(s, Z3_mk_bvsle(s->z, pw, tine_smt_num(s, (int)k + 2, (tine_u128)hi)));
        /* signed by signed: the largest product, 2^(k-2), only from MIN * MIN; any other pair
           gives at most 2^(k-2) - 2^(min(m, n) - 1) (MIN * (MIN + 1)): what Q15/Q31 fix-ups test */
        if (sa && sb) {
            Z3_ast both = Z3_mk_and(s->z, 2, (Z3_ast[]){Z3_mk_eq(s->z, x, tine_smt_num(s, (int)m, (tine_u128)xlo)),
                                                          Z3_mk_eq(s->z, y, tine_smt_num(s, (int)n, (tine_u128)ylo))});
            tine_i128 below = hi - ((tine_i128)1 << ((m < n ? m : n) - 1));
            tine_smt_assume(s, Z3_mk_implies(s->z, both, Z3_mk_eq(s->z, pw, tine_smt_num(s, (int)k + 2, (tine_u128)hi))));
            tine_smt_assume(s, Z3_mk_implies(s->z, Z3_mk_not(s->z, both),
                                             Z3_mk_bvsle(s->z, pw, tine_smt_num(s, (int)k + 2, (tine_u128)below))));
        }
    }
    /* exact where either operand is 0 or 1: what a rule's fix-ups test */
    Z3_ast xk = tine_smt_resize(s, x, (int)m, sa, (int)k), yk = tine_smt_resize(s, y, (int)n, sb, (int)k);
    Z3_ast zero_k = tine_smt_num(s, (int)k, 0), one_k = tine_smt_num(s, (int)k, 1);
    Z3_ast exact[2][2] = {{Z3_mk_eq(s->z, xk, zero_k), Z3_mk_eq(s->z, p, zero_k)},
                          {Z3_mk_eq(s->z, xk, one_k), Z3_mk_eq(s->z, p, yk)}};
    for (int i = 0; i < 2; i++) tine_smt_assume(s, Z3_mk_implies(s->z, exact[i][0], exact[i][1]));
    TINE_PUSH(s->products, s->nproducts, s->capproducts, ((struct product){x, y, p, sa, sb}));
    return tine_smt_resize(s, p, (int)k, sp, (int)w);
}


/* x ^ c as a term, with (y ^ c) ^ c written y: a float's sign flipped twice (a negation of
 * a negation, xorps with -0.0 of one) is the value itself, and the proofs of the rules
 * that fold such flips compare terms, not bit-blasted adders. */
static Z3_ast xor_bits(tine_smt *s, Z3_ast x, Z3_ast c) {
    Z3_context z = s->z;
    if (Z3_get_ast_kind(z, x) == Z3_APP_AST) {
        Z3_app app = Z3_to_app(z, x);
        if (Z3_get_decl_kind(z, Z3_get_app_decl(z, app)) == Z3_OP_BXOR && Z3_get_app_num_args(z, app) == 2) {
            if (Z3_is_eq_ast(z, Z3_get_app_arg(z, app, 1), c)) return Z3_get_app_arg(z, app, 0);
            if (Z3_is_eq_ast(z, Z3_get_app_arg(z, app, 0), c)) return Z3_get_app_arg(z, app, 1);
        }
    }
    return Z3_mk_bvxor(z, x, c);
}

static Z3_ast arith(tine_smt *s, tine_op_t op, tine_type_t t, Z3_ast a, Z3_ast b) {
    Z3_context z = s->z;
    Z3_ast p;
    switch (op) {
    case TINE_OP_ADD: return Z3_mk_bvadd(z, a, b);
    case TINE_OP_SUB: return Z3_mk_bvsub(z, a, b);
    case TINE_OP_MUL: return (p = product(s, a, b)) ? p : Z3_mk_bvmul(z, a, b);
    case TINE_OP_DIV: return divmod(s, t, a, b, true);
    case TINE_OP_MOD: return divmod(s, t, a, b, false);
    case TINE_OP_MIN: return Z3_mk_ite(z, lt(s, t, a, b), a, b);
    case TINE_OP_MAX: return Z3_mk_ite(z, lt(s, t, b, a), a, b);
    case TINE_OP_AND: return Z3_mk_bvand(z, a, b);
    case TINE_OP_OR: return Z3_mk_bvor(z, a, b);
    case TINE_OP_XOR: return xor_bits(s, a, b);
    default: TINE_ASSERT(!"not an arithmetic op"); return NULL;
    }
}

static Z3_ast compare(tine_smt *s, tine_op_t op, tine_type_t t, Z3_ast a, Z3_ast b) {
    Z3_context z = s->z;
    switch (op) {
    case TINE_OP_EQ: return bit(s, Z3_mk_eq(z, a, b));
    case TINE_OP_NE: return bit(s, Z3_mk_not(z, Z3_mk_eq(z, a, b)));
    case TINE_OP_LT: return bit(s, lt(s, t, a, b));
    case TINE_OP_LE: return bit(s, Z3_mk_not(z, lt(s, t, b, a)));
    case TINE_OP_GT: return bit(s, lt(s, t, b, a));
    case TINE_OP_GE: return bit(s, Z3_mk_not(z, lt(s, t, a, b)));
    default: TINE_ASSERT(!"not a comparison"); return NULL;
    }
}

Z3_ast tine_smt_binop(tine_smt *s, tine_op_t op, tine_type_t t, Z3_ast a, Z3_ast b) {
    switch (op) {
    case TINE_OP_SHL: case TINE_OP_SHR: return shift(s, t, a, t, b, op == TINE_OP_SHL);
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        return compare(s, op, t, a, b);
    default: return arith(s, op, t, a, b);
    }
}

/* ---- DAG encoding ---------------------------------------------------------------------- */

static int encode_dag(tine_smt *s, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                      Z3_ast *const *prevals, Z3_ast *out);

/* The sort of a lane of type t: its bits, or a real for a float over the reals. */
static Z3_sort lane_sort(tine_smt *s, tine_type_t t) {
    return s->reals && t.kind == TINE_FLOAT ? Z3_mk_real_sort(s->z) : tine_smt_sort(s, t.bits);
}

static Z3_func_decl load_decl(tine_smt *s, const tine_expr_t *e) {
    const char *name = tine_expr_name(e);
    tine_type_t elem = tine_type_with_lanes(e->type, 1), ix = tine_type_with_lanes(e->ops[0]->type, 1);
    for (int i = 0; i < s->nloads; i++)
        if (s->loads[i].name == name && tine_type_eq(s->loads[i].elem, elem)) return s->loads[i].f;
    TINE_ASSERT(s->nloads < 32);
    char fn[96];
    snprintf(fn, sizeof fn, "%s[]", name);
    Z3_sort dom = tine_smt_sort(s, 64);
    Z3_func_decl f = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, fn), 1, &dom, lane_sort(s, elem));
    s->loads[s->nloads++] = (load_fn){name, elem, ix, f};
    return f;
}

static int refuse(tine_smt *s, const tine_expr_t *e, const char *what) {
    tine_set_error(s->ctx, "the SMT encoding has no %s (in %s)", what, tine_op_name((tine_op_t)e->op));
    return -1;
}

/* ---- floats ---------------------------------------------------------------------------- */

static bool touches_float(const tine_expr_t *e) {
    if (e->type.kind == TINE_FLOAT) return true;
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i]->type.kind == TINE_FLOAT) return true;
    return false;
}

static Z3_sort fp_sort(tine_smt *s, tine_type_t t) { return t.bits == 32 ? Z3_mk_fpa_sort_32(s->z) : Z3_mk_fpa_sort_64(s->z); }
static Z3_ast rne(tine_smt *s) { return Z3_mk_fpa_rne(s->z); }
static Z3_ast fp_of(tine_smt *s, tine_type_t t, Z3_ast bits) { return Z3_mk_fpa_to_fp_bv(s->z, bits, fp_sort(s, t)); }
static tine_u128 sign_bit(tine_type_t t) { return (tine_u128)1 << (t.bits - 1); }

/* An fp result as bits: a NaN as the canonical quiet NaN (sign 0, the top fraction bit). */
static Z3_ast bits_of(tine_smt *s, tine_type_t t, Z3_ast f) {
    tine_u128 nan = t.bits == 32 ? 0x7fc00000u : 0x7ff8000000000000ull;
    return Z3_mk_ite(s->z, Z3_mk_fpa_is_nan(s->z, f), tine_smt_num(s, t.bits, nan), Z3_mk_fpa_to_ieee_bv(s->z, f));
}

static Z3_ast fp_const(tine_smt *s, tine_type_t t, double d) { return Z3_mk_fpa_numeral_double(s->z, d, fp_sort(s, t)); }

/* A function symbol applied to one argument: the reals mode's stand-in for what has no
 * meaning over the reals (sqrt, a float's bits, float -> integer casts). */
static Z3_ast apply_uf(tine_smt *s, const char *name, Z3_sort dom, Z3_sort range, Z3_ast arg) {
    Z3_func_decl f = Z3_mk_func_decl(s->z, Z3_mk_string_symbol(s->z, name), 1, &dom, range);
    return Z3_mk_app(s->z, f, 1, &arg);
}

/* float -> integer (bits mode): truncated toward zero, saturated to the type's range, NaN
 * -> 0 (SMT-LIB leaves fp.to_sbv out of range and of NaN open: the ites make it tine's). */
static Z3_ast float_to_int(tine_smt *s, tine_type_t to, tine_type_t from, Z3_ast bits) {
    Z3_context z = s->z;
    Z3_ast f = fp_of(s, from, bits);
    Z3_ast tr = Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_round_toward_zero(z), f);
    bool sg = is_signed(to);
    /* the bounds are powers of two, exact in both float types (2^128 is f32's inf: every
       finite f32 fits a u128) */
    Z3_ast lo = fp_const(s, from, sg ? -ldexp(1.0, to.bits - 1) : 0.0);
    Z3_ast hi = fp_const(s, from, sg ? ldexp(1.0, to.bits - 1) : ldexp(1.0, to.bits));
    Z3_ast v = sg ? Z3_mk_fpa_to_sbv(z, Z3_mk_fpa_round_toward_zero(z), tr, (unsigned)to.bits)
                  : Z3_mk_fpa_to_ubv(z, Z3_mk_fpa_round_toward_zero(z), tr, (unsigned)to.bits);
    tine_u128 minv = sg ? sign_bit(to) : 0, maxv = sg ? sign_bit(to) - 1 : ~(tine_u128)0;
    v = Z3_mk_ite(z, Z3_mk_fpa_geq(z, tr, hi), tine_smt_num(s, to.bits, maxv), v);
    v = Z3_mk_ite(z, Z3_mk_fpa_lt(z, tr, lo), tine_smt_num(s, to.bits, minv), v);
    return Z3_mk_ite(z, Z3_mk_fpa_is_nan(z, f), zero(s, to.bits), v);
}

/* A cast touching a float, one lane, bits mode. */
static Z3_ast float_cast_bits(tine_smt *s, tine_type_t to, tine_type_t from, Z3_ast v) {
    Z3_context z = s->z;
    if (from.kind == TINE_FLOAT) {
        if (to.kind == TINE_BOOL) return bit(s, Z3_mk_not(z, Z3_mk_fpa_is_zero(z, fp_of(s, from, v))));
        if (to.kind == TINE_FLOAT) return bits_of(s, to, Z3_mk_fpa_to_fp_float(z, rne(s), fp_of(s, from, v), fp_sort(s, to)));
        return float_to_int(s, to, from, v);
    }
    /* integer or bool (a 1-bit 0 or 1) -> float: rounded to nearest */
    Z3_ast f = is_signed(from) ? Z3_mk_fpa_to_fp_signed(z, rne(s), v, fp_sort(s, to))
                               : Z3_mk_fpa_to_fp_unsigned(z, rne(s), v, fp_sort(s, to));
    return bits_of(s, to, f);
}

/* The comparisons of floats, as Z3 bools: IEEE's on fp values (unordered false, -0 == +0),
 * the order's on reals; != is the negation of ==. */
typedef Z3_ast (*z3_rel)(Z3_context, Z3_ast, Z3_ast);
static Z3_ast float_rel(tine_smt *s, tine_op_t op, Z3_ast x, Z3_ast y) {
    static const struct { tine_op_t op; z3_rel fp, real; } rel[] = {
        {TINE_OP_EQ, Z3_mk_fpa_eq, Z3_mk_eq}, {TINE_OP_NE, Z3_mk_fpa_eq, Z3_mk_eq},
        {TINE_OP_LT, Z3_mk_fpa_lt, Z3_mk_lt}, {TINE_OP_LE, Z3_mk_fpa_leq, Z3_mk_le},
        {TINE_OP_GT, Z3_mk_fpa_gt, Z3_mk_gt}, {TINE_OP_GE, Z3_mk_fpa_geq, Z3_mk_ge},
    };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
        if (rel[i].op == op) {
            Z3_ast r = (s->reals ? rel[i].real : rel[i].fp)(s->z, x, y);
            return op == TINE_OP_NE ? Z3_mk_not(s->z, r) : r;
        }
    TINE_ASSERT(!"not a comparison");
    return NULL;
}

/* One lane of a binary float op (arithmetic, min, max, comparisons): on bits through fp
 * values, or on reals. */
/* The factors of a product (or an FMA's) as one term whatever their order and signs: a
 * flipped sign (xor_bits with the sign bit) is taken off each factor, the factors are
 * ordered, and an odd number of flips goes back on the first. Exact in IEEE arithmetic:
 * (-a) * b = a * (-b) = -(a * b), the rounding is symmetric, and every NaN here is one. */
static void product_signs(tine_smt *s, tine_type_t t, Z3_ast f[2]) {
    Z3_context z = s->z;
    Z3_ast sb = tine_smt_num(s, t.bits, sign_bit(t));
    int flips = 0;
    for (int k = 0; k < 2; k++) {
        if (Z3_get_ast_kind(z, f[k]) != Z3_APP_AST) continue;
        Z3_app app = Z3_to_app(z, f[k]);
        if (Z3_get_decl_kind(z, Z3_get_app_decl(z, app)) != Z3_OP_BXOR || Z3_get_app_num_args(z, app) != 2) continue;
        if (!Z3_is_eq_ast(z, Z3_get_app_arg(z, app, 0), sb) && !Z3_is_eq_ast(z, Z3_get_app_arg(z, app, 1), sb)) continue;
        f[k] = xor_bits(s, f[k], sb); /* the flip taken off */
        flips++;
    }
    if (Z3_get_ast_id(z, f[0]) > Z3_get_ast_id(z, f[1])) {
        Z3_ast c = f[0];
        f[0] = f[1];
        f[1] = c;
    }
    if (flips & 1) f[0] = xor_bits(s, f[0], sb);
}

static Z3_ast float_binop(tine_smt *s, tine_op_t op, tine_type_t t, Z3_ast a, Z3_ast b) {
    Z3_context z = s->z;
    if (!s->reals && op == TINE_OP_SUB) {
        /* IEEE 754 defines x - y as x + (-y): one adder term for both, so folding a
           negation into an add or a sub is a comparison of terms */
        b = xor_bits(s, b, tine_smt_num(s, t.bits, sign_bit(t)));
        op = TINE_OP_ADD;
    }
    if (!s->reals && op == TINE_OP_MUL) {
        Z3_ast f[2] = {a, b};
        product_signs(s, t, f);
        a = f[0], b = f[1];
    } else if (!s->reals && op == TINE_OP_ADD && Z3_get_ast_id(z, a) > Z3_get_ast_id(z, b)) {
        /* IEEE + and * commute (their NaNs are all the canonical one here): one operand
           order, so a + b and b + a are one term, not two adders the solver must compare */
        Z3_ast c = a;
        a = b;
        b = c;
    }
    Z3_ast x = s->reals ? a : fp_of(s, t, a), y = s->reals ? b : fp_of(s, t, b), ab[2] = {a, b};
    switch (op) {
    case TINE_OP_ADD: return s->reals ? Z3_mk_add(z, 2, ab) : bits_of(s, t, Z3_mk_fpa_add(z, rne(s), x, y));
    case TINE_OP_SUB: return s->reals ? Z3_mk_sub(z, 2, ab) : bits_of(s, t, Z3_mk_fpa_sub(z, rne(s), x, y));
    case TINE_OP_MUL: return s->reals ? Z3_mk_mul(z, 2, ab) : bits_of(s, t, Z3_mk_fpa_mul(z, rne(s), x, y));
    case TINE_OP_DIV: return s->reals ? Z3_mk_div(z, a, b) : bits_of(s, t, Z3_mk_fpa_div(z, rne(s), x, y));
    /* tine's selects, on the operands' own bits (not fp.min, which leaves -0/+0 open) */
    case TINE_OP_MIN: return Z3_mk_ite(z, float_rel(s, TINE_OP_LT, x, y), a, b);
    case TINE_OP_MAX: return Z3_mk_ite(z, float_rel(s, TINE_OP_GT, x, y), a, b);
    default: return bit(s, float_rel(s, op, x, y));
    }
}

/* abs of a float as tine_abs builds it: reinterpret<F>(reinterpret<U>(y) & sign-clearing
 * mask); y when e is that, else NULL. Over the reals it is |y|. */
static const tine_expr_t *abs_operand(const tine_expr_t *e) {
    if (e->op != TINE_OP_REINTERPRET || e->type.kind != TINE_FLOAT) return NULL;
    const tine_expr_t *a = e->ops[0];
    if (a->op != TINE_OP_AND || a->type.lanes != e->type.lanes) return NULL;
    for (int k = 0; k < 2; k++) {
        const tine_expr_t *m = a->ops[k], *x = a->ops[1 - k];
        if (m->op != TINE_OP_CONST || !(m->flags & TINE_F_UNIFORM) ||
            tine_const_value(m, 0) != sign_bit(e->type) - 1)
            continue;
        if (x->op == TINE_OP_REINTERPRET && tine_type_eq(x->ops[0]->type, e->type)) return x->ops[0];
    }
    return NULL;
}

/* A cast or same-lanes reinterpret touching a float, one lane, over the reals. */
static Z3_ast float_convert_real(tine_smt *s, tine_op_t op, tine_type_t to, tine_type_t from, Z3_ast v) {
    Z3_context z = s->z;
    char name[48], tf[16], tt[16];
    tine_type_name(tine_type_with_lanes(from, 1), tf);
    tine_type_name(tine_type_with_lanes(to, 1), tt);
    snprintf(name, sizeof name, "%s<%s>(%s)", op == TINE_OP_CAST ? "cast" : "reinterpret", tt, tf);
    if (op == TINE_OP_REINTERPRET) /* bits have no real meaning: a function of the value */
        return to.kind == TINE_FLOAT ? apply_uf(s, name, tine_smt_sort(s, from.bits), Z3_mk_real_sort(z), v)
                                     : apply_uf(s, name, Z3_mk_real_sort(z), tine_smt_sort(s, to.bits), v);
    if (from.kind == TINE_FLOAT) {
        if (to.kind == TINE_FLOAT) return v; /* exact over the reals */
        if (to.kind == TINE_BOOL) return bit(s, Z3_mk_not(z, Z3_mk_eq(z, v, Z3_mk_real(z, 0, 1))));
        return apply_uf(s, name, Z3_mk_real_sort(z), tine_smt_sort(s, to.bits), v);
    }
    if (from.kind == TINE_BOOL) return Z3_mk_ite(z, is_true(s, v), Z3_mk_real(z, 1, 1), Z3_mk_real(z, 0, 1));
    return Z3_mk_int2real(z, Z3_mk_bv2int(z, v, is_signed(from)));
}

/* A node touching a float: 0 encoded, -1 refused, 1 not a float op (the generic cases
 * below do it: selects, lane moves, same-bits reinterprets in bits mode, definitions). */
static int encode_float(tine_smt *s, const tine_expr_t *e, Z3_ast *const *ov, Z3_ast *r) {
    Z3_context z = s->z;
    tine_type_t t = e->type, ot = e->nops ? e->ops[0]->type : t;
    int L = t.lanes;
    tine_op_t op = (tine_op_t)e->op;
    s->floats = true;
    switch (op) {
    case TINE_OP_CONST:
        if (!s->reals) return 1;
        for (int i = 0; i < L; i++) {
            tine_u128 w = tine_const_value(e, i);
            Z3_ast f = fp_of(s, t, tine_smt_num(s, t.bits, w));
            Z3_ast fin = Z3_simplify(z, Z3_mk_or(z, 2, (Z3_ast[]){Z3_mk_fpa_is_nan(z, f), Z3_mk_fpa_is_infinite(z, f)}));
            if (Z3_get_bool_value(z, fin) != Z3_L_FALSE) return refuse(s, e, "infinities or NaNs over the reals");
            r[i] = Z3_simplify(z, Z3_mk_fpa_to_real(z, f));
        }
        return 0;
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MIN: case TINE_OP_MAX:
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        for (int i = 0; i < L; i++) r[i] = float_binop(s, op, ot, ov[0][i], ov[1][i]);
        return 0;
    case TINE_OP_NEG: /* the sign bit flipped (NaNs too), or minus */
        for (int i = 0; i < L; i++)
            r[i] = s->reals ? Z3_mk_unary_minus(z, ov[0][i]) : xor_bits(s, ov[0][i], tine_smt_num(s, t.bits, sign_bit(t)));
        return 0;
    case TINE_OP_SQRT:
        for (int i = 0; i < L; i++)
            r[i] = s->reals ? apply_uf(s, "sqrt", Z3_mk_real_sort(z), Z3_mk_real_sort(z), ov[0][i])
                            : bits_of(s, t, Z3_mk_fpa_sqrt(z, rne(s), fp_of(s, t, ov[0][i])));
        return 0;
    case TINE_OP_FMA:
        for (int i = 0; i < L; i++) {
            if (s->reals) {
                Z3_ast p[2] = {ov[0][i], ov[1][i]}, q[2] = {Z3_mk_mul(z, 2, p), ov[2][i]};
                r[i] = Z3_mk_add(z, 2, q);
            } else { /* the factors in one order and their signs on the first, as for a product */
                Z3_ast f[2] = {ov[0][i], ov[1][i]};
                product_signs(s, t, f);
                r[i] = bits_of(s, t, Z3_mk_fpa_fma(z, rne(s), fp_of(s, t, f[0]), fp_of(s, t, f[1]), fp_of(s, t, ov[2][i])));
            }
        }
        return 0;
    case TINE_OP_VECTOR_REDUCE_ADD: { /* in lane order, as the interpreter adds */
        int g = ot.lanes / L;
        for (int i = 0; i < L; i++) {
            Z3_ast acc = ov[0][i * g];
            for (int j = 1; j < g; j++) acc = float_binop(s, TINE_OP_ADD, t, acc, ov[0][i * g + j]);
            r[i] = acc;
        }
        return 0;
    }
    case TINE_OP_CAST:
        for (int i = 0; i < L; i++)
            r[i] = s->reals ? float_convert_real(s, op, t, ot, ov[0][i]) : float_cast_bits(s, t, ot, ov[0][i]);
        return 0;
    case TINE_OP_REINTERPRET: {
        if (!s->reals) return 1; /* bits are bits */
        if (ot.lanes != L) return refuse(s, e, "float reinterprets to other lane sizes over the reals");
        const tine_expr_t *y = abs_operand(e);
        if (y) { /* |y|, from y's own terms (encoded again: variables are the same terms) */
            Z3_ast *v = lanes_alloc(s, L);
            if (tine_smt_encode(s, y, v)) return -1;
            for (int i = 0; i < L; i++)
                r[i] = Z3_mk_ite(z, Z3_mk_lt(z, v[i], Z3_mk_real(z, 0, 1)), Z3_mk_unary_minus(z, v[i]), v[i]);
            return 0;
        }
        for (int i = 0; i < L; i++) r[i] = float_convert_real(s, op, t, ot, ov[0][i]);
        return 0;
    }
    case TINE_OP_INTERLEAVE: case TINE_OP_CONCAT: case TINE_OP_SLICE: case TINE_OP_DEINTERLEAVE:
    case TINE_OP_BROADCAST: case TINE_OP_SELECT: case TINE_OP_LOAD: case TINE_OP_INSN: case TINE_OP_VAR:
        return 1; /* a variable's and a load's sort is lane_sort's */
    default: return s->reals ? refuse(s, e, "float op over the reals") : 1;
    }
}

static int encode_node(tine_smt *s, const tine_expr_t *e, Z3_ast *const *ov, Z3_ast *r) {
    tine_type_t t = e->type;
    int L = t.lanes;
    tine_op_t op = (tine_op_t)e->op;
    if (touches_float(e)) {
        int rc = encode_float(s, e, ov, r);
        if (rc <= 0) return rc;
    }
    switch (op) {
    case TINE_OP_CONST:
        for (int i = 0; i < L; i++) r[i] = tine_smt_num(s, t.bits, tine_const_value(e, i));
        return 0;
    case TINE_OP_VAR: {
        bound_var *b = find_var(s, e);
        if (!b) {
            b = add_var(s, e);
            char tn[16];
            for (int i = 0; i < L; i++) {
                char name[128];
                if (L == 1) snprintf(name, sizeof name, "%s_%s", tine_expr_name(e), tine_type_name(t, tn));
                else snprintf(name, sizeof name, "%s_%s[%d]", tine_expr_name(e), tine_type_name(t, tn), i);
                b->lanes[i] = Z3_mk_const(s->z, Z3_mk_string_symbol(s->z, name), lane_sort(s, t));
            }
        }
        memcpy(r, b->lanes, sizeof *r * (size_t)L);
        return 0;
    }
    case TINE_OP_LOAD: {
        Z3_func_decl f = load_decl(s, e);
        tine_type_t it = e->ops[0]->type;
        for (int i = 0; i < L; i++) {
            Z3_ast ix = tine_smt_resize(s, ov[0][i], it.bits, is_signed(it), 64);
            r[i] = Z3_mk_app(s->z, f, 1, &ix);
        }
        return 0;
    }
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD:
    case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
        for (int i = 0; i < L; i++) r[i] = arith(s, op, t, ov[0][i], ov[1][i]);
        return 0;
    case TINE_OP_NEG:
        for (int i = 0; i < L; i++) r[i] = Z3_mk_bvneg(s->z, ov[0][i]);
        return 0;
    case TINE_OP_NOT:
        for (int i = 0; i < L; i++) r[i] = Z3_mk_bvnot(s->z, ov[0][i]);
        return 0;
    case TINE_OP_SHL: case TINE_OP_SHR:
        for (int i = 0; i < L; i++) r[i] = shift(s, t, ov[0][i], e->ops[1]->type, ov[1][i], op == TINE_OP_SHL);
        return 0;
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        for (int i = 0; i < L; i++) r[i] = compare(s, op, e->ops[0]->type, ov[0][i], ov[1][i]);
        return 0;
    case TINE_OP_SELECT:
        for (int i = 0; i < L; i++) r[i] = Z3_mk_ite(s->z, is_true(s, ov[0][i]), ov[1][i], ov[2][i]);
        return 0;
    case TINE_OP_CAST: case TINE_OP_REINTERPRET: /* on integers: both keep the low bits of the extended value */
        if (op == TINE_OP_REINTERPRET && e->ops[0]->type.lanes != L) break; /* other lane sizes: below */
        for (int i = 0; i < L; i++) r[i] = cast(s, t, e->ops[0]->type, ov[0][i]);
        return 0;
    default: break;
    }
    s->cross++; /* the rest move values between lanes (or go through a definition) */
    switch (op) {
    case TINE_OP_REINTERPRET: {
        /* the operand's lanes concatenated, lane 0 lowest (little-endian), cut into lanes of
           the result's bits: lane i joins k operand lanes (the last one highest) or is the
           (i % k)-th part of one */
        int sb = e->ops[0]->type.bits, tb = t.bits;
        for (int i = 0; i < L; i++) {
            if (tb > sb) {
                int k = tb / sb;
                Z3_ast acc = ov[0][i * k + k - 1];
                for (int j = k - 2; j >= 0; j--) acc = Z3_mk_concat(s->z, acc, ov[0][i * k + j]);
                r[i] = acc;
            } else {
                int k = sb / tb, part = i % k;
                r[i] = Z3_mk_extract(s->z, (unsigned)((part + 1) * tb - 1), (unsigned)(part * tb), ov[0][i / k]);
            }
        }
        return 0;
    }
    case TINE_OP_RAMP:
        for (int i = 0; i < L; i++)
            r[i] = Z3_mk_bvadd(s->z, ov[0][0], Z3_mk_bvmul(s->z, tine_smt_num(s, t.bits, (tine_u128)i), ov[1][0]));
        return 0;
    case TINE_OP_BROADCAST: case TINE_OP_CONCAT: case TINE_OP_INTERLEAVE: case TINE_OP_SLICE: case TINE_OP_DEINTERLEAVE:
        for (int i = 0; i < L; i++) {
            int j, l;
            tine_lane_source(e, i, &j, &l);
            r[i] = ov[j][l];
        }
        return 0;
    case TINE_OP_VECTOR_REDUCE_ADD: {
        int g = e->ops[0]->type.lanes / L;
        for (int i = 0; i < L; i++) {
            Z3_ast acc = ov[0][i * g];
            for (int j = 1; j < g; j++) acc = Z3_mk_bvadd(s->z, acc, ov[0][i * g + j]);
            r[i] = acc;
        }
        return 0;
    }
    case TINE_OP_INSN: {
        s->cross--; /* counted inside its definition, where it moves lanes */
        const tine_expr_t *const *ph;
        const tine_expr_t *tmpl = tine_insn_template(s->ctx, e, &ph, false);
        return encode_dag(s, tmpl, e->nops, ph, ov, r);
    }
    default: break;
    }
    s->cross--;
    if (!tine_op_is_fpir(op)) return refuse(s, e, "encoding");
    const tine_expr_t *const *ph;
    const tine_expr_t *tmpl = tine_fpir_template(s->ctx, e, &ph);
    TINE_ASSERT(tmpl != NULL);
    return encode_dag(s, tmpl, e->nops, ph, ov, r);
}

static int visit(void *user, const tine_expr_t *e, void *const *ov, void **val) {
    tine_smt *s = user;
    Z3_ast *ops[256], *r = lanes_alloc(s, e->type.lanes);
    for (int i = 0; i < e->nops; i++) ops[i] = ov[i];
    *val = r;
    return encode_node(s, e, ops, r);
}

/* interp.c's walk (tine_dag_values), on terms instead of values */
static int encode_dag(tine_smt *s, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                      Z3_ast *const *prevals, Z3_ast *out) {
    void *pv[256], *r;
    TINE_ASSERT(npre <= 256);
    for (int j = 0; j < npre; j++) pv[j] = prevals[j];
    /* no terms before the walk (the top-level call): none passed, not an unwritten array */
    int rc = tine_dag_values(s->ctx, root, npre, pre, npre ? pv : NULL, visit, s, &r);
    if (rc == 0) memcpy(out, r, sizeof *out * (size_t)root->type.lanes);
    return rc;
}

int tine_smt_encode(tine_smt *s, const tine_expr_t *e, Z3_ast *lanes) {
    if (!e) {
        tine_set_error(s->ctx, "tine_smt_encode: no expression");
        return -1;
    }
    return encode_dag(s, e, 0, NULL, NULL, lanes);
}

/* ---- queries ----------------------------------------------------------------------------- */

static Z3_solver solver(tine_smt *s) {
    Z3_solver sv;
    if (s->reals && s->floats) { /* reals, bv2int: Z3's general solver picks its logic */
        sv = Z3_mk_solver(s->z);
        Z3_solver_inc_ref(s->z, sv);
    } else { /* floats bit-blasted with the bit-vectors (qffpbv: 2-4x faster here than the general solver) */
        Z3_tactic tac = Z3_mk_tactic(s->z, s->floats ? "qffpbv" : "qfbv");
        Z3_tactic_inc_ref(s->z, tac);
        sv = Z3_mk_solver_from_tactic(s->z, tac);
        Z3_solver_inc_ref(s->z, sv);
        Z3_tactic_dec_ref(s->z, tac);
    }
    if (s->timeout_ms) {
        Z3_params p = Z3_mk_params(s->z);
        Z3_params_inc_ref(s->z, p);
        Z3_params_set_uint(s->z, p, Z3_mk_string_symbol(s->z, "timeout"), s->timeout_ms);
        Z3_solver_set_params(s->z, sv, p);
        Z3_params_dec_ref(s->z, p);
    }
    for (int i = 0; i < s->nfacts; i++) Z3_solver_assert(s->z, sv, s->facts[i]);
    return sv;
}

/* -1 unknown (why gets the reason), 0 unsat, 1 sat (s->model set) */
static int check(tine_smt *s, Z3_ast cond, char *why, size_t n, double *seconds) {
    Z3_solver sv = solver(s);
    Z3_solver_assert(s->z, sv, cond);
    double t0 = tine_now();
    Z3_lbool r = Z3_solver_check(s->z, sv);
    if (seconds) *seconds = tine_now() - t0;
    if (s->model) Z3_model_dec_ref(s->z, s->model);
    s->model = NULL;
    if (r == Z3_L_TRUE) {
        s->model = Z3_solver_get_model(s->z, sv);
        Z3_model_inc_ref(s->z, s->model);
    } else if (r == Z3_L_UNDEF && why) {
        snprintf(why, n, "%s", Z3_solver_get_reason_unknown(s->z, sv));
    }
    Z3_solver_dec_ref(s->z, sv);
    return r == Z3_L_TRUE ? 1 : r == Z3_L_FALSE ? 0 : -1;
}

bool tine_smt_model_value(tine_smt *s, Z3_ast v, tine_u128 *out) {
    if (!s->model) return false;
    Z3_ast r;
    if (!Z3_model_eval(s->z, s->model, v, true, &r) || Z3_get_ast_kind(s->z, r) != Z3_NUMERAL_AST) return false;
    const char *d = Z3_get_numeral_string(s->z, r);
    tine_u128 x = 0;
    for (; *d >= '0' && *d <= '9'; d++) x = x * 10 + (tine_u128)(*d - '0');
    *out = x;
    return true;
}

int tine_smt_sat(tine_smt *s, Z3_ast cond) { return check(s, cond, NULL, 0, NULL); }

/* A lane's value in the model, as its type reads it. */
static size_t put_value(tine_smt *s, char *out, size_t n, tine_type_t t, Z3_ast v) {
    tine_u128 x;
    if (t.kind == TINE_FLOAT && s->reals) {
        Z3_ast r;
        if (!s->model || !Z3_model_eval(s->z, s->model, v, true, &r) || Z3_get_ast_kind(s->z, r) != Z3_NUMERAL_AST)
            return (size_t)snprintf(out, n, "?");
        return (size_t)snprintf(out, n, "%s", Z3_get_numeral_decimal_string(s->z, r, 12));
    }
    if (t.kind == TINE_FLOAT) { /* the value (-0, nan, inf as C prints them) */
        if (!tine_smt_model_value(s, v, &x)) return (size_t)snprintf(out, n, "?");
        return (size_t)snprintf(out, n, "%.*g", t.bits == 32 ? 9 : 17, tine_float_of_bits(t, x));
    }
    if (!tine_smt_model_value(s, v, &x)) return (size_t)snprintf(out, n, "?");
    tine_i128 val = (tine_i128)tine_canon(t, x);
    char buf[48], *p = buf + sizeof buf;
    bool neg = val < 0;
    tine_u128 u = neg ? -(tine_u128)val : (tine_u128)val;
    *--p = 0;
    do {
        *--p = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (neg) *--p = '-';
    return (size_t)snprintf(out, n, "%s", p);
}

size_t tine_smt_put_lanes(tine_smt *s, char *out, size_t n, tine_type_t t, const Z3_ast *v) {
    size_t k = 0;
    if (t.lanes > 1 && k < n) k += (size_t)snprintf(out + k, n - k, "[");
    for (int i = 0; i < t.lanes && k < n; i++) {
        if (i && k < n) k += (size_t)snprintf(out + k, n - k, ", ");
        if (k < n) k += put_value(s, out + k, n - k, t, v[i]);
    }
    if (t.lanes > 1 && k < n) k += (size_t)snprintf(out + k, n - k, "]");
    return k;
}

/* The model's inputs: every variable met so far (placeholders of definitions are never
 * met: they are bound to their operands). */
static size_t put_inputs(tine_smt *s, char *out, size_t n) {
    size_t k = 0;
    for (int i = 0; i < s->nvars && k < n; i++) {
        const tine_expr_t *v = s->vars[i].var;
        char tn[16];
        k += (size_t)snprintf(out + k, n - k, "%s%s_%s = ", i ? ", " : "", tine_expr_name(v), tine_type_name(v->type, tn));
        if (k < n) k += tine_smt_put_lanes(s, out + k, n - k, v->type, s->vars[i].lanes);
    }
    return k;
}

tine_smt_result tine_smt_valid(tine_smt *s, Z3_ast goal, char *why, size_t n, double *seconds) {
    if (why && n) why[0] = 0;
    int r = check(s, Z3_mk_not(s->z, goal), why, n, seconds);
    if (r == 0) return TINE_SMT_PROVEN;
    if (r < 0) return TINE_SMT_UNKNOWN;
    if (why) put_inputs(s, why, n);
    return TINE_SMT_COUNTEREXAMPLE;
}

tine_smt_result tine_smt_equal(tine_smt *s, const tine_expr_t *a, const tine_expr_t *b, char *why, size_t n,
                               double *seconds) {
    if (why && n) why[0] = 0;
    if (seconds) *seconds = 0;
    if (!tine_type_eq(a->type, b->type)) {
        char ta[32], tb[32];
        tine_set_error(s->ctx, "the two sides have different types (%s, %s)", tine_type_str(a->type, ta, 32),
                       tine_type_str(b->type, tb, 32));
        return TINE_SMT_ERROR;
    }
    int L = a->type.lanes;
    Z3_ast *va = lanes_alloc(s, L), *vb = lanes_alloc(s, L);
    if (tine_smt_encode(s, a, va) || tine_smt_encode(s, b, vb)) return TINE_SMT_ERROR;
    Z3_ast *eq = lanes_alloc(s, L);
    for (int i = 0; i < L; i++) {
        eq[i] = Z3_mk_eq(s->z, va[i], vb[i]);
        if (a->type.kind == TINE_FLOAT && !s->reals) { /* all NaNs are one */
            Z3_ast nans[2] = {Z3_mk_fpa_is_nan(s->z, fp_of(s, a->type, va[i])), Z3_mk_fpa_is_nan(s->z, fp_of(s, a->type, vb[i]))};
            eq[i] = Z3_mk_or(s->z, 2, (Z3_ast[]){eq[i], Z3_mk_and(s->z, 2, nans)});
        }
    }
    tine_smt_result r = tine_smt_valid(s, Z3_mk_and(s->z, (unsigned)L, eq), why, n, seconds);
    if (r == TINE_SMT_COUNTEREXAMPLE && why) {
        size_t k = strlen(why);
        if (k < n) k += (size_t)snprintf(why + k, n - k, "; left ");
        if (k < n) k += tine_smt_put_lanes(s, why + k, n - k, a->type, va);
        if (k < n) k += (size_t)snprintf(why + k, n - k, ", right ");
        if (k < n) tine_smt_put_lanes(s, why + k, n - k, b->type, vb);
    }
    return r;
}
