/* lower_check.c — checking what `tine synth lower` matches (lower_synth.c's search):
 * the counterexamples found so far, then Z3 as the rule prover asks it (CEGIS: a
 * counterexample joins the checks); and two ways an expression that misses the spec may
 * still give a rewrite: the meet in the middle and the near-miss fix-up. */
#include "lower_search.h"

/* One Z3 query: spec == e at S->zl lanes under the spec's ranges, with products
 * abstracted to their ranges or not. 1 proven, 0 refuted (a counterexample, which
 * becomes a new check unless abstract), -1 unknown. */
static int query(search *S, tine_expr_t *e, bool abstract, unsigned timeout_ms) {
    tine_smt *s = tine_smt_new(S->ctx, timeout_ms);
    tine_smt_abstract_products(s, abstract);
    Z3_context z = tine_smt_z3(s);
    Z3_ast lanes[MAX_VARS][Z3_LANES];
    for (int k = 0; k < S->nvars; k++) {
        tine_type_t t = S->vz[k]->type;
        for (int l = 0; l < S->zl; l++) {
            char name[32];
            snprintf(name, sizeof name, "v%d_%d", k, l);
            lanes[k][l] = S->spec->uniform[k] && l ? lanes[k][0]
                                                   : Z3_mk_const(z, Z3_mk_string_symbol(z, name), tine_smt_sort(s, t.bits));
            if (S->spec->lo[k] < S->spec->hi[k]) {
                Z3_ast lo = tine_smt_num(s, t.bits, (tine_u128)S->spec->lo[k]);
                Z3_ast hi = tine_smt_num(s, t.bits, (tine_u128)S->spec->hi[k]);
                bool sg = t.kind == TINE_INT;
                tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lo, lanes[k][l]) : Z3_mk_bvule(z, lo, lanes[k][l]));
                tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lanes[k][l], hi) : Z3_mk_bvule(z, lanes[k][l], hi));
            }
        }
        tine_smt_bind(s, S->vz[k], lanes[k]);
    }
    Z3_ast a[TINE_MAX_LANES], b[TINE_MAX_LANES];
    int rc = -1;
    tine_saved_error saved = tine_error_save(S->ctx);
    if (!tine_smt_encode(s, S->want_z, a) && !tine_smt_encode(s, e, b)) {
        int nl = S->want_z->type.lanes;
        Z3_ast *ne = tine_xmalloc((size_t)nl * sizeof *ne);
        for (int l = 0; l < nl; l++) ne[l] = Z3_mk_not(z, Z3_mk_eq(z, a[l], b[l]));
        double t0 = tine_now();
        int sat = tine_smt_sat(s, Z3_mk_or(z, (unsigned)nl, ne));
        S->st->solver_seconds += tine_now() - t0;
        S->st->queries++;
        free(ne);
        rc = sat == 0 ? 1 : sat < 0 ? -1 : 0;
        if (sat == 1 && !abstract && S->ncex < MAX_CEX) {
            uint64_t fixed[MAX_VARS][Z3_LANES];
            for (int k = 0; k < S->nvars; k++)
                for (int l = 0; l < S->zl; l++) {
                    tine_u128 v = 0;
                    tine_smt_model_value(s, lanes[k][l], &v);
                    fixed[k][l] = synth_canon(S->vz[k]->type, (uint64_t)v);
                }
            S->cex[S->ncex++] = synth_make_env(S, false, (const uint64_t(*)[Z3_LANES])fixed);
            S->st->counterexamples++;
        }
    }
    tine_error_restore(S->ctx, &saved);
    tine_smt_free(s);
    return rc;
}

/* Z3, as the rule prover asks it (prove.c): exactly with a short limit; then with
 * products abstracted (a proof there is a proof: multipliers are what bit-blasting finds
 * hardest); then exactly with the whole limit (a counterexample must be a real one).
 * 1 proven, 0 refuted, -1 unknown. */
static int prove(search *S, tine_expr_t *e) {
    unsigned full = S->o->timeout_ms, quick = full && full < 1000 ? full : 1000;
    int r = query(S, e, false, quick);
    if (r >= 0) return r;
    if (query(S, e, true, full) == 1) return 1;
    return query(S, e, false, full);
}

static bool passes_checks(search *S, tine_expr_t *e) {
    if (!S->ncex) return true;
    tine_expr_t *x = synth_at_eval(S, e);
    if (!x) return false;
    uint64_t a[TINE_MAX_LANES], b[TINE_MAX_LANES];
    for (int c = 0; c < S->ncex; c++)
        if (!synth_eval_in(S, S->cex[c], S->want_e, a) || !synth_eval_in(S, S->cex[c], x, b) ||
            memcmp(a, b, (size_t)x->type.lanes * sizeof *a))
            return false;
    return true;
}


