/* test_egraph.c — the e-graph's core (src/egraph): hash-consing, congruence after unions
 * and a rebuild, the invariants (eg_check), an analysis carried through merges, random
 * terms and unions against a naive congruence closure computed independently; e-matching
 * of nested patterns with repeated variables and data, against counts from the classes;
 * tree-cost extraction against every choice of one node per class on small graphs.
 */
#include "egraph/egraph.h"
#include "internal.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void invariants(eg_graph *g, const char *when) {
    const char *why = eg_check(g);
    check(!why, "%s: %s", when, why ? why : "");
}

static void test_basics(void) {
    eg_graph *g = eg_new(NULL);
    enum { A = 1, B, F, G };
    eg_id a = eg_add(g, A, 0, 0, NULL), b = eg_add(g, B, 0, 0, NULL);
    eg_id fa = eg_add(g, F, 0, 1, &a), fb = eg_add(g, F, 0, 1, &b);
    eg_id gfa = eg_add(g, G, 0, 1, &fa), gfb = eg_add(g, G, 0, 1, &fb);
    check(eg_add(g, F, 0, 1, &a) == fa, "adding f(a) again gives another class");
    check(eg_add(g, F, 7, 1, &a) != fa, "the datum is not part of a node's identity");
    check(eg_node_count(g) == 7 && eg_class_count(g) == 7, "7 nodes in 7 classes: %zu in %zu", eg_node_count(g),
          eg_class_count(g));
    invariants(g, "after adding");
    check(eg_union(g, a, b), "a and b were already one");
    check(!eg_union(g, b, a), "a union of one class twice");
    int merged = eg_rebuild(g);
    check(eg_find(g, fa) == eg_find(g, fb), "f(a) and f(b) not congruent after a = b");
    check(eg_find(g, gfa) == eg_find(g, gfb), "g(f(a)) and g(f(b)) not congruent (upward)");
    check(merged == 2, "the rebuild merged %d classes, want 2", merged);
    check(eg_node_count(g) == 5 && eg_class_count(g) == 4, "5 nodes in 4 classes after: %zu in %zu", eg_node_count(g),
          eg_class_count(g));
    check(eg_class_size(g, fa) == 1, "f(a) and f(b) are one node: class of %zu", eg_class_size(g, fa));
    check(eg_class_size(g, a) == 2, "a and b stay two nodes of one class: %zu", eg_class_size(g, a));
    check(eg_add(g, F, 0, 1, &b) == eg_find(g, fa), "f(b) added after the rebuild is not f(a)'s class");
    invariants(g, "after the rebuild");
    eg_free(g);
}

/* an analysis: the smallest constant a class is known to equal (or none) */
typedef struct {
    bool known;
    int64_t v;
} konst;

static void *k_make(eg_graph *g, const eg_node *n, void *user) {
    (void)user;
    konst *k = malloc(sizeof *k);
    k->known = n->op == 100; /* a constant leaf */
    k->v = n->data;
    if (n->op == 101 && n->n == 2) { /* add */
        const konst *x = eg_data(g, n->kids[0]), *y = eg_data(g, n->kids[1]);
        k->known = x && y && x->known && y->known;
        k->v = k->known ? x->v + y->v : 0;
    }
    return k;
}

static bool k_merge(eg_graph *g, void *a, void *b, void *user) {
    (void)g, (void)user;
    konst *x = a;
    const konst *y = b;
    if (!y->known || (x->known && x->v <= y->v)) return false;
    *x = *y;
    return true;
}

static void k_free(void *d, void *user) {
    (void)user;
    free(d);
}

static void test_analysis(void) {
    eg_analysis an = {k_make, k_merge, k_free, NULL};
    eg_graph *g = eg_new(&an);
    eg_id x = eg_add(g, 1, 0, 0, NULL), two = eg_add(g, 100, 2, 0, NULL), three = eg_add(g, 100, 3, 0, NULL);
    eg_id kids[2] = {x, three};
    eg_id s = eg_add(g, 101, 0, 2, kids);
    const konst *ks = eg_data(g, s);
    check(ks && !ks->known, "x + 3 known before x is");
    eg_union(g, x, two);
    eg_rebuild(g);
    ks = eg_data(g, s);
    check(ks && ks->known && ks->v == 5, "x = 2 does not make x + 3 known as 5 (%d, %lld)", ks ? ks->known : -1,
          ks ? (long long)ks->v : 0);
    invariants(g, "with an analysis");
    eg_free(g);
}

