/* algsimp.c — the DFT DAG (dag.h) and its constructors, which simplify as they build:
 * genfft's algebraic simplifier (FFTW's generator, algsimp.ml; Frigo, PLDI 1999, §5),
 * written for this DAG.
 *
 * Building bottom-up through these constructors is what genfft's memoized simplifier
 * does to its expression tree, node by node from simplified operands. The rules:
 *   - constants: folded; 0 * x = 0, 1 * x = x, -1 * x = -x, c * (k * x) = (c k) * x; a
 *     negative constant is the negation of a positive one, so each constant is one node
 *     whatever its sign and the sign becomes a subtraction where it is used;
 *   - negation: --x = x; c * -x = -(c x); a sum whose terms are all negated is the
 *     negation of their sum; a sum's negated terms come last (emitted as subtractions);
 *   - a sum's terms over one node are collected (a x + b x = (a + b) x, so x - x = 0),
 *     then its terms with one constant factor (c x + c y = c (x + y): one product less);
 *   - a sum whose terms share a node one level down is regrouped around it (genfft's
 *     deep collection at depth 1: (a + b) + (a - b) = 2 a);
 *   - sharing by value (dag.h): a node equal to an existing node, or to its negation, is
 *     that node (or its negation), whatever its structure.
 */
#include "dag.h"

#include <math.h>

enum { NUMTAB = 4096 }; /* the constants' buckets */

struct dd_dag {
    tine_arena arena;
    dd_node **nodes; /* by id */
    int nnodes, cap;
    dd_node **bucket; /* the value table: chains by quantized first value */
    size_t nbuckets, nvalues;
    dd_node *numtab[NUMTAB]; /* the constants (>= 0), chained by quantized value */
    dd_node **leaves;
    int nleaves;
    long double *rnd; /* leaf i's value at point k: rnd[i * DD_K + k] */
    int depth;        /* nesting of sums being simplified */
};

/* A constant this close to 0 is 0: a DFT's constants are sines, cosines and their products
 * and quotients, far larger, while sums that cancel exactly leave long-double rounding. */
#define ZERO_TOL 1e-13L
/* Two constants within this relative distance are one (the rounding of two ways to
 * compute one value), as genfft compares its 50-digit numbers within their precision. */
#define NUM_TOL 1e-15L

static bool num_eq(long double a, long double b) { return fabsl(a - b) <= NUM_TOL * (fabsl(a) + fabsl(b)); }

/* Fingerprint values of equal nodes differ by rounding only (relative 1e-18); distinct
 * linear forms with coefficients of a DFT's size agree this closely at DD_K random points
 * with negligible probability. */
static bool value_eq(long double a, long double b) { return fabsl(a - b) <= 1e-10L * (fabsl(a) + fabsl(b)) + 1e-12L; }

/* Buckets 2^-20 wide: equal values (within value_eq) fall in one bucket or the next. */
static int64_t floor_key(long double v) { /* floorl, without libm's slow x87 path */
    int64_t k = (int64_t)v;
    return (long double)k > v ? k - 1 : k;
}
static int64_t qkey(long double v) { return floor_key(v * 1048576.0L); }
static size_t qhash(int64_t key, size_t nb) { return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 17) & (nb - 1); }

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

dd_dag *dd_new(int nleaves, uint64_t seed) {
    dd_dag *d = tine_xcalloc(1, sizeof *d);
    d->nleaves = nleaves;
    d->leaves = tine_xcalloc((size_t)nleaves, sizeof *d->leaves);
    d->rnd = tine_xmalloc((size_t)nleaves * DD_K * sizeof *d->rnd);
    for (int i = 0; i < nleaves * DD_K; i++)
        d->rnd[i] = (long double)(splitmix(&seed) >> 11) / 4503599627370496.0L - 1.0L; /* [-1, 1) */
    d->nbuckets = 1024;
    d->bucket = tine_xcalloc(d->nbuckets, sizeof *d->bucket);
    return d;
}

void dd_free(dd_dag *d) {
    if (!d) return;
    tine_arena_free(&d->arena);
    free(d->nodes);
    free(d->bucket);
    free(d->leaves);
    free(d->rnd);
    free(d);
}

