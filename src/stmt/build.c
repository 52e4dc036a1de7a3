/* build.c — a stage's loop nest, as its schedule describes it, before any pass.
 *
 * The shape is documented in passes.h. The nest is symbolic in the stage buffer's
 * geometry, so one statement serves every run: the plan of a run (or, later, bounds
 * inference in the statement itself) supplies the values.
 */
#include "passes.h"

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_kernel_t *k;
    const tine_stage *st;
    int sn;
    tine_expr_t *min[4], *extent[4], *stride[4], *coord[4];
    tine_type_t i32;
} builder;

static tine_expr_t *ci(builder *b, int64_t v) { return tine_const_int(b->ctx, b->i32, v); }
static tine_expr_t *add(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_ADD, x, y); }
static tine_expr_t *sub(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_SUB, x, y); }
static tine_expr_t *mul(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_MUL, x, y); }

static const char *loop_name(builder *b, int d, char *buf, size_t n) {
    const char *c = b->st->coord[d];
    if (c) snprintf(buf, n, "%s.%s", b->st->name, c);
    else snprintf(buf, n, "%s.c%d", b->st->name, d);
    return buf;
}

/* ---- loop reductions ------------------------------------------------------------------ */

/* The index of an accumulator's lanes: ramp(0, 1, L), or 0 at one lane. */
static tine_expr_t *acc_index(builder *b, int lanes) {
    return lanes > 1 ? tine_ramp(b->ctx, ci(b, 0), ci(b, 1), lanes) : ci(b, 0);
}

static tine_stmt *reductions(builder *b, const tine_reductions *rs, int parent, tine_stmt *rest);

/* v (a vector) reduced by op to `lanes` lanes, halves combined: a log-depth tree of
 * whole-vector operations, the reassociation exact for integer sums (they wrap), min and
 * max. */
static tine_expr_t *fold(builder *b, tine_op_t op, tine_expr_t *v, int lanes) {
    for (int n = v->type.lanes; n > lanes; n /= 2)
        v = tine_binary(b->ctx, op, tine_slice(b->ctx, v, 0, 1, n / 2), tine_slice(b->ctx, v, n / 2, 1, n / 2));
    return v;
}

/* A reduction vectorized along its variable (tine_rvec) around `rest`: for each lane of
 * the stage's vector (coordinate 0 the variable $.x0), N terms at a time into a vector
 * accumulator, folded to one value, then the remaining terms one at a time; the lanes'
 * results are gathered in $.aN, which `rest` reads as the reduction's result:
 *
 *   allocate $.aN: T[L]
 *     for $.x0 in [$.c0, $.c0 + L)
 *       allocate $.vN: T[A]
 *         store $.vN[ramp(0, 1, A)] = init
 *         for.vectorized<N> S.k: $.rN in [lo, lo + max(hi - lo, 0) / N * N)
 *           let $.accN = $.vN[ramp(0, 1, A)]
 *             store $.vN[ramp(0, 1, A)] = $.accN + vector_reduce_add(term at ramp($.rN, 1, N), A)
 *         store $.aN[$.x0 - $.c0] = fold($.vN[ramp(0, 1, A)])
 *         free $.vN
 *       for $.rN in [lo + that, hi)
 *         let $.accN = $.aN[$.x0 - $.c0]
 *           store $.aN[$.x0 - $.c0] = $.accN + term at $.rN
 *     let $.redN = $.aN[ramp(0, 1, L)]
 *       rest
 *     free $.aN */
