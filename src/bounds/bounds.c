/* bounds.c — interval analysis: for every integer node, a range holding every lane's
 * value, for every input.
 *
 * Ranges are exact integers (128-bit) checked against the node's type: whenever the
 * mathematical range of an op leaves its type's range, the op may wrap, and the result
 * is the whole type range. So a range is always sound; it is often tight. Results are
 * cached per node in the context; supplying a variable's range clears the cache.
 *
 * Supplied ranges are facts about some evaluations only (one kernel run's parameters and
 * region), so they live in scopes: tine_bounds_open starts one (a clean one hides every
 * fact from outside it), tine_bounds_close drops what was supplied inside and restores
 * what was there. Every change of the facts advances an epoch, and caches of results
 * computed with bounds (the rule sets' rewrite memos) are valid for one epoch only: a
 * rewrite that held under one run's facts is never reused under others.
 * A node whose range cannot be stated (floats, u128 beyond 2^127) is "unknown", and
 * predicates over it are false. Tests check soundness against the interpreter.
 */
#include "../internal.h"

typedef struct {
    tine_i128 lo, hi;
    bool known;
} interval;

struct tine_bounds_cache {
    interval *iv;
    uint8_t *have;
    uint32_t cap;
    /* supplied ranges of variables, a stack: each scope's own after those of the scopes
       around it, the innermost supply of a variable wins */
    const tine_expr_t **vars;
    interval *var_iv;
    int nvars, capvars;
    /* open scopes: where each one's facts start, and whether it hides those before */
    int *scope_base;
    bool *scope_clean;
    int nscopes, capscopes;
    uint64_t epoch; /* advanced whenever the facts change */
};

static const tine_i128 I128_MAX = (tine_i128)(~(tine_u128)0 >> 1);
static const tine_i128 I128_MIN = -(tine_i128)(~(tine_u128)0 >> 1) - 1;

static interval unknown(void) { return (interval){0, 0, false}; }

static interval type_range(tine_type_t t) {
    if (t.kind == TINE_BOOL) return (interval){0, 1, true};
    if (!tine_type_is_int(t)) return unknown();
    if (t.kind == TINE_UINT && t.bits == 128) return unknown();
    if (t.bits == 128) return (interval){I128_MIN, I128_MAX, true};
    return (interval){tine_min_i128(t), tine_max_i128(t), true};
}

/* [lo, hi] if it fits t, else t's whole range (the op may wrap). */
static interval fit(tine_type_t t, tine_i128 lo, tine_i128 hi) {
    /* u128: any non-negative 128-bit signed range fits, though the whole type does not */
    if (t.kind == TINE_UINT && t.bits == 128) return lo >= 0 ? (interval){lo, hi, true} : unknown();
    interval r = type_range(t);
    if (!r.known) return r;
    if (lo >= r.lo && hi <= r.hi) return (interval){lo, hi, true};
    return r;
}

