/* tv.c — translation validation of compiled kernels (Alive2's idea applied to tine's own
 * rewriting): the kernel is compiled by the statement driver with a selection trace
 * installed (tine_select_set_trace, lower.c), which records each vector expression with
 * what tine's selection made of it; then each distinct pair is one Z3 query.
 *
 * Lift and lower rules may be predicated on intervals (upper_bounded, can_prove ...),
 * which bounds.c derives from the leaves' ranges in view when the rule was tried. So the
 * trace also records, for every variable and load of the expression before selection,
 * the interval tine_bounds gives it at that moment, and the query assumes those. Kernel
 * compilation selects in a clean bounds scope, so today these are the leaves' types; a
 * narrower one is assumed and counted (`facts`), never silently dropped.
 */
#include "tv.h"

#include "../driver/driver.h"
#include "smt.h"

#include <time.h>

typedef struct {
    const tine_expr_t *leaf;
    tine_i128 lo, hi;
} fact;

typedef struct {
    const tine_expr_t *before, *after;
    fact *facts;
    int nfacts;
} pair;

typedef struct {
    pair *v;
    int n, cap;
    int ndup;
} collector;

static double seconds(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool same_facts(const pair *p, const fact *f, int n) {
    if (p->nfacts != n) return false;
    for (int i = 0; i < n; i++)
        if (p->facts[i].leaf != f[i].leaf || p->facts[i].lo != f[i].lo || p->facts[i].hi != f[i].hi) return false;
    return true;
}

/* The selection trace: runs inside selection's bounds scope, so tine_bounds answers with
 * the facts the rules saw. */
static void record(void *user, tine_ctx_t *ctx, const tine_expr_t *before, const tine_expr_t *lifted,
                   const tine_expr_t *after, const char *target) {
    (void)lifted;
    (void)target;
    collector *c = user;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, before, &n);
    fact *facts = NULL;
    int nf = 0;
    for (uint32_t k = 0; k < n; k++) {
        const tine_expr_t *x = order[k];
        tine_type_t t = x->type;
        if ((x->op != TINE_OP_VAR && x->op != TINE_OP_LOAD) || (t.kind != TINE_INT && t.kind != TINE_UINT)) continue;
        tine_i128 lo, hi;
        if (!tine_bounds(ctx, x, &lo, &hi)) continue;
        if (lo <= tine_min_i128(t) && hi >= tine_max_i128(t)) continue; /* the type says as much */
        facts = tine_xrealloc(facts, sizeof *facts * (size_t)(nf + 1));
        facts[nf++] = (fact){x, lo, hi};
    }
    free(order);
    for (int i = 0; i < c->n; i++)
        if (c->v[i].before == before && c->v[i].after == after && same_facts(&c->v[i], facts, nf)) {
            c->ndup++;
            free(facts);
            return;
        }
    TINE_PUSH(c->v, c->n, c->cap, ((pair){before, after, facts, nf}));
}

static bool has_float(tine_ctx_t *ctx, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool f = false;
    for (uint32_t k = 0; k < n && !f; k++) f = order[k]->type.kind == TINE_FLOAT;
    free(order);
    return f;
}

/* lo <= every lane of the leaf <= hi, in the leaf's signedness. */
static int assume_fact(tine_smt *s, const fact *f) {
    Z3_context z = tine_smt_z3(s);
    tine_type_t t = f->leaf->type;
    Z3_ast lanes[TINE_MAX_LANES];
    if (tine_smt_encode(s, f->leaf, lanes)) return -1;
    Z3_ast lo = tine_smt_num(s, t.bits, (tine_u128)f->lo), hi = tine_smt_num(s, t.bits, (tine_u128)f->hi);
    for (int i = 0; i < t.lanes; i++) {
        bool sg = t.kind == TINE_INT;
        tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lo, lanes[i]) : Z3_mk_bvule(z, lo, lanes[i]));
        tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lanes[i], hi) : Z3_mk_bvule(z, lanes[i], hi));
    }
    return 0;
}

