/* egraph.c — the e-graph's core: hash-consing, union-find, deferred rebuilding (egraph.h).
 *
 * Nodes live in one array (their children in another), each with the class it was
 * added to and the hash it is filed under; a node made a duplicate by a merge (its
 * canonical form is another's) is marked dead and dropped from its class's list at the
 * next rebuild. The hash-cons is an open-addressed table of node indexes keyed by the
 * node's canonical form. A class keeps its nodes and its parents (the nodes that have it
 * as a child): after a union the parents of the merged class are refiled under their new
 * canonical forms, and two that meet are congruent, so their classes are merged in turn
 * (egg's rebuild, run over a worklist until nothing changes).
 */
#include "egraph.h"

#include "../internal.h"

#include <math.h>

typedef struct {
    uint32_t op, n, first;
    int64_t data;
    eg_id cls;       /* the class it was added to (eg_find gives the current one) */
    uint64_t hash;   /* what it is filed under */
    bool dead;       /* a duplicate of another node's canonical form */
} node_t;

typedef struct {
    uint32_t *nodes, n, cap;       /* node indexes */
    uint32_t *parents, np, capp;   /* node indexes */
    void *data;
} class_t;

struct eg_graph {
    node_t *nodes;
    uint32_t nn, capn;
    eg_id *kids;
    size_t nk, capk;
    eg_id *uf;
    class_t *cls;
    uint32_t nc, capc;
    uint32_t *table;   /* node index + 1; 0 empty, UINT32_MAX a removed entry */
    size_t tcap, tused;
    eg_id *pending;
    uint32_t npend, cappend;
    eg_analysis an;
    bool has_an;
    size_t live_nodes, live_classes;
    size_t unions; /* unions that merged two classes, for eg_run's report */
};

static const uint32_t TOMB = UINT32_MAX;

eg_graph *eg_new(const eg_analysis *analysis) {
    eg_graph *g = tine_xcalloc(1, sizeof *g);
    if (analysis) g->an = *analysis, g->has_an = true;
    g->tcap = 64;
    g->table = tine_xcalloc(g->tcap, sizeof *g->table);
    g->capk = 16; /* never NULL: a leaf's children are kids + its first, 0 of them */
    g->kids = tine_xcalloc(g->capk, sizeof *g->kids);
    return g;
}

void eg_free(eg_graph *g) {
    if (!g) return;
    for (uint32_t c = 0; c < g->nc; c++) {
        if (g->has_an && g->an.free_data && g->uf[c] == c && g->cls[c].data) g->an.free_data(g->cls[c].data, g->an.user);
        free(g->cls[c].nodes);
        free(g->cls[c].parents);
    }
    free(g->nodes), free(g->kids), free(g->uf), free(g->cls), free(g->table), free(g->pending);
    free(g);
}

eg_id eg_find(const eg_graph *g, eg_id a) {
    while (g->uf[a] != a) a = g->uf[a];
    return a;
}

/* find with path halving (the graph's own calls) */
static eg_id find_mut(eg_graph *g, eg_id a) {
    while (g->uf[a] != a) {
        g->uf[a] = g->uf[g->uf[a]];
        a = g->uf[a];
    }
    return a;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_form(uint32_t op, int64_t data, uint32_t n, const eg_id *kids) {
    uint64_t h = mix(mix(mix(1469598103934665603ull, op), (uint64_t)data), n);
    for (uint32_t i = 0; i < n; i++) h = mix(h, kids[i]);
    return h ? h : 1;
}

/* Whether node x has the canonical form (op, data, n, kids). */
static bool same_form(const eg_graph *g, const node_t *x, uint32_t op, int64_t data, uint32_t n, const eg_id *kids) {
    if (x->op != op || x->data != data || x->n != n) return false;
    for (uint32_t i = 0; i < n; i++)
        if (eg_find(g, g->kids[x->first + i]) != kids[i]) return false;
    return true;
}

/* The live node filed with this canonical form, or -1. */
static int64_t lookup(const eg_graph *g, uint64_t h, uint32_t op, int64_t data, uint32_t n, const eg_id *kids) {
    size_t mask = g->tcap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t v = g->table[i];
        if (!v) return -1;
        if (v == TOMB) continue;
        const node_t *x = &g->nodes[v - 1];
        if (x->hash == h && !x->dead && same_form(g, x, op, data, n, kids)) return v - 1;
    }
}

static void file_node(eg_graph *g, uint32_t idx);

