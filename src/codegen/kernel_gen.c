/* kernel_gen.c — kernels compiled by the JIT: the kernel's statement becomes one function
 * (stmt_gen.c) with the run's plan inside it, and tine_compiled_run calls it; parallel
 * loops run on threads inside it (the runtime of parallel.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include "../stmt/stmt.h"


static tine_compiled_t *kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (!k) return NULL;
    k = tine_kernel_for_target(k, target);
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    double t0 = tine_now();
    char *triple = NULL;
    LLVMTargetMachineRef tm = jit_target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_compiled_t *c = calloc(1, sizeof *c);
    TINE_CHECK_ALLOC(c != NULL);
    c->k = k;
    c->target = tine_strdup(target);
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tine", lc);
    /* the code serves every run: selection sees no run's bounds facts (docs/ARCHITECTURE.md) */
    int scope = tine_bounds_open(ctx, true);
    bool built = build_kernel(c, m, lc, sel);
    tine_bounds_close(ctx, scope);
    if (!built) {
        jit_abandon(tsc, m, tm, triple);
        tine_compiled_free(c);
        return NULL;
    }
    uint64_t addr = jit_module(ctx, tm, triple, tsc, m, "tine_run", &c->jit);
    free(triple);
    if (!addr) {
        tine_compiled_free(c);
        return NULL;
    }
    c->fn = (int (*)(const void *const *, int64_t *))(uintptr_t)addr;
    c->llvm_ms = (tine_now() - t0) * 1e3 - c->select_ms;
    return c;
}

tine_compiled_t *tine_kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (!k) return NULL;
    tine_compiled_t *c;
    TINE_GUARD(tine_kernel_ctx(k), NULL, c, kernel_compile(k, target, sel));
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
    if (!args) {
        tine_set_limit_error(tine_kernel_ctx(k), "out of memory for a kernel's arguments");
        return -1;
    }
    for (int i = 0; i < nin; i++) args[i] = inputs ? inputs[i] : NULL;
    for (int i = 0; i < np; i++) args[nin + i] = params[i];
    args[nin + np] = out;
    int64_t detail[1 + TINE_ASSERT_MAX_ARGS] = {-2}; /* -2: no detail written (a parallel loop's chunk) */
    int rc = c->fn(args, detail);
    if (args != stack) free(args);
    if (!rc) return 0;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    int64_t which = detail[0];
    for (int i = 0; which == -2 && i < c->nasserts; i++)
        if (c->asserts[i].code == rc) which = i;
    if (which >= 0 && which < c->nasserts)
        tine_set_error_str(ctx, tine_stmt_assert_text(c->asserts[which].message, detail + 1, detail[0] == -2 ? 0 : TINE_ASSERT_MAX_ARGS));
    else tine_set_limit_error(ctx, "out of memory for a scratch buffer");
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