static void note_slow(tine_tv_totals *t, double secs, int lanes, const char *what) {
    int i = TINE_TV_SLOWEST;
    while (i > 0 && t->slowest[i - 1].seconds < secs) i--;
    if (i == TINE_TV_SLOWEST) return;
    memmove(&t->slowest[i + 1], &t->slowest[i], sizeof *t->slowest * (size_t)(TINE_TV_SLOWEST - 1 - i));
    t->slowest[i].seconds = secs;
    t->slowest[i].lanes = lanes;
    snprintf(t->slowest[i].what, sizeof t->slowest[i].what, "%s", what);
}

/* The start of an expression's text, on one line. */
static void excerpt(tine_ctx_t *ctx, const tine_expr_t *e, char *buf, size_t n) {
    char *p = tine_print(ctx, e);
    size_t k = 0;
    for (const char *q = p; q && *q && k + 4 < n; q++) buf[k++] = *q == '\n' ? ' ' : *q;
    if (p && strlen(p) >= n - 4) memcpy(buf + k, "...", 3), k += 3;
    buf[k] = 0;
    free(p);
}

/* ---- verdicts kept across calls (tine_tv_memo) ------------------------------------------ */

struct tine_tv_memo {
    char **key;
    uint64_t *hash;
    tine_smt_result *r;
    int n, cap;
};

tine_tv_memo *tine_tv_memo_new(void) { return tine_xcalloc(1, sizeof(tine_tv_memo)); }

void tine_tv_memo_free(tine_tv_memo *m) {
    if (!m) return;
    for (int i = 0; i < m->n; i++) free(m->key[i]);
    free(m->key);
    free(m->hash);
    free(m->r);
    free(m);
}

/* The pair as text: what the query is made of, both sides with their types and every
 * fact with its leaf (printing is exact: the parser reads it back to the same term). */
static char *pair_key(tine_ctx_t *ctx, const pair *p, uint64_t *hash) {
    tine_buf b = {0};
    char t[32];
    tine_type_str(p->before->type, t, sizeof t);
    tine_buf_printf(&b, "%s: ", t);
    tine_print_buf(ctx, p->before, p->before->type.lanes, &b);
    tine_type_str(p->after->type, t, sizeof t);
    tine_buf_printf(&b, "\n=> %s: ", t);
    tine_print_buf(ctx, p->after, p->after->type.lanes, &b);
    for (int i = 0; i < p->nfacts; i++) {
        char lo[48], hi[48];
        tine_buf_printf(&b, "\nfact %s %s: ", tine_i128_str(p->facts[i].lo, lo), tine_i128_str(p->facts[i].hi, hi));
        tine_print_buf(ctx, p->facts[i].leaf, p->facts[i].leaf->type.lanes, &b);
    }
    tine_buf_putc(&b, 0);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = b.p; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    *hash = h;
    return b.p;
}

static int memo_find(const tine_tv_memo *m, const char *key, uint64_t hash) {
    for (int i = 0; m && i < m->n; i++)
        if (m->hash[i] == hash && !strcmp(m->key[i], key)) return i;
    return -1;
}

static void memo_add(tine_tv_memo *m, char *key, uint64_t hash, tine_smt_result r) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->key = tine_xrealloc(m->key, sizeof *m->key * (size_t)m->cap);
        m->hash = tine_xrealloc(m->hash, sizeof *m->hash * (size_t)m->cap);
        m->r = tine_xrealloc(m->r, sizeof *m->r * (size_t)m->cap);
    }
    m->key[m->n] = key;
    m->hash[m->n] = hash;
    m->r[m->n++] = r;
}

/* ---- proving a pair ------------------------------------------------------------------- */

/* A lane's value in the last model, appended to why. */
static void put_lane(tine_smt *s, char *why, size_t nwhy, const char *side, tine_type_t t, Z3_ast v) {
    size_t k = strlen(why);
    tine_u128 x;
    if (!tine_smt_model_value(s, v, &x)) {
        snprintf(why + k, nwhy - k, "; %s ?", side);
        return;
    }
    tine_i128 val = (tine_i128)tine_canon(tine_type_with_lanes(t, 1), x);
    snprintf(why + k, nwhy - k, "; %s %lld", side, (long long)val); /* lanes of at most 64 bits */
}

