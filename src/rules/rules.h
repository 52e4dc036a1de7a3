/* rules.h — rule sets: compiled rules, instantiations, matching, lifting cost. */
#ifndef TINE_RULES_H
#define TINE_RULES_H

#include "../ir/ast.h"

typedef struct {
    int bits; /* sum over ops of their inputs' bit widths */
    int rank; /* sum of per-op ranks: the tie-break of FPIR.md */
} tine_cost;

typedef struct {
    tine_type_t T;        /* the type variable's value */
    tine_expr_t *lhs;     /* pattern: wildcards are variables ?x, constant wildcards ?c0 */
    tine_expr_t *rhs;     /* right side on the wildcards (constant wildcards = 1): checks */
    tine_cost cost, lhs_cost;
} tine_rule_inst;

typedef struct tine_rule {
    tine_rule_ast ast;
    tine_rule_inst inst[8];
    int ninst;
    int index;
} tine_rule;

typedef struct {
    const tine_rule *rule;
    const tine_rule_inst *inst;
} tine_rule_ref;

struct tine_rule_list {
    tine_rule_ref *items;
    int n, cap;
};

struct tine_ruleset {
    tine_arena arena; /* rule syntax trees */
    tine_rule *rules;
    int n;
    struct tine_rule_list by_op[TINE_OP_COUNT];
    tine_expr_t **memo; /* lift.c: node id -> lifted node */
    uint32_t memo_cap;
};

tine_cost tine_lift_cost(tine_ctx_t *ctx, const tine_expr_t *e);
int tine_cost_cmp(tine_cost a, tine_cost b);
/* The cheapest rewrite of e's root by one rule, or NULL; *used names the rule. */
tine_expr_t *tine_rules_try(tine_ctx_t *ctx, const tine_ruleset_t *rs, tine_expr_t *e, const tine_rule **used);

#endif
