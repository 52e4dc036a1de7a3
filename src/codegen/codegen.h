/* codegen.h — private to src/codegen and its caller, the compile driver (src/driver): the
 * types and functions that llvm.c (expressions), machine.c (target machines, finished
 * modules), stmt_gen.c (a kernel's statement), parallel.c (the runtime of parallel loops),
 * kernel_gen.c (kernels compiled by the JIT and run) and aot.c (ahead-of-time objects and
 * headers) share. Every name it exports begins tine_cg_.
 */
#ifndef TINE_CODEGEN_H
#define TINE_CODEGEN_H

#include "../internal.h"
#include "../stmt/stmt.h"

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
    /* per binding, for tine_cg_index_i64: a loop variable's i64 value, or a let's definition (a
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

/* machine.c: target machines (false or NULL with an error naming the known targets), and
 * a module finished for one: run by the JIT (abandon: given up before), or written out. */
bool tine_cg_target_machine_known(tine_ctx_t *ctx, const char *name);
LLVMTargetMachineRef tine_cg_target_machine(tine_ctx_t *ctx, const char *name, char **triple_out);
LLVMTargetMachineRef tine_cg_jit_target_machine(tine_ctx_t *ctx, const char *name, char **triple_out);
uint64_t tine_cg_jit_module(tine_ctx_t *ctx, LLVMTargetMachineRef tm, const char *triple, LLVMOrcThreadSafeContextRef tsc,
                            LLVMModuleRef m, const char *symbol, LLVMOrcLLJITRef *jit);
void tine_cg_jit_abandon(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, LLVMTargetMachineRef tm, char *triple);
/* The module for the target, optimized, as LLVM text, assembly or an object file (kind:
 * TINE_EMIT_LLVM, _ASM or _OBJ). */
char *tine_cg_module_output(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple,
                            tine_emit_kind_t kind, size_t *size);
/* The module as it is (its target set, optimized already) written out as above. */
char *tine_cg_module_emit(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, tine_emit_kind_t kind,
                          size_t *size);

/* llvm.c: expressions as LLVM values */
LLVMTypeRef tine_cg_elem_type(gen *g, tine_type_t t);
LLVMValueRef tine_cg_intrinsic(gen *g, const char *name, LLVMTypeRef *types, int ntypes, LLVMValueRef *args,
                               int nargs);
LLVMValueRef tine_cg_emit_dag(gen *g, const tine_expr_t *root);
/* One node on its operands' values (ov[i] for e->ops[i]): the emitters of programs in a
 * fixed order (a target-level program, src/tprog) emit node by node. */
LLVMValueRef tine_cg_emit_node(gen *g, const tine_expr_t *e, LLVMValueRef *ov);
/* Whether the nodes hold an instruction that cannot be emitted (a fixed entry without an
 * llvm line); sets the error. */
bool tine_cg_unselectable(tine_ctx_t *ctx, tine_expr_t *const *order, uint32_t n);
bool tine_cg_verify_module(tine_ctx_t *ctx, LLVMModuleRef m);
bool tine_cg_finish_function(gen *g);

/* Lane 0 of the i32 index e of a load or store (v: its value) as the element offset of
 * the access: an exact i64 sum of products of its leaves when it is one (llvm.c). */
LLVMValueRef tine_cg_index_i64(gen *g, const tine_expr_t *e, LLVMValueRef v);

/* Whether lane i of an i32 index vector is lane 0's value plus i * stride (llvm.c). */
bool tine_cg_lane_stride(const tine_expr_t *e, int64_t *stride);
/* Whether lane i of an i32 index vector is lane 0's value plus a constant off[i] (llvm.c). */
bool tine_cg_lane_offsets(const tine_expr_t *e, int32_t *off);

/* parallel.c: `i32 tine.parallel_for(ptr body, ptr closure, i64 min, i64 extent)`, the
 * runtime of parallel loops, added to m (internal linkage) on first use. */
LLVMValueRef tine_cg_parallel_runtime(LLVMModuleRef m);

/* stmt_gen.c: the kernel's function `int tine_run(const void *const *args, int64_t *detail)`
 * in m, from its statement after every statement step of the driver; false with an error. */
bool tine_cg_build_kernel(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, tine_selection_t sel,
                          const tine_stmt *body);

/* The code generator's part of the compile driver's emit step (src/driver/compile.c):
 * the target machine, made before the statement steps so that a target the generator
 * cannot compile for is refused first (open: false with an error), then the kernel's
 * code from its statement (kernel_gen.c: compiled by the JIT; aot.c: an object, its
 * assembly or its LLVM text), which consumes the machine; close frees an unused one. */
typedef struct {
    tine_ctx_t *ctx;
    LLVMTargetMachineRef tm;
    char *triple;
    double t0; /* when the compile began (tine_now) */
} tine_cg_machine;
bool tine_cg_open(tine_cg_machine *mc, tine_ctx_t *ctx, const char *target, bool jit);
void tine_cg_close(tine_cg_machine *mc);
tine_compiled_t *tine_cg_jit_kernel(tine_cg_machine *mc, tine_kernel_t *k, const char *target, tine_selection_t sel,
                                    const tine_stmt *body, double stmt_ms);
void *tine_cg_emit_kernel(tine_cg_machine *mc, tine_kernel_t *k, const char *target, tine_selection_t sel,
                          const tine_stmt *body, const char *name, tine_emit_kind_t kind, size_t *size);
/* aot.c: whether name can be the entry point's (false with an error), and the C header
 * declaring it (malloc'd). */
bool tine_cg_entry_name_ok(tine_ctx_t *ctx, const char *name);
char *tine_cg_header(tine_kernel_t *k, const char *name, const char *target, tine_selection_t sel);

/* dispatch.c: one object (or its assembly or LLVM text) from the n variants of a kernel
 * named name, each the LLVM text of a single-target compile for rows[i] (optimized, its
 * entry point `name`), whose entry point `name` runs the first variant this CPU runs
 * (chosen on the first call), and `name_target()` says which. NULL with an error. */
void *tine_cg_emit_dispatch(tine_ctx_t *ctx, const char *name, const char *const *targets, char *const *ir, int n,
                            tine_emit_kind_t kind, size_t *size);

#endif
