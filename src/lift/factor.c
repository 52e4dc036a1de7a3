/* factor.c — sums of products by constants, grouped by their constant before lifting:
 * 6*a + 15*b + 6*c becomes 6*(a + c) + 15*b.
 *
 * A stencil's symmetric weights (a Gaussian's 1 6 15 20 15 6 1) give terms whose
 * coefficients repeat but never sit side by side in the sum's left-to-right tree, so no
 * rule, which sees one node and its operands, can pair them. Integer arithmetic wraps,
 * so c*a + c*b = c*(a + b) for every input: the grouping is exact. It halves the
 * multiplies of a symmetric stencil; and where bounds show a group of zero-extended
 * values sums within their own type, it is added there (group_sum), narrow enough for a
 * widening multiply (the lift's rules and the lowering see it next).
 *
 * Runs once over the expression, bottom-up; a sum's terms are collected through its
 * additions of the same type, and a sum is rebuilt only when it has at most MAX_TERMS
 * terms and some coefficient other than 1 repeats, so every other expression is left
 * exactly as it was. (A longer sum is left to its inner sums: each is visited itself.)
 */
#include "../rules/rules.h"

enum { MAX_TERMS = 64 };

typedef struct {
    tine_expr_t *x;
    tine_expr_t *c; /* its constant coefficient (a uniform constant), or NULL for 1 */
} term;

static bool uniform_const(const tine_expr_t *e) {
    return e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM);
}

/* The terms of the sum e into v; false past MAX_TERMS terms or 2 * MAX_TERMS nodes
 * visited (*budget), so that a long chain of sums costs each of its nodes a bounded walk
 * (and a bounded recursion depth): the sum is then left alone. */
static bool collect(tine_expr_t *e, tine_type_t t, term *v, int *n, int *budget) {
    if (--*budget < 0) return false;
    if (e->op == TINE_OP_ADD && tine_type_eq(e->type, t))
        return collect(e->ops[0], t, v, n, budget) && collect(e->ops[1], t, v, n, budget);
    if (*n == MAX_TERMS) return false;
    term k = {e, NULL};
    if (e->op == TINE_OP_MUL && uniform_const(e->ops[1]) && !uniform_const(e->ops[0])) k = (term){e->ops[0], e->ops[1]};
    else if (e->op == TINE_OP_MUL && uniform_const(e->ops[0]) && !uniform_const(e->ops[1]))
        k = (term){e->ops[1], e->ops[0]};
    v[(*n)++] = k;
    return true;
}

static bool same_coef(const tine_expr_t *a, const tine_expr_t *b) {
    if (!a || !b) return a == b;
    return tine_const_value(a, 0) == tine_const_value(b, 0);
}

/* The sum of a group's terms. Where every term zero-extends a value of one unsigned
 * type N and bounds show their sum stays within N, the values are added at N and the sum
 * extended once, i32(a) + i32(b) = i32(a + b): a stencil row of u16 sums below 2^15 gives
 * a u16 pair, which one widening multiply takes. */
static tine_expr_t *group_sum(tine_ctx_t *ctx, tine_expr_t **x, int n) {
    tine_type_t N = x[0]->op == TINE_OP_CAST ? x[0]->ops[0]->type : x[0]->type;
    bool narrow = n > 1 && N.kind == TINE_UINT && N.bits < x[0]->type.bits;
    tine_i128 total = 0;
    for (int i = 0; i < n && narrow; i++) {
        tine_i128 lo, hi;
        narrow = x[i]->op == TINE_OP_CAST && tine_type_eq(x[i]->ops[0]->type, N) &&
                 tine_bounds(ctx, x[i]->ops[0], &lo, &hi);
        total += narrow ? hi : 0;
    }
    narrow = narrow && total <= tine_max_i128(N);
    tine_expr_t *g = narrow ? x[0]->ops[0] : x[0];
    for (int i = 1; i < n; i++) g = tine_binary(ctx, TINE_OP_ADD, g, narrow ? x[i]->ops[0] : x[i]);
    return narrow ? tine_cast(ctx, tine_type_with_lanes(x[0]->type, 1), g) : g;
}

static tine_expr_t *factor_root(void *user, tine_expr_t *n, tine_expr_t *orig) {
    (void)orig;
    tine_ctx_t *ctx = user;
    if (n->op != TINE_OP_ADD || n->type.kind == TINE_FLOAT) return n;
    term v[MAX_TERMS];
    int nt = 0;
    int budget = 2 * MAX_TERMS;
    if (!collect(n, n->type, v, &nt, &budget)) return n;
    bool repeats = false;
    for (int i = 0; i < nt && !repeats; i++)
        for (int j = i + 1; j < nt && !repeats; j++) repeats = v[i].c && same_coef(v[i].c, v[j].c);
    if (!repeats) return n;
    /* groups in the order of their first term; within a group the terms' order */
    bool done[MAX_TERMS] = {false};
    tine_expr_t *sum = NULL;
    for (int i = 0; i < nt; i++) {
        if (done[i]) continue;
        tine_expr_t *grp[MAX_TERMS];
        int ng = 0;
        for (int j = i; j < nt; j++)
            if (!done[j] && same_coef(v[i].c, v[j].c)) {
                grp[ng++] = v[j].x;
                done[j] = true;
            }
        tine_expr_t *g = group_sum(ctx, grp, ng);
        if (v[i].c) g = tine_binary(ctx, TINE_OP_MUL, g, v[i].c);
        sum = sum ? tine_binary(ctx, TINE_OP_ADD, sum, g) : g;
    }
    return sum;
}

tine_expr_t *tine_factor_sums(tine_ctx_t *ctx, tine_expr_t *e) {
    tine_rewrite_memo memo = {0};
    tine_expr_t *r = tine_rewrite_dag(ctx, &memo, e, factor_root, ctx);
    free(memo.v);
    return r;
}
