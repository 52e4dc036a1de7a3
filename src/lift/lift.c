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

/* Post-order over the part of the DAG not lifted yet: the memo doubles as the visited
 * set, so a walk costs only the new nodes. The stack is the current path. */
static tine_expr_t *lift_dag(lifter *L, tine_expr_t *root) {
    if (*memo_slot(L->rs, L->ctx, root->id)) return *memo_slot(L->rs, L->ctx, root->id);
    struct frame {
        tine_expr_t *e;
        int next;
    } local[64], *stack = local;
    size_t sp = 0, cap = 64;
    stack[sp++] = (struct frame){root, 0};
    while (sp) {
        struct frame *f = &stack[sp - 1];
        tine_expr_t *e = f->e;
        if (f->next < e->nops) {
            tine_expr_t *c = e->ops[f->next++];
            if (*memo_slot(L->rs, L->ctx, c->id)) continue;
            if (sp == cap) {
                struct frame *n = malloc(2 * cap * sizeof *n);
                TINE_ASSERT(n != NULL);
                memcpy(n, stack, sp * sizeof *n);
                if (stack != local) free(stack);
                stack = n;
                cap *= 2;
            }
            stack[sp++] = (struct frame){c, 0};
            continue;
        }
        sp--;
        tine_expr_t *ops[256];
        for (int i = 0; i < e->nops; i++) ops[i] = *memo_slot(L->rs, L->ctx, e->ops[i]->id);
        tine_expr_t *x = tine_rebuild(L->ctx, e, ops);
        tine_expr_t *r = *memo_slot(L->rs, L->ctx, x->id);
        if (!r) r = lift_root(L, x);
        *memo_slot(L->rs, L->ctx, e->id) = r;
        *memo_slot(L->rs, L->ctx, x->id) = r;
        *memo_slot(L->rs, L->ctx, r->id) = r;
    }
    if (stack != local) free(stack);
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
