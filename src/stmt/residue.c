/* residue.c — vector loops specialized on their coordinate's residue, so that halved
 * coordinates and parities are known lane patterns.
 *
 * An upsampling read m(x / 2) or a parity test x % 2 == 0 (camera_pipe's demosaic, which
 * interleaves quads on the parity of x) reaches a vector loop as `ramp($.c0, 1, L) / 2`
 * and `ramp($.c0, 1, L) % 2`. Their lanes depend on $.c0's parity: codegen sees an index
 * it cannot read densely (LLVM scalarizes it into one insert per lane) and a select mask
 * it must compute. Within a vectorized loop whose step is a multiple of d, $.c0 mod d is
 * the same in every iteration: it is the loop's min mod d. So the loop is emitted once per
 * residue r (an If on min & (d - 1)), and in the copy for r, with B = the ramp's base and
 * R = B mod d (known from r):
 *
 *   ramp(B, 1, L) / d  =  x((B - R) / d) + [(R + i) / d for lane i]     (B - R divisible by d)
 *   ramp(B, 1, L) % d  =  [(R + i) % d]
 *
 * (and `>> log2 d`, `& (d - 1)` alike, which are the same for d a power of two). The
 * index becomes a scalar plus constant lane offsets, which codegen reads with dense loads
 * and a shuffle (llvm.c, tine_cg_lane_offsets), and the parity test a constant mask.
 *
 * Exactness: the rewrite holds when no lane B + i wraps around i32. A base B is the loop
 * variable, or a Let inside the loop bound to it plus a constant k (the unrolled vectors
 * of build.c), plus a constant c. Every lane of a vectorized loop's variable is a
 * coordinate of its range [min, min + extent), which lies in i32, so when 0 <= k + c and
 * k + c + L <= step no lane wraps; otherwise the copies run only when
 * [min + k + c, min + extent - 1 + k + c] lies in i32 (checked in i64), and the loop's
 * element-wise form (or the loop as it was, when it has none) runs when not. Divisors are powers of two up to 4 (x / 2, x / 4: the copies
 * multiply the loop's code by d) dividing the loop's step.
 *
 * Runs after simplify (which writes indices as one ramp of a scalar base) and simplifies
 * each copy again (the constant masks fold into their comparisons).
 */
#include "passes.h"

enum { MAX_D = 4 };

/* Let-bound variables inside the loop being specialized: var = loop var + k. */
typedef struct {
    const tine_expr_t *var;
    int64_t k;
    bool known;
} binding;

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_stmt *loop; /* the vectorized loop */
    binding *b;
    int nb, cap;
    /* collecting */
    int D;                 /* the largest divisor used (1: none) */
    int64_t kc_lo, kc_hi;  /* the least k + c, and the largest k + c + lanes, of the matches */
    /* rewriting */
    int r;                 /* the loop variable's residue mod D in this copy */
} spec;

static bool uniform_const(const tine_expr_t *e, int64_t *v) {
    if (e->op != TINE_OP_CONST || !(e->flags & TINE_F_UNIFORM)) return false;
    *v = (int64_t)(tine_i128)tine_const_value(e, 0);
    return true;
}

/* The offset k of a variable from the loop variable (false: unrelated or unknown). */
static bool var_offset(const spec *S, const tine_expr_t *w, int64_t *k) {
    for (int i = S->nb - 1; i >= 0; i--)
        if (S->b[i].var == w) {
            *k = S->b[i].k;
            return S->b[i].known;
        }
    if (w == S->loop->loop.var) {
        *k = 0;
        return true;
    }
    return false;
}

/* B = w + c with w the loop variable or a Let of it plus k: k + c. */
static bool base_offset(const spec *S, const tine_expr_t *B, int64_t *kc) {
    int64_t k, c = 0;
    if ((B->op == TINE_OP_ADD || B->op == TINE_OP_SUB) && uniform_const(B->ops[1], &c)) {
        if (B->op == TINE_OP_SUB) c = -c;
        B = B->ops[0];
    }
    if (B->op != TINE_OP_VAR || !var_offset(S, B, &k)) return false;
    *kc = k + c;
    return true;
}

/* Whether e is ramp(B, 1, L) op d (d a power of two, 2..MAX_D, dividing the loop's
 * step): the divisor, B's offset k + c, and whether op divides (else a remainder). */
