/* diffkern_eval.c — the value of a dk_kernel_t's output element, computed in C from
 * docs/SEMANTICS.md and docs/KERNELS.md alone (no tine parser, IR or interpreter).
 *
 * Every value is a bit pattern of its type's width kept canonical in a uint64_t
 * (sign-extended when signed, zero-extended when not: dk_norm), and each rule is the
 * document's:
 *   + - * wrap modulo 2^bits (computed on uint64_t, then truncated);
 *   /  rounds toward -inf, x / 0 = 0, INT_MIN / -1 = INT_MIN (the wrap of 2^(bits-1));
 *   %  is x - y * (x / y) with that division (the divisor's sign), x % 0 = 0;
 *   << wraps, >> is arithmetic for signed types and logical for unsigned (amounts here
 *      are constants in [0, bits));
 *   min, max, comparisons by the type's order;
 *   a cast truncates or extends by the SOURCE's signedness; reinterpret keeps the bits;
 *   a reduction's variable is i32 and runs over lo <= r < hi (i32 values of its
 *      bounds); sum wraps in the body's type; an empty range gives the identity: 0 for
 *      sum, the type's max for min, its min for max;
 *   edge(in) clamps each coordinate into the input; constant(in, v) is v outside it;
 *   a function's call evaluates its body with its coordinates bound to the arguments.
 */
#include "diffkern_eval.h"

#include <string.h>

uint64_t dk_norm(dk_type_t t, uint64_t v) {
    if (t.bits == 64) return v;
    uint64_t m = (UINT64_C(1) << t.bits) - 1;
    v &= m;
    if (t.sgn && (v >> (t.bits - 1)) & 1) v |= ~m;
    return v;
}

static int64_t as_signed(uint64_t v) {
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
}

/* a < b by t's order (both canonical) */
static bool less(dk_type_t t, uint64_t a, uint64_t b) { return t.sgn ? as_signed(a) < as_signed(b) : a < b; }

static uint64_t tmax(dk_type_t t) {
    return t.sgn ? (t.bits == 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (t.bits - 1)) - 1)
                 : (t.bits == 64 ? UINT64_MAX : (UINT64_C(1) << t.bits) - 1);
}
static uint64_t tmin(dk_type_t t) { return t.sgn ? dk_norm(t, UINT64_C(1) << (t.bits - 1)) : 0; }

static uint64_t divide(dk_type_t t, uint64_t a, uint64_t b, bool mod) {
    if (b == 0) return 0;
    uint64_t q;
    if (!t.sgn) q = a / b;
    else {
        int64_t x = as_signed(a), y = as_signed(b);
        if (x == INT64_MIN && y == -1) q = a; /* only at 64 bits: narrower types wrap below */
        else {
            int64_t d = x / y;
            if (x % y != 0 && ((x < 0) != (y < 0))) d--; /* toward -inf */
            q = (uint64_t)d;
        }
    }
    q = dk_norm(t, q);
    return mod ? dk_norm(t, a - b * q) : q;
}

static uint64_t binop(dk_type_t t, int op, uint64_t a, uint64_t b) {
    switch (op) {
    case DK_ADD: return dk_norm(t, a + b);
    case DK_SUB: return dk_norm(t, a - b);
    case DK_MUL: return dk_norm(t, a * b);
    case DK_DIV: return divide(t, a, b, false);
    case DK_MOD: return divide(t, a, b, true);
    case DK_AND: return a & b;
    case DK_OR: return a | b;
    case DK_XOR: return a ^ b;
    case DK_MIN: return less(t, b, a) ? b : a;
    case DK_MAX: return less(t, a, b) ? b : a;
    case DK_SHL: return b >= (uint64_t)t.bits ? 0 : dk_norm(t, a << b);
    default: /* DK_SHR, b in [0, bits) */
        if (t.sgn) return dk_norm(t, (uint64_t)(as_signed(a) >> b)); /* canonical: the sign fills */
        return b >= 64 ? 0 : a >> b;
    }
}

static bool compare(dk_type_t t, int op, uint64_t a, uint64_t b) {
    switch (op) {
    case DK_LT: return less(t, a, b);
    case DK_LE: return !less(t, b, a);
    case DK_EQ: return a == b;
    case DK_NE: return a != b;
    case DK_GT: return less(t, b, a);
    default: return !less(t, a, b);
    }
}