static tine_stmt *vreduction(builder *b, const tine_rvec *v, const tine_reductions *rs, int i, tine_stmt *rest) {
    const tine_reduction *R = &rs->v[i], *V = &v->vec.v[i], *T = &v->tail.v[i];
    tine_stmt_pool *p = b->p;
    tine_ctx_t *ctx = b->ctx;
    int L = R->acc->type.lanes, N = v->lanes, A = v->acc;
    char an[32], vn[32], ln[96];
    snprintf(an, sizeof an, "$.a%d", rs->base + i);
    snprintf(vn, sizeof vn, "$.v%d", rs->base + i);
    snprintf(ln, sizeof ln, "%s.%s", b->st->name, R->name);
    tine_type_t et = tine_type_with_lanes(R->acc->type, 1);
    tine_expr_t *v0 = tine_var(ctx, "$.x0", b->i32), *j = sub(b, v0, b->coord[0]);
    /* the vector part: N terms per step into A lanes */
    tine_expr_t *vidx = acc_index(b, A), *vcur = tine_load(ctx, vn, et, vidx);
    tine_expr_t *acc = V->acc, *upd = V->update;
    if (A < N) {
        char nm[32];
        snprintf(nm, sizeof nm, "$.acc%d", rs->base + i);
        acc = tine_var(ctx, nm, tine_type_with_lanes(et, A));
        tine_expr_t *terms = R->op == TINE_OP_ADD ? tine_vector_reduce_add(ctx, V->body, A) : fold(b, R->op, V->body, A);
        upd = tine_binary(ctx, R->op, acc, terms);
    }
    tine_stmt *vstep = tine_stmt_let(p, acc, vcur, tine_stmt_store(p, vn, vidx, upd));
    tine_expr_t *ext = tine_binary(ctx, TINE_OP_MAX, sub(b, R->hi, R->lo), ci(b, 0));
    tine_expr_t *vext = mul(b, tine_binary(ctx, TINE_OP_DIV, ext, ci(b, N)), ci(b, N));
    tine_stmt *vloop = tine_stmt_for(p, R->r, R->lo, vext, N, TINE_LOOP_VECTORIZED, TINE_PARTITION_NEVER, ln,
                                     reductions(b, &v->vec, i, vstep));
    tine_expr_t *scur = tine_load(ctx, an, et, j);
    tine_stmt *vpart[4] = {tine_stmt_store(p, vn, vidx, tine_broadcast(ctx, T->init, A)), vloop,
                           tine_stmt_store(p, an, j, fold(b, R->op, vcur, 1)), tine_stmt_free(p, vn)};
    /* the remaining terms, one at a time */
    tine_stmt *tstep = tine_stmt_let(p, T->acc, scur, tine_stmt_store(p, an, j, T->update));
    tine_stmt *tloop = tine_stmt_for(p, R->r, add(b, R->lo, vext), sub(b, ext, vext), 1, TINE_LOOP_SERIAL,
                                     TINE_PARTITION_NEVER, NULL, reductions(b, &v->tail, i, tstep));
    tine_stmt *lane[2] = {tine_stmt_allocate(p, vn, et, ci(b, A), tine_stmt_block(p, vpart, 4)), tloop};
    tine_stmt *lanes = tine_stmt_for(p, v0, b->coord[0], ci(b, L), 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, NULL,
                                     tine_stmt_block(p, lane, 2));
    tine_expr_t *idx = acc_index(b, L);
    tine_stmt *all[3] = {lanes, tine_stmt_let(p, R->result, tine_load(ctx, an, et, idx), rest), tine_stmt_free(p, an)};
    return tine_stmt_allocate(p, an, et, ci(b, L), tine_stmt_block(p, all, 3));
}

/* One reduction around `rest` (which reads its result): the accumulator in scratch, the
 * loop, then its result bound. */
static tine_stmt *reduction(builder *b, const tine_reductions *rs, int i, tine_stmt *rest) {
    const tine_reduction *R = &rs->v[i];
    tine_stmt_pool *p = b->p;
    for (int k = 0; k < b->st->nrvec && R->parent < 0; k++)
        if (b->st->rvec[k].index == i && rs != &b->st->rvec[k].vec && rs != &b->st->rvec[k].tail)
            return vreduction(b, &b->st->rvec[k], rs, i, rest);
    int lanes = R->acc->type.lanes;
    char name[32];
    snprintf(name, sizeof name, "$.a%d", rs->base + i);
    tine_type_t et = tine_type_with_lanes(R->acc->type, 1);
    tine_expr_t *idx = acc_index(b, lanes), *cur = tine_load(b->ctx, name, et, idx);
    tine_stmt *step = tine_stmt_let(p, R->acc, cur, tine_stmt_store(p, name, idx, R->update));
    tine_stmt *loop = tine_stmt_for(p, R->r, R->lo, sub(b, R->hi, R->lo), 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER,
                                    NULL, reductions(b, rs, i, step));
    tine_stmt *v[4] = {tine_stmt_store(p, name, idx, R->init), loop, tine_stmt_let(p, R->result, cur, rest),
                       tine_stmt_free(p, name)};
    return tine_stmt_allocate(p, name, et, ci(b, lanes), tine_stmt_block(p, v, 4));
}

