/* test_schedule.c — the register-pressure scheduler (src/schedule).
 *
 * Liveness and spills against naive counts written here from the definitions (every
 * position scanned, next uses found by scanning forward); exact max live on hand-built
 * DAGs; a seeded corpus of DAGs (random ones, trees, chains, wide parallel ones, shared
 * and repeated operands, CONST nodes, butterflies, some with their nodes numbered out of
 * topological order), each given a random topological input order, on which every
 * method's order must be a topological permutation and tine_sched_run must never return
 * more max live than the input's; FFTW's order on radix-2 FFT networks against the
 * breadth-first (stage by stage) order; the time of every method on 20k-node DAGs and a
 * 100k-node chain.
 */
#include "internal.h"
#include "schedule/schedule.h"
#include "testutil.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building DAGs --------------------------------------------------------------- */

typedef struct {
    int n, nops;
    size_t cap, capkind, capops;
    uint8_t *kind;
    int *op_start, *ops;
} dag_b;

static void db_init(dag_b *b) {
    memset(b, 0, sizeof *b);
    TINE_GROW(b->op_start, 1, b->cap);
    b->op_start[0] = 0;
}

static void db_free(dag_b *b) {
    free(b->kind);
    free(b->op_start);
    free(b->ops);
}

static int db_add(dag_b *b, tine_sched_kind k, int nops, const int *ops) {
    size_t need = (size_t)b->n + 2;
    TINE_GROW(b->op_start, need, b->cap);
    TINE_GROW(b->kind, need, b->capkind);
    for (int i = 0; i < nops; i++) TINE_PUSH(b->ops, b->nops, b->capops, ops[i]);
    b->kind[b->n] = (uint8_t)k;
    b->op_start[b->n + 1] = b->nops;
    return b->n++;
}

static int db_load(dag_b *b) { return db_add(b, TINE_SCHED_LOAD, 0, NULL); }
static int db_const(dag_b *b) { return db_add(b, TINE_SCHED_CONST, 0, NULL); }
static int db_op1(dag_b *b, int x) { return db_add(b, TINE_SCHED_OP, 1, &x); }
static int db_op2(dag_b *b, int x, int y) { return db_add(b, TINE_SCHED_OP, 2, (int[]){x, y}); }
static int db_store(dag_b *b, int x) { return db_add(b, TINE_SCHED_STORE, 1, &x); }

static tine_sched_dag db_view(const dag_b *b) {
    return (tine_sched_dag){b->n, b->kind, b->op_start, b->ops};
}

/* ---- random numbers ------------------------------------------------------------------ */

static uint64_t rng_state;
static uint32_t rnd(void) {
    rng_state += 0x9e3779b97f4a7c15ull;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}
static int rnd_below(int k) { return k <= 1 ? 0 : (int)(rnd() % (uint32_t)k); }

/* ---- naive measures, from the definitions ----------------------------------------- */

static bool has_reg(const tine_sched_dag *d, int v) {
    return d->kind[v] == TINE_SCHED_LOAD || d->kind[v] == TINE_SCHED_OP;
}

static bool reads(const tine_sched_dag *d, int u, int v) {
    for (int j = d->op_start[u]; j < d->op_start[u + 1]; j++)
        if (d->ops[j] == v) return true;
    return false;
}

/* The last position of order that reads v, or v's own position. */
static int naive_last(const tine_sched_dag *d, const int *order, int at) {
    int v = order[at], last = at;
    for (int q = at + 1; q < d->n; q++)
        if (reads(d, order[q], v)) last = q;
    return last;
}

static int naive_max_live(const tine_sched_dag *d, const int *order) {
    int n = d->n, best = 0;
    int *last = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) last[i] = has_reg(d, order[i]) ? naive_last(d, order, i) : -1;
    for (int p = 0; p < n; p++) {
        int live = 0;
        for (int i = 0; i <= p; i++) live += last[i] >= p;
        if (live > best) best = live;
    }
    free(last);
    return best;
}

/* Belady by scanning: the value's next reader after position p, or INT32_MAX. */
static int naive_next(const tine_sched_dag *d, const int *order, int v, int p) {
    for (int q = p + 1; q < d->n; q++)
        if (reads(d, order[q], v)) return q;
    return INT32_MAX;
}

