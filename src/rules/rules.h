/* rules.h — rule sets: compiled rules, instantiations, matching, lifting cost. */
#ifndef TINE_RULES_H
#define TINE_RULES_H

#include "../ir/elab.h"

typedef struct {
    int bits; /* sum over ops of their inputs' bit widths */
    int rank; /* sum of per-op ranks: the tie-break of FPIR.md */
} tine_cost;

/* Node id -> its rewrite (NULL: not visited). Rewrites may depend on bounds facts
 * (predicated rules), so the memo holds the results of one bounds epoch only
 * (tine_bounds_epoch): it empties itself when the facts have changed since. */
typedef struct {
    tine_expr_t **v;
    uint32_t cap;
    uint64_t epoch;
} tine_rewrite_memo;

typedef struct {
    tine_type_t T;        /* the type variable's value */
    tine_expr_t *lhs;     /* pattern: wildcards are variables ?x, constant wildcards ?c0 */
    tine_expr_t *rhs;     /* right side on the wildcards (constant wildcards = 1): checks */
    tine_cost cost, lhs_cost;
    /* cost(rhs) - cost(lhs): how much the rewrite saves on the whole term (the matched
       subterms are kept, so candidates for one node compare by this) */
    tine_cost delta;
    /* the predicate's conjuncts that T alone does not decide (the rest are true) */
    const tine_ast **dyn;
    int ndyn;
    /* the right side prebuilt on the wildcards (c0.. as variables ?c0 of the type their
       position gives), children first; NULL when it computes with constants (log2(c0)),
       and then the right side is elaborated for each match */
    tine_expr_t **rhs_order;
    uint32_t rhs_n;
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

enum { TINE_RULE_TYPES = 32 };
/* A small index for an element type: kind and log2 of bits. */
static inline int tine_rule_key(tine_type_t t) {
    int lb = t.bits == 1 ? 0 : t.bits == 8 ? 3 : t.bits == 16 ? 4 : t.bits == 32 ? 5 : t.bits == 64 ? 6 : 7;
    return (t.kind & 3) << 3 | lb;
}

struct tine_ruleset {
    tine_arena arena; /* rule syntax trees */
    tine_rule *rules;
    int n;
    /* dispatch: by root op and root element type (tine_rule_key) */
    struct tine_rule_list by_key[TINE_OP_COUNT][TINE_RULE_TYPES];
    bool lowering;      /* lowering rules: no cost or copying checks, no overlap check */
    tine_rewrite_memo memo; /* lift.c: node id -> lifted node */
};

tine_cost tine_lift_cost(tine_ctx_t *ctx, const tine_expr_t *e);
/* Sums of products by constants grouped by their constant (factor.c): the lift's first step. */
tine_expr_t *tine_factor_sums(tine_ctx_t *ctx, tine_expr_t *e);
int tine_cost_cmp(tine_cost a, tine_cost b);
/* The cheapest rewrite of e's root by one rule, or NULL; *used names the rule. */
tine_expr_t *tine_rules_try(tine_ctx_t *ctx, const tine_ruleset_t *rs, tine_expr_t *e, const tine_rule **used);

/* Rewrites a DAG bottom-up, each node once: a node is rebuilt on its operands'
 * rewrites (n), then fn gives its own rewrite (fn may rewrite the nodes it makes with
 * this function again; orig is the node before its operands were rewritten, for rules
 * whose patterns reach into operands). Shared subexpressions stay shared; the memo
 * keeps the results (a rewrite maps to itself). Used by lifting and lowering. */
typedef tine_expr_t *(*tine_rewrite_root_fn)(void *user, tine_expr_t *n, tine_expr_t *orig);
tine_expr_t *tine_rewrite_dag(tine_ctx_t *ctx, tine_rewrite_memo *m, tine_expr_t *root, tine_rewrite_root_fn fn,
                              void *user);
tine_expr_t *tine_rewrite_memo_get(tine_ctx_t *ctx, tine_rewrite_memo *m, const tine_expr_t *e);
void tine_rewrite_memo_set(tine_ctx_t *ctx, tine_rewrite_memo *m, const tine_expr_t *e, tine_expr_t *r);

/* Lowering rules (tine_rules_compile_kind with lowering set) need not lower the lifting
 * cost, may copy a wildcard, and may overlap: the lowering driver chooses among the
 * rewrites that match by their cost on the target. */
tine_ruleset_t *tine_rules_compile_kind(tine_ctx_t *ctx, const char *text, const char *file, bool lowering);
/* The rules of k files as one set (the checks between rules, overlaps too, across them
 * all); each rule keeps its file and line for messages and traces. */
tine_ruleset_t *tine_rules_compile_files(tine_ctx_t *ctx, const char *const *texts, const char *const *files, int k,
                                         bool lowering);
/* Cost of a rewrite of e into r on the target; negative: r is not available there. */
typedef double (*tine_rule_cost_fn)(void *user, const tine_expr_t *e, const tine_expr_t *r);
/* The cheapest rewrite of e's root by one rule by that cost (ties: higher priority, then
 * the earlier rule), or NULL. */
tine_expr_t *tine_rules_try_cost(tine_ctx_t *ctx, const tine_ruleset_t *rs, tine_expr_t *e, tine_rule_cost_fn cost,
                                 void *user, const tine_rule **used);

#endif
