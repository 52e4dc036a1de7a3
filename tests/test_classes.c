/* test_classes.c — similarity classes of instructions (src/verify/classes.c).
 *
 * 1. The built-in descriptions together (x86 and arm): instructions that are one function
 *    of their parameters share a class across the two sets (pavgb, pavgw, urhadd_u8/u16;
 *    sqadd_i8/i16, paddsb, paddsw, and with signedness a parameter of T, paddusb and
 *    uqadd_u8; pminub, umin_u8), different functions do not (pavgb / uhadd_u8: the
 *    rounding term; paddsb / psubsb), every member's binding is proven, and the class
 *    count stays within bounds (fewer classes than instructions by a margin, more than the
 *    handful a too-coarse template would give).
 *    The arm shifts by a register read the count as the low byte of the operand: their
 *    template writes that i8 as it is, and srshl_i8 (whose casts vanish) joins by proof.
 * 2. A test description read by tine_isa_parse: an average written another way
 *    ((a | b) - ((a ^ b) >> 1)) joins pavgb's class by proof though its template differs
 *    in syntax; the same entry mutated to the floor average ((a & b) + ((a ^ b) >> 1))
 *    leaves it (and joins uhadd's); a semantics edited by one op (a sign) leaves its class;
 *    an entry that calls another of its own description (not registered: no meaning
 *    outside it) is a class of its own, without a template.
 * 3. The public entry (`tine isa classes`): the count it returns is the classes it prints;
 *    an unknown description is an error.
 */
#define _GNU_SOURCE /* open_memstream */
#include "internal.h"
#include "ir/ast.h"
#include "verify/classes.h"

#include "testutil.h"

enum { TIMEOUT_MS = 20000 };

static void same(const tine_classes *c, const char *a, const char *b) {
    int x = tine_classes_of(c, a), y = tine_classes_of(c, b);
    check(x >= 0 && y >= 0, "%s or %s has no class", a, b);
    check(x == y, "%s (class %d: %s) and %s (class %d: %s) should be one class", a, x + 1, tine_classes_template(c, x),
          b, y + 1, tine_classes_template(c, y));
}

static void apart(const tine_classes *c, const char *a, const char *b) {
    int x = tine_classes_of(c, a), y = tine_classes_of(c, b);
    check(x >= 0 && y >= 0, "%s or %s has no class", a, b);
    check(x != y, "%s and %s should be apart (class %d: %s)", a, b, x + 1, tine_classes_template(c, x));
}

/* A description of its own: operands a, b of one type, so every entry's semantics stands
 * alone (a parsed description's entries cannot call the built-in ones). */
static const char *const TEST_ISA =
    "feature sse2\n"
    "width xmm 128\n"
    "insn avg_or(a:u8, b:u8) = (a | b) - ((a ^ b) >> 1)\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f1\n"
    "insn avg_or16(a:u16, b:u16) = (a | b) - ((a ^ b) >> 1)\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f2\n"
    "insn avg_and(a:u8, b:u8) = (a & b) + ((a ^ b) >> 1)\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f3\n"
    "insn sat_add(a:i16, b:i16) = saturating_cast<i16>(widen(a) + widen(b))\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f4\n"
    "insn sat_add_mut(a:i16, b:i16) = saturating_cast<i16>(widen(a) - widen(b))\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f5\n"
    /* an entry calling one of its own description: not registered, so no template */
    "insn avg_call(a:u8, b:u8) = avg_or(a, b) + a\n"
    "  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c f6\n";

