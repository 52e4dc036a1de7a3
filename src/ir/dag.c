/* dag.c — walks over an expression DAG: its nodes in topological order (tine_topo, each
 * node once, operands before users) and a value computed for every node bottom-up
 * (tine_dag_values), the shape shared by the passes that fold, lower or emit a DAG.
 */
#include "../internal.h"

static int cmp_id(const void *a, const void *b) {
    uint32_t x = (*(tine_expr_t *const *)a)->id, y = (*(tine_expr_t *const *)b)->id;
    return x < y ? -1 : x > y;
}

/* A set of visited nodes local to one walk, so a walk costs what the subgraph costs,
 * not what the whole context holds. */
typedef struct {
    const tine_expr_t **slot;
    uint32_t cap, n;
} node_set;

static bool set_add(node_set *s, const tine_expr_t *e) {
    if ((s->n + 1) * 2 > s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        const tine_expr_t **slot = tine_xcalloc(cap, sizeof *slot);
        for (uint32_t i = 0; i < s->cap; i++)
            if (s->slot[i]) {
                uint32_t j = (s->slot[i]->id * 2654435761u) & (cap - 1);
                while (slot[j]) j = (j + 1) & (cap - 1);
                slot[j] = s->slot[i];
            }
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    uint32_t j = (e->id * 2654435761u) & (s->cap - 1);
    for (; s->slot[j]; j = (j + 1) & (s->cap - 1))
        if (s->slot[j] == e) return false;
    s->slot[j] = e;
    s->n++;
    return true;
}

tine_expr_t **tine_topo(tine_ctx_t *ctx, const tine_expr_t *root, uint32_t *count) {
    (void)ctx;
    size_t cap = 64, n = 0, sp = 0, scap = 64;
    tine_expr_t **out = tine_xmalloc(cap * sizeof *out);
    const tine_expr_t **stack = tine_xmalloc(scap * sizeof *stack);
    node_set seen = {0};
    stack[sp++] = root;
    set_add(&seen, root);
    while (sp) {
        const tine_expr_t *e = stack[--sp];
        TINE_PUSH(out, n, cap, (tine_expr_t *)e);
        for (int i = 0; i < e->nops; i++) {
            const tine_expr_t *c = e->ops[i];
            if (!set_add(&seen, c)) continue;
            TINE_PUSH(stack, sp, scap, c);
        }
    }
    free(stack);
    free(seen.slot);
    qsort(out, n, sizeof *out, cmp_id);
    *count = (uint32_t)n;
    return out;
}

bool tine_dag_contains(tine_ctx_t *ctx, const tine_expr_t *root, const tine_expr_t *x) {
    if (!root) return false;
    if (root == x) return true;
    if (root->nops == 0) return false;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) found = order[i] == x;
    free(order);
    return found;
}

uint32_t tine_topo_index(tine_expr_t *const *order, uint32_t count, const tine_expr_t *e) {
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (order[mid]->id < e->id) lo = mid + 1;
        else hi = mid;
    }
    TINE_ASSERT(lo < count && order[lo] == e);
    return lo;
}

int tine_dag_values(tine_ctx_t *ctx, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                    void *const *prevals, tine_dag_visit_fn visit, void *user, void **out) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    void **vals = tine_xcalloc(n, sizeof *vals);
    int rc = 0;
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        const tine_expr_t *e = order[k];
        for (int j = 0; j < npre; j++)
            if (pre[j] == e) vals[k] = prevals[j];
        if (vals[k]) continue;
        void *ov[256];
        for (int i = 0; i < e->nops; i++) ov[i] = vals[tine_topo_index(order, n, e->ops[i])];
        rc = visit(user, e, ov, &vals[k]);
    }
    if (rc == 0) *out = vals[n - 1];
    free(vals);
    free(order);
    return rc;
}
