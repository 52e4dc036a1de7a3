/* plan.c — bounds inference: the statements that check a call, find the region of every
 * stage from what its consumers read, check that the inputs cover what is read, and size
 * the scratch buffers. They are symbolic in the caller's buffers and parameters, so one
 * statement serves every run: the JIT and AOT objects compile it (stmt_gen.c) and the
 * statement interpreter and the reference run evaluate it (run.c). There is no other
 * planner.
 *
 * The caller's values reach the plan as variables (tine_call_var): for each buffer B,
 * $.B$given and $.B$data (bool: the buffer, and its data, are not NULL), $.B$dims (i32),
 * $.B$addr (u64, the data's address) and $.B$min0, $.B$extent0, $.B$stride0 ... (i64, as
 * the caller wrote them; '$' is in no identifier, so no two names meet); each parameter is its own variable. The plan checks the rules of
 * tine.h on them first, in the order tine.h gives, so nothing is computed from a value
 * before the value is known to be sane, and then binds the kernel's i32 geometry
 * variables ($B$min0 ...) that the loop nests use.
 *
 * Regions come from interval arithmetic on the one-lane bodies, built as i64 expressions
 * (sival): a stage's coordinates range over its region, a loop reduction's variable over
 * its loop, a scalar is its own value. Each rule is exact or an over-approximation, and a
 * result that may have wrapped its type becomes the type's whole range; any operation
 * without a rule gives its type's range. What the plan cannot bound tightly it still
 * bounds, and the input-coverage Assert refuses the run rather than read outside a buffer.
 */
#include "passes.h"

typedef struct {
    tine_expr_t *lo, *hi; /* i64, one lane; NULL: no bound (wide or float values) */
} sival;

/* The reads of one buffer: per dimension the lowest and highest coordinate, and whether
 * it is read at all (any; NULL: never). `sure` when any is known to hold. */
typedef struct {
    tine_expr_t *lo[4], *hi[4], *any;
    bool sure;
} region;

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_kernel_t *k;
    tine_type_t i64, i32, b;
    tine_plan_step *v;
    int n, cap;
    /* the stage being bounded */
    tine_expr_t *clo[4], *chi[4];
    const tine_expr_t **rvar;
    sival *rval;
    int nr;
    region *cur, *tot; /* per buffer (inputs, then stages): this stage's reads; all so far */
    const char *bad;   /* a buffer whose reads have no bound */
    tine_kernel_plan_t *plan;
} planner;

/* A bound that sizes the run (a loop's or a region's), for tine_kernel_param_sizes. */
static void sizing(planner *P, tine_expr_t *e) {
    if (e) TINE_PUSH(P->plan->sizing, P->plan->nsizing, P->plan->sizing_cap, e);
}

/* ---- i64 arithmetic, folded where both sides are constants ------------------------------- */

static bool k64(const tine_expr_t *e, int64_t *v) {
    if (!e || e->op != TINE_OP_CONST) return false;
    *v = (int64_t)(tine_i128)tine_const_value(e, 0);
    return true;
}

static tine_expr_t *c64(planner *P, int64_t v) { return tine_const_int(P->ctx, P->i64, v); }
static tine_expr_t *cb(planner *P, bool v) { return tine_const_int(P->ctx, P->b, v); }

static tine_expr_t *to64(planner *P, tine_expr_t *e) {
    if (e->type.kind == TINE_INT && e->type.bits == 64) return e;
    int64_t v;
    if (k64(e, &v) && e->type.bits <= 32) return c64(P, v);
    return tine_cast(P->ctx, P->i64, e);
}

static tine_expr_t *arith(planner *P, tine_op_t op, tine_expr_t *a, tine_expr_t *b) {
    int64_t x, y;
    if (k64(a, &x) && k64(b, &y)) { /* the plan's values stay far from 2^63: no wrap */
        switch (op) {
        case TINE_OP_ADD: return c64(P, x + y);
        case TINE_OP_SUB: return c64(P, x - y);
        case TINE_OP_MIN: return c64(P, x < y ? x : y);
        case TINE_OP_MAX: return c64(P, x > y ? x : y);
        default: break;
        }
    }
    if ((op == TINE_OP_ADD || op == TINE_OP_SUB) && k64(b, &y) && y == 0) return a;
    if (op == TINE_OP_ADD && k64(a, &x) && x == 0) return b;
    if ((op == TINE_OP_MIN || op == TINE_OP_MAX) && a == b) return a;
    return tine_binary(P->ctx, op, a, b);
}

static tine_expr_t *cmp(planner *P, tine_op_t op, tine_expr_t *a, tine_expr_t *b) {
    int64_t x, y;
    if (k64(a, &x) && k64(b, &y)) {
        switch (op) {
        case TINE_OP_LE: return cb(P, x <= y);
        case TINE_OP_GE: return cb(P, x >= y);
        case TINE_OP_LT: return cb(P, x < y);
        case TINE_OP_GT: return cb(P, x > y);
        default: break;
        }
    }
    return tine_binary(P->ctx, op, a, b);
}

static bool is_true(const tine_expr_t *e) {
    int64_t v;
    return k64(e, &v) && v != 0;
}
static bool is_false(const tine_expr_t *e) {
    int64_t v;
    return k64(e, &v) && v == 0;
}

