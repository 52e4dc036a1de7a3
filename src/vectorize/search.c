/* search.c — the vectorizing search: the spec's outputs in chunks of the target's width,
 * Diospyros's rewrite rules run to saturation on the e-graph, the cheapest program by a
 * cost model that prices data movement per target, extracted DAG-aware.
 *
 * The rules:
 *  - lane-wise lifting: a VEC whose lanes are mostly one op (op, datum) becomes the vector
 *    op on VECs of the lanes' operands. A lane no output needs (DC) lifts to DC operands;
 *    a lane of another op joins through an identity exact in IEEE arithmetic, so strict
 *    mode stays bit-exact: x = x + -0 (not + 0: -0 + 0 is +0), x = x - 0, x = x * 1,
 *    x = x / 1, x = fma(x, 1, -0), p - q = p + -q, p + q = p - -q, -y = y * -1 (and
 *    under --contract p + q = fma(q, 1, p), a * b = fma(a, b, -0)). Ops with no
 *    identity (neg, sqrt, comparisons, select) lift only when every lane has them. An op
 *    lifts only where it covers at least half of the computed lanes (leaves join any op),
 *    which keeps the graph from doubling at every level of mixed lanes.
 *  - with contraction (--contract): a + b * c = fma(b, c, a), either order of the add.
 *  - with --reassociate: each output's sum in one canonical order (sort_sums: AC rules
 *    bounded to one rewrite per output, where Diospyros's free ones explode) and
 *    commutativity of *, so that lanes line up; equal over the reals.
 * A VEC of leaves (input elements, constants, DC) is not rewritten: the cost model prices
 * how the target builds it (loads, broadcasts, permutes), and the emitter builds it so.
 */
#include "vectorize.h"

#include <math.h>

static const vz_target targets[] = {
    {"x86-64-sse41", 128, false, false}, {"x86-64-avx2", 256, false, false}, {"x86-64-avx512", 512, false, true},
    {"arm-64", 128, true, true},
};

const vz_target *vz_target_find(const char *name) {
    for (size_t i = 0; name && i < sizeof targets / sizeof *targets; i++)
        if (!strcmp(targets[i].name, name)) return &targets[i];
    return NULL;
}

const char *vz_target_names(void) { return "x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64"; }

typedef struct {
    const vz_spec *s;
    const vz_target *t;
    int width;
    int64_t neg_zero, zero, one;
    eg_id c_neg_zero, c_zero, c_one, c_minus_one, dc;
    const eg_graph *g;
    bool wrong_identity, contract;
    bool align; /* --reassociate: the layout being built aligns its chunks' sums */
} search;

/* ---- classes ---------------------------------------------------------------------------- */

static eg_node first(const eg_graph *g, eg_id c) { return eg_class_node(g, eg_find(g, c), 0); }

/* A class that is one leaf (an input element, a constant, DC): leaves never merge with
 * computations (no rule puts x + -0 in x's class), so the class is that node alone. */
bool vz_leaf(const eg_graph *g, eg_id c, eg_node *n) {
    c = eg_find(g, c);
    if (eg_class_size(g, c) != 1) return false;
    *n = eg_class_node(g, c, 0);
    return n->op == VZ_GET || n->op == VZ_CONST || n->op == VZ_DC;
}

bool vz_is_vector(const vz_program *p, eg_id c) {
    eg_node n = first(p->g, c);
    return n.op == VZ_VEC || n.op == VZ_LIST || VZ_IS_V(n.op);
}

/* A node of class c with (op, data), or NULL. */
static bool node_with(const eg_graph *g, eg_id c, uint32_t op, int64_t data, eg_node *out) {
    c = eg_find(g, c);
    for (size_t i = 0, n = eg_class_size(g, c); i < n; i++) {
        eg_node x = eg_class_node(g, c, i);
        if (x.op == op && (op != VZ_CMP || x.data == data)) {
            *out = x;
            return true;
        }
    }
    return false;
}

/* ---- lane-wise lifting -------------------------------------------------------------------- */

/* The operands that make lane x (a class with no node of op) equal op(...), exactly; false
 * when op has no identity. */
