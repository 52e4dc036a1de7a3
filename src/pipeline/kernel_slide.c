/* kernel_slide.c — the sliding windows of `compute_at f g.y`.
 *
 * A function computed at g's loop over y is computed row by row as g's iterations need
 * them, each row once, into a buffer that keeps only as many rows as one iteration reads:
 * Halide's sliding window and storage folding. Here the window is found from g's lowered
 * body: f's rows are its last coordinate that changes within a run of the row loop (in a
 * pool's h(c, x, 2 * y + k, b), y: b is one slice per run, kept alone in the buffer, and
 * the window restarts with it). Every read of f in g is a load whose row must be
 * a*y + base + k, with the same a > 0 and
 * the same base (kernel scalars and g's coordinates outside y, anything the row loop
 * does not change) for every read, and constants k. Then at iteration y, g reads rows
 * [a*y + base + lo, a*y + base + hi] (lo, hi: the least and greatest k), a window of
 * constant height hi - lo + 1, and the rows slide by a per iteration. The builder
 * (stmt/build.c) computes, at each iteration, the rows of that window not computed
 * before, and folds the buffer to a power of two of rows at least the window's height.
 *
 * Anything else is refused with an error at the compute_at directive: a row that is not
 * affine in y (y / 2, min(y, 40)), reads whose windows differ in height (y + p beside
 * y + 1, a loop reduction's variable), rows that do not move with y or move backwards,
 * and f read by any stage but g (its buffer holds only the rows g needs now).
 */
#include "../ir/affine.h"
#include "../ir/ast.h"

enum { MAX_WINDOW = 1 << 16 };

typedef tine_aff lin; /* a*y + sum(c_i * t_i) + k (../ir/affine.h) */

typedef struct {
    const tine_expr_t *y; /* g's coordinate of the row loop */
    int at_dim;
    const char *why;      /* why a row has no such form */
    tine_ctx_t *ctx;
} slide;

/* Whether e reads only kernel scalars ($name, $buf$min0 ...) and g's coordinates outside
 * the row loop: the same value throughout one iteration of g.y and of every loop inside. */
static bool invariant(tine_ctx_t *ctx, const slide *S, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        const tine_expr_t *x = order[i];
        if (x->op == TINE_OP_LOAD) ok = false;
        if (x->op != TINE_OP_VAR) continue;
        const char *name = tine_expr_name(x);
        int d = tine_kernel_coord_dim(name);
        ok = !tine_kernel_internal_var(name) || d > S->at_dim;
    }
    free(order);
    return ok;
}

static bool invariant_hook(void *env, const tine_expr_t *e) {
    const slide *S = env;
    return invariant(S->ctx, S, e);
}

static bool affine(tine_ctx_t *ctx, slide *S, const tine_expr_t *e, lin *f) {
    static const char *const why[] = {
        [TINE_AFF_NOT_I32] = "is not an i32 value",
        [TINE_AFF_LIMITS] = "has too many terms",
        [TINE_AFF_NONLINEAR] = "multiplies the row coordinate by something that is not a constant",
        [TINE_AFF_VARIANT] = "depends on a loop inside the row loop (an inner coordinate or a reduction's variable)",
        [TINE_AFF_OTHER] = "is not a*y + b with b the same at every iteration (y / 2, min(y, c) ...)",
    };
    S->ctx = ctx;
    tine_aff_ctx A = {.var = S->y, .invariant = invariant_hook, .env = S};
    if (e->type.lanes == 1 && tine_affine(&A, e, f)) return true;
    S->why = why[e->type.lanes == 1 ? A.why : TINE_AFF_NOT_I32];
    return false;
}

/* The coordinate of a read that holds its row: the last one that changes within a run
 * of the row loop (the ones after it are slices, read at one value per run), or the last
 * coordinate when none does (then the rows do not move with y: an error). */
static int row_dim(tine_ctx_t *ctx, const slide *S, const tine_expr_t *const *c, int dims) {
    for (int d = dims - 1; d >= 1; d--)
        if (!invariant(ctx, S, c[d])) return d;
    return dims - 1;
}

/* The loads of buffer `name` in e, each row form met into *w (first: *nw == 0), the
 * coordinate of its rows into *fd and the slices after it into outer. */
static bool reads_of(tine_ctx_t *ctx, slide *S, const tine_expr_t *e, const char *name, int dims, lin *w, int64_t *lo,
                     int64_t *hi, int *nw, int *fd, const tine_expr_t **outer) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        const tine_expr_t *x = order[i];
        if (x->op != TINE_OP_LOAD || strcmp(tine_expr_name(x), name)) continue;
        const tine_expr_t *c[4];
        lin f;
        if (!tine_kernel_load_coords(tine_expr_operand(x, 0), dims, c)) {
            S->why = "is not a coordinate";
            ok = false;
        } else if (*nw && row_dim(ctx, S, c, dims) != *fd) {
            S->why = "is in another coordinate of f in another read";
            ok = false;
        } else if (!affine(ctx, S, c[*nw ? *fd : row_dim(ctx, S, c, dims)], &f)) {
            ok = false;
        } else if (*nw && (f.a != w->a || !tine_aff_same_terms(&f, w))) {
            S->why = "differs from read to read by more than a constant";
            ok = false;
        } else {
            if (!*nw) {
                *fd = row_dim(ctx, S, c, dims);
                for (int d = *fd + 1; d < dims; d++) outer[d] = c[d];
            }
            for (int d = *fd + 1; d < dims && ok; d++)
                if (c[d] != outer[d]) {
                    S->why = "comes with a slice of a later coordinate that differs from read to read";
                    ok = false;
                }
            if (!ok) break;
            if (!*nw || f.k < *lo) *lo = f.k;
            if (!*nw || f.k > *hi) *hi = f.k;
            if (!*nw) *w = f;
            ++*nw;
        }
    }
    free(order);
    return ok;
}

