/* partition.c — loop partitioning: a loop whose body clamps or tests a coordinate against
 * a buffer's bounds (edge(): min(max(x, MIN), MIN + (EXTENT - 1)); constant(): x >= MIN,
 * x <= MIN + (EXTENT - 1)) is split into a prologue, a steady state and an epilogue. In
 * the steady state every such condition holds for every lane, so the clamps become x
 * and the tests true; codegen then sees dense ramps and emits plain vector loads. A vector
 * coordinate clamped against any other loop invariant (min(ramp, K - 1), a parameter's
 * bound: Halide's likely()) is split the same way (invariant_clamp): without it the index
 * is a gather.
 *
 * A condition counts when its coordinate x is affine in the loop variable v:
 *   x = a*v + sum(c_i * t_i) + k + lane offsets in [dmin, dmax]
 * with a != 0, the t_i loop-invariant one-lane i32 terms (outer loop variables, kernel
 * scalars), the offsets from ramps, non-uniform constants and inner loops of constant
 * range. Lets inside the loop whose value is affine (`let $.c0 = ...`) are substituted.
 *
 * Exactness under i32 wrapping: x's i32 value is congruent mod 2^32 to the affine form
 * evaluated exactly (add, sub, neg and multiplication by a constant are ring
 * operations). The split points are computed in i64 from the exact form, so in the
 * steady state the exact value lies in [MIN, LAST], which fits i32: the i32 value is
 * that value and the clamp is a no-op. They are clamped into [0, extent] as offsets from
 * the loop's min before the cast back to i32, so no i32 intermediate wraps.
 *
 * The result, for loop "S.x" over [min, min + extent):
 *   let $.pN = i32(prologue's length)        -- offsets from min, multiples of the step
 *   let $.qN = i32(end of the steady state)  -- $.pN <= $.qN <= max(extent, 0)
 *     for S.x.pro: v in [min, min + $.pN)             (the body as it was)
 *     for S.x:     v in [min + $.pN, ... + $.qN - $.pN) (conditions removed)
 *     for S.x.epi: v in [min + $.qN, ... + max(extent, 0) - $.qN)
 * The three parts are marked `partition never` (the pass is not repeated on them) and
 * their bodies are partitioned in turn (inner loops). A vector loop in a steady state is
 * split at exact elements instead (split_vector_exact): scalar edges, steady vectors.
 */
#include "passes.h"
#include "../ir/affine.h"

typedef tine_aff aff; /* ../ir/affine.h */

typedef enum { B_FORM, B_OPAQUE } bind_kind;
typedef struct {
    tine_expr_t *var;
    bind_kind kind; /* B_FORM: its value has the affine form `form` */
    aff form;
} bind;

/* A bound on v: ceil (lower) or floor (upper) of (sym + k) / div, sym an i64
 * expression (NULL: 0). Bounds with the same sym and div are one: the largest k of the
 * lower ones, the smallest of the upper ones. */
typedef struct {
    tine_expr_t *sym;
    int64_t k, div;
} bound;

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_kernel_t *k;
    int count;          /* lets made so far (their names) */
    bool edge;          /* inside a prologue or epilogue: only innermost loops are split */
    /* the loop being partitioned */
    tine_expr_t *v;
    bind *scope;        /* variables bound inside it */
    int nscope, capscope;
    bound *lower, *upper; /* v >= each lower bound, v <= each upper bound */
    int nlower, nupper, caplower, capupper;
} part;

/* ---- affine forms ------------------------------------------------------------------- */

static bool is_i32(const tine_expr_t *e) { return e->type.kind == TINE_INT && e->type.bits == 32; }

static const bind *lookup(const part *P, const tine_expr_t *var) {
    for (int i = P->nscope; i-- > 0;)
        if (P->scope[i].var == var) return &P->scope[i];
    return NULL;
}

/* Whether e reads no variable bound inside the loop (nor the loop's own). */
static bool invariant(const part *P, const tine_expr_t *e) {
    if (e->op == TINE_OP_CONST) return true;
    if (e->op == TINE_OP_VAR) return e != P->v && !lookup(P, e);
    uint32_t n;
    tine_expr_t **order = tine_topo(P->ctx, e, &n);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++)
        if (order[i]->op == TINE_OP_VAR) ok = order[i] != P->v && !lookup(P, order[i]);
    free(order);
    return ok;
}

