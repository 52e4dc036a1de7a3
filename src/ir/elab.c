/* elab.c — syntax tree to IR: names resolved, types checked, literals typed.
 *
 * Literals are untyped until their position types them: the other operand of a binary
 * op, the cast around them, or the rule of an FPIR operand (tine_fpir_literal_type).
 * Arithmetic between two literals folds exactly (bits(T) + 1). Leaves get the lanes of
 * their position: the environment's lanes at the root, 1 inside x(...) and ramp(...).
 * The printer (print.c) follows the same rules, so printing then parsing is the identity.
 * Every error points at the tree node it concerns. What layers above add to the
 * language (kernels, instructions, bounds predicates) comes in through hooks (elab.h).
 */
#include "elab.h"

#include <math.h>

typedef tine_elab_val val;
typedef struct tine_elab elab;

struct tine_elab {
    tine_ctx_t *ctx;
    const tine_elab_env *env;
    bool failed;
    bool undecided; /* PRED with static_only: needed something hidden */
    /* PATTERN: the wildcards declared so far (x:T or x_u8), by name */
    const char *decl_name[32];
    tine_expr_t *decl[32];
    int ndecl;
    /* names bound by let and by reductions (and an inlined function's coordinates),
     * innermost last: in scope0 until that is full, then on the heap (a chain of inlined
     * calls stacks every function's coordinates and lets) */
    const char **scope_name;
    val *scope_val;
    int nscope, scope_cap;
    int scope_base; /* names below it belong to the caller of the function being inlined */
    int let_base;   /* the lets and reductions of the body being elaborated start here */
    const char *scope_name0[16];
    val scope_val0[16];
    /* work done by constant reductions, against the limits of ast.h (TINE_KLIMIT_*) */
    long terms;      /* iterations of constant reductions */
    long mult;       /* the product of the ranges of the constant reductions around */
    int rdepth;      /* reductions nested, through inlined calls too */
};

static void push_scope(elab *el, const char *name, val v) {
    if (el->nscope == el->scope_cap) {
        int cap = 2 * el->scope_cap;
        const char **n = tine_xmalloc((size_t)cap * sizeof *n);
        val *w = tine_xmalloc((size_t)cap * sizeof *w);
        memcpy(n, el->scope_name, (size_t)el->nscope * sizeof *n);
        memcpy(w, el->scope_val, (size_t)el->nscope * sizeof *w);
        if (el->scope_name != el->scope_name0) {
            free(el->scope_name);
            free(el->scope_val);
        }
        el->scope_name = n;
        el->scope_val = w;
        el->scope_cap = cap;
    }
    el->scope_name[el->nscope] = name;
    el->scope_val[el->nscope++] = v;
}

static void elab_init(elab *el, tine_ctx_t *ctx, const tine_elab_env *env) {
    memset(el, 0, sizeof *el);
    el->ctx = ctx;
    el->env = env;
    el->scope_name = el->scope_name0;
    el->scope_val = el->scope_val0;
    el->scope_cap = 16;
    el->mult = 1;
}

static void elab_done(elab *el) {
    if (el->scope_name != el->scope_name0) {
        free(el->scope_name);
        free(el->scope_val);
    }
}

/* Stops elaboration without a message: the value depends on a match not made yet. */
static val undecided(elab *el) {
    el->undecided = true;
    el->failed = true;
    return (val){0};
}

static val vfail(elab *el, const tine_ast *at, const char *fmt, va_list ap) {
    val v = {0};
    if (el->failed) return v;
    el->failed = true;
    tine_vdiag(el->ctx, at->src, at->line, at->col, fmt, ap);
    return v;
}

static val fail(elab *el, const tine_ast *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static val fail(elab *el, const tine_ast *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    val v = vfail(el, at, fmt, ap);
    va_end(ap);
    return v;
}

/* A constructor returned NULL: move its message to the node's location. */
static val located(elab *el, const tine_ast *at) {
    char *m = tine_strdup(tine_error(el->ctx) ? tine_error(el->ctx) : "invalid expression");
    val v = fail(el, at, "%s", m);
    free(m);
    return v;
}

/* e evaluated, when it is an integer or bool operation of uniform constants (not a
 * ramp, whose lanes differ, nor a load): the interpreter gives the value, so folding
 * means exactly what the operation means (wrapping, x / 0 = 0 ...). */
static tine_expr_t *fold_const(tine_ctx_t *ctx, tine_expr_t *e) {
    if (e->op == TINE_OP_CONST || e->op == TINE_OP_VAR || e->op == TINE_OP_RAMP || e->op == TINE_OP_LOAD ||
        e->nops == 0 || (e->type.kind != TINE_INT && e->type.kind != TINE_UINT && e->type.kind != TINE_BOOL))
        return e;
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i]->op != TINE_OP_CONST || !(e->ops[i]->flags & TINE_F_UNIFORM) || e->ops[i]->type.kind == TINE_FLOAT)
            return e;
    tine_u128 v[TINE_MAX_LANES];
    if (tine_eval128(ctx, e, NULL, v) != 0) return e;
    return tine_const_splat(ctx, e->type, v[0]);
}

