/* build_nest.c — a stage's loops, from its list (tine_stage.loops, outermost first): the
 * plain nest the schedule's unroll, tile, partition and parallel describe (one loop per
 * coordinate, the last outermost), or the list split, fuse and reorder made
 * (pipeline/kernel_loops.c). One walker, gen(), builds either: the vector loop (the
 * first coordinate's, or the inner loop of its split) as a run of whole vectors and the
 * last one shifted back (xrun), every other loop as a loop over its variable; at the
 * innermost point, the reductions and the store (build_reduce.c), and at the loops other
 * stages are computed at, their rows (build_window.c).
 *
 * A plain nest keeps three forms of its own (plain_loop): tiles of its first two
 * coordinates, rows unrolled and jammed (their reductions share one loop nest), and rows
 * unrolled with a guard. A reshaped nest unrolls any loop with a guard, and tiles as
 * split and reorder; the statements differ (variables, block counts), so the forms stay
 * apart while the code they produce is kept as it is.
 */
#include "build.h"

static tine_stmt *gen(builder *b, int pos, bool vector);

/* The loop's name in the statement: "<stage>.<loop>". */
static const char *loop_name(builder *b, const tine_kloop *l, char *buf, size_t n) {
    snprintf(buf, n, "%s.%s", b->st->name, l->name);
    return buf;
}