static int bound_form(void *env, const tine_expr_t *var, aff *form) {
    const bind *b = lookup(env, var);
    if (!b) return 0;
    if (b->kind != B_FORM) return -1;
    *form = b->form;
    return 1;
}

static bool invariant_hook(void *env, const tine_expr_t *e) { return invariant(env, e); }

/* The affine form of an i32 expression in the scope of the loop; false if it has none. */
static bool affine(const part *P, const tine_expr_t *e, aff *f) {
    tine_aff_ctx A = {.var = P->v, .bound = bound_form, .invariant = invariant_hook, .env = (void *)P};
    return tine_affine(&A, e, f);
}

/* ---- boundary conditions ------------------------------------------------------------ */

static tine_expr_t *scalar_of(tine_expr_t *e) {
    return e->op == TINE_OP_BROADCAST ? e->ops[0] : e;
}

/* Whether lo is a buffer's MIN geometry variable (one lane, or broadcast). Without a
 * kernel (tests of hand-built nests) any one-lane i32 variable counts. */
static const tine_expr_t *min_var(const part *P, tine_expr_t *lo) {
    tine_expr_t *s = scalar_of(lo);
    if (s->op != TINE_OP_VAR || !is_i32(s) || s->type.lanes != 1) return NULL;
    if (!P->k) return s;
    const tine_kscalar *g = tine_kernel_scalar_of(P->k, s);
    return g && g->what == TINE_KS_MIN ? s : NULL;
}

/* Whether hi is MIN + EXTENT - 1 (any arrangement) of the buffer and dimension of mn. */
static bool last_of(const part *P, tine_expr_t *hi, const tine_expr_t *mn) {
    aff f;
    if (!affine(P, hi, &f) || f.dmin || f.dmax || f.a || f.k != -1 || f.n != 2) return false;
    int im = f.t[0] == mn ? 0 : f.t[1] == mn ? 1 : -1;
    if (im < 0 || f.c[im] != 1 || f.c[1 - im] != 1) return false;
    const tine_expr_t *ext = f.t[1 - im];
    if (ext->op != TINE_OP_VAR) return false;
    if (!P->k) return true;
    const tine_kscalar *gm = tine_kernel_scalar_of(P->k, mn), *ge = tine_kernel_scalar_of(P->k, ext);
    return ge && ge->what == TINE_KS_EXTENT && ge->input == gm->input && ge->stage == gm->stage && ge->dim == gm->dim;
}

/* Whether hi is the LAST of some buffer's dimension. */
static bool last_any(const part *P, tine_expr_t *hi) {
    aff f;
    if (!affine(P, hi, &f) || f.n != 2) return false;
    for (int i = 0; i < 2; i++) {
        const tine_expr_t *mn = min_var(P, f.t[i]);
        if (mn && last_of(P, hi, mn)) return true;
    }
    return false;
}

static void push_bound(part *P, bool upper, tine_expr_t *sym, int64_t k, int64_t div) {
    bound **v = upper ? &P->upper : &P->lower;
    int *n = upper ? &P->nupper : &P->nlower, *cap = upper ? &P->capupper : &P->caplower;
    for (int i = 0; i < *n; i++)
        if ((*v)[i].sym == sym && (*v)[i].div == div) {
            int64_t *old = &(*v)[i].k;
            *old = upper ? (k < *old ? k : *old) : (k > *old ? k : *old);
            return;
        }
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        *v = realloc(*v, sizeof **v * (size_t)*cap);
        TINE_ASSERT(*v != NULL);
    }
    (*v)[(*n)++] = (bound){sym, k, div};
}

static tine_type_t i64(void) { return tine_type(TINE_INT, 64, 1); }
static tine_expr_t *c64(part *P, int64_t v) { return tine_const_int(P->ctx, i64(), v); }
static tine_expr_t *add64(part *P, tine_expr_t *a, tine_expr_t *b) { return tine_binary(P->ctx, TINE_OP_ADD, a, b); }
static tine_expr_t *sub64(part *P, tine_expr_t *a, tine_expr_t *b) { return tine_binary(P->ctx, TINE_OP_SUB, a, b); }
static tine_expr_t *to64(part *P, tine_expr_t *e) { return tine_cast(P->ctx, i64(), e); }

