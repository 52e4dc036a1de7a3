/* dispatch.c — a multi-target object: the variants of one kernel, each compiled for one
 * target of a list, linked into one module beside a dispatcher that is the entry point.
 *
 * Each variant is the LLVM text of the normal single-target compile (the driver's path),
 * optimized for its target and carrying its CPU and features on every function it
 * defines ("target-cpu", "target-features": machine.c), so one module compiles each
 * function for its own target. Its entry point becomes internal, `NAME.<target>`.
 *
 * The entry point `NAME` (the single-target signature) loads the chosen variant from an
 * atomic pointer and calls it; when the pointer is still null it chooses first: the CPU
 * is probed (CPUID and XGETBV on x86, getauxval(AT_HWCAP) and AT_HWCAP2 on AArch64), the
 * first listed target whose every need (the registry's cpu_needs) the CPU reports wins,
 * and the pointer is stored (release). Two first calls at once both probe and store the
 * same pointer: the race is harmless and needs no lock. TINE_DISPATCH, when it names one
 * of the targets, makes the choice start there (a cap for tests and comparisons); a CPU
 * that runs none of the targets gets a variant that returns -4 (TINE_RUN_NO_TARGET).
 * `NAME_target()` chooses the same way and returns the chosen target's name ("none").
 *
 * The dispatcher is written as LLVM text: it is a few dozen fixed lines, easier to read
 * as IR than as builder calls. It needs only the C library (getenv, strcmp; getauxval).
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"
#include "../targets/targets.h"

#include <inttypes.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>

/* ---- what a CPU reports ------------------------------------------------------------- */

/* The words the probe reads: CPUID leaf 1 (ECX, EDX), leaf 7 subleaf 0 (EBX, ECX), leaf
 * 0x80000001 (ECX); AT_HWCAP and AT_HWCAP2. */
enum { L1C, L1D, L7B, L7C, E1C, NX86, HWCAP = NX86, HWCAP2, NWORDS };

typedef struct {
    const char *name; /* as the registry's cpu_needs spells it */
    int word;
    uint64_t bit;
    uint32_t xcr0; /* the register state the OS must save (XCR0 bits), or 0 */
} cpu_feature;

/* XCR0: SSE and AVX state (bits 1, 2); AVX-512 adds the opmask and ZMM state (5, 6, 7) */
#define YMM 0x6u
#define ZMM 0xE6u

static const cpu_feature FEATURES[] = {
    {"sse3", L1C, 1u << 0, 0},           {"ssse3", L1C, 1u << 9, 0},           {"fma", L1C, 1u << 12, YMM},
    {"cx16", L1C, 1u << 13, 0},          {"sse4.1", L1C, 1u << 19, 0},         {"sse4.2", L1C, 1u << 20, 0},
    {"movbe", L1C, 1u << 22, 0},         {"popcnt", L1C, 1u << 23, 0},         {"avx", L1C, 1u << 28, YMM},
    {"f16c", L1C, 1u << 29, YMM},        {"sse2", L1D, 1u << 26, 0},           {"bmi1", L7B, 1u << 3, 0},
    {"avx2", L7B, 1u << 5, YMM},         {"bmi2", L7B, 1u << 8, 0},            {"avx512f", L7B, 1u << 16, ZMM},
    {"avx512dq", L7B, 1u << 17, ZMM},    {"avx512cd", L7B, 1u << 28, ZMM},     {"avx512bw", L7B, 1u << 30, ZMM},
    {"avx512vl", L7B, 1u << 31, ZMM},    {"avx512vnni", L7C, 1u << 11, ZMM},   {"lahf", E1C, 1u << 0, 0},
    {"lzcnt", E1C, 1u << 5, 0},
    /* Linux's HWCAP_* and HWCAP2_* bits (asm/hwcap.h) */
    {"asimd", HWCAP, 1u << 1, 0},        {"crc32", HWCAP, 1u << 7, 0},         {"atomics", HWCAP, 1u << 8, 0},
    {"asimdrdm", HWCAP, 1u << 12, 0},    {"jscvt", HWCAP, 1u << 13, 0},        {"fcma", HWCAP, 1u << 14, 0},
    {"lrcpc", HWCAP, 1u << 15, 0},       {"asimddp", HWCAP, 1u << 20, 0},      {"i8mm", HWCAP2, 1u << 13, 0},
    {"bf16", HWCAP2, 1u << 14, 0},
};

/* The masks over the probe's words (and XCR0) of everything target needs; false with an
 * internal error when the registry names a feature this table lacks. */
