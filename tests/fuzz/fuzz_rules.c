/* fuzz_rules.c — the rule compiler: any text compiles or is refused with a message that
 * is not an internal error; nothing crashes. A compiled set's rules are all described.
 * A text whose first line starts "# lower" (any case; x86.rules starts "# Lowering") is
 * compiled as lowering rules, any other as lift rules. */
#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    tine_ctx_t *ctx = tine_ctx_new();
    bool lowering = size >= 7 && !strncmp(text, "# ", 2);
    for (int i = 0; lowering && i < 5; i++) lowering = tolower((unsigned char)text[2 + i]) == "lower"[i];
    tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text, "<fuzz>", lowering);
    if (rs) {
        int n = tine_rules_count(rs);
        for (int i = 0; i < n; i++) {
            const char *name = NULL, *file = NULL, *why = NULL;
            int line = 0;
            FUZZ_CHECK(tine_rule_info(rs, i, &name, &file, &line, &why) == 0 && name && line >= 1,
                       "rule %d of %d has no description", i, n);
        }
        tine_rules_free(rs);
    } else {
        FUZZ_CHECK(tine_error(ctx) != NULL, "a refused rule file without a message");
        FUZZ_CHECK(tine_error_kind(ctx) != TINE_ERROR_INTERNAL, "internal error: %s", tine_error(ctx));
    }
    tine_ctx_free(ctx);
    free(text);
    return 0;
}
