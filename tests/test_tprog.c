/* test_tprog.c — target-level programs (src/tprog): their order, liveness and the
 * scheduler's view of them.
 *
 *   stats      what tine_tprog_stats_of counts (instructions, generic nodes, constants,
 *              inputs, stores) and its max live on hand-built orders against counts made
 *              by hand from the definition (a value live from its definition to its last
 *              use, both included; constants never; a value nobody reads at its
 *              definition alone; a store a use); then on random programs in random valid
 *              orders against a naive count written here and against the scheduler's
 *              tine_sched_max_live of tine_tprog_dag_make's DAG
 *   check      tine_tprog_check refuses orders with a value before its operand, a value
 *              twice, a store before its value, an output stored twice or never
 *   dag        tine_tprog_dag_make's kinds and operands are the items' (constants CONST,
 *              inputs LOAD, stores STORE, operand indices the operands' positions)
 *   reorder    random rewrites of the outputs (new instructions on old values, old values,
 *              one output's value given to another), then tine_tprog_reorder: a valid
 *              order holding exactly the values the outputs need, the kept values and
 *              the stores in their old relative order
 *   schedule   tine_tprog_dag_make + tine_sched_run (every method) + tine_tprog_permute
 *              on random programs and DFT codelets (after select and the peephole):
 *              tine_tprog_check holds, the max live tine_sched_run returns is
 *              tine_tprog_stats_of's, never above the order it started from, and the
 *              program's values are the same
 */
#include "dft/gen.h"
#include "internal.h"
#include "peephole/peephole.h"
#include "schedule/schedule.h"
#include "testutil.h"
#include "tprog/tprog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tine_ctx_t *ctx;

static uint64_t rng_state = 0x7470726f67ull;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int below(int k) { return k <= 1 ? 0 : (int)(rng() % (uint64_t)k); }

static tine_expr_t *ins(const char *name, int n, tine_expr_t *const *ops) {
    int code = tine_isa_lookup(ctx, name);
    tine_expr_t *e = code < 0 ? NULL : tine_insn_make(ctx, (uint32_t)code, n, ops);
    if (!e) fail("%s: %s", name, code < 0 ? "no such instruction" : tine_error(ctx));
    return e;
}
static tine_expr_t *ins2(const char *name, tine_expr_t *a, tine_expr_t *b) { return ins(name, 2, (tine_expr_t *[]){a, b}); }

/* The order set by hand: values (store -1) and stores (the output's index). */
typedef struct {
    tine_expr_t *e;
    int store;
} it;
static void set_order(tine_tprog *p, int n, const it *items) {
    free(p->order);
    p->order = tine_xmalloc(sizeof *p->order * (size_t)(n + 1));
    for (int i = 0; i < n; i++) p->order[i] = (tine_tprog_item){items[i].store >= 0 ? p->outs[items[i].store].value : items[i].e,
                                                                 items[i].store};
    p->n = p->cap = n;
}

/* Max live from the definition, position by position. */
static int naive_max_live(const tine_tprog *p) {
    int best = 0;
    int *def = tine_xmalloc(sizeof(int) * (size_t)(p->n + 1)), *last = tine_xmalloc(sizeof(int) * (size_t)(p->n + 1));
    int nv = 0;
    for (int i = 0; i < p->n; i++) {
        const tine_expr_t *v = p->order[i].e;
        if (p->order[i].store >= 0 || v->op == TINE_OP_CONST) continue;
        int l = i;
        for (int j = i + 1; j < p->n; j++) {
            const tine_expr_t *u = p->order[j].e;
            bool reads = false;
            if (p->order[j].store >= 0) reads = u == v;
            else
                for (int k = 0; k < u->nops; k++) reads |= u->ops[k] == v;
            if (reads) l = j;
        }
        def[nv] = i, last[nv++] = l;
    }
    for (int pos = 0; pos < p->n; pos++) {
        int live = 0;
        for (int k = 0; k < nv; k++) live += def[k] <= pos && pos <= last[k];
        if (live > best) best = live;
    }
    free(def);
    free(last);
    return best;
}

