/* transpose.c — network transposition of the DFT DAG (genfft's Transpose, algsimp.ml;
 * Frigo, PLDI 1999, §5).
 *
 * A codelet computes y = A x by a network of sums, constant products and negations. Its
 * transpose computes A^T y' by the same network with every edge reversed: a node's dual
 * is the sum over its uses of the user's dual (times k through a product k x, negated
 * through a negation), and an output's node gets the output as a new input. Simplifying
 * the transposed network and transposing it back finds what the forward simplifier
 * cannot see, because the simplifier folds chains of constants only downward: c (a x + b
 * y), a product of a sum whose terms already carry constants, is (c a) x + (c b) y in the
 * transpose, where the chain c -> a is a product of products (DFT 5 by Rader's
 * algorithm: 12 multiplications where the forward network keeps 16).
 */
#include "dag.h"

/* Which nodes the roots reach (by id), constant factors included. */
static bool *reachable(const dd_dag *d, dd_node *const *roots, int nroots) {
    bool *r = tine_xcalloc((size_t)dd_count(d) + 1, sizeof *r);
    dd_node **stack = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < nroots; i++) TINE_PUSH(stack, n, cap, roots[i]);
    while (n) {
        dd_node *x = stack[--n];
        if (r[x->id]) continue;
        r[x->id] = true;
        if (x->kind == DD_TIMES) TINE_PUSH(stack, n, cap, x->k);
        for (int i = 0; i < x->n; i++) TINE_PUSH(stack, n, cap, x->op[i]);
    }
    free(stack);
    return r;
}

long dd_weight(const dd_dag *d, dd_node *const *roots, int nroots) {
    bool *r = reachable(d, roots, nroots);
    long w = nroots; /* stores */
    for (int id = 0; id < dd_count(d); id++) {
        if (!r[id]) continue;
        const dd_node *x = dd_at(d, id);
        switch (x->kind) {
        case DD_PLUS: w += 10L * (x->n - 1); break;
        case DD_TIMES: w += 20; break;
        default: w += 1; break; /* loads, constants, negations */
        }
    }
    free(r);
    return w;
}

/* The transpose of the network from d's leaves to roots, in a new DAG whose leaf j is
 * root j; *out (dd_leaves(d) nodes) the dual of each of d's leaves (0 where unused). */
static dd_dag *transpose(const dd_dag *d, dd_node *const *roots, int nroots, dd_node **out, uint64_t seed) {
    int count = dd_count(d);
    bool *r = reachable(d, roots, nroots);
    /* the uses of each node: parents (CSR), and the roots it is */
    int *start = tine_xcalloc((size_t)count + 2, sizeof *start), *fill = tine_xcalloc((size_t)count + 1, sizeof *fill);
    for (int id = 0; id < count; id++)
        if (r[id])
            for (int i = 0; i < dd_at(d, id)->n; i++) start[dd_at(d, id)->op[i]->id + 1]++;
    for (int id = 0; id < count; id++) start[id + 1] += start[id];
    int *parent = tine_xmalloc((size_t)start[count] * sizeof *parent + 1);
    for (int id = 0; id < count; id++)
        if (r[id])
            for (int i = 0; i < dd_at(d, id)->n; i++) {
                int c = dd_at(d, id)->op[i]->id;
                parent[start[c] + fill[c]++] = id;
            }
    dd_dag *t = dd_new(nroots, seed);
    dd_node **dual = tine_xcalloc((size_t)count + 1, sizeof *dual);
    dd_node **terms = NULL;
    size_t nt = 0, cap = 0;
    for (int id = count - 1; id >= 0; id--) { /* users before what they use */
        dd_node *x = dd_at(d, id);
        if (!r[id] || x->kind == DD_NUM) continue; /* constants are factors, not signals */
        nt = 0;
        for (int j = 0; j < nroots; j++)
            if (roots[j] == x) TINE_PUSH(terms, nt, cap, dd_load(t, j));
        for (int k = start[id]; k < start[id + 1]; k++) {
            const dd_node *p = dd_at(d, parent[k]);
            dd_node *dp = dual[p->id];
            TINE_ASSERT(dp != NULL);
            if (p->kind == DD_TIMES) dp = dd_scale(t, p->k->c, dp);
            if (p->kind == DD_NEG) dp = dd_neg(t, dp);
            TINE_PUSH(terms, nt, cap, dp);
        }
        dual[id] = dd_plus(t, terms, (int)nt);
    }
    for (int i = 0; i < dd_leaves(d); i++) {
        dd_node *leaf = dd_leaf_if_made(d, i);
        out[i] = leaf && r[leaf->id] ? dual[leaf->id] : dd_num(t, 0);
    }
    free(r), free(start), free(fill), free(parent), free(dual), free(terms);
    return t;
}

dd_dag *dd_transpose_simplify(dd_dag *d, dd_node *const *roots, int nroots, dd_node **out) {
    int nleaves = dd_leaves(d);
    dd_node **mid = tine_xmalloc((size_t)nleaves * sizeof *mid);
    dd_node **cur = tine_xmalloc((size_t)nroots * sizeof *cur), **best = tine_xmalloc((size_t)nroots * sizeof *best);
    memcpy(cur, roots, (size_t)nroots * sizeof *cur);
    memcpy(best, roots, (size_t)nroots * sizeof *best);
    dd_dag *curd = d, *bestd = d;
    long w = dd_weight(d, roots, nroots), bestw = w;
    /* genfft stops at the first round that does not make the DAG heavier; a heavier one
     * is transposed again. Rounds are bounded here, and the lightest DAG seen is kept. */
    for (int round = 0; round < 4; round++) {
        dd_dag *t = transpose(curd, cur, nroots, mid, 0x7a11u + 2u * (uint64_t)round);
        dd_node **next = tine_xmalloc((size_t)nroots * sizeof *next);
        dd_dag *u = transpose(t, mid, nleaves, next, 0x7a12u + 2u * (uint64_t)round);
        dd_free(t);
        long w2 = dd_weight(u, next, nroots);
        if (curd != bestd) dd_free(curd);
        free(cur);
        curd = u, cur = next;
        bool done = w2 <= w;
        w = w2;
        if (w2 <= bestw) {
            if (bestd != curd) dd_free(bestd);
            bestd = curd, bestw = w2;
            memcpy(best, cur, (size_t)nroots * sizeof *best);
        }
        if (done) break;
    }
    if (curd != bestd) dd_free(curd);
    memcpy(out, best, (size_t)nroots * sizeof *out);
    free(mid), free(cur), free(best);
    return bestd;
}
