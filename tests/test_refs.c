/* test_refs.c — every benchmark kernel against its independent scalar C reference.
 *
 * For every entry of bench/ref/cases.h: the kernel (bench/kernels/NAME.tine, or
 * bench/user/NAME.tine for a user kernel) is compiled
 * by tine through both selections (LLVM alone, and tine's) for the host, and run on the
 * three small test shapes (odd extents, one narrower than any vector) filled with random
 * data and with edge values (all 0, all max, a 0/max checkerboard, stripes); every output
 * element must equal the plain C reference in bench/ref/, written from BENCHMARKS.md
 * alone. The interpreter's output is checked too, on the smallest shape, and so is tine's
 * selection with the synthesized lowering rules alone (`--rules synthesized`:
 * src/targets/x86.synth.rules in place of x86.rules) for the host and for SSE2, the
 * levels whose rules differ most.
 * `test_refs NAME` runs one kernel.
 */
#include "internal.h"

#include "../bench/harness.h"
#include "testutil.h"

static const char *const PATTERNS[] = {"random", "zero", "max", "checker", "stripes"};

static void test_kernel(const bench_entry *be) {
    char path[256];
    snprintf(path, sizeof path, "../bench/%s/%s.tine", bench_entry_dir(be), be->name);
    char *text = read_file(path);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    tine_ctx_t *ctx = tine_ctx_new(), *sctx = tine_ctx_new();
    CHECK(tine_set_lower_rules(sctx, "synthesized") == 0, "%s", tine_error(sctx));
    tine_kernel_t *k = tine_kernel_parse(ctx, text, path), *ks = tine_kernel_parse(sctx, text, path);
    CHECK(k && ks, "%s: %s", be->name, tine_error(ctx));
    free(text);
    if (!k || !ks) {
        tine_kernel_free(k);
        tine_kernel_free(ks);
        tine_ctx_free(ctx);
        tine_ctx_free(sctx);
        return;
    }
    /* LLVM alone, tine (hand rules), the interpreter (no compile), tine synthesized twice */
    enum { NV = 5, INTERP = 2 };
    static const char *const NAMES[NV] = {"LLVM alone", "tine", "interpreter", "tine, synthesized rules, host",
                                          "tine, synthesized rules, x86-64-sse2"};
    bool x86 = !strcmp(tine_target_isa("host"), "x86");
    /* under the sanitizers (tests/CMakeLists.txt) the host's only */
    bool sse2 = x86 && !getenv("TINE_REFS_SYNTH_HOST_ONLY");
    tine_compiled_t *c[NV] = {tine_kernel_compile(k, "host", TINE_SELECT_LLVM), tine_kernel_compile(k, "host", TINE_SELECT_TINE),
                              NULL, x86 ? tine_kernel_compile(ks, "host", TINE_SELECT_TINE) : NULL,
                              sse2 ? tine_kernel_compile(ks, "x86-64-sse2", TINE_SELECT_TINE) : NULL};
    CHECK(c[0] && c[1], "%s: compile: %s", be->name, tine_error(ctx));
    CHECK((!x86 || c[3]) && (!sse2 || c[4]), "%s: compile with the synthesized rules: %s", be->name, tine_error(sctx));
    uint64_t seed = 7;
    for (int size = CASE_TEST0; size <= CASE_TEST2 && c[0] && c[1]; size++)
        for (int pi = 0; pi < PAT_COUNT; pi++) {
            bench_case bc = {.name = be->name};
            CHECK(be->make(&bc, (case_size)size, (case_pattern)pi, &seed) == 0, "%s: no case", be->name);
            size_t nb = case_bytes(&bc.out, bc.out_bits);
            unsigned char *want = malloc(nb), *got = malloc(nb);
            if (!want || !got) abort();
            memset(want, 0x5a, nb);
            be->ref(&bc, want);
            case_binding b;
            char err[256];
            int bound = case_bind(&bc, k, got, &b, err, sizeof err);
            CHECK(bound == 0, "%s", err);
            for (int s = 0; s < NV && bound == 0; s++) {
                if (s == INTERP && !(size == CASE_TEST1 && pi < 2)) continue; /* the interpreter: smallest shape */
                if (s != INTERP && !c[s]) continue;
                memset(got, 0x5a, nb);
                int rc = s != INTERP ? tine_compiled_run(c[s], b.inputs, b.params, &b.out)
                                     : tine_kernel_interpret(k, b.inputs, b.params, &b.out);
                CHECK(rc == 0, "%s: run: %s", be->name, tine_error(ctx));
                int64_t at[4] = {0};
                bool bad = rc == 0 && case_first_difference(&bc, got, want, at);
                CHECK(!bad, "%s (%s, size %d, %s): element (%lld, %lld, %lld, %lld) differs from the reference",
                      be->name, NAMES[s], size, PATTERNS[pi], (long long)at[0], (long long)at[1], (long long)at[2],
                      (long long)at[3]);
            }
            free(want);
            free(got);
            bench_case_free(&bc);
        }
    for (int s = 0; s < NV; s++) tine_compiled_free(c[s]);
    tine_kernel_free(k);
    tine_kernel_free(ks);
    tine_ctx_free(ctx);
    tine_ctx_free(sctx);
}

int main(int argc, char **argv) {
    int n = 0;
    for (const bench_entry *e = bench_entries(); e->name; e++, n++)
        if (argc < 2 || !strcmp(argv[1], e->name)) test_kernel(e);
    CHECK(n >= 9, "only %d benchmark kernels", n);
    printf("test_refs: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