/* Whether stage t's bodies read buffer name. */
static bool reads(tine_ctx_t *ctx, const tine_stage *t, const char *name) {
    const tine_expr_t *roots[1 + 256];
    int nr = 0;
    roots[nr++] = t->body1;
    for (int i = 0; i < t->reds1.n && nr < 257; i++) roots[nr++] = t->reds1.v[i].update;
    bool found = false;
    for (int r = 0; r < nr && !found; r++) {
        uint32_t n;
        tine_expr_t **order = tine_topo(ctx, roots[r], &n);
        for (uint32_t i = 0; i < n && !found; i++)
            found = order[i]->op == TINE_OP_LOAD && !strcmp(tine_expr_name(order[i]), name);
        free(order);
    }
    return found;
}

static bool never_invariant(void *env, const tine_expr_t *e) {
    (void)env, (void)e;
    return false;
}

/* Whether every read of buffer name in e has its first coordinate at $.c0 + a constant
 * (channel tiles: one tile of the reader reads a tile of f shifted by those), the least
 * and greatest constant met into *lo, *hi (*n reads so far). */
static bool c0_reads(tine_ctx_t *ctx, const tine_expr_t *e, const char *name, int dims, int64_t *lo, int64_t *hi, int *n) {
    uint32_t m;
    tine_expr_t **order = tine_topo(ctx, e, &m);
    tine_aff_ctx A = {.var = tine_var(ctx, "$.c0", tine_type(TINE_INT, 32, 1)), .invariant = never_invariant};
    bool ok = true;
    for (uint32_t i = 0; i < m && ok; i++) {
        const tine_expr_t *x = order[i];
        if (x->op != TINE_OP_LOAD || strcmp(tine_expr_name(x), name)) continue;
        const tine_expr_t *c[4];
        lin f;
        ok = tine_kernel_load_coords(tine_expr_operand(x, 0), dims, c) && c[0]->type.lanes == 1 && tine_affine(&A, c[0], &f) &&
             f.a == 1;
        for (int t = 0; t < f.n && ok; t++) ok = f.c[t] == 0;
        if (!ok) break;
        if (!*n || f.k < *lo) *lo = f.k;
        if (!*n || f.k > *hi) *hi = f.k;
        ++*n;
    }
    free(order);
    return ok;
}

static bool fail(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdecl *f, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdecl *f, const char *fmt, ...) {
    const tine_kdirective *s = &k->sched[f->at_sched - 1];
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tine_diag(ctx, s->src, s->line, s->col, "compute_at: %s", msg);
    return false;
}

/* Channel tiles (tine_stage.ctile): a stage computed at a loop of g inside a split's
 * outer loop of g's first coordinate, or at a stage that is itself computed per tile, is
 * computed over the tile (shifted by its reads) and keeps only that many of its first
 * coordinate. Consumers come after their producers, so walking back meets g first. */
static bool ctiles(tine_ctx_t *ctx, const tine_kernel_ast *k, tine_stage *stages, const tine_kdecl *const *decls, int ns) {
    for (int s = ns - 1; s >= 0; s--) {
        tine_stage *st = &stages[s];
        if (!st->fold) continue;
        const tine_kdecl *f = decls[s];
        const tine_stage *gs = &stages[st->at];
        const char *at = k->sched[f->at_sched - 1].dim;
        int pos = 0, W = 0;
        while (pos < gs->nloops && strcmp(gs->loops[pos].name, at)) pos++;
        for (int j = 0; j < pos && j < gs->nloops; j++)
            if (gs->loops[j].kind == TINE_KLOOP_OUTER && gs->loops[j].dim == 0) W = gs->loops[j].factor;
        st->c_split = W > 0;
        if (!W) W = gs->ctile;
        if (!W) continue;
        int64_t lo = 0, hi = 0;
        int n = 0;
        bool ok = c0_reads(ctx, gs->body1, st->name, st->dims, &lo, &hi, &n);
        for (int i = 0; i < gs->reds1.n && ok; i++) ok = c0_reads(ctx, gs->reds1.v[i].update, st->name, st->dims, &lo, &hi, &n);
        if (!ok || hi - lo > (1 << 20))
            return fail(ctx, k, f, "'%s' is computed per channel tile of '%s' (a split of %s.%s outside %s.%s), so every read of "
                        "'%s' must be at %s + a constant in its first coordinate", f->name, gs->name, gs->name, gs->coord[0],
                        gs->name, at, f->name, gs->coord[0]);
        st->ctile = W + (int)(hi - lo);
        st->c_lo = (int)lo;
        st->c_hi = (int)hi;
    }
    return true;
}

