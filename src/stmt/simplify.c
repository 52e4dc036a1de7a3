/* simplify.c — index and loop-bound arithmetic in linear form, constants folded.
 *
 * An i32 expression in index position (load and store indices, loop bounds, one-lane i32
 * lets, the operands of comparisons of i32) is read as a linear form
 *   sum(c_i * t_i) + k  +  lane * (stride form)  +  sum(e_j * w_j)
 * with one-lane terms t_i (variables, products of two non-constants, anything else
 * non-linear), a ramp's stride (itself a one-lane linear form) and vector terms w_j
 * (loads, non-uniform operations). Coefficients are i32 values: every step (adding,
 * negating, multiplying by a constant) is a ring operation mod 2^32, so the form equals
 * the expression for every i32 input, wrapping included; nothing is rewritten whose
 * equality depends on no overflow (no division identities but x / 1, x % 1).
 *
 * The form is written back canonically: the one-lane part as one scalar sum (variables
 * by name, other terms by op and id, the constant last, negative coefficients as
 * subtraction, added before subtracted) inside a single ramp (or broadcast), the vector terms before it. So
 * `ramp(x, 1, L) + broadcast(y)` is `ramp(x + y, 1, L)`, `broadcast(a) * broadcast(b)` is
 * `broadcast(a * b)`, and `(x + 3) - 3` is x.
 *
 * Value expressions (a store's value, vector lets) keep their shape, which lifting
 * matches: only their constant subexpressions are folded and their load indices
 * simplified.
 */
#include "passes.h"

typedef struct lin lin;
typedef struct {
    tine_expr_t *t;
    uint32_t c;
} term;
struct lin {
    int lanes;
    int n;         /* terms: one-lane, or vector (lanes) */
    term *v;
    uint32_t k;
    lin *stride;   /* a ramp's stride (one-lane form), or NULL */
};

typedef struct {
    tine_ctx_t *ctx;
    tine_arena a;
    tine_expr_t **order;
    uint32_t n;
    uint8_t *idx;   /* node in index position */
    lin **L;        /* its linear form (index position, i32), or NULL */
    tine_expr_t **E; /* its simplified expression, once made */
    tine_env_t *env; /* for folding constants */
} simp;

static bool is_i32(const tine_expr_t *e) { return e->type.kind == TINE_INT && e->type.bits == 32; }

static uint32_t pos(const simp *S, const tine_expr_t *e) { return tine_topo_index(S->order, S->n, e); }

static lin *lin_new(simp *S, int lanes, int cap) {
    lin *l = tine_arena_alloc(&S->a, sizeof *l);
    l->lanes = lanes;
    l->v = cap ? tine_arena_alloc(&S->a, sizeof *l->v * (size_t)cap) : NULL;
    return l;
}

static lin *lin_term(simp *S, tine_expr_t *t, int lanes) {
    lin *l = lin_new(S, lanes, 1);
    l->v[0] = (term){t, 1};
    l->n = 1;
    return l;
}

static lin *lin_const(simp *S, uint32_t k, int lanes) {
    lin *l = lin_new(S, lanes, 0);
    l->k = k;
    return l;
}

static bool lin_is_const(const lin *l) { return l->n == 0 && !l->stride; }
/* The same in every lane: no ramp, no vector term. */
static bool lin_uniform(const lin *l) {
    if (l->stride) return false;
    for (int i = 0; i < l->n; i++)
        if (l->v[i].t->type.lanes != 1) return false;
    return true;
}

/* a * sa + b * sb (b may be NULL) */
static lin *lin_comb(simp *S, const lin *a, uint32_t sa, const lin *b, uint32_t sb) {
    lin *r = lin_new(S, a->lanes, a->n + (b ? b->n : 0));
    for (int pass = 0; pass < 2; pass++) {
        const lin *x = pass ? b : a;
        uint32_t s = pass ? sb : sa;
        if (!x) continue;
        r->k += s * x->k;
        for (int i = 0; i < x->n; i++) {
            int j = 0;
            while (j < r->n && r->v[j].t != x->v[i].t) j++;
            if (j == r->n) r->v[r->n++] = (term){x->v[i].t, 0};
            r->v[j].c += s * x->v[i].c;
        }
    }
    int m = 0;
    for (int i = 0; i < r->n; i++)
        if (r->v[i].c) r->v[m++] = r->v[i];
    r->n = m;
    const lin *st_a = a->stride, *st_b = b ? b->stride : NULL;
    if (st_a || st_b) {
        lin zero = {.lanes = 1};
        r->stride = lin_comb(S, st_a ? st_a : &zero, sa, st_b ? st_b : &zero, sb);
        if (lin_is_const(r->stride) && r->stride->k == 0) r->stride = NULL;
    }
    return r;
}