static int naive_spills(const tine_sched_dag *d, const int *order, int nregs) {
    int n = d->n, count = 0, nin = 0;
    int *in = malloc(sizeof(int) * (size_t)(n + 1)); /* the values in registers */
    bool *stored = calloc((size_t)n + 1, 1);
    int *opsp = malloc(sizeof(int) * (size_t)(n + 1));
    bool ok = true;
    for (int p = 0; p < n && ok; p++) {
        int u = order[p], nops = 0;
        if (d->kind[u] == TINE_SCHED_CONST) continue;
        for (int j = d->op_start[u]; j < d->op_start[u + 1]; j++) {
            int o = d->ops[j];
            bool dup = !has_reg(d, o);
            for (int k = 0; k < nops; k++) dup |= opsp[k] == o;
            if (!dup) opsp[nops++] = o;
        }
        /* the registers wanted at p: the operands, then the result */
        for (int k = 0; k <= nops && ok; k++) {
            int v;
            if (k < nops) {
                v = opsp[k];
                bool there = false;
                for (int i = 0; i < nin; i++) there |= in[i] == v;
                if (there) continue;
                count++;
            } else {
                if (!has_reg(d, u)) break;
                v = u;
            }
            if (nin == nregs) {
                int victim = -1, far = -1;
                for (int i = 0; i < nin; i++) {
                    int w = in[i];
                    bool pinned = false;
                    for (int q = 0; q < nops; q++) pinned |= opsp[q] == w;
                    if (pinned) continue;
                    int nu = naive_next(d, order, w, p);
                    bool better = nu > far;
                    if (nu == far) better = stored[w] != stored[in[victim]] ? stored[w] : w < in[victim];
                    if (better) far = nu, victim = i;
                }
                if (victim < 0) {
                    ok = false;
                    break;
                }
                if (!stored[in[victim]]) stored[in[victim]] = true, count++;
                in[victim] = in[--nin];
            }
            in[nin++] = v;
        }
        for (int i = 0; i < nin;)
            if (naive_next(d, order, in[i], p) == INT32_MAX) in[i] = in[--nin];
            else i++;
    }
    free(in);
    free(stored);
    free(opsp);
    return ok ? count : -1;
}

/* The least max live over every topological order, by dynamic programming over the
 * sets of scheduled nodes (CONST nodes left out: they cost nothing anywhere); -1 when
 * there are more than OPT_MAX other nodes. Scheduling u after the set S costs the values
 * of S that something outside S reads, and u's own value. */
enum { OPT_MAX = 16 };
static int optimum_max_live(const tine_sched_dag *d) {
    int n = d->n, m = 0, idx[OPT_MAX];
    int *local = malloc(sizeof(int) * (size_t)(n + 1));
    for (int v = 0; v < n; v++) {
        local[v] = -1;
        if (d->kind[v] == TINE_SCHED_CONST) continue;
        if (m == OPT_MAX) {
            free(local);
            return -1;
        }
        local[v] = m;
        idx[m++] = v;
    }
    uint32_t need[OPT_MAX] = {0}, readers[OPT_MAX] = {0};
    for (int i = 0; i < m; i++) {
        int v = idx[i];
        for (int j = d->op_start[v]; j < d->op_start[v + 1]; j++) {
            int o = local[d->ops[j]];
            if (o < 0) continue;
            need[i] |= 1u << o;
            if (has_reg(d, d->ops[j])) readers[o] |= 1u << i;
        }
    }
    free(local);
    uint32_t full = (1u << m) - 1;
    uint8_t *best = malloc((size_t)full + 1);
    memset(best, 0xff, (size_t)full + 1);
    best[0] = 0;
    for (uint32_t s = 0; s < full; s++) {
        if (best[s] == 0xff) continue;
        int live = 0;
        for (int i = 0; i < m; i++) live += (s >> i & 1) && (readers[i] & ~s);
        for (int i = 0; i < m; i++) {
            if ((s >> i & 1) || (need[i] & ~s)) continue;
            int c = live + has_reg(d, idx[i]);
            if (c < best[s]) c = best[s];
            uint32_t t = s | 1u << i;
            if (c < best[t]) best[t] = (uint8_t)c;
        }
    }
    int r = best[full];
    free(best);
    return r;
}

/* A random topological order (Kahn's algorithm with a random ready node each time). */
static void random_topo(const tine_sched_dag *d, int *order) {
    int n = d->n, e = d->op_start[n];
    int *need = calloc((size_t)n + 1, sizeof(int)), *ready = malloc(sizeof(int) * (size_t)(n + 1));
    int *ustart = calloc((size_t)n + 2, sizeof(int)), *users = malloc(sizeof(int) * (size_t)(e + 1));
    for (int j = 0; j < e; j++) ustart[d->ops[j] + 1]++;
    for (int v = 0; v < n; v++) ustart[v + 1] += ustart[v];
    int *fill = malloc(sizeof(int) * (size_t)(n + 1));
    memcpy(fill, ustart, sizeof(int) * (size_t)n);
    for (int u = 0; u < n; u++)
        for (int j = d->op_start[u]; j < d->op_start[u + 1]; j++) users[fill[d->ops[j]]++] = u;
    int nready = 0, k = 0;
    for (int v = 0; v < n; v++) {
        need[v] = d->op_start[v + 1] - d->op_start[v];
        if (need[v] == 0) ready[nready++] = v;
    }
    while (nready > 0) {
        int i = rnd_below(nready), v = ready[i];
        ready[i] = ready[--nready];
        order[k++] = v;
        for (int j = ustart[v]; j < ustart[v + 1]; j++)
            if (--need[users[j]] == 0) ready[nready++] = users[j];
    }
    CHECK(k == n, "random_topo: %d of %d nodes (a cycle)", k, n);
    free(need);
    free(ready);
    free(ustart);
    free(users);
    free(fill);
}

/* ---- the corpus's families ------------------------------------------------------------ */

typedef struct {
    int *v, n;
    size_t cap;
} ivec;

