/* codegen.h — private to src/codegen: the types and functions that llvm.c (expressions),
 * stmt_gen.c (a stage's statement), parallel.c (the runtime of parallel loops),
 * kernel_gen.c (compiling and running kernels) and aot.c (ahead-of-time objects) share.
 */
#ifndef TINE_CODEGEN_H
#define TINE_CODEGEN_H

#include "../internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

typedef struct {
    tine_ctx_t *ctx;
    LLVMContextRef lc;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    tine_selection_t sel;
    tine_expr_t **order;
    LLVMValueRef *val;
    uint32_t n;
    /* kernels: leaf values by node (variables) or by buffer name (loads) */
    const tine_expr_t **lk;
    LLVMValueRef *lv;
    /* per binding, for index_i64: a loop variable's i64 value, or a let's definition (a
       sum of products of leaves), else NULL */
    LLVMValueRef *lw;
    const tine_expr_t **ld;
    int nl;
    /* expressions: leaves */
    const tine_expr_t **args;
    int nargs;
    LLVMValueRef argv;
    uint32_t features; /* the target's features, in the x86 description's numbering */
} gen;

struct tine_compiled {
    tine_kernel_t *k;
    char *target;
    LLVMOrcLLJITRef jit;
    double select_ms, llvm_ms;
    /* stmt_gen.c's tine_run: 0, or the code of the Assert that failed */
    int (*fn)(const void *const *args, int64_t *detail);
    struct {
        int code;
        char *message;
    } *asserts; /* the statement's Asserts, by index: a failure's message for the JIT's error */
    int nasserts;
};

/* llvm.c */
bool target_machine_known(tine_ctx_t *ctx, const char *name);
LLVMTargetMachineRef target_machine(tine_ctx_t *ctx, const char *name, char **triple_out);
LLVMTargetMachineRef jit_target_machine(tine_ctx_t *ctx, const char *name, char **triple_out);
LLVMTypeRef elem_type(gen *g, tine_type_t t);
LLVMValueRef intrinsic(gen *g, const char *name, LLVMTypeRef *types, int ntypes, LLVMValueRef *args,
                       int nargs);
LLVMValueRef emit_dag(gen *g, const tine_expr_t *root);
bool verify_module(tine_ctx_t *ctx, LLVMModuleRef m);
bool finish_function(gen *g);
uint64_t jit_module(tine_ctx_t *ctx, LLVMTargetMachineRef tm, const char *triple,
                    LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, const char *symbol,
                    LLVMOrcLLJITRef *jit);
void jit_abandon(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, LLVMTargetMachineRef tm, char *triple);
/* What module_output emits. */
enum { OUT_LLVM, OUT_ASM, OUT_OBJ };
char *module_output(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple, int what,
                    size_t *size);

/* kernel_gen.c: frees what build_stage allocated in cs. */

/* Lane 0 of the i32 index e of a load or store (v: its value) as the element offset of
 * the access: an exact i64 sum of products of its leaves when it is one (llvm.c). */
LLVMValueRef index_i64(gen *g, const tine_expr_t *e, LLVMValueRef v);

/* Whether lane i of an i32 index vector is lane 0's value plus i * stride (llvm.c). */
bool lane_stride(const tine_expr_t *e, int64_t *stride);
/* Whether lane i of an i32 index vector is lane 0's value plus a constant off[i] (llvm.c). */
bool lane_offsets(const tine_expr_t *e, int32_t *off);

/* parallel.c: `i32 tine.parallel_for(ptr body, ptr closure, i64 min, i64 extent)`, the
 * runtime of parallel loops, added to m (internal linkage) on first use. */
LLVMValueRef parallel_runtime(LLVMModuleRef m);

/* stmt_gen.c: the kernel's function `int tine_run(const void *const *args, int64_t *detail)`
 * in m, from its statement after every pass of the driver; false with an error. */
bool build_kernel(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, tine_selection_t sel);

#endif
