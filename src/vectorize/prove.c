/* prove.c — equality over the reals of the program's terms and the spec's (tine vectorize
 * --reassociate / --contract): Diospyros's guarantee, proven with Z3's real arithmetic.
 *
 * The terms are read as real-number expressions: an input element a real constant, a
 * float constant its exact rational value, + - * / and negation the field's, fma(a, b, c)
 * a*b + c, sqrt one uninterpreted function (the same on both sides), comparisons and
 * select as such. This is the idealization the reassociating rules are sound for, not
 * IEEE arithmetic (strict mode's check is validate.c's). Most pairs are decided before Z3
 * is asked: equal polynomial normal forms (computed exactly) are equal over the reals.
 */
#include "vectorize.h"
#include "../verify/smt.h"

#include <math.h>
#include <z3.h>

typedef struct {
    Z3_context z;
    Z3_sort real;
    Z3_func_decl sqrt_fn;
    Z3_ast *memo;
    const vz_spec *t;
} enc;

/* 2^k in decimal (k <= 1100: 332 digits), into buf. */
static void pow2_decimal(int k, char *buf, size_t n) {
    unsigned char d[400] = {1}; /* little-endian decimal digits */
    int len = 1;
    for (int i = 0; i < k; i++) {
        int carry = 0;
        for (int j = 0; j < len; j++) {
            int v = d[j] * 2 + carry;
            d[j] = (unsigned char)(v % 10);
            carry = v / 10;
        }
        if (carry) d[len++] = (unsigned char)carry;
    }
    size_t o = 0;
    for (int j = len - 1; j >= 0 && o + 1 < n; j--) buf[o++] = (char)('0' + d[j]);
    buf[o] = 0;
}

/* A finite double as its exact rational value (m * 2^ex as "m/2^-ex" or "m*2^ex"). */
static Z3_ast rational(enc *e, double d) {
    if (!isfinite(d)) return Z3_mk_fresh_const(e->z, "nonfinite", e->real);
    int ex;
    double m = frexp(d, &ex); /* d = m * 2^ex, 0.5 <= |m| < 1 */
    long long num = (long long)ldexp(m, 53);
    ex -= 53;
    while (num && num % 2 == 0 && ex < 0) num /= 2, ex++;
    char p[400], buf[1000];
    pow2_decimal(ex < 0 ? -ex : ex, p, sizeof p);
    if (ex >= 0) {
        Z3_ast k[2] = {Z3_mk_numeral(e->z, (snprintf(buf, sizeof buf, "%lld", num), buf), e->real),
                       Z3_mk_numeral(e->z, p, e->real)};
        return Z3_mk_mul(e->z, 2, k);
    }
    snprintf(buf, sizeof buf, "%lld/%s", num, p);
    return Z3_mk_numeral(e->z, buf, e->real);
}

static Z3_ast term(enc *e, int32_t x) {
    if (e->memo[x]) return e->memo[x];
    const vz_node *n = &e->t->node[x];
    Z3_ast k[3], r;
    for (int i = 0; i < n->n; i++) k[i] = term(e, n->kid[i]);
    switch (n->op) {
    case VZ_GET: {
        char name[64];
        snprintf(name, sizeof name, "in%d_%d", (int)(n->data >> 32), (int)(uint32_t)n->data);
        r = Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, name), e->real);
        break;
    }
    case VZ_CONST: r = rational(e, vz_const_value(e->t, n)); break;
    case VZ_ADD: r = Z3_mk_add(e->z, 2, k); break;
    case VZ_SUB: r = Z3_mk_sub(e->z, 2, k); break;
    case VZ_MUL: r = Z3_mk_mul(e->z, 2, k); break;
    case VZ_DIV: r = Z3_mk_div(e->z, k[0], k[1]); break;
    case VZ_NEG: r = Z3_mk_unary_minus(e->z, k[0]); break;
    case VZ_SQRT: r = Z3_mk_app(e->z, e->sqrt_fn, 1, k); break;
    case VZ_FMA: {
        Z3_ast m = Z3_mk_mul(e->z, 2, k), s[2] = {m, k[2]};
        r = Z3_mk_add(e->z, 2, s);
        break;
    }
    case VZ_CMP:
        switch (n->data) {
        case VZ_LT: r = Z3_mk_lt(e->z, k[0], k[1]); break;
        case VZ_LE: r = Z3_mk_le(e->z, k[0], k[1]); break;
        case VZ_GT: r = Z3_mk_gt(e->z, k[0], k[1]); break;
        case VZ_GE: r = Z3_mk_ge(e->z, k[0], k[1]); break;
        case VZ_EQ: r = Z3_mk_eq(e->z, k[0], k[1]); break;
        default: r = Z3_mk_not(e->z, Z3_mk_eq(e->z, k[0], k[1])); break;
        }
        break;
    case VZ_SEL: r = Z3_mk_ite(e->z, k[0], k[1], k[2]); break;
    default: TINE_ASSERT(!"not a spec op"); r = NULL;
    }
    Z3_inc_ref(e->z, r);
    return e->memo[x] = r;
}

