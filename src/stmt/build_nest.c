/* build_nest.c — a stage's loops, from its list (tine_stage.loops, outermost first): the
 * plain nest the schedule's unroll, tile, partition and parallel describe (one loop per
 * coordinate, the last outermost), or the list split, fuse and reorder made
 * (pipeline/kernel_loops.c). One walker, gen(), builds either: the vector loop (the
 * first coordinate's, or the inner loop of its split) as a run of whole vectors and the
 * last one shifted back (xrun), every other loop as a loop over its variable; at the
 * innermost point, the reductions and the store (build_reduce.c), and at the loops other
 * stages are computed at, their rows (below).
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


/* The store of the body at the current coordinates, inside its reductions. */
static tine_stmt *rpoint(builder *b, bool vector) {
    return tine_build_reductions(b, vector ? &b->reds : &b->reds1, -1, tine_build_store(b, vector));
}

/* The loops inside the vector loop (a reshaped nest's), then the store. */
static tine_stmt *point(builder *b, bool vector) { return gen(b, b->xpos + 1, vector); }

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

/* ---- compute_at: the rows of a stage computed at another's loop, inside that loop ------
 *
 * compute_at (sliding windows, kernel_slide.c): a stage f computed at g.y has no nest of
 * its own at the root. Inside g's loop over y (in each unrolled row, in every part a
 * partitioned loop becomes: rows still run in increasing order), before g's inner loops,
 * f's nest runs over the rows of g's window at y not computed at an earlier iteration:
 *
 *   let $.f$y0 = select(y == $g$min1, lo(y), max(lo(y), hi(y) - a + 1))
 *     for f.y: $.f$c1 in [$.f$y0, hi(y) + 1)      (f's nest, its own coordinates $.f.c0 ...)
 *       store f[... + (($.f$c1 - $f$min1) & (F - 1)) * $f$stride1] = ...
 *
 * with lo(y), hi(y) the window (a*y + base + lo ... + hi) and F its folded height: g's
 * loads of f read row r at (r - $f$min1) & (F - 1), and f's buffer holds
 * min(F, extent) rows. The rows are f's coordinate fold_dim (here 1); each coordinate
 * after it is a slice: f's loop runs over the one value g reads, and the index has no
 * term for it (the buffer keeps one slice; the window restarts when it changes). f's
 * coordinates are renamed so that no loop variable of f shadows one of g's (partitioning
 * and hoisting see distinct variables).
 *
 * compute_at f g.yo (yo the outer loop of a split of y, t->at_strip > 0): the same, once
 * per strip before its inner loops, with lo taken at the strip's first row y0 and hi at
 * its last y1 (the fold covers the strip's window): rows [max(lo(y0), hi(y0 - 1) + 1),
 * hi(y1)], the whole window at the first strip.
 */
/* Channel tiles: the range of b's first coordinate that the current tile covers (a
 * split's block, or b's own range when b is itself computed per tile). */
static tine_expr_t *tile_first(builder *b, const tine_stage *t) { return t->c_split ? b->blo[0] : b->lo[0]; }
static tine_expr_t *tile_ext(builder *b, const tine_stage *t) { return t->c_split ? b->bext[0] : b->ext[0]; }

/* e (of the stage's coordinate yv and constants: a window's end) at y = v. */
static tine_expr_t *at_y(builder *b, tine_expr_t *e, tine_expr_t *yv, tine_expr_t *v) {
    return tine_replace(b->ctx, e, yv, v);
}

/* t's nest (builder nb) over the rows [from, hi] of its window, y0 bound to the first. The
 * rows are clamped to t's region: a read inside a reduction that may be empty (or under
 * any condition bounds inference sees through) is in the window but not in the region,
 * and t's buffer, min(F, extent) rows, has no room for it; such a row is never read. */
static tine_stmt *window_rows(builder *b, builder *nb, int last, tine_expr_t *y0, tine_expr_t *from, tine_expr_t *hi) {
    tine_expr_t *rmin = nb->min[last], *rmax = sub(b, add(b, rmin, nb->extent[last]), ci(b, 1));
    from = tine_binary(b->ctx, TINE_OP_MAX, from, rmin);
    hi = tine_binary(b->ctx, TINE_OP_MIN, hi, rmax);
    nb->lo[last] = y0;
    nb->ext[last] = sub(b, add(b, hi, ci(b, 1)), y0);
    return tine_stmt_let(b->p, y0, from, tine_build_nest(nb));
}

/* Stage t (computed at coordinate d of b's stage): the rows of its window for y in
 * [yfirst, ylast] (one row, or a strip of a split) not computed at an earlier iteration
 * (the file's note). */
