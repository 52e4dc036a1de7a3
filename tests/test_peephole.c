/* test_peephole.c — the peephole optimizer (src/peephole) on target-level programs built
 * here by hand (src/tprog: variables of f32x8, f64x4, f32x4, f64x2 and integer types,
 * IR ops lowered by tine_tprog_select, or instruction nodes made directly).
 *
 * For each class of rewrite, on x86-64-avx2 (and sse2, sse41, avx512) and arm-64:
 *   sign       a + (-b) is one sub; fma(-a, b, c) one vfnmadd231ps, fma(a, b, -c) one
 *              vfmsub231ps, both negated one vfnmsub231ps; -(-a) is a (no instruction);
 *              arm's fsub, fmls; the sign pass's rule named in the stats
 *   contract   a*b + c, c + a*b, a*b - c, c - a*b as one FMA (x86 vfmadd/vfmsub/vfnmadd,
 *              arm fmla/fmls) only with opts.contract; without it, and on a target without
 *              FMA (sse41), the program is unchanged; arm's a*b - c (fneg of an fmls)
 *              read by an fadd, folded by the sign pass of the next sweep
 *   folding    an instruction of constants is a constant (stats.folded), also one whose
 *              operands become constants first
 *   redundant  a rewrite to a value the program already has (stats.redundant); two values
 *              that become equal only through rewrites are one instruction
 *   dead code  a value whose only reader is rewritten away leaves the order (stats.dead);
 *              one with another reader stays
 *   lacking    pabsd, pabsw, pabsb, blendvps, blendvpd on x86-64-sse2 rewritten (the
 *              rule named in the stats) to generic operations (shifts, xor, sub, compare,
 *              select: LLVM's to select), no instruction the target lacks remaining, also
 *              after a second selection; kept on sse41 (and blendvps at 256 bits on avx2)
 *   swap       FFTW-GEL's swap rules on every float width (sse41, avx2, avx512, arm-64): an
 *              add of two swaps is a swap of the add, a swap of a mul (sub) of a swap one
 *              swap of the other operand, a swap of a negated swap the negation, three
 *              swapped FMA operands one swap; swap of swap and the unpack rules (an unpack of
 *              two swaps, a swap of an unpack) through the shuffle pass; each with the swap
 *              written three ways (the rules' form, one-lane slices, halves), the engine
 *              putting the others in the rules' form; the lane moves left counted; and
 *              common.peep's swap_generic on integer add, sub, xor left generic by selection
 *   limits     a pass that does not reach its fixpoint within opts.max_rounds is an error,
 *              not a hang (the rule set itself swapped for non-terminating ones:
 *              test_peephole_runaway.c)
 * Every program after the peephole passes tine_tprog_check, and its outputs, evaluated by
 * the interpreter on random lanes (and +-0, +-inf, NaNs, subnormals, INT_MIN), equal the
 * selected program's bit for bit (NaNs: both NaN) for the exact passes, and within
 * 2 eps (|a b| + |c|) per lane for a contraction.
 *
 * Then whole DFT codelets (tine_dft_gen at every size in SIZES, both directions; with the
 * argument `sanitized` six sizes) through select and the peephole for x86-64-sse41, avx2,
 * avx512 and arm-64 at f32 and f64: valid orders, no node the target lacks, bit-exact
 * without contract (random and special inputs), within 8 eps log2(n) sum|x| with it,
 * never more instructions, FMAs only with contract, and the peephole a fixpoint (a
 * second run rewrites nothing).
 */
#include "dft/gen.h"
#include "internal.h"
#include "peephole/peephole.h"
#include "testutil.h"
#include "tprog/tprog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tine_ctx_t *ctx;
static bool verbose;

static uint64_t rng_state = 0x5eed0fbeefull;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- values ------------------------------------------------------------------------ */

static tine_type_t F(int bits, int lanes) { return tine_type(TINE_FLOAT, bits, lanes); }
static tine_expr_t *var(const char *name, tine_type_t t) { return tine_var(ctx, name, t); }
static tine_expr_t *add(tine_expr_t *a, tine_expr_t *b) { return tine_binary(ctx, TINE_OP_ADD, a, b); }
static tine_expr_t *sub(tine_expr_t *a, tine_expr_t *b) { return tine_binary(ctx, TINE_OP_SUB, a, b); }
static tine_expr_t *mul(tine_expr_t *a, tine_expr_t *b) { return tine_binary(ctx, TINE_OP_MUL, a, b); }
static tine_expr_t *neg(tine_expr_t *a) { return tine_unary(ctx, TINE_OP_NEG, a); }
static tine_expr_t *fma3(tine_expr_t *a, tine_expr_t *b, tine_expr_t *c) { return tine_fma(ctx, a, b, c); }
static tine_expr_t *insn(const char *name, int n, tine_expr_t *const *ops) {
    int code = tine_isa_lookup(ctx, name);
    if (code < 0) {
        fail("no instruction %s", name);
        return NULL;
    }
    tine_expr_t *e = tine_insn_make(ctx, (uint32_t)code, n, ops);
    if (!e) fail("%s: %s", name, tine_error(ctx));
    return e;
}

/* Lane patterns: moderate finite values (exponents within 2^+-20: no overflow, no
 * underflow in a product), and with `special` also +-0, +-inf, NaNs of either sign with
 * payloads, subnormals, +-1 and the extremes of the integers. */
static uint64_t lane_bits(tine_type_t t, bool special) {
    uint64_t r = rng();
    int kind = special ? (int)(rng() % 16) : 0;
    if (t.kind == TINE_FLOAT) {
        bool d = t.bits == 64;
        int mb = d ? 52 : 23, bias = d ? 1023 : 127;
        uint64_t emax = d ? 0x7ff : 0xff, sign = (uint64_t)1 << (t.bits - 1), mmask = ((uint64_t)1 << mb) - 1;
        uint64_t s = (r >> 63) ? sign : 0;
        switch (kind) {
        case 9: return s; /* +-0 */
        case 10: return s | emax << mb; /* +-inf */
        case 11: return s | emax << mb | (uint64_t)1 << (mb - 1) | (r & (mmask >> 1)); /* quiet NaN */
        case 12: return s | emax << mb | ((r & (mmask >> 1)) | 1); /* signalling NaN */
        case 13: return s | (r & mmask) | 1; /* subnormal */
        case 14: return s | (uint64_t)bias << mb; /* +-1 */
        default: return s | (uint64_t)(bias - 20 + (int)(r % 41)) << mb | ((r >> 8) & mmask);
        }
    }
    uint64_t v;
    switch (kind) {
    case 9: v = 0; break;
    case 10: v = ~(uint64_t)0; break;
    case 11: v = (uint64_t)1 << (t.bits - 1); break; /* INT_MIN */
    case 12: v = ((uint64_t)1 << (t.bits - 1)) - 1; break;
    case 13: v = 1; break;
    default: v = r; break;
    }
    if (t.bits < 64) {
        v &= ((uint64_t)1 << t.bits) - 1;
        if (t.kind == TINE_INT && (v >> (t.bits - 1)) & 1) v |= ~(uint64_t)0 << t.bits; /* sign-extended */
    }
    return v;
}

static bool is_nan(tine_type_t t, uint64_t x) {
    if (t.bits == 64) return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    return (x & 0x7fffffffu) > 0x7f800000u;
}
static double as_double(tine_type_t t, uint64_t x) { return tine_float_of_bits(t, x); }
static uint64_t mask_of(tine_type_t t) { return t.bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << t.bits) - 1; }

/* Adds the VAR leaves of e not yet in v. */
static void vars_of(tine_expr_t *e, tine_expr_t **v, int *n, int cap) {
    uint32_t m;
    tine_expr_t **t = tine_topo(ctx, e, &m);
    for (uint32_t k = 0; k < m; k++) {
        if (t[k]->op != TINE_OP_VAR) continue;
        bool seen = false;
        for (int i = 0; i < *n; i++) seen |= v[i] == t[k];
        if (!seen && *n < cap) v[(*n)++] = t[k];
    }
    free(t);
}

/* ---- programs ---------------------------------------------------------------------- */

