/* c.c — an expression DAG as C.
 *
 * The values are GCC/Clang vector-extension types (tine_u8x16: 16 lanes of uint8_t),
 * which both compilers select to the same instructions as the target's own types: the
 * operations tine's IR has in C (+, &, <<, ==) are written as operators, lane moves as
 * __builtin_shufflevector, casts as __builtin_convertvector. An instruction node is the
 * C intrinsic of the form the target has (_mm_avg_epu8, vrhaddq_u8), its operands cut to
 * registers and cast to the intrinsic's types, exactly as the LLVM emitter (llvm.c) calls
 * the LLVM intrinsic; one the target lacks is written as its semantics. What C's
 * operators do not mean as tine does (shifts by a count the lanes do not hold, division)
 * is a lane loop over a helper that does. So the C means what the IR means, whatever the
 * target, and only the speed of what the compiler makes of it depends on the emitter.
 *
 * A vector whose bytes are not a power of two (vld3q_u8's 48 bytes) has no C type: it is
 * never a value, only what lane moves take lanes from (tine_lane_source through it).
 */
#include "c.h"
#include "../targets/targets.h"

#include <inttypes.h>
#include <math.h>

typedef struct {
    const tine_expr_t *e;
    char *name;
} bound;

struct tine_cemit {
    tine_ctx_t *ctx;
    const char *target;
    bool x86;
    uint32_t features;
    const char *indent;
    bound *binds;
    int nbinds, capbinds;
    tine_u64map memo; /* node id -> 1 + index in vals */
    char **vals;
    int nvals, capvals;
    int tmp;
    int lane_loops;          /* lane loops written (tine_cemit_lane_loops) */
    tine_buf types, helpers; /* the prelude */
    tine_u64map declared;    /* hashes of what the prelude holds */
};

static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Whether the prelude has `what` yet; marks it as had. */
static bool once(tine_cemit *c, const char *what) {
    uint64_t v, h = str_hash(what);
    if (tine_u64map_get(&c->declared, h, &v)) return false;
    tine_u64map_put(&c->declared, h, 1);
    return true;
}

tine_cemit *tine_cemit_new(tine_ctx_t *ctx, const char *target, const char *indent) {
    const char *isa = tine_target_isa(target);
    if (!isa) {
        tine_set_error(ctx, "unknown target '%s'", target);
        return NULL;
    }
    /* the target is known (its isa is): the features cannot fail, and an error the
       context holds from an earlier call is no failure of this one */
    const tine_isa *desc = NULL;
    uint32_t features = tine_target_features(ctx, target, &desc);
    if (!desc) return NULL;
    tine_cemit *c = tine_xcalloc(1, sizeof *c);
    c->ctx = ctx;
    c->target = target;
    c->x86 = !strcmp(isa, "x86");
    c->features = features;
    c->indent = indent;
    tine_buf_puts(&c->types, "");
    tine_buf_puts(&c->helpers, "");
    return c;
}

void tine_cemit_set_indent(tine_cemit *c, const char *indent) { c->indent = indent; }

void tine_cemit_forget(tine_cemit *c) {
    for (int i = 0; i < c->nvals; i++) free(c->vals[i]);
    c->nvals = 0;
    tine_u64map_free(&c->memo);
    memset(&c->memo, 0, sizeof c->memo);
}

void tine_cemit_free(tine_cemit *c) {
    if (!c) return;
    tine_cemit_forget(c);
    free(c->vals);
    for (int i = 0; i < c->nbinds; i++) free(c->binds[i].name);
    free(c->binds);
    free(c->types.p);
    free(c->helpers.p);
    tine_u64map_free(&c->declared);
    free(c);
}

void tine_cemit_bind(tine_cemit *c, const tine_expr_t *leaf, const char *cexpr) {
    for (int i = 0; i < c->nbinds; i++)
        if (c->binds[i].e == leaf) {
            free(c->binds[i].name);
            c->binds[i].name = tine_strdup(cexpr);
            return;
        }
    TINE_GROW(c->binds, c->nbinds + 1, c->capbinds);
    c->binds[c->nbinds].e = leaf;
    c->binds[c->nbinds++].name = tine_strdup(cexpr);
}

/* ---- types -------------------------------------------------------------------------- */

static const char *scalar_type(tine_type_t t) {
    static const char *u[] = {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}, *s[] = {"int8_t", "int16_t", "int32_t", "int64_t"};
    int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3;
    if (t.kind == TINE_BOOL) return "int";
    if (t.bits > 64) return t.kind == TINE_INT ? "__int128" : "unsigned __int128";
    if (t.kind == TINE_FLOAT) return t.bits == 32 ? "float" : "double";
    return t.kind == TINE_INT ? s[k] : u[k];
}

static bool pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

/* The unsigned type a scalar's +, -, * and << are computed in: C's signed overflow (and
 * int promotion's: u16 * u16 is an int product) is undefined, tine's wraps. */
static const char *wrap_type(tine_type_t t) { return t.bits > 64 ? "unsigned __int128" : "uint64_t"; }

/* A type's short name for helpers' names: u8, i16, u128, f32 (f32's helper is not u32's). */
static const char *type_tag(tine_type_t t, char *buf, size_t n) {
    snprintf(buf, n, "%c%d", t.kind == TINE_INT ? 'i' : t.kind == TINE_BOOL ? 'b' : t.kind == TINE_FLOAT ? 'f' : 'u', t.bits);
    return buf;
}

/* A bool vector is held as a mask of lanes of `mbits` bits (-1 or 0), signed. */
static tine_type_t mask_type(tine_type_t t, int mbits) { return tine_type(TINE_INT, mbits, t.lanes); }

const char *tine_cemit_type(tine_cemit *c, tine_type_t t, char *buf, size_t n) {
    if (t.kind == TINE_BOOL && t.lanes > 1) t = mask_type(t, 8); /* as bool variables are held */
    if (t.lanes == 1) {
        snprintf(buf, n, "%s", scalar_type(t));
        return buf;
    }
    char k = t.kind == TINE_INT ? 'i' : t.kind == TINE_FLOAT ? 'f' : 'u';
    snprintf(buf, n, "tine_%c%dx%d", k, t.bits, t.lanes);
    if (once(c, buf))
        tine_buf_printf(&c->types, "typedef %s %s __attribute__((vector_size(%d)));\n", scalar_type(t), buf,
                        t.bits * t.lanes / 8);
    return buf;
}

const char *tine_cemit_reg_type(tine_cemit *c, tine_type_t t, char *buf, size_t n) {
    int bits = t.bits * t.lanes;
    if (c->x86) {
        if (bits != 128 && bits != 256 && bits != 512) return NULL;
        /* float lanes: __m128 (ps) and __m128d (pd), which the float intrinsics take */
        snprintf(buf, n, "__m%d%s", bits, t.kind != TINE_FLOAT ? "i" : t.bits == 64 ? "d" : "");
        return buf;
    }
    if (bits != 64 && bits != 128) return NULL;
    if (t.kind == TINE_FLOAT) snprintf(buf, n, "float%dx%d_t", t.bits, t.lanes);
    else snprintf(buf, n, "%sint%dx%d_t", t.kind == TINE_INT ? "" : "u", t.bits, t.lanes);
    return buf;
}

/* ---- helpers: what C's operators do not mean as tine's IR does ------------------------ */

/* tine's shift: a negative (signed) count shifts the other way, a count of the width or
 * more gives 0 or the sign (docs/SEMANTICS.md); C's is undefined there. */
