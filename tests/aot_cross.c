/* aot_cross.c — every benchmark kernel (and user kernel: bench/user) compiled ahead of
 * time for another architecture (AArch64 under qemu-user: built and run by
 * test_aot_arm.sh), through each selection and target variant, bit for bit against
 * bench/ref's scalar C references.
 *
 * The script compiles each kernel NAME once per variant as <variant>_NAME (`tine compile
 * --name`) and writes aot_variants.h, which includes every generated header and lists the
 * variants: #define AOT_VARIANTS(V) V(arm64_tine, "arm-64 tine") V(arm64_llvm, ...) ...
 *
 *   aot_cross            the test sizes and the quick size, every fill pattern
 *   aot_cross --bench    one run per kernel and variant at the benchmark size (wall time)
 *
 * Exit status 0 when every output equals its reference, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aot_variants.h"
#include "ref/cases.h"
#include "tine_buffer.h"

/* Each kernel with its number of inputs and of parameters. The call passes the inputs in
 * order, then the parameters (int64_t converted to each parameter's type by the generated
 * prototype: the low bits, as the harness binds them), then the output; a kernel whose
 * signature changes no longer compiles here. */
#define AOT_KERNELS(X, v)          \
    X(v, gaussian3x3, 1, 0)        \
    X(v, gaussian5x5, 1, 0)        \
    X(v, gaussian7x7, 1, 0)        \
    X(v, conv3x3a16, 2, 0)         \
    X(v, conv3x3a32, 1, 0)         \
    X(v, dilate3x3, 1, 0)          \
    X(v, median3x3, 1, 0)          \
    X(v, sobel3x3, 1, 0)           \
    X(v, blur3x3, 1, 0)            \
    X(v, camera_pipe, 3, 0)        \
    X(v, add, 2, 7)                \
    X(v, mul, 2, 7)                \
    X(v, average_pool, 1, 4)       \
    X(v, max_pool, 1, 2)           \
    X(v, l2norm, 1, 2)             \
    X(v, softmax, 1, 6)            \
    X(v, fully_connected, 3, 8)    \
    X(v, conv_nn, 3, 12)           \
    X(v, depthwise_conv, 3, 7)     \
    X(v, matmul, 2, 9)             \
    X(v, sad8x8, 2, 0)             \
    X(v, downsample2x2, 1, 0)      \
    X(v, fir16, 2, 0)              \
    X(v, mix_gain, 2, 2)           \
    X(v, rgb_to_grey, 1, 0)        \
    X(v, alpha_blend, 3, 0)        \
    X(v, gemv_i8, 2, 1)            \
    X(v, requant_i8, 1, 3)

#define INS_1 &in[0]
#define INS_2 INS_1, &in[1]
#define INS_3 INS_2, &in[2]
#define PS_0
#define PS_1 p[0],
#define PS_2 PS_1 p[1],
#define PS_3 PS_2 p[2],
#define PS_4 PS_3 p[3],
#define PS_6 PS_4 p[4], p[5],
#define PS_7 PS_6 p[6],
#define PS_8 PS_7 p[7],
#define PS_9 PS_8 p[8],
#define PS_12 PS_9 p[9], p[10], p[11],

typedef int (*kernel_call)(tine_buffer_t *in, const int64_t *p, tine_buffer_t *out);

#define WRAP(v, k, ni, np)                                                                        \
    static int call_##v##_##k(tine_buffer_t *in, const int64_t *p, tine_buffer_t *out) {          \
        (void)p;                                                                                  \
        return v##_##k(INS_##ni, PS_##np out);                                                    \
    }
#define WRAP_VARIANT(v, label) AOT_KERNELS(WRAP, v)
AOT_VARIANTS(WRAP_VARIANT)

#define NAME(v, k, ni, np) #k,
#define NINPUTS(v, k, ni, np) ni,
#define NPARAMS(v, k, ni, np) np,
#define POINTER(v, k, ni, np) call_##v##_##k,
#define ROW(v, label) {AOT_KERNELS(POINTER, v)},
#define LABEL(v, label) label,

static const char *const KERNELS[] = {AOT_KERNELS(NAME, _)};
static const int KERNEL_INPUTS[] = {AOT_KERNELS(NINPUTS, _)}, KERNEL_PARAMS[] = {AOT_KERNELS(NPARAMS, _)};
enum { NKERNELS = sizeof KERNELS / sizeof *KERNELS };
static const kernel_call CALLS[][NKERNELS] = {AOT_VARIANTS(ROW)};
static const char *const LABELS[] = {AOT_VARIANTS(LABEL)};
enum { NVARIANTS = sizeof LABELS / sizeof *LABELS };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One case through every variant: the number of variants whose output differs from the
 * reference (or whose call fails), a line for the first difference of each; fails[v]
 * counts them per variant. With times, each variant's wall time is added to times[v]. */
