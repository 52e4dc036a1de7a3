/* interp.c — the reference interpreter: bit-exact evaluation of any expression.
 *
 * Values are lanes of 128-bit words in canonical form (see internal.h). A DAG is
 * evaluated children first, in id order, each node once. An FPIR node is evaluated
 * through its definition: the template of fpir.c (reached through ctx->sem: the
 * interpreter is the core's), with its placeholders bound to the operand values. There is no other code for FPIR semantics here.
 *
 * Choices the conventions leave open, pinned by tests (docs/SEMANTICS.md):
 *   x / 0 = 0 and x % 0 = 0; % takes the divisor's sign (floor modulo);
 *   a shift by a negative (signed) amount shifts the other way by its magnitude;
 *   shifts by the width or more give 0, or the sign for an arithmetic right shift;
 *   float -> int truncates toward zero and saturates, NaN -> 0; x -> bool is x != 0;
 *   float min/max are select(a < b, a, b) / select(a > b, a, b);
 *   fma rounds once (C's fma/fmaf).
 */
#include "../internal.h"

#include <math.h>

typedef struct {
    const tine_expr_t *var;
    tine_u128 *vals;
} var_binding;

typedef struct {
    const char *name; /* interned */
    tine_type_t elem;
    const void *data;
    size_t count;
} buf_binding;

struct tine_env {
    tine_ctx_t *ctx;
    var_binding *vars;
    int nvars, capvars;
    buf_binding *bufs;
    int nbufs, capbufs;
};

tine_env_t *tine_env_new(tine_ctx_t *ctx) {
    tine_env_t *env = tine_xcalloc(1, sizeof *env);
    env->ctx = ctx;
    return env;
}

void tine_env_free(tine_env_t *env) {
    if (!env) return;
    for (int i = 0; i < env->nvars; i++) free(env->vars[i].vals);
    free(env->vars);
    free(env->bufs);
    free(env);
}

int tine_env_bind128(tine_env_t *env, const tine_expr_t *var, const tine_u128 *lanes) {
    if (!var || var->op != TINE_OP_VAR) {
        tine_set_error(env->ctx, "tine_env_bind: not a variable");
        return -1;
    }
    tine_u128 *v = NULL;
    for (int i = 0; i < env->nvars; i++)
        if (env->vars[i].var == var) v = env->vars[i].vals;
    if (!v) {
        if (env->nvars == env->capvars) {
            env->capvars = env->capvars ? env->capvars * 2 : 8;
            env->vars = tine_xrealloc(env->vars, (size_t)env->capvars * sizeof *env->vars);
        }
        v = tine_xmalloc(sizeof *v * var->type.lanes);
        env->vars[env->nvars++] = (var_binding){var, v};
    }
    tine_type_t t = var->type;
    for (int i = 0; i < t.lanes; i++)
        v[i] = t.kind == TINE_FLOAT ? lanes[i] & (t.bits == 32 ? 0xffffffffu : ~(uint64_t)0)
               : t.kind == TINE_BOOL ? (lanes[i] != 0)
                                     : tine_canon(t, lanes[i]);
    return 0;
}

int tine_env_bind(tine_env_t *env, const tine_expr_t *var, const uint64_t *lanes) {
    if (!var) return -1;
    tine_u128 v[TINE_MAX_LANES];
    for (int i = 0; i < var->type.lanes; i++)
        v[i] = var->type.kind == TINE_INT ? (tine_u128)(tine_i128)(int64_t)lanes[i] : lanes[i];
    return tine_env_bind128(env, var, v);
}

int tine_env_bind_buffer(tine_env_t *env, const char *name, tine_type_t elem, const void *data, size_t count) {
    elem = tine_type_with_lanes(elem, 1);
    if (!tine_type_valid(elem) || elem.bits > 64 || elem.kind == TINE_BOOL) {
        tine_set_error(env->ctx, "buffer '%s': element type must be an integer or float of at most 64 bits", name);
        return -1;
    }
    const char *n = tine_name(env->ctx, tine_intern_name(env->ctx, name, strlen(name)));
    for (int i = 0; i < env->nbufs; i++)
        if (env->bufs[i].name == n) {
            env->bufs[i] = (buf_binding){n, elem, data, count};
            return 0;
        }
    if (env->nbufs == env->capbufs) {
        env->capbufs = env->capbufs ? env->capbufs * 2 : 4;
        env->bufs = tine_xrealloc(env->bufs, (size_t)env->capbufs * sizeof *env->bufs);
    }
    env->bufs[env->nbufs++] = (buf_binding){n, elem, data, count};
    return 0;
}