/* Random terms over a few leaves and binary operators, random unions of leaves, then a
 * rebuild: two terms are in one class exactly when a naive closure (terms equal if their
 * leaves were unioned, or if they have one operator and equal children) says so. */
enum { NT = 400 };
static int op_of[NT], l_of[NT], r_of[NT], leaf_of[NT];
static int naive[NT]; /* a representative term per term */

static int nfind(int a) { return naive[a] == a ? a : (naive[a] = nfind(naive[a])); }

static void test_random(uint64_t seed) {
    uint64_t s = seed;
    eg_graph *g = eg_new(NULL);
    eg_id id[NT];
    int nleaves = 6;
    for (int i = 0; i < NT; i++) {
        if (i < nleaves) {
            op_of[i] = -1, leaf_of[i] = i;
            id[i] = eg_add(g, 1000 + (uint32_t)i, 0, 0, NULL);
        } else {
            op_of[i] = (int)(tine_rand64(&s) % 2);
            l_of[i] = (int)(tine_rand64(&s) % (uint64_t)i);
            r_of[i] = (int)(tine_rand64(&s) % (uint64_t)i);
            eg_id k[2] = {id[l_of[i]], id[r_of[i]]};
            id[i] = eg_add(g, (uint32_t)op_of[i], 0, 2, k);
        }
        naive[i] = i;
    }
    /* hash-consing: terms of one form at the start are one class */
    for (int i = 0; i < NT; i++) {
        for (int j = 0; j < i; j++)
            if (op_of[i] >= 0 && op_of[i] == op_of[j] && eg_find(g, id[l_of[i]]) == eg_find(g, id[l_of[j]]) &&
                eg_find(g, id[r_of[i]]) == eg_find(g, id[r_of[j]]) && nfind(i) != nfind(j))
                naive[nfind(i)] = nfind(j);
    }
    int nunions = 1 + (int)(tine_rand64(&s) % 3);
    for (int u = 0; u < nunions; u++) {
        int a = (int)(tine_rand64(&s) % (uint64_t)nleaves), b = (int)(tine_rand64(&s) % (uint64_t)nleaves);
        eg_union(g, id[a], id[b]);
        if (nfind(a) != nfind(b)) naive[nfind(a)] = nfind(b);
    }
    eg_rebuild(g);
    /* the naive closure: merge congruent terms until nothing changes */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = nleaves; i < NT; i++)
            for (int j = nleaves; j < i; j++)
                if (op_of[i] == op_of[j] && nfind(l_of[i]) == nfind(l_of[j]) && nfind(r_of[i]) == nfind(r_of[j]) &&
                    nfind(i) != nfind(j)) {
                    naive[nfind(i)] = nfind(j);
                    changed = true;
                }
    }
    int wrong = 0;
    for (int i = 0; i < NT && wrong < 3; i++)
        for (int j = 0; j < i && wrong < 3; j++) {
            bool e = eg_find(g, id[i]) == eg_find(g, id[j]), n = nfind(i) == nfind(j);
            if (e != n) {
                check(false, "seed %llu: terms %d and %d are %s by the e-graph, %s by the closure",
                      (unsigned long long)seed, i, j, e ? "equal" : "apart", n ? "equal" : "apart");
                wrong++;
            }
        }
    if (!wrong) pass();
    invariants(g, "random terms");
    eg_free(g);
}

/* ---- e-matching ---- */

typedef struct {
    eg_id roots[64], x[64], y[64];
    int n;
} found;

static void collect(eg_id root, const eg_id *subst, void *user) {
    found *f = user;
    if (f->n < 64) f->roots[f->n] = root, f->x[f->n] = subst[0], f->y[f->n] = subst[1], f->n++;
}