static bool identity(search *S, eg_graph *g, uint32_t op, eg_id x, eg_id *k) {
    eg_node n;
    switch (op) {
    case VZ_ADD: case VZ_SUB:
        if (node_with(g, x, op == VZ_ADD ? VZ_SUB : VZ_ADD, 0, &n)) { /* p - q = p + -q, p + q = p - -q */
            k[0] = n.kids[0], k[1] = eg_add(g, VZ_NEG, 0, 1, &n.kids[1]);
            return true;
        }
        k[0] = x, k[1] = op == VZ_ADD && !S->wrong_identity ? S->c_neg_zero : S->c_zero;
        return true;
    case VZ_MUL:
        if (node_with(g, x, VZ_NEG, 0, &n)) { /* -y = y * -1 */
            k[0] = n.kids[0], k[1] = S->c_minus_one;
            return true;
        }
        k[0] = x, k[1] = S->c_one;
        return true;
    case VZ_DIV: k[0] = x, k[1] = S->c_one; return true;
    case VZ_FMA:
        /* p + q and a * b as fmas only under --contract (validated over the reals): in IEEE
           arithmetic they are exact too, but too costly for Z3 to prove bit for bit */
        if (S->contract && node_with(g, x, VZ_ADD, 0, &n)) {
            k[0] = n.kids[1], k[1] = S->c_one, k[2] = n.kids[0];
            return true;
        }
        if (S->contract && node_with(g, x, VZ_MUL, 0, &n)) {
            k[0] = n.kids[0], k[1] = n.kids[1], k[2] = S->c_neg_zero;
            return true;
        }
        k[0] = x, k[1] = S->c_one, k[2] = S->c_neg_zero;
        return true;
    default: return false;
    }
}

typedef struct {
    uint32_t op;
    int64_t data;
    int count;
} op_count;

static eg_id lift_apply(eg_graph *g, eg_id root, const eg_id *lane, void *user) {
    search *S = user;
    int W = S->width, need = 0, computed = 0;
    /* the ops present, each counted once per lane */
    op_count ops[32];
    int nops = 0;
    for (int l = 0; l < W; l++) {
        eg_node n;
        if (vz_leaf(g, lane[l], &n) && n.op == VZ_DC) continue;
        need++;
        computed += !vz_leaf(g, lane[l], &n);
        eg_id c = eg_find(g, lane[l]);
        bool counted[32] = {false};
        for (size_t i = 0, m = eg_class_size(g, c); i < m; i++) {
            eg_node x = eg_class_node(g, c, i);
            if (x.op == VZ_GET || x.op == VZ_CONST || x.op >= VZ_NSCALAR) continue;
            int j = 0;
            while (j < nops && !(ops[j].op == x.op && ops[j].data == x.data)) j++;
            if (j == nops) {
                if (nops == 32) continue;
                ops[nops++] = (op_count){x.op, x.data, 0};
            }
            if (!counted[j]) ops[j].count++, counted[j] = true;
        }
    }
    for (int j = 0; j < nops; j++) {
        uint32_t op = ops[j].op;
        int ar = vz_op_arity((int)op);
        /* an op lifts where it is at least half of the computed lanes (leaves join any op
           through its identity) and more than one lane, unless it is all there is */
        if (ops[j].count < 2 && ops[j].count < need) continue;
        if (2 * ops[j].count < computed) continue;
        eg_id k[3][16];
        bool ok = true;
        for (int l = 0; l < W && ok; l++) {
            eg_node n, x;
            eg_id kk[3];
            if (vz_leaf(g, lane[l], &n) && n.op == VZ_DC) {
                for (int a = 0; a < ar; a++) k[a][l] = S->dc;
                continue;
            }
            if (node_with(g, lane[l], op, ops[j].data, &x)) {
                for (int a = 0; a < ar; a++) k[a][l] = x.kids[a];
                continue;
            }
            ok = identity(S, g, op, lane[l], kk);
            for (int a = 0; a < ar && ok; a++) k[a][l] = kk[a];
        }
        if (!ok) continue;
        eg_id v[3];
        for (int a = 0; a < ar; a++) v[a] = eg_add(g, VZ_VEC, 0, (uint32_t)W, k[a]);
        eg_union(g, root, eg_add(g, VZ_V(op), ops[j].data, (uint32_t)ar, v));
    }
    return root;
}

/* ---- the cost model ----------------------------------------------------------------------- */

static double op_cost(uint32_t op) {
    switch (op) {
    case VZ_DIV: return 4;
    case VZ_SQRT: return 6;
    default: return 1;
    }
}

