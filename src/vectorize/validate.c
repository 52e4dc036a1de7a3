/* validate.c — translation validation: the extracted program against the spec it came
 * from, output by output (Diospyros's check, taken further).
 *
 * Each stored lane of the program is read back as a scalar term (lane l of a vector op is
 * the op on lane l of its operands; lane l of a VEC is its l-th scalar), built in a spec of
 * its own so that equal terms are one node. In strict mode that term, with the identities
 * the lifting rules use (x + -0, x - 0, x * 1, x / 1, fma(x, 1, -0) = x; fma(a, b, -0) =
 * a * b; fma(q, 1, p) = p + q; p + -q = p - q; p - -q = p + q; x * -1 = -x: exact in IEEE
 * arithmetic, up to NaN payloads; strict mode's, proven in Z3's FPA by vz_prove_identities)
 * taken out of both, must be the very node the spec has for that output: the same
 * operations in the same order, bit for bit. With prove_fpa (tine verify --vectorized),
 * every output, identities and all, is proven equal to the spec's in Z3's FPA as well.
 * With --reassociate or --contract the terms may differ from the spec's; they are then
 * compared by evaluation and proven over the reals with Z3 (vz_prove, prove.c).
 */
#include "vectorize.h"

#include <math.h>

typedef struct {
    const vz_program *p;
    vz_spec *t;          /* the program's terms (its own nodes; leaves as the spec's) */
    int32_t **lane;      /* per class: per lane (vectors) or [0] (scalars); -2 not yet */
    bool strict, raw;    /* raw: the terms as computed, identities kept (for Z3) */
    int32_t neg_zero, zero, one, minus_one;
} reader;

static bool is_const(const reader *r, int32_t x, int32_t c) { return x == c && r->t->node[x].op == VZ_CONST; }

/* op on constants, in the kernel's type (IEEE, round to nearest even, as the target). */
static double fold(tine_type_t t, uint32_t op, const double *x) {
    if (t.bits == 32) {
        float a = (float)x[0], b = (float)x[1], c = (float)x[2], r;
        switch (op) {
        case VZ_ADD: r = a + b; break;
        case VZ_SUB: r = a - b; break;
        case VZ_MUL: r = a * b; break;
        case VZ_DIV: r = a / b; break;
        case VZ_NEG: r = -a; break;
        case VZ_SQRT: r = sqrtf(a); break;
        default: r = fmaf(a, b, c); break;
        }
        return r;
    }
    switch (op) {
    case VZ_ADD: return x[0] + x[1];
    case VZ_SUB: return x[0] - x[1];
    case VZ_MUL: return x[0] * x[1];
    case VZ_DIV: return x[0] / x[1];
    case VZ_NEG: return -x[0];
    case VZ_SQRT: return sqrt(x[0]);
    default: return fma(x[0], x[1], x[2]);
    }
}

/* op(k) with the exact identities taken out (raw: only constants folded). */
static int32_t make(reader *r, uint32_t op, int64_t data, int n, int32_t *k) {
    for (int i = 0; i < n; i++)
        if (k[i] < 0) return -1; /* a DC lane where a value is needed */
    if (r->raw) { /* constants folded (the lanes the identities fill are constants) */
        bool consts = op != VZ_CMP && op != VZ_SEL;
        for (int i = 0; i < n && consts; i++) consts = r->t->node[k[i]].op == VZ_CONST;
        if (consts) {
            double x[3];
            for (int i = 0; i < n; i++) x[i] = vz_const_value(r->t, &r->t->node[k[i]]);
            return vz_const(r->t, fold(r->t->elem, op, x));
        }
    }
    switch (r->raw ? VZ_NSCALAR : op) {
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

/* Reads every stored lane back (reader r) beside the spec's node for it: *got, *want
 * (malloc'd), their count; -1 with an error for a lane left undefined. */
static int pairs(tine_ctx_t *ctx, reader *r, int32_t **got, int32_t **want) {
    const vz_program *p = r->p;
    const vz_spec *s = p->spec;
    int32_t *memo = tine_xmalloc(sizeof *memo * (size_t)(s->nnodes + 1));
    for (int i = 0; i < s->nnodes; i++) memo[i] = -1;
    int n = 0, cap = 0;
    *got = *want = NULL;
    for (int i = 0; i < p->nchunks; i++) {
        const vz_chunk *ch = &p->chunk[i];
        for (int l = 0; l < p->width; l++) {
            int arr = ch->array[l], e = ch->elem[l];
            if (arr < 0) continue;
            int32_t a = term(r, ch->cls, l), b = copy(r, s, s->out[arr][e], memo);
            if (a < 0) {
                tine_set_error(ctx, "tine vectorize: translation validation failed for %s[%d] of '%s': the program "
                                    "leaves it undefined (an internal error)", s->array[arr].name, e, s->func);
                free(memo);
                return -1;
            }
            TINE_GROW(*want, (size_t)n + 1, cap);
            *got = tine_xrealloc_array(*got, (size_t)cap, sizeof **got);
            (*got)[n] = a, (*want)[n++] = b;
        }
    }
    free(memo);
    return n;
}

static void reader_init(reader *r, const vz_program *p, bool strict, bool raw) {
    vz_spec *t = tine_xcalloc(1, sizeof *t);
    t->elem = p->spec->elem;
    *r = (reader){.p = p, .t = t, .strict = strict, .raw = raw};
    r->neg_zero = vz_const(t, -0.0), r->zero = vz_const(t, 0.0), r->one = vz_const(t, 1.0), r->minus_one = vz_const(t, -1.0);
    r->lane = tine_xcalloc(eg_id_limit(p->g), sizeof *r->lane);
}

static void reader_free(reader *r) {
    for (size_t i = 0, n = eg_id_limit(r->p->g); i < n; i++) free(r->lane[i]);
    free(r->lane);
    vz_spec_free(r->t);
}

int vz_validate(tine_ctx_t *ctx, const vz_program *p, const vz_options *o, vz_validation *out) {
    const vz_spec *s = p->spec;
    bool strict = !o->reassociate && !o->contract;
    vz_validation v = {.reals = !strict};
    reader r;
    reader_init(&r, p, strict, false);
    int32_t *got, *want;
    int n = pairs(ctx, &r, &got, &want), rc = n < 0 ? -1 : 0;
    v.outputs = n > 0 ? n : 0;
    bool *same = tine_xcalloc((size_t)(n > 0 ? n : 1), 1);
    for (int i = 0; i < n; i++) same[i] = got[i] == want[i];
    for (int i = 0; strict && !o->prove_fpa && i < n && rc == 0; i++) /* with prove_fpa, Z3 decides */
        if (!same[i]) {
            tine_set_error(ctx, "tine vectorize: translation validation failed for output %d of '%s': the program "
                                "computes it with other operations than the C (an internal error)", i, s->func);
            rc = -1;
        }
    if (rc == 0 && !strict && n > 0) rc = vz_prove_reals(ctx, r.t, got, want, n);
    free(got);
    free(want);
    reader_free(&r);
    if (rc == 0 && strict && o->prove_fpa) { /* each output itself, identities and all, in Z3's FPA */
        reader_init(&r, p, true, true);
        n = pairs(ctx, &r, &got, &want);
        rc = n < 0 ? -1
                   : vz_prove_fpa(ctx, r.t, s, got, want, n, o->fpa_timeout_ms ? o->fpa_timeout_ms : 2000, same,
                                  &v.proven_fpa, &v.by_identities);
        free(got);
        free(want);
        reader_free(&r);
    }
    free(same);
    if (out) *out = v;
    return rc;
}