static int dag_max_live(const tine_tprog *p) {
    tine_tprog_dag d;
    tine_tprog_dag_make(p, &d);
    int *id = tine_xmalloc(sizeof(int) * (size_t)(p->n + 1));
    for (int i = 0; i < p->n; i++) id[i] = i;
    int m = tine_sched_dag_ok(&d.dag) && tine_sched_is_topo(&d.dag, id) ? tine_sched_max_live(&d.dag, id) : -1;
    free(id);
    tine_tprog_dag_free(&d);
    return m;
}

/* ---- hand-built ------------------------------------------------------------------- */

static void test_hand(void) {
    tine_type_t t = tine_type(TINE_FLOAT, 32, 8);
    tine_expr_t *a = tine_var(ctx, "a", t), *b = tine_var(ctx, "b", t), *c = tine_var(ctx, "c", t),
                *d = tine_var(ctx, "d", t), *e = tine_var(ctx, "e", t), *k = tine_const_float(ctx, t, 0.5);
    tine_expr_t *t1 = ins2("addps", a, b), *t2 = ins2("addps", c, d), *t3 = ins2("mulps", t1, t2), *t4 = ins2("addps", t3, k);
    tine_expr_t *sq = ins2("mulps", a, a);
    if (!t1 || !t2 || !t3 || !t4 || !sq) return;
    tine_tprog *p = tine_tprog_new(ctx, "x86-64-avx2");
    tine_tprog_input(p, a), tine_tprog_input(p, b), tine_tprog_input(p, c), tine_tprog_input(p, d);
    tine_tprog_output(p, "y0", t4);
    tine_tprog_output(p, "y1", t1);
    struct {
        const char *name;
        int n;
        it items[12];
        int max_live; /* counted by hand */
    } orders[] = {
        /* depth first: a1 b2 t1 3->1 (a, b die) | store y1 (t1 read later) 1 | c2 d3 t2 4->2 |
         * t3 3->1 | k 1 | t4 2->1 | store y0 0 */
        {"depth first", 11, {{a, -1}, {b, -1}, {t1, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}}, 4},
        /* the loads first: a1 b2 c3 d4 t1 5->3 | store y1 3 | t2 4->2 | t3 3->1 | t4 2->1 | 0 */
        {"loads first", 11, {{k, -1}, {a, -1}, {b, -1}, {c, -1}, {d, -1}, {t1, -1}, {0, 1}, {t2, -1}, {t3, -1}, {t4, -1}, {0, 0}}, 5},
        /* y1 stored last: t1 lives to the end; a1 b2 t1 3->1 c2 d3 t2 4->2 t3 3->2 t4 3->2 y0 ->1 y1 ->0 */
        {"store late", 11, {{a, -1}, {b, -1}, {t1, -1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}, {0, 1}}, 4},
        /* an input nobody reads counts at its definition alone: e1->0 a1 b2 t1 3->1 y1 ->0 ... */
        {"unread input", 12,
         {{e, -1}, {a, -1}, {b, -1}, {t1, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}}, 4},
    };
    for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
        set_order(p, orders[i].n, orders[i].items);
        check(tine_tprog_check(p), "hand %s: not a valid order", orders[i].name);
        tine_tprog_stats s = tine_tprog_stats_of(p);
        check(s.max_live == orders[i].max_live, "hand %s: max live %d, by hand %d", orders[i].name, s.max_live,
              orders[i].max_live);
        check(naive_max_live(p) == orders[i].max_live, "hand %s: the naive count %d, by hand %d", orders[i].name,
              naive_max_live(p), orders[i].max_live);
        check(dag_max_live(p) == orders[i].max_live, "hand %s: the scheduler's max live %d, by hand %d", orders[i].name,
              dag_max_live(p), orders[i].max_live);
        int inputs = 4 + (orders[i].n == 12);
        check(s.insns == 4 && s.generic == 0 && s.consts == 1 && s.inputs == inputs && s.stores == 2,
              "hand %s: counted %d instructions, %d generic, %d constants, %d inputs, %d stores", orders[i].name, s.insns,
              s.generic, s.consts, s.inputs, s.stores);
    }
    /* a value read twice by one instruction, a value that is only stored, a generic node */
    {
        tine_tprog *q = tine_tprog_new(ctx, "x86-64-avx2");
        tine_expr_t *g = tine_binary(ctx, TINE_OP_MAX, sq, b);
        tine_tprog_output(q, "s", sq);
        tine_tprog_output(q, "g", g);
        tine_tprog_output(q, "b", b);
        /* a1 sq 2->1 (a dies once) | store s 1 | b 2 | g 3->1 (sq dies; b is stored later) |
         * store g ->1 | store b ->0 */
        it items[] = {{a, -1}, {sq, -1}, {0, 0}, {b, -1}, {g, -1}, {0, 1}, {0, 2}};
        set_order(q, 7, items);
        check(tine_tprog_check(q), "hand 2: not a valid order");
        tine_tprog_stats s = tine_tprog_stats_of(q);
        check(s.max_live == 3 && naive_max_live(q) == 3 && dag_max_live(q) == 3,
              "hand 2: max live %d, naive %d, the scheduler's %d, by hand 3", s.max_live, naive_max_live(q), dag_max_live(q));
        check(s.insns == 1 && s.generic == 1 && s.inputs == 2 && s.stores == 3, "hand 2: %d instructions, %d generic",
              s.insns, s.generic);
        tine_buf buf = {0};
        tine_tprog_print(q, &buf);
        const char *want = "%0 = input a : f32x8\n%1 = mulps %0, %0 : f32x8\nstore s %1\n%2 = input b : f32x8\n"
                           "%3 = max %1, %2 : f32x8\nstore g %3\nstore b %2\n";
        check(buf.p && !strcmp(buf.p, want), "hand 2: the listing is\n%s\nwant\n%s", buf.p ? buf.p : "", want);
        free(buf.p);
        tine_tprog_free(q);
    }
    /* tine_tprog_check refuses broken orders */
    struct {
        const char *name;
        int n;
        it items[12];
    } bad[] = {
        {"operand after its reader", 11, {{b, -1}, {t1, -1}, {a, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}}},
        {"a value twice", 12, {{a, -1}, {b, -1}, {t1, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {a, -1}, {0, 0}}},
        {"store before its value", 11, {{a, -1}, {b, -1}, {0, 1}, {t1, -1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}}},
        {"an output stored twice", 12, {{a, -1}, {b, -1}, {t1, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}, {0, 1}}},
        {"an output never stored", 10, {{a, -1}, {b, -1}, {t1, -1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {k, -1}, {t4, -1}, {0, 0}}},
        {"a constant missing", 10, {{a, -1}, {b, -1}, {t1, -1}, {0, 1}, {c, -1}, {d, -1}, {t2, -1}, {t3, -1}, {t4, -1}, {0, 0}}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        set_order(p, bad[i].n, bad[i].items);
        check(!tine_tprog_check(p), "tine_tprog_check took an order with %s", bad[i].name);
    }
    /* the DAG of the depth-first order */
    set_order(p, orders[0].n, orders[0].items);
    tine_tprog_dag dg;
    tine_tprog_dag_make(p, &dg);
    const uint8_t want_kind[] = {TINE_SCHED_LOAD, TINE_SCHED_LOAD, TINE_SCHED_OP, TINE_SCHED_STORE, TINE_SCHED_LOAD,
                                 TINE_SCHED_LOAD, TINE_SCHED_OP, TINE_SCHED_OP, TINE_SCHED_CONST, TINE_SCHED_OP,
                                 TINE_SCHED_STORE};
    const int want_ops[11][2] = {{-1, -1}, {-1, -1}, {0, 1}, {2, -1}, {-1, -1}, {-1, -1}, {4, 5}, {2, 6}, {-1, -1}, {7, 8}, {9, -1}};
    bool ok = dg.dag.n == 11;
    for (int i = 0; ok && i < 11; i++) {
        ok = dg.dag.kind[i] == want_kind[i];
        int nops = dg.dag.op_start[i + 1] - dg.dag.op_start[i], want_n = (want_ops[i][0] >= 0) + (want_ops[i][1] >= 0);
        ok = ok && nops == want_n;
        for (int k2 = 0; ok && k2 < nops; k2++) ok = dg.dag.ops[dg.dag.op_start[i] + k2] == want_ops[i][k2];
        if (!ok) fail("dag_make: item %d has kind %d and %d operands, want kind %d and %d", i, dg.dag.kind[i], nops,
                      want_kind[i], want_n);
    }
    if (ok) pass();
    check(tine_sched_dag_ok(&dg.dag), "dag_make: not a DAG the scheduler takes");
    tine_tprog_dag_free(&dg);
    tine_tprog_free(p);
}

/* ---- random programs -------------------------------------------------------------- */

/* A random program of float ops over a few inputs (generic IR, then selected for target;
 * tlanes lanes of f32), with 1..4 outputs. */
static tine_tprog *random_prog(const char *target, int lanes, int size) {
    tine_type_t t = tine_type(TINE_FLOAT, 32, lanes);
    tine_expr_t *pool[128];
    int np = 0, nin = 2 + below(5);
    char nm[16];
    tine_tprog *p = tine_tprog_new(ctx, target);
    for (int i = 0; i < nin; i++) {
        snprintf(nm, sizeof nm, "x%d", i);
        pool[np++] = tine_var(ctx, nm, t);
        tine_tprog_input(p, pool[i]);
    }
    for (int i = 0; i < size && np < 128; i++) {
        tine_expr_t *x = pool[below(np)], *y = pool[below(np)], *z = pool[below(np)];
        /* recent values more often: deeper programs */
        if (below(2)) x = pool[np - 1 - below(np < 4 ? np : 4)];
        tine_expr_t *e;
        switch (below(8)) {
        case 0: e = tine_binary(ctx, TINE_OP_ADD, x, y); break;
        case 1: e = tine_binary(ctx, TINE_OP_SUB, x, y); break;
        case 2: e = tine_binary(ctx, TINE_OP_MUL, x, y); break;
        case 3: e = tine_unary(ctx, TINE_OP_NEG, x); break;
        case 4: e = tine_fma(ctx, x, y, z); break;
        case 5: e = tine_binary(ctx, TINE_OP_ADD, x, tine_const_float(ctx, t, (double)(1 + below(4)) / 4)); break;
        case 6: e = tine_binary(ctx, TINE_OP_MUL, tine_unary(ctx, TINE_OP_NEG, x), y); break;
        default: e = tine_binary(ctx, TINE_OP_MAX, x, y); break;
        }
        pool[np++] = e;
    }
    int nout = 1 + below(4);
    for (int k = 0; k < nout; k++) {
        snprintf(nm, sizeof nm, "y%d", k);
        tine_expr_t *v = k == 0 ? pool[np - 1] : pool[below(np)];
        tine_tprog_output(p, nm, v);
    }
    if (!tine_tprog_select(p)) {
        fail("random program on %s: select: %s", target, tine_error(ctx));
        tine_clear_error(ctx);
    }
    return p;
}

/* A random topological order of the program's items (perm[k]: the old index). */
static void random_topo(const tine_tprog *p, int *perm) {
    tine_tprog_dag d;
    tine_tprog_dag_make(p, &d);
    int n = p->n;
    int *indeg = tine_xcalloc((size_t)n + 1, sizeof(int)), *ready = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    /* users: the reverse edges */
    int *ucount = tine_xcalloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i < n; i++)
        for (int q = d.dag.op_start[i]; q < d.dag.op_start[i + 1]; q++) indeg[i]++, ucount[d.dag.ops[q]]++;
    int *ustart = tine_xmalloc(sizeof(int) * ((size_t)n + 1)), *users = tine_xmalloc(sizeof(int) * ((size_t)d.dag.op_start[n] + 1));
    ustart[0] = 0;
    for (int i = 0; i < n; i++) ustart[i + 1] = ustart[i] + ucount[i];
    memset(ucount, 0, sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        for (int q = d.dag.op_start[i]; q < d.dag.op_start[i + 1]; q++) {
            int o = d.dag.ops[q];
            users[ustart[o] + ucount[o]++] = i;
        }
    int nr = 0, out = 0;
    for (int i = 0; i < n; i++)
        if (!indeg[i]) ready[nr++] = i;
    while (nr) {
        int pick = below(nr), v = ready[pick];
        ready[pick] = ready[--nr];
        perm[out++] = v;
        for (int q = ustart[v]; q < ustart[v + 1]; q++)
            if (--indeg[users[q]] == 0) ready[nr++] = users[q];
    }
    if (out != n) fail("random_topo: %d of %d items placed", out, n);
    free(indeg), free(ready), free(ucount), free(ustart), free(users);
    tine_tprog_dag_free(&d);
}

static void test_random_liveness(void) {
    const char *targets[] = {"x86-64-avx2", "arm-64", "x86-64-sse2"};
    int lanes[] = {8, 4, 4};
    int cases = 0;
    for (int r = 0; r < 300; r++) {
        int ti = r % 3;
        tine_tprog *p = random_prog(targets[ti], lanes[ti], 1 + below(30));
        check(tine_tprog_check(p), "random %d: the selected order is not valid", r);
        for (int o = 0; o < 4; o++) {
            int *perm = tine_xmalloc(sizeof(int) * ((size_t)p->n + 1));
            tine_tprog_dag d;
            tine_tprog_dag_make(p, &d);
            random_topo(p, perm);
            int sched = tine_sched_max_live(&d.dag, perm);
            tine_tprog_dag_free(&d);
            tine_tprog_permute(p, perm);
            free(perm);
            bool valid = tine_tprog_check(p);
            int got = tine_tprog_stats_of(p).max_live, naive = naive_max_live(p);
            check(valid && got == naive && got == sched, "random %d order %d on %s: %s; max live %d, naive %d, scheduler %d",
                  r, o, targets[ti], valid ? "valid" : "NOT VALID", got, naive, sched);
            cases++;
        }
        tine_tprog_free(p);
    }
    printf("liveness: %d random orders of 300 programs\n", cases);
}

/* ---- reorder after rewrites ---------------------------------------------------------- */

/* The smallest case of the rule that kept values keep their relative order: y0's new
 * value reads v2, which the old order computed after c and w; the order rebuilt must
 * still compute c and w before v2 (the header: "the previous order's relative order of
 * the values still there is kept, new values placed before their first user"), moving
 * store y0 later rather than v2 earlier. */
static void test_reorder_hand(void) {
    tine_type_t t = tine_type(TINE_FLOAT, 32, 8);
    tine_expr_t *a = tine_var(ctx, "a", t), *b = tine_var(ctx, "b", t), *c = tine_var(ctx, "c", t);
    tine_expr_t *v1 = ins2("mulps", a, a), *w = ins2("mulps", c, c), *v2 = ins2("addps", b, b);
    if (!v1 || !w || !v2) return;
    tine_tprog *p = tine_tprog_new(ctx, "x86-64-avx2");
    tine_tprog_output(p, "y0", v1);
    tine_tprog_output(p, "y1", v2);
    tine_tprog_output(p, "y2", w);
    it items[] = {{a, -1}, {v1, -1}, {0, 0}, {c, -1}, {w, -1}, {0, 2}, {b, -1}, {v2, -1}, {0, 1}};
    set_order(p, 9, items);
    check(tine_tprog_check(p), "reorder by hand: the order before is not valid");
    tine_expr_t *nv = ins2("addps", v1, v2);
    p->outs[0].value = nv;
    tine_tprog_reorder(p);
    check(tine_tprog_check(p), "reorder by hand: not a valid order");
    const tine_expr_t *want[] = {a, v1, c, w, b, v2, nv};
    int pos[7];
    for (int k = 0; k < 7; k++) {
        pos[k] = -1;
        for (int i = 0; i < p->n; i++)
            if (p->order[i].store < 0 && p->order[i].e == want[k]) pos[k] = i;
    }
    bool ok = true;
    for (int k = 1; k < 7; k++) ok &= pos[k] > pos[k - 1];
    if (!ok) {
        tine_buf buf = {0};
        tine_tprog_print(p, &buf);
        fail("reorder by hand: the kept values a v1 c w b v2 are not in their old order after y0 := v1 + v2:\n%s",
             buf.p ? buf.p : "");
        free(buf.p);
    } else pass();
    tine_tprog_free(p);
}

static void test_reorder(void) {
    test_reorder_hand();
    int rewrites = 0;
    for (int r = 0; r < 200; r++) {
        bool arm = r % 2;
        tine_tprog *p = random_prog(arm ? "arm-64" : "x86-64-avx2", arm ? 4 : 8, 2 + below(25));
        /* start from a random valid order */
        int *perm = tine_xmalloc(sizeof(int) * ((size_t)p->n + 1));
        random_topo(p, perm);
        tine_tprog_permute(p, perm);
        free(perm);
        for (int round = 0; round < 5; round++) {
            /* the old order: position of each value and store */
            int nold = p->n;
            tine_tprog_item *old = tine_xmalloc(sizeof *old * ((size_t)nold + 1));
            memcpy(old, p->order, sizeof *old * (size_t)nold);
            /* a rewrite of one output */
            int k = below(p->nouts);
            tine_expr_t *vals[256];
            int nv = 0;
            for (int i = 0; i < p->n && nv < 256; i++)
                if (p->order[i].store < 0 && p->order[i].e->op != TINE_OP_CONST) vals[nv++] = p->order[i].e;
            tine_expr_t *x = vals[below(nv)], *y = vals[below(nv)], *nw;
            const char *add = arm ? "fadd_f32" : "addps", *mul = arm ? "fmul_f32" : "mulps", *sub = arm ? "fsub_f32" : "subps";
            switch (below(5)) {
            case 0: nw = ins2(add, x, y); break;
            case 1: nw = ins2(sub, ins2(mul, x, y), p->outs[k].value); break; /* new values on the old one */
            case 2: nw = x; break; /* an old value (the output's own may die) */
            case 3: nw = p->outs[below(p->nouts)].value; break; /* another output's value */
            default: nw = p->outs[k].value->nops ? p->outs[k].value->ops[0] : x; break; /* an operand of it */
            }
            if (!nw) break;
            p->outs[k].value = nw;
            tine_tprog_reorder(p);
            rewrites++;
            check(tine_tprog_check(p), "reorder %d.%d: not a valid order", r, round);
            /* exactly the values the outputs need */
            uint32_t lim = 0;
            for (int i = 0; i < p->n; i++)
                if (p->order[i].e->id >= lim) lim = p->order[i].e->id + 1;
            for (int i = 0; i < p->nouts; i++)
                if (p->outs[i].value->id >= lim) lim = p->outs[i].value->id + 1;
            for (int i = 0; i < nold; i++)
                if (old[i].e->id >= lim) lim = old[i].e->id + 1;
            uint8_t *need = tine_xcalloc(lim, 1), *have = tine_xcalloc(lim, 1);
            int nneed = 0, nhave = 0;
            for (int i = 0; i < p->nouts; i++) {
                uint32_t m;
                tine_expr_t **tp = tine_topo(ctx, p->outs[i].value, &m);
                for (uint32_t j = 0; j < m; j++)
                    if (!need[tp[j]->id]) need[tp[j]->id] = 1, nneed++;
                free(tp);
            }
            bool extra = false;
            for (int i = 0; i < p->n; i++)
                if (p->order[i].store < 0) {
                    extra |= !need[p->order[i].e->id];
                    if (!have[p->order[i].e->id]) have[p->order[i].e->id] = 1, nhave++;
                }
            check(!extra && nhave == nneed, "reorder %d.%d: the order computes %d values, the outputs need %d%s", r, round,
                  nhave, nneed, extra ? " (a dead one kept)" : "");
            /* the kept values and the stores in their old relative order */
            int *newpos = tine_xmalloc(sizeof(int) * lim);
            for (uint32_t i = 0; i < lim; i++) newpos[i] = -1;
            for (int i = 0; i < p->n; i++)
                if (p->order[i].store < 0) newpos[p->order[i].e->id] = i;
            int lastpos = -1, last_store = -1;
            bool kept_order = true, store_order = true;
            for (int i = 0; i < nold; i++) {
                if (old[i].store >= 0) {
                    int sp = -1;
                    for (int j = 0; j < p->n; j++)
                        if (p->order[j].store == old[i].store) sp = j;
                    store_order &= sp > last_store;
                    last_store = sp;
                    continue;
                }
                int np2 = newpos[old[i].e->id];
                if (np2 < 0) continue;
                kept_order &= np2 > lastpos;
                lastpos = np2;
            }
            check(kept_order, "reorder %d.%d: the kept values are not in their old order", r, round);
            check(store_order, "reorder %d.%d: the stores are not in their old order", r, round);
            free(newpos), free(need), free(have), free(old);
        }
        /* and through the peephole, whose rewrites end with a reorder */
        tine_peep_opts po = {.contract = true};
        check(tine_peephole(p, &po, NULL) && tine_tprog_check(p), "reorder %d: after the peephole: %s", r,
              tine_error(ctx) ? tine_error(ctx) : "not valid");
        tine_clear_error(ctx);
        tine_tprog_free(p);
    }
    printf("reorder: %d rewrites of 200 programs\n", rewrites);
}

/* ---- the scheduler ------------------------------------------------------------------ */

static const char *method_name[] = {"none", "fftw", "list", "auto"};

/* Every method on p's order; p keeps the last (auto) one. */
static void schedule_all(tine_tprog *p, const char *what) {
    tine_tprog_item *orig = tine_xmalloc(sizeof *orig * ((size_t)p->n + 1));
    memcpy(orig, p->order, sizeof *orig * (size_t)p->n);
    int n = p->n;
    int before = tine_tprog_stats_of(p).max_live;
    for (int m = TINE_SCHED_NONE; m <= TINE_SCHED_AUTO; m++) {
        memcpy(p->order, orig, sizeof *orig * (size_t)n);
        tine_tprog_dag d;
        tine_tprog_dag_make(p, &d);
        check(tine_sched_dag_ok(&d.dag), "%s: the DAG is not one the scheduler takes", what);
        int *in = tine_xmalloc(sizeof(int) * ((size_t)n + 1)), *out = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
        for (int i = 0; i < n; i++) in[i] = i;
        tine_sched_stats st;
        int rc = tine_sched_run(&d.dag, (tine_sched_method)m, in, out, &st);
        tine_tprog_dag_free(&d);
        if (rc < 0) {
            fail("%s %s: tine_sched_run refused the program's DAG (%d)", what, method_name[m], rc);
            free(in), free(out);
            continue;
        }
        tine_tprog_permute(p, out);
        bool valid = tine_tprog_check(p) && p->n == n;
        int after = tine_tprog_stats_of(p).max_live;
        check(valid, "%s %s: not a valid order after the schedule", what, method_name[m]);
        check(after == rc && st.live_after == rc && st.live_before == before,
              "%s %s: max live %d, tine_sched_run said %d (stats %d before, %d after; tprog %d before)", what,
              method_name[m], after, rc, st.live_before, st.live_after, before);
        check(after <= before, "%s %s: max live raised from %d to %d", what, method_name[m], before, after);
        if (m == TINE_SCHED_NONE) check(!memcmp(p->order, orig, sizeof *orig * (size_t)n), "%s none: the order changed", what);
        /* the same items: a permutation */
        bool same = true;
        for (int i = 0; i < n; i++) same &= out[i] >= 0 && out[i] < n && p->order[i].e == orig[out[i]].e &&
                                            p->order[i].store == orig[out[i]].store;
        check(same, "%s %s: the permuted items are not the old ones", what, method_name[m]);
        free(in), free(out);
    }
    free(orig);
}

static void test_schedule(void) {
    char what[96];
    for (int r = 0; r < 150; r++) {
        bool arm = r % 3 == 1;
        tine_tprog *p = random_prog(arm ? "arm-64" : "x86-64-avx2", arm ? 4 : 8, 1 + below(40));
        if (r % 2) { /* from a random order: room to improve */
            int *perm = tine_xmalloc(sizeof(int) * ((size_t)p->n + 1));
            random_topo(p, perm);
            tine_tprog_permute(p, perm);
            free(perm);
        }
        snprintf(what, sizeof what, "random program %d", r);
        schedule_all(p, what);
        tine_tprog_free(p);
    }
    /* DFT codelets after select and the peephole, as tine dft schedules them */
    const int sizes[] = {2, 3, 4, 5, 7, 8, 12, 16, 32, 64};
    long live_before = 0, live_after = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        for (int arm = 0; arm < 2; arm++) {
            int n = sizes[si];
            tine_type_t t = tine_type(TINE_FLOAT, 32, arm ? 4 : 8);
            tine_expr_t *in[128] = {0}, *out[128] = {0};
            char nm[16];
            for (int j = 0; j < 2 * n; j++) {
                snprintf(nm, sizeof nm, "x%c%d", j % 2 ? 'i' : 'r', j / 2);
                in[j] = tine_var(ctx, nm, t);
            }
            if (!tine_dft_gen(ctx, n, -1, t, in, out, NULL)) {
                fail("dft %d: %s", n, tine_error(ctx));
                continue;
            }
            tine_tprog *p = tine_tprog_new(ctx, arm ? "arm-64" : "x86-64-avx2");
            for (int j = 0; j < 2 * n; j++) tine_tprog_input(p, in[j]);
            for (int k = 0; k < 2 * n; k++) {
                snprintf(nm, sizeof nm, "y%c%d", k % 2 ? 'i' : 'r', k / 2);
                tine_tprog_output(p, nm, out[k]);
            }
            tine_peep_opts po = {.contract = true};
            if (!tine_tprog_select(p) || !tine_peephole(p, &po, NULL)) {
                fail("dft %d: %s", n, tine_error(ctx));
                tine_clear_error(ctx);
                tine_tprog_free(p);
                continue;
            }
            int before = tine_tprog_stats_of(p).max_live;
            snprintf(what, sizeof what, "dft n=%d %s", n, p->target);
            schedule_all(p, what);
            live_before += before, live_after += tine_tprog_stats_of(p).max_live;
            tine_tprog_free(p);
        }
    }
    printf("schedule: DFT codelets' max live summed %ld before, %ld after auto\n", live_before, live_after);
    check(live_after < live_before, "schedule: auto lowered no DFT codelet's max live");
}

/* tine_tprog_of: the values' leaves its inputs (each once, constants not), the outputs
 * named, the order valid; a leaf only one output reads is an input all the same. */
static void test_of(void) {
    tine_type_t t = tine_type(TINE_FLOAT, 32, 8);
    tine_expr_t *a = tine_var(ctx, "oa", t), *b = tine_var(ctx, "ob", t), *c = tine_var(ctx, "oc", t),
                *k = tine_const_float(ctx, t, 0.5);
    tine_expr_t *t1 = ins2("addps", a, b), *t2 = t1 ? ins2("mulps", t1, k) : NULL, *t3 = ins2("mulps", a, c);
    if (!t2 || !t3) return;
    tine_expr_t *vals[2] = {t2, t3};
    tine_tprog *p = tine_tprog_of(ctx, "x86-64-avx2", 2, NULL, vals);
    check(p->ninputs == 3 && p->inputs[0] == a && p->inputs[1] == b && p->inputs[2] == c,
          "of: %d inputs, want oa, ob, oc", p->ninputs);
    check(p->nouts == 2 && !strcmp(p->outs[0].name, "out0") && p->outs[1].value == t3, "of: the outputs");
    check(tine_tprog_check(p), "of: not a valid order");
    tine_tprog_stats s = tine_tprog_stats_of(p);
    check(s.insns == 3 && s.inputs == 3 && s.consts == 1 && s.stores == 2,
          "of: %d instructions, %d inputs, %d constants, %d stores", s.insns, s.inputs, s.consts, s.stores);
    tine_tprog_free(p);
    const char *names[1] = {"y"};
    p = tine_tprog_of(ctx, "x86-64-avx2", 1, names, &t3);
    check(p->ninputs == 2 && !strcmp(p->outs[0].name, "y") && tine_tprog_check(p), "of: one output named y");
    tine_tprog_free(p);
}

int main(void) {
    ctx = tine_ctx_new();
    static const test_part parts[] = {{"hand", test_hand}, {"of", test_of}, {"liveness", test_random_liveness}, {"reorder", test_reorder},
                                        {"schedule", test_schedule}};
    run_parts(parts, sizeof parts / sizeof *parts);
    tine_ctx_free(ctx);
    printf("test_tprog: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
