/* kernel_stages.c — the stages of a kernel: the body of each materialized function and of
 * the output, elaborated (kernel_elab.c) at one lane and at the stage's vector width, in
 * an order where each stage follows those it reads, with the checks that need a body: the
 * buffer's element type (storage_type, store_as), the reductions the schedule vectorizes,
 * the limits on a body's operations and on points unrolled together.
 *
 * Elaborating: the first coordinate is vectorized. A body is elaborated twice — at the
 * vector width (the first coordinate a ramp from the scalar variable $.c0, the others
 * broadcasts of $.c1..$.c3) and at one lane (for outputs narrower than a vector) — with
 * every function not materialized inlined, every input access a load at the flattened
 * index (coordinate − min, times the stride; stride 0 of every buffer is 1), and
 * parameters and buffer geometry read from scalar variables (kernel_scalars.c). The
 * compiled code (codegen/kernel_gen.c) and the reference run evaluate these same bodies.
 */
#include "front.h"
#include "kernel.h"

static tine_expr_t *elaborate_at(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs,
                             const char *c0);

/* The body of function f at `lanes` lanes: its first coordinate a ramp from $.c0, the
 * others broadcasts of $.c1..; materialized functions it calls are loads. */
static tine_expr_t *elaborate(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs) {
    return elaborate_at(ctx, kn, o, lanes, rs, NULL);
}

/* As elaborate, with coordinate 0 the variable c0 (broadcast) when c0 is not NULL: the
 * bodies of a vectorized reduction (tine_rvec), computed for one point at a time. */
static tine_expr_t *elaborate_at(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs,
                             const char *c0) {
    tine_binding binds[4];
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int i = 0; i < o->nargs; i++) {
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", i);
        tine_expr_t *c = tine_var(ctx, i == 0 && c0 ? c0 : vn, i32);
        binds[i].name = o->args[i];
        binds[i].expr = i == 0 && !c0 ? tine_ramp(ctx, c, tine_const_int(ctx, i32, 1), lanes) : tine_broadcast(ctx, c, lanes);
    }
    rs->n = 0;
    rs->current = -1;
    tine_expr_t *e = tine_kernel_elaborate(ctx, &kn->ast, o->body, binds, o->nargs, lanes, rs);
    if (!e || o->kind != K_OUTPUT) return e;
    tine_type_t t;
    tine_parse_type_name(o->type->name, strlen(o->type->name), &t);
    if (e->type.kind != t.kind || e->type.bits != t.bits) {
        char a[32], b[32];
        tine_diag(ctx, kn->ast.src, o->type->line, o->type->col, "output '%s' is declared %s but its definition is %s", o->name,
             tine_type_name(t, a), tine_type_name(e->type, b));
        return NULL;
    }
    return e;
}

/* Whether reduction i of rs is `top` or nested in it. */
static bool inside(const tine_reductions *rs, int i, int top) {
    while (i >= 0 && i != top) i = rs->v[i].parent;
    return i == top;
}

/* The variable a vectorized reduction's terms read that its loop does not bind (the
 * result of another loop reduction, through a let), or NULL: each lane's loop computes
 * only its own reduction. */
static const char *rvec_foreign(tine_ctx_t *ctx, const tine_reductions *rs, int top) {
    const char *bad = NULL;
    for (int i = 0; i < rs->n && !bad; i++) {
        if (!inside(rs, i, top)) continue;
        tine_expr_t *roots[3] = {rs->v[i].update, rs->v[i].lo, rs->v[i].hi};
        for (int r = 0; r < 3 && !bad; r++) {
            uint32_t n;
            tine_expr_t **order = tine_topo(ctx, roots[r], &n);
            for (uint32_t j = 0; j < n && !bad; j++) {
                if (order[j]->op != TINE_OP_VAR) continue;
                const char *nm = tine_expr_name(order[j]);
                int x;
                char tail;
                if ((sscanf(nm, "$.red%d%c", &x, &tail) == 1 || sscanf(nm, "$.acc%d%c", &x, &tail) == 1 ||
                     sscanf(nm, "$.r%d%c", &x, &tail) == 1) &&
                    (x - rs->base < 0 || x - rs->base >= rs->n || !inside(rs, x - rs->base, top)))
                    bad = nm;
            }
            free(order);
        }
    }
    return bad;
}