/* The item with values v (of type t at EVAL lanes), or -1. */
long synth_find_vals(search *S, tine_type_t t, const uint64_t *v) {
    if (!S->nslots) return -1;
    for (size_t k = synth_vals_hash(t, v) & (S->nslots - 1); S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (synth_same_item(S, S->slots[k] - 1, t, v)) return (long)S->slots[k] - 1;
    return -1;
}

/* Is e, whose values match the spec's, equal to it: on the counterexamples so far, then
 * by Z3 (counted: a match, an unknown)? */
bool synth_proven(search *S, tine_expr_t *e) {
    S->st->matched++;
    if (!passes_checks(S, e)) return false;
    int p = prove(S, e);
    if (p < 0) S->st->unknown++;
    return p == 1;
}

/* A rewrite e (at Z3 lanes) of this cost found other than by a level's enumeration: kept
 * as pending when proven and cheaper than what is pending. */
static void offer(search *S, tine_expr_t *e, int cost, result *R) {
    if (!e || cost > S->bound || (R->pend && cost >= R->pend_cost)) return;
    if (synth_proven(S, e)) {
        R->pend = e;
        R->pend_cost = cost;
    }
}

/* Meet in the middle: the spec as a op b, a the new item (i) and b any before it, for
 * the ops one can undo (add, sub, xor): b's values follow from the spec's and a's, and
 * one lookup finds it. A bank of depth d so reaches rewrites of depth 2d + 1: a rounding
 * shift by a variable count, (2x >>> y) - ((x >> y) & (~0 >>> y)), from items of three
 * nodes. */
void synth_meet(search *S, size_t i, result *R) {
    static const gram inv[] = {{.kind = G_BIN, .op = TINE_OP_ADD, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_SUB, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_SUB, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_XOR, .arity = 2}};
    if (S->spec->insns_only) return;
    item a = S->items[i];
    const uint64_t *va = S->pool + a.val, *w = S->want_vals;
    uint64_t need[TINE_MAX_LANES];
    for (int k = 0; k < 4; k++) {
        for (int l = 0; l < a.et.lanes; l++) {
            uint64_t n = k == 0 ? w[l] - va[l] : k == 1 ? va[l] - w[l] : k == 2 ? w[l] + va[l] : w[l] ^ va[l];
            need[l] = synth_canon(a.et, n);
        }
        long j = synth_find_vals(S, a.et, need);
        if (j < 0) continue;
        item b = S->items[j];
        if (a.konst && b.konst) continue;
        item *x[2] = {&a, &b};
        if (k == 2) x[0] = &b, x[1] = &a; /* b - a */
        int nc = synth_node_units(S, &inv[k], x);
        if (nc < 0) continue;
        tine_saved_error saved = tine_error_save(S->ctx);
        tine_expr_t *e = tine_binary(S->ctx, (tine_op_t)inv[k].op, x[0]->e, x[1]->e);
        tine_error_restore(S->ctx, &saved);
        offer(S, e, a.cost + b.cost + nc, R);
    }
}

/* A near miss: item i equals the spec except in lanes where it has one value p and the
 * spec one other value q, and p occurs nowhere else (a saturation's single wrapped case:
 * pmulhrsw's -32768 * -32768). Fixed by a select on i == p, or, where q is ~p, by an xor
 * with the comparison's mask. */
void synth_fix_up(search *S, size_t i, result *R) {
    item a = S->items[i];
    if (a.konst || S->spec->insns_only) return;
    const uint64_t *va = S->pool + a.val, *w = S->want_vals;
    uint64_t p = 0, q = 0;
    int miss = 0;
    for (int l = 0; l < a.et.lanes; l++) {
        if (va[l] == w[l]) continue;
        if (miss && (va[l] != p || w[l] != q)) return;
        p = va[l], q = w[l], miss++;
    }
    if (!miss) return;
    for (int l = 0; l < a.et.lanes; l++)
        if (va[l] == p && w[l] != q) return;
    tine_ctx_t *ctx = S->ctx;
    tine_type_t t = a.e->type;
    tine_saved_error saved = tine_error_save(ctx);
    tine_expr_t *eq = tine_binary(ctx, TINE_OP_EQ, a.e, tine_const_uint(ctx, t, p));
    tine_expr_t *sel = eq ? tine_select(ctx, eq, tine_const_uint(ctx, t, q), a.e) : NULL;
    tine_expr_t *mask = eq && q == synth_canon(a.et, ~p) ? tine_unary(ctx, TINE_OP_NEG, tine_cast(ctx, t, eq)) : NULL;
    tine_expr_t *flip = mask ? tine_binary(ctx, TINE_OP_XOR, a.e, mask) : NULL;
    tine_error_restore(ctx, &saved);
    if (!eq) return;
    int ce = synth_expr_units(S, eq);
    if (sel && ce >= 0 && synth_expr_units(S, sel) >= 0) offer(S, sel, a.cost + ce + synth_expr_units(S, sel), R);
    if (flip && ce >= 0) {
        int cm = synth_expr_units(S, mask->ops[0]) + synth_expr_units(S, mask) + synth_expr_units(S, flip);
        offer(S, flip, a.cost + ce + cm, R);
    }
}