/* The whole query: both sides' lanes equal under the facts; or only lane `lane` (>= 0),
 * whose counterexample is one of the whole query's. */
static tine_smt_result prove_whole(tine_ctx_t *ctx, const pair *p, unsigned timeout_ms, double *secs, char *why,
                                   size_t nwhy, int lane) {
    tine_smt *s = tine_smt_new(ctx, timeout_ms);
    tine_smt_result r = TINE_SMT_ERROR;
    int i = 0;
    while (i < p->nfacts && assume_fact(s, &p->facts[i]) == 0) i++;
    Z3_ast va[TINE_MAX_LANES], vb[TINE_MAX_LANES];
    if (i < p->nfacts) {
    } else if (lane < 0) {
        r = tine_smt_equal(s, p->before, p->after, why, nwhy, secs);
    } else if (tine_smt_encode(s, p->before, va) == 0 && tine_smt_encode(s, p->after, vb) == 0) {
        r = tine_smt_valid(s, Z3_mk_eq(tine_smt_z3(s), va[lane], vb[lane]), why, nwhy, secs);
        if (r == TINE_SMT_COUNTEREXAMPLE) {
            size_t k = strlen(why);
            snprintf(why + k, nwhy - k, "; lane %d", lane);
            put_lane(s, why, nwhy, "before", p->before->type, va[lane]);
            put_lane(s, why, nwhy, "after", p->after->type, vb[lane]);
        }
    }
    if (r == TINE_SMT_ERROR && !why[0]) snprintf(why, nwhy, "%s", tine_error(ctx) ? tine_error(ctx) : "(no message)");
    tine_smt_free(s);
    return r;
}

typedef struct {
    const tine_expr_t **v;
    int n, cap;
} nodes;

static void nodes_add(nodes *ns, const tine_expr_t *x) {
    for (int i = 0; i < ns->n; i++)
        if (ns->v[i] == x) return;
    TINE_PUSH(ns->v, ns->n, ns->cap, x);
}

static void leaves(tine_ctx_t *ctx, const tine_expr_t *e, int op, nodes *ns) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    for (uint32_t k = 0; k < n; k++)
        if (order[k]->op == op) nodes_add(ns, order[k]);
    free(order);
}

/* The query by lanes, on a generalization: every load (a vector of unknown values read
 * at some index) becomes a variable of its own, on both sides alike. Lane i's goal that
 * becomes lane r's when the leaves' lanes i and r are swapped (a renaming, so the one is
 * valid when the other is: the facts are the same on every lane) needs no query of its
 * own; only one lane per such class is proven. What holds for any values of the loads
 * holds for the values they read, so "proven" stands; anything else is decided by the
 * whole query on the pair as it is. -1: not decided here. */
