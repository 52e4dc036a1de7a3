/* select.c — the statement passes that choose instructions: selection of every expression
 * (tine_stmt_select, once per distinct expression, with the ranges the kernel's own
 * buffers hold), then the interleaved loads it leaves read whole (tine_stmt_interleave).
 * The compile driver (src/driver/compile.c) runs them in that order.
 */
#include "passes.h"

/* A rewrite of every expression of a statement, done once per distinct node: the nest
 * repeats its bodies (whole vectors, the shifted last one, the parts of a partitioned
 * loop), and each distinct one is rewritten once. */
typedef struct {
    tine_expr_t *(*fn)(void *user, tine_expr_t *e);
    void *user;
    tine_u64map done; /* node id -> its rewrite */
} memo;

static tine_expr_t *memo_one(void *user, tine_expr_t *e) {
    memo *M = user;
    uint64_t v;
    if (tine_u64map_get(&M->done, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
    tine_expr_t *r = M->fn(M->user, e);
    tine_u64map_put(&M->done, e->id, (uint64_t)(uintptr_t)r);
    return r;
}

static tine_stmt *map_once(tine_stmt_pool *p, tine_stmt *s, tine_expr_t *(*fn)(void *, tine_expr_t *), void *user) {
    memo M = {.fn = fn, .user = user};
    tine_stmt *r = tine_stmt_map_exprs(p, s, memo_one, &M);
    tine_u64map_free(&M.done);
    return r;
}

/* ---- selection ----------------------------------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    tine_selection_t sel;
    const char *target;
} selector;

static tine_expr_t *select_one(void *user, tine_expr_t *e) {
    selector *s = user;
    /* one-lane expressions at the statement level (loop bounds, scalar lets, the narrow
       rows' stores) are LLVM's scalar code either way: only their FPIR ops are expanded */
    tine_expr_t *r = tine_select_expr(s->ctx, e, e->type.lanes == 1 ? TINE_SELECT_LLVM : s->sel, s->target);
    TINE_ASSERT(r != NULL); /* the target was checked before */
    return r;
}

/* What the stores into each buffer show of its elements: every value stored in it lies in
 * the union of the stored expressions' ranges, and its loads read only stored values, so
 * a stage whose values stay narrow (a stencil's u16 row of sums below 2^14) is read as
 * such. Facts of every run (no run's values are in view), supplied for selection. Two
 * passes, so that a buffer computed from another's loads sees that one's range too. */
typedef struct {
    tine_ctx_t *ctx;
    int n;
    const char *name[64];
    tine_type_t type[64];
    tine_i128 lo[64], hi[64];
    bool known[64];
} buffer_ranges;

static void store_range(void *user, const tine_stmt *s) {
    buffer_ranges *B = user;
    if (s->kind != TINE_S_STORE) return;
    int k = 0;
    while (k < B->n && B->name[k] != s->store.buffer) k++;
    if (k == 64) return;
    tine_i128 lo, hi;
    bool known = tine_bounds(B->ctx, s->store.value, &lo, &hi);
    if (k == B->n) {
        B->n++;
        B->name[k] = s->store.buffer;
        B->type[k] = s->store.type;
        B->known[k] = known;
        B->lo[k] = lo;
        B->hi[k] = hi;
        return;
    }
    B->known[k] = B->known[k] && known;
    if (!known) return;
    if (lo < B->lo[k]) B->lo[k] = lo;
    if (hi > B->hi[k]) B->hi[k] = hi;
}

static void supply_buffer_ranges(tine_ctx_t *ctx, const tine_stmt *s) {
    for (int pass = 0; pass < 2; pass++) {
        buffer_ranges B = {.ctx = ctx};
        tine_stmt_visit(s, store_range, &B);
        for (int k = 0; k < B.n; k++) {
            tine_i128 tlo = tine_min_i128(B.type[k]), thi = tine_max_i128(B.type[k]);
            if (!B.known[k] || B.type[k].bits > 32 || (B.lo[k] <= tlo && B.hi[k] >= thi)) continue;
            tine_bounds_set_buffer(ctx, B.name[k], B.type[k], (int64_t)B.lo[k], (int64_t)B.hi[k]);
        }
    }
}

/* The facts of a check `v >= lo & v <= hi` on a scalar variable (a parameter's declared
 * range: plan.c), as a range of v; false for any other condition. */
static bool range_check(const tine_expr_t *c, const tine_expr_t **v, int64_t *lo, int64_t *hi) {
    if (c->op != TINE_OP_AND) return false;
    const tine_expr_t *ge = c->ops[0], *le = c->ops[1];
    if (ge->op != TINE_OP_GE || le->op != TINE_OP_LE || ge->ops[0] != le->ops[0] || ge->ops[0]->op != TINE_OP_VAR ||
        ge->ops[1]->op != TINE_OP_CONST || le->ops[1]->op != TINE_OP_CONST || ge->ops[0]->type.lanes != 1 ||
        ge->ops[0]->type.bits > 32)
        return false;
    *v = ge->ops[0];
    uint32_t a = (uint32_t)tine_const_value(ge->ops[1], 0), b = (uint32_t)tine_const_value(le->ops[1], 0);
    bool sgn = (*v)->type.kind == TINE_INT;
    int sh = 32 - (*v)->type.bits; /* sign-extended from the type's width */
    *lo = sgn ? (int64_t)((int32_t)(a << sh) >> sh) : (int64_t)a;
    *hi = sgn ? (int64_t)((int32_t)(b << sh) >> sh) : (int64_t)b;
    return true;
}

/* The ranges the run's first checks establish (the checks before any loop or store: a
 * failed one ends the run before anything is computed), supplied for selection. */
static void supply_checked_ranges(tine_ctx_t *ctx, const tine_stmt *s) {
    while (s) {
        if (s->kind == TINE_S_LET) {
            s = s->let.body;
            continue;
        }
        if (s->kind != TINE_S_BLOCK) return;
        const tine_stmt *next = NULL;
        for (int i = 0; i < s->block.n; i++) {
            const tine_stmt *c = s->block.v[i];
            const tine_expr_t *v;
            int64_t lo, hi;
            if (c->kind == TINE_S_ASSERT && range_check(c->assert_.cond, &v, &lo, &hi))
                tine_bounds_set_var(ctx, v, lo, hi);
            else if (c->kind != TINE_S_ASSERT) {
                if (i == s->block.n - 1) next = c;
                break;
            }
        }
        s = next;
    }
}

tine_stmt *tine_stmt_select(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target) {
    selector S = {.ctx = p->ctx, .sel = sel, .target = target};
    /* the code serves every run: selection sees no run's bounds facts (ARCHITECTURE.md),
       only what holds for every run, such as the ranges of the kernel's own buffers */
    int scope = tine_bounds_open(p->ctx, true);
    supply_buffer_ranges(p->ctx, s);
    supply_checked_ranges(p->ctx, s);
    tine_stmt *r = map_once(p, s, select_one, &S);
    tine_bounds_close(p->ctx, scope);
    return r;
}

/* ---- interleaved loads ----------------------------------------------------------------- */

static tine_expr_t *interleave_one(void *user, tine_expr_t *e) {
    return tine_interleaved_loads(user, e); /* the pair instructions' operands, loaded whole */
}

tine_stmt *tine_stmt_interleave(tine_stmt_pool *p, tine_stmt *s) { return map_once(p, s, interleave_one, p->ctx); }