/* The loop reduction nested in reduction `top` of rs whose bounds read top's variable, or
 * -1: vectorized, that variable is a vector, and a loop's bounds are one lane. */
static int rvec_bound_user(tine_ctx_t *ctx, const tine_reductions *rs, int top) {
    for (int i = 0; i < rs->n; i++) {
        if (i == top || !inside(rs, i, top)) continue;
        tine_expr_t *roots[2] = {rs->v[i].lo, rs->v[i].hi};
        for (int r = 0; r < 2; r++) {
            uint32_t n;
            tine_expr_t **order = tine_topo(ctx, roots[r], &n);
            bool hit = false;
            for (uint32_t j = 0; j < n && !hit; j++) hit = order[j] == rs->v[top].r;
            free(order);
            if (hit) return i;
        }
    }
    return -1;
}

/* `vectorize f.i N`, i the variable of reductions with constant bounds in f's body (or in
 * a function it inlines; no loop reduction has that name): both bodies elaborated again,
 * every such reduction running N terms at once at N times the lanes (kernel_elab.c,
 * elab_vreduce). The checks a loop reduction's vectorize has, where they apply. */
static bool cvec_directive(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *d, tine_stage *st,
                           const tine_kdirective *s) {
    const tine_kernel_ast *k = &kn->ast;
    if (st->reds1.cvec) {
        const tine_kdirective *first = k->sched;
        while (first->kind != TINE_DIR_VECTORIZE || strcmp(first->func, d->name) || strcmp(first->dim, st->reds1.cvec))
            first++;
        if (!strcmp(st->reds1.cvec, s->dim))
            return tine_kdirective_again(ctx, s, first, "%s.%s is already vectorized", d->name, s->dim);
        tine_diag(ctx, k->src, s->line, s->col,
                  "vectorize: '%s' already vectorizes its reductions over '%s' (at %d:%d); one variable of reductions "
                  "with constant bounds per stage so far", d->name, st->reds1.cvec, first->line, first->col);
        return false;
    }
    if (s->n == 0) {
        tine_diag(ctx, k->src, s->line, s->col, "vectorize: give the number of terms per step of a reduction with "
                  "constant bounds (natural is a loop's width)");
        return false;
    }
    if (s->n & (s->n - 1)) {
        tine_diag(ctx, k->src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
        return false;
    }
    if (s->n2) {
        tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                  "vectorize: acc sets the accumulator of a loop reduction; the reductions over '%s' have constant "
                  "bounds, and each point's %d terms per step are summed into its own lane", s->dim, s->n);
        return false;
    }
    tine_reductions *rs[2] = {&st->reds1, &st->reds};
    for (int i = 0; i < 2; i++) {
        rs[i]->cvec = s->dim;
        rs[i]->cvec_n = s->n;
        rs[i]->cvec_seen = rs[i]->cvec_float = 0;
    }
    tine_expr_t *b1 = elaborate(ctx, kn, d, 1, &st->reds1);
    if (b1 && st->reds1.cvec_seen == 0) {
        tine_diag(ctx, k->src, s->line, s->col, "vectorize: '%s' has no coordinate '%s' and no reduction over '%s'",
                  d->name, s->dim, s->dim);
        return false;
    }
    if (b1 && st->reds1.cvec_float) {
        tine_diag(ctx, k->src, s->line, s->col,
                  "vectorize: the reduction over '%s' is of floats, whose result depends on the order of its terms", s->dim);
        return false;
    }
    tine_expr_t *b = b1 ? elaborate(ctx, kn, d, st->lanes, &st->reds) : NULL;
    if (!b) return false;
    st->body1 = b1;
    st->body = b;
    return true;
}

/* The schedule's `vectorize f.k N` of stage st (d), k a loop reduction's variable: the
 * reduction found by name among the stage's (inlined functions included) and its bodies
 * elaborated for tine_rvec. Integer sums wrap and min and max are exact, so running the
 * terms in another order gives the same result; floats would not. */
