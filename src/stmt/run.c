/* run.c — kernel runs without compiled code, all through the one plan of plan.c:
 *   - tine_kernel_check_region evaluates the plan alone; tine_kernel_input_regions
 *     evaluates it too, to learn what the inputs must cover, and tine_kernel_param_sizes
 *     reads it;
 *   - tine_kernel_interpret, the reference, evaluates the plan and then each stage one
 *     element at a time on the expression interpreter, no loop nest involved;
 *   - tine_call_bind binds a run's values for the statement interpreter, with which the
 *     compile driver's tine_kernel_interpret_stmt runs the statement after any step
 *     (src/driver/run.c).
 * A compiled run (codegen/kernel_gen.c) binds the caller's values as tine_call_bind
 * does here, in code.
 */
#include "passes.h"

/* Elements a caller's buffer spans (the largest flattened index + 1), or 0 when its
 * geometry breaks the rules (the plan refuses the run before anything is read). */
static size_t span(const tine_buffer_t *b, int dims) {
    tine_i128 n = 1;
    for (int d = 0; d < dims; d++) {
        int64_t s = d ? b->stride[d] : 1;
        if (b->extent[d] < 1 || b->extent[d] > INT32_MAX || s < 1 || s > INT32_MAX) return 0;
        n += (tine_i128)(b->extent[d] - 1) * s;
    }
    return n > INT32_MAX ? 0 : (size_t)n;
}

static void bind_i64(tine_env_t *env, const tine_expr_t *var, int64_t v) {
    uint64_t u = (uint64_t)v;
    tine_env_bind(env, var, &u);
}

/* One caller's buffer: the variables of tine_call_var, and its data by name. */
static void bind_buffer(tine_env_t *env, tine_ctx_t *ctx, const char *name, tine_type_t et, int dims,
                        const tine_buffer_t *b) {
    bool given = b != NULL, data = given && b->data;
    bind_i64(env, tine_call_var(ctx, name, TINE_CALL_GIVEN, 0), given);
    bind_i64(env, tine_call_var(ctx, name, TINE_CALL_DATA, 0), data);
    bind_i64(env, tine_call_var(ctx, name, TINE_CALL_DIMS, 0), given ? b->dims : 0);
    bind_i64(env, tine_call_var(ctx, name, TINE_CALL_ADDR, 0), data ? (int64_t)(uintptr_t)b->data : 0);
    for (int d = 0; d < dims; d++) {
        bind_i64(env, tine_call_var(ctx, name, TINE_CALL_MIN, d), given ? b->min[d] : 0);
        bind_i64(env, tine_call_var(ctx, name, TINE_CALL_EXTENT, d), given ? b->extent[d] : 0);
        bind_i64(env, tine_call_var(ctx, name, TINE_CALL_STRIDE, d), given ? b->stride[d] : 0);
    }
    if (data) tine_env_bind_buffer(env, name, et, b->data, span(b, dims));
}

tine_env_t *tine_call_bind(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                           tine_buffer_t *out) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_env_t *env = tine_env_new(ctx);
    bind_buffer(env, ctx, tine_kernel_output_name(k), tine_kernel_output_type(k), tine_kernel_dims(k), out);
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        tine_type_t et;
        int dims;
        const char *name = tine_kernel_input(k, i, &et, &dims);
        bind_buffer(env, ctx, name, et, dims, inputs ? inputs[i] : NULL);
    }
    for (int i = 0; i < tine_kernel_nparams(k); i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        bind_i64(env, tine_kernel_param_var(ctx, name, t), tine_kernel_param_value(k, i, params));
    }
    return env;
}

/* The plan's steps on env: lets bound, checks made; 0, or -1 with the failed check's
 * message. `sizing`: the inputs are not yet made, so their checks (their rules, their
 * coverage, overlaps) are passed over. */
static int run_steps(tine_ctx_t *ctx, const tine_kernel_plan_t *plan, tine_env_t *env, bool sizing) {
    for (int i = 0; i < plan->nsteps; i++) {
        const tine_plan_step *s = &plan->steps[i];
        tine_u128 v[TINE_MAX_LANES];
        const tine_expr_t *e = s->var ? s->value : s->check->assert_.cond;
        if (tine_eval128(ctx, e, env, v) != 0) return -1;
        if (s->var) {
            tine_env_bind128(env, s->var, v);
            continue;
        }
        int code = s->check->assert_.code;
        if (v[0] || (sizing && (code >= TINE_RUN_INPUT || code == TINE_RUN_OVERLAP))) continue;
        int64_t a[TINE_ASSERT_MAX_ARGS];
        for (int j = 0; j < s->check->assert_.nargs; j++) {
            if (tine_eval128(ctx, s->check->assert_.args[j], env, v) != 0) return -1;
            a[j] = (int64_t)(tine_i128)v[0];
        }
        tine_set_error_str(ctx, tine_stmt_assert_text(s->check->assert_.message, a, s->check->assert_.nargs));
        return -1;
    }
    return 0;
}

