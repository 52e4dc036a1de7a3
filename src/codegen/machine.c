/* machine.c — LLVM's side of every target: the target machines (for a target name, or for
 * code this process runs), and a module finished for one — its target set, optimized
 * (O3), then handed to the JIT or written as LLVM text, assembly or an object file.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"
#include "../targets/targets.h"

#include <threads.h>

/* ---- targets (the registry's rows, src/targets/targets.c) -------------------------- */

static void init_llvm_once(void) {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    LLVMInitializeAArch64AsmParser();
}

/* LLVM's target registry is process-wide: contexts on several threads may reach this at
 * once, so the registration runs exactly once and the others wait for it. */
static void init_llvm(void) {
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, init_llvm_once);
}

/* Whether name (NULL: the host) is a target; false with an error naming the known ones. */
bool tine_cg_target_machine_known(tine_ctx_t *ctx, const char *name) {
    if (tine_target_find(name ? name : "host")) return true;
    tine_buf b = {0};
    tine_buf_printf(&b, "unknown target '%s' (known:", name);
    for (int i = 0; tine_target_at(i); i++) /* the psABI names are in docs/KERNELS.md */
        if (!tine_target_at(i)->unlisted) tine_buf_printf(&b, " %s", tine_target_at(i)->name);
    tine_buf_puts(&b, ")");
    tine_set_error_str(ctx, b.p);
    return false;
}

/* A target machine for a target name; NULL with an error for an unknown name. */
LLVMTargetMachineRef tine_cg_target_machine(tine_ctx_t *ctx, const char *name, char **triple_out) {
    init_llvm();
    if (!tine_cg_target_machine_known(ctx, name)) return NULL;
    const tine_target_info *d = tine_target_find(name ? name : "host");
    char *triple;
    if (d->triple) {
        triple = tine_strdup(d->triple);
    } else {
        char *t = LLVMGetDefaultTargetTriple();
        triple = tine_strdup(t);
        LLVMDisposeMessage(t);
    }
    char *cpu = d->cpu ? tine_strdup(d->cpu) : LLVMGetHostCPUName();
    char *features = d->llvm_features ? tine_strdup(d->llvm_features) : LLVMGetHostCPUFeatures();
    LLVMTargetRef t;
    char *err = NULL;
    LLVMTargetMachineRef tm = NULL;
    if (LLVMGetTargetFromTriple(triple, &t, &err)) {
        tine_set_internal_error(ctx, "LLVM has no target for %s: %s", triple, err ? err : "");
        LLVMDisposeMessage(err);
    } else {
        tm = LLVMCreateTargetMachine(t, triple, cpu, features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                     LLVMCodeModelDefault);
        if (!tm) tine_set_internal_error(ctx, "LLVM could not make a target machine for %s", d->name);
    }
    if (d->cpu) {
        free(cpu);
        free(features);
    } else {
        LLVMDisposeMessage(cpu);
        LLVMDisposeMessage(features);
    }
    if (triple_out && tm) *triple_out = triple;
    else free(triple);
    return tm;
}

/* A target machine for code this process will run (the JIT): as tine_cg_target_machine, but NULL
 * with an error when the target's architecture is not this machine's (an AArch64 row on
 * x86-64), whose code must be emitted and run elsewhere (qemu). */
LLVMTargetMachineRef tine_cg_jit_target_machine(tine_ctx_t *ctx, const char *name, char **triple_out) {
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, name, &triple);
    if (!tm) return NULL;
    char *host = LLVMGetDefaultTargetTriple();
    size_t a = strcspn(triple, "-"), b = strcspn(host, "-");
    if (a != b || memcmp(triple, host, a)) {
        tine_set_error(ctx, "target '%s' is %.*s code, which this %.*s machine cannot run in process; emit it as an "
                       "object or assembly (tine compile --target %s --emit obj|asm) and run it there or under qemu",
                       name, (int)a, triple, (int)b, host, name);
        LLVMDisposeTargetMachine(tm);
        free(triple);
        tm = NULL;
    } else if (triple_out) {
        *triple_out = triple;
    } else {
        free(triple);
    }
    LLVMDisposeMessage(host);
    return tm;
}

/* The module is for tm: its triple and data layout, and on every function it defines the
 * CPU and features ("target-cpu", "target-features", as clang writes them), so that the
 * module as text compiles by itself (clang -c): without them a function using the
 * target's intrinsics (AVX-512, dot products) would be compiled for the triple's baseline. */
