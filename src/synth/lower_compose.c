/* lower_compose.c — rules `tine synth lower` composes: an FPIR op's definition one level
 * down, lowered with the rules found so far (lower_synth.c's search). */
#include "lower_search.h"

#include "../rules/rules.h"

/* Does e hold an FPIR op (below its root)? */
static bool has_fpir_below(tine_ctx_t *ctx, tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool any = false;
    for (uint32_t k = 0; k < n; k++) any |= tine_op_is_fpir((tine_op_t)order[k]->op);
    free(order);
    return any;
}

/* An FPIR node of e with a constant operand not of the type a literal there gets (the
 * type rule patterns' c0 has there), with that operand retyped; NULL if none. */
static tine_expr_t *retyped(search *S, tine_expr_t *e, tine_expr_t **at) {
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n), *r = NULL;
    for (uint32_t k = 0; k < n && !r; k++) {
        tine_expr_t *x = order[k], *ops[3];
        if (!tine_op_is_fpir((tine_op_t)x->op) || x->nops > 3) continue;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = x->ops[j];
            tine_type_t lt = tine_type_with_lanes(tine_fpir_literal_type((tine_op_t)x->op, j, x->ops[0]->type),
                                                  x->ops[j]->type.lanes);
            if (x->ops[j]->op == TINE_OP_CONST && !tine_type_eq(lt, x->ops[j]->type) && lt.bits == x->ops[j]->type.bits)
                ops[j] = tine_const_uint(S->ctx, lt, tine_expr_const_lane(x->ops[j], 0));
        }
        tine_expr_t *y = tine_rebuild(S->ctx, x, ops);
        if (y != x) r = y, *at = x;
    }
    free(order);
    return r;
}

/* e with casts of constants folded (a definition widens its count, widen(s)) and FPIR
 * ops' constant operands typed as literals are: the rule patterns' c0. */
static tine_expr_t *fold_casts(search *S, tine_expr_t *e) {
    for (;;) {
        uint32_t n;
        tine_expr_t **order = tine_topo(S->ctx, e, &n), *x = NULL;
        for (uint32_t k = 0; k < n && !x; k++)
            /* (one lane's value stands for all: not a reinterpret to other lanes, whose
               lanes from a uniform constant may differ) */
            if ((order[k]->op == TINE_OP_CAST || order[k]->op == TINE_OP_REINTERPRET) &&
                order[k]->type.lanes == order[k]->ops[0]->type.lanes && order[k]->ops[0]->op == TINE_OP_CONST)
                x = order[k];
        free(order);
        if (!x) {
            tine_expr_t *at = NULL, *y = retyped(S, e, &at);
            if (!y) return e;
            e = tine_replace(S->ctx, e, at, y);
            continue;
        }
        uint64_t v[TINE_MAX_LANES];
        tine_env_t *env = tine_env_new(S->ctx);
        bool ok = synth_eval_in(S, env, x, v);
        tine_env_free(env);
        if (!ok) return e;
        e = tine_replace(S->ctx, e, x, tine_const_uint(S->ctx, x->type, v[0]));
    }
}

/* Rules that compose: an FPIR op's definition one level down, its own FPIR ops kept,
 * costs what the lowering makes of it with the rules found so far at level t. Where
 * that is less than what the search found (or the generic lowering, which goes to the
 * primitive ops at once), the definition is the rule: a Q31 rounding multiply is then a
 * widening multiply, a rounding shift and a saturating narrow, each lowered by a rule of
 * its own, where its generic form is a 128-bit shift LLVM does lane by lane. Repeated
 * while a round changes something: one composed rule can make another cheaper. */
void synth_compose(search *S, synth_found **F, size_t *nf, size_t *fcap, const synth_spec *specs, size_t nspecs,
                    const char *t) {
    tine_ctx_t *ctx = S->ctx;
    for (int round = 0; round < 4; round++) {
        tine_buf text = {0};
        synth_level_rules(&text, *F, *nf, t);
        tine_saved_error saved = tine_error_save(ctx);
        tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text.p ? text.p : "", "synthesized", true);
        tine_error_restore(ctx, &saved);
        free(text.p);
        if (!rs) return;
        bool changed = false;
        for (size_t i = 0; i < nspecs; i++) {
            const synth_spec *sp = &specs[i];
            if (!synth_wanted(S->o->only, sp->name)) continue;
            if (synth_spec_is_prim(sp) || sp->insns_only || strchr(sp->tmpl, '@') || !synth_bind_spec(S, sp)) continue;
            if (!tine_op_is_fpir((tine_op_t)S->want_z->op)) continue;
            tine_expr_t *d = tine_fpir_define(ctx, S->want_z);
            if (d) d = fold_casts(S, d);
            if (!d || !has_fpir_below(ctx, d)) continue;
            synth_found *have = NULL;
            for (size_t k = 0; k < *nf; k++)
                if ((*F)[k].sp == sp && !strcmp((*F)[k].target, t)) have = &(*F)[k];
            /* both sides priced alike: as the lowering prices them, with these rules */
            tine_expr_t *generic = tine_expand(ctx, S->want_z);
            saved = tine_error_save(ctx);
            bool parts = false;
            double c = tine_lower_cost_in(ctx, d, t, rs, &parts);
            double now = have ? tine_lower_cost_in(ctx, have->e, t, rs, NULL)
                              : generic ? tine_lower_cost_in(ctx, generic, t, rs, NULL) : -1;
            tine_error_restore(ctx, &saved);
            /* a definition no rule lowers a part of is the generic lowering restated */
            if (!parts || c < 0 || (now >= 0 && c >= now)) continue;
            int units = (int)(c * 4 + 0.5);
            int base = generic ? synth_tree_units(S, generic) : 1 << 20;
            tine_buf rhs = {0};
            tine_print_named(ctx, d, S->zl, true, &rhs);
            if (S->o->log) fprintf(S->o->log, "%-32s %-14s composed: %s (cost %.2f, was %.2f)\n", sp->name, t, rhs.p,
                                   c, now);
            if (!have) {
                TINE_GROW(*F, *nf + 1, *fcap);
                have = &(*F)[(*nf)++];
                *have = (synth_found){.sp = sp, .target = t};
                S->st->found++;
            }
            free(have->rhs);
            have->rhs = rhs.p;
            have->e = d;
            have->cost = units;
            have->baseline = base;
            changed = true;
        }
        tine_rules_free(rs);
        if (!changed) return;
    }
}

