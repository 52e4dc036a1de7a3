/* isa_list.c — `tine isa list [--isa x86|arm|x86gen]`: the instruction forms of the
 * target descriptions (the library's tine_isa_list), one line each. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

int cli_isa_list(const options *o) {
    tine_ctx_t *ctx = tine_ctx_new();
    char *text = tine_isa_list(ctx, o->isa);
    int rc = 0;
    if (!text) {
        cli_report(ctx, "tine isa list: ");
        rc = 1;
    } else fputs(text, stdout);
    free(text);
    tine_ctx_free(ctx);
    return rc;
}
