/* tprog.c — the chosen program as a target-level program (src/tprog), so that the
 * peephole optimizer and the scheduler every producer shares (src/peephole/optimize.c) run
 * on tine vectorize's straight-line code and both emitters write it in their order.
 *
 * Each chosen class becomes one IR value: a vector op the same op on f32xW (f64xW) lanes,
 * a scalar op the op on one lane, a vector of leaves an input variable (its binding is
 * the class's leaf plan, vz_plan_leaves, which the emitters already build: windows,
 * broadcasts, constants, shuffles), a vector of constants a constant, an array element a
 * scalar input, a vector of computed scalars their concatenation (leaf lanes sliced out of
 * the class's leaf input), one computed scalar everywhere a broadcast. Every op keeps its
 * operands and its rounding, so the program computes what the e-graph's does bit for
 * bit; only the peephole's contract pass (when the options allow contraction) rounds a
 * product and a sum once. Outputs are the chunks, in order.
 */
#include "vectorize.h"

#include "../peephole/optimize.h"

typedef struct {
    tine_ctx_t *ctx;
    const vz_program *p;
    vz_tprog *t;
    tine_type_t elem, vt; /* f32 (f64), and at the program's lanes */
    tine_expr_t **val;    /* per class */
    tine_expr_t **leafv;  /* per class: its leaf input, once made */
} bridge;

static void add_input(bridge *B, tine_expr_t *var, eg_id cls, int array, int elem) {
    vz_tprog *t = B->t;
    tine_tprog_input(t->prog, var);
    int q = t->prog->ninputs - 1;
    if (q >= t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->in_cls = tine_xrealloc(t->in_cls, sizeof *t->in_cls * (size_t)t->cap);
        t->in_array = tine_xrealloc(t->in_array, sizeof *t->in_array * (size_t)t->cap);
        t->in_elem = tine_xrealloc(t->in_elem, sizeof *t->in_elem * (size_t)t->cap);
    }
    t->in_cls[q] = cls, t->in_array[q] = array, t->in_elem[q] = elem;
}

/* Array element `data` (GET's datum) as a scalar input. */
static tine_expr_t *element(bridge *B, eg_id c, int64_t data) {
    int a = (int)(data >> 32), i = (int)(uint32_t)data;
    char nm[160];
    snprintf(nm, sizeof nm, "%s_%d", B->p->spec->array[a].name, i);
    tine_expr_t *v = tine_var(B->ctx, nm, B->elem);
    if (v) add_input(B, v, c, a, i);
    return v;
}

static tine_expr_t *constant(bridge *B, tine_type_t t, int64_t bits) {
    uint64_t lanes[16];
    for (int l = 0; l < t.lanes; l++) lanes[l] = (uint64_t)bits & (B->elem.bits == 32 ? 0xffffffffu : ~0ull);
    return tine_const_lanes(B->ctx, t, lanes);
}

/* The leaf lanes of VEC class c (the others undefined) as the input the emitters bind to
 * its leaf plan. */
static tine_expr_t *leaf_input(bridge *B, eg_id c) {
    if (B->leafv[c]) return B->leafv[c];
    char nm[32];
    snprintf(nm, sizeof nm, "v%u", (unsigned)c);
    tine_expr_t *v = tine_var(B->ctx, nm, B->vt);
    if (v) add_input(B, v, c, -1, -1);
    return B->leafv[c] = v;
}

static tine_expr_t *value(bridge *B, eg_id c);

static tine_expr_t *vec(bridge *B, eg_id c, const eg_node *n) {
    const eg_graph *g = B->p->g;
    int W = B->p->width;
    eg_node x[16];
    bool leaf[16] = {false}, leaves = true, gets = false, uniform = true;
    for (int l = 0; l < W; l++) {
        leaf[l] = vz_leaf(g, n->kids[l], &x[l]);
        leaves = leaves && leaf[l];
        gets = gets || (leaf[l] && x[l].op == VZ_GET);
        uniform = uniform && eg_find(g, n->kids[l]) == eg_find(g, n->kids[0]);
    }
    if (leaves && gets) return leaf_input(B, c);
    if (uniform && !leaf[0]) return tine_broadcast(B->ctx, value(B, n->kids[0]), W);
    /* constants (DC lanes 0), or computed lanes with leaves between them */
    tine_expr_t *lane[16], *computed = NULL;
    for (int l = 0; l < W && !leaves; l++)
        if (!leaf[l] && !(lane[l] = computed = value(B, n->kids[l]))) return NULL;
    tine_type_t st = computed ? computed->type : B->elem; /* a vector of conditions: bool lanes */
    if (leaves) {
        uint64_t bits[16];
        for (int l = 0; l < W; l++)
            bits[l] = x[l].op == VZ_CONST ? (uint64_t)x[l].data & (B->elem.bits == 32 ? 0xffffffffu : ~0ull) : 0;
        return tine_const_lanes(B->ctx, B->vt, bits);
    }
    /* the computed lanes (and constants) joined, the elements' lanes then taken from the
       leaf input by a select on constant lanes (a blend): lane moves, exact */
    uint64_t pick[16];
    for (int l = 0; l < W; l++) {
        pick[l] = leaf[l] && x[l].op == VZ_GET;
        if (!leaf[l]) continue;
        if (x[l].op == VZ_CONST && st.kind == B->elem.kind) lane[l] = constant(B, st, x[l].data);
        else lane[l] = tine_const_uint(B->ctx, st, 0); /* DC, or an element the select takes */
        if (!lane[l]) return NULL;
    }
    tine_expr_t *joined = tine_concat(B->ctx, W, lane);
    if (!gets || !joined) return joined;
    tine_expr_t *mask = tine_const_lanes(B->ctx, tine_type_with_lanes((tine_type_t){.kind = TINE_BOOL, .bits = 1}, W), pick);
    return tine_select(B->ctx, mask, leaf_input(B, c), joined);
}