static void ipush(ivec *a, int x) { TINE_PUSH(a->v, a->n, a->cap, x); }

/* Stores for the values nobody reads yet (each with probability pct/100). */
static void store_unread(dag_b *b, int pct) {
    int n = b->n;
    bool *read = calloc((size_t)n + 1, 1);
    for (int j = 0; j < b->nops; j++) read[b->ops[j]] = true;
    for (int v = 0; v < n; v++)
        if ((b->kind[v] == TINE_SCHED_LOAD || b->kind[v] == TINE_SCHED_OP) && !read[v] && rnd_below(100) < pct)
            db_store(b, v);
    free(read);
}

/* Random DAGs: loads, CONSTs, ops of one to three operands (CONST ones, repeated ones,
 * recent values when local, any value otherwise), stores here and there. */
static void gen_random(dag_b *b, int n, bool local) {
    ivec vals = {0}, consts = {0};
    for (int i = 0; i < n; i++) {
        int r = rnd_below(100);
        if (vals.n == 0 || r < 18) {
            ipush(&vals, db_load(b));
        } else if (r < 23) {
            ipush(&consts, db_const(b));
        } else if (r < 87) {
            int ops[3], k = 1 + rnd_below(3);
            for (int j = 0; j < k; j++) {
                int q = rnd_below(100);
                if (q < 10 && consts.n > 0) ops[j] = consts.v[rnd_below(consts.n)];
                else if (q < 20 && j > 0) ops[j] = ops[j - 1];
                else if (local) ops[j] = vals.v[vals.n - 1 - rnd_below(vals.n < 12 ? vals.n : 12)];
                else ops[j] = vals.v[rnd_below(vals.n)];
            }
            ipush(&vals, db_add(b, TINE_SCHED_OP, k, ops));
        } else {
            int ops[2] = {vals.v[rnd_below(vals.n)], vals.v[rnd_below(vals.n)]};
            db_add(b, TINE_SCHED_STORE, 1 + (rnd_below(10) == 0), ops);
        }
    }
    store_unread(b, 75);
    free(vals.v);
    free(consts.v);
}

/* Expression trees (each value read once), their roots stored. */
static void gen_trees(dag_b *b, int ntrees, int size) {
    ivec pool = {0};
    int c = db_const(b);
    for (int t = 0; t < ntrees; t++) {
        pool.n = 0;
        int leaves = 1 + rnd_below(size);
        for (int i = 0; i < leaves; i++)
            ipush(&pool, rnd_below(10) == 0 ? db_add(b, TINE_SCHED_OP, 1, &c) : db_load(b));
        while (pool.n > 1 || rnd_below(4) == 0) {
            int i = rnd_below(pool.n), x = pool.v[i];
            pool.v[i] = pool.v[--pool.n];
            if (pool.n == 0 || rnd_below(5) == 0) {
                ipush(&pool, rnd_below(2) ? db_op1(b, x) : db_op2(b, x, c));
            } else {
                int j = rnd_below(pool.n), y = pool.v[j];
                pool.v[j] = pool.v[--pool.n];
                ipush(&pool, db_op2(b, x, y));
            }
        }
        db_store(b, pool.v[0]);
    }
    free(pool.v);
}

/* A chain of unary and binary ops (side loads), stored at the end and now and then. */
static void gen_chain(dag_b *b, int len) {
    int x = db_load(b), c = db_const(b);
    for (int i = 0; i < len; i++) {
        int r = rnd_below(10);
        if (r < 2) x = db_op2(b, x, db_load(b));
        else if (r < 3) x = db_op2(b, x, c);
        else x = db_op1(b, x);
        if (rnd_below(20) == 0) db_store(b, x);
    }
    db_store(b, x);
}

/* Many independent small computations, a few sharing common loads. */
static void gen_wide(dag_b *b, int groups) {
    int common[3] = {db_load(b), db_load(b), db_load(b)};
    for (int g = 0; g < groups; g++) {
        ivec vals = {0};
        int nl = 1 + rnd_below(3);
        for (int i = 0; i < nl; i++) ipush(&vals, db_load(b));
        if (rnd_below(10) == 0) ipush(&vals, common[rnd_below(3)]);
        int nops = 1 + rnd_below(4);
        for (int i = 0; i < nops; i++)
            ipush(&vals, db_op2(b, vals.v[rnd_below(vals.n)], vals.v[vals.n - 1]));
        db_store(b, vals.v[vals.n - 1]);
        free(vals.v);
    }
    store_unread(b, 50);
}

/* A few loads read over and over: shared operands, repeated ones (op(a, a)). */
static void gen_shared(dag_b *b, int nops) {
    ivec vals = {0};
    int nl = 2 + rnd_below(4);
    for (int i = 0; i < nl; i++) ipush(&vals, db_load(b));
    for (int i = 0; i < nops; i++) {
        int x = vals.v[rnd_below(vals.n)], y = rnd_below(4) == 0 ? x : vals.v[rnd_below(vals.n)];
        int z = vals.v[rnd_below(nl)];
        ipush(&vals, rnd_below(3) == 0 ? db_add(b, TINE_SCHED_OP, 3, (int[]){x, y, z}) : db_op2(b, x, y));
        if (rnd_below(4) == 0) db_store(b, vals.v[vals.n - 1]);
    }
    store_unread(b, 100);
    free(vals.v);
}

