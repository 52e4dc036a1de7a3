/* test_verify.c — rule proofs (src/verify/prove.c) and that they can fail.
 *
 * 1. Every instantiation of every lift rule and every x86 and Neon (arm) lowering rule is
 *    proven with Z3: no counterexample, and none left unknown; the x86 rules tine synth
 *    lower found (x86.synth.rules) too.
 * 2. Mutants: a rule altered the ways a rule goes wrong — operands of a non-commutative op
 *    swapped, a constant changed by one, a predicate's conjunct dropped, a type widened —
 *    must each get a counterexample. Each mutant is the built-in rule file with one edit
 *    on one rule's line; only that rule is proven.
 *
 * Usage: test_verify [--part lift|lower|mutants]... (or TINE_VERIFY_PART=1|2: 1 is lift and
 * lower, 2 the mutants); no part: all three. ctest runs lift alone and lower with the
 * mutants, side by side (the lift rules' proofs are half of the time).
 */
#include "internal.h"
#include "verify/prove.h"

#include "testutil.h"

extern const char tine_lift_rules_text[], tine_lift_rules_file[];
extern const char tine_x86_rules_text[], tine_x86_rules_file[];
extern const char tine_arm_rules_text[], tine_arm_rules_file[];
extern const char tine_x86_synth_rules_text[], tine_x86_synth_rules_file[];

enum { TIMEOUT_MS = 60000 };

static void prove_all(const char *which, const char *text, const char *file, bool lowering) {
    tine_ctx_t *ctx = tine_ctx_new();
    if (lowering) tine_isa_get(ctx, strncmp(which, "x86", 3) ? which : "x86");
    tine_prove_opts o = {.timeout_ms = TIMEOUT_MS, .quiet = true};
    tine_prove_totals t = {0};
    double t0 = now();
    int rc = tine_prove_rules(ctx, text, file, lowering, &o, stdout, &t);
    check(rc == 0, "%s rules: %d counterexamples (%s)", which, rc, rc < 0 ? tine_error(ctx) : "listed above");
    check(t.unknown == 0, "%s rules: %ld instantiations unknown (listed above)", which, t.unknown);
    check(t.no_fire == 0, "%s rules: %ld instantiations never fire", which, t.no_fire);
    /* (the synthesized rules are each at one type: one instantiation a rule) */
    check(t.proven > (strstr(which, "synth") ? 40 : lowering ? 100 : 500), "%s rules: only %ld instantiations proven", which,
          t.proven);
    printf("part 1: %s rules: %ld rules, %ld instantiations, %ld proven in %ld queries, %.1f s (%.1f s solving); "
           "slowest %s %.2f s\n",
           which, t.rules, t.insts, t.proven, t.queries, now() - t0, t.seconds, t.slowest[0].what, t.slowest[0].seconds);
    tine_ctx_free(ctx);
}

static const struct {
    const char *kind, *rule, *from, *to;
    const char *isa; /* the lowering rules of this description; NULL: the lift rules */
} MUTANTS[] = {
    /* operands of a non-commutative op swapped */
    {"swap", "widening_sub_zext", "-> widening_sub(x, y)", "-> widening_sub(y, x)", NULL},
    {"swap", "halving_sub", "-> halving_sub(x, y)", "-> halving_sub(y, x)", NULL},
    {"swap", "saturating_sub_select", "select(x:T > y:T, x - y, c0)", "select(x:T > y:T, y - x, c0)", NULL},
    {"swap", "psubsw", "-> psubsw(x, y)", "-> psubsw(y, x)", "x86"},
    {"swap", "absd_u8", "saturating_sub(x, y) | saturating_sub(y, x)", "saturating_sub(x, y) | saturating_sub(x, y)", "x86"},
    {"swap", "uhsub_u8", "-> uhsub_u8(x, y)", "-> uhsub_u8(y, x)", "arm"},
    {"swap", "umlsl_u8", "x:u16 - widening_mul(a:u8, b:u8)", "widening_mul(a:u8, b:u8) - x:u16", "arm"},
    /* a constant changed by one */
    {"constant", "saturating_sub_select", "c0 == 0", "c0 == 1", NULL},
    {"constant", "halving_add_wide", ">> 1 ->", ">> 2 ->", NULL},
    {"constant", "rounding_shr_bounded", "c0 == 1 << (c1 - 1)", "c0 == (1 << (c1 - 1)) + 1", NULL},
    {"constant", "sat_u16_u8", "min(x, 255)", "min(x, 254)", "x86"},
    {"constant", "pmulhw_round", "reinterpret<u16>(x * y) >> 15", "reinterpret<u16>(x * y) >> 14", "x86"},
    {"constant", "sqrdmulh_i16", "rounding_mul_shr(x:i16, y:i16, 15)", "rounding_mul_shr(x:i16, y:i16, 14)", "arm"},
    /* a bound one past a byte: the prover's narrowed wildcards (prove.c narrow_bounded)
       must then take 9-bit and signed values */
    {"constant", "umull_pair_u8_i16", "upper_bounded(a, 255)", "upper_bounded(a, 256)", "arm"},
    {"constant", "umull_pair_u8_i16", "lower_bounded(c, 0)", "lower_bounded(c, -1)", "arm"},
    /* a predicate's conjunct dropped */
    {"conjunct", "saturating_cast_smin", " && lower_bounded(x, T.min)", "", NULL},
    {"conjunct", "min_redundant", " if upper_bounded(x, c0)", "", NULL},
    {"conjunct", "abs_max", " if is_signed(T)", "", NULL},
    {"conjunct", "sat_u16_u8_small", " if upper_bounded(x, 32767)", "", "x86"},
    {"conjunct", "pmulhrsw_nomin", " if lower_bounded(x, -32767) || lower_bounded(y, -32767)", "", "x86"},
    {"conjunct", "sqrdmlah_i16", " if lower_bounded(a, -32767) || lower_bounded(b, -32767)", "", "arm"},
    /* a type widened */
    {"type", "saturating_cast_s2u_same", "max(x:signed(T), c0)", "max(x:signed(widen(T)), c0)", NULL},
    {"type", "saturating_cast_clamp2", "c1 == T.max", "c1 == widen(T).max", NULL},
};