static void grow_table(eg_graph *g) {
    uint32_t *old = g->table;
    size_t oc = g->tcap;
    g->tcap *= 2;
    g->table = tine_xcalloc(g->tcap, sizeof *g->table);
    g->tused = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i] && old[i] != TOMB) file_node(g, old[i] - 1);
    free(old);
}

static void file_node(eg_graph *g, uint32_t idx) {
    if ((g->tused + 1) * 4 > g->tcap * 3) grow_table(g);
    size_t mask = g->tcap - 1;
    size_t i = g->nodes[idx].hash & mask;
    while (g->table[i] && g->table[i] != TOMB) i = (i + 1) & mask;
    g->table[i] = idx + 1;
    g->tused++;
}

static void unfile_node(eg_graph *g, uint32_t idx) {
    size_t mask = g->tcap - 1;
    for (size_t i = g->nodes[idx].hash & mask; g->table[i]; i = (i + 1) & mask)
        if (g->table[i] == idx + 1) {
            g->table[i] = TOMB; /* tused keeps counting it: the probe chains stay whole */
            return;
        }
}

static eg_node view(const eg_graph *g, uint32_t idx) {
    const node_t *x = &g->nodes[idx];
    return (eg_node){x->op, x->data, x->n, g->kids + x->first};
}

eg_id eg_add(eg_graph *g, uint32_t op, int64_t data, uint32_t n, const eg_id *kids) {
    eg_id canon[64], *ck = n <= 64 ? canon : tine_xmalloc(sizeof *ck * n);
    for (uint32_t i = 0; i < n; i++) ck[i] = find_mut(g, kids[i]);
    uint64_t h = hash_form(op, data, n, ck);
    int64_t found = lookup(g, h, op, data, n, ck);
    if (found >= 0) {
        if (ck != canon) free(ck);
        return find_mut(g, g->nodes[found].cls);
    }
    TINE_GROW(g->kids, g->nk + n, g->capk);
    if (n) memcpy(g->kids + g->nk, ck, sizeof *ck * n);
    if (ck != canon) free(ck);
    TINE_GROW(g->nodes, g->nn + 1, g->capn);
    uint32_t idx = g->nn++;
    eg_id c = g->nc;
    g->nodes[idx] = (node_t){op, n, (uint32_t)g->nk, data, c, h, false};
    g->nk += n;
    TINE_GROW(g->uf, g->nc + 1, g->capc);
    g->cls = tine_xrealloc_array(g->cls, g->capc, sizeof *g->cls);
    g->uf[c] = c;
    memset(&g->cls[c], 0, sizeof g->cls[c]);
    g->nc++;
    class_t *k = &g->cls[c];
    TINE_GROW(k->nodes, 1, k->cap);
    k->nodes[k->n++] = idx;
    for (uint32_t i = 0; i < n; i++) {
        class_t *ch = &g->cls[g->kids[g->nodes[idx].first + i]];
        TINE_GROW(ch->parents, ch->np + 1, ch->capp);
        ch->parents[ch->np++] = idx;
    }
    file_node(g, idx);
    g->live_nodes++, g->live_classes++;
    if (g->has_an && g->an.make) {
        eg_node v = view(g, idx);
        g->cls[c].data = g->an.make(g, &v, g->an.user);
    }
    return c;
}

bool eg_union(eg_graph *g, eg_id a, eg_id b) {
    a = find_mut(g, a), b = find_mut(g, b);
    if (a == b) return false;
    g->unions++;
    if (g->cls[a].n + g->cls[a].np < g->cls[b].n + g->cls[b].np) {
        eg_id t = a;
        a = b, b = t;
    }
    class_t *big = &g->cls[a], *small = &g->cls[b];
    g->uf[b] = a;
    TINE_GROW(big->nodes, big->n + small->n, big->cap);
    if (small->n) memcpy(big->nodes + big->n, small->nodes, sizeof *small->nodes * small->n);
    big->n += small->n;
    TINE_GROW(big->parents, big->np + small->np, big->capp);
    if (small->np) memcpy(big->parents + big->np, small->parents, sizeof *small->parents * small->np);
    big->np += small->np;
    free(small->nodes), free(small->parents);
    small->nodes = small->parents = NULL;
    small->n = small->np = small->cap = small->capp = 0;
    if (g->has_an && g->an.merge) {
        g->an.merge(g, big->data, small->data, g->an.user);
        if (g->an.free_data && small->data) g->an.free_data(small->data, g->an.user);
        small->data = NULL;
    }
    g->live_classes--;
    TINE_GROW(g->pending, g->npend + 1, g->cappend);
    g->pending[g->npend++] = a;
    return true;
}