static tine_partition_mode loop_part(const tine_kloop *l) {
    return (tine_partition_mode)(l->partition ? l->partition - 1 : 0);
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

/* The store of the body at the current coordinates, inside its reductions. */
static tine_stmt *rpoint(builder *b, bool vector) {
    return tine_build_reductions(b, vector ? &b->reds : &b->reds1, -1, tine_build_store(b, vector));
}

/* The loops inside the vector loop (a reshaped nest's), then the store. */
tine_stmt *tine_build_point(builder *b, bool vector) { return gen(b, b->xpos + 1, vector); }

/* The vector loop's unroll, partition mode and name. */
static int xunroll(builder *b) { return tine_kloop_unroll(&b->st->loops[b->xpos]); }
static tine_partition_mode xpart(builder *b) { return loop_part(&b->st->loops[b->xpos]); }
static const char *xname(builder *b, char *buf, size_t n) { return loop_name(b, &b->st->loops[b->xpos], buf, n); }

/* The first coordinate over [start, start + w): whole vectors (`unroll` of them per
 * iteration, then one at a time), then the last vector shifted back to end at the edge
 * (it recomputes a few lanes; the body is pure); or one element at a time when w is
 * narrower than a vector. */
static tine_stmt *xrun(builder *b, tine_expr_t *start, tine_expr_t *w) {
    tine_stmt_pool *p = b->p;
    int L = b->st->lanes, U = xunroll(b);
    char nb[96];
    const char *nm = xname(b, nb, sizeof nb);
    tine_partition_mode part = xpart(b);
    tine_expr_t *c0 = b->coord[0], *vec_end = add(b, start, mul(b, tine_binary(b->ctx, TINE_OP_DIV, w, ci(b, L)), ci(b, L)));
    tine_stmt *vec[3] = {0}, *elem = tine_build_points(b, false, 0, NULL);
    tine_expr_t *from = start;
    if (U > 1) {
        /* U vectors per iteration: the loop variable steps by U * L, each vector a let of
           the coordinate at its offset (their reductions jammed: one loop nest) */
        tine_expr_t *v = var(b, "c%d_u", 0);
        tine_expr_t **xs = tine_xmalloc(sizeof *xs * (size_t)U);
        for (int u = 0; u < U; u++) xs[u] = add(b, v, ci(b, (int64_t)u * L));
        tine_expr_t *span = mul(b, tine_binary(b->ctx, TINE_OP_DIV, w, ci(b, (int64_t)U * L)), ci(b, (int64_t)U * L));
        vec[0] = tine_stmt_for(p, v, start, span, U * L, TINE_LOOP_VECTORIZED, part, nm, tine_build_points(b, true, U, xs));
        free(xs);
        from = add(b, start, span);
    }
    vec[1] = tine_stmt_for(p, c0, from, sub(b, vec_end, from), L, TINE_LOOP_VECTORIZED, part, nm, tine_build_points(b, true, 0, NULL));
    /* the last vector, shifted back to end at the edge: a loop of one iteration, so that
       partitioning treats it as any vector loop */
    tine_expr_t *ragged = tine_binary(b->ctx, TINE_OP_NE, tine_binary(b->ctx, TINE_OP_MOD, w, ci(b, L)), ci(b, 0));
    tine_stmt *last = tine_stmt_for(p, c0, sub(b, add(b, start, w), ci(b, L)), ci(b, L), L, TINE_LOOP_VECTORIZED, part,
                                    nm, tine_build_points(b, true, 0, NULL));
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
    int V = b->st->lanes * xunroll(b), B = (4096 + V - 1) / V * V;
    tine_expr_t *blk = var(b, "b%d", 0), *off = mul(b, blk, ci(b, B));
    tine_expr_t *w = tine_binary(b->ctx, TINE_OP_MIN, ci(b, B), sub(b, b->extent[0], off));
    /* (extent - 1) / B + 1 blocks: extent + B - 1 could wrap; `/` floors, so 0 for none */
    tine_expr_t *n = add(b, tine_binary(b->ctx, TINE_OP_DIV, sub(b, b->extent[0], ci(b, 1)), ci(b, B)), ci(b, 1));
    return tine_stmt_for(b->p, blk, ci(b, 0), n, 1, TINE_LOOP_PARALLEL, TINE_PARTITION_NEVER, NULL,
                         xrun(b, add(b, b->min[0], off), w));
}

/* ---- the walker: the loops of the list, outermost first -------------------------------- */

/* The body of loop pos at one value of its variable: a fused loop's coordinates, then the
 * loops inside. */
static tine_stmt *loop_body(builder *b, int pos, tine_expr_t *v, bool vector) {
    const tine_kloop *l = &b->st->loops[pos];
    tine_stmt *s = gen(b, pos + 1, vector);
    if (l->kind == TINE_KLOOP_OUTER) /* the strip's rows of the stages computed at this loop */
        for (int t = b->sn - 1; t >= 0; t--) {
            const tine_stage *ts = tine_kernel_stage(b->k, t);
            if (!ts->fold || ts->at != b->sn || !ts->at_strip || ts->at_loop != pos) continue;
            tine_expr_t *ylast = sub(b, add(b, b->blo[l->dim], b->bext[l->dim]), ci(b, 1));
            s = tine_build_at_rows(b, ts, t, l->dim, b->blo[l->dim], ylast, s);
        }
    if (l->kind == TINE_KLOOP_WHOLE && l->dim > 0) /* a whole row loop: the rows of this row */
        for (int t = b->sn - 1; t >= 0; t--) {
            const tine_stage *ts = tine_kernel_stage(b->k, t);
            if (ts->fold && ts->at == b->sn && ts->at_dim == l->dim && !ts->at_strip)
                s = tine_build_at_rows(b, ts, t, l->dim, b->coord[l->dim], b->coord[l->dim], s);
        }
    if (l->kind != TINE_KLOOP_FUSED) return s;
    /* v in [0, extent(d) * extent(d2)): d = v mod extent(d), d2 = v / extent(d) */
    int d = l->dim, d2 = l->dim2;
    s = tine_stmt_let(b->p, b->coord[d2], add(b, b->lo[d2], tine_binary(b->ctx, TINE_OP_DIV, v, b->ext[d])), s);
    return tine_stmt_let(b->p, b->coord[d], add(b, b->lo[d], tine_binary(b->ctx, TINE_OP_MOD, v, b->ext[d])), s);
}

/* ---- the forms of a plain nest's own ---------------------------------------------------- */

/* Tiles of TX x TY of the first two coordinates (loop pos is coordinate 1's, the vector
 * loop inside it): the tile's rows, each a run of the first coordinate. A stage computed
 * at another's loop or with stages computed at its own is never tiled. */
static tine_stmt *tile_rows(builder *b, int pos, tine_loop_kind outer, tine_partition_mode part, const char *nm) {
    tine_stmt_pool *p = b->p;
    int TX = b->st->tile[0], TY = b->st->tile[1], save = b->xpos;
    tine_expr_t *ty = var(b, "t%d", 1), *tx = var(b, "t%d", 0);
    tine_expr_t *x0 = add(b, b->min[0], mul(b, tx, ci(b, TX))), *y0 = add(b, b->min[1], mul(b, ty, ci(b, TY)));
    tine_expr_t *w = tine_binary(b->ctx, TINE_OP_MIN, ci(b, TX), sub(b, b->extent[0], mul(b, tx, ci(b, TX))));
    tine_expr_t *h = tine_binary(b->ctx, TINE_OP_MIN, ci(b, TY), sub(b, b->extent[1], mul(b, ty, ci(b, TY))));
    b->xpos = pos + 1;
    tine_stmt *rows = tine_stmt_for(p, b->coord[1], y0, h, 1, TINE_LOOP_SERIAL, part, nm, xrun(b, x0, w));
    b->xpos = save;
    tine_expr_t *ntx = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->extent[0], ci(b, TX - 1)), ci(b, TX));
    tine_expr_t *nty = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->extent[1], ci(b, TY - 1)), ci(b, TY));
    tine_stmt *cols = tine_stmt_for(p, tx, ci(b, 0), ntx, 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, NULL, rows);
    return tine_stmt_for(p, ty, ci(b, 0), nty, 1, outer, TINE_PARTITION_NEVER, NULL, cols);
}