int dd_count(const dd_dag *d) { return d->nnodes; }
dd_node *dd_at(const dd_dag *d, int id) { return d->nodes[id]; }
int dd_leaves(const dd_dag *d) { return d->nleaves; }
dd_node *dd_leaf_if_made(const dd_dag *d, int i) { return d->leaves[i]; }

static dd_node *new_node(dd_dag *d, int kind, int n) {
    dd_node *x = tine_arena_alloc(&d->arena, sizeof *x);
    x->kind = (uint8_t)kind;
    x->n = n;
    if (n) x->op = tine_arena_alloc(&d->arena, (size_t)n * sizeof *x->op);
    x->id = d->nnodes;
    TINE_PUSH(d->nodes, d->nnodes, d->cap, x);
    return x;
}

static dd_node *lookup(const dd_dag *d, const long double *fp, long double sign) {
    int64_t key = qkey(sign * fp[0]);
    for (int64_t k = key - 1; k <= key + 1; k++)
        for (dd_node *x = d->bucket[qhash(k, d->nbuckets)]; x; x = x->next) {
            int i = 0;
            while (i < DD_K && value_eq(x->fp[i], sign * fp[i])) i++;
            if (i == DD_K) return x;
        }
    return NULL;
}

static void insert(dd_dag *d, dd_node *x) {
    if (d->nvalues >= d->nbuckets) {
        size_t nb = d->nbuckets * 2;
        dd_node **b = tine_xcalloc(nb, sizeof *b);
        for (size_t i = 0; i < d->nbuckets; i++)
            for (dd_node *y = d->bucket[i], *next; y; y = next) {
                next = y->next;
                size_t h = qhash(qkey(y->fp[0]), nb);
                y->next = b[h];
                b[h] = y;
            }
        free(d->bucket);
        d->bucket = b;
        d->nbuckets = nb;
    }
    size_t h = qhash(qkey(x->fp[0]), d->nbuckets);
    x->next = d->bucket[h];
    d->bucket[h] = x;
    d->nvalues++;
}

dd_node *dd_load(dd_dag *d, int leaf) {
    TINE_ASSERT(leaf >= 0 && leaf < d->nleaves);
    if (d->leaves[leaf]) return d->leaves[leaf];
    dd_node *x = new_node(d, DD_LOAD, 0);
    x->leaf = leaf;
    for (int k = 0; k < DD_K; k++) x->fp[k] = d->rnd[leaf * DD_K + k];
    insert(d, x);
    return d->leaves[leaf] = x;
}

/* Constants' buckets are 2^-40 wide: equal ones (within NUM_TOL of values below 2^20)
 * fall in one bucket or the next. */
static int64_t num_key(long double c) { return floor_key(c * 1099511627776.0L); }

dd_node *dd_num(dd_dag *d, long double c) {
    if (fabsl(c) <= ZERO_TOL) c = 0;
    if (c < 0) return dd_neg(d, dd_num(d, -c));
    int64_t key = num_key(c);
    for (int64_t k = key - 1; k <= key + 1; k++)
        for (dd_node *x = d->numtab[qhash(k, NUMTAB)]; x; x = x->next)
            if (num_eq(x->c, c)) return x;
    dd_node *x = new_node(d, DD_NUM, 0);
    x->c = c;
    for (int k = 0; k < DD_K; k++) x->fp[k] = c;
    size_t h = qhash(key, NUMTAB);
    x->next = d->numtab[h];
    d->numtab[h] = x;
    return x;
}

static bool is_zero(const dd_node *x) { return x->kind == DD_NUM && x->c == 0; }

bool dd_const_value(const dd_node *x, long double *v) {
    if (x->kind == DD_NUM) return *v = x->c, true;
    if (x->kind == DD_NEG && x->op[0]->kind == DD_NUM) return *v = -x->op[0]->c, true;
    return false;
}

/* A node of kind PLUS, TIMES or NEG with these operands, or the node (or the negation of
 * the node) that already has its value. */
