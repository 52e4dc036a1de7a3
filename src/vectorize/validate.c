/* validate.c — translation validation: the extracted program against the spec it came
 * from, output by output (Diospyros's check, taken further).
 *
 * Each stored lane of the program is read back as a scalar term (lane l of a vector op is
 * the op on lane l of its operands; lane l of a VEC is its l-th scalar), built in a spec of
 * its own so that equal terms are one node. In strict mode that term, with the identities
 * the lifting rules use (x + -0, x - 0, x * 1, x / 1, fma(x, 1, -0) = x; fma(a, b, -0) =
 * a * b; fma(q, 1, p) = p + q; p + -q = p - q; p - -q = p + q; x * -1 = -x: exact in IEEE
 * arithmetic, up to NaN payloads) taken out of both, must be the very node the spec has
 * for that output: the same operations in the same order, bit for bit.
 * With --reassociate or --contract the terms may differ from the spec's; they are then
 * compared by evaluation and proven over the reals with Z3 (vz_prove, prove.c).
 */
#include "vectorize.h"

typedef struct {
    const vz_program *p;
    vz_spec *t;          /* the program's terms (its own nodes; leaves as the spec's) */
    int32_t **lane;      /* per class: per lane (vectors) or [0] (scalars); -2 not yet */
    bool strict;
    int32_t neg_zero, zero, one, minus_one;
} reader;

static bool is_const(const reader *r, int32_t x, int32_t c) { return x == c && r->t->node[x].op == VZ_CONST; }

/* op(k) with the exact identities taken out. */
static int32_t make(reader *r, uint32_t op, int64_t data, int n, int32_t *k) {
    for (int i = 0; i < n; i++)
        if (k[i] < 0) return -1; /* a DC lane where a value is needed */
    switch (op) {
    case VZ_ADD: case VZ_SUB:
        if (is_const(r, k[1], op == VZ_ADD ? r->neg_zero : r->zero)) return k[0];
        if (r->t->node[k[1]].op == VZ_NEG) { /* p + -q = p - q, p - -q = p + q */
            int32_t a[2] = {k[0], r->t->node[k[1]].kid[0]};
            return vz_add(r->t, op == VZ_ADD ? VZ_SUB : VZ_ADD, 0, 2, a);
        }
        break;
    case VZ_MUL:
        if (is_const(r, k[1], r->minus_one)) return vz_add(r->t, VZ_NEG, 0, 1, k);
        /* fall through */
    case VZ_DIV: if (is_const(r, k[1], r->one)) return k[0]; break;
    case VZ_FMA:
        if (is_const(r, k[1], r->one) && is_const(r, k[2], r->neg_zero)) return k[0];
        if (is_const(r, k[2], r->neg_zero)) return vz_add(r->t, VZ_MUL, 0, 2, k);
        if (is_const(r, k[1], r->one)) {
            int32_t a[2] = {k[2], k[0]};
            return vz_add(r->t, VZ_ADD, 0, 2, a);
        }
        break;
    default: break;
    }
    return vz_add(r->t, (int)op, data, n, k);
}

static int32_t term(reader *r, eg_id c, int l);

static int32_t scalar(reader *r, eg_id c) { return term(r, c, 0); }

static int32_t term(reader *r, eg_id c, int l) {
    const vz_program *p = r->p;
    c = eg_find(p->g, c);
    bool vec = vz_is_vector(p, c);
    if (!r->lane[c]) {
        int n = vec ? p->width : 1;
        r->lane[c] = tine_xmalloc(sizeof(int32_t) * (size_t)n);
        for (int i = 0; i < n; i++) r->lane[c][i] = -2;
    }
    int slot = vec ? l : 0;
    if (r->lane[c][slot] != -2) return r->lane[c][slot];
    eg_node n = vz_chosen(p, c);
    int32_t k[3], v;
    if (n.op == VZ_VEC) v = scalar(r, n.kids[l]);
    else if (n.op == VZ_DC) v = -1;
    else if (n.op == VZ_GET || n.op == VZ_CONST) v = vz_add(r->t, (int)n.op, n.data, 0, NULL);
    else {
        uint32_t op = VZ_IS_V(n.op) ? n.op - VZ_VBASE : n.op;
        for (uint32_t i = 0; i < n.n; i++) k[i] = VZ_IS_V(n.op) ? term(r, n.kids[i], l) : scalar(r, n.kids[i]);
        v = make(r, op, n.data, (int)n.n, k);
    }
    return r->lane[c][slot] = v;
}

/* The spec's node x as a node of t (same leaves, same ops). */
/* The spec's node x as a node of t, canonical as the program's terms are (the identities
 * are exact, so canonicalizing both sides keeps the check sound). */
static int32_t copy(reader *r, const vz_spec *s, int32_t x, int32_t *memo) {
    if (memo[x] >= 0) return memo[x];
    const vz_node *n = &s->node[x];
    int32_t k[3];
    for (int i = 0; i < n->n; i++) k[i] = copy(r, s, n->kid[i], memo);
    return memo[x] = n->n ? make(r, n->op, n->data, n->n, k) : vz_add(r->t, n->op, n->data, 0, NULL);
}

int vz_validate(tine_ctx_t *ctx, const vz_program *p, const vz_options *o) {
    const vz_spec *s = p->spec;
    vz_spec *t = tine_xcalloc(1, sizeof *t);
    t->elem = s->elem;
    reader r = {.p = p, .t = t, .strict = !o->reassociate && !o->contract};
    r.neg_zero = vz_const(t, -0.0), r.zero = vz_const(t, 0.0), r.one = vz_const(t, 1.0), r.minus_one = vz_const(t, -1.0);
    size_t nid = eg_id_limit(p->g);
    r.lane = tine_xcalloc(nid, sizeof *r.lane);
    int32_t *memo = tine_xmalloc(sizeof *memo * (size_t)(s->nnodes + 1));
    for (int i = 0; i < s->nnodes; i++) memo[i] = -1;
    int rc = 0;
    int32_t *got = tine_xmalloc(sizeof *got * 1), *want = NULL;
    int npairs = 0, cap = 0;
    for (int i = 0; i < p->nchunks && rc == 0; i++) {
        const vz_chunk *ch = &p->chunk[i];
        for (int l = 0; l < p->width && rc == 0; l++) {
            int arr = ch->array[l], e = ch->elem[l];
            if (arr < 0) continue;
            int32_t a = term(&r, ch->cls, l), b = copy(&r, s, s->out[arr][e], memo);
            if (a < 0) {
                tine_set_error(ctx, "tine vectorize: translation validation failed for %s[%d] of '%s': the program "
                                    "leaves it undefined (an internal error)", s->array[arr].name, e, s->func);
                rc = -1;
            } else if (r.strict && a != b) {
                tine_set_error(ctx, "tine vectorize: translation validation failed for %s[%d] of '%s': the program "
                                    "computes it with other operations than the C (an internal error)",
                               s->array[arr].name, e, s->func);
                rc = -1;
            } else if (!r.strict) {
                TINE_GROW(want, (size_t)npairs + 1, cap);
                got = tine_xrealloc_array(got, (size_t)cap, sizeof *got);
                got[npairs] = a, want[npairs++] = b;
            }
        }
    }
    if (rc == 0 && npairs) rc = vz_prove_reals(ctx, t, got, want, npairs);
    free(got);
    free(want);
    free(memo);
    for (size_t i = 0; i < nid; i++) free(r.lane[i]);
    free(r.lane);
    vz_spec_free(t);
    return rc;
}
