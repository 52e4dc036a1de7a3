/* live.c — the measures of a schedule: whether it is one (tine_sched_is_topo), how many
 * values it keeps live at once (tine_sched_max_live, tine_sched_lifetime) and how many
 * spills a register allocator would add to it (tine_sched_spills); and the DAG helpers
 * the schedulers share (live.h).
 *
 * Liveness is one pass: each value's interval runs from its definition to its last use,
 * and a difference array over positions sums the intervals. The spill count is Belady's
 * allocation, the optimal one for a fixed order when reloads are what costs: with the
 * use positions of each value listed in order, the value to evict is the one in a
 * register whose next use is furthest, found by a scan of the registers (an eviction is
 * O(nregs); the registers of real targets are few).
 */
#include "live.h"

#include "../internal.h"

void tine_sched_graph_build(const tine_sched_dag *d, tine_sched_graph *g) {
    int n = d->n;
    g->n = n;
    g->kind = d->kind;
    g->op_start = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    g->ops = tine_xmalloc(sizeof(int) * ((size_t)d->op_start[n] + 1));
    int *seen = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    for (int v = 0; v < n; v++) seen[v] = -1;
    int k = 0;
    for (int v = 0; v < n; v++) {
        g->op_start[v] = k;
        for (int j = d->op_start[v]; j < d->op_start[v + 1]; j++) {
            int o = d->ops[j];
            if (!tine_sched_has_reg(d->kind, o) || seen[o] == v) continue;
            seen[o] = v;
            g->ops[k++] = o;
        }
    }
    g->op_start[n] = k;
    /* Users by counting: each (operand, user) edge is already distinct. */
    g->use_start = tine_xcalloc((size_t)n + 1, sizeof(int));
    g->uses = tine_xmalloc(sizeof(int) * ((size_t)k + 1));
    for (int j = 0; j < k; j++) g->use_start[g->ops[j] + 1]++;
    for (int v = 0; v < n; v++) g->use_start[v + 1] += g->use_start[v];
    for (int v = 0; v < n; v++) seen[v] = g->use_start[v];
    for (int v = 0; v < n; v++)
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) g->uses[seen[g->ops[j]]++] = v;
    free(seen);
}

void tine_sched_graph_free(tine_sched_graph *g) {
    free(g->op_start);
    free(g->ops);
    free(g->use_start);
    free(g->uses);
}

bool tine_sched_kahn(const tine_sched_dag *d, int *order) {
    int n = d->n;
    int *need = tine_xcalloc((size_t)n + 1, sizeof(int));
    int *ustart = tine_xcalloc((size_t)n + 2, sizeof(int));
    int e = d->op_start[n];
    int *users = tine_xmalloc(sizeof(int) * ((size_t)e + 1));
    for (int v = 0; v < n; v++) {
        need[v] = d->op_start[v + 1] - d->op_start[v];
        for (int j = d->op_start[v]; j < d->op_start[v + 1]; j++) ustart[d->ops[j] + 2]++;
    }
    for (int v = 0; v < n; v++) ustart[v + 2] += ustart[v + 1];
    for (int v = 0; v < n; v++)
        for (int j = d->op_start[v]; j < d->op_start[v + 1]; j++) users[ustart[d->ops[j] + 1]++] = v;
    /* order doubles as the queue: taken from its front, appended at its back. */
    int tail = 0;
    for (int v = 0; v < n; v++)
        if (need[v] == 0) order[tail++] = v;
    for (int head = 0; head < tail; head++) {
        int v = order[head];
        for (int j = ustart[v]; j < ustart[v + 1]; j++)
            if (--need[users[j]] == 0) order[tail++] = users[j];
    }
    free(need);
    free(ustart);
    free(users);
    return tail == n;
}

bool tine_sched_dag_ok(const tine_sched_dag *d) {
    if (!d || d->n < 0) return false;
    if (d->n == 0) return true;
    if (!d->kind || !d->op_start || d->op_start[0] != 0) return false;
    for (int v = 0; v < d->n; v++) {
        int a = d->op_start[v], b = d->op_start[v + 1];
        if (b < a || d->kind[v] > TINE_SCHED_STORE) return false;
        if (b > a && (d->kind[v] == TINE_SCHED_CONST || d->kind[v] == TINE_SCHED_LOAD)) return false;
        for (int j = a; j < b; j++)
            if (!d->ops || d->ops[j] < 0 || d->ops[j] >= d->n || d->kind[d->ops[j]] == TINE_SCHED_STORE)
                return false;
    }
    int *order = tine_xmalloc(sizeof(int) * (size_t)d->n);
    bool ok = tine_sched_kahn(d, order);
    free(order);
    return ok;
}