bool tine_kernel_slide(tine_ctx_t *ctx, const tine_kernel_ast *k, tine_stage *stages, const tine_kdecl *const *decls, int ns) {
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int s = 0; s < ns; s++) {
        const tine_kdecl *f = decls[s];
        if (f->kind != K_FUNC || !f->at_sched) continue;
        tine_stage *st = &stages[s];
        int g = s + 1;
        while (g < ns && strcmp(stages[g].name, f->at)) g++;
        TINE_ASSERT(g < ns); /* check_at: the consumer is a stage; stages follow what they read */
        const tine_stage *gs = &stages[g];
        const char *y = gs->coord[f->at_dim];
        if (!reads(ctx, gs, st->name))
            return fail(ctx, k, f, "'%s' does not read '%s'", gs->name, f->name);
        for (int t = 0; t < ns; t++)
            if (t != g && t != s && reads(ctx, &stages[t], st->name))
                return fail(ctx, k, f, "'%s' is also read by '%s'; a function computed at a loop of '%s' keeps only the "
                            "rows '%s' reads there, so nothing else may read it (compute_root it instead)",
                            f->name, stages[t].name, gs->name, gs->name);
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", f->at_dim);
        slide S = {.y = tine_var(ctx, vn, i32), .at_dim = f->at_dim};
        lin w = {0};
        int64_t lo = 0, hi = 0;
        int nw = 0, fd = st->dims - 1;
        const tine_expr_t *outer[4] = {0};
        bool ok = reads_of(ctx, &S, gs->body1, st->name, st->dims, &w, &lo, &hi, &nw, &fd, outer);
        for (int i = 0; i < gs->reds1.n && ok; i++)
            ok = reads_of(ctx, &S, gs->reds1.v[i].update, st->name, st->dims, &w, &lo, &hi, &nw, &fd, outer);
        const char *row = f->args[fd];
        if (!ok)
            return fail(ctx, k, f, "the rows of '%s' that one iteration of %s.%s reads are not a window of constant height: "
                        "a read's row (its coordinate %s) %s", f->name, gs->name, y, row, S.why);
        TINE_ASSERT(nw > 0); /* reads() found one */
        if (w.a == 0)
            return fail(ctx, k, f, "'%s' reads the same rows of '%s' at every %s.%s: they do not slide along %s (compute_root "
                        "'%s', or compute it at a coordinate its rows follow)", gs->name, f->name, gs->name, y, y, f->name);
        if (w.a < 0)
            return fail(ctx, k, f, "the rows of '%s' that '%s' reads go down as %s.%s goes up; a sliding window needs them to "
                        "increase with %s", f->name, gs->name, gs->name, y, y);
        if (hi - lo + 1 > MAX_WINDOW)
            return fail(ctx, k, f, "one iteration of %s.%s reads %lld rows of '%s'; a sliding window keeps at most %d",
                        gs->name, y, (long long)(hi - lo + 1), f->name, MAX_WINDOW);
        /* at a split's outer loop (strips of N rows of y): the strip's window, N - 1 steps
           of a taller */
        int at_loop = -1, N = 0;
        for (int j = 0; j < gs->nloops && at_loop < 0; j++)
            if (!strcmp(gs->loops[j].name, k->sched[f->at_sched - 1].dim) && gs->loops[j].kind == TINE_KLOOP_OUTER)
                at_loop = j, N = gs->loops[j].factor;
        int64_t height = hi - lo + 1 + (N > 1 ? w.a * (N - 1) : 0);
        if (height > MAX_WINDOW)
            return fail(ctx, k, f, "one strip of %s.%s reads %lld rows of '%s'; a sliding window keeps at most %d",
                        gs->name, k->sched[f->at_sched - 1].dim, (long long)height, f->name, MAX_WINDOW);
        int fold = 1;
        while (fold < height) fold *= 2;
        tine_expr_t *base = NULL;
        for (int i = 0; i < w.n; i++) {
            if (!w.c[i]) continue;
            tine_expr_t *t = w.c[i] == 1 ? w.t[i] : tine_binary(ctx, TINE_OP_MUL, w.t[i], tine_const_int(ctx, i32, w.c[i]));
            base = base ? tine_binary(ctx, TINE_OP_ADD, base, t) : t;
        }
        st->fold = fold;
        st->fold_dim = fd;
        for (int d = fd + 1; d < st->dims; d++) st->slide_outer[d] = (tine_expr_t *)outer[d];
        st->at = g;
        st->at_dim = f->at_dim;
        st->slide_a = (int)w.a;
        st->slide_lo = lo;
        st->slide_hi = hi;
        st->slide_base = base;
        st->at_loop = at_loop;
        st->at_strip = N;
    }
    return ctiles(ctx, k, stages, decls, ns);
}
