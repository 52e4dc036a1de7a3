/* widen.c — a loop written for 128-bit registers, run at the target's width.
 *
 * Neon and SSE code does 16 bytes per iteration; on AVX2 (32-byte registers) or AVX-512
 * (64) that leaves half or three quarters of each register empty. As Free Rider does, a
 * loop whose body is straight vector code, and whose counter moves each of its memory
 * accesses by a fixed number of bytes, is unrolled f times (the target's register over
 * the source's widest vector). The copies are one run, so what each stores is the
 * concat of f copies of one computation, which join.c makes one computation on the wide
 * vectors: a load whose copies read adjacent bytes is one wide load (each copy a slice
 * of it), a store likewise one wide store, written at the last copy. The loop as written
 * follows, for the iterations that remain.
 *
 * Merging moves every copy's loads before the first copy's stores and those stores after
 * the later copies' loads. That is right only where they do not overlap: accesses through
 * the same address expression are checked here, exactly; the others by the widened
 * loop's condition at run time (the byte ranges one iteration touches must be disjoint,
 * else the loop as written does the rest). A loop is not widened where nothing would join
 * (a value of the copies that stays a concat): it would only add work.
 */
#include "region.h"
#include "../targets/targets.h"

/* ---- how the counter moves an address --------------------------------------------------- */

/* How far an integer expression moves when the loop's counter moves by one. */
static bool int_delta(rt *r, const tine_cnode *e, int64_t *d) {
    int64_t a, b, c;
    if (rt_const_of(r, e, &a)) {
        *d = 0;
        return true;
    }
    switch (e->kind) {
    case TINE_CE_PAREN: return int_delta(r, e->kid[0], d);
    case TINE_CE_CAST: return e->type && e->type->kind == TINE_CT_INT && int_delta(r, e->kid[0], d);
    case TINE_CE_REF:
        if (!e->decl || !e->type || e->type->kind != TINE_CT_INT) return false;
        for (int c = 0; c < r->wide->nvar; c++)
            if (e->decl == r->wide->var[c]) {
                *d = r->wide->step[c]; /* from one copy to the next */
                return true;
            }
        /* a helper's copy of an argument: not followed (a constant one is one above);
           any other variable: the body, straight vector code, does not write it */
        if (rt_var_of(r, e->decl)) return false;
        *d = 0;
        return true;
    case TINE_CE_UNARY:
        if (!int_delta(r, e->kid[0], &a)) return false;
        if (!strcmp(e->name, "-")) *d = -a;
        else if (!strcmp(e->name, "+")) *d = a;
        else if (a == 0) *d = 0;
        else return false;
        return true;
    case TINE_CE_BINARY:
        if (!int_delta(r, e->kid[0], &a) || !int_delta(r, e->kid[1], &b)) return false;
        if (!strcmp(e->name, "+")) *d = a + b;
        else if (!strcmp(e->name, "-")) *d = a - b;
        else if (!strcmp(e->name, "*") && rt_const_of(r, e->kid[0], &c)) *d = c * b;
        else if (!strcmp(e->name, "*") && rt_const_of(r, e->kid[1], &c)) *d = a * c;
        else if (!strcmp(e->name, "<<") && rt_const_of(r, e->kid[1], &c) && c >= 0 && c < 32) *d = a * ((int64_t)1 << c);
        else if (a == 0 && b == 0) *d = 0;
        else return false;
        return true;
    default: return false;
    }
}

/* The size of what a pointer or an array points to, in bytes (0: unknown). */
static int64_t pointee_bytes(const tine_ctype *t) {
    if (!t || (t->kind != TINE_CT_PTR && t->kind != TINE_CT_ARRAY) || !t->pointee) return 0;
    const tine_ctype *p = t->pointee;
    if (p->kind == TINE_CT_INT) return p->elem.bits / 8;
    if (p->kind == TINE_CT_VECTOR) return (int64_t)p->elem.bits * p->elem.lanes / 8;
    return 0;
}