static tine_tprog *build(const char *target, int n, tine_expr_t *const *outs) {
    tine_tprog *p = tine_tprog_new(ctx, target);
    tine_expr_t *v[64];
    int nv = 0;
    for (int k = 0; k < n; k++) vars_of(outs[k], v, &nv, 64);
    for (int i = 0; i < nv; i++) tine_tprog_input(p, v[i]);
    char nm[16];
    for (int k = 0; k < n; k++) {
        snprintf(nm, sizeof nm, "y%d", k);
        tine_tprog_output(p, nm, outs[k]);
    }
    if (!tine_tprog_select(p)) {
        fail("%s: select: %s", target, tine_error(ctx));
        tine_clear_error(ctx);
    }
    return p;
}

static int count_insn(const tine_tprog *p, const char *name) {
    int k = 0;
    for (int i = 0; i < p->n; i++)
        if (p->order[i].store < 0 && p->order[i].e->op == TINE_OP_INSN && !strcmp(tine_insn_name(ctx, p->order[i].e->imm), name))
            k++;
    return k;
}
/* The values computed from others (instructions and generic nodes). */
static int count_computing(const tine_tprog *p) {
    int k = 0;
    for (int i = 0; i < p->n; i++) k += p->order[i].store < 0 && p->order[i].e->nops > 0;
    return k;
}
static int count_insns(const tine_tprog *p) { return tine_tprog_stats_of(p).insns; }
/* The FMA-like instructions of either instruction set. */
static int count_fmas(const tine_tprog *p) {
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        const tine_expr_t *e = p->order[i].e;
        if (p->order[i].store >= 0 || e->op != TINE_OP_INSN) continue;
        const char *nm = tine_insn_name(ctx, e->imm);
        k += !strncmp(nm, "vf", 2) || !strncmp(nm, "fmla", 4) || !strncmp(nm, "fmls", 4);
    }
    return k;
}
/* Whether the target has every node (tine_lower_node_cost: an instruction it lacks is -1). */
static const char *lacked(const tine_tprog *p) {
    for (int i = 0; i < p->n; i++) {
        const tine_expr_t *e = p->order[i].e;
        if (p->order[i].store < 0 && e->nops > 0 && tine_lower_node_cost(ctx, p->target, e) < 0)
            return e->op == TINE_OP_INSN ? tine_insn_name(ctx, e->imm) : tine_op_name((tine_op_t)e->op);
    }
    return NULL;
}

static char *listing(const tine_tprog *p) {
    tine_buf b = {0};
    tine_tprog_print(p, &b);
    return b.p ? b.p : tine_strdup("");
}

/* The outputs' values (the program before a rewrite). */
typedef struct {
    int n;
    tine_expr_t *v[128];
} snap;
static snap snapshot(const tine_tprog *p) {
    snap s = {.n = p->nouts};
    for (int k = 0; k < p->nouts && k < 128; k++) s.v[k] = p->outs[k].value;
    return s;
}

static bool peep(tine_tprog *p, bool contract, tine_peep_stats *st, const char *what) {
    tine_peep_opts o = {.contract = contract};
    bool ok = tine_peephole(p, &o, st);
    check(ok, "%s: tine_peephole failed: %s", what, tine_error(ctx));
    if (!ok) tine_clear_error(ctx);
    check(tine_tprog_check(p), "%s: the order after the peephole is not valid", what);
    check(st->after == count_computing(p), "%s: stats.after %d, the program computes %d values", what, st->after,
          count_computing(p));
    return ok;
}

/* Compares p's outputs with `before`'s (same count) on `trials` random bindings; exact:
 * bit for bit, NaNs equal as NaNs; with scale (expressions of the same variables, one
 * per output), a finite lane may differ by tol * |scale lane|. Outputs of one type are
 * evaluated together (concatenated: their shared values once). Returns the failures. */
static int compare(const tine_tprog *p, const snap *before, int trials, bool special, tine_expr_t *const *scale,
                   double tol, const char *what) {
    tine_expr_t *v[256];
    int nv = 0;
    for (int k = 0; k < before->n; k++) vars_of(before->v[k], v, &nv, 256);
    for (int k = 0; k < p->nouts; k++) vars_of(p->outs[k].value, v, &nv, 256);
    if (scale)
        for (int k = 0; k < p->nouts; k++) vars_of(scale[k], v, &nv, 256);
    for (int k = 0; k < p->nouts; k++)
        if (!tine_type_eq(p->outs[k].value->type, before->v[k]->type)) {
            fail("%s: output %d changed type", what, k);
            return 1;
        }
    /* chunks of outputs of one type, at most TINE_MAX_LANES lanes */
    enum { MAXCH = 128 };
    int first[MAXCH + 1], nch = 0;
    tine_expr_t *cb[MAXCH], *ca[MAXCH], *cs[MAXCH];
    for (int k = 0; k < p->nouts && nch < MAXCH;) {
        tine_type_t t = p->outs[k].value->type;
        int m = 0;
        while (k + m < p->nouts && tine_type_eq(p->outs[k + m].value->type, t) && (m + 1) * t.lanes <= TINE_MAX_LANES) m++;
        first[nch] = k;
        tine_expr_t *xb[TINE_MAX_LANES], *xa[TINE_MAX_LANES], *xs[TINE_MAX_LANES];
        for (int j = 0; j < m; j++) {
            xb[j] = before->v[k + j];
            xa[j] = p->outs[k + j].value;
            xs[j] = scale ? scale[k + j] : NULL;
        }
        cb[nch] = m == 1 ? xb[0] : tine_concat(ctx, m, xb);
        ca[nch] = m == 1 ? xa[0] : tine_concat(ctx, m, xa);
        cs[nch] = !scale ? NULL : m == 1 ? xs[0] : tine_concat(ctx, m, xs);
        if (!cb[nch] || !ca[nch] || (scale && !cs[nch])) {
            fail("%s: concatenating outputs: %s", what, tine_error(ctx));
            tine_clear_error(ctx);
            return 1;
        }
        k += m;
        first[++nch] = k;
    }
    int bad = 0;
    static uint64_t x[TINE_MAX_LANES], y[TINE_MAX_LANES], s[TINE_MAX_LANES], lanes[TINE_MAX_LANES];
    for (int t = 0; t < trials && !bad; t++) {
        tine_env_t *env = tine_env_new(ctx);
        for (int i = 0; i < nv; i++) {
            for (int l = 0; l < v[i]->type.lanes; l++) lanes[l] = lane_bits(v[i]->type, special);
            tine_env_bind(env, v[i], lanes);
        }
        for (int c = 0; c < nch && !bad; c++) {
            if (tine_eval(ctx, cb[c], env, x) || tine_eval(ctx, ca[c], env, y) || (scale && tine_eval(ctx, cs[c], env, s))) {
                fail("%s: evaluation failed: %s", what, tine_error(ctx));
                tine_clear_error(ctx);
                bad++;
                break;
            }
            tine_type_t ty = p->outs[first[c]].value->type;
            for (int l = 0; l < ca[c]->type.lanes; l++) {
                uint64_t a = x[l] & mask_of(ty), b = y[l] & mask_of(ty);
                if (a == b) continue;
                if (ty.kind == TINE_FLOAT && is_nan(ty, a) && is_nan(ty, b)) continue;
                if (ty.kind == TINE_FLOAT && scale) {
                    double da = as_double(ty, a), db = as_double(ty, b), ds = fabs(as_double(ty, s[l]));
                    if (isfinite(da) && isfinite(db) && fabs(da - db) <= tol * ds) continue;
                }
                int k = first[c] + l / ty.lanes;
                fail("%s: output %s lane %d (trial %d): before 0x%llx (%g), after 0x%llx (%g)%s", what, p->outs[k].name,
                     l % ty.lanes, t, (unsigned long long)a, ty.kind == TINE_FLOAT ? as_double(ty, a) : 0.0,
                     (unsigned long long)b, ty.kind == TINE_FLOAT ? as_double(ty, b) : 0.0,
                     scale ? " (beyond the bound)" : "");
                bad++;
                break;
            }
        }
        tine_env_free(env);
    }
    return bad;
}

