/* fuzz_vectorize.c — tine vectorize's front end and search on any C text: the file parsed
 * by libclang, its last function run symbolically (small limits), the spec searched on
 * the e-graph (small limits) for a target and mode the input's hash picks, the program
 * validated and written as C. Nothing crashes; a refusal has a message that is not an
 * internal error; a program the search returns always validates (a failure there is a
 * wrong rule) unless Z3 gives up. */
#include "fuzz.h"
#include "internal.h"
#include "vectorize/vectorize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    tine_ctx_t *ctx = tine_ctx_new();
    tine_cfile *f = tine_cfront_parse(ctx, "fuzz.c", text, NULL, 0, NULL);
    int nf = f ? tine_cfile_nfuncs(f) : 0;
    vz_spec *s = NULL;
    if (nf > 0) {
        vz_front_limits lim = {.max_nodes = 20000, .max_steps = 200000};
        s = vz_front(ctx, f, tine_cfile_func(f, nf - 1)->name, &lim);
        if (!s) {
            FUZZ_CHECK(tine_error(ctx) != NULL, "a refused kernel without a message");
            FUZZ_CHECK(tine_error_kind(ctx) != TINE_ERROR_INTERNAL, "internal error: %s", tine_error(ctx));
        }
    }
    if (s) {
        uint64_t h = fuzz_hash(data, size);
        static const char *const targets[] = {"x86-64-sse41", "x86-64-avx2", "x86-64-avx512", "arm-64"};
        vz_options o = {.reassociate = (h >> 2) & 1, .contract = (h >> 3) & 1,
                        .limits = {.max_nodes = 20000, .max_seconds = 1}};
        vz_program *p = vz_search(ctx, s, vz_target_find(targets[h & 3]), &o);
        FUZZ_CHECK(p != NULL, "no program: %s", tine_error(ctx));
        int rc = vz_validate(ctx, p, &o, NULL);
        FUZZ_CHECK(rc == 0 || strstr(tine_error(ctx), "gave up"), "validation failed: %s", tine_error(ctx));
        size_t n;
        char *c = NULL;
        vz_tprog *tp = vz_tprog_new(ctx, p, &(tine_tprog_opt){.contract = o.contract}, NULL);
        if (tp) c = vz_emit_c(ctx, p, tp, &n);
        vz_tprog_free(tp);
        FUZZ_CHECK(c != NULL && n > 0, "no C: %s", tine_error(ctx));
        free(c);
        vz_program_free(p);
    }
    vz_spec_free(s);
    tine_cfile_free(f);
    tine_ctx_free(ctx);
    free(text);
    return 0;
}
