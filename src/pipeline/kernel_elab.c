/* kernel_elab.c — the kernel front end of the elaborator: what a .tine body may say
 * beyond an expression.
 *
 * A stage body is elaborated by the generic elaborator (src/ir/elab.c) with this file's
 * hooks (elab.h): names are coordinates, parameters (scalar variables, broadcast) or
 * errors; calls of functions are inlined (their coordinates bound in the elaborator's
 * scope) unless the function is materialized; calls of inputs and of materialized
 * functions are loads at the flattened index; boundary conditions clamp (and select);
 * reductions whose bounds are parameters become loops (tine_reduction); and a body's
 * steps are counted against TINE_KLIMIT_STEPS. Inlined calls are memoized per body.
 */
#include "../ir/elab.h"

typedef tine_elab_val val;

/* One body's elaboration. */
typedef struct {
    const tine_kernel_ast *k;
    tine_reductions *reds; /* where reductions with parameter bounds go */
    int kdepth;            /* inlined calls nested */
    int wide;              /* vectorized constant reductions around (vreduce) */
    long steps;            /* elaboration steps, against TINE_KLIMIT_STEPS */
    struct call_memo *memo; /* inlined calls already elaborated (open addressing) */
    size_t memo_n, memo_cap;
} kelab;

/* An inlined call: the same function with the same (hash-consed) arguments, lanes and
 * enclosing loop reduction elaborates to the same value, so a function reached many times
 * through a chain (a blur of a blur of a blur) is elaborated once per distinct call, not
 * once per path to it. */
struct call_memo {
    const void *d;
    tine_expr_t *args[4];
    int lanes, current;
    val v;
};

static size_t memo_slot(const kelab *el, const struct call_memo *key) {
    uint64_t h = (uint64_t)(uintptr_t)key->d * 0x9E3779B97F4A7C15ull ^ (uint64_t)key->lanes ^ (uint64_t)(key->current + 1) << 40;
    for (int i = 0; i < 4; i++) h = (h ^ (uint64_t)(uintptr_t)key->args[i]) * 0xBF58476D1CE4E5B9ull;
    size_t i = (size_t)(h ^ h >> 29) & (el->memo_cap - 1);
    while (el->memo[i].d && (el->memo[i].d != key->d || el->memo[i].lanes != key->lanes ||
                             el->memo[i].current != key->current || memcmp(el->memo[i].args, key->args, sizeof key->args)))
        i = (i + 1) & (el->memo_cap - 1);
    return i;
}

static const val *memo_find(const kelab *el, const struct call_memo *key) {
    if (!el->memo_n) return NULL;
    size_t i = memo_slot(el, key);
    return el->memo[i].d ? &el->memo[i].v : NULL;
}

static void memo_add(kelab *el, const struct call_memo *key) {
    if (2 * (el->memo_n + 1) > el->memo_cap) {
        struct call_memo *old = el->memo;
        size_t oc = el->memo_cap;
        el->memo_cap = oc ? 2 * oc : 64;
        el->memo = tine_xcalloc(el->memo_cap, sizeof *el->memo);
        for (size_t i = 0; i < oc; i++)
            if (old[i].d) el->memo[memo_slot(el, &old[i])] = old[i];
        free(old);
    }
    el->memo[memo_slot(el, key)] = *key;
    el->memo_n++;
}

static bool kernel_step(tine_elab *el, const tine_ast *a, val *out) {
    kelab *K = tine_elab_env_of(el)->hook_data;
    if (++K->steps <= TINE_KLIMIT_STEPS) return true;
    *out = tine_elab_fail(el, a, "this definition takes more than %d steps to elaborate (inlined calls, unrolled terms); "
                          "materialize functions or use parameter bounds", TINE_KLIMIT_STEPS);
    return false;
}