static tine_i128 imin(tine_i128 a, tine_i128 b) { return a < b ? a : b; }
static tine_i128 imax(tine_i128 a, tine_i128 b) { return a > b ? a : b; }
static tine_i128 clampi(tine_i128 v, tine_i128 lo, tine_i128 hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Overflow-checked corners; *ok is cleared when any step leaves 128 bits. */
static tine_i128 add(tine_i128 a, tine_i128 b, bool *ok) {
    tine_i128 r;
    if (__builtin_add_overflow(a, b, &r)) *ok = false;
    return r;
}
static tine_i128 sub(tine_i128 a, tine_i128 b, bool *ok) {
    tine_i128 r;
    if (__builtin_sub_overflow(a, b, &r)) *ok = false;
    return r;
}
static tine_i128 mul(tine_i128 a, tine_i128 b, bool *ok) {
    tine_i128 r;
    if (__builtin_mul_overflow(a, b, &r)) *ok = false;
    return r;
}

static interval corners_mul(tine_type_t t, interval a, interval b) {
    bool ok = true;
    tine_i128 c[4] = {mul(a.lo, b.lo, &ok), mul(a.lo, b.hi, &ok), mul(a.hi, b.lo, &ok), mul(a.hi, b.hi, &ok)};
    if (!ok) return type_range(t);
    return fit(t, imin(imin(c[0], c[1]), imin(c[2], c[3])), imax(imax(c[0], c[1]), imax(c[2], c[3])));
}

static tine_i128 floordiv(tine_i128 a, tine_i128 b) {
    tine_i128 q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

/* x >> s (floor) for 0 <= s; larger shifts give 0 or -1 */
static tine_i128 shr(tine_i128 x, tine_i128 s) { return x >> (int)(s > 127 ? 127 : s); }

/* x / 2^s rounded half up, s >= 0: the floor plus the first bit shifted out */
static tine_i128 rshr(tine_i128 x, tine_i128 s) {
    if (s == 0) return x;
    if (s > 127) return 0;
    return shr(x, s) + (shr(x, s - 1) & 1);
}

/* x · 2^s for 0 <= s, or ok = false when it leaves 128 bits */
static tine_i128 shl(tine_i128 x, tine_i128 s, bool *ok) {
    if (x == 0) return 0;
    if (s > 125) {
        *ok = false;
        return 0;
    }
    return mul(x, (tine_i128)1 << s, ok);
}

static int bit_length(tine_i128 v) { /* v >= 0 */
    int n = 0;
    while (v > 0) {
        n++;
        v >>= 1;
    }
    return n;
}

/* ---- per op --------------------------------------------------------------------- */

static interval bounds(tine_ctx_t *ctx, const tine_expr_t *root);
static struct tine_bounds_cache *cache(tine_ctx_t *ctx);
static bool supplied(const struct tine_bounds_cache *c, const tine_expr_t *e, interval *r);

/* The variable that stands for a buffer's elements among the supplied ranges: "$$" and
 * the buffer's name with '.' as '$' (scratch buffers are "$.vN"). No program's variable
 * starts so: the parser reads no '$', and tine's own names are "$.name". */
static tine_expr_t *buffer_key(tine_ctx_t *ctx, const char *buffer, tine_type_t t) {
    char key[160];
    snprintf(key, sizeof key, "$$%s", buffer);
    for (char *p = key + 2; *p; p++)
        if (*p == '.') *p = '$';
    return tine_var(ctx, key, tine_type_with_lanes(t, 1));
}

/* A reinterpret from lanes of type s in a to lanes of t of other bits (repacked
 * little-endian). A value not negative is its own bits. Joining k = bits(t) / bits(s)
 * lanes, each in [lo, hi], weighs them by 2^(j * bits(s)): [lo * M, hi * M] with
 * M = sum of those weights; for a signed t that fits when the top lane's top bit is clear
 * (hi < 2^(bits(s) - 1)), and where it is not, hi * M passes t's max (fit gives t's
 * range). Splitting a value below 2^bits(t) (2^(bits(t) - 1) for a signed t) leaves it
 * whole in lane 0 and 0 in the others: [0, hi]. Otherwise a lane may hold any bits: t's
 * range. */
static interval repacked(tine_type_t t, tine_type_t s, interval a) {
    if (!a.known || a.lo < 0 || !tine_type_is_int(s) || t.bits > 64) return type_range(t);
    int sb = s.bits, tb = t.bits;
    if (tb > sb) {
        tine_i128 m = 0; /* below 2^64; hi below 2^32: the products are exact */
        for (int j = 0; j < tb / sb; j++) m += (tine_i128)1 << (j * sb);
        return fit(t, a.lo * m, a.hi * m);
    }
    if (a.hi >> (t.kind == TINE_INT ? tb - 1 : tb)) return type_range(t);
    return (interval){0, a.hi, true};
}

static interval bound_of(tine_ctx_t *ctx, const tine_expr_t *e, const interval *o) {
    tine_type_t t = e->type;
    interval a = e->nops > 0 ? o[0] : unknown(), b = e->nops > 1 ? o[1] : unknown(),
             c = e->nops > 2 ? o[2] : unknown();
    bool ok = true;
    tine_op_t op = (tine_op_t)e->op;
    if (t.kind == TINE_FLOAT) return unknown();
    switch (op) {
    case TINE_OP_CONST: {
        if (!tine_type_is_int(t) && t.kind != TINE_BOOL) return unknown();
        if (t.kind == TINE_UINT && t.bits == 128) return unknown();
        tine_i128 lo = (tine_i128)tine_const_value(e, 0), hi = lo;
        for (int i = 1; i < t.lanes && !(e->flags & TINE_F_UNIFORM); i++) {
            tine_i128 v = (tine_i128)tine_const_value(e, i);
            lo = imin(lo, v);
            hi = imax(hi, v);
        }
        return (interval){lo, hi, true};
    }
    case TINE_OP_VAR: return type_range(t);
    case TINE_OP_LOAD: { /* the range supplied for the buffer's elements, if any */
        interval r;
        if (supplied(cache(ctx), buffer_key(ctx, tine_expr_name(e), t), &r)) return r;
        return type_range(t);
    }
    default: break;
    }
    /* below here: every operand that matters must be known */
    for (int i = 0; i < e->nops; i++)
        if (!o[i].known && op != TINE_OP_SELECT && op != TINE_OP_CAST && op != TINE_OP_REINTERPRET)
            return type_range(t);
    switch (op) {
    case TINE_OP_ADD: {
        tine_i128 lo = add(a.lo, b.lo, &ok), hi = add(a.hi, b.hi, &ok);
        return ok ? fit(t, lo, hi) : type_range(t);
    }
    case TINE_OP_SUB: {
        tine_i128 lo = sub(a.lo, b.hi, &ok), hi = sub(a.hi, b.lo, &ok);
        return ok ? fit(t, lo, hi) : type_range(t);
    }
    case TINE_OP_MUL: return corners_mul(t, a, b);
    case TINE_OP_DIV:
        if (t.kind == TINE_UINT) return b.lo > 0 ? (interval){a.lo / b.hi, a.hi / b.lo, true} : (interval){0, a.hi, true};
        if (b.lo > 0) {
            tine_i128 q[4] = {floordiv(a.lo, b.lo), floordiv(a.lo, b.hi), floordiv(a.hi, b.lo), floordiv(a.hi, b.hi)};
            return fit(t, imin(imin(q[0], q[1]), imin(q[2], q[3])), imax(imax(q[0], q[1]), imax(q[2], q[3])));
        }
        return type_range(t);
    case TINE_OP_MOD:
        if (t.kind == TINE_UINT) return (interval){0, imin(a.hi, b.hi > 0 ? b.hi - 1 : 0), true};
        if (b.lo > 0) return (interval){0, b.hi - 1, true};
        return type_range(t);
    case TINE_OP_MIN: return (interval){imin(a.lo, b.lo), imin(a.hi, b.hi), true};
    case TINE_OP_MAX: return (interval){imax(a.lo, b.lo), imax(a.hi, b.hi), true};
    case TINE_OP_NEG: return t.kind == TINE_UINT ? (a.hi == 0 ? a : type_range(t)) : fit(t, sub(0, a.hi, &ok), sub(0, a.lo, &ok));
    case TINE_OP_NOT:
        if (t.kind == TINE_BOOL) return (interval){0, 1, true};
        if (t.kind == TINE_INT) return fit(t, -a.hi - 1, -a.lo - 1);
        if (t.bits == 128) return type_range(t);
        return (interval){tine_max_i128(t) - a.hi, tine_max_i128(t) - a.lo, true};
    case TINE_OP_AND:
        if (t.kind == TINE_BOOL) return (interval){0, 1, true};
        if (a.lo >= 0 && b.lo >= 0) return (interval){0, imin(a.hi, b.hi), true};
        if (a.lo >= 0) return (interval){0, a.hi, true};
        if (b.lo >= 0) return (interval){0, b.hi, true};
        return type_range(t);
    case TINE_OP_OR:
    case TINE_OP_XOR:
        if (t.kind == TINE_BOOL) return (interval){0, 1, true};
        if (a.lo >= 0 && b.lo >= 0) {
            int n = bit_length(imax(a.hi, b.hi));
            tine_i128 hi = n >= 126 ? I128_MAX : ((tine_i128)1 << n) - 1;
            return fit(t, op == TINE_OP_OR ? imax(a.lo, b.lo) : 0, hi);
        }
        return type_range(t);
    case TINE_OP_SHL:
        if (b.lo >= 0 && b.hi < t.bits) {
            tine_i128 lo = imin(shl(a.lo, b.lo, &ok), shl(a.lo, b.hi, &ok));
            tine_i128 hi = imax(shl(a.hi, b.lo, &ok), shl(a.hi, b.hi, &ok));
            return ok ? fit(t, lo, hi) : type_range(t);
        }
        return type_range(t);
    case TINE_OP_SHR:
        if (b.lo >= 0) {
            tine_i128 s0 = imin(b.lo, t.bits), s1 = imin(b.hi, t.bits);
            return (interval){imin(shr(a.lo, s0), shr(a.lo, s1)), imax(shr(a.hi, s0), shr(a.hi, s1)), true};
        }
        return type_range(t);
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE: {
        /* decided when the ranges do not overlap in the way the comparison asks */
        int always = -1; /* -1 unknown, 0 false, 1 true */
        switch (op) {
        case TINE_OP_LT: always = a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1; break;
        case TINE_OP_LE: always = a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1; break;
        case TINE_OP_GT: always = a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1; break;
        case TINE_OP_GE: always = a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1; break;
        case TINE_OP_EQ: always = (a.hi < b.lo || b.hi < a.lo) ? 0 : (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) ? 1 : -1; break;
        default: always = (a.hi < b.lo || b.hi < a.lo) ? 1 : (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) ? 0 : -1; break;
        }
        return always < 0 ? (interval){0, 1, true} : (interval){always, always, true};
    }
    case TINE_OP_SELECT:
        if (a.known && a.lo == 1) return b;
        if (a.known && a.hi == 0) return c;
        if (!b.known || !c.known) return type_range(t);
        return (interval){imin(b.lo, c.lo), imax(b.hi, c.hi), true};
    case TINE_OP_CAST:
        if (e->ops[0]->type.kind == TINE_BOOL) return fit(t, 0, 1);
        if (t.kind == TINE_BOOL) return (a.known && (a.lo > 0 || a.hi < 0)) ? (interval){1, 1, true}
                                        : (a.known && a.lo == 0 && a.hi == 0) ? (interval){0, 0, true}
                                                                              : (interval){0, 1, true};
        return a.known ? fit(t, a.lo, a.hi) : type_range(t);
    case TINE_OP_REINTERPRET:
        if (e->ops[0]->type.lanes != t.lanes) return repacked(t, e->ops[0]->type, a);
        return a.known ? fit(t, a.lo, a.hi) : type_range(t);
    case TINE_OP_BROADCAST:
    case TINE_OP_SLICE:
    case TINE_OP_DEINTERLEAVE: return a;
    case TINE_OP_RAMP: {
        tine_i128 last = t.lanes - 1;
        tine_i128 e0 = mul(b.lo, last, &ok), e1 = mul(b.hi, last, &ok);
        tine_i128 lo = imin(a.lo, add(a.lo, imin(e0, e1), &ok)), hi = imax(a.hi, add(a.hi, imax(e0, e1), &ok));
        return ok ? fit(t, lo, hi) : type_range(t);
    }
    case TINE_OP_CONCAT:
    case TINE_OP_INTERLEAVE: {
        interval r = o[0];
        for (int i = 1; i < e->nops; i++) r = (interval){imin(r.lo, o[i].lo), imax(r.hi, o[i].hi), true};
        return r;
    }
    case TINE_OP_INSN: /* the range of its semantics on these operands */
        return bounds(ctx, tine_expand(ctx, (tine_expr_t *)e));
    case TINE_OP_VECTOR_REDUCE_ADD: {
        tine_i128 g = e->ops[0]->type.lanes / t.lanes;
        return fit(t, mul(a.lo, g, &ok), mul(a.hi, g, &ok));
    }
    default: break;
    }
    /* FPIR ops: the exact value's range, then saturation or wrapping as the op does.
       Operands of at most 64 bits keep every sum and difference below within 128 bits. */
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i]->type.bits > 64) return type_range(t);
    tine_type_t w = t;
    switch (op) {
    case TINE_OP_WIDENING_ADD: return fit(t, a.lo + b.lo, a.hi + b.hi);
    case TINE_OP_WIDENING_SUB: return fit(t, a.lo - b.hi, a.hi - b.lo);
    case TINE_OP_WIDENING_MUL: return corners_mul(t, a, b);
    case TINE_OP_WIDENING_SHL:
        if (b.lo >= 0 && b.hi < 2 * e->ops[0]->type.bits) {
            tine_i128 lo = imin(shl(a.lo, b.lo, &ok), shl(a.lo, b.hi, &ok));
            tine_i128 hi = imax(shl(a.hi, b.lo, &ok), shl(a.hi, b.hi, &ok));
            return ok ? fit(t, lo, hi) : type_range(t);
        }
        return type_range(t);
    case TINE_OP_WIDENING_SHR:
        if (b.lo >= 0) return (interval){imin(shr(a.lo, b.lo), shr(a.lo, b.hi)), imax(shr(a.hi, b.lo), shr(a.hi, b.hi)), true};
        return type_range(t);
    case TINE_OP_EXTENDING_ADD:
        if (e->ops[0]->type.kind != e->ops[1]->type.kind) return type_range(t);
        return fit(t, a.lo + b.lo, a.hi + b.hi);
    case TINE_OP_EXTENDING_SUB:
        if (e->ops[0]->type.kind != e->ops[1]->type.kind) return type_range(t);
        return fit(t, a.lo - b.hi, a.hi - b.lo);
    case TINE_OP_EXTENDING_MUL:
        if (e->ops[0]->type.kind != e->ops[1]->type.kind) return type_range(t);
        return corners_mul(t, a, b);
    case TINE_OP_ABS:
        if (a.lo >= 0) return a;
        if (a.hi <= 0) return (interval){-a.hi, -a.lo, true};
        return (interval){0, imax(-a.lo, a.hi), true};
    case TINE_OP_ABSD:
        return (interval){imax(0, imax(a.lo - b.hi, b.lo - a.hi)), imax(a.hi - b.lo, b.hi - a.lo), true};
    case TINE_OP_SATURATING_CAST:
    case TINE_OP_SATURATING_NARROW: {
        interval r = type_range(t);
        return (interval){clampi(a.lo, r.lo, r.hi), clampi(a.hi, r.lo, r.hi), true};
    }
    case TINE_OP_SATURATING_ADD:
    case TINE_OP_SATURATING_SUB: {
        interval r = type_range(t);
        tine_i128 lo = op == TINE_OP_SATURATING_ADD ? a.lo + b.lo : a.lo - b.hi;
        tine_i128 hi = op == TINE_OP_SATURATING_ADD ? a.hi + b.hi : a.hi - b.lo;
        return (interval){clampi(lo, r.lo, r.hi), clampi(hi, r.lo, r.hi), true};
    }
    case TINE_OP_HALVING_ADD: return fit(t, (a.lo + b.lo) >> 1, (a.hi + b.hi) >> 1);
    case TINE_OP_HALVING_SUB: return fit(t, (a.lo - b.hi) >> 1, (a.hi - b.lo) >> 1);
    case TINE_OP_ROUNDING_HALVING_ADD: return fit(t, (a.lo + b.lo + 1) >> 1, (a.hi + b.hi + 1) >> 1);
    case TINE_OP_ROUNDING_SHR:
        if (b.lo >= 0) {
            tine_i128 s0 = imin(b.lo, t.bits + 1), s1 = imin(b.hi, t.bits + 1);
            return fit(t, imin(rshr(a.lo, s0), rshr(a.lo, s1)), imax(rshr(a.hi, s0), rshr(a.hi, s1)));
        }
        return type_range(t);
    case TINE_OP_MUL_SHR:
    case TINE_OP_ROUNDING_MUL_SHR: {
        w = tine_type_widen(t);
        interval p = corners_mul(w, a, b);
        if (!p.known || p.lo < type_range(w).lo || p.hi > type_range(w).hi) return type_range(t);
        tine_i128 s0 = imin(c.lo, 2 * t.bits + 1), s1 = imin(c.hi, 2 * t.bits + 1);
        tine_i128 (*f)(tine_i128, tine_i128) = op == TINE_OP_MUL_SHR ? shr : rshr;
        interval r = type_range(t);
        tine_i128 lo = imin(f(p.lo, s0), f(p.lo, s1)), hi = imax(f(p.hi, s0), f(p.hi, s1));
        return (interval){clampi(lo, r.lo, r.hi), clampi(hi, r.lo, r.hi), true};
    }
    case TINE_OP_SATURATING_SHL:
        if (b.lo >= 0) {
            interval r = type_range(t);
            tine_i128 s0 = imin(b.lo, t.bits), s1 = imin(b.hi, t.bits);
            tine_i128 lo = imin(shl(a.lo, s0, &ok), shl(a.lo, s1, &ok)), hi = imax(shl(a.hi, s0, &ok), shl(a.hi, s1, &ok));
            if (!ok) return r;
            return (interval){clampi(lo, r.lo, r.hi), clampi(hi, r.lo, r.hi), true};
        }
        return type_range(t);
    default: return type_range(t);
    }
    (void)ctx;
}