static val typed(elab *el, const tine_ast *at, tine_expr_t *e) {
    if (!e) return located(el, at);
    val v = {.e = el->env->fold ? fold_const(el->ctx, e) : e};
    return v;
}

static bool ok(const elab *el, val v) { return !el->failed && (v.e || v.lit); }

static const char *tstr(tine_type_t t, char b[32]) { return tine_type_str(t, b, 32); }

/* ---- literals -------------------------------------------------------------------------- */

/* Gives literal v the type t (lanes included). */
static val lit_to(elab *el, const tine_ast *at, val v, tine_type_t t) {
    if (!v.lit) return v;
    char b[32];
    if (v.lit == 3) { /* a constant wildcard takes its type here, as a pattern variable */
        if (!tine_type_is_int(t)) return fail(el, at, "constant wildcard c%d must be an integer, here it would be %s", (int)v.iv, tstr(t, b));
        char name[4] = {'?', 'c', (char)('0' + (int)v.iv), 0};
        return typed(el, at, tine_var(el->ctx, name, t));
    }
    if (t.kind == TINE_FLOAT) {
        double d = v.lit == 1 ? (double)v.iv : v.fv;
        /* as the parser refuses a literal past the largest double, an f32's is refused
         * past the largest float (infinity is written inf); one too small rounds to
         * the nearest float, as in C */
        if (t.bits == 32 && isfinite(d) && isinf((float)d))
            return fail(el, at, "constant %g is too large for f32 (at most about 3.4e38; infinity is written inf)", d);
        return typed(el, at, tine_const_float(el->ctx, t, d));
    }
    if (v.lit == 2) return fail(el, at, "a float constant cannot have type %s", tstr(t, b));
    if (!tine_fits(t, v.iv)) {
        char n[48];
        return fail(el, at, "constant %s does not fit in %s", tine_i128_str(v.iv, n), tstr(t, b));
    }
    return typed(el, at, tine_const_splat(el->ctx, t, (tine_u128)v.iv));
}

static val need_typed(elab *el, const tine_ast *at, val v) {
    if (v.lit == 3) return fail(el, at, "constant wildcard c%d needs an operand of known type beside it", (int)v.iv);
    if (v.lit) return fail(el, at, "cannot infer the type of this constant; give it one, as in u8(3)");
    return v;
}

static val fold(elab *el, const tine_ast *at, tine_op_t op, val a, val b) {
    val r = {.lit = 1};
    if (a.lit == 3 || b.lit == 3)
        return fail(el, at, "a constant wildcard needs an operand of known type beside it (conditions on it go after 'if')");
    if (el->env->mode == TINE_ELAB_PRED && a.lit == 1 && b.lit == 1) { /* comparisons of constants */
        switch (op) {
        case TINE_OP_EQ: r.iv = a.iv == b.iv; return r;
        case TINE_OP_NE: r.iv = a.iv != b.iv; return r;
        case TINE_OP_LT: r.iv = a.iv < b.iv; return r;
        case TINE_OP_LE: r.iv = a.iv <= b.iv; return r;
        case TINE_OP_GT: r.iv = a.iv > b.iv; return r;
        case TINE_OP_GE: r.iv = a.iv >= b.iv; return r;
        default: break;
        }
    }
    if (a.lit == 2 || b.lit == 2) {
        double x = a.lit == 2 ? a.fv : (double)a.iv, y = b.lit == 2 ? b.fv : (double)b.iv;
        r.lit = 2;
        switch (op) {
        case TINE_OP_ADD: r.fv = x + y; return r;
        case TINE_OP_SUB: r.fv = x - y; return r;
        case TINE_OP_MUL: r.fv = x * y; return r;
        case TINE_OP_DIV: r.fv = x / y; return r;
        default: return fail(el, at, "'%s' of two constants needs a type", tine_op_name(op));
        }
    }
    tine_i128 x = a.iv, y = b.iv;
    tine_u128 ux = (tine_u128)x, uy = (tine_u128)y;
    switch (op) {
    case TINE_OP_ADD: r.iv = (tine_i128)(ux + uy); break;
    case TINE_OP_SUB: r.iv = (tine_i128)(ux - uy); break;
    case TINE_OP_MUL: r.iv = (tine_i128)(ux * uy); break;
    case TINE_OP_DIV:
    case TINE_OP_MOD: {
        if (y == 0) {
            r.iv = 0;
            break;
        }
        if (y == -1) { /* avoids the one overflowing case */
            r.iv = op == TINE_OP_DIV ? (tine_i128)(0 - ux) : 0;
            break;
        }
        tine_i128 q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
            q -= 1;
            m += y;
        }
        r.iv = op == TINE_OP_DIV ? q : m;
        break;
    }
    case TINE_OP_AND: r.iv = x & y; break;
    case TINE_OP_OR: r.iv = x | y; break;
    case TINE_OP_XOR: r.iv = x ^ y; break;
    case TINE_OP_SHL:
        if (y < 0 || y > 126) return fail(el, at, "constant shift by %d is out of range", (int)y);
        r.iv = (tine_i128)(ux << (int)y);
        break;
    case TINE_OP_SHR:
        if (y < 0 || y > 126) return fail(el, at, "constant shift by %d is out of range", (int)y);
        r.iv = x >> (int)y;
        break;
    case TINE_OP_MIN: r.iv = x < y ? x : y; break;
    case TINE_OP_MAX: r.iv = x > y ? x : y; break;
    default: return fail(el, at, "'%s' of two constants needs a type; give one of them a type, as in u8(3)", tine_op_name(op));
    }
    return r;
}