static void test_match(void) {
    eg_graph *g = eg_new(NULL);
    enum { A = 1, B, F, G };
    eg_id a = eg_add(g, A, 0, 0, NULL), b = eg_add(g, B, 0, 0, NULL);
    eg_id ga = eg_add(g, G, 0, 1, &a), gb = eg_add(g, G, 0, 1, &b);
    eg_id k1[2] = {ga, a}, k2[2] = {gb, a};
    eg_id f1 = eg_add(g, F, 0, 2, k1), f2 = eg_add(g, F, 0, 2, k2);
    /* f(g(?x), ?x) */
    eg_pat_node pn[3] = {{.var = -1, .op = F, .n = 2, .kids = {1, 2}}, {.var = -1, .op = G, .n = 1, .kids = {2}}, {.var = 0}};
    eg_pattern p = {pn, 0, 1};
    found f = {0};
    size_t n = eg_match(g, &p, collect, &f);
    check(n == 1 && f.roots[0] == eg_find(g, f1) && f.x[0] == eg_find(g, a), "f(g(?x), ?x): %zu matches, want f(g(a), a)", n);
    (void)f2;
    eg_union(g, a, b);
    eg_rebuild(g);
    f.n = 0;
    n = eg_match(g, &p, collect, &f);
    check(n == 1 && f.roots[0] == eg_find(g, f1) && f.x[0] == eg_find(g, a),
          "after a = b, f(g(?x), ?x) matches the one merged class once: %zu", n);
    /* a datum: g with any datum, and with one */
    eg_id c9 = eg_add(g, G, 9, 1, &a);
    eg_pat_node q[2] = {{.var = -1, .op = G, .n = 1, .any_data = true, .kids = {1}}, {.var = 0}};
    eg_pattern pq = {q, 0, 1};
    check(eg_match(g, &pq, NULL, NULL) == 2, "g(?x) with any datum: %zu matches, want 2", eg_match(g, &pq, NULL, NULL));
    q[0].any_data = false, q[0].data = 9;
    f.n = 0;
    check(eg_match(g, &pq, collect, &f) == 1 && f.roots[0] == eg_find(g, c9), "g[9](?x) does not match only g[9](a)");
    eg_free(g);
}

/* A random graph: `leaves` leaves (ops base, base + 1 ...), then binary nodes of ops 0 ..
 * nops-1 over anything added before (ids in id[0 .. n)), then `unions` random unions
 * (which may close cycles) and a rebuild. */
static eg_graph *random_graph(uint64_t *s, eg_id *id, int n, int leaves, uint32_t base, uint32_t nops, int unions) {
    eg_graph *g = eg_new(NULL);
    for (int i = 0; i < n; i++) {
        if (i < leaves) {
            id[i] = eg_add(g, base + (uint32_t)i, 0, 0, NULL);
            continue;
        }
        eg_id k[2] = {id[tine_rand64(s) % (uint64_t)i], id[tine_rand64(s) % (uint64_t)i]};
        id[i] = eg_add(g, (uint32_t)(tine_rand64(s) % nops), 0, 2, k);
    }
    for (int u = 0; u < unions; u++) eg_union(g, id[tine_rand64(s) % (uint64_t)n], id[tine_rand64(s) % (uint64_t)n]);
    eg_rebuild(g);
    return g;
}

/* Random graphs: matches of op0(?x, ?x) and op1(op0(?x, ?y), ?y) against a count from the
 * classes' nodes. */
static void test_match_random(uint64_t seed) {
    uint64_t s = seed;
    eg_id id[120];
    eg_graph *g = random_graph(&s, id, 120, 5, 1000, 2, 3);
    eg_id cls[256];
    size_t nc = eg_classes(g, cls, 256);
    size_t want1 = 0, want2 = 0;
    for (size_t ci = 0; ci < nc && ci < 256; ci++)
        for (size_t i = 0; i < eg_class_size(g, cls[ci]); i++) {
            eg_node n = eg_class_node(g, cls[ci], i);
            if (n.op == 0 && n.n == 2 && n.kids[0] == n.kids[1]) want1++;
            if (n.op != 1 || n.n != 2) continue;
            for (size_t j = 0; j < eg_class_size(g, n.kids[0]); j++) {
                eg_node m = eg_class_node(g, n.kids[0], j);
                if (m.op == 0 && m.n == 2 && m.kids[1] == n.kids[1]) want2++;
            }
        }
    eg_pat_node p1[2] = {{.var = -1, .op = 0, .n = 2, .kids = {1, 1}}, {.var = 0}};
    eg_pat_node p2[4] = {{.var = -1, .op = 1, .n = 2, .kids = {1, 3}}, {.var = -1, .op = 0, .n = 2, .kids = {2, 3}}, {.var = 0},
                         {.var = 1}};
    eg_pattern a = {p1, 0, 1}, b = {p2, 0, 2};
    size_t got1 = eg_match(g, &a, NULL, NULL), got2 = eg_match(g, &b, NULL, NULL);
    check(got1 == want1 && got2 == want2, "seed %llu: %zu and %zu matches, the classes' nodes give %zu and %zu",
          (unsigned long long)seed, got1, got2, want1, want2);
    eg_free(g);
}