/* floor(n / d) and ceil(n / d) for a constant d > 0 (tine's `/` floors). */
static tine_expr_t *floor_div(part *P, tine_expr_t *n, int64_t d) {
    return d == 1 ? n : tine_binary(P->ctx, TINE_OP_DIV, n, c64(P, d));
}
static tine_expr_t *ceil_div(part *P, tine_expr_t *n, int64_t d) {
    return d == 1 ? n : floor_div(P, add64(P, n, c64(P, d - 1)), d);
}

/* sum of c_i * i64(t_i) over a form's terms, the terms of g subtracted; NULL for none */
static tine_expr_t *sym_diff(part *P, const aff *g, const aff *f) {
    tine_expr_t *r = NULL;
    for (int pass = 0; pass < 2; pass++) {
        const aff *h = pass ? f : g;
        for (int i = 0; i < h->n; i++) {
            int64_t c = pass ? -h->c[i] : h->c[i];
            for (int j = 0; !pass && j < f->n; j++) /* terms in both cancel */
                if (f->t[j] == h->t[i]) c -= f->c[j];
            for (int j = 0; pass && j < g->n; j++)
                if (g->t[j] == h->t[i]) c = 0;
            if (!c) continue;
            tine_expr_t *t = to64(P, h->t[i]);
            int64_t m = c < 0 ? -c : c;
            if (m != 1) t = tine_binary(P->ctx, TINE_OP_MUL, t, c64(P, m));
            if (!r) r = c < 0 ? tine_unary(P->ctx, TINE_OP_NEG, t) : t;
            else r = tine_binary(P->ctx, c < 0 ? TINE_OP_SUB : TINE_OP_ADD, r, t);
        }
    }
    return r;
}

/* The condition x >= lim (upper: x <= lim) for every lane, as a bound on v. */
static bool add_condition(part *P, tine_expr_t *x, tine_expr_t *lim, bool upper) {
    aff f, g;
    if (!affine(P, x, &f) || f.a == 0 || !affine(P, lim, &g) || g.a || g.dmin || g.dmax) return false;
    /* with x = a*v + B (B: the rest of x, at its worst lane) and the limit's exact value G
       (MIN, or MIN + EXTENT - 1, which fits i32 by the buffer rules): a*v >= G - B (upper:
       <=), all exact in i64 */
    tine_expr_t *sym = sym_diff(P, &g, &f);
    int64_t k = g.k - f.k - (upper ? f.dmax : f.dmin);
    if (f.a > 0) {
        push_bound(P, upper, sym, k, f.a);
    } else { /* a*v >= n: v <= floor(-n / -a); a*v <= n: v >= ceil(-n / -a) */
        if (sym) sym = tine_unary(P->ctx, TINE_OP_NEG, sym);
        push_bound(P, !upper, sym, -k, -f.a);
    }
    return true;
}

/* The condition x <= lim (lower: x >= lim) for every lane, lim a loop-invariant one-lane
 * i32 expression that is no buffer bound (a kernel parameter's, K - 1): its value is taken
 * as it is (i64 of the i32), not as an exact form, so a limit whose arithmetic wraps
 * still bounds what the clamp compares with. x itself must not wrap in the steady state:
 * its exact value is also kept inside i32 (the other side), so its i32 value is that
 * value and compares with lim as the exact values do. */
static bool add_invariant_limit(part *P, tine_expr_t *x, tine_expr_t *lim, bool upper) {
    aff f;
    if (!affine(P, x, &f) || f.a == 0) return false;
    aff g = {.n = 1, .t = {lim}, .c = {1}};
    tine_expr_t *edge = tine_const_int(P->ctx, tine_type(TINE_INT, 32, 1), upper ? INT32_MIN : INT32_MAX);
    tine_expr_t *sym = sym_diff(P, &g, &f);
    int64_t k = -f.k - (upper ? f.dmax : f.dmin);
    if (f.a > 0) {
        push_bound(P, upper, sym, k, f.a);
    } else {
        if (sym) sym = tine_unary(P->ctx, TINE_OP_NEG, sym);
        push_bound(P, !upper, sym, -k, -f.a);
    }
    return add_condition(P, x, edge, !upper);
}