static int prove_by_lanes(tine_ctx_t *ctx, const pair *p, unsigned timeout_ms, double *secs, char *why, size_t nwhy,
                          int *queries, int *bad_lane, bool abstract) {
    nodes loads = {0}, vars = {0};
    leaves(ctx, p->before, TINE_OP_LOAD, &loads);
    leaves(ctx, p->after, TINE_OP_LOAD, &loads);
    tine_expr_t *a = (tine_expr_t *)p->before, *b = (tine_expr_t *)p->after;
    fact *facts = tine_xcalloc((size_t)p->nfacts + 1, sizeof *facts);
    if (p->nfacts) memcpy(facts, p->facts, sizeof *facts * (size_t)p->nfacts);
    /* outermost first (a load's index may hold another) */
    for (int i = loads.n - 1; i >= 0; i--)
        for (int j = i; j > 0 && loads.v[j]->id > loads.v[j - 1]->id; j--) {
            const tine_expr_t *t = loads.v[j];
            loads.v[j] = loads.v[j - 1];
            loads.v[j - 1] = t;
        }
    for (int i = 0; i < loads.n && a && b; i++) {
        char name[48];
        snprintf(name, sizeof name, "$.tv_load%u", loads.v[i]->id);
        tine_expr_t *v = tine_var(ctx, name, loads.v[i]->type);
        if (!v) {
            a = NULL;
            break;
        }
        a = tine_replace(ctx, a, loads.v[i], v);
        b = tine_replace(ctx, b, loads.v[i], v);
        for (int f = 0; f < p->nfacts; f++)
            if (facts[f].leaf == loads.v[i]) facts[f].leaf = v;
    }
    int rc = -1;
    if (!a || !b) goto done;
    leaves(ctx, a, TINE_OP_VAR, &vars);
    leaves(ctx, b, TINE_OP_VAR, &vars);
    for (int f = 0; f < p->nfacts; f++)
        if (facts[f].leaf->op != TINE_OP_VAR) goto done; /* a fact on a load inside a load's index */
    tine_smt *s = tine_smt_new(ctx, timeout_ms);
    tine_smt_abstract_products(s, abstract); /* products by their ranges: a proof is still a proof */
    Z3_context z = tine_smt_z3(s);
    int L = a->type.lanes, nv = 0;
    Z3_ast va[TINE_MAX_LANES], vb[TINE_MAX_LANES], goal[TINE_MAX_LANES];
    for (int f = 0; f < p->nfacts; f++)
        if (assume_fact(s, &facts[f])) goto free_smt;
    if (tine_smt_encode(s, a, va) || tine_smt_encode(s, b, vb)) goto free_smt;
    for (int i = 0; i < L; i++) {
        goal[i] = Z3_mk_eq(z, va[i], vb[i]);
        Z3_inc_ref(z, goal[i]);
    }
    /* the vector leaves' lanes, one row per leaf */
    Z3_ast *vl = tine_xmalloc(sizeof *vl * (size_t)(vars.n ? vars.n : 1) * TINE_MAX_LANES);
    Z3_ast *from = tine_xmalloc(sizeof *from * 2 * (size_t)(vars.n ? vars.n : 1)),
           *to = tine_xmalloc(sizeof *to * 2 * (size_t)(vars.n ? vars.n : 1));
    for (int k = 0; k < vars.n; k++)
        if (vars.v[k]->type.lanes == L && tine_smt_encode(s, vars.v[k], vl + (size_t)nv * TINE_MAX_LANES) == 0) nv++;
        else if (vars.v[k]->type.lanes != 1) goto free_lanes; /* a leaf of another width: no lane renaming */
    int rep[TINE_MAX_LANES], nrep = 0;
    for (int i = 0; i < L; i++) {
        bool found = false;
        for (int r = 0; r < nrep && r < 8 && !found; r++) {
            int l = rep[r];
            for (int k = 0; k < nv; k++) {
                from[2 * k] = vl[(size_t)k * TINE_MAX_LANES + i], to[2 * k] = vl[(size_t)k * TINE_MAX_LANES + l];
                from[2 * k + 1] = to[2 * k], to[2 * k + 1] = from[2 * k];
            }
            Z3_ast g = Z3_substitute(z, goal[i], (unsigned)(2 * nv), from, to);
            found = Z3_is_eq_ast(z, g, goal[l]);
        }
        if (!found) rep[nrep++] = i;
    }
    rc = TINE_SMT_PROVEN;
    for (int r = 0; r < nrep && rc == TINE_SMT_PROVEN; r++) {
        double t = 0;
        rc = tine_smt_valid(s, goal[rep[r]], why, nwhy, &t);
        if (rc == TINE_SMT_COUNTEREXAMPLE) *bad_lane = rep[r];
        (*queries)++;
        *secs += t;
    }
    if (rc == TINE_SMT_COUNTEREXAMPLE || rc == TINE_SMT_ERROR) rc = -1; /* perhaps the generalization's */
free_lanes:
    free(vl);
    free(from);
    free(to);
    for (int i = 0; i < L; i++) Z3_dec_ref(z, goal[i]);
free_smt:
    tine_smt_free(s);
done:
    free(loads.v);
    free(vars.v);
    free(facts);
    tine_clear_error(ctx);
    if (rc < 0 && why) why[0] = 0;
    return rc;
}