bool tine_env_lookup128(tine_env_t *env, const tine_expr_t *var, tine_u128 *lanes) {
    for (int i = 0; i < env->nvars; i++)
        if (env->vars[i].var == var) {
            memcpy(lanes, env->vars[i].vals, sizeof *lanes * var->type.lanes);
            return true;
        }
    return false;
}

void tine_env_unbind(tine_env_t *env, const tine_expr_t *var) {
    for (int i = 0; i < env->nvars; i++)
        if (env->vars[i].var == var) {
            free(env->vars[i].vals);
            env->vars[i] = env->vars[--env->nvars];
            return;
        }
}

/* By pointer, then by text: callers pass interned names or any string. */
static buf_binding *find_buffer(tine_env_t *env, const char *name) {
    for (int i = 0; i < env->nbufs; i++)
        if (env->bufs[i].name == name) return &env->bufs[i];
    for (int i = 0; i < env->nbufs; i++)
        if (!strcmp(env->bufs[i].name, name)) return &env->bufs[i];
    return NULL;
}

void tine_env_unbind_buffer(tine_env_t *env, const char *name) {
    buf_binding *b = find_buffer(env, name);
    if (b) *b = env->bufs[--env->nbufs];
}

bool tine_env_buffer(tine_env_t *env, const char *name, tine_type_t *elem, void **data, size_t *count) {
    const buf_binding *b = find_buffer(env, name);
    if (!b) return false;
    *elem = b->elem;
    *data = (void *)(uintptr_t)b->data; /* written in place by the statement interpreter */
    *count = b->count;
    return true;
}

/* ---- scalar semantics ------------------------------------------------------------------ */

static double getf(tine_type_t t, tine_u128 v) { return tine_float_of_bits(t, v); }
static tine_u128 putf(tine_type_t t, double d) { return tine_bits_of_float(t, d); }

static bool is_signed(tine_type_t t) { return t.kind == TINE_INT; }

/* The low n bits of v (n <= 128): a lane's bit pattern without its sign extension. */
static tine_u128 low_bits(tine_u128 v, int n) { return n >= 128 ? v : v & (((tine_u128)1 << n) - 1); }

static int cmp(tine_type_t t, tine_u128 a, tine_u128 b) {
    if (t.kind == TINE_FLOAT) {
        double x = getf(t, a), y = getf(t, b);
        return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2; /* 2: unordered */
    }
    if (is_signed(t)) return (tine_i128)a < (tine_i128)b ? -1 : (tine_i128)a > (tine_i128)b;
    return a < b ? -1 : a > b;
}

static tine_u128 shift(tine_type_t t, tine_u128 a, tine_type_t ts, tine_u128 s, bool left) {
    tine_u128 mag = s;
    if (is_signed(ts) && (tine_i128)s < 0) {
        left = !left;
        mag = -s;
    }
    if (left) return mag >= t.bits ? 0 : tine_canon(t, a << (int)mag);
    if (mag >= t.bits) return is_signed(t) && (tine_i128)a < 0 ? tine_canon(t, ~(tine_u128)0) : 0;
    if (is_signed(t)) return tine_canon(t, (tine_u128)((tine_i128)a >> (int)mag));
    return a >> (int)mag;
}

static tine_u128 divmod(tine_type_t t, tine_u128 a, tine_u128 b, bool div) {
    if (b == 0) return 0;
    if (!is_signed(t)) return div ? a / b : a % b;
    tine_i128 x = (tine_i128)a, y = (tine_i128)b;
    if (y == -1) return div ? tine_canon(t, 0 - a) : 0;
    tine_i128 q = x / y, r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) {
        q -= 1;
        r += y;
    }
    return tine_canon(t, (tine_u128)(div ? q : r));
}