/* ---- cache and API -------------------------------------------------------------- */

static void free_cache(tine_ctx_t *ctx, void *p);

/* The context's cache (its TINE_LAYER_BOUNDS slot), made on first use. */
static struct tine_bounds_cache *cache(tine_ctx_t *ctx) {
    struct tine_bounds_cache *c = tine_layer_get(ctx, TINE_LAYER_BOUNDS);
    if (!c) {
        c = tine_xcalloc(1, sizeof *c);
        tine_layer_set(ctx, TINE_LAYER_BOUNDS, c, free_cache);
    }
    if (c->cap < ctx->count) {
        uint32_t cap = c->cap ? c->cap : 1024;
        while (cap < ctx->count) cap *= 2;
        c->iv = tine_xrealloc_array(c->iv, cap, sizeof *c->iv);
        c->have = tine_xrealloc(c->have, cap);
        memset(c->have + c->cap, 0, cap - c->cap);
        c->cap = cap;
    }
    return c;
}

static void free_cache(tine_ctx_t *ctx, void *p) {
    (void)ctx;
    struct tine_bounds_cache *c = p;
    free(c->iv);
    free(c->have);
    free(c->vars);
    free(c->var_iv);
    free(c->scope_base);
    free(c->scope_clean);
    free(c);
}