/* ---- types -------------------------------------------------------------------------- */

/* A type written in a type position (A_TYPE) or as an expression (A_NAME, A_CALL).
 * Returns an element type (lanes 1), or an invalid type after an error. */
static tine_type_t type_of(elab *el, const tine_ast *a) {
    tine_type_t bad = {0, 0, 0}, t;
    if (a->kind != A_TYPE && a->kind != A_NAME && a->kind != A_CALL) {
        fail(el, a, "expected a type");
        return bad;
    }
    const char *n = a->name;
    if (a->nargs == 0) {
        if (tine_parse_type_name(n, strlen(n), &t)) return t;
        const tine_type_t *var = !strcmp(n, "T") ? &el->env->T : !strcmp(n, "U") ? &el->env->U
                                 : !strcmp(n, "R") ? &el->env->R : NULL;
        if (var) {
            if (!tine_type_valid(*var)) {
                fail(el, a, "type variable %s is not bound here", n);
                return bad;
            }
            return tine_type_with_lanes(*var, 1);
        }
        fail(el, a, "unknown type '%s'", n);
        return bad;
    }
    int want = !strcmp(n, "join") ? 2 : 1;
    if (strcmp(n, "widen") && strcmp(n, "narrow") && strcmp(n, "signed") && strcmp(n, "unsigned") &&
        strcmp(n, "join")) {
        fail(el, a, "unknown type function '%s'", n);
        return bad;
    }
    if (a->nargs != want) {
        fail(el, a, "%s takes %d type%s", n, want, want == 1 ? "" : "s");
        return bad;
    }
    tine_type_t x = type_of(el, a->args[0]);
    if (!tine_type_valid(x)) return bad;
    char b[32];
    if (!tine_type_is_int(x)) {
        fail(el, a, "%s needs an integer type, got %s", n, tstr(x, b));
        return bad;
    }
    if (!strcmp(n, "widen")) t = tine_type_widen(x);
    else if (!strcmp(n, "narrow")) t = tine_type_narrow(x);
    else if (!strcmp(n, "signed")) t = tine_type_with_kind(x, TINE_INT);
    else if (!strcmp(n, "unsigned")) t = tine_type_with_kind(x, TINE_UINT);
    else {
        tine_type_t y = type_of(el, a->args[1]);
        if (!tine_type_valid(y)) return bad;
        t = tine_type_join(x, y);
    }
    if (!tine_type_valid(t)) fail(el, a, "%s(%s) is not a type tine has", n, tstr(x, b));
    return t;
}

/* ---- names -------------------------------------------------------------------------- */

/* "a_u8" -> base "a", u8, lanes 0 (default); "a_u8x32" -> lanes 32. */
static bool split_var(const char *name, size_t *base_len, tine_type_t *t, int *lanes) {
    const char *us = strrchr(name, '_');
    if (!us || us == name) return false;
    const char *suf = us + 1, *x = strchr(suf, 'x');
    size_t tl = x ? (size_t)(x - suf) : strlen(suf);
    if (!tine_parse_type_name(suf, tl, t)) return false;
    *lanes = 0;
    if (x) {
        if (!x[1] || x[1] == '0') return false;
        long l = 0;
        for (const char *d = x + 1; *d; d++) {
            if (*d < '0' || *d > '9') return false;
            if (l <= 100000) l = l * 10 + (*d - '0'); /* saturates: too many lanes either way */
        }
        *lanes = (int)l;
    }
    *base_len = (size_t)(us - name);
    return true;
}

static val elab_expr(elab *el, const tine_ast *a, int lanes);

static bool split_var(const char *name, size_t *base_len, tine_type_t *t, int *lanes);

static bool is_cwild_name(const char *n) { return n[0] == 'c' && n[1] >= '0' && n[1] <= '9' && !n[2]; }

/* A rule's wildcard: declared in a pattern as x:T or x_u8, referred to by its name after.
 * On the right side and in predicates, the name is bound by the match. */
