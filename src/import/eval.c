/* eval.c — Intel pseudocode (pseudo.h) evaluated symbolically into tine expressions.
 *
 * Loops run with their counters concrete, so every bit slice of a register has known
 * bounds and becomes a lane of the operand (`slice(a, k, 1, 1)`) or a piece of one; the
 * result register is assembled lane by lane. Values are scalars: a concrete integer, or
 * a one-lane tine expression with the exact range of values it can take, so arithmetic
 * is done in a type that holds its result (the pseudocode's integers are unbounded) and
 * assignment to a slice truncates. The rules this fixes, where the pseudocode is
 * ambiguous (docs/IMPORT.md lists them):
 *   - a slice of an operand is signed or unsigned as the operand's element type (etype)
 *     says; `>>` is arithmetic on signed values, logical on unsigned;
 *   - `+ - *` are exact (the pseudocode's integers do not wrap); a comparison compares
 *     values; Saturate*(x) clamps the exact value;
 *   - a slice of a temporary is unsigned unless the temporary was assigned whole from a
 *     signed value;
 *   - a shift by a symbolic count is done in the value's own type, with the count
 *     clamped to its width (every such count in the guide is guarded or truncated).
 * A variable is a bit map: segments [lo, lo+w) each holding an unsigned expression.
 * IF on a symbolic condition runs both arms and merges what they assigned with select;
 * a slice at a symbolic offset is a select over the offsets it can take. */
#include "eval.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int lo, w;
    tine_expr_t *e; /* unsigned, of type ubits(w), holding the w bits */
} seg;

typedef struct {
    seg *s;
    int n, cap;
    int width; /* declared bits (0: as far as written) */
    bool sgn;  /* slices read signed */
    int *reach; /* an operand's: the end of the highest bits read (copies share it) */
} bitmap;

typedef enum { V_NONE, V_INT, V_SYM, V_BITS } vkind;
typedef struct {
    vkind k;
    tine_i128 i;             /* V_INT */
    tine_expr_t *e;          /* V_SYM: a scalar of an integer type, or bool */
    tine_i128 lo, hi;        /* V_SYM: its range */
    bitmap *b;               /* V_BITS: a wide value (owned by the evaluator's arena) */
} value;

typedef struct var {
    const char *name;
    bool is_bits;
    bool temp;   /* neither an operand nor the result: its signedness is what is written to it */
    value v;     /* !is_bits */
    bitmap bm;   /* is_bits */
} var;

typedef struct {
    var *v;
    int n, cap;
} env;

typedef struct ev {
    tine_ctx_t *ctx;
    tine_arena *arena;
    const p_node *defs[16];
    int ndefs;
    char *err;
    size_t nerr;
    bool failed;
    int depth;
    value ret;
    bool returned;
    long steps;
    bool every_offset; /* symbolic offsets: every place, not only those in the offset's range */
    bitmap **made;     /* the wide values made on the way (their segments freed at the end) */
    int nmade, capmade;
} ev;

static const value NONE = {0};

