/* build_body.c — a stage's bodies as its nest computes them: its coordinates renamed to
 * the builder's loop variables ($.c0 ..., or $.<vp>c0 ... for a stage computed at
 * another's loop), and the loads of the buffers compute_at folds (build_nest.c) indexed
 * by their rows modulo the fold, a channel-tiled one's from its tile's origin; the
 * builder that holds them (tine_build_init), and the store of a body at a point. */
#include "build.h"

/* The origin of a channel-tiled buffer (tine_stage.ctile) of stage `name` computed at b's
 * stage: the first of its first coordinate in the current tile; let-bound around the
 * tile's computation and b's reads of it (at_rows). */
tine_expr_t *tine_build_org(builder *b, const char *name) {
    char vn[160];
    snprintf(vn, sizeof vn, "$.%s%s$org", b->vp, name);
    return tine_var(b->ctx, vn, b->i32);
}

/* A channel-tiled buffer's stride of dimension d >= 1: it keeps min(extent0, ctile) of
 * its first coordinate (the plan's geometry, which the reference interpreter uses, is
 * the whole region's). */
tine_expr_t *tine_build_tile_stride(tine_ctx_t *ctx, const tine_stage *t, int d) {
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    tine_expr_t *s = tine_binary(ctx, TINE_OP_MIN, tine_kernel_geometry_var(ctx, t->name, TINE_KS_EXTENT, 0),
                                 tine_const_int(ctx, i32, t->ctile));
    for (int j = 1; j < d; j++) s = tine_binary(ctx, TINE_OP_MUL, s, tine_kernel_geometry_var(ctx, t->name, TINE_KS_EXTENT, j));
    return s;
}

static tine_expr_t *lanes_of(builder *b, tine_expr_t *e, int lanes) {
    return lanes > 1 ? tine_broadcast(b->ctx, e, lanes) : e;
}

/* A load's index (x0 - min0) + (x1 - min1) * stride1 + ... of a channel-tiled buffer
 * (the elaborator's form, before fold_index): rebuilt from the tile's origin and strides,
 * the rows modulo the fold, the slices after them dropped. */
static tine_expr_t *tile_index(builder *b, tine_expr_t *index, const tine_stage *t) {
    for (int d = t->dims - 1; d > t->fold_dim; d--) index = index->ops[0];
    int L = index->type.lanes;
    tine_expr_t *terms[4];
    for (int d = t->fold_dim; d >= 1; d--) {
        TINE_ASSERT(index->op == TINE_OP_ADD && index->ops[1]->op == TINE_OP_MUL && index->ops[1]->ops[0]->op == TINE_OP_SUB);
        terms[d] = index->ops[1]->ops[0];
        index = index->ops[0];
    }
    TINE_ASSERT(index->op == TINE_OP_SUB);
    tine_expr_t *r = tine_binary(b->ctx, TINE_OP_SUB, index->ops[0], lanes_of(b, tine_build_org(b, t->name), L));
    for (int d = 1; d <= t->fold_dim; d++) {
        tine_expr_t *row = terms[d];
        if (d == t->fold_dim)
            row = t->fold == 1 ? tine_const_int(b->ctx, row->type, 0)
                               : tine_binary(b->ctx, TINE_OP_AND, row, tine_const_int(b->ctx, row->type, t->fold - 1));
        r = tine_binary(b->ctx, TINE_OP_ADD, r, tine_binary(b->ctx, TINE_OP_MUL, row, lanes_of(b, tine_build_tile_stride(b->ctx, t, d), L)));
    }
    return r;
}

/* ---- the bodies: coordinates renamed, folded buffers indexed by their rows mod the fold */

/* The stage whose buffer a load reads, if that buffer is folded; NULL otherwise. */
static const tine_stage *folded(builder *b, const char *buffer) {
    for (int s = 0; s + 1 < tine_kernel_nstages(b->k); s++) {
        const tine_stage *t = tine_kernel_stage(b->k, s);
        if (t->fold && !strcmp(t->name, buffer)) return t;
    }
    return NULL;
}

