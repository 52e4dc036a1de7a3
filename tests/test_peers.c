/* test_peers.c — a peer module (bench/peers) against the C references, bit for bit.
 *
 * `test_peers MODULE.so [KERNEL]`: every entry of the module whose code this machine runs
 * is bound to every benchmark case the C references are checked on — the three small test
 * shapes and the quick size, filled with random data and with edge values — and its
 * output must equal the reference's in every element; for a library peer whose definition
 * differs from the kernel's (peer.h: OpenCV, XNNPACK), in every element it compares, within
 * the difference it states. An entry that cannot bind (its names, types or dimensions
 * differ from the kernel's) fails too, and so does a kernel (bench/kernels, bench/user) that a
 * per-row module (Halide) lacks; a library peer covers the kernels it has.
 *
 * `test_peers --time MODULE.so [KERNEL]` instead times each entry this machine runs at the
 * benchmark's default size (random data): the median and the range of 10 runs after 2
 * warm-ups, for trying schedules; `tine bench` is where peers are compared.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench/peers/peer.h"

static const char *const PATTERNS[] = {"random", "zero", "max", "checker", "stripes"};
static int failed, passed;

static const char *row_of(const peer_entry *pe) { return pe->target ? pe->target : "(every row)"; }

static void check_entry(const peer_entry *pe, const bench_entry *be) {
    uint64_t seed = 11;
    for (int size = CASE_TEST0; size <= CASE_QUICK; size++)
        for (int p = 0; p < PAT_COUNT; p++) {
            bench_case bc = {.name = be->name};
            if (be->make(&bc, (case_size)size, (case_pattern)p, &seed)) {
                printf("FAIL %s: no case at size %d\n", be->name, size);
                failed++;
                return;
            }
            size_t nb = case_bytes(&bc.out, bc.out_bits);
            unsigned char *want = calloc(nb, 1), *got = calloc(nb, 1);
            char err[512];
            peer_call *call = want && got ? pe->bind(pe, &bc, got, err, sizeof err) : NULL;
            int framed = pe->frame[0] || pe->frame[1] || pe->frame[2] || pe->frame[3];
            if (!call) {
                printf("FAIL %s %s: %s\n", be->name, row_of(pe), want && got ? err : "out of memory");
                failed++;
            } else {
                be->ref(&bc, want);
                int rc = pe->run(call);
                int64_t at[4] = {0}, d = 0;
                if (rc) {
                    printf("FAIL %s %s size %d %s: the peer returned %d\n", be->name, row_of(pe), size, PATTERNS[p], rc);
                    failed++;
                } else if ((pe->differs || framed) && (d = case_max_difference(&bc, got, want, pe->frame)) > pe->tolerance) {
                    printf("FAIL %s %s size %d %s: differs from the reference by %lld, more than the %d it states\n",
                           be->name, row_of(pe), size, PATTERNS[p], (long long)d, pe->tolerance);
                    failed++;
                } else if (!pe->differs && !framed && case_first_difference(&bc, got, want, at)) {
                    printf("FAIL %s %s size %d %s: differs from the reference at (%lld, %lld, %lld, %lld)\n", be->name,
                           row_of(pe), size, PATTERNS[p], (long long)at[0], (long long)at[1], (long long)at[2],
                           (long long)at[3]);
                    failed++;
                } else {
                    passed++;
                }
                pe->unbind(call);
            }
            free(want);
            free(got);
            bench_case_free(&bc);
            if (!call) return;
        }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void time_entry(const peer_entry *pe, const bench_entry *be) {
    uint64_t seed = 42;
    bench_case bc = {.name = be->name};
    if (be->make(&bc, CASE_FULL, PAT_RANDOM, &seed)) return;
    void *got = calloc(case_bytes(&bc.out, bc.out_bits), 1);
    char err[512];
    peer_call *call = got ? pe->bind(pe, &bc, got, err, sizeof err) : NULL;
    if (!call) {
        printf("%-16s %-14s cannot bind: %s\n", be->name, row_of(pe), got ? err : "out of memory");
        failed++;
    } else {
        enum { WARM = 2, RUNS = 10 };
        double t[RUNS];
        for (int i = 0; i < WARM; i++) pe->run(call);
        for (int i = 0; i < RUNS; i++) {
            double t0 = now();
            pe->run(call);
            t[i] = (now() - t0) * 1e3;
        }
        qsort(t, RUNS, sizeof *t, cmpd);
        printf("%-16s %-14s %9.3f ms  (%.3f - %.3f)\n", be->name, row_of(pe), t[RUNS / 2], t[0], t[RUNS - 1]);
        pe->unbind(call);
    }
    free(got);
    bench_case_free(&bc);
}

int main(int argc, char **argv) {
    int timing = argc > 1 && !strcmp(argv[1], "--time");
    argv += timing;
    argc -= timing;
    if (argc < 2) {
        fprintf(stderr, "usage: test_peers [--time] MODULE.so [KERNEL]\n");
        return 2;
    }
    char err[512];
    const peer_entry *entries = peer_load(argv[1], err, sizeof err);
    if (!entries) {
        printf("FAIL %s\n", err);
        return 1;
    }
    int skipped = 0, covered = 0, library = entries->kernel && !entries->target;
    for (const bench_entry *be = bench_entries(); be->name; be++) {
        if (argc > 2 && strcmp(argv[2], be->name)) continue;
        int found = 0;
        for (const peer_entry *pe = entries; pe->kernel; pe++) {
            if (strcmp(pe->kernel, be->name)) continue;
            found++;
            if (!pe->runs_here(pe)) {
                skipped++;
                continue;
            }
            if (timing) time_entry(pe, be);
            else check_entry(pe, be);
        }
        covered += found > 0;
        if (!found && !library) {
            printf("FAIL %s: the peer has no entry for it\n", be->name);
            failed++;
        }
    }
    if (!covered) {
        printf("FAIL the peer has no entry for %s\n", argc > 2 ? argv[2] : "any benchmark kernel");
        failed++;
    }
    if (timing) return failed ? 1 : 0;
    printf("%d passed, %d failed; %d entries this machine cannot run\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