static const char *shift_helper(tine_cemit *c, tine_type_t t, tine_type_t ts, bool left) {
    static char name[64];
    char t1[16], t2[16];
    snprintf(name, sizeof name, "tine_%s_%s_%s", left ? "shl" : "shr", type_tag(t, t1, sizeof t1), type_tag(ts, t2, sizeof t2));
    if (once(c, name)) {
        const char *T = scalar_type(t), *S = scalar_type(ts);
        tine_type_t ut = tine_type_with_kind(t, TINE_UINT);
        const char *UT = scalar_type(ut);
        tine_buf *b = &c->helpers;
        tine_buf_printf(b, "static inline %s %s(%s a, %s n) {\n", T, name, T, S);
        tine_buf_printf(b, "    int left = %d;\n    uint64_t m = (uint64_t)n;\n", left);
        if (ts.kind == TINE_INT) tine_buf_printf(b, "    if (n < 0) { left = !left; m = (uint64_t)0 - (uint64_t)(int64_t)n; }\n");
        tine_buf_printf(b, "    if (left) return m >= %d ? (%s)0 : (%s)(%s)((%s)a << m);\n", t.bits, T, T, UT, UT);
        if (t.kind == TINE_INT) tine_buf_printf(b, "    return m >= %d ? (%s)(a < 0 ? -1 : 0) : (%s)(a >> m);\n}\n", t.bits, T, T);
        else tine_buf_printf(b, "    return m >= %d ? (%s)0 : (%s)(a >> m);\n}\n", t.bits, T, T);
    }
    return name;
}

/* Integers: division rounding toward -inf, x / 0 = 0 (and its modulo). Floats: C's
 * division, IEEE's (x / 0 is an infinity or NaN, as tine's). */
static const char *divmod_helper(tine_cemit *c, tine_type_t t, bool div) {
    static char name[64];
    char t1[16];
    snprintf(name, sizeof name, "tine_%s_%s", div ? "div" : "mod", type_tag(t, t1, sizeof t1));
    if (once(c, name)) {
        const char *T = scalar_type(t);
        tine_buf *b = &c->helpers;
        tine_buf_printf(b, "static inline %s %s(%s a, %s b) {\n", T, name, T, T);
        if (t.kind != TINE_FLOAT) tine_buf_puts(b, "    if (b == 0) return 0;\n");
        if (t.kind == TINE_INT) {
            tine_buf_printf(b, "    if (b == -1) return %s;\n", div ? "(__typeof__(a))(0u - (uint64_t)a)" : "0");
            /* C's quotient rounds toward 0: one less where the remainder's sign is not the
               divisor's (each helper computes only what it returns: no variable set unused) */
            if (div)
                tine_buf_printf(b, "    %s q = a / b, r = a %% b;\n    if (r != 0 && ((r < 0) != (b < 0))) q -= 1;\n"
                                   "    return q;\n}\n", T);
            else
                tine_buf_printf(b, "    %s r = a %% b;\n    if (r != 0 && ((r < 0) != (b < 0))) r += b;\n    return r;\n}\n", T);
        } else {
            tine_buf_printf(b, "    return a %s b;\n}\n", div ? "/" : "%");
        }
    }
    return name;
}

/* ---- values ------------------------------------------------------------------------- */

static const char *value(tine_cemit *c, const tine_expr_t *e, tine_buf *out);

static const char *remember(tine_cemit *c, const tine_expr_t *e, char *name) {
    TINE_GROW(c->vals, c->nvals + 1, c->capvals);
    c->vals[c->nvals++] = name;
    tine_u64map_put(&c->memo, e->id, (uint64_t)c->nvals);
    return name;
}

static tine_type_t ctype_of(const tine_expr_t *e);

/* Whether a vector has lanes C's vector types cannot hold (the 128-bit lanes a 64-bit
 * saturating add computes in): it is an array, computed lane by lane. */
static bool wide(const tine_expr_t *e) { return e->type.lanes > 1 && e->type.bits > 64 && e->type.kind != TINE_BOOL; }


/* A new temporary of e's type holding `expr` (consumed). */
static const char *define(tine_cemit *c, const tine_expr_t *e, char *expr, tine_buf *out) {
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_buf_printf(out, "%sconst %s %s = %s;\n", c->indent, tine_cemit_type(c, ctype_of(e), ty, sizeof ty), name, expr);
    free(expr);
    return remember(c, e, name);
}

/* C text, formatted (a constant of 64 lanes, written thrice, is long: any length). */
#define fmt tine_xasprintf

/* A lane's value as a C literal of its type. */
static void literal(tine_buf *b, tine_type_t t, tine_u128 v) {
    if (t.bits > 64) { /* no literal of 128 bits in C: the halves */
        tine_buf_printf(b, "((%s)(((unsigned __int128)%" PRIu64 "ull << 64) | %" PRIu64 "ull))", scalar_type(t),
                        (uint64_t)(v >> 64), (uint64_t)v);
        return;
    }
    if (t.kind == TINE_BOOL) { /* a scalar bool is 0 or 1 (a vector's lanes are masks: const_expr) */
        tine_buf_printf(b, "%d", v ? 1 : 0);
        return;
    }
    if (t.kind == TINE_INT) {
        int64_t s = (int64_t)(uint64_t)v;
        if (t.bits < 64) s = (int64_t)((uint64_t)v << (64 - t.bits)) >> (64 - t.bits);
        if (s == INT64_MIN) tine_buf_printf(b, "(-9223372036854775807ll - 1)");
        else tine_buf_printf(b, "%" PRId64 "%s", s, t.bits == 64 ? "ll" : "");
        return;
    }
    if (t.kind == TINE_FLOAT) { /* exact: a hexadecimal literal of the value the bits hold */
        double d = tine_float_of_bits(t, v);
        const char *sfx = t.bits == 32 ? "f" : "";
        if (d != d) tine_buf_printf(b, "%s__builtin_nan%s(\"\")", signbit(d) ? "-" : "", sfx);
        else if (d == d + d && d != 0) tine_buf_printf(b, "%s__builtin_inf%s()", d < 0 ? "-" : "", sfx);
        else tine_buf_printf(b, "%a%s", d, sfx);
        return;
    }
    tine_buf_printf(b, "%" PRIu64 "u%s", (uint64_t)v, t.bits == 64 ? "ll" : "");
}

static char *const_expr(tine_cemit *c, const tine_expr_t *e) {
    tine_buf b = {0};
    char ty[48];
    tine_type_t t = e->type;
    if (t.kind == TINE_BOOL && t.lanes > 1) t = mask_type(t, 8);
    if (t.lanes == 1) {
        tine_buf_printf(&b, "(%s)", scalar_type(t));
        literal(&b, t, tine_const_value(e, 0));
        return b.p;
    }
    tine_buf_printf(&b, "(%s){", tine_cemit_type(c, t, ty, sizeof ty));
    for (int i = 0; i < t.lanes; i++) {
        if (i) tine_buf_puts(&b, ", ");
        if (e->type.kind == TINE_BOOL) tine_buf_printf(&b, "%d", tine_const_value(e, i) ? -1 : 0); /* a mask lane */
        else literal(&b, t, tine_const_value(e, i));
    }
    tine_buf_puts(&b, "}");
    return b.p;
}

/* The mask bits of a bool vector value: bool values are masks of 8-bit lanes unless the
 * comparison that made them compared wider ones. */
static int mask_bits(const tine_expr_t *e) {
    if (e->op >= TINE_OP_EQ && e->op <= TINE_OP_GE) return e->ops[0]->type.bits;
    if ((e->op == TINE_OP_AND || e->op == TINE_OP_OR || e->op == TINE_OP_XOR || e->op == TINE_OP_NOT) &&
        e->ops[0]->type.kind == TINE_BOOL)
        return mask_bits(e->ops[0]);
    if (e->op == TINE_OP_SELECT) return mask_bits(e->ops[1]);
    return 8;
}

/* A bool vector's value as a mask of `bits`-bit lanes. */
static char *mask_as(tine_cemit *c, const tine_expr_t *e, int bits, tine_buf *out) {
    const char *v = value(c, e, out);
    if (!v) return NULL;
    int have = mask_bits(e);
    if (have == bits) return tine_strdup(v);
    char ty[48];
    return fmt("__builtin_convertvector(%s, %s)", v, tine_cemit_type(c, mask_type(e->type, bits), ty, sizeof ty));
}

/* The type a bool vector's mask has in C. */
static tine_type_t ctype_of(const tine_expr_t *e) {
    return e->type.kind == TINE_BOOL && e->type.lanes > 1 ? mask_type(e->type, mask_bits(e)) : e->type;
}