/* min(x, LIM) (max: max(x, LIM)), either way round, LIM loop-invariant and no buffer
 * bound (those are edge clamps, above), x a vector whose lanes differ (a ramp): the x to
 * keep in the steady state, or NULL. Only there does the clamp cost more than itself: an
 * index min(ramp, K - 1) is a gather, ramp a dense load. A uniform x (a row's clamp in
 * a serial loop) would only copy the loop's body three times. */
static tine_expr_t *invariant_clamp(part *P, const tine_expr_t *e, bool upper) {
    for (int i = 0; i < 2; i++) {
        tine_expr_t *x = e->ops[i], *lim = e->ops[1 - i];
        if (x->type.lanes == 1 || tine_one_lane(P->ctx, x) || !is_i32(lim) || !invariant(P, lim)) continue;
        if (upper ? last_any(P, lim) : min_var(P, lim) != NULL) continue;
        if (!(lim = tine_one_lane(P->ctx, lim))) continue;
        if (add_invariant_limit(P, x, lim, upper)) return x;
    }
    return NULL;
}

/* A bound as an i64 expression. */
static tine_expr_t *bound_expr(part *P, const bound *b, bool upper) {
    tine_expr_t *n = b->sym ? (b->k ? add64(P, b->sym, c64(P, b->k)) : b->sym) : c64(P, b->k);
    return upper ? floor_div(P, n, b->div) : ceil_div(P, n, b->div);
}

static tine_expr_t *bool_true(part *P, int lanes) {
    return tine_const_uint(P->ctx, tine_type(TINE_BOOL, 1, lanes), 1);
}

static bool is_true(const tine_expr_t *e) {
    return e->op == TINE_OP_CONST && e->type.kind == TINE_BOOL && (e->flags & TINE_F_UNIFORM) && tine_const_value(e, 0);
}

/* The steady-state form of node e (operands already rewritten: ops), or NULL to rebuild
 * it from ops. Conditions it removes add their bounds on v. */
static tine_expr_t *steady_node(part *P, const tine_expr_t *e, tine_expr_t *const *ops,
                                tine_expr_t *const *order, uint32_t count, tine_expr_t *const *map) {
    switch ((tine_op_t)e->op) {
    case TINE_OP_MIN:
        /* min(max(x, MIN), LAST), either way round */
        for (int i = 0; i < 2; i++) {
            tine_expr_t *mx = e->ops[i], *hi = e->ops[1 - i];
            if (mx->op != TINE_OP_MAX) continue;
            for (int j = 0; j < 2; j++) {
                tine_expr_t *x = mx->ops[j], *lo = mx->ops[1 - j];
                const tine_expr_t *mn = min_var(P, lo);
                if (!mn || !last_of(P, hi, mn)) continue;
                aff f;
                if (!affine(P, x, &f) || f.a == 0) continue;
                add_condition(P, x, lo, false);
                add_condition(P, x, hi, true);
                return map[tine_topo_index(order, count, x)];
            }
        }
        /* else a clamp against a loop invariant (Halide's likely()) */
        /* fall through */
    case TINE_OP_MAX: {
        tine_expr_t *x = invariant_clamp(P, e, e->op == TINE_OP_MIN);
        return x ? map[tine_topo_index(order, count, x)] : NULL;
    }
    case TINE_OP_GE:
    case TINE_OP_LE: {
        /* x >= MIN, MIN <= x; x <= LAST, LAST >= x */
        bool ge = e->op == TINE_OP_GE;
        for (int i = 0; i < 2; i++) {
            tine_expr_t *x = e->ops[i], *lim = e->ops[1 - i];
            bool lower = (ge && i == 0) || (!ge && i == 1); /* x is on the large side */
            const tine_expr_t *mn = min_var(P, lim);
            if (lower ? !mn : !last_any(P, lim)) continue;
            if (add_condition(P, x, lim, !lower)) return bool_true(P, e->type.lanes);
        }
        return NULL;
    }
    case TINE_OP_SELECT:
        if (is_true(ops[0])) return ops[1];
        return NULL;
    case TINE_OP_AND:
        if (is_true(ops[0])) return ops[1];
        if (is_true(ops[1])) return ops[0];
        return NULL;
    default: return NULL;
    }
}

