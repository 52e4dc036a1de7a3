/* kernel_slide.c — the sliding windows of `compute_at f g.y`.
 *
 * A function computed at g's loop over y is computed row by row as g's iterations need
 * them, each row once, into a buffer that keeps only as many rows as one iteration reads:
 * Halide's sliding window and storage folding. Here the window is found from g's elaborated
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
 * affine in y (min(y, 40); y / 2 goes to the general window below), reads whose windows differ in height (y + p beside
 * y + 1, a loop reduction's variable), rows that do not move with y or move backwards,
 * and f read by any stage but g (its buffer holds only the rows g needs now).
 *
 * Several readers: when stages other than g read f, each must be computed at g.y too
 * (same loop: the row, or the same strip), and then f's window at g's iteration y is the
 * union of what every reader reads there: g's reads directly, another reader t's through
 * t's own window (t reads f at rows e(r) for its rows r in [first_t(y), last_t(y)]).
 * Halide finds such windows by interval bounds; here a row must be an expression of the
 * reader's row coordinate alone that never decreases as it grows (+, - a constant, *
 * and / by positive constants, min, max: y / 2, 2 * (y / 2) + 1 ...), so that the window
 * is [min over reads of e(first_t(y)), max over reads of e(last_t(y))], with both ends
 * nondecreasing in y. Its height is bounded from the rational slope and offsets of the
 * two ends (wform below); f's rows are its last coordinate. A one-dimensional f (a value
 * per row: a row's max or sum) goes this way even with g its only reader. f's stages at y run before
 * its readers' (stages follow what they read), each computing the rows of its window not
 * computed at an earlier iteration, so every reader finds its rows in the buffer.
 */
#include "../ir/affine.h"
#include "../ir/ast.h"

enum { MAX_WINDOW = 1 << 16 };

typedef tine_aff lin; /* a*y + sum(c_i * t_i) + k (../ir/affine.h) */

typedef struct {
    const tine_expr_t *y; /* g's coordinate of the row loop */
    int at_dim;
    unsigned inner;       /* coordinates after y whose loops are inside g.y (reorder) */
    const char *why;      /* why a row has no such form */
    tine_ctx_t *ctx;
} slide;

/* Whether e reads only kernel scalars ($name, $buf$min0 ...) and g's coordinates outside
 * the row loop: the same value throughout one iteration of g.y and of every loop inside.
 * A later coordinate is outside unless a reorder put its loop inside g.y (S->inner). */
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
        ok = !tine_kernel_internal_var(name) || (d > S->at_dim && !(d < 32 && (S->inner >> d & 1)));
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
        [TINE_AFF_OTHER] = "is not a*y + b with b the same at every iteration, nor a sliding expression of y alone (min(y, c), y % 4 ...)",
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
    char with_what[256]; /* the directive's name before the message */
    snprintf(with_what, sizeof with_what, "compute_at: %s", fmt);
    va_list ap;
    va_start(ap, fmt);
    tine_vdiag(ctx, s->src, s->line, s->col, with_what, ap);
    va_end(ap);
    return false;
}

/* ---- several readers ---------------------------------------------------------------------- */

/* D * e(y) lies in [s*y + lo, s*y + hi] for every y; mono: e never decreases as y grows. */
typedef struct {
    int64_t s, D, lo, hi;
    bool mono;
} wform;

#define WF_LIMIT ((int64_t)1 << 40)

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}

static bool wf_small(const wform *f) {
    return f->D <= (1 << 20) && llabs(f->s) < WF_LIMIT && llabs(f->lo) < WF_LIMIT && llabs(f->hi) < WF_LIMIT;
}

/* f and g over one denominator. */
static bool wf_common(wform *f, wform *g) {
    int64_t D = f->D / gcd64(f->D, g->D) * g->D;
    if (D > (1 << 20)) return false;
    int64_t mf = D / f->D, mg = D / g->D;
    *f = (wform){f->s * mf, D, f->lo * mf, f->hi * mf, f->mono};
    *g = (wform){g->s * mg, D, g->lo * mg, g->hi * mg, g->mono};
    return wf_small(f) && wf_small(g);
}

static bool wf_const(const wform *f, int64_t *v) {
    if (f->s || f->lo != f->hi || f->lo % f->D) return false;
    *v = f->lo / f->D;
    return true;
}