/* Which rules fired, as "a b c". */
static void fired_rules(const char *isa, const tine_peep_stats *st, char *out, size_t cap) {
    (void)isa;
    out[0] = 0;
    size_t len = 0;
    for (int i = 0; i < st->nfired; i++) {
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", i ? " " : "", st->fired[i]);
        if (len >= cap) break;
    }
}

/* ---- one hand-built case ------------------------------------------------------------ */

typedef struct {
    const char *name;
    const char *target;
    int n;
    tine_expr_t *outs[4];
    bool contract;
    /* what the program must hold after: up to 4 instruction names and their counts (-1:
     * not checked), and the instructions in all */
    const char *want[4];
    int want_n[4];
    int insns;
    const char *rule; /* a rule that must have fired (NULL: not checked) */
    tine_expr_t *scale[4]; /* per output, the contraction's bound scale (NULL: exact) */
} hcase;

static void run_case(const hcase *c, tine_peep_stats *st_out, tine_tprog **keep) {
    char what[160];
    snprintf(what, sizeof what, "%s on %s%s", c->name, c->target, c->contract ? " (contract)" : "");
    tine_tprog *p = build(c->target, c->n, c->outs);
    snap before = snapshot(p);
    char *l0 = listing(p);
    tine_peep_stats st;
    peep(p, c->contract, &st, what);
    char *l1 = listing(p);
    bool ok = true;
    for (int i = 0; i < 4 && c->want[i]; i++) {
        int got = count_insn(p, c->want[i]);
        if (c->want_n[i] >= 0 && got != c->want_n[i]) {
            fail("%s: %d %s after the peephole, want %d", what, got, c->want[i], c->want_n[i]);
            ok = false;
        } else pass();
    }
    if (c->insns >= 0) {
        int got = count_insns(p);
        if (got != c->insns) {
            fail("%s: %d instructions after the peephole, want %d", what, got, c->insns);
            ok = false;
        } else pass();
    }
    const char *isa = strncmp(c->target, "arm", 3) ? "x86" : "arm";
    char rules[512];
    fired_rules(isa, &st, rules, sizeof rules);
    if (c->rule) {
        char pat[80];
        snprintf(pat, sizeof pat, " %s ", c->rule);
        char padded[520];
        snprintf(padded, sizeof padded, " %s ", rules);
        check(strstr(padded, pat) != NULL, "%s: rule %s did not fire (fired: %s)", what, c->rule, rules);
    }
    const char *lk = lacked(p);
    check(!lk, "%s: the program holds %s, which %s lacks", what, lk ? lk : "", c->target);
    bool has_scale = c->scale[0] != NULL;
    double eps = c->outs[0]->type.bits == 64 ? 0x1p-53 : 0x1p-24;
    int bad = compare(p, &before, 200, true, has_scale ? c->scale : NULL, has_scale ? 2 * eps : 0, what);
    if (!ok || bad || verbose) printf("%s:\n  before:\n%s  after (rules: %s):\n%s", what, l0, rules, l1);
    free(l0);
    free(l1);
    if (st_out) *st_out = st;
    if (keep) *keep = p;
    else tine_tprog_free(p);
}

#define OUTS(...) .n = (int)(sizeof((tine_expr_t *[]){__VA_ARGS__}) / sizeof(tine_expr_t *)), .outs = {__VA_ARGS__}

/* |a| |b| + |c|: the scale of a contraction's error. */
static tine_expr_t *fscale(tine_expr_t *a, tine_expr_t *b, tine_expr_t *c) {
    return add(mul(tine_abs(ctx, a), tine_abs(ctx, b)), tine_abs(ctx, c));
}