/* ---- polynomial normal forms: most reassociated sums are decided without Z3 ------------ */

/* A polynomial over atoms (input elements, and the nodes that are not ring operations:
 * sqrt, division by a non-constant, comparisons, select) with double coefficients, kept
 * only while every coefficient operation is exact (else the form is abandoned and Z3
 * decides): two normal forms equal means the terms are equal over the reals. */
enum { MAX_DEG = 8, MAX_MONO = 4096 };
typedef struct {
    double coef;
    int deg;
    int32_t atom[MAX_DEG];
} mono;
typedef struct {
    mono *m;
    int n;
    bool bad; /* not computed exactly */
} poly;

static int cmp_mono(const mono *a, const mono *b) {
    if (a->deg != b->deg) return a->deg < b->deg ? -1 : 1;
    for (int i = 0; i < a->deg; i++)
        if (a->atom[i] != b->atom[i]) return a->atom[i] < b->atom[i] ? -1 : 1;
    return 0;
}

static bool exact_sum(double a, double b, double *s) {
    *s = a + b;
    double bb = *s - a, err = (a - (*s - bb)) + (b - bb);
    return err == 0 && isfinite(*s);
}

static bool exact_prod(double a, double b, double *p) {
    *p = a * b;
    return fma(a, b, -*p) == 0 && isfinite(*p);
}

/* a + sign * b (both sorted) */
static poly padd(const poly *a, const poly *b, double sign) {
    poly r = {tine_xmalloc(sizeof(mono) * (size_t)(a->n + b->n + 1)), 0, a->bad || b->bad};
    int i = 0, j = 0;
    while (!r.bad && (i < a->n || j < b->n)) {
        int c = i == a->n ? 1 : j == b->n ? -1 : cmp_mono(&a->m[i], &b->m[j]);
        if (c < 0) r.m[r.n++] = a->m[i++];
        else if (c > 0) r.m[r.n] = b->m[j++], r.m[r.n++].coef *= sign;
        else {
            double x;
            if (!exact_sum(a->m[i].coef, sign * b->m[j].coef, &x)) r.bad = true;
            if (x != 0) r.m[r.n] = a->m[i], r.m[r.n++].coef = x;
            i++, j++;
        }
    }
    return r;
}

static int cmp_mono_v(const void *a, const void *b) { return cmp_mono(a, b); }

static poly pmul(const poly *a, const poly *b) {
    poly r = {NULL, 0, a->bad || b->bad || (size_t)a->n * (size_t)b->n > MAX_MONO};
    if (r.bad) return r;
    r.m = tine_xmalloc(sizeof(mono) * (size_t)(a->n * b->n + 1));
    for (int i = 0; i < a->n && !r.bad; i++)
        for (int j = 0; j < b->n && !r.bad; j++) {
            mono x;
            if (a->m[i].deg + b->m[j].deg > MAX_DEG || !exact_prod(a->m[i].coef, b->m[j].coef, &x.coef)) {
                r.bad = true;
                break;
            }
            x.deg = 0; /* merge the sorted atom lists */
            for (int p = 0, q = 0; p < a->m[i].deg || q < b->m[j].deg;)
                x.atom[x.deg++] = q == b->m[j].deg || (p < a->m[i].deg && a->m[i].atom[p] <= b->m[j].atom[q])
                                      ? a->m[i].atom[p++] : b->m[j].atom[q++];
            r.m[r.n++] = x;
        }
    if (r.bad) return r;
    qsort(r.m, (size_t)r.n, sizeof *r.m, cmp_mono_v);
    int k = 0; /* like monomials summed */
    for (int i = 0; i < r.n && !r.bad; i++) {
        if (k && cmp_mono(&r.m[k - 1], &r.m[i]) == 0) {
            double x;
            if (!exact_sum(r.m[k - 1].coef, r.m[i].coef, &x)) r.bad = true;
            r.m[k - 1].coef = x;
            if (x == 0) k--;
        } else r.m[k++] = r.m[i];
    }
    r.n = k;
    return r;
}