/* Proves one pair: by lanes on the generalization first, else as a whole. */
static tine_smt_result prove(tine_ctx_t *ctx, const pair *p, unsigned timeout_ms, double *secs, char *why, size_t nwhy,
                             int *queries) {
    *secs = 0;
    *queries = 0;
    int bad_lane = -1;
    int r = prove_by_lanes(ctx, p, timeout_ms, secs, why, nwhy, queries, &bad_lane, false);
    if (r >= 0) return (tine_smt_result)r;
    if (bad_lane < 0) { /* undecided: again with products abstracted to their ranges */
        r = prove_by_lanes(ctx, p, timeout_ms, secs, why, nwhy, queries, &bad_lane, true);
        if (r == TINE_SMT_PROVEN) return (tine_smt_result)r;
        bad_lane = -1;
    }
    double t = 0;
    tine_smt_result w;
    if (bad_lane >= 0) { /* the generalization's counterexample lane, on the pair as it is */
        w = prove_whole(ctx, p, timeout_ms, &t, why, nwhy, bad_lane);
        (*queries)++;
        *secs += t;
        if (w == TINE_SMT_COUNTEREXAMPLE) return w;
        why[0] = 0;
    }
    w = prove_whole(ctx, p, timeout_ms, &t, why, nwhy, -1);
    (*queries)++;
    *secs += t;
    return w;
}

int tine_verify_kernel(tine_ctx_t *ctx, const char *text, const char *file, const char *target, unsigned timeout_ms,
                       FILE *out, tine_tv_totals *totals, tine_tv_memo *memo) {
    tine_tv_totals local = {0};
    tine_tv_totals *T = totals ? totals : &local;
    if (!target) target = "host";
    tine_clear_error(ctx);
    tine_target_features(ctx, target, NULL); /* an unknown target: the error the compiler gives */
    if (tine_error(ctx)) return -1;
    double t0 = seconds();
    tine_kernel_t *k = tine_kernel_parse(ctx, text, file);
    if (!k) return -1;
    collector c = {0};
    tine_select_set_trace(ctx, record, NULL, &c);
    tine_stmt_pool pool;
    tine_stmt_pool_init(&pool, ctx);
    int scope = tine_bounds_open(ctx, true); /* as tine_kernel_compile: no run's facts */
    tine_stmt *s = tine_compile_stmt(&pool, k, (int)TINE_SELECT_TINE, target, NULL, NULL);
    tine_bounds_close(ctx, scope);
    tine_select_set_trace(ctx, NULL, NULL, NULL);
    tine_stmt_pool_free(&pool);
    double compile = seconds() - t0;
    T->compile_seconds += compile;
    if (!s) {
        for (int i = 0; i < c.n; i++) free(c.v[i].facts);
        free(c.v);
        tine_kernel_free(k);
        return -1;
    }
    T->kernels++;
    int proven = 0, cex = 0, unknown = 0, flt = 0, err = 0, facts = 0, reused = 0;
    double solver = 0;
    for (int i = 0; i < c.n; i++) {
        const pair *p = &c.v[i];
        int lanes = p->before->type.lanes;
        char ex[96], tn[32];
        excerpt(ctx, p->before, ex, sizeof ex);
        tine_type_str(p->before->type, tn, sizeof tn);
        facts += p->nfacts;
        if (has_float(ctx, p->before) || has_float(ctx, p->after)) {
            flt++;
            if (out) fprintf(out, "  skipped (float)          %2d lanes  #%d %s: %s\n", lanes, i, tn, ex);
            continue;
        }
        char why[2048] = "";
        double secs = 0;
        int queries = 0;
        uint64_t hash = 0;
        char *key = memo ? pair_key(ctx, p, &hash) : NULL;
        int seen = memo_find(memo, key, hash);
        tine_smt_result r;
        if (seen >= 0) {
            r = memo->r[seen];
            reused++;
            if (r == TINE_SMT_UNKNOWN) snprintf(why, sizeof why, "as before");
            free(key);
        } else {
            r = prove(ctx, p, timeout_ms, &secs, why, sizeof why, &queries);
            if (memo && (r == TINE_SMT_PROVEN || r == TINE_SMT_UNKNOWN)) memo_add(memo, key, hash, r);
            else free(key);
        }
        solver += secs;
        char what[160];
        snprintf(what, sizeof what, "%s %s #%d %s: %.60s", file, target, i, tn, ex);
        note_slow(T, secs, lanes, what);
        switch (r) {
        case TINE_SMT_PROVEN:
            proven++;
            if (out && seen >= 0) fprintf(out, "  proven before             %2d lanes       #%d %s: %s\n", lanes, i, tn, ex);
            else if (out) fprintf(out, "  proven          %7.3fs %2d lanes %2d q  #%d %s: %s\n", secs, lanes, queries, i, tn, ex);
            break;
        case TINE_SMT_COUNTEREXAMPLE: {
            cex++;
            if (out) {
                char *b = tine_print(ctx, p->before), *a = tine_print(ctx, p->after);
                fprintf(out, "  COUNTEREXAMPLE  %7.3fs %2d lanes  #%d %s\n    before: %s\n    after:  %s\n    %s\n", secs,
                        lanes, i, tn, b, a, why);
                free(b);
                free(a);
            }
            break;
        }
        case TINE_SMT_UNKNOWN:
            unknown++;
            if (out) fprintf(out, "  unknown (%s) %7.3fs %2d lanes  #%d %s: %s\n", why, secs, lanes, i, tn, ex);
            break;
        case TINE_SMT_ERROR:
            err++;
            if (out) fprintf(out, "  error (%s)  %2d lanes  #%d %s: %s\n", why, lanes, i, tn, ex);
            tine_clear_error(ctx);
            break;
        }
    }
    if (out)
        fprintf(out,
                "%s on %s: %d expressions (%d repeats) assuming the interval facts selection used (%d beyond the "
                "types): %d proven, %d counterexamples, %d unknown, %d skipped (float), %d errors; %d verdicts "
                "reused from an earlier target; compile %.2fs, solver %.2fs\n",
                file, target, c.n, c.ndup, facts, proven, cex, unknown, flt, err, reused, compile, solver);
    T->exprs += c.n;
    T->proven += proven;
    T->counterexamples += cex;
    T->unknown += unknown;
    T->skipped_float += flt;
    T->errors += err;
    T->reused += reused;
    T->facts += facts;
    T->solver_seconds += solver;
    for (int i = 0; i < c.n; i++) free(c.v[i].facts);
    free(c.v);
    tine_kernel_free(k);
    return cex;
}