static tine_u128 cast(tine_type_t to, tine_type_t from, tine_u128 v) {
    if (to.kind == TINE_BOOL) return from.kind == TINE_FLOAT ? getf(from, v) != 0.0 : v != 0;
    if (from.kind == TINE_FLOAT) {
        double d = getf(from, v);
        if (to.kind == TINE_FLOAT) return putf(to, d);
        if (isnan(d)) return 0;
        d = trunc(d);
        /* saturate: limits as doubles; 2^bits-ish bounds are exact powers of two */
        double lo = is_signed(to) ? -ldexp(1.0, to.bits - 1) : 0.0;
        double hi = is_signed(to) ? ldexp(1.0, to.bits - 1) : ldexp(1.0, to.bits);
        if (d < lo) return tine_canon(to, (tine_u128)tine_min_i128(to));
        if (d >= hi) return is_signed(to) ? tine_canon(to, (tine_u128)tine_max_i128(to)) : tine_canon(to, ~(tine_u128)0);
        if (d < 0) return tine_canon(to, (tine_u128)(tine_i128)d);
        return tine_canon(to, (tine_u128)d);
    }
    if (to.kind == TINE_FLOAT) {
        if (to.bits == 32) return putf(to, is_signed(from) ? (float)(tine_i128)v : (float)v);
        return putf(to, is_signed(from) ? (double)(tine_i128)v : (double)v);
    }
    return tine_canon(to, v);
}

static tine_u128 arith(tine_op_t op, tine_type_t t, tine_u128 a, tine_u128 b) {
    if (t.kind == TINE_FLOAT) {
        double x = getf(t, a), y = getf(t, b);
        switch (op) {
        case TINE_OP_ADD: return t.bits == 32 ? putf(t, (float)x + (float)y) : putf(t, x + y);
        case TINE_OP_SUB: return t.bits == 32 ? putf(t, (float)x - (float)y) : putf(t, x - y);
        case TINE_OP_MUL: return t.bits == 32 ? putf(t, (float)x * (float)y) : putf(t, x * y);
        case TINE_OP_DIV: return t.bits == 32 ? putf(t, (float)x / (float)y) : putf(t, x / y);
        case TINE_OP_MIN: return x < y ? a : b;
        case TINE_OP_MAX: return x > y ? a : b;
        default: break;
        }
    }
    switch (op) {
    case TINE_OP_ADD: return tine_canon(t, a + b);
    case TINE_OP_SUB: return tine_canon(t, a - b);
    case TINE_OP_MUL: return tine_canon(t, a * b);
    case TINE_OP_DIV: return divmod(t, a, b, true);
    case TINE_OP_MOD: return divmod(t, a, b, false);
    case TINE_OP_MIN: return cmp(t, a, b) < 0 ? a : b;
    case TINE_OP_MAX: return cmp(t, a, b) > 0 ? a : b;
    case TINE_OP_AND: return a & b;
    case TINE_OP_OR: return a | b;
    case TINE_OP_XOR: return a ^ b;
    default: TINE_ASSERT(!"not an arithmetic op"); return 0;
    }
}

static tine_u128 compare(tine_op_t op, tine_type_t t, tine_u128 a, tine_u128 b) {
    int c = cmp(t, a, b);
    switch (op) {
    case TINE_OP_EQ: return c == 0;
    case TINE_OP_NE: return c != 0;
    case TINE_OP_LT: return c == -1;
    case TINE_OP_LE: return c == -1 || c == 0;
    case TINE_OP_GT: return c == 1;
    case TINE_OP_GE: return c == 1 || c == 0;
    default: TINE_ASSERT(!"not a comparison"); return 0;
    }
}