/* ---- vectorized constant reductions (`vectorize f.i N`, i a constant reduction's) ------
 *
 * Each group of N terms is elaborated once at N times the lanes, lane p*N + m holding
 * point p's term for i = i0 + m, and reduced to the point's lane (sums: vector_reduce_add,
 * whose groups of adjacent lanes are psadbw's, pmaddwd's, uadalp's; min and max:
 * strided slices). Every value bound around the terms (coordinates, lets, a caller's
 * arguments) is read there with each lane repeated N times (widen), and a coordinate that
 * is then a one-lane value plus constant lane offsets in steps of one stride is a ramp:
 * the 8 bytes of `a(8 * x + i, y)` for 8 points x are one dense load of 64. */

enum { WIDEN_DEPTH = 48, DENSE_LANES = 1024 };

static tine_expr_t *dense_index(tine_ctx_t *ctx, tine_expr_t *e);

/* e (l lanes) with each lane repeated lanes / l times, at depth d of the walk. */
static tine_expr_t *widen_at(tine_ctx_t *ctx, tine_expr_t *e, int lanes, int d) {
    int l = e->type.lanes, rep = lanes / l;
    if (l == 1) return tine_broadcast(ctx, e, lanes);
    tine_type_t T = tine_type_with_lanes(e->type, lanes);
    tine_expr_t *o[3] = {0};
    bool ok = d < WIDEN_DEPTH;
    switch (ok ? (tine_op_t)e->op : TINE_OP_INSN) {
    case TINE_OP_BROADCAST: return tine_broadcast(ctx, e->ops[0], lanes);
    case TINE_OP_CONST:
        if (T.bits <= 64) {
            uint64_t *v = tine_xmalloc(sizeof *v * (size_t)lanes);
            for (int i = 0; i < lanes; i++) v[i] = (uint64_t)tine_const_value(e, i / rep);
            tine_expr_t *r = tine_const_lanes(ctx, T, v);
            free(v);
            return r;
        }
        break;
    case TINE_OP_RAMP: {
        if (T.kind != TINE_INT && T.kind != TINE_UINT) break;
        uint64_t *v = tine_xmalloc(sizeof *v * (size_t)lanes);
        for (int i = 0; i < lanes; i++) v[i] = (uint64_t)(i / rep);
        tine_expr_t *k = tine_const_lanes(ctx, T, v);
        free(v);
        return tine_binary(ctx, TINE_OP_ADD, tine_broadcast(ctx, e->ops[0], lanes),
                           tine_binary(ctx, TINE_OP_MUL, tine_broadcast(ctx, e->ops[1], lanes), k));
    }
    case TINE_OP_CAST: return tine_cast(ctx, tine_type_with_lanes(e->type, 1), widen_at(ctx, e->ops[0], lanes, d + 1));
    case TINE_OP_LOAD:
        return tine_load(ctx, tine_expr_name(e), tine_type_with_lanes(e->type, 1), widen_at(ctx, e->ops[0], lanes, d + 1));
    case TINE_OP_SELECT:
        for (int i = 0; i < 3; i++) o[i] = widen_at(ctx, e->ops[i], lanes, d + 1);
        return tine_select(ctx, o[0], o[1], o[2]);
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD: case TINE_OP_MIN:
    case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR: case TINE_OP_EQ: case TINE_OP_NE:
    case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        if (e->nops == 2 && e->ops[0]->type.lanes == l && e->ops[1]->type.lanes == l) {
            tine_expr_t *r = tine_binary(ctx, (tine_op_t)e->op, widen_at(ctx, e->ops[0], lanes, d + 1),
                                         widen_at(ctx, e->ops[1], lanes, d + 1));
            if (r) return r;
        }
        break;
    default: break;
    }
    /* anything else: each lane repeated by an interleave of copies (exact, a shuffle) */
    tine_expr_t **c = tine_xmalloc(sizeof *c * (size_t)rep);
    for (int i = 0; i < rep; i++) c[i] = e;
    tine_expr_t *r = tine_interleave(ctx, rep, c);
    free(c);
    return r;
}