static tine_expr_t *fold(simp *S, tine_expr_t *e);

/* ---- writing a form back -------------------------------------------------------------- */

/* Canonical order of terms: variables, then the rest; in each, added before subtracted
 * (x - m, not -m + x); then variables by name, the rest by op and id. */
static int term_cmp(const void *pa, const void *pb) {
    const tine_expr_t *a = ((const term *)pa)->t, *b = ((const term *)pb)->t;
    bool na = (int32_t)((const term *)pa)->c < 0, nb = (int32_t)((const term *)pb)->c < 0;
    bool va = a->op == TINE_OP_VAR, vb = b->op == TINE_OP_VAR;
    if (va != vb) return va ? -1 : 1;
    if (na != nb) return na ? 1 : -1;
    if (va) {
        int c = strcmp(tine_expr_name(a), tine_expr_name(b));
        if (c) return c;
    } else if (a->op != b->op) {
        return a->op < b->op ? -1 : 1;
    }
    return a->id < b->id ? -1 : a->id > b->id;
}

static tine_expr_t *cst(simp *S, uint32_t k, int lanes) {
    return tine_const_int(S->ctx, tine_type(TINE_INT, 32, lanes), (int32_t)k);
}

/* sum of c * t over terms of `lanes` lanes (in canonical order), then + k */
static tine_expr_t *write_sum(simp *S, term *v, int n, uint32_t k, int lanes) {
    tine_ctx_t *ctx = S->ctx;
    qsort(v, (size_t)n, sizeof *v, term_cmp);
    tine_expr_t *r = NULL;
    for (int i = 0; i < n; i++) {
        int32_t c = (int32_t)v[i].c;
        bool neg = c < 0 && c != INT32_MIN;
        uint32_t mag = neg ? 0u - v[i].c : v[i].c;
        tine_expr_t *t = v[i].t;
        if (t->type.lanes != lanes) t = tine_broadcast(ctx, t, lanes);
        if (mag != 1) t = fold(S, tine_binary(ctx, TINE_OP_MUL, t, cst(S, mag, lanes))); /* a lane pattern * k */
        if (!r) r = neg ? tine_unary(ctx, TINE_OP_NEG, t) : t;
        else r = tine_binary(ctx, neg ? TINE_OP_SUB : TINE_OP_ADD, r, t);
    }
    if (!r) return cst(S, k, lanes);
    int32_t kk = (int32_t)k;
    if (kk > 0 || kk == INT32_MIN) r = tine_binary(ctx, TINE_OP_ADD, r, cst(S, k, lanes));
    else if (kk < 0) r = tine_binary(ctx, TINE_OP_SUB, r, cst(S, 0u - k, lanes));
    return r;
}

static tine_expr_t *write_lin(simp *S, const lin *l) {
    term *sc = malloc(sizeof *sc * (size_t)(l->n + 1)), *vc = malloc(sizeof *vc * (size_t)(l->n + 1));
    TINE_CHECK_ALLOC(sc && vc);
    int ns = 0, nv = 0;
    for (int i = 0; i < l->n; i++) {
        if (l->v[i].t->type.lanes == 1) sc[ns++] = l->v[i];
        else vc[nv++] = l->v[i];
    }
    tine_expr_t *base = write_sum(S, sc, ns, l->k, 1), *r;
    if (l->lanes == 1) r = base;
    else if (l->stride) r = tine_ramp(S->ctx, base, write_lin(S, l->stride), l->lanes);
    else r = tine_broadcast(S->ctx, base, l->lanes);
    if (nv) {
        tine_expr_t *w = write_sum(S, vc, nv, 0, l->lanes);
        bool zero = r->op == TINE_OP_CONST && (r->flags & TINE_F_UNIFORM) && tine_const_value(r, 0) == 0;
        r = zero ? w : tine_binary(S->ctx, TINE_OP_ADD, w, r);
    }
    free(sc);
    free(vc);
    return r;
}

/* ---- the walk ------------------------------------------------------------------------ */

