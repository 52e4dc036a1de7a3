/* dft.c — `tine dft --n N --target T`: a DFT codelet (the library's tine_dft, src/dft). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

int cli_cmd_dft(const options *o) {
    if (!o->dft_n) {
        fprintf(stderr, "tine dft: needs --n N (the transform's size, 2 to 64)\n");
        return 2;
    }
    bool header = o->emit && !strcmp(o->emit, "h");
    if (!o->target && !header) {
        fprintf(stderr, "tine dft: needs --target T (x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64)\n");
        return 2;
    }
    tine_ctx_t *ctx = tine_ctx_new();
    tine_dft_opts d = {.n = o->dft_n, .inverse = o->inverse, .type = o->type, .target = o->target ? o->target : "host",
                       .emit = o->emit, .name = o->name, .no_peephole = o->no_peephole, .no_schedule = o->no_schedule,
                       .no_contract = o->no_contract, .vector_bits = o->vector_bits};
    size_t n = 0;
    char *report = NULL;
    char *out = tine_dft(ctx, &d, &n, o->dft_report ? &report : NULL);
    int rc = 0;
    if (!out) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        rc = 1;
    } else {
        if (report) fputs(report, stderr);
        rc = cli_write(o->out, out, n);
    }
    free(report);
    free(out);
    tine_ctx_free(ctx);
    return rc;
}