/* The parents of class c refiled under their canonical forms: a parent that meets another
 * node's form is a duplicate (dead), and the two classes are congruent. */
static int repair(eg_graph *g, eg_id c) {
    int merged = 0;
    class_t *k = &g->cls[c];
    uint32_t np = k->np;
    uint32_t *ps = tine_xmalloc(sizeof *ps * (np + 1));
    if (np) memcpy(ps, k->parents, sizeof *ps * np);
    for (uint32_t i = 0; i < np; i++) {
        node_t *x = &g->nodes[ps[i]];
        if (x->dead) continue;
        unfile_node(g, ps[i]);
        for (uint32_t j = 0; j < x->n; j++) g->kids[x->first + j] = find_mut(g, g->kids[x->first + j]);
        x->hash = hash_form(x->op, x->data, x->n, g->kids + x->first);
        int64_t other = lookup(g, x->hash, x->op, x->data, x->n, g->kids + x->first);
        if (other >= 0 && other != (int64_t)ps[i]) {
            x->dead = true;
            g->live_nodes--;
            merged += eg_union(g, g->nodes[other].cls, x->cls);
        } else {
            file_node(g, ps[i]);
        }
        if (g->has_an && g->an.make && g->an.merge && !x->dead) { /* the parent's data from its new children */
            eg_node v = view(g, ps[i]);
            void *d = g->an.make(g, &v, g->an.user);
            eg_id pc = find_mut(g, x->cls);
            if (g->an.merge(g, g->cls[pc].data, d, g->an.user)) {
                TINE_GROW(g->pending, g->npend + 1, g->cappend);
                g->pending[g->npend++] = pc;
            }
            if (g->an.free_data && d) g->an.free_data(d, g->an.user);
        }
    }
    free(ps);
    /* c's parents, live and each once (a merge may have moved c: its class's list) */
    k = &g->cls[find_mut(g, c)];
    uint32_t w = 0;
    for (uint32_t i = 0; i < k->np; i++) {
        uint32_t p = k->parents[i];
        bool dup = g->nodes[p].dead;
        for (uint32_t j = 0; j < w && !dup; j++) dup = k->parents[j] == p;
        if (!dup) k->parents[w++] = p;
    }
    k->np = w;
    return merged;
}

int eg_rebuild(eg_graph *g) {
    int merged = 0;
    while (g->npend) {
        eg_id c = find_mut(g, g->pending[--g->npend]);
        merged += repair(g, c);
    }
    /* each class's nodes: the live ones, each once */
    for (eg_id c = 0; c < g->nc; c++) {
        if (g->uf[c] != c) continue;
        class_t *k = &g->cls[c];
        uint32_t w = 0;
        for (uint32_t i = 0; i < k->n; i++)
            if (!g->nodes[k->nodes[i]].dead) k->nodes[w++] = k->nodes[i];
        k->n = w;
    }
    return merged;
}

size_t eg_node_count(const eg_graph *g) { return g->live_nodes; }
size_t eg_class_count(const eg_graph *g) { return g->live_classes; }
size_t eg_class_size(const eg_graph *g, eg_id c) { return g->cls[eg_find(g, c)].n; }
eg_node eg_class_node(const eg_graph *g, eg_id c, size_t i) { return view(g, g->cls[eg_find(g, c)].nodes[i]); }
void *eg_data(const eg_graph *g, eg_id c) { return g->cls[eg_find(g, c)].data; }

size_t eg_classes(const eg_graph *g, eg_id *out, size_t max) {
    size_t k = 0;
    for (eg_id c = 0; c < g->nc; c++)
        if (g->uf[c] == c) {
            if (k < max) out[k] = c;
            k++;
        }
    return k;
}

/* ---- e-matching ------------------------------------------------------------------------- */

typedef struct {
    const eg_graph *g;
    const eg_pattern *p;
    eg_match_fn fn;
    void *user;
    eg_id root;
    size_t count;
} matcher;

/* Pattern node pn against class c under subst (bound[v] says which are set); for each
 * way it matches, k(next) continues with the extended substitution. Written as an
 * explicit continuation over a stack of pending (pattern node, class) pairs. */
typedef struct {
    int pn;
    eg_id c;
} goal;