static bool needs_masks(tine_ctx_t *ctx, const tine_target_info *t, uint64_t mask[NWORDS], uint32_t *xcr0) {
    memset(mask, 0, NWORDS * sizeof *mask);
    *xcr0 = 0;
    for (const char *p = t->cpu_needs; *p;) {
        size_t n = strcspn(p, " ");
        const cpu_feature *f = NULL;
        for (size_t i = 0; i < sizeof FEATURES / sizeof *FEATURES && !f; i++)
            if (strlen(FEATURES[i].name) == n && !memcmp(FEATURES[i].name, p, n)) f = &FEATURES[i];
        if (!f) {
            tine_set_internal_error(ctx, "target %s needs '%.*s', which the dispatcher cannot test", t->name, (int)n, p);
            return false;
        }
        mask[f->word] |= f->bit;
        *xcr0 |= f->xcr0;
        p += n + (p[n] == ' ');
    }
    return true;
}

/* ---- the dispatcher as LLVM text ---------------------------------------------------- */

/* The probe's words as %w0 ... (i64) and %xcr0 (i64), at the end of block "probed". */
static void probe(tine_buf *b, bool x86) {
    if (!x86) {
        tine_buf_printf(b, "  %%w%d = call i64 @getauxval(i64 16)\n  %%w%d = call i64 @getauxval(i64 26)\n"
                           "  %%xcr0 = add i64 0, 0\n  br label %%probed\nprobed:\n", HWCAP, HWCAP2);
        for (int w = 0; w < NX86; w++) tine_buf_printf(b, "  %%w%d = add i64 0, 0\n", w);
        return;
    }
    static const char cpuid[] = "asm sideeffect \"cpuid\", \"={ax},={bx},={cx},={dx},{ax},{cx},~{dirflag},~{fpsr},~{flags}\"";
    /* a leaf above the CPU's highest answers garbage, not a fault: read, then dropped */
    static const struct {
        unsigned leaf;
        int word, reg;
        unsigned top; /* the leaf that says how high this one's range goes */
    } reads[] = {{1, L1C, 2, 0}, {1, L1D, 3, 0}, {7, L7B, 1, 0}, {7, L7C, 2, 0}, {0x80000001u, E1C, 2, 0x80000000u}};
    tine_buf_printf(b, "  %%top0 = call {i32, i32, i32, i32} %s(i32 0, i32 0)\n", cpuid);
    tine_buf_printf(b, "  %%top80 = call {i32, i32, i32, i32} %s(i32 %u, i32 0)\n", cpuid, 0x80000000u);
    tine_buf_puts(b, "  %max0 = extractvalue {i32, i32, i32, i32} %top0, 0\n"
                     "  %max80 = extractvalue {i32, i32, i32, i32} %top80, 0\n");
    for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
        int w = reads[i].word;
        tine_buf_printf(b, "  %%r%d = call {i32, i32, i32, i32} %s(i32 %u, i32 0)\n", w, cpuid, reads[i].leaf);
        tine_buf_printf(b, "  %%v%d = extractvalue {i32, i32, i32, i32} %%r%d, %d\n", w, w, reads[i].reg);
        tine_buf_printf(b, "  %%in%d = icmp uge i32 %%max%s, %u\n", w, reads[i].top ? "80" : "0", reads[i].leaf);
        tine_buf_printf(b, "  %%s%d = select i1 %%in%d, i32 %%v%d, i32 0\n  %%w%d = zext i32 %%s%d to i64\n", w, w, w, w, w);
    }
    for (int w = NX86; w < NWORDS; w++) tine_buf_printf(b, "  %%w%d = add i64 0, 0\n", w);
    /* XGETBV faults unless the OS enabled it (OSXSAVE, leaf 1 ECX bit 27) */
    tine_buf_printf(b, "  %%osx.b = and i64 %%w%d, %u\n  %%osx = icmp ne i64 %%osx.b, 0\n"
                       "  br i1 %%osx, label %%xgetbv, label %%probed\n"
                       "xgetbv:\n"
                       "  %%xg = call {i32, i32} asm sideeffect \"xgetbv\", \"={ax},={dx},{cx},~{dirflag},~{fpsr},~{flags}\"(i32 0)\n"
                       "  %%xg.lo = extractvalue {i32, i32} %%xg, 0\n  br label %%probed\n"
                       "probed:\n  %%xcr0.32 = phi i32 [0, %%entry], [%%xg.lo, %%xgetbv]\n"
                       "  %%xcr0 = zext i32 %%xcr0.32 to i64\n",
                    L1C, 1u << 27);
}