/* The form of row expression e in y; false with *why set when it has none. */
static bool wform_of(const tine_expr_t *e, const tine_expr_t *y, wform *f, const char **why) {
    if (e->type.lanes != 1 || e->type.bits != 32 || e->type.kind != TINE_INT) {
        *why = "is not an i32 value";
        return false;
    }
    if (e == y) {
        *f = (wform){1, 1, 0, 0, true};
        return true;
    }
    wform a, b;
    int64_t c;
    switch (e->op) {
    case TINE_OP_CONST:
        c = (int32_t)tine_expr_const_lane(e, 0);
        *f = (wform){0, 1, c, c, true};
        return true;
    case TINE_OP_VAR:
    case TINE_OP_LOAD:
        *why = "depends on something other than the reader's row coordinate and constants (a kernel scalar, another "
               "coordinate, a reduction's variable or a load)";
        return false;
    case TINE_OP_ADD:
    case TINE_OP_SUB:
    case TINE_OP_MIN:
    case TINE_OP_MAX:
    case TINE_OP_MUL:
    case TINE_OP_DIV:
        if (!wform_of(e->ops[0], y, &a, why) || !wform_of(e->ops[1], y, &b, why)) return false;
        break;
    default:
        *why = "is not built of the row coordinate with +, -, * and / by constants, min and max";
        return false;
    }
    const char *big = "has offsets or slopes past the limits of a sliding window";
    if (e->op == TINE_OP_MUL || e->op == TINE_OP_DIV) {
        bool left = e->op == TINE_OP_MUL && wf_const(&a, &c);
        if (!left && !wf_const(&b, &c)) {
            *why = "multiplies or divides by something that is not a constant";
            return false;
        }
        wform v = left ? b : a;
        if (e->op == TINE_OP_DIV) {
            if (c <= 0) {
                *why = "divides by a constant that is not positive";
                return false;
            }
            /* floor(v / c) lies in [v / c - (c - 1) / c, v / c] */
            *f = (wform){v.s, v.D * c, v.lo - (c - 1) * v.D, v.hi, v.mono};
        } else {
            *f = (wform){v.s * c, v.D, c < 0 ? v.hi * c : v.lo * c, c < 0 ? v.lo * c : v.hi * c, v.mono && c >= 0};
            if (c == 0) f->mono = true;
        }
        if (!wf_small(f)) *why = big;
        return wf_small(f);
    }
    if (!wf_common(&a, &b)) {
        *why = big;
        return false;
    }
    switch (e->op) {
    case TINE_OP_ADD: *f = (wform){a.s + b.s, a.D, a.lo + b.lo, a.hi + b.hi, a.mono && b.mono}; break;
    case TINE_OP_SUB: *f = (wform){a.s - b.s, a.D, a.lo - b.hi, a.hi - b.lo, a.mono && wf_const(&b, &c)}; break;
    default: /* min, max: of two ends that move alike */
        if (a.s != b.s) {
            *why = "takes the min or max of rows that move at different rates";
            return false;
        }
        bool mx = e->op == TINE_OP_MAX;
        *f = (wform){a.s, a.D, mx ? (a.lo > b.lo ? a.lo : b.lo) : (a.lo < b.lo ? a.lo : b.lo),
                     mx ? (a.hi > b.hi ? a.hi : b.hi) : (a.hi < b.hi ? a.hi : b.hi), a.mono && b.mono};
    }
    if (!wf_small(f)) *why = big;
    return wf_small(f);
}

/* What several readers' reads of f make of its window (the file's note). */
typedef struct {
    tine_expr_t *first, *last; /* NULL before the first read */
    const char *why;
    const char *via;           /* the reader whose read has no form */
} multi;

/* Stage t's reads of f (t computed at g.y with the window [tf, tl] of its rows, each its
 * coordinate rd; or g itself, tf = tl = y and rd its coordinate at y), met into *m. */