void tine_tv_add(tine_tv_totals *to, const tine_tv_totals *from) {
    to->kernels += from->kernels;
    to->exprs += from->exprs;
    to->proven += from->proven;
    to->counterexamples += from->counterexamples;
    to->unknown += from->unknown;
    to->skipped_float += from->skipped_float;
    to->errors += from->errors;
    to->reused += from->reused;
    to->facts += from->facts;
    to->compile_seconds += from->compile_seconds;
    to->solver_seconds += from->solver_seconds;
    for (int i = 0; i < TINE_TV_SLOWEST && from->slowest[i].seconds > 0; i++)
        note_slow(to, from->slowest[i].seconds, from->slowest[i].lanes, from->slowest[i].what);
}

void tine_tv_print_totals(FILE *out, const tine_tv_totals *t, const char *indent, bool slowest) {
    fprintf(out,
            "%s%d kernels, %d expressions, assuming the interval facts selection used (%d beyond the types): %d "
            "proven, %d counterexamples, %d unknown, %d skipped (float), %d errors; %d verdicts reused from an "
            "earlier target (not queried again); compile %.2fs, solver %.2fs\n",
            indent, t->kernels, t->exprs, t->facts, t->proven, t->counterexamples, t->unknown, t->skipped_float,
            t->errors, t->reused, t->compile_seconds, t->solver_seconds);
    for (int i = 0; slowest && i < TINE_TV_SLOWEST && t->slowest[i].seconds > 0; i++)
        fprintf(out, "%s  %7.3fs %2d lanes  %s\n", indent, t->slowest[i].seconds, t->slowest[i].lanes, t->slowest[i].what);
}
