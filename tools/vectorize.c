#define _POSIX_C_SOURCE 200809L
/* vectorize.c — `tine vectorize FILE.c --function NAME --target T`: a small float kernel
 * vectorized by equality saturation (the library's tine_vectorize, src/vectorize), and
 * `tine bench --vectorize`, which runs tests/vectorize's bench script with this binary. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

int cli_cmd_vectorize(const options *o) {
    if (!o->function) {
        fprintf(stderr, "tine vectorize: needs --function NAME (the kernel)\n");
        return 2;
    }
    bool spec = o->emit && !strcmp(o->emit, "spec");
    if (!o->target && !spec) {
        fprintf(stderr, "tine vectorize: needs --target T (x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64)\n");
        return 2;
    }
    tine_vectorize_opts vo = {.emit = o->emit};
    return cli_vectorize_run(o, &vo);
}

int cli_vectorize_run(const options *o, tine_vectorize_opts *vo) {
    char *text = tine_cli_read_file(o->file);
    if (!text) return 1;
    tine_ctx_t *ctx = tine_ctx_new();
    vo->function = o->function, vo->target = o->target, vo->cflags = o->cflags, vo->ncflags = o->ncflags;
    vo->reassociate = o->reassociate, vo->contract = o->contract, vo->no_vectorize = o->no_vectorize;
    vo->no_validate = o->no_validate;
    size_t n = 0;
    char *out = tine_vectorize(ctx, o->file, text, vo, &n, NULL);
    int rc = 0;
    if (!out) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        rc = 1;
    } else rc = cli_write(vo->emit && !strcmp(vo->emit, "egraph-stats") && vo->prove ? NULL : o->out, out, n);
    free(out);
    free(text);
    tine_ctx_free(ctx);
    return rc;
}

/* The bench script does the work (each kernel through tine vectorize, the naive C and
 * Eigen built with the same flags, checked against each other, timed interleaved). */
int cli_bench_vectorize(const options *o) { return cli_run_row_bench(o, "tine bench --vectorize", "tests/vectorize"); }
