/* pattern.h — what a pattern's nodes are (wildcards, constant wildcards, commutative
 * ops, equal uniform constants): shared by the rule compiler and matcher (rules.c) and the
 * checks between rules (rules_check.c). Also the checks' interface to the compiler. */
#ifndef TINE_RULES_PATTERN_H
#define TINE_RULES_PATTERN_H
#include "rules.h"

static inline bool is_wild(const tine_expr_t *e) { return e->op == TINE_OP_VAR && tine_expr_name(e)[0] == '?'; }
static inline bool is_cwild(const tine_expr_t *e) {
    const char *n = e->op == TINE_OP_VAR ? tine_expr_name(e) : "";
    return n[0] == '?' && n[1] == 'c' && n[2] >= '0' && n[2] <= '9';
}
static inline bool same_elem(tine_type_t a, tine_type_t b) { return a.kind == b.kind && a.bits == b.bits; }

/* A column of the op tables (tine_ops.h), primitive and FPIR. */
static inline bool commutative(tine_op_t op) {
    if (tine_op_is_fpir(op)) return tine_fpir_table[op - TINE_FPIR_FIRST].commutative;
    switch (op) {
#define X(e, name, ar, tok, prec, comm) \
    case TINE_OP_##e: return comm;
        TINE_PRIM_OPS(X)
#undef X
    default: return false;
    }
}

static inline bool const_equal(const tine_expr_t *a, const tine_expr_t *b) {
    if (!(a->flags & TINE_F_UNIFORM) || !(b->flags & TINE_F_UNIFORM)) return false;
    return tine_const_value(a, 0) == tine_const_value(b, 0);
}


/* The index of the checks between rules (rules_check.c): rule numbers listed by hashed
 * keys. Zero-initialized is empty. */
typedef struct tine_rule_bucket tine_rule_bucket;
typedef struct {
    tine_rule_bucket *b; /* open addressing; cap a power of two, at most half full */
    size_t cap, n;
} tine_rule_index;

/* The first earlier rule of rule i's name, and of its left side and condition (-1: none),
 * among those added to ix. */
void tine_rule_index_twins(tine_rule_index *ix, const tine_ruleset_t *rs, int i, bool lowering, int *same_name,
                           int *same_side);
/* Lists rule i under its name and under its left side and condition. */
void tine_rule_index_add(tine_rule_index *ix, const tine_ruleset_t *rs, int i);
void tine_rule_index_free(tine_rule_index *ix);
/* false after the message when two rules of equal priority can match one term. */
bool tine_rules_check_overlaps(tine_ctx_t *ctx, tine_ruleset_t *rs);

#endif
