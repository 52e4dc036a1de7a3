/* list.c — a list scheduler that tracks register pressure, for DAGs of any shape.
 *
 * Top-down greedy: at each step, of the instructions whose computed operands are all
 * scheduled, the one whose scheduling raises the number of live values least: +1 for
 * the value it defines (none for a store or a value nobody reads), -1 for each operand
 * whose last reader it is, +1 for each operand load it brings in that stays live for
 * other readers. Loads are not candidates of their own: a load is scheduled just before
 * the first instruction that reads it, so it is never live for nothing (only a load
 * nobody reads is scheduled alone, where it costs least). Ties go to the instruction
 * that reads the most recently defined value (depth-first locality: finish what was
 * started), then to the first in a depth-first post-order from the outputs that visits
 * the operand needing the most registers first (Sethi and Ullman's order, exact for
 * trees), which keeps independent subtrees apart.
 *
 * Every key changes only on events: a value scheduled (its readers' terms), a value down
 * to one remaining reader (that reader's term), so the keys are kept exactly by those
 * events and a binary heap with stale entries skipped finds the best: O(e log e).
 */
#include "live.h"

#include "../internal.h"

typedef struct {
    int delta, recent, rank, node, ver;
} entry;

typedef struct {
    tine_sched_graph g;
    int *order, npos;
    bool *done;
    int *rem, *missing, *delta, *recent, *rank, *ver;
    entry *heap;
    size_t nheap, capheap;
} list_ctx;

/* a goes before b */
static bool before(const entry *a, const entry *b) {
    if (a->delta != b->delta) return a->delta < b->delta;
    if (a->recent != b->recent) return a->recent > b->recent;
    return a->rank < b->rank;
}

static void heap_push(list_ctx *c, entry e) {
    TINE_PUSH(c->heap, c->nheap, c->capheap, e);
    size_t i = c->nheap - 1;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&c->heap[i], &c->heap[p])) break;
        entry t = c->heap[i];
        c->heap[i] = c->heap[p];
        c->heap[p] = t;
        i = p;
    }
}

static entry heap_pop(list_ctx *c) {
    entry top = c->heap[0];
    c->heap[0] = c->heap[--c->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < c->nheap && before(&c->heap[l], &c->heap[m])) m = l;
        if (r < c->nheap && before(&c->heap[r], &c->heap[m])) m = r;
        if (m == i) break;
        entry t = c->heap[i];
        c->heap[i] = c->heap[m];
        c->heap[m] = t;
        i = m;
    }
    return top;
}

static bool is_candidate(const list_ctx *c, int v) {
    if (c->done[v]) return false;
    if (c->g.kind[v] == TINE_SCHED_LOAD) return c->g.use_start[v + 1] == c->g.use_start[v];
    return c->missing[v] == 0;
}

/* v's key changed: a fresh entry (the old ones are stale by version). */
static void refresh(list_ctx *c, int v) {
    if (!is_candidate(c, v)) return;
    entry e = {c->delta[v], c->recent[v], c->rank[v], v, ++c->ver[v]};
    heap_push(c, e);
}

/* What operand o adds to a reader's key as things stand. */
static int term(const list_ctx *c, int o) {
    if (c->done[o]) return c->rem[o] == 1 ? -1 : 0;
    return c->g.kind[o] == TINE_SCHED_LOAD && c->rem[o] > 1 ? 1 : 0;
}

static void place(list_ctx *c, int v) {
    const tine_sched_graph *g = &c->g;
    TINE_ASSERT(!c->done[v]);
    int p = c->npos++;
    c->order[p] = v;
    for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) {
        int o = g->ops[j];
        TINE_ASSERT(c->done[o]);
        if (--c->rem[o] != 1) continue;
        /* the last reader left now kills o */
        for (int k = g->use_start[o]; k < g->use_start[o + 1]; k++) {
            int w = g->uses[k];
            if (w == v || c->done[w]) continue;
            c->delta[w]--;
            refresh(c, w);
            break;
        }
    }
    int before_term = term(c, v);
    c->done[v] = true;
    int after_term = term(c, v);
    for (int k = g->use_start[v]; k < g->use_start[v + 1]; k++) {
        int w = g->uses[k];
        c->delta[w] += after_term - before_term;
        c->recent[w] = p;
        if (g->kind[v] == TINE_SCHED_OP) c->missing[w]--;
        refresh(c, w);
    }
}

/* Sethi-Ullman numbers: what a node's operand tree needs in registers when the operand
 * needing most goes first (shared operands counted as if copied: an estimate on DAGs). */