/* The rule file with `from` replaced by `to` on the line of rule `name`; NULL if absent. */
static char *mutate(const char *text, const char *name, const char *from, const char *to) {
    size_t nl = strlen(name);
    const char *line = text;
    while (line && !(strncmp(line, name, nl) == 0 && line[nl] == ':')) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    if (!line) return NULL;
    const char *end = strchr(line, '\n');
    const char *at = strstr(line, from);
    if (!at || (end && at > end)) return NULL;
    size_t n = strlen(text), nf = strlen(from), nt = strlen(to);
    char *r = malloc(n - nf + nt + 1);
    TINE_ASSERT(r != NULL);
    size_t k = (size_t)(at - text);
    memcpy(r, text, k);
    memcpy(r + k, to, nt);
    memcpy(r + k + nt, at + nf, n - k - nf + 1);
    return r;
}

static void mutants(void) {
    int n = (int)(sizeof MUTANTS / sizeof MUTANTS[0]), caught = 0;
    for (int i = 0; i < n; i++) {
        tine_ctx_t *ctx = tine_ctx_new();
        const char *isa = MUTANTS[i].isa, *file = tine_lift_rules_file, *text = tine_lift_rules_text;
        bool low = isa != NULL;
        if (low) text = tine_isa_rules(tine_isa_get(ctx, isa), &file);
        char *m = mutate(text, MUTANTS[i].rule, MUTANTS[i].from, MUTANTS[i].to);
        if (!m) {
            fail("mutant %d (%s of %s): '%s' is not on the rule's line", i, MUTANTS[i].kind, MUTANTS[i].rule, MUTANTS[i].from);
            tine_ctx_free(ctx);
            continue;
        }
        tine_prove_opts o = {.timeout_ms = TIMEOUT_MS, .only = MUTANTS[i].rule, .quiet = true};
        tine_prove_totals t = {0};
        FILE *sink = fopen("/dev/null", "w");
        int rc = tine_prove_rules(ctx, m, file, low, &o, sink ? sink : stdout, &t);
        if (sink) fclose(sink);
        if (rc > 0) caught++;
        check(rc > 0, "mutant %s of %s ('%s' -> '%s') gets no counterexample (%ld proven, %ld unknown, %ld never fire%s%s)",
              MUTANTS[i].kind, MUTANTS[i].rule, MUTANTS[i].from, MUTANTS[i].to, t.proven, t.unknown, t.no_fire,
              rc < 0 ? "; " : "", rc < 0 ? tine_error(ctx) : "");
        free(m);
        tine_ctx_free(ctx);
    }
    printf("part 2: %d of %d mutants get a counterexample\n", caught, n);
}

int main(int argc, char **argv) {
    /* the sanitizer build runs the mutants (TINE_VERIFY_PART=2): the proofs' time is Z3's */
    const char *env = getenv("TINE_VERIFY_PART");
    bool lift = !env || atoi(env) == 1, lower = lift, mut = !env || atoi(env) == 2, named = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--part") || i + 1 == argc) {
            fprintf(stderr, "usage: test_verify [--part lift|lower|mutants]...\n");
            return 2;
        }
        const char *p = argv[++i];
        if (!named) lift = lower = mut = false, named = true;
        if (!strcmp(p, "lift") || !strcmp(p, "1")) lift = true;
        if (!strcmp(p, "lower") || !strcmp(p, "1")) lower = true;
        if (!strcmp(p, "mutants") || !strcmp(p, "2")) mut = true;
    }
    double t0 = now();
    if (lift) prove_all("lift", tine_lift_rules_text, tine_lift_rules_file, false);
    if (lower) {
        prove_all("x86", tine_x86_rules_text, tine_x86_rules_file, true);
        prove_all("arm", tine_arm_rules_text, tine_arm_rules_file, true);
        prove_all("x86 synthesized", tine_x86_synth_rules_text, tine_x86_synth_rules_file, true);
    }
    if (mut) mutants();
    check(lift || lower || mut, "no part named");
    printf("test_verify: %lld checks passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail != 0;
}