static dd_node *make(dd_dag *d, int kind, dd_node *k, dd_node *const *ops, int n) {
    long double fp[DD_K];
    for (int i = 0; i < DD_K; i++) {
        long double v = 0;
        if (kind == DD_PLUS)
            for (int j = 0; j < n; j++) v += ops[j]->fp[i];
        else if (kind == DD_TIMES)
            v = k->c * ops[0]->fp[i];
        else
            v = -ops[0]->fp[i];
        fp[i] = v;
    }
    int small = 0;
    while (small < DD_K && fabsl(fp[small]) <= 1e-12L) small++;
    if (small == DD_K) return dd_num(d, 0); /* cancels exactly, though no rule saw it */
    dd_node *hit = lookup(d, fp, 1);
    if (hit) return hit;
    if (kind != DD_NEG && (hit = lookup(d, fp, -1))) return dd_neg(d, hit);
    dd_node *x = new_node(d, kind, n);
    x->k = k;
    memcpy(x->op, ops, (size_t)n * sizeof *ops);
    memcpy(x->fp, fp, sizeof fp);
    insert(d, x);
    return x;
}

dd_node *dd_neg(dd_dag *d, dd_node *x) {
    if (x->kind == DD_NEG) return x->op[0];
    if (is_zero(x)) return x;
    if (x->kind == DD_NUM) { /* constants stay out of the value table */
        if (!x->negated) {
            dd_node *y = new_node(d, DD_NEG, 1);
            y->op[0] = x;
            for (int k = 0; k < DD_K; k++) y->fp[k] = -x->c;
            x->negated = y;
        }
        return x->negated;
    }
    return make(d, DD_NEG, NULL, &x, 1);
}

dd_node *dd_scale(dd_dag *d, long double c, dd_node *x) {
    if (x->kind == DD_NEG) return dd_neg(d, dd_scale(d, c, x->op[0]));
    if (fabsl(c) <= ZERO_TOL) return dd_num(d, 0);
    if (c < 0) return dd_neg(d, dd_scale(d, -c, x));
    if (x->kind == DD_NUM) return dd_num(d, c * x->c);
    if (x->kind == DD_TIMES) return dd_scale(d, c * x->k->c, x->op[0]);
    if (num_eq(c, 1)) return x;
    dd_node *k = dd_num(d, c);
    if (is_zero(k)) return k;
    return make(d, DD_TIMES, k, &x, 1);
}

dd_node *dd_mul(dd_dag *d, dd_node *a, dd_node *b) {
    long double v;
    if (dd_const_value(a, &v)) return dd_scale(d, v, b);
    TINE_ASSERT(dd_const_value(b, &v)); /* a DFT multiplies by constants only */
    return dd_scale(d, v, a);
}

/* ---- sums ------------------------------------------------------------------------- */

typedef struct {
    dd_node **v;
    int n, cap;
} vec;

static void push(vec *v, dd_node *x) { TINE_PUSH(v->v, v->n, v->cap, x); }

/* The constants of a sum folded into one term, last; zeros dropped. */
static vec reduce(dd_dag *d, const vec *in) {
    vec out = {0};
    long double c = 0;
    bool any = false;
    for (int i = 0; i < in->n; i++) {
        long double v;
        if (dd_const_value(in->v[i], &v))
            c += v, any = true;
        else
            push(&out, in->v[i]);
    }
    if (any && fabsl(c) > ZERO_TOL) push(&out, dd_num(d, c));
    return out;
}

/* A term as coef * base: k x, -(k x), -x, x. */
static dd_node *split_coef(dd_node *t, long double *coef) {
    long double s = 1;
    if (t->kind == DD_NEG) s = -1, t = t->op[0];
    if (t->kind == DD_TIMES) return *coef = s * t->k->c, t->op[0];
    return *coef = s, t;
}

/* a x + b x = (a + b) x: terms over one node become one term, where the first was. */
static vec collect_nodes(dd_dag *d, const vec *in) {
    vec out = {0};
    bool *used = tine_xcalloc((size_t)in->n + 1, sizeof *used);
    for (int i = 0; i < in->n; i++) {
        if (used[i]) continue;
        long double c, sum;
        dd_node *base = split_coef(in->v[i], &sum);
        int count = 1;
        for (int j = i + 1; j < in->n; j++)
            if (!used[j] && split_coef(in->v[j], &c) == base) used[j] = true, sum += c, count++;
        if (count == 1)
            push(&out, in->v[i]);
        else {
            dd_node *t = dd_scale(d, sum, base);
            if (!is_zero(t)) push(&out, t);
        }
    }
    free(used);
    return out;
}