static bool multi_reads(tine_ctx_t *ctx, multi *m, const tine_stage *t, const tine_stage *f, int rd, tine_expr_t *tf,
                        tine_expr_t *tl) {
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    char vn[16];
    snprintf(vn, sizeof vn, "$.c%d", rd);
    tine_expr_t *r = tine_var(ctx, vn, i32);
    const tine_expr_t *roots[1 + 256];
    int nr = 0;
    roots[nr++] = t->body1;
    for (int i = 0; i < t->reds1.n && nr < 257; i++) roots[nr++] = t->reds1.v[i].update;
    for (int q = 0; q < nr; q++) {
        uint32_t n;
        tine_expr_t **order = tine_topo(ctx, roots[q], &n);
        bool ok = true;
        for (uint32_t i = 0; i < n && ok; i++) {
            const tine_expr_t *x = order[i];
            if (x->op != TINE_OP_LOAD || strcmp(tine_expr_name(x), f->name)) continue;
            const tine_expr_t *c[4];
            wform w;
            m->via = t->name;
            if (!tine_kernel_load_coords(tine_expr_operand(x, 0), f->dims, c)) {
                m->why = "is not a coordinate";
                ok = false;
                break;
            }
            tine_expr_t *row = (tine_expr_t *)c[f->dims - 1];
            if (!(ok = wform_of(row, r, &w, &m->why))) break;
            if (!w.mono) {
                m->why = "can decrease as the reader's row coordinate grows";
                ok = false;
                break;
            }
            tine_expr_t *lo = tine_replace(ctx, row, r, tf), *hi = tine_replace(ctx, row, r, tl);
            m->first = m->first ? tine_binary(ctx, TINE_OP_MIN, m->first, lo) : lo;
            m->last = m->last ? tine_binary(ctx, TINE_OP_MAX, m->last, hi) : hi;
        }
        free(order);
        if (!ok) return false;
    }
    return true;
}

/* f (stage s, computed at stage g's loop over at_dim, at loops[at_loop] by strips of N
 * when at_loop >= 0) read by several stages, or by one that is not g. */