/* e with the conditions on v removed (valid where the bounds found hold). */
static tine_expr_t *steady_expr(part *P, tine_expr_t *e) {
    if (!e) return NULL;
    uint32_t n;
    tine_expr_t **order = tine_topo(P->ctx, e, &n), **map = malloc(sizeof *map * n);
    TINE_CHECK_ALLOC(map != NULL);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i], *ops[256];
        for (int j = 0; j < x->nops; j++) ops[j] = map[tine_topo_index(order, n, x->ops[j])];
        tine_expr_t *r = steady_node(P, x, ops, order, n, map);
        map[i] = r ? r : tine_rebuild(P->ctx, x, ops);
    }
    tine_expr_t *r = map[n - 1];
    free(map);
    free(order);
    return r;
}

static void push_scope(part *P, tine_expr_t *var, bind_kind kind, const aff *form) {
    if (P->nscope == P->capscope) {
        P->capscope = P->capscope ? 2 * P->capscope : 16;
        P->scope = realloc(P->scope, sizeof *P->scope * (size_t)P->capscope);
        TINE_CHECK_ALLOC(P->scope != NULL);
    }
    bind *b = &P->scope[P->nscope++];
    b->var = var;
    b->kind = kind;
    if (form) b->form = *form;
}

static int64_t const_i32(const tine_expr_t *e, bool *ok) {
    *ok = e->op == TINE_OP_CONST;
    return *ok ? (int32_t)(uint32_t)tine_const_value(e, 0) : 0;
}

/* The body of the loop over P->v with its conditions on v removed. */
static tine_stmt *steady_stmt(part *P, tine_stmt *s) {
    if (!s) return NULL;
    tine_stmt_pool *p = P->p;
    switch (s->kind) {
    case TINE_S_FOR: {
        tine_expr_t *mn = steady_expr(P, s->loop.min), *ex = steady_expr(P, s->loop.extent);
        /* an inner loop of constant range: its variable is an offset in that range */
        bool okm, oke;
        int64_t m = const_i32(s->loop.min, &okm), x = const_i32(s->loop.extent, &oke);
        if (okm && oke && x >= 1) {
            aff f = {.k = m, .dmax = x - 1};
            push_scope(P, s->loop.var, B_FORM, &f);
        } else {
            push_scope(P, s->loop.var, B_OPAQUE, NULL);
        }
        tine_stmt *b = steady_stmt(P, s->loop.body);
        P->nscope--;
        return tine_stmt_for_like(p, s, mn, ex, b);
    }
    case TINE_S_LET: {
        tine_expr_t *v = steady_expr(P, s->let.value);
        aff f;
        bool ok = affine(P, s->let.value, &f);
        push_scope(P, s->let.var, ok ? B_FORM : B_OPAQUE, ok ? &f : NULL);
        tine_stmt *b = steady_stmt(P, s->let.body);
        P->nscope--;
        return tine_stmt_let(p, s->let.var, v, b);
    }
    case TINE_S_STORE:
        return tine_stmt_store(p, s->store.buffer, steady_expr(P, s->store.index), steady_expr(P, s->store.value));
    case TINE_S_ALLOCATE:
        return tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, steady_expr(P, s->alloc.size),
                                  steady_stmt(P, s->alloc.body));
    case TINE_S_FREE: return s;
    case TINE_S_IF:
        return tine_stmt_if(p, steady_expr(P, s->if_.cond), steady_stmt(P, s->if_.then_), steady_stmt(P, s->if_.else_));
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        for (int i = 0; i < s->block.n; i++) v[i] = steady_stmt(P, s->block.v[i]);
        tine_stmt *r = tine_stmt_block(p, v, s->block.n);
        free(v);
        return r;
    }
    case TINE_S_ASSERT: return tine_stmt_assert_like(p, s, steady_expr(P, s->assert_.cond));
    case TINE_S_EVALUATE: return tine_stmt_evaluate(p, steady_expr(P, s->eval.value));
    }
    TINE_ASSERT(!"unknown statement");
    return NULL;
}

static tine_expr_t *fold_bounds(part *P, const bound *v, int n, bool upper) {
    tine_expr_t *r = NULL;
    for (int i = 0; i < n; i++) {
        tine_expr_t *e = bound_expr(P, &v[i], upper);
        r = r ? tine_binary(P->ctx, upper ? TINE_OP_MIN : TINE_OP_MAX, r, e) : e;
    }
    return r;
}

static tine_stmt *part_stmt(part *P, tine_stmt *s);