/* A radix-2 decimation-in-time FFT network on 2^k points: loads, k stages of butterflies
 * (x + y, x - y; with twiddles, the second input first multiplied by a CONST where the
 * twiddle is not 1), stores. The nodes are numbered stage by stage, so the identity is the
 * breadth-first order. */
static void gen_butterfly(dag_b *b, int k, bool twiddle) {
    int npts = 1 << k;
    int *x = malloc(sizeof(int) * (size_t)npts);
    int w = twiddle ? db_const(b) : -1;
    for (int i = 0; i < npts; i++) x[i] = db_load(b);
    for (int s = 0; s < k; s++) {
        int half = 1 << s;
        for (int blk = 0; blk < npts; blk += 2 * half)
            for (int j = 0; j < half; j++) {
                int p = x[blk + j], q = x[blk + j + half];
                if (twiddle && j > 0) q = db_op2(b, q, w);
                x[blk + j] = db_op2(b, p, q);
                x[blk + j + half] = db_op2(b, p, q);
            }
    }
    for (int i = 0; i < npts; i++) db_store(b, x[i]);
    free(x);
}

/* b's nodes renumbered by a random permutation (the numbering no longer topological). */
static void relabel(dag_b *b) {
    int n = b->n;
    int *to = malloc(sizeof(int) * (size_t)(n + 1)), *from = malloc(sizeof(int) * (size_t)(n + 1));
    for (int v = 0; v < n; v++) to[v] = v;
    for (int v = n - 1; v > 0; v--) {
        int j = rnd_below(v + 1), t = to[v];
        to[v] = to[j], to[j] = t;
    }
    for (int v = 0; v < n; v++) from[to[v]] = v;
    dag_b r;
    db_init(&r);
    int *ops = malloc(sizeof(int) * (size_t)(b->nops + 1));
    for (int nv = 0; nv < n; nv++) {
        int v = from[nv], k = 0;
        for (int j = b->op_start[v]; j < b->op_start[v + 1]; j++) ops[k++] = to[b->ops[j]];
        db_add(&r, (tine_sched_kind)b->kind[v], k, ops);
    }
    free(ops);
    free(to);
    free(from);
    db_free(b);
    *b = r;
}

/* ---- hand-built DAGs ------------------------------------------------------------------- */

static void expect_live(const dag_b *b, const int *order, int want, const char *what) {
    tine_sched_dag d = db_view(b);
    CHECK(tine_sched_is_topo(&d, order), "%s: the order is not topological", what);
    int got = tine_sched_max_live(&d, order);
    CHECK(got == want, "%s: max live %d, want %d", what, got, want);
    CHECK(naive_max_live(&d, order) == want, "%s: the naive count is %d, want %d", what, naive_max_live(&d, order),
          want);
}