/* A load's index (x0 - min0) + ... + (xl - minl) * stridel of stage t's folded buffer:
   the terms after its rows' (the slices the buffer keeps one of) dropped, the rows' offset
   taken modulo the fold: ((xr - minr) & (F - 1)) * strider. */
static tine_expr_t *fold_index(builder *b, tine_expr_t *index, const tine_stage *t) {
    int fold = t->fold;
    if (t->fold_dim == 0) { /* one coordinate (kernel_slide.c: its rows), no stride */
        TINE_ASSERT(t->dims == 1 && index->op == TINE_OP_SUB);
        return fold == 1 ? tine_const_int(b->ctx, index->type, 0)
                         : tine_binary(b->ctx, TINE_OP_AND, index, tine_const_int(b->ctx, index->type, fold - 1));
    }
    for (int d = t->dims - 1; d > t->fold_dim; d--) {
        TINE_ASSERT(index->op == TINE_OP_ADD);
        index = index->ops[0];
    }
    TINE_ASSERT(index->op == TINE_OP_ADD && index->ops[1]->op == TINE_OP_MUL && index->ops[1]->ops[0]->op == TINE_OP_SUB);
    tine_expr_t *m = index->ops[1], *row = m->ops[0];
    row = fold == 1 ? tine_const_int(b->ctx, row->type, 0) : tine_binary(b->ctx, TINE_OP_AND, row, tine_const_int(b->ctx, row->type, fold - 1));
    return tine_binary(b->ctx, TINE_OP_ADD, index->ops[0], tine_binary(b->ctx, TINE_OP_MUL, row, m->ops[1]));
}

/* e with the stage's coordinates $.cD renamed to the builder's and the loads of folded
 * buffers indexed by row modulo the fold. */
tine_expr_t *tine_build_xf(builder *b, tine_expr_t *e) {
    if (!e) return NULL;
    uint64_t hit;
    if (tine_u64map_get(&b->memo, e->id, &hit)) return (tine_expr_t *)(uintptr_t)hit;
    uint32_t n;
    tine_expr_t **order = tine_topo(b->ctx, e, &n), **map = tine_xmalloc(sizeof *map * n);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i], *ops[UINT8_MAX + 1], *r = x;
        if (tine_u64map_get(&b->memo, x->id, &hit)) {
            map[i] = (tine_expr_t *)(uintptr_t)hit;
            continue;
        }
        bool changed = false;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = map[tine_topo_index(order, n, x->ops[j])];
            changed |= ops[j] != x->ops[j];
        }
        int d = x->op == TINE_OP_VAR ? tine_kernel_coord_dim(tine_expr_name(x)) : -1;
        if (d >= 0 && d < b->st->dims) r = b->coord[d];
        else if (changed) r = tine_rebuild(b->ctx, x, ops);
        const tine_stage *t = x->op == TINE_OP_LOAD ? folded(b, tine_expr_name(x)) : NULL;
        if (t)
            r = tine_load(b->ctx, tine_expr_name(x), tine_type_with_lanes(x->type, 1),
                          t->ctile ? tile_index(b, r->ops[0], t) : fold_index(b, r->ops[0], t));
        map[i] = r;
        tine_u64map_put(&b->memo, x->id, (uint64_t)(uintptr_t)r);
    }
    tine_expr_t *r = map[n - 1];
    free(map);
    free(order);
    return r;
}

void tine_build_xf_reductions(builder *b, const tine_reductions *from, tine_reductions *to) {
    *to = *from;
    to->v = tine_xmalloc(sizeof *to->v * (size_t)(from->n + 1));
    for (int i = 0; i < from->n; i++) {
        tine_reduction R = from->v[i];
        R.lo = tine_build_xf(b, R.lo);
        R.hi = tine_build_xf(b, R.hi);
        R.init = tine_build_xf(b, R.init);
        R.update = tine_build_xf(b, R.update);
        R.body = tine_build_xf(b, R.body);
        to->v[i] = R;
    }
}