static tine_expr_t *and_(planner *P, tine_expr_t *a, tine_expr_t *b) {
    if (is_true(a) || is_false(b)) return b;
    if (is_true(b) || is_false(a)) return a;
    if (a == b) return a; /* a nested loop's runs: its parent's K > 0 and its own */
    return tine_binary(P->ctx, TINE_OP_AND, a, b);
}
static tine_expr_t *or_(planner *P, tine_expr_t *a, tine_expr_t *b) {
    if (is_false(a) || is_true(b)) return b;
    if (is_false(b) || is_true(a)) return a;
    /* nodes are hash-consed: a condition already in a's chain of ors (K > 0 once per
       reduction's read) adds nothing; repeated, the chain grows with every read */
    for (const tine_expr_t *c = a;; c = tine_expr_operand(c, 0)) {
        if (c == b || (c->op == TINE_OP_OR && tine_expr_operand(c, 1) == b)) return a;
        if (c->op != TINE_OP_OR) break;
    }
    return tine_binary(P->ctx, TINE_OP_OR, a, b);
}
static tine_expr_t *not_(planner *P, tine_expr_t *a) {
    if (is_true(a) || is_false(a)) return cb(P, is_false(a));
    return tine_unary(P->ctx, TINE_OP_NOT, a);
}
static tine_expr_t *sel(planner *P, tine_expr_t *c, tine_expr_t *a, tine_expr_t *b) {
    if (is_true(c) || a == b) return a;
    if (is_false(c)) return b;
    return tine_select(P->ctx, c, a, b);
}

/* ---- steps ------------------------------------------------------------------------------- */

static void push(planner *P, tine_plan_step s) {
    TINE_PUSH(P->v, P->n, P->cap, s);
}

