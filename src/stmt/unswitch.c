/* unswitch.c — a vectorized loop whose selects test a condition that is the same in every
 * iteration runs as one copy per value of the condition, behind an If.
 *
 * camera_pipe's full-resolution channels interleave their quads on the parity of y as well
 * as of x: red(x, y) = select(y % 2 == 0, ..., ...). Inside the loop over x the row's
 * parity is fixed, but a vector select computes both of its operands in every iteration and
 * then blends them (and LLVM rebuilds the condition's mask each time: its own unswitching
 * gives up on loops this large). Here the loop is emitted twice, `if (c) loop[c := true]
 * else loop[c := false]`, and each copy computes only the side it keeps: half of the
 * channel's demosaic per row.
 *
 * A condition qualifies when it is equal in every lane by construction (tine_one_lane
 * gives its one-lane form: broadcasts, uniform constants and arithmetic on them), reads no
 * buffer (the If evaluates it before the loop, which may run zero times, and a load there
 * could read outside its buffer), and uses no variable bound inside the loop (its own
 * variable, an inner loop's, a Let's). Selects are matched by that one-lane form, so a
 * test written at two widths in one body is one condition. Each loop is split on at most
 * MAX_SPLITS conditions (2^MAX_SPLITS copies), the most used first. Only a loop with no
 * loop inside is split: copying one that holds loops (a vectorized reduction whose terms
 * run reductions of their own, once per lane, in every part of a partitioned nest)
 * multiplied the function's loops by 4, and LLVM's loop passes take time superlinear in
 * the loops of a function (issue 30: 2,773 loops, over two minutes).
 *
 * Runs before selection (lifting sees only the kept side) and before the interpreter's
 * last look at the statement, so every path that runs a kernel runs the copies.
 */
#include "passes.h"

enum { MAX_SPLITS = 2, MAX_CANDS = 16 };

typedef struct {
    tine_expr_t *one; /* the condition's one-lane form */
    int uses;
} cand;

typedef struct {
    tine_ctx_t *ctx;
    const tine_expr_t **bound; /* variables bound inside the loop */
    int nbound, capbound;
    cand c[MAX_CANDS];
    int nc;
    /* rewriting */
    tine_expr_t *cond;
    bool value;
} unsw;

static void bind(unsw *U, const tine_expr_t *v) {
    if (!v) return;
    if (U->nbound == U->capbound) {
        U->capbound = U->capbound ? 2 * U->capbound : 16;
        U->bound = realloc(U->bound, sizeof *U->bound * (size_t)U->capbound);
        TINE_CHECK_ALLOC(U->bound != NULL);
    }
    U->bound[U->nbound++] = v;
}

static void collect_bound(void *user, const tine_stmt *s) {
    unsw *U = user;
    if (s->kind == TINE_S_FOR) {
        bind(U, s->loop.var);
        bind(U, s->loop.elem_var);
    } else if (s->kind == TINE_S_LET) {
        bind(U, s->let.var);
    }
}

/* The one-lane form of a select's condition when it qualifies, else NULL. */
static tine_expr_t *invariant_cond(unsw *U, tine_expr_t *c) {
    tine_expr_t *one = tine_one_lane(U->ctx, c);
    if (!one || one->op == TINE_OP_CONST) return NULL;
    uint32_t n;
    tine_expr_t **order = tine_topo(U->ctx, one, &n);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        if (order[i]->op == TINE_OP_LOAD) ok = false;
        if (order[i]->op == TINE_OP_VAR)
            for (int j = 0; j < U->nbound && ok; j++) ok = U->bound[j] != order[i];
    }
    free(order);
    return ok ? one : NULL;
}

static tine_expr_t *count_conds(void *user, tine_expr_t *e) {
    unsw *U = user;
    if (!e || e->nops == 0) return e;
    uint32_t n;
    tine_expr_t **order = tine_topo(U->ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (order[i]->op != TINE_OP_SELECT) continue;
        tine_expr_t *one = invariant_cond(U, order[i]->ops[0]);
        if (!one) continue;
        int j = 0;
        while (j < U->nc && U->c[j].one != one) j++;
        if (j == U->nc) {
            if (U->nc == MAX_CANDS) continue;
            U->c[U->nc++] = (cand){one, 0};
        }
        U->c[j].uses++;
    }
    free(order);
    return e;
}

/* e with every select on U->cond replaced by the side U->value keeps. */
static tine_expr_t *keep_side(void *user, tine_expr_t *e) {
    unsw *U = user;
    if (!e || e->nops == 0) return e;
    uint32_t n;
    tine_expr_t **order = tine_topo(U->ctx, e, &n);
    tine_expr_t **made = malloc(sizeof *made * n), *ops[256]; /* nops is a uint8_t */
    TINE_CHECK_ALLOC(made != NULL);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i];
        if (x->op == TINE_OP_SELECT && tine_one_lane(U->ctx, x->ops[0]) == U->cond) {
            made[i] = made[tine_topo_index(order, n, x->ops[U->value ? 1 : 2])];
            continue;
        }
        bool ch = false;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = made[tine_topo_index(order, n, x->ops[j])];
            ch |= ops[j] != x->ops[j];
        }
        made[i] = ch ? tine_rebuild(U->ctx, x, ops) : x;
        TINE_ASSERT(made[i] != NULL);
    }
    tine_expr_t *r = made[n - 1];
    free(made);
    free(order);
    return r;
}

static void count_loop(void *user, const tine_stmt *s) {
    if (s->kind == TINE_S_FOR) ++*(int *)user;
}

static tine_stmt *split(tine_stmt_pool *p, tine_stmt *loop, int depth) {
    if (depth == MAX_SPLITS) return loop;
    int loops = 0; /* the loop itself, and those inside it */
    tine_stmt_visit(loop, count_loop, &loops);
    if (loops > 1) return loop;
    unsw U = {.ctx = p->ctx};
    tine_stmt_visit(loop, collect_bound, &U);
    tine_stmt_map_exprs(p, loop->loop.body, count_conds, &U);
    int best = -1;
    for (int j = 0; j < U.nc; j++)
        if (best < 0 || U.c[j].uses > U.c[best].uses) best = j;
    tine_stmt *r = loop;
    if (best >= 0) {
        U.cond = U.c[best].one;
        tine_stmt *copy[2];
        for (int v = 0; v < 2; v++) {
            U.value = v;
            copy[v] = split(p, tine_stmt_for_like(p, loop, loop->loop.min, loop->loop.extent,
                                                  tine_stmt_map_exprs(p, loop->loop.body, keep_side, &U)),
                            depth + 1);
        }
        r = tine_stmt_if(p, U.cond, copy[1], copy[0]);
    }
    free(U.bound);
    return r;
}

static tine_stmt *unswitch_loop(tine_stmt_pool *p, tine_stmt *loop) { return split(p, loop, 0); }

tine_stmt *tine_stmt_unswitch(tine_stmt_pool *p, tine_stmt *s) { return tine_stmt_map_vector_loops(p, s, unswitch_loop); }