/* Rows jammed (unroll-and-jam; loop pos is coordinate 1's): U whole rows per iteration,
 * computed together by the runs of the first coordinate (tine_build_points), their
 * reductions sharing one loop nest; then the extent mod U rows left, one at a time. */
static tine_stmt *jammed_rows(builder *b, int pos, int U, tine_loop_kind outer, tine_partition_mode part,
                              const char *nm) {
    tine_stmt_pool *p = b->p;
    tine_expr_t *o = var(b, "c%d_u", 1), *full = tine_binary(b->ctx, TINE_OP_DIV, b->ext[1], ci(b, U));
    tine_expr_t **rows = tine_xmalloc(sizeof *rows * (size_t)U);
    for (int u = 0; u < U; u++) rows[u] = add(b, add(b, b->lo[1], mul(b, o, ci(b, U))), ci(b, u));
    b->jrows = U;
    b->jrow = rows;
    tine_stmt *inner = gen(b, pos + 1, false);
    b->jrows = 0;
    b->jrow = NULL;
    free(rows);
    tine_expr_t *done = mul(b, full, ci(b, U));
    tine_stmt *v[2] = {tine_stmt_for(p, o, ci(b, 0), full, 1, outer, part, nm, inner),
                       tine_stmt_for(p, b->coord[1], add(b, b->lo[1], done), sub(b, b->ext[1], done), 1, outer,
                                     TINE_PARTITION_NEVER, nm, loop_body(b, pos, b->coord[1], false))};
    return tine_stmt_block(p, v, 2);
}

/* U rows of coordinate d per iteration (loop pos), each guarded by the extent. */
static tine_stmt *unrolled_rows(builder *b, int pos, int U, tine_loop_kind outer, tine_partition_mode part,
                                const char *nm) {
    tine_stmt_pool *p = b->p;
    int d = b->st->loops[pos].dim;
    tine_expr_t *o = var(b, "c%d_u", d & 3), *end = add(b, b->lo[d], b->ext[d]);
    tine_stmt **rows = tine_xmalloc(sizeof *rows * (size_t)U);
    for (int u = 0; u < U; u++) {
        tine_expr_t *c = add(b, add(b, b->lo[d], mul(b, o, ci(b, U))), ci(b, u));
        rows[u] = tine_stmt_let(p, b->coord[d], c,
                                tine_stmt_if(p, tine_binary(b->ctx, TINE_OP_LT, b->coord[d], end),
                                             loop_body(b, pos, b->coord[d], false), NULL));
    }
    tine_expr_t *n = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->ext[d], ci(b, U - 1)), ci(b, U));
    tine_stmt *s = tine_stmt_for(p, o, ci(b, 0), n, 1, outer, part, nm, tine_stmt_block(p, rows, U));
    free(rows);
    return s;
}

/* Loop pos of a plain nest (not the vector loop) in one of its own forms, or NULL: the
 * loop is an ordinary one (gen). */