/* ---- the builder ----------------------------------------------------------------------- */

/* A builder of stage sn over its region (vp: the loop variables' prefix). */
void tine_build_init(builder *b, tine_stmt_pool *p, const tine_kernel_t *k, const tine_kernel_plan_t *plan, int sn,
                     const char *vp) {
    *b = (builder){.p = p, .ctx = tine_kernel_ctx(k), .k = k, .plan = plan, .st = tine_kernel_stage(k, sn), .sn = sn, .vp = vp};
    b->i32 = tine_type(TINE_INT, 32, 1);
    for (int d = 0; d < b->st->dims; d++) {
        b->min[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_MIN, d)->var;
        b->extent[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_EXTENT, d)->var;
        b->stride[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_STRIDE, d)->var;
        b->coord[d] = var(b, "c%d", d & 3);
        b->lo[d] = b->min[d];
        b->ext[d] = b->extent[d];
    }
    b->body = tine_build_xf(b, b->st->body);
    b->body1 = tine_build_xf(b, b->st->body1);
    tine_build_xf_reductions(b, &b->st->reds, &b->reds);
    tine_build_xf_reductions(b, &b->st->reds1, &b->reds1);
    b->rvec = tine_xcalloc((size_t)b->st->nrvec + 1, sizeof *b->rvec);
    for (int k = 0; k < b->st->nrvec; k++) {
        b->rvec[k] = b->st->rvec[k];
        tine_build_xf_reductions(b, &b->st->rvec[k].vec, &b->rvec[k].vec);
        tine_build_xf_reductions(b, &b->st->rvec[k].tail, &b->rvec[k].tail);
    }
}

void tine_build_free(builder *b) {
    free(b->reds.v);
    free(b->reds1.v);
    for (int k = 0; k < b->st->nrvec; k++) {
        free(b->rvec[k].vec.v);
        free(b->rvec[k].tail.v);
    }
    free(b->rvec);
    tine_u64map_free(&b->memo);
}

/* The store of the body (vector or one lane) at the current coordinates (its loop
 * reductions' results bound around it). */
tine_stmt *tine_build_store(builder *b, bool vector) {
    tine_expr_t *base = sub(b, b->coord[0], b->min[0]);
    if (b->st->ctile) { /* the tile's origin: $.<vp>org, vp "<g's vp><name>$" */
        char vn[112];
        snprintf(vn, sizeof vn, "$.%sorg", b->vp);
        base = sub(b, b->coord[0], tine_var(b->ctx, vn, b->i32));
    }
    if (b->st->fold && b->st->fold_dim == 0) /* one coordinate, its rows: never a vector (kernel_slide.c) */
        base = b->st->fold == 1 ? ci(b, 0) : tine_binary(b->ctx, TINE_OP_AND, base, ci(b, b->st->fold - 1));
    int dims = b->st->fold ? b->st->fold_dim + 1 : b->st->dims; /* a folded buffer: one slice of the later ones */
    for (int d = 1; d < dims; d++) {
        tine_expr_t *row = sub(b, b->coord[d], b->min[d]);
        if (b->st->fold && d == b->st->fold_dim) /* one row kept: always row 0 */
            row = b->st->fold == 1 ? ci(b, 0) : tine_binary(b->ctx, TINE_OP_AND, row, ci(b, b->st->fold - 1));
        base = add(b, base, mul(b, row, b->stride[d]));
    }
    int lanes = vector ? b->st->lanes : 1;
    tine_expr_t *idx = lanes > 1 ? tine_ramp(b->ctx, base, ci(b, 1), lanes) : base;
    return tine_stmt_store(b->p, b->st->name, idx, vector ? b->body : b->body1);
}