/* How many bytes an address moves when the loop's counter moves by one. */
static bool ptr_delta(rt *r, const tine_cnode *e, int64_t *d) {
    int64_t a, b, size;
    const tine_ctype *t = e->type;
    switch (e->kind) {
    case TINE_CE_PAREN: return ptr_delta(r, e->kid[0], d);
    case TINE_CE_CAST: /* (const __m128i *)(p + i): the same address */
        return e->kid[0]->type && (e->kid[0]->type->kind == TINE_CT_PTR || e->kid[0]->type->kind == TINE_CT_ARRAY) &&
               ptr_delta(r, e->kid[0], d);
    case TINE_CE_REF:
        if (!e->decl || !t || (t->kind != TINE_CT_PTR && t->kind != TINE_CT_ARRAY) || rt_var_of(r, e->decl)) return false;
        *d = 0;
        return true;
    case TINE_CE_BINARY: {
        if (strcmp(e->name, "+") && strcmp(e->name, "-")) return false;
        const tine_cnode *p = e->kid[0], *k = e->kid[1];
        if (!strcmp(e->name, "+") && k->type && k->type->kind != TINE_CT_INT) p = e->kid[1], k = e->kid[0];
        if (!(size = pointee_bytes(p->type)) || !ptr_delta(r, p, &a) || !int_delta(r, k, &b)) return false;
        *d = !strcmp(e->name, "+") ? a + b * size : a - b * size;
        return true;
    }
    case TINE_CE_UNARY: /* &p[k] */
        if (strcmp(e->name, "&") || e->kid[0]->kind != TINE_CE_SUBSCRIPT) return false;
        e = e->kid[0];
        if (!(size = pointee_bytes(e->kid[0]->type)) || !ptr_delta(r, e->kid[0], &a) || !int_delta(r, e->kid[1], &b)) return false;
        *d = a + b * size;
        return true;
    default: return false;
    }
}

/* ---- the accesses --------------------------------------------------------------------------- */

static bool refuse(rt *r, const char *why) {
    if (!r->wide->why) r->wide->why = why;
    r->failed = true;
    return false;
}

/* An address as a base and a constant number of bytes: src + i + 4 is (src + i) + 16 for
 * an int32_t pointer, so that the accesses of a copy find their neighbours. */
static char *split_addr(rt *r, const tine_cnode *p, int64_t *off) {
    int64_t c, size;
    while (p->kind == TINE_CE_PAREN) p = p->kid[0];
    if (p->kind == TINE_CE_BINARY && (!strcmp(p->name, "+") || !strcmp(p->name, "-")) && p->kid[1]->type &&
        p->kid[1]->type->kind == TINE_CT_INT && rt_const_of(r, p->kid[1], &c) && (size = pointee_bytes(p->kid[0]->type))) {
        *off += (p->name[0] == '+' ? c : -c) * size;
        return split_addr(r, p->kid[0], off);
    }
    return rt_ptr_text(r, p);
}

/* The access the copy being evaluated is at: recorded while planning, else the plan's,
 * which it must be (the copies run the same statements). */
static rt_access *next_access(rt *r, const tine_cnode *p, tine_type_t elem, int64_t bytes, bool store) {
    rt_wide *w = r->wide;
    int64_t delta, off = 0;
    if (!ptr_delta(r, p, &delta)) return refuse(r, "an address the loop's counter moves in a way tine does not follow"), NULL;
    char *base = split_addr(r, p, &off);
    if (!base) return NULL;
    if (w->planning) {
        TINE_GROW(w->acc, w->nacc + 1, w->capacc);
        rt_access *a = &w->acc[w->nacc++];
        *a = (rt_access){base, off, delta, bytes, elem, store, -1};
        w->seq++;
        return a;
    }
    rt_access *a = w->seq < w->nacc ? &w->acc[w->seq++] : NULL;
    bool same = a && !strcmp(a->base, base) && a->off == off && a->delta == delta && a->bytes == bytes && a->store == store;
    free(base);
    return same ? a : (refuse(r, "copies of the body that differ"), NULL);
}

tine_expr_t *rt_wide_load(rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out) {
    rt_wide *w = r->wide;
    rt_access *a = next_access(r, p, elem, (int64_t)lanes * elem.bits / 8, false);
    if (!a) return NULL;
    int k = (int)(a - w->acc);
    if (a->win < 0) return rt_load_at(r, a->base, a->off + w->copy * a->delta, elem, lanes, out);
    rt_window *g = &w->win[a->win];
    int64_t esize = elem.bits / 8;
    if (w->copy == 0 && k == g->first && !(g->wide = rt_load_at(r, a->base, g->lo, elem, (int)((g->hi - g->lo) / esize), out)))
        return NULL;
    return tine_slice(r->ctx, g->wide, (int)((a->off + w->copy * a->delta - g->lo) / esize), 1, lanes);
}

bool rt_wide_store(rt *r, tine_expr_t *v, const tine_cnode *p, tine_cpos at, tine_buf *out) {
    rt_wide *w = r->wide;
    rt_access *a = next_access(r, p, tine_type_with_lanes(v->type, 1), (int64_t)v->type.lanes * v->type.bits / 8, true);
    if (!a) return false;
    if (w->planning) { /* an accumulator's value stored is a partial one once widened */
        for (int i = 0; i < w->nplan; i++)
            if (tine_dag_contains(r->ctx, v, w->plan[i])) return refuse(r, "it stores a vector it carries from one iteration to the next");
        return true;
    }
    if (a->win < 0) return rt_store_at(r, a->base, a->off + w->copy * a->delta, v, at, out);
    rt_window *g = &w->win[a->win];
    g->part[g->nparts] = v;
    g->part_off[g->nparts++] = a->off + w->copy * a->delta;
    if (w->copy < w->f - 1 || (int)(a - w->acc) != g->last) return true;
    /* the last: every copy's values, by address (they tile the window) */
    for (int i = 1; i < g->nparts; i++)
        for (int j = i; j > 0 && g->part_off[j - 1] > g->part_off[j]; j--) {
            int64_t t = g->part_off[j]; g->part_off[j] = g->part_off[j - 1]; g->part_off[j - 1] = t;
            tine_expr_t *e = g->part[j]; g->part[j] = g->part[j - 1]; g->part[j - 1] = e;
        }
    tine_expr_t *all = tine_concat(r->ctx, g->nparts, g->part);
    return all && rt_store_at(r, a->base, g->lo, all, at, out);
}