typedef struct {
    const dk_kernel_t *k;
    const dk_args_t *args;
    int64_t coord[2];
    int64_t rv[DK_MAXRVARS];
    bool outside; /* a direct read outside the input */
} env_t;

static uint64_t eval(env_t *e, const dk_node_t *n);

/* the input's element at c (clamped for edge; the fill outside for constant) */
static uint64_t read_input(env_t *e, int src, const int64_t *c) {
    const tine_buffer_t *in = e->args->in;
    int64_t idx = 0;
    for (int d = 0; d < e->k->dims; d++) {
        int64_t lo = in->min[d], hi = in->min[d] + in->extent[d] - 1, v = c[d];
        if (v < lo || v > hi) {
            if (src == DK_SRC_CONST) return dk_norm(e->k->in_t, (uint64_t)e->k->zval);
            if (src == DK_SRC_IN) {
                e->outside = true;
                return 0;
            }
            v = v < lo ? lo : hi; /* edge */
        }
        idx += (v - lo) * (d ? in->stride[d] : 1);
    }
    int eb = e->k->in_t.bits / 8;
    uint64_t v = 0;
    memcpy(&v, (const char *)in->data + idx * eb, (size_t)eb); /* little-endian */
    return dk_norm(e->k->in_t, v);
}

static uint64_t eval(env_t *e, const dk_node_t *n) {
    static const dk_type_t I32 = {true, 32};
    switch (n->kind) {
    case DK_CONST: return dk_norm(n->t, (uint64_t)n->value);
    case DK_COORD: return dk_norm(I32, (uint64_t)e->coord[n->index]);
    case DK_RVAR: return dk_norm(I32, (uint64_t)e->rv[n->index]);
    case DK_PARAM:
        return n->index == 0 ? dk_norm(I32, (uint64_t)e->args->p)
             : n->index == 1 ? dk_norm(I32, (uint64_t)e->args->z)
                             : dk_norm(n->t, e->args->q);
    case DK_READ: {
        int64_t c[2] = {0, 0};
        for (int i = 0; i < n->n; i++) c[i] = as_signed(eval(e, n->a[i]));
        if (n->index < DK_SRC_FN0) return read_input(e, n->index, c);
        const dk_fn_t *f = &e->k->fn[n->index - DK_SRC_FN0];
        int64_t saved[2] = {e->coord[0], e->coord[1]};
        for (int i = 0; i < f->nargs; i++) e->coord[f->arg[i]] = c[i];
        uint64_t v = eval(e, f->body);
        e->coord[0] = saved[0];
        e->coord[1] = saved[1];
        return v;
    }
    case DK_CAST: return dk_norm(n->t, eval(e, n->a[0])); /* canonical: extended by the source's signedness */
    case DK_REINTERP: return dk_norm(n->t, eval(e, n->a[0]));
    case DK_BIN: return binop(n->t, n->op, eval(e, n->a[0]), eval(e, n->a[1]));
    case DK_SELECT: {
        bool c = compare(n->a[0]->t, n->op, eval(e, n->a[0]), eval(e, n->a[1]));
        return eval(e, n->a[c ? 2 : 3]);
    }
    case DK_RED: {
        int64_t lo = as_signed(eval(e, n->a[0])), hi = as_signed(eval(e, n->a[1]));
        uint64_t acc = n->op == DK_SUM ? 0 : n->op == DK_REDMIN ? tmax(n->t) : tmin(n->t);
        int64_t saved = e->rv[n->index];
        for (int64_t r = lo; r < hi; r++) {
            e->rv[n->index] = r;
            uint64_t v = eval(e, n->a[2]);
            acc = binop(n->t, n->op == DK_SUM ? DK_ADD : n->op == DK_REDMIN ? DK_MIN : DK_MAX, acc, v);
        }
        e->rv[n->index] = saved;
        return acc;
    }
    }
    return 0;
}

bool dk_eval_output(const dk_kernel_t *k, const dk_args_t *args, const int64_t *c, uint64_t *out) {
    env_t e;
    memset(&e, 0, sizeof e);
    e.k = k;
    e.args = args;
    e.coord[0] = c[0];
    e.coord[1] = k->dims > 1 ? c[1] : 0;
    uint64_t v = eval(&e, k->out);
    *out = k->out_t.bits == 64 ? v : v & ((UINT64_C(1) << k->out_t.bits) - 1);
    return !e.outside;
}