static void set_target(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple) {
    LLVMSetTarget(m, triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    char *layout = LLVMCopyStringRepOfTargetData(td);
    LLVMSetDataLayout(m, layout);
    LLVMDisposeMessage(layout);
    LLVMDisposeTargetData(td);
    LLVMContextRef lc = LLVMGetModuleContext(m);
    char *value[2] = {LLVMGetTargetMachineCPU(tm), LLVMGetTargetMachineFeatureString(tm)};
    static const char *const key[2] = {"target-cpu", "target-features"};
    for (int i = 0; i < 2; i++) {
        if (!*value[i]) continue;
        LLVMAttributeRef a = LLVMCreateStringAttribute(lc, key[i], (unsigned)strlen(key[i]), value[i],
                                                       (unsigned)strlen(value[i]));
        for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
            if (!LLVMIsDeclaration(f)) LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a);
    }
    LLVMDisposeMessage(value[0]);
    LLVMDisposeMessage(value[1]);
}

static int optimize(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        tine_set_internal_error(ctx, "LLVM's optimizer failed: %s", msg ? msg : "");
        LLVMDisposeErrorMessage(msg);
        return -1;
    }
    return 0;
}

/* Gives up on a JIT build before tine_cg_jit_module would have consumed what it was given: the
 * module (if any), the thread-safe context, the target machine and the triple. */
void tine_cg_jit_abandon(LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, LLVMTargetMachineRef tm, char *triple) {
    if (m) LLVMDisposeModule(m);
    LLVMOrcDisposeThreadSafeContext(tsc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
}

/* Sets the module's target, optimizes it, and hands it to a new LLJIT; the target
 * machine, the module and the thread-safe context are consumed. Returns the address of
 * `symbol`, or 0 with an error in ctx. */
uint64_t tine_cg_jit_module(tine_ctx_t *ctx, LLVMTargetMachineRef tm, const char *triple,
                    LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, const char *symbol,
                    LLVMOrcLLJITRef *jit) {
    set_target(m, tm, triple);
    LLVMErrorRef err = NULL;
    LLVMOrcExecutorAddress addr = 0;
    if (optimize(ctx, m, tm) == 0) {
        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        /* the builder takes the target machine */
        LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
        tm = NULL;
        err = LLVMOrcCreateLLJIT(jit, builder);
        if (!err) {
            LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
            m = NULL;
            err = LLVMOrcLLJITAddLLVMIRModule(*jit, LLVMOrcLLJITGetMainJITDylib(*jit), tsm);
        }
        if (!err) err = LLVMOrcLLJITLookup(*jit, &addr, symbol);
    }
    if (m) LLVMDisposeModule(m);
    LLVMOrcDisposeThreadSafeContext(tsc);
    if (tm) LLVMDisposeTargetMachine(tm);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        tine_set_internal_error(ctx, "LLVM's JIT failed: %s", msg ? msg : "");
        LLVMDisposeErrorMessage(msg);
        addr = 0;
    }
    return addr;
}

/* The module for the target, optimized (O3), as LLVM text, assembly or an object file:
 * malloc'd bytes with a NUL after them (*size excludes it), or NULL with an error. */
char *tine_cg_module_output(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple,
                            tine_emit_kind_t kind, size_t *size) {
    set_target(m, tm, triple);
    if (optimize(ctx, m, tm) != 0) return NULL;
    return tine_cg_module_emit(ctx, m, tm, kind, size);
}

char *tine_cg_module_emit(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, tine_emit_kind_t kind,
                          size_t *size) {
    char *out = NULL;
    if (kind == TINE_EMIT_LLVM) {
        char *s = LLVMPrintModuleToString(m);
        out = tine_strdup(s);
        *size = strlen(s);
        LLVMDisposeMessage(s);
        return out;
    }
    LLVMMemoryBufferRef buf;
    char *err = NULL;
    /* verbose assembly: block names and loop nesting as comments (tests find loops by them) */
    LLVMSetTargetMachineAsmVerbosity(tm, kind == TINE_EMIT_ASM);
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, kind == TINE_EMIT_OBJ ? LLVMObjectFile : LLVMAssemblyFile, &err, &buf)) {
        tine_set_internal_error(ctx, "LLVM could not emit the %s: %s", kind == TINE_EMIT_OBJ ? "object file" : "assembly",
                                err ? err : "");
        LLVMDisposeMessage(err);
        return NULL;
    }
    *size = LLVMGetBufferSize(buf);
    out = tine_xmalloc(*size + 1);
    memcpy(out, LLVMGetBufferStart(buf), *size);
    out[*size] = 0;
    LLVMDisposeMemoryBuffer(buf);
    return out;
}