static void test_hand(void) {
    dag_b b;
    /* load, two unary ops, store: an operand and its result live together */
    db_init(&b);
    db_store(&b, db_op1(&b, db_op1(&b, db_load(&b))));
    expect_live(&b, (int[]){0, 1, 2, 3}, 2, "chain");
    CHECK(tine_sched_spills(&(tine_sched_dag){b.n, b.kind, b.op_start, b.ops}, (int[]){0, 1, 2, 3}, 1) == -1,
          "chain: one register cannot hold an operand and a result");
    db_free(&b);

    /* a + b: both operands and the sum at the add */
    db_init(&b);
    db_store(&b, db_op2(&b, db_load(&b), db_load(&b)));
    expect_live(&b, (int[]){0, 1, 2, 3}, 3, "a + b");
    db_free(&b);

    /* a value nobody reads counts at its definition */
    db_init(&b);
    int a = db_load(&b);
    db_op1(&b, a);
    db_store(&b, a);
    expect_live(&b, (int[]){0, 1, 2}, 2, "dead op");
    db_free(&b);

    /* CONST nodes hold nothing, wherever they are */
    db_init(&b);
    int c0 = db_const(&b), l = db_load(&b), c1 = db_const(&b);
    db_store(&b, db_add(&b, TINE_SCHED_OP, 3, (int[]){l, c0, c1}));
    expect_live(&b, (int[]){0, 1, 2, 3, 4}, 2, "consts");
    expect_live(&b, (int[]){1, 2, 0, 3, 4}, 2, "consts between");
    db_free(&b);

    /* a repeated operand is one register */
    db_init(&b);
    l = db_load(&b);
    db_store(&b, db_op2(&b, l, l));
    expect_live(&b, (int[]){0, 1, 2}, 2, "op(a, a)");
    db_free(&b);

    /* nothing, and only CONST nodes */
    db_init(&b);
    expect_live(&b, (int[]){0}, 0, "empty");
    db_const(&b);
    db_const(&b);
    expect_live(&b, (int[]){1, 0}, 0, "only consts");
    db_free(&b);

    /* a two-point butterfly: breadth-first keeps both sums with both inputs (4); storing
     * each sum at once keeps 3 */
    db_init(&b);
    int x0 = db_load(&b), x1 = db_load(&b);
    int y0 = db_op2(&b, x0, x1), y1 = db_op2(&b, x0, x1);
    db_store(&b, y0);
    db_store(&b, y1);
    expect_live(&b, (int[]){0, 1, 2, 3, 4, 5}, 4, "butterfly, breadth-first");
    expect_live(&b, (int[]){0, 1, 2, 4, 3, 5}, 3, "butterfly, stores early");
    int order[8];
    tine_sched_dag d = db_view(&b);
    CHECK(tine_sched_run(&d, TINE_SCHED_AUTO, (int[]){0, 1, 2, 3, 4, 5}, order, NULL) == 3,
          "butterfly: auto does not reach 3");
    db_free(&b);

    /* (a + b) + (c + d): 4 depth-first (Sethi-Ullman), 5 with the loads first */
    db_init(&b);
    int la = db_load(&b), lb = db_load(&b), lc = db_load(&b), ld = db_load(&b);
    int ab = db_op2(&b, la, lb), cd = db_op2(&b, lc, ld);
    db_store(&b, db_op2(&b, ab, cd));
    expect_live(&b, (int[]){0, 1, 4, 2, 3, 5, 6, 7}, 4, "tree, depth-first");
    expect_live(&b, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, 5, "tree, loads first");
    d = db_view(&b);
    tine_sched_list(&d, order);
    CHECK(tine_sched_max_live(&d, order) == 4, "tree: the list scheduler gives %d, want 4",
          tine_sched_max_live(&d, order));
    tine_sched_fftw(&d, order);
    CHECK(tine_sched_max_live(&d, order) == 4, "tree: fftw gives %d, want 4", tine_sched_max_live(&d, order));
    db_free(&b);

    /* the local moves: a load sinks to its reader, a store rises to its value */
    db_init(&b);
    la = db_load(&b);
    lb = db_load(&b);
    int t = db_op1(&b, la);
    int s = db_store(&b, t);
    int u = db_op1(&b, lb);
    db_store(&b, u);
    d = db_view(&b);
    int moved[6] = {la, lb, t, u, s, 5};
    CHECK(tine_sched_max_live(&d, moved) == 3, "moves: before, %d", tine_sched_max_live(&d, moved));
    tine_sched_local_moves(&d, moved);
    CHECK(memcmp(moved, (int[]){la, t, s, lb, u, 5}, sizeof moved) == 0,
          "moves: %d %d %d %d %d %d, want load b after the first store", moved[0], moved[1], moved[2], moved[3],
          moved[4], moved[5]);
    CHECK(tine_sched_max_live(&d, moved) == 2, "moves: after, %d", tine_sched_max_live(&d, moved));
    db_free(&b);
}

/* What is not a DAG the schedulers take, and what is not an order. */
static void test_invalid(void) {
    dag_b b;
    db_init(&b);
    int l = db_load(&b), x = db_op1(&b, l);
    db_store(&b, x);
    tine_sched_dag d = db_view(&b);
    CHECK(tine_sched_dag_ok(&d), "a chain refused");
    CHECK(!tine_sched_is_topo(&d, (int[]){0, 2, 1}), "a store before its value passes");
    CHECK(!tine_sched_is_topo(&d, (int[]){0, 1, 1}), "a repeated node passes");
    CHECK(!tine_sched_is_topo(&d, (int[]){0, 1, 3}), "a node out of range passes");
    int order[3] = {7, 7, 7};
    CHECK(tine_sched_run(&d, TINE_SCHED_AUTO, (int[]){1, 0, 2}, order, NULL) == -1, "run takes a bad order");
    CHECK(order[0] == 7, "run wrote its output after refusing");
    CHECK(tine_sched_run(&d, TINE_SCHED_AUTO, NULL, order, NULL) == 2, "run without an input order");
    b.ops[0] = x; /* x reads itself */
    CHECK(!tine_sched_dag_ok(&d), "a cycle passes");
    CHECK(tine_sched_run(&d, TINE_SCHED_FFTW, NULL, order, NULL) == -1, "run takes a cycle");
    b.ops[0] = 3;
    CHECK(!tine_sched_dag_ok(&d), "an operand out of range passes");
    b.ops[0] = l;
    b.ops[1] = 2; /* the store reads the store */
    CHECK(!tine_sched_dag_ok(&d), "a store read as a value passes");
    db_free(&b);
    db_init(&b);
    l = db_load(&b);
    db_add(&b, TINE_SCHED_LOAD, 1, &l);
    d = db_view(&b);
    CHECK(!tine_sched_dag_ok(&d), "a load with an operand passes");
    db_free(&b);
}

/* ---- the corpus ------------------------------------------------------------------------ */

enum { F_RANDOM, F_LOCAL, F_TREES, F_CHAIN, F_WIDE, F_SHARED, F_BUTTERFLY, NFAMILIES };
static const char *family_name[NFAMILIES] = {"random", "random-local", "trees", "chains", "wide", "shared",
                                             "butterflies"};