/* Each input's region: the union of the plan's reads of it that happen, evaluated on env
 * after the steps; read[i] 0 for an input nothing reads. 0, or -1 with an error. */
static int union_reads(const tine_kernel_t *k, const tine_kernel_plan_t *plan, tine_env_t *env, int64_t (*lo)[4],
                       int64_t (*hi)[4], int *read) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    for (int i = 0; i < tine_kernel_ninputs(k); i++) read[i] = 0;
    for (int r = 0; r < plan->nreads; r++) {
        const tine_plan_read *pr = &plan->reads[r];
        int i = pr->input, dims;
        tine_kernel_input(k, i, NULL, &dims);
        tine_u128 v[TINE_MAX_LANES];
        if (tine_eval128(ctx, pr->any, env, v) != 0) return -1;
        if (!v[0]) continue;
        for (int d = 0; d < dims; d++) {
            int64_t l, h;
            if (tine_eval128(ctx, pr->lo[d], env, v) != 0) return -1;
            l = (int64_t)(tine_i128)v[0];
            if (tine_eval128(ctx, pr->hi[d], env, v) != 0) return -1;
            h = (int64_t)(tine_i128)v[0];
            lo[i][d] = read[i] && lo[i][d] < l ? lo[i][d] : l;
            hi[i][d] = read[i] && hi[i][d] > h ? hi[i][d] : h;
        }
        read[i] = 1;
    }
    return 0;
}

/* The plan evaluated on a call's values: its checks (sizing: all but the inputs', which are
 * not made yet), and then, with lo not NULL, each input's region (union_reads). */
static int plan_call(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                     const tine_buffer_t *out, bool sizing, int64_t (*lo)[4], int64_t (*hi)[4], int *read) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    tine_kernel_plan_t plan;
    int rc = tine_stmt_plan(&p, k, &plan);
    if (rc == 0) {
        tine_env_t *env = tine_call_bind(k, inputs, params, (tine_buffer_t *)out);
        rc = run_steps(ctx, &plan, env, sizing);
        if (rc == 0 && lo) rc = union_reads(k, &plan, env, lo, hi, read);
        tine_env_free(env);
        tine_kernel_plan_free(&plan);
    }
    tine_stmt_pool_free(&p);
    return rc;
}

int tine_kernel_check_region(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                             const tine_buffer_t *out) {
    return plan_call(k, inputs, params, out, false, NULL, NULL, NULL);
}

int tine_kernel_input_regions(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                              const tine_buffer_t *out, int64_t (*lo)[4], int64_t (*hi)[4], int *read) {
    int rc;
    TINE_GUARD(tine_kernel_ctx(k), -1, rc, plan_call(k, inputs, params, out, true, lo, hi, read));
    return rc;
}

/* Whether var occurs in e, looking through the plan's lets (a Let's variable stands for its
 * value); seen: a bit per node id, so a DAG is walked in linear time. */
static bool occurs(const tine_expr_t *e, const tine_expr_t *var, const tine_kernel_plan_t *plan, unsigned char *seen) {
    if (seen[e->id / 8] & (1u << (e->id % 8))) return false;
    seen[e->id / 8] |= (unsigned char)(1u << (e->id % 8));
    if (e == var) return true;
    if (e->op == TINE_OP_VAR)
        for (int i = 0; i < plan->nsteps; i++)
            if (plan->steps[i].var == e) return occurs(plan->steps[i].value, var, plan, seen);
    for (int i = 0; i < e->nops; i++)
        if (occurs(e->ops[i], var, plan, seen)) return true;
    return false;
}

static int param_sizes(const tine_kernel_t *k, int i) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_type_t t;
    const char *name = tine_kernel_param(k, i, &t);
    if (!name) {
        tine_set_error(ctx, "the kernel has no parameter %d", i);
        return -1;
    }
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    tine_kernel_plan_t plan;
    int rc = tine_stmt_plan(&p, k, &plan);
    if (rc == 0) {
        const tine_expr_t *var = tine_kernel_param_var(ctx, name, t);
        unsigned char *seen = tine_xcalloc(tine_ctx_nodes(ctx) / 8 + 1, 1);
        for (int j = 0; j < plan.nsizing && rc == 0; j++) rc = occurs(plan.sizing[j], var, &plan, seen);
        free(seen);
        tine_kernel_plan_free(&plan);
    }
    tine_stmt_pool_free(&p);
    return rc;
}

int tine_kernel_param_sizes(const tine_kernel_t *k, int i) {
    int rc;
    TINE_GUARD(tine_kernel_ctx(k), -1, rc, param_sizes(k, i));
    return rc;
}

/* ---- the reference ------------------------------------------------------------------------- */

static int64_t value_of(tine_ctx_t *ctx, tine_env_t *env, const tine_kscalar *ks) {
    tine_u128 v[TINE_MAX_LANES];
    int rc = tine_eval128(ctx, ks->var, env, v);
    TINE_ASSERT(rc == 0); /* the plan bound it */
    return (int64_t)(tine_i128)v[0];
}