static poly patom(int32_t x) {
    poly r = {tine_xmalloc(sizeof(mono)), 1, false};
    r.m[0] = (mono){.coef = 1, .deg = 1, .atom = {x}};
    return r;
}

static poly pconst(double c) {
    poly r = {tine_xmalloc(sizeof(mono)), 0, !isfinite(c)};
    if (c != 0) r.m[r.n++] = (mono){.coef = c};
    return r;
}

static const poly *normal(const vz_spec *t, int32_t x, poly *memo, bool *done) {
    if (done[x]) return &memo[x];
    const vz_node *n = &t->node[x];
    const poly *k[3] = {NULL};
    bool ring = n->op == VZ_ADD || n->op == VZ_SUB || n->op == VZ_MUL || n->op == VZ_NEG || n->op == VZ_FMA;
    for (int i = 0; ring && i < n->n; i++) k[i] = normal(t, n->kid[i], memo, done);
    poly r;
    switch (n->op) {
    case VZ_CONST: r = pconst(vz_const_value(t, n)); break;
    case VZ_ADD: r = padd(k[0], k[1], 1); break;
    case VZ_SUB: r = padd(k[0], k[1], -1); break;
    case VZ_NEG: {
        poly z = {NULL, 0, false};
        r = padd(&z, k[0], -1);
        break;
    }
    case VZ_MUL: r = pmul(k[0], k[1]); break;
    case VZ_FMA: {
        poly p = pmul(k[0], k[1]);
        r = padd(&p, k[2], 1);
        free(p.m);
        break;
    }
    default: r = patom(x); break; /* an input element, or a node that is no ring operation */
    }
    done[x] = true;
    memo[x] = r;
    return &memo[x];
}

static bool same_poly(const poly *a, const poly *b) {
    if (a->bad || b->bad || a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (cmp_mono(&a->m[i], &b->m[i]) || a->m[i].coef != b->m[i].coef) return false;
    return true;
}

int vz_prove_reals(tine_ctx_t *ctx, const vz_spec *t, const int32_t *got, const int32_t *want, int n) {
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "timeout", "10000");
    enc e = {.z = Z3_mk_context_rc(cfg), .t = t};
    Z3_del_config(cfg);
    e.real = Z3_mk_real_sort(e.z);
    Z3_inc_ref(e.z, Z3_sort_to_ast(e.z, e.real)); /* a reference-counted context: held while used */
    e.sqrt_fn = Z3_mk_func_decl(e.z, Z3_mk_string_symbol(e.z, "sqrt"), 1, &e.real, e.real);
    Z3_inc_ref(e.z, Z3_func_decl_to_ast(e.z, e.sqrt_fn));
    e.memo = tine_xcalloc((size_t)t->nnodes + 1, sizeof *e.memo);
    int rc = 0;
    poly *memo = tine_xcalloc((size_t)t->nnodes + 1, sizeof *memo);
    bool *done = tine_xcalloc((size_t)t->nnodes + 1, 1);
    for (int i = 0; i < n && rc == 0; i++) {
        if (got[i] == want[i]) continue; /* one node: equal */
        if (same_poly(normal(t, got[i], memo, done), normal(t, want[i], memo, done))) continue;
        Z3_solver s = Z3_mk_solver(e.z);
        Z3_solver_inc_ref(e.z, s);
        Z3_ast ne = Z3_mk_not(e.z, Z3_mk_eq(e.z, term(&e, got[i]), term(&e, want[i])));
        Z3_solver_assert(e.z, s, ne);
        Z3_lbool res = Z3_solver_check(e.z, s);
        if (res != Z3_L_FALSE) {
            tine_set_error(ctx, "tine vectorize: translation validation over the reals %s for output %d (%s)",
                           res == Z3_L_TRUE ? "failed" : "gave up", i, res == Z3_L_TRUE ? "an internal error" : "Z3's time limit");
            rc = -1;
        }
        Z3_solver_dec_ref(e.z, s);
    }
    for (int i = 0; i < t->nnodes; i++) {
        if (e.memo[i]) Z3_dec_ref(e.z, e.memo[i]);
        free(memo[i].m);
    }
    free(memo);
    free(done);
    free(e.memo);
    Z3_del_context(e.z);
    return rc;
}