typedef struct {
    int dags;
    long long nodes, input, fftw, list, moves, best; /* sums of max live */
    int from[TINE_SCHED_FROM_LIST_MOVES + 1];        /* which candidate AUTO returned */
    int small, optimal, gap; /* DAGs small enough for the exhaustive optimum; how often auto has it; by how much not */
} family_stats;

static family_stats stats[NFAMILIES];

static bool consts_first(const tine_sched_dag *d, const int *order) {
    bool seen_other = false;
    for (int i = 0; i < d->n; i++) {
        if (d->kind[order[i]] != TINE_SCHED_CONST) seen_other = true;
        else if (seen_other) return false;
    }
    return true;
}

static void check_dag(const tine_sched_dag *d, int family, int id) {
    int n = d->n;
    const char *fam = family_name[family];
    CHECK(tine_sched_dag_ok(d), "%s %d: refused", fam, id);
    int *input = malloc(sizeof(int) * (size_t)(n + 1)), *out = malloc(sizeof(int) * (size_t)(n + 1));
    random_topo(d, input);
    int live_in = tine_sched_max_live(d, input);
    if (n <= 60) {
        CHECK(live_in == naive_max_live(d, input), "%s %d: max live %d, naive %d", fam, id, live_in,
              naive_max_live(d, input));
        for (int r = 1; r <= 8; r++) {
            int got = tine_sched_spills(d, input, r), want = naive_spills(d, input, r);
            CHECK(got == want, "%s %d: %d registers: %d spills, naive %d", fam, id, r, got, want);
            if (got >= 0)
                CHECK((got == 0) == (live_in <= r), "%s %d: %d spills with %d registers at max live %d", fam, id, got,
                      r, live_in);
        }
    }
    family_stats *fs = &stats[family];
    int opt = optimum_max_live(d);
    fs->dags++;
    fs->nodes += n;
    fs->input += live_in;
    void (*scheds[3])(const tine_sched_dag *, int *) = {tine_sched_fftw, tine_sched_list, NULL};
    long long *sums[3] = {&fs->fftw, &fs->list, &fs->moves};
    for (int k = 0; k < 3; k++) {
        if (scheds[k]) {
            scheds[k](d, out);
        } else {
            memcpy(out, input, sizeof(int) * (size_t)n);
            tine_sched_local_moves(d, out);
        }
        CHECK(tine_sched_is_topo(d, out), "%s %d: scheduler %d: not a topological order", fam, id, k);
        CHECK(consts_first(d, out) || !scheds[k], "%s %d: scheduler %d: CONST nodes not first", fam, id, k);
        *sums[k] += tine_sched_max_live(d, out);
    }
    for (int m = TINE_SCHED_NONE; m <= TINE_SCHED_AUTO; m++) {
        tine_sched_stats st;
        const int *in = m == TINE_SCHED_LIST && id % 5 == 0 ? NULL : input;
        int live = tine_sched_run(d, (tine_sched_method)m, in, out, &st);
        CHECK(live >= 0 && tine_sched_is_topo(d, out), "%s %d: method %d: not a topological order", fam, id, m);
        if (live < 0) continue;
        CHECK(live == tine_sched_max_live(d, out) && live == st.live_after, "%s %d: method %d: returned %d, order %d",
              fam, id, m, live, tine_sched_max_live(d, out));
        if (in) {
            CHECK(live <= live_in, "%s %d: method %d: max live %d over the input's %d", fam, id, m, live, live_in);
            CHECK(st.live_before == live_in, "%s %d: method %d: live_before %d, want %d", fam, id, m, st.live_before,
                  live_in);
        }
        if (m == TINE_SCHED_NONE)
            CHECK(memcmp(out, input, sizeof(int) * (size_t)n) == 0, "%s %d: NONE changed the order", fam, id);
        if (opt >= 0) {
            CHECK(live >= opt, "%s %d: method %d: max live %d below the optimum %d", fam, id, m, live, opt);
            if (m == TINE_SCHED_AUTO) fs->small++, fs->optimal += live == opt, fs->gap += live - opt;
        }
        if (m == TINE_SCHED_AUTO) {
            fs->best += live;
            fs->from[st.from]++;
            CHECK(st.tried == 6, "%s %d: auto tried %d candidates", fam, id, st.tried);
        }
    }
    free(input);
    free(out);
}

static void gen_family(dag_b *b, int family, int id) {
    int big = id % 50 == 0; /* now and then a larger one */
    switch (family) {
    case F_RANDOM: gen_random(b, 2 + rnd_below(big ? 400 : 50), false); break;
    case F_LOCAL: gen_random(b, 2 + rnd_below(big ? 400 : 50), true); break;
    case F_TREES: gen_trees(b, 1 + rnd_below(3), big ? 60 : 12); break;
    case F_CHAIN: gen_chain(b, rnd_below(big ? 300 : 40)); break;
    case F_WIDE: gen_wide(b, 1 + rnd_below(big ? 80 : 10)); break;
    case F_SHARED: gen_shared(b, 1 + rnd_below(big ? 200 : 30)); break;
    case F_BUTTERFLY: gen_butterfly(b, 1 + rnd_below(big ? 7 : 4), rnd_below(2)); break;
    }
    if (rnd_below(4) == 0) relabel(b);
}