static tine_expr_t *widen(tine_elab *el, tine_expr_t *e, int lanes) {
    return widen_at(tine_elab_ctx(el), e, lanes, 0);
}

/* e (an i32 vector) as u + k[lane], u one lane (NULL: 0), k constant lane offsets
 * (wrapping i32 arithmetic distributes exactly); false when it has no such form. */
static bool lane_split(tine_ctx_t *ctx, tine_expr_t *e, tine_expr_t **u, uint32_t *k, int d) {
    int n = e->type.lanes;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    if (d > WIDEN_DEPTH || e->type.kind != TINE_INT || e->type.bits != 32) return false;
    switch ((tine_op_t)e->op) {
    case TINE_OP_BROADCAST:
        *u = e->ops[0];
        memset(k, 0, sizeof *k * (size_t)n);
        return true;
    case TINE_OP_CONST:
        *u = NULL;
        for (int i = 0; i < n; i++) k[i] = (uint32_t)tine_const_value(e, i);
        return true;
    case TINE_OP_RAMP: {
        uint32_t s;
        if (e->ops[1]->op != TINE_OP_CONST) return false;
        s = (uint32_t)tine_const_value(e->ops[1], 0);
        *u = e->ops[0];
        for (int i = 0; i < n; i++) k[i] = (uint32_t)i * s;
        return true;
    }
    case TINE_OP_ADD:
    case TINE_OP_SUB:
    case TINE_OP_MUL: {
        tine_expr_t *a, *b;
        uint32_t *kb = tine_xmalloc(sizeof *kb * (size_t)n);
        bool ok = lane_split(ctx, e->ops[0], &a, k, d + 1) && lane_split(ctx, e->ops[1], &b, kb, d + 1);
        if (ok && e->op != TINE_OP_MUL) {
            for (int i = 0; i < n; i++) k[i] = e->op == TINE_OP_ADD ? k[i] + kb[i] : k[i] - kb[i];
            *u = !b ? a : !a && e->op == TINE_OP_ADD ? b : tine_binary(ctx, (tine_op_t)e->op, a ? a : tine_const_int(ctx, i32, 0), b);
        } else if (ok) {
            /* a constant factor (uniform, no one-lane part) scales the other side; two
               one-lane values multiply when neither has offsets */
            bool ca = !a, cb = !b, za = true, zb = true;
            for (int i = 0; i < n; i++) {
                ca &= k[i] == k[0], cb &= kb[i] == kb[0];
                za &= k[i] == 0, zb &= kb[i] == 0;
            }
            tine_expr_t *p = NULL;
            if (cb) {
                uint32_t c = kb[0];
                for (int i = 0; i < n; i++) k[i] *= c;
                p = a ? tine_binary(ctx, TINE_OP_MUL, a, tine_const_int(ctx, i32, (int32_t)c)) : NULL;
            } else if (ca) {
                uint32_t c = k[0];
                for (int i = 0; i < n; i++) k[i] = kb[i] * c;
                p = tine_binary(ctx, TINE_OP_MUL, b, tine_const_int(ctx, i32, (int32_t)c));
            } else if (za && zb) {
                memset(k, 0, sizeof *k * (size_t)n);
                p = tine_binary(ctx, TINE_OP_MUL, a, b);
            } else ok = false;
            *u = p;
        }
        free(kb);
        return ok;
    }
    default: return false;
    }
}

/* A coordinate inside vectorized constant reductions: a ramp when it is a one-lane value
 * plus lane offsets in steps of one stride (then a dense or strided load), else
 * unchanged. Each coordinate alone: the flattened index keeps its form (load_coords). */
