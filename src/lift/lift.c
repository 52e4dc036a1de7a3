/* lift.c — the lifting driver: rewrite an expression into FPIR with the lift rules.
 *
 * Bottom-up over the DAG (each node once; shared subexpressions stay shared): a node's
 * operands are lifted first, then rules are applied at the node until none matches.
 * A rewrite's new inner nodes are lifted the same way. Rewriting terminates: measured
 * on the term as a tree (a shared subterm counted at each use), every rewrite lowers the
 * lifting cost, because the rule compiler checks, for every instantiation, that the right
 * side costs less than the left and uses no wildcard more often than the left does.
 * (Measured on the DAG the cost can rise when a rewrite stops sharing a node.) Results
 * are memoized per rule set: a lifted node maps to itself.
 */
#include "../rules/rules.h"

extern const char tine_lift_rules_text[], tine_lift_rules_file[];
/* lift.synth.rules: rules `tine synth lift` found and proved, loaded beside lift.rules */
extern const char tine_lift_synth_rules_text[], tine_lift_synth_rules_file[];

typedef struct {
    tine_ctx_t *ctx;
    tine_ruleset_t *rs;
    tine_lift_trace_fn trace;
    void *user;
} lifter;

/* Rules at the root of n (whose operands are lifted) until none applies. */
static tine_expr_t *lift_root(void *user, tine_expr_t *n, tine_expr_t *orig) {
    (void)orig;
    lifter *L = user;
    const tine_rule *used;
    tine_expr_t *r = tine_rules_try(L->ctx, L->rs, n, &used);
    if (!r) return n;
    if (L->trace) L->trace(L->user, used->ast.name, used->ast.src->file, used->ast.line, n, r);
    /* the right side's new nodes (and its root) are lifted in turn */
    return tine_rewrite_dag(L->ctx, &L->rs->memo, r, lift_root, L);
}

tine_expr_t *tine_lift_with(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_expr_t *e, tine_lift_trace_fn trace,
                            void *user) {
    if (!e || !rs) return NULL;
    lifter L = {ctx, rs, trace, user};
    e = tine_factor_sums(ctx, e); /* equal coefficients together first: no rule sees across a sum */
    return tine_rewrite_dag(ctx, &rs->memo, e, lift_root, &L);
}

static void free_rules(tine_ctx_t *ctx, void *rs) {
    (void)ctx;
    tine_rules_free(rs);
}

/* The built-in lift rules, compiled on first use; the context's TINE_LAYER_LIFT slot. */
tine_ruleset_t *tine_lift_rules(tine_ctx_t *ctx) {
    tine_ruleset_t *rs = tine_layer_get(ctx, TINE_LAYER_LIFT);
    if (!rs) {
        tine_saved_error saved = tine_error_save(ctx);
        const char *texts[] = {tine_lift_rules_text, tine_lift_synth_rules_text};
        const char *files[] = {tine_lift_rules_file, tine_lift_synth_rules_file};
        rs = tine_rules_compile_files(ctx, texts, files, 2, false);
        if (!rs) {
            /* the shipped rules compile (a test says so); this is a build defect */
            fprintf(stderr, "%s\n", tine_error(ctx));
            TINE_ASSERT(!"the built-in lift rules do not compile");
        }
        tine_layer_set(ctx, TINE_LAYER_LIFT, rs, free_rules);
        tine_error_restore(ctx, &saved);
    }
    return rs;
}

tine_expr_t *tine_lift(tine_ctx_t *ctx, tine_expr_t *e) {
    if (!e) return NULL;
    return tine_lift_with(ctx, tine_lift_rules(ctx), e, NULL, NULL);
}

/* The extra rules are compiled alone first, so that a problem of theirs alone is reported
 * as such; then with the built-in ones, for the checks between them. */
tine_ruleset_t *tine_lift_rules_plus(tine_ctx_t *ctx, const char *text, const char *file) {
    if (!text) return NULL;
    tine_ruleset_t *alone = tine_rules_compile(ctx, text, file);
    if (!alone) return NULL;
    tine_rules_free(alone);
    const char *texts[] = {tine_lift_rules_text, tine_lift_synth_rules_text, text};
    const char *files[] = {tine_lift_rules_file, tine_lift_synth_rules_file, file ? file : "<rules>"};
    return tine_rules_compile_files(ctx, texts, files, 3, false);
}
