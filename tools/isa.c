/* isa.c — `tine isa SUBCOMMAND`: instruction descriptions (import from Intel's data file;
 * list: tools/isa_list.c; similarity classes: tools/isa_classes.c). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

static int isa_import(const options *o) {
    if (!o->intel) {
        fprintf(stderr, "tine isa import: needs --intel FILE.xml (the Intel Intrinsics Guide data file)\n");
        return 2;
    }
    char *xml = tine_cli_read_file(o->intel);
    if (!xml) return 1;
    tine_ctx_t *ctx = tine_ctx_new();
    char *text = NULL, *report = NULL;
    int imported = 0, candidates = 0;
    int rc = tine_isa_import_intel(ctx, xml, o->intel, o->cpuid, &text, &report, &imported, &candidates);
    free(xml);
    if (rc) {
        fprintf(stderr, "tine isa import: %s\n", tine_error(ctx));
        tine_ctx_free(ctx);
        return 1;
    }
    if (!candidates) {
        fprintf(stderr, "tine isa import: %s has no integer SIMD intrinsic of the extensions asked for "
                        "(is it the Intel Intrinsics Guide data file?)\n", o->intel);
        rc = 1;
    } else {
        rc = cli_write(o->out, text, strlen(text));
        if (!rc) {
            if (o->report) rc = cli_write(o->report, report, strlen(report));
            else fputs(report, stderr);
        }
    }
    free(text);
    free(report);
    tine_ctx_free(ctx);
    return rc;
}

int cli_cmd_isa(const options *o) {
    static const char *const subs[] = {"import", "list", "classes"};
    if (!strcmp(o->sub, "import")) return isa_import(o);
    if (!strcmp(o->sub, "list")) return cli_isa_list(o);
    if (!strcmp(o->sub, "classes")) return cli_isa_classes(o);
    const char *near = cli_closest(o->sub, subs, (int)(sizeof subs / sizeof *subs));
    fprintf(stderr, "tine isa: unknown subcommand '%s'%s%s%s (import, list, classes)\n", o->sub, near ? ": did you mean '" : "",
            near ? near : "", near ? "'?" : "");
    return 2;
}
