/* isa_classes.c — `tine isa classes`: the similarity classes of the built-in
 * instructions (the library's tine_isa_classes, src/verify/classes.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

/* A query that compares two instructions' semantics is small; this bounds a stuck one. */
enum { DEFAULT_TIMEOUT_MS = 10000 };

int cli_isa_classes(const options *o) {
    const char *isa = o->isa ? o->isa : "all";
    tine_ctx_t *ctx = tine_ctx_new();
    int n = tine_isa_classes(ctx, isa, o->timeout_ms ? (unsigned)o->timeout_ms : DEFAULT_TIMEOUT_MS, stdout);
    if (n < 0) cli_report(ctx, "tine isa classes: ");
    tine_ctx_free(ctx);
    return n < 0;
}