static val elab_wildcard(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    char base[64], b1[32], b2[32];
    tine_type_t t = {0, 0, 0};
    size_t bl;
    int l = 0;
    if (a->targ) {
        t = type_of(el, a->targ);
        if (!tine_type_valid(t)) return (val){0};
        snprintf(base, sizeof base, "%s", n);
    } else if (split_var(n, &bl, &t, &l) && bl < sizeof base) {
        memcpy(base, n, bl);
        base[bl] = 0;
    } else {
        snprintf(base, sizeof base, "%s", n);
    }
    /* x_i32x2: lanes of its own (a pattern summing lanes has operands of two widths) */
    if (tine_type_valid(t)) t = tine_type_with_lanes(t, l > 0 && l <= TINE_MAX_LANES ? l : lanes);
    if (el->env->mode == TINE_ELAB_PATTERN) {
        for (int i = 0; i < el->ndecl; i++)
            if (!strcmp(el->decl_name[i], base)) {
                if (tine_type_valid(t) && !tine_type_eq(t, el->decl[i]->type))
                    return fail(el, a, "wildcard '%s' is %s here but %s where it first appears", base, tstr(t, b1),
                                tstr(el->decl[i]->type, b2));
                return typed(el, a, el->decl[i]);
            }
        if (!tine_type_valid(t))
            return fail(el, a, "wildcard '%s' needs a type where it first appears, as in %s:T or %s_u8", base, base, base);
        if (el->ndecl == 32) return fail(el, a, "too many wildcards in one pattern");
        char vn[72];
        snprintf(vn, sizeof vn, "?%s", base);
        tine_expr_t *w = tine_var(el->ctx, vn, t);
        el->decl_name[el->ndecl] = tine_name(el->ctx, tine_intern_name(el->ctx, base, strlen(base)));
        el->decl[el->ndecl++] = w;
        return typed(el, a, w);
    }
    if (el->env->static_only) return undecided(el);
    for (int i = 0; i < el->env->nbinds; i++)
        if (!strcmp(el->env->binds[i].name, base)) {
            tine_expr_t *e = el->env->binds[i].expr;
            if (tine_type_valid(t) && (t.kind != e->type.kind || t.bits != e->type.bits))
                return fail(el, a, "'%s' is %s on the left side, not %s", base, tine_type_name(e->type, b1),
                            tine_type_name(t, b2));
            return typed(el, a, e);
        }
    return fail(el, a, "'%s' is not bound by the left side", base);
}

static val elab_name(elab *el, const tine_ast *a, int lanes) {
    const char *n = a->name;
    tine_elab_mode mode = el->env->mode;
    for (int i = el->nscope - 1; i >= el->scope_base; i--)
        if (!strcmp(el->scope_name[i], n)) {
            val v = el->scope_val[i];
            if (v.lit == 4) return typed(el, a, tine_const_int(el->ctx, tine_type(TINE_INT, 32, lanes), (int64_t)v.iv));
            if (v.e && v.e->type.lanes < lanes && el->env->hooks && el->env->hooks->widen)
                return typed(el, a, el->env->hooks->widen(el, v.e, lanes));
            return v;
        }
    const tine_elab_hooks *h = el->env->hooks;
    val hv;
    if (h && h->name && h->name(el, a, lanes, &hv)) return hv;
    if (mode != TINE_ELAB_EXPR && is_cwild_name(n)) {
        if (a->targ) return fail(el, a, "constant wildcard %s takes its type from the operand beside it", n);
        if (mode == TINE_ELAB_PATTERN || el->env->cwild_vars) return (val){.lit = 3, .iv = n[1] - '0'};
        if (el->env->static_only) return undecided(el);
        if (!(el->env->cbound >> (n[1] - '0') & 1)) return fail(el, a, "%s is not bound by the left side", n);
        return (val){.lit = 1, .iv = el->env->cvals[n[1] - '0']};
    }
    if (mode != TINE_ELAB_EXPR && strcmp(n, "true") && strcmp(n, "false") && strcmp(n, "inf") && strcmp(n, "nan"))
        return elab_wildcard(el, a, lanes);
    for (int i = 0; i < el->env->nbinds; i++)
        if (!strcmp(el->env->binds[i].name, n)) return typed(el, a, el->env->binds[i].expr);
    if (!strcmp(n, "true") || !strcmp(n, "false"))
        return typed(el, a, tine_const_splat(el->ctx, tine_type(TINE_BOOL, 1, lanes), n[0] == 't'));
    if (!strcmp(n, "inf") || !strcmp(n, "nan")) {
        val v = {.lit = 2, .fv = n[0] == 'i' ? INFINITY : NAN};
        return v;
    }
    size_t bl;
    tine_type_t t;
    int l;
    if (!split_var(n, &bl, &t, &l)) {
        tine_type_t tt;
        if (tine_parse_type_name(n, strlen(n), &tt))
            return fail(el, a, "'%s' is a type; a cast is written %s(expr)", n, n);
        const char *us = strrchr(n, '_');
        if (us && us != n && us[1])
            return fail(el, a, "'%s' in '%s' is not a type (element types: u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 bool)",
                        us + 1, n);
        return fail(el, a, "unknown name '%s' (a variable carries its type as a suffix, as in a_u8)", n);
    }
    if (l > TINE_MAX_LANES) return fail(el, a, "variable '%s' has more than %d lanes", n, TINE_MAX_LANES);
    char base[256];
    if (bl >= sizeof base) return fail(el, a, "variable name is too long");
    memcpy(base, n, bl);
    base[bl] = 0;
    return typed(el, a, tine_var(el->ctx, base, tine_type_with_lanes(t, l ? l : lanes)));
}