static void solve(matcher *m, goal *goals, int ngoals, eg_id *subst, bool *bound) {
    if (!ngoals) {
        m->count++;
        if (m->fn) m->fn(m->root, subst, m->user);
        return;
    }
    goal gl = goals[ngoals - 1];
    const eg_pat_node *pn = &m->p->nodes[gl.pn];
    const eg_graph *g = m->g;
    if (pn->var >= 0) {
        if (bound[pn->var]) {
            if (subst[pn->var] == gl.c) solve(m, goals, ngoals - 1, subst, bound);
            return;
        }
        bound[pn->var] = true, subst[pn->var] = gl.c;
        solve(m, goals, ngoals - 1, subst, bound);
        bound[pn->var] = false;
        return;
    }
    const class_t *k = &g->cls[gl.c];
    goal *next = tine_xmalloc(sizeof *next * (size_t)(ngoals - 1 + (int)pn->n + 1));
    for (uint32_t i = 0; i < k->n; i++) {
        const node_t *x = &g->nodes[k->nodes[i]];
        if (x->dead || x->op != pn->op || x->n != pn->n || (!pn->any_data && x->data != pn->data)) continue;
        memcpy(next, goals, sizeof *goals * (size_t)(ngoals - 1));
        for (uint32_t j = 0; j < x->n; j++) next[ngoals - 1 + (int)j] = (goal){pn->kids[j], g->kids[x->first + j]};
        eg_id saved[EG_MAX_VARS];
        bool sb[EG_MAX_VARS];
        memcpy(saved, subst, sizeof saved), memcpy(sb, bound, sizeof sb);
        solve(m, next, ngoals - 1 + (int)x->n, subst, bound);
        memcpy(subst, saved, sizeof saved), memcpy(bound, sb, sizeof sb);
    }
    free(next);
}

size_t eg_match(const eg_graph *g, const eg_pattern *p, eg_match_fn fn, void *user) {
    matcher m = {g, p, fn, user, 0, 0};
    if (p->nvars > EG_MAX_VARS) return 0;
    for (eg_id c = 0; c < g->nc; c++) {
        if (g->uf[c] != c) continue;
        eg_id subst[EG_MAX_VARS] = {0};
        bool bound[EG_MAX_VARS] = {false};
        goal gl = {p->root, c};
        m.root = c;
        solve(&m, &gl, 1, subst, bound);
    }
    return m.count;
}

/* ---- rewriting to saturation ---------------------------------------------------------- */

static eg_id inst(eg_graph *g, const eg_pattern *p, int pn, const eg_id *subst) {
    const eg_pat_node *n = &p->nodes[pn];
    if (n->var >= 0) return subst[n->var];
    eg_id kids[EG_MAX_KIDS];
    for (uint32_t i = 0; i < n->n && i < EG_MAX_KIDS; i++) kids[i] = inst(g, p, n->kids[i], subst);
    return eg_add(g, n->op, n->data, n->n, kids);
}

eg_id eg_instantiate(eg_graph *g, const eg_pattern *p, const eg_id *subst) { return inst(g, p, p->root, subst); }

typedef struct {
    eg_id *roots, *substs;
    size_t n, cap, nvars;
} match_list;

static void keep_match(eg_id root, const eg_id *subst, void *user) {
    match_list *l = user;
    TINE_GROW(l->roots, l->n + 1, l->cap);
    l->substs = tine_xrealloc_array(l->substs, l->cap * (l->nvars ? l->nvars : 1), sizeof *l->substs);
    l->roots[l->n] = root;
    for (size_t v = 0; v < l->nvars; v++) l->substs[l->n * l->nvars + v] = subst[v];
    l->n++;
}

