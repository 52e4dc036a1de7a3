/* fuzz_kernel.c — the kernel front end and planner: tine_kernel_parse (parser, checker,
 * lowering to stages) on the input; a kernel it accepts is planned and interpreted on
 * small buffers (odd sizes, random data, small parameter values). Nothing crashes, a
 * refusal always has a message that is not an internal error, and a region that
 * tine_kernel_check_region accepts is interpreted without error. */
#include "fuzz.h"

enum { MAX_IN = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<fuzz>");
    if (!k) {
        FUZZ_CHECK(tine_error(ctx) != NULL, "a refused kernel without a message");
        FUZZ_CHECK(tine_error_kind(ctx) != TINE_ERROR_INTERNAL, "internal error: %s", tine_error(ctx));
        tine_ctx_free(ctx);
        free(text);
        return 0;
    }
    uint64_t seed = fuzz_hash(data, size);
    int ni = tine_kernel_ninputs(k), np = tine_kernel_nparams(k), dims = tine_kernel_dims(k);
    if (ni > MAX_IN) ni = -1; /* more than this harness binds: parsing was the test */
    tine_buffer_t ib[MAX_IN], ob = {0};
    tine_buffer_t *inputs[MAX_IN];
    void *mem[MAX_IN] = {0};
    int64_t *pv = calloc((size_t)(np > 0 ? np : 1), sizeof *pv);
    const void **params = calloc((size_t)(np > 0 ? np : 1), sizeof *params);
    if (!pv || !params) abort();
    /* A parameter may bound a loop reduction, and nested ones multiply: K^n iterations.
     * The harness looks for crashes, not for long runs of a kernel asked to do much work,
     * so with more than 3 ranges (each `a..b` of the text, an upper bound of the nesting)
     * the parameters are 0 or 1. */
    int ranges = 0;
    for (const char *p = strstr(text, ".."); p; p = strstr(p + 2, "..")) ranges++;
    uint64_t pmod = ranges > 3 ? 2 : 8;
    for (int i = 0; i < np; i++) {
        pv[i] = (int64_t)(fuzz_rand(&seed) % pmod); /* read at the parameter's width: little-endian */
        params[i] = &pv[i];
    }
    /* inputs: a margin around the output for stencils, smaller in the outer dimensions */
    static const int64_t in_ext[4] = {40, 16, 8, 8};
    for (int i = 0; i < ni; i++) {
        tine_type_t et;
        int d = 0;
        tine_kernel_input(k, i, &et, &d);
        int bytes = et.bits >= 8 ? et.bits / 8 : 1;
        ib[i] = (tine_buffer_t){.dims = d};
        size_t n = 1;
        for (int j = 0; j < 4; j++) {
            ib[i].min[j] = j < d ? -in_ext[j] / 4 : 0;
            ib[i].extent[j] = j < d ? in_ext[j] : 1;
            ib[i].stride[j] = j == 0 ? 1 : ib[i].stride[j - 1] * ib[i].extent[j - 1];
            n *= (size_t)ib[i].extent[j];
        }
        mem[i] = malloc(n * (size_t)bytes);
        if (!mem[i]) abort();
        for (size_t b = 0; b < n * (size_t)bytes; b++) ((uint8_t *)mem[i])[b] = (uint8_t)fuzz_rand(&seed);
        ib[i].data = mem[i];
        inputs[i] = &ib[i];
    }
    tine_type_t ot = tine_kernel_output_type(k);
    int obytes = ot.bits >= 8 ? ot.bits / 8 : 1;
    ob.dims = dims;
    size_t on = 1;
    for (int j = 0; j < 4; j++) {
        ob.extent[j] = j >= dims ? 1 : j == 0 ? 1 + (int64_t)(fuzz_rand(&seed) % 19) : 1 + (int64_t)(fuzz_rand(&seed) % 4);
        ob.min[j] = j < dims ? (int64_t)(fuzz_rand(&seed) % 5) - 2 : 0;
        ob.stride[j] = j == 0 ? 1 : ob.stride[j - 1] * ob.extent[j - 1];
        on *= (size_t)ob.extent[j];
    }
    void *out = calloc(on, (size_t)obytes);
    if (!out) abort();
    ob.data = out;
    if (ni >= 0 && dims >= 1 && dims <= 4) {
        int rc = tine_kernel_check_region(k, inputs, params, &ob);
        if (rc) {
            FUZZ_CHECK(tine_error(ctx) != NULL, "a refused region without a message");
            FUZZ_CHECK(tine_error_kind(ctx) != TINE_ERROR_INTERNAL, "internal error: %s", tine_error(ctx));
        } else {
            int ri = tine_kernel_interpret(k, inputs, params, &ob);
            FUZZ_CHECK(ri == 0, "the region checks but the interpreter fails: %s", tine_error(ctx));
        }
    }
    free(out);
    for (int i = 0; i < ni; i++) free(mem[i]);
    free(pv);
    free(params);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    free(text);
    return 0;
}
