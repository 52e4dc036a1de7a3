/* retarget.c — `tine retarget FILE --from T --to T`: intrinsic C rewritten for another
 * instruction set (the library's tine_retarget, src/retarget). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "retarget_check.h"
#include "tine.h"

int cli_cmd_retarget(const options *o) {
    if (!o->from || !o->to) {
        fprintf(stderr, "tine retarget: needs --from T and --to T (arm-64, x86-64-sse2, x86-64-sse41, x86-64-avx2, "
                        "x86-64-avx512)\n");
        return 2;
    }
    if (!tine_target_isa(o->from) || !tine_target_isa(o->to)) {
        fprintf(stderr, "tine retarget: unknown target '%s'\n", tine_target_isa(o->from) ? o->to : o->from);
        return 2;
    }
    if (o->emit_header) {
        if (o->file) {
            fprintf(stderr, "tine retarget --emit-header takes no FILE\n");
            return 2;
        }
        tine_ctx_t *ctx = tine_ctx_new();
        int emitted = 0, skipped = 0;
        char *h = tine_retarget_header(ctx, o->from, o->to, &emitted, &skipped);
        int rc = 1;
        if (!h) fprintf(stderr, "%s\n", tine_error(ctx));
        else {
            rc = cli_write(o->out, h, strlen(h));
            fprintf(stderr, "tine retarget --emit-header: %d intrinsics written, %d not\n", emitted, skipped);
        }
        free(h);
        tine_ctx_free(ctx);
        return rc;
    }
    char *text = tine_cli_read_file(o->file);
    if (!text) return 1;
    tine_ctx_t *ctx = tine_ctx_new();
    tine_retarget_opts ro = {.from = o->from, .to = o->to, .cflags = o->cflags, .ncflags = o->ncflags,
                             .no_widen = o->no_widen};
    char *report = NULL, *kept = NULL;
    ro.kept = &kept;
    char *out = tine_retarget(ctx, o->file, text, &ro, o->show_report ? &report : NULL);
    int rc = 0;
    if (!out) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        rc = 1;
    } else {
        if (kept) fputs(kept, stderr); /* functions kept as written, and why */
        rc = cli_write(o->out, out, strlen(out));
        if (!rc && report) fputs(report, stderr);
        if (!rc && o->check_run) rc = retarget_check(o, text, out);
    }
    free(out);
    free(report);
    free(kept);
    free(text);
    tine_ctx_free(ctx);
    return rc;
}