/* %ok<i>: whether the CPU runs target i (the words and XCR0 cover its masks). */
static bool target_check(tine_ctx_t *ctx, tine_buf *b, int i, const tine_target_info *t) {
    uint64_t mask[NWORDS + 1];
    uint32_t xcr0;
    if (!needs_masks(ctx, t, mask, &xcr0)) return false;
    mask[NWORDS] = xcr0;
    tine_buf_printf(b, "  %%ok%d.t = and i1 true, true\n", i);
    char prev[16] = "t";
    for (int w = 0; w <= NWORDS; w++) {
        if (!mask[w]) continue;
        char word[16] = "xcr0";
        if (w < NWORDS) snprintf(word, sizeof word, "w%d", w);
        tine_buf_printf(b, "  %%m%d.%d = and i64 %%%s, %" PRIu64 "\n  %%e%d.%d = icmp eq i64 %%m%d.%d, %" PRIu64 "\n", i, w,
                        word, mask[w], i, w, i, w, mask[w]);
        tine_buf_printf(b, "  %%ok%d.%d = and i1 %%ok%d.%s, %%e%d.%d\n", i, w, i, prev, i, w);
        snprintf(prev, sizeof prev, "%d", w);
    }
    tine_buf_printf(b, "  %%ok%d = and i1 %%ok%d.%s, true\n", i, i, prev);
    return true;
}

/* The dispatcher's text: globals, the choice, the entry point and NAME_target. params:
 * the entry point's parameter types, as LLVM prints them. */
