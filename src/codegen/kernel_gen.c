/* kernel_gen.c — kernels compiled by the JIT: the target machine the compile driver opens
 * first, the kernel's statement as one function (stmt_gen.c) with the run's plan inside
 * it, and tine_compiled_run, which calls it; parallel loops run on threads inside it (the
 * runtime of parallel.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"


bool tine_cg_open(tine_cg_machine *mc, tine_ctx_t *ctx, const char *target, bool jit) {
    *mc = (tine_cg_machine){.ctx = ctx, .t0 = tine_now()};
    mc->tm = jit ? tine_cg_jit_target_machine(ctx, target, &mc->triple) : tine_cg_target_machine(ctx, target, &mc->triple);
    return mc->tm != NULL;
}

void tine_cg_close(tine_cg_machine *mc) {
    if (mc->tm) LLVMDisposeTargetMachine(mc->tm);
    free(mc->triple);
    *mc = (tine_cg_machine){0};
}

tine_compiled_t *tine_cg_jit_kernel(tine_cg_machine *mc, tine_kernel_t *k, const char *target, tine_selection_t sel,
                                    const tine_stmt *body, double stmt_ms) {
    tine_ctx_t *ctx = mc->ctx;
    tine_compiled_t *c = tine_xcalloc(1, sizeof *c);
    c->k = k;
    c->target = tine_strdup(target);
    c->select_ms = stmt_ms;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tine", lc);
    if (!tine_cg_build_kernel(c, m, lc, sel, body)) {
        tine_cg_jit_abandon(tsc, m, mc->tm, mc->triple);
        *mc = (tine_cg_machine){0};
        tine_compiled_free(c);
        return NULL;
    }
    uint64_t addr = tine_cg_jit_module(ctx, mc->tm, mc->triple, tsc, m, "tine_run", &c->jit);
    free(mc->triple);
    double t0 = mc->t0;
    *mc = (tine_cg_machine){0}; /* the JIT took the machine */
    if (!addr) {
        tine_compiled_free(c);
        return NULL;
    }
    c->fn = (int (*)(const void *const *, int64_t *))(uintptr_t)addr;
    c->llvm_ms = (tine_now() - t0) * 1e3 - c->select_ms;
    return c;
}

void tine_compiled_times(const tine_compiled_t *c, double *select_ms, double *llvm_ms) {
    *select_ms = c->select_ms;
    *llvm_ms = c->llvm_ms;
}

int tine_compiled_run(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    tine_kernel_t *k = c->k;
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k);
    const void *stack[64], **args = nin + np + 1 <= 64 ? stack : malloc(sizeof *args * (size_t)(nin + np + 1));
    if (!args) { /* no guard here: a run reports its failure */
        tine_set_limit_error(tine_kernel_ctx(k), "out of memory for a kernel's arguments");
        return -1;
    }
    for (int i = 0; i < nin; i++) args[i] = inputs ? inputs[i] : NULL;
    for (int i = 0; i < np; i++) args[nin + i] = params[i];
    args[nin + np] = out;
    enum { NO_DETAIL = -2 }; /* detail[0] when none was written (a parallel loop's chunk failed) */
    int64_t detail[1 + TINE_ASSERT_MAX_ARGS] = {NO_DETAIL};
    int rc = c->fn(args, detail);
    if (args != stack) free(args);
    if (rc == TINE_RUN_OK) return 0;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    int64_t which = detail[0];
    for (int i = 0; which == NO_DETAIL && i < c->nasserts; i++)
        if (c->asserts[i].code == rc) which = i;
    if (which >= 0 && which < c->nasserts)
        tine_set_error_str(ctx, tine_stmt_assert_text(c->asserts[which].message, detail + 1, detail[0] == NO_DETAIL ? 0 : TINE_ASSERT_MAX_ARGS));
    else tine_set_limit_error(ctx, "out of memory for a scratch buffer"); /* TINE_RUN_SCRATCH (detail -1) */
    return -1;
}

void tine_compiled_free(tine_compiled_t *c) {
    if (!c) return;
    if (c->jit) LLVMOrcDisposeLLJIT(c->jit);
    for (int i = 0; i < c->nasserts; i++) free(c->asserts[i].message);
    free(c->asserts);
    free(c->target);
    free(c);
}