/* A lane loop: r[i] = fn(a[i], b[i]) for ops C's operators do not mean as tine does. */
static const char *lane_loop(tine_cemit *c, const tine_expr_t *e, const char *fn, const char *a, const char *b,
                             tine_buf *out) {
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_buf_printf(out, "%s%s %s;\n", c->indent, tine_cemit_type(c, e->type, ty, sizeof ty), name);
    if (e->type.lanes == 1) tine_buf_printf(out, "%s%s = %s(%s, %s);\n", c->indent, name, fn, a, b);
    else
        tine_buf_printf(out, "%sfor (int i = 0; i < %d; i++) %s[i] = %s(%s[i], %s[i]);\n", c->indent, e->type.lanes,
                        name, fn, a, b), c->lane_loops++;
    return remember(c, e, name);
}

/* fma and sqrt lane by lane through C's fma/fmaf and sqrt/sqrtf (correctly rounded, fma
 * once; C has no vector forms): what selection leaves of them, scalars above all. */
static const char *math_lanes(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    const char *v[3];
    int n = e->nops;
    TINE_ASSERT(n == 1 || n == 3);
    for (int i = 0; i < n; i++)
        if (!(v[i] = value(c, e->ops[i], out))) return NULL;
    bool f32 = e->type.bits == 32;
    const char *fn = n == 3 ? (f32 ? "__builtin_fmaf" : "__builtin_fma") : (f32 ? "__builtin_sqrtf" : "__builtin_sqrt");
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_buf_printf(out, "%s%s %s;\n", c->indent, tine_cemit_type(c, e->type, ty, sizeof ty), name);
    bool vec = e->type.lanes > 1;
    if (vec) tine_buf_printf(out, "%sfor (int i = 0; i < %d; i++) %s[i] = %s(", c->indent, e->type.lanes, name, fn);
    else tine_buf_printf(out, "%s%s = %s(", c->indent, name, fn);
    for (int i = 0; i < n; i++) tine_buf_printf(out, "%s%s%s", i ? ", " : "", v[i], vec ? "[i]" : "");
    tine_buf_puts(out, ");\n");
    c->lane_loops += vec;
    return remember(c, e, name);
}

/* Lanes gathered from sources through lane moves (concat, slice, interleave,
 * deinterleave, broadcast): each output lane traced to a value that is not a lane move
 * (or whose bytes are a power of two and which is used whole), then joined with
 * __builtin_shufflevector, one source at a time. */
static const char *gather(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    int n = e->type.lanes;
    const tine_expr_t **src = tine_xmalloc(sizeof *src * (size_t)n);
    int *lane = tine_xmalloc(sizeof *lane * (size_t)n);
    for (int i = 0; i < n; i++) {
        const tine_expr_t *s = e;
        int l = i;
        while (s->op == TINE_OP_CONCAT || s->op == TINE_OP_SLICE || s->op == TINE_OP_INTERLEAVE ||
               s->op == TINE_OP_DEINTERLEAVE || s->op == TINE_OP_BROADCAST) {
            int j, k;
            if (!tine_lane_source(s, l, &j, &k)) break;
            s = s->ops[j];
            l = k;
        }
        src[i] = s;
        lane[i] = l;
    }
    const char *result = NULL;
    bool any_wide = wide(e);
    for (int i = 0; i < n; i++) any_wide |= wide(src[i]);
    if (any_wide) { /* lanes C's vectors cannot hold: one assignment per lane */
        char *name = tine_xmalloc(24), tyw[48];
        snprintf(name, 24, "t%d", c->tmp++);
        if (wide(e)) tine_buf_printf(out, "%s%s %s[%d];\n", c->indent, scalar_type(e->type), name, n);
        else tine_buf_printf(out, "%s%s %s;\n", c->indent, tine_cemit_type(c, ctype_of(e), tyw, sizeof tyw), name);
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            const char *v = value(c, src[i], out);
            ok = v != NULL;
            if (ok && src[i]->type.lanes == 1) tine_buf_printf(out, "%s%s[%d] = %s;\n", c->indent, name, i, v);
            else if (ok) tine_buf_printf(out, "%s%s[%d] = %s[%d];\n", c->indent, name, i, v, lane[i]);
        }
        free(src);
        free(lane);
        if (!ok) { free(name); return NULL; }
        if (n == 1 && e->type.lanes == 1) { /* a scalar: its one lane */
            char *s1 = fmt("%s[0]", name);
            free(name);
            name = s1;
        }
        return remember(c, e, name);
    }
    tine_type_t ct = ctype_of(e);
    char ty[48], *acc = NULL;
    tine_cemit_type(c, ct, ty, sizeof ty);
    bool all_scalar = true;
    for (int i = 0; i < n; i++) all_scalar &= src[i]->type.lanes == 1;
    /* a bool vector's lanes are masks (-1), a scalar bool is 1: converted where they meet */
    bool bmask = e->type.kind == TINE_BOOL;
    if (n == 1) {
        const char *v = value(c, src[0], out);
        if (v)
            result = define(c, e, src[0]->type.lanes == 1 ? tine_strdup(v)
                                  : bmask                 ? fmt("(%s[%d] != 0)", v, lane[0])
                                                          : fmt("%s[%d]", v, lane[0]),
                            out);
    } else if (all_scalar) {
        tine_buf b = {0};
        tine_buf_printf(&b, "(%s){", ty);
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            const char *v = value(c, src[i], out);
            ok = v != NULL;
            if (ok) tine_buf_printf(&b, "%s%s%s", i ? ", " : "", bmask ? "-" : "", v);
        }
        tine_buf_puts(&b, "}");
        if (ok) result = define(c, e, b.p, out);
        else free(b.p);
    } else {
        /* one vector source after another: its lanes moved to where the result has them
           (a shuffle of it alone, to n lanes), then taken into the result so far;
           scalars go in lane by lane afterwards */
        bool *done = tine_xcalloc((size_t)n, 1);
        bool ok = true;
        for (int i = 0; i < n && ok; i++) {
            if (done[i] || src[i]->type.lanes == 1) continue;
            const tine_expr_t *s = src[i];
            /* a bool source's mask at the result's width */
            char *sv = bmask ? mask_as(c, s, mask_bits(e), out) : NULL;
            if (!bmask && value(c, s, out)) sv = tine_strdup(value(c, s, out));
            if (!sv) { ok = false; break; }
            tine_buf pos = {0}, take = {0};
            tine_buf_puts(&pos, "");
            tine_buf_puts(&take, "");
            for (int k = 0; k < n; k++) {
                bool mine = !done[k] && src[k] == s;
                tine_buf_printf(&pos, ", %d", mine ? lane[k] : -1);
                tine_buf_printf(&take, ", %d", mine ? n + k : k);
                if (mine) done[k] = true;
            }
            char *moved = fmt("__builtin_shufflevector(%s, %s%s)", sv, sv, pos.p);
            free(sv);
            char *next = acc ? fmt("__builtin_shufflevector(%s, (%s)%s%s)", acc, ty, moved, take.p) : fmt("(%s)%s", ty, moved);
            free(moved);
            free(pos.p);
            free(take.p);
            char *name = tine_xmalloc(24);
            snprintf(name, 24, "t%d", c->tmp++);
            tine_buf_printf(out, "%s%s %s = %s;\n", c->indent, ty, name, next);
            free(next);
            free(acc);
            acc = name;
        }
        for (int k = 0; k < n && ok; k++) {
            if (src[k]->type.lanes != 1) continue;
            const char *v = value(c, src[k], out);
            if (!v) { ok = false; break; }
            tine_buf_printf(out, "%s%s[%d] = %s%s;\n", c->indent, acc, k, bmask ? "-" : "", v);
        }
        free(done);
        if (ok) result = remember(c, e, acc);
        else free(acc);
    }
    free(src);
    free(lane);
    return result;
}