static tine_stmt *nested(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast) {
    tine_ctx_t *ctx = b->ctx;
    char vp[96];
    snprintf(vp, sizeof vp, "%s%s$", b->vp, t->name);
    builder nb;
    tine_build_init(&nb, b->p, b->k, b->plan, tn, vp);
    int last = t->fold_dim;
    if (t->ctile) { /* the tile of b's first coordinate, shifted by t's reads; its strides */
        nb.lo[0] = tine_build_org(b, t->name);
        nb.ext[0] = add(b, tile_ext(b, t), ci(b, t->c_hi - t->c_lo));
        for (int d = 1; d < t->dims; d++) nb.stride[d] = tine_build_tile_stride(ctx, t, d);
    }
    /* the slices after the rows: one each, as g reads them at this iteration */
    for (int j = last + 1; j < t->dims; j++) {
        nb.lo[j] = tine_build_xf(b, t->slide_outer[j]);
        nb.ext[j] = ci(b, 1);
    }
    tine_expr_t *first = tine_binary(ctx, TINE_OP_EQ, yfirst, b->min[d]);
    tine_expr_t *y0 = var(&nb, "y%d", 0);
    if (!t->slide_a) { /* several readers: [max(first(y), last(y - 1) + 1), last(y)] */
        char yn[16];
        snprintf(yn, sizeof yn, "$.c%d", d); /* the ends are in the stage's own coordinate */
        tine_expr_t *yv = tine_var(ctx, yn, b->i32);
        tine_expr_t *lo = at_y(b, t->slide_first, yv, yfirst), *hi = at_y(b, t->slide_last, yv, ylast);
        tine_expr_t *prev = at_y(b, t->slide_last, yv, sub(b, yfirst, ci(b, 1)));
        tine_expr_t *fresh = tine_binary(ctx, TINE_OP_MAX, lo, add(b, prev, ci(b, 1)));
        tine_stmt *s = window_rows(b, &nb, last, y0, tine_select(ctx, first, lo, fresh), hi);
        tine_build_free(&nb);
        const tine_expr_t *r = b->plan ? b->plan->read[tn] : NULL;
        return r && r->op != TINE_OP_CONST ? tine_stmt_if(b->p, (tine_expr_t *)r, s, NULL) : s;
    }
    /* the window at y: base + a*y + [lo, hi] */
    tine_expr_t *at = mul(b, ci(b, t->slide_a), yfirst), *atl = mul(b, ci(b, t->slide_a), ylast);
    if (t->slide_base) at = add(b, tine_build_xf(b, t->slide_base), at), atl = add(b, tine_build_xf(b, t->slide_base), atl);
    tine_expr_t *lo = add(b, at, ci(b, t->slide_lo)), *hi = add(b, atl, ci(b, t->slide_hi));
    /* the rows after those of the previous iteration (hi(y - 1) + 1, or lo(y) when the
       window jumps by more than its height), or the whole window at the loop's first row.
       Every row named is one the iteration reads (it fits i32), so the max of the two
       offsets is exact. */
    int64_t after = t->slide_hi - t->slide_a + 1;
    tine_expr_t *fresh = add(b, at, ci(b, after > t->slide_lo ? after : t->slide_lo));
    tine_stmt *s = window_rows(b, &nb, last, y0, tine_select(ctx, first, lo, fresh), hi);
    tine_build_free(&nb);
    const tine_expr_t *r = b->plan ? b->plan->read[tn] : NULL;
    if (r && r->op != TINE_OP_CONST) s = tine_stmt_if(b->p, (tine_expr_t *)r, s, NULL);
    return s;
}
/* Stage t's rows for b's rows [yfirst, ylast] (nested), then inner (b's loops that read
 * them); a channel-tiled t's origin bound around both. */
static tine_stmt *at_rows(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast,
                              tine_stmt *inner) {
    tine_stmt *s = tine_stmt_block2(b->p, nested(b, t, tn, d, yfirst, ylast), inner);
    if (!t->ctile) return s;
    return tine_stmt_let(b->p, tine_build_org(b, t->name), add(b, tile_first(b, t), ci(b, t->c_lo)), s);
}

/* Whether a stage is computed at this stage's loop over coordinate d. */
static bool computes_at(const builder *b, int d) {
    for (int t = 0; t < b->sn; t++) {
        const tine_stage *ts = tine_kernel_stage(b->k, t);
        if (ts->fold && ts->at == b->sn && ts->at_dim == d) return true;
    }
    return false;
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
            s = at_rows(b, ts, t, l->dim, b->blo[l->dim], ylast, s);
        }
    if (l->kind == TINE_KLOOP_WHOLE && l->dim > 0) /* a whole row loop: the rows of this row */
        for (int t = b->sn - 1; t >= 0; t--) {
            const tine_stage *ts = tine_kernel_stage(b->k, t);
            if (ts->fold && ts->at == b->sn && ts->at_dim == l->dim && !ts->at_strip)
                s = at_rows(b, ts, t, l->dim, b->coord[l->dim], b->coord[l->dim], s);
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
    if (U > 1 && l->dim == 1 && tine_build_jams(b) && !b->jrows && !computes_at(b, 1))
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

/* The stage's whole nest. The reductions (build_reduce.c) reach the loops inside the
 * vector loop through b->point. */
tine_stmt *tine_build_nest(builder *b) {
    b->point = point;
    return gen(b, 0, false);
}