int tine_sched_consts_first(const tine_sched_dag *d, int *order) {
    int n = d->n, k = 0;
    int *rest = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    int nrest = 0;
    for (int i = 0; i < n; i++) {
        if (d->kind[order[i]] == TINE_SCHED_CONST) order[k++] = order[i];
        else rest[nrest++] = order[i];
    }
    memcpy(order + k, rest, sizeof(int) * (size_t)nrest);
    free(rest);
    return k;
}

/* pos[v] = v's position in order; false if order is not a permutation. */
static bool positions(int n, const int *order, int *pos) {
    for (int v = 0; v < n; v++) pos[v] = -1;
    for (int i = 0; i < n; i++) {
        int v = order[i];
        if (v < 0 || v >= n || pos[v] >= 0) return false;
        pos[v] = i;
    }
    return true;
}

bool tine_sched_is_topo(const tine_sched_dag *d, const int *order) {
    int n = d->n;
    int *pos = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    bool ok = positions(n, order, pos);
    for (int v = 0; ok && v < n; v++)
        for (int j = d->op_start[v]; ok && j < d->op_start[v + 1]; j++) ok = pos[d->ops[j]] < pos[v];
    free(pos);
    return ok;
}

/* Each register value's interval [pos, last] (last[v] = -1 for other nodes). */
static void intervals(const tine_sched_dag *d, const int *order, int *pos, int *last) {
    int n = d->n;
    TINE_ASSERT(positions(n, order, pos));
    for (int v = 0; v < n; v++) last[v] = tine_sched_has_reg(d->kind, v) ? pos[v] : -1;
    for (int v = 0; v < n; v++)
        for (int j = d->op_start[v]; j < d->op_start[v + 1]; j++) {
            int o = d->ops[j];
            if (tine_sched_has_reg(d->kind, o) && last[o] < pos[v]) last[o] = pos[v];
        }
}

int tine_sched_max_live(const tine_sched_dag *d, const int *order) {
    int n = d->n;
    int *pos = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    int *last = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    int *delta = tine_xcalloc((size_t)n + 2, sizeof(int));
    intervals(d, order, pos, last);
    for (int v = 0; v < n; v++)
        if (last[v] >= 0) {
            delta[pos[v]]++;
            delta[last[v] + 1]--;
        }
    int live = 0, best = 0;
    for (int i = 0; i < n; i++) {
        live += delta[i];
        if (live > best) best = live;
    }
    free(pos);
    free(last);
    free(delta);
    return best;
}

long long tine_sched_lifetime(const tine_sched_dag *d, const int *order) {
    int n = d->n;
    int *pos = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    int *last = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    intervals(d, order, pos, last);
    long long sum = 0;
    for (int v = 0; v < n; v++)
        if (last[v] >= 0) sum += last[v] - pos[v] + 1;
    free(pos);
    free(last);
    return sum;
}

/* ---- spills ----------------------------------------------------------------------- */

typedef struct {
    const tine_sched_graph *g;
    int *use_start, *use_pos;  /* per value, the positions that read it, ascending */
    int *next;                 /* per value, the index in use_pos of its next use */
    int *reg_of;               /* per value, its register or -1 */
    bool *spilled;             /* stored to its spill slot once already */
    int *regs, nregs;          /* per register, its value or -1 */
    int *free_regs, nfree;
    int *pinned;               /* pinned[v] == position: an operand of the instruction there */
    int spills;
} belady;

static int next_use(const belady *b, int v) {
    int k = b->next[v];
    return k < b->use_start[v + 1] ? b->use_pos[k] : INT32_MAX;
}

/* A register for v at position p, evicting if none is free; false if every register
 * holds an operand of the instruction at p. */
