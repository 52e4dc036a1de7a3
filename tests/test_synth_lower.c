/* test_synth_lower.c — `tine synth lower` (src/synth/lower_synth.c, specs.c).
 *
 * 1. Every spec is a well-typed expression at the lanes the search builds it at and at the
 *    evaluation lanes, and its pattern compiles as a lowering rule's left side.
 * 2. Searches find what the instruction set says they must: a direct instruction where
 *    x86 has one (pavgb, packuswb, pminsb only from SSE4.1), an emulation of a few
 *    instructions where it has none (absd of u8 by two saturating subtractions), a
 *    bounds-predicated rule (pmulhrsw where an operand is above -32768: a product Z3
 *    proves only with products abstracted), a shift count past the high half (the c0
 *    wildcard), a window of two products (pmaddwd on interleaved operands), a rewrite met
 *    in the middle (a rounding shift as the difference of two shifts), a rule composed
 *    from others (the Q31 rounding multiply as its definition one level down); every rule
 *    written proves with the rule prover, and the search's counters say the CEGIS loop
 *    ran (each match a Z3 query).
 * 3. A spec x86 has no cheaper lowering for (a 64-bit widening multiply at SSE2) gets no
 *    rule: only rewrites below the generic lowering's cost are written.
 * 4. tine_set_lower_rules: synthesized rules replace the hand ones for x86 and refuse
 *    other names.
 */
#include "internal.h"
#include "rules/rules.h"
#include "synth/synth.h"

#include "testutil.h"

static char *search(tine_ctx_t *ctx, const char *targets, const char *only, double seconds, tine_synth_lower_stats *st) {
    tine_synth_lower_opts o = {.targets = targets, .only = only, .size = 6, .max_cost = 24, .spec_seconds = seconds,
                               .timeout_ms = 10000};
    char *text = tine_synth_lower(ctx, &o, st);
    CHECK(text != NULL, "synth lower %s %s: %s", targets, only, tine_error(ctx));
    return text;
}

static void specs_are_well_typed(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    synth_spec *sp;
    size_t n = synth_specs(&sp);
    CHECK(n > 100, "only %zu specs", n);
    for (size_t i = 0; i < n; i++)
        for (int lanes = 8; lanes <= 128; lanes *= 16) {
            tine_buf b = {0};
            synth_spec_text(&b, &sp[i], lanes);
            tine_expr_t *e = tine_parse(ctx, b.p, "spec");
            CHECK(e != NULL, "spec %s at %d lanes: '%s': %s", sp[i].name, lanes, b.p, tine_error(ctx));
            free(b.p);
        }
    /* every pattern as a rule's left side, rewritten to itself (its wildcards without
       their types) */
    tine_buf rules = {0};
    for (size_t i = 0; i < n; i++) {
        tine_buf lhs = {0};
        synth_spec_pattern(&lhs, &sp[i]);
        char *rhs = tine_xmalloc(strlen(lhs.p) + 1), *q = rhs;
        for (const char *p = lhs.p; *p; p++) {
            if (*p == ':')
                while (p[1] && p[1] != ',' && p[1] != ')') p++;
            else *q++ = *p;
        }
        *q = 0;
        tine_buf_printf(&rules, "p%zu: %s -> %s%s%s  # pattern check\n", i, lhs.p, rhs, sp[i].pred[0] ? " if " : "",
                        sp[i].pred);
        free(rhs);
        free(lhs.p);
    }
    tine_ruleset_t *rs = tine_rules_compile_kind(ctx, rules.p, "patterns", true);
    CHECK(rs != NULL, "the specs' patterns do not compile as lowering rules: %s", tine_error(ctx));
    CHECK(rs && tine_rules_count(rs) == (int)n, "%d of %zu patterns compiled", rs ? tine_rules_count(rs) : 0, n);
    tine_rules_free(rs);
    free(rules.p);
    free(sp);
    tine_ctx_free(ctx);
}

static void finds(const char *target, const char *only, const char *want) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_synth_lower_stats st;
    char *text = search(ctx, target, only, 20, &st);
    CHECK(text && strstr(text, want), "synth lower %s --op %s: no '%s' in:\n%s", target, only, want, text ? text : "");
    CHECK(st.found >= 1 && st.queries >= st.found && st.unproven == 0,
          "synth lower %s --op %s: %ld found, %ld queries, %ld unproven", target, only, st.found, st.queries, st.unproven);
    free(text);
    tine_ctx_free(ctx);
}

static void finds_none(const char *target, const char *only) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_synth_lower_stats st;
    char *text = search(ctx, target, only, 3, &st);
    CHECK(text && st.rules == 0 && !strstr(text, "\ns_"), "synth lower %s --op %s wrote a rule:\n%s", target, only,
          text ? text : "");
    free(text);
    tine_ctx_free(ctx);
}

static void rule_sets(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_ruleset_t *hand = tine_lower_rules(ctx, "x86");
    CHECK(tine_set_lower_rules(ctx, "synthesized") == 0, "%s", tine_error(ctx));
    tine_ruleset_t *synth = tine_lower_rules(ctx, "x86"), *arm = tine_lower_rules(ctx, "arm");
    CHECK(synth && synth != hand, "synthesized rules are not a set of their own");
    CHECK(arm != NULL, "arm keeps its hand rules");
    CHECK(tine_set_lower_rules(ctx, "mine") != 0 && strstr(tine_error(ctx), "hand or synthesized"),
          "an unknown rule set is not refused");
    CHECK(tine_set_lower_rules(ctx, "hand") == 0 && tine_lower_rules(ctx, "x86") == hand, "hand rules not restored");
    tine_ctx_free(ctx);
}

int main(void) {
    specs_are_well_typed();
    finds("x86-64-sse2", "rounding_halving_add_u8", "-> pavgb(x, y)");
    finds("x86-64-sse2", "saturating_cast_i16_u8", "-> packuswb(x)");
    finds("x86-64-sse41", "min_i8", "-> pminsb(x, y)");
    finds("x86-64-avx2", "absd_u8", "psubusb(y, x)");
    /* a count past the high half (c0 a wildcard with a predicate), and a window's pair */
    finds("x86-64-sse2", "mul_shr_u16_high", "-> pmulhuw(x, y) >> (c0 & 15) if c0 > 16 && c0 < 32");
    finds("x86-64-avx2", "widening_mul_pair_i16", "-> pmaddwd(interleave(x, z), interleave(y, w))");
    finds("x86-64-sse41", "rounding_mul_shr_i16_nomin", "-> pmulhrsw(x, y) if lower_bounded(x, -32767)");
    /* a meet in the middle: (x >> c0 - 1) from the bank, the other side looked up */
    finds("x86-64-avx2", "rounding_shr_i32_const", "-> (x >> c0 - 1) - (x >> c0) if c0 >= 1 && c0 < 32");
    /* composed: the Q31 multiply's definition one level down, each part by its own rule */
    finds("x86-64-avx2", "widening_mul_i32,rounding_shr_i64_const,rounding_mul_shr_i32",
          "rounding_mul_shr(x:i32, y:i32, 31) -> saturating_narrow(rounding_shr(widening_mul(x, y), 31))");
    finds_none("x86-64-sse2", "widening_mul_u64");
    rule_sets();
    printf("test_synth_lower: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