void vz_plan_leaves(const eg_graph *g, const vz_spec *s, int W, const eg_id *kids, vz_leaf_plan *plan) {
    eg_node n[16];
    bool done[16];
    plan->nsrc = 0;
    for (int l = 0; l < W; l++) {
        plan->lane_src[l] = -1;
        plan->lane_at[l] = 0;
        bool is_leaf = vz_leaf(g, kids[l], &n[l]);
        done[l] = !is_leaf || n[l].op == VZ_DC;
        if (is_leaf && n[l].op == VZ_CONST) {
            if (plan->nsrc == 0) plan->src[plan->nsrc++] = (vz_source){VZ_SRC_CONST, 0, 0};
            plan->lane_src[l] = 0;
            plan->lane_at[l] = (int8_t)l;
            done[l] = true;
        }
    }
    for (int l0 = 0; l0 < W; l0++) {
        if (done[l0]) continue;
        int a = (int)(n[l0].data >> 32), lo = INT32_MAX;
        bool same = true;
        for (int l = l0; l < W; l++)
            if (!done[l] && (int)(n[l].data >> 32) == a) {
                same = same && n[l].data == n[l0].data;
                int idx = (int)(uint32_t)n[l].data;
                lo = idx < lo ? idx : lo;
            }
        int count = s->array[a].count, start = lo;
        if (same) plan->src[plan->nsrc] = (vz_source){VZ_SRC_BROADCAST, a, lo};
        else {
            /* a window from the lowest element not placed, kept inside the array */
            if (count < W) start = 0;
            else if (lo + W > count) start = count - W;
            plan->src[plan->nsrc] = (vz_source){VZ_SRC_WINDOW, a, start};
        }
        for (int l = l0; l < W; l++) {
            int idx = (int)(uint32_t)n[l].data;
            if (done[l] || (int)(n[l].data >> 32) != a || idx < start || idx >= start + (same ? 1 : W)) continue;
            plan->lane_src[l] = (int8_t)plan->nsrc;
            plan->lane_at[l] = (int8_t)(same ? 0 : idx - start);
            done[l] = true;
        }
        plan->nsrc++;
        l0--; /* lanes of this array the window missed: another window */
    }
}

/* What the plan of a vector of leaves costs: a load, broadcast or constant per source; one
 * source used out of lane order a permute; each further source a merge (a two-register
 * permute: one instruction where the target has one, a permute and a blend where not). */
static double leaves_cost(const search *S, const eg_graph *g, const eg_id *kids, int W) {
    vz_leaf_plan plan;
    vz_plan_leaves(g, S->s, W, kids, &plan);
    if (plan.nsrc == 0) return 0;
    bool in_order = true;
    for (int l = 0; l < W; l++)
        in_order = in_order && (plan.lane_src[l] < 0 || plan.src[plan.lane_src[l]].kind != VZ_SRC_WINDOW ||
                                plan.lane_at[l] == l);
    if (plan.nsrc == 1) return in_order ? 1 : 2;
    return plan.nsrc + (plan.nsrc - 1) * (S->t->two_source ? 1 : 2);
}

static double cost(const eg_node *n, void *user) {
    search *S = user;
    const eg_graph *g = S->g;
    switch (n->op) {
    case VZ_GET: case VZ_CONST: return 0; /* priced where used: a scalar op's load, a vector's plan */
    case VZ_DC: case VZ_LIST: return 0;
    case VZ_VEC: {
        bool leaves = true, uniform = true;
        int computed = 0;
        for (uint32_t l = 0; l < n->n; l++) {
            eg_node x;
            if (!vz_leaf(g, n->kids[l], &x)) leaves = false, computed++;
            uniform = uniform && eg_find(g, n->kids[l]) == eg_find(g, n->kids[0]);
        }
        if (leaves) return leaves_cost(S, g, n->kids, (int)n->n);
        if (uniform) return 1; /* a broadcast of one scalar */
        return computed + 1;   /* a lane at a time */
    }
    default: {
        if (VZ_IS_V(n->op)) return op_cost(n->op - VZ_VBASE) + 0.01;
        double c = op_cost(n->op); /* a scalar op: its leaf operands loaded or materialized */
        for (uint32_t i = 0; i < n->n; i++) {
            eg_node x;
            if (vz_leaf(g, n->kids[i], &x)) c += 0.5;
        }
        return c;
    }
    }
}

/* ---- the rules ---------------------------------------------------------------------------- */

enum { MAX_RULES = 8 };

typedef struct {
    eg_pat_node nodes[MAX_RULES][2][20];
    eg_rule rules[MAX_RULES];
    int n;
} rule_set;