static const char *part_name(part *P, const char *name, const char *suffix) {
    if (!name) return NULL;
    size_t n = strlen(name), m = strlen(suffix);
    char *r = tine_arena_alloc(&P->p->arena, n + m + 1);
    memcpy(r, name, n);
    memcpy(r + n, suffix, m + 1);
    return r;
}

/* Loop s split in three (or NULL: nothing to split). */
/* The inner loops of a part, split in turn (edge: the part is a prologue or epilogue). */
static tine_stmt *part_inside(part *P, tine_stmt *loop, bool edge) {
    bool saved = P->edge;
    P->edge |= edge;
    tine_stmt *b = part_stmt(P, loop->loop.body);
    P->edge = saved;
    return b == loop->loop.body ? loop : tine_stmt_for_like(P->p, loop, loop->loop.min, loop->loop.extent, b);
}

/* A vector loop in the steady state of the loops around it (it runs on every row), split
 * at exact elements rather than whole vectors: the elements no vector can cover without
 * a condition (a stencil's radius at each end of the row) run one at a time, and the
 * steady vectors start right after them, the last one shifted back to end where they
 * end. A row then pays a few scalar elements at each edge instead of two vectors
 * gathered lane by lane. s0 and s1 bound the steady starts: every vector starting in
 * [min + s0, min + s1) meets no condition, so every element of [min + s0, min + s1 + L - 1)
 * lies in one; the loop's elements are [min, min + extent). */
static tine_stmt *split_vector_exact(part *P, tine_stmt *s, tine_stmt *steady, tine_expr_t *s0, tine_expr_t *s1) {
    tine_ctx_t *ctx = P->ctx;
    tine_stmt_pool *p = P->p;
    int L = s->loop.step;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    tine_expr_t *mn = s->loop.min, *zero = tine_const_int(ctx, i32, 0), *cL = tine_const_int(ctx, i32, L);
    tine_expr_t *ext = tine_binary(ctx, TINE_OP_MAX, s->loop.extent, zero), *ext64 = to64(P, ext);
    char n0[32], n1[32];
    int id = P->count++;
    snprintf(n0, sizeof n0, "$.p%d", id);
    snprintf(n1, sizeof n1, "$.q%d", id);
    tine_expr_t *a = tine_var(ctx, n0, i32), *b = tine_var(ctx, n1, i32);
    /* element offsets: a = clamp(s0, 0, extent), b = clamp(s1 + L - 1, a, extent) */
    tine_expr_t *va = tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, s0, c64(P, 0)), ext64);
    tine_expr_t *vb = tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, add64(P, s1, c64(P, L - 1)), to64(P, a)), ext64);
    tine_expr_t *at_a = tine_binary(ctx, TINE_OP_ADD, mn, a), *at_b = tine_binary(ctx, TINE_OP_ADD, mn, b);
    tine_expr_t *len = tine_binary(ctx, TINE_OP_SUB, b, a);
    tine_expr_t *whole = tine_binary(ctx, TINE_OP_MUL, tine_binary(ctx, TINE_OP_DIV, len, cL), cL);
    tine_expr_t *ragged = tine_binary(ctx, TINE_OP_NE, tine_binary(ctx, TINE_OP_MOD, len, cL), zero);
    tine_stmt *vec = part_inside(P, tine_stmt_for(p, s->loop.var, at_a, whole, L, TINE_LOOP_VECTORIZED, TINE_PARTITION_NEVER,
                                                  s->loop.name, steady), false);
    tine_stmt *last = part_inside(P, tine_stmt_for(p, s->loop.var, tine_binary(ctx, TINE_OP_SUB, at_b, cL), cL, L,
                                                   TINE_LOOP_VECTORIZED, TINE_PARTITION_NEVER, s->loop.name, steady), false);
    tine_stmt *vecs = tine_stmt_block2(p, vec, tine_stmt_if(p, ragged, last, NULL));
    tine_stmt *few = tine_stmt_for(p, s->loop.elem_var, at_a, len, 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER,
                                   part_name(P, s->loop.name, ".mid"), s->loop.elem_body);
    tine_stmt *parts[3] = {
        tine_stmt_for(p, s->loop.elem_var, mn, a, 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, part_name(P, s->loop.name, ".pro"),
                      s->loop.elem_body),
        tine_stmt_if(p, tine_binary(ctx, TINE_OP_GE, len, cL), vecs, few),
        tine_stmt_for(p, s->loop.elem_var, at_b, tine_binary(ctx, TINE_OP_SUB, ext, b), 1, TINE_LOOP_SERIAL,
                      TINE_PARTITION_NEVER, part_name(P, s->loop.name, ".epi"), s->loop.elem_body),
    };
    tine_stmt *body = tine_stmt_block(p, parts, 3);
    return tine_stmt_let(p, a, tine_cast(ctx, i32, va), tine_stmt_let(p, b, tine_cast(ctx, i32, vb), body));
}