static tine_expr_t *dense_index(tine_ctx_t *ctx, tine_expr_t *e) {
    int n = e->type.lanes;
    if (n < 2 || n > DENSE_LANES) return e;
    uint32_t *k = tine_xmalloc(sizeof *k * (size_t)n);
    tine_expr_t *u = NULL;
    if (lane_split(ctx, e, &u, k, 0)) {
        tine_type_t i32 = tine_type(TINE_INT, 32, 1);
        bool affine = true;
        for (int i = 2; i < n; i++) affine &= k[i] - k[i - 1] == k[1] - k[0];
        if (affine) {
            tine_expr_t *b = tine_const_int(ctx, i32, (int32_t)k[0]);
            b = u ? tine_binary(ctx, TINE_OP_ADD, u, b) : b;
            e = k[1] == k[0] ? tine_broadcast(ctx, b, n) : tine_ramp(ctx, b, tine_const_int(ctx, i32, (int32_t)(k[1] - k[0])), n);
        }
    }
    free(k);
    return e;
}

/* A name in a kernel body that no let or reduction binds: the output's coordinates, a
 * parameter, or an error (every name is the kernel's). */
static val kernel_name_body(tine_elab *el, const tine_ast *a, int lanes) {
    const kelab *K = tine_elab_env_of(el)->hook_data;
    const tine_elab_env *env = tine_elab_env_of(el);
    const char *n = a->name;
    const tine_kdecl *d = tine_kernel_find(K->k, n);
    /* the output's coordinates, seen only outside inlined functions */
    for (int i = 0; i < env->nbinds && K->kdepth == 0; i++)
        if (!strcmp(env->binds[i].name, n)) {
            tine_expr_t *c = env->binds[i].expr;
            return tine_elab_typed(el, a, c->type.lanes < lanes ? widen(el, c, lanes) : c);
        }
    if (d && d->kind == K_PARAM) { /* a scalar, the same in every lane */
        tine_type_t t = tine_elab_type_of(el, d->type);
        if (!tine_type_valid(t)) return (val){0};
        return tine_elab_typed(el, a, tine_broadcast(tine_elab_ctx(el), tine_kernel_param_var(tine_elab_ctx(el), n, t), lanes));
    }
    if (d) return tine_elab_fail(el, a, "'%s' is a %s; call it with coordinates, as in %s(x, y)", n,
                       d->kind == K_INPUT ? "buffer" : "function", n);
    return tine_elab_fail(el, a, "unknown name '%s' (not a coordinate, parameter, or let)", n);
}

static bool kernel_name(tine_elab *el, const tine_ast *a, int lanes, val *out) {
    *out = kernel_name_body(el, a, lanes);
    return true;
}

/* A scalar i32 variable of buffer geometry, broadcast to the lanes. */
static tine_expr_t *geometry(tine_elab *el, const char *buffer, tine_ks_what what, int dim, int lanes) {
    return tine_broadcast(tine_elab_ctx(el), tine_kernel_geometry_var(tine_elab_ctx(el), buffer, what, dim), lanes);
}

/* The integer value of a constant the same in every lane, in *v. */
static bool uniform_const(const tine_expr_t *e, int32_t *v) {
    if (e->op != TINE_OP_CONST || !(e->flags & TINE_F_UNIFORM)) return false;
    *v = (int32_t)(uint32_t)tine_const_value(e, 0);
    return true;
}

/* A coordinate passed to a function, its constant offsets summed: (x + 1) + -1 is x, and
 * (x + -1) + -1 is x + -2 (i32 arithmetic wraps, so this is exact). Functions reached
 * through a chain (a blur of a blur) then get the same argument along every path, and
 * the calls' memo (struct call_memo) elaborates each distinct call once. */
