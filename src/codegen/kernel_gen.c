/* kernel_gen.c — kernels as loop nests: each stage becomes a JIT-compiled function over
 * the output's coordinates (stmt_gen.c), and tine_compiled_run plans and runs them in order.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include <threads.h>
#include <time.h>
#include <unistd.h>

/* ---- kernels ------------------------------------------------------------------------------
 *
 * Each stage is a function `int tine_stageN(const void *const *args)` built from its
 * statement by stmt_gen.c (args[0] the stage buffer's data, then pointers to the int64
 * values of its scalars, compiled_stage's order, then the data of every input and every
 * earlier stage's buffer; it returns 0 or a failed Assert's code). tine_compiled_run
 * plans a run and calls them in order.
 */

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tine_compiled_t *tine_kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (!k) return NULL;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    double t0 = seconds();
    char *triple = NULL;
    LLVMTargetMachineRef tm = target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_compiled_t *c = calloc(1, sizeof *c);
    TINE_ASSERT(c != NULL);
    c->k = k;
    c->target = tine_strdup(target);
    c->nst = tine_kernel_nstages(k);
    c->st = calloc((size_t)c->nst, sizeof *c->st);
    TINE_ASSERT(c->st != NULL);
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tine", lc);
    /* the code serves every run: selection sees no run's bounds facts (docs/ARCHITECTURE.md) */
    int scope = tine_bounds_open(ctx, true);
    bool built = true;
    for (int s = 0; s < tine_kernel_nstages(k) && built; s++) built = build_stage(c, m, lc, sel, s);
    tine_bounds_close(ctx, scope);
    if (!built) {
        jit_abandon(tsc, m, tm, triple);
        tine_compiled_free(c);
        return NULL;
    }
    uint64_t addr = jit_module(ctx, tm, triple, tsc, m, "tine_stage0", &c->jit);
    free(triple);
    c->st[0].fn = (int (*)(const void *const *))(uintptr_t)addr;
    bool lost = false; /* jit_module reported its own failure; a lost stage is reported here */
    for (int s = 1; s < tine_kernel_nstages(k) && addr && !lost; s++) {
        char fname[32];
        snprintf(fname, sizeof fname, "tine_stage%d", s);
        LLVMOrcExecutorAddress a = 0;
        LLVMErrorRef err = LLVMOrcLLJITLookup(c->jit, &a, fname);
        if (err) {
            char *msg = LLVMGetErrorMessage(err);
            tine_set_internal_error(ctx, "LLVM's JIT lost the function of stage %d: %s", s, msg ? msg : "");
            LLVMDisposeErrorMessage(msg);
            lost = true;
        }
        c->st[s].fn = (int (*)(const void *const *))(uintptr_t)a;
    }
    if (!addr || lost) {
        tine_compiled_free(c);
        return NULL;
    }
    c->llvm_ms = (seconds() - t0) * 1e3 - c->select_ms;
    return c;
}

void tine_compiled_times(const tine_compiled_t *c, double *select_ms, double *llvm_ms) {
    *select_ms = c->select_ms;
    *llvm_ms = c->llvm_ms;
}

/* The stages of one plan, in order: 0; -1 when the arguments cannot be allocated; else
 * the failing stage's code, with *stage set. */
static int run_plan(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, const tine_plan *plan,
                    int *stage) {
    tine_kernel_t *k = c->k;
    for (int s = 0; s < tine_kernel_nstages(k); s++) {
        const compiled_stage *cs = &c->st[s];
        if (!plan->buf[s].data) continue; /* nothing reads it */
        int64_t *vals = malloc(sizeof *vals * (size_t)(cs->nscalars + 1));
        const void **args = malloc(sizeof *args * (size_t)(1 + cs->nscalars + tine_kernel_ninputs(k) + s));
        if (!vals || !args) {
            free(vals);
            free(args);
            return -1;
        }
        int n = 0;
        args[n++] = plan->buf[s].data;
        for (int i = 0; i < cs->nscalars; i++) {
            /* a stage's own geometry is its plan buffer's (for the output, this slice's) */
            vals[i] = tine_kscalar_value(k, cs->scalars[i], inputs, params, plan);
            args[n++] = &vals[i];
        }
        for (int i = 0; i < tine_kernel_ninputs(k); i++) args[n++] = inputs[i]->data;
        for (int p = 0; p < s; p++) args[n++] = plan->buf[p].data;
        int rc = cs->fn(args);
        free(vals);
        free(args);
        if (rc) {
            *stage = s;
            return rc;
        }
    }
    return 0;
}

