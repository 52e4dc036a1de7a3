/* build_window.c — the rows of a stage computed at another's loop, inside that loop.
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
#include "build.h"

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
tine_stmt *tine_build_at_rows(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast,
                              tine_stmt *inner) {
    tine_stmt *s = tine_stmt_block2(b->p, nested(b, t, tn, d, yfirst, ylast), inner);
    if (!t->ctile) return s;
    return tine_stmt_let(b->p, tine_build_org(b, t->name), add(b, tile_first(b, t), ci(b, t->c_lo)), s);
}

/* Whether a stage is computed at this stage's loop over coordinate d. */
bool tine_build_computes_at(const builder *b, int d) {
    for (int t = 0; t < b->sn; t++) {
        const tine_stage *ts = tine_kernel_stage(b->k, t);
        if (ts->fold && ts->at == b->sn && ts->at_dim == d) return true;
    }
    return false;
}