static tine_expr_t *sum_offsets(tine_ctx_t *ctx, tine_expr_t *e) {
    int32_t k1, k2;
    if ((e->op != TINE_OP_ADD && e->op != TINE_OP_SUB) || !uniform_const(e->ops[1], &k2)) return e;
    tine_expr_t *base = e->ops[0];
    uint32_t k = e->op == TINE_OP_ADD ? (uint32_t)k2 : 0u - (uint32_t)k2;
    if ((base->op == TINE_OP_ADD || base->op == TINE_OP_SUB) && uniform_const(base->ops[1], &k1)) {
        k += base->op == TINE_OP_ADD ? (uint32_t)k1 : 0u - (uint32_t)k1;
        base = base->ops[0];
    } else if (e->op == TINE_OP_ADD && k2) {
        return e;
    }
    return k ? tine_binary(ctx, TINE_OP_ADD, base, tine_const_int(ctx, e->type, (int32_t)k)) : base;
}

/* A call in a kernel body: a function (inlined: its coordinates bound to the arguments),
 * an input (a load at the flattened index), or a boundary condition (the coordinates
 * clamped into the input; constant fill selects the value outside it). */
static val elab_kernel_call(tine_elab *el, const tine_ast *a, const tine_kdecl *d, int lanes) {
    kelab *K = tine_elab_env_of(el)->hook_data;
    const tine_kernel_ast *k = K->k;
    const tine_kdecl *in = d->kind == K_BOUNDARY ? tine_kernel_find(k, d->of) : d;
    bool mat = d->kind == K_FUNC && d->materialized; /* read from its stage's buffer */
    int want = d->kind == K_FUNC || d->kind == K_OUTPUT ? d->nargs : in->dims;
    if (a->nargs != want) return tine_elab_fail(el, a, "%s takes %d coordinate%s, got %d", d->name, want, want == 1 ? "" : "s", a->nargs);
    if (a->targ) return tine_elab_fail(el, a, "%s takes no type parameter", d->name);
    tine_type_t i32 = tine_type(TINE_INT, 32, lanes);
    val c[4];
    for (int i = 0; i < a->nargs; i++) {
        c[i] = tine_elab_expr(el, a->args[i], lanes);
        if (tine_elab_ok(el, c[i]) && c[i].lit) c[i] = tine_elab_lit_to(el, a->args[i], c[i], i32);
        if (!tine_elab_ok(el, c[i])) return (val){0};
        if (c[i].e->type.kind != TINE_INT || c[i].e->type.bits != 32) {
            char b[32];
            return tine_elab_fail(el, a->args[i], "a coordinate must be i32, this one is %s", tine_type_str(c[i].e->type, b, 32));
        }
    }
    for (int i = 0; i < a->nargs && K->wide; i++) c[i].e = dense_index(tine_elab_ctx(el), c[i].e);
    if ((d->kind == K_FUNC && !mat) || d->kind == K_OUTPUT) {
        struct call_memo key = {.d = d, .lanes = lanes, .current = K->reds ? K->reds->current : -1};
        for (int i = 0; i < d->nargs; i++) key.args[i] = c[i].e = sum_offsets(tine_elab_ctx(el), c[i].e);
        const val *seen = memo_find(K, &key);
        if (seen) return *seen;
        if (++K->kdepth > 64) return tine_elab_fail(el, a, "functions call each other too deeply");
        for (int i = 0; i < d->nargs; i++) tine_elab_push(el, d->args[i], c[i]);
        /* the callee's body sees only its own coordinates, parameters and functions */
        tine_elab_frame saved = tine_elab_enter(el, d->nargs);
        val r = tine_elab_expr(el, d->body, lanes);
        tine_elab_leave(el, saved);
        tine_elab_pop(el, d->nargs);
        K->kdepth--;
        if (tine_elab_ok(el, r)) {
            key.v = r;
            memo_add(K, &key);
        }
        return r;
    }
    tine_type_t et = mat ? d->mtype : tine_elab_type_of(el, in->type);
    if (mat && !tine_type_valid(et)) return tine_elab_fail(el, a, "'%s' is read before its stage is lowered", d->name);
    if (!tine_type_valid(et)) return (val){0};
    tine_ctx_t *ctx = tine_elab_ctx(el);
    tine_expr_t *inside = NULL, *index = NULL;
    for (int i = 0; i < want; i++) {
        tine_expr_t *x = c[i].e, *mn = geometry(el, in->name, TINE_KS_MIN, i, lanes);
        if (d->kind == K_BOUNDARY) {
            /* min + (extent - 1): no i32 intermediate wraps when the last coordinate fits */
            tine_expr_t *last = tine_binary(ctx, TINE_OP_ADD, mn, tine_binary(ctx, TINE_OP_SUB, geometry(el, in->name, TINE_KS_EXTENT, i, lanes),
                                                                              tine_const_int(ctx, i32, 1)));
            if (d->fill) {
                tine_expr_t *in_d = tine_binary(ctx, TINE_OP_AND, tine_binary(ctx, TINE_OP_GE, x, mn), tine_binary(ctx, TINE_OP_LE, x, last));
                inside = inside ? tine_binary(ctx, TINE_OP_AND, inside, in_d) : in_d;
            }
            x = tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, x, mn), last);
        }
        tine_expr_t *off = tine_binary(ctx, TINE_OP_SUB, x, mn);
        if (i > 0) off = tine_binary(ctx, TINE_OP_MUL, off, geometry(el, in->name, TINE_KS_STRIDE, i, lanes));
        index = index ? tine_binary(ctx, TINE_OP_ADD, index, off) : off;
    }
    tine_expr_t *v = tine_load(ctx, in->name, et, index);
    if (mat && v && (d->vtype.bits != et.bits || d->vtype.kind != et.kind)) v = tine_cast(ctx, d->vtype, v); /* a narrowed buffer */
    if (d->fill && v) {
        val f = tine_elab_expr(el, d->fill, lanes);
        if (tine_elab_ok(el, f) && f.lit) f = tine_elab_lit_to(el, d->fill, f, tine_type_with_lanes(et, lanes));
        if (!tine_elab_ok(el, f)) return (val){0};
        v = tine_select(ctx, inside, v, f.e);
    }
    return tine_elab_typed(el, a, v);
}