static eg_pat_node pvar(int v) { return (eg_pat_node){.var = v}; }
static eg_pat_node pop2(uint32_t op, int a, int b) { return (eg_pat_node){.var = -1, .op = op, .n = 2, .kids = {a, b}}; }
static eg_pat_node pop3(uint32_t op, int a, int b, int c) {
    return (eg_pat_node){.var = -1, .op = op, .n = 3, .kids = {a, b, c}};
}

/* A rule lhs => rhs from node lists (the last node of each the root). */
static void add_rule(rule_set *R, const char *name, const eg_pat_node *l, int nl, int lv, const eg_pat_node *r, int nr) {
    int i = R->n++;
    memcpy(R->nodes[i][0], l, sizeof *l * (size_t)nl);
    memcpy(R->nodes[i][1], r, sizeof *r * (size_t)nr);
    R->rules[i] = (eg_rule){.name = name, .lhs = {R->nodes[i][0], nl - 1, lv}, .rhs = {R->nodes[i][1], nr - 1, lv}};
}

static void rules_of(rule_set *R, search *S, const vz_options *o) {
    int W = S->width;
    /* lifting: a VEC of W lanes, any lanes */
    int i = R->n++;
    for (int l = 0; l < W; l++) R->nodes[i][0][l] = pvar(l);
    R->nodes[i][0][W] = (eg_pat_node){.var = -1, .op = VZ_VEC, .n = (uint32_t)W};
    for (int l = 0; l < W; l++) R->nodes[i][0][W].kids[l] = l;
    R->rules[i] = (eg_rule){.name = "lift", .lhs = {R->nodes[i][0], W, W}, .apply = lift_apply, .user = S};
    if (o->contract) {
        eg_pat_node l1[] = {pvar(0), pvar(1), pvar(2), pop2(VZ_MUL, 1, 2), pop2(VZ_ADD, 0, 3)};
        eg_pat_node r1[] = {pvar(0), pvar(1), pvar(2), pop3(VZ_FMA, 1, 2, 0)};
        add_rule(R, "contract", l1, 5, 3, r1, 4);
        eg_pat_node l2[] = {pvar(0), pvar(1), pvar(2), pop2(VZ_MUL, 1, 2), pop2(VZ_ADD, 3, 0)};
        add_rule(R, "contract-left", l2, 5, 3, r1, 4);
    }
    if (o->reassociate) { /* multiplication commutes (a product's operands in either order) */
        eg_pat_node ma[] = {pvar(0), pvar(1), pop2(VZ_MUL, 0, 1)}, mb[] = {pvar(0), pvar(1), pop2(VZ_MUL, 1, 0)};
        add_rule(R, "comm-mul", ma, 3, 2, mb, 3);
    }
}

/* ---- bounded reassociation: each output's sum in one canonical order ----------------------- */

/* Sums are where reassociation pays (a convolution's terms in the order of the filter, so
 * that lanes line up) and where free AC rules explode (every order of n terms). So the
 * AC rule here is one rewrite per output: its sum flattened (through + and -, zero terms
 * dropped: equal over the reals) and rebuilt left to right in the order of a key that is
 * the same for corresponding terms of neighbouring outputs: the term's leaves, those of
 * the smallest array first (a filter, a matrix row), by index. */
typedef struct {
    eg_id cls;
    bool neg;
    int64_t key[4];
} sum_term;

static void term_key(const search *S, const eg_graph *g, eg_id c, int64_t *key) {
    /* up to two leaves under a product; keyed by (array size, array, index) */
    int64_t k[2][3] = {{INT64_MAX, 0, 0}, {INT64_MAX, 0, 0}};
    eg_id kids[2] = {c, c};
    int nk = 1;
    eg_node n = first(g, c);
    if (n.op == VZ_MUL) kids[0] = n.kids[0], kids[1] = n.kids[1], nk = 2;
    for (int i = 0; i < nk; i++) {
        eg_node x;
        if (vz_leaf(g, kids[i], &x) && x.op == VZ_GET) {
            int a = (int)(x.data >> 32);
            k[i][0] = S->s->array[a].count, k[i][1] = a, k[i][2] = (uint32_t)x.data;
        } else k[i][1] = eg_find(g, kids[i]);
    }
    int lo = nk == 2 && (k[1][0] < k[0][0] || (k[1][0] == k[0][0] && k[1][1] < k[0][1]));
    key[0] = k[lo][1], key[1] = k[lo][2], key[2] = k[!lo][1], key[3] = k[!lo][2];
}