eg_report eg_run(eg_graph *g, const eg_rule *rules, int nrules, const eg_limits *limits) {
    eg_limits lim = limits ? *limits : (eg_limits){0};
    if (!lim.max_iters) lim.max_iters = 30;
    if (!lim.max_nodes) lim.max_nodes = 100000;
    if (lim.max_seconds <= 0) lim.max_seconds = 10;
    if (!lim.match_limit) lim.match_limit = 1000;
    if (!lim.ban_iters) lim.ban_iters = 5;
    size_t *limit = tine_xmalloc(sizeof *limit * (size_t)(nrules + 1));
    int *ban_len = tine_xmalloc(sizeof *ban_len * (size_t)(nrules + 1)), *banned_until = tine_xcalloc((size_t)nrules + 1, sizeof(int));
    for (int r = 0; r < nrules; r++) limit[r] = lim.match_limit, ban_len[r] = lim.ban_iters;
    eg_report rep = {EG_ITER_LIMIT, 0, 0, 0, 0, 0};
    double t0 = tine_now();
    eg_rebuild(g);
    for (int it = 0; it < lim.max_iters; it++) {
        rep.iters = it + 1;
        size_t before_nodes = eg_node_count(g), before_classes = eg_class_count(g);
        bool any_banned = false;
        match_list *ml = tine_xcalloc((size_t)nrules + 1, sizeof *ml);
        for (int r = 0; r < nrules; r++) { /* every rule's matches in this graph, before any is applied */
            if (banned_until[r] > it) {
                any_banned = true;
                continue;
            }
            ml[r].nvars = (size_t)rules[r].lhs.nvars;
            eg_match(g, &rules[r].lhs, keep_match, &ml[r]);
            if (ml[r].n > limit[r]) { /* egg's backoff: this rule waits, and may match more later */
                banned_until[r] = it + 1 + ban_len[r];
                limit[r] *= 2, ban_len[r] *= 2;
                ml[r].n = 0;
                any_banned = true;
            }
        }
        size_t unions = g->unions;
        bool late = false;
        for (int r = 0; r < nrules; r++) {
            for (size_t k = 0; k < ml[r].n && eg_node_count(g) < lim.max_nodes && !late; k++) {
                const eg_id *sub = ml[r].substs + k * ml[r].nvars;
                eg_id root = eg_find(g, ml[r].roots[k]);
                eg_id to = rules[r].apply ? rules[r].apply(g, root, sub, rules[r].user) : eg_instantiate(g, &rules[r].rhs, sub);
                eg_union(g, root, to);
                /* a round of many matches minds the clock too */
                late = (k & 1023) == 1023 && tine_now() - t0 > lim.max_seconds;
            }
            free(ml[r].roots), free(ml[r].substs);
        }
        rep.applied += g->unions - unions; /* a custom rule's own unions count too */
        free(ml);
        eg_rebuild(g);
        rep.seconds = tine_now() - t0;
        if (eg_node_count(g) >= lim.max_nodes) { rep.stop = EG_NODE_LIMIT; break; }
        if (rep.seconds > lim.max_seconds) { rep.stop = EG_TIME_LIMIT; break; }
        if (!any_banned && eg_node_count(g) == before_nodes && eg_class_count(g) == before_classes) {
            rep.stop = EG_SATURATED;
            break;
        }
    }
    rep.nodes = eg_node_count(g), rep.classes = eg_class_count(g);
    rep.seconds = tine_now() - t0;
    free(limit), free(ban_len), free(banned_until);
    return rep;
}

/* ---- extraction ------------------------------------------------------------------------- */

size_t eg_id_limit(const eg_graph *g) { return g->nc; }

/* Costs only fall, and each class's is the cost of a finite term, so the rounds end (at
 * most one per class on the longest chain of best choices). */
/* Each live node's own cost, by node index: the cost function asked once per node. */
static double *own_costs(const eg_graph *g, eg_cost_fn fn, void *user) {
    double *own = tine_xmalloc(sizeof *own * (g->nn + 1));
    for (size_t i = 0; i < g->nn; i++) {
        if (g->nodes[i].dead) continue;
        eg_node v = view(g, (uint32_t)i);
        own[i] = fn(&v, user);
    }
    return own;
}

void eg_extract_tree(const eg_graph *g, eg_cost_fn fn, void *user, double *cost, uint32_t *best) {
    double *own = own_costs(g, fn, user);
    for (eg_id c = 0; c < g->nc; c++) cost[c] = INFINITY, best[c] = UINT32_MAX;
    for (bool changed = true; changed;) {
        changed = false;
        for (eg_id c = 0; c < g->nc; c++) {
            if (g->uf[c] != c) continue;
            const class_t *k = &g->cls[c];
            for (uint32_t i = 0; i < k->n; i++) {
                const node_t *x = &g->nodes[k->nodes[i]];
                double t = own[k->nodes[i]];
                for (uint32_t j = 0; j < x->n && t < INFINITY; j++) t += cost[eg_find(g, g->kids[x->first + j])];
                if (t < cost[c]) cost[c] = t, best[c] = i, changed = true;
            }
        }
    }
    free(own);
}