/* Adjacent lanes summed in groups: log2(group) rounds of even + odd lanes. */
static const char *reduce_add(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    const tine_expr_t *v = e->ops[0];
    int n = v->type.lanes, L = e->type.lanes, g = n / L;
    const char *cur = value(c, v, out);
    if (!cur || !pow2(g)) {
        if (cur) tine_set_error(c->ctx, "the C emitter sums groups of a power of two lanes, not %d", g);
        return NULL;
    }
    char *acc = tine_strdup(cur);
    char ty[48];
    for (int lanes = n; lanes > L; lanes /= 2) {
        tine_type_t ht = tine_type_with_lanes(v->type, lanes / 2);
        tine_buf ev = {0}, od = {0};
        tine_buf_puts(&ev, "");
        tine_buf_puts(&od, "");
        for (int k = 0; k < lanes / 2; k++) tine_buf_printf(&ev, ", %d", 2 * k), tine_buf_printf(&od, ", %d", 2 * k + 1);
        char *name = tine_xmalloc(24);
        snprintf(name, 24, "t%d", c->tmp++);
        if (lanes / 2 == 1)
            tine_buf_printf(out, "%s%s %s = (%s)((%s)%s[0] + %s[1]);\n", c->indent, scalar_type(ht), name, scalar_type(ht),
                            wrap_type(ht), acc, acc);
        else
            tine_buf_printf(out, "%s%s %s = __builtin_shufflevector(%s, %s%s) + __builtin_shufflevector(%s, %s%s);\n",
                            c->indent, tine_cemit_type(c, ht, ty, sizeof ty), name, acc, acc, ev.p, acc, acc, od.p);
        free(ev.p);
        free(od.p);
        free(acc);
        acc = name;
    }
    return remember(c, e, acc);
}

/* ---- instructions -------------------------------------------------------------------- */

/* Lanes [first, first + count) of value v (of `lanes` lanes, C type vt) as a register of
 * `rbits` bits of the intrinsic's type rt: lanes past the value's end are zero. */
static char *piece(tine_cemit *c, const char *v, tine_type_t t, int first, int count, int rbits, const char *rt) {
    int rl = rbits / t.bits;
    char ty[48];
    tine_type_t pt = tine_type_with_lanes(t, rl);
    tine_cemit_type(c, pt, ty, sizeof ty);
    if (first == 0 && count == t.lanes && rl == t.lanes) return fmt("(%s)%s", rt, v);
    tine_buf idx = {0};
    tine_buf_puts(&idx, "");
    for (int k = 0; k < rl; k++) tine_buf_printf(&idx, ", %d", k < count && first + k < t.lanes ? first + k : t.lanes);
    /* lane t.lanes is lane 0 of the zero vector beside v */
    char vt[48];
    tine_cemit_type(c, t, vt, sizeof vt);
    char *r = fmt("(%s)__builtin_shufflevector(%s, (%s){0}%s)", rt, v, vt, idx.p);
    free(idx.p);
    return r;
}

/* An op written as what it means: its definition, with the constants it builds (a
 * widening shift's count widened) folded, so they stay C constants. */
static const char *expanded(tine_cemit *c, tine_expr_t *def, tine_buf *out) {
    return value(c, def ? tine_fold_constants(c->ctx, def) : NULL, out);
}

static const char *insn(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    const tine_isa *idesc = NULL;
    const tine_insn *in = tine_insn_info(c->ctx, e->imm, &idesc);
    tine_type_t t = e->type;
    /* an imported entry (x86gen: Intel's intrinsics, fixed lanes) has its own description's
       features, and only its one width */
    const tine_target_info *ti = in->fixed ? tine_target_find(c->target) : NULL;
    uint32_t feats = in->fixed ? (ti && idesc ? tine_target_mask(idesc, ti) : 0) : c->features;
    int f = tine_insn_pick_form(in, feats, t.bits * t.lanes);
    if (in->fixed && f >= 0 && in->form[f].bits != t.bits * t.lanes) f = -1;
    const tine_expr_t *imm = in->imm >= 0 ? e->ops[in->imm] : NULL;
    bool imm_ok = !imm || (imm->op == TINE_OP_CONST && (imm->flags & TINE_F_UNIFORM));
    /* not on this target (an imported entry's forms are another description's): what it means */
    if (f < 0 || !in->form[f].c || !imm_ok)
        return expanded(c, tine_expand(c->ctx, (tine_expr_t *)e), out);
    const tine_insn_form *fm = &in->form[f];
    int W = fm->bits;
    /* the result's lanes per register, and the operands' */
    int rl = W / t.bits, ol[TINE_INSN_MAX_OPS];
    if (!tine_insn_operand_lanes(in, rl, ol)) {
        return expanded(c, tine_expand(c->ctx, (tine_expr_t *)e), out);
    } else {
        int widest = 0; /* the widest register an operand fills (a pack operand's is half its lanes) */
        for (int j = 0; j < e->nops; j++) {
            int bits = ol[j] * e->ops[j]->type.bits / (in->pack ? 2 : 1);
            if (j != in->imm && bits > widest) widest = bits;
        }
        int maxreg = c->x86 ? 512 : 128;
        if (widest > maxreg) { /* a sum across lanes: one result lane per source register */
            rl = rl * maxreg / widest;
            if (rl < 1 || !tine_insn_operand_lanes(in, rl, ol)) return expanded(c, tine_expand(c->ctx, (tine_expr_t *)e), out);
        }
    }
    int nreg = (t.lanes + rl - 1) / rl;
    const char *ov[TINE_INSN_MAX_OPS];
    for (int j = 0; j < e->nops; j++)
        if (j != in->imm && !(ov[j] = value(c, e->ops[j], out))) return NULL;
    char ty[48], rty[48];
    tine_type_t pt = tine_type_with_lanes(t, rl);
    tine_cemit_type(c, pt, ty, sizeof ty);
    char **parts = tine_xmalloc(sizeof *parts * (size_t)nreg);
    for (int r = 0; r < nreg; r++) {
        tine_buf call = {0};
        tine_buf_printf(&call, "%s(", fm->c);
        int na = 0;
        for (int j = 0; j < e->nops; j++) {
            if (na++) tine_buf_puts(&call, ", ");
            if (j == in->imm) {
                tine_u128 v = tine_const_value(imm, 0);
                literal(&call, imm->type, v);
                continue;
            }
            tine_type_t ot = e->ops[j]->type;
            int pieces = in->pack ? 2 : 1, per = in->pack ? ol[j] / 2 : ol[j];
            for (int k = 0; k < pieces; k++) {
                if (k) tine_buf_puts(&call, ", ");
                int pbits = per * ot.bits, rbits = pbits < (c->x86 ? 128 : 64) ? (c->x86 ? 128 : 64) : pbits;
                char rt[48];
                if (ot.lanes == 1) { /* a scalar in a register's lanes (a one-lane expression selected) */
                    int lanes = rbits / ot.bits;
                    char vt[48];
                    tine_cemit_type(c, tine_type_with_lanes(ot, lanes), vt, sizeof vt);
                    if (!tine_cemit_reg_type(c, tine_type_with_lanes(ot, lanes), rt, sizeof rt)) {
                        free(call.p);
                        for (int q = 0; q < r; q++) free(parts[q]);
                        free(parts);
                        return expanded(c, tine_expand(c->ctx, (tine_expr_t *)e), out);
                    }
                    /* a register of one lane is its compound literal (a float scalar cannot
                       be cast to float64x1_t); a float is written into every lane, not added
                       to zeros (0 + -0 is +0) */
                    if (lanes == 1) tine_buf_printf(&call, "((%s){%s})", rt, ov[j]);
                    else if (ot.kind == TINE_FLOAT) {
                        tine_buf_printf(&call, "((%s)(%s){", rt, vt);
                        for (int l = 0; l < lanes; l++) tine_buf_printf(&call, "%s%s", l ? ", " : "", ov[j]);
                        tine_buf_puts(&call, "})");
                    } else tine_buf_printf(&call, "((%s)((%s){0} + %s))", rt, vt, ov[j]);
                    continue;
                }
                if (!tine_cemit_reg_type(c, tine_type_with_lanes(ot, rbits / ot.bits), rt, sizeof rt)) {
                    free(call.p);
                    for (int q = 0; q < r; q++) free(parts[q]);
                    free(parts);
                    return expanded(c, tine_expand(c->ctx, (tine_expr_t *)e), out);
                }
                /* in parentheses: an intrinsic may be a macro (arm_neon.h's vrshr_n_s8), whose
                   arguments' commas in braces (a constant's lanes) would split them */
                char *p = piece(c, ov[j], ot, r * ol[j] + k * per, per, rbits, rt);
                tine_buf_printf(&call, "(%s)", p);
                free(p);
            }
        }
        if (fm->c_arg) tine_buf_printf(&call, ", %s", fm->c_arg); /* _mm256_cmp_ps's predicate */
        tine_buf_puts(&call, ")");
        char *name = tine_xmalloc(24);
        snprintf(name, 24, "t%d", c->tmp++);
        if (rl == 1 && t.kind == TINE_FLOAT && fm->bits == t.bits) { /* float64x1_t: its lane, not a cast */
            tine_buf_printf(out, "%s%s %s = (%s)[0];\n", c->indent, scalar_type(t), name, call.p);
        } else if (rl == 1) {
            tine_buf_printf(out, "%s%s %s = (%s)%s;\n", c->indent, scalar_type(t), name, scalar_type(t), call.p);
        } else {
            (void)rty;
            tine_buf_printf(out, "%s%s %s = (%s)%s;\n", c->indent, ty, name, ty, call.p);
            if (in->pack) { /* machine lane p of each 128-bit block: half from each register */
                int blk = 128 / t.bits, half = blk / 2, *idx = tine_xmalloc(sizeof *idx * (size_t)rl);
                for (int p = 0; p < rl; p++) {
                    int jj = p / blk, q = p % blk;
                    idx[q < half ? jj * half + q : rl / 2 + jj * half + (q - half)] = p;
                }
                tine_buf_printf(out, "%s%s = __builtin_shufflevector(%s, %s", c->indent, name, name, name);
                for (int p = 0; p < rl; p++) tine_buf_printf(out, ", %d", idx[p]);
                tine_buf_puts(out, ");\n");
                free(idx);
            }
        }
        free(call.p);
        parts[r] = name;
    }
    /* the registers joined, cut to the result's lanes */
    const char *res;
    if (t.lanes == 1 && rl > 1) { /* a one-lane result: lane 0 of the register */
        res = define(c, e, fmt("%s[0]", parts[0]), out);
        free(parts[0]);
    } else if (nreg == 1 && rl == t.lanes) {
        res = remember(c, e, parts[0]);
    } else {
        tine_buf b = {0};
        char tt[48];
        tine_cemit_type(c, t, tt, sizeof tt);
        if (rl == 1) {
            tine_buf_printf(&b, "(%s){", tt);
            for (int r = 0; r < nreg; r++) tine_buf_printf(&b, "%s%s", r ? ", " : "", parts[r]);
            tine_buf_puts(&b, "}");
        } else {
            /* pairwise concatenation up to a power of two of registers, then the cut */
            int w = 1;
            while (w < nreg) w *= 2;
            char **cur = tine_xmalloc(sizeof *cur * (size_t)w);
            for (int r = 0; r < w; r++) cur[r] = tine_strdup(r < nreg ? parts[r] : parts[0]);
            for (int lanes = rl; w > 1; w /= 2, lanes *= 2) {
                for (int r = 0; r < w / 2; r++) {
                    tine_buf idx = {0};
                    tine_buf_puts(&idx, "");
                    for (int k = 0; k < 2 * lanes; k++) tine_buf_printf(&idx, ", %d", k);
                    char *nx = fmt("__builtin_shufflevector(%s, %s%s)", cur[2 * r], cur[2 * r + 1], idx.p);
                    free(idx.p);
                    free(cur[2 * r]);
                    free(cur[2 * r + 1]);
                    cur[r] = nx;
                }
            }
            int total = 1;
            while (total < nreg) total *= 2;
            total *= rl;
            if (total == t.lanes) tine_buf_puts(&b, cur[0]);
            else {
                tine_buf_printf(&b, "__builtin_shufflevector(%s, %s", cur[0], cur[0]);
                for (int k = 0; k < t.lanes; k++) tine_buf_printf(&b, ", %d", k);
                tine_buf_puts(&b, ")");
            }
            free(cur[0]);
            free(cur);
        }
        res = define(c, e, b.p, out);
        for (int r = 0; r < nreg; r++) free(parts[r]);
    }
    free(parts);
    return res;
}