static bool rvec_directives(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *d, tine_stage *st) {
    const tine_kernel_ast *k = &kn->ast;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        if (s->kind != TINE_DIR_VECTORIZE || strcmp(s->func, d->name)) continue;
        bool coord = false;
        for (int j = 0; j < d->nargs; j++) coord |= !strcmp(d->args[j], s->dim);
        if (coord || tine_kloops_find(d, s->dim) >= 0) continue; /* a coordinate's loop: schedule.c's */
        int found = -1, count = 0;
        for (int j = 0; j < st->reds1.n; j++)
            if (!strcmp(st->reds1.v[j].name, s->dim)) {
                if (found < 0) found = j;
                count++;
            }
        if (count == 0) {
            if (!cvec_directive(ctx, kn, d, st, s)) return false;
            continue;
        }
        if (count > 1) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: '%s' has %d loop reductions over '%s' (through the functions it calls); rename the "
                 "variables or materialize a function so that the name says which", d->name, count, s->dim);
            return false;
        }
        const tine_reduction *R = &st->reds1.v[found];
        if (R->parent >= 0) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the reduction over '%s' is inside another loop reduction (over '%s'); only an outermost "
                 "one can be vectorized so far", s->dim, st->reds1.v[R->parent].name);
            return false;
        }
        int user = rvec_bound_user(ctx, &st->reds1, found);
        if (user >= 0) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the bounds of the reduction over '%s' nested in it read '%s', which vectorizing makes a "
                 "vector; a loop's bounds must be one value", st->reds1.v[user].name, s->dim);
            return false;
        }
        tine_type_t T = R->acc->type;
        if (T.kind == TINE_FLOAT) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the reduction over '%s' is of floats, whose result depends on the order of its terms", s->dim);
            return false;
        }
        if (s->n & (s->n - 1)) {
            tine_diag(ctx, k->src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
            return false;
        }
        for (int j = 0; j < st->nrvec; j++)
            if (st->rvec[j].index == found) {
                int first = 0; /* the directive that vectorized it */
                while (k->sched[first].kind != TINE_DIR_VECTORIZE || strcmp(k->sched[first].func, d->name) ||
                       strcmp(k->sched[first].dim, s->dim))
                    first++;
                return tine_kdirective_again(ctx, s, &k->sched[first], "%s.%s is already vectorized", d->name, s->dim);
            }
        int N = s->n ? s->n : k->natural_bits / T.bits;
        if (!st->rvec) {
            st->rvec = tine_xcalloc((size_t)k->nsched, sizeof *st->rvec);
        }
        /* the accumulator fills 256 bits at most, at every level (a vpdpbusd's four terms a
           lane at AVX-512 as at AVX2): a sum of N terms per step
           adds N / acc adjacent terms per lane first (pmaddwd, vpdpbusd, psadbw); `acc A`
           chooses A lanes (Neon's SMLAL accumulates each product in a lane of its own) */
        int A = R->op == TINE_OP_ADD && N > TINE_NATURAL_BITS / T.bits ? TINE_NATURAL_BITS / T.bits : N;
        if (s->n2 && R->op != TINE_OP_ADD) {
            tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                      "vectorize: acc sets a sum's accumulator; the reduction over '%s' is not a sum", s->dim);
            return false;
        }
        if (s->n2 && (s->n2 > N || N % s->n2 || (s->n2 & (s->n2 - 1)))) {
            tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                      "vectorize: the accumulator's lanes must be a power of two that divides the %d terms per step, "
                      "not %d", N, s->n2);
            return false;
        }
        if (s->n2) A = s->n2;
        tine_rvec *v = &st->rvec[st->nrvec++];
        v->index = found;
        v->lanes = N;
        v->acc = A;
        v->vec.base = v->tail.base = st->reds1.base;
        v->vec.vector = found + 1;
        if (!elaborate_at(ctx, kn, d, N, &v->vec, "$.x0") || !elaborate_at(ctx, kn, d, 1, &v->tail, "$.x0")) return false;
        TINE_ASSERT(v->vec.n == st->reds1.n && v->tail.n == st->reds1.n);
        if (rvec_foreign(ctx, &v->vec, found)) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the terms of the reduction over '%s' read the result of another loop reduction; "
                 "materialize a function so that they read its buffer", s->dim);
            return false;
        }
    }
    return true;
}

/* The element type a materialized function's buffer stores: the narrowest integer type of
 * at most its own width that holds every value its body can take (bounds analysis), so that
 * a vertical pass of a stencil whose i32 sums stay below 2^16 keeps u16 rows (half the
 * memory traffic, twice the lanes per load); its readers widen what they load. */
