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
 * The psABI level names are found too (x86-64-v2, -v3, -v4), and a comma-separated list
 * of one architecture's targets names the variants of a multi-target object.
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
static bool runs_v4(void) { return __builtin_cpu_supports("x86-64-v4"); }
static bool runs_v4_vnni(void) { return runs_v4() && __builtin_cpu_supports("avx512vnni"); }

#define X86_64 "x86_64-unknown-linux-gnu"
#define AARCH64 "aarch64-unknown-linux-gnu"

/* what each psABI level's CPU (LLVM's x86-64-v2, -v3, -v4) may use; the OS's support of
   the AVX and AVX-512 registers is the dispatcher's to check with them */
#define NEEDS_V2 "cx16 lahf popcnt sse3 ssse3 sse4.1 sse4.2"
#define NEEDS_V3 NEEDS_V2 " avx avx2 bmi1 bmi2 f16c fma lzcnt movbe"
#define NEEDS_V4 NEEDS_V3 " avx512f avx512bw avx512cd avx512dq avx512vl"
/* Armv8.2-A brings LSE atomics and CRC32 with it; Armv8.6-A also the v8.3 conversions,
   complex arithmetic and RCpc loads, and BFloat16 */
#define NEEDS_V82 "asimd asimdrdm asimddp atomics crc32"

/* The psABI names: x86-64-v2 and -v3 are the levels tine's sse41 and avx2 targets are;
 * x86-64-v4 is AVX-512 without VNNI (tine's x86-64-avx512 adds it: a v4 CPU without
 * VNNI, such as Skylake-X, must not get VNNI code from the name v4), so it is a row of its
 * own, left out of the fixed targets the tests and the bench iterate over. */
static const tine_target_info TARGETS[] = {
    {"host", "x86", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, false, 0},
    {"x86-64-sse2", "x86", "sse2", X86_64, "x86-64", "+sse2", "-march=x86-64", runs_always, "", NULL, false, 128},
    {"x86-64-sse41", "x86", "sse2 ssse3 sse4.1", X86_64, "x86-64-v2", "+sse4.1,+ssse3", "-march=x86-64-v2", runs_v2,
     NEEDS_V2, NULL, false, 128},
    {"x86-64-avx2", "x86", "sse2 ssse3 sse4.1 avx2", X86_64, "x86-64-v3", "+avx2,+fma", "-march=x86-64-v3", runs_v3,
     NEEDS_V3, NULL, false, 256},
    {"x86-64-avx512", "x86", "sse2 ssse3 sse4.1 avx2 avx512f avx512bw avx512vnni", X86_64, "x86-64-v4",
     "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vnni", "-march=x86-64-v4 -mavx512vnni", runs_v4_vnni,
     NEEDS_V4 " avx512vnni", NULL, false, 512},
    {"arm-64", "arm", "neon", AARCH64, "generic", "+neon", "--target=aarch64-linux-gnu -march=armv8-a", runs_never,
     "asimd", NULL, false, 256},
    {"arm-64-dotprod", "arm", "neon rdm dotprod", AARCH64, "generic", "+v8.2a,+neon,+rdm,+dotprod",
     "--target=aarch64-linux-gnu -march=armv8.2-a+rdm+dotprod", runs_never, NEEDS_V82, NULL, false, 256},
    {"arm-64-i8mm", "arm", "neon rdm dotprod i8mm", AARCH64, "generic", "+v8.6a,+neon,+rdm,+dotprod,+i8mm",
     "--target=aarch64-linux-gnu -march=armv8.6-a+i8mm", runs_never, NEEDS_V82 " jscvt fcma lrcpc i8mm bf16", NULL,
     false, 256},
    {"x86-64-v2", "x86", .alias_of = "x86-64-sse41", .unlisted = true},
    {"x86-64-v3", "x86", .alias_of = "x86-64-avx2", .unlisted = true},
    {"x86-64-v4", "x86", "sse2 ssse3 sse4.1 avx2 avx512f avx512bw", X86_64, "x86-64-v4",
     "+avx512f,+avx512bw,+avx512vl,+avx512dq", "-march=x86-64-v4", runs_v4, NEEDS_V4, NULL, true, 512},
};
enum { NTARGETS = sizeof TARGETS / sizeof TARGETS[0] };

const tine_target_info *tine_target_find(const char *name) {
    for (int i = 0; i < NTARGETS; i++)
        if (!strcmp(TARGETS[i].name, name)) return TARGETS[i].alias_of ? tine_target_find(TARGETS[i].alias_of) : &TARGETS[i];
    return NULL;
}

/* The 1-based ordinal's English suffix, for "the 2nd entry". */
static const char *ordinal(int n) { return n % 100 / 10 == 1 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th"; }

int tine_target_list(tine_ctx_t *ctx, const char *list, const tine_target_info **rows, int max) {
    int n = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        const tine_target_info *t = len < sizeof word ? tine_target_find(word) : NULL;
        int at = n + 1;
        if (!len) {
            tine_set_error(ctx, "target list '%s': the %d%s entry is empty", list, at, ordinal(at));
            return -1;
        }
        if (!t) { /* the closest name, of every row's (aliases too) */
            const char *best = NULL;
            int bd = 0;
            for (int i = 0; i < NTARGETS; i++) {
                int d = tine_edit_distance(TARGETS[i].name, p, len);
                if (!best || d < bd) best = TARGETS[i].name, bd = d;
            }
            tine_set_error(ctx, "target list '%s': the %d%s entry, '%.*s', is not a target; did you mean '%s'?", list, at,
                           ordinal(at), (int)len, p, best);
            return -1;
        }
        if (!t->features) {
            tine_set_error(ctx, "target list '%s': 'host' cannot be one of several targets (the object runs on other CPUs "
                           "than this one); name their levels", list);
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (strcmp(rows[i]->isa, t->isa)) {
                tine_set_error(ctx, "target list '%s': the %d%s entry, '%s', is %s code but the %d%s, '%s', is %s; one "
                               "object holds the code of one architecture", list, at, ordinal(at), word, t->isa, i + 1,
                               ordinal(i + 1), rows[i]->name, rows[i]->isa);
                return -1;
            }
            if (rows[i] == t) {
                tine_set_error(ctx, "target list '%s': the %d%s entry, '%s', is the %d%s again (%s)", list, at, ordinal(at),
                               word, i + 1, ordinal(i + 1), t->name);
                return -1;
            }
        }
        if (n == max) {
            tine_set_error(ctx, "target list '%s': more than %d targets", list, max);
            return -1;
        }
        rows[n++] = t;
        p += len;
        if (!*p) return n;
    }
}

const tine_target_info *tine_target_fixed(const tine_target_info *t) {
    if (!t || t->features) return t;
    const tine_target_info *best = NULL;
    for (int i = 0; i < NTARGETS; i++) {
        const tine_target_info *r = &TARGETS[i];
        if (r->alias_of || r->unlisted || !r->features || strcmp(r->isa, t->isa)) continue;
        if (!best || (r->c_runs && r->c_runs())) best = r;
    }
    return best;
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
        if (TARGETS[k].features && !TARGETS[k].unlisted && i-- == 0) return TARGETS[k].name;
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