static bool take_reg(belady *b, int v, int p) {
    int r = -1;
    if (b->nfree > 0) {
        r = b->free_regs[--b->nfree];
    } else {
        /* furthest next use; on a tie a value stored already (no new store), then the
         * lower node, so that the count does not depend on register numbers */
        int far = -1, fw = -1;
        for (int i = 0; i < b->nregs; i++) {
            int w = b->regs[i];
            if (b->pinned[w] == p) continue;
            int u = next_use(b, w);
            bool better = u > far;
            if (u == far) better = b->spilled[w] != b->spilled[fw] ? b->spilled[w] : w < fw;
            if (better) far = u, fw = w, r = i;
        }
        if (r < 0) return false;
        int w = b->regs[r];
        if (!b->spilled[w]) b->spilled[w] = true, b->spills++;
        b->reg_of[w] = -1;
    }
    b->regs[r] = v;
    b->reg_of[v] = r;
    return true;
}

static void drop_reg(belady *b, int v) {
    int r = b->reg_of[v];
    if (r < 0) return;
    b->regs[r] = -1;
    b->reg_of[v] = -1;
    b->free_regs[b->nfree++] = r;
}

int tine_sched_spills(const tine_sched_dag *d, const int *order, int nregs) {
    TINE_ASSERT(tine_sched_is_topo(d, order));
    int n = d->n;
    tine_sched_graph g;
    tine_sched_graph_build(d, &g);
    belady b = {.g = &g, .nregs = nregs > 0 ? nregs : 0};
    size_t sn = (size_t)n + 1;
    b.use_start = tine_xcalloc(sn + 1, sizeof(int));
    b.use_pos = tine_xmalloc(sizeof(int) * ((size_t)g.op_start[n] + 1));
    b.next = tine_xmalloc(sizeof(int) * sn);
    b.reg_of = tine_xmalloc(sizeof(int) * sn);
    b.spilled = tine_xcalloc(sn, sizeof(bool));
    b.pinned = tine_xmalloc(sizeof(int) * sn);
    b.regs = tine_xmalloc(sizeof(int) * ((size_t)b.nregs + 1));
    b.free_regs = tine_xmalloc(sizeof(int) * ((size_t)b.nregs + 1));
    for (int v = 0; v < n; v++) {
        b.use_start[v + 1] = g.use_start[v + 1] - g.use_start[v];
        b.reg_of[v] = -1;
        b.pinned[v] = -1;
    }
    for (int v = 0; v < n; v++) b.use_start[v + 1] += b.use_start[v];
    for (int v = 0; v < n; v++) b.next[v] = b.use_start[v];
    for (int p = 0; p < n; p++) {
        int u = order[p];
        for (int j = g.op_start[u]; j < g.op_start[u + 1]; j++) b.use_pos[b.next[g.ops[j]]++] = p;
    }
    for (int v = 0; v < n; v++) b.next[v] = b.use_start[v];
    for (int r = b.nregs - 1; r >= 0; r--) b.regs[r] = -1, b.free_regs[b.nfree++] = r;

    bool ok = true;
    for (int p = 0; p < n && ok; p++) {
        int u = order[p];
        if (d->kind[u] == TINE_SCHED_CONST) continue;
        int a = g.op_start[u], z = g.op_start[u + 1];
        for (int j = a; j < z; j++) b.pinned[g.ops[j]] = p;
        for (int j = a; j < z && ok; j++) {
            int o = g.ops[j];
            if (b.reg_of[o] >= 0) continue;
            b.spills++; /* the reload */
            ok = take_reg(&b, o, p);
        }
        for (int j = a; j < z; j++) b.next[g.ops[j]]++;
        if (ok && tine_sched_has_reg(d->kind, u)) ok = take_reg(&b, u, p);
        if (!ok) break;
        for (int j = a; j < z; j++)
            if (next_use(&b, g.ops[j]) == INT32_MAX) drop_reg(&b, g.ops[j]);
        if (tine_sched_has_reg(d->kind, u) && next_use(&b, u) == INT32_MAX) drop_reg(&b, u);
    }
    int result = ok ? b.spills : -1;
    free(b.use_start);
    free(b.use_pos);
    free(b.next);
    free(b.reg_of);
    free(b.spilled);
    free(b.pinned);
    free(b.regs);
    free(b.free_regs);
    tine_sched_graph_free(&g);
    return result;
}