/* ---- one node ---------------------------------------------------------------------- */

static const char *binop_token(tine_op_t op) {
    switch (op) {
    case TINE_OP_ADD: return "+";
    case TINE_OP_SUB: return "-";
    case TINE_OP_MUL: return "*";
    case TINE_OP_AND: return "&";
    case TINE_OP_OR: return "|";
    case TINE_OP_XOR: return "^";
    case TINE_OP_EQ: return "==";
    case TINE_OP_NE: return "!=";
    case TINE_OP_LT: return "<";
    case TINE_OP_LE: return "<=";
    case TINE_OP_GT: return ">";
    case TINE_OP_GE: return ">=";
    default: return NULL;
    }
}

/* Whether a shift count is a constant within the lanes' width in every lane: then C's
 * shift means tine's. */
static bool plain_count(const tine_expr_t *n, int bits) {
    if (n->op != TINE_OP_CONST) return false;
    for (int i = 0; i < n->type.lanes; i++) {
        tine_u128 v = tine_const_value(n, i);
        if (n->type.kind == TINE_INT && (int64_t)(uint64_t)v < 0) return false;
        if (v >= (tine_u128)bits) return false;
    }
    return true;
}

/* Lane i of a value as a scalar C expression (a vector's or an array's element, a
 * scalar itself). */
static char *lane_of(const char *v, const tine_expr_t *e, const char *i) {
    return e->type.lanes == 1 ? fmt("%s", v) : fmt("%s[%s]", v, i);
}

/* Whether every lane of e is the same (a broadcast, a uniform constant, lane-wise ops of
 * such). */
static bool uniform(const tine_expr_t *e) {
    switch (e->op) {
    case TINE_OP_CONST: return (e->flags & TINE_F_UNIFORM) != 0;
    case TINE_OP_BROADCAST: return true;
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
    case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_NEG: case TINE_OP_NOT: case TINE_OP_CAST: case TINE_OP_SELECT:
    case TINE_OP_SHL: case TINE_OP_SHR: case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE:
    case TINE_OP_GT: case TINE_OP_GE: break;
    case TINE_OP_REINTERPRET: if (e->type.lanes != e->ops[0]->type.lanes) return false; break;
    default: return false;
    }
    for (int i = 0; i < e->nops; i++)
        if (!uniform(e->ops[i])) return false;
    return true;
}

/* A shift of x86 lanes of 16, 32 or 64 bits by a count every lane has (vshlq_s32 by
 * vdupq_n_s32(-shift)): the instructions that take one count in a register, which give 0
 * (or the sign, shifting right arithmetically) for a count of the width or more, as
 * tine's shift does; a negative signed count shifts the other way. NULL if the target
 * has none. */