static int run_case(int ki, const bench_entry *e, case_size size, case_pattern pat, uint64_t *seed, int *fails,
                    double *times) {
    bench_case c = {.name = e->name};
    if (e->make(&c, size, pat, seed)) {
        printf("FAIL %s: the harness cannot make size %d pattern %d\n", e->name, (int)size, (int)pat);
        for (int v = 0; v < NVARIANTS; v++) fails[v]++;
        return NVARIANTS;
    }
    if (c.ninputs != KERNEL_INPUTS[ki] || c.nparams != KERNEL_PARAMS[ki]) {
        printf("FAIL %s: the harness has %d inputs and %d parameters, the call %d and %d\n", e->name, c.ninputs,
               c.nparams, KERNEL_INPUTS[ki], KERNEL_PARAMS[ki]);
        for (int v = 0; v < NVARIANTS; v++) fails[v]++;
        bench_case_free(&c);
        return NVARIANTS;
    }
    size_t nb = case_bytes(&c.out, c.out_bits);
    unsigned char *want = malloc(nb), *got = malloc(nb);
    if (!want || !got) abort();
    e->ref(&c, want);
    tine_buffer_t in[CASE_MAX_INPUTS], out = case_tine_buffer(&c.out);
    for (int i = 0; i < c.ninputs; i++) in[i] = case_tine_buffer(&c.in[i]);
    out.data = got;
    int bad = 0;
    for (int v = 0; v < NVARIANTS; v++) {
        memset(got, 0x5a, nb); /* outside the output's elements it stays so; those are not compared */
        double t0 = now();
        int rc = CALLS[v][ki](in, c.params, &out);
        if (times) times[v] += now() - t0;
        int64_t at[4] = {0};
        if (rc != 0) {
            printf("FAIL %s [%s] size %d pattern %d: the call returns %d\n", e->name, LABELS[v], (int)size, (int)pat,
                   rc);
        } else if (case_first_difference(&c, got, want, at)) {
            int bytes = c.out_bits / 8;
            /* the element's offset in c.out's geometry, which got and want share */
            size_t off = (size_t)((unsigned char *)case_at(&c.out, bytes, at[0], at[1], at[2], at[3]) -
                                  (unsigned char *)c.out.data);
            unsigned long long gv = 0, wv = 0;
            memcpy(&gv, got + off, (size_t)bytes); /* little-endian: the element's value */
            memcpy(&wv, want + off, (size_t)bytes);
            printf("FAIL %s [%s] size %d pattern %d: out(%lld, %lld, %lld, %lld) = %llu, the reference %llu\n",
                   e->name, LABELS[v], (int)size, (int)pat, (long long)at[0], (long long)at[1], (long long)at[2],
                   (long long)at[3], gv, wv);
        } else {
            continue;
        }
        fails[v]++;
        bad++;
    }
    free(want);
    free(got);
    bench_case_free(&c);
    return bad;
}

int main(int argc, char **argv) {
    int bench = argc > 1 && !strcmp(argv[1], "--bench");
    if (argc > 1 && !bench) {
        fprintf(stderr, "usage: %s [--bench]\n", argv[0]);
        return 2;
    }
    int total_bad = 0;
    uint64_t seed = 11;
    /* every harness entry has a row here (the script compiles every kernel file) */
    for (const bench_entry *e = bench_entries(); e->name; e++) {
        int found = 0;
        for (int ki = 0; ki < NKERNELS; ki++) found |= !strcmp(KERNELS[ki], e->name);
        if (!found) {
            printf("FAIL %s: no row in aot_cross.c's AOT_KERNELS\n", e->name);
            total_bad++;
        }
    }
    for (int ki = 0; ki < NKERNELS; ki++) {
        const bench_entry *e = bench_entry_find(KERNELS[ki]);
        int fails[NVARIANTS] = {0}, cases = 0;
        double times[NVARIANTS] = {0};
        if (!e) {
            printf("FAIL %s: no harness entry\n", KERNELS[ki]);
            total_bad++;
            continue;
        }
        if (bench) {
            total_bad += run_case(ki, e, CASE_FULL, PAT_RANDOM, &seed, fails, times);
            cases = 1;
        } else {
            for (int size = CASE_TEST0; size <= CASE_QUICK; size++)
                for (int pat = 0; pat < PAT_COUNT; pat++, cases++)
                    total_bad += run_case(ki, e, (case_size)size, (case_pattern)pat, &seed, fails, NULL);
        }
        printf("%-16s", KERNELS[ki]);
        for (int v = 0; v < NVARIANTS; v++) {
            if (bench) printf("  %s %s %8.1f ms", LABELS[v], fails[v] ? "FAIL" : "ok", 1e3 * times[v]);
            else if (fails[v]) printf("  %s FAIL %d/%d", LABELS[v], fails[v], cases);
            else printf("  %s ok %d", LABELS[v], cases);
        }
        printf("\n");
    }
    printf("aot_cross: %d kernels x %d variants, %s\n", (int)NKERNELS, (int)NVARIANTS,
           total_bad ? "FAILED (the FAIL lines above)" : "every output equals its reference");
    return total_bad != 0;
}