/* The reductions nested directly in `parent` (-1: the body's own) around rest, the first
 * outermost: they run in order, as the interpreter runs them. */
static tine_stmt *reductions(builder *b, const tine_reductions *rs, int parent, tine_stmt *rest) {
    for (int i = rs->n - 1; i >= 0; i--)
        if (rs->v[i].parent == parent) rest = reduction(b, rs, i, rest);
    return rest;
}

/* ---- the nest ------------------------------------------------------------------------- */

/* The store of the body (vector or one lane) at the current coordinates, inside its
 * reductions. */
static tine_stmt *point(builder *b, bool vector) {
    tine_expr_t *base = sub(b, b->coord[0], b->min[0]);
    for (int d = 1; d < b->st->dims; d++) base = add(b, base, mul(b, sub(b, b->coord[d], b->min[d]), b->stride[d]));
    int lanes = vector ? b->st->lanes : 1;
    tine_expr_t *idx = lanes > 1 ? tine_ramp(b->ctx, base, ci(b, 1), lanes) : base;
    tine_stmt *s = tine_stmt_store(b->p, b->st->name, idx, vector ? b->st->body : b->st->body1);
    return reductions(b, vector ? &b->st->reds : &b->st->reds1, -1, s);
}

/* The first coordinate over [start, start + w): whole vectors (`unroll` of them per
 * iteration, then one at a time), then the last vector shifted back to end at the edge
 * (it recomputes a few lanes; the body is pure); or one element at a time when w is
 * narrower than a vector. */
static tine_stmt *xrun(builder *b, tine_expr_t *start, tine_expr_t *w) {
    tine_stmt_pool *p = b->p;
    int L = b->st->lanes, U = b->st->unroll[0];
    char nb[96];
    const char *nm = loop_name(b, 0, nb, sizeof nb);
    tine_partition_mode part = (tine_partition_mode)b->st->partition[0];
    tine_expr_t *c0 = b->coord[0], *vec_end = add(b, start, mul(b, tine_binary(b->ctx, TINE_OP_DIV, w, ci(b, L)), ci(b, L)));
    tine_stmt *vec[3] = {0}, *elem = point(b, false);
    tine_expr_t *from = start;
    if (U > 1) {
        /* U vectors per iteration: the loop variable steps by U * L, each vector a let of
           the coordinate at its offset */
        tine_expr_t *v = tine_var(b->ctx, "$.c0_u", b->i32);
        tine_stmt **body = malloc(sizeof *body * (size_t)U);
        TINE_ASSERT(body != NULL);
        for (int u = 0; u < U; u++) body[u] = tine_stmt_let(p, c0, add(b, v, ci(b, (int64_t)u * L)), point(b, true));
        tine_expr_t *span = mul(b, tine_binary(b->ctx, TINE_OP_DIV, w, ci(b, (int64_t)U * L)), ci(b, (int64_t)U * L));
        vec[0] = tine_stmt_for(p, v, start, span, U * L, TINE_LOOP_VECTORIZED, part, nm, tine_stmt_block(p, body, U));
        free(body);
        from = add(b, start, span);
    }
    vec[1] = tine_stmt_for(p, c0, from, sub(b, vec_end, from), L, TINE_LOOP_VECTORIZED, part, nm, point(b, true));
    /* the last vector, shifted back to end at the edge: a loop of one iteration, so that
       partitioning treats it as any vector loop */
    tine_expr_t *ragged = tine_binary(b->ctx, TINE_OP_NE, tine_binary(b->ctx, TINE_OP_MOD, w, ci(b, L)), ci(b, 0));
    tine_stmt *last = tine_stmt_for(p, c0, sub(b, add(b, start, w), ci(b, L)), ci(b, L), L, TINE_LOOP_VECTORIZED, part,
                                    nm, point(b, true));
    vec[2] = tine_stmt_if(p, ragged, last, NULL);
    for (int i = 0; i < 3; i++) {
        tine_stmt *l = i == 2 ? last : vec[i];
        if (!l) continue;
        l->loop.elem_var = c0;
        l->loop.elem_body = elem;
    }
    /* narrower than a vector: never worth partitioning (it runs only below L elements) */
    tine_stmt *one = tine_stmt_for(p, c0, start, w, 1, TINE_LOOP_SERIAL, L > 1 ? TINE_PARTITION_NEVER : part, nm, elem);
    if (L == 1) return one;
    return tine_stmt_if(p, tine_binary(b->ctx, TINE_OP_GE, w, ci(b, L)), tine_stmt_block(p, vec, 3), one);
}