/* state 0 unvisited, 1 on the path, 2 done */
static double dag_visit(const eg_graph *g, eg_cost_fn fn, void *user, eg_id c, const uint32_t *best, uint8_t *state) {
    c = eg_find(g, c);
    if (state[c] == 2) return 0;
    if (state[c] == 1 || best[c] == UINT32_MAX) return INFINITY;
    state[c] = 1;
    const class_t *k = &g->cls[c];
    eg_node v = view(g, k->nodes[best[c]]);
    double t = fn(&v, user);
    for (uint32_t j = 0; j < v.n && t < INFINITY; j++) t += dag_visit(g, fn, user, v.kids[j], best, state);
    state[c] = 2;
    return t;
}

double eg_dag_cost(const eg_graph *g, eg_cost_fn fn, void *user, eg_id root, const uint32_t *best) {
    uint8_t *state = tine_xcalloc(g->nc + 1, 1);
    double t = dag_visit(g, fn, user, root, best, state);
    free(state);
    return t;
}

/* dag_visit with one mark array for many evaluations: class c is in progress when
 * mark[c] == 2 gen - 1, done when 2 gen (no clearing between evaluations); *visits counts
 * the classes it went through. */
static double dag_stamp(const eg_graph *g, const double *own, eg_id c, const uint32_t *best, uint32_t *mark,
                        uint32_t gen, size_t *visits) {
    c = eg_find(g, c);
    if (mark[c] == 2 * gen) return 0;
    if (mark[c] == 2 * gen - 1 || best[c] == UINT32_MAX) return INFINITY;
    mark[c] = 2 * gen - 1;
    (*visits)++;
    uint32_t ni = g->cls[c].nodes[best[c]];
    eg_node v = view(g, ni);
    double t = own[ni];
    for (uint32_t j = 0; j < v.n && t < INFINITY; j++) t += dag_stamp(g, own, v.kids[j], best, mark, gen, visits);
    mark[c] = 2 * gen;
    return t;
}

double eg_extract_dag(const eg_graph *g, eg_cost_fn fn, void *user, eg_id root, uint32_t *best) {
    uint32_t *mark = tine_xcalloc(g->nc + 1, sizeof *mark), gen = 1;
    double *own = own_costs(g, fn, user);
    size_t visits = 0;
    double cur = dag_stamp(g, own, root, best, mark, gen++, &visits);
    /* each trial re-costs the whole DAG: a budget of class visits keeps a large graph's
       improvement to a fraction of a second (the choice so far always stands) */
    const size_t budget = 20u * 1000 * 1000;
    uint8_t *in = tine_xcalloc(g->nc + 1, 1);
    for (int pass = 0; pass < 50 && visits < budget; pass++) {
        bool better = false;
        /* the classes the current choice uses */
        uint32_t used = gen++;
        dag_stamp(g, own, root, best, mark, used, &visits);
        for (eg_id c = 0; c < g->nc; c++) in[c] = mark[c] == 2 * used;
        for (eg_id c = 0; c < g->nc && visits < budget; c++) {
            if (!in[c] || g->uf[c] != c) continue;
            uint32_t was = best[c];
            for (uint32_t i = 0; i < g->cls[c].n; i++) {
                if (i == was) continue;
                best[c] = i;
                double t = dag_stamp(g, own, root, best, mark, gen++, &visits);
                if (t < cur) {
                    cur = t, was = i, better = true;
                } else {
                    best[c] = was;
                }
            }
            best[c] = was;
        }
        if (!better) break;
    }
    free(in);
    free(mark);
    free(own);
    return cur;
}

const char *eg_check(const eg_graph *g) {
    if (g->npend) return "unions not rebuilt";
    size_t live = 0;
    for (eg_id c = 0; c < g->nc; c++) {
        if (g->uf[c] != c) continue;
        const class_t *k = &g->cls[c];
        for (uint32_t i = 0; i < k->n; i++) {
            const node_t *x = &g->nodes[k->nodes[i]];
            if (x->dead) return "a dead node in a class";
            if (eg_find(g, x->cls) != c) return "a node in another class's list";
            for (uint32_t j = 0; j < x->n; j++)
                if (eg_find(g, g->kids[x->first + j]) != g->kids[x->first + j]) return "a child not canonical";
            if (hash_form(x->op, x->data, x->n, g->kids + x->first) != x->hash) return "a node filed under a stale form";
            if (lookup(g, x->hash, x->op, x->data, x->n, g->kids + x->first) != (int64_t)k->nodes[i])
                return "two nodes of one canonical form (congruence not closed), or a node not filed";
            live++;
        }
    }
    return live == g->live_nodes ? NULL : "the node count is off";
}