/* Whether a one-lane bound reads only parameters, buffer geometry, constants and the
 * variables of enclosing loop reductions (no coordinates, no buffer data). */
static bool bound_ok(tine_ctx_t *ctx, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool good = true;
    for (uint32_t i = 0; i < n && good; i++) {
        const tine_expr_t *x = order[i];
        if (x->op == TINE_OP_LOAD) good = false;
        if (x->op == TINE_OP_VAR) {
            const char *name = tine_expr_name(x);
            good = !tine_kernel_internal_var(name) || !strncmp(name, "$.r", 3);
        }
    }
    free(order);
    return good;
}

/* A reduction with parameter bounds: a loop (tine_reduction), its result a variable. */
static val elab_loop_reduce(tine_elab *el, const tine_ast *a, val lo, val hi, int lanes) {
    tine_ctx_t *ctx = tine_elab_ctx(el);
    tine_reductions *rs = ((kelab *)tine_elab_env_of(el)->hook_data)->reds;
    tine_type_t i32 = tine_type(TINE_INT, 32, lanes);
    val b[2] = {lo, hi};
    tine_expr_t *s[2];
    for (int i = 0; i < 2; i++) {
        if (b[i].lit) b[i] = tine_elab_lit_to(el, a->args[i], b[i], i32);
        if (!tine_elab_ok(el, b[i])) return (val){0};
        if (b[i].e->type.kind != TINE_INT || b[i].e->type.bits != 32)
            return tine_elab_fail(el, a->args[i], "the bounds of %s(%s in a..b) must be i32", a->name, a->field);
        s[i] = tine_one_lane(ctx, b[i].e);
        if (!s[i] || !bound_ok(ctx, s[i]))
            return tine_elab_fail(el, a->args[i],
                        "the bounds of %s(%s in a..b) must be constants or expressions of parameters (not of "
                        "coordinates or buffer data)", a->name, a->field);
    }
    if (tine_elab_rdepth(el, 0) >= TINE_KLIMIT_DEPTH)
        return tine_elab_fail(el, a, "reductions are nested more than %d deep (counting those of the functions called)",
                    TINE_KLIMIT_DEPTH);
    if (tine_elab_locals(el) >= 64) return tine_elab_fail(el, a, "too many nested lets and reductions");
    if (rs->n == 256) return tine_elab_fail(el, a, "more than 256 reductions with parameter bounds");
    TINE_GROW(rs->v, rs->n + 1, rs->cap);
    int me = rs->n++;
    char vn[32];
    snprintf(vn, sizeof vn, "$.r%d", rs->base + me);
    tine_expr_t *r = tine_var(ctx, vn, tine_type(TINE_INT, 32, 1));
    rs->v[me] = (tine_reduction){.r = r, .lo = s[0], .hi = s[1], .parent = rs->current, .op = (tine_op_t)a->op,
                                 .name = a->field};
    int saved = rs->current;
    rs->current = me;
    /* a vectorized reduction's body (tine_rvec): lane i is the term of r + i */
    tine_expr_t *rv = rs->vector == me + 1 ? tine_ramp(ctx, r, tine_const_int(ctx, tine_type(TINE_INT, 32, 1), 1), lanes)
                                           : tine_broadcast(ctx, r, lanes);
    tine_elab_push(el, a->field, (val){.e = rv});
    tine_elab_rdepth(el, 1);
    val t = tine_elab_expr(el, a->args[2], lanes);
    tine_elab_rdepth(el, -1);
    tine_elab_pop(el, 1);
    rs->current = saved;
    if (!tine_elab_ok(el, t)) return (val){0};
    if (t.lit) return tine_elab_need_typed(el, a->args[2], t);
    tine_type_t T = t.e->type;
    snprintf(vn, sizeof vn, "$.acc%d", rs->base + me);
    tine_expr_t *acc = tine_var(ctx, vn, T);
    val u = tine_elab_binary(el, a, a->op, a, (val){.e = acc}, a->args[2], t);
    if (!tine_elab_ok(el, u)) return (val){0};
    snprintf(vn, sizeof vn, "$.red%d", rs->base + me);
    tine_reduction *R = &rs->v[me];
    R->acc = acc;
    R->result = tine_var(ctx, vn, T);
    R->update = u.e;
    R->body = t.e;
    R->init = tine_elab_reduce_identity(ctx, (tine_op_t)a->op, T);
    return tine_elab_typed(el, a, R->result);
}