static bool match(const spec *S, const tine_expr_t *e, int *d, int64_t *kc, bool *div) {
    if (e->type.lanes < 2 || e->type.kind != TINE_INT || e->type.bits != 32 || e->nops != 2) return false;
    const tine_expr_t *rp = e->ops[0];
    int64_t v, s;
    if (rp->op != TINE_OP_RAMP || !uniform_const(rp->ops[1], &s) || s != 1 || !uniform_const(e->ops[1], &v))
        return false;
    switch ((tine_op_t)e->op) {
    case TINE_OP_DIV: *div = true; break;
    case TINE_OP_MOD: *div = false; break;
    case TINE_OP_SHR: *div = true; v = v >= 0 && v < 3 ? (int64_t)1 << v : 0; break;
    case TINE_OP_AND: *div = false; v = v + 1; break;
    default: return false;
    }
    if (v < 2 || v > MAX_D || (v & (v - 1)) || S->loop->loop.step % v) return false;
    if (!base_offset(S, rp->ops[0], kc)) return false;
    *d = (int)v;
    return true;
}

/* ---- collecting ------------------------------------------------------------------------- */

static void collect_expr(spec *S, const tine_expr_t *e) {
    if (!e || e->nops == 0) return;
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        int d;
        int64_t kc;
        bool div;
        if (!match(S, order[i], &d, &kc, &div)) continue;
        if (d > S->D) S->D = d;
        if (kc < S->kc_lo) S->kc_lo = kc;
        if (kc + order[i]->type.lanes > S->kc_hi) S->kc_hi = kc + order[i]->type.lanes;
    }
    free(order);
}

static void push(spec *S, const tine_expr_t *var, const tine_expr_t *value) {
    if (S->nb == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 8;
        S->b = realloc(S->b, sizeof *S->b * (size_t)S->cap);
        TINE_CHECK_ALLOC(S->b != NULL);
    }
    int64_t kc = 0;
    bool known = value->type.lanes == 1 && base_offset(S, value, &kc);
    S->b[S->nb++] = (binding){var, kc, known};
}

/* Loops inside rebind their own variable: it is no longer related to ours. */
static void collect(spec *S, const tine_stmt *s) {
    if (!s) return;
    switch (s->kind) {
    case TINE_S_FOR:
        collect_expr(S, s->loop.min);
        collect_expr(S, s->loop.extent);
        collect(S, s->loop.body);
        break;
    case TINE_S_LET:
        collect_expr(S, s->let.value);
        push(S, s->let.var, s->let.value);
        collect(S, s->let.body);
        S->nb--;
        break;
    case TINE_S_STORE:
        collect_expr(S, s->store.index);
        collect_expr(S, s->store.value);
        break;
    case TINE_S_ALLOCATE:
        collect_expr(S, s->alloc.size);
        collect(S, s->alloc.body);
        break;
    case TINE_S_IF:
        collect_expr(S, s->if_.cond);
        collect(S, s->if_.then_);
        collect(S, s->if_.else_);
        break;
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++) collect(S, s->block.v[i]);
        break;
    case TINE_S_ASSERT: collect_expr(S, s->assert_.cond); break;
    case TINE_S_EVALUATE: collect_expr(S, s->eval.value); break;
    case TINE_S_FREE: break;
    }
}

/* ---- rewriting -------------------------------------------------------------------------- */

static tine_expr_t *ci32(spec *S, int64_t v, int lanes) {
    return tine_const_int(S->ctx, tine_type(TINE_INT, 32, lanes), v);
}

/* e's matches replaced by their values for the residue S->r. */
static tine_expr_t *rewrite_expr(spec *S, tine_expr_t *e) {
    if (!e || e->nops == 0) return e;
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n);
    tine_expr_t **made = malloc(sizeof *made * n), *ops[255]; /* a node's most operands (concat; an instruction has 6) */
    TINE_CHECK_ALLOC(made != NULL);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i];
        int d;
        int64_t kc;
        bool div;
        if (match(S, x, &d, &kc, &div)) {
            int L = x->type.lanes;
            int64_t R = (((S->r + kc) % d) + d) % d;
            uint64_t lanes[TINE_MAX_LANES];
            for (int j = 0; j < L; j++) lanes[j] = (uint64_t)(div ? (R + j) / d : (R + j) % d);
            tine_expr_t *C = tine_const_lanes(S->ctx, tine_type(TINE_INT, 32, L), lanes);
            if (div) {
                tine_expr_t *B = x->ops[0]->ops[0];
                tine_expr_t *q = tine_binary(S->ctx, TINE_OP_DIV, tine_binary(S->ctx, TINE_OP_SUB, B, ci32(S, R, 1)),
                                             ci32(S, d, 1));
                C = tine_binary(S->ctx, TINE_OP_ADD, tine_broadcast(S->ctx, q, L), C);
            }
            made[i] = C;
            continue;
        }
        bool ch = false;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = made[tine_topo_index(order, n, x->ops[j])];
            ch |= ops[j] != x->ops[j];
        }
        made[i] = ch ? tine_rebuild(S->ctx, x, ops) : x;
        TINE_ASSERT(made[i] != NULL);
    }
    tine_expr_t *r = made[n - 1];
    free(made);
    free(order);
    return r;
}