/* The loop reductions nested directly in `parent` (-1: the body's own), each bound to its
 * result variable. */
static int run_loops(tine_ctx_t *ctx, const tine_stage *st, tine_env_t *env, int parent) {
    for (int i = 0; i < st->reds1.n; i++) {
        const tine_reduction *R = &st->reds1.v[i];
        if (R->parent != parent) continue;
        uint64_t lo, hi, acc;
        int rc = tine_eval(ctx, R->lo, env, &lo);
        if (rc == 0) rc = tine_eval(ctx, R->hi, env, &hi);
        if (rc == 0) rc = tine_eval(ctx, R->init, env, &acc);
        for (int64_t r = (int32_t)lo; rc == 0 && r < (int32_t)hi; r++) {
            uint64_t rv = (uint64_t)r;
            tine_env_bind(env, R->r, &rv);
            tine_env_bind(env, R->acc, &acc);
            rc = run_loops(ctx, st, env, i);
            if (rc == 0) rc = tine_eval(ctx, R->update, env, &acc);
        }
        if (rc) return rc;
        tine_env_bind(env, R->result, &acc);
    }
    return 0;
}

/* Stage sn over its region, one element at a time, into data. */
static int interpret_stage(const tine_kernel_t *k, int sn, tine_env_t *env, void *data) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    const tine_stage *st = tine_kernel_stage(k, sn);
    int64_t mn[4], ex[4], sd[4];
    size_t total = 1;
    for (int d = 0; d < st->dims; d++) {
        mn[d] = value_of(ctx, env, tine_kernel_geometry(k, -1, sn, TINE_KS_MIN, d));
        ex[d] = value_of(ctx, env, tine_kernel_geometry(k, -1, sn, TINE_KS_EXTENT, d));
        sd[d] = d ? value_of(ctx, env, tine_kernel_geometry(k, -1, sn, TINE_KS_STRIDE, d)) : 1;
        total *= (size_t)ex[d];
    }
    int rc = 0;
    size_t esize = (size_t)st->type.bits / 8;
    for (size_t p = 0; p < total && rc == 0; p++) {
        size_t q = p, index = 0;
        for (int d = 0; d < st->dims; d++) {
            uint64_t c = (uint64_t)(mn[d] + (int64_t)(q % (size_t)ex[d]));
            index += (q % (size_t)ex[d]) * (size_t)sd[d];
            q /= (size_t)ex[d];
            char vn[24];
            snprintf(vn, sizeof vn, "$.c%d", d);
            tine_env_bind(env, tine_var(ctx, vn, tine_type(TINE_INT, 32, 1)), &c);
        }
        uint64_t v;
        rc = run_loops(ctx, st, env, -1);
        if (rc == 0) rc = tine_eval(ctx, st->body1, env, &v);
        if (rc == 0) memcpy((char *)data + index * esize, &v, esize); /* little-endian host */
    }
    return rc;
}

static int kernel_interpret(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                            tine_buffer_t *out) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    tine_kernel_plan_t plan;
    int rc = tine_stmt_plan(&p, k, &plan), ns = tine_kernel_nstages(k);
    bool planned = rc == 0;
    tine_env_t *env = planned ? tine_call_bind(k, inputs, params, out) : NULL;
    if (env) rc = run_steps(ctx, &plan, env, false);
    void **scratch = tine_xcalloc((size_t)ns, sizeof *scratch);
    for (int s = 0; s < ns && rc == 0; s++) {
        const tine_stage *st = tine_kernel_stage(k, s);
        uint64_t read = 1, size = 0;
        if (s + 1 < ns) {
            rc = tine_eval(ctx, plan.read[s], env, &read);
            if (rc == 0) rc = tine_eval(ctx, plan.size[s], env, &size);
            if (rc || !read) continue;
            if (!(scratch[s] = calloc((size_t)(uint32_t)size + 1, (size_t)st->type.bits / 8))) {
                tine_set_limit_error(ctx, "stage '%s': no memory for %u elements", st->name, (unsigned)size);
                rc = -1;
                break;
            }
            tine_env_bind_buffer(env, st->name, st->type, scratch[s], (size_t)(uint32_t)size);
        }
        rc = interpret_stage(k, s, env, s + 1 < ns ? scratch[s] : out->data);
    }
    for (int s = 0; s < ns; s++) free(scratch[s]);
    free(scratch);
    if (env) tine_env_free(env);
    if (planned) tine_kernel_plan_free(&plan);
    tine_stmt_pool_free(&p);
    return rc ? -1 : 0;
}

int tine_kernel_interpret(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                          tine_buffer_t *out) {
    int rc;
    TINE_GUARD(tine_kernel_ctx(k), -1, rc, kernel_interpret(k, inputs, params, out));
    return rc;
}