int tine_bounds_set_var(tine_ctx_t *ctx, const tine_expr_t *var, int64_t lo, int64_t hi) {
    if (!var || var->op != TINE_OP_VAR || !tine_type_is_int(var->type)) {
        tine_set_error(ctx, "bounds can be given only for integer variables");
        return -1;
    }
    interval r = type_range(var->type);
    if (lo > hi || (r.known && (lo < r.lo || hi > r.hi))) {
        tine_set_error(ctx, "bounds [%lld, %lld] are empty or outside the variable's type", (long long)lo,
                       (long long)hi);
        return -1;
    }
    struct tine_bounds_cache *c = cache(ctx);
    /* a variable supplied again in the same scope is replaced; one supplied outside it is
       shadowed until the scope closes */
    int base = c->nscopes ? c->scope_base[c->nscopes - 1] : 0, k = base;
    while (k < c->nvars && c->vars[k] != var) k++;
    if (k == c->nvars) {
        if (c->nvars == c->capvars) {
            c->capvars = (int)tine_grow_cap((size_t)c->capvars, (size_t)c->nvars + 1);
            c->vars = tine_xrealloc_array(c->vars, (size_t)c->capvars, sizeof *c->vars);
            c->var_iv = tine_xrealloc_array(c->var_iv, (size_t)c->capvars, sizeof *c->var_iv);
        }
        c->nvars++;
    }
    c->vars[k] = var;
    c->var_iv[k] = (interval){lo, hi, true};
    memset(c->have, 0, c->cap); /* every cached range may depend on it */
    c->epoch++;
    return 0;
}