static tine_stmt *split_loop(part *P, tine_stmt *s) {
    tine_ctx_t *ctx = P->ctx;
    P->v = s->loop.var;
    P->nscope = P->nlower = P->nupper = 0;
    tine_stmt *steady = steady_stmt(P, s->loop.body);
    bool found = P->nlower || P->nupper;
    if (!found && s->loop.partition != TINE_PARTITION_ALWAYS) return NULL;
    if (found && !P->edge && s->loop.loop == TINE_LOOP_VECTORIZED && s->loop.elem_body && s->loop.elem_var == s->loop.var) {
        tine_expr_t *lo = fold_bounds(P, P->lower, P->nlower, false), *hi = fold_bounds(P, P->upper, P->nupper, true);
        tine_expr_t *mn64 = to64(P, s->loop.min);
        return split_vector_exact(P, s, steady, lo ? sub64(P, lo, mn64) : c64(P, 0),
                                  hi ? add64(P, sub64(P, hi, mn64), c64(P, 1)) : to64(P, s->loop.extent));
    }
    int64_t step = s->loop.step;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    tine_expr_t *mn = s->loop.min, *zero = tine_const_int(ctx, i32, 0);
    tine_expr_t *ext = tine_binary(ctx, TINE_OP_MAX, s->loop.extent, zero); /* a negative extent runs nothing */
    tine_expr_t *mn64 = to64(P, mn), *ext64 = to64(P, ext), *s0, *s1;
    if (!found) {
        /* always, with nothing to remove: the last iteration is the epilogue */
        s0 = c64(P, 0);
        s1 = sub64(P, ext64, c64(P, step));
    } else {
        /* offsets from min of the first and one past the last steady iteration */
        tine_expr_t *lo = fold_bounds(P, P->lower, P->nlower, false);
        tine_expr_t *hi = fold_bounds(P, P->upper, P->nupper, true);
        s0 = lo ? tine_binary(ctx, TINE_OP_MUL, ceil_div(P, sub64(P, lo, mn64), step), c64(P, step)) : c64(P, 0);
        s1 = hi ? tine_binary(ctx, TINE_OP_MUL, add64(P, floor_div(P, sub64(P, hi, mn64), step), c64(P, 1)), c64(P, step))
                : ext64;
        if (step == 1) {
            s0 = lo ? sub64(P, lo, mn64) : s0;
            s1 = hi ? add64(P, sub64(P, hi, mn64), c64(P, 1)) : s1;
        }
    }
    s0 = tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, s0, c64(P, 0)), ext64);
    char n0[32], n1[32];
    int id = P->count++;
    snprintf(n0, sizeof n0, "$.p%d", id);
    snprintf(n1, sizeof n1, "$.q%d", id);
    tine_expr_t *p0 = tine_var(ctx, n0, i32), *p1 = tine_var(ctx, n1, i32);
    s1 = tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, s1, to64(P, p0)), ext64);
    TINE_ASSERT(s0 && s1);
    tine_stmt_pool *p = P->p;
    tine_expr_t *at0 = tine_binary(ctx, TINE_OP_ADD, mn, p0), *at1 = tine_binary(ctx, TINE_OP_ADD, mn, p1);
    /* a parallel loop's prologue and epilogue (the few rows of a stencil's radius) run
       serially: threads for them would cost more than the rows */
    tine_loop_kind edge = s->loop.loop == TINE_LOOP_PARALLEL ? TINE_LOOP_SERIAL : s->loop.loop;
    tine_stmt *parts[3] = {
        tine_stmt_for(p, s->loop.var, mn, p0, s->loop.step, edge, TINE_PARTITION_NEVER,
                      part_name(P, s->loop.name, ".pro"), s->loop.body),
        tine_stmt_for(p, s->loop.var, at0, tine_binary(ctx, TINE_OP_SUB, p1, p0), s->loop.step, s->loop.loop,
                      TINE_PARTITION_NEVER, s->loop.name, steady),
        tine_stmt_for(p, s->loop.var, at1, tine_binary(ctx, TINE_OP_SUB, ext, p1), s->loop.step, edge,
                      TINE_PARTITION_NEVER, part_name(P, s->loop.name, ".epi"), s->loop.body),
    };
    if (s->loop.elem_body && P->edge) {
        /* inside an outer loop's prologue or epilogue (a few rows that run rarely), a
           vector loop's own edges run one element at a time: the same elements in scalar
           code, cheap to compile, where vectors would gather every lane. In the steady
           state of the outer loops they stay vectors: they run on every row, and a
           gathered vector is faster than its elements one by one. */
        for (int i = 0; i < 3; i += 2)
            parts[i] = tine_stmt_for(p, s->loop.elem_var, parts[i]->loop.min, parts[i]->loop.extent, 1, TINE_LOOP_SERIAL,
                                     TINE_PARTITION_NEVER, parts[i]->loop.name, s->loop.elem_body);
    }
    /* then the loops inside each part. In a prologue or epilogue only the innermost loops
       are split: splitting every level of every part would make 3^d copies of the body of
       a d-dimensional stage (a 4-D pool took LLVM minutes); this way the copies grow
       linearly with d, and the edges keep their clamps except along the innermost loop. */
    for (int i = 0; i < 3; i++) parts[i] = part_inside(P, parts[i], i != 1);
    tine_stmt *body = tine_stmt_block(p, parts, 3);
    return tine_stmt_let(p, p0, tine_cast(ctx, i32, s0), tine_stmt_let(p, p1, tine_cast(ctx, i32, s1), body));
}

