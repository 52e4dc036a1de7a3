/* dispatch_main.c — a plain C program linking multi-target kernels (`tine compile FILE.tine
 * --target T1,T2,... --emit obj`), built and run by test_dispatch.sh, once per forced
 * choice (TINE_DISPATCH).
 *
 * The first calls of the first kernel come from several threads at once (the choice is
 * made on a first call; the race of two first calls must be harmless). Then every kernel
 * must report the expected target through NAME_target() and equal its scalar C
 * reference (bench/ref) bit for bit on the harness's test shapes and fill patterns.
 *
 * The expected target is argv[1]; without it (x86 only), it is computed here from the
 * compiler's own CPU detection (__builtin_cpu_supports), independent of the dispatcher's
 * probe: the first target of TARGETS at or after TINE_DISPATCH's that this CPU runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_check.h"
#include "fully_connected.h"
#include "gaussian3x3.h"
#include "l2norm.h"
#include "ref/cases.h"
#include "tine_buffer.h"

static const char *const KERNELS[] = {"gaussian3x3", "l2norm", "fully_connected"};
enum { NKERNELS = 3, NTHREADS = 4 };

static int call(const char *name, tine_buffer_t *in, const int64_t *p, tine_buffer_t *out) {
    if (!strcmp(name, "gaussian3x3")) return gaussian3x3(&in[0], out);
    if (!strcmp(name, "l2norm")) return l2norm(&in[0], (uint8_t)p[0], (int32_t)p[1], out);
    return fully_connected(&in[0], &in[1], &in[2], (int32_t)p[0], (uint8_t)p[1], (uint8_t)p[2], (int32_t)p[3],
                           (uint32_t)p[4], (uint8_t)p[5], (uint8_t)p[6], (uint8_t)p[7], out);
}

static const char *chosen(const char *name) {
    if (!strcmp(name, "gaussian3x3")) return gaussian3x3_target();
    if (!strcmp(name, "l2norm")) return l2norm_target();
    return fully_connected_target();
}

#if defined(__x86_64__)
/* The test's list (test_dispatch.sh compiles with it), best first, and whether this CPU
 * runs each level as the compiler's runtime sees it. */
static const char *expected_here(void) {
    static const char *const targets[] = {"x86-64-avx512", "x86-64-v4", "x86-64-avx2", "x86-64-sse41", "x86-64-sse2"};
    __builtin_cpu_init();
    int runs[] = {__builtin_cpu_supports("x86-64-v4") && __builtin_cpu_supports("avx512vnni"),
                  __builtin_cpu_supports("x86-64-v4"), __builtin_cpu_supports("x86-64-v3"),
                  __builtin_cpu_supports("x86-64-v2"), 1};
    const char *cap = getenv("TINE_DISPATCH");
    int start = 0;
    for (int i = 0; cap && i < 5; i++)
        if (!strcmp(cap, targets[i])) start = i;
    for (int i = start; i < 5; i++)
        if (runs[i]) return targets[i];
    return "none";
}
#endif

/* One harness case of kernel e: its inputs, output and reference. */
typedef struct {
    const bench_entry *e;
    bench_case c;
    tine_buffer_t in[8];
    unsigned char *want;
    size_t nb;
} prepared;

static void prepare(prepared *p, const bench_entry *e, int size, int pat, uint64_t *seed) {
    p->e = e;
    p->c = (bench_case){.name = e->name};
    e->make(&p->c, (case_size)size, (case_pattern)pat, seed);
    p->nb = case_bytes(&p->c.out, p->c.out_bits);
    p->want = malloc(p->nb);
    if (!p->want) exit(2);
    e->ref(&p->c, p->want);
    for (int i = 0; i < p->c.ninputs; i++) p->in[i] = case_tine_buffer(&p->c.in[i]);
}

/* Runs the case into a fresh output: whether it succeeded and equals the reference. */
static int run_case(prepared *p) {
    unsigned char *got = malloc(p->nb);
    if (!got) exit(2);
    memset(got, 0x5a, p->nb);
    tine_buffer_t out = case_tine_buffer(&p->c.out);
    out.data = got;
    tine_buffer_t in[8];
    memcpy(in, p->in, sizeof in);
    int ok = call(p->e->name, in, p->c.params, &out) == 0 && !memcmp(got, p->want, p->nb);
    free(got);
    return ok;
}

static void *first_call(void *arg) { return (void *)(intptr_t)run_case(arg); }

int main(int argc, char **argv) {
#if defined(__x86_64__)
    const char *expect = argc > 1 ? argv[1] : expected_here();
#else
    if (argc < 2) {
        fprintf(stderr, "usage: dispatch_main EXPECTED-TARGET\n");
        return 2;
    }
    const char *expect = argv[1];
#endif
    uint64_t seed = 5;
    /* the first calls of all: from several threads at once */
    prepared first;
    prepare(&first, bench_entry_find(KERNELS[0]), CASE_TEST1, PAT_RANDOM, &seed);
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        if (pthread_create(&th[t], NULL, first_call, &first)) return 2;
    for (int t = 0; t < NTHREADS; t++) {
        void *ok;
        pthread_join(th[t], &ok);
        check(ok != NULL, "a first call from a thread fails or differs from the reference", first.e->name, CASE_TEST1, PAT_RANDOM);
    }
    free(first.want);
    bench_case_free(&first.c);
    for (int ki = 0; ki < NKERNELS; ki++) {
        const bench_entry *e = bench_entry_find(KERNELS[ki]);
        if (!e) {
            check(0, "no harness entry", KERNELS[ki], 0, 0);
            continue;
        }
        const char *got = chosen(e->name);
        if (strcmp(got, expect)) printf("%s chose %s, not %s\n", e->name, got, expect);
        check(!strcmp(got, expect), "the chosen target is not the expected one", e->name, 0, 0);
        for (int size = CASE_TEST0; size <= CASE_TEST2; size++)
            for (int pat = 0; pat < PAT_COUNT; pat++) {
                prepared p;
                prepare(&p, e, size, pat, &seed);
                check(run_case(&p), "the call fails or differs from the reference", e->name, size, pat);
                free(p.want);
                bench_case_free(&p.c);
            }
    }
    printf("dispatch: %s: %d checks passed, %d failed\n", expect, passed, failed);
    return failed != 0;
}