static tine_stmt *rewrite(spec *S, tine_stmt *s) {
    if (!s) return NULL;
    tine_stmt_pool *p = S->p;
    switch (s->kind) {
    case TINE_S_FOR:
        return tine_stmt_for_like(p, s, rewrite_expr(S, s->loop.min), rewrite_expr(S, s->loop.extent),
                                  rewrite(S, s->loop.body));
    case TINE_S_LET: {
        tine_expr_t *v = rewrite_expr(S, s->let.value);
        push(S, s->let.var, s->let.value);
        tine_stmt *b = rewrite(S, s->let.body);
        S->nb--;
        return tine_stmt_let(p, s->let.var, v, b);
    }
    case TINE_S_STORE:
        return tine_stmt_store(p, s->store.buffer, rewrite_expr(S, s->store.index), rewrite_expr(S, s->store.value));
    case TINE_S_ALLOCATE:
        return tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, rewrite_expr(S, s->alloc.size),
                                  rewrite(S, s->alloc.body));
    case TINE_S_IF:
        return tine_stmt_if(p, rewrite_expr(S, s->if_.cond), rewrite(S, s->if_.then_), rewrite(S, s->if_.else_));
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        for (int i = 0; i < s->block.n; i++) v[i] = rewrite(S, s->block.v[i]);
        tine_stmt *r = tine_stmt_block(p, v, s->block.n);
        free(v);
        return r;
    }
    case TINE_S_ASSERT: return tine_stmt_assert_like(p, s, rewrite_expr(S, s->assert_.cond));
    case TINE_S_EVALUATE: return tine_stmt_evaluate(p, rewrite_expr(S, s->eval.value));
    case TINE_S_FREE: return s;
    }
    TINE_ASSERT(!"unknown statement");
    return NULL;
}

/* ---- the pass ----------------------------------------------------------------------------- */

/* A vectorized loop: its copies per residue (and the loop as it was where a lane could
 * wrap), or the loop itself when nothing depends on its residue. */
static tine_stmt *loop_copies(tine_stmt_pool *p, tine_stmt *s) {
    tine_ctx_t *ctx = p->ctx;
    spec S = {.p = p, .ctx = ctx, .loop = s, .D = 1, .kc_lo = INT64_MAX, .kc_hi = INT64_MIN};
    collect(&S, s->loop.body);
    if (S.D == 1) {
        free(S.b);
        return s;
    }
    tine_type_t i32 = tine_type(TINE_INT, 32, 1), i64 = tine_type(TINE_INT, 64, 1);
    tine_expr_t *res = tine_binary(ctx, TINE_OP_AND, s->loop.min, tine_const_int(ctx, i32, S.D - 1));
    tine_stmt *r = NULL;
    for (int k = S.D - 1; k >= 0; k--) {
        S.r = k;
        S.nb = 0;
        tine_stmt *copy = tine_stmt_simplify(p, tine_stmt_for_like(p, s, s->loop.min, s->loop.extent,
                                                                   rewrite(&S, s->loop.body)));
        if (!r) r = copy; /* the last residue: what remains */
        else r = tine_stmt_if(p, tine_binary(ctx, TINE_OP_EQ, res, tine_const_int(ctx, i32, k)), copy, r);
    }
    free(S.b);
    /* kc_hi is the largest k + c + L: the lanes of v + k + c reach v + kc_hi - 1 */
    if (S.kc_lo < 0 || S.kc_hi > s->loop.step) {
        tine_expr_t *mn = tine_cast(ctx, i64, s->loop.min), *ex = tine_cast(ctx, i64, s->loop.extent);
        tine_expr_t *first = tine_binary(ctx, TINE_OP_ADD, mn, tine_const_int(ctx, i64, S.kc_lo));
        tine_expr_t *last = tine_binary(ctx, TINE_OP_ADD, tine_binary(ctx, TINE_OP_ADD, mn, ex),
                                        tine_const_int(ctx, i64, S.kc_hi - s->loop.step - 1));
        tine_expr_t *ok = tine_binary(ctx, TINE_OP_AND,
                                      tine_binary(ctx, TINE_OP_GE, first, tine_const_int(ctx, i64, INT32_MIN)),
                                      tine_binary(ctx, TINE_OP_LE, last, tine_const_int(ctx, i64, INT32_MAX)));
        /* the fallback runs one element at a time where the loop can (no gathers for a
           case that only coordinates near the ends of i32 reach) */
        tine_stmt *whole = s;
        if (s->loop.elem_body)
            whole = tine_stmt_simplify(p, tine_stmt_for(p, s->loop.elem_var, s->loop.min, s->loop.extent, 1,
                                                        TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, s->loop.name,
                                                        s->loop.elem_body));
        r = tine_stmt_if(p, ok, r, whole);
    }
    return r;
}

tine_stmt *tine_stmt_residues(tine_stmt_pool *p, tine_stmt *s) { return tine_stmt_map_vector_loops(p, s, loop_copies); }
