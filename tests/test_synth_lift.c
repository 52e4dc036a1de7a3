/* test_synth_lift.c — `tine synth lift` (src/synth): small searches that must
 *   1. from scratch (no rules loaded), on u8 at three operators, rediscover hand rules of
 *      lift.rules: widening_add (widen(x) + widen(y)) and widening_sub or widening_mul;
 *   2. beside lift.rules alone (--hand-only: src/lift/lift.synth.rules, which tine loads by
 *      default, holds what this finds), on i16 at four operators with the search focused
 *      on rounding shifts, find a rule that makes the idioms lift to the saturating
 *      narrow of the rounding shift: saturating_cast<i8>((i32(a_i16) + 8) >> 4) (Arm
 *      sqrshrn) and, from the same rule generalised in T, u8(min((u32(a_u16) + 8) >> 4,
 *      255)) (uqrshrn), which lift.rules alone do not; and the built-in rules (tine_lift)
 *      lift them so;
 *   3. in both, every rule written proves (tine_verify_rules: no counterexample, no unknown),
 *      and so does every rule of the committed src/lift/lift.synth.rules.
 * The argument `sanitized` (CMake under the sanitizers, where the search is several times
 * slower) skips part 1.
 */
#include <string.h>

#include "internal.h"
#include "rules/rules.h"
#include "testutil.h"

extern const char tine_lift_rules_text[], tine_lift_rules_file[], tine_lift_synth_rules_text[];

static char *run(tine_ctx_t *ctx, tine_type_t t, int size, int scratch, const char *focus) {
    tine_synth_lift_opts o = {.size = size, .types = &t, .ntypes = 1, .timeout_ms = 20000, .from_scratch = scratch,
                              .hand_only = 1, .focus = tine_op_lookup(focus)};
    tine_synth_lift_stats st;
    double t0 = now();
    char *text = tine_synth_lift(ctx, &o, &st);
    CHECK(text != NULL, "synth failed: %s", tine_error(ctx));
    printf("synth %s size %d%s focus %s: %ld rules, %.1f s\n", scratch ? "from scratch" : "beside lift.rules", size,
           "", focus, st.rules, now() - t0);
    CHECK(st.rules > 0, "no rule found");
    return text;
}

static void proves(tine_ctx_t *ctx, const char *text) {
    FILE *null = fopen("/dev/null", "w");
    int n = tine_verify_rules(ctx, NULL, text, "synthesized", NULL, 20000, NULL, 1, null);
    fclose(null);
    CHECK(n == 0, "synthesized rules not all proven (%d): %s", n, tine_error(ctx));
}

/* The rules' lines that rewrite `lhs` into something holding `rhs_op`. */
static bool has_rule(const char *text, const char *lhs, const char *rhs_op) {
    for (const char *p = text; (p = strstr(p, lhs)); p++) {
        const char *arrow = strstr(p, " -> "), *eol = strchr(p, '\n');
        const char *r = arrow ? strstr(arrow, rhs_op) : NULL;
        if (arrow && r && (!eol || r < eol)) return true;
    }
    return false;
}

/* With lift.rules and the rules found (rs), in lifts to want; with lift.rules alone
 * (hand) it does not; the built-in rules (tine_lift: lift.synth.rules beside) do. */
static void lifts_to(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_ruleset_t *hand, const char *in, const char *want) {
    tine_expr_t *e = tine_parse(ctx, in, "<test>");
    tine_expr_t *w = tine_parse(ctx, want, "<test>");
    CHECK(e && w, "parse: %s", tine_error(ctx));
    if (!e || !w) return;
    tine_expr_t *l = tine_lift_with(ctx, rs, e, NULL, NULL);
    char *got = tine_print(ctx, l);
    CHECK(l == w, "%s lifts to %s, expected %s", in, got, want);
    free(got);
    CHECK(tine_lift_with(ctx, hand, e, NULL, NULL) != w, "%s already lifts to %s with lift.rules alone", in, want);
    CHECK(tine_lift(ctx, e) == w, "%s: the built-in rules do not lift it to %s", in, want);
}

int main(int argc, char **argv) {
    bool quick = argc > 1 && !strcmp(argv[1], "sanitized");
    tine_ctx_t *ctx = tine_ctx_new();

    /* 1 */
    if (!quick) {
        char *scratch = run(ctx, tine_type(TINE_UINT, 8, 1), 3, 1, "cast");
        CHECK(has_rule(scratch, "(cast<widen(T)>(x:T) + cast<widen(T)>(y:T))", "widening_add("),
              "widening_add not rediscovered:\n%s", scratch);
        CHECK(has_rule(scratch, "(cast<widen(T)>(x:T) - cast<widen(T)>(y:T))", "widening_sub(") ||
                  has_rule(scratch, "(cast<widen(T)>(x:T) * cast<widen(T)>(y:T))", "widening_mul("),
              "neither widening_sub nor widening_mul rediscovered:\n%s", scratch);
        proves(ctx, scratch);
        free(scratch);
    }

    /* 2 */
    char *text = run(ctx, tine_type(TINE_INT, 16, 1), 4, 0, "rounding_shr");
    const char *texts[] = {tine_lift_rules_text, text}, *files[] = {tine_lift_rules_file, "synthesized"};
    tine_ruleset_t *rs = tine_rules_compile_files(ctx, texts, files, 2, false);
    tine_ruleset_t *hand = tine_rules_compile(ctx, tine_lift_rules_text, tine_lift_rules_file);
    CHECK(rs && hand, "the synthesized rules do not load beside lift.rules: %s", tine_error(ctx));
    if (rs && hand) {
        lifts_to(ctx, rs, hand, "saturating_cast<i8>((i32(a_i16) + 8) >> 4)",
                 "saturating_cast<i8>(rounding_shr(a_i16, 4))");
        lifts_to(ctx, rs, hand, "u8(min((u32(a_u16) + 8) >> 4, 255))", "saturating_cast<u8>(rounding_shr(a_u16, 4))");
    }
    tine_rules_free(rs);
    tine_rules_free(hand);
    proves(ctx, text);
    free(text);
    proves(ctx, tine_lift_synth_rules_text);

    tine_ctx_free(ctx);
    printf("test_synth_lift: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