/* ---- extraction ---- */

static double node_cost(const eg_node *n, void *user) {
    (void)user;
    return n->n == 0 ? 1 + (double)(n->op % 4) : 2 + (double)n->op;
}

/* the tree cost of class c under a choice of one node per class (INFINITY on a cycle) */
static double tree_cost(eg_graph *g, const eg_id *cls, size_t nc, const size_t *choice, eg_id c, int depth) {
    if (depth > 64) return INFINITY;
    size_t ci = 0;
    while (ci < nc && cls[ci] != c) ci++;
    eg_node n = eg_class_node(g, c, choice[ci]);
    double t = node_cost(&n, NULL);
    for (uint32_t j = 0; j < n.n && t < INFINITY; j++) t += tree_cost(g, cls, nc, choice, eg_find(g, n.kids[j]), depth + 1);
    return t;
}

static void test_extract_random(uint64_t seed) {
    uint64_t s = seed;
    eg_id id[12];
    eg_graph *g = random_graph(&s, id, 12, 4, 10, 3, 1 + (int)(seed % 3));
    eg_id cls[16];
    size_t nc = eg_classes(g, cls, 16);
    double *cost = malloc(sizeof *cost * eg_id_limit(g));
    uint32_t *best = malloc(sizeof *best * eg_id_limit(g));
    eg_extract_tree(g, node_cost, NULL, cost, best);
    /* every choice of one node per class, the cheapest tree per class */
    double want[16];
    for (size_t i = 0; i < nc; i++) want[i] = INFINITY;
    size_t choice[16] = {0}, combos = 1;
    for (size_t i = 0; i < nc; i++) combos *= eg_class_size(g, cls[i]);
    for (size_t k = 0; k < combos && combos <= 200000; k++) {
        size_t r = k;
        for (size_t i = 0; i < nc; i++) choice[i] = r % eg_class_size(g, cls[i]), r /= eg_class_size(g, cls[i]);
        for (size_t i = 0; i < nc; i++) {
            double t = tree_cost(g, cls, nc, choice, cls[i], 0);
            if (t < want[i]) want[i] = t;
        }
    }
    bool ok = combos <= 200000;
    for (size_t i = 0; i < nc && ok; i++) {
        ok = cost[cls[i]] == want[i];
        if (ok && want[i] < INFINITY) { /* the node chosen gives the cost */
            eg_node n = eg_class_node(g, cls[i], best[cls[i]]);
            double t = node_cost(&n, NULL);
            for (uint32_t j = 0; j < n.n; j++) t += cost[eg_find(g, n.kids[j])];
            ok = t == cost[cls[i]];
        }
        if (!ok) check(false, "seed %llu: class %u costs %g, the cheapest tree %g", (unsigned long long)seed, cls[i],
                       cost[cls[i]], want[i]);
    }
    if (ok) pass();
    free(cost);
    free(best);
    eg_free(g);
}

/* DAG-aware extraction: a subterm the DAG computes anyway makes a choice that uses it
 * cheaper than the tree cost says */
enum { DG = 50, DH, DH2, DC, DP2 };
static double dag_op_cost(const eg_node *n, void *user) {
    (void)user;
    return n->op == DC ? 10 : n->op == DP2 ? 9 : 1;
}

static void test_dag(void) {
    eg_graph *g = eg_new(NULL);
    eg_id c = eg_add(g, DC, 0, 0, NULL);
    eg_id hc = eg_add(g, DH, 0, 1, &c), p2 = eg_add(g, DP2, 0, 0, NULL), q = eg_add(g, DH2, 0, 1, &c);
    eg_union(g, hc, p2);
    eg_rebuild(g);
    eg_id k[2] = {hc, q};
    eg_id root = eg_add(g, DG, 0, 2, k);
    double *cost = malloc(sizeof *cost * eg_id_limit(g));
    uint32_t *best = malloc(sizeof *best * eg_id_limit(g));
    eg_extract_tree(g, dag_op_cost, NULL, cost, best);
    double tree = eg_dag_cost(g, dag_op_cost, NULL, root, best);
    double dag = eg_extract_dag(g, dag_op_cost, NULL, root, best);
    check(tree == 21 && dag == 13, "g(h(c) = p2, h2(c)): the tree choice costs %g as a DAG (want 21), the DAG choice %g (want 13)",
          tree, dag);
    check(eg_class_node(g, hc, best[eg_find(g, hc)]).op == DH, "the DAG choice does not share c");
    free(cost), free(best);
    eg_free(g);
}