static bool splittable(const tine_stmt *s) {
    return s->kind == TINE_S_FOR && s->loop.partition != TINE_PARTITION_NEVER && s->loop.loop != TINE_LOOP_UNROLLED;
}

static void find_splittable(void *user, const tine_stmt *s) { *(bool *)user |= splittable(s); }

/* Whether a loop may be split here: anywhere in a steady state, only an innermost one
 * (no splittable loop inside it) in an edge. */
static bool may_split(part *P, const tine_stmt *s) {
    if (!splittable(s)) return false;
    if (!P->edge) return true;
    bool inner = false;
    tine_stmt_visit(s->loop.body, find_splittable, &inner);
    return !inner;
}

static tine_stmt *part_stmt(part *P, tine_stmt *s) {
    if (!s) return NULL;
    tine_stmt_pool *p = P->p;
    switch (s->kind) {
    case TINE_S_FOR: {
        if (may_split(P, s)) {
            tine_stmt *r = split_loop(P, s);
            if (r) return r;
        }
        tine_stmt *b = part_stmt(P, s->loop.body);
        if (b == s->loop.body) return s;
        return tine_stmt_for_like(p, s, s->loop.min, s->loop.extent, b);
    }
    case TINE_S_LET: {
        tine_stmt *b = part_stmt(P, s->let.body);
        return b == s->let.body ? s : tine_stmt_let(p, s->let.var, s->let.value, b);
    }
    case TINE_S_ALLOCATE: {
        tine_stmt *b = part_stmt(P, s->alloc.body);
        return b == s->alloc.body ? s : tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, s->alloc.size, b);
    }
    case TINE_S_IF: {
        tine_stmt *t = part_stmt(P, s->if_.then_), *e = part_stmt(P, s->if_.else_);
        return t == s->if_.then_ && e == s->if_.else_ ? s : tine_stmt_if(p, s->if_.cond, t, e);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        bool ch = false;
        for (int i = 0; i < s->block.n; i++) ch |= (v[i] = part_stmt(P, s->block.v[i])) != s->block.v[i];
        tine_stmt *r = ch ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    default: return s;
    }
}

tine_stmt *tine_stmt_partition(tine_stmt_pool *p, const tine_kernel_t *k, tine_stmt *s) {
    part P = {.p = p, .ctx = p->ctx, .k = k};
    tine_stmt *r = part_stmt(&P, s);
    free(P.scope);
    free(P.lower);
    free(P.upper);
    return r;
}