static const char *uniform_shift(tine_cemit *c, const tine_expr_t *e, const char *a, const char *b, tine_buf *out) {
    tine_type_t t = e->type, ts = e->ops[1]->type;
    int bits = t.bits * t.lanes;
    const tine_target_info *ti = c->x86 ? tine_target_find(c->target) : NULL;
    const char *f = ti && ti->features ? ti->features : "";
    if (!c->x86 || (t.bits != 16 && t.bits != 32 && t.bits != 64) || !uniform(e->ops[1])) return NULL;
    bool left = e->op == TINE_OP_SHL, arith = t.kind == TINE_INT;
    /* the widest register the target shifts these lanes in; a longer vector, piece by piece */
    int reg = strstr(f, t.bits == 16 ? "avx512bw" : "avx512f") ? 512 : strstr(f, "avx2") ? 256 : 128;
    /* psraq is AVX-512's: before it, x >> n is ((x ^ s) >>> n) ^ s with s the sign in every
       bit, a logical shift of the magnitude's complement (right for any n: past 63 it is s) */
    bool sra64 = arith && t.bits == 64 && !strstr(f, "avx512f");
    while (reg > 128 && reg > bits) reg /= 2;
    if (bits < 128 || bits % reg || bits / reg > 8) return NULL;
    const char *pre = reg == 128 ? "_mm" : reg == 256 ? "_mm256" : "_mm512";
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_cemit_type(c, t, ty, sizeof ty);
    char *n0 = lane_of(b, e->ops[1], "0"), right[32], lft[32];
    snprintf(right, sizeof right, "%s_sr%c_epi%d", pre, arith && !sra64 ? 'a' : 'l', t.bits);
    snprintf(lft, sizeof lft, "%s_sll_epi%d", pre, t.bits);
    const char *I = c->indent;
    if (wide(e)) tine_buf_printf(out, "%s%s %s[%d];\n%s{\n", I, scalar_type(t), name, t.lanes, I);
    else tine_buf_printf(out, "%s%s %s;\n%s{\n", I, ty, name, I);
    if (ts.kind == TINE_INT) /* the magnitude of a negative count, and the other way */
        tine_buf_printf(out, "%s    int64_t m = (int64_t)%s;\n%s    int back = m < 0;\n"
                             "%s    __m128i k = _mm_cvtsi64_si128((long long)(back ? (uint64_t)0 - (uint64_t)m : (uint64_t)m));\n",
                        I, n0, I, I);
    else
        tine_buf_printf(out, "%s    int back = 0;\n%s    __m128i k = _mm_cvtsi64_si128((long long)(uint64_t)%s);\n", I, I, n0);
    int np = bits / reg;
    if (wide(e)) tine_buf_printf(out, "%s    __m%di p[%d];\n%s    memcpy(p, %s, sizeof p);\n", I, reg, np, I, a);
    else tine_buf_printf(out, "%s    __m%di p[%d];\n%s    %s x = %s;\n%s    memcpy(p, &x, sizeof p);\n", I, reg, np, I, ty, a, I);
    if (sra64) {
        tine_buf_printf(out, "%s    for (int i = 0; i < %d; i++) {\n", I, np);
        tine_buf_printf(out, "%s        __m%di s = %s_shuffle_epi32(%s_srai_epi32(p[i], 31), 0xF5);\n", I, reg, pre, pre);
        tine_buf_printf(out, "%s        __m%di r = %s_xor_si%d(%s(%s_xor_si%d(p[i], s), k), s);\n", I, reg, pre, reg, right, pre, reg);
        tine_buf_printf(out, "%s        p[i] = %sback ? %s(p[i], k) : r;\n%s    }\n", I, left ? "!" : "", lft, I);
    } else {
        tine_buf_printf(out, "%s    for (int i = 0; i < %d; i++) p[i] = back ? %s(p[i], k) : %s(p[i], k);\n", I, np,
                        left ? right : lft, left ? lft : right);
    }
    tine_buf_printf(out, "%s    memcpy(%s%s, p, sizeof p);\n%s}\n", I, wide(e) ? "" : "&", name, I);
    free(n0);
    return remember(c, e, name);
}

/* An elementwise node computed lane by lane in scalar C (the array of a wide vector, or
 * a vector whose operands are wide). */
static const char *lanewise(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    const char *ov[3] = {0};
    for (int j = 0; j < e->nops; j++)
        if (!(ov[j] = value(c, e->ops[j], out))) return NULL;
    tine_type_t t = e->type;
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_type_t ct = ctype_of(e);
    if (wide(e)) tine_buf_printf(out, "%s%s %s[%d];\n", c->indent, scalar_type(t), name, t.lanes);
    else tine_buf_printf(out, "%s%s %s;\n", c->indent, tine_cemit_type(c, ct, ty, sizeof ty), name);
    const char *T = scalar_type(ct);
    char *a = e->nops > 0 ? lane_of(ov[0], e->ops[0], "i") : NULL, *b = e->nops > 1 ? lane_of(ov[1], e->ops[1], "i") : NULL;
    char *x = NULL;
    const char *tok = binop_token((tine_op_t)e->op);
    switch (e->op) {
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL:
        x = fmt("(%s)((%s)%s %s (%s)%s)", T, wrap_type(ct), a, tok, wrap_type(ct), b);
        break;
    case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
        x = fmt("(%s)(%s %s %s)", T, a, tok, b);
        break;
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        x = fmt("(%s)(%s %s %s ? -1 : 0)", T, a, tok, b);
        break;
    case TINE_OP_NEG: x = fmt("(%s)(0 - (%s)%s)", T, wrap_type(ct), a); break;
    case TINE_OP_NOT: x = fmt("(%s)~%s", T, a); break;
    case TINE_OP_MIN: x = fmt("%s < %s ? %s : %s", a, b, a, b); break;
    case TINE_OP_MAX: x = fmt("%s > %s ? %s : %s", a, b, a, b); break;
    case TINE_OP_SELECT: {
        char *f = lane_of(value(c, e->ops[2], out), e->ops[2], "i");
        x = fmt("%s ? %s : %s", a, b, f);
        free(f);
        break;
    }
    case TINE_OP_SHL: case TINE_OP_SHR:
        x = fmt("%s(%s, %s)", shift_helper(c, tine_type_with_lanes(t, 1), tine_type_with_lanes(e->ops[1]->type, 1), e->op == TINE_OP_SHL), a, b);
        break;
    case TINE_OP_DIV: case TINE_OP_MOD:
        x = fmt("%s(%s, %s)", divmod_helper(c, tine_type_with_lanes(t, 1), e->op == TINE_OP_DIV), a, b);
        break;
    case TINE_OP_CAST:
        if (t.kind == TINE_BOOL) x = fmt("(%s)(%s != 0 ? -1 : 0)", T, a);
        else if (e->ops[0]->type.kind == TINE_BOOL) x = fmt("(%s)(%s != 0)", T, a);
        else x = fmt("(%s)%s", T, a);
        break;
    case TINE_OP_REINTERPRET: x = fmt("(%s)%s", T, a); break; /* same bits per lane: the value wraps */
    default: break;
    }
    free(a);
    free(b);
    if (!x) {
        free(name);
        tine_set_error(c->ctx, "the C emitter cannot write '%s' lane by lane", tine_op_name((tine_op_t)e->op));
        return NULL;
    }
    tine_buf_printf(out, "%sfor (int i = 0; i < %d; i++) %s[i] = %s;\n", c->indent, t.lanes, name, x);
    c->lane_loops++;
    free(x);
    return remember(c, e, name);
}

/* Whether k is an integer constant, one value in every lane, at its type's minimum (-1)
 * or maximum (1); 0 otherwise. */
static int at_limit(const tine_expr_t *k) {
    if (k->op != TINE_OP_CONST || (k->type.kind != TINE_INT && k->type.kind != TINE_UINT)) return 0;
    int bits = k->type.bits;
    tine_u128 mask = bits >= 128 ? ~(tine_u128)0 : ((tine_u128)1 << bits) - 1, v = tine_const_value(k, 0) & mask;
    for (int i = 1; i < k->type.lanes; i++)
        if ((tine_const_value(k, i) & mask) != v) return 0;
    tine_u128 mn = k->type.kind == TINE_INT ? (tine_u128)1 << (bits - 1) : 0, mx = k->type.kind == TINE_INT ? mn - 1 : mask;
    return v == mn ? -1 : v == mx ? 1 : 0;
}

/* A comparison whose value is known: 1 (a scalar) or masks of -1 in every lane, or 0. */
static const char *known_truth(tine_cemit *c, const tine_expr_t *e, bool truth, tine_buf *out) {
    if (e->type.lanes == 1) return define(c, e, fmt("%d", truth), out);
    char ty[48];
    tine_buf r = {0};
    tine_buf_printf(&r, "(%s){", tine_cemit_type(c, ctype_of(e), ty, sizeof ty));
    for (int i = 0; i < e->type.lanes; i++) tine_buf_printf(&r, "%s%d", i ? ", " : "", truth ? -1 : 0);
    tine_buf_puts(&r, "}");
    return define(c, e, r.p, out);
}