/* on small random graphs: never worse than the tree choice, never better than the best of
 * every choice of one node per class */
static void test_dag_random(uint64_t seed) {
    uint64_t s = seed;
    eg_id id[12];
    eg_graph *g = random_graph(&s, id, 12, 4, 10, 3, 2);
    eg_id cls[16], root = eg_find(g, id[11]);
    size_t nc = eg_classes(g, cls, 16), lim = eg_id_limit(g);
    double *cost = malloc(sizeof *cost * lim);
    uint32_t *best = malloc(sizeof *best * lim), *ch = malloc(sizeof *ch * lim);
    eg_extract_tree(g, node_cost, NULL, cost, best);
    double tree = eg_dag_cost(g, node_cost, NULL, root, best), dag = eg_extract_dag(g, node_cost, NULL, root, best);
    double opt = INFINITY;
    size_t combos = 1;
    for (size_t i = 0; i < nc; i++) combos *= eg_class_size(g, cls[i]);
    for (size_t k = 0; k < combos && combos <= 200000; k++) {
        size_t r = k;
        for (size_t i = 0; i < nc; i++) ch[cls[i]] = (uint32_t)(r % eg_class_size(g, cls[i])), r /= eg_class_size(g, cls[i]);
        double t = eg_dag_cost(g, node_cost, NULL, root, ch);
        if (t < opt) opt = t;
    }
    check(combos > 200000 || (dag <= tree && dag >= opt && dag == eg_dag_cost(g, node_cost, NULL, root, best)),
          "seed %llu: DAG extraction %g, tree choice %g, best of all %g", (unsigned long long)seed, dag, tree, opt);
    free(cost), free(best), free(ch);
    eg_free(g);
}

/* ---- rewriting to saturation ---- */

enum { MUL = 1, DIV, SHL, CONST, VAR };

static double op_cost(const eg_node *n, void *user) {
    (void)user;
    return n->op == MUL || n->op == DIV ? 4 : 1;
}

/* egg's own first example: (a * 2) / 2 is a, through x * 2 = x << 1 (the cheaper form),
 * (x * y) / z = x * (y / z), x / x = 1, x * 1 = x; and a chain of products under
 * commutativity and associativity grows until the node limit */