/* The windows: the accesses of one base, one element type, one direction and one step
 * whose copies tile a range of bytes without a gap or an overlap (a load or a store per
 * copy at the next bytes; vld1q_s32 at i, i+4, i+8, i+12 in each copy of 16) are one
 * access of that range: a load with copy 0's first, a store with the last copy's last. */
/* Whether members (accesses of one base, kind and step) tile their range in every copy;
 * a window of them if so. */
static bool window(rt_wide *w, const int *members, int nm) {
    int n = nm * w->f;
    int64_t (*iv)[2] = tine_xmalloc(sizeof *iv * (size_t)n);
    for (int m = 0; m < nm; m++)
        for (int j = 0; j < w->f; j++) {
            const rt_access *b = &w->acc[members[m]];
            iv[m * w->f + j][0] = b->off + j * b->delta;
            iv[m * w->f + j][1] = b->off + j * b->delta + b->bytes;
        }
    for (int x = 1; x < n; x++) /* sorted: each must start where the one before ends */
        for (int y = x; y > 0 && iv[y - 1][0] > iv[y][0]; y--) {
            int64_t t0 = iv[y][0], t1 = iv[y][1];
            iv[y][0] = iv[y - 1][0], iv[y][1] = iv[y - 1][1];
            iv[y - 1][0] = t0, iv[y - 1][1] = t1;
        }
    int64_t esize = w->acc[members[0]].elem.bits / 8;
    bool tiles = iv[n - 1][1] - iv[0][0] <= 512 && esize > 0 && w->acc[members[0]].delta % esize == 0;
    for (int m = 0; m < nm && tiles; m++) tiles = (w->acc[members[m]].off - iv[0][0]) % esize == 0;
    for (int x = 1; x < n && tiles; x++) tiles = iv[x][0] == iv[x - 1][1];
    if (tiles) {
        rt_window *g = &w->win[w->nwin];
        int id = w->nwin++;
        *g = (rt_window){iv[0][0], iv[n - 1][1], members[0], members[nm - 1], NULL, NULL, NULL, 0};
        if (w->acc[members[0]].store) {
            g->part = tine_xmalloc(sizeof *g->part * (size_t)n);
            g->part_off = tine_xmalloc(sizeof *g->part_off * (size_t)n);
        }
        for (int m = 0; m < nm; m++) w->acc[members[m]].win = id;
    }
    free(iv);
    return tiles;
}

static void plan_windows(rt_wide *w) {
    for (int i = 0; i < w->nacc; i++) {
        rt_access *a = &w->acc[i];
        if (a->win >= 0 || a->delta <= 0) continue;
        int members[64], nm = 0;
        for (int k = i; k < w->nacc && nm < 64; k++) {
            rt_access *b = &w->acc[k];
            if (b->win < 0 && b->store == a->store && b->delta == a->delta && !strcmp(b->base, a->base) &&
                tine_type_eq(b->elem, a->elem))
                members[nm++] = k;
        }
        /* all of them, else each alone (src + i + 1 and src + i + 2, each its own window) */
        if (!window(w, members, nm))
            for (int m = 0; m < nm; m++) window(w, &members[m], 1);
    }
}

/* ---- the loop -------------------------------------------------------------------------------- */

/* The bytes of the widest vector a statement names (0 if none). */
static int widest(const tine_cnode *s) {
    int m = 0;
    if (!s) return 0;
    const tine_ctype *t = s->type;
    while (t && (t->kind == TINE_CT_ARRAY || t->kind == TINE_CT_TUPLE || t->kind == TINE_CT_PTR) && t->pointee) t = t->pointee;
    if (t && t->kind == TINE_CT_VECTOR) m = t->elem.bits * t->elem.lanes / 8;
    for (int i = 0; i < s->nkids; i++) {
        int k = widest(s->kid[i]);
        if (k > m) m = k;
    }
    return m;
}

/* Whether an expression only reads integers (a loop condition: no call, no assignment, no
 * memory). */