static const char *node(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    tine_type_t t = e->type;
    char ty[48];
    bool vec = t.lanes > 1;
    if (vec && !wide(e) && !pow2(t.lanes * (t.kind == TINE_BOOL ? 8 : t.bits) / 8) && e->op != TINE_OP_CONCAT) {
        tine_set_error(c->ctx, "the C emitter holds vectors of a power of two of bytes, not %d lanes of %d bits", t.lanes,
                       t.bits);
        return NULL;
    }
    switch (e->op) {
    case TINE_OP_VAR:
        for (int i = c->nbinds - 1; i >= 0; i--)
            if (c->binds[i].e == e) return c->binds[i].name;
        tine_set_error(c->ctx, "the C emitter has no name for variable '%s'", tine_expr_name(e));
        return NULL;
    case TINE_OP_CONST:
        if (wide(e)) {
            char *name = tine_xmalloc(24);
            snprintf(name, 24, "t%d", c->tmp++);
            tine_buf_printf(out, "%sconst %s %s[%d] = {", c->indent, scalar_type(t), name, t.lanes);
            for (int i = 0; i < t.lanes; i++) {
                if (i) tine_buf_puts(out, ", ");
                literal(out, t, tine_const_value(e, i));
            }
            tine_buf_puts(out, "};\n");
            return remember(c, e, name);
        }
        return remember(c, e, const_expr(c, e)); /* written where used: no temporary to leave unused */
    case TINE_OP_CONCAT:
    case TINE_OP_SLICE:
    case TINE_OP_INTERLEAVE:
    case TINE_OP_DEINTERLEAVE:
    case TINE_OP_BROADCAST: return gather(c, e, out);
    case TINE_OP_VECTOR_REDUCE_ADD: return reduce_add(c, e, out);
    case TINE_OP_INSN: return insn(c, e, out);
    case TINE_OP_LOAD: tine_set_error(c->ctx, "the C emitter writes no buffer loads"); return NULL;
    case TINE_OP_FMA:
    case TINE_OP_SQRT:
        if (t.kind == TINE_FLOAT) return math_lanes(c, e, out);
        break;
    default: break;
    }
    if (tine_op_is_fpir((tine_op_t)e->op)) return expanded(c, tine_fpir_expand_node(c->ctx, e), out);
    if (e->nops == 2 && (at_limit(e->ops[0]) || at_limit(e->ops[1]))) {
        /* an integer operand against a constant at its type's end: gcc warns of `x < 0`
           (unsigned) and `x <= 127` (i8) and `x < 0 ? x : 0` (-Wtype-limits) whose
           values are known */
        int l1 = at_limit(e->ops[1]), l0 = at_limit(e->ops[0]);
        int k = l1 ? 1 : 0, lim = l1 ? l1 : l0; /* operand k is the constant, at min (-1) or max (1) */
        tine_op_t op = (tine_op_t)e->op;
        if (op == TINE_OP_MIN || op == TINE_OP_MAX) { /* min(x, min) = min, min(x, max) = x ... */
            const tine_expr_t *r = (op == TINE_OP_MIN) == (lim < 0) ? e->ops[k] : e->ops[1 - k];
            const char *a = value(c, r, out);
            return a ? remember(c, e, tine_strdup(a)) : NULL;
        }
        if (k == 0) /* k OP x as x OP' k */
            op = op == TINE_OP_LT ? TINE_OP_GT : op == TINE_OP_GT ? TINE_OP_LT : op == TINE_OP_LE ? TINE_OP_GE
                 : op == TINE_OP_GE                                            ? TINE_OP_LE
                                                                               : op;
        int truth = -1; /* x < min, x > max: false; x >= min, x <= max: true */
        if (lim < 0 && (op == TINE_OP_LT || op == TINE_OP_GE)) truth = op == TINE_OP_GE;
        if (lim > 0 && (op == TINE_OP_GT || op == TINE_OP_LE)) truth = op == TINE_OP_LE;
        if (truth >= 0) return known_truth(c, e, truth, out);
    }
    if ((e->op == TINE_OP_MIN || e->op == TINE_OP_MAX || (e->op >= TINE_OP_EQ && e->op <= TINE_OP_GE)) &&
        e->ops[0]->type.kind != TINE_FLOAT) {
        /* one integer value twice (one node, or two whose C value is one name: min(x, x)
           is x): C compilers warn of `x < x` and `x < x ? x : x` (-Wtautological-compare),
           whose values are known */
        bool same = e->ops[0] == e->ops[1];
        if (!same) {
            const char *a = value(c, e->ops[0], out), *b = a ? value(c, e->ops[1], out) : NULL;
            if (!a || !b) return NULL;
            same = !strcmp(a, b);
            if (same) tine_buf_printf(out, "%s(void)%s;\n", c->indent, a); /* computed for this use alone, maybe */
        }
        if (same && (e->op == TINE_OP_MIN || e->op == TINE_OP_MAX)) {
            const char *a = value(c, e->ops[0], out);
            return a ? remember(c, e, tine_strdup(a)) : NULL;
        }
        if (same) return known_truth(c, e, e->op == TINE_OP_EQ || e->op == TINE_OP_LE || e->op == TINE_OP_GE, out);
    }
    if (vec) {
        bool any = wide(e);
        for (int j = 0; j < e->nops; j++) any |= wide(e->ops[j]);
        if (any && !(e->op == TINE_OP_REINTERPRET && e->ops[0]->type.bits != t.bits)) return lanewise(c, e, out);
    }
    const char *a = e->nops > 0 ? value(c, e->ops[0], out) : NULL;
    const char *b = e->nops > 1 ? value(c, e->ops[1], out) : NULL;
    if ((e->nops > 0 && !a) || (e->nops > 1 && !b)) return NULL;
    tine_type_t ct = ctype_of(e);
    tine_cemit_type(c, ct, ty, sizeof ty);
    switch (e->op) {
    case TINE_OP_ADD:
    case TINE_OP_SUB:
    case TINE_OP_MUL:
    case TINE_OP_AND:
    case TINE_OP_OR:
    case TINE_OP_XOR:
        if (t.kind == TINE_BOOL && vec) { /* masks of one width */
            int mb = mask_bits(e->ops[0]);
            char *bb = mask_as(c, e->ops[1], mb, out);
            char *r = fmt("%s %s %s", a, binop_token((tine_op_t)e->op), bb);
            free(bb);
            return define(c, e, r, out);
        }
        if (e->op == TINE_OP_ADD || e->op == TINE_OP_SUB || e->op == TINE_OP_MUL) { /* wrapping */
            const char *tok = binop_token((tine_op_t)e->op);
            if (!vec) return define(c, e, fmt("(%s)((%s)%s %s (%s)%s)", ty, wrap_type(t), a, tok, wrap_type(t), b), out);
            if (t.kind == TINE_INT) {
                char ut[48];
                tine_cemit_type(c, tine_type_with_kind(t, TINE_UINT), ut, sizeof ut);
                return define(c, e, fmt("(%s)((%s)%s %s (%s)%s)", ty, ut, a, tok, ut, b), out);
            }
        }
        if (!vec) return define(c, e, fmt("(%s)(%s %s %s)", ty, a, binop_token((tine_op_t)e->op), b), out);
        return define(c, e, fmt("%s %s %s", a, binop_token((tine_op_t)e->op), b), out);
    case TINE_OP_EQ:
    case TINE_OP_NE:
    case TINE_OP_LT:
    case TINE_OP_LE:
    case TINE_OP_GT:
    case TINE_OP_GE:
        if (e->ops[0]->type.kind == TINE_BOOL && vec) {
            tine_set_error(c->ctx, "the C emitter compares no bool vectors");
            return NULL;
        }
        return define(c, e, fmt("%s %s %s", a, binop_token((tine_op_t)e->op), b), out);
    case TINE_OP_NEG: {
        if (!vec) return define(c, e, fmt("(%s)(0 - (%s)%s)", ty, wrap_type(t), a), out);
        if (t.kind != TINE_INT) return define(c, e, fmt("-%s", a), out);
        char ut[48]; /* -INT_MIN wraps */
        tine_cemit_type(c, tine_type_with_kind(t, TINE_UINT), ut, sizeof ut);
        return define(c, e, fmt("(%s)-(%s)%s", ty, ut, a), out);
    }
    case TINE_OP_NOT:
        if (t.kind == TINE_BOOL && !vec) return define(c, e, fmt("!%s", a), out);
        return define(c, e, vec ? fmt("~%s", a) : fmt("(%s)~%s", ty, a), out);
    case TINE_OP_MIN:
    case TINE_OP_MAX: {
        const char *cmp = e->op == TINE_OP_MIN ? "<" : ">";
        if (!vec) return define(c, e, fmt("%s %s %s ? %s : %s", a, cmp, b, a, b), out);
        if (t.kind == TINE_FLOAT) { /* C's & is on integers: the lanes' bits as integers */
            char it[48];
            tine_cemit_type(c, (tine_type_t){.kind = TINE_INT, .bits = t.bits, .lanes = t.lanes}, it, sizeof it);
            return define(c, e, fmt("(%s)(((%s)%s & (%s)(%s %s %s)) | ((%s)%s & ~(%s)(%s %s %s)))", ty, it, a, it, a, cmp,
                                    b, it, b, it, a, cmp, b), out);
        }
        return define(c, e, fmt("(%s & (%s)(%s %s %s)) | (%s & ~(%s)(%s %s %s))", a, ty, a, cmp, b, b, ty, a, cmp, b), out);
    }
    case TINE_OP_SELECT: {
        const char *f = value(c, e->ops[2], out);
        if (!f) return NULL;
        if (!vec) return define(c, e, fmt("%s ? %s : %s", a, b, f), out);
        int mb = t.kind == TINE_BOOL ? mask_bits(e->ops[1]) : t.bits;
        char *m = mask_as(c, e->ops[0], mb, out);
        /* bool values: the false one's mask at the true one's width (the result's) */
        char *fv = t.kind == TINE_BOOL ? mask_as(c, e->ops[2], mb, out) : tine_strdup(f);
        char *r;
        if (t.kind == TINE_FLOAT) { /* C's & is on integers: the lanes' bits as integers */
            char it[48];
            tine_cemit_type(c, (tine_type_t){.kind = TINE_INT, .bits = t.bits, .lanes = t.lanes}, it, sizeof it);
            r = fmt("(%s)(((%s)%s & (%s)%s) | ((%s)%s & ~(%s)%s))", ty, it, b, it, m, it, fv, it, m);
        } else r = fmt("(%s & (%s)%s) | (%s & ~(%s)%s)", b, ty, m, fv, ty, m);
        free(m);
        free(fv);
        return define(c, e, r, out);
    }
    case TINE_OP_SHL:
    case TINE_OP_SHR:
        if (plain_count(e->ops[1], t.bits)) {
            const char *tok = e->op == TINE_OP_SHL ? "<<" : ">>";
            bool left = e->op == TINE_OP_SHL;
            /* a left shift of a negative value is undefined in C: in the unsigned type */
            if (!vec) return define(c, e, left ? fmt("(%s)((%s)%s << %s)", ty, wrap_type(t), a, b)
                                                : fmt("(%s)(%s >> %s)", ty, a, b), out);
            char ut[48];
            tine_cemit_type(c, tine_type_with_kind(t, TINE_UINT), ut, sizeof ut);
            char *x = left && t.kind == TINE_INT ? fmt("(%s)%s", ut, a) : fmt("%s", a), *r;
            if (e->ops[1]->flags & TINE_F_UNIFORM) {
                tine_buf lit = {0};
                literal(&lit, tine_type(TINE_INT, 32, 1), tine_const_value(e->ops[1], 0));
                r = fmt("%s %s %s", x, tok, lit.p);
                free(lit.p);
            } else {
                char st[48];
                tine_cemit_type(c, left ? tine_type_with_kind(t, TINE_UINT) : t, st, sizeof st);
                r = fmt("%s %s (%s)%s", x, tok, st, b);
            }
            free(x);
            if (left && t.kind == TINE_INT) {
                char *r2 = fmt("(%s)(%s)", ty, r);
                free(r);
                r = r2;
            }
            return define(c, e, r, out);
        }
        if (vec) {
            const char *u = uniform_shift(c, e, a, b, out);
            if (u) return u;
        }
        return lane_loop(c, e, shift_helper(c, t, tine_type_with_lanes(e->ops[1]->type, 1), e->op == TINE_OP_SHL), a, b, out);
    case TINE_OP_DIV:
    case TINE_OP_MOD: return lane_loop(c, e, divmod_helper(c, tine_type_with_lanes(t, 1), e->op == TINE_OP_DIV), a, b, out);
    case TINE_OP_CAST: {
        tine_type_t from = e->ops[0]->type;
        if (t.kind == TINE_BOOL) {
            if (!vec) return define(c, e, fmt("%s != 0", a), out);
            return define(c, e, fmt("__builtin_convertvector(%s != 0, %s)", a, ty), out);
        }
        if (from.kind == TINE_BOOL) {
            if (!vec) return define(c, e, fmt("(%s)(%s != 0)", ty, a), out);
            char mt[48];
            tine_cemit_type(c, ctype_of(e->ops[0]), mt, sizeof mt);
            return define(c, e, fmt("__builtin_convertvector(-%s, %s)", a, ty), out);
        }
        if (!vec) return define(c, e, fmt("(%s)%s", ty, a), out);
        return define(c, e, fmt("__builtin_convertvector(%s, %s)", a, ty), out);
    }
    case TINE_OP_REINTERPRET: return define(c, e, fmt("(%s)%s", ty, a), out);
    case TINE_OP_RAMP: {
        tine_buf r = {0};
        tine_buf_printf(&r, "(%s){", ty);
        for (int i = 0; i < t.lanes; i++) /* wrapping */
            tine_buf_printf(&r, "%s(%s)((%s)%s + %du * (%s)%s)", i ? ", " : "", scalar_type(t), wrap_type(t), a, i,
                            wrap_type(t), b);
        tine_buf_puts(&r, "}");
        return define(c, e, r.p, out);
    }
    default: break;
    }
    tine_set_error(c->ctx, "the C emitter cannot write '%s'", tine_op_name((tine_op_t)e->op));
    return NULL;
}