static void efail(ev *x, const p_node *at, const char *fmt, ...) {
    if (x->failed) return;
    x->failed = true;
    char m[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    if (at) snprintf(x->err, x->nerr, "%d:%d: %s", at->line, at->col, m);
    else snprintf(x->err, x->nerr, "%s", m);
}

/* A wide value's bit map, in the arena; its segment array is freed with the evaluator. */
static bitmap *new_bitmap(ev *x) {
    bitmap *b = tine_arena_alloc(x->arena, sizeof *b);
    TINE_GROW(x->made, x->nmade + 1, x->capmade);
    x->made[x->nmade++] = b;
    return b;
}

/* ---- types and ranges ------------------------------------------------------------- */

static int roundbits(int w) { return w <= 8 ? 8 : w <= 16 ? 16 : w <= 32 ? 32 : w <= 64 ? 64 : 128; }
static tine_type_t ity(bool sgn, int bits) { return tine_type(sgn ? TINE_INT : TINE_UINT, bits, 1); }

/* The smallest type holding [lo, hi]; invalid if none. */
static tine_type_t fit(tine_i128 lo, tine_i128 hi) {
    for (int b = 8; b <= 128; b *= 2) {
        tine_type_t t = ity(lo < 0, b);
        if (tine_fits(t, lo) && tine_fits(t, hi)) return t;
    }
    return ity(true, 0);
}

static value sym(tine_expr_t *e, tine_i128 lo, tine_i128 hi) {
    value v = {.k = e ? V_SYM : V_NONE, .e = e, .lo = lo, .hi = hi};
    return v;
}
static value sym_full(tine_expr_t *e) {
    if (!e) return NONE;
    if (e->type.kind == TINE_BOOL) return sym(e, 0, 1);
    return sym(e, tine_min_i128(e->type), tine_max_i128(e->type));
}
static value vint(tine_i128 i) { return (value){.k = V_INT, .i = i}; }

static tine_expr_t *cst(ev *x, tine_type_t t, tine_i128 v) {
    tine_u128 u = tine_canon(t, (tine_u128)v);
    return tine_const_u128(x->ctx, t, &u);
}

/* v as an expression of type t (its value kept when the range fits, else truncated). */
static tine_expr_t *as_type(ev *x, value v, tine_type_t t) {
    if (v.k == V_INT) return cst(x, t, v.i);
    if (v.k != V_SYM) return NULL;
    tine_expr_t *e = v.e;
    if (e->type.kind == TINE_BOOL) e = tine_select(x->ctx, e, cst(x, ity(false, 8), 1), cst(x, ity(false, 8), 0));
    if (tine_type_eq(e->type, t)) return e;
    return tine_cast(x->ctx, t, e);
}

/* Operands of a binary op converted to one type holding both ranges. */
static tine_type_t common(value a, value b) {
    tine_i128 lo = a.k == V_INT ? a.i : a.lo, hi = a.k == V_INT ? a.i : a.hi;
    tine_i128 lo2 = b.k == V_INT ? b.i : b.lo, hi2 = b.k == V_INT ? b.i : b.hi;
    tine_type_t t = fit(lo < lo2 ? lo : lo2, hi > hi2 ? hi : hi2);
    /* keep a symbolic operand's own type when it holds both (no needless casts) */
    const value *s = a.k == V_SYM ? &a : b.k == V_SYM ? &b : NULL;
    if (s && s->e->type.kind != TINE_BOOL) {
        tine_type_t st = s->e->type;
        if (tine_fits(st, lo) && tine_fits(st, lo2) && tine_fits(st, hi) && tine_fits(st, hi2)) return st;
    }
    return t;
}

static tine_i128 vlo(value v) { return v.k == V_INT ? v.i : v.lo; }
static tine_i128 vhi(value v) { return v.k == V_INT ? v.i : v.hi; }

/* ---- bit maps ------------------------------------------------------------------------ */

static void bm_copy(bitmap *d, const bitmap *s) {
    *d = *s;
    d->s = NULL, d->cap = 0;
    if (s->n) {
        TINE_GROW(d->s, s->n, d->cap);
        memcpy(d->s, s->s, sizeof(seg) * (size_t)s->n);
    }
}

static int bm_extent(const bitmap *b) {
    int w = b->width;
    for (int i = 0; i < b->n; i++)
        if (b->s[i].lo + b->s[i].w > w) w = b->s[i].lo + b->s[i].w;
    return w;
}

/* Bits [off, off+w) of segment expression e (unsigned, holding its bits) as ubits(R). */
static tine_expr_t *piece(ev *x, tine_expr_t *e, int off, int w, int R) {
    tine_type_t t = e->type;
    if (off) e = tine_binary(x->ctx, TINE_OP_SHR, e, cst(x, t, off));
    tine_type_t r = ity(false, R);
    if (!tine_type_eq(t, r)) e = tine_cast(x->ctx, r, e);
    if (w < R && w < t.bits - off) e = tine_binary(x->ctx, TINE_OP_AND, e, cst(x, r, ((tine_i128)1 << w) - 1));
    return e;
}

/* Bits [lo, lo+w) read as an unsigned value of ubits(w) (w ≤ 128); unwritten bits are 0. */
static tine_expr_t *bm_read_u(ev *x, const bitmap *b, int lo, int w) {
    int R = roundbits(w);
    if (b->reach && lo + w > *b->reach) *b->reach = lo + w;
    tine_type_t r = ity(false, R);
    tine_expr_t *acc = NULL;
    for (int i = 0; i < b->n; i++) {
        const seg *s = &b->s[i];
        int a = s->lo > lo ? s->lo : lo, z = s->lo + s->w < lo + w ? s->lo + s->w : lo + w;
        if (a >= z) continue;
        if (a == s->lo && z - a == s->w && a == lo && s->w == w && s->e->type.bits == R) return s->e;
        tine_expr_t *p = piece(x, s->e, a - s->lo, z - a, R);
        if (a > lo) p = tine_binary(x->ctx, TINE_OP_SHL, p, cst(x, r, a - lo));
        acc = acc ? tine_binary(x->ctx, TINE_OP_OR, acc, p) : p;
    }
    return acc ? acc : cst(x, r, 0);
}

static value bm_read(ev *x, const bitmap *b, int lo, int w) {
    if (w > 128) {
        efail(x, NULL, "a value of %d bits", w);
        return NONE;
    }
    tine_expr_t *u = bm_read_u(x, b, lo, w);
    int R = u->type.bits;
    if (b->sgn && w > 1) {
        tine_expr_t *s = tine_reinterpret(x->ctx, ity(true, R), u);
        if (w < R) { /* sign-extend w bits within R */
            tine_expr_t *k = cst(x, ity(true, R), R - w);
            s = tine_binary(x->ctx, TINE_OP_SHR, tine_binary(x->ctx, TINE_OP_SHL, s, k), k);
        }
        return sym(s, -((tine_i128)1 << (w - 1)), ((tine_i128)1 << (w - 1)) - 1);
    }
    return sym(u, 0, w >= 127 ? tine_max_i128(u->type) : ((tine_i128)1 << w) - 1);
}

/* A wide value of at most 128 bits as a scalar (arithmetic needs one). */
static value to_sym(ev *x, value v) {
    if (v.k != V_BITS) return v;
    int w = bm_extent(v.b);
    if (w > 128 || w <= 0) return v;
    return bm_read(x, v.b, 0, w);
}

/* Writes u (unsigned, ubits(w)-typed or narrower) to bits [lo, lo+w). */
static void bm_write_u(ev *x, bitmap *b, int lo, int w, tine_expr_t *u) {
    seg *ns = NULL;
    int nn = 0, cap = 0;
    for (int i = 0; i < b->n; i++) {
        seg s = b->s[i];
        if (s.lo + s.w <= lo || s.lo >= lo + w) {
            TINE_GROW(ns, nn + 1, cap);
            ns[nn++] = s;
            continue;
        }
        if (s.lo < lo) { /* the part below */
            TINE_GROW(ns, nn + 1, cap);
            ns[nn++] = (seg){s.lo, lo - s.lo, piece(x, s.e, 0, lo - s.lo, roundbits(lo - s.lo))};
        }
        if (s.lo + s.w > lo + w) { /* the part above */
            int off = lo + w - s.lo;
            TINE_GROW(ns, nn + 1, cap);
            ns[nn++] = (seg){lo + w, s.w - off, piece(x, s.e, off, s.w - off, roundbits(s.w - off))};
        }
    }
    TINE_GROW(ns, nn + 1, cap);
    ns[nn++] = (seg){lo, w, u};
    free(b->s);
    b->s = ns, b->n = nn, b->cap = cap;
}

static void bm_write(ev *x, bitmap *b, int lo, int w, value v) {
    if (v.k == V_BITS) { /* a wide value: its segments, moved */
        bitmap *s = v.b;
        for (int i = 0; i < s->n && !x->failed; i++)
            if (s->s[i].lo < w) {
                int sw = s->s[i].lo + s->s[i].w > w ? w - s->s[i].lo : s->s[i].w;
                bm_write_u(x, b, lo + s->s[i].lo, sw, piece(x, s->s[i].e, 0, sw, roundbits(sw)));
            }
        /* bits the value does not cover are 0 */
        int ext = bm_extent(s);
        if (ext < w) bm_write_u(x, b, lo + ext, w - ext, cst(x, ity(false, roundbits(w - ext)), 0));
        return;
    }
    if (w > 128) {
        if (v.k == V_INT && v.i == 0) { /* dst[511:256] := 0 */
            for (int o = 0; o < w; o += 64) bm_write_u(x, b, lo + o, 64, cst(x, ity(false, 64), 0));
            return;
        }
        efail(x, NULL, "a value of %d bits", w);
        return;
    }
    int R = roundbits(w);
    tine_expr_t *e = as_type(x, v, vlo(v) < 0 ? ity(true, R) : ity(false, R));
    if (!e) return;
    if (e->type.kind == TINE_INT) e = tine_reinterpret(x->ctx, ity(false, R), e);
    if (w < R && (vlo(v) < 0 || vhi(v) >= ((tine_i128)1 << w))) e = tine_binary(x->ctx, TINE_OP_AND, e, cst(x, ity(false, R), ((tine_i128)1 << w) - 1));
    bm_write_u(x, b, lo, w, e);
}

/* ---- the environment ---------------------------------------------------------------- */

static var *lookup(env *en, const char *name) {
    for (int i = en->n - 1; i >= 0; i--)
        if (!strcmp(en->v[i].name, name)) return &en->v[i];
    return NULL;
}

static var *define(env *en, const char *name) {
    var *v = lookup(en, name);
    if (v) return v;
    TINE_GROW(en->v, en->n + 1, en->cap);
    v = &en->v[en->n++];
    memset(v, 0, sizeof *v);
    v->name = name;
    return v;
}

static void env_copy(env *d, const env *s) {
    d->n = s->n, d->cap = 0, d->v = NULL;
    if (!s->n) return;
    TINE_GROW(d->v, s->n, d->cap);
    memcpy(d->v, s->v, sizeof(var) * (size_t)s->n);
    for (int i = 0; i < s->n; i++)
        if (s->v[i].is_bits) bm_copy(&d->v[i].bm, &s->v[i].bm);
}

static void env_free(env *e) {
    for (int i = 0; i < e->n; i++)
        if (e->v[i].is_bits) free(e->v[i].bm.s);
    free(e->v);
    e->v = NULL, e->n = e->cap = 0;
}

/* ---- values ------------------------------------------------------------------------------ */

/* A condition as a bool expression (or concrete). */
static value cond_of(ev *x, value v) {
    v = to_sym(x, v);
    if (v.k == V_INT) return vint(v.i != 0);
    if (v.k != V_SYM) return NONE;
    tine_expr_t *e = v.e;
    if (e->type.kind == TINE_BOOL) return v;
    /* select(c, 1, 0) — a bit computed from a condition — is the condition */
    if (e->op == TINE_OP_SELECT && e->ops[1]->op == TINE_OP_CONST && e->ops[2]->op == TINE_OP_CONST &&
        tine_expr_const_lane(e->ops[2], 0) == 0 && tine_expr_const_lane(e->ops[1], 0) != 0)
        return sym_full(e->ops[0]);
    return sym_full(tine_binary(x->ctx, TINE_OP_NE, e, cst(x, e->type, 0)));
}

static value select_v(ev *x, value c, value t, value f) {
    t = to_sym(x, t), f = to_sym(x, f);
    if (c.k == V_INT) return c.i ? t : f;
    if (t.k == V_INT && f.k == V_INT && t.i == f.i) return t;
    if (t.k == V_SYM && f.k == V_SYM && t.e == f.e) return t;
    if (t.k == V_BITS || f.k == V_BITS) {
        efail(x, NULL, "a wide value chosen by a condition");
        return NONE;
    }
    tine_type_t ty = common(t, f);
    tine_i128 lo = vlo(t) < vlo(f) ? vlo(t) : vlo(f), hi = vhi(t) > vhi(f) ? vhi(t) : vhi(f);
    bool boolean = t.k == V_SYM && f.k == V_SYM && t.e->type.kind == TINE_BOOL && f.e->type.kind == TINE_BOOL;
    if (boolean) return sym(tine_select(x->ctx, c.e, t.e, f.e), 0, 1);
    return sym(tine_select(x->ctx, c.e, as_type(x, t, ty), as_type(x, f, ty)), lo, hi);
}

static tine_i128 i128_min(tine_i128 a, tine_i128 b) { return a < b ? a : b; }
static tine_i128 i128_max(tine_i128 a, tine_i128 b) { return a > b ? a : b; }

static value arith(ev *x, const p_node *at, int op, value a, value b);

/* A wide value (a bit map) as bits: a scalar's bits when it is one. */
static bitmap *as_bits(ev *x, value v, int w) {
    if (v.k == V_BITS) return v.b;
    bitmap *b = new_bitmap(x);
    if (v.k == V_INT && v.i == 0) return b;
    if (v.k == V_INT || v.k == V_SYM) bm_write(x, b, 0, w < 128 ? w : 128, v);
    return b;
}

/* The shift of a wide value: bits move by s (a constant or a multiple of unit, within
 * the range of the value s), in chunks; what comes in is 0. */
static value wide_shift(ev *x, const p_node *at, bool left, value a, value s, int unit) {
    bitmap *b = as_bits(x, a, 0);
    int ext = bm_extent(b);
    if (a.k == V_BITS && a.b->width > ext) ext = a.b->width;
    tine_i128 lo = vlo(s), hi = vhi(s);
    if (s.k == V_INT) unit = 64;
    if (!unit || lo < 0) {
        efail(x, at, "a shift of a wide value by an amount that is not a constant multiple");
        return NONE;
    }
    int g = 8;
    while (g * 2 <= 64 && unit % (g * 2) == 0 && ext % (g * 2) == 0) g *= 2;
    if (s.k == V_INT) {
        g = 8;
        while (g > 1 && (s.i % g || ext % g)) g /= 2;
    }
    int out = left ? ext + (int)(hi < 4096 ? hi : 0) : ext;
    if (hi > 4096 || (s.k != V_INT && (hi - lo) / unit > 256)) {
        efail(x, at, "a wide shift by too many amounts");
        return NONE;
    }
    bitmap *r = new_bitmap(x);
    r->width = out;
    for (int q = 0; q < out && !x->failed; q += g) {
        value acc = NONE;
        for (tine_i128 c = s.k == V_INT ? s.i : lo - lo % unit; c <= (s.k == V_INT ? s.i : hi); c += s.k == V_INT ? 1 : unit) {
            if (c < lo) continue;
            tine_i128 src = left ? q - c : q + c;
            value piece = src < 0 || src + g > ext ? vint(0) : bm_read(x, b, (int)src, g);
            if (src >= 0 && src < ext && src + g > ext) piece = bm_read(x, b, (int)src, (int)(ext - src));
            acc = acc.k == V_NONE ? piece : select_v(x, arith(x, at, PT_EQ, s, vint(c)), piece, acc);
        }
        if (acc.k != V_NONE) bm_write(x, r, q, g, acc);
    }
    return (value){.k = V_BITS, .b = r};
}

/* A symbolic shift count for a value of type t: of t's bits, clamped to them (a count
 * at or past the width shifts everything out) unless its range is below them. */
static tine_expr_t *shift_count(ev *x, value b, tine_type_t t) {
    tine_ctx_t *c = x->ctx;
    tine_type_t ct = ity(t.kind == TINE_INT, t.bits);
    if (vlo(b) >= 0 && vhi(b) < t.bits) return as_type(x, b, ct);
    tine_expr_t *n = as_type(x, b, ity(false, 64));
    n = tine_binary(c, TINE_OP_MIN, n, cst(x, ity(false, 64), t.bits));
    return tine_reinterpret(c, ct, tine_cast(c, ity(false, t.bits), n));
}

static value arith(ev *x, const p_node *at, int op, value a, value b) {
    a = to_sym(x, a), b = to_sym(x, b);
    if ((a.k == V_BITS || b.k == V_BITS) && (op == PT_AND || op == PT_OR || op == PT_XOR)) {
        /* bitwise, 64 bits at a time */
        bitmap *p = as_bits(x, a, 128), *q = as_bits(x, b, 128);
        int ext = bm_extent(p) > bm_extent(q) ? bm_extent(p) : bm_extent(q);
        bitmap *r = new_bitmap(x);
        r->width = ext;
        for (int o = 0; o < ext && !x->failed; o += 64) {
            int w = ext - o < 64 ? ext - o : 64;
            value u = arith(x, at, op, bm_read(x, p, o, w), bm_read(x, q, o, w));
            bm_write(x, r, o, w, u);
        }
        return (value){.k = V_BITS, .b = r};
    }
    if (a.k == V_BITS || b.k == V_BITS) {
        efail(x, at, "arithmetic on a value wider than 128 bits");
        return NONE;
    }
    if (a.k == V_NONE || b.k == V_NONE) return NONE;
    tine_ctx_t *c = x->ctx;
    if (a.k == V_INT && b.k == V_INT) { /* concrete */
        tine_i128 p = a.i, q = b.i;
        switch (op) {
        case '+': return vint(p + q);
        case '-': return vint(p - q);
        case '*': return vint(p * q);
        case '/': return vint(q ? p / q : 0);
        case '%': return vint(q ? p % q : 0);
        case PT_SHL: return vint(q >= 127 ? 0 : p << q);
        case PT_SHR: return vint(q >= 127 ? (p < 0 ? -1 : 0) : p >> q);
        case PT_AND: return vint(p & q);
        case PT_OR: return vint(p | q);
        case PT_XOR: return vint(p ^ q);
        case '<': return vint(p < q);
        case '>': return vint(p > q);
        case PT_LE: return vint(p <= q);
        case PT_GE: return vint(p >= q);
        case PT_EQ: return vint(p == q);
        case PT_NE: return vint(p != q);
        case PT_LAND: return vint(p && q);
        case PT_LOR: return vint(p || q);
        }
    }
    if (op == PT_LAND || op == PT_LOR) {
        value p = cond_of(x, a), q = cond_of(x, b);
        if (p.k == V_INT) return p.i ? (op == PT_LAND ? q : vint(1)) : (op == PT_LAND ? vint(0) : q);
        if (q.k == V_INT) return q.i ? (op == PT_LAND ? p : vint(1)) : (op == PT_LAND ? vint(0) : p);
        return sym(tine_binary(c, op == PT_LAND ? TINE_OP_AND : TINE_OP_OR, p.e, q.e), 0, 1);
    }
    tine_i128 al = vlo(a), ah = vhi(a), bl = vlo(b), bh = vhi(b);
    tine_i128 lo, hi;
    switch (op) {
    case '+': lo = al + bl, hi = ah + bh; break;
    case '-': lo = al - bh, hi = ah - bl; break;
    case '*': {
        tine_i128 p1 = al * bl, p2 = al * bh, p3 = ah * bl, p4 = ah * bh;
        lo = i128_min(i128_min(p1, p2), i128_min(p3, p4)), hi = i128_max(i128_max(p1, p2), i128_max(p3, p4));
        break;
    }
    case PT_SHL:
        if (b.k == V_INT && b.i >= 0 && b.i < 127) {
            /* the exact range, a bound past i128's kept at its top (a u128 holds it) */
            tine_i128 top = (tine_i128)(~(tine_u128)0 >> 1), lim = top >> b.i;
            if (al < -lim) {
                efail(x, at, "a value beyond 128 bits");
                return NONE;
            }
            lo = al * ((tine_i128)1 << b.i), hi = ah > lim ? top : ah * ((tine_i128)1 << b.i);
            break;
        }
        /* a symbolic count: the value's own type, the count clamped to its width */
        {
            tine_type_t t = a.k == V_SYM && a.e->type.kind != TINE_BOOL ? a.e->type : fit(al, ah);
            tine_expr_t *n = shift_count(x, b, t);
            return sym_full(tine_binary(c, TINE_OP_SHL, as_type(x, a, t), n));
        }
    case PT_SHR:
        if (b.k == V_INT && b.i >= 0 && b.i < 128) {
            lo = al >> b.i, hi = ah >> b.i;
            tine_type_t t = common(a, vint(0));
            return sym(tine_binary(c, TINE_OP_SHR, as_type(x, a, t), cst(x, t, b.i)), lo, hi);
        } else {
            tine_type_t t = a.k == V_SYM && a.e->type.kind != TINE_BOOL ? a.e->type : fit(al, ah);
            tine_expr_t *n = shift_count(x, b, t);
            return sym(tine_binary(c, TINE_OP_SHR, as_type(x, a, t), n), al < 0 ? al : 0, ah > 0 ? ah : 0);
        }
    case '/':
    case '%':
        /* of a non-negative value by a positive constant (tine's / and % round down) */
        if (b.k == V_INT && b.i > 0 && al >= 0) {
            tine_type_t t = common(a, b);
            tine_expr_t *e = tine_binary(c, op == '/' ? TINE_OP_DIV : TINE_OP_MOD, as_type(x, a, t), cst(x, t, b.i));
            return op == '/' ? sym(e, al / b.i, ah / b.i) : sym(e, 0, ah < b.i - 1 ? ah : b.i - 1);
        }
        efail(x, at, "'%c' of a value that may be negative, or by a symbolic value", op);
        return NONE;
    case PT_AND:
    case PT_OR:
    case PT_XOR: {
        tine_type_t t = common(a, b);
        tine_expr_t *e = tine_binary(c, op == PT_AND ? TINE_OP_AND : op == PT_OR ? TINE_OP_OR : TINE_OP_XOR,
                                     as_type(x, a, t), as_type(x, b, t));
        if (op == PT_AND && ((a.k == V_INT && a.i >= 0) || (b.k == V_INT && b.i >= 0)))
            return sym(e, 0, a.k == V_INT ? a.i : b.i);
        if (al >= 0 && bl >= 0) { /* both non-negative: bits below the larger's top */
            tine_i128 m = ah > bh ? ah : bh, top = 1;
            while (top <= m && top < ((tine_i128)1 << 126)) top <<= 1;
            return sym(e, 0, op == PT_AND ? (ah < bh ? ah : bh) : top - 1);
        }
        return sym_full(e);
    }
    case '<': case '>': case PT_LE: case PT_GE: case PT_EQ: case PT_NE: {
        tine_type_t t = common(a, b);
        static const struct {
            int tok;
            tine_op_t op;
        } m[] = {{'<', TINE_OP_LT}, {'>', TINE_OP_GT}, {PT_LE, TINE_OP_LE}, {PT_GE, TINE_OP_GE}, {PT_EQ, TINE_OP_EQ}, {PT_NE, TINE_OP_NE}};
        tine_op_t o = TINE_OP_EQ;
        for (size_t i = 0; i < sizeof m / sizeof *m; i++)
            if (m[i].tok == op) o = m[i].op;
        if (a.k == V_SYM && b.k == V_SYM && a.e->type.kind == TINE_BOOL && b.e->type.kind == TINE_BOOL &&
            (op == PT_EQ || op == PT_NE))
            return sym(tine_binary(c, o, a.e, b.e), 0, 1);
        return sym(tine_binary(c, o, as_type(x, a, t), as_type(x, b, t)), 0, 1);
    }
    default:
        efail(x, at, "the operator '%c' on symbolic values", op < 128 ? op : '?');
        return NONE;
    }
    tine_type_t t = fit(lo, hi);
    if (!t.bits) {
        efail(x, at, "a value beyond 128 bits");
        return NONE;
    }
    tine_op_t o = op == '+' ? TINE_OP_ADD : op == '-' ? TINE_OP_SUB : op == '*' ? TINE_OP_MUL : TINE_OP_SHL;
    return sym(tine_binary(c, o, as_type(x, a, t), as_type(x, b, t)), lo, hi);
}

/* ---- expressions ----------------------------------------------------------------------- */

static value eval(ev *x, env *en, const p_node *n);
static void exec(ev *x, env *en, const p_node *n);

static bool concrete(ev *x, env *en, const p_node *n, tine_i128 *out) {
    value v = eval(x, en, n);
    if (v.k == V_INT) {
        *out = v.i;
        return true;
    }
    if (!x->failed) efail(x, n, "a bit position that is not a constant");
    return false;
}

/* The width of a slice [hi:lo] whose bounds are symbolic: hi is lo + k. */
static bool same_tree(const p_node *a, const p_node *b) {
    if (a->kind != b->kind || a->nkids != b->nkids || a->op != b->op) return false;
    if (a->kind == P_NUM) return a->num == b->num;
    if ((a->kind == P_NAME || a->kind == P_CALL || a->kind == P_MEMBER) && strcmp(a->name, b->name)) return false;
    for (int i = 0; i < a->nkids; i++) {
        if (!a->kids[i] != !b->kids[i]) return false;
        if (a->kids[i] && !same_tree(a->kids[i], b->kids[i])) return false;
    }
    return true;
}

static int sym_width(const p_node *hi, const p_node *lo) {
    if (hi->kind == P_BIN && hi->op == '+' && hi->kids[1]->kind == P_NUM) {
        if (same_tree(hi->kids[0], lo)) return (int)hi->kids[1]->num + 1;
        if (lo->kind == P_BIN && lo->op == '+' && lo->kids[1]->kind == P_NUM && same_tree(hi->kids[0], lo->kids[0]))
            return (int)(hi->kids[1]->num - lo->kids[1]->num) + 1;
    }
    return 0;
}

/* The bit map a name refers to (a temporary becomes one on first use as bits). */
static bitmap *bits_of(ev *x, env *en, const p_node *n, bool create) {
    if (n->kind != P_NAME) return NULL;
    var *v = lookup(en, n->name);
    if (!v) {
        if (!create) return NULL;
        v = define(en, n->name);
        v->is_bits = true;
        v->temp = true;
        return &v->bm;
    }
    if (!v->is_bits) {
        if (!create) return NULL;
        /* a scalar used as bits: its value becomes its bits */
        value old = v->v;
        v->is_bits = true;
        memset(&v->bm, 0, sizeof v->bm);
        if (old.k == V_SYM) {
            int w = old.e->type.kind == TINE_BOOL ? 1 : old.e->type.bits;
            bm_write(x, &v->bm, 0, w, old);
            v->bm.sgn = old.lo < 0;
        } else if (old.k == V_INT)
            bm_write(x, &v->bm, 0, 64, old);
    }
    return &v->bm;
}

/* The place of a field with constant indices, fields of fields included
 * (tmp.m128[i].dword[0]): the variable it is in and its bits [*lo, *lo + *w). */
static const p_node *member_place(ev *x, env *en, const p_node *n, int *lo, int *w) {
    if (n->kind != P_MEMBER) {
        *lo = 0, *w = 0;
        return n;
    }
    int blo = 0, bw = 0;
    const p_node *root = member_place(x, en, n->kids[0], &blo, &bw);
    tine_i128 k = 0;
    if (n->kids[1] && !concrete(x, en, n->kids[1], &k)) return NULL;
    *lo = blo + (int)(k * n->num), *w = (int)n->num;
    return root;
}

/* A slice read at a symbolic offset: a select over every offset it can take. */
static value dyn_read(ev *x, const bitmap *b, value off, int w, const p_node *at) {
    int ext = bm_extent(b);
    if (b->width > ext) ext = b->width;
    if (ext <= 0 || ext / w > 256) {
        efail(x, at, "a slice at a symbolic offset of an unknown-width value");
        return NONE;
    }
    if (ext <= 64) { /* within one scalar: a shift */
        value whole = bm_read(x, b, 0, ext);
        bool sgn = b->sgn;
        if (sgn) whole = sym_full(tine_reinterpret(x->ctx, ity(false, whole.e->type.bits), whole.e));
        value r = arith(x, at, PT_AND, arith(x, at, PT_SHR, whole, off), vint(((tine_i128)1 << w) - 1));
        return r;
    }
    /* a wide field, 64 bits at a time */
    int g = w > 64 ? 64 : w;
    bitmap *r = w > 64 ? new_bitmap(x) : NULL;
    value v = NONE;
    for (int o = 0; o < w && !x->failed; o += g) {
        v = bm_read(x, b, o, g);
        for (int p = w; p + w <= ext && !x->failed; p += w) {
            if (!x->every_offset && (p < vlo(off) || p > vhi(off))) continue;
            value c = arith(x, at, PT_EQ, off, vint(p));
            v = select_v(x, c, bm_read(x, b, p + o, g), v);
        }
        if (r) bm_write(x, r, o, g, v);
    }
    if (r) {
        r->width = w;
        return (value){.k = V_BITS, .b = r};
    }
    return v;
}

static value call(ev *x, env *en, const p_node *n);

static value eval_slice(ev *x, env *en, const p_node *n) {
    const p_node *base = n->kids[0];
    tine_i128 hi = 0, lo = 0;
    bool one_bit = !n->kids[2];
    if (base->kind == P_NAME && !strcmp(base->name, "MAX")) return NONE;
    /* the bounds */
    value vh = eval(x, en, n->kids[1]);
    value vl = one_bit ? vh : eval(x, en, n->kids[2]);
    if (x->failed) return NONE;
    bitmap tmp = {0}, *b = NULL;
    if (base->kind == P_NAME && lookup(en, base->name) && lookup(en, base->name)->is_bits)
        b = &lookup(en, base->name)->bm;
    else {
        value bv = eval(x, en, base);
        if (x->failed) return NONE;
        if (bv.k == V_BITS) b = bv.b;
        else if (bv.k == V_SYM || bv.k == V_INT) {
            if (bv.k == V_INT && vh.k == V_INT && vl.k == V_INT) { /* bits of a constant */
                tine_i128 w = vh.i - vl.i + 1;
                if (w <= 0 || w > 126 || vl.i < 0 || vl.i > 126) { efail(x, n, "a bad slice of a constant"); return NONE; }
                return vint((bv.i >> vl.i) & (((tine_i128)1 << w) - 1));
            }
            int w = bv.k == V_INT ? 64 : bv.e->type.kind == TINE_BOOL ? 1 : bv.e->type.bits;
            bm_write(x, &tmp, 0, w, bv);
            tmp.sgn = vlo(bv) < 0;
            b = &tmp;
        } else {
            efail(x, n, "a slice of nothing");
            return NONE;
        }
    }
    value r;
    if (vh.k == V_INT && vl.k == V_INT) {
        hi = vh.i, lo = vl.i;
        if (hi < lo || lo < 0 || hi > 4096) {
            efail(x, n, "the slice [%d:%d]", (int)hi, (int)lo);
            r = NONE;
        } else if (hi - lo + 1 > 64) {
            bitmap *nb = new_bitmap(x);
            for (int i = 0; i < b->n; i++) {
                const seg *s = &b->s[i];
                int a = s->lo > lo ? s->lo : (int)lo, z = s->lo + s->w < hi + 1 ? s->lo + s->w : (int)hi + 1;
                if (a < z) bm_write_u(x, nb, a - (int)lo, z - a, piece(x, s->e, a - s->lo, z - a, roundbits(z - a)));
            }
            nb->width = (int)(hi - lo + 1);
            r = (value){.k = V_BITS, .b = nb};
        } else
            r = bm_read(x, b, (int)lo, (int)(hi - lo + 1));
    } else {
        int w = one_bit ? 1 : sym_width(n->kids[1], n->kids[2]);
        if (!w) {
            efail(x, n, "a slice whose width is not a constant");
            r = NONE;
        } else
            r = dyn_read(x, b, vl, w, n);
    }
    free(tmp.s);
    return r;
}

static value eval(ev *x, env *en, const p_node *n) {
    if (x->failed || !n) return NONE;
    if (++x->steps > 4000000) {
        efail(x, n, "too large to translate");
        return NONE;
    }
    switch (n->kind) {
    case P_NUM: return vint(n->num);
    case P_NAME: {
        static const char *const cmpint[] = {"_MM_CMPINT_EQ", "_MM_CMPINT_LT", "_MM_CMPINT_LE", "_MM_CMPINT_FALSE",
                                             "_MM_CMPINT_NE", "_MM_CMPINT_NLT", "_MM_CMPINT_NLE", "_MM_CMPINT_TRUE"};
        for (int i = 0; i < 8; i++)
            if (!strcmp(n->name, cmpint[i])) return vint(i);
        if (!strcmp(n->name, "TRUE")) return vint(1);
        if (!strcmp(n->name, "FALSE")) return vint(0);
        var *v = lookup(en, n->name);
        if (!v) {
            efail(x, n, "'%s' is used before it is set", n->name);
            return NONE;
        }
        if (!v->is_bits) return v->v;
        int w = bm_extent(&v->bm);
        if (w > 64) {
            bitmap *nb = new_bitmap(x);
            bm_copy(nb, &v->bm);
            return (value){.k = V_BITS, .b = nb};
        }
        return bm_read(x, &v->bm, 0, w ? w : 1);
    }
    case P_MEMBER: {
        /* a.byte[k]: the k-th field of its bits */
        tine_i128 k = 0;
        if (n->kids[1]) {
            value iv = eval(x, en, n->kids[1]);
            if (x->failed) return NONE;
            if (iv.k != V_INT) { /* a field chosen by a symbolic index */
                bitmap *b = bits_of(x, en, n->kids[0], false);
                if (!b) {
                    value bv = eval(x, en, n->kids[0]);
                    if (bv.k != V_BITS) { efail(x, n, "a field at a symbolic index of this"); return NONE; }
                    b = bv.b;
                }
                return dyn_read(x, b, arith(x, n, '*', iv, vint(n->num)), (int)n->num, n);
            }
            k = iv.i;
        }
        p_node s = {.kind = P_SLICE, .line = n->line, .col = n->col, .nkids = 3};
        p_node hi = {.kind = P_NUM, .num = (int64_t)(k * n->num + n->num - 1)}, lo = {.kind = P_NUM, .num = (int64_t)(k * n->num)};
        p_node *kids[3] = {n->kids[0], &hi, &lo};
        s.kids = kids;
        return eval_slice(x, en, &s);
    }
    case P_SLICE: return eval_slice(x, en, n);
    case P_COND: {
        value c = cond_of(x, eval(x, en, n->kids[0]));
        if (c.k == V_INT) return eval(x, en, c.i ? n->kids[1] : n->kids[2]);
        return select_v(x, c, eval(x, en, n->kids[1]), eval(x, en, n->kids[2]));
    }
    case P_UN: {
        value a = to_sym(x, eval(x, en, n->kids[0]));
        if (x->failed) return NONE;
        if (a.k == V_BITS && n->op == PT_NOT) { /* 64 bits at a time */
            bitmap *r = new_bitmap(x);
            int ext = bm_extent(a.b);
            r->width = ext;
            for (int o = 0; o < ext && !x->failed; o += 64) {
                int w = ext - o < 64 ? ext - o : 64;
                value u = bm_read(x, a.b, o, w);
                bm_write(x, r, o, w, sym_full(tine_unary(x->ctx, TINE_OP_NOT, as_type(x, u, ity(false, roundbits(w))))));
            }
            return (value){.k = V_BITS, .b = r};
        }
        if (a.k != V_INT && a.k != V_SYM) {
            efail(x, n, "an operator on a value wider than 128 bits");
            return NONE;
        }
        if (n->op == '-') return arith(x, n, '-', vint(0), a);
        if (n->op == '!') {
            value c = cond_of(x, a);
            if (c.k == V_INT) return vint(!c.i);
            return sym(tine_unary(x->ctx, TINE_OP_NOT, c.e), 0, 1);
        }
        /* NOT: the bits of the value's own width inverted */
        if (a.k == V_INT) return vint(~a.i);
        if (a.e->type.kind == TINE_BOOL) return sym(tine_unary(x->ctx, TINE_OP_NOT, a.e), 0, 1);
        return sym_full(tine_unary(x->ctx, TINE_OP_NOT, a.e));
    }
    case P_BIN: {
        value a = eval(x, en, n->kids[0]);
        value b = eval(x, en, n->kids[1]);
        if (x->failed) return NONE;
        if (n->op == PT_OPVAR) { /* the comparison OP holds, by its code */
            static const int ops[8] = {PT_EQ, '<', PT_LE, 0, PT_NE, PT_GE, '>', 1};
            var *o = lookup(en, "OP");
            value code = o && !o->is_bits ? o->v : NONE;
            if (code.k == V_NONE) { efail(x, n, "OP is not set"); return NONE; }
            value r = NONE;
            for (int k = 7; k >= 0 && !x->failed; k--) {
                value rk = ops[k] == 0 ? vint(0) : ops[k] == 1 ? vint(1) : arith(x, n, ops[k], a, b);
                if (code.k == V_INT) {
                    if (code.i == k) return rk;
                    continue;
                }
                r = r.k == V_NONE ? rk : select_v(x, arith(x, n, PT_EQ, code, vint(k)), rk, r);
            }
            return r;
        }
        /* a shift of a wide value, or one whose result is wider than 128 bits */
        int abits = a.k == V_BITS ? bm_extent(a.b) : a.k == V_SYM && a.e->type.kind != TINE_BOOL ? a.e->type.bits : 0;
        if ((n->op == PT_SHL || n->op == PT_SHR) &&
            (abits > 128 || (n->op == PT_SHL && b.k == V_INT && abits + b.i > 128))) {
            const p_node *amt = n->kids[1];
            int unit = 0;
            if (amt->kind == P_BIN && amt->op == '*' && amt->kids[1]->kind == P_NUM) unit = (int)amt->kids[1]->num;
            if (amt->kind == P_BIN && amt->op == '*' && amt->kids[0]->kind == P_NUM) unit = (int)amt->kids[0]->num;
            return wide_shift(x, n, n->op == PT_SHL, a, b, unit);
        }
        return arith(x, n, n->op, a, b);
    }
    case P_CALL: return call(x, en, n);
    default: efail(x, n, "a statement where a value was expected"); return NONE;
    }
}

/* ---- the built-in functions ------------------------------------------------------------- */

static int suffix_bits(const char *name, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n)) return 0;
    int b = atoi(name + n);
    return (b == 8 || b == 16 || b == 32 || b == 64 || b == 128) && name[n] >= '1' && name[n] <= '9' ? b : 0;
}

