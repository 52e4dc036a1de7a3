/* aot_main.c — a plain C program linking kernels compiled ahead of time by tine
 * (`tine compile FILE.tine --emit obj` and `--emit h`), built and run by test_cli.sh.
 *
 * It includes only the generated headers, bench/ref's harness and aot_check.h: each kernel runs on
 * the harness's test shapes and fill patterns and must equal its scalar C reference bit
 * for bit; buffers too small for the region read, and outputs of the wrong shape, must
 * be refused with the documented return codes (and leave the output untouched).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_check.h"
#include "camera_pipe.h"
#include "gaussian3x3.h"
#include "l2norm.h"
#include "ref/cases.h"
#include "tine_buffer.h"

static int call(const char *name, tine_buffer_t *in, const int64_t *p, tine_buffer_t *out) {
    if (!strcmp(name, "gaussian3x3")) return gaussian3x3(&in[0], out);
    if (!strcmp(name, "l2norm")) return l2norm(&in[0], (uint8_t)p[0], (int32_t)p[1], out);
    return camera_pipe(&in[0], &in[1], &in[2], out);
}

int main(void) {
    static const char *const kernels[] = {"gaussian3x3", "l2norm", "camera_pipe"};
    uint64_t seed = 11;
    for (int ki = 0; ki < 3; ki++) {
        const bench_entry *e = bench_entry_find(kernels[ki]);
        if (!e) {
            check(0, "no harness entry", kernels[ki], 0, 0);
            continue;
        }
        for (int size = CASE_TEST0; size <= CASE_TEST2; size++)
            for (int pat = 0; pat < PAT_COUNT; pat++) {
                bench_case c = {.name = e->name};
                e->make(&c, (case_size)size, (case_pattern)pat, &seed);
                size_t nb = case_bytes(&c.out, c.out_bits);
                unsigned char *want = malloc(nb), *got = malloc(nb);
                if (!want || !got) return 2;
                e->ref(&c, want);
                tine_buffer_t in[8], out = case_tine_buffer(&c.out);
                for (int i = 0; i < c.ninputs; i++) in[i] = case_tine_buffer(&c.in[i]);
                memset(got, 0x5a, nb);
                out.data = got;
                int rc = call(e->name, in, c.params, &out);
                check(rc == 0, "the call fails", e->name, size, pat);
                check(rc == 0 && !memcmp(got, want, nb), "differs from the reference", e->name, size, pat);
                if (size == CASE_TEST0 && pat == PAT_RANDOM) {
                    /* the first input one element short in its last dimension: refused (1) */
                    tine_buffer_t small = in[0];
                    small.extent[small.dims - 1]--;
                    tine_buffer_t saved = in[0];
                    in[0] = small;
                    memset(got, 0x5a, nb);
                    rc = call(e->name, in, c.params, &out);
                    check(rc == 1, "a too-small input is not refused with 1", e->name, size, pat);
                    int untouched = 1;
                    for (size_t i = 0; i < nb; i++) untouched &= got[i] == 0x5a;
                    check(untouched, "a refused call wrote the output", e->name, size, pat);
                    /* shifted: the same extent, but starting one element later (the image
                       kernels read from their input's first element; camera_pipe does not) */
                    small = saved;
                    small.min[0]++;
                    small.data = (char *)small.data + (c.in_bits[0] / 8);
                    in[0] = small;
                    rc = call(e->name, in, c.params, &out);
                    check(rc == (ki < 2 ? 1 : 0), "a shifted input is not refused with 1", e->name, size, pat);
                    in[0] = saved;
                    /* the output with another number of dimensions: -2 */
                    tine_buffer_t bad = out;
                    bad.dims = out.dims + 1;
                    check(call(e->name, in, c.params, &bad) == -2, "a wrong output shape is not refused with -2", e->name,
                          size, pat);
                    /* an input with another number of dimensions: its index */
                    in[c.ninputs - 1].dims++;
                    check(call(e->name, in, c.params, &out) == c.ninputs, "a wrong input shape is not refused",
                          e->name, size, pat);
                    in[c.ninputs - 1].dims--;
                }
                free(want);
                free(got);
                bench_case_free(&c);
            }
    }
    printf("aot: %d checks passed, %d failed\n", passed, failed);
    return failed != 0;
}