/* value, bound to a variable of that name when it is more than a leaf */
static tine_expr_t *let(planner *P, tine_expr_t *value, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static tine_expr_t *let(planner *P, tine_expr_t *value, const char *fmt, ...) {
    if (value->op == TINE_OP_CONST || value->op == TINE_OP_VAR) return value;
    char name[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    tine_expr_t *v = tine_var(P->ctx, name, value->type);
    push(P, (tine_plan_step){v, value, NULL});
    return v;
}

static void check(planner *P, tine_expr_t *cond, int code, const char *msg, tine_expr_t *const *args, int nargs) {
    if (is_true(cond)) return;
    push(P, (tine_plan_step){NULL, NULL, tine_stmt_assert_args(P->p, cond, code, msg, args, nargs)});
}

/* ---- the caller's buffers ------------------------------------------------------------------ */

tine_expr_t *tine_call_var(tine_ctx_t *ctx, const char *buffer, tine_call_what what, int dim) {
    static const char *const names[] = {"given", "data", "dims", "addr", "min", "extent", "stride"};
    char name[160];
    if (what >= TINE_CALL_MIN) snprintf(name, sizeof name, "$.%s$%s%d", buffer, names[what], dim);
    else snprintf(name, sizeof name, "$.%s$%s", buffer, names[what]);
    tine_type_t t = what <= TINE_CALL_DATA ? tine_type(TINE_BOOL, 1, 1)
                  : what == TINE_CALL_DIMS  ? tine_type(TINE_INT, 32, 1)
                  : what == TINE_CALL_ADDR  ? tine_type(TINE_UINT, 64, 1)
                                            : tine_type(TINE_INT, 64, 1);
    return tine_var(ctx, name, t);
}

/* The rules of tine.h for one buffer, refused with `code`; the bytes it spans (u64). */
static tine_expr_t *check_buffer(planner *P, const char *role, const char *name, int dims, int esize, bool is_out,
                                 int code) {
    tine_ctx_t *ctx = P->ctx;
    char msg[256];
#define CV(w, d) tine_call_var(ctx, name, (w), (d))
#define CHECK(cond, nargs, ...)                                                                                        \
    do {                                                                                                               \
        tine_expr_t *a_[] = {__VA_ARGS__};                                                                             \
        check(P, (cond), code, msg, a_, (nargs));                                                                      \
    } while (0)
    snprintf(msg, sizeof msg, "%s '%s' is NULL", role, name);
    check(P, CV(TINE_CALL_GIVEN, 0), code, msg, NULL, 0);
    snprintf(msg, sizeof msg, "%s '%s' has no data (data is NULL)", role, name);
    check(P, CV(TINE_CALL_DATA, 0), code, msg, NULL, 0);
    /* two checks, so the message says "1 dimension" and "3 dimensions" */
    tine_expr_t *same = tine_binary(ctx, TINE_OP_EQ, CV(TINE_CALL_DIMS, 0), tine_const_int(ctx, P->i32, dims));
    snprintf(msg, sizeof msg, "%s '%s' has 1 dimension; the kernel expects %d", role, name, dims);
    check(P, or_(P, same, tine_binary(ctx, TINE_OP_NE, CV(TINE_CALL_DIMS, 0), tine_const_int(ctx, P->i32, 1))), code, msg, NULL, 0);
    snprintf(msg, sizeof msg, "%s '%s' has {} dimensions; the kernel expects %d", role, name, dims);
    CHECK(same, 1, CV(TINE_CALL_DIMS, 0));
    tine_expr_t *i32min = c64(P, INT32_MIN), *i32max = c64(P, INT32_MAX), *one = c64(P, 1);
    for (int d = 0; d < dims; d++) {
        tine_expr_t *mn = CV(TINE_CALL_MIN, d), *ex = CV(TINE_CALL_EXTENT, d), *sd = CV(TINE_CALL_STRIDE, d);
        snprintf(msg, sizeof msg, "%s '%s' has an empty extent: extent[%d] = {} must be at least 1", role, name, d);
        CHECK(cmp(P, TINE_OP_GE, ex, one), 1, ex);
        snprintf(msg, sizeof msg, "%s '%s': extent[%d] = {} does not fit in i32", role, name, d);
        CHECK(cmp(P, TINE_OP_LE, ex, i32max), 1, ex);
        snprintf(msg, sizeof msg, "%s '%s': min[%d] = {} does not fit in i32", role, name, d);
        CHECK(and_(P, cmp(P, TINE_OP_GE, mn, i32min), cmp(P, TINE_OP_LE, mn, i32max)), 1, mn);
        /* both fit in i32 now: the sum cannot wrap */
        tine_expr_t *last = arith(P, TINE_OP_SUB, arith(P, TINE_OP_ADD, mn, ex), one);
        snprintf(msg, sizeof msg, "%s '%s': min[%d] + extent[%d] - 1 = {} does not fit in i32", role, name, d, d);
        CHECK(cmp(P, TINE_OP_LE, last, i32max), 1, last);
        if (d == 0) continue;
        snprintf(msg, sizeof msg, "%s '%s': stride[%d] = {} must be positive", role, name, d);
        CHECK(cmp(P, TINE_OP_GE, sd, one), 1, sd);
        snprintf(msg, sizeof msg, "%s '%s': stride[%d] = {} does not fit in i32", role, name, d);
        CHECK(cmp(P, TINE_OP_LE, sd, i32max), 1, sd);
    }
    /* the largest index, term by term: each term < 2^62 once its factors fit in i32 */
    tine_expr_t *last = c64(P, 0);
    snprintf(msg, sizeof msg, "%s '%s' spans more than 2^31 elements (its largest index must fit in i32)", role, name);
    for (int d = 0; d < dims; d++) {
        tine_expr_t *ex = arith(P, TINE_OP_SUB, CV(TINE_CALL_EXTENT, d), one);
        last = arith(P, TINE_OP_ADD, last, d ? tine_binary(ctx, TINE_OP_MUL, ex, CV(TINE_CALL_STRIDE, d)) : ex);
        last = let(P, last, "$.%s$last%d", name, d);
        check(P, cmp(P, TINE_OP_LE, last, i32max), code, msg, NULL, 0);
    }
    /* the output's rows nest: nothing is written twice */
    for (int d = 1; d < dims && is_out; d++) {
        tine_expr_t *prev = d > 1 ? tine_binary(ctx, TINE_OP_MUL, CV(TINE_CALL_STRIDE, d - 1), CV(TINE_CALL_EXTENT, d - 1))
                                  : CV(TINE_CALL_EXTENT, 0);
        snprintf(msg, sizeof msg, "%s '%s': stride[%d] = {} is less than extent[%d] x stride[%d] = {} (its rows would overlap)",
                 role, name, d, d - 1, d - 1);
        CHECK(cmp(P, TINE_OP_GE, CV(TINE_CALL_STRIDE, d), prev), 2, CV(TINE_CALL_STRIDE, d), prev);
    }
#undef CHECK
#undef CV
    tine_type_t u64 = tine_type(TINE_UINT, 64, 1);
    return tine_cast(ctx, u64, tine_binary(ctx, TINE_OP_MUL, arith(P, TINE_OP_ADD, last, one), c64(P, esize)));
}

/* The kernel's geometry variables of a caller's buffer (input >= 0, or the output). */
static void bind_geometry(planner *P, int input, const char *name, int dims) {
    const tine_kernel_t *k = P->k;
    int out = input < 0 ? tine_kernel_nstages(k) - 1 : -1;
    for (int d = 0; d < dims; d++)
        for (int w = TINE_KS_MIN; w <= TINE_KS_STRIDE; w++) {
            const tine_kscalar *ks = tine_kernel_geometry(k, input, out, (tine_ks_what)w, d);
            if (!ks) continue;
            tine_call_what cw = w == TINE_KS_MIN ? TINE_CALL_MIN : w == TINE_KS_EXTENT ? TINE_CALL_EXTENT : TINE_CALL_STRIDE;
            /* stride[0] is ignored: dimension 0 is dense */
            tine_expr_t *v = w == TINE_KS_STRIDE && d == 0 ? tine_const_int(P->ctx, P->i32, 1)
                                                           : tine_cast(P->ctx, P->i32, tine_call_var(P->ctx, name, cw, d));
            push(P, (tine_plan_step){(tine_expr_t *)ks->var, v, NULL});
        }
}

/* Every caller's buffer by the rules, output first, then the inputs, then aliasing: the
 * codes of tine.h (tine_run_code_t). */
static void check_call(planner *P) {
    const tine_kernel_t *k = P->k;
    tine_ctx_t *ctx = P->ctx;
    const char *oname = tine_kernel_output_name(k);
    tine_expr_t *obytes = check_buffer(P, "output", oname, tine_kernel_dims(k), tine_kernel_output_type(k).bits / 8, true, TINE_RUN_OUTPUT);
    int nin = tine_kernel_ninputs(k);
    tine_expr_t **ibytes = tine_xcalloc((size_t)nin + 1, sizeof *ibytes);
    for (int i = 0; i < nin; i++) {
        int dims;
        tine_type_t t;
        const char *name = tine_kernel_input(k, i, &t, &dims);
        ibytes[i] = check_buffer(P, "input", name, dims, t.bits / 8, false, TINE_RUN_INPUT + i);
    }
    tine_expr_t *o = tine_call_var(ctx, oname, TINE_CALL_ADDR, 0);
    for (int i = 0; i < nin; i++) {
        const char *name = tine_kernel_input(k, i, NULL, NULL);
        tine_expr_t *p = tine_call_var(ctx, name, TINE_CALL_ADDR, 0);
        /* [o, o + obytes) and [p, p + ibytes) meet; no address is near 2^64 */
        tine_expr_t *meet = and_(P, tine_binary(ctx, TINE_OP_LT, o, tine_binary(ctx, TINE_OP_ADD, p, ibytes[i])),
                                 tine_binary(ctx, TINE_OP_LT, p, tine_binary(ctx, TINE_OP_ADD, o, obytes)));
        char msg[200];
        snprintf(msg, sizeof msg, "output '%s' overlaps input '%s' in memory; an output must not alias an input", oname, name);
        check(P, not_(P, meet), TINE_RUN_OVERLAP, msg, NULL, 0);
    }
    free(ibytes);
    /* each parameter in its declared range: selection assumes it (select.c) */
    for (int i = 0; i < tine_kernel_nparams(k); i++) {
        tine_type_t t;
        int64_t lo, hi;
        const char *name = tine_kernel_param(k, i, &t);
        if (!tine_kernel_param_range(k, i, &lo, &hi)) continue;
        tine_expr_t *v = tine_kernel_param_var(ctx, name, t);
        tine_expr_t *in = tine_binary(ctx, TINE_OP_AND, tine_binary(ctx, TINE_OP_GE, v, tine_const_int(ctx, t, lo)),
                                      tine_binary(ctx, TINE_OP_LE, v, tine_const_int(ctx, t, hi)));
        char msg[200];
        snprintf(msg, sizeof msg, "parameter '%s' is {}; the kernel declares it in %lld..%lld", name, (long long)lo,
                 (long long)hi);
        check(P, in, TINE_RUN_PARAM, msg, &v, 1);
    }
    bind_geometry(P, -1, oname, tine_kernel_dims(k));
    for (int i = 0; i < nin; i++) {
        int dims;
        const char *name = tine_kernel_input(k, i, NULL, &dims);
        bind_geometry(P, i, name, dims);
    }
}

/* ---- intervals ------------------------------------------------------------------------------ */

static sival type_range(planner *P, tine_type_t t) {
    if (t.kind == TINE_BOOL) return (sival){c64(P, 0), c64(P, 1)};
    if (!tine_type_is_int(t) || t.bits > 32) return (sival){NULL, NULL};
    return (sival){c64(P, tine_type_min(t)), c64(P, (int64_t)tine_type_max(t))};
}

static bool known(sival a) { return a.lo && a.hi; }

/* r where it lies inside t's range; else t's range (the operation wrapped) */
static sival wrap_guard(planner *P, tine_type_t t, sival r) {
    sival tr = type_range(P, t);
    if (!known(r) || !known(tr)) return tr;
    tine_expr_t *in = and_(P, cmp(P, TINE_OP_GE, r.lo, tr.lo), cmp(P, TINE_OP_LE, r.hi, tr.hi));
    return (sival){sel(P, in, r.lo, tr.lo), sel(P, in, r.hi, tr.hi)};
}

/* whether a lies in [-2^31, 2^31]: products of two such values fit in i64 */
static tine_expr_t *small(planner *P, sival a) {
    return and_(P, cmp(P, TINE_OP_GE, a.lo, c64(P, -((int64_t)1 << 31))), cmp(P, TINE_OP_LE, a.hi, c64(P, (int64_t)1 << 31)));
}

static bool const_int(const tine_expr_t *e, int64_t *v) {
    if (e->op != TINE_OP_CONST || !(e->flags & TINE_F_UNIFORM) || !tine_type_is_int(e->type) || e->type.bits > 32) return false;
    *v = (int64_t)(tine_i128)tine_const_value(e, 0);
    return true;
}

static sival mul(planner *P, tine_type_t t, sival a, sival b) {
    if (!known(a) || !known(b)) return type_range(P, t);
    tine_expr_t *ok = and_(P, small(P, a), small(P, b));
    tine_expr_t *p[4] = {tine_binary(P->ctx, TINE_OP_MUL, a.lo, b.lo), tine_binary(P->ctx, TINE_OP_MUL, a.lo, b.hi),
                         tine_binary(P->ctx, TINE_OP_MUL, a.hi, b.lo), tine_binary(P->ctx, TINE_OP_MUL, a.hi, b.hi)};
    int64_t c;
    sival r;
    if (k64(b.lo, &c) && b.lo == b.hi) /* by a constant: two corners */
        r = c >= 0 ? (sival){p[0], p[3]} : (sival){p[3], p[0]};
    else
        r = (sival){arith(P, TINE_OP_MIN, arith(P, TINE_OP_MIN, p[0], p[1]), arith(P, TINE_OP_MIN, p[2], p[3])),
                    arith(P, TINE_OP_MAX, arith(P, TINE_OP_MAX, p[0], p[1]), arith(P, TINE_OP_MAX, p[2], p[3]))};
    sival tr = type_range(P, t), w = wrap_guard(P, t, r);
    return (sival){sel(P, ok, w.lo, tr.lo), sel(P, ok, w.hi, tr.hi)};
}

static sival node(planner *P, const tine_expr_t *e, const sival *o) {
    tine_type_t t = e->type;
    int64_t c;
    bool small_int = tine_type_is_int(t) && t.bits <= 32;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST:
        if (const_int(e, &c)) return (sival){c64(P, c), c64(P, c)};
        if (small_int && !(e->flags & TINE_F_UNIFORM)) { /* lane offsets (a vectorized constant reduction's) */
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (int i = 0; i < t.lanes; i++) {
                int64_t v = (int64_t)(tine_i128)tine_const_value(e, i);
                v = t.kind == TINE_UINT ? (int64_t)((uint64_t)v & ((uint64_t)-1 >> (64 - t.bits))) : v;
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            return (sival){c64(P, lo), c64(P, hi)};
        }
        return type_range(P, t);
    case TINE_OP_RAMP: /* base + i * c for the lanes i, c a constant stride */
        if (small_int && known(o[0]) && const_int(e->ops[1], &c)) {
            int64_t span = c * (t.lanes - 1);
            sival r = {arith(P, TINE_OP_ADD, o[0].lo, c64(P, span < 0 ? span : 0)),
                       arith(P, TINE_OP_ADD, o[0].hi, c64(P, span > 0 ? span : 0))};
            return wrap_guard(P, t, r);
        }
        return type_range(P, t);
    case TINE_OP_VAR: {
        for (int i = 0; i < P->nr; i++)
            if (P->rvar[i] == e) return P->rval[i];
        int d = tine_kernel_coord_dim(tine_expr_name(e));
        if (d >= 0 && P->clo[d]) return (sival){P->clo[d], P->chi[d]};
        if (small_int && tine_kernel_scalar_of(P->k, e)) return (sival){to64(P, (tine_expr_t *)e), to64(P, (tine_expr_t *)e)};
        return type_range(P, t);
    }
    case TINE_OP_BROADCAST: return o[0];
    case TINE_OP_ADD:
    case TINE_OP_SUB:
        if (!small_int || !known(o[0]) || !known(o[1])) return type_range(P, t);
        if (e->op == TINE_OP_ADD)
            return wrap_guard(P, t, (sival){arith(P, TINE_OP_ADD, o[0].lo, o[1].lo), arith(P, TINE_OP_ADD, o[0].hi, o[1].hi)});
        return wrap_guard(P, t, (sival){arith(P, TINE_OP_SUB, o[0].lo, o[1].hi), arith(P, TINE_OP_SUB, o[0].hi, o[1].lo)});
    case TINE_OP_NEG:
        if (!small_int || t.kind != TINE_INT || !known(o[0])) return type_range(P, t);
        return wrap_guard(P, t, (sival){arith(P, TINE_OP_SUB, c64(P, 0), o[0].hi), arith(P, TINE_OP_SUB, c64(P, 0), o[0].lo)});
    case TINE_OP_MUL:
        if (!small_int) return type_range(P, t);
        return const_int(e->ops[0], &c) ? mul(P, t, o[1], o[0]) : mul(P, t, o[0], o[1]);
    case TINE_OP_DIV: /* floor division by a positive constant is monotone; i64 `/` floors too */
        if (small_int && const_int(e->ops[1], &c) && c > 0 && known(o[0]))
            return (sival){tine_binary(P->ctx, TINE_OP_DIV, o[0].lo, c64(P, c)), tine_binary(P->ctx, TINE_OP_DIV, o[0].hi, c64(P, c))};
        return type_range(P, t);
    case TINE_OP_MOD: /* the floor remainder by c > 0 lies in [0, c - 1] */
        if (small_int && const_int(e->ops[1], &c) && c > 0) return (sival){c64(P, 0), c64(P, c - 1)};
        return type_range(P, t);
    case TINE_OP_SHR: /* a right shift by a constant is monotone (unsigned values are >= 0) */
        if (small_int && const_int(e->ops[1], &c) && c >= 0 && c < t.bits && known(o[0]))
            return (sival){tine_binary(P->ctx, TINE_OP_SHR, o[0].lo, c64(P, c)), tine_binary(P->ctx, TINE_OP_SHR, o[0].hi, c64(P, c))};
        return type_range(P, t);
    case TINE_OP_SHL:
        if (small_int && const_int(e->ops[1], &c) && c >= 0 && c < t.bits && c < 31)
            return mul(P, t, o[0], (sival){c64(P, (int64_t)1 << c), c64(P, (int64_t)1 << c)});
        return type_range(P, t);
    case TINE_OP_AND: /* x & c for c >= 0 lies in [0, c] */
        for (int i = 0; i < 2 && small_int; i++)
            if (const_int(e->ops[i], &c) && c >= 0) return (sival){c64(P, 0), c64(P, c)};
        return type_range(P, t);
    case TINE_OP_MIN:
    case TINE_OP_MAX: {
        if (!small_int || !known(o[0]) || !known(o[1])) return type_range(P, t);
        tine_op_t op = (tine_op_t)e->op;
        return (sival){arith(P, op, o[0].lo, o[1].lo), arith(P, op, o[0].hi, o[1].hi)};
    }
    case TINE_OP_SELECT:
        if (known(o[1]) && known(o[2]))
            return (sival){arith(P, TINE_OP_MIN, o[1].lo, o[2].lo), arith(P, TINE_OP_MAX, o[1].hi, o[2].hi)};
        return type_range(P, t);
    case TINE_OP_CAST:
        if (small_int && (tine_type_is_int(e->ops[0]->type) || e->ops[0]->type.kind == TINE_BOOL) && e->ops[0]->type.bits <= 32)
            return wrap_guard(P, t, o[0]);
        return type_range(P, t);
    default: return type_range(P, t);
    }
}

/* ---- a stage's reads --------------------------------------------------------------------------- */

/* The buffer a load reads: its index among inputs, then stages; -1 if none. */
static int buffer_index(const tine_kernel_t *k, const char *name, int *dims) {
    for (int i = 0; i < tine_kernel_ninputs(k); i++)
        if (!strcmp(tine_kernel_input(k, i, NULL, dims), name)) return i;
    for (int s = 0; s + 1 < tine_kernel_nstages(k); s++)
        if (!strcmp(tine_kernel_stage(k, s)->name, name)) {
            *dims = tine_kernel_stage(k, s)->dims;
            return tine_kernel_ninputs(k) + s;
        }
    return -1;
}

/* Whether x is one of the terms of a chain of op (min or max) nodes. */
static bool in_chain(const tine_expr_t *chain, tine_op_t op, const tine_expr_t *x) {
    while (chain != x && chain->op == op) {
        if (tine_expr_operand(chain, 1) == x) return true;
        chain = tine_expr_operand(chain, 0);
    }
    return chain == x;
}

static tine_expr_t *extend(planner *P, tine_op_t op, tine_expr_t *chain, tine_expr_t *x) {
    return in_chain(chain, op, x) ? chain : arith(P, op, chain, x);
}

/* r widened by a read at c[] when `active` holds. */
static void widen(planner *P, region *r, int dims, const sival *c, tine_expr_t *active) {
    for (int d = 0; d < dims; d++) {
        tine_expr_t *lo = r->any ? extend(P, TINE_OP_MIN, r->lo[d], c[d].lo) : c[d].lo;
        tine_expr_t *hi = r->any ? extend(P, TINE_OP_MAX, r->hi[d], c[d].hi) : c[d].hi;
        /* read before under this same condition: a region is used only where its `any`
           holds, so no selects (they would nest one level per read: 9 taps, megabytes) */
        bool same = r->any == active;
        if (r->any && !same && !r->sure) { /* it may not have been read: then only this read counts */
            lo = sel(P, r->any, lo, c[d].lo);
            hi = sel(P, r->any, hi, c[d].hi);
        }
        const tine_expr_t *plo = r->lo[d], *phi = r->hi[d];
        if (r->sure && !same && !is_true(active) && plo->op == TINE_OP_SELECT && phi->op == TINE_OP_SELECT &&
            plo->ops[0] == active && phi->ops[0] == active) {
            /* the last read was under this condition too (a loop's update reads several
               times): widen its side of that select, one select per condition instead of
               one per read */
            lo = sel(P, active, extend(P, TINE_OP_MIN, plo->ops[1], c[d].lo), plo->ops[2]);
            hi = sel(P, active, extend(P, TINE_OP_MAX, phi->ops[1], c[d].hi), phi->ops[2]);
        } else if (r->any && !same && !is_true(active)) {
            lo = sel(P, active, lo, r->lo[d]);
            hi = sel(P, active, hi, r->hi[d]);
        }
        r->lo[d] = lo;
        r->hi[d] = hi;
    }
    r->any = r->any ? or_(P, r->any, active) : active;
    r->sure = r->sure || is_true(active);
}

/* The intervals of every node of root (one DAG of a stage); its loads widen P->cur when
 * `active` holds. *out: the root's interval. */
static void reads(planner *P, const tine_expr_t *root, tine_expr_t *active, sival *out) {
    uint32_t n;
    tine_expr_t **order = tine_topo(P->ctx, root, &n);
    sival *v = tine_xcalloc(n, sizeof *v);
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *e = order[i];
        sival o[UINT8_MAX + 1]; /* nops is a uint8_t */
        for (int j = 0; j < e->nops; j++) o[j] = v[tine_topo_index(order, n, e->ops[j])];
        v[i] = node(P, e, o);
        if (e->op != TINE_OP_LOAD) continue;
        int dims = 0, b = buffer_index(P->k, tine_expr_name(e), &dims);
        const tine_expr_t *x[4];
        if (b < 0 || !tine_kernel_load_coords(tine_expr_operand(e, 0), dims, x)) {
            P->bad = tine_expr_name(e);
            continue;
        }
        sival c[4];
        for (int d = 0; d < dims; d++) {
            c[d] = v[tine_topo_index(order, n, x[d])];
            if (!known(c[d])) P->bad = tine_expr_name(e);
        }
        if (!P->bad) widen(P, &P->cur[b], dims, c, active);
    }
    if (out) *out = v[n - 1];
    free(v);
    free(order);
}

/* Stage st's reads over its region (P->clo, P->chi set) into P->cur: its body, and each
 * loop reduction's bounds and update, the update's loads counted only when its loop runs. */
static void stage_reads(planner *P, const tine_stage *st) {
    tine_expr_t *yes = cb(P, true);
    reads(P, st->body1, yes, NULL);
    tine_expr_t **runs = tine_xcalloc((size_t)st->reds1.n + 1, sizeof *runs);
    P->rvar = tine_xcalloc((size_t)st->reds1.n + 1, sizeof *P->rvar);
    P->rval = tine_xcalloc((size_t)st->reds1.n + 1, sizeof *P->rval);
    P->nr = 0;
    for (int i = 0; i < st->reds1.n && !P->bad; i++) {
        const tine_reduction *R = &st->reds1.v[i];
        sival lo, hi;
        reads(P, R->lo, yes, &lo);
        reads(P, R->hi, yes, &hi);
        if (!known(lo) || !known(hi)) {
            P->bad = "a loop reduction's bounds";
            break;
        }
        sizing(P, lo.lo);
        sizing(P, hi.hi);
        tine_expr_t *r = cmp(P, TINE_OP_GT, hi.hi, lo.lo);
        runs[i] = R->parent >= 0 ? and_(P, runs[R->parent], r) : r;
        P->rvar[P->nr] = R->r;
        P->rval[P->nr++] = (sival){lo.lo, arith(P, TINE_OP_SUB, hi.hi, c64(P, 1))};
        reads(P, R->update, runs[i], NULL);
    }
    free(runs);
    free(P->rvar);
    free(P->rval);
    P->rvar = NULL;
    P->rval = NULL;
    P->nr = 0;
}

/* ---- the plan ------------------------------------------------------------------------------------ */

/* "[lo0, hi0] x [lo1, hi1]" with a "{}" per value, and the values. */
static int region_text(tine_buf *b, int dims, tine_expr_t *const *lo, tine_expr_t *const *hi, tine_expr_t **args) {
    int n = 0;
    for (int d = 0; d < dims; d++) {
        tine_buf_puts(b, d ? " x [{}, {}]" : "[{}, {}]");
        args[n++] = lo[d];
        args[n++] = hi[d];
    }
    return n;
}

/* Each input stage st reads covers what it reads (code: TINE_RUN_INPUT + i). */
static void check_inputs(planner *P, const tine_stage *st, bool is_out) {
    const tine_kernel_t *k = P->k;
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        region *r = &P->cur[i];
        if (!r->any) continue;
        int dims;
        const char *name = tine_kernel_input(k, i, NULL, &dims);
        tine_expr_t *inside = cb(P, true), *args[TINE_ASSERT_MAX_ARGS], *ilo[4], *ihi[4];
        tine_plan_read pr = {.input = i, .any = r->any};
        for (int d = 0; d < dims; d++) {
            sizing(P, r->lo[d]);
            sizing(P, r->hi[d]);
            ilo[d] = to64(P, (tine_expr_t *)tine_kernel_geometry(k, i, -1, TINE_KS_MIN, d)->var);
            ihi[d] = arith(P, TINE_OP_SUB, arith(P, TINE_OP_ADD, ilo[d], to64(P, (tine_expr_t *)tine_kernel_geometry(k, i, -1, TINE_KS_EXTENT, d)->var)),
                           c64(P, 1));
            r->lo[d] = let(P, r->lo[d], "$.%s$%s$lo%d", st->name, name, d);
            r->hi[d] = let(P, r->hi[d], "$.%s$%s$hi%d", st->name, name, d);
            inside = and_(P, inside, and_(P, cmp(P, TINE_OP_GE, r->lo[d], ilo[d]), cmp(P, TINE_OP_LE, r->hi[d], ihi[d])));
            pr.lo[d] = r->lo[d];
            pr.hi[d] = r->hi[d];
        }
        TINE_PUSH(P->plan->reads, P->plan->nreads, P->plan->reads_cap, pr);
        tine_buf msg = {0};
        tine_buf_printf(&msg, "input '%s' is too small for %s%s: the kernel reads it at ", name, is_out ? "this output" : "stage ",
                        is_out ? "" : st->name);
        int n = region_text(&msg, dims, r->lo, r->hi, args);
        tine_buf_puts(&msg, ", but it covers ");
        n += region_text(&msg, dims, ilo, ihi, args + n);
        check(P, r->sure ? inside : or_(P, not_(P, r->any), inside), TINE_RUN_INPUT + i, msg.p, args, n);
        free(msg.p);
    }
}