static tine_type_t storage_type(tine_ctx_t *ctx, const tine_expr_t *body1) {
    tine_type_t t = tine_type_with_lanes(body1->type, 1);
    tine_i128 lo, hi;
    if (t.kind != TINE_INT && t.kind != TINE_UINT) return t;
    if (!tine_bounds(ctx, body1, &lo, &hi)) return t;
    for (int bits = 8; bits < t.bits; bits *= 2) {
        tine_type_t u = tine_type(TINE_UINT, bits, 1), s = tine_type(TINE_INT, bits, 1);
        if (lo >= 0 && hi < ((tine_i128)1 << bits)) return u;
        if (lo >= -((tine_i128)1 << (bits - 1)) && hi < ((tine_i128)1 << (bits - 1))) return s;
    }
    return t;
}

static tine_i128 type_min(tine_type_t t) { return t.kind == TINE_UINT ? 0 : -((tine_i128)1 << (t.bits - 1)); }
static tine_i128 type_max(tine_type_t t) { return ((tine_i128)1 << (t.bits - (t.kind == TINE_UINT ? 0 : 1))) - 1; }

/* `store_as f T`: T instead of storage_type's choice (a u8 copy of an image whose
 * readers compute in i16 widens at every tap; stored as i16 it is loaded as is). Exact
 * only when every value of f fits T: by bounds analysis, or else f's whole type does. */
static bool stored_as(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdecl *d, const tine_expr_t *body1,
                      tine_type_t *out) {
    tine_type_t t = tine_type_with_lanes(body1->type, 1), st = d->store_as;
    const tine_kdirective *s = &k->sched[d->store_as_sched - 1];
    tine_i128 lo = type_min(t), hi = type_max(t);
    if (t.kind != TINE_INT && t.kind != TINE_UINT) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: the values of '%s' are not integers; its buffer stores them as they are",
             d->name);
        return false;
    }
    tine_i128 blo, bhi;
    if (tine_bounds(ctx, body1, &blo, &bhi)) lo = blo, hi = bhi; /* unknown: the type's whole range */
    if (!tine_fits(st, lo) || !tine_fits(st, hi)) {
        char tb[16], los[48], his[48];
        tine_i128_str(lo, los);
        tine_i128_str(hi, his);
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' (%s) takes values in [%s, %s], which %s does not hold; "
             "stored as it, they would change", d->name, tine_type_name(t, tb), los, his, s->name);
        return false;
    }
    *out = st;
    return true;
}

/* Unrolled points of a stage with loop reductions (none vectorized) share one loop nest,
 * an accumulator each (stmt/build.c, unroll-and-jam): at most TINE_KLIMIT_JAM of them
 * (code size, and registers long before). The error is at the stage's last unroll. */
static bool jam_limit(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *d, const tine_stage *st) {
    if (st->reds1.n == 0 || st->nrvec > 0 || st->reshaped) return true; /* see jams() */
    int u0 = tine_kloop_unroll(tine_stage_loop(st, 0));
    int n = u0 * (st->dims > 1 && !st->tile[0] ? tine_kloop_unroll(tine_stage_loop(st, 1)) : 1);
    if (n <= TINE_KLIMIT_JAM) return true;
    const tine_kernel_ast *k = &kn->ast;
    const tine_kdirective *at = NULL;
    for (int i = 0; i < k->nsched; i++)
        if (k->sched[i].kind == TINE_DIR_UNROLL && !strcmp(k->sched[i].func, d->name)) at = &k->sched[i];
    TINE_ASSERT(at != NULL);
    tine_diag(ctx, k->src, at->line, at->col,
         "unroll: '%s' would compute %d points together (%d x %d), each with its own accumulators of the loop "
         "reductions; at most %d", d->name, n, u0, n / u0, TINE_KLIMIT_JAM);
    return false;
}

/* One stage: the body at one lane first (its errors name element types, u8, not vectors,
 * u8x32), which gives the element type and so the natural width (one vector register of
 * the target: tine_kernel_ast's natural_bits). */