static int cmp_term(const void *a, const void *b) {
    const sum_term *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

static void flatten(const search *S, const eg_graph *g, eg_id c, bool neg, sum_term **t, int *n, int *cap, int depth) {
    eg_node x = first(g, c);
    if ((x.op == VZ_ADD || x.op == VZ_SUB) && depth < 4096) {
        flatten(S, g, x.kids[0], neg, t, n, cap, depth + 1);
        flatten(S, g, x.kids[1], x.op == VZ_SUB ? !neg : neg, t, n, cap, depth + 1);
        return;
    }
    eg_node l;
    if (vz_leaf(g, c, &l) && l.op == VZ_CONST && (l.data == 0 || l.data == S->neg_zero)) return;
    TINE_GROW(*t, (size_t)*n + 1, *cap);
    (*t)[*n] = (sum_term){.cls = c, .neg = neg};
    term_key(S, g, c, (*t)[*n].key);
    (*n)++;
}

/* The lanes of one chunk, each output's sum rebuilt in the canonical order and aligned:
 * term slots are the leaves of the smallest array (a filter element, a matrix entry), in
 * key order over the whole chunk; a lane with no term at a slot gets that leaf times 0
 * (equal over the reals), so every lane multiplies the same element at the same step (a
 * broadcast) by an element of its own (a window of the input). A lane whose terms share a
 * slot, or that is no sum, keeps its own order. */
static void align_chunk(search *S, eg_graph *g, eg_id *lanes, int W) {
    sum_term *t[16] = {NULL};
    int n[16] = {0}, cap[16] = {0};
    for (int l = 0; l < W; l++) {
        eg_node top = first(g, lanes[l]), d;
        if (vz_leaf(g, lanes[l], &d) && d.op == VZ_DC) continue;
        if (top.op == VZ_ADD || top.op == VZ_SUB) flatten(S, g, lanes[l], false, &t[l], &n[l], &cap[l], 0);
        if (n[l]) qsort(t[l], (size_t)n[l], sizeof *t[l], cmp_term);
    }
    /* the slots: the distinct (array, element) of the terms' first leaves, in order */
    int64_t slot[2][256];
    int ns = 0;
    bool aligned = true;
    for (int l = 0; l < W && aligned; l++)
        for (int k = 0; k < n[l] && aligned; k++) {
            if (k && t[l][k].key[0] == t[l][k - 1].key[0] && t[l][k].key[1] == t[l][k - 1].key[1]) aligned = false;
            eg_node m = first(g, t[l][k].cls);
            if (m.op != VZ_MUL || t[l][k].neg) aligned = false;
            int j = 0;
            while (j < ns && !(slot[0][j] == t[l][k].key[0] && slot[1][j] == t[l][k].key[1])) j++;
            if (j == ns && ns < 256) slot[0][ns] = t[l][k].key[0], slot[1][ns++] = t[l][k].key[1];
            else if (j == ns) aligned = false;
        }
    /* aligning pays where lanes share their slots (a filter's elements), not where each lane
       has slots of its own (a matrix row per lane): no more than half again the longest
       lane's terms */
    int longest = 0;
    for (int l = 0; l < W; l++) longest = n[l] > longest ? n[l] : longest;
    if (2 * ns > 3 * longest) aligned = false;
    /* slots in key order */
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && (slot[0][j - 1] > slot[0][j] || (slot[0][j - 1] == slot[0][j] && slot[1][j - 1] > slot[1][j])); j--) {
            int64_t a0 = slot[0][j], a1 = slot[1][j];
            slot[0][j] = slot[0][j - 1], slot[1][j] = slot[1][j - 1];
            slot[0][j - 1] = a0, slot[1][j - 1] = a1;
        }
    for (int l = 0; l < W; l++) {
        if (!n[l]) continue;
        eg_id acc = 0;
        if (aligned) {
            for (int j = 0, k = 0; j < ns; j++) {
                eg_id term;
                if (k < n[l] && t[l][k].key[0] == slot[0][j] && t[l][k].key[1] == slot[1][j]) term = t[l][k++].cls;
                else { /* the slot's leaf times 0, its operands in the order the other lanes have */
                    eg_id leafc = eg_add(g, VZ_GET, slot[0][j] << 32 | (uint32_t)slot[1][j], 0, NULL);
                    if (slot[0][j] < 0 || slot[0][j] >= S->s->narrays) leafc = S->c_zero;
                    bool second = false;
                    for (int m = 0; m < W && !second; m++)
                        for (int q = 0; q < n[m]; q++)
                            if (t[m][q].key[0] == slot[0][j] && t[m][q].key[1] == slot[1][j]) {
                                second = eg_find(g, first(g, t[m][q].cls).kids[1]) == eg_find(g, leafc);
                                break;
                            }
                    eg_id kids[2] = {second ? S->c_zero : leafc, second ? leafc : S->c_zero};
                    term = eg_add(g, VZ_MUL, 0, 2, kids);
                }
                eg_id kids[2] = {acc, term};
                acc = j == 0 ? term : eg_add(g, VZ_ADD, 0, 2, kids);
            }
        } else {
            acc = t[l][0].neg ? eg_add(g, VZ_NEG, 0, 1, &t[l][0].cls) : t[l][0].cls;
            for (int k = 1; k < n[l]; k++) {
                eg_id kids[2] = {acc, t[l][k].cls};
                acc = eg_add(g, t[l][k].neg ? VZ_SUB : VZ_ADD, 0, 2, kids);
            }
        }
        lanes[l] = acc;
    }
    for (int l = 0; l < W; l++) free(t[l]);
}