static void test_corpus(int per_family) {
    for (int f = 0; f < NFAMILIES; f++)
        for (int i = 0; i < per_family; i++) {
            rng_state = 0x5eed0000ull + (uint64_t)f * 1000003u + (uint64_t)i;
            dag_b b;
            db_init(&b);
            gen_family(&b, f, i);
            tine_sched_dag d = db_view(&b);
            check_dag(&d, f, i);
            db_free(&b);
        }
    printf("corpus (mean max live; which candidate auto kept; auto against the optimum on small DAGs):\n");
    printf("  %-13s %5s %6s %6s %6s %6s %6s %6s  %-36s %s\n", "family", "dags", "nodes", "input", "moves", "fftw", "list",
           "auto", "input/moves/fftw/fftw+m/list/list+m", "optimal, excess");
    for (int f = 0; f < NFAMILIES; f++) {
        family_stats *s = &stats[f];
        double k = s->dags ? s->dags : 1;
        char from[64];
        snprintf(from, sizeof from, "%d/%d/%d/%d/%d/%d", s->from[TINE_SCHED_FROM_INPUT],
                 s->from[TINE_SCHED_FROM_INPUT_MOVES], s->from[TINE_SCHED_FROM_FFTW], s->from[TINE_SCHED_FROM_FFTW_MOVES],
                 s->from[TINE_SCHED_FROM_LIST], s->from[TINE_SCHED_FROM_LIST_MOVES]);
        printf("  %-13s %5d %6.1f %6.2f %6.2f %6.2f %6.2f %6.2f  %-36s %d of %d, %d\n", family_name[f], s->dags,
               s->nodes / k, s->input / k, s->moves / k, s->fftw / k, s->list / k, s->best / k, from, s->optimal,
               s->small, s->gap);
    }
}

/* ---- FFT networks ---------------------------------------------------------------------- */

/* Radix-2 FFT networks of N = 2^k points, k = 1..7, with twiddles. Max live cannot be
 * far below the breadth-first order's: every output reads every input, and the least max
 * live over all orders is N + 2 for N = 4 and 8 (3 for N = 2), by exhaustive search over
 * the sets of scheduled nodes (below for N <= 4 without twiddles; 10 for N = 8 by the
 * same search offline), which is what breadth-first has. What FFTW's order changes is
 * which values are live when: each sub-transform finishes before the next begins, so
 * with R registers a value goes through memory once per log2(R) stages or so instead of
 * once per stage (Hong and Kung's bound, which it meets). Observed, N = 16, 32, 64, 128:
 *   max live   breadth-first 18 34 66 130 (N + 2); fftw 20 36 69 134 (at most N + k, or
 *              N + 2: each level of the decomposition holds a half-done butterfly at most);
 *              fftw+moves, list and auto 18 34 66 130
 *   spills, 16 registers: breadth-first 18 214 698 1822; fftw 8 40 138 374;
 *              fftw+moves 4 36 120 322; list 4 40 144 418; auto 4 36 120 322
 *   spills, 32 registers: breadth-first 0 22 474 1566; fftw 0 8 74 222; fftw+moves 0 4
 *              68 212; list 0 4 72 272
 * The checks: those max live values, and FFTW's spills at most a third of breadth-first's
 * (with 16 registers from N = 32, with 32 from N = 64, where breadth-first spills at all
 * stages). */
static void test_butterflies(void) {
    for (int k = 1; k <= 2; k++) {
        dag_b b;
        db_init(&b);
        gen_butterfly(&b, k, false);
        tine_sched_dag d = db_view(&b);
        int want = k == 1 ? 3 : 6, got = optimum_max_live(&d);
        CHECK(got == want, "%d-point FFT: the optimum is %d, want %d", 1 << k, got, want);
        db_free(&b);
    }
    printf("radix-2 FFT networks with twiddles (max live, spills with 16 and 32 registers):\n");
    printf("  %4s %6s  %-17s %-17s %-17s %-17s %-17s\n", "N", "nodes", "breadth-first", "fftw", "fftw+moves", "list",
           "auto");
    enum { BFS, FFTW, FFTW_MOVES, LIST, AUTO, NORDERS };
    static const char *names[NORDERS] = {"breadth-first", "fftw", "fftw+moves", "list", "auto"};
    for (int k = 1; k <= 7; k++) {
        dag_b b;
        db_init(&b);
        gen_butterfly(&b, k, true);
        tine_sched_dag d = db_view(&b);
        int n = d.n, npts = 1 << k;
        int *ord[NORDERS];
        for (int i = 0; i < NORDERS; i++) ord[i] = malloc(sizeof(int) * (size_t)n);
        for (int v = 0; v < n; v++) ord[BFS][v] = v;
        tine_sched_fftw(&d, ord[FFTW]);
        memcpy(ord[FFTW_MOVES], ord[FFTW], sizeof(int) * (size_t)n);
        tine_sched_local_moves(&d, ord[FFTW_MOVES]);
        tine_sched_list(&d, ord[LIST]);
        tine_sched_run(&d, TINE_SCHED_AUTO, ord[BFS], ord[AUTO], NULL);
        int live[NORDERS], s16[NORDERS], s32[NORDERS];
        printf("  %4d %6d ", npts, n);
        for (int i = 0; i < NORDERS; i++) {
            live[i] = tine_sched_max_live(&d, ord[i]);
            s16[i] = tine_sched_spills(&d, ord[i], 16);
            s32[i] = tine_sched_spills(&d, ord[i], 32);
            printf(" %4d %5d %5d  ", live[i], s16[i], s32[i]);
        }
        printf("\n");
        CHECK(live[BFS] == npts + 2, "%d points: breadth-first max live %d", npts, live[BFS]);
        CHECK(live[FFTW] <= npts + (k > 2 ? k : 2), "%d points: fftw max live %d over N + log2 N", npts, live[FFTW]);
        for (int i = FFTW_MOVES; i < NORDERS; i++)
            CHECK(live[i] <= npts + 2, "%d points: %s max live %d over N + 2", npts, names[i], live[i]);
        if (npts >= 32)
            CHECK(3 * s16[FFTW] <= s16[BFS], "%d points, 16 registers: fftw spills %d, breadth-first %d", npts,
                  s16[FFTW], s16[BFS]);
        if (npts >= 64)
            CHECK(3 * s32[FFTW] <= s32[BFS], "%d points, 32 registers: fftw spills %d, breadth-first %d", npts,
                  s32[FFTW], s32[BFS]);
        for (int i = 0; i < NORDERS; i++) free(ord[i]);
        db_free(&b);
    }
}