static bool elaborate_stage(tine_ctx_t *ctx, tine_kernel_t *kn, tine_kdecl *d) {
    tine_stage *st = &kn->stages[kn->nstages];
    memset(st, 0, sizeof *st);
    /* loop variables of different stages are different nodes: a stage's loop ranges (its
       bounds facts while a run is planned) can never be taken for another stage's */
    for (int i = 0; i < kn->nstages; i++) st->reds1.base += kn->stages[i].reds1.n;
    st->reds.base = st->reds1.base;
    if (!(st->body1 = elaborate(ctx, kn, d, 1, &st->reds1))) return false;
    if (st->body1->type.kind == TINE_BOOL) {
        tine_diag(ctx, kn->ast.src, d->line, d->col, "'%s' is a condition (bool); materialize values, as in u8(c)", d->name);
        return false;
    }
    st->name = d->name;
    tine_type_t vt = tine_type_with_lanes(st->body1->type, 1);
    st->type = d->kind == K_FUNC ? storage_type(ctx, st->body1) : vt;
    if (d->store_as_sched && !stored_as(ctx, &kn->ast, d, st->body1, &st->type)) return false;
    st->dims = d->nargs;
    for (int i = 0; i < d->nargs; i++) st->coord[i] = d->args[i];
    st->lanes = d->lanes ? d->lanes : kn->ast.natural_bits / vt.bits;
    /* a function of one coordinate computed at a loop: that coordinate is its rows,
       computed one value each (schedule.c: never vectorized) */
    if (d->kind == K_FUNC && d->at_sched && d->nargs == 1) st->lanes = 1;
    st->tile[0] = d->tile[0];
    st->tile[1] = d->tile[1];
    st->nloops = tine_kloops_of(d, st->loops);
    st->reshaped = d->nloops > 0;
    if (!(st->body = elaborate(ctx, kn, d, st->lanes, &st->reds))) return false;
    if (!rvec_directives(ctx, kn, d, st)) return false;
    if (st->type.bits != vt.bits || st->type.kind != vt.kind) {
        st->body = tine_cast(ctx, st->type, st->body);
        st->body1 = tine_cast(ctx, st->type, st->body1);
    }
    if (!jam_limit(ctx, kn, d, st)) return false;
    uint32_t nodes;
    free(tine_topo(ctx, st->body, &nodes)); /* code generation is superlinear in a body's size */
    if (nodes > TINE_KLIMIT_NODES) {
        tine_diag(ctx, kn->ast.src, d->line, d->col,
             "'%s' has %u operations once the functions it calls are inlined; a stage has at most %d "
             "(materialize some of the functions it calls, or split it)", d->name, nodes, TINE_KLIMIT_NODES);
        return false;
    }
    d->mtype = st->type;
    d->vtype = vt;
    kn->sdecl[kn->nstages++] = d;
    return true;
}

/* The stages: materialized functions in an order where each comes after those it reads
 * (directly or through inlined functions), then the output. */
bool tine_front_elaborate(tine_kernel_t *kn) {
    tine_ctx_t *ctx = kn->ctx;
    tine_kernel_ast *k = &kn->ast;
    kn->cap = 1;
    for (int i = 0; i < k->ndecls; i++) kn->cap += k->decls[i].materialized;
    kn->stages = tine_xcalloc((size_t)kn->cap, sizeof *kn->stages);
    kn->sdecl = tine_xcalloc((size_t)kn->cap, sizeof *kn->sdecl);
    for (;;) {
        tine_kdecl *next = NULL;
        for (int i = 0; i < k->ndecls && !next; i++) {
            tine_kdecl *d = &k->decls[i];
            bool done = false, ready = d->materialized;
            for (int s = 0; s < kn->nstages; s++) done |= kn->sdecl[s] == d;
            for (int j = 0; j < k->ndecls && ready && !done; j++) {
                const tine_kdecl *e = &k->decls[j];
                bool elaborated = false;
                for (int s = 0; s < kn->nstages; s++) elaborated |= kn->sdecl[s] == e;
                if (e != d && e->materialized && !elaborated && tine_kernel_reaches(kn, d, e)) ready = false;
            }
            if (ready && !done) next = d;
        }
        if (!next) break;
        if (!elaborate_stage(ctx, kn, next)) return false;
    }
    return elaborate_stage(ctx, kn, (tine_kdecl *)kn->out);
}