static val elab_field(elab *el, const tine_ast *a) {
    tine_ast tn = *a;
    tn.kind = A_NAME;
    tn.nargs = 0;
    tine_type_t t = type_of(el, a->targ ? a->targ : &tn);
    if (!tine_type_valid(t)) return (val){0};
    char b[32];
    bool mn = !strcmp(a->field, "min");
    if (!mn && strcmp(a->field, "max")) return fail(el, a, "unknown field '%s' (a type has .min and .max)", a->field);
    if (!tine_type_is_int(t)) return fail(el, a, "%s has no .%s", tstr(t, b), a->field);
    if (t.bits == 128) return fail(el, a, "%s.%s is not a literal tine can write", tstr(t, b), a->field);
    val v = {.lit = 1, .iv = mn ? tine_min_i128(t) : tine_max_i128(t)};
    return v;
}

/* ---- operators ---------------------------------------------------------------------- */

/* Two operands where either may be a literal: a literal takes the other's type. */
static bool unify(elab *el, const tine_ast *aa, val *a, const tine_ast *ab, val *b) {
    if (a->lit && !b->lit) *a = lit_to(el, aa, *a, b->e->type);
    else if (b->lit && !a->lit) *b = lit_to(el, ab, *b, a->e->type);
    return ok(el, *a) && ok(el, *b);
}

static val binary(elab *el, const tine_ast *at, tine_op_t op, const tine_ast *aa, val a,
                  const tine_ast *ab, val b) {
    if (!ok(el, a) || !ok(el, b)) return (val){0};
    if (a.lit && b.lit) return fold(el, at, op, a, b);
    if (!unify(el, aa, &a, ab, &b)) return (val){0};
    return typed(el, at, tine_binary(el->ctx, op, a.e, b.e));
}

static bool int_arg(elab *el, const tine_ast *a, int lo, int hi, int *out, const char *what) {
    val v = elab_expr(el, a, 1);
    if (!ok(el, v)) return false;
    if (v.lit != 1 || v.iv < lo || v.iv > hi) {
        fail(el, a, "%s must be an integer constant from %d to %d", what, lo, hi);
        return false;
    }
    *out = (int)v.iv;
    return true;
}

static val arity(elab *el, const tine_ast *a, int n) {
    if (a->nargs != n) return fail(el, a, "%s takes %d argument%s, got %d", a->name, n, n == 1 ? "" : "s", a->nargs);
    val v = {.lit = 1};
    return v;
}

static val elab_fpir(elab *el, const tine_ast *a, tine_op_t op, int lanes) {
    const tine_fpir_info *info = &tine_fpir_table[op - TINE_FPIR_FIRST];
    if (!ok(el, arity(el, a, info->arity))) return (val){0};
    bool param = op == TINE_OP_SATURATING_CAST;
    tine_type_t tp = {0, 0, 0};
    if (param && !a->targ) return fail(el, a, "saturating_cast needs a result type, as in saturating_cast<u8>(x)");
    if (!param && a->targ) return fail(el, a, "%s takes no type parameter", info->name);
    if (param) {
        tp = type_of(el, a->targ);
        if (!tine_type_valid(tp)) return (val){0};
    }
    val v[3] = {{0}, {0}, {0}};
    for (int i = 0; i < info->arity; i++) {
        v[i] = elab_expr(el, a->args[i], lanes);
        if (!ok(el, v[i])) return (val){0};
    }
    if (v[0].lit) return need_typed(el, a->args[0], v[0]);
    tine_expr_t *args[3];
    for (int i = 0; i < info->arity; i++) {
        if (v[i].lit) {
            tine_type_t t = tine_fpir_literal_type(op, i, v[0].e->type);
            v[i] = lit_to(el, a->args[i], v[i], t);
            if (!ok(el, v[i])) return (val){0};
        }
        args[i] = v[i].e;
    }
    /* abs of a float is its sign bit cleared (tine_abs), not the integer op's definition */
    if (op == TINE_OP_ABS) return typed(el, a, tine_abs(el->ctx, args[0]));
    return typed(el, a, tine_fpir(el->ctx, op, info->arity, args, tp));
}

/* The identity of reduction op over T: 0 for sum, T's max for min, its min for max
 * (+inf and -inf for floats). An empty range gives it, and a loop starts from it. */
tine_expr_t *tine_elab_reduce_identity(tine_ctx_t *ctx, tine_op_t op, tine_type_t T) {
    if (op == TINE_OP_ADD) return T.kind == TINE_FLOAT ? tine_const_float(ctx, T, 0.0) : tine_const_int(ctx, T, 0);
    bool is_min = op == TINE_OP_MIN;
    if (T.kind == TINE_FLOAT) return tine_const_float(ctx, T, is_min ? __builtin_inf() : -__builtin_inf());
    return is_min ? tine_const_uint(ctx, T, tine_type_max(T)) : tine_const_int(ctx, T, tine_type_min(T));
}

/* A constant reduction's variable at r: an i32 like the variable of a loop reduction
 * (elab_loop_reduce in kernels), so arithmetic on it wraps at 32 bits and a cast of it
 * truncates or extends, the same whether the bounds are constants or parameters. It is
 * bound as lit 4 and typed where it is read (elab_name), with the lanes of that
 * position, as a literal would be: a term reads it inside ramp(...) as a scalar and
 * beside a vector as a splat. Only a predicate (about constants, evaluated exactly)
 * keeps it an untyped literal. */