#define MFAIL(...) (quiet ? false : fail(ctx, k, f, __VA_ARGS__))
static bool slide_multi(tine_ctx_t *ctx, const tine_kernel_ast *k, tine_stage *stages, const tine_kdecl *f, int s, int g,
                        int at_loop, int N, int ns, bool quiet) {
    tine_stage *st = &stages[s];
    const tine_stage *gs = &stages[g];
    const char *y = k->sched[f->at_sched - 1].dim;
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    char vn[16];
    snprintf(vn, sizeof vn, "$.c%d", f->at_dim);
    tine_expr_t *yv = tine_var(ctx, vn, i32);
    multi m = {0};
    for (int t = s + 1; t < ns; t++) {
        const tine_stage *ts = &stages[t];
        if (!reads(ctx, ts, st->name)) continue;
        bool ok;
        if (t == g) {
            ok = multi_reads(ctx, &m, ts, st, f->at_dim, yv, yv);
        } else {
            if (!ts->fold || ts->at != g || ts->at_dim != f->at_dim || ts->at_loop != at_loop)
                return MFAIL("'%s' is read by '%s', which is not computed at %s.%s; a function computed at a loop of "
                            "'%s' keeps only the rows needed there, so each stage that reads it must be '%s' or computed at "
                            "%s.%s too (or compute_root '%s')", f->name, ts->name, gs->name, y, gs->name, gs->name, gs->name,
                            y, f->name);
            ok = multi_reads(ctx, &m, ts, st, ts->fold_dim, ts->slide_first, ts->slide_last);
        }
        if (!ok)
            return MFAIL("the rows of '%s' that one iteration of %s.%s reads through '%s' are not a window that "
                        "slides: a read's row (its coordinate %s) %s", f->name, gs->name, y, m.via, f->args[st->dims - 1],
                        m.why);
    }
    TINE_ASSERT(m.first != NULL); /* a reader read it */
    wform a, b;
    const char *why = NULL;
    if (!wform_of(m.first, yv, &a, &why) || !wform_of(m.last, yv, &b, &why) || !wf_common(&a, &b) || a.s != b.s)
        return MFAIL("the rows of '%s' that one iteration of %s.%s reads are not a window of bounded height: its "
                    "readers' windows move at different rates along %s", f->name, gs->name, y, y);
    if (a.s == 0)
        return MFAIL("its readers read the same rows of '%s' at every %s.%s: they do not slide along %s "
                    "(compute_root '%s', or compute it at a coordinate its rows follow)", f->name, gs->name, y, y, f->name);
    if (a.s < 0)
        return MFAIL("the rows of '%s' that its readers read go down as %s.%s goes up; a sliding window needs them "
                    "to increase with %s", f->name, gs->name, y, y);
    /* last(y + N - 1) - first(y) <= (s (N - 1) + b.hi - a.lo) / D */
    int64_t span = a.s * (N > 1 ? N - 1 : 0) + b.hi - a.lo;
    int64_t height = (span >= 0 ? span / a.D : -((-span + a.D - 1) / a.D)) + 1;
    if (height > MAX_WINDOW)
        return MFAIL("one %s of %s.%s reads up to %lld rows of '%s'; a sliding window keeps at most %d",
                    N > 1 ? "strip" : "iteration", gs->name, y, (long long)height, f->name, MAX_WINDOW);
    int fold = 1;
    while (fold < height) fold *= 2;
    /* one coordinate: its rows, one value each (kernel_stages.c elaborate_stage): a vector of rows
       would run past the fold */
    TINE_ASSERT(st->dims > 1 || st->lanes == 1);
    st->fold = fold;
    st->fold_dim = st->dims - 1;
    st->at = g;
    st->at_dim = f->at_dim;
    st->slide_a = 0;
    st->slide_first = m.first;
    st->slide_last = m.last;
    st->at_loop = at_loop;
    st->at_strip = N;
    return true;
}
#undef MFAIL

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
        if (st->slide_a == 0) /* the window of several readers (slide_multi) */
            return fail(ctx, k, f, "'%s' would be computed per channel tile of '%s' (a split of %s.%s outside %s.%s), but "
                        "a channel tile takes a function read by one stage with two or more coordinates; compute it "
                        "outside the tile loop", f->name, gs->name, gs->name, gs->coord[0], gs->name, at);
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
    /* consumers first: a function with several readers needs their windows */
    for (int s = ns - 1; s >= 0; s--) {
        const tine_kdecl *f = decls[s];
        if (f->kind != K_FUNC || !f->at_sched) continue;
        tine_stage *st = &stages[s];
        int g = s + 1;
        while (g < ns && strcmp(stages[g].name, f->at)) g++;
        TINE_ASSERT(g < ns); /* check_at: the consumer is a stage; stages follow what they read */
        const tine_stage *gs = &stages[g];
        const char *y = gs->coord[f->at_dim];
        /* at a split's outer loop (strips of N rows of y): the strip's window, N - 1 steps
           of a taller */
        int at_loop = -1, N = 0;
        for (int j = 0; j < gs->nloops && at_loop < 0; j++)
            if (!strcmp(gs->loops[j].name, k->sched[f->at_sched - 1].dim) && gs->loops[j].kind == TINE_KLOOP_OUTER)
                at_loop = j, N = gs->loops[j].factor;
        bool others = false;
        for (int t = s + 1; t < ns; t++) others |= t != g && reads(ctx, &stages[t], st->name);
        if (others || st->dims == 1) { /* (one coordinate: its only one holds the rows) */
            if (!slide_multi(ctx, k, stages, f, s, g, at_loop, N, ns, false)) return false;
            continue;
        }
        if (!reads(ctx, gs, st->name))
            return fail(ctx, k, f, "'%s' does not read '%s'", gs->name, f->name);
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", f->at_dim);
        slide S = {.y = tine_var(ctx, vn, i32), .at_dim = f->at_dim};
        for (int j = 0, in = 0; j < gs->nloops; j++) { /* the loops inside g.y */
            const tine_kloop *l = &gs->loops[j];
            if (in) S.inner |= 1u << l->dim | (l->kind == TINE_KLOOP_FUSED ? 1u << l->dim2 : 0u);
            in |= !strcmp(gs->loops[j].name, k->sched[f->at_sched - 1].dim);
        }
        lin w = {0};
        int64_t lo = 0, hi = 0;
        int nw = 0, fd = st->dims - 1;
        const tine_expr_t *outer[4] = {0};
        bool ok = reads_of(ctx, &S, gs->body1, st->name, st->dims, &w, &lo, &hi, &nw, &fd, outer);
        for (int i = 0; i < gs->reds1.n && ok; i++)
            ok = reads_of(ctx, &S, gs->reds1.v[i].update, st->name, st->dims, &w, &lo, &hi, &nw, &fd, outer);
        const char *row = f->args[fd];
        /* rows that are not a*y + b (y / 2 ...): the general window, when it has one */
        if (!ok && fd == st->dims - 1 && slide_multi(ctx, k, stages, f, s, g, at_loop, N, ns, true)) continue;
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
        tine_expr_t *ay = tine_binary(ctx, TINE_OP_MUL, (tine_expr_t *)S.y, tine_const_int(ctx, i32, w.a));
        if (base) ay = tine_binary(ctx, TINE_OP_ADD, ay, base);
        st->slide_first = tine_binary(ctx, TINE_OP_ADD, ay, tine_const_int(ctx, i32, lo));
        st->slide_last = tine_binary(ctx, TINE_OP_ADD, ay, tine_const_int(ctx, i32, hi));
        st->at_loop = at_loop;
        st->at_strip = N;
    }
    return ctiles(ctx, k, stages, decls, ns);
}