static const char *value(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    uint64_t v;
    if (tine_u64map_get(&c->memo, e->id, &v)) return c->vals[v - 1];
    return node(c, e, out);
}

int tine_cemit_lane_loops(const tine_cemit *c) { return c->lane_loops; }

const char *tine_cemit_value(tine_cemit *c, const tine_expr_t *e, tine_buf *out) {
    const char *v = value(c, e, out);
    if (!v || e->type.kind != TINE_BOOL || e->type.lanes == 1 || mask_bits(e) == 8) return v;
    /* a bool vector computed as a mask of wider lanes (a comparison of u32 lanes): the
       caller gets the type tine_cemit_type gives, a mask of 8-bit lanes (not memoized as
       e's value, which stays the wide mask the nodes above it use) */
    char ty[48], *name = tine_xmalloc(24);
    snprintf(name, 24, "t%d", c->tmp++);
    tine_cemit_type(c, e->type, ty, sizeof ty);
    tine_buf_printf(out, "%sconst %s %s = __builtin_convertvector(%s, %s);\n", c->indent, ty, name, v, ty);
    TINE_GROW(c->vals, c->nvals + 1, c->capvals);
    c->vals[c->nvals++] = name;
    return name;
}

void tine_cemit_prelude(tine_cemit *c, tine_buf *out) {
    tine_buf_puts(out, c->types.p);
    tine_buf_puts(out, c->helpers.p);
}

bool tine_cemit_program(tine_cemit *c, const tine_tprog *p, tine_cemit_input_fn input, tine_cemit_store_fn store,
                        void *user, tine_buf *out) {
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        const tine_expr_t *x = it->e;
        if (x->op == TINE_OP_VAR && it->store < 0) {
            bool bound = false;
            for (int k = 0; k < c->nbinds && !bound; k++) bound = c->binds[k].e == x;
            for (int q = 0; q < p->ninputs && !bound; q++)
                if (p->inputs[q] == x) {
                    input(user, q, out);
                    bound = true;
                }
            continue;
        }
        /* written where their first reader writes them, not here: a lane move (a reader
           that moves lanes gathers them from its sources, never reading its value) and a
           bool (its value here would be its held form, a mask of bytes, which a select of
           another width does not read: it reads the comparison at its own width); written
           ahead, they may be unused, which C compilers warn of */
        if (it->store < 0 && (x->type.kind == TINE_BOOL || x->op == TINE_OP_CONCAT || x->op == TINE_OP_SLICE ||
                              x->op == TINE_OP_INTERLEAVE || x->op == TINE_OP_DEINTERLEAVE || x->op == TINE_OP_BROADCAST))
            continue;
        const char *v = tine_cemit_value(c, x, out);
        if (!v) return false;
        if (it->store >= 0) store(user, it->store, v, out);
    }
    return true;
}