static char *dispatcher_text(tine_ctx_t *ctx, const char *name, const char *const *targets, int n, bool x86,
                             const char *ret, char **params, int np) {
    tine_buf b = {0};
    tine_buf_puts(&b, "@tine.dispatch.env = private constant [14 x i8] c\"TINE_DISPATCH\\00\"\n"
                      "@tine.dispatch.none = private constant [5 x i8] c\"none\\00\"\n");
    for (int i = 0; i < n; i++)
        tine_buf_printf(&b, "@\"%s.name%d\" = private constant [%zu x i8] c\"%s\\00\"\n", name, i, strlen(targets[i]) + 1,
                        targets[i]);
    tine_buf_printf(&b, "@\"%s.impl\" = internal global ptr null, align 8\n"
                        "@\"%s.chosen\" = internal global ptr null, align 8\n",
                    name, name);
    tine_buf_puts(&b, "declare ptr @getenv(ptr)\ndeclare i32 @strcmp(ptr, ptr)\n");
    if (!x86) tine_buf_puts(&b, "declare i64 @getauxval(i64)\n");
    /* the CPU runs none: the code the header documents */
    tine_buf_printf(&b, "define internal %s @\"%s.none\"(", ret, name);
    for (int p = 0; p < np; p++) tine_buf_printf(&b, "%s%s", p ? ", " : "", params[p]);
    tine_buf_printf(&b, ") {\n  ret %s -4\n}\n", ret);

    /* the choice: the first target at or after TINE_DISPATCH's (if it names one) that the CPU runs */
    tine_buf_printf(&b, "define internal ptr @\"%s.choose\"() {\nentry:\n", name);
    probe(&b, x86);
    for (int i = 0; i < n; i++)
        if (!target_check(ctx, &b, i, tine_target_find(targets[i]))) {
            free(b.p);
            return NULL;
        }
    /* Each choice below is a chain of selects from the last target to the first (the
       first that qualifies wins): %X.<i> picks target i's value or %X.<i+1>, and %X.<n>
       is the value when none qualifies. */
    tine_buf_puts(&b, "  %env = call ptr @getenv(ptr @tine.dispatch.env)\n  %has.env = icmp ne ptr %env, null\n"
                      "  br i1 %has.env, label %cap, label %pick\ncap:\n");
    tine_buf_printf(&b, "  %%start.%d = add i32 0, 0\n", n);
    for (int i = n - 1; i >= 0; i--) {
        tine_buf_printf(&b, "  %%cmp%d = call i32 @strcmp(ptr %%env, ptr @\"%s.name%d\")\n", i, name, i);
        tine_buf_printf(&b, "  %%is%d = icmp eq i32 %%cmp%d, 0\n", i, i);
        tine_buf_printf(&b, "  %%start.%d = select i1 %%is%d, i32 %d, i32 %%start.%d\n", i, i, i, i + 1);
    }
    tine_buf_printf(&b, "  br label %%pick\npick:\n  %%start = phi i32 [0, %%probed], [%%start.0, %%cap]\n");
    tine_buf_printf(&b, "  %%pick.%d = add i32 -1, 0\n", n);
    for (int i = n - 1; i >= 0; i--) {
        tine_buf_printf(&b, "  %%from%d = icmp sle i32 %%start, %d\n  %%take%d = and i1 %%from%d, %%ok%d\n", i, i, i, i, i);
        tine_buf_printf(&b, "  %%pick.%d = select i1 %%take%d, i32 %d, i32 %%pick.%d\n", i, i, i, i + 1);
    }
    /* the chosen variant and name; none: the refusing variant */
    tine_buf_printf(&b, "  %%fn.%d = select i1 true, ptr @tine.dispatch.none, ptr null\n", n);
    tine_buf_printf(&b, "  %%impl.%d = select i1 true, ptr @\"%s.none\", ptr null\n", n, name);
    for (int i = n - 1; i >= 0; i--) {
        tine_buf_printf(&b, "  %%c%d = icmp eq i32 %%pick.0, %d\n", i, i);
        tine_buf_printf(&b, "  %%fn.%d = select i1 %%c%d, ptr @\"%s.name%d\", ptr %%fn.%d\n", i, i, name, i, i + 1);
        tine_buf_printf(&b, "  %%impl.%d = select i1 %%c%d, ptr @\"%s.%s\", ptr %%impl.%d\n", i, i, name, targets[i], i + 1);
    }
    /* the name first: whoever sees the pointer (acquire) sees the name */
    tine_buf_printf(&b, "  store atomic ptr %%fn.0, ptr @\"%s.chosen\" release, align 8\n"
                        "  store atomic ptr %%impl.0, ptr @\"%s.impl\" release, align 8\n  ret ptr %%impl.0\n}\n",
                    name, name);

    /* the entry point */
    tine_buf_printf(&b, "define %s @%s(", ret, name);
    for (int p = 0; p < np; p++) tine_buf_printf(&b, "%s%s %%a%d", p ? ", " : "", params[p], p);
    tine_buf_printf(&b, ") {\nentry:\n  %%f = load atomic ptr, ptr @\"%s.impl\" acquire, align 8\n"
                        "  %%unset = icmp eq ptr %%f, null\n  br i1 %%unset, label %%choose, label %%call\n"
                        "choose:\n  %%g = call ptr @\"%s.choose\"()\n  br label %%call\n"
                        "call:\n  %%p = phi ptr [%%f, %%entry], [%%g, %%choose]\n  %%r = tail call %s %%p(",
                    name, name, ret);
    for (int p = 0; p < np; p++) tine_buf_printf(&b, "%s%s %%a%d", p ? ", " : "", params[p], p);
    tine_buf_printf(&b, ")\n  ret %s %%r\n}\n", ret);

    /* NAME_target: which variant the entry point runs */
    tine_buf_printf(&b, "define ptr @%s_target() {\nentry:\n  %%f = load atomic ptr, ptr @\"%s.impl\" acquire, align 8\n"
                        "  %%unset = icmp eq ptr %%f, null\n  br i1 %%unset, label %%choose, label %%known\n"
                        "choose:\n  %%g = call ptr @\"%s.choose\"()\n  br label %%known\n"
                        "known:\n  %%n = load atomic ptr, ptr @\"%s.chosen\" acquire, align 8\n  ret ptr %%n\n}\n",
                    name, name, name, name);
    return b.p;
}

/* ---- the module ---------------------------------------------------------------------- */

/* Text parsed into a new module of lc; NULL with an internal error (tine made the text). */
static LLVMModuleRef parse_ir(tine_ctx_t *ctx, LLVMContextRef lc, const char *text, const char *what) {
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), what);
    LLVMModuleRef m = NULL;
    char *msg = NULL;
    if (LLVMParseIRInContext(lc, buf, &m, &msg)) { /* takes buf */
        tine_set_internal_error(ctx, "the %s does not parse as LLVM text: %s", what, msg ? msg : "");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    return m;
}

/* Links src into *dst (src consumed; the first becomes *dst); false with an internal error
 * (*dst freed). */
static bool link_into(tine_ctx_t *ctx, LLVMModuleRef *dst, LLVMModuleRef src, const char *what) {
    if (!src) {
        if (*dst) LLVMDisposeModule(*dst);
        return false;
    }
    if (!*dst) {
        *dst = src;
        return true;
    }
    if (!LLVMLinkModules2(*dst, src)) return true;
    tine_set_internal_error(ctx, "LLVM could not link the %s", what);
    LLVMDisposeModule(*dst);
    return false;
}

/* The dispatcher's text for the entry point's type fty, with the target and data layout
 * of the variants (m) and a declaration of each variant (linked by name, then made
 * internal). */