/* A one-dimensional stage's `parallel`: blocks of at least 4096 elements (whole
 * iterations of the vector loop), each a run of the first coordinate, the loop over the
 * blocks parallel. The blocks are disjoint, so are the chunks of the parallel loop. */
static tine_stmt *xblocks(builder *b) {
    int V = b->st->lanes * (b->st->unroll[0] > 1 ? b->st->unroll[0] : 1), B = (4096 + V - 1) / V * V;
    tine_expr_t *blk = tine_var(b->ctx, "$.b0", b->i32), *off = mul(b, blk, ci(b, B));
    tine_expr_t *w = tine_binary(b->ctx, TINE_OP_MIN, ci(b, B), sub(b, b->extent[0], off));
    /* (extent - 1) / B + 1 blocks: extent + B - 1 could wrap; `/` floors, so 0 for none */
    tine_expr_t *n = add(b, tine_binary(b->ctx, TINE_OP_DIV, sub(b, b->extent[0], ci(b, 1)), ci(b, B)), ci(b, 1));
    return tine_stmt_for(b->p, blk, ci(b, 0), n, 1, TINE_LOOP_PARALLEL, TINE_PARTITION_NEVER, NULL,
                         xrun(b, add(b, b->min[0], off), w));
}

/* Coordinate d over the buffer's region, the dimensions inside it. The last
 * coordinate's outermost loop is parallel when the schedule says so. */
