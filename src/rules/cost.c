/* cost.c — the lifting cost of a term (bits its operations read, then the ranks of its
 * ops): what every lifting rule must strictly lower (rules.c), which makes lifting
 * terminate.
 */
#include "rules.h"

/* An FPIR op's rank is a column of its table (tine_ops.h). */
static int op_rank(tine_op_t op) {
    if (tine_op_is_fpir(op)) return tine_fpir_table[op - TINE_FPIR_FIRST].rank;
    switch (op) {
    case TINE_OP_MUL: return 2;
    case TINE_OP_DIV: case TINE_OP_MOD: return 4;
    default: return 1;
    }
}

tine_cost tine_lift_cost(tine_ctx_t *ctx, const tine_expr_t *e) {
    tine_cost c = {0, 0};
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    for (uint32_t k = 0; k < n; k++) {
        const tine_expr_t *x = order[k];
        if (x->op == TINE_OP_VAR || x->op == TINE_OP_CONST) continue;
        /* no vector unit divides: a division is scalarized or expanded into a multiply-high
           and shifts, so its operands count twice */
        int weight = x->op == TINE_OP_DIV || x->op == TINE_OP_MOD ? 2 : 1;
        for (int i = 0; i < x->nops; i++) c.bits += weight * x->ops[i]->type.bits;
        c.rank += op_rank((tine_op_t)x->op);
    }
    free(order);
    return c;
}

int tine_cost_cmp(tine_cost a, tine_cost b) {
    if (a.bits != b.bits) return a.bits < b.bits ? -1 : 1;
    if (a.rank != b.rank) return a.rank < b.rank ? -1 : 1;
    return 0;
}