static char *dispatcher_module_text(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTypeRef fty, const char *name,
                                    const char *const *targets, int n) {
    int np = (int)LLVMCountParamTypes(fty);
    LLVMTypeRef *pt = tine_xrealloc_array(NULL, (size_t)np + 1, sizeof *pt);
    LLVMGetParamTypes(fty, pt);
    char **params = tine_xrealloc_array(NULL, (size_t)np + 1, sizeof *params);
    for (int p = 0; p < np; p++) params[p] = LLVMPrintTypeToString(pt[p]);
    char *ret = LLVMPrintTypeToString(LLVMGetReturnType(fty));
    tine_buf b = {0};
    tine_buf_printf(&b, "target datalayout = \"%s\"\ntarget triple = \"%s\"\n", LLVMGetDataLayoutStr(m), LLVMGetTarget(m));
    for (int i = 0; i < n; i++) {
        tine_buf_printf(&b, "declare %s @\"%s.%s\"(", ret, name, targets[i]);
        for (int p = 0; p < np; p++) tine_buf_printf(&b, "%s%s", p ? ", " : "", params[p]);
        tine_buf_puts(&b, ")\n");
    }
    char *text = dispatcher_text(ctx, name, targets, n, !strcmp(tine_target_find(targets[0])->isa, "x86"), ret, params, np);
    if (text) tine_buf_puts(&b, text);
    else free(b.p), b.p = NULL;
    free(text);
    for (int p = 0; p < np; p++) LLVMDisposeMessage(params[p]);
    LLVMDisposeMessage(ret);
    free(params);
    free(pt);
    return b.p;
}

/* The module of the variants and the dispatcher, in lc; NULL with an error. */
static LLVMModuleRef dispatch_module(tine_ctx_t *ctx, LLVMContextRef lc, const char *name, const char *const *targets,
                                     char *const *ir, int n) {
    LLVMModuleRef all = NULL;
    LLVMTypeRef fty = NULL;
    tine_buf variant = {0}; /* "NAME.<target>" (a name has no length limit) */
    for (int i = 0; i < n; i++) {
        LLVMModuleRef m = parse_ir(ctx, lc, ir[i], "variant");
        LLVMValueRef f = m ? LLVMGetNamedFunction(m, name) : NULL;
        if (m && !f) {
            tine_set_internal_error(ctx, "the %s variant has no function %s", targets[i], name);
            LLVMDisposeModule(m);
            m = NULL;
        }
        if (f) {
            variant.n = 0;
            tine_buf_printf(&variant, "%s.%s", name, targets[i]);
            LLVMSetValueName2(f, variant.p, variant.n);
            fty = LLVMGlobalGetValueType(f);
        }
        if (!link_into(ctx, &all, m, "variants")) {
            free(variant.p);
            return NULL;
        }
    }
    char *text = dispatcher_module_text(ctx, all, fty, name, targets, n);
    LLVMModuleRef d = text ? parse_ir(ctx, lc, text, "dispatcher") : NULL;
    free(text);
    bool linked = link_into(ctx, &all, d, "dispatcher");
    /* the variants are the dispatcher's alone */
    for (int i = 0; i < n && linked; i++) {
        variant.n = 0;
        tine_buf_printf(&variant, "%s.%s", name, targets[i]);
        LLVMSetLinkage(LLVMGetNamedFunction(all, variant.p), LLVMInternalLinkage);
    }
    free(variant.p);
    return linked ? all : NULL;
}

void *tine_cg_emit_dispatch(tine_ctx_t *ctx, const char *name, const char *const *targets, char *const *ir, int n,
                            tine_emit_kind_t kind, size_t *size) {
    /* the module's own code (the dispatcher) for the architecture's baseline: its first
       fixed row (the registry lists each architecture's levels from the lowest) */
    const tine_target_info *base = NULL, *t0 = tine_target_find(targets[0]);
    for (int i = 0; tine_target_at(i) && !base; i++)
        if (!strcmp(tine_target_at(i)->isa, t0->isa) && tine_target_at(i)->features && !tine_target_at(i)->unlisted)
            base = tine_target_at(i);
    TINE_ASSERT(base);
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, base->name, &triple);
    if (!tm) return NULL;
    LLVMContextRef lc = LLVMContextCreate();
    LLVMModuleRef m = dispatch_module(ctx, lc, name, targets, ir, n);
    void *out = NULL;
    if (m && tine_cg_verify_module(ctx, m)) out = tine_cg_module_emit(ctx, m, tm, kind, size);
    if (m) LLVMDisposeModule(m);
    LLVMContextDispose(lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return out;
}
