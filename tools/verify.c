/* verify.c — `tine verify`: rule proofs, bounds soundness and translation validation. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

/* The default time a query may take: long enough for the slowest rule here. */
enum { DEFAULT_TIMEOUT_MS = 60000, KERNEL_TIMEOUT_MS = 10000, BOUNDS_TIMEOUT_MS = 2000 };

static int verify_rules(const options *o, unsigned timeout) {
    tine_ctx_t *ctx = tine_ctx_new();
    bool builtin = !strcmp(o->rules, "lift") || !strcmp(o->rules, "x86") || !strcmp(o->rules, "arm") ||
                   !strcmp(o->rules, "peephole-x86") || !strcmp(o->rules, "peephole-arm") ||
                   !strcmp(o->rules, "synthesized");
    if (builtin && o->isa) {
        fprintf(stderr, "tine verify: --isa names the instruction set of a rule FILE; %s rules have their own\n", o->rules);
        tine_ctx_free(ctx);
        return 2;
    }
    char *text = builtin ? NULL : tine_cli_read_file(o->rules);
    if (!builtin && !text) {
        tine_ctx_free(ctx);
        return 1;
    }
    int n = tine_verify_rules(ctx, builtin ? o->rules : NULL, text, o->rules, o->isa, timeout, o->rule, o->quiet, stdout);
    free(text);
    if (n < 0) cli_report(ctx, "tine verify: ");
    if (n > 0) fprintf(stderr, "tine verify: %s\n", tine_error(ctx)); /* which were not proven */
    tine_ctx_free(ctx);
    return n != 0;
}

/* tine verify --vectorized FILE.c --function NAME --target T: the kernel vectorized again,
 * the identities of strict mode's rules and then every output proven in Z3's floating-point
 * theory (over the reals with --reassociate or --contract). */
static int verify_vectorized(const options *o) {
    if (!o->file || !o->function || !o->target) {
        fprintf(stderr, "tine verify --vectorized: needs a C FILE, --function NAME and --target T\n");
        return 2;
    }
    tine_vectorize_opts vo = {.emit = "egraph-stats", .prove = 1};
    return cli_vectorize_run(o, &vo);
}

int cli_verify(const options *o) {
    if (o->vectorized) return verify_vectorized(o);
    int modes = (o->rules != NULL) + (o->bounds != 0) + (o->file != NULL);
    if (modes != 1) {
        fprintf(stderr, "tine verify: needs one of --rules lift|x86|arm|FILE, --bounds, or a kernel FILE\n");
        return 2;
    }
    if ((o->isa || o->rule || o->quiet) && !o->rules) {
        fprintf(stderr, "tine verify: --isa, --rule and --quiet go with --rules\n");
        return 2;
    }
    if (o->quick && !o->bounds) {
        fprintf(stderr, "tine verify: --quick goes with --bounds\n");
        return 2;
    }
    if (o->target && !o->file) {
        fprintf(stderr, "tine verify: --target goes with a kernel FILE\n");
        return 2;
    }
    if (o->rules) return verify_rules(o, o->timeout_ms ? (unsigned)o->timeout_ms : DEFAULT_TIMEOUT_MS);
    tine_ctx_t *ctx = tine_ctx_new();
    int n;
    if (o->bounds) {
        n = tine_verify_bounds_all(ctx, o->quick, o->timeout_ms ? (unsigned)o->timeout_ms : BOUNDS_TIMEOUT_MS, stdout);
    } else {
        char *text = tine_cli_read_file(o->file);
        if (!text) {
            tine_ctx_free(ctx);
            return 1;
        }
        n = tine_verify_kernel_all(ctx, text, o->file, o->target, o->timeout_ms ? (unsigned)o->timeout_ms : KERNEL_TIMEOUT_MS,
                                   stdout);
        free(text);
    }
    if (n < 0) cli_report(ctx, "tine verify: ");
    tine_ctx_free(ctx);
    return n != 0;
}
