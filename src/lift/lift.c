/* lift.c — the lifting driver: rewrite an expression into FPIR with the lift rules.
 *
 * Bottom-up over the DAG (each node once; shared subexpressions stay shared): a node's
 * operands are lifted first, then rules are applied at the node until none matches.
 * A rewrite's new inner nodes are lifted the same way. Every rule strictly lowers the
 * lifting cost (the rule compiler checks it for every instantiation), so rewriting
 * terminates. Results are memoized per rule set: a lifted node maps to itself.
 */
#include "../rules/rules.h"

extern const char tine_lift_rules_text[];
extern const char tine_lift_rules_file[];

typedef struct {
    tine_ctx_t *ctx;
    tine_ruleset_t *rs;
    tine_lift_trace_fn trace;
    void *user;
} lifter;

static tine_expr_t **memo_slot(tine_ruleset_t *rs, tine_ctx_t *ctx, uint32_t id) {
    if (id >= rs->memo_cap) {
        uint32_t cap = rs->memo_cap ? rs->memo_cap : 1024;
        while (cap <= id || cap < ctx->count) cap *= 2;
        rs->memo = realloc(rs->memo, cap * sizeof *rs->memo);
        TINE_ASSERT(rs->memo != NULL);
        memset(rs->memo + rs->memo_cap, 0, (cap - rs->memo_cap) * sizeof *rs->memo);
        rs->memo_cap = cap;
    }
    return &rs->memo[id];
}

static tine_expr_t *lift_dag(lifter *L, tine_expr_t *root);

/* Rules at the root of n (whose operands are lifted) until none applies. */
static tine_expr_t *lift_root(lifter *L, tine_expr_t *n) {
    const tine_rule *used;
    tine_expr_t *r = tine_rules_try(L->ctx, L->rs, n, &used);
    if (!r) return n;
    if (L->trace) L->trace(L->user, used->ast.name, used->ast.src->file, used->ast.line, n, r);
    /* the right side's new nodes (and its root) are lifted in turn */
    return lift_dag(L, r);
}

static tine_expr_t *lift_dag(lifter *L, tine_expr_t *root) {
    tine_expr_t **m = memo_slot(L->rs, L->ctx, root->id);
    if (*m) return *m;
    uint32_t n;
    tine_expr_t **order = tine_topo(L->ctx, root, &n);
    for (uint32_t k = 0; k < n; k++) {
        tine_expr_t *e = order[k];
        if (*memo_slot(L->rs, L->ctx, e->id)) continue;
        tine_expr_t *ops[256];
        for (int i = 0; i < e->nops; i++) ops[i] = *memo_slot(L->rs, L->ctx, e->ops[i]->id);
        tine_expr_t *x = tine_rebuild(L->ctx, e, ops);
        tine_expr_t *r = *memo_slot(L->rs, L->ctx, x->id);
        if (!r) r = lift_root(L, x);
        *memo_slot(L->rs, L->ctx, e->id) = r;
        *memo_slot(L->rs, L->ctx, x->id) = r;
        *memo_slot(L->rs, L->ctx, r->id) = r;
    }
    free(order);
    return *memo_slot(L->rs, L->ctx, root->id);
}

tine_expr_t *tine_lift_with(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_expr_t *e, tine_lift_trace_fn trace,
                            void *user) {
    if (!e || !rs) return NULL;
    lifter L = {ctx, rs, trace, user};
    return lift_dag(&L, e);
}

tine_ruleset_t *tine_lift_rules(tine_ctx_t *ctx) {
    if (!ctx->lift_rules) {
        char *saved = tine_error(ctx) ? tine_strdup(tine_error(ctx)) : NULL;
        ctx->lift_rules = tine_rules_compile(ctx, tine_lift_rules_text, tine_lift_rules_file);
        if (!ctx->lift_rules) {
            /* the shipped rules compile (a test says so); this is a build defect */
            fprintf(stderr, "%s\n", tine_error(ctx));
            TINE_ASSERT(!"the built-in lift rules do not compile");
        }
        tine_set_error_str(ctx, saved);
    }
    return ctx->lift_rules;
}

tine_expr_t *tine_lift(tine_ctx_t *ctx, tine_expr_t *e) {
    if (!e) return NULL;
    return tine_lift_with(ctx, tine_lift_rules(ctx), e, NULL, NULL);
}