static tine_expr_t *op_value(bridge *B, uint32_t op, int64_t data, tine_expr_t **k) {
    static const tine_op_t cmp[] = {TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE, TINE_OP_EQ, TINE_OP_NE};
    tine_ctx_t *ctx = B->ctx;
    switch (op) {
    case VZ_ADD: return tine_binary(ctx, TINE_OP_ADD, k[0], k[1]);
    case VZ_SUB: return tine_binary(ctx, TINE_OP_SUB, k[0], k[1]);
    case VZ_MUL: return tine_binary(ctx, TINE_OP_MUL, k[0], k[1]);
    case VZ_DIV: return tine_binary(ctx, TINE_OP_DIV, k[0], k[1]);
    case VZ_NEG: return tine_unary(ctx, TINE_OP_NEG, k[0]);
    case VZ_SQRT: return tine_unary(ctx, TINE_OP_SQRT, k[0]);
    case VZ_FMA: return tine_fma(ctx, k[0], k[1], k[2]);
    case VZ_CMP:
        TINE_ASSERT(data >= 0 && data <= VZ_NE);
        return tine_binary(ctx, cmp[data], k[0], k[1]);
    case VZ_SEL:
        if (k[0]->type.kind != TINE_BOOL) { /* a float condition: C's x != 0 */
            tine_expr_t *zero = tine_const_uint(ctx, k[0]->type, 0);
            k[0] = tine_binary(ctx, TINE_OP_NE, k[0], zero);
        }
        return tine_select(ctx, k[0], k[1], k[2]);
    default: TINE_ASSERT(!"not an op"); return NULL;
    }
}

static tine_expr_t *value(bridge *B, eg_id c) {
    c = eg_find(B->p->g, c);
    if (B->val[c]) return B->val[c];
    eg_node n = vz_chosen(B->p, c);
    tine_expr_t *k[3], *r;
    switch (n.op) {
    case VZ_GET: r = element(B, c, n.data); break;
    case VZ_CONST: r = constant(B, B->elem, n.data); break;
    case VZ_DC: r = tine_const_uint(B->ctx, B->elem, 0); break;
    case VZ_VEC: r = vec(B, c, &n); break;
    default:
        for (uint32_t i = 0; i < n.n; i++)
            if (!(k[i] = value(B, n.kids[i]))) return NULL;
        r = op_value(B, VZ_IS_V(n.op) ? n.op - VZ_VBASE : n.op, n.data, k);
    }
    return B->val[c] = r;
}

/* Every store after every other item (their relative orders kept): a kernel that reads an
 * output's own elements reads them before anything is written. */
static void stores_last(tine_tprog *p) {
    int *perm = tine_xmalloc(sizeof *perm * ((size_t)p->n + 1)), k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->n; i++)
            if ((p->order[i].store >= 0) == (pass == 1)) perm[k++] = i;
    tine_tprog_permute(p, perm);
    free(perm);
}

vz_tprog *vz_tprog_new(tine_ctx_t *ctx, const vz_program *p, const tine_tprog_opt *opt, tine_buf *report) {
    double t0 = tine_now();
    vz_tprog *t = tine_xcalloc(1, sizeof *t);
    t->prog = tine_tprog_new(ctx, p->target->name);
    bridge B = {.ctx = ctx, .p = p, .t = t, .elem = p->spec->elem};
    B.elem.lanes = 1;
    B.vt = tine_type_with_lanes(B.elem, p->width);
    size_t ncls = eg_id_limit(p->g);
    B.val = tine_xcalloc(ncls, sizeof *B.val);
    B.leafv = tine_xcalloc(ncls, sizeof *B.leafv);
    bool ok = true;
    for (int i = 0; ok && i < p->nchunks; i++) {
        tine_expr_t *v = value(&B, p->chunk[i].cls);
        char nm[24];
        snprintf(nm, sizeof nm, "chunk%d", i);
        if (v) tine_tprog_output(t->prog, nm, v);
        ok = v != NULL;
    }
    free(B.val);
    free(B.leafv);
    ok = ok && tine_tprog_select(t->prog);
    if (ok && report) {
        tine_buf_printf(report, "vectorize %s for %s at %d lanes: %d chunks, %d inputs\n", p->spec->func,
                        p->target->name, p->width, p->nchunks, t->prog->ninputs);
        tine_tprog_report_line(report, "select", t->prog, (tine_now() - t0) * 1e3);
    }
    ok = ok && tine_tprog_optimize(t->prog, opt, &t->peep, report);
    if (ok && vz_reads_output(p->spec)) stores_last(t->prog);
    if (!ok) {
        vz_tprog_free(t);
        return NULL;
    }
    return t;
}

void vz_tprog_free(vz_tprog *t) {
    if (!t) return;
    tine_tprog_free(t->prog);
    free(t->in_cls);
    free(t->in_array);
    free(t->in_elem);
    free(t);
}
