/* elab_builtins.c — the built-in functions of the expression language: casts (T(x),
 * cast<T>, reinterpret<T>, widen, narrow), arithmetic (min, max, clamp, select, sqrt), lane
 * operations (xN, ramp, concat, interleave, slice, deinterleave, vector_reduce_add) and,
 * in rule conditions and right-hand sides, the functions of constants (is_signed, log2,
 * udiv_magic, ...). They are written against the elaborator's interface (elab.h) and
 * registered as a call hook (tine_elab_builtins_install), as the functions of the layers
 * above are, but ahead of all of them: a call that is neither an FPIR op nor a function
 * of the environment is a builtin first (no layer can redefine min).
 */
#include "elab.h"

typedef tine_elab_val val;
typedef tine_elab elab;

/* A type with lanes, u16x8 (as a variable's suffix writes them), in a type position: 1
 * with *t, 0 when the name is no such type, -1 after an error (too many lanes). */
static int lanes_type(elab *el, const tine_ast *ty, tine_type_t *t) {
    const char *x = ty->kind == A_TYPE && ty->nargs == 0 ? strchr(ty->name, 'x') : NULL;
    if (!x || !tine_parse_type_name(ty->name, (size_t)(x - ty->name), t) || !x[1] || x[1] == '0') return 0;
    long l = 0;
    for (const char *d = x + 1; *d; d++) {
        if (*d < '0' || *d > '9') return 0;
        if (l <= TINE_MAX_LANES) l = l * 10 + (*d - '0'); /* past the limit it stays past it */
    }
    if (l > TINE_MAX_LANES) {
        tine_elab_fail(el, ty, "%s: a vector has at most %d lanes", ty->name, TINE_MAX_LANES);
        return -1;
    }
    *t = tine_type_with_lanes(*t, (int)l);
    return 1;
}

/* T(x), cast<T>(x), reinterpret<T>(x), widen(x), narrow(x); t is T for T(x). The type of
 * reinterpret may have lanes (reinterpret<u16x8>(a_u8x16)): the operand's bits as that
 * vector, its lanes repacked (tine_bitcast); the operand is elaborated at the lanes of the
 * call's position, as every cast's. */
static val elab_cast(elab *el, const tine_ast *a, int lanes, bool is_cast, tine_type_t t) {
    const char *n = a->name;
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    bool re = !strcmp(n, "reinterpret"), whole = false;
    if (!is_cast && (!strcmp(n, "cast") || re)) {
        if (!a->targ) return tine_elab_fail(el, a, "%s needs a type, as in %s<u8>(x)", n, n);
        int k = lanes_type(el, a->targ, &t);
        if (k < 0) return (val){0};
        if (k && !re)
            return tine_elab_fail(el, a->targ, "cast<%s>: a cast keeps its operand's lanes, its type has none (only "
                                  "reinterpret<%s> repacks them)", a->targ->name, a->targ->name);
        /* a rule holds at every lane count its terms have: a type of fixed lanes has none */
        if (k && tine_elab_env_of(el)->mode != TINE_ELAB_EXPR)
            return tine_elab_fail(el, a->targ, "reinterpret<%s>: a rule's types have no lanes (a rule matches any)",
                                  a->targ->name);
        whole = k == 1;
        if (!whole) t = tine_elab_type_of(el, a->targ);
        if (!tine_type_valid(t)) return (val){0};
    }
    val v = tine_elab_expr(el, a->args[0], lanes);
    if (!tine_elab_ok(el, v)) return v;
    tine_ctx_t *ctx = tine_elab_ctx(el);
    if (!strcmp(n, "widen") || !strcmp(n, "narrow")) {
        if (v.lit) return tine_elab_need_typed(el, a->args[0], v);
        char b[32];
        t = n[0] == 'w' ? tine_type_widen(v.e->type) : tine_type_narrow(v.e->type);
        if (!tine_type_valid(t)) return tine_elab_fail(el, a, "cannot %s %s", n, tine_type_str(v.e->type, b, 32));
        return tine_elab_typed(el, a, tine_cast(ctx, t, v.e));
    }
    if (v.lit) {
        if (re) return tine_elab_need_typed(el, a->args[0], v);
        return tine_elab_lit_to(el, a->args[0], v, tine_type_with_lanes(t, lanes));
    }
    if (whole) return tine_elab_typed(el, a, tine_bitcast(ctx, t, v.e));
    return tine_elab_typed(el, a, re ? tine_reinterpret(ctx, t, v.e) : tine_cast(ctx, t, v.e));
}

