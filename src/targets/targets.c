/* targets.c — the target registry (targets.h): one row per target, and the questions
 * asked of it (a target's features; whether this machine runs it).
 *
 * "host" is the machine tine runs on: LLVM's view of this CPU gives its triple, CPU and
 * features, and its description features are those of the description this CPU has.
 * The fixed targets are the x86-64 psABI levels, with the features tine selects for:
 * the C flags are the strongest psABI level that has no instruction set the tine target
 * lacks (x86-64-avx512 adds VNNI to v4). The AArch64 targets are Armv8.0-A with Neon and
 * Armv8.2-A with the rounding doubling multiply-accumulate (rdm) and dot products, and
 * Armv8.6-A with the mixed-sign dot product (i8mm: usdot); this
 * machine does not run them (qemu-aarch64 does: tests cross-compile), and their C
 * baselines are cross-compiled with clang's flags for the same architecture level.
 *
 * The registry sits below the target descriptions (isa.c): it knows a description only
 * as the list of its features, and the questions that need the description itself (a
 * target's features, whether this CPU runs it) are isa.c's.
 */
#include "targets.h"

#include "../ir/ast.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

static bool runs_always(void) { return true; }
static bool runs_never(void) { return false; }
static bool runs_v2(void) { return __builtin_cpu_supports("x86-64-v2"); }
static bool runs_v3(void) { return __builtin_cpu_supports("x86-64-v3"); }
static bool runs_v4_vnni(void) { return __builtin_cpu_supports("x86-64-v4") && __builtin_cpu_supports("avx512vnni"); }

#define X86_64 "x86_64-unknown-linux-gnu"
#define AARCH64 "aarch64-unknown-linux-gnu"

static const tine_target_info TARGETS[] = {
    {"host", "x86", NULL, NULL, NULL, NULL, NULL, NULL},
    {"x86-64-sse2", "x86", "sse2", X86_64, "x86-64", "+sse2", "-march=x86-64", runs_always},
    {"x86-64-sse41", "x86", "sse2 ssse3 sse4.1", X86_64, "x86-64-v2", "+sse4.1,+ssse3", "-march=x86-64-v2", runs_v2},
    {"x86-64-avx2", "x86", "sse2 ssse3 sse4.1 avx2", X86_64, "x86-64-v3", "+avx2,+fma", "-march=x86-64-v3", runs_v3},
    {"x86-64-avx512", "x86", "sse2 ssse3 sse4.1 avx2 avx512f avx512bw avx512vnni", X86_64, "x86-64-v4",
     "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vnni", "-march=x86-64-v4 -mavx512vnni", runs_v4_vnni},
    {"arm-64", "arm", "neon", AARCH64, "generic", "+neon", "--target=aarch64-linux-gnu -march=armv8-a", runs_never},
    {"arm-64-dotprod", "arm", "neon rdm dotprod", AARCH64, "generic", "+v8.2a,+neon,+rdm,+dotprod",
     "--target=aarch64-linux-gnu -march=armv8.2-a+rdm+dotprod", runs_never},
    {"arm-64-i8mm", "arm", "neon rdm dotprod i8mm", AARCH64, "generic", "+v8.6a,+neon,+rdm,+dotprod,+i8mm",
     "--target=aarch64-linux-gnu -march=armv8.6-a+i8mm", runs_never},
};
enum { NTARGETS = sizeof TARGETS / sizeof TARGETS[0] };

const tine_target_info *tine_target_find(const char *name) {
    for (int i = 0; i < NTARGETS; i++)
        if (!strcmp(TARGETS[i].name, name)) return &TARGETS[i];
    return NULL;
}

const tine_target_info *tine_target_at(int i) { return i >= 0 && i < NTARGETS ? &TARGETS[i] : NULL; }

static int feature_index(const tine_isa *isa, const char *name, size_t n) {
    for (int i = 0; i < isa->nfeatures; i++)
        if (strlen(isa->features[i]) == n && !memcmp(isa->features[i], name, n)) return i;
    return -1;
}

uint32_t tine_target_mask(const tine_isa *isa, const tine_target_info *t) {
    uint32_t m = 0;
    for (const char *p = t->features; p && *p;) {
        size_t n = strcspn(p, " ");
        int f = feature_index(isa, p, n);
        TINE_ASSERT(f >= 0); /* the loader checked the rows */
        m |= 1u << f;
        p += n + (p[n] == ' ');
    }
    return m;
}

uint32_t tine_target_host_mask(const tine_isa *isa) {
    char *f = LLVMGetHostCPUFeatures();
    uint32_t m = 0;
    for (int i = 0; i < isa->nfeatures; i++) {
        char want[64];
        snprintf(want, sizeof want, "+%s,", isa->features[i]);
        size_t n = strlen(want);
        for (const char *p = f; p && *p;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            if (len == n - 1 && !memcmp(p, want, n - 1)) m |= 1u << i;
            p = c ? c + 1 : NULL;
        }
    }
    LLVMDisposeMessage(f);
    return m;
}

/* The fixed targets, in the registry's order (the host is not one). */
const char *tine_target_name(tine_ctx_t *ctx, int i) {
    (void)ctx;
    for (int k = 0; k < NTARGETS; k++)
        if (TARGETS[k].features && i-- == 0) return TARGETS[k].name;
    return NULL;
}

const char *tine_target_isa(const char *target) {
    const tine_target_info *t = tine_target_find(target);
    return t ? t->isa : NULL;
}

const char *tine_target_cflags(const char *target, int *runs) {
    const tine_target_info *t = tine_target_find(target);
    *runs = 0;
    if (!t || !t->cflags) return NULL;
    __builtin_cpu_init();
    *runs = t->c_runs();
    return t->cflags;
}
