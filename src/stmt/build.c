/* build.c — a stage's loop nest, as its schedule describes it, before any pass.
 *
 * The shape is documented in passes.h. The nest is symbolic in the stage buffer's
 * geometry, so one statement serves every run: the plan of a run (or, later, bounds
 * inference in the statement itself) supplies the values.
 *
 * The steps, each in its file, all sharing the builder of build.h: the builder and the
 * stage's bodies with its coordinates and folded buffers rewritten (build_body.c), the
 * reductions around each point (build_reduce.c), and the loops with the rows of the
 * stages computed at one of them (build_nest.c). This file assembles the kernel: the
 * plan, then each stage into its buffer.
 */
#include "build.h"

tine_stmt *tine_stmt_build_stage(tine_stmt_pool *p, const tine_kernel_t *k, int sn) {
    builder b;
    tine_build_init(&b, p, k, NULL, sn, "");
    tine_stmt *s = tine_build_nest(&b);
    tine_build_free(&b);
    return s;
}

/* Each stage in order into its buffer, inside the plan (checks, regions, sizes). A
 * scratch buffer is allocated around its stage and every later one, and freed after the
 * output; a stage nothing reads never runs. A stage computed at another's loop runs
 * inside that stage's nest; its buffer, allocated here, keeps min(fold, extent) rows of
 * its last coordinate. */
tine_stmt *tine_stmt_build_stages(tine_stmt_pool *p, const tine_kernel_t *k, const tine_kernel_plan_t *plan) {
    tine_ctx_t *ctx = p->ctx;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    int ns = tine_kernel_nstages(k);
    builder b;
    tine_build_init(&b, p, k, plan, ns - 1, "");
    tine_stmt *body = tine_build_nest(&b);
    tine_build_free(&b);
    for (int s = ns - 2; s >= 0; s--) {
        const tine_stage *st = tine_kernel_stage(k, s);
        const tine_expr_t *r = plan->read[s];
        bool never = r->op == TINE_OP_CONST && tine_const_value(r, 0) == 0;
        tine_stmt *nest = NULL;
        tine_expr_t *size = plan->size[s];
        if (st->fold) {
            int l = st->fold_dim;
            tine_expr_t *extent = (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_EXTENT, l)->var;
            tine_expr_t *rows = tine_binary(ctx, TINE_OP_MIN, extent, tine_const_int(ctx, i32, st->fold));
            tine_expr_t *stride = st->ctile ? tine_build_tile_stride(ctx, st, l)
                                            : (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_STRIDE, l)->var;
            size = tine_binary(ctx, TINE_OP_MUL, stride, rows);
        } else if (!never) {
            tine_build_init(&b, p, k, plan, s, "");
            nest = tine_build_nest(&b);
            tine_build_free(&b);
            if (r->op != TINE_OP_CONST) nest = tine_stmt_if(p, plan->read[s], nest, NULL);
        }
        tine_stmt *v[3] = {nest, body, tine_stmt_free(p, st->name)};
        body = tine_stmt_allocate(p, st->name, st->type, size, tine_stmt_block(p, v, 3));
    }
    return tine_stmt_plan_around(p, plan, body);
}

tine_stmt *tine_stmt_build_kernel(tine_stmt_pool *p, const tine_kernel_t *k) {
    tine_kernel_plan_t plan;
    if (tine_stmt_plan(p, k, &plan) != 0) return NULL;
    tine_stmt *s = tine_stmt_build_stages(p, k, &plan);
    tine_kernel_plan_free(&plan);
    return s;
}