/* ---- the search --------------------------------------------------------------------------- */

typedef struct {
    vz_chunk *chunk;
    int n, cap, kind; /* kind: 0 flat, 1 rows, 2 split */
} vz_layout;

static void add_chunk(search *S, eg_graph *g, vz_layout *L, vz_chunk *cur, eg_id *lanes, int fill) {
    for (int l = fill; l < S->width; l++) cur->array[l] = -1, lanes[l] = S->dc;
    if (S->align) align_chunk(S, g, lanes, S->width);
    cur->cls = eg_add(g, VZ_VEC, 0, (uint32_t)S->width, lanes);
    TINE_GROW(L->chunk, (size_t)L->n + 1, L->cap);
    L->chunk[L->n++] = *cur;
}

/* The outputs in chunks of the width. Flat: end to end (Diospyros's list; an element the
 * kernel does not write is a DC lane). Split: each output array from a chunk of its own
 * (arrays of unlike computations apart: a quaternion and a translation). Rows: a 2-D output whose rows are longer than the
 * width and no multiple of it in chunks within its rows, the last of a row overlapping
 * the one before (stored twice, the same values), so that a chunk's lanes read along one
 * row of the input instead of across two. */
static vz_layout layout(search *S, eg_graph *g, const vz_spec *s, const eg_id *cls, bool rows, bool split) {
    vz_layout L = {.kind = split ? 2 : rows};
    int W = S->width, fill = 0;
    eg_id lanes[16];
    vz_chunk cur;
    for (int a = 0; a < s->narrays; a++) {
        const vz_array *A = &s->array[a];
        if (!A->output) continue;
        if (split && fill) add_chunk(S, g, &L, &cur, lanes, fill), fill = 0; /* each array its own chunks */
        int row = rows && A->row > W && A->row % W ? A->row : 0;
        for (int e = 0; e < A->count;) {
            if (row && e % row == 0) { /* a row of its own: whole chunks, the last overlapping */
                if (fill) add_chunk(S, g, &L, &cur, lanes, fill), fill = 0;
                int len = e + row <= A->count ? row : A->count - e;
                for (int c = 0; c < len; c += W) {
                    int start = c + W <= len ? c : len - W;
                    for (int l = 0; l < W; l++) {
                        int32_t v = start + l >= 0 && start + l < len ? s->out[a][e + start + l] : -1;
                        cur.array[l] = v >= 0 ? a : -1, cur.elem[l] = e + start + l;
                        lanes[l] = v >= 0 ? cls[v] : S->dc;
                    }
                    add_chunk(S, g, &L, &cur, lanes, W);
                }
                e += len;
                continue;
            }
            int32_t v = s->out[a][e];
            cur.array[fill] = v >= 0 ? a : -1, cur.elem[fill] = e;
            lanes[fill++] = v >= 0 ? cls[v] : S->dc;
            if (fill == W) add_chunk(S, g, &L, &cur, lanes, fill), fill = 0;
            e++;
        }
    }
    if (fill) add_chunk(S, g, &L, &cur, lanes, fill);
    return L;
}

