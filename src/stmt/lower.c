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

tine_stmt *tine_stmt_select(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target) {
    selector S = {.ctx = p->ctx, .sel = sel, .target = target};
    /* the code serves every run: selection sees no run's bounds facts (ARCHITECTURE.md) */
    int scope = tine_bounds_open(p->ctx, true);
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
    tine_stmt *s = tine_stmt_build_kernel(p, k);      /* stages + schedule + bounds inference -> one statement */
    if (!s) return NULL;
    if (after) after(user, "build", s);
    PASS("partition", tine_stmt_partition(p, k, s));  /* boundary conditions leave the steady state */
    PASS("simplify", tine_stmt_simplify(p, s));       /* index and bound arithmetic in linear form */
    PASS("residue", tine_stmt_residues(p, s));        /* vector loops per residue: x / 2 as dense reads */
    if (sel < 0) return s;
    PASS("select", tine_stmt_select(p, s, (tine_selection_t)sel, target)); /* lift + lower, once per expression */
    PASS("hoist", tine_stmt_hoist(p, s));             /* loop invariants bound once, outside their loops */
    return s;
#undef PASS
}
