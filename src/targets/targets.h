/* targets.h — the target registry: every target tine compiles for, one row each.
 *
 * A row says everything the layers need to know about a target: the description whose
 * instructions it may use and which of that description's features it has (lowering,
 * the emitter's forms), the LLVM triple, CPU and features (code generation), and the C
 * compiler's flags with a check that this CPU runs what they build (`tine bench`'s C
 * baselines). Everything else asks the registry; no other file lists targets.
 */
#ifndef TINE_TARGETS_H
#define TINE_TARGETS_H

#include "../internal.h"

typedef struct {
    const char *name;          /* what --target takes */
    const char *isa;           /* the target description ("x86") */
    const char *features;      /* the description's features it has, space-separated; NULL: the host's */
    const char *triple;        /* LLVM target triple; NULL: the host's */
    const char *cpu;           /* LLVM CPU; NULL: the host's */
    const char *llvm_features; /* LLVM feature string; NULL: the host's */
    const char *cflags;        /* C compiler flags for the same level; NULL: none */
    bool (*c_runs)(void);      /* whether this CPU runs code built with cflags */
    /* What a CPU must report for the code to run on it, space-separated, in the names the
     * dispatcher of a multi-target object tests (dispatch.c: CPUID bits and the OS's
     * register state on x86, AT_HWCAP bits on AArch64); "" when every CPU of the
     * architecture runs it; NULL: the host. Every feature LLVM's CPU and feature string
     * implies is named (x86-64-v3 implies BMI2 and MOVBE, not only AVX2). */
    const char *cpu_needs;
    /* a psABI level name: the row it stands for (every other field unset) */
    const char *alias_of;
    /* found by name, but not one of the fixed targets tine_target_name lists (tests and
       the bench iterate over those) */
    bool unlisted;
    /* the width of its vector registers in bits: a kernel's `natural` vector (0: the
       host's, tine_target_fixed's) */
    int vector_bits;
} tine_target_info;

/* The row of a target name (an alias's: the row it stands for), or NULL. */
const tine_target_info *tine_target_find(const char *name);
/* The rows of a comma-separated list of targets of one architecture, each once, no
 * "host" (at most max): their count, or -1 with an error naming the entry at fault (an
 * unknown one with the closest target's name). */
int tine_target_list(tine_ctx_t *ctx, const char *list, const tine_target_info **rows, int max);
/* The fixed row t stands for: t itself, or for the host the highest listed row of its
 * architecture this CPU runs (its first row if it runs none: an AArch64 host). */
const tine_target_info *tine_target_fixed(const tine_target_info *t);
/* The i-th row (the host first), or NULL past the end. */
const tine_target_info *tine_target_at(int i);
/* The mask over isa's features of the features a row names (it names only declared ones:
 * the description's loader checks every row of its description). */
uint32_t tine_target_mask(const tine_isa *isa, const tine_target_info *t);
/* What this CPU has of isa's features, as LLVM sees it. */
uint32_t tine_target_host_mask(const tine_isa *isa);

#endif
