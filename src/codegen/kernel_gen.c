/* kernel_gen.c — kernels as loop nests: each stage becomes a JIT-compiled function over
 * the output's coordinates (stmt_gen.c), and tine_compiled_run plans and runs them in order.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include <time.h>

/* ---- kernels ------------------------------------------------------------------------------
 *
 * Each stage is a function `int tine_stageN(const void *const *args)` built from its
 * statement by stmt_gen.c (args[0] the stage buffer's data, then pointers to the int64
 * values of its scalars, compiled_stage's order, then the data of every input and every
 * earlier stage's buffer; it returns 0 or a failed Assert's code). tine_compiled_run
 * plans a run and calls them in order; parallel loops run on threads inside them.
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
            *stage = -1;
            return -1;
        }
        int n = 0;
        args[n++] = plan->buf[s].data;
        for (int i = 0; i < cs->nscalars; i++) {
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

/* One plan, one call per stage: a stage's parallel loops run on threads inside its
 * function (the runtime of parallel.c). */
int tine_compiled_run(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    tine_kernel_t *k = c->k;
    tine_plan plan;
    if (tine_kernel_check_buffers(k, inputs, out)) return -1;
    if (tine_kernel_plan(k, inputs, params, out, &plan)) return -1;
    int sn = -1, rc = run_plan(c, inputs, params, &plan, &sn);
    tine_plan_free(k, &plan);
    if (!rc) return 0;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
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