static tine_stmt *dim(builder *b, int d) {
    tine_stmt_pool *p = b->p;
    bool last = d == b->st->dims - 1;
    if (d == 0) return last && b->st->parallel ? xblocks(b) : xrun(b, b->min[0], b->extent[0]);
    tine_loop_kind outer = last && b->st->parallel ? TINE_LOOP_PARALLEL : TINE_LOOP_SERIAL;
    char nb[96];
    const char *nm = loop_name(b, d, nb, sizeof nb);
    tine_partition_mode part = (tine_partition_mode)b->st->partition[d];
    if (d == 1 && b->st->tile[0]) {
        /* tiles of TX x TY: the tile's rows, each a run of the first coordinate */
        int TX = b->st->tile[0], TY = b->st->tile[1];
        tine_expr_t *ty = tine_var(b->ctx, "$.t1", b->i32), *tx = tine_var(b->ctx, "$.t0", b->i32);
        tine_expr_t *x0 = add(b, b->min[0], mul(b, tx, ci(b, TX))), *y0 = add(b, b->min[1], mul(b, ty, ci(b, TY)));
        tine_expr_t *w = tine_binary(b->ctx, TINE_OP_MIN, ci(b, TX), sub(b, b->extent[0], mul(b, tx, ci(b, TX))));
        tine_expr_t *h = tine_binary(b->ctx, TINE_OP_MIN, ci(b, TY), sub(b, b->extent[1], mul(b, ty, ci(b, TY))));
        tine_stmt *rows = tine_stmt_for(p, b->coord[1], y0, h, 1, TINE_LOOP_SERIAL, part, nm, xrun(b, x0, w));
        tine_expr_t *ntx = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->extent[0], ci(b, TX - 1)), ci(b, TX));
        tine_expr_t *nty = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->extent[1], ci(b, TY - 1)), ci(b, TY));
        tine_stmt *cols = tine_stmt_for(p, tx, ci(b, 0), ntx, 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, NULL, rows);
        return tine_stmt_for(p, ty, ci(b, 0), nty, 1, outer, TINE_PARTITION_NEVER, NULL, cols);
    }
    int U = b->st->unroll[d];
    if (U > 1) {
        /* U rows per iteration, each guarded by the extent */
        char vn[24];
        snprintf(vn, sizeof vn, "$.c%d_u", d & 3);
        tine_expr_t *o = tine_var(b->ctx, vn, b->i32), *end = add(b, b->min[d], b->extent[d]);
        tine_stmt **rows = malloc(sizeof *rows * (size_t)U);
        TINE_ASSERT(rows != NULL);
        for (int u = 0; u < U; u++) {
            tine_expr_t *c = add(b, add(b, b->min[d], mul(b, o, ci(b, U))), ci(b, u));
            rows[u] = tine_stmt_let(p, b->coord[d], c,
                                    tine_stmt_if(p, tine_binary(b->ctx, TINE_OP_LT, b->coord[d], end), dim(b, d - 1), NULL));
        }
        tine_expr_t *n = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->extent[d], ci(b, U - 1)), ci(b, U));
        tine_stmt *s = tine_stmt_for(p, o, ci(b, 0), n, 1, outer, part, nm, tine_stmt_block(p, rows, U));
        free(rows);
        return s;
    }
    return tine_stmt_for(p, b->coord[d], b->min[d], b->extent[d], 1, outer, part, nm, dim(b, d - 1));
}

tine_stmt *tine_stmt_build_stage(tine_stmt_pool *p, const tine_kernel_t *k, int sn) {
    builder b = {.p = p, .ctx = tine_kernel_ctx(k), .k = k, .st = tine_kernel_stage(k, sn), .sn = sn};
    b.i32 = tine_type(TINE_INT, 32, 1);
    for (int d = 0; d < b.st->dims; d++) {
        b.min[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_MIN, d)->var;
        b.extent[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_EXTENT, d)->var;
        b.stride[d] = (tine_expr_t *)tine_kernel_geometry(k, -1, sn, TINE_KS_STRIDE, d)->var;
        char vn[24];
        snprintf(vn, sizeof vn, "$.c%d", d & 3);
        b.coord[d] = tine_var(b.ctx, vn, b.i32);
    }
    return dim(&b, b.st->dims - 1);
}

/* The kernel: the plan (checks, regions, sizes), then each stage in order into its
 * buffer. A scratch buffer is allocated around its stage and every later one, and freed
 * after the output; a stage nothing reads never runs. */
tine_stmt *tine_stmt_build_kernel(tine_stmt_pool *p, const tine_kernel_t *k) {
    tine_kernel_plan_t plan;
    if (tine_stmt_plan(p, k, &plan) != 0) return NULL;
    int ns = tine_kernel_nstages(k);
    tine_stmt *body = tine_stmt_build_stage(p, k, ns - 1);
    for (int s = ns - 2; s >= 0; s--) {
        const tine_stage *st = tine_kernel_stage(k, s);
        const tine_expr_t *r = plan.read[s];
        bool never = r->op == TINE_OP_CONST && tine_const_value(r, 0) == 0;
        tine_stmt *nest = never ? NULL : tine_stmt_build_stage(p, k, s);
        if (nest && r->op != TINE_OP_CONST) nest = tine_stmt_if(p, plan.read[s], nest, NULL);
        tine_stmt *v[3] = {nest, body, tine_stmt_free(p, st->name)};
        body = tine_stmt_allocate(p, st->name, st->type, plan.size[s], tine_stmt_block(p, v, 3));
    }
    body = tine_stmt_plan_around(p, &plan, body);
    tine_kernel_plan_free(&plan);
    return body;
}