static val reduce_var(elab *el, tine_i128 r) {
    return (val){.lit = el->env->mode == TINE_ELAB_PRED ? 1 : 4, .iv = r};
}

/* A reduction over an empty constant range: the identity of the body's type. The body is
 * still elaborated (once, at the range's start) and combined with itself, so that it is
 * checked exactly as in a range with terms. */
static val empty_reduce(elab *el, const tine_ast *a, tine_i128 at, int lanes) {
    if (el->nscope - el->let_base >= 64) return fail(el, a, "too many nested lets and reductions");
    push_scope(el, a->field, reduce_var(el, at));
    val t = elab_expr(el, a->args[2], lanes);
    el->nscope--;
    val u = binary(el, a, a->op, a, t, a->args[2], t);
    if (!ok(el, u)) return (val){0};
    if (u.lit) {
        if (a->op == TINE_OP_ADD) return (val){.lit = u.lit};
        return fail(el, a, "%s(%s in a..b) has an empty range, and the identity of an untyped constant is unknown; "
                    "give the body a type", a->name, a->field);
    }
    return typed(el, a, tine_elab_reduce_identity(el->ctx, a->op, u.e->type));
}

static val elab_call(elab *el, const tine_ast *a, int lanes) {
    val v;
    tine_ctx_t *ctx = el->ctx;
    int op = a->call_op;
    if (op >= TINE_FPIR_FIRST) return elab_fpir(el, a, (tine_op_t)op, lanes);
    const tine_elab_hooks *h = el->env->hooks;
    if (h && h->call && h->call(el, a, lanes, &v)) return v;
    /* the built-in functions (elab_builtins.c) first, then the layers' from the top down */
    for (int i = 0; i < ctx->nelab_ext; i++)
        if (ctx->elab_ext[i].modes >> el->env->mode & 1 && ctx->elab_ext[i].fn(el, a, lanes, &v)) return v;
    if (!strcmp(a->name, "bits")) {
        if (!ok(el, arity(el, a, 1))) return (val){0};
        tine_type_t t = type_of(el, a->args[0]);
        if (!tine_type_valid(t)) return (val){0};
        val r = {.lit = 1, .iv = t.bits};
        return r;
    }
    return fail(el, a, "unknown function '%s'", a->name);
}

static val elab_lanes(elab *el, const tine_ast *a) {
    tine_type_t t;
    TINE_ASSERT(tine_parse_type_name(a->name, strlen(a->name), &t));
    if (a->nargs > TINE_MAX_LANES) return fail(el, a, "a constant with more than %d lanes", TINE_MAX_LANES);
    t = tine_type_with_lanes(t, a->nargs);
    tine_u128 vals[TINE_MAX_LANES];
    tine_type_t one = tine_type_with_lanes(t, 1);
    for (int i = 0; i < a->nargs; i++) {
        val v = elab_expr(el, a->args[i], 1);
        if (!ok(el, v)) return v;
        if (!v.lit) return fail(el, a->args[i], "a lane of a constant must be a number");
        v = lit_to(el, a->args[i], v, one);
        if (!ok(el, v)) return v;
        vals[i] = tine_const_value(v.e, 0);
    }
    return typed(el, a, tine_const_u128(el->ctx, t, vals));
}

static val elab_load(elab *el, const tine_ast *a, int lanes) {
    size_t bl;
    tine_type_t t;
    int l;
    if (!split_var(a->name, &bl, &t, &l) || l)
        return fail(el, a, "a buffer carries its element type as a suffix, as in in_u8[i]");
    val v = elab_expr(el, a->args[0], lanes);
    if (!ok(el, v)) return v;
    if (v.lit) v = lit_to(el, a->args[0], v, tine_type(TINE_INT, 32, lanes));
    if (!ok(el, v)) return v;
    char base[256];
    if (bl >= sizeof base) return fail(el, a, "buffer name is too long");
    memcpy(base, a->name, bl);
    base[bl] = 0;
    return typed(el, a, tine_load(el->ctx, base, t, v.e));
}