/* ---- DAG evaluation ------------------------------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    tine_env_t *env;
    tine_arena scratch;
} interp;

static int eval_dag(interp *in, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                    tine_u128 *const *prevals, tine_u128 *out);

static tine_u128 load_elem(const buf_binding *b, size_t i) {
    const unsigned char *p = (const unsigned char *)b->data + i * (b->elem.bits / 8);
    uint64_t w = 0;
    switch (b->elem.bits) {
    case 8: w = *p; break;
    case 16: { uint16_t x; memcpy(&x, p, 2); w = x; break; }
    case 32: { uint32_t x; memcpy(&x, p, 4); w = x; break; }
    case 64: memcpy(&w, p, 8); break;
    }
    return b->elem.kind == TINE_FLOAT ? w : tine_canon(b->elem, w);
}

static int eval_node(interp *in, const tine_expr_t *e, tine_u128 *const *ov, tine_u128 *r) {
    tine_type_t t = e->type;
    int L = t.lanes;
    tine_op_t op = (tine_op_t)e->op;
    switch (op) {
    case TINE_OP_CONST:
        for (int i = 0; i < L; i++) r[i] = tine_const_value(e, i);
        return 0;
    case TINE_OP_VAR:
        for (int k = 0; k < in->env->nvars; k++)
            if (in->env->vars[k].var == e) {
                memcpy(r, in->env->vars[k].vals, sizeof *r * (size_t)L);
                return 0;
            }
        {
            char tn[16];
            tine_set_error(in->ctx, "variable %s_%s is not bound", tine_expr_name(e), tine_type_name(t, tn));
        }
        return -1;
    case TINE_OP_LOAD: {
        const char *name = tine_expr_name(e);
        const buf_binding *b = NULL;
        for (int k = 0; k < in->env->nbufs; k++)
            if (in->env->bufs[k].name == name) b = &in->env->bufs[k];
        char tn[16], tb[16];
        if (!b) {
            tine_set_error(in->ctx, "buffer %s is not bound", name);
            return -1;
        }
        if (b->elem.kind != t.kind || b->elem.bits != t.bits) {
            tine_set_error(in->ctx, "buffer %s holds %s but is loaded as %s", name, tine_type_name(b->elem, tb),
                           tine_type_name(t, tn));
            return -1;
        }
        for (int i = 0; i < L; i++) {
            tine_i128 idx = (tine_i128)ov[0][i];
            if (idx < 0 || (tine_u128)idx >= b->count) {
                tine_set_error(in->ctx, "load from %s at index %lld is out of bounds (it has %zu elements)", name,
                               (long long)idx, b->count);
                return -1;
            }
            r[i] = load_elem(b, (size_t)idx);
        }
        return 0;
    }
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD:
    case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
        for (int i = 0; i < L; i++) r[i] = arith(op, t, ov[0][i], ov[1][i]);
        return 0;
    case TINE_OP_NEG:
        for (int i = 0; i < L; i++)
            /* float: flip the sign bit (not through double, which quiets an f32 sNaN) */
            r[i] = t.kind == TINE_FLOAT ? ov[0][i] ^ ((tine_u128)1 << (t.bits - 1)) : tine_canon(t, 0 - ov[0][i]);
        return 0;
    case TINE_OP_NOT:
        for (int i = 0; i < L; i++) r[i] = t.kind == TINE_BOOL ? !ov[0][i] : tine_canon(t, ~ov[0][i]);
        return 0;
    case TINE_OP_SQRT:
        for (int i = 0; i < L; i++)
            r[i] = t.bits == 32 ? putf(t, sqrtf((float)getf(t, ov[0][i]))) : putf(t, sqrt(getf(t, ov[0][i])));
        return 0;
    case TINE_OP_FMA: /* C's fma: one rounding, RNE (the float one for f32, not through double) */
        for (int i = 0; i < L; i++)
            r[i] = t.bits == 32 ? putf(t, fmaf((float)getf(t, ov[0][i]), (float)getf(t, ov[1][i]), (float)getf(t, ov[2][i])))
                                : putf(t, fma(getf(t, ov[0][i]), getf(t, ov[1][i]), getf(t, ov[2][i])));
        return 0;
    case TINE_OP_SHL: case TINE_OP_SHR:
        for (int i = 0; i < L; i++) r[i] = shift(t, ov[0][i], e->ops[1]->type, ov[1][i], op == TINE_OP_SHL);
        return 0;
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        for (int i = 0; i < L; i++) r[i] = compare(op, e->ops[0]->type, ov[0][i], ov[1][i]);
        return 0;
    case TINE_OP_SELECT:
        for (int i = 0; i < L; i++) r[i] = ov[0][i] ? ov[1][i] : ov[2][i];
        return 0;
    case TINE_OP_CAST:
        for (int i = 0; i < L; i++) r[i] = cast(t, e->ops[0]->type, ov[0][i]);
        return 0;
    case TINE_OP_REINTERPRET: {
        /* little-endian: lane i holds bits i*tb ... i*tb + tb - 1 of the vector, from the
           k = tb / sb operand lanes it joins or the part of one lane it splits (bits are
           powers of two, so one divides the other) */
        int sb = e->ops[0]->type.bits, tb = t.bits;
        for (int i = 0; i < L; i++) {
            tine_u128 bits = 0;
            if (tb >= sb)
                for (int j = 0; j < tb / sb; j++) bits |= low_bits(ov[0][i * (tb / sb) + j], sb) << (j * sb);
            else
                bits = ov[0][i / (sb / tb)] >> (i % (sb / tb) * tb);
            bits = low_bits(bits, tb);
            r[i] = t.kind == TINE_FLOAT ? bits : tine_canon(t, bits);
        }
        return 0;
    }
    case TINE_OP_RAMP:
        for (int i = 0; i < L; i++) r[i] = tine_canon(t, ov[0][0] + (tine_u128)i * ov[1][0]);
        return 0;
    case TINE_OP_BROADCAST: case TINE_OP_CONCAT: case TINE_OP_INTERLEAVE: case TINE_OP_SLICE: case TINE_OP_DEINTERLEAVE:
        for (int i = 0; i < L; i++) {
            int j, l;
            tine_lane_source(e, i, &j, &l);
            r[i] = ov[j][l];
        }
        return 0;
    case TINE_OP_VECTOR_REDUCE_ADD: {
        int g = e->ops[0]->type.lanes / L;
        for (int i = 0; i < L; i++) {
            tine_u128 acc = ov[0][i * g];
            for (int j = 1; j < g; j++) acc = arith(TINE_OP_ADD, t, acc, ov[0][i * g + j]);
            r[i] = acc;
        }
        return 0;
    }
    case TINE_OP_INSN: { /* through the instruction's semantics */
        const tine_expr_t *const *ph;
        const tine_expr_t *tmpl = tine_node_template(in->ctx, e, &ph, false);
        return eval_dag(in, tmpl, e->nops, ph, ov, r);
    }
    default: break;
    }
    TINE_ASSERT(tine_op_is_fpir(op));
    const tine_expr_t *const *ph;
    const tine_expr_t *tmpl = tine_node_template(in->ctx, e, &ph, true);
    TINE_ASSERT(tmpl != NULL);
    return eval_dag(in, tmpl, e->nops, ph, ov, r);
}