/* ---- IEEE arithmetic: Z3's floating-point theory through the one SMT encoding ---------- */

typedef struct {
    tine_ctx_t *ctx;
    const vz_spec *t, *names;
    tine_expr_t **memo;
    uint8_t *side;     /* per node: 1 under got, 2 under want, 3 under both */
    int32_t *touched;
    int ntouched;
} fpa;

/* Node x of t as a tine expression: an input element a variable "name_elem", the ops
 * tine's own (their meaning and their SMT encoding are src/ir's and src/verify's). A
 * computed node both sides share is one fresh variable "shared_x": equal for every value
 * of it means equal for its own, and Z3 never bit-blasts what the two sides have in common. */
static tine_expr_t *to_expr(fpa *f, int32_t x, bool top) {
    if (f->memo[x]) return f->memo[x];
    const vz_node *n = &f->t->node[x];
    tine_ctx_t *ctx = f->ctx;
    tine_type_t ft = tine_type_with_lanes(f->t->elem, 1);
    f->touched[f->ntouched++] = x;
    if (!top && f->side[x] == 3 && n->n && n->op != VZ_CMP) {
        char name[40];
        snprintf(name, sizeof name, "shared_%d", x);
        return f->memo[x] = tine_var(ctx, name, ft);
    }
    tine_expr_t *k[3] = {NULL};
    for (int i = 0; i < n->n; i++) k[i] = to_expr(f, n->kid[i], false);
    static const tine_op_t cmp[] = {TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE, TINE_OP_EQ, TINE_OP_NE};
    tine_expr_t *r = NULL;
    switch (n->op) {
    case VZ_GET: {
        char name[160]; /* an identifier: a_3 for a[3] */
        const vz_spec *nm = f->names;
        snprintf(name, sizeof name, "%s_%u", nm && (n->data >> 32) < nm->narrays ? nm->array[n->data >> 32].name : "in",
                 (unsigned)(uint32_t)n->data);
        r = tine_var(ctx, name, ft);
        break;
    }
    case VZ_CONST: {
        uint64_t bits = (uint64_t)n->data;
        r = tine_const_lanes(ctx, ft, &bits);
        break;
    }
    case VZ_ADD: r = tine_binary(ctx, TINE_OP_ADD, k[0], k[1]); break;
    case VZ_SUB: r = tine_binary(ctx, TINE_OP_SUB, k[0], k[1]); break;
    case VZ_MUL: r = tine_binary(ctx, TINE_OP_MUL, k[0], k[1]); break;
    case VZ_DIV: r = tine_binary(ctx, TINE_OP_DIV, k[0], k[1]); break;
    case VZ_NEG: r = tine_unary(ctx, TINE_OP_NEG, k[0]); break;
    case VZ_SQRT: r = tine_unary(ctx, TINE_OP_SQRT, k[0]); break;
    case VZ_FMA: r = tine_fma(ctx, k[0], k[1], k[2]); break;
    case VZ_CMP: r = tine_binary(ctx, cmp[n->data], k[0], k[1]); break;
    case VZ_SEL: r = tine_select(ctx, k[0], k[1], k[2]); break;
    }
    return f->memo[x] = r;
}

static void mark(fpa *f, int32_t x, uint8_t bit) {
    if (f->side[x] & bit) return;
    if (!f->side[x]) f->touched[f->ntouched++] = x;
    f->side[x] |= bit;
    for (int i = 0; i < f->t->node[x].n; i++) mark(f, f->t->node[x].kid[i], bit);
}