static value satcast(ev *x, value v, tine_type_t t) {
    if (v.k == V_INT) {
        tine_i128 lo = tine_min_i128(t), hi = tine_max_i128(t);
        return vint(v.i < lo ? lo : v.i > hi ? hi : v.i);
    }
    tine_i128 lo = vlo(v) > tine_min_i128(t) ? vlo(v) : tine_min_i128(t);
    tine_i128 hi = vhi(v) < tine_max_i128(t) ? vhi(v) : tine_max_i128(t);
    tine_expr_t *e = as_type(x, v, common(v, vint(0)));
    tine_expr_t *r = tine_fpir(x->ctx, TINE_OP_SATURATING_CAST, 1, &e, t);
    return sym(r, lo, hi);
}

static value call(ev *x, env *en, const p_node *n) {
    const char *f = n->name;
    int b;
    for (int i = 0; i < x->ndefs; i++)
        if (!strcmp(x->defs[i]->name, f)) {
            const p_node *d = x->defs[i];
            if (d->nparams != n->nkids) {
                efail(x, n, "%s takes %d arguments", f, d->nparams);
                return NONE;
            }
            if (++x->depth > 8) {
                efail(x, n, "calls nested too deep");
                return NONE;
            }
            env inner = {0};
            for (int k = 0; k < n->nkids && !x->failed; k++) {
                value a = eval(x, en, n->kids[k]);
                var *p = define(&inner, d->params[k]);
                if (a.k == V_BITS) {
                    p->is_bits = true;
                    bm_copy(&p->bm, a.b);
                } else if (a.k == V_SYM && n->kids[k]->kind != P_NUM) {
                    p->is_bits = true;
                    int w = a.e->type.kind == TINE_BOOL ? 1 : a.e->type.bits;
                    bm_write(x, &p->bm, 0, w, a);
                    p->bm.sgn = a.lo < 0;
                    p->bm.width = w;
                } else
                    p->v = a;
            }
            bool was = x->returned;
            value saved = x->ret;
            x->returned = false, x->ret = NONE;
            exec(x, &inner, d->kids[0]);
            value r = x->ret;
            if (!x->returned && !x->failed) efail(x, n, "%s returns nothing", f);
            x->returned = was, x->ret = saved;
            env_free(&inner);
            x->depth--;
            return r;
        }
    if (n->nkids < 1) {
        efail(x, n, "the function '%s'", f);
        return NONE;
    }
    /* SignExtendN(v >> count): the guide writes the arithmetic shifts (psrad, vpsraq) so,
       with v's element type unsigned; the sign extension says the shift brings in the
       sign, so v is read signed */
    const p_node *k0 = n->kids[0];
    if (suffix_bits(f, "SignExtend") && k0->kind == P_BIN && k0->op == PT_SHR) {
        value v = to_sym(x, eval(x, en, k0->kids[0])), c = to_sym(x, eval(x, en, k0->kids[1]));
        if (x->failed) return NONE;
        if (v.k == V_SYM && v.e->type.kind == TINE_UINT && v.lo >= 0)
            v = sym_full(tine_reinterpret(x->ctx, ity(true, v.e->type.bits), v.e));
        value sh = arith(x, k0, PT_SHR, v, c);
        if (x->failed) return NONE;
        int b2 = suffix_bits(f, "SignExtend");
        return sh.k == V_INT ? sh : sym(tine_cast(x->ctx, ity(true, b2), as_type(x, sh, sh.e->type)), sh.lo, sh.hi);
    }
    value a = to_sym(x, eval(x, en, n->kids[0]));
    if (x->failed) return NONE;
    if (a.k == V_BITS) {
        efail(x, n, "%s of a value wider than 128 bits", f);
        return NONE;
    }
    tine_ctx_t *c = x->ctx;
    if ((b = suffix_bits(f, "SignExtend"))) {
        if (a.k == V_INT) return a;
        tine_expr_t *e = a.e;
        if (e->type.kind == TINE_BOOL) e = as_type(x, a, ity(false, 8));
        if (e->type.kind == TINE_UINT) e = tine_reinterpret(c, ity(true, e->type.bits), e);
        value s = sym_full(e);
        if (a.lo >= 0 && a.hi <= tine_max_i128(ity(true, e->type.bits))) s = sym(e, a.lo, a.hi);
        return sym(tine_cast(c, ity(true, b), e), s.lo, s.hi);
    }
    if ((b = suffix_bits(f, "ZeroExtend"))) {
        if (a.k == V_INT) return a;
        tine_expr_t *e = as_type(x, a, a.e->type.kind == TINE_BOOL ? ity(false, 8) : a.e->type);
        tine_i128 lo = 0, hi = tine_max_i128(ity(false, e->type.bits));
        if (a.lo >= 0) lo = a.lo, hi = a.hi;
        if (e->type.kind == TINE_INT) e = tine_reinterpret(c, ity(false, e->type.bits), e);
        return sym(tine_cast(c, ity(false, b), e), lo, hi);
    }
    if ((b = suffix_bits(f, "Truncate"))) {
        if (a.k == V_INT) return vint((tine_i128)tine_canon(ity(false, b), (tine_u128)a.i));
        tine_expr_t *e = as_type(x, a, a.e->type.kind == TINE_BOOL ? ity(false, 8) : a.e->type);
        if (e->type.bits <= b) return a;
        return sym_full(tine_cast(c, ity(e->type.kind == TINE_INT, b), e));
    }
    if ((b = suffix_bits(f, "SaturateU"))) return satcast(x, a, ity(false, b));
    if ((b = suffix_bits(f, "Saturate"))) return satcast(x, a, ity(true, b));
    if (!strcmp(f, "Signed") || !strcmp(f, "Unsigned")) {
        if (a.k == V_INT) return a;
        bool s = f[0] == 'S';
        tine_expr_t *e = as_type(x, a, a.e->type.kind == TINE_BOOL ? ity(false, 8) : a.e->type);
        if ((e->type.kind == TINE_INT) == s) return a;
        /* a value that fits the other signedness keeps it; raw bits are reinterpreted */
        tine_type_t t = ity(s, e->type.bits);
        if (tine_fits(t, a.lo) && tine_fits(t, a.hi)) return sym(tine_reinterpret(c, t, e), a.lo, a.hi);
        return sym_full(tine_reinterpret(c, t, e));
    }
    if (!strcmp(f, "ABS")) {
        if (a.k == V_INT) return vint(a.i < 0 ? -a.i : a.i);
        tine_i128 m = i128_max(a.hi, -a.lo);
        tine_type_t t = fit(-m, m);
        tine_expr_t *e = as_type(x, a, t);
        tine_expr_t *r = tine_select(c, tine_binary(c, TINE_OP_LT, e, cst(x, t, 0)), tine_unary(c, TINE_OP_NEG, e), e);
        return sym(r, a.lo >= 0 ? a.lo : 0, m);
    }
    if ((!strcmp(f, "MIN") || !strcmp(f, "MAX")) && n->nkids == 2) {
        value y = to_sym(x, eval(x, en, n->kids[1]));
        if (x->failed) return NONE;
        bool mn = f[1] == 'I';
        if (a.k == V_INT && y.k == V_INT) return vint(mn ? i128_min(a.i, y.i) : i128_max(a.i, y.i));
        tine_type_t t = common(a, y);
        tine_expr_t *r = tine_binary(c, mn ? TINE_OP_MIN : TINE_OP_MAX, as_type(x, a, t), as_type(x, y, t));
        return sym(r, mn ? i128_min(vlo(a), vlo(y)) : i128_max(vlo(a), vlo(y)),
                   mn ? i128_min(vhi(a), vhi(y)) : i128_max(vhi(a), vhi(y)));
    }
    if (!strcmp(f, "POPCNT")) {
        if (a.k == V_INT) return vint(__builtin_popcountll((unsigned long long)a.i));
        tine_expr_t *e = as_type(x, a, a.e->type);
        int w = e->type.bits;
        if (e->type.kind == TINE_INT) e = tine_reinterpret(c, ity(false, w), e);
        value r = vint(0);
        for (int k = 0; k < w; k++) r = arith(x, n, '+', r, sym(piece(x, e, k, 1, roundbits(w)), 0, 1));
        return r;
    }
    efail(x, n, "the function '%s'", f);
    return NONE;
}