static bool pure(const tine_cnode *e) {
    switch (e->kind) {
    case TINE_CE_PAREN: case TINE_CE_CAST: case TINE_CE_INT: break;
    case TINE_CE_REF: return e->type && e->type->kind == TINE_CT_INT;
    case TINE_CE_UNARY: if (strcmp(e->name, "-") && strcmp(e->name, "!") && strcmp(e->name, "~")) return false; break;
    case TINE_CE_BINARY:
        if (strchr("=", e->name[strlen(e->name) - 1]) && strcmp(e->name, "==") && strcmp(e->name, "<=") &&
            strcmp(e->name, ">=") && strcmp(e->name, "!="))
            return false; /* an assignment */
        break;
    default: return false;
    }
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i] && !pure(e->kid[i])) return false;
    return true;
}

/* The text of e with each counter read as it is in the last copy (i + (f-1)*K). */
static void shifted_text(rt *r, const tine_cnode *e, const rt_wide *w, unsigned *pos, tine_buf *b, bool *ok) {
    for (int c = 0; e->kind == TINE_CE_REF && c < w->nvar; c++)
        if (e->decl == w->var[c]) {
            if (e->from_macro) *ok = false;
            tine_buf_printf(b, "%.*s(%s + %lld)", (int)(e->range.begin.off - *pos), r->text + *pos, w->var[c]->name,
                            (long long)((w->f - 1) * w->step[c]));
            *pos = e->range.end.off;
            return;
        }
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i] && e->kid[i]->range.begin.off >= *pos) shifted_text(r, e->kid[i], w, pos, b, ok);
}

/* The loop's counters and steps: i += K, i++ or ++i, or several of them joined by commas
 * (k++, i += 16). */
static bool counters(const tine_cnode *inc, rt_wide *w) {
    if (inc->kind == TINE_CE_BINARY && !strcmp(inc->name, ",")) return counters(inc->kid[0], w) && counters(inc->kid[1], w);
    if (w->nvar == 4) return false;
    if (inc->kind == TINE_CE_UNARY && (!strcmp(inc->name, "++") || !strcmp(inc->name, "post++")) &&
        inc->kid[0]->kind == TINE_CE_REF && inc->kid[0]->decl) {
        w->var[w->nvar] = inc->kid[0]->decl;
        w->step[w->nvar++] = 1;
        return inc->kid[0]->type && inc->kid[0]->type->kind == TINE_CT_INT;
    }
    if (inc->kind == TINE_CE_BINARY && !strcmp(inc->name, "+=") && inc->kid[0]->kind == TINE_CE_REF && inc->kid[0]->decl &&
        inc->kid[1]->is_const && inc->kid[1]->value > 0 && inc->kid[1]->value < 1 << 20) {
        w->var[w->nvar] = inc->kid[0]->decl;
        w->step[w->nvar++] = inc->kid[1]->value;
        return inc->kid[0]->type && inc->kid[0]->type->kind == TINE_CT_INT;
    }
    return false;
}

/* Where the widened loop does copy j's access k: a load of a window with copy 0's first
 * access of it, a store of a window with the last copy's last; else where it was. */
static void moved_to(const rt_wide *w, int k, int j, int *nj, int *nk) {
    const rt_access *a = &w->acc[k];
    *nj = j, *nk = k;
    if (a->win >= 0) *nj = a->store ? w->f - 1 : 0, *nk = a->store ? w->win[a->win].last : w->win[a->win].first;
}

static bool before(int j1, int k1, int j2, int k2) { return j1 < j2 || (j1 == j2 && k1 < k2); }

/* The byte range [lo, hi) of a base that an iteration of the widened loop touches, and
 * whether its accesses move alike (*delta, or INT64_MIN if not). */
static void base_span(const rt_wide *w, const char *base, int64_t *lo, int64_t *hi, int64_t *delta) {
    *lo = INT64_MAX, *hi = INT64_MIN;
    bool first = true;
    for (int i = 0; i < w->nacc; i++) {
        const rt_access *a = &w->acc[i];
        if (strcmp(a->base, base)) continue;
        int64_t last = (w->f - 1) * a->delta, l = a->off + (last < 0 ? last : 0), h = a->off + (last > 0 ? last : 0) + a->bytes;
        if (l < *lo) *lo = l;
        if (h > *hi) *hi = h;
        if (first) *delta = a->delta;
        else if (*delta != a->delta) *delta = INT64_MIN;
        first = false;
    }
}

/* The run-time condition under which the widened loop does what the loop as written
 * does. Every pair of access instances, one of them a store, that the widened loop does
 * in another order must not overlap: at one base that is known here (the loop is not
 * widened if they do); at two bases, the ranges each base's accesses touch in an
 * iteration must be disjoint. Two bases that move alike keep their distance, so they are
 * checked once, before the loop (*pre); others in every iteration (*in). */
