/* prove.c — equality over the reals of the program's terms and the spec's (tine vectorize
 * --reassociate / --contract): Diospyros's guarantee, proven with Z3's real arithmetic.
 *
 * The terms are read as real-number expressions: an input element a real constant, a
 * float constant its exact rational value, + - * / and negation the field's, fma(a, b, c)
 * a*b + c, sqrt one uninterpreted function (the same on both sides), comparisons and
 * select as such. This is the idealization the reassociating rules are sound for, not
 * IEEE arithmetic (strict mode's check is validate.c's).
 */
#include "vectorize.h"

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

int vz_prove_reals(tine_ctx_t *ctx, const vz_spec *t, const int32_t *got, const int32_t *want, int n) {
    Z3_config cfg = Z3_mk_config();
    Z3_set_param_value(cfg, "timeout", "10000");
    enc e = {.z = Z3_mk_context_rc(cfg), .t = t};
    Z3_del_config(cfg);
    e.real = Z3_mk_real_sort(e.z);
    e.sqrt_fn = Z3_mk_func_decl(e.z, Z3_mk_string_symbol(e.z, "sqrt"), 1, &e.real, e.real);
    e.memo = tine_xcalloc((size_t)t->nnodes + 1, sizeof *e.memo);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (got[i] == want[i]) continue; /* one node: equal */
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
    for (int i = 0; i < t->nnodes; i++)
        if (e.memo[i]) Z3_dec_ref(e.z, e.memo[i]);
    free(e.memo);
    Z3_del_context(e.z);
    return rc;
}