/* ---- arithmetic ------------------------------------------------------------------------ */

static val elab_minmax(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 2))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    val w = tine_elab_expr(el, a->args[1], lanes);
    return tine_elab_binary(el, a, a->name[1] == 'i' ? TINE_OP_MIN : TINE_OP_MAX, a->args[0], v, a->args[1], w);
}

static val elab_clamp(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 3))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    val w = tine_elab_expr(el, a->args[1], lanes);
    val u = tine_elab_expr(el, a->args[2], lanes);
    if (!tine_elab_ok(el, v) || !tine_elab_ok(el, w) || !tine_elab_ok(el, u)) return (val){0};
    v = tine_elab_need_typed(el, a->args[0], v);
    if (!tine_elab_ok(el, v)) return v;
    v = tine_elab_binary(el, a, TINE_OP_MAX, a->args[0], v, a->args[1], w);
    return tine_elab_binary(el, a, TINE_OP_MIN, a, v, a->args[2], u);
}

static val elab_select(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 3))) return (val){0};
    val u = tine_elab_expr(el, a->args[0], lanes);
    val v = tine_elab_expr(el, a->args[1], lanes);
    val w = tine_elab_expr(el, a->args[2], lanes);
    if (!tine_elab_ok(el, u) || !tine_elab_ok(el, v) || !tine_elab_ok(el, w)) return (val){0};
    if (u.lit) return tine_elab_need_typed(el, a->args[0], u);
    if (v.lit && w.lit) return tine_elab_need_typed(el, a->args[1], v);
    if (!tine_elab_unify(el, a->args[1], &v, a->args[2], &w)) return (val){0};
    return tine_elab_typed(el, a, tine_select(tine_elab_ctx(el), u.e, v.e, w.e));
}

static val elab_sqrt(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    if (!tine_elab_ok(el, v)) return v;
    if (v.lit) return tine_elab_need_typed(el, a->args[0], v);
    return tine_elab_typed(el, a, tine_unary(tine_elab_ctx(el), TINE_OP_SQRT, v.e));
}

/* fma(a, b, c): the operands typed together, as select's values (a literal takes the
 * others' type). */
static val elab_fma(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 3))) return (val){0};
    val v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = tine_elab_expr(el, a->args[i], lanes);
        if (!tine_elab_ok(el, v[i])) return (val){0};
    }
    if (!tine_elab_unify(el, a->args[0], &v[0], a->args[1], &v[1])) return (val){0};
    if (!tine_elab_unify(el, a->args[0], &v[0], a->args[2], &v[2])) return (val){0};
    if (!tine_elab_unify(el, a->args[0], &v[0], a->args[1], &v[1])) return (val){0};
    if (v[0].lit) return tine_elab_need_typed(el, a->args[0], v[0]);
    return tine_elab_typed(el, a, tine_fma(tine_elab_ctx(el), v[0].e, v[1].e, v[2].e));
}

/* ---- lanes ------------------------------------------------------------------------------ */

/* x(s) (to the position's lanes) or xN(s): a scalar broadcast. */
static bool is_broadcast_name(const char *n) {
    return n[0] == 'x' && (n[1] == 0 || (n[1] >= '1' && n[1] <= '9' && strspn(n + 1, "0123456789") == strlen(n + 1)));
}

static val elab_broadcast(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    long l = n[1] ? strtol(n + 1, NULL, 10) : lanes;
    if (l < 1 || l > TINE_MAX_LANES) return tine_elab_fail(el, a, "a broadcast to %ld lanes; at most %d", l, TINE_MAX_LANES);
    val v = tine_elab_expr(el, a->args[0], 1);
    if (!tine_elab_ok(el, v)) return v;
    if (v.lit) return tine_elab_need_typed(el, a->args[0], v);
    return tine_elab_typed(el, a, tine_broadcast(tine_elab_ctx(el), v.e, (int)l));
}

