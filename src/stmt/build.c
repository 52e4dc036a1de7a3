/* build.c — a stage's loop nest, as its schedule describes it, before any pass.
 *
 * The shape is documented in passes.h. The nest is symbolic in the stage buffer's
 * geometry, so one statement serves every run: the plan of a run (or, later, bounds
 * inference in the statement itself) supplies the values.
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
 * term for it (the buffer keeps one slice; the window restarts when it changes). f's coordinates are renamed so that no loop variable of f shadows
 * one of g's (partitioning and hoisting see distinct variables).
 *
 * compute_at f g.yo (yo the outer loop of a split of y, t->at_strip > 0): the same, once
 * per strip before its inner loops, with lo taken at the strip's first row y0 and hi at
 * its last y1 (the fold covers the strip's window): rows [max(lo(y0), hi(y0 - 1) + 1),
 * hi(y1)], the whole window at the first strip.
 */
#include "passes.h"

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_kernel_t *k;
    const tine_kernel_plan_t *plan; /* NULL: every stage is read (no guard) */
    const tine_stage *st;
    int sn;
    const char *vp;                 /* prefix of the loop variables: "" at the root, "f$" computed at another stage */
    tine_expr_t *min[4], *extent[4], *stride[4], *coord[4];
    tine_expr_t *lo[4], *ext[4];    /* the range each coordinate's loop runs over */
    tine_expr_t *blo[4], *bext[4];  /* a split coordinate: the block its outer loop is at */
    int xpos;                       /* a reshaped nest (st->loops): the vector loop's place */
    tine_expr_t *body, *body1;      /* the stage's bodies, coordinates renamed and folded loads indexed */
    tine_reductions reds, reds1;
    tine_rvec *rvec;                /* the stage's vectorized reductions, their bodies as body's */
    tine_u64map memo;
    tine_type_t i32;
    /* unroll-and-jam: rows of coordinate 1 whose points xrun computes together (their
       reductions share one loop nest), the row coordinate's value for each; 0: none */
    int jrows;
    tine_expr_t **jrow;
    /* jammed reductions chained into one accumulator (chain_sums): jinto[i] is the
       reduction whose accumulator reduction i adds into (i itself unless chained) */
    int *jinto;
} builder;

static tine_expr_t *ci(builder *b, int64_t v) { return tine_const_int(b->ctx, b->i32, v); }
static tine_expr_t *add(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_ADD, x, y); }
static tine_expr_t *sub(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_SUB, x, y); }
static tine_expr_t *mul(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_MUL, x, y); }

static tine_expr_t *var(builder *b, const char *fmt, int d) {
    char vn[96], f[32];
    snprintf(f, sizeof f, "$.%%s%s", fmt);
    snprintf(vn, sizeof vn, f, b->vp, d);
    return tine_var(b->ctx, vn, b->i32);
}

/* The origin of a channel-tiled buffer (tine_stage.ctile) of stage `name` computed at b's
 * stage: the first of its first coordinate in the current tile; let-bound around the
 * tile's computation and b's reads of it (at_rows). */
static tine_expr_t *org(builder *b, const char *name) {
    char vn[160];
    snprintf(vn, sizeof vn, "$.%s%s$org", b->vp, name);
    return tine_var(b->ctx, vn, b->i32);
}

/* A channel-tiled buffer's stride of dimension d >= 1: it keeps min(extent0, ctile) of
 * its first coordinate (the plan's geometry, which the reference interpreter uses, is
 * the whole region's). */
