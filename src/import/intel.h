/* intel.h — `tine isa import --intel`: the Intel Intrinsics Guide data file to fixed
 * instruction entries (src/import/intel.c). */
#ifndef TINE_IMPORT_INTEL_H
#define TINE_IMPORT_INTEL_H

#include "../internal.h"

typedef struct {
    int candidates, imported;
    struct {
        char name[24];
        int candidates, imported;
    } ext[32]; /* per extension (the intrinsic's first CPUID) */
    int next;
} tine_intel_counts;

/* tine's feature name of an Intel CPUID ("AVX512BW" → "avx512bw"), or NULL. */
const char *tine_intel_feature(const char *cpuid);

/* Appends the description of the integer SIMD intrinsics of xml (the data file's text,
 * named file in messages) whose CPUIDs are all among cpuids (all known ones when
 * ncpuids is 0) to out, and one line per intrinsic not translated (file:line: name:
 * why) to report. 0. */
int tine_import_intel(tine_ctx_t *ctx, const char *xml, const char *file, const char *const *cpuids, int ncpuids,
                      tine_buf *out, tine_buf *report, tine_intel_counts *counts);

#endif
