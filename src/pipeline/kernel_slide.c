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
#include "../ir/ast.h"

enum { MAX_TERMS = 4, MAX_WINDOW = 1 << 16 };

/* a*y + sum(c_i * t_i) + k, the t_i one-lane i32 terms invariant in the row loop */
typedef struct {
    int64_t a, k;
    int n;
    tine_expr_t *t[MAX_TERMS];
    int64_t c[MAX_TERMS];
} lin;

typedef struct {
    const tine_expr_t *y; /* g's coordinate of the row loop */
    int at_dim;
    const char *why;      /* why a row has no such form */
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

static bool add_term(lin *f, tine_expr_t *t, int64_t c) {
    for (int i = 0; i < f->n; i++)
        if (f->t[i] == t) {
            f->c[i] += c;
            return true;
        }
    if (f->n == MAX_TERMS) return false;
    f->t[f->n] = t;
    f->c[f->n++] = c;
    return true;
}

static bool add_lin(lin *f, const lin *g, int64_t s) {
    f->a += s * g->a;
    f->k += s * g->k;
    for (int i = 0; i < g->n; i++)
        if (!add_term(f, g->t[i], s * g->c[i])) return false;
    return f->a > -(1 << 20) && f->a < (1 << 20) && f->k > -((int64_t)1 << 40) && f->k < ((int64_t)1 << 40);
}

static bool affine(tine_ctx_t *ctx, slide *S, const tine_expr_t *e, lin *f) {
    memset(f, 0, sizeof *f);
    if (e->type.lanes != 1 || e->type.kind != TINE_INT || e->type.bits != 32) {
        S->why = "is not an i32 value";
        return false;
    }
    lin x, y;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST: f->k = (int32_t)(uint32_t)tine_const_value(e, 0); return true;
    case TINE_OP_VAR:
        if (e == S->y) {
            f->a = 1;
            return true;
        }
        break;
    case TINE_OP_ADD:
    case TINE_OP_SUB:
        if (!affine(ctx, S, e->ops[0], f) || !affine(ctx, S, e->ops[1], &x)) return false;
        if (add_lin(f, &x, e->op == TINE_OP_ADD ? 1 : -1)) return true;
        S->why = "has too many terms";
        return false;
    case TINE_OP_NEG:
        if (!affine(ctx, S, e->ops[0], &x)) return false;
        return add_lin(f, &x, -1);
    case TINE_OP_MUL:
        if (!affine(ctx, S, e->ops[0], &x) || !affine(ctx, S, e->ops[1], &y)) return false;
        if (!x.a && !x.n && add_lin(f, &y, x.k)) return true;
        if (!y.a && !y.n && add_lin(f, &x, y.k)) return true;
        if (!x.a && !y.a) break; /* a product of invariants: one term */
        S->why = "multiplies the row coordinate by something that is not a constant";
        return false;
    default: break;
    }
    memset(f, 0, sizeof *f);
    if (invariant(ctx, S, e)) return add_term(f, (tine_expr_t *)e, 1);
    S->why = e->op == TINE_OP_VAR ? "depends on a loop inside the row loop (an inner coordinate or a reduction's variable)"
                                   : "is not a*y + b with b the same at every iteration (y / 2, min(y, c) ...)";
    return false;
}

/* Whether two forms have the same terms (the window's height is then constant). */
static bool same_terms(const lin *f, const lin *g) {
    int nf = 0, ng = 0;
    for (int i = 0; i < f->n; i++) nf += f->c[i] != 0;
    for (int i = 0; i < g->n; i++) ng += g->c[i] != 0;
    if (nf != ng) return false;
    for (int i = 0; i < f->n; i++) {
        if (!f->c[i]) continue;
        bool found = false;
        for (int j = 0; j < g->n && !found; j++) found = g->t[j] == f->t[i] && g->c[j] == f->c[i];
        if (!found) return false;
    }
    return true;
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
        } else if (*nw && (f.a != w->a || !same_terms(&f, w))) {
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
        int fold = 1;
        while (fold < hi - lo + 1) fold *= 2;
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
    }
    return true;
}