static bool alias_checks(rt *r, tine_buf *pre, tine_buf *in) {
    rt_wide *w = r->wide;
    int nb = 0;
    const char **bases = tine_xmalloc(sizeof *bases * (size_t)(w->nacc + 1));
    for (int i = 0; i < w->nacc; i++) {
        int k = 0;
        while (k < nb && strcmp(bases[k], w->acc[i].base)) k++;
        if (k == nb) bases[nb++] = w->acc[i].base;
    }
    bool *pair = tine_xcalloc((size_t)(nb * nb) + 1, 1);
    for (int ka = 0; ka < w->nacc; ka++)
        for (int kb = ka; kb < w->nacc; kb++) {
            const rt_access *a = &w->acc[ka], *b = &w->acc[kb];
            if (!a->store && !b->store) continue;
            for (int ja = 0; ja < w->f; ja++)
                for (int jb = 0; jb < w->f; jb++) {
                    int na, ma, nb2, mb;
                    if (ka == kb && ja == jb) continue;
                    moved_to(w, ka, ja, &na, &ma);
                    moved_to(w, kb, jb, &nb2, &mb);
                    bool was = before(ja, ka, jb, kb), tie = na == nb2 && ma == mb;
                    if (tie || was == before(na, ma, nb2, mb)) continue;
                    if (!strcmp(a->base, b->base)) {
                        int64_t a0 = a->off + ja * a->delta, b0 = b->off + jb * b->delta;
                        if (a0 < b0 + b->bytes && b0 < a0 + a->bytes) {
                            free(bases), free(pair);
                            return refuse(r, "its copies write memory another copy reads or writes");
                        }
                        continue;
                    }
                    int x = 0, y = 0;
                    while (strcmp(bases[x], a->base)) x++;
                    while (strcmp(bases[y], b->base)) y++;
                    pair[x < y ? x * nb + y : y * nb + x] = true;
                }
        }
    for (int x = 0; x < nb; x++)
        for (int y = x + 1; y < nb; y++) {
            if (!pair[x * nb + y]) continue;
            int64_t alo, ahi, ad, clo, chi, cd;
            base_span(w, bases[x], &alo, &ahi, &ad);
            base_span(w, bases[y], &clo, &chi, &cd);
            tine_buf *b = ad == cd && ad != INT64_MIN ? pre : in;
            tine_buf_printf(b, "%s%s    ((uintptr_t)(const char *)(%s) + %lld <= (uintptr_t)(const char *)(%s) + %lld ||\n"
                               "%s     (uintptr_t)(const char *)(%s) + %lld <= (uintptr_t)(const char *)(%s) + %lld)",
                            b->n ? " &&\n" : "", r->indent, bases[x], (long long)ahi, bases[y], (long long)clo, r->indent,
                            bases[y], (long long)chi, bases[x], (long long)alo);
        }
    free(bases), free(pair);
    return true;
}

/* The target's vector register, in bytes. */
static int target_bytes(const char *to) {
    const tine_target_info *t = tine_target_find(to);
    const char *f = t ? t->features : NULL;
    return !f ? 16 : strstr(f, "avx512bw") ? 64 : strstr(f, "avx2") ? 32 : 16;
}

static void drop_state(rt_wide *w) {
    for (int i = 0; i < w->nacc; i++) free(w->acc[i].base);
    for (int i = 0; i < w->nwin; i++) free(w->win[i].part), free(w->win[i].part_off);
    free(w->acc);
    free(w->win);
}

/* ---- accumulators ---------------------------------------------------------------------- */

/* A vector the loop carries from one iteration to the next, assigned whole (acc =
 * vpadalq_u8(acc, x)). Widened, each copy adds into its own slice of a variable f times as
 * wide (copy j's acc is slice j of it), so the copies' updates join into one wide update;
 * the slices are combined after the loop. That is the loop's result only if the update is
 * acc OP t with OP associative and commutative (wrapping add, min, max, and, or, xor) and
 * t free of acc: checked on copy 0's value while planning, and on every copy's. */
typedef struct {
    int vi;                /* its variable (an index: the table may grow) */
    tine_expr_t *was;      /* its value before the loop (a leaf of its C variable, or known) */
    tine_op_t op;
    int grp, k;            /* its group, and its place in it */
    tine_expr_t *plan, *slice[16], *part[16];
} acc_state;

/* The accumulators of one op and type share one wide variable, copy by copy (copy 0's
 * acc0, acc1, then copy 1's ...): a loop that already splits its sum in two (acc0 over
 * the low half of what it reads, acc1 over the high) then reads memory in that order. */
typedef struct {
    int m;                 /* members */
    tine_type_t wt;
    char wname[48];
    tine_expr_t *wleaf;
} acc_group;


/* Counts x among the operands of a tree of op (false if x is inside another operand). */
static bool op_tree(tine_ctx_t *ctx, tine_expr_t *e, tine_op_t op, const tine_expr_t *x, int *count) {
    if (e == x) return ++*count, true;
    if (e->op != op) return !tine_dag_contains(ctx, e, x);
    for (int i = 0; i < e->nops; i++)
        if (!op_tree(ctx, e->ops[i], op, x, count)) return false;
    return true;
}