int tine_bounds_set_buffer(tine_ctx_t *ctx, const char *buffer, tine_type_t elem, int64_t lo, int64_t hi) {
    return tine_bounds_set_var(ctx, buffer_key(ctx, buffer, elem), lo, hi);
}

int tine_bounds_open(tine_ctx_t *ctx, bool clean) {
    struct tine_bounds_cache *c = cache(ctx);
    if (c->nscopes == c->capscopes) {
        c->capscopes = (int)tine_grow_cap((size_t)c->capscopes, (size_t)c->nscopes + 1);
        c->scope_base = tine_xrealloc_array(c->scope_base, (size_t)c->capscopes, sizeof *c->scope_base);
        c->scope_clean = tine_xrealloc_array(c->scope_clean, (size_t)c->capscopes, sizeof *c->scope_clean);
    }
    c->scope_base[c->nscopes] = c->nvars;
    c->scope_clean[c->nscopes] = clean;
    if (clean && c->nvars > 0) { /* the outer facts disappear from view */
        memset(c->have, 0, c->cap);
        c->epoch++;
    }
    return c->nscopes++;
}

void tine_bounds_close(tine_ctx_t *ctx, int scope) {
    struct tine_bounds_cache *c = cache(ctx);
    /* scopes nest: closing another than the innermost is tine's bug */
    TINE_ASSERT(scope >= 0 && scope == c->nscopes - 1);
    bool changed = c->nvars > c->scope_base[scope] || (c->scope_clean[scope] && c->scope_base[scope] > 0);
    c->nvars = c->scope_base[scope];
    c->nscopes = scope;
    if (changed) {
        memset(c->have, 0, c->cap);
        c->epoch++;
    }
}