/* ---- statements ------------------------------------------------------------------------- */

/* A temporary's first write, at its bit 0, gives it the value's signedness: the guide
 * writes `tmp1.word := Signed(...)` and reads `tmp1` as that signed word. */
static void fresh_sign(env *en, const p_node *root, bitmap *b, int lo, value v) {
    var *t = root->kind == P_NAME ? lookup(en, root->name) : NULL;
    if (t && t->temp && b->n == 0 && lo == 0) b->sgn = (v.k == V_SYM || v.k == V_INT) && vlo(v) < 0;
}

static void assign(ev *x, env *en, const p_node *lhs, value v) {
    if (lhs->kind == P_NAME) {
        var *o = lookup(en, lhs->name);
        if (o && o->is_bits) { /* a whole register: its declared or written width */
            int w = bm_extent(&o->bm);
            if (v.k == V_SYM && w == 0) w = v.e->type.kind == TINE_BOOL ? 1 : v.e->type.bits;
            if (v.k == V_BITS) w = bm_extent(v.b);
            if (!w) w = 64;
            bitmap nb = {.width = o->bm.width, .reach = o->bm.reach};
            bm_write(x, &nb, 0, w, v);
            nb.sgn = v.k == V_SYM && v.lo < 0;
            free(o->bm.s);
            o->bm = nb;
            return;
        }
        var *d = define(en, lhs->name);
        if (v.k == V_BITS) {
            d->is_bits = true;
            bm_copy(&d->bm, v.b);
        } else
            d->v = v;
        return;
    }
    if (lhs->kind == P_MEMBER) {
        int lo, w;
        const p_node *root = member_place(x, en, lhs, &lo, &w);
        if (!root) return;
        bitmap *b = bits_of(x, en, root, true);
        if (!b) { efail(x, lhs, "an assignment to a field of this"); return; }
        fresh_sign(en, root, b, lo, v);
        bm_write(x, b, lo, w, v);
        return;
    }
    if (lhs->kind != P_SLICE) {
        efail(x, lhs, "an assignment to this");
        return;
    }
    if (lhs->kids[1]->kind == P_NAME && !strcmp(lhs->kids[1]->name, "MAX")) return; /* dst[MAX:256] := 0 */
    bitmap *b = bits_of(x, en, lhs->kids[0], true);
    if (!b) {
        efail(x, lhs, "an assignment to a slice of this");
        return;
    }
    value vh = eval(x, en, lhs->kids[1]);
    value vl = lhs->kids[2] ? eval(x, en, lhs->kids[2]) : vh;
    if (x->failed) return;
    if (vh.k == V_INT && vl.k == V_INT) {
        if (vh.i < vl.i || vl.i < 0 || vh.i > 4096) {
            efail(x, lhs, "the slice [%d:%d]", (int)vh.i, (int)vl.i);
            return;
        }
        if (v.k == V_SYM && v.e->type.kind == TINE_BOOL) v = (value){.k = V_SYM, .e = as_type(x, v, ity(false, 8)), .lo = 0, .hi = 1};
        fresh_sign(en, lhs->kids[0], b, (int)vl.i, v);
        bm_write(x, b, (int)vl.i, (int)(vh.i - vl.i + 1), v);
        return;
    }
    /* a symbolic offset: every place it can be, each keeping its old bits unless chosen */
    int w = lhs->kids[2] ? sym_width(lhs->kids[1], lhs->kids[2]) : 1;
    int ext = bm_extent(b);
    if (!w || ext <= 0 || ext / w > 256) {
        efail(x, lhs, "an assignment at a symbolic offset");
        return;
    }
    for (int p = 0; p + w <= ext && !x->failed; p += w) {
        value c = arith(x, lhs, PT_EQ, vl, vint(p));
        value old = bm_read(x, b, p, w);
        bool s = b->sgn;
        b->sgn = false;
        value o2 = bm_read(x, b, p, w);
        b->sgn = s;
        (void)old;
        bm_write(x, b, p, w, select_v(x, c, v, o2));
    }
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Merges the environments two arms left: what they set differently becomes a select. */
static void merge(ev *x, env *out, value c, env *t, env *f) {
    env r = {0};
    env_copy(&r, t);
    for (int i = 0; i < r.n && !x->failed; i++) {
        var *tv = &r.v[i];
        var *fv = lookup(f, tv->name);
        if (!fv) continue; /* set only in one arm: the pseudocode never reads it after */
        if (tv->is_bits || fv->is_bits) {
            if (!tv->is_bits || !fv->is_bits) {
                efail(x, NULL, "'%s' is bits in one arm and a number in the other", tv->name);
                break;
            }
            bitmap *bt = &tv->bm, *bf = &fv->bm;
            if (bt->n == bf->n && (!bt->n || !memcmp(bt->s, bf->s, sizeof(seg) * (size_t)bt->n))) continue; /* unchanged */
            /* every boundary of either */
            int nc = 0, *cuts = tine_xmalloc(sizeof(int) * (size_t)(2 * (bt->n + bf->n) + 1));
            for (int k = 0; k < bt->n; k++) cuts[nc++] = bt->s[k].lo, cuts[nc++] = bt->s[k].lo + bt->s[k].w;
            for (int k = 0; k < bf->n; k++) cuts[nc++] = bf->s[k].lo, cuts[nc++] = bf->s[k].lo + bf->s[k].w;
            qsort(cuts, (size_t)nc, sizeof *cuts, cmp_int);
            bitmap nb = {.width = bt->width, .sgn = bt->sgn, .reach = bt->reach};
            for (int k = 0; k + 1 < nc && !x->failed; k++) {
                int lo = cuts[k], w = cuts[k + 1] - cuts[k];
                if (w <= 0) continue;
                tine_expr_t *a = bm_read_u(x, bt, lo, w), *b = bm_read_u(x, bf, lo, w);
                bm_write_u(x, &nb, lo, w, a == b ? a : tine_select(x->ctx, c.e, a, b));
            }
            free(cuts);
            free(tv->bm.s);
            tv->bm = nb;
        } else
            tv->v = select_v(x, c, tv->v, fv->v);
    }
    env_free(out);
    *out = r;
}

static void exec(ev *x, env *en, const p_node *n) {
    if (x->failed || x->returned || !n) return;
    switch (n->kind) {
    case P_BLOCK:
        for (int i = 0; i < n->nkids && !x->failed && !x->returned; i++) exec(x, en, n->kids[i]);
        return;
    case P_ASSIGN: {
        value v = eval(x, en, n->kids[1]);
        if (!x->failed) assign(x, en, n->kids[0], v);
        return;
    }
    case P_RETURN:
        x->ret = eval(x, en, n->kids[0]);
        x->returned = true;
        return;
    case P_DEFINE:
        if (!n->kids[0]) return; /* one the evaluator has built in (POPCNT) */
        if (x->ndefs == 16) {
            efail(x, n, "too many functions");
            return;
        }
        x->defs[x->ndefs++] = n;
        return;
    case P_FOR: {
        tine_i128 a, b;
        if (!concrete(x, en, n->kids[0], &a) || !concrete(x, en, n->kids[1], &b)) return;
        if ((n->num ? a - b : b - a) > 4096) {
            efail(x, n, "a loop of more than 4096 iterations");
            return;
        }
        for (tine_i128 j = a; n->num ? j >= b : j <= b; j += n->num ? -1 : 1) {
            var *v = define(en, n->name);
            if (v->is_bits) free(v->bm.s);
            v->is_bits = false;
            v->v = vint(j);
            exec(x, en, n->kids[2]);
            if (x->failed || x->returned) return;
        }
        return;
    }
    case P_IF: {
        value c = cond_of(x, eval(x, en, n->kids[0]));
        if (x->failed) return;
        if (c.k == V_INT) {
            exec(x, en, c.i ? n->kids[1] : n->kids[2]);
            return;
        }
        env t = {0}, f = {0};
        env_copy(&t, en), env_copy(&f, en);
        exec(x, &t, n->kids[1]);
        if (x->returned) efail(x, n, "RETURN inside a symbolic IF");
        exec(x, &f, n->kids[2]);
        if (x->returned) efail(x, n, "RETURN inside a symbolic IF");
        merge(x, en, c, &t, &f);
        env_free(&t), env_free(&f);
        return;
    }
    case P_CASE: {
        /* as IF sel == label ... ELSE IF ..., the last arm first */
        value sel = eval(x, en, n->kids[0]);
        if (x->failed) return;
        int arms = (n->nkids - 1) / 2;
        if (sel.k == V_INT) {
            for (int k = 0; k < arms && !x->failed; k++) {
                const p_node *label = n->kids[1 + 2 * k];
                tine_i128 lv = 0;
                if (!label || (concrete(x, en, label, &lv) && lv == sel.i)) {
                    exec(x, en, n->kids[2 + 2 * k]);
                    return;
                }
            }
            return;
        }
        env acc = {0};
        env_copy(&acc, en);
        bool have = false;
        for (int k = arms - 1; k >= 0 && !x->failed; k--) {
            const p_node *label = n->kids[1 + 2 * k];
            env arm = {0};
            env_copy(&arm, en);
            exec(x, &arm, n->kids[2 + 2 * k]);
            if (!label || !have) {
                env_free(&acc);
                acc = arm;
                have = true;
                continue;
            }
            tine_i128 lv;
            if (!concrete(x, en, label, &lv)) {
                env_free(&arm);
                break;
            }
            value c = arith(x, label, PT_EQ, sel, vint(lv));
            env m = {0};
            merge(x, &m, c, &arm, &acc);
            env_free(&arm), env_free(&acc);
            acc = m;
        }
        if (x->returned) efail(x, n, "RETURN inside a CASE on a symbolic value");
        env_free(en);
        *en = acc;
        return;
    }
    default: efail(x, n, "an expression where a statement was expected"); return;
    }
}

/* ---- the entry point --------------------------------------------------------------------- */

tine_expr_t *tine_pseudo_eval(tine_ctx_t *ctx, tine_arena *arena, const p_node *prog, const tine_pseudo_arg *args,
                              int nargs, const tine_pseudo_arg *ret, bool every_offset, char *err, size_t nerr) {
    ev x = {.ctx = ctx, .arena = arena, .err = err, .nerr = nerr, .every_offset = every_offset};
    env en = {0};
    for (int i = 0; i < nargs; i++) {
        const tine_pseudo_arg *a = &args[i];
        var *v = define(&en, a->name);
        v->is_bits = true;
        v->bm.reach = &((tine_pseudo_arg *)a)->reach;
        tine_type_t t = a->var->type;
        int ew = t.kind == TINE_BOOL ? 1 : t.bits;
        v->bm.width = ew * t.lanes;
        v->bm.sgn = a->sgn;
        if (a->bits && t.lanes == 1 && t.kind != TINE_BOOL && a->bits < t.bits) { /* its low bits */
            tine_expr_t *u = t.kind == TINE_INT ? tine_reinterpret(ctx, ity(false, t.bits), a->var) : a->var;
            v->bm.width = a->bits;
            bm_write(&x, &v->bm, 0, a->bits, sym_full(u));
            continue;
        }
        for (int k = 0; k < t.lanes; k++) {
            tine_expr_t *l = t.lanes == 1 ? a->var : tine_slice(ctx, a->var, k, 1, 1);
            tine_expr_t *u;
            if (t.kind == TINE_BOOL) u = tine_select(ctx, l, cst(&x, ity(false, 8), 1), cst(&x, ity(false, 8), 0));
            else u = t.kind == TINE_INT ? tine_reinterpret(ctx, ity(false, t.bits), l) : l;
            v->bm.s = v->bm.s; /* segments appended in order */
            TINE_GROW(v->bm.s, v->bm.n + 1, v->bm.cap);
            v->bm.s[v->bm.n++] = (seg){k * ew, ew, u};
        }
    }
    var *dst = define(&en, ret->name);
    dst->is_bits = true;
    tine_type_t rt = ret->type;
    int rw = rt.kind == TINE_BOOL ? 1 : rt.bits;
    dst->bm.width = rw * rt.lanes;
    exec(&x, &en, prog);
    tine_expr_t *result = NULL;
    if (!x.failed && x.returned) efail(&x, NULL, "RETURN outside a function");
    if (!x.failed) {
        var *d = lookup(&en, ret->name);
        tine_expr_t **lanes = tine_xmalloc(sizeof(tine_expr_t *) * (size_t)rt.lanes);
        for (int k = 0; k < rt.lanes && !x.failed; k++) {
            if (!d->is_bits) { /* assigned whole as a number */
                lanes[k] = as_type(&x, d->v, ity(rt.kind == TINE_INT, rw));
                continue;
            }
            tine_expr_t *u = bm_read_u(&x, &d->bm, k * rw, rw);
            if (rt.kind == TINE_BOOL) lanes[k] = cond_of(&x, sym(u, 0, 1)).e;
            else if (rt.kind == TINE_INT) lanes[k] = tine_reinterpret(ctx, ity(true, rw), u);
            else lanes[k] = u;
            if (!lanes[k]) efail(&x, NULL, "the result's lane %d: %s", k, tine_error(ctx));
        }
        if (!x.failed) result = rt.lanes == 1 ? lanes[0] : tine_concat(ctx, rt.lanes, lanes);
        if (!result && !x.failed) efail(&x, NULL, "the result: %s", tine_error(ctx));
        free(lanes);
    }
    env_free(&en);
    for (int i = 0; i < x.nmade; i++) free(x.made[i]->s);
    free(x.made);
    return x.failed ? NULL : result;
}