static int visit(void *user, const tine_expr_t *e, void *const *ov, void **val) {
    interp *in = user;
    tine_u128 *ops[256], *r = tine_arena_alloc(&in->scratch, sizeof(tine_u128) * e->type.lanes);
    for (int i = 0; i < e->nops; i++) ops[i] = ov[i];
    *val = r;
    return eval_node(in, e, ops, r);
}

static int eval_dag(interp *in, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                    tine_u128 *const *prevals, tine_u128 *out) {
    void *pv[256], *r;
    TINE_ASSERT(npre <= 256);
    for (int j = 0; j < npre; j++) pv[j] = prevals[j];
    /* no values before the walk (the top-level call): none passed, not an unwritten array */
    int rc = tine_dag_values(in->ctx, root, npre, pre, npre ? pv : NULL, visit, in, &r);
    if (rc == 0) memcpy(out, r, sizeof *out * root->type.lanes);
    return rc;
}

int tine_eval128(tine_ctx_t *ctx, const tine_expr_t *e, tine_env_t *env, tine_u128 *out) {
    if (!e) {
        tine_set_error(ctx, "tine_eval: no expression");
        return -1;
    }
    interp in = {.ctx = ctx, .env = env};
    int rc = eval_dag(&in, e, 0, NULL, NULL, out);
    tine_arena_free(&in.scratch);
    return rc;
}

int tine_eval(tine_ctx_t *ctx, const tine_expr_t *e, tine_env_t *env, uint64_t *out) {
    if (e && e->type.bits > 64) {
        tine_set_error(ctx, "tine_eval returns lanes of at most 64 bits; this expression has 128");
        return -1;
    }
    tine_u128 v[TINE_MAX_LANES];
    if (tine_eval128(ctx, e, env, v) != 0) return -1;
    for (int i = 0; i < e->type.lanes; i++) out[i] = (uint64_t)v[i];
    return 0;
}