/* The constant factor of k x or -(k x) (NULL for other terms); *rest the x, *neg the sign. */
static dd_node *const_factor(dd_node *t, dd_node **rest, bool *neg) {
    *neg = t->kind == DD_NEG;
    if (*neg) t = t->op[0];
    if (t->kind != DD_TIMES) return NULL;
    *rest = t->op[0];
    return t->k;
}

/* c x + c y = c (x + y), and c x - c y = c (x - y): one product for the terms sharing a
 * constant (the symmetry x_j +- x_{n-j} of a prime DFT comes from this). */
static vec collect_consts(dd_dag *d, const vec *in) {
    vec out = {0};
    bool *used = tine_xcalloc((size_t)in->n + 1, sizeof *used);
    for (int i = 0; i < in->n; i++) {
        if (used[i]) continue;
        dd_node *rest, *r;
        bool neg, ng;
        dd_node *k = const_factor(in->v[i], &rest, &neg);
        int count = 0;
        for (int j = i + 1; k && j < in->n; j++) count += !used[j] && const_factor(in->v[j], &r, &ng) == k;
        if (!count) {
            push(&out, in->v[i]);
            continue;
        }
        vec w = {0};
        push(&w, neg ? dd_neg(d, rest) : rest);
        for (int j = i + 1; j < in->n; j++)
            if (!used[j] && const_factor(in->v[j], &r, &ng) == k) used[j] = true, push(&w, ng ? dd_neg(d, r) : r);
        dd_node *t = dd_scale(d, k->c, dd_plus(d, w.v, w.n));
        free(w.v);
        if (!is_zero(t)) push(&out, t);
    }
    free(used);
    return out;
}

/* The nodes deep collection looks at: each term, and one level into the sums among
 * them, under their signs and constant factors. */
static void find_terms(dd_node *x, int depth, vec *f) {
    while (x->kind == DD_NEG || x->kind == DD_TIMES) {
        if (x->kind == DD_TIMES) depth--;
        x = x->op[0];
    }
    push(f, x);
    if (x->kind == DD_PLUS && depth > 0)
        for (int i = 0; i < x->n; i++) find_terms(x->op[i], depth - 1, f);
}

static bool member(const vec *s, const dd_node *x) {
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == x) return true;
    return false;
}

/* x as *without + *with, where *with holds the parts of x that are nodes in dup. */
static void split_dups(dd_dag *d, dd_node *x, int depth, const vec *dup, dd_node **without, dd_node **with) {
    if (member(dup, x)) {
        *without = dd_num(d, 0), *with = x;
        return;
    }
    if (x->kind == DD_TIMES) {
        dd_node *a, *b;
        split_dups(d, x->op[0], depth - 1, dup, &a, &b);
        *without = dd_scale(d, x->k->c, a), *with = dd_scale(d, x->k->c, b);
    } else if (x->kind == DD_NEG) {
        dd_node *a, *b;
        split_dups(d, x->op[0], depth, dup, &a, &b);
        *without = dd_neg(d, a), *with = dd_neg(d, b);
    } else if (x->kind == DD_PLUS && depth > 0) {
        vec a = {0}, b = {0};
        for (int i = 0; i < x->n; i++) {
            dd_node *p, *q;
            split_dups(d, x->op[i], depth - 1, dup, &p, &q);
            push(&a, p), push(&b, q);
        }
        *without = dd_plus(d, a.v, a.n), *with = dd_plus(d, b.v, b.n);
        free(a.v), free(b.v);
    } else
        *without = x, *with = dd_num(d, 0);
}

/* x's terms as a sum's (a sum is its terms, -s the negations of s's). */
static void flatten(dd_dag *d, dd_node *x, bool neg, vec *out) {
    if (x->kind == DD_NEG) {
        flatten(d, x->op[0], !neg, out);
        return;
    }
    if (x->kind == DD_PLUS)
        for (int i = 0; i < x->n; i++) push(out, neg ? dd_neg(d, x->op[i]) : x->op[i]);
    else
        push(out, neg ? dd_neg(d, x) : x);
}