/* Stage s's region (from P->tot), checked against the limits of a scratch buffer (code -1),
 * bound to its geometry variables; its size in elements, and whether anything reads it. */
static void stage_region(planner *P, int s, tine_kernel_plan_t *plan) {
    const tine_kernel_t *k = P->k;
    const tine_stage *st = tine_kernel_stage(k, s);
    region *r = &P->tot[tine_kernel_ninputs(k) + s];
    tine_ctx_t *ctx = P->ctx;
    if (!r->any) { /* nothing reads it: it never runs */
        plan->read[s] = cb(P, false);
        plan->size[s] = tine_const_int(ctx, P->i32, 0);
        return;
    }
    tine_expr_t *read = plan->read[s] = let(P, r->any, "$.%s$read", st->name);
    tine_expr_t *total = c64(P, 1), *stride = c64(P, 1);
    char msg[200];
    for (int d = 0; d < st->dims; d++) {
        tine_expr_t *lo = r->lo[d], *hi = r->hi[d];
        sizing(P, lo);
        sizing(P, hi);
        tine_expr_t *ex = arith(P, TINE_OP_ADD, arith(P, TINE_OP_SUB, hi, lo), c64(P, 1));
        tine_expr_t *fits = and_(P, and_(P, cmp(P, TINE_OP_GE, lo, c64(P, INT32_MIN)), cmp(P, TINE_OP_LE, hi, c64(P, INT32_MAX))),
                                 cmp(P, TINE_OP_LE, ex, c64(P, (int64_t)1 << 28)));
        snprintf(msg, sizeof msg, "stage '%s' would span [{}, {}] in dimension %d: too large", st->name, d);
        tine_expr_t *args[2] = {lo, hi};
        check(P, or_(P, not_(P, read), fits), TINE_RUN_SCRATCH, msg, args, 2);
        /* an unread stage's geometry is never used; 0 keeps every value in range. The
           nests read the kernel's own variables ($S$min0 ...): those are bound. */
        const tine_kscalar *ks[3] = {tine_kernel_geometry(k, -1, s, TINE_KS_MIN, d), tine_kernel_geometry(k, -1, s, TINE_KS_EXTENT, d),
                                     tine_kernel_geometry(k, -1, s, TINE_KS_STRIDE, d)};
        tine_expr_t *vals[3] = {tine_cast(ctx, P->i32, sel(P, read, lo, c64(P, 0))), tine_cast(ctx, P->i32, sel(P, read, ex, c64(P, 0))),
                                tine_cast(ctx, P->i32, stride)};
        for (int w = 0; w < 3; w++)
            if (ks[w]) push(P, (tine_plan_step){(tine_expr_t *)ks[w]->var, vals[w], NULL});
        tine_expr_t *ext = ks[1] ? (tine_expr_t *)ks[1]->var : vals[1];
        /* the running product is checked before the next factor: each < 2^31 * 2^28 */
        total = let(P, tine_binary(ctx, TINE_OP_MUL, total, to64(P, ext)), "$.%s$elems%d", st->name, d);
        stride = total;
        snprintf(msg, sizeof msg, "stage '%s' would need more than 2^31 - 1 elements: too large", st->name);
        check(P, cmp(P, TINE_OP_LE, total, c64(P, INT32_MAX)), TINE_RUN_SCRATCH, msg, NULL, 0);
    }
    plan->size[s] = tine_cast(ctx, P->i32, total);
}