static tine_expr_t *made(simp *S, uint32_t i);

static bool all_const(tine_expr_t *const *ops, int n) {
    for (int i = 0; i < n; i++)
        if (ops[i]->op != TINE_OP_CONST) return false;
    return n > 0;
}

static tine_expr_t *fold(simp *S, tine_expr_t *e) {
    if (e->op == TINE_OP_LOAD || e->op == TINE_OP_INSN || e->type.bits > 64 || !all_const(e->ops, e->nops)) return e;
    if (!S->env) S->env = tine_env_new(S->ctx);
    tine_u128 v[TINE_MAX_LANES];
    if (tine_eval128(S->ctx, e, S->env, v) != 0) return e;
    tine_expr_t *c = tine_const_u128(S->ctx, e->type, v);
    return c ? c : e;
}

static bool const_is(const tine_expr_t *e, int64_t v) {
    return e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM) && (int64_t)tine_const_value(e, 0) == v;
}

/* Node e rebuilt from its simplified operands, with local identities and folding. */
static tine_expr_t *rebuild(simp *S, const tine_expr_t *e, tine_expr_t **ops) {
    switch ((tine_op_t)e->op) {
    case TINE_OP_SELECT:
        if (ops[0]->op == TINE_OP_CONST && (ops[0]->flags & TINE_F_UNIFORM))
            return tine_const_value(ops[0], 0) ? ops[1] : ops[2];
        if (ops[1] == ops[2]) return ops[1];
        break;
    case TINE_OP_MIN:
    case TINE_OP_MAX:
        if (ops[0] == ops[1]) return ops[0];
        break;
    case TINE_OP_DIV:
        if (tine_type_is_int(e->type) && const_is(ops[1], 1)) return ops[0];
        break;
    case TINE_OP_MOD:
        if (tine_type_is_int(e->type) && const_is(ops[1], 1))
            return tine_const_int(S->ctx, e->type, 0);
        break;
    default: break;
    }
    return fold(S, tine_rebuild(S->ctx, e, ops));
}

/* The linear form of node i (in index position, i32). */
static lin *form(simp *S, uint32_t i) {
    tine_expr_t *e = S->order[i];
    int lanes = e->type.lanes;
    lin *a = e->nops >= 1 && S->L[pos(S, e->ops[0])] ? S->L[pos(S, e->ops[0])] : NULL;
    lin *b = e->nops >= 2 && S->L[pos(S, e->ops[1])] ? S->L[pos(S, e->ops[1])] : NULL;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST: {
        uint32_t k0 = (uint32_t)tine_const_value(e, 0);
        if (e->flags & TINE_F_UNIFORM) return lin_const(S, k0, lanes);
        uint32_t d = (uint32_t)tine_const_value(e, 1) - k0;
        for (int j = 2; j < lanes; j++)
            if ((uint32_t)tine_const_value(e, j) - (uint32_t)tine_const_value(e, j - 1) != d) return lin_term(S, e, lanes);
        lin *l = lin_const(S, k0, lanes);
        l->stride = lin_const(S, d, 1);
        return l;
    }
    case TINE_OP_ADD: return lin_comb(S, a, 1, b, 1);
    case TINE_OP_SUB: return lin_comb(S, a, 1, b, 0xFFFFFFFFu);
    case TINE_OP_NEG: return lin_comb(S, a, 0xFFFFFFFFu, NULL, 0);
    case TINE_OP_MUL:
        if (lin_is_const(b)) return lin_comb(S, a, b->k, NULL, 0);
        if (lin_is_const(a)) return lin_comb(S, b, a->k, NULL, 0);
        break;
    case TINE_OP_BROADCAST: {
        lin *r = lin_comb(S, a, 1, NULL, 0);
        r->lanes = lanes;
        return r;
    }
    case TINE_OP_RAMP: {
        lin *r = lin_comb(S, a, 1, NULL, 0);
        r->lanes = lanes;
        r->stride = lin_is_const(b) && b->k == 0 ? NULL : b;
        return r;
    }
    default: break;
    }
    /* a term: binary integer ops of uniform operands become one-lane ops */
    if (lanes > 1 && e->nops == 2 && a && b && lin_uniform(a) && lin_uniform(b) && e->op != TINE_OP_LOAD) {
        lin a1 = *a, b1 = *b;
        a1.lanes = b1.lanes = 1;
        tine_expr_t *ops[2] = {write_lin(S, &a1), write_lin(S, &b1)};
        tine_expr_t *t = tine_binary(S->ctx, (tine_op_t)e->op, ops[0], ops[1]);
        if (t) {
            t = fold(S, t);
            if (t->op == TINE_OP_CONST) return lin_const(S, (uint32_t)tine_const_value(t, 0), lanes);
            return lin_term(S, t, lanes);
        }
    }
    tine_expr_t *r = made(S, i);
    if (r->op == TINE_OP_CONST && (r->flags & TINE_F_UNIFORM)) return lin_const(S, (uint32_t)tine_const_value(r, 0), lanes);
    return lin_term(S, r, lanes);
}