static val elab_expr(elab *el, const tine_ast *a, int lanes) {
    if (el->failed) return (val){0};
    const tine_elab_hooks *h = el->env->hooks;
    val hv;
    if (h && h->step && !h->step(el, a, &hv)) return hv;
    switch (a->kind) {
    case A_INT: return (val){.lit = 1, .iv = a->ival};
    case A_FLOAT: return (val){.lit = 2, .fv = a->fval};
    case A_NAME: return elab_name(el, a, lanes);
    case A_FIELD: return elab_field(el, a);
    case A_CALL: return elab_call(el, a, lanes);
    case A_LOAD: return elab_load(el, a, lanes);
    case A_LANES: return elab_lanes(el, a);
    case A_UNARY: {
        val v = elab_expr(el, a->args[0], lanes);
        if (!ok(el, v)) return v;
        if (v.lit == 2 && a->op == TINE_OP_NEG) return (val){.lit = 2, .fv = -v.fv};
        if (v.lit == 1 && a->op == TINE_OP_NEG) return (val){.lit = 1, .iv = (tine_i128)(0 - (tine_u128)v.iv)};
        if (v.lit == 1 && a->op == TINE_OP_NOT && el->env->mode == TINE_ELAB_PRED) return (val){.lit = 1, .iv = !v.iv};
        if (v.lit) return need_typed(el, a->args[0], v);
        return typed(el, a, tine_unary(el->ctx, a->op, v.e));
    }
    case A_BINARY: {
        /* A left-deep chain (a + b + c + ...) is as long as the input: the parser's nesting
         * limit does not bound it, so its left spine is walked in a loop, not by recursion. */
        int n = 0;
        for (const tine_ast *s = a; s->kind == A_BINARY; s = s->args[0]) n++;
        const tine_ast **spine = tine_xmalloc((size_t)n * sizeof *spine);
        const tine_ast *s = a;
        for (int i = n - 1; i >= 0; i--, s = s->args[0]) spine[i] = s;
        val x = elab_expr(el, s, lanes);
        for (int i = 0; i < n; i++) {
            val y = elab_expr(el, spine[i]->args[1], lanes);
            x = binary(el, spine[i], spine[i]->op, spine[i]->args[0], x, spine[i]->args[1], y);
        }
        free(spine);
        return x;
    }
    case A_TYPE: return fail(el, a, "expected an expression, found a type");
    case A_LET: {
        val v = elab_expr(el, a->args[0], lanes);
        if (!ok(el, v)) return v;
        if (el->nscope - el->let_base >= 64) return fail(el, a, "too many nested lets and reductions");
        push_scope(el, a->field, v);
        val r = elab_expr(el, a->args[1], lanes);
        el->nscope--;
        return r;
    }
    case A_REDUCE: {
        /* constant bounds: the reduction unrolls, its variable an i32 constant in each term */
        val lo = elab_expr(el, a->args[0], lanes), hi = elab_expr(el, a->args[1], lanes);
        if (!ok(el, lo) || !ok(el, hi)) return (val){0};
        if ((lo.lit != 1 || hi.lit != 1) && h && h->reduce) return h->reduce(el, a, lo, hi, lanes);
        if (lo.lit != 1 || hi.lit != 1) return fail(el, a, "the bounds of %s(%s in a..b) must be integer constants here", a->name, a->field);
        if (el->env->mode != TINE_ELAB_PRED)
            for (int i = 0; i < 2; i++)
                if (!tine_fits(tine_type(TINE_INT, 32, 1), (i ? hi : lo).iv)) {
                    char n[48];
                    return fail(el, a->args[i], "the bound %s of %s(%s in a..b) does not fit in i32, the type of %s",
                                tine_i128_str((i ? hi : lo).iv, n), a->name, a->field, a->field);
                }
        if (hi.iv <= lo.iv) return empty_reduce(el, a, lo.iv, lanes);
        val hv;
        if (h && h->vreduce && el->env->mode == TINE_ELAB_EXPR && h->vreduce(el, a, lo.iv, hi.iv, lanes, &hv)) return hv;
        if (hi.iv - lo.iv > 4096) return fail(el, a, "%s(%s in a..b) has more than 4096 terms", a->name, a->field);
        if (el->rdepth >= TINE_KLIMIT_DEPTH)
            return fail(el, a, "reductions are nested more than %d deep (counting those of the functions called)",
                        TINE_KLIMIT_DEPTH);
        if (el->nscope - el->let_base >= 64) return fail(el, a, "too many nested lets and reductions");
        /* the unrolling limit, before the work: this nest's terms (the product of its
         * ranges), then the body's running total */
        long n = (long)(hi.iv - lo.iv);
        if (n * el->mult > TINE_KLIMIT_TERMS || el->terms + n > TINE_KLIMIT_TERMS)
            return fail(el, a, "%s(%s in a..b) unrolls to %ld terms%s; a body unrolls at most %d (use parameter bounds for a loop)",
                        a->name, a->field, n * el->mult > TINE_KLIMIT_TERMS ? n * el->mult : el->terms + n,
                        n * el->mult > TINE_KLIMIT_TERMS ? " with the reductions around it" : " with the others before it",
                        TINE_KLIMIT_TERMS);
        long saved_mult = el->mult;
        el->mult *= n;
        el->terms += n;
        el->rdepth++;
        /* A sum prints as a flat chain; a min or max as nested calls, which past 16 terms
         * are combined pairwise (depth log2 n), so that what prints parses back within the
         * parser's nesting limit (max(r in 0..300) x) */
        bool balanced = a->op != TINE_OP_ADD && n > 16;
        val acc = {0}, *terms = balanced ? tine_xcalloc((size_t)n, sizeof *terms) : NULL;
        for (tine_i128 r = lo.iv; r < hi.iv && !el->failed; r++) {
            push_scope(el, a->field, reduce_var(el, r));
            val t = elab_expr(el, a->args[2], lanes);
            el->nscope--;
            if (!ok(el, t)) {
                free(terms);
                return (val){0};
            }
            if (balanced) terms[r - lo.iv] = t;
            else acc = r == lo.iv ? t : binary(el, a, a->op, a, acc, a->args[2], t);
        }
        for (long m = n; balanced && m > 1 && !el->failed; m = (m + 1) / 2)
            for (long i = 0; i + 1 < m; i += 2) {
                terms[i / 2] = binary(el, a, a->op, a, terms[i], a->args[2], terms[i + 1]);
                if (m % 2 && i + 3 == m) terms[i / 2 + 1] = terms[m - 1];
            }
        if (balanced) {
            acc = el->failed ? (val){0} : terms[0];
            free(terms);
        }
        el->rdepth--;
        el->mult = saved_mult;
        return acc;
    }
    }
    return fail(el, a, "unexpected syntax");
}