/* One run over x86, arm and the test description (one run: its time is the test's). */
static void run(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_isa *mine = tine_isa_parse(ctx, TEST_ISA, "test.isa");
    check(mine != NULL, "the test description does not load: %s", tine_error(ctx));
    if (!mine) {
        tine_ctx_free(ctx);
        return;
    }
    const tine_isa *isas[3] = {tine_isa_get(ctx, "x86"), tine_isa_get(ctx, "arm"), mine};
    tine_classes *c = tine_classes_find(ctx, isas, 3, TIMEOUT_MS);
    const tine_classes_totals *t = tine_classes_totals_of(c);
    tine_classes_print_totals(t, "x86, arm and the test description", stdout);
    if (getenv("TINE_TEST_VERBOSE")) tine_classes_print(c, stdout);
    /* 1. the built-in descriptions */
    same(c, "pavgb", "pavgw");
    same(c, "pavgb", "urhadd_u8");
    same(c, "pavgw", "urhadd_u16");
    same(c, "sqadd_i8", "sqadd_i16");
    same(c, "sqadd_i8", "paddsb");
    same(c, "paddsw", "sqadd_i16");
    same(c, "paddsb", "paddusb"); /* signedness is T's */
    same(c, "paddusb", "uqadd_u8");
    same(c, "pminub", "umin_u8");
    same(c, "pminub", "pminsw");
    same(c, "uhadd_u8", "shadd_i16");
    same(c, "saddlp_i8", "uaddlv_u16"); /* the lanes summed are a parameter */
    same(c, "vpdpbusd", "usdot_u8");    /* joined by proof: their syntax differs */
    same(c, "srshl_i16", "srshl_i32");  /* the count's i8 written as it is, not from T */
    same(c, "srshl_i8", "srshl_i32");   /* joined by proof: at i8 the casts vanish */
    apart(c, "srshl_i8", "urshl_u8");   /* an operand of the other signedness */
    apart(c, "pavgb", "uhadd_u8"); /* the rounding term */
    apart(c, "paddsb", "psubsb");
    apart(c, "paddsb", "suqadd_i8"); /* an operand of the other signedness */
    apart(c, "pminub", "pmaxub");
    apart(c, "pmulhw", "pmulhrsw");
    int n = t->insns, k = t->classes, want = isas[0]->n + isas[1]->n + mine->n;
    check(n == want, "%d instructions looked at, the descriptions have %d", n, want);
    /* float instructions have no template (classes.c writes integer expressions only):
       each is a class of its own, counted apart, in the classes and the unabstracted */
    int nfloat = 0;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < isas[d]->n; k++) {
            bool fl = isas[d]->insn[k].result.kind == TINE_FLOAT;
            for (int j = 0; j < isas[d]->insn[k].nops; j++) fl |= isas[d]->insn[k].optype[j].kind == TINE_FLOAT;
            nfloat += fl;
        }
    int ni = n - nfloat, ki = k - nfloat; /* the integer instructions and their classes */
    check(ki <= ni / 3 && ki >= ni / 10, "%d classes for %d integer instructions (expected between %d and %d)", ki, ni,
          ni / 10, ni / 3);
    check(t->unabstracted - nfloat <= n / 20, "%d instructions without a template (%d of them float)", t->unabstracted,
          nfloat);
    check(t->joined >= 3, "only %d members joined a class by proof", t->joined);
    check(t->spanning >= 5, "only %d classes span the descriptions", t->spanning);
    /* 2. the test description */
    same(c, "avg_or", "pavgb"); /* another syntax, joined by proof */
    same(c, "avg_or16", "pavgw");
    apart(c, "avg_and", "pavgb"); /* the floor average: not a rounding one */
    same(c, "avg_and", "uhadd_u8");
    same(c, "sat_add", "paddsw");
    apart(c, "sat_add_mut", "paddsw"); /* one op edited: it leaves */
    same(c, "sat_add_mut", "psubsw");
    int own = tine_classes_of(c, "avg_call");
    check(own >= 0 && !tine_classes_template(c, own) && t->unabstracted == 1 + nfloat,
          "avg_call: class %d, template %s, %d without a template", own, own >= 0 ? tine_classes_template(c, own) : "-",
          t->unabstracted);
    tine_classes_free(c);
    tine_isa_free(mine);
    tine_ctx_free(ctx);
}

/* The public entry (tine isa classes): its count is the classes it prints; an unknown
 * description is an error. */
static void entry(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int k = tine_isa_classes(ctx, "x86", TIMEOUT_MS, f);
    fclose(f);
    int printed = 0;
    for (const char *p = text; p && (p = strstr(p, "class ")); p++) printed += p == text || p[-1] == '\n';
    check(k > 0 && k == printed, "tine_isa_classes x86: returned %d, printed %d classes", k, printed);
    check(text && strstr(text, "\nx86: ") != NULL, "tine_isa_classes x86: no summary line");
    free(text);
    f = fopen("/dev/null", "w");
    k = tine_isa_classes(ctx, "mips", TIMEOUT_MS, f);
    fclose(f);
    check(k == -1 && strstr(tine_error(ctx), "unknown instruction set 'mips'"), "tine_isa_classes mips: %d, '%s'", k,
          tine_error(ctx));
    tine_ctx_free(ctx);
}

int main(void) {
    double t0 = now();
    run();
    entry();
    printf("test_classes: %lld checks passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail != 0;
}