vz_program *vz_search(tine_ctx_t *ctx, const vz_spec *s, const vz_target *t, const vz_options *o) {
    double t0 = tine_now();
    vz_program *p = tine_xcalloc(1, sizeof *p);
    search *S = tine_xcalloc(1, sizeof *S);
    p->spec = s;
    p->target = t;
    /* the register's lanes, or fewer for a kernel with few outputs (at least 128 bits): the
       wider registers only cost there (AVX-512's are split in two on some cores) */
    int outs = 0, w = 128 / s->elem.bits;
    for (int a = 0; a < s->narrays; a++) outs += s->array[a].output ? s->array[a].count : 0;
    while (w < outs && w < t->bits / s->elem.bits) w *= 2;
    p->width = w;
    *S = (search){.s = s, .t = t, .width = p->width};
    S->wrong_identity = o->wrong_identity;
    S->contract = o->contract;
    S->neg_zero = vz_bits(s->elem, -0.0), S->zero = 0, S->one = vz_bits(s->elem, 1.0);
    eg_graph *g = p->g = eg_new(NULL);
    S->g = g;
    S->c_neg_zero = eg_add(g, VZ_CONST, S->neg_zero, 0, NULL);
    S->c_zero = eg_add(g, VZ_CONST, 0, 0, NULL);
    S->c_one = eg_add(g, VZ_CONST, S->one, 0, NULL);
    S->c_minus_one = eg_add(g, VZ_CONST, vz_bits(s->elem, -1.0), 0, NULL);
    S->dc = eg_add(g, VZ_DC, 0, 0, NULL);
    /* the spec, node for node (children come first) */
    eg_id *cls = tine_xmalloc(sizeof *cls * (size_t)(s->nnodes + 1));
    for (int i = 0; i < s->nnodes; i++) {
        const vz_node *n = &s->node[i];
        eg_id k[3];
        for (int j = 0; j < n->n; j++) k[j] = cls[n->kid[j]];
        cls[i] = eg_add(g, n->op, n->data, n->n, k);
    }
    p->spec_nodes = (size_t)s->nnodes;
    /* the layouts of the outputs in chunks, each a LIST, all in the root's class: the
       extraction picks the cheapest */
    int W = p->width;
    vz_layout lay[6];
    int nlay = 0, outputs = 0;
    bool rows = false, ragged = false;
    for (int a = 0; a < s->narrays; a++) {
        rows |= s->array[a].output && s->array[a].row > W && s->array[a].row % W;
        if (s->array[a].output) outputs++, ragged |= s->array[a].count % W != 0;
    }
    /* with --reassociate each layout twice: the sums as the C has them, and aligned */
    for (int pass = 0; pass < (o->reassociate ? 2 : 1); pass++) {
        S->align = pass == 1;
        lay[nlay++] = layout(S, g, s, cls, false, false);
        if (rows && !o->no_vectorize) lay[nlay++] = layout(S, g, s, cls, true, false);
        if (outputs > 1 && ragged && !o->no_vectorize) lay[nlay++] = layout(S, g, s, cls, rows, true);
    }
    free(cls);
    p->root = 0;
    for (int i = 0; i < nlay; i++) {
        eg_id *kids = tine_xmalloc(sizeof *kids * (size_t)(lay[i].n + 1));
        for (int k = 0; k < lay[i].n; k++) kids[k] = lay[i].chunk[k].cls;
        eg_id list = eg_add(g, VZ_LIST, i, (uint32_t)lay[i].n, kids);
        free(kids);
        if (i) eg_union(g, p->root, list);
        else p->root = list;
    }
    if (!o->no_vectorize) {
        rule_set R = {0};
        rules_of(&R, S, o);
        eg_limits lim = o->limits;
        if (!lim.max_iters) lim.max_iters = 1000;
        if (!lim.max_nodes) lim.max_nodes = 2000000;
        if (lim.max_seconds <= 0) lim.max_seconds = 8;
        if (!lim.match_limit) lim.match_limit = 1u << 30; /* the lifting rule is not banned: it is the search */
        p->report = eg_run(g, R.rules, R.n, &lim);
    } else {
        eg_rebuild(g);
        p->report = (eg_report){.stop = EG_SATURATED, .nodes = eg_node_count(g), .classes = eg_class_count(g)};
    }
    size_t nid = eg_id_limit(g);
    double *c = tine_xmalloc(sizeof *c * nid);
    p->best = tine_xmalloc(sizeof *p->best * nid);
    eg_extract_tree(g, cost, S, c, p->best);
    p->tree_cost = c[eg_find(g, p->root)];
    free(c);
    if (!isfinite(p->tree_cost)) {
        for (int i = 0; i < nlay; i++) free(lay[i].chunk);
        tine_set_error(ctx, "tine vectorize: no program was extracted for '%s' (an internal error)", s->func);
        free(S);
        vz_program_free(p);
        return NULL;
    }
    p->dag_cost = eg_extract_dag(g, cost, S, p->root, p->best);
    int chosen = (int)vz_chosen(p, p->root).data;
    for (int i = 0; i < nlay; i++) {
        if (i == chosen) p->chunk = lay[i].chunk, p->nchunks = lay[i].n, p->layout = lay[i].kind;
        else free(lay[i].chunk);
    }
    p->seconds = tine_now() - t0;
    free(S);
    return p;
}