static vec mangle(dd_dag *d, const vec *in);

/* Terms that share a node one level down (a butterfly's (a + b) + (a - b)) are split into
 * their parts without the shared nodes and with them, and the two sums collected again. */
static vec deep_collect(dd_dag *d, const vec *in) {
    vec f = {0}, dup = {0}, out = {0};
    for (int i = 0; i < in->n; i++) find_terms(in->v[i], 1, &f);
    for (int i = 0; i < f.n; i++)
        for (int j = i + 1; j < f.n; j++)
            if (f.v[i] == f.v[j] && !member(&dup, f.v[i])) {
                push(&dup, f.v[i]);
                break;
            }
    free(f.v);
    /* deep collection calls the simplifier again on what it regroups; the nesting is
     * shallow on a DFT, and past this depth the sum is simply left as it is */
    if (!dup.n || d->depth > 48) {
        free(dup.v);
        for (int i = 0; i < in->n; i++) push(&out, in->v[i]);
        return out;
    }
    vec without = {0}, with = {0}, flat = {0};
    for (int i = 0; i < in->n; i++) {
        dd_node *p, *q;
        split_dups(d, in->v[i], 1, &dup, &p, &q);
        push(&without, p), push(&with, q);
    }
    dd_node *two[2];
    two[0] = dd_plus(d, without.v, without.n);
    for (int i = 0; i < with.n; i++) flatten(d, with.v[i], false, &flat);
    two[1] = dd_plus(d, flat.v, flat.n);
    free(dup.v), free(without.v), free(with.v), free(flat.v);
    vec pair = {two, 2, 2};
    d->depth++; /* mangle may come back here: the nesting counts */
    out = mangle(d, &pair);
    d->depth--;
    return out;
}

static vec mangle(dd_dag *d, const vec *in) {
    vec a = reduce(d, in);
    vec b = collect_nodes(d, &a);
    vec c = collect_consts(d, &b);
    vec e = reduce(d, &c);
    vec f = deep_collect(d, &e);
    vec out = reduce(d, &f);
    free(a.v), free(b.v), free(c.v), free(e.v), free(f.v);
    return out;
}

/* The sum of simplified terms, its negated terms last. */
static dd_node *canonical(dd_dag *d, const vec *t) {
    if (t->n == 0) return dd_num(d, 0);
    if (t->n == 1) return t->v[0];
    dd_node **ops = tine_xmalloc((size_t)t->n * sizeof *ops);
    int n = 0;
    for (int i = 0; i < t->n; i++)
        if (t->v[i]->kind != DD_NEG) ops[n++] = t->v[i];
    for (int i = 0; i < t->n; i++)
        if (t->v[i]->kind == DD_NEG) ops[n++] = t->v[i];
    dd_node *x = make(d, DD_PLUS, NULL, ops, n);
    free(ops);
    return x;
}

dd_node *dd_plus(dd_dag *d, dd_node *const *terms, int n) {
    d->depth++;
    vec in = {(dd_node **)terms, n, n};
    vec m = mangle(d, &in);
    int neg = 0;
    for (int i = 0; i < m.n; i++) neg += m.v[i]->kind == DD_NEG;
    dd_node *r;
    if (neg && neg == m.n) { /* -a - b = -(a + b): one negation, absorbed where it is used */
        for (int i = 0; i < m.n; i++) m.v[i] = m.v[i]->op[0];
        r = dd_neg(d, dd_plus(d, m.v, m.n));
    } else
        r = canonical(d, &m);
    free(m.v);
    d->depth--;
    return r;
}

dd_node *dd_add(dd_dag *d, dd_node *a, dd_node *b) {
    dd_node *t[2] = {a, b};
    return dd_plus(d, t, 2);
}

dd_node *dd_sub(dd_dag *d, dd_node *a, dd_node *b) {
    dd_node *t[2] = {a, dd_neg(d, b)};
    return dd_plus(d, t, 2);
}