/* ---- time on large DAGs ------------------------------------------------------------------ */

/* AUTO (every scheduler and the moves) on one of these DAGs takes a quarter of a second
 * at most in a release build; the bound leaves room for a debug build and a busy
 * machine, and for the sanitizers' tenfold. */
static double time_limit = 2;

static void time_one(const char *what, dag_b *b) {
    tine_sched_dag d = db_view(b);
    int n = d.n;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    for (int v = 0; v < n; v++) in[v] = v;
    double t0 = now();
    tine_sched_fftw(&d, out);
    double t_fftw = now() - t0;
    int l_fftw = tine_sched_max_live(&d, out);
    CHECK(tine_sched_is_topo(&d, out), "%s: fftw's order is not topological", what);
    t0 = now();
    tine_sched_list(&d, out);
    double t_list = now() - t0;
    int l_list = tine_sched_max_live(&d, out);
    CHECK(tine_sched_is_topo(&d, out), "%s: list's order is not topological", what);
    memcpy(out, in, sizeof(int) * (size_t)n);
    t0 = now();
    tine_sched_local_moves(&d, out);
    double t_moves = now() - t0;
    CHECK(tine_sched_is_topo(&d, out), "%s: the moves' order is not topological", what);
    tine_sched_stats st;
    int live = tine_sched_run(&d, TINE_SCHED_AUTO, in, out, &st);
    CHECK(live >= 0 && live <= st.live_before, "%s: auto %d over the input's %d", what, live, st.live_before);
    printf("  %-28s %7d nodes: input %5d, fftw %5d (%.3f s), list %5d (%.3f s), moves %.3f s, auto %5d "
           "(%s, %.3f s)\n",
           what, n, st.live_before, l_fftw, t_fftw, l_list, t_list, t_moves, live, tine_sched_from_name(st.from),
           st.seconds);
    CHECK(st.seconds < time_limit, "%s: auto took %.2f s, over %.0f", what, st.seconds, time_limit);
    free(in);
    free(out);
}

/* One load read by 10000 ops: the parallel blocks all share it. */
static void gen_star(dag_b *b, int arms) {
    int l = db_load(b);
    for (int i = 0; i < arms; i++) db_store(b, db_op2(b, l, db_load(b)));
}

enum { LARGE_RANDOM_LOCAL, LARGE_RANDOM, LARGE_FFT, LARGE_WIDE, LARGE_STAR, LARGE_CHAIN, NLARGE };

static void test_time(void) {
    static const char *what[NLARGE] = {"random, local operands", "random, any operands", "FFT network, 1024 points",
                                       "wide, 4000 groups", "star, 10000 blocks", "chain (no deep recursion)"};
    printf("large DAGs (input: the nodes' own order):\n");
    rng_state = 20000;
    for (int i = 0; i < NLARGE; i++) {
        dag_b b;
        db_init(&b);
        switch (i) {
        case LARGE_RANDOM_LOCAL: gen_random(&b, 20000, true); break;
        case LARGE_RANDOM: gen_random(&b, 20000, false); break;
        case LARGE_FFT: gen_butterfly(&b, 10, true); break;
        case LARGE_WIDE: gen_wide(&b, 4000); break;
        case LARGE_STAR: gen_star(&b, 10000); break;
        case LARGE_CHAIN: gen_chain(&b, 100000); break;
        }
        time_one(what[i], &b);
        db_free(&b);
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "sanitized") == 0) time_limit = 20;
    double t0 = now();
    test_hand();
    test_invalid();
    test_corpus(600);
    test_butterflies();
    test_time();
    printf("test_schedule: %lld passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail ? 1 : 0;
}
