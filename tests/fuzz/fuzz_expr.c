/* fuzz_expr.c — the expression parser: whatever parses prints back to text that parses
 * to the very same node (hash-consing makes that pointer equality) and prints the same;
 * nothing crashes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    tine_ctx_t *ctx = tine_ctx_new();
    tine_expr_t *e = tine_parse(ctx, text, "<fuzz>");
    if (e) {
        char *p = tine_print(ctx, e);
        FUZZ_CHECK(p != NULL, "print failed: %s", tine_error(ctx));
        tine_expr_t *e2 = tine_parse(ctx, p, "<printed>");
        FUZZ_CHECK(e2 != NULL, "the printed form does not parse: %s\n%s", p, tine_error(ctx));
        FUZZ_CHECK(e2 == e, "the printed form parses to another node: %s", p);
        char *p2 = tine_print(ctx, e2);
        FUZZ_CHECK(p2 && !strcmp(p, p2), "printing again differs: %s / %s", p, p2 ? p2 : "(null)");
        free(p2);
        free(p);
    } else {
        FUZZ_CHECK(tine_error(ctx) != NULL, "a parse failure without a message");
        FUZZ_CHECK(tine_error_kind(ctx) != TINE_ERROR_INTERNAL, "internal error: %s", tine_error(ctx));
    }
    tine_ctx_free(ctx);
    free(text);
    return 0;
}
