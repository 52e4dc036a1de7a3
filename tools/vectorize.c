#define _POSIX_C_SOURCE 200809L
/* vectorize.c — `tine vectorize FILE.c --function NAME --target T`: a small float kernel
 * vectorized by equality saturation (the library's tine_vectorize, src/vectorize), and
 * `tine bench --vectorize`, which runs tests/vectorize's bench script with this binary. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tine.h"

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

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
int cli_bench_vectorize(const options *o) {
    char script[4096], self[4096];
    bool arm = o->target && !strcmp(o->target, "arm-64");
    snprintf(script, sizeof script, "%s/tests/vectorize/%s", TINE_SOURCE_DIR, arm ? "bench_arm.sh" : "bench.sh");
    if (access(script, R_OK)) {
        fprintf(stderr, "tine bench --vectorize: no %s (the kernels are in the source tree)\n", script);
        return 1;
    }
    if (o->target && !arm && strcmp(o->target, "x86-64-avx2") && strcmp(o->target, "x86-64-avx512") &&
        strcmp(o->target, "host")) {
        fprintf(stderr, "tine bench --vectorize: times x86-64-avx2, x86-64-avx512 (both by default) or arm-64 (by "
                        "llvm-mca), not '%s'\n", o->target);
        return 2;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "tine bench --vectorize: cannot find this binary (/proc/self/exe)\n");
        return 1;
    }
    self[len] = 0;
    const char *argv[16];
    int k = 0;
    argv[k++] = "bash";
    argv[k++] = script;
    if (o->quick) argv[k++] = "--quick";
    if (o->target && !arm && strcmp(o->target, "host")) argv[k++] = "--target", argv[k++] = o->target;
    if (o->filter) argv[k++] = "--filter", argv[k++] = o->filter;
    argv[k] = NULL;
    return cli_run_script("tine bench --vectorize", self, argv);
}