static tine_expr_t *tile_stride(tine_ctx_t *ctx, const tine_stage *t, int d) {
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
    tine_expr_t *r = tine_binary(b->ctx, TINE_OP_SUB, index->ops[0], lanes_of(b, org(b, t->name), L));
    for (int d = 1; d <= t->fold_dim; d++) {
        tine_expr_t *row = terms[d];
        if (d == t->fold_dim)
            row = t->fold == 1 ? tine_const_int(b->ctx, row->type, 0)
                               : tine_binary(b->ctx, TINE_OP_AND, row, tine_const_int(b->ctx, row->type, t->fold - 1));
        r = tine_binary(b->ctx, TINE_OP_ADD, r, tine_binary(b->ctx, TINE_OP_MUL, row, lanes_of(b, tile_stride(b->ctx, t, d), L)));
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
static tine_expr_t *xf(builder *b, tine_expr_t *e) {
    if (!e) return NULL;
    uint64_t hit;
    if (tine_u64map_get(&b->memo, e->id, &hit)) return (tine_expr_t *)(uintptr_t)hit;
    uint32_t n;
    tine_expr_t **order = tine_topo(b->ctx, e, &n), **map = malloc(sizeof *map * n);
    TINE_CHECK_ALLOC(map != NULL);
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

static void xf_reductions(builder *b, const tine_reductions *from, tine_reductions *to) {
    *to = *from;
    to->v = malloc(sizeof *to->v * (size_t)(from->n + 1));
    TINE_CHECK_ALLOC(to->v != NULL);
    for (int i = 0; i < from->n; i++) {
        tine_reduction R = from->v[i];
        R.lo = xf(b, R.lo);
        R.hi = xf(b, R.hi);
        R.init = xf(b, R.init);
        R.update = xf(b, R.update);
        R.body = xf(b, R.body);
        to->v[i] = R;
    }
}

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
        if (b->rvec[k].index == i && rs != &b->rvec[k].vec && rs != &b->rvec[k].tail)
            return vreduction(b, &b->rvec[k], rs, i, rest);
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

static tine_stmt *gen(builder *b, int pos, bool vector);

/* The store of the body (vector or one lane) at the current coordinates (its loop
 * reductions' results bound around it). */
static tine_stmt *store_point(builder *b, bool vector) {
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
    return reductions(b, vector ? &b->reds : &b->reds1, -1, store_point(b, vector));
}

/* The loops inside the vector loop (a reshaped nest), then the store; or the store. */
static tine_stmt *point(builder *b, bool vector) {
    return b->st->nloops ? gen(b, b->xpos + 1, vector) : rpoint(b, vector);
}

/* ---- unroll-and-jam ------------------------------------------------------------------- */

/* Points of the stage computed together: point u is the current one with coordinate 0
 * x[u] (x NULL: unchanged) and coordinate 1 y[u] (y NULL: unchanged). */
typedef struct {
    int n;
    tine_expr_t **x, **y;
} jpoints;

/* Whether unrolled points share their reductions' loops: the stage has loop reductions,
 * none vectorized along its variable (that one runs per lane of a point already). Their
 * bounds never read coordinates (kernel.c), so every point runs the same iterations. Not in
 * a reshaped nest (split, fuse, reorder: its unrolls are guarded loops of gen()). */
static bool jams(const builder *b) { return b->reds.n > 0 && b->st->nrvec == 0 && !b->st->nloops; }

static tine_stmt *at_point(builder *b, const jpoints *P, int u, tine_stmt *s) {
    if (P->x) s = tine_stmt_let(b->p, b->coord[0], P->x[u], s);
    if (P->y) s = tine_stmt_let(b->p, b->coord[1], P->y[u], s);
    return s;
}

/* Point u's accumulator of reduction i: $.aN_u (N numbered as the stage's reductions; a
 * chained reduction's is its chain head's). */
static tine_expr_t *jacc(builder *b, const tine_reductions *rs, int i, int u, const char **name) {
    char nm[48];
    snprintf(nm, sizeof nm, "$.a%d_%d", rs->base + (b->jinto ? b->jinto[i] : i), u);
    const tine_reduction *R = &rs->v[i];
    tine_expr_t *a = tine_load(b->ctx, nm, tine_type_with_lanes(R->acc->type, 1), acc_index(b, R->acc->type.lanes));
    *name = tine_expr_name(a);
    return a;
}

/* s with the results of the reductions done[0..nd) (their loops finished) bound for
 * point u, done[0] outermost. A chain's head reads the chain's accumulator (the sum of
 * every member), the other members 0 (chain_sums: only their sum is read). */
static tine_stmt *bind_done(builder *b, const tine_reductions *rs, const int *done, int nd, int u, tine_stmt *s) {
    for (int j = nd - 1; j >= 0; j--) {
        const char *nm;
        const tine_reduction *R = &rs->v[done[j]];
        tine_expr_t *v = b->jinto && b->jinto[done[j]] != done[j] ? R->init : jacc(b, rs, done[j], u, &nm);
        s = tine_stmt_let(b->p, R->result, v, s);
    }
    return s;
}

/* ---- chained sums: sibling reductions whose results are only added together ----------- */

typedef struct {
    const tine_reductions *rs;
    int parent;
    const tine_expr_t **root; /* per reduction: the add tree it is a leaf of; NULL: none */
    int *uses;                /* per reduction: how often its result is read */
    long budget;              /* nodes left to visit (a DAG walked as a tree) */
} chainw;

static bool chain_candidate(const tine_reductions *rs, int i, int parent) {
    const tine_reduction *R = &rs->v[i];
    return R->parent == parent && R->op == TINE_OP_ADD && tine_type_is_int(R->result->type);
}

/* Walks e (a tree; shared nodes once per path) under the add tree `root` (NULL: not a
 * wrapping integer add's operand): where each reduction's result is read. */
static bool chain_walk(chainw *w, const tine_expr_t *e, const tine_expr_t *root) {
    if (--w->budget < 0) return false;
    if (e->op == TINE_OP_VAR) {
        const char *n = tine_expr_name(e);
        for (int i = 0; i < w->rs->n; i++)
            if (w->rs->v[i].result == e || strcmp(tine_expr_name(w->rs->v[i].result), n) == 0) {
                w->uses[i]++;
                w->root[i] = root && tine_type_eq(root->type, e->type) ? root : NULL;
            }
        return true;
    }
    const tine_expr_t *sub_root = NULL;
    if (e->op == TINE_OP_ADD && tine_type_is_int(e->type))
        sub_root = root && tine_type_eq(root->type, e->type) ? root : e;
    for (int j = 0; j < e->nops; j++)
        if (!chain_walk(w, e->ops[j], sub_root)) return false;
    return true;
}

/* Chains the integer sums nested directly in `parent` (-1: the stage's own) whose results
 * the reader (the store's value; parent's update) reads once each, as leaves of one tree
 * of wrapping adds of their type, and nothing else reads: each later one adds into the
 * first one's accumulator (b->jinto), so a tile keeps one accumulator per point instead
 * of one per reduction (conv_nn's 9 taps). Bit-exact: wrapping integer addition is
 * associative and commutative, so the tree's value is the same with the first leaf the
 * whole sum and the others 0. Never floats (rounding) or min/max. */
static void chain_sums(builder *b, const tine_reductions *rs, int parent, const tine_expr_t *reader) {
    int n = rs->n;
    chainw w = {.rs = rs, .parent = parent, .budget = 200000};
    w.root = calloc((size_t)n, sizeof *w.root);
    w.uses = calloc((size_t)n, sizeof *w.uses);
    TINE_CHECK_ALLOC(w.root != NULL && w.uses != NULL);
    bool ok = chain_walk(&w, reader, NULL);
    for (int k = 0; ok && k < n; k++) {
        /* every other read (another reduction's terms or bounds) counts against it */
        const tine_reduction *R = &rs->v[k];
        const tine_expr_t *others[] = {R->lo, R->hi, R->init, k == parent ? NULL : R->update};
        for (int j = 0; ok && j < 4; j++)
            if (others[j]) {
                const tine_expr_t *keep[256];
                int m = n < 256 ? n : 256;
                for (int i = 0; i < m; i++) keep[i] = w.root[i];
                ok = chain_walk(&w, others[j], NULL);
                for (int i = 0; i < m; i++) w.root[i] = keep[i];
            }
    }
    for (int i = 0; ok && i < n; i++) {
        if (!chain_candidate(rs, i, parent) || w.uses[i] != 1 || !w.root[i]) continue;
        for (int h = 0; h < i; h++)
            if (b->jinto[h] == h && chain_candidate(rs, h, parent) && w.uses[h] == 1 && w.root[h] == w.root[i] &&
                tine_type_eq(rs->v[h].result->type, rs->v[i].result->type)) {
                b->jinto[i] = h;
                break;
            }
    }
    free(w.root);
    free(w.uses);
}

/* The reductions nested directly in `parent` (-1: the body's own), jammed over the
 * points P: each one loop whose iteration runs its nested reductions (jammed the same way)
 * and then every point's update of its own accumulator; after them, for each point,
 * parent's update (or, at the top, the store of the body). done[0..nd) are the
 * reductions finished around this level, whose results the terms may read. The
 * accumulators are allocated by jammed(); a nested one is reset at each iteration of its
 * parent, as in reduction(). Per iteration of the innermost loop: every point's terms
 * (what they share, a broadcast operand or a vector of the other, computed once by
 * LLVM), one accumulator each, kept in registers. */
static tine_stmt *jam_level(builder *b, const tine_reductions *rs, int parent, const jpoints *P, bool vector, int *done,
                            int nd) {
    tine_stmt_pool *p = b->p;
    int cap = (rs->n + 1) * (P->n + 1) + P->n, n = 0;
    tine_stmt **v = malloc(sizeof *v * (size_t)cap);
    TINE_CHECK_ALLOC(v != NULL);
    for (int i = 0; i < rs->n; i++) {
        const tine_reduction *R = &rs->v[i];
        if (R->parent != parent) continue;
        for (int u = 0; u < P->n && b->jinto[i] == i; u++) { /* a chain's later members go on */
            const char *nm;
            tine_expr_t *a = jacc(b, rs, i, u, &nm);
            v[n++] = tine_stmt_store(p, nm, a->ops[0], R->init);
        }
        tine_stmt *body = jam_level(b, rs, i, P, vector, done, nd);
        v[n++] = tine_stmt_for(p, R->r, R->lo, sub(b, R->hi, R->lo), 1, TINE_LOOP_SERIAL, TINE_PARTITION_NEVER, NULL,
                               body);
        done[nd++] = i;
    }
    for (int u = 0; u < P->n; u++) {
        tine_stmt *s;
        if (parent < 0) s = store_point(b, vector);
        else {
            const tine_reduction *R = &rs->v[parent];
            const char *nm;
            tine_expr_t *a = jacc(b, rs, parent, u, &nm);
            s = tine_stmt_let(p, R->acc, a, tine_stmt_store(p, nm, a->ops[0], R->update));
        }
        v[n++] = at_point(b, P, u, bind_done(b, rs, done, nd, u, s));
    }
    tine_stmt *r = tine_stmt_block(p, v, n);
    free(v);
    return r;
}

/* The stage's body at the points P (vector or one lane). A stage whose reductions jam:
 * one accumulator per reduction and point, allocated here, and one loop nest
 * (jam_level); otherwise each point in turn with its own loops. */
static tine_stmt *jammed(builder *b, const jpoints *P, bool vector) {
    tine_stmt_pool *p = b->p;
    if (P->n == 1 && !P->x && !P->y) return point(b, vector);
    if (!jams(b)) {
        tine_stmt **v = malloc(sizeof *v * (size_t)P->n);
        TINE_CHECK_ALLOC(v != NULL);
        for (int u = 0; u < P->n; u++) v[u] = at_point(b, P, u, point(b, vector));
        tine_stmt *r = tine_stmt_block(p, v, P->n);
        free(v);
        return r;
    }
    const tine_reductions *rs = vector ? &b->reds : &b->reds1;
    int *done = malloc(sizeof *done * (size_t)(rs->n + 1));
    b->jinto = malloc(sizeof *b->jinto * (size_t)rs->n);
    TINE_CHECK_ALLOC(done != NULL && b->jinto != NULL);
    for (int i = 0; i < rs->n; i++) b->jinto[i] = i;
    chain_sums(b, rs, -1, vector ? b->body : b->body1);
    for (int i = 0; i < rs->n; i++) chain_sums(b, rs, i, rs->v[i].update);
    tine_stmt *s = jam_level(b, rs, -1, P, vector, done, 0);
    free(done);
    for (int i = rs->n - 1; i >= 0; i--)
        for (int u = P->n - 1; u >= 0 && b->jinto[i] == i; u--) {
            const char *nm;
            tine_expr_t *a = jacc(b, rs, i, u, &nm);
            s = tine_stmt_allocate(p, nm, tine_type_with_lanes(a->type, 1), ci(b, a->type.lanes),
                                   tine_stmt_block2(p, s, tine_stmt_free(p, nm)));
        }
    free(b->jinto);
    b->jinto = NULL;
    return s;
}

/* The points of one iteration of a run of the first coordinate: nx vectors (x: their
 * first coordinates; 0: the current one) times the jammed rows (b->jrows; 0: the current
 * row), rows outermost. */
static tine_stmt *points(builder *b, bool vector, int nx, tine_expr_t **x) {
    int ny = b->jrows ? b->jrows : 1, nxx = nx ? nx : 1;
    jpoints P = {.n = nxx * ny};
    tine_expr_t **xs = nx ? malloc(sizeof *xs * (size_t)P.n) : NULL, **ys = b->jrows ? malloc(sizeof *ys * (size_t)P.n) : NULL;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nxx; i++) {
            if (xs) xs[j * nxx + i] = x[i];
            if (ys) ys[j * nxx + i] = b->jrow[j];
        }
    P.x = xs;
    P.y = ys;
    tine_stmt *s = jammed(b, &P, vector);
    free(xs);
    free(ys);
    return s;
}


/* The vector loop's unroll, partition mode and name. */
static int xunroll(builder *b) {
    int u = b->st->nloops ? b->st->loops[b->xpos].unroll : b->st->unroll[0];
    return u > 1 ? u : 1;
}

static tine_partition_mode xpart(builder *b) {
    if (!b->st->nloops) return (tine_partition_mode)b->st->partition[0];
    int m = b->st->loops[b->xpos].partition;
    return (tine_partition_mode)(m ? m - 1 : 0);
}

static const char *xname(builder *b, char *buf, size_t n) {
    if (!b->st->nloops) return loop_name(b, 0, buf, n);
    snprintf(buf, n, "%s.%s", b->st->name, b->st->loops[b->xpos].name);
    return buf;
}

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
    tine_stmt *vec[3] = {0}, *elem = points(b, false, 0, NULL);
    tine_expr_t *from = start;
    if (U > 1) {
        /* U vectors per iteration: the loop variable steps by U * L, each vector a let of
           the coordinate at its offset (their reductions jammed: one loop nest) */
        tine_expr_t *v = var(b, "c%d_u", 0);
        tine_expr_t **xs = malloc(sizeof *xs * (size_t)U);
        TINE_CHECK_ALLOC(xs != NULL);
        for (int u = 0; u < U; u++) xs[u] = add(b, v, ci(b, (int64_t)u * L));
        tine_expr_t *span = mul(b, tine_binary(b->ctx, TINE_OP_DIV, w, ci(b, (int64_t)U * L)), ci(b, (int64_t)U * L));
        vec[0] = tine_stmt_for(p, v, start, span, U * L, TINE_LOOP_VECTORIZED, part, nm, points(b, true, U, xs));
        free(xs);
        from = add(b, start, span);
    }
    vec[1] = tine_stmt_for(p, c0, from, sub(b, vec_end, from), L, TINE_LOOP_VECTORIZED, part, nm, points(b, true, 0, NULL));
    /* the last vector, shifted back to end at the edge: a loop of one iteration, so that
       partitioning treats it as any vector loop */
    tine_expr_t *ragged = tine_binary(b->ctx, TINE_OP_NE, tine_binary(b->ctx, TINE_OP_MOD, w, ci(b, L)), ci(b, 0));
    tine_stmt *last = tine_stmt_for(p, c0, sub(b, add(b, start, w), ci(b, L)), ci(b, L), L, TINE_LOOP_VECTORIZED, part,
                                    nm, points(b, true, 0, NULL));
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

static tine_stmt *dim(builder *b, int d);
static tine_stmt *nested(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast);

/* Channel tiles: the range of b's first coordinate that the current tile covers (a
 * split's block, or b's own range when b is itself computed per tile). */
static tine_expr_t *tile_first(builder *b, const tine_stage *t) { return t->c_split ? b->blo[0] : b->lo[0]; }
static tine_expr_t *tile_ext(builder *b, const tine_stage *t) { return t->c_split ? b->bext[0] : b->ext[0]; }

/* Stage t's rows for b's rows [yfirst, ylast] (nested), then inner (b's loops that read
 * them); a channel-tiled t's origin bound around both. */
static tine_stmt *at_rows(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast,
                          tine_stmt *inner) {
    tine_stmt *s = tine_stmt_block2(b->p, nested(b, t, tn, d, yfirst, ylast), inner);
    if (!t->ctile) return s;
    return tine_stmt_let(b->p, org(b, t->name), add(b, tile_first(b, t), ci(b, t->c_lo)), s);
}

/* Whether a stage is computed at this stage's loop over coordinate d. */
static bool computes_at(const builder *b, int d) {
    for (int t = 0; t < b->sn; t++) {
        const tine_stage *ts = tine_kernel_stage(b->k, t);
        if (ts->fold && ts->at == b->sn && ts->at_dim == d) return true;
    }
    return false;
}

/* One iteration of coordinate d's loop (d >= 1, its variable bound): the rows of the
 * stages computed at this loop that it needs, then the coordinates inside. */
static tine_stmt *row(builder *b, int d) {
    tine_stmt *inner = dim(b, d - 1);
    for (int t = b->sn - 1; t >= 0; t--) {
        const tine_stage *ts = tine_kernel_stage(b->k, t);
        if (ts->fold && ts->at == b->sn && ts->at_dim == d && !ts->at_strip)
            inner = at_rows(b, ts, t, d, b->coord[d], b->coord[d], inner);
    }
    return inner;
}

/* Coordinate d over its range, the dimensions inside it. The last coordinate's
 * outermost loop is parallel when the schedule says so. */
static tine_stmt *dim(builder *b, int d) {
    tine_stmt_pool *p = b->p;
    bool last = d == b->st->dims - 1;
    if (d == 0) return last && b->st->parallel ? xblocks(b) : xrun(b, b->lo[0], b->ext[0]);
    tine_loop_kind outer = last && b->st->parallel ? TINE_LOOP_PARALLEL : TINE_LOOP_SERIAL;
    char nb[96];
    const char *nm = loop_name(b, d, nb, sizeof nb);
    tine_partition_mode part = (tine_partition_mode)b->st->partition[d];
    if (d == 1 && b->st->tile[0]) {
        /* tiles of TX x TY: the tile's rows, each a run of the first coordinate (a stage
           computed at another's loop or with stages computed at its own is never tiled) */
        int TX = b->st->tile[0], TY = b->st->tile[1];
        tine_expr_t *ty = var(b, "t%d", 1), *tx = var(b, "t%d", 0);
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
    if (U > 1 && d == 1 && jams(b) && !b->jrows && !computes_at(b, 1)) {
        /* rows jammed (unroll-and-jam): U whole rows per iteration, computed together by
           the runs of the first coordinate (points()), their reductions sharing one loop
           nest; then the extent mod U rows left, one at a time */
        tine_expr_t *o = var(b, "c%d_u", 1), *full = tine_binary(b->ctx, TINE_OP_DIV, b->ext[1], ci(b, U));
        tine_expr_t **rows = malloc(sizeof *rows * (size_t)U);
        TINE_CHECK_ALLOC(rows != NULL);
        for (int u = 0; u < U; u++) rows[u] = add(b, add(b, b->lo[1], mul(b, o, ci(b, U))), ci(b, u));
        b->jrows = U;
        b->jrow = rows;
        tine_stmt *inner = dim(b, 0);
        b->jrows = 0;
        b->jrow = NULL;
        free(rows);
        tine_expr_t *done = mul(b, full, ci(b, U));
        tine_stmt *v[2] = {tine_stmt_for(p, o, ci(b, 0), full, 1, outer, part, nm, inner),
                           tine_stmt_for(p, b->coord[1], add(b, b->lo[1], done), sub(b, b->ext[1], done), 1, outer,
                                         TINE_PARTITION_NEVER, nm, row(b, 1))};
        return tine_stmt_block(p, v, 2);
    }
    if (U > 1) {
        /* U rows per iteration, each guarded by the extent */
        tine_expr_t *o = var(b, "c%d_u", d & 3), *end = add(b, b->lo[d], b->ext[d]);
        tine_stmt **rows = malloc(sizeof *rows * (size_t)U);
        TINE_CHECK_ALLOC(rows != NULL);
        for (int u = 0; u < U; u++) {
            tine_expr_t *c = add(b, add(b, b->lo[d], mul(b, o, ci(b, U))), ci(b, u));
            rows[u] = tine_stmt_let(p, b->coord[d], c,
                                    tine_stmt_if(p, tine_binary(b->ctx, TINE_OP_LT, b->coord[d], end), row(b, d), NULL));
        }
        tine_expr_t *n = tine_binary(b->ctx, TINE_OP_DIV, add(b, b->ext[d], ci(b, U - 1)), ci(b, U));
        tine_stmt *s = tine_stmt_for(p, o, ci(b, 0), n, 1, outer, part, nm, tine_stmt_block(p, rows, U));
        free(rows);
        return s;
    }
    return tine_stmt_for(p, b->coord[d], b->lo[d], b->ext[d], 1, outer, part, nm, row(b, d));
}

/* ---- a reshaped nest (split, fuse, reorder: st->loops, outermost first) ----------------- */

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

/* The nest from loop pos inwards. A loop that is not the vector loop runs its variable v
 * over [lo, lo + ext) one value at a time, or U values per iteration, each guarded by the
 * extent (unroll). */
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
    snprintf(nb, sizeof nb, "%s.%s", b->st->name, l->name);
    tine_loop_kind kind = l->parallel ? TINE_LOOP_PARALLEL : TINE_LOOP_SERIAL;
    tine_partition_mode part = (tine_partition_mode)(l->partition ? l->partition - 1 : 0);
    int U = l->unroll > 1 ? l->unroll : 1;
    if (U == 1) return tine_stmt_for(p, v, lo, ext, 1, kind, part, nb, loop_body(b, pos, v, vector));
    tine_expr_t *o = var(b, "u%d", pos), *end = add(b, lo, ext);
    tine_stmt **body = malloc(sizeof *body * (size_t)U);
    TINE_CHECK_ALLOC(body != NULL);
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
static tine_stmt *whole_nest(builder *b) { return b->st->nloops ? gen(b, 0, false) : dim(b, b->st->dims - 1); }

/* A builder of stage sn over its region (vp: the loop variables' prefix). */
static void builder_init(builder *b, tine_stmt_pool *p, const tine_kernel_t *k, const tine_kernel_plan_t *plan, int sn,
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
    b->body = xf(b, b->st->body);
    b->body1 = xf(b, b->st->body1);
    xf_reductions(b, &b->st->reds, &b->reds);
    xf_reductions(b, &b->st->reds1, &b->reds1);
    b->rvec = calloc((size_t)b->st->nrvec + 1, sizeof *b->rvec);
    TINE_CHECK_ALLOC(b->rvec != NULL);
    for (int k = 0; k < b->st->nrvec; k++) {
        b->rvec[k] = b->st->rvec[k];
        xf_reductions(b, &b->st->rvec[k].vec, &b->rvec[k].vec);
        xf_reductions(b, &b->st->rvec[k].tail, &b->rvec[k].tail);
    }
}

static void builder_free(builder *b) {
    free(b->reds.v);
    free(b->reds1.v);
    for (int k = 0; k < b->st->nrvec; k++) {
        free(b->rvec[k].vec.v);
        free(b->rvec[k].tail.v);
    }
    free(b->rvec);
    tine_u64map_free(&b->memo);
}

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
    return tine_stmt_let(b->p, y0, from, whole_nest(nb));
}

/* Stage t (computed at coordinate d of b's stage): the rows of its window for y in
 * [yfirst, ylast] (one row, or a strip of a split) not computed at an earlier iteration
 * (the file's note). */
static tine_stmt *nested(builder *b, const tine_stage *t, int tn, int d, tine_expr_t *yfirst, tine_expr_t *ylast) {
    tine_ctx_t *ctx = b->ctx;
    char vp[96];
    snprintf(vp, sizeof vp, "%s%s$", b->vp, t->name);
    builder nb;
    builder_init(&nb, b->p, b->k, b->plan, tn, vp);
    int last = t->fold_dim;
    if (t->ctile) { /* the tile of b's first coordinate, shifted by t's reads; its strides */
        nb.lo[0] = org(b, t->name);
        nb.ext[0] = add(b, tile_ext(b, t), ci(b, t->c_hi - t->c_lo));
        for (int d = 1; d < t->dims; d++) nb.stride[d] = tile_stride(ctx, t, d);
    }
    /* the slices after the rows: one each, as g reads them at this iteration */
    for (int j = last + 1; j < t->dims; j++) {
        nb.lo[j] = xf(b, t->slide_outer[j]);
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
        builder_free(&nb);
        const tine_expr_t *r = b->plan ? b->plan->read[tn] : NULL;
        return r && r->op != TINE_OP_CONST ? tine_stmt_if(b->p, (tine_expr_t *)r, s, NULL) : s;
    }
    /* the window at y: base + a*y + [lo, hi] */
    tine_expr_t *at = mul(b, ci(b, t->slide_a), yfirst), *atl = mul(b, ci(b, t->slide_a), ylast);
    if (t->slide_base) at = add(b, xf(b, t->slide_base), at), atl = add(b, xf(b, t->slide_base), atl);
    tine_expr_t *lo = add(b, at, ci(b, t->slide_lo)), *hi = add(b, atl, ci(b, t->slide_hi));
    /* the rows after those of the previous iteration (hi(y - 1) + 1, or lo(y) when the
       window jumps by more than its height), or the whole window at the loop's first row.
       Every row named is one the iteration reads (it fits i32), so the max of the two
       offsets is exact. */
    int64_t after = t->slide_hi - t->slide_a + 1;
    tine_expr_t *fresh = add(b, at, ci(b, after > t->slide_lo ? after : t->slide_lo));
    tine_stmt *s = window_rows(b, &nb, last, y0, tine_select(ctx, first, lo, fresh), hi);
    builder_free(&nb);
    const tine_expr_t *r = b->plan ? b->plan->read[tn] : NULL;
    if (r && r->op != TINE_OP_CONST) s = tine_stmt_if(b->p, (tine_expr_t *)r, s, NULL);
    return s;
}

tine_stmt *tine_stmt_build_stage(tine_stmt_pool *p, const tine_kernel_t *k, int sn) {
    builder b;
    builder_init(&b, p, k, NULL, sn, "");
    tine_stmt *s = whole_nest(&b);
    builder_free(&b);
    return s;
}

/* The kernel: the plan (checks, regions, sizes), then each stage in order into its
 * buffer. A scratch buffer is allocated around its stage and every later one, and freed
 * after the output; a stage nothing reads never runs. A stage computed at another's
 * loop runs inside that stage's nest; its buffer, allocated here, keeps min(fold,
 * extent) rows of its last coordinate. */
tine_stmt *tine_stmt_build_kernel(tine_stmt_pool *p, const tine_kernel_t *k) {
    tine_kernel_plan_t plan;
    if (tine_stmt_plan(p, k, &plan) != 0) return NULL;
    tine_ctx_t *ctx = p->ctx;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    int ns = tine_kernel_nstages(k);
    builder b;
    builder_init(&b, p, k, &plan, ns - 1, "");
    tine_stmt *body = whole_nest(&b);
    builder_free(&b);
    for (int s = ns - 2; s >= 0; s--) {
        const tine_stage *st = tine_kernel_stage(k, s);
        const tine_expr_t *r = plan.read[s];
        bool never = r->op == TINE_OP_CONST && tine_const_value(r, 0) == 0;
        tine_stmt *nest = NULL;
        tine_expr_t *size = plan.size[s];
        if (st->fold) {
            int l = st->fold_dim;
            tine_expr_t *rows = tine_binary(ctx, TINE_OP_MIN, (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_EXTENT, l)->var,
                                            tine_const_int(ctx, i32, st->fold));
            tine_expr_t *stride = st->ctile ? tile_stride(ctx, st, l) : (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_STRIDE, l)->var;
            size = tine_binary(ctx, TINE_OP_MUL, stride, rows);
        } else if (!never) {
            builder_init(&b, p, k, &plan, s, "");
            nest = whole_nest(&b);
            builder_free(&b);
            if (r->op != TINE_OP_CONST) nest = tine_stmt_if(p, plan.read[s], nest, NULL);
        }
        tine_stmt *v[3] = {nest, body, tine_stmt_free(p, st->name)};
        body = tine_stmt_allocate(p, st->name, st->type, size, tine_stmt_block(p, v, 3));
    }
    body = tine_stmt_plan_around(p, &plan, body);
    tine_kernel_plan_free(&plan);
    return body;
}