/* The simplified expression of node i. */
static tine_expr_t *made(simp *S, uint32_t i) {
    if (S->E[i]) return S->E[i];
    tine_expr_t *e = S->order[i];
    if (S->L[i]) return S->E[i] = write_lin(S, S->L[i]);
    if (e->nops == 0) return S->E[i] = e;
    tine_expr_t **ops = malloc(sizeof *ops * (size_t)e->nops);
    TINE_CHECK_ALLOC(ops != NULL);
    for (int j = 0; j < e->nops; j++) ops[j] = made(S, pos(S, e->ops[j]));
    S->E[i] = rebuild(S, e, ops);
    free(ops);
    return S->E[i];
}

static bool is_cmp(tine_op_t op) {
    return op == TINE_OP_EQ || op == TINE_OP_NE || op == TINE_OP_LT || op == TINE_OP_LE || op == TINE_OP_GT ||
           op == TINE_OP_GE;
}

static tine_expr_t *simplify(tine_ctx_t *ctx, tine_expr_t *e, bool index) {
    if (!e) return NULL;
    simp S = {.ctx = ctx};
    S.order = tine_topo(ctx, e, &S.n);
    S.idx = calloc(S.n, 1);
    S.L = calloc(S.n, sizeof *S.L);
    S.E = calloc(S.n, sizeof *S.E);
    TINE_CHECK_ALLOC(S.idx && S.L && S.E);
    S.idx[S.n - 1] = index;
    /* positions, parents first */
    for (uint32_t i = S.n; i-- > 0;) {
        tine_expr_t *x = S.order[i];
        bool to_ops = (S.idx[i] && is_i32(x)) || (is_cmp((tine_op_t)x->op) && is_i32(x->ops[0]));
        for (int j = 0; j < x->nops; j++)
            if (to_ops || x->op == TINE_OP_LOAD) S.idx[pos(&S, x->ops[j])] = 1;
    }
    /* forms, children first; a form is made for every i32 node in index position whose
       operands (if any) in index position have forms too */
    for (uint32_t i = 0; i < S.n; i++) {
        tine_expr_t *x = S.order[i];
        if (!S.idx[i] || !is_i32(x) || x->op == TINE_OP_INSN) continue;
        S.L[i] = form(&S, i);
    }
    tine_expr_t *r = made(&S, S.n - 1);
    if (S.env) tine_env_free(S.env);
    tine_arena_free(&S.a);
    free(S.order);
    free(S.idx);
    free(S.L);
    free(S.E);
    return r;
}

tine_expr_t *tine_simplify_expr(tine_ctx_t *ctx, tine_expr_t *e) { return simplify(ctx, e, true); }

/* ---- statements ------------------------------------------------------------------------ */

static bool const_bool(const tine_expr_t *e, bool *v) {
    if (e->op != TINE_OP_CONST || !(e->flags & TINE_F_UNIFORM)) return false;
    *v = tine_const_value(e, 0) != 0;
    return true;
}


typedef struct {
    tine_ctx_t *ctx;
    const tine_expr_t *var;
    bool found;
} use_walk;

static void use_visit(void *user, const tine_stmt *s) {
    use_walk *u = user;
    if (u->found) return;
    tine_ctx_t *c = u->ctx;
    switch (s->kind) {
    case TINE_S_FOR: u->found = tine_dag_contains(c, s->loop.min, u->var) || tine_dag_contains(c, s->loop.extent, u->var); break;
    case TINE_S_LET: u->found = tine_dag_contains(c, s->let.value, u->var); break;
    case TINE_S_STORE: u->found = tine_dag_contains(c, s->store.index, u->var) || tine_dag_contains(c, s->store.value, u->var); break;
    case TINE_S_ALLOCATE: u->found = tine_dag_contains(c, s->alloc.size, u->var); break;
    case TINE_S_IF: u->found = tine_dag_contains(c, s->if_.cond, u->var); break;
    case TINE_S_ASSERT: u->found = tine_dag_contains(c, s->assert_.cond, u->var); break;
    case TINE_S_EVALUATE: u->found = tine_dag_contains(c, s->eval.value, u->var); break;
    default: break;
    }
}

