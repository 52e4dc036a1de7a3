/* build_reduce.c — a stage's loop reductions around the store of its body: one
 * accumulator in scratch per reduction (passes.h's shape), one vectorized along its own
 * variable (tine_rvec), and the points of an unrolled loop computed together with their
 * reductions jammed into one loop nest (unroll-and-jam), integer sums chained into one
 * accumulator (chain_sums). */
#include "build.h"

/* The index of an accumulator's lanes: ramp(0, 1, L), or 0 at one lane. */
static tine_expr_t *acc_index(builder *b, int lanes) {
    return lanes > 1 ? tine_ramp(b->ctx, ci(b, 0), ci(b, 1), lanes) : ci(b, 0);
}

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
                                     tine_build_reductions(b, &v->vec, i, vstep));
    tine_expr_t *scur = tine_load(ctx, an, et, j);
    tine_stmt *vpart[4] = {tine_stmt_store(p, vn, vidx, tine_broadcast(ctx, T->init, A)), vloop,
                           tine_stmt_store(p, an, j, fold(b, R->op, vcur, 1)), tine_stmt_free(p, vn)};
    /* the remaining terms, one at a time */
    tine_stmt *tstep = tine_stmt_let(p, T->acc, scur, tine_stmt_store(p, an, j, T->update));
    tine_stmt *tloop = tine_stmt_for(p, R->r, add(b, R->lo, vext), sub(b, ext, vext), 1, TINE_LOOP_SERIAL,
                                     TINE_PARTITION_NEVER, NULL, tine_build_reductions(b, &v->tail, i, tstep));
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
                                    NULL, tine_build_reductions(b, rs, i, step));
    tine_stmt *v[4] = {tine_stmt_store(p, name, idx, R->init), loop, tine_stmt_let(p, R->result, cur, rest),
                       tine_stmt_free(p, name)};
    return tine_stmt_allocate(p, name, et, ci(b, lanes), tine_stmt_block(p, v, 4));
}

/* The reductions nested directly in `parent` (-1: the body's own) around rest, the first
 * outermost: they run in order, as the interpreter runs them. */
tine_stmt *tine_build_reductions(builder *b, const tine_reductions *rs, int parent, tine_stmt *rest) {
    for (int i = rs->n - 1; i >= 0; i--)
        if (rs->v[i].parent == parent) rest = reduction(b, rs, i, rest);
    return rest;
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
bool tine_build_jams(const builder *b) { return b->reds.n > 0 && b->st->nrvec == 0 && !b->st->reshaped; }

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
    w.root = tine_xcalloc((size_t)n, sizeof *w.root);
    w.uses = tine_xcalloc((size_t)n, sizeof *w.uses);
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
    tine_stmt **v = tine_xmalloc(sizeof *v * (size_t)cap);
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
        if (parent < 0) s = tine_build_store(b, vector);
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
    if (P->n == 1 && !P->x && !P->y) return b->point(b, vector);
    if (!tine_build_jams(b)) {
        tine_stmt **v = tine_xmalloc(sizeof *v * (size_t)P->n);
        for (int u = 0; u < P->n; u++) v[u] = at_point(b, P, u, b->point(b, vector));
        tine_stmt *r = tine_stmt_block(p, v, P->n);
        free(v);
        return r;
    }
    const tine_reductions *rs = vector ? &b->reds : &b->reds1;
    int *done = tine_xmalloc(sizeof *done * (size_t)(rs->n + 1));
    b->jinto = tine_xmalloc(sizeof *b->jinto * (size_t)rs->n);
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
tine_stmt *tine_build_points(builder *b, bool vector, int nx, tine_expr_t **x) {
    int ny = b->jrows ? b->jrows : 1, nxx = nx ? nx : 1;
    jpoints P = {.n = nxx * ny};
    tine_expr_t **xs = nx ? tine_xmalloc(sizeof *xs * (size_t)P.n) : NULL;
    tine_expr_t **ys = b->jrows ? tine_xmalloc(sizeof *ys * (size_t)P.n) : NULL;
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

