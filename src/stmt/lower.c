/* lower.c — the driver: a kernel from its stages to the statement code generation walks,
 * every pass in order in one function (tine_stmt_lower_kernel); and selection, done once
 * per distinct expression.
 */
#include "passes.h"

/* ---- selection ----------------------------------------------------------------------- */

/* Selected expressions by node: the nest repeats its bodies (whole vectors, the shifted
 * last one, the parts of a partitioned loop), and each distinct one is selected once. */
typedef struct {
    tine_ctx_t *ctx;
    tine_selection_t sel;
    const char *target;
    tine_u64map done; /* node id -> its selection */
} selector;

static tine_expr_t *select_one(void *user, tine_expr_t *e) {
    selector *s = user;
    uint64_t v;
    if (tine_u64map_get(&s->done, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
    /* one-lane expressions at the statement level (loop bounds, scalar lets, the narrow
       rows' stores) are LLVM's scalar code either way: only their FPIR ops are expanded */
    tine_expr_t *r = tine_select_expr(s->ctx, e, e->type.lanes == 1 ? TINE_SELECT_LLVM : s->sel, s->target);
    TINE_ASSERT(r != NULL); /* the target was checked before */
    r = tine_interleaved_loads(s->ctx, r); /* the pair instructions' operands, loaded whole */
    tine_u64map_put(&s->done, e->id, (uint64_t)(uintptr_t)r);
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

tine_stmt *tine_stmt_select(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target) {
    selector S = {.ctx = p->ctx, .sel = sel, .target = target};
    /* the code serves every run: selection sees no run's bounds facts (ARCHITECTURE.md),
       only what holds for every run, such as the ranges of the kernel's own buffers */
    int scope = tine_bounds_open(p->ctx, true);
    supply_buffer_ranges(p->ctx, s);
    tine_stmt *r = tine_stmt_map_exprs(p, s, select_one, &S);
    tine_bounds_close(p->ctx, scope);
    tine_u64map_free(&S.done);
    return r;
}

/* ---- the driver --------------------------------------------------------------------------- */

tine_stmt *tine_stmt_lower_kernel(tine_stmt_pool *p, tine_kernel_t *k, int sel, const char *target, tine_pass_fn after,
                                  void *user) {
#define PASS(name, expr)                                                                                               \
    do {                                                                                                               \
        s = (expr);                                                                                                    \
        if (after) after(user, name, s);                                                                               \
    } while (0)
    k = tine_kernel_for_target(k, target);            /* its functions `on` the target's instruction set */
    tine_stmt *s = tine_stmt_build_kernel(p, k);      /* stages + schedule + bounds inference -> one statement */
    if (!s) return NULL;
    if (after) after(user, "build", s);
    PASS("partition", tine_stmt_partition(p, k, s));  /* boundary conditions leave the steady state */
    PASS("simplify", tine_stmt_simplify(p, s));       /* index and bound arithmetic in linear form */
    PASS("residue", tine_stmt_residues(p, s));        /* vector loops per residue: x / 2 as dense reads */
    PASS("unswitch", tine_stmt_unswitch(p, s));       /* vector loops per value of an invariant select */
    if (sel < 0) return s;
    PASS("select", tine_stmt_select(p, s, (tine_selection_t)sel, target)); /* lift + lower, once per expression */
    PASS("reassoc", tine_stmt_reassociate(p, s));    /* a sum's invariant addends gathered, added last */
    PASS("hoist", tine_stmt_hoist(p, s));             /* loop invariants bound once, outside their loops */
    return s;
#undef PASS
}
