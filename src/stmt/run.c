/* run.c — a kernel run through the statement interpreter, with each stage's statement
 * as it stands after a chosen pass of the driver. Tests compare every pass's output
 * this way with the reference run (tine_kernel_interpret), which does not go through
 * statements at all; the CLI prints the same statements.
 */
#include "passes.h"

typedef struct {
    const char *want;
    const tine_stmt *got;
} capture;

static void capture_pass(void *user, const char *pass, const tine_stmt *s) {
    capture *c = user;
    if (!strcmp(pass, c->want)) c->got = s;
}

/* Elements a buffer spans (the largest flattened index + 1); 0 when it is empty. */
static size_t span(const tine_buffer_t *b, int dims) {
    size_t n = 1;
    for (int d = 0; d < dims; d++) {
        if (b->extent[d] <= 0) return 0;
        n += (size_t)(b->extent[d] - 1) * (size_t)(d ? b->stride[d] : 1);
    }
    return n;
}

/* The run's bindings: every scalar of the kernel at its value, every buffer. */
static tine_env_t *run_env(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                           const tine_plan *plan) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_env_t *env = tine_env_new(ctx);
    int n;
    const tine_kscalar *ks = tine_kernel_scalars(k, &n);
    for (int i = 0; i < n; i++) {
        if (ks[i].stage >= 0 && !plan->buf[ks[i].stage].data) continue; /* a stage nothing reads */
        uint64_t v = (uint64_t)tine_kscalar_value(k, &ks[i], inputs, params, plan);
        tine_env_bind(env, ks[i].var, &v);
    }
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        tine_type_t et;
        int dims;
        const char *name = tine_kernel_input(k, i, &et, &dims);
        tine_env_bind_buffer(env, name, et, inputs[i]->data, span(inputs[i], dims));
    }
    for (int s = 0; s < tine_kernel_nstages(k); s++) {
        const tine_stage *st = tine_kernel_stage(k, s);
        if (plan->buf[s].data) tine_env_bind_buffer(env, st->name, st->type, plan->buf[s].data, span(&plan->buf[s], st->dims));
    }
    return env;
}

int tine_kernel_interpret_stmt(tine_kernel_t *k, const char *pass, int sel, const char *target,
                               tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_plan plan;
    if (tine_kernel_plan(k, inputs, params, out, &plan)) return -1;
    tine_env_t *env = run_env(k, inputs, params, &plan);
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    int rc = 0;
    for (int s = 0; s < tine_kernel_nstages(k) && rc == 0; s++) {
        if (!plan.buf[s].data) continue;
        capture c = {.want = pass};
        tine_stmt_lower_stage(&p, k, s, sel, target, capture_pass, &c);
        if (!c.got) {
            tine_set_error(ctx, "the driver has no pass '%s'", pass);
            rc = -1;
            break;
        }
        rc = tine_stmt_run(ctx, c.got, env);
    }
    tine_stmt_pool_free(&p);
    tine_env_free(env);
    tine_plan_free(k, &plan);
    return rc;
}

char *tine_kernel_print_stmt(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    if (sel == TINE_SELECT_TINE && target && strcmp(target, "host")) {
        bool found = false;
        tine_isa_target(tine_isa_get(ctx, "x86"), target, &found);
        if (!found) {
            tine_set_error(ctx, "unknown target '%s'", target);
            return NULL;
        }
    }
    tine_buf b = {0};
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    for (int sn = 0; sn < tine_kernel_nstages(k); sn++) {
        const tine_stage *st = tine_kernel_stage(k, sn);
        tine_buf_printf(&b, "# stage %s (%d lanes%s)\n", st->name, st->lanes,
                        sn + 1 == tine_kernel_nstages(k) ? ", the output" : "");
        char *text = tine_stmt_print(ctx, tine_stmt_lower_stage(&p, k, sn, (int)sel, target, NULL, NULL));
        tine_buf_puts(&b, text);
        free(text);
    }
    tine_stmt_pool_free(&p);
    if (!b.p) tine_buf_puts(&b, "");
    return b.p;
}