static tine_stmt *plain_loop(builder *b, int pos) {
    const tine_kloop *l = &b->st->loops[pos];
    tine_loop_kind outer = l->parallel ? TINE_LOOP_PARALLEL : TINE_LOOP_SERIAL;
    char nb[96];
    const char *nm = loop_name(b, l, nb, sizeof nb);
    tine_partition_mode part = loop_part(l);
    if (l->dim == 1 && b->st->tile[0]) return tile_rows(b, pos, outer, part, nm);
    int U = tine_kloop_unroll(l);
    if (U > 1 && l->dim == 1 && tine_build_jams(b) && !b->jrows && !tine_build_computes_at(b, 1))
        return jammed_rows(b, pos, U, outer, part, nm);
    if (U > 1) return unrolled_rows(b, pos, U, outer, part, nm);
    return NULL;
}

/* The nest from loop pos inwards. A loop that is not the vector loop (nor in a form of a
 * plain nest's own) runs its variable v over [lo, lo + ext) one value at a time, or U
 * values per iteration, each guarded by the extent (unroll). */
static tine_stmt *gen(builder *b, int pos, bool vector) {
    if (pos == b->st->nloops) return rpoint(b, vector);
    tine_stmt_pool *p = b->p;
    const tine_kloop *l = &b->st->loops[pos];
    int d = l->dim, N = l->factor;
    if (tine_kloops_is_vector(l)) {
        int save = b->xpos;
        b->xpos = pos;
        tine_stmt *s = l->kind == TINE_KLOOP_INNER ? xrun(b, b->blo[0], b->bext[0])
                       : l->parallel          ? xblocks(b)
                                              : xrun(b, b->lo[0], b->ext[0]);
        b->xpos = save;
        return s;
    }
    tine_stmt *own = b->st->reshaped ? NULL : plain_loop(b, pos);
    if (own) return own;
    tine_expr_t *v, *lo, *ext;
    switch (l->kind) {
    case TINE_KLOOP_OUTER: /* blocks of N: (ext - 1) / N + 1 of them (ext + N - 1 could wrap) */
        v = var(b, "o%d", d);
        lo = ci(b, 0);
        ext = add(b, tine_binary(b->ctx, TINE_OP_DIV, sub(b, b->ext[d], ci(b, 1)), ci(b, N)), ci(b, 1));
        b->blo[d] = add(b, b->lo[d], mul(b, v, ci(b, N)));
        b->bext[d] = tine_binary(b->ctx, TINE_OP_MIN, ci(b, N), sub(b, b->ext[d], mul(b, v, ci(b, N))));
        break;
    case TINE_KLOOP_INNER:
        v = b->coord[d];
        lo = b->blo[d];
        ext = b->bext[d];
        break;
    case TINE_KLOOP_FUSED:
        v = var(b, "f%d", d);
        lo = ci(b, 0);
        ext = mul(b, b->ext[d], b->ext[l->dim2]);
        break;
    default:
        v = b->coord[d];
        lo = b->lo[d];
        ext = b->ext[d];
    }
    char nb[96];
    loop_name(b, l, nb, sizeof nb);
    tine_loop_kind kind = l->parallel ? TINE_LOOP_PARALLEL : TINE_LOOP_SERIAL;
    tine_partition_mode part = loop_part(l);
    int U = tine_kloop_unroll(l);
    if (U == 1) return tine_stmt_for(p, v, lo, ext, 1, kind, part, nb, loop_body(b, pos, v, vector));
    tine_expr_t *o = var(b, "u%d", pos), *end = add(b, lo, ext);
    tine_stmt **body = tine_xmalloc(sizeof *body * (size_t)U);
    for (int u = 0; u < U; u++) {
        tine_expr_t *c = add(b, add(b, lo, mul(b, o, ci(b, U))), ci(b, u));
        body[u] = tine_stmt_let(p, v, c, tine_stmt_if(p, tine_binary(b->ctx, TINE_OP_LT, v, end), loop_body(b, pos, v, vector), NULL));
    }
    tine_expr_t *n = add(b, tine_binary(b->ctx, TINE_OP_DIV, sub(b, ext, ci(b, 1)), ci(b, U)), ci(b, 1));
    tine_stmt *s = tine_stmt_for(p, o, ci(b, 0), n, 1, kind, part, nb, tine_stmt_block(p, body, U));
    free(body);
    return s;
}

/* The stage's whole nest. */
tine_stmt *tine_build_nest(builder *b) { return gen(b, 0, false); }