typedef struct {
    tine_compiled_t *c;
    tine_buffer_t *const *inputs;
    const void *const *params;
    tine_buffer_t out;
    tine_plan plan;
    int rc, stage; /* run_plan's result, and the stage that failed */
} chunk;

static int run_chunk(void *arg) {
    chunk *ch = arg;
    ch->rc = run_plan(ch->c, ch->inputs, ch->params, &ch->plan, &ch->stage);
    return 0;
}

int tine_compiled_run(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    tine_kernel_t *k = c->k;
    const tine_stage *os = tine_kernel_stage(k, tine_kernel_nstages(k) - 1);
    int D = os->dims - 1, nt = 1;
    /* the buffers first: the split below computes with out's geometry */
    if (tine_kernel_check_buffers(k, inputs, out)) return -1;
    if (os->parallel) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        nt = np < 1 ? 1 : np > 64 ? 64 : (int)np;
        if (nt > out->extent[D]) nt = (int)(out->extent[D] > 0 ? out->extent[D] : 1);
    }
    chunk ch[64];
    /* the output's last coordinate in nt slices, each with its own plan (scratch regions
       for just what it reads), planned here, run on threads */
    for (int t = 0; t < nt; t++) {
        int64_t a = out->extent[D] * t / nt, b = out->extent[D] * (t + 1) / nt;
        ch[t] = (chunk){.c = c, .inputs = inputs, .params = params, .out = *out, .stage = -1};
        if (nt > 1) {
            ch[t].out.min[D] = out->min[D] + a;
            ch[t].out.extent[D] = b - a;
            ch[t].out.data = (char *)out->data + a * (D ? out->stride[D] : 1) * (os->type.bits / 8);
        }
        if (tine_kernel_plan(k, inputs, params, &ch[t].out, &ch[t].plan)) {
            for (int u = 0; u < t; u++) tine_plan_free(k, &ch[u].plan);
            return -1;
        }
    }
    thrd_t th[64];
    bool started[64] = {false};
    int failed = 0;
    for (int t = 1; t < nt; t++) started[t] = thrd_create(&th[t], run_chunk, &ch[t]) == thrd_success;
    run_chunk(&ch[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t]) thrd_join(th[t], NULL);
        else run_chunk(&ch[t]); /* no thread: this one runs it */
    }
    int rc = 0;
    for (int t = 0; t < nt; t++) {
        tine_plan_free(k, &ch[t].plan);
        if (!rc && ch[t].rc) rc = ch[t].rc, failed = t;
    }
    if (!rc) return 0;
    /* errors are set here, after the threads: the context is not theirs to write */
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    int sn = ch[failed].stage;
    const char *msg = NULL;
    for (int i = 0; sn >= 0 && i < c->st[sn].nasserts && !msg; i++)
        if (c->st[sn].asserts[i].code == rc) msg = c->st[sn].asserts[i].message;
    if (msg) tine_set_error(ctx, "%s", msg);
    else if (sn >= 0) tine_set_limit_error(ctx, "out of memory for the scratch of stage '%s'", tine_kernel_stage(k, sn)->name);
    else tine_set_limit_error(ctx, "out of memory for a stage's arguments");
    return -1;
}

void compiled_stage_free(compiled_stage *cs) {
    free(cs->scalars);
    for (int i = 0; i < cs->nasserts; i++) free(cs->asserts[i].message);
    free(cs->asserts);
}

void tine_compiled_free(tine_compiled_t *c) {
    if (!c) return;
    if (c->jit) LLVMOrcDisposeLLJIT(c->jit);
    for (int s = 0; s < c->nst; s++) compiled_stage_free(&c->st[s]);
    free(c->st);
    free(c->target);
    free(c);
}