/* Whether v is acc OP t with t free of acc, for an OP the copies may split. */
static bool acc_update(tine_ctx_t *ctx, tine_expr_t *v, const tine_expr_t *acc, tine_op_t *op) {
    int count = 0;
    switch (v->op) {
    case TINE_OP_ADD: case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR: break;
    default: return false;
    }
    *op = (tine_op_t)v->op;
    return op_tree(ctx, v, *op, acc, &count) && count == 1;
}

bool rt_widen_loop(rt *r, const tine_cnode *s, const tine_cnode *const *accs, int nacc, tine_buf *out, char **rest,
                   bool *close) {
    const tine_cnode *init = s->kid[0], *cond = s->kid[1], *inc = s->kid[2], *bd = s->kid[3];
    rt_wide w = {0};
    int src = widest(bd), tb = target_bytes(r->to);
    /* a loop of 128-bit (or wider) vectors: a loop of 64-bit ones is most often what
       remains after one, a few iterations at most */
    if (!cond || !inc || src < 16 || tb <= src || tb % src || !pure(cond) || !counters(inc, &w)) return false;
    w.f = tb / src;
    /* a loop that carries accumulators runs at the latency of their updates, one per
       iteration: twice the copies are two registers' worth of independent chains */
    if (nacc && w.f * 2 <= 16) w.f *= 2;
    /* the condition with the last copy's counter */
    tine_buf c2 = {0};
    tine_buf_puts(&c2, "");
    unsigned pos = cond->range.begin.off;
    bool ok = true;
    shifted_text(r, cond, &w, &pos, &c2, &ok);
    tine_buf_printf(&c2, "%.*s", (int)(cond->range.end.off - pos), r->text + pos);
    if (!ok || cond->from_macro) {
        free(c2.p);
        return false;
    }
    /* a counter declared by the loop is declared before both loops, in a block */
    *close = init && init->kind == TINE_CS_DECL;
    /* the copies, one run, written one level in (two in the block) */
    char saved[64];
    memcpy(saved, r->indent, sizeof saved);
    size_t il = strlen(r->indent), in = *close ? 8 : 4;
    if (il + in >= sizeof r->indent) return free(c2.p), false;
    memset(r->indent + il, ' ', in);
    r->indent[il + in] = 0;
    tine_buf body = {0};
    tine_buf_puts(&body, "");
    int nv0 = r->nvars, rep0 = r->report ? tine_rt_report_count(r->report) : 0, rep1 = rep0;
    int peep0 = r->report ? tine_rt_report_peep_mark(r->report) : 0;
    r->wide = &w;
    /* the accumulators: their values before the loop, and a leaf for copy 0's while planning */
    acc_state as[8];
    int nas = 0; /* those set up */
    for (int a = 0; a < nacc && !r->failed; a++, nas++) {
        vvar *v = rt_var_of(r, accs[a]);
        if (!v || v->n != 1 || v->scalar || v->is_constant) {
            refuse(r, "a vector it carries that is not a local variable");
            break;
        }
        as[a].vi = (int)(v - r->vars);
        as[a].was = v->val[0] ? v->val[0] : v->leaf[0];
        as[a].plan = rt_leaf(r, "tine_acc_plan", v->ir);
        v->val[0] = as[a].plan;
        w.plan[w.nplan++] = as[a].plan;
    }
    /* copy 0 once, to find the accesses and plan the windows (nothing it writes is kept) */
    tine_buf scratch = {0};
    tine_buf_puts(&scratch, "");
    w.planning = true;
    tine_expr_t *pv[TINE_RT_MAXVEC];
    int pn = 0;
    if (!r->failed && r->run_body(r, bd, pv, &pn, &scratch) != 0 && !r->failed) refuse(r, "a return in the loop");
    for (int a = 0; a < nacc && !r->failed; a++)
        if (!acc_update(r->ctx, r->vars[as[a].vi].val[0], as[a].plan, &as[a].op))
            refuse(r, "a vector it carries from one iteration to the next, updated otherwise than by acc + t (or min, max, and, or, xor)");
        else
            for (int b = 0; b < nacc && !r->failed; b++) /* nor from another's */
                if (b != a && tine_dag_contains(r->ctx, r->vars[as[a].vi].val[0], as[b].plan))
                    refuse(r, "a vector it carries from one iteration to the next, updated from another");
    free(scratch.p);
    w.planning = false;
    r->nvars = nv0;
    /* the groups' wide variables, declared before the loop: each accumulator's value in
       copy 0's slot, the op's identity in the others' (its value again for min and max) */
    tine_buf accinit = {0}, accpost = {0};
    tine_buf_puts(&accinit, "");
    tine_buf_puts(&accpost, "");
    char lvl[64]; /* the loops' own indent (in the block, one level in) */
    memcpy(lvl, saved, sizeof lvl);
    if (*close) memcpy(lvl + il, "    ", 5); /* il + 8 < 64: checked above */
    acc_group gs[8];
    int ng = 0;
    for (int a = 0; a < nacc && !r->failed; a++) {
        tine_type_t t = r->vars[as[a].vi].ir;
        int g = 0;
        for (; g < ng; g++) {
            int b = 0;
            while (b < a && as[b].grp != g) b++;
            if (as[b].op == as[a].op && tine_type_eq(r->vars[as[b].vi].ir, t)) break;
        }
        if (g == ng) gs[ng++] = (acc_group){0};
        as[a].grp = g;
        as[a].k = gs[g].m++;
    }
    for (int g = 0; g < ng && !r->failed; g++) {
        int first = 0;
        while (as[first].grp != g) first++;
        tine_type_t t = r->vars[as[first].vi].ir;
        int L = t.lanes, m = gs[g].m;
        gs[g].wt = tine_type_with_lanes(t, L * m * w.f);
        snprintf(gs[g].wname, sizeof gs[g].wname, "%s_w%d", r->vars[as[first].vi].name, r->ntmp++);
        tine_expr_t *parts[128];
        for (int a = 0; a < nacc; a++) {
            if (as[a].grp != g) continue;
            for (int j = 0; j < w.f; j++)
                parts[j * m + as[a].k] = j == 0 || as[a].op == TINE_OP_MIN || as[a].op == TINE_OP_MAX
                                             ? as[a].was
                                             : tine_const_int(r->ctx, t, as[a].op == TINE_OP_AND ? -1 : 0);
        }
        memcpy(r->indent, lvl, sizeof lvl);
        r->wide = NULL; /* outside the copies: a concat by nature */
        const char *c = rt_sink(r, tine_concat(r->ctx, m * w.f, parts), &accinit, s->range.begin);
        r->wide = &w;
        char ty[48];
        if (c) tine_buf_printf(&accinit, "%s%s %s = %s;\n", r->indent, tine_cemit_type(r->em, gs[g].wt, ty, sizeof ty), gs[g].wname, c);
        gs[g].wleaf = rt_leaf(r, gs[g].wname, gs[g].wt);
        for (int a = 0; a < nacc; a++)
            if (as[a].grp == g)
                for (int j = 0; j < w.f; j++) as[a].slice[j] = tine_slice(r->ctx, gs[g].wleaf, (j * m + as[a].k) * L, 1, L);
    }
    memset(r->indent + il, ' ', in);
    r->indent[il + in] = 0;
    tine_cemit_forget(r->em);
    if (r->report) tine_rt_report_cut(r->report, rep0, tine_rt_report_count(r->report)), tine_rt_report_peep_drop(r->report, peep0);
    /* a body that already stores a register of the target's width a copy (vst1q_u8_x2's
       32 bytes, vst4q_u8's 64) fills it as written */
    for (int i = 0; i < w.nacc && !r->failed; i++)
        if (w.acc[i].store && w.acc[i].bytes >= tb) refuse(r, "it stores a whole register of the target's at once");
    w.win = tine_xcalloc((size_t)w.nacc + 1, sizeof *w.win);
    plan_windows(&w);
    int loops0 = tine_cemit_lane_loops(r->em);
    for (w.copy = 0; w.copy < w.f && !r->failed; w.copy++) {
        w.seq = 0;
        tine_expr_t *vals[TINE_RT_MAXVEC];
        int n = 0;
        for (int a = 0; a < nas; a++) r->vars[as[a].vi].val[0] = as[a].slice[w.copy];
        if (r->run_body(r, bd, vals, &n, &body) != 0 && !r->failed) refuse(r, "a return in the loop");
        for (int a = 0; a < nacc && !r->failed; a++) {
            tine_op_t op;
            as[a].part[w.copy] = r->vars[as[a].vi].val[0];
            if (!acc_update(r->ctx, as[a].part[w.copy], as[a].slice[w.copy], &op) || op != as[a].op)
                refuse(r, "copies of the body that differ");
        }
        if (!r->failed && w.seq != w.nacc) refuse(r, "copies of the body that differ");
        if (w.copy == 0 && r->report) rep1 = tine_rt_report_count(r->report);
    }
    /* the groups' wide updates, at the end of the body (while the copies' values must
       join), and each accumulator's slots combined after the loop */
    for (int g = 0; g < ng && !r->failed; g++) {
        tine_expr_t *parts[128];
        for (int a = 0; a < nacc; a++)
            if (as[a].grp == g)
                for (int j = 0; j < w.f; j++) parts[j * gs[g].m + as[a].k] = as[a].part[j];
        const char *c = rt_sink(r, tine_concat(r->ctx, gs[g].m * w.f, parts), &body, s->range.begin);
        if (c) tine_buf_printf(&body, "%s%s = %s;\n", r->indent, gs[g].wname, c);
    }
    tine_cemit_forget(r->em);
    memcpy(r->indent, lvl, sizeof lvl);
    for (int a = 0; a < nacc && !r->failed; a++) {
        vvar *v = &r->vars[as[a].vi];
        tine_expr_t *red = as[a].slice[0];
        for (int j = 1; j < w.f; j++) red = tine_binary(r->ctx, as[a].op, red, as[a].slice[j]);
        r->wide = NULL;
        const char *c = red ? rt_sink(r, red, &accpost, s->range.begin) : NULL;
        r->wide = &w;
        if (c) tine_buf_printf(&accpost, "%s%s = %s;\n", r->indent, v->name, c);
        r->declused[v->mark] = true;
    }
    for (int a = 0; a < nas; a++) r->vars[as[a].vi].val[0] = NULL, r->vars[as[a].vi].dirty = false;
    r->nvars = nv0;
    tine_buf checks = {0}, pre = {0};
    tine_buf_puts(&checks, "");
    tine_buf_puts(&pre, "");
    if (!r->failed && w.unjoined) refuse(r, "values its copies do not join into one computation");
    /* an op done lane by lane is as slow at any width, and a longer loop of it slower */
    if (!r->failed && tine_cemit_lane_loops(r->em) > loops0) refuse(r, "values computed lane by lane");
    if (!r->failed) alias_checks(r, &pre, &checks);
    r->wide = NULL;
    memcpy(r->indent, saved, sizeof saved);
    tine_cemit_forget(r->em);
    if (getenv("TINE_RETARGET_TRACE"))
        fprintf(stderr, "widen %d:%d: %d copies: %s\n", s->range.begin.line, s->range.begin.col, w.f,
                !r->failed ? "widened" : w.why ? w.why : tine_error(r->ctx) ? tine_error(r->ctx) : "?");
    if (r->failed) { /* the loop is rewritten as written */
        r->failed = false;
        tine_clear_error(r->ctx);
        if (r->report) tine_rt_report_cut(r->report, rep0, tine_rt_report_count(r->report)), tine_rt_report_peep_drop(r->report, peep0);
        drop_state(&w);
        free(c2.p), free(body.p), free(checks.p), free(pre.p), free(accinit.p), free(accpost.p);
        return false;
    }
    if (r->report) {
        tine_rt_report_cut(r->report, rep1, tine_rt_report_count(r->report));
        tine_rt_report_widen(r->report, rep0, rep1, w.f, tb * 8);
    }
    char *ctext = rt_dup_range(r, cond->range), *itext = rt_dup_range(r, inc->range);
    if (*close) {
        size_t len;
        tine_cfile_text(r->f, &len);
        unsigned e = init->range.begin.off; /* to its ';' (the declaration's range may include it) */
        while (e < len && r->text[e] != ';') e++;
        tine_buf_printf(out, "%s{\n%s    %.*s;\n", r->indent, r->indent, (int)(e - init->range.begin.off), r->text + init->range.begin.off);
        memcpy(r->indent + il, "    ", 5); /* both loops in the block (the caller closes it) */
    }
    char *itext0 = init && !*close ? rt_dup_range(r, init->range) : tine_strdup("");
    for (size_t k = strlen(itext0); k > 0 && (itext0[k - 1] == ';' || itext0[k - 1] == ' '); k--) itext0[k - 1] = 0;
    if (*itext0) { /* the counter's first value, before the checks read it */
        tine_buf_printf(out, "%s%s;\n", r->indent, itext0);
        itext0[0] = 0;
    }
    tine_buf_puts(out, accinit.p);
    if (pre.n) tine_buf_printf(out, "%sif (\n%s)\n", r->indent, pre.p);
    tine_buf incs = {0};
    for (int c = 0; c < w.nvar; c++)
        tine_buf_printf(&incs, "%s%s += %lld", c ? ", " : "", w.var[c]->name, (long long)(w.step[c] * w.f));
    tine_buf_printf(out, "%sfor (; (%s) && (%s)%s%s; %s) {\n", r->indent, ctext, c2.p, checks.n ? " &&\n" : "", checks.p,
                    incs.p);
    free(incs.p);
    tine_buf_puts(out, body.p);
    tine_buf_printf(out, "%s}\n", r->indent);
    tine_buf_puts(out, accpost.p);
    *rest = tine_xmalloc(strlen(ctext) + strlen(itext) + 16);
    sprintf(*rest, "for (; %s; %s) ", ctext, itext);
    free(ctext), free(itext), free(itext0);
    drop_state(&w);
    free(c2.p), free(body.p), free(checks.p), free(pre.p), free(accinit.p), free(accpost.p);
    return true;
}