void vz_program_free(vz_program *p) {
    if (!p) return;
    eg_free(p->g);
    free(p->best);
    free(p->chunk);
    free(p);
}

eg_node vz_chosen(const vz_program *p, eg_id c) {
    c = eg_find(p->g, c);
    return eg_class_node(p->g, c, p->best[c]);
}

static const char *stop_name(eg_stop s) {
    switch (s) {
    case EG_SATURATED: return "saturated";
    case EG_ITER_LIMIT: return "iteration limit";
    case EG_NODE_LIMIT: return "node limit";
    default: return "time limit";
    }
}

static void count_ops(const vz_program *p, eg_id c, bool *seen, int *vec, int *scal, int *leafvec) {
    c = eg_find(p->g, c);
    if (seen[c]) return;
    seen[c] = true;
    eg_node n = vz_chosen(p, c);
    if (VZ_IS_V(n.op)) (*vec)++;
    else if (n.op == VZ_VEC) {
        eg_node x;
        bool leaves = true;
        for (uint32_t i = 0; i < n.n; i++) leaves = leaves && vz_leaf(p->g, n.kids[i], &x);
        if (leaves) (*leafvec)++;
        if (!leaves && getenv("VZ_TRACE")) {
            fprintf(stderr, "unlifted vec %u:", c);
            for (uint32_t i = 0; i < n.n; i++) { eg_node k = vz_chosen(p, n.kids[i]); fprintf(stderr, " %s", k.op < VZ_NSCALAR ? vz_op_name(k.op) : "dc"); }
            fprintf(stderr, "\n");
        }
    } else if (n.op != VZ_LIST && n.op != VZ_GET && n.op != VZ_CONST && n.op != VZ_DC) (*scal)++;
    for (uint32_t i = 0; i < n.n; i++) count_ops(p, n.kids[i], seen, vec, scal, leafvec);
}

void vz_stats(const vz_program *p, tine_buf *b) {
    bool *seen = tine_xcalloc(eg_id_limit(p->g), 1);
    int vec = 0, scal = 0, leafvec = 0;
    count_ops(p, p->root, seen, &vec, &scal, &leafvec);
    free(seen);
    tine_buf_printf(b, "function: %s\ntarget: %s (%d lanes of f%d)\n", p->spec->func, p->target->name, p->width,
                    p->spec->elem.bits);
    static const char *const layouts[] = {"flat", "rows", "split"};
    tine_buf_printf(b, "spec nodes: %zu\noutput chunks: %d (%s)\n", p->spec_nodes, p->nchunks, layouts[p->layout]);
    tine_buf_printf(b, "e-graph: %zu nodes, %zu classes after %d iterations (%s), %zu rewrites\n", p->report.nodes,
                    p->report.classes, p->report.iters, stop_name(p->report.stop), p->report.applied);
    tine_buf_printf(b, "cost: tree %.2f, dag %.2f\n", p->tree_cost, p->dag_cost);
    tine_buf_printf(b, "chosen: %d vector ops, %d vectors of leaves, %d scalar ops\n", vec, leafvec, scal);
    tine_buf_printf(b, "search seconds: %.3f\n", p->seconds);
}

int vz_store_runs(const vz_chunk *ch, int W, vz_run *runs) {
    int n = 0;
    for (int l = 0; l < W;) {
        if (ch->array[l] < 0) {
            l++;
            continue;
        }
        int len = 1;
        while (l + len < W && ch->array[l + len] == ch->array[l] && ch->elem[l + len] == ch->elem[l] + len) len++;
        runs[n++] = (vz_run){l, ch->array[l], ch->elem[l], len};
        l += len;
    }
    return n;
}