int tine_elaborate_pred(tine_ctx_t *ctx, const tine_ast *ast, const tine_elab_env *env, tine_i128 *out) {
    elab el;
    elab_init(&el, ctx, env);
    val v = elab_expr(&el, ast, env->lanes);
    elab_done(&el);
    if (el.undecided) return -1;
    if (!ok(&el, v)) return -2;
    if (v.lit != 1) {
        fail(&el, ast, "a condition must be about constants, types and bounds (it is a %s expression here)",
             v.lit ? "constant" : "vector");
        return -2;
    }
    *out = v.iv;
    return 0;
}

tine_expr_t *tine_elaborate(tine_ctx_t *ctx, const tine_ast *ast, const tine_elab_env *env) {
    elab el;
    elab_init(&el, ctx, env);
    val v = elab_expr(&el, ast, env->lanes);
    elab_done(&el);
    if (!ok(&el, v)) return NULL;
    if (v.lit) {
        need_typed(&el, ast, v);
        return NULL;
    }
    return v.e;
}

tine_expr_t *tine_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_arena scratch = {0};
    tine_expr_t *e = NULL;
    tine_ast *ast = tine_parse_ast(ctx, &scratch, text, file);
    if (ast) {
        tine_elab_env env = {.lanes = ctx->lanes};
        e = tine_elaborate(ctx, ast, &env);
    }
    tine_arena_free(&scratch);
    return e;
}

/* ---- the interface of hooks (elab.h) -------------------------------------------------- */

void tine_elab_extend(tine_ctx_t *ctx, tine_elab_call_fn fn, unsigned modes, int layer) {
    int i = 0;
    for (; i < ctx->nelab_ext; i++)
        if (ctx->elab_ext[i].fn == fn) return;
    TINE_ASSERT(ctx->nelab_ext < TINE_ELAB_EXTS);
    for (i = ctx->nelab_ext; i > 0 && ctx->elab_ext[i - 1].layer < layer; i--) ctx->elab_ext[i] = ctx->elab_ext[i - 1];
    ctx->elab_ext[i].fn = fn;
    ctx->elab_ext[i].modes = modes;
    ctx->elab_ext[i].layer = layer;
    ctx->nelab_ext++;
}

tine_ctx_t *tine_elab_ctx(const elab *el) { return el->ctx; }
const tine_elab_env *tine_elab_env_of(const elab *el) { return el->env; }
val tine_elab_expr(elab *el, const tine_ast *a, int lanes) { return elab_expr(el, a, lanes); }
val tine_elab_fail(elab *el, const tine_ast *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    val v = vfail(el, at, fmt, ap);
    va_end(ap);
    return v;
}
val tine_elab_typed(elab *el, const tine_ast *at, tine_expr_t *e) { return typed(el, at, e); }
bool tine_elab_ok(const elab *el, val v) { return ok(el, v); }
val tine_elab_lit_to(elab *el, const tine_ast *at, val v, tine_type_t t) { return lit_to(el, at, v, t); }
val tine_elab_need_typed(elab *el, const tine_ast *at, val v) { return need_typed(el, at, v); }
val tine_elab_binary(elab *el, const tine_ast *at, tine_op_t op, const tine_ast *aa, val a, const tine_ast *ab, val b) {
    return binary(el, at, op, aa, a, ab, b);
}
tine_type_t tine_elab_type_of(elab *el, const tine_ast *a) { return type_of(el, a); }
val tine_elab_arity(elab *el, const tine_ast *a, int n) { return arity(el, a, n); }
bool tine_elab_unify(elab *el, const tine_ast *aa, val *a, const tine_ast *ab, val *b) { return unify(el, aa, a, ab, b); }
bool tine_elab_int_arg(elab *el, const tine_ast *a, int lo, int hi, int *out, const char *what) {
    return int_arg(el, a, lo, hi, out, what);
}
void tine_elab_push(elab *el, const char *name, val v) { push_scope(el, name, v); }
void tine_elab_pop(elab *el, int n) { el->nscope -= n; }
int tine_elab_locals(const elab *el) { return el->nscope - el->let_base; }

tine_elab_frame tine_elab_enter(elab *el, int n) {
    tine_elab_frame f = {el->scope_base, el->let_base};
    el->scope_base = el->nscope - n;
    el->let_base = el->nscope;
    return f;
}

void tine_elab_leave(elab *el, tine_elab_frame f) {
    el->scope_base = f.scope_base;
    el->let_base = f.let_base;
}

int tine_elab_rdepth(elab *el, int delta) { return el->rdepth += delta; }