int vz_prove_fpa(tine_ctx_t *ctx, const vz_spec *t, const vz_spec *names, const int32_t *got, const int32_t *want, int n,
                 unsigned timeout_ms, const bool *fallback, int *proven, int *by_identities) {
    fpa f = {.ctx = ctx, .t = t, .names = names};
    f.memo = tine_xcalloc((size_t)t->nnodes + 1, sizeof *f.memo);
    f.side = tine_xcalloc((size_t)t->nnodes + 1, 1);
    f.touched = tine_xmalloc(sizeof *f.touched * (size_t)(3 * t->nnodes + 3));
    tine_smt *smt = tine_smt_new(ctx, timeout_ms);
    int rc = 0;
    *proven = 0;
    if (by_identities) *by_identities = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (got[i] == want[i]) { /* one node */
            (*proven)++;
            continue;
        }
        f.ntouched = 0;
        mark(&f, got[i], 1);
        mark(&f, want[i], 2);
        tine_expr_t *a = to_expr(&f, got[i], true), *b = to_expr(&f, want[i], true);
        for (int j = 0; j < f.ntouched; j++) f.memo[f.touched[j]] = NULL, f.side[f.touched[j]] = 0;
        char why[512] = "";
        tine_smt_result r = a && b ? tine_smt_equal(smt, a, b, why, sizeof why, NULL) : TINE_SMT_ERROR;
        if (r == TINE_SMT_PROVEN) (*proven)++;
        else if (r == TINE_SMT_UNKNOWN && fallback && fallback[i]) (*by_identities)++; /* Z3 gave up: the rewriting stands */
        else {
            if (r == TINE_SMT_ERROR && !*why) snprintf(why, sizeof why, "%s", tine_error(ctx) ? tine_error(ctx) : "");
            tine_set_error(ctx, "tine vectorize: output %d is %s in IEEE arithmetic%s%s", i,
                           r == TINE_SMT_COUNTEREXAMPLE ? "not equal to the C's" : r == TINE_SMT_UNKNOWN ? "not proven (Z3's time limit)" : "not encodable",
                           *why ? ": " : "", why);
            rc = r == TINE_SMT_UNKNOWN ? 1 : -1;
        }
    }
    tine_smt_free(smt);
    free(f.memo);
    free(f.side);
    free(f.touched);
    return rc;
}

/* The identities strict mode's lifting relies on (search.c) and validate.c takes out,
 * proven in Z3's floating-point theory: x + -0, x - 0, x * 1, x / 1, fma(x, 1, -0) = x;
 * p + -q = p - q; p - -q = p + q; x * -1 = -x. Strict mode's per-output check is then
 * rewriting with proven equalities (test_vectorize and tine verify --vectorized prove them,
 * as tine verify proves the rule files). fma(a, b, -0) = a * b and fma(q, 1, p) = p + q
 * hold too, but Z3 takes minutes on them: they are used only under --contract, whose
 * programs are validated over the reals. */
int vz_prove_identities(tine_ctx_t *ctx, tine_type_t elem) {
    vz_spec *t = tine_xcalloc(1, sizeof *t);
    t->elem = tine_type_with_lanes(elem, 1);
    int32_t x = vz_get(t, 0, 0), y = vz_get(t, 0, 1), nz = vz_const(t, -0.0), z = vz_const(t, 0.0), one = vz_const(t, 1.0),
            m1 = vz_const(t, -1.0);
#define N2(op, a, b) vz_add(t, op, 0, 2, (int32_t[]){a, b})
    int32_t ny = vz_add(t, VZ_NEG, 0, 1, &y), nx = vz_add(t, VZ_NEG, 0, 1, &x);
    int32_t got[] = {N2(VZ_ADD, x, nz), N2(VZ_SUB, x, z), N2(VZ_MUL, x, one), N2(VZ_DIV, x, one),
                     vz_add(t, VZ_FMA, 0, 3, (int32_t[]){x, one, nz}), N2(VZ_ADD, x, ny), N2(VZ_SUB, x, ny), N2(VZ_MUL, x, m1)};
    int32_t want[] = {x, x, x, x, x, N2(VZ_SUB, x, y), N2(VZ_ADD, x, y), nx};
#undef N2
    int proven;
    int rc = vz_prove_fpa(ctx, t, NULL, got, want, (int)(sizeof got / sizeof *got), 120000, NULL, &proven, NULL);
    vz_spec_free(t);
    return rc == 0 ? 0 : -1;
}