static val elab_ramp(elab *el, const tine_ast *a, int lanes) {
    (void)lanes;
    int l;
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 3))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], 1);
    val w = tine_elab_expr(el, a->args[1], 1);
    if (!tine_elab_ok(el, v) || !tine_elab_ok(el, w) ||
        !tine_elab_int_arg(el, a->args[2], 1, TINE_MAX_LANES, &l, "the lanes of a ramp"))
        return (val){0};
    if (v.lit && w.lit) { /* indices default to i32 */
        v = tine_elab_lit_to(el, a->args[0], v, tine_type(TINE_INT, 32, 1));
        if (!tine_elab_ok(el, v)) return v;
    }
    if (!tine_elab_unify(el, a->args[0], &v, a->args[1], &w)) return (val){0};
    return tine_elab_typed(el, a, tine_ramp(tine_elab_ctx(el), v.e, w.e, l));
}

/* concat(v, ...) and interleave(v, ...). */
static val elab_join(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    if (a->nargs < 1) return tine_elab_fail(el, a, "%s needs at least one vector", n);
    tine_expr_t **vs = tine_xmalloc(sizeof *vs * (size_t)a->nargs);
    for (int i = 0; i < a->nargs; i++) {
        val v = tine_elab_expr(el, a->args[i], lanes);
        if (tine_elab_ok(el, v) && v.lit) tine_elab_need_typed(el, a->args[i], v);
        if (!tine_elab_ok(el, v)) {
            free(vs);
            return (val){0};
        }
        vs[i] = v.e;
    }
    tine_ctx_t *ctx = tine_elab_ctx(el);
    tine_expr_t *r = n[0] == 'c' ? tine_concat(ctx, a->nargs, vs) : tine_interleave(ctx, a->nargs, vs);
    free(vs);
    return tine_elab_typed(el, a, r);
}

/* slice(v, first, stride, count), deinterleave(v, n, k), vector_reduce_add(v, lanes). */
static val elab_pick(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    int nint = n[0] == 's' ? 3 : n[0] == 'd' ? 2 : 1, k[3];
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1 + nint))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    if (!tine_elab_ok(el, v)) return v;
    if (v.lit) return tine_elab_need_typed(el, a->args[0], v);
    static const char *what[3][3] = {{"the first lane", "the stride", "the lane count"},
                                     {"the number of vectors", "the index", ""},
                                     {"the result lanes", "", ""}};
    int wi = n[0] == 's' ? 0 : n[0] == 'd' ? 1 : 2;
    /* the first lane and deinterleave's index may be 0; counts and strides may not */
    static const int lowest[3][3] = {{0, 1, 1}, {1, 0, 0}, {1, 0, 0}};
    for (int i = 0; i < nint; i++)
        if (!tine_elab_int_arg(el, a->args[1 + i], lowest[wi][i], TINE_MAX_LANES, &k[i], what[wi][i])) return (val){0};
    tine_ctx_t *ctx = tine_elab_ctx(el);
    if (wi == 0) return tine_elab_typed(el, a, tine_slice(ctx, v.e, k[0], k[1], k[2]));
    if (wi == 1) return tine_elab_typed(el, a, tine_deinterleave(ctx, v.e, k[0], k[1]));
    return tine_elab_typed(el, a, tine_vector_reduce_add(ctx, v.e, k[0]));
}

/* ---- functions of constants (rule conditions and right-hand sides) ---------------------- */

static val elab_signedness(elab *el, const tine_ast *a, int lanes) {
    (void)lanes;
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    tine_type_t t = tine_elab_type_of(el, a->args[0]);
    if (!tine_type_valid(t)) return (val){0};
    return (val){.lit = 1, .iv = t.kind == (a->name[3] == 's' ? TINE_INT : TINE_UINT)};
}

/* is_pow2(c) and log2(c). */
static val elab_pow2(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    val r = {.lit = 1};
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    if (!tine_elab_ok(el, v)) return v;
    if (v.lit != 1) return tine_elab_fail(el, a->args[0], "%s needs a constant", n);
    bool pow2 = v.iv > 0 && (v.iv & (v.iv - 1)) == 0;
    if (n[1] == 's') {
        r.iv = pow2;
        return r;
    }
    if (!pow2) return tine_elab_fail(el, a->args[0], "log2 of a constant that is not a power of two");
    while (((tine_i128)1 << r.iv) != v.iv) r.iv++;
    return r;
}

/* Unsigned division by c as a multiply-high, for every n-bit x: x / c = (x * m) >> s
 * when 2^s <= m * c <= 2^s + 2^(s - n) (Granlund and Montgomery), with m = ceil(2^s / c).
 * The smallest such s whose m fits n bits: none when m needs n + 1 bits (a larger s only
 * makes m larger) or c is not in [1, 2^n). A power of two 2^k is (1, k), the shift.
 * Returns s, or -1 when there is none. */