static bool kernel_call(tine_elab *el, const tine_ast *a, int lanes, val *out) {
    const kelab *K = tine_elab_env_of(el)->hook_data;
    const tine_kdecl *d = tine_kernel_find(K->k, a->name);
    if (!d) return false; /* a built-in function */
    if (d->kind != K_PARAM) *out = elab_kernel_call(el, a, d, lanes);
    else *out = tine_elab_fail(el, a, "'%s' is a parameter, a single value; use it without coordinates", a->name);
    return true;
}

/* A reduction with constant bounds that the schedule vectorizes (`vectorize f.i N`,
 * tine_reductions.cvec): each group of N terms at N times the lanes, reduced to the
 * body's lanes; the terms left (hi - lo mod N) one at a time. Floats are not taken (the
 * order of their terms matters): rvec_directives refuses the directive. */
static bool elab_vreduce(tine_elab *el, const tine_ast *a, tine_i128 lo, tine_i128 hi, int lanes, val *out) {
    kelab *K = tine_elab_env_of(el)->hook_data;
    tine_reductions *rs = K->reds;
    if (!rs || !rs->cvec || strcmp(rs->cvec, a->field)) return false;
    tine_ctx_t *ctx = tine_elab_ctx(el);
    int N = rs->cvec_n, W = lanes * N;
    long n = (long)(hi - lo);
    if (n > 4096 || tine_elab_locals(el) >= 64) return false; /* unrolled: its own errors */
    if (W > DENSE_LANES) {
        *out = tine_elab_fail(el, a, "%s(%s in a..b) is vectorized by %d at %d lanes: %d lanes; at most %d", a->name,
                              a->field, N, lanes, W, DENSE_LANES);
        return true;
    }
    rs->cvec_seen++;
    val acc = {0};
    tine_expr_t *r = NULL;
    uint64_t *iv = tine_xmalloc(sizeof *iv * (size_t)W);
    K->wide++;
    tine_elab_rdepth(el, 1);
    for (long g = 0; g + N <= n; g += N) {
        for (int p = 0; p < W; p++) iv[p] = (uint64_t)(uint32_t)(int32_t)(lo + g + p % N);
        tine_elab_push(el, a->field, (val){.e = tine_const_lanes(ctx, tine_type(TINE_INT, 32, W), iv)});
        int loops = rs->n;
        val t = tine_elab_expr(el, a->args[2], W);
        tine_elab_pop(el, 1);
        if (tine_elab_ok(el, t) && rs->n != loops)
            t = tine_elab_fail(el, a, "%s(%s in a..b) is vectorized, and its terms hold a reduction with parameter bounds "
                               "(over '%s'); only unrolled terms can be vectorized so far", a->name, a->field,
                               rs->v[loops].name);
        if (tine_elab_ok(el, t) && t.lit) t = tine_elab_need_typed(el, a->args[2], t);
        if (!tine_elab_ok(el, t)) {
            acc = t;
            break;
        }
        if (t.e->type.kind == TINE_FLOAT) {
            rs->cvec_float++;
            acc = (val){0};
            break;
        }
        if (a->op == TINE_OP_ADD) r = tine_vector_reduce_add(ctx, t.e, lanes);
        else
            for (int m = 0; m < N; m++) {
                tine_expr_t *s = tine_slice(ctx, t.e, m, N, lanes);
                r = m ? tine_binary(ctx, (tine_op_t)a->op, r, s) : s;
            }
        val rv = tine_elab_typed(el, a, r);
        acc = g ? tine_elab_binary(el, a, a->op, a, acc, a->args[2], rv) : rv;
        if (!tine_elab_ok(el, acc)) break;
    }
    K->wide--;
    free(iv);
    if (rs->cvec_float) {
        tine_elab_rdepth(el, -1);
        return false;
    }
    for (long g = n / N * N; g < n && (g == 0 || tine_elab_ok(el, acc)); g++) { /* the terms left */
        tine_elab_push(el, a->field, (val){.lit = 4, .iv = lo + g});
        val t = tine_elab_expr(el, a->args[2], lanes);
        tine_elab_pop(el, 1);
        acc = g ? tine_elab_binary(el, a, a->op, a, acc, a->args[2], t) : t;
    }
    tine_elab_rdepth(el, -1);
    *out = acc;
    return true;
}

static const tine_elab_hooks KERNEL_HOOKS = {.step = kernel_step,
                                            .name = kernel_name,
                                            .call = kernel_call,
                                            .reduce = elab_loop_reduce,
                                            .vreduce = elab_vreduce,
                                            .widen = widen};

tine_expr_t *tine_kernel_elaborate(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_ast *body,
                                   const tine_binding *binds, int nbinds, int lanes, tine_reductions *rs) {
    kelab K = {.k = k, .reds = rs};
    tine_elab_env env = {.binds = binds, .nbinds = nbinds, .lanes = lanes, .fold = true, .hooks = &KERNEL_HOOKS,
                         .hook_data = &K};
    tine_expr_t *e = tine_elaborate(ctx, body, &env);
    free(K.memo);
    if (rs) rs->steps = K.steps;
    return e;
}