int tine_stmt_plan(tine_stmt_pool *p, const tine_kernel_t *k, tine_kernel_plan_t *plan) {
    tine_ctx_t *ctx = p->ctx;
    int ns = tine_kernel_nstages(k), nb = tine_kernel_ninputs(k) + ns;
    planner P = {.p = p, .ctx = ctx, .k = k, .i64 = tine_type(TINE_INT, 64, 1), .i32 = tine_type(TINE_INT, 32, 1),
                 .b = tine_type(TINE_BOOL, 1, 1), .plan = plan};
    P.cur = tine_xcalloc((size_t)nb, sizeof *P.cur);
    P.tot = tine_xcalloc((size_t)nb, sizeof *P.tot);
    memset(plan, 0, sizeof *plan);
    plan->read = tine_xcalloc((size_t)ns, sizeof *plan->read);
    plan->size = tine_xcalloc((size_t)ns, sizeof *plan->size);
    check_call(&P);
    plan->read[ns - 1] = cb(&P, true);
    /* from the output back: each stage's region is known when its turn comes (its
       consumers run after it, so they came before in this walk) */
    for (int s = ns - 1; s >= 0 && !P.bad; s--) {
        const tine_stage *st = tine_kernel_stage(k, s);
        if (s < ns - 1) stage_region(&P, s, plan);
        if (is_false(plan->read[s])) continue;
        for (int d = 0; d < st->dims; d++) {
            P.clo[d] = to64(&P, (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_MIN, d)->var);
            P.chi[d] = arith(&P, TINE_OP_SUB, arith(&P, TINE_OP_ADD, P.clo[d], to64(&P, (tine_expr_t *)tine_kernel_geometry(k, -1, s, TINE_KS_EXTENT, d)->var)),
                             c64(&P, 1));
        }
        memset(P.cur, 0, sizeof *P.cur * (size_t)nb);
        stage_reads(&P, st);
        if (P.bad) break;
        /* an unread stage reads nothing */
        for (int b = 0; b < nb && s < ns - 1; b++)
            if (P.cur[b].any) {
                P.cur[b].any = and_(&P, plan->read[s], P.cur[b].any);
                P.cur[b].sure = P.cur[b].sure && is_true(plan->read[s]);
            }
        check_inputs(&P, st, s == ns - 1);
        for (int q = 0; q < s; q++) { /* the stages it reads: their regions so far */
            region *c = &P.cur[tine_kernel_ninputs(k) + q], *t = &P.tot[tine_kernel_ninputs(k) + q];
            if (!c->any) continue;
            const tine_stage *qs = tine_kernel_stage(k, q);
            sival cs[4];
            for (int d = 0; d < qs->dims; d++) cs[d] = (sival){c->lo[d], c->hi[d]};
            widen(&P, t, qs->dims, cs, c->any);
            for (int d = 0; d < qs->dims; d++) {
                t->lo[d] = let(&P, t->lo[d], "$.%s$lo%d$%s", qs->name, d, st->name);
                t->hi[d] = let(&P, t->hi[d], "$.%s$hi%d$%s", qs->name, d, st->name);
            }
            t->any = let(&P, t->any, "$.%s$any$%s", qs->name, st->name);
        }
    }
    free(P.cur);
    free(P.tot);
    if (P.bad) {
        tine_set_error(ctx, "the reads of '%s' cannot be bounded by interval arithmetic", P.bad);
        free(P.v);
        tine_kernel_plan_free(plan);
        return -1;
    }
    tine_plan_share(p, &P.v, &P.n, &P.cap);
    plan->steps = P.v;
    plan->nsteps = P.n;
    return 0;
}

void tine_kernel_plan_free(tine_kernel_plan_t *plan) {
    free(plan->steps);
    free(plan->reads);
    free(plan->sizing);
    free(plan->read);
    free(plan->size);
    memset(plan, 0, sizeof *plan);
}

tine_stmt *tine_stmt_plan_around(tine_stmt_pool *p, const tine_kernel_plan_t *plan, tine_stmt *body) {
    for (int i = plan->nsteps - 1; i >= 0; i--) {
        const tine_plan_step *s = &plan->steps[i];
        body = s->var ? tine_stmt_let(p, s->var, s->value, body) : tine_stmt_block2(p, s->check, body);
    }
    return body;
}