static int udiv_magic(tine_i128 c, tine_i128 n, tine_i128 *m) {
    if (n < 1 || n > 32 || c < 1 || c >= (tine_i128)1 << n) return -1;
    if ((c & (c - 1)) == 0) {
        int k = 0;
        while ((tine_i128)1 << k != c) k++;
        *m = 1;
        return k;
    }
    for (int s = (int)n; s < 2 * (int)n; s++) {
        tine_i128 p = (tine_i128)1 << s, q = (p + c - 1) / c;
        if (q >= (tine_i128)1 << n) return -1;
        if (q * c - p <= (tine_i128)1 << (s - n)) {
            *m = q;
            return s;
        }
    }
    return -1;
}

/* udiv_magic(c, n) and udiv_shift(c, n): m and s of udiv_magic. */
static val elab_udiv(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 2))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    val w = tine_elab_expr(el, a->args[1], lanes);
    if (!tine_elab_ok(el, v) || !tine_elab_ok(el, w)) return (val){0};
    if (v.lit != 1 || w.lit != 1) return tine_elab_fail(el, a, "%s needs constants", n);
    tine_i128 m;
    int s = udiv_magic(v.iv, w.iv, &m);
    if (s < 0) return tine_elab_fail(el, a, "no %d-bit multiplier divides exactly by this constant", (int)w.iv);
    return (val){.lit = 1, .iv = n[5] == 'm' ? m : s};
}

static val elab_is_const(elab *el, const tine_ast *a, int lanes) {
    if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return (val){0};
    val v = tine_elab_expr(el, a->args[0], lanes);
    if (!tine_elab_ok(el, v)) return v;
    return (val){.lit = 1, .iv = v.lit || v.e->op == TINE_OP_CONST};
}

/* ---- dispatch ------------------------------------------------------------------------- */

#define RULES (1u << TINE_ELAB_PRED | 1u << TINE_ELAB_RHS)

static const struct {
    const char *name;
    val (*fn)(elab *el, const tine_ast *a, int lanes);
    unsigned modes; /* 0: every mode */
} builtins[] = {
    {"min", elab_minmax, 0},
    {"max", elab_minmax, 0},
    {"clamp", elab_clamp, 0},
    {"select", elab_select, 0},
    {"sqrt", elab_sqrt, 0},
    {"fma", elab_fma, 0},
    {"ramp", elab_ramp, 0},
    {"concat", elab_join, 0},
    {"interleave", elab_join, 0},
    {"slice", elab_pick, 0},
    {"deinterleave", elab_pick, 0},
    {"vector_reduce_add", elab_pick, 0},
    {"is_signed", elab_signedness, RULES},
    {"is_unsigned", elab_signedness, RULES},
    {"is_pow2", elab_pow2, RULES},
    {"log2", elab_pow2, RULES},
    {"udiv_magic", elab_udiv, RULES},
    {"udiv_shift", elab_udiv, RULES},
    {"is_const", elab_is_const, RULES},
};

static bool builtin_call(elab *el, const tine_ast *a, int lanes, val *out) {
    const char *n = a->name;
    tine_type_t t;
    bool is_cast = tine_parse_type_name(n, strlen(n), &t);
    if (is_cast || !strcmp(n, "cast") || !strcmp(n, "reinterpret") || !strcmp(n, "widen") || !strcmp(n, "narrow")) {
        *out = elab_cast(el, a, lanes, is_cast, t);
        return true;
    }
    /* only casts take one; the functions of the layers above and bits(T) neither */
    if (a->targ) {
        *out = tine_elab_fail(el, a, "%s takes no type parameter", n);
        return true;
    }
    if (is_broadcast_name(n)) {
        *out = elab_broadcast(el, a, lanes);
        return true;
    }
    unsigned mode = 1u << tine_elab_env_of(el)->mode;
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (!strcmp(n, builtins[i].name) && (!builtins[i].modes || builtins[i].modes & mode)) {
            *out = builtins[i].fn(el, a, lanes);
            return true;
        }
    return false;
}

void tine_elab_builtins_install(tine_ctx_t *ctx) {
    unsigned every = 1u << TINE_ELAB_EXPR | 1u << TINE_ELAB_PATTERN | 1u << TINE_ELAB_RHS | 1u << TINE_ELAB_PRED;
    tine_elab_extend(ctx, builtin_call, every, TINE_LAYER_N);
}