static void test_run(size_t match_limit) {
    eg_graph *g = eg_new(NULL);
    eg_id a = eg_add(g, VAR, 0, 0, NULL), two = eg_add(g, CONST, 2, 0, NULL);
    eg_id k1[2] = {a, two};
    eg_id m = eg_add(g, MUL, 0, 2, k1);
    eg_id k2[2] = {m, two};
    eg_id root = eg_add(g, DIV, 0, 2, k2);
    /* lhs and rhs patterns: ?0 ?1 ?2 are x y z */
    static const eg_pat_node mul2[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 2}}, {.var = 0}, {.var = -1, .op = CONST, .data = 2}};
    static const eg_pat_node shl1[] = {{.var = -1, .op = SHL, .n = 2, .kids = {1, 2}}, {.var = 0}, {.var = -1, .op = CONST, .data = 1}};
    static const eg_pat_node divmul[] = {{.var = -1, .op = DIV, .n = 2, .kids = {1, 4}}, {.var = -1, .op = MUL, .n = 2, .kids = {2, 3}},
                                         {.var = 0}, {.var = 1}, {.var = 2}};
    static const eg_pat_node muldiv[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 2}}, {.var = 0},
                                         {.var = -1, .op = DIV, .n = 2, .kids = {3, 4}}, {.var = 1}, {.var = 2}};
    static const eg_pat_node divself[] = {{.var = -1, .op = DIV, .n = 2, .kids = {1, 1}}, {.var = 0}};
    static const eg_pat_node one[] = {{.var = -1, .op = CONST, .data = 1}};
    static const eg_pat_node mul1[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 2}}, {.var = 0}, {.var = -1, .op = CONST, .data = 1}};
    static const eg_pat_node x[] = {{.var = 0}};
    eg_rule rules[] = {
        {"mul2", {mul2, 0, 1}, {shl1, 0, 1}, NULL, NULL},
        {"div_assoc", {divmul, 0, 3}, {muldiv, 0, 3}, NULL, NULL},
        {"div_self", {divself, 0, 1}, {one, 0, 0}, NULL, NULL},
        {"mul1", {mul1, 0, 1}, {x, 0, 1}, NULL, NULL},
    };
    eg_limits lim = {.match_limit = match_limit};
    eg_report rep = eg_run(g, rules, 4, &lim);
    check(rep.stop == EG_SATURATED, "(a * 2) / 2 (match limit %zu): stopped by %d, not saturated", match_limit, rep.stop);
    check(eg_find(g, root) == eg_find(g, a), "(a * 2) / 2 (match limit %zu) is not a", match_limit);
    check(eg_find(g, m) != eg_find(g, a), "a * 2 became a");
    double *cost = malloc(sizeof *cost * eg_id_limit(g));
    uint32_t *best = malloc(sizeof *best * eg_id_limit(g));
    eg_extract_tree(g, op_cost, NULL, cost, best);
    eg_node bm = eg_class_node(g, m, best[eg_find(g, m)]);
    check(cost[eg_find(g, root)] == 1 && bm.op == SHL, "the cheapest forms: (a * 2) / 2 costs %g, a * 2 is op %u",
          cost[eg_find(g, root)], bm.op);
    invariants(g, "after the run");
    free(cost), free(best);
    eg_free(g);

    /* growth: x0 * (x1 * (x2 * ...)) under commutativity and associativity */
    g = eg_new(NULL);
    eg_id t = eg_add(g, VAR, 0, 0, NULL);
    for (int i = 1; i < 9; i++) {
        eg_id k[2] = {eg_add(g, VAR, i, 0, NULL), t};
        t = eg_add(g, MUL, 0, 2, k);
    }
    static const eg_pat_node mxy[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 2}}, {.var = 0}, {.var = 1}};
    static const eg_pat_node myx[] = {{.var = -1, .op = MUL, .n = 2, .kids = {2, 1}}, {.var = 0}, {.var = 1}};
    static const eg_pat_node assoc_l[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 2}}, {.var = 0},
                                          {.var = -1, .op = MUL, .n = 2, .kids = {3, 4}}, {.var = 1}, {.var = 2}};
    static const eg_pat_node assoc_r[] = {{.var = -1, .op = MUL, .n = 2, .kids = {1, 4}}, {.var = -1, .op = MUL, .n = 2, .kids = {2, 3}},
                                          {.var = 0}, {.var = 1}, {.var = 2}};
    eg_rule ac[] = {{"comm", {mxy, 0, 2}, {myx, 0, 2}, NULL, NULL}, {"assoc", {assoc_l, 0, 3}, {assoc_r, 0, 3}, NULL, NULL}};
    eg_limits small = {.max_nodes = 2000, .match_limit = match_limit};
    rep = eg_run(g, ac, 2, &small);
    if (match_limit >= 1000)
        check(rep.stop == EG_NODE_LIMIT && rep.nodes >= 2000 && rep.nodes < 2000 + 2000,
              "a product of 9 under AC: stopped by %d at %zu nodes, want the node limit", rep.stop, rep.nodes);
    else /* the rules banned, then let through with doubled limits: held back for all 30 rounds */
        check(rep.stop == EG_ITER_LIMIT && rep.nodes < 2000,
              "a product of 9 under AC, match limit 1: stopped by %d at %zu nodes, want the rounds' limit", rep.stop,
              rep.nodes);
    invariants(g, "after the node limit");
    eg_free(g);
}

int main(void) {
    test_basics();
    test_analysis();
    for (uint64_t seed = 1; seed <= 40; seed++) test_random(seed);
    test_match();
    for (uint64_t seed = 1; seed <= 40; seed++) test_match_random(seed);
    for (uint64_t seed = 1; seed <= 60; seed++) test_extract_random(seed);
    test_dag();
    for (uint64_t seed = 1; seed <= 60; seed++) test_dag_random(seed);
    test_run(1000);
    test_run(1); /* every rule banned at first: the backoff lets it through later */
    printf("test_egraph: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