static void need_numbers(const tine_sched_dag *d, const tine_sched_graph *g, int *sorted, int *need) {
    int n = d->n;
    int *topo = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    TINE_ASSERT(tine_sched_kahn(d, topo));
    for (int i = 0; i < n; i++) {
        int v = topo[i], a = g->op_start[v], z = g->op_start[v + 1];
        /* operands by need, largest first (insertion: operand lists are short) */
        for (int j = a; j < z; j++) {
            int o = g->ops[j], k = j;
            while (k > a && need[sorted[k - 1]] < need[o]) sorted[k] = sorted[k - 1], k--;
            sorted[k] = o;
        }
        int m = tine_sched_has_reg(d->kind, v) ? 1 : 0;
        for (int j = a; j < z; j++)
            if (need[sorted[j]] + (j - a) > m) m = need[sorted[j]] + (j - a);
        need[v] = m;
    }
    free(topo);
}

/* rank[v]: v's place in a depth-first post-order from the nodes nobody reads (outputs),
 * each node's operands visited largest need first. */
static void dfs_ranks(const tine_sched_dag *d, const tine_sched_graph *g, int *rank) {
    int n = d->n;
    int *sorted = tine_xmalloc(sizeof(int) * ((size_t)g->op_start[n] + 1));
    int *need = tine_xcalloc((size_t)n + 1, sizeof(int));
    need_numbers(d, g, sorted, need);
    int *stack = tine_xmalloc(sizeof(int) * ((size_t)n + 1)), *next = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    for (int v = 0; v < n; v++) rank[v] = -1, next[v] = -1;
    int r = 0;
    for (int root = 0; root < n; root++) {
        if (d->kind[root] == TINE_SCHED_CONST || g->use_start[root + 1] > g->use_start[root] || next[root] >= 0)
            continue;
        int sp = 0;
        stack[sp++] = root;
        next[root] = g->op_start[root];
        while (sp > 0) {
            int v = stack[sp - 1];
            if (next[v] < g->op_start[v + 1]) {
                int o = sorted[next[v]++];
                if (next[o] >= 0) continue;
                next[o] = g->op_start[o];
                stack[sp++] = o;
            } else {
                rank[v] = r++;
                sp--;
            }
        }
    }
    free(sorted);
    free(need);
    free(stack);
    free(next);
}

void tine_sched_list(const tine_sched_dag *d, int *order) {
    TINE_ASSERT(tine_sched_dag_ok(d));
    int n = d->n;
    list_ctx c = {.order = order};
    tine_sched_graph_build(d, &c.g);
    const tine_sched_graph *g = &c.g;
    size_t sn = (size_t)n + 1;
    c.done = tine_xcalloc(sn, sizeof(bool));
    c.rem = tine_xmalloc(sizeof(int) * sn);
    c.missing = tine_xcalloc(sn, sizeof(int));
    c.delta = tine_xcalloc(sn, sizeof(int));
    c.recent = tine_xmalloc(sizeof(int) * sn);
    c.rank = tine_xmalloc(sizeof(int) * sn);
    c.ver = tine_xcalloc(sn, sizeof(int));
    dfs_ranks(d, g, c.rank);
    for (int v = 0; v < n; v++)
        if (d->kind[v] == TINE_SCHED_CONST) order[c.npos++] = v, c.done[v] = true;
    for (int v = 0; v < n; v++) {
        c.rem[v] = g->use_start[v + 1] - g->use_start[v];
        c.recent[v] = -1;
    }
    for (int v = 0; v < n; v++) {
        if (c.done[v]) continue;
        if (d->kind[v] == TINE_SCHED_OP && c.rem[v] > 0) c.delta[v] = 1;
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) {
            int o = g->ops[j];
            if (d->kind[o] == TINE_SCHED_OP) c.missing[v]++;
            c.delta[v] += term(&c, o);
        }
    }
    for (int v = 0; v < n; v++) refresh(&c, v);
    while (c.nheap > 0) {
        entry e = heap_pop(&c);
        int v = e.node;
        if (c.done[v] || e.ver != c.ver[v]) continue;
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++)
            if (!c.done[g->ops[j]]) place(&c, g->ops[j]);
        place(&c, v);
    }
    TINE_ASSERT(c.npos == n);
    tine_sched_graph_free(&c.g);
    free(c.done);
    free(c.rem);
    free(c.missing);
    free(c.delta);
    free(c.recent);
    free(c.rank);
    free(c.ver);
    free(c.heap);
}