uint64_t tine_bounds_epoch(tine_ctx_t *ctx) {
    const struct tine_bounds_cache *c = tine_layer_get(ctx, TINE_LAYER_BOUNDS);
    return c ? c->epoch : 0;
}

/* The supplied range of variable e, if one is in view: the innermost supply, looking no
   further out than the innermost clean scope. */
static bool supplied(const struct tine_bounds_cache *c, const tine_expr_t *e, interval *r) {
    int floor = 0;
    for (int s = c->nscopes - 1; s >= 0; s--)
        if (c->scope_clean[s]) {
            floor = c->scope_base[s];
            break;
        }
    for (int v = c->nvars - 1; v >= floor; v--)
        if (c->vars[v] == e) {
            *r = c->var_iv[v];
            return true;
        }
    return false;
}

static interval bounds(tine_ctx_t *ctx, const tine_expr_t *root) {
    struct tine_bounds_cache *c = cache(ctx);
    if (c->have[root->id]) return c->iv[root->id];
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    for (uint32_t k = 0; k < n; k++) {
        const tine_expr_t *e = order[k];
        if (c->have[e->id]) continue;
        interval o[256], r;
        for (int i = 0; i < e->nops; i++) o[i] = c->iv[e->ops[i]->id];
        r = bound_of(ctx, e, o);
        if (e->op == TINE_OP_VAR) supplied(c, e, &r);
        c->iv[e->id] = r;
        c->have[e->id] = 1;
    }
    free(order);
    return c->iv[root->id];
}

bool tine_bounds(tine_ctx_t *ctx, const tine_expr_t *e, tine_i128 *lo, tine_i128 *hi) {
    interval r = bounds(ctx, e);
    if (!r.known) return false;
    *lo = r.lo;
    *hi = r.hi;
    return true;
}