static tine_stmt *empty(tine_stmt_pool *p) { return tine_stmt_block(p, NULL, 0); }

static bool is_empty(const tine_stmt *s) { return s->kind == TINE_S_BLOCK && s->block.n == 0; }

static tine_stmt *simp_stmt(tine_stmt_pool *p, tine_stmt *s) {
    tine_ctx_t *ctx = p->ctx;
    switch (s->kind) {
    case TINE_S_FOR: {
        tine_expr_t *mn = simplify(ctx, s->loop.min, true), *ex = simplify(ctx, s->loop.extent, true);
        if (ex->op == TINE_OP_CONST && (int32_t)tine_const_value(ex, 0) <= 0) return empty(p);
        tine_stmt *b = simp_stmt(p, s->loop.body);
        if (is_empty(b)) return b;
        if (mn == s->loop.min && ex == s->loop.extent && b == s->loop.body) return s;
        return tine_stmt_for_like(p, s, mn, ex, b);
    }
    case TINE_S_LET: {
        tine_expr_t *v = s->let.value;
        v = simplify(ctx, v, is_i32(v) && v->type.lanes == 1);
        tine_stmt *b = simp_stmt(p, s->let.body);
        use_walk u = {ctx, s->let.var, false};
        tine_stmt_visit(b, use_visit, &u);
        if (!u.found) return b; /* the value is pure: an unused let is dropped */
        if (v == s->let.value && b == s->let.body) return s;
        return tine_stmt_let(p, s->let.var, v, b);
    }
    case TINE_S_STORE: {
        tine_expr_t *i = simplify(ctx, s->store.index, true), *v = simplify(ctx, s->store.value, false);
        if (i == s->store.index && v == s->store.value) return s;
        return tine_stmt_store(p, s->store.buffer, i, v);
    }
    case TINE_S_ALLOCATE: {
        tine_expr_t *n = simplify(ctx, s->alloc.size, true);
        tine_stmt *b = simp_stmt(p, s->alloc.body);
        if (n == s->alloc.size && b == s->alloc.body) return s;
        return tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, n, b);
    }
    case TINE_S_FREE: return s;
    case TINE_S_IF: {
        tine_expr_t *c = simplify(ctx, s->if_.cond, false);
        bool v;
        if (const_bool(c, &v)) {
            tine_stmt *taken = v ? s->if_.then_ : s->if_.else_;
            return taken ? simp_stmt(p, taken) : empty(p);
        }
        tine_stmt *t = simp_stmt(p, s->if_.then_), *e = s->if_.else_ ? simp_stmt(p, s->if_.else_) : NULL;
        if (e && is_empty(e)) e = NULL;
        if (is_empty(t) && !e) return t;
        if (c == s->if_.cond && t == s->if_.then_ && e == s->if_.else_) return s;
        return tine_stmt_if(p, c, t, e);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        bool ch = false;
        for (int i = 0; i < s->block.n; i++) {
            v[i] = simp_stmt(p, s->block.v[i]);
            if (is_empty(v[i])) v[i] = NULL;
            ch |= v[i] != s->block.v[i];
        }
        tine_stmt *r = ch ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    case TINE_S_ASSERT: {
        tine_expr_t *c = simplify(ctx, s->assert_.cond, false);
        bool v;
        if (const_bool(c, &v) && v) return empty(p);
        return c == s->assert_.cond ? s : tine_stmt_assert_like(p, s, c);
    }
    case TINE_S_EVALUATE: {
        tine_expr_t *v = simplify(ctx, s->eval.value, false);
        return v == s->eval.value ? s : tine_stmt_evaluate(p, v);
    }
    }
    TINE_ASSERT(!"unknown statement");
    return NULL;
}

tine_stmt *tine_stmt_simplify(tine_stmt_pool *p, tine_stmt *s) { return s ? simp_stmt(p, s) : NULL; }