static void test_sign(void) {
    tine_type_t f8 = F(32, 8), d4 = F(64, 4), f4 = F(32, 4), d2 = F(64, 2), f16 = F(32, 16);
    tine_expr_t *a = var("a", f8), *b = var("b", f8), *c = var("c", f8);
    tine_expr_t *da = var("a", d4), *db = var("b", d4), *dc = var("c", d4);
    tine_expr_t *a4 = var("a", f4), *b4 = var("b", f4), *c4 = var("c", f4);
    tine_expr_t *a2 = var("a", d2), *b2 = var("b", d2), *c2 = var("c", d2);
    tine_expr_t *a16 = var("a", f16), *b16 = var("b", f16);
    const char *avx2 = "x86-64-avx2", *arm = "arm-64";
    /* the negations are there before the peephole (selection does not fold them itself) */
    {
        tine_expr_t *e = add(a, neg(b));
        tine_tprog *p = build(avx2, 1, &e);
        check(count_insn(p, "xorps") == 1 && count_insn(p, "addps") == 1, "a + (-b) selected as xorps and addps");
        tine_tprog_free(p);
    }
    hcase cs[] = {
        {"a + (-b)", avx2, OUTS(add(a, neg(b))), false, {"subps", "addps", "xorps"}, {1, 0, 0}, 1, "add_neg_ps", {0}},
        {"(-a) + b", avx2, OUTS(add(neg(a), b)), false, {"subps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"a - (-b)", avx2, OUTS(sub(a, neg(b))), false, {"addps", "subps", "xorps"}, {1, 0, 0}, 1, "sub_neg_ps", {0}},
        {"f64 a + (-b)", avx2, OUTS(add(da, neg(db))), false, {"subpd", "xorpd"}, {1, 0}, 1, "add_neg_pd", {0}},
        {"f64 (-a) + b", avx2, OUTS(add(neg(da), db)), false, {"subpd", "xorpd"}, {1, 0}, 1, NULL, {0}},
        {"f32x4 a + (-b)", "x86-64-sse2", OUTS(add(a4, neg(b4))), false, {"subps", "xorps"}, {1, 0}, 1, "add_neg_ps", {0}},
        {"f32x4 a + (-b)", "x86-64-sse41", OUTS(add(a4, neg(b4))), false, {"subps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"f32x16 a + (-b)", "x86-64-avx512", OUTS(add(a16, neg(b16))), false, {"subps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"fma(-a, b, c)", avx2, OUTS(fma3(neg(a), b, c)), false, {"vfnmadd231ps", "vfmadd231ps", "xorps"}, {1, 0, 0}, 1,
         "fma_nega_ps", {0}},
        {"fma(a, -b, c)", avx2, OUTS(fma3(a, neg(b), c)), false, {"vfnmadd231ps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"fma(a, b, -c)", avx2, OUTS(fma3(a, b, neg(c))), false, {"vfmsub231ps", "vfmadd231ps", "xorps"}, {1, 0, 0}, 1,
         "fma_negc_ps", {0}},
        {"fma(-a, b, -c)", avx2, OUTS(fma3(neg(a), b, neg(c))), false, {"vfnmsub231ps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"f64 fma(-a, b, c)", avx2, OUTS(fma3(neg(da), db, dc)), false, {"vfnmadd231pd", "xorpd"}, {1, 0}, 1, NULL, {0}},
        {"f64 fma(a, b, -c)", avx2, OUTS(fma3(da, db, neg(dc))), false, {"vfmsub231pd", "xorpd"}, {1, 0}, 1, NULL, {0}},
        {"-(-a)", avx2, OUTS(neg(neg(a))), false, {"xorps"}, {0}, 0, "neg_neg_ps", {0}},
        {"f64 -(-a)", avx2, OUTS(neg(neg(da))), false, {"xorpd"}, {0}, 0, NULL, {0}},
        {"-(-(a + b))", avx2, OUTS(neg(neg(add(a, b)))), false, {"addps", "xorps"}, {1, 0}, 1, NULL, {0}},
        {"arm a + (-b)", arm, OUTS(add(a4, neg(b4))), false, {"fsub_f32", "fneg_f32", "fadd_f32"}, {1, 0, 0}, 1,
         "add_neg_f32", {0}},
        {"arm f64 a - (-b)", arm, OUTS(sub(a2, neg(b2))), false, {"fadd_f64", "fneg_f64"}, {1, 0}, 1, "sub_neg_f64", {0}},
        {"arm fma(-a, b, c)", arm, OUTS(fma3(neg(a4), b4, c4)), false, {"fmls_f32", "fneg_f32"}, {1, 0}, 1, NULL, {0}},
        {"arm f64 fma(a, -b, c)", arm, OUTS(fma3(a2, neg(b2), c2)), false, {"fmls_f64", "fneg_f64"}, {1, 0}, 1, NULL, {0}},
        {"arm -(-a)", arm, OUTS(neg(neg(a4))), false, {"fneg_f32"}, {0}, 0, "neg_neg_f32", {0}},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        tine_peep_stats st;
        tine_tprog *p = NULL;
        run_case(&cs[i], &st, &p);
        int k = -1;
        for (int j = 0; j < st.passes; j++)
            if (!strcmp(st.pass_name[j], "sign")) k = j;
        check(k >= 0, "%s: no sign pass", cs[i].name);
        check(k >= 0 && st.pass_rewrites[k] > 0, "%s: the sign pass rewrote nothing", cs[i].name);
        check(st.after < st.before, "%s: %d values before, %d after", cs[i].name, st.before, st.after);
        tine_tprog_free(p);
    }
    /* -(-a) is a copy: the output is the input itself, and the stats say so */
    {
        tine_expr_t *e = neg(neg(a));
        tine_tprog *p = build(avx2, 1, &e);
        tine_peep_stats st;
        peep(p, false, &st, "-(-a)");
        check(p->outs[0].value == a, "-(-a): the output is not the input a");
        check(st.copies >= 1, "-(-a): stats.copies %d", st.copies);
        check(p->n == 2 && count_computing(p) == 0, "-(-a): %d items, %d computed (want the input and its store)", p->n,
              count_computing(p));
        tine_tprog_free(p);
    }
}

static void test_contract(void) {
    tine_type_t f8 = F(32, 8), d4 = F(64, 4), f4 = F(32, 4), d2 = F(64, 2), f16 = F(32, 16);
    tine_expr_t *a = var("a", f8), *b = var("b", f8), *c = var("c", f8);
    tine_expr_t *da = var("a", d4), *db = var("b", d4), *dc = var("c", d4);
    tine_expr_t *a4 = var("a", f4), *b4 = var("b", f4), *c4 = var("c", f4);
    tine_expr_t *a2 = var("a", d2), *b2 = var("b", d2), *c2 = var("c", d2);
    tine_expr_t *a16 = var("a", f16), *b16 = var("b", f16), *c16 = var("c", f16);
    const char *avx2 = "x86-64-avx2", *arm = "arm-64";
    tine_expr_t *s8 = fscale(a, b, c), *s4 = fscale(a4, b4, c4), *sd = fscale(da, db, dc), *s2 = fscale(a2, b2, c2),
                *s16 = fscale(a16, b16, c16);
    /* d + (a*b - c): three roundings against two, each within eps of |a b| + |c| + |d| */
    tine_expr_t *s4d = mul(tine_const_float(ctx, f4, 3), add(s4, tine_abs(ctx, var("d", f4))));
    hcase cs[] = {
        {"a*b + c", avx2, OUTS(add(mul(a, b), c)), true, {"vfmadd231ps", "mulps", "addps"}, {1, 0, 0}, 1, "mul_add_ps", {s8}},
        {"c + a*b", avx2, OUTS(add(c, mul(a, b))), true, {"vfmadd231ps", "mulps", "addps"}, {1, 0, 0}, 1, NULL, {s8}},
        {"a*b - c", avx2, OUTS(sub(mul(a, b), c)), true, {"vfmsub231ps", "mulps", "subps"}, {1, 0, 0}, 1, "mul_sub_ps", {s8}},
        {"c - a*b", avx2, OUTS(sub(c, mul(a, b))), true, {"vfnmadd231ps", "mulps", "subps"}, {1, 0, 0}, 1, "sub_mul_ps",
         {s8}},
        {"f64 a*b + c", avx2, OUTS(add(mul(da, db), dc)), true, {"vfmadd231pd", "mulpd"}, {1, 0}, 1, "mul_add_pd", {sd}},
        {"f64 c - a*b", avx2, OUTS(sub(dc, mul(da, db))), true, {"vfnmadd231pd", "mulpd"}, {1, 0}, 1, NULL, {sd}},
        {"f32x16 a*b + c", "x86-64-avx512", OUTS(add(mul(a16, b16), c16)), true, {"vfmadd231ps", "mulps"}, {1, 0}, 1, NULL,
         {s16}},
        /* the sign pass first (subps(a*b, c)), then the contraction */
        {"a*b + (-c)", avx2, OUTS(add(mul(a, b), neg(c))), true, {"vfmsub231ps", "xorps", "vfmadd231ps"}, {1, 0, 0}, 1,
         NULL, {s8}},
        {"arm a*b + c", arm, OUTS(add(mul(a4, b4), c4)), true, {"fmla_f32", "fmul_f32", "fadd_f32"}, {1, 0, 0}, 1,
         "mul_add_f32", {s4}},
        {"arm c - a*b", arm, OUTS(sub(c4, mul(a4, b4))), true, {"fmls_f32", "fmul_f32", "fsub_f32"}, {1, 0, 0}, 1,
         "sub_mul_f32", {s4}},
        {"arm a*b - c", arm, OUTS(sub(mul(a4, b4), c4)), true, {"fmls_f32", "fmul_f32"}, {1, 0}, -1, "mul_sub_f32", {s4}},
        /* arm's a*b - c is fneg(fmls(c, a, b)); the negation read by an fadd is folded by
         * the sign pass of the next sweep: fsub(d, fmls(c, a, b)) */
        {"arm d + (a*b - c)", arm, OUTS(add(var("d", f4), sub(mul(a4, b4), c4))), true, {"fmls_f32", "fsub_f32", "fneg_f32"},
         {1, 1, 0}, 2, "add_neg_f32", {s4d}},
        {"arm f64 c + a*b", arm, OUTS(add(c2, mul(a2, b2))), true, {"fmla_f64", "fmul_f64"}, {1, 0}, 1, NULL, {s2}},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        tine_peep_stats st;
        run_case(&cs[i], &st, NULL);
        int k = -1;
        for (int j = 0; j < st.passes; j++)
            if (!strcmp(st.pass_name[j], "contract")) k = j;
        check(k >= 0 && st.pass_rewrites[k] > 0, "%s: the contract pass rewrote nothing", cs[i].name);
    }
    /* without opts.contract nothing changes: the same instructions, bit for bit */
    struct {
        const char *name, *target;
        tine_expr_t *e;
        const char *mul, *addsub;
    } nc[] = {
        {"a*b + c", avx2, add(mul(a, b), c), "mulps", "addps"},
        {"c - a*b", avx2, sub(c, mul(a, b)), "mulps", "subps"},
        {"f64 a*b - c", avx2, sub(mul(da, db), dc), "mulpd", "subpd"},
        {"arm a*b + c", arm, add(mul(a4, b4), c4), "fmul_f32", "fadd_f32"},
        {"arm f64 c - a*b", arm, sub(c2, mul(a2, b2)), "fmul_f64", "fsub_f64"},
        /* a target without FMA: the contraction's right side is not there */
        {"sse41 a*b + c", "x86-64-sse41", add(mul(a4, b4), c4), "mulps", "addps"},
    };
    for (size_t i = 0; i < sizeof nc / sizeof *nc; i++) {
        bool sse41 = !strcmp(nc[i].target, "x86-64-sse41");
        tine_tprog *p = build(nc[i].target, 1, &nc[i].e);
        snap before = snapshot(p);
        tine_peep_stats st;
        char what[96];
        snprintf(what, sizeof what, "%s on %s%s", nc[i].name, nc[i].target, sse41 ? " (contract)" : " (no contract)");
        peep(p, sse41, &st, what);
        check(count_fmas(p) == 0 && count_insn(p, nc[i].mul) == 1 && count_insn(p, nc[i].addsub) == 1,
              "%s: contracted (%d FMAs, %d %s, %d %s)", what, count_fmas(p), count_insn(p, nc[i].mul), nc[i].mul,
              count_insn(p, nc[i].addsub), nc[i].addsub);
        check(p->outs[0].value == before.v[0], "%s: the output changed", what);
        compare(p, &before, 50, true, NULL, 0, what);
        tine_tprog_free(p);
    }
}

static void test_fold(void) {
    tine_type_t f8 = F(32, 8);
    tine_expr_t *a = var("a", f8);
    tine_expr_t *k1 = tine_const_float(ctx, f8, 1.5), *k2 = tine_const_float(ctx, f8, 2.25), *k3 = tine_const_float(ctx, f8, -4);
    /* an instruction of two constants */
    {
        tine_expr_t *e = add(k1, k2);
        tine_tprog *p = build("x86-64-avx2", 1, &e);
        check(count_insn(p, "addps") == 1, "1.5 + 2.25: selected as an addps of constants");
        snap before = snapshot(p);
        tine_peep_stats st;
        peep(p, false, &st, "1.5 + 2.25");
        tine_expr_t *v = p->outs[0].value;
        check(v->op == TINE_OP_CONST && tine_expr_const_lane(v, 0) == 0x40700000u && tine_expr_const_lane(v, 7) == 0x40700000u,
              "1.5 + 2.25: the output is not the constant 3.75");
        check(st.folded >= 1, "1.5 + 2.25: stats.folded %d", st.folded);
        check(count_insns(p) == 0 && count_computing(p) == 0, "1.5 + 2.25: %d instructions left", count_insns(p));
        compare(p, &before, 1, false, NULL, 0, "1.5 + 2.25");
        tine_tprog_free(p);
    }
    /* operands that are constants only once folded: a + (1.5 * 2.25 - (-4)), -(-(1.5)) * a */
    {
        tine_expr_t *outs[2] = {add(a, sub(mul(k1, k2), neg(k3))), mul(neg(neg(k1)), a)};
        tine_tprog *p = build("x86-64-avx2", 2, outs);
        snap before = snapshot(p);
        int ins0 = count_insns(p);
        tine_peep_stats st;
        peep(p, false, &st, "constants folded in two levels");
        check(st.folded >= 2, "constants folded in two levels: stats.folded %d", st.folded);
        check(count_insns(p) == 2 && count_insn(p, "addps") == 1 && count_insn(p, "mulps") == 1,
              "constants folded in two levels: %d instructions (from %d), want an addps and a mulps", count_insns(p), ins0);
        for (int k = 0; k < 2; k++) {
            const tine_expr_t *v = p->outs[k].value;
            bool konst = v->nops == 2 && (v->ops[0]->op == TINE_OP_CONST || v->ops[1]->op == TINE_OP_CONST);
            check(konst, "constants folded in two levels: output %d is not an instruction of a and a constant", k);
        }
        compare(p, &before, 100, true, NULL, 0, "constants folded in two levels");
        tine_tprog_free(p);
    }
    /* arm: an fadd of constants */
    {
        tine_type_t f4 = F(32, 4);
        tine_expr_t *e = mul(tine_const_float(ctx, f4, 3), tine_const_float(ctx, f4, 0.5));
        tine_tprog *p = build("arm-64", 1, &e);
        tine_peep_stats st;
        peep(p, false, &st, "arm 3 * 0.5");
        check(p->outs[0].value->op == TINE_OP_CONST && tine_expr_const_lane(p->outs[0].value, 3) == 0x3fc00000u,
              "arm 3 * 0.5: not the constant 1.5");
        tine_tprog_free(p);
    }
}

static void test_redundant_dead(void) {
    tine_type_t f8 = F(32, 8), f4 = F(32, 4);
    tine_expr_t *a = var("a", f8), *b = var("b", f8), *c = var("c", f8), *d = var("d", f8);
    const char *avx2 = "x86-64-avx2";
    /* y0 = a + (-b) becomes subps(a, b), which y1 = a - b already is */
    {
        tine_expr_t *outs[2] = {add(a, neg(b)), sub(a, b)};
        tine_tprog *p = build(avx2, 2, outs);
        snap before = snapshot(p);
        check(count_insn(p, "subps") == 1 && count_insn(p, "addps") == 1, "redundant: selected as xorps, addps, subps");
        tine_peep_stats st;
        peep(p, false, &st, "redundant a + (-b), a - b");
        check(st.redundant >= 1, "redundant a + (-b), a - b: stats.redundant %d", st.redundant);
        check(p->outs[0].value == p->outs[1].value, "redundant a + (-b), a - b: the outputs are two values");
        check(count_insns(p) == 1, "redundant a + (-b), a - b: %d instructions, want 1", count_insns(p));
        compare(p, &before, 100, true, NULL, 0, "redundant a + (-b), a - b");
        tine_tprog_free(p);
    }
    /* fma(-a, b, c) and fma(a, -b, c) are equal only once both are vfnmadd231ps(a, b, c) */
    {
        tine_expr_t *outs[2] = {fma3(neg(a), b, c), fma3(a, neg(b), c)};
        tine_tprog *p = build(avx2, 2, outs);
        snap before = snapshot(p);
        check(count_insn(p, "vfmadd231ps") == 2, "fma(-a,b,c), fma(a,-b,c): selected as two vfmadd231ps");
        tine_peep_stats st;
        peep(p, false, &st, "fma(-a,b,c), fma(a,-b,c)");
        check(p->outs[0].value == p->outs[1].value && count_insns(p) == 1 && count_insn(p, "vfnmadd231ps") == 1,
              "fma(-a,b,c), fma(a,-b,c): %d instructions, the outputs %s", count_insns(p),
              p->outs[0].value == p->outs[1].value ? "one value" : "two values");
        compare(p, &before, 100, true, NULL, 0, "fma(-a,b,c), fma(a,-b,c)");
        tine_tprog_free(p);
    }
    /* arm: fadd(a, fneg b) next to fsub(a, b) */
    {
        tine_expr_t *a4 = var("a", f4), *b4 = var("b", f4);
        tine_expr_t *outs[2] = {sub(a4, b4), add(a4, neg(b4))};
        tine_tprog *p = build("arm-64", 2, outs);
        tine_peep_stats st;
        peep(p, false, &st, "arm redundant");
        check(st.redundant >= 1 && p->outs[0].value == p->outs[1].value && count_insns(p) == 1,
              "arm a - b, a + (-b): redundant %d, %d instructions", st.redundant, count_insns(p));
        tine_tprog_free(p);
    }
    /* dead code: the negation's only reader becomes a subps; (b*c)'s negation too, and
     * with contract the product itself */
    {
        tine_expr_t *e = add(a, neg(b));
        tine_tprog *p = build(avx2, 1, &e);
        tine_expr_t *x = p->outs[0].value->ops[1];
        check(x->op == TINE_OP_INSN && !strcmp(tine_insn_name(ctx, x->imm), "xorps"), "dead: the addps reads an xorps");
        tine_peep_stats st;
        peep(p, false, &st, "dead a + (-b)");
        bool in_order = false;
        for (int i = 0; i < p->n; i++) in_order |= p->order[i].e == x;
        check(!in_order, "dead a + (-b): the xorps is still in the order");
        check(st.dead >= 2, "dead a + (-b): stats.dead %d (the xorps and the addps)", st.dead);
        tine_tprog_free(p);
    }
    {
        tine_expr_t *outs[2] = {add(a, neg(b)), neg(b)};
        tine_tprog *p = build(avx2, 2, outs);
        tine_peep_stats st;
        peep(p, false, &st, "a + (-b), -b");
        check(count_insn(p, "xorps") == 1 && count_insn(p, "subps") == 1 && count_insn(p, "addps") == 0,
              "a + (-b), -b: the negation has another reader and must stay (%d xorps, %d subps, %d addps)",
              count_insn(p, "xorps"), count_insn(p, "subps"), count_insn(p, "addps"));
        tine_tprog_free(p);
    }
    for (int contract = 0; contract < 2; contract++) {
        tine_expr_t *e = add(d, neg(mul(b, c)));
        tine_tprog *p = build(avx2, 1, &e);
        snap before = snapshot(p);
        tine_peep_stats st;
        const char *what = contract ? "d + -(b*c) (contract)" : "d + -(b*c)";
        peep(p, contract, &st, what);
        if (contract) {
            check(count_insns(p) == 1 && count_insn(p, "vfnmadd231ps") == 1, "%s: %d instructions, %d vfnmadd231ps", what,
                  count_insns(p), count_insn(p, "vfnmadd231ps"));
            tine_expr_t *sc = add(mul(tine_abs(ctx, b), tine_abs(ctx, c)), tine_abs(ctx, d));
            compare(p, &before, 100, true, &sc, 2 * 0x1p-24, what);
        } else {
            check(count_insns(p) == 2 && count_insn(p, "mulps") == 1 && count_insn(p, "subps") == 1 &&
                      count_insn(p, "xorps") == 0,
                  "%s: want mulps and subps, %d instructions", what, count_insns(p));
            compare(p, &before, 100, true, NULL, 0, what);
        }
        check(st.dead >= (contract ? 3 : 2), "%s: stats.dead %d", what, st.dead);
        tine_tprog_free(p);
    }
}

/* shuffle (common.peep): a lane move of a lane move, on integer and float lanes, at x86 and
 * arm-64; the program after it is the one without the moves, equal on every input. */
static void test_shuffle(void) {
    const char *targets[] = {"x86-64-avx2", "arm-64"};
    for (int ti = 0; ti < 2; ti++)
        for (int ty = 0; ty < 3; ty++) {
            tine_type_t t = ty == 0 ? F(32, 4) : ty == 1 ? F(64, 2) : tine_type(TINE_INT, 16, 8);
            tine_expr_t *a = var("sa", t), *b = var("sb", t), *x = var("sx", tine_type_with_lanes(t, 2 * t.lanes));
            tine_expr_t *ab[2] = {a, b};
            tine_expr_t *zip = tine_interleave(ctx, 2, ab);
            tine_expr_t *halves[2] = {tine_deinterleave(ctx, x, 2, 0), tine_deinterleave(ctx, x, 2, 1)};
            tine_expr_t *outs[3] = {add(tine_deinterleave(ctx, zip, 2, 0), tine_deinterleave(ctx, zip, 2, 1)),
                                    tine_interleave(ctx, 2, halves), NULL};
            outs[2] = sub(tine_deinterleave(ctx, zip, 2, 1), a);
            tine_tprog *p = build(targets[ti], 3, outs);
            tine_peep_stats st;
            char what[96];
            snprintf(what, sizeof what, "shuffle %s %s", targets[ti], ty == 0 ? "f32" : ty == 1 ? "f64" : "i16");
            peep(p, false, &st, what);
            int k = -1;
            for (int j = 0; j < st.passes; j++)
                if (!strcmp(st.pass_name[j], "shuffle")) k = j;
            check(k >= 0 && st.pass_rewrites[k] >= 3, "%s: the shuffle pass rewrote %d lane moves, want 3", what,
                  k >= 0 ? st.pass_rewrites[k] : -1);
            int moves = 0;
            for (int i = 0; i < p->n; i++) {
                int op = p->order[i].e->op;
                moves += op == TINE_OP_INTERLEAVE || op == TINE_OP_DEINTERLEAVE;
            }
            check(moves == 0, "%s: %d lane moves left", what, moves);
            check(p->outs[1].value == x, "%s: interleave of x's halves is not x itself", what);
            check(st.copies >= 1, "%s: no copy counted", what);
            tine_tprog_free(p);
        }
}

/* ---- swap: FFTW-GEL's swap and unpack rules --------------------------------------------- */

/* A swap of each pair of lanes, written three ways: the rules' form, a concat of one-lane
 * slices (retargeted code's), and interleaves of slices of deinterleaves. */
static tine_expr_t *swap_of(tine_expr_t *x, int how) {
    int n = x->type.lanes;
    if (how == 0) {
        tine_expr_t *h[2] = {tine_deinterleave(ctx, x, 2, 1), tine_deinterleave(ctx, x, 2, 0)};
        return tine_interleave(ctx, 2, h);
    }
    if (how == 1) {
        tine_expr_t *l[TINE_MAX_LANES];
        for (int i = 0; i < n; i++) l[i] = tine_slice(ctx, x, i ^ 1, 1, 1);
        return tine_concat(ctx, n, l);
    }
    tine_expr_t *odd = tine_deinterleave(ctx, x, 2, 1), *even = tine_deinterleave(ctx, x, 2, 0);
    int h = n / 2;
    if (h < 2) return swap_of(x, 1);
    tine_expr_t *lo[2] = {tine_slice(ctx, odd, 0, 1, h / 2 ? h / 2 : 1), tine_slice(ctx, even, 0, 1, h / 2 ? h / 2 : 1)};
    tine_expr_t *hi[2] = {tine_slice(ctx, odd, h / 2, 1, h - h / 2), tine_slice(ctx, even, h / 2, 1, h - h / 2)};
    tine_expr_t *parts[2] = {tine_interleave(ctx, 2, lo), tine_interleave(ctx, 2, hi)};
    return tine_concat(ctx, 2, parts);
}

static int count_lane_moves(const tine_tprog *p) {
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        int op = p->order[i].e->op;
        k += p->order[i].store < 0 && op == TINE_OP_INTERLEAVE; /* a swap or an unpack is one interleave */
        k += p->order[i].store < 0 && (op == TINE_OP_CONCAT || op == TINE_OP_SLICE);
    }
    return k;
}

static void test_swap(void) {
    static const struct {
        const char *target;
        int bits, lanes;
    } rows[] = {{"x86-64-sse41", 32, 4}, {"x86-64-sse41", 64, 2}, {"x86-64-avx2", 32, 8}, {"x86-64-avx2", 64, 4},
                {"x86-64-avx512", 32, 16}, {"arm-64", 32, 4}, {"arm-64", 64, 2}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
        for (int how = 0; how < 3; how++) {
            tine_type_t t = F(rows[r].bits, rows[r].lanes);
            bool arm = !strncmp(rows[r].target, "arm", 3), fma = arm || strcmp(rows[r].target, "x86-64-sse41");
            tine_expr_t *a = var("wa", t), *b = var("wb", t), *c = var("wc", t);
            tine_expr_t *ulo_s[2] = {tine_deinterleave(ctx, swap_of(a, how), 2, 0), tine_deinterleave(ctx, swap_of(b, how), 2, 0)};
            tine_expr_t *ulo_ab[2] = {tine_deinterleave(ctx, a, 2, 0), tine_deinterleave(ctx, b, 2, 0)};
            tine_expr_t *uhi_ab[2] = {tine_deinterleave(ctx, a, 2, 1), tine_deinterleave(ctx, b, 2, 1)};
            tine_expr_t *ulo_ba[2] = {ulo_ab[1], ulo_ab[0]};
            struct {
                const char *name;
                tine_expr_t *out, *want; /* want: the value the program must end with (NULL: not checked) */
                int moves;               /* lane moves left */
                const char *rule;        /* a rule that must have fired (NULL: the engine's form alone) */
            } cases[] = {
                {"swap1 add", add(swap_of(a, how), swap_of(b, how)), NULL, 1, arm ? "swap1_fadd" : "swap1_add"},
                {"swap2 mul", swap_of(mul(swap_of(a, how), c), how), NULL, 1, arm ? "swap2_fmul" : "swap2_mul"},
                {"swap3 sub", swap_of(sub(b, swap_of(a, how)), how), NULL, 1, arm ? "swap3_fsub" : "swap3_sub"},
                {"swap2 neg", swap_of(neg(swap_of(a, how)), how), NULL, 0, arm ? "swap2_fneg" : "swap2_xor"},
                {"swap1 fma", fma3(swap_of(a, how), swap_of(b, how), swap_of(c, how)), NULL, 1,
                 fma ? (arm ? "swap1_fmla" : "swap1_vfmadd") : NULL},
                {"swap swap", swap_of(swap_of(a, how), how), a, 0, NULL},
                {"unpack1", tine_interleave(ctx, 2, ulo_s), tine_interleave(ctx, 2, uhi_ab), 1, NULL},
                {"unpack2", swap_of(tine_interleave(ctx, 2, ulo_ab), how), tine_interleave(ctx, 2, ulo_ba), 1, NULL},
            };
            for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
                if (!strcmp(cases[k].name, "swap1 fma") && !fma) continue;
                char what[128];
                snprintf(what, sizeof what, "%s on %s f%dx%d (swap written %s)", cases[k].name, rows[r].target,
                         rows[r].bits, rows[r].lanes, how == 0 ? "as the rules' form" : how == 1 ? "as one-lane slices" : "in halves");
                tine_tprog *p = build(rows[r].target, 1, &cases[k].out);
                snap before = snapshot(p);
                char *l0 = listing(p);
                tine_peep_stats st;
                peep(p, false, &st, what);
                char rules[512], *l1 = listing(p);
                fired_rules(arm ? "arm" : "x86", &st, rules, sizeof rules);
                int moves = count_lane_moves(p);
                bool ok = moves == cases[k].moves, ok_rule = !cases[k].rule || strstr(rules, cases[k].rule);
                bool ok_want = !cases[k].want || p->outs[0].value == cases[k].want, ok_form = how == 0 || st.lane_moves > 0;
                check(ok, "%s: %d lane moves left, want %d", what, moves, cases[k].moves);
                check(ok_rule, "%s: no rule %s* fired (fired: %s)", what, cases[k].rule ? cases[k].rule : "", rules);
                check(ok_want, "%s: not the expected lane move", what);
                check(ok_form, "%s: the lane move was not put in the rules' form", what);
                ok = ok && ok_rule && ok_want && ok_form && compare(p, &before, 60, true, NULL, 0, what) == 0;
                if (!ok || verbose) printf("%s:\n  before:\n%s  after (rules: %s):\n%s", what, l0, rules, l1);
                free(l0);
                free(l1);
                tine_tprog_free(p);
            }
        }
}

/* The generic integer ops selection leaves to LLVM: common.peep's pass swap_generic. */
static void test_swap_generic(void) {
    static const struct {
        const char *target;
        int bits, lanes;
    } rows[] = {{"x86-64-sse2", 32, 4}, {"x86-64-avx2", 16, 16}, {"arm-64", 32, 4}, {"arm-64", 8, 16}};
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
        for (int how = 0; how < 3; how++) {
            tine_type_t t = tine_type(TINE_INT, rows[r].bits, rows[r].lanes);
            tine_expr_t *a = var("ga", t), *b = var("gb", t);
            struct {
                const char *name;
                tine_expr_t *out, *want;
                const char *rule;
            } cases[] = {
                {"add", add(swap_of(a, how), swap_of(b, how)), swap_of(add(a, b), 0), "swap1_add"},
                {"sub", swap_of(sub(swap_of(a, how), b), how), sub(a, swap_of(b, 0)), "swap2_sub"},
                {"sub3", swap_of(sub(b, swap_of(a, how)), how), sub(swap_of(b, 0), a), "swap3_sub"},
                /* xor commutes: the matcher tries both operand orders, swap2 matches first */
                {"xor", swap_of(tine_binary(ctx, TINE_OP_XOR, b, swap_of(a, how)), how),
                 tine_binary(ctx, TINE_OP_XOR, a, swap_of(b, 0)), "swap2_xor"},
            };
            for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
                char what[128];
                snprintf(what, sizeof what, "swap_generic %s on %s i%dx%d (swap written %d)", cases[k].name,
                         rows[r].target, rows[r].bits, rows[r].lanes, how);
                tine_tprog *p = build(rows[r].target, 1, &cases[k].out);
                snap before = snapshot(p);
                tine_peep_stats st;
                peep(p, false, &st, what);
                char rules[512];
                fired_rules("", &st, rules, sizeof rules);
                check(strstr(rules, cases[k].rule) != NULL, "%s: %s did not fire (fired: %s)", what, cases[k].rule, rules);
                check(p->outs[0].value == cases[k].want, "%s: not the one-swap form", what);
                check(compare(p, &before, 60, true, NULL, 0, what) == 0, "%s: values differ", what);
                tine_tprog_free(p);
            }
        }
}

static void test_lacking(void) {
    struct {
        const char *insn;
        tine_type_t t;
        int nops;
    } cs[] = {
        {"pabsd", tine_type(TINE_INT, 32, 4), 1},
        {"pabsw", tine_type(TINE_INT, 16, 8), 1},
        {"pabsb", tine_type(TINE_INT, 8, 16), 1},
        {"blendvps", F(32, 4), 3},
        {"blendvpd", F(64, 2), 3},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        tine_expr_t *v[3] = {var("x", cs[i].t), var("y", cs[i].t), var("m", cs[i].t)};
        tine_expr_t *e = insn(cs[i].insn, cs[i].nops, v);
        if (!e) continue;
        for (int lvl = 0; lvl < 2; lvl++) {
            const char *target = lvl ? "x86-64-sse41" : "x86-64-sse2";
            char what[96];
            snprintf(what, sizeof what, "%s on %s", cs[i].insn, target);
            tine_tprog *p = build(target, 1, &e);
            check(count_insn(p, cs[i].insn) == 1, "%s: the selection did not keep the instruction", what);
            snap before = snapshot(p);
            tine_peep_stats st;
            peep(p, false, &st, what);
            if (lvl == 0) {
                const char *lk = lacked(p);
                check(count_insn(p, cs[i].insn) == 0, "%s: still there after the peephole", what);
                check(!lk, "%s: the program holds %s, which SSE2 lacks", what, lk ? lk : "");
                int k = -1;
                for (int j = 0; j < st.passes; j++)
                    if (!strcmp(st.pass_name[j], "lacking")) k = j;
                check(k >= 0 && st.pass_rewrites[k] == 1, "%s: the lacking pass made %d rewrites, want 1", what,
                      k >= 0 ? st.pass_rewrites[k] : -1);
                char rules[256], want[40];
                fired_rules("x86", &st, rules, sizeof rules);
                snprintf(want, sizeof want, "%s_sse2", cs[i].insn);
                check(strstr(rules, want) != NULL, "%s: rule %s did not fire (fired: %s)", what, want, rules);
                /* the rewrite, re-selected, still has nothing SSE2 lacks */
                tine_tprog_select(p);
                lk = lacked(p);
                check(!lk && tine_tprog_check(p), "%s re-selected: holds %s", what, lk ? lk : "(valid)");
                if (verbose) {
                    char *l = listing(p);
                    printf("%s:\n%s", what, l);
                    free(l);
                }
            } else {
                check(count_insn(p, cs[i].insn) == 1 && p->outs[0].value == before.v[0] && st.after == st.before,
                      "%s: the target has it, yet the peephole changed it", what);
            }
            /* bit for bit (a NaN mask lane is a NaN picked by its sign bit: exact too) */
            compare(p, &before, 300, true, NULL, 0, what);
            tine_tprog_free(p);
        }
    }
    /* avx2 has blendvps at 256 bits: kept */
    {
        tine_type_t t = F(32, 8);
        tine_expr_t *v[3] = {var("x", t), var("y", t), var("m", t)};
        tine_expr_t *e = insn("blendvps", 3, v);
        if (e) {
            tine_tprog *p = build("x86-64-avx2", 1, &e);
            tine_peep_stats st;
            peep(p, false, &st, "blendvps f32x8 on avx2");
            check(count_insn(p, "blendvps") == 1, "blendvps f32x8 on avx2: rewritten though avx2 has it");
            tine_tprog_free(p);
        }
    }
}

static void test_limits(void) {
    /* a pass needs a round that rewrites nothing to end: with one round allowed, any
     * rewrite is a pass that has not reached its fixpoint, reported as an error */
    tine_type_t f8 = F(32, 8);
    tine_expr_t *e = add(var("a", f8), neg(var("b", f8)));
    tine_tprog *p = build("x86-64-avx2", 1, &e);
    tine_peep_opts o = {.max_rounds = 1};
    tine_peep_stats st;
    double t0 = now();
    bool ok = tine_peephole(p, &o, &st);
    check(!ok, "max_rounds 1: a pass that rewrote was taken as finished");
    const char *err = tine_error(ctx);
    check(err && strstr(err, "x86.peep") && strstr(err, "`sign`") && strstr(err, "do not terminate"),
          "max_rounds 1: the error does not name the file, the pass and the cause: %s", err ? err : "(none)");
    check(now() - t0 < 5, "max_rounds 1: %.1f s", now() - t0);
    tine_clear_error(ctx);
    tine_tprog_free(p);
    /* and with two rounds it ends */
    p = build("x86-64-avx2", 1, &e);
    o.max_rounds = 2;
    check(tine_peephole(p, &o, &st) && count_insn(p, "subps") == 1, "max_rounds 2: the sign pass did not finish");
    tine_clear_error(ctx);
    tine_tprog_free(p);
}

/* ---- whole codelets --------------------------------------------------------------- */

/* The sizes: every radix FFTW's algebra meets, primes, and the powers of two up to 64;
 * under the sanitizers (`test_peephole sanitized`, where each new context costs ~0.6 s)
 * the small ones, in one context per target and type. */
static const int SIZES[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 20, 25, 32, 64};
static const int SIZES_SANITIZED[] = {2, 3, 5, 8, 12, 16};
static bool sanitized;

static tine_tprog *dft_prog(const char *target, int n, int sign, tine_type_t t, tine_dft_counts *counts) {
    tine_expr_t *in[128] = {0}, *out[128] = {0};
    char nm[16];
    for (int j = 0; j < 2 * n; j++) {
        snprintf(nm, sizeof nm, "x%c%d", j % 2 ? 'i' : 'r', j / 2);
        in[j] = tine_var(ctx, nm, t);
    }
    if (!tine_dft_gen(ctx, n, sign, t, in, out, counts)) {
        fail("dft n=%d: %s", n, tine_error(ctx));
        tine_clear_error(ctx);
        return NULL;
    }
    tine_tprog *p = tine_tprog_new(ctx, target);
    for (int j = 0; j < 2 * n; j++) tine_tprog_input(p, in[j]);
    for (int k = 0; k < 2 * n; k++) {
        snprintf(nm, sizeof nm, "y%c%d", k % 2 ? 'i' : 'r', k / 2);
        tine_tprog_output(p, nm, out[k]);
    }
    if (!tine_tprog_select(p)) {
        fail("dft n=%d %s: select: %s", n, target, tine_error(ctx));
        tine_clear_error(ctx);
        tine_tprog_free(p);
        return NULL;
    }
    return p;
}

static void test_dft(void) {
    struct {
        const char *target;
        int bits, lanes;
        bool fma;
    } ts[] = {
        {"x86-64-avx2", 32, 8, true}, {"x86-64-avx2", 64, 4, true},   {"x86-64-sse41", 32, 4, false},
        {"x86-64-avx512", 32, 16, true}, {"arm-64", 32, 4, true}, {"arm-64", 64, 2, true},
    };
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++) {
        tine_type_t t = F(ts[ti].bits, ts[ti].lanes);
        double eps = ts[ti].bits == 64 ? 0x1p-53 : 0x1p-24;
        long tot_before = 0, tot_after = 0, tot_contract = 0, tot_fma = 0;
        double t0 = now();
        const int *sizes = sanitized ? SIZES_SANITIZED : SIZES;
        int nsizes = sanitized ? (int)(sizeof SIZES_SANITIZED / sizeof *SIZES_SANITIZED) : (int)(sizeof SIZES / sizeof *SIZES);
        tine_ctx_t *outer = ctx;
        if (sanitized) ctx = tine_ctx_new();
        for (int si = 0; si < nsizes; si++) {
            int n = sizes[si];
            for (int sign = -1; sign <= 1; sign += 2) {
                /* a context per codelet: the interpreter's tables grow with the context's nodes */
                if (!sanitized) ctx = tine_ctx_new();
                char what[96];
                snprintf(what, sizeof what, "dft n=%d %s f%d %s", n, sign < 0 ? "forward" : "inverse", ts[ti].bits,
                         ts[ti].target);
                tine_dft_counts counts;
                tine_tprog *p = dft_prog(ts[ti].target, n, sign, t, &counts);
                if (!p) goto next;
                snap before = snapshot(p);
                int ins0 = count_insns(p), fma0 = count_fmas(p);
                tine_peep_stats st;
                if (!peep(p, false, &st, what)) {
                    tine_tprog_free(p);
                    goto next;
                }
                const char *lk = lacked(p);
                check(!lk, "%s: the program holds %s, which the target lacks", what, lk ? lk : "");
                check(count_insns(p) <= ins0, "%s: %d instructions after the peephole, %d before", what, count_insns(p),
                      ins0);
                check(count_fmas(p) == fma0, "%s: FMAs without contract (%d, %d selected)", what, count_fmas(p), fma0);
                compare(p, &before, 3, false, NULL, 0, what);
                compare(p, &before, 3, true, NULL, 0, what);
                /* a fixpoint: a second run rewrites nothing */
                tine_peep_stats st2;
                snap mid = snapshot(p);
                peep(p, false, &st2, what);
                int rw = st2.folded;
                for (int k = 0; k < st2.passes; k++) rw += st2.pass_rewrites[k];
                bool same = true;
                for (int k = 0; k < p->nouts; k++) same &= p->outs[k].value == mid.v[k];
                check(rw == 0 && same, "%s: a second peephole rewrote %d more", what, rw);
                tot_before += ins0, tot_after += count_insns(p);
                int nsel = count_insns(p);
                tine_tprog_free(p);

                /* with contract: fewer or as many instructions, FMAs only where the target has them */
                p = dft_prog(ts[ti].target, n, sign, t, NULL);
                if (!p) goto next;
                before = snapshot(p);
                char whatc[112];
                snprintf(whatc, sizeof whatc, "%s (contract)", what);
                if (!peep(p, true, &st, whatc)) {
                    tine_tprog_free(p);
                    goto next;
                }
                lk = lacked(p);
                check(!lk, "%s: the program holds %s, which the target lacks", whatc, lk ? lk : "");
                check(count_insns(p) <= nsel, "%s: %d instructions, %d without contract", whatc, count_insns(p), nsel);
                if (!ts[ti].fma) check(count_fmas(p) == 0, "%s: FMAs on a target without them", whatc);
                tot_contract += count_insns(p), tot_fma += count_fmas(p);
                /* every output within C eps log2(n) sum |x| (an FFT's intermediate values are
                 * bounded by the inputs' 1-norm times a small constant) */
                tine_expr_t *s = NULL;
                for (int j = 0; j < p->ninputs; j++) {
                    tine_expr_t *ax = tine_abs(ctx, p->inputs[j]);
                    s = s ? add(s, ax) : ax;
                }
                tine_expr_t *sc[128];
                for (int k = 0; k < p->nouts; k++) sc[k] = s;
                double lg = log2((double)n) < 1 ? 1 : log2((double)n);
                compare(p, &before, 4, false, sc, 8 * eps * lg, whatc);
                tine_tprog_free(p);
            next:
                if (!sanitized) {
                    tine_ctx_free(ctx);
                    ctx = outer;
                }
            }
        }
        if (sanitized) {
            tine_ctx_free(ctx);
            ctx = outer;
        }
        if (ts[ti].fma) check(tot_fma > 0, "dft f%d %s: no FMA with contract at any size", ts[ti].bits, ts[ti].target);
        printf("dft f%d %-13s: %ld instructions selected, %ld after the peephole, %ld with contract (%ld FMAs), %.2f s\n",
               ts[ti].bits, ts[ti].target, tot_before, tot_after, tot_contract, tot_fma, now() - t0);
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "sanitized")) sanitized = true;
    ctx = tine_ctx_new();
    static const test_part parts[] = {{"sign", test_sign},       {"contract", test_contract}, {"fold", test_fold},
                                        {"redundant/dead", test_redundant_dead}, {"lacking", test_lacking},
                                        {"shuffle", test_shuffle}, {"swap", test_swap}, {"swap_generic", test_swap_generic}, {"limits", test_limits}, {"dft", test_dft}};
    run_parts(parts, sizeof parts / sizeof *parts);
    tine_ctx_free(ctx);
    printf("test_peephole: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
