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
} tine_target_info;

/* The row of a target name, or NULL. */
const tine_target_info *tine_target_find(const char *name);
/* The i-th row (the host first), or NULL past the end. */
const tine_target_info *tine_target_at(int i);
/* The mask over isa's features of the features a row names (it names only declared ones:
 * the description's loader checks every row of its description). */
uint32_t tine_target_mask(const tine_isa *isa, const tine_target_info *t);
/* What this CPU has of isa's features, as LLVM sees it. */
uint32_t tine_target_host_mask(const tine_isa *isa);

#endif
