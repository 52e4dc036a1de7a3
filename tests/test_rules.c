/* test_rules.c — the rule compiler and the lift rules.
 *
 * Design note
 * -----------
 * Three parts (numbered as in main()):
 *
 *   1. Soundness of every lift rule, for every type instantiation. The compiler leaves,
 *      for each rule and each admitted T, a pattern (inst->lhs: IR whose leaves are
 *      wildcard variables ?x and constant wildcards ?c0..?c9). The test instantiates the
 *      pattern by hand: it walks tine_topo(inst->lhs) and rebuilds every node at LANES
 *      (256) lanes (tine_make with the node's op, immediate and element type), putting a
 *      fresh variable of the wildcard's type for each ?x and a uniform constant for each
 *      ?cK. It then decides whether the rule fires exactly as tine_rules_try does, with
 *      rules.c's (static) rhs_env replicated: bindings by wildcard name without '?',
 *      cvals/cbound from the constants' values, T = inst->T, the term's lanes; every
 *      conjunct T alone does not decide (inst->dyn) must give 1 in PRED mode; the right
 *      side is the prebuilt template instantiated (rules.c's instantiate, replicated:
 *      constants retyped for their position, refused when they do not fit), or else the
 *      right side elaborated in RHS mode, and must have the term's type. Two consistency
 *      checks ride along: the whole predicate must agree with the conjuncts, and the
 *      template must give the very node elaborating the right side gives. When the rule
 *      fires, the interpreter's lanes of both sides must be equal bit for bit.
 *        Constants: a conjunct `cK == expr` of the predicate derives cK from the other
 *      constants (the test elaborates expr in PRED mode, as the predicate would); every
 *      other constant takes each value of a candidate list (every value in
 *      [−2, 2·bits+2], ±2^k and ±2^k ± 1, T's and the constant's own min and max, and
 *      max >> k), whose cartesian product is thinned to at most 4096 combinations. A
 *      combination is kept when the rule fires on it (with the wildcards bound to
 *      variables of full range) and it fits its constant's type.
 *        Inputs: FULL_COMBOS (16) of the kept combinations, spread over the list, get the
 *      full set: every value (pair) when the wildcards have at most 16 bits together (two
 *      8-bit ones: all 65,536 pairs; one 8- or 16-bit one: all values); otherwise every
 *      combination of edge values (min, max, 0, ±1, ±2, min+1, max−1, ±2^k, ±2^k ± 1) when
 *      there are at most 2^16 of them (else every combination of a core edge set plus
 *      16,384 random edge tuples), plus random tuples (uniform bits, small, near the
 *      limits, near ±2^k, random bit lengths): 10,240 per instantiation, shared by its
 *      full combinations. The other combinations get a reduced set (every value of one
 *      8-bit wildcard, else the edge combinations when at most 4096, else the core ones,
 *      plus 256 random tuples), which keeps the run within its time budget.
 *        Bounds-predicated rules (upper_bounded, lower_bounded, can_prove): constants are
 *      filtered by the conjuncts that do not ask for bounds; then for every kept
 *      combination the test gives the variables ranges with tine_bounds_set_var: no
 *      range at all; families of nested ranges ([T.min, T.min+p] and [0, p], [T.max−p,
 *      T.max] and [−p, 0], [−p, p], and each variable alone at [0, p] with the others at
 *      [1, 1]), binary-searching p for the boundary K where the predicate stops holding
 *      and testing p = K−1, K, K+1 there; and 24 random sub-ranges, half of their ends
 *      near the boundaries found (combinations beyond FULL_COMBOS: two families and 4
 *      random ranges). Inputs are drawn inside the ranges (every in-range tuple when there
 *      are at most 1024, else the corners and 256 random ones). Each (range, predicate)
 *      case is counted true or false, and the counts are printed per rule.
 *      tine_bounds_set_var takes int64_t, so a u64 variable's range stays below 2^63.
 *        Every instantiation must fire at least once, and every bounds-predicated one
 *      must also meet a range where its predicate is false. For each firing case the
 *      test also runs tine_rules_try itself on the instantiated left side: it must find a
 *      rewrite (the pattern matches itself) and that rewrite must agree with the left
 *      side on the last batch of inputs.
 *      Each rule is tested in a fresh context (tine_lift_rules compiled there), so the
 *      ranges given to one rule's variables and the nodes it creates stay with it.
 *      Failures are reported once per instantiation, with the first differing input.
 *
 *   2. Bounds soundness: 20,000 random well-typed integer expressions over every
 *      primitive op usable on integers (all but sqrt) and every FPIR op, u8..i64, 1 to 32
 *      lanes, with half of the variables given a random range by tine_bounds_set_var and
 *      their inputs drawn inside it. For every node (tine_topo), every lane the
 *      interpreter computes must lie in tine_bounds(node) when it gives one. A coverage
 *      check requires every op to have been generated. Plus exact bounds of a few
 *      expressions.
 *
 *   3. The rule compiler's corpus, data/bad_rules.txt (format at its top): malformed rule
 *      files with their exact messages, and valid ones with their rule counts.
 *      `test_rules --bless` rewrites the messages there with the current ones (review
 *      the diff).
 *
 * With --lower, part 1 checks a description's lowering rules (src/targets/x86.rules, or
 * arm.rules with --isa arm) the same way: their right sides name instructions, which the
 * interpreter evaluates through the description's semantics, so each rule is checked
 * against the instruction models. Part 2's random expressions include instructions of
 * every description.
 *
 * Usage: test_rules [--bless] [--rule NAME] [--rules FILE] [--lower [--isa x86|arm]] [--part 1|2|3] [-v]
 *   --rule NAME tests one lift rule; --rules FILE tests a rule file's rules instead of the
 *   built-in ones (to see that the test catches an altered rule); -v prints per-rule times.
 * Output: a line per failure, per-rule range counts for bounds-predicated rules, totals,
 * then "test_rules: N checks passed, M failed"; the exit status is non-zero on failure.
 */
#include "internal.h"
#include "ir/ast.h"
#include "rules/rules.h"

#include <time.h>

#include "testutil.h"

#define LANES 256
/* lanes of the instantiated terms: LANES, or 64 for lowering rules (whose right sides may
   interleave operands into twice their lanes) */
static int g_lanes = LANES;
#define MAXW 8

static bool verbose;

static uint64_t rng_state = 0x7e57a11e5ull;
static uint64_t rnd(void) { return tine_rand64(&rng_state); }

static const char *istr(tine_i128 v, char *out) {
    char tmp[64];
    int n = 0;
    bool neg = v < 0;
    tine_u128 u = neg ? -(tine_u128)v : (tine_u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int k = 0;
    if (neg) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = 0;
    return out;
}

static const tine_type_t ITYPES[8] = {
    {TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
    {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 64, 1},
};

static tine_i128 tmin(tine_type_t t) { return tine_min_i128(t); }
static tine_i128 tmax(tine_type_t t) { return tine_max_i128(t); }
static bool fits(tine_type_t t, tine_i128 v) { return v >= tmin(t) && v <= tmax(t); }
/* v reduced into t's range (two's complement wrap) */
static tine_i128 wrap(tine_type_t t, tine_i128 v) { return (tine_i128)tine_canon(t, (tine_u128)v); }
/* The largest value tine_bounds_set_var can state for t (its bounds are int64_t). */
static tine_i128 settable_max(tine_type_t t) { return t.bits == 64 && t.kind == TINE_UINT ? INT64_MAX : tmax(t); }

/* ---- value lists ----------------------------------------------------------------------- */

typedef struct {
    tine_i128 *v;
    int n, cap;
} vlist;

static void vl_add(vlist *l, tine_i128 x) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, (size_t)l->cap * sizeof *l->v);
        TINE_ASSERT(l->v != NULL);
    }
    l->v[l->n++] = x;
}

static int cmp_i128(const void *a, const void *b) {
    tine_i128 x = *(const tine_i128 *)a, y = *(const tine_i128 *)b;
    return x < y ? -1 : x > y;
}

/* sorted, without duplicates, only values that fit t */
static void vl_finish(vlist *l, tine_type_t t) {
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (fits(t, l->v[i])) l->v[k++] = l->v[i];
    l->n = k;
    qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_i128);
    k = 0;
    for (int i = 0; i < l->n; i++)
        if (k == 0 || l->v[k - 1] != l->v[i]) l->v[k++] = l->v[i];
    l->n = k;
}

static void vl_free(vlist *l) {
    free(l->v);
    *l = (vlist){0};
}

/* Edge values of t: min, max, 0, ±1, min+1, max−1, and (full) ±2^k, ±2^k ± 1. The core
 * set keeps a dozen of them. */
static void edge_values(tine_type_t t, bool full, vlist *l) {
    tine_i128 lo = tmin(t), hi = tmax(t);
    tine_i128 base[] = {lo, hi, 0, 1, -1, 2, -2, lo + 1, hi - 1};
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) vl_add(l, base[i]);
    if (full) {
        for (int k = 0; k < t.bits; k++) {
            tine_i128 p = (tine_i128)1 << k;
            tine_i128 v[] = {p, p - 1, p + 1, -p, -p + 1, -p - 1};
            for (size_t i = 0; i < 6; i++) vl_add(l, v[i]);
        }
    } else {
        int h = t.bits / 2;
        tine_i128 p = (tine_i128)1 << h, q = (tine_i128)1 << (t.bits - 1);
        tine_i128 v[] = {p, p - 1, -p, q - 1, q, q + 1};
        for (size_t i = 0; i < 6; i++) vl_add(l, v[i]);
    }
    vl_finish(l, t);
}

/* A random value of t: uniform bits, small, near a limit, near ±2^k, or random length. */
static tine_i128 rand_val(tine_type_t t) {
    int b = t.bits;
    switch (rnd() % 8) {
    case 0: case 1: case 2: return wrap(t, (tine_i128)rnd());
    case 3: return wrap(t, (tine_i128)(rnd() % 33) - 16);
    case 4: return tmax(t) - (tine_i128)(rnd() % 16);
    case 5: return tmin(t) + (tine_i128)(rnd() % 16);
    case 6: {
        tine_i128 v = ((tine_i128)1 << (rnd() % (unsigned)b)) + (tine_i128)(rnd() % 5) - 2;
        return wrap(t, (rnd() & 1) ? -v : v);
    }
    default: {
        int k = 1 + (int)(rnd() % (unsigned)b);
        uint64_t x = rnd() & (k >= 64 ? ~0ull : (1ull << k) - 1);
        tine_i128 v = (tine_i128)x;
        return wrap(t, (t.kind == TINE_INT && (rnd() & 1)) ? -v : v);
    }
    }
}

/* A random value in [lo, hi] (hi − lo < 2^65), often an end. */
static tine_i128 rand_in(tine_i128 lo, tine_i128 hi) {
    tine_u128 span = (tine_u128)(hi - lo);
    switch (rnd() % 8) {
    case 0: return lo;
    case 1: return hi;
    case 2: return span > 4 ? lo + (tine_i128)(rnd() % 4) : lo;
    case 3: return span > 4 ? hi - (tine_i128)(rnd() % 4) : hi;
    default: {
        tine_u128 r = ((tine_u128)rnd() << 64) | rnd();
        return lo + (tine_i128)(span == ~(tine_u128)0 ? r : r % (span + 1));
    }
    }
}


/* ==== part 1: soundness of the lift rules =================================================== */

static bool is_wild(const tine_expr_t *e) { return e->op == TINE_OP_VAR && tine_expr_name(e)[0] == '?'; }
static bool is_cwild(const tine_expr_t *e) {
    const char *n = e->op == TINE_OP_VAR ? tine_expr_name(e) : "";
    return n[0] == '?' && n[1] == 'c' && n[2] >= '0' && n[2] <= '9';
}
static bool is_cwild_name(const char *n) { return n[0] == 'c' && n[1] >= '0' && n[1] <= '9' && !n[2]; }

/* Whether a predicate (sub)tree asks for bounds. */
static bool asks_bounds(const tine_ast *a) {
    if (!a) return false;
    if (a->kind == A_CALL && (!strcmp(a->name, "upper_bounded") || !strcmp(a->name, "lower_bounded") ||
                              !strcmp(a->name, "can_prove")))
        return true;
    for (int i = 0; i < a->nargs; i++)
        if (asks_bounds(a->args[i])) return true;
    return asks_bounds(a->targ);
}

typedef struct {
    long insts, fired_insts, combos, exhaustive_insts, tuples, batches, mismatches, rhs_fail, templated_insts;
    long range_true, range_false, lifter_checks;
} totals;
static totals TOT;

/* One instantiation of one rule, under test. */
typedef struct {
    tine_ctx_t *ctx;
    tine_ruleset_t *rs;
    const tine_rule *rule;
    const tine_rule_inst *inst;
    int ti;
    char T[16];
    bool bounded; /* the predicate asks for bounds */
    int nw, nc;
    const tine_expr_t *w[MAXW]; /* ordinary wildcards of the pattern */
    tine_type_t wt[MAXW];       /* their element types */
    const tine_expr_t *cw[10];  /* constant wildcards */
    int ck[10];                 /* their numbers: ?c<ck> */
    tine_type_t ct[10];
    const tine_ast *derive[10][4]; /* cK == expr conjuncts: expr */
    int nderive[10];
    tine_i128 cv[10];
    uint32_t cset;                 /* which cv are known */
    tine_expr_t *var[MAXW];        /* current replacements of the wildcards */
    tine_i128 vlo[MAXW], vhi[MAXW]; /* the ranges given to them (bounded rules) */
    bool ranged;
    tine_expr_t *lhs, *rhs;
    tine_env_t *env;
    /* the current batch */
    int nb;
    tine_i128 in[MAXW][LANES];
    /* results */
    long tuples, mismatches, fired, rhs_fail, range_true, range_false, lifter_bad, inconsistent, templated;
    char cfirst[1536]; /* the first inconsistency of fires() */
    char first[1536];  /* the first mismatch */
    char lfirst[1536]; /* the first problem with tine_rules_try's rewrite */
} rcase;

static void mk_env(const rcase *rc, tine_elab_env *env, tine_binding *binds, tine_elab_mode mode) {
    memset(env, 0, sizeof *env);
    env->T = rc->inst->T;
    env->lanes = g_lanes;
    env->mode = mode;
    for (int i = 0; i < rc->nw; i++) {
        binds[i].name = tine_expr_name(rc->w[i]) + 1; /* past '?' */
        binds[i].expr = rc->var[i];
    }
    for (int i = 0; i < rc->nc; i++)
        if (rc->cset >> i & 1) {
            env->cvals[rc->ck[i]] = rc->cv[i];
            env->cbound |= 1u << rc->ck[i];
        }
    env->binds = binds;
    env->nbinds = rc->nw;
}

/* A predicate's (or conjunct's, or expression's) value as rules.c's eval_pred gives it:
 * 1 true, 0 false, negative when it cannot be evaluated. *val gets the integer. */
static int pred_value(rcase *rc, const tine_ast *p, tine_i128 *val) {
    tine_binding b[MAXW];
    tine_elab_env env;
    mk_env(rc, &env, b, TINE_ELAB_PRED);
    tine_i128 v = 0;
    int r = tine_elaborate_pred(rc->ctx, p, &env, &v);
    tine_clear_error(rc->ctx);
    if (val) *val = v;
    return r != 0 ? r : v != 0;
}

static void describe_consts(const rcase *rc, char *out, size_t n) {
    char v[48];
    size_t k = (size_t)snprintf(out, n, "T = %s", rc->T);
    for (int i = 0; i < rc->nc && k < n; i++) k += (size_t)snprintf(out + k, n - k, ", c%d = %s", rc->ck[i], istr(rc->cv[i], v));
}

static void consistency_problem(rcase *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void consistency_problem(rcase *rc, const char *fmt, ...) {
    g_fail++; /* reported once per instantiation, with the first example */
    if (rc->inconsistent++) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc->cfirst, sizeof rc->cfirst, fmt, ap);
    va_end(ap);
}

/* The right side as tine_rules_try builds it from a prebuilt template (rules.c's
 * instantiate): wildcards replaced by what they matched, constants retyped for their
 * position (NULL when one does not fit it), every node at the subject's lanes. */
static tine_expr_t *template_rhs(rcase *rc) {
    const tine_rule_inst *in = rc->inst;
    tine_expr_t **map = malloc(in->rhs_n * sizeof *map);
    TINE_ASSERT(map != NULL);
    tine_expr_t *r = NULL;
    for (uint32_t k = 0; k < in->rhs_n; k++) {
        const tine_expr_t *e = in->rhs_order[k];
        tine_type_t t = tine_type_with_lanes(e->type, g_lanes);
        tine_expr_t *x = NULL;
        if (is_cwild(e)) {
            for (int i = 0; i < rc->nc && !x; i++)
                if (!strcmp(tine_expr_name(rc->cw[i]), tine_expr_name(e))) {
                    if (!tine_fits(t, rc->cv[i])) goto out;
                    x = tine_const_splat(rc->ctx, t, (tine_u128)rc->cv[i]);
                }
        } else if (is_wild(e)) {
            for (int i = 0; i < rc->nw && !x; i++)
                if (rc->w[i] == e) x = rc->var[i];
        } else if (e->op == TINE_OP_CONST) {
            x = tine_const_splat(rc->ctx, t, tine_const_value(e, 0));
        } else {
            tine_expr_t *ops[256];
            for (int i = 0; i < e->nops; i++) ops[i] = map[tine_topo_index(in->rhs_order, in->rhs_n, e->ops[i])];
            x = tine_make(rc->ctx, (tine_op_t)e->op, t, e->nops, ops, e->imm, e->flags, tine_node_words(e),
                          tine_node_nwords(e));
        }
        if (!x) {
            fail("rule %s (T = %s): its prebuilt right side holds a leaf the left side does not bind",
                 rc->rule->ast.name, rc->T);
            goto out;
        }
        map[k] = x;
    }
    r = map[in->rhs_n - 1];
out:
    free(map);
    return r;
}

/* tine_rules_try's decision for this rule on rc->lhs: every conjunct of the predicate
 * that T alone does not decide (inst->dyn) gives 1, and the right side — the prebuilt
 * template instantiated, or else the rule's right side elaborated in RHS mode — has the
 * term's type. Sets rc->rhs. Two consistency checks on the way: the whole predicate
 * (elaborated in PRED mode) must agree with the conjuncts, and the template must give
 * the node that elaborating the right side gives. */
static bool fires(rcase *rc) {
    const tine_rule_inst *in = rc->inst;
    rc->rhs = NULL;
    bool holds = true;
    for (int c = 0; c < in->ndyn && holds; c++) holds = pred_value(rc, in->dyn[c], NULL) == 1;
    if (rc->rule->ast.pred && (pred_value(rc, rc->rule->ast.pred, NULL) == 1) != holds) {
        char d[1280];
        describe_consts(rc, d, sizeof d);
        consistency_problem(rc, "the predicate %s, but its undecided conjuncts %s (%s)", holds ? "fails" : "holds",
                            holds ? "hold" : "do not", d);
    }
    if (!holds) return false;
    tine_binding b[MAXW];
    tine_elab_env env;
    mk_env(rc, &env, b, TINE_ELAB_RHS);
    tine_expr_t *elaborated = tine_elaborate(rc->ctx, rc->rule->ast.rhs, &env);
    tine_clear_error(rc->ctx);
    tine_expr_t *r = elaborated;
    if (in->rhs_order) {
        r = template_rhs(rc);
        rc->templated++;
        if (r != elaborated) {
            char d[1280];
            describe_consts(rc, d, sizeof d);
            consistency_problem(rc, "the prebuilt right side %s, elaborating the right side %s (%s)",
                                r ? "gives a node" : "gives none", elaborated ? "another" : "none", d);
        }
    }
    if (!r || !tine_type_eq(r->type, rc->lhs->type)) {
        rc->rhs_fail++;
        return false;
    }
    rc->rhs = r;
    return true;
}

static void describe(const rcase *rc, char *out, size_t n, int lane, tine_u128 a, tine_u128 b) {
    char v1[48], v2[48];
    size_t k = (size_t)snprintf(out, n, "rule %s (T = %s)", rc->rule->ast.name, rc->T);
    for (int i = 0; i < rc->nc && k < n; i++)
        k += (size_t)snprintf(out + k, n - k, ", c%d = %s", rc->ck[i], istr(rc->cv[i], v1));
    for (int i = 0; i < rc->nw && k < n; i++) {
        char tb[16];
        k += (size_t)snprintf(out + k, n - k, ", %s = %s_%s", tine_expr_name(rc->w[i]) + 1,
                              istr(rc->in[i][lane], v1), tine_type_name(rc->wt[i], tb));
        if (rc->ranged && k < n)
            k += (size_t)snprintf(out + k, n - k, " (range [%s, %s])", istr(rc->vlo[i], v1), istr(rc->vhi[i], v2));
    }
    tine_type_t t = rc->lhs->type;
    if (k < n)
        snprintf(out + k, n - k, ": left side %s, right side %s", istr((tine_i128)tine_canon(t, a), v1),
                 istr((tine_i128)tine_canon(t, b), v2));
}

/* Evaluates both sides on the batch and compares them lane by lane. */
static void flush(rcase *rc) {
    if (!rc->nb) return;
    for (int i = 0; i < rc->nw; i++)
        for (int l = rc->nb; l < g_lanes; l++) rc->in[i][l] = rc->in[i][0];
    static tine_u128 buf[LANES], a[LANES], b[LANES];
    for (int i = 0; i < rc->nw; i++) {
        for (int l = 0; l < g_lanes; l++) buf[l] = tine_canon(rc->wt[i], (tine_u128)rc->in[i][l]);
        tine_env_bind128(rc->env, rc->var[i], buf);
    }
    if (tine_eval128(rc->ctx, rc->lhs, rc->env, a) != 0 || tine_eval128(rc->ctx, rc->rhs, rc->env, b) != 0) {
        fail("rule %s (T = %s): evaluation failed: %s", rc->rule->ast.name, rc->T, tine_error(rc->ctx));
        tine_clear_error(rc->ctx);
        rc->nb = 0;
        return;
    }
    bool ok = true;
    for (int l = 0; l < rc->nb; l++)
        if (a[l] != b[l]) {
            ok = false;
            if (!rc->mismatches++) describe(rc, rc->first, sizeof rc->first, l, a[l], b[l]);
        }
    if (ok) pass();
    else g_fail++; /* reported once per instantiation, with the first example */
    rc->tuples += rc->nb;
    TOT.batches++;
    rc->nb = 0;
}

static void add_tuple(rcase *rc, const tine_i128 *t) {
    for (int i = 0; i < rc->nw; i++) rc->in[i][rc->nb] = t[i];
    if (++rc->nb == g_lanes) flush(rc);
}

/* Every tuple of the product of the lists. */
static void add_product(rcase *rc, const vlist *lists) {
    int idx[MAXW] = {0};
    tine_i128 t[MAXW];
    for (int i = 0; i < rc->nw; i++)
        if (lists[i].n == 0) return;
    for (;;) {
        for (int i = 0; i < rc->nw; i++) t[i] = lists[i].v[idx[i]];
        add_tuple(rc, t);
        int i = 0;
        while (i < rc->nw && ++idx[i] == lists[i].n) idx[i++] = 0;
        if (i == rc->nw) break;
    }
}

/* The matcher must find a rewrite for the instantiated left side (its own pattern matches
 * it), and the rewrite it picks must agree with the left side on the last batch. */
static void lifter_problem(rcase *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lifter_problem(rcase *rc, const char *fmt, ...) {
    g_fail++; /* reported once per instantiation, with the first example */
    if (rc->lifter_bad++) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc->lfirst, sizeof rc->lfirst, fmt, ap);
    va_end(ap);
}

static void check_lifter(rcase *rc) {
    const tine_rule *used = NULL;
    tine_expr_t *r = tine_rules_try(rc->ctx, rc->rs, rc->lhs, &used);
    TOT.lifter_checks++;
    if (!r) {
        lifter_problem(rc, "the rule fires on its instantiated left side, but tine_rules_try finds no rewrite");
        return;
    }
    static tine_u128 a[LANES], b[LANES];
    if (tine_eval128(rc->ctx, rc->lhs, rc->env, a) != 0 || tine_eval128(rc->ctx, r, rc->env, b) != 0) {
        lifter_problem(rc, "evaluating tine_rules_try's rewrite (by %s) failed: %s", used ? used->ast.name : "?",
                       tine_error(rc->ctx));
        tine_clear_error(rc->ctx);
        return;
    }
    for (int l = 0; l < g_lanes; l++)
        if (a[l] != b[l]) {
            char d[1280];
            describe(rc, d, sizeof d, l, a[l], b[l]);
            lifter_problem(rc, "tine_rules_try rewrote it with rule %s, which differs: %s", used ? used->ast.name : "?",
                           d);
            return;
        }
    pass();
}

/* Inputs over the full ranges of the wildcards' types. Full: every value (or pair) when
 * the wildcards have at most 16 bits together (one or two 8-bit ones, or one 16-bit one);
 * else every combination of edge values (or, when there are more than 2^16, of the core
 * edges plus 16,384 random edge tuples), and nrandom random tuples. Reduced (for constant
 * choices beyond the first FULL_COMBOS): every value of a single 8-bit wildcard, else
 * every combination of edge values when there are at most 4096 (else of the core edges),
 * and nrandom random tuples. */
static int wild_bits(const rcase *rc) {
    int bits = 0;
    for (int i = 0; i < rc->nw; i++) bits += rc->wt[i].bits;
    return bits;
}

static void inputs_full(rcase *rc, int nrandom, bool reduced) {
    vlist lists[MAXW] = {{0}};
    if (wild_bits(rc) <= (reduced ? 8 : 16)) {
        for (int i = 0; i < rc->nw; i++)
            for (tine_i128 v = tmin(rc->wt[i]); v <= tmax(rc->wt[i]); v++) vl_add(&lists[i], v);
        add_product(rc, lists);
    } else {
        double prod = 1;
        for (int i = 0; i < rc->nw; i++) {
            edge_values(rc->wt[i], true, &lists[i]);
            prod *= lists[i].n;
        }
        if (prod <= (reduced ? 4096 : 65536)) {
            add_product(rc, lists);
        } else {
            vlist core[MAXW] = {{0}};
            for (int i = 0; i < rc->nw; i++) edge_values(rc->wt[i], false, &core[i]);
            add_product(rc, core);
            for (int i = 0; i < rc->nw; i++) vl_free(&core[i]);
            tine_i128 t[MAXW];
            for (int k = 0; k < (reduced ? 0 : 16384); k++) {
                for (int i = 0; i < rc->nw; i++) t[i] = lists[i].v[rnd() % (unsigned)lists[i].n];
                add_tuple(rc, t);
            }
        }
        tine_i128 t[MAXW];
        for (int k = 0; k < nrandom; k++) {
            for (int i = 0; i < rc->nw; i++) t[i] = rand_val(rc->wt[i]);
            add_tuple(rc, t);
        }
    }
    flush(rc);
    for (int i = 0; i < rc->nw; i++) vl_free(&lists[i]);
}

/* Inputs inside the ranges rc->vlo/vhi: all of them when there are at most 1024 tuples,
 * else the corners (lo, lo+1, middle, hi−1, hi, and 0, ±1 inside) and 256 random ones. */
static void inputs_ranged(rcase *rc) {
    vlist lists[MAXW] = {{0}};
    double prod = 1;
    for (int i = 0; i < rc->nw; i++) prod *= (double)(rc->vhi[i] - rc->vlo[i] + 1);
    if (prod <= 1024) {
        for (int i = 0; i < rc->nw; i++)
            for (tine_i128 v = rc->vlo[i]; v <= rc->vhi[i]; v++) vl_add(&lists[i], v);
        add_product(rc, lists);
    } else {
        for (int i = 0; i < rc->nw; i++) {
            tine_i128 lo = rc->vlo[i], hi = rc->vhi[i];
            tine_i128 c[] = {lo, lo + 1, lo + (hi - lo) / 2, hi - 1, hi, 0, 1, -1};
            for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
                if (c[k] >= lo && c[k] <= hi) vl_add(&lists[i], c[k]);
            vl_finish(&lists[i], rc->wt[i]);
        }
        add_product(rc, lists);
        tine_i128 t[MAXW];
        for (int k = 0; k < 256; k++) {
            for (int i = 0; i < rc->nw; i++) t[i] = rand_in(rc->vlo[i], rc->vhi[i]);
            add_tuple(rc, t);
        }
    }
    flush(rc);
    for (int i = 0; i < rc->nw; i++) vl_free(&lists[i]);
}

/* Fresh variables for the wildcards, named <wildcard><suffix>. */
static void make_vars(rcase *rc, const char *suffix) {
    for (int i = 0; i < rc->nw; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s%s", tine_expr_name(rc->w[i]) + 1, suffix);
        rc->var[i] = tine_var(rc->ctx, name, tine_type_with_lanes(rc->wt[i], g_lanes));
        rc->vlo[i] = tmin(rc->wt[i]);
        rc->vhi[i] = tmax(rc->wt[i]);
    }
    rc->ranged = false;
}

/* The pattern rebuilt at g_lanes lanes, wildcards replaced by rc->var and constants rc->cv. */
static tine_expr_t *build_lhs(rcase *rc) {
    uint32_t n;
    tine_expr_t **order = tine_topo(rc->ctx, rc->inst->lhs, &n);
    tine_expr_t **map = malloc(n * sizeof *map);
    TINE_ASSERT(map != NULL);
    bool ok = true;
    for (uint32_t k = 0; k < n && ok; k++) {
        const tine_expr_t *e = order[k];
        tine_type_t t = tine_type_with_lanes(e->type, g_lanes);
        map[k] = NULL;
        if (is_wild(e)) {
            for (int i = 0; i < rc->nw; i++)
                if (rc->w[i] == e) map[k] = rc->var[i];
            for (int i = 0; i < rc->nc; i++)
                if (rc->cw[i] == e) {
                    map[k] = tine_const_splat(rc->ctx, t, (tine_u128)rc->cv[i]);
                    /* tine_rules_try reads the value back from the node */
                    if ((tine_i128)tine_const_value(map[k], 0) != rc->cv[i]) ok = false;
                }
        } else if (e->op == TINE_OP_CONST) {
            if (!(e->flags & TINE_F_UNIFORM)) ok = false;
            else map[k] = tine_const_splat(rc->ctx, t, tine_const_value(e, 0));
        } else {
            tine_expr_t *ops[256];
            for (int i = 0; i < e->nops; i++) ops[i] = map[tine_topo_index(order, n, e->ops[i])];
            map[k] = tine_make(rc->ctx, (tine_op_t)e->op, t, e->nops, ops, e->imm, e->flags, tine_node_words(e),
                               tine_node_nwords(e));
        }
        if (!map[k]) ok = false;
    }
    tine_expr_t *r = ok ? map[n - 1] : NULL;
    if (!ok) fail("rule %s (T = %s): the pattern could not be instantiated", rc->rule->ast.name, rc->T);
    free(map);
    free(order);
    return r;
}

/* Candidate values of a free constant wildcard of type ct (T the rule's type). */
static void const_candidates(tine_type_t T, tine_type_t ct, vlist *l) {
    int B = T.bits > ct.bits ? T.bits : ct.bits;
    for (int v = -2; v <= 2 * B + 2; v++) vl_add(l, v);
    for (int k = 0; k <= ct.bits; k++) {
        tine_i128 p = (tine_i128)1 << k;
        tine_i128 v[] = {p, p - 1, p + 1, -p, -p + 1, -p - 1};
        for (size_t i = 0; i < 6; i++) vl_add(l, v[i]);
    }
    tine_type_t ts[2] = {T, ct};
    for (int j = 0; j < 2; j++) {
        tine_i128 v[] = {tmin(ts[j]), tmax(ts[j]), tmin(ts[j]) + 1, tmax(ts[j]) - 1};
        for (size_t i = 0; i < 4; i++) vl_add(l, v[i]);
        for (int k = 0; k < ts[j].bits; k++) vl_add(l, tmax(ts[j]) >> k);
    }
    vl_finish(l, ct);
}

/* Derives the constants with a `cK == expr` conjunct from the known ones. False when one
 * cannot be derived or does not fit its type (no term holds such a constant). */
static bool derive_constants(rcase *rc) {
    for (bool progress = true; progress;) {
        progress = false;
        for (int i = 0; i < rc->nc; i++) {
            if (rc->cset >> i & 1) continue;
            for (int d = 0; d < rc->nderive[i]; d++) {
                tine_i128 v;
                if (pred_value(rc, rc->derive[i][d], &v) >= 0) {
                    rc->cv[i] = v;
                    rc->cset |= 1u << i;
                    progress = true;
                    break;
                }
            }
        }
    }
    for (int i = 0; i < rc->nc; i++)
        if (!(rc->cset >> i & 1) || !fits(rc->ct[i], rc->cv[i])) return false;
    return true;
}

/* The predicate's conjuncts that do not ask for bounds all hold. */
static bool static_conjuncts_hold(rcase *rc) {
    const tine_rule_ast *ra = &rc->rule->ast;
    for (int c = 0; c < ra->nconj; c++)
        if (!asks_bounds(ra->conj[c]) && pred_value(rc, ra->conj[c], NULL) != 1) return false;
    return true;
}

/* ---- bounds-predicated rules: ranges ---- */

static bool set_ranges(rcase *rc, const tine_i128 *lo, const tine_i128 *hi) {
    for (int i = 0; i < rc->nw; i++) {
        if (tine_bounds_set_var(rc->ctx, rc->var[i], (int64_t)lo[i], (int64_t)hi[i]) != 0) {
            char a[48], b[48];
            fail("rule %s (T = %s): tine_bounds_set_var([%s, %s]) failed: %s", rc->rule->ast.name, rc->T,
                 istr(lo[i], a), istr(hi[i], b), tine_error(rc->ctx));
            tine_clear_error(rc->ctx);
            return false;
        }
        rc->vlo[i] = lo[i];
        rc->vhi[i] = hi[i];
    }
    rc->ranged = true;
    return true;
}

/* One (range, predicate) case: sets the ranges, decides, and checks when the rule fires.
 * Returns whether it fired. */
static bool range_case(rcase *rc, const tine_i128 *lo, const tine_i128 *hi, bool check) {
    if (!set_ranges(rc, lo, hi)) return false;
    bool f = fires(rc);
    if (f) rc->range_true++;
    else rc->range_false++;
    if (f && check) {
        rc->fired++;
        inputs_ranged(rc);
        check_lifter(rc);
    }
    return f;
}

enum { FAM_UP_MIN, FAM_UP_ZERO, FAM_DOWN_MAX, FAM_DOWN_ZERO, FAM_SYM, FAM_ONE }; /* FAM_ONE + var */

/* The ranges of family f at width p (p >= 0). */
static void family_ranges(const rcase *rc, int f, tine_i128 p, tine_i128 *lo, tine_i128 *hi) {
    for (int i = 0; i < rc->nw; i++) {
        tine_i128 mn = tmin(rc->wt[i]), mx = settable_max(rc->wt[i]);
        tine_i128 a, b;
        switch (f) {
        case FAM_UP_MIN: a = mn; b = a + p; break;
        case FAM_UP_ZERO: a = 0; b = p; break;
        case FAM_DOWN_MAX: b = mx; a = b - p; break;
        case FAM_DOWN_ZERO: b = 0; a = -p; break;
        case FAM_SYM: a = -p; b = p; break;
        default:
            if (i == f - FAM_ONE) {
                a = 0;
                b = p;
            } else {
                a = b = 1;
            }
        }
        lo[i] = a < mn ? mn : a > mx ? mx : a;
        hi[i] = b < mn ? mn : b > mx ? mx : b;
    }
}

/* Tests a bounded rule's instantiation with the current constants over many ranges (fewer
 * when not full: two families and 4 random ranges). */
static void bounded_combo(rcase *rc, bool full) {
    /* no range given: the variables' full types */
    if (fires(rc)) {
        rc->range_true++;
        rc->fired++;
        inputs_full(rc, 256, !full);
        check_lifter(rc);
    } else {
        rc->range_false++;
    }
    tine_i128 pmax = 0;
    for (int i = 0; i < rc->nw; i++)
        if (settable_max(rc->wt[i]) - tmin(rc->wt[i]) > pmax) pmax = settable_max(rc->wt[i]) - tmin(rc->wt[i]);
    vlist marks[MAXW] = {{0}}; /* range ends at the boundaries found */
    int nfam = FAM_ONE + (rc->nw > 1 ? rc->nw : 0);
    tine_i128 lo[MAXW], hi[MAXW];
    for (int f = 0; f < nfam; f++) {
        if (!full && f != FAM_UP_ZERO && f != FAM_SYM) continue;
        family_ranges(rc, f, 0, lo, hi);
        if (!range_case(rc, lo, hi, false)) continue; /* false from the start */
        family_ranges(rc, f, pmax, lo, hi);
        if (range_case(rc, lo, hi, true)) continue; /* true throughout */
        tine_i128 a = 0, b = pmax;                   /* pred(a) holds, pred(b) does not */
        while (b - a > 1) {
            tine_i128 m = a + (b - a) / 2;
            family_ranges(rc, f, m, lo, hi);
            if (range_case(rc, lo, hi, false)) a = m;
            else b = m;
        }
        for (tine_i128 p = a - 1; p <= a + 1; p++) {
            if (p < 0) continue;
            family_ranges(rc, f, p, lo, hi);
            range_case(rc, lo, hi, true);
            for (int i = 0; i < rc->nw; i++) {
                vl_add(&marks[i], lo[i]);
                vl_add(&marks[i], hi[i]);
            }
        }
    }
    /* random sub-ranges, half of their ends near the boundaries */
    for (int k = 0; k < (full ? 24 : 4); k++) {
        for (int i = 0; i < rc->nw; i++) {
            tine_i128 mn = tmin(rc->wt[i]), mx = settable_max(rc->wt[i]), e[2];
            for (int j = 0; j < 2; j++) {
                if (marks[i].n && (rnd() & 1)) e[j] = marks[i].v[rnd() % (unsigned)marks[i].n] + (tine_i128)(rnd() % 5) - 2;
                else e[j] = rand_val(rc->wt[i]);
                e[j] = e[j] < mn ? mn : e[j] > mx ? mx : e[j];
            }
            lo[i] = e[0] < e[1] ? e[0] : e[1];
            hi[i] = e[0] < e[1] ? e[1] : e[0];
        }
        range_case(rc, lo, hi, true);
    }
    for (int i = 0; i < rc->nw; i++) vl_free(&marks[i]);
}

/* Tests one instantiation. */
static void test_inst(tine_ctx_t *ctx, tine_ruleset_t *rs, const tine_rule *rule, int ti) {
    rcase *rc = calloc(1, sizeof *rc);
    TINE_ASSERT(rc != NULL);
    rc->ctx = ctx;
    rc->rs = rs;
    rc->rule = rule;
    rc->inst = &rule->inst[ti];
    rc->ti = ti;
    tine_type_name(rc->inst->T, rc->T);
    rc->bounded = asks_bounds(rule->ast.pred);
    const tine_rule_ast *ra = &rule->ast;

    /* the wildcards */
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, rc->inst->lhs, &n);
    for (uint32_t k = 0; k < n; k++) {
        const tine_expr_t *e = order[k];
        if (!is_wild(e)) continue;
        if (is_cwild(e)) {
            TINE_ASSERT(rc->nc < 10);
            rc->cw[rc->nc] = e;
            rc->ck[rc->nc] = tine_expr_name(e)[2] - '0';
            rc->ct[rc->nc++] = tine_type_with_lanes(e->type, 1);
        } else {
            TINE_ASSERT(rc->nw < MAXW);
            rc->w[rc->nw] = e;
            rc->wt[rc->nw++] = tine_type_with_lanes(e->type, 1);
        }
    }
    free(order);
    for (int i = 0; i < rc->nw + rc->nc; i++) {
        tine_type_t t = i < rc->nw ? rc->wt[i] : rc->ct[i - rc->nw];
        /* a float wildcard takes bit patterns as an integer one of its width does: every
           class of value (NaNs, infinities, subnormals, zeros of both signs) among them */
        if (!(tine_type_is_int(t) || t.kind == TINE_FLOAT) || t.bits > 64) {
            char tb[16];
            fail("rule %s (T = %s) has a wildcard of type %s; this test handles integer and float wildcards of at most 64 bits",
                 ra->name, rc->T, tine_type_name(t, tb));
            free(rc);
            return;
        }
    }
    /* conjuncts cK == expr (or expr == cK) derive cK */
    for (int c = 0; c < ra->nconj; c++) {
        const tine_ast *a = ra->conj[c];
        if (a->kind != A_BINARY || a->op != TINE_OP_EQ || a->logical) continue;
        for (int s = 0; s < 2; s++) {
            const tine_ast *nm = a->args[s];
            if (nm->kind != A_NAME || nm->targ || !is_cwild_name(nm->name)) continue;
            for (int i = 0; i < rc->nc; i++)
                if (rc->ck[i] == nm->name[1] - '0' && rc->nderive[i] < 4) rc->derive[i][rc->nderive[i]++] = a->args[1 - s];
        }
    }

    /* the constant combinations to test */
    char suffix[48];
    snprintf(suffix, sizeof suffix, "_%d", ti);
    make_vars(rc, suffix);
    vlist cand[10] = {{0}};
    int free_idx[10], nfree = 0;
    double prod = 1;
    for (int i = 0; i < rc->nc; i++)
        if (!rc->nderive[i]) {
            const_candidates(rc->inst->T, rc->ct[i], &cand[i]);
            free_idx[nfree++] = i;
            prod *= cand[i].n;
        }
    while (prod > 4096) { /* thin the longest list: every other value, keeping both ends */
        int m = free_idx[0];
        for (int j = 1; j < nfree; j++)
            if (cand[free_idx[j]].n > cand[m].n) m = free_idx[j];
        vlist *l = &cand[m];
        int k = 0;
        for (int i = 0; i < l->n; i++)
            if (i % 2 == 0 || i == l->n - 1) l->v[k++] = l->v[i];
        prod = prod / l->n * k;
        l->n = k;
    }
    vlist kept = {0}; /* rc->nc values per kept combination */
    int nkept = 0, idx[10] = {0};
    for (;;) {
        rc->cset = 0;
        for (int j = 0; j < nfree; j++) {
            rc->cv[free_idx[j]] = cand[free_idx[j]].v[idx[j]];
            rc->cset |= 1u << free_idx[j];
        }
        bool keep = derive_constants(rc);
        if (keep && rc->bounded) keep = static_conjuncts_hold(rc);
        if (keep && !rc->bounded) {
            rc->lhs = build_lhs(rc);
            keep = rc->lhs && fires(rc);
        }
        if (keep) {
            for (int i = 0; i < rc->nc; i++) vl_add(&kept, rc->cv[i]);
            nkept++;
        }
        int j = 0;
        while (j < nfree && ++idx[j] == cand[free_idx[j]].n) idx[j++] = 0;
        if (j >= nfree) break;
    }
    for (int i = 0; i < rc->nc; i++) vl_free(&cand[i]);

    /* run them: FULL_COMBOS of them, spread over the list, get the full treatment and the
       10,240 random inputs between them; the others a reduced one (inputs_full) */
    enum { FULL_COMBOS = 16 };
    int nfull = nkept < FULL_COMBOS ? nkept : FULL_COMBOS;
    int nrandom = nfull ? (10240 / nfull + 255) / 256 * 256 : 0;
    bool *full = calloc((size_t)nkept + 1, 1);
    TINE_ASSERT(full != NULL);
    for (int j = 0; j < nfull; j++) full[nfull > 1 ? (int)((long)j * (nkept - 1) / (nfull - 1)) : 0] = true;
    for (int c = 0; c < nkept; c++) {
        rc->cset = 0;
        for (int i = 0; i < rc->nc; i++) {
            rc->cv[i] = kept.v[c * rc->nc + i];
            rc->cset |= 1u << i;
        }
        if (rc->bounded) { /* fresh variables: no range is given to them yet */
            snprintf(suffix, sizeof suffix, "_%d_%d", ti, c);
            make_vars(rc, suffix);
        }
        rc->lhs = build_lhs(rc);
        if (!rc->lhs) continue;
        rc->env = tine_env_new(ctx);
        if (rc->bounded) {
            bounded_combo(rc, full[c]);
        } else if (fires(rc)) {
            rc->fired++;
            inputs_full(rc, full[c] ? nrandom : 256, !full[c]);
            check_lifter(rc);
        } else {
            fail("rule %s (T = %s): a kept constant combination no longer fires", ra->name, rc->T);
        }
        tine_env_free(rc->env);
        rc->env = NULL;
    }
    vl_free(&kept);
    free(full);

    /* verdicts */
    if (verbose)
        printf("    %s T = %s: %d constant combinations, %ld fired, %ld inputs, ranges %ld true / %ld false\n", ra->name,
               rc->T, nkept, rc->fired, rc->tuples, rc->range_true, rc->range_false);
    TOT.insts++;
    TOT.combos += nkept;
    TOT.tuples += rc->tuples;
    TOT.mismatches += rc->mismatches;
    TOT.rhs_fail += rc->rhs_fail;
    TOT.range_true += rc->range_true;
    TOT.range_false += rc->range_false;
    if (wild_bits(rc) <= 16 && nkept) TOT.exhaustive_insts++;
    if (rc->inst->rhs_order) TOT.templated_insts++;
    if (rc->mismatches)
        fail("rule %s (T = %s) is not exact: %ld of %ld inputs differ; first: %s", ra->name, rc->T, rc->mismatches,
             rc->tuples, rc->first);
    if (rc->inconsistent)
        fail("rule %s (T = %s): %ld inconsistencies in deciding whether it fires; first: %s", ra->name, rc->T,
             rc->inconsistent, rc->cfirst);
    if (rc->lifter_bad)
        fail("rule %s (T = %s): %ld problems with tine_rules_try on its instantiated left side; first: %s", ra->name,
             rc->T, rc->lifter_bad, rc->lfirst);
    if (rc->fired) {
        TOT.fired_insts++;
        pass();
    } else {
        fail("rule %s (T = %s) never fires in this test (%d constant combinations kept, %ld (range, predicate) "
             "cases true, %ld false): it is untested",
             ra->name, rc->T, nkept, rc->range_true, rc->range_false);
    }
    if (rc->bounded) {
        if (rc->range_false) pass();
        else fail("rule %s (T = %s): no range made its predicate false; the boundary is not exercised", ra->name,
                  rc->T);
    }
    free(rc);
}

/* ---- lowering rules over horizontal sums ------------------------------------------------
 *
 * A pattern with vector_reduce_add matches sums of any number of lanes (patterns are
 * lane-agnostic); the right side's type decides which apply (psadbw sums 8 lanes). The
 * generic test instantiates every node at one lane count, so these rules get their own:
 * for each reduction factor F in 2, 4, 8, 16 the pattern is built with the lanes it
 * implies (the root at 64 / F), the rule alone (compiled from its own text) rewrites it
 * or not, and where it does both sides must agree on every pair of 8-bit operands (or
 * on edge and random inputs). Some factor must fire. A pattern that deinterleaves (the
 * pairwise min and max) is built the same way, its operand at n times its lanes. */
static bool has_reduce(const tine_expr_t *e) {
    if (e->op == TINE_OP_VECTOR_REDUCE_ADD || e->op == TINE_OP_DEINTERLEAVE) return true;
    for (int i = 0; i < e->nops; i++)
        if (has_reduce(e->ops[i])) return true;
    return false;
}

static void test_reduce_rule(tine_ctx_t *ctx, const tine_rule *rule, const char *text) {
    /* the rule's own lines, compiled alone */
    const char *src = rule->ast.src->text;
    const char *b = src;
    for (int l = 1; l < rule->ast.line && *b; b++)
        if (*b == '\n') l++;
    const char *e = b;
    for (int l = rule->ast.line; l <= rule->ast.end_line && *e; e++)
        if (*e == '\n') l++;
    char *one = malloc((size_t)(e - b) + 1);
    memcpy(one, b, (size_t)(e - b));
    one[e - b] = 0;
    tine_ruleset_t *rs1 = tine_rules_compile_kind(ctx, one, "<rule>", true);
    free(one);
    (void)text;
    if (!rs1) {
        fail("rule %s: does not compile alone: %s", rule->ast.name, tine_error(ctx));
        return;
    }
    for (int ti = 0; ti < rule->ninst; ti++) {
        const tine_expr_t *lhs = rs1->rules[0].inst[ti].lhs;
        uint32_t n;
        tine_expr_t **order = tine_topo(ctx, lhs, &n);
        int fired = 0;
        for (int F = 2; F <= 16; F *= 2) {
            int *lanes = calloc(n, sizeof *lanes);
            bool consistent = true;
            lanes[n - 1] = 64 / F;
            for (uint32_t k = n; k-- > 0;) {
                const tine_expr_t *x = order[k];
                if (!lanes[k]) lanes[k] = -1; /* unreachable: cannot happen in a tree walk */
                for (int i = 0; i < x->nops; i++) {
                    uint32_t c = tine_topo_index(order, n, x->ops[i]);
                    int want = x->op == TINE_OP_VECTOR_REDUCE_ADD ? lanes[k] * F : lanes[k];
                    if (x->op == TINE_OP_DEINTERLEAVE) { /* pairwise patterns: its operand has n times its lanes */
                        int dn, dk;
                        tine_deinterleave_params(x, &dn, &dk);
                        want = lanes[k] * dn;
                    }
                    if (lanes[c] && lanes[c] != want) consistent = false;
                    lanes[c] = want;
                }
            }
            tine_expr_t **map = calloc(n, sizeof *map), *vars[16];
            int nv = 0;
            for (uint32_t k = 0; k < n && consistent; k++) {
                const tine_expr_t *x = order[k];
                tine_type_t t = tine_type_with_lanes(x->type, lanes[k]);
                if (is_wild(x) && !is_cwild(x)) {
                    char name[64];
                    snprintf(name, sizeof name, "%s_%d", tine_expr_name(x) + 1, F);
                    map[k] = vars[nv++] = tine_var(ctx, name, t);
                } else if (x->op == TINE_OP_CONST || is_cwild(x)) {
                    consistent = false; /* the reduction rules have no constants */
                } else {
                    tine_expr_t *ops[8];
                    for (int i = 0; i < x->nops; i++) ops[i] = map[tine_topo_index(order, n, x->ops[i])];
                    map[k] = tine_make(ctx, (tine_op_t)x->op, t, x->nops, ops, x->imm, x->flags, NULL, 0);
                }
            }
            tine_expr_t *subject = consistent ? map[n - 1] : NULL;
            const tine_rule *used;
            tine_expr_t *r = subject ? tine_rules_try(ctx, rs1, subject, &used) : NULL;
            if (r) {
                fired++;
                long bad = 0, tuples = 0;
                for (int v = 0; v < 2048 && bad == 0; v++) {
                    tine_env_t *env = tine_env_new(ctx);
                    for (int i = 0; i < nv; i++) {
                        tine_type_t t = tine_expr_type(vars[i]);
                        tine_u128 vals[TINE_MAX_LANES];
                        for (int l = 0; l < t.lanes; l++) {
                            tine_i128 x;
                            if (t.bits == 8 && nv == 2 && v < 1024) /* every pair of 8-bit values */
                                x = (tine_i128)((((unsigned)v * 64u + (unsigned)l) >> (i ? 8 : 0)) & 255u);
                            else
                                x = rand_val(t);
                            vals[l] = tine_canon(t, (tine_u128)x);
                        }
                        tine_env_bind128(env, vars[i], vals);
                    }
                    tine_u128 a[TINE_MAX_LANES], bb[TINE_MAX_LANES];
                    if (tine_eval128(ctx, subject, env, a) || tine_eval128(ctx, r, env, bb)) {
                        fail("rule %s: evaluation failed: %s", rule->ast.name, tine_error(ctx));
                        bad++;
                    }
                    for (int l = 0; l < tine_expr_type(subject).lanes && !bad; l++)
                        if (a[l] != bb[l]) {
                            bad++;
                            fail("rule %s (sums of %d lanes): lane %d differs, left %s, right %s", rule->ast.name, F,
                                 l, istr((tine_i128)a[l], (char[48]){0}), istr((tine_i128)bb[l], (char[48]){0}));
                        }
                    tuples += tine_expr_type(subject).lanes;
                    tine_env_free(env);
                }
                check(bad == 0, "rule %s (sums of %d lanes): %ld tuples", rule->ast.name, F, tuples);
                TOT.fired_insts++;
            }
            free(map);
            free(lanes);
        }
        TOT.insts++;
        check(fired > 0, "rule %s: no reduction factor makes it fire; it is untested", rule->ast.name);
        free(order);
    }
    tine_rules_free(rs1);
}

/* The built-in lift rules, or (--rules FILE, to try the test on altered rules) a file's. */
static const char *rules_text;
static bool lowering;              /* --lower: a description's lowering rules instead */
static const char *lower_isa = "x86"; /* --isa: which */
static tine_ruleset_t *rules_in(tine_ctx_t *ctx, tine_ruleset_t **own) {
    *own = NULL;
    if (!rules_text) return lowering ? tine_lower_rules(ctx, lower_isa) : tine_lift_rules(ctx);
    *own = tine_rules_compile_kind(ctx, rules_text, "<--rules>", lowering);
    if (!*own) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        exit(2);
    }
    return *own;
}

static void test_rules_soundness(const char *only) {
    double t0 = now();
    tine_ctx_t *ctx0 = tine_ctx_new();
    tine_ruleset_t *own0, *rs0 = rules_in(ctx0, &own0);
    int nrules = tine_rules_count(rs0);
    if (nrules > 0) pass();
    else fail("the lift rules hold no rule");
    int tested = 0;
    for (int r = 0; r < nrules; r++) {
        const char *name;
        tine_rule_info(rs0, r, &name, NULL, NULL, NULL);
        if (only && strcmp(only, name)) continue;
        /* a context of its own: the ranges and nodes of one rule stay with it */
        tine_ctx_t *ctx = tine_ctx_new();
        tine_ruleset_t *own, *rs = rules_in(ctx, &own);
        const tine_rule *rule = &rs->rules[r];
        long t0r = TOT.range_true, f0r = TOT.range_false, b0 = TOT.batches;
        double tr = now();
        if (rule->ninst && has_reduce(rule->inst[0].lhs)) test_reduce_rule(ctx, rule, rules_text);
        else
            for (int ti = 0; ti < rule->ninst; ti++) test_inst(ctx, rs, rule, ti);
        if (asks_bounds(rule->ast.pred))
            printf("  bounds-predicated rule %-30s (range, predicate) cases: %ld true, %ld false\n", rule->ast.name,
                   TOT.range_true - t0r, TOT.range_false - f0r);
        tested++;
        tine_rules_free(own);
        if (verbose) printf("  %-30s %d inst, %ld batches, %.2f s\n", rule->ast.name, rule->ninst, TOT.batches - b0, now() - tr);
        tine_ctx_free(ctx);
    }
    if (only && !tested) fail("no lift rule is named '%s'", only);
    tine_rules_free(own0);
    tine_ctx_free(ctx0);
    printf("part 1: %d rules, %ld instantiations (%ld fire in the test, %ld with exhaustive inputs, %ld with a "
           "prebuilt right side), %ld constant combinations, %ld inputs in %ld batches of %d lanes, %ld mismatches, "
           "%ld tine_rules_try cross-checks, (range, predicate) cases %ld true / %ld false, %.1f s\n",
           tested, TOT.insts, TOT.fired_insts, TOT.exhaustive_insts, TOT.templated_insts, TOT.combos, TOT.tuples,
           TOT.batches, g_lanes,
           TOT.mismatches, TOT.lifter_checks, TOT.range_true, TOT.range_false, now() - t0);
}

/* ==== part 2: bounds soundness ============================================================== */

enum { NBUF = 64 };

typedef struct {
    tine_ctx_t *ctx;
    /* variables given a range in the current expression */
    const tine_expr_t *rv[64];
    tine_i128 rlo[64], rhi[64];
    int nr;
    uint8_t mem[8][NBUF * 8]; /* one buffer per integer type, "m" + type name */
    long op_count[TINE_OP_COUNT];
    long failed_builds;
} gstate;

static tine_type_t rand_int_type(int lanes) { return tine_type_with_lanes(ITYPES[rnd() % 8], lanes); }

static tine_expr_t *gen(gstate *g, tine_type_t t, int depth);

static tine_expr_t *built(gstate *g, tine_expr_t *e, const char *what) {
    if (!e) {
        g->failed_builds++;
        fail("bounds generator: %s was refused: %s", what, tine_error(g->ctx));
        tine_clear_error(g->ctx);
    }
    return e;
}

static tine_expr_t *gen_leaf(gstate *g, tine_type_t t) {
    tine_ctx_t *ctx = g->ctx;
    tine_type_t one = tine_type_with_lanes(t, 1);
    if (rnd() % 3 == 0) {
        if (t.lanes > 1 && rnd() % 3 == 0) {
            tine_u128 v[TINE_MAX_LANES];
            for (int i = 0; i < t.lanes; i++) v[i] = (tine_u128)rand_val(one);
            return tine_const_u128(ctx, t, v);
        }
        return tine_const_splat(ctx, t, (tine_u128)rand_val(one));
    }
    bool ranged = rnd() & 1;
    char name[8];
    snprintf(name, sizeof name, "%c%d", ranged ? 'r' : 'p', (int)(rnd() % 3));
    tine_expr_t *v = tine_var(ctx, name, t);
    if (ranged) {
        for (int i = 0; i < g->nr; i++)
            if (g->rv[i] == v) return v;
        if (g->nr == 64) return tine_var(ctx, "p0", t);
        tine_i128 mx = settable_max(one), a = rand_val(one), b;
        if (a > mx) a = mx;
        b = (rnd() & 1) ? rand_val(one) : a + (tine_i128)(rnd() % 20);
        if (b > mx) b = mx;
        if (a > b) {
            tine_i128 s = a;
            a = b;
            b = s;
        }
        if (tine_bounds_set_var(ctx, v, (int64_t)a, (int64_t)b) != 0) {
            fail("tine_bounds_set_var refused a range inside the type: %s", tine_error(ctx));
            tine_clear_error(ctx);
        }
        g->rv[g->nr] = v;
        g->rlo[g->nr] = a;
        g->rhi[g->nr++] = b;
    }
    return v;
}

static tine_expr_t *gen_bool(gstate *g, int lanes, int depth) {
    tine_ctx_t *ctx = g->ctx;
    if (depth > 0 && rnd() % 4 == 0) {
        tine_expr_t *a = gen_bool(g, lanes, depth - 1);
        if (rnd() % 4 == 0) return built(g, tine_unary(ctx, TINE_OP_NOT, a), "not of a bool");
        static const tine_op_t lop[] = {TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        return built(g, tine_binary(ctx, lop[rnd() % 3], a, gen_bool(g, lanes, depth - 1)), "a logical op");
    }
    static const tine_op_t cmp[] = {TINE_OP_EQ, TINE_OP_NE, TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE};
    tine_type_t t = rand_int_type(lanes);
    int d = depth > 0 ? depth - 1 : 0;
    return built(g, tine_binary(ctx, cmp[rnd() % 6], gen(g, t, d), gen(g, t, d)), "a comparison");
}

/* A shift amount for a value of type t: same bits, either signedness, often small. */
static tine_expr_t *gen_amount(gstate *g, tine_type_t t, int depth) {
    tine_type_t st = tine_type_with_kind(t, (rnd() & 1) ? TINE_INT : TINE_UINT);
    if (rnd() % 2) {
        tine_i128 v = (tine_i128)(rnd() % (unsigned)(2 * t.bits + 6)) - 3;
        if (st.kind == TINE_UINT && v < 0) v = -v;
        return tine_const_splat(g->ctx, st, (tine_u128)wrap(tine_type_with_lanes(st, 1), v));
    }
    return gen(g, st, depth);
}

enum {
    P_BIN, P_SHIFT, P_UNARY, P_SELECT, P_CAST, P_CAST_BOOL, P_REINT, P_BCAST, P_RAMP, P_CONCAT, P_INTERLEAVE,
    P_SLICE, P_DEINT, P_REDUCE, P_LOAD, P_WIDEN2, P_WSUB, P_WSHIFT, P_EXTEND, P_ABS, P_ABSD, P_SATCAST,
    P_SATNARROW, P_SAME2, P_SHIFT2, P_MULSHR, P_INSN, P_REPACK, P_COUNT
};

/* The element bits other than `bits` whose lanes hold lanes * bits bits in at most
 * TINE_MAX_LANES lanes (the operands of a reinterpret to that many lanes of `bits`). */
static int repack_sources(int lanes, int bits, int *out) {
    int n = 0;
    for (int b = 8; b <= 64; b *= 2)
        if (b != bits && (lanes * bits) % b == 0 && lanes * bits / b <= TINE_MAX_LANES) {
            if (out) out[n] = b;
            n++;
        }
    return n;
}

static tine_expr_t *gen(gstate *g, tine_type_t t, int depth) {
    tine_ctx_t *ctx = g->ctx;
    if (depth <= 0 || rnd() % 5 == 0) return gen_leaf(g, t);
    int L = t.lanes, d = depth - 1;
    tine_type_t one = tine_type_with_lanes(t, 1);
    tine_type_t half = tine_type_narrow(t); /* invalid for 8 bits */
    bool sgn = t.kind == TINE_INT;
    int choices[P_COUNT], nch = 0;
    for (int p = 0; p < P_COUNT; p++) {
        bool okp = true;
        switch (p) {
        case P_BCAST: case P_RAMP: okp = L > 1; break;
        case P_CONCAT: case P_INTERLEAVE: okp = L % 2 == 0; break;
        case P_SLICE: case P_DEINT: case P_REDUCE: okp = 2 * L <= TINE_MAX_LANES; break;
        case P_WIDEN2: case P_WSHIFT: case P_EXTEND: okp = t.bits >= 16; break;
        case P_WSUB: okp = t.bits >= 16 && sgn; break;
        case P_ABS: case P_ABSD: okp = !sgn; break;
        case P_SATNARROW: okp = t.bits <= 32; break;
        case P_REPACK: okp = repack_sources(L, t.bits, NULL) > 0; break;
        default: break;
        }
        if (okp) choices[nch++] = p;
    }
    tine_expr_t *a, *args[3];
    tine_op_t op;
    switch (choices[rnd() % (unsigned)nch]) {
    case P_BIN: {
        static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                        TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        op = ops[rnd() % 10];
        return built(g, tine_binary(ctx, op, gen(g, t, d), gen(g, t, d)), tine_op_name(op));
    }
    case P_SHIFT:
        op = (rnd() & 1) ? TINE_OP_SHL : TINE_OP_SHR;
        return built(g, tine_binary(ctx, op, gen(g, t, d), gen_amount(g, t, d)), tine_op_name(op));
    case P_UNARY:
        op = (rnd() & 1) ? TINE_OP_NEG : TINE_OP_NOT;
        return built(g, tine_unary(ctx, op, gen(g, t, d)), tine_op_name(op));
    case P_SELECT: return built(g, tine_select(ctx, gen_bool(g, L, d), gen(g, t, d), gen(g, t, d)), "select");
    case P_CAST: return built(g, tine_cast(ctx, one, gen(g, rand_int_type(L), d)), "cast");
    case P_CAST_BOOL: return built(g, tine_cast(ctx, one, gen_bool(g, L, d)), "cast of a bool");
    case P_REINT:
        return built(g, tine_reinterpret(ctx, one, gen(g, tine_type_with_kind(t, sgn ? TINE_UINT : TINE_INT), d)),
                     "reinterpret");
    case P_BCAST: return built(g, tine_broadcast(ctx, gen(g, one, d), L), "broadcast");
    case P_RAMP: return built(g, tine_ramp(ctx, gen(g, one, d), gen(g, one, d), L), "ramp");
    case P_CONCAT: {
        tine_expr_t *v[2] = {gen(g, tine_type_with_lanes(t, L / 2), d), gen(g, tine_type_with_lanes(t, L / 2), d)};
        return built(g, tine_concat(ctx, 2, v), "concat");
    }
    case P_INTERLEAVE: {
        tine_expr_t *v[2] = {gen(g, tine_type_with_lanes(t, L / 2), d), gen(g, tine_type_with_lanes(t, L / 2), d)};
        return built(g, tine_interleave(ctx, 2, v), "interleave");
    }
    case P_SLICE: {
        a = gen(g, tine_type_with_lanes(t, 2 * L), d);
        bool strided = rnd() & 1;
        return built(g, strided ? tine_slice(ctx, a, (int)(rnd() % 2), 2, L) : tine_slice(ctx, a, (int)(rnd() % (unsigned)(L + 1)), 1, L),
                     "slice");
    }
    case P_DEINT:
        return built(g, tine_deinterleave(ctx, gen(g, tine_type_with_lanes(t, 2 * L), d), 2, (int)(rnd() % 2)),
                     "deinterleave");
    case P_REDUCE:
        return built(g, tine_vector_reduce_add(ctx, gen(g, tine_type_with_lanes(t, 2 * L), d), L), "vector_reduce_add");
    case P_LOAD: {
        tine_u128 idx[TINE_MAX_LANES];
        for (int i = 0; i < L; i++) idx[i] = rnd() % NBUF;
        tine_expr_t *ix = tine_const_u128(ctx, tine_type(TINE_INT, 32, L), idx);
        char nm[8], tb[16];
        snprintf(nm, sizeof nm, "m%s", tine_type_name(one, tb));
        return built(g, tine_load(ctx, nm, one, ix), "load");
    }
    case P_WIDEN2: { /* widening_add / widening_mul (either signedness when the result is signed) */
        bool mul = rnd() & 1;
        tine_type_t ta = half, tb = half;
        if (mul && sgn && rnd() % 3) {
            if (rnd() & 1) ta = tine_type_with_kind(half, TINE_UINT);
            else tb = tine_type_with_kind(half, TINE_UINT);
        }
        args[0] = gen(g, ta, d);
        args[1] = gen(g, tb, d);
        op = mul ? TINE_OP_WIDENING_MUL : TINE_OP_WIDENING_ADD;
        return built(g, tine_fpir(ctx, op, 2, args, one), tine_op_name(op));
    }
    case P_WSUB: {
        tine_type_t h = tine_type_with_kind(half, (rnd() & 1) ? TINE_INT : TINE_UINT);
        args[0] = gen(g, h, d);
        args[1] = gen(g, h, d);
        return built(g, tine_fpir(ctx, TINE_OP_WIDENING_SUB, 2, args, one), "widening_sub");
    }
    case P_WSHIFT:
        op = (rnd() & 1) ? TINE_OP_WIDENING_SHL : TINE_OP_WIDENING_SHR;
        args[0] = gen(g, half, d);
        args[1] = gen_amount(g, half, d);
        return built(g, tine_fpir(ctx, op, 2, args, one), tine_op_name(op));
    case P_EXTEND: {
        static const tine_op_t ops[] = {TINE_OP_EXTENDING_ADD, TINE_OP_EXTENDING_SUB, TINE_OP_EXTENDING_MUL};
        op = ops[rnd() % 3];
        args[0] = gen(g, t, d);
        args[1] = gen(g, tine_type_with_kind(half, (rnd() & 1) ? TINE_INT : TINE_UINT), d);
        return built(g, tine_fpir(ctx, op, 2, args, one), tine_op_name(op));
    }
    case P_ABS:
        args[0] = gen(g, tine_type_with_kind(t, (rnd() & 1) ? TINE_INT : TINE_UINT), d);
        return built(g, tine_fpir(ctx, TINE_OP_ABS, 1, args, one), "abs");
    case P_ABSD: {
        tine_type_t h = tine_type_with_kind(t, (rnd() & 1) ? TINE_INT : TINE_UINT);
        args[0] = gen(g, h, d);
        args[1] = gen(g, h, d);
        return built(g, tine_fpir(ctx, TINE_OP_ABSD, 2, args, one), "absd");
    }
    case P_SATCAST:
        args[0] = gen(g, rand_int_type(L), d);
        return built(g, tine_fpir(ctx, TINE_OP_SATURATING_CAST, 1, args, one), "saturating_cast");
    case P_SATNARROW:
        args[0] = gen(g, tine_type_widen(t), d);
        return built(g, tine_fpir(ctx, TINE_OP_SATURATING_NARROW, 1, args, one), "saturating_narrow");
    case P_SAME2: {
        static const tine_op_t ops[] = {TINE_OP_SATURATING_ADD, TINE_OP_SATURATING_SUB, TINE_OP_HALVING_ADD,
                                        TINE_OP_HALVING_SUB, TINE_OP_ROUNDING_HALVING_ADD};
        op = ops[rnd() % 5];
        args[0] = gen(g, t, d);
        args[1] = gen(g, t, d);
        return built(g, tine_fpir(ctx, op, 2, args, one), tine_op_name(op));
    }
    case P_SHIFT2: {
        static const tine_op_t ops[] = {TINE_OP_ROUNDING_SHR, TINE_OP_ROUNDING_SHL, TINE_OP_SATURATING_SHL};
        op = ops[rnd() % 3];
        args[0] = gen(g, t, d);
        args[1] = gen_amount(g, t, d);
        return built(g, tine_fpir(ctx, op, 2, args, one), tine_op_name(op));
    }
    case P_MULSHR: {
        op = t.bits <= 32 && (rnd() & 1) ? TINE_OP_ROUNDING_MUL_SHR : TINE_OP_MUL_SHR;
        args[0] = gen(g, t, d);
        args[1] = gen(g, t, d);
        tine_type_t ut = tine_type_with_kind(t, TINE_UINT);
        args[2] = rnd() % 2 ? tine_const_splat(ctx, ut, rnd() % (unsigned)(2 * t.bits + 3)) : gen(g, ut, d);
        return built(g, tine_fpir(ctx, op, 3, args, one), tine_op_name(op));
    }
    case P_REPACK: { /* a reinterpret from lanes of other bits (u8x16 -> u16x8) */
        int bits[4], n = repack_sources(L, t.bits, bits), sb = bits[rnd() % (unsigned)n];
        tine_type_t s = tine_type((rnd() & 1) ? TINE_INT : TINE_UINT, sb, L * t.bits / sb);
        a = gen(g, s, d);
        return built(g, tine_bitcast(ctx, t, a), "reinterpret to other lanes");
    }
    case P_INSN: { /* an instruction with this result type, bounded through its semantics */
        const tine_isa *isa = tine_isa_get(ctx, tine_isa_name((int)(rnd() % 2)));
        int codes[64], n = 0, lanes[TINE_INSN_MAX_OPS];
        for (int k = 0; k < isa->n && n < 64; k++) {
            bool fl = false; /* the generator's values are integers */
            for (int j = 0; j < isa->insn[k].nops; j++) fl |= isa->insn[k].optype[j].kind == TINE_FLOAT;
            if (!fl && isa->insn[k].result.kind == t.kind && isa->insn[k].result.bits == t.bits &&
                tine_insn_operand_lanes(&isa->insn[k], L, lanes))
                codes[n++] = k;
        }
        if (!n) break;
        const tine_insn *in = &isa->insn[codes[rnd() % (unsigned)n]];
        tine_insn_operand_lanes(in, L, lanes);
        tine_expr_t *iv[TINE_INSN_MAX_OPS];
        for (int j = 0; j < in->nops; j++) iv[j] = gen(g, tine_type_with_lanes(in->optype[j], lanes[j]), d);
        return built(g, tine_insn_make(ctx, (uint32_t)(isa->id << 12) | (uint32_t)(in - isa->insn), in->nops, iv), in->name);
    }
    }
    return gen_leaf(g, t);
}

static bool in_bounds(tine_type_t t, tine_u128 v, tine_i128 lo, tine_i128 hi) {
    if (t.kind == TINE_UINT && t.bits == 128) return lo >= 0 && v >= (tine_u128)lo && v <= (tine_u128)hi;
    tine_i128 x = (tine_i128)v;
    return x >= lo && x <= hi;
}

static void test_bounds_random(int count) {
    double t0 = now();
    gstate *g = calloc(1, sizeof *g);
    TINE_ASSERT(g != NULL);
    long nodes_checked = 0, lanes_checked = 0, unknown = 0;
    int L_choices[] = {1, 2, 4, 8, 16, 32};
    tine_env_t *env = NULL;
    for (int n = 0; n < count; n++) {
        if (n % 500 == 0) { /* a fresh context now and then keeps tables small */
            if (env) tine_env_free(env);
            if (g->ctx) tine_ctx_free(g->ctx);
            g->ctx = tine_ctx_new();
            env = NULL;
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < NBUF * 8; j++) g->mem[i][j] = (uint8_t)rnd();
        }
        if (env) tine_env_free(env);
        env = tine_env_new(g->ctx);
        for (int i = 0; i < 8; i++) {
            char nm[8], tb[16];
            snprintf(nm, sizeof nm, "m%s", tine_type_name(ITYPES[i], tb));
            tine_env_bind_buffer(env, nm, ITYPES[i], g->mem[i], NBUF);
        }
        g->nr = 0;
        int L = L_choices[rnd() % 6];
        tine_expr_t *e = gen(g, rand_int_type(L), 1 + (int)(rnd() % 4));
        if (!e) continue;
        uint32_t cnt;
        tine_expr_t **order = tine_topo(g->ctx, e, &cnt);
        /* inputs: inside the given ranges */
        for (uint32_t k = 0; k < cnt; k++) {
            const tine_expr_t *x = order[k];
            g->op_count[x->op]++;
            if (x->op != TINE_OP_VAR) continue;
            tine_type_t one = tine_type_with_lanes(x->type, 1);
            int r = -1;
            for (int i = 0; i < g->nr; i++)
                if (g->rv[i] == x) r = i;
            tine_u128 v[TINE_MAX_LANES];
            for (int l = 0; l < x->type.lanes; l++)
                v[l] = (tine_u128)(r >= 0 ? rand_in(g->rlo[r], g->rhi[r]) : rand_val(one));
            tine_env_bind128(env, x, v);
        }
        for (uint32_t k = 0; k < cnt; k++) {
            const tine_expr_t *x = order[k];
            tine_i128 lo, hi;
            if (!tine_bounds(g->ctx, x, &lo, &hi)) {
                unknown++;
                continue;
            }
            tine_u128 v[TINE_MAX_LANES];
            if (tine_eval128(g->ctx, x, env, v) != 0) {
                fail("bounds: evaluating a generated expression failed: %s", tine_error(g->ctx));
                tine_clear_error(g->ctx);
                break;
            }
            nodes_checked++;
            bool ok = lo <= hi;
            int bad = -1;
            for (int l = 0; l < x->type.lanes && ok; l++, lanes_checked++)
                if (!in_bounds(x->type, v[l], lo, hi)) {
                    ok = false;
                    bad = l;
                }
            if (ok) {
                pass();
                continue;
            }
            char *s = tine_print(g->ctx, x), a[48], b[48], c[48];
            fail("bounds: expression %d: %s\n  bounds [%s, %s], but lane %d is %s", n, s, istr(lo, a), istr(hi, b),
                 bad, bad >= 0 ? istr((tine_i128)v[bad], c) : "(empty range)");
            for (int i = 0; i < g->nr; i++) {
                char tb[16];
                printf("  given range of %s_%s: [%s, %s]\n", tine_expr_name(g->rv[i]),
                       tine_type_name(g->rv[i]->type, tb), istr(g->rlo[i], a), istr(g->rhi[i], b));
            }
            for (uint32_t j = 0; j < cnt; j++)
                if (order[j]->op == TINE_OP_VAR) {
                    tine_u128 w[TINE_MAX_LANES];
                    char tb[16];
                    if (bad >= 0 && tine_eval128(g->ctx, order[j], env, w) == 0)
                        printf("  %s_%s lane %d = %s\n", tine_expr_name(order[j]), tine_type_name(order[j]->type, tb),
                               bad, istr((tine_i128)w[bad], a));
                }
            free(s);
        }
        free(order);
    }
    if (env) tine_env_free(env);
    /* every op usable on integers was generated */
    for (int op = 0; op < TINE_OP_COUNT; op++) {
        if (op == TINE_OP_SQRT || op == TINE_OP_FMA) continue; /* float only */
        if (g->op_count[op]) pass();
        else fail("bounds: the generator never produced op %s", tine_op_name((tine_op_t)op));
    }
    tine_ctx_free(g->ctx);
    free(g);
    printf("part 2: %d random expressions, %ld nodes with bounds checked (%ld lanes), %ld without bounds, %.1f s\n",
           count, nodes_checked, lanes_checked, unknown, now() - t0);
}

static void exact_bounds(const char *text, tine_i128 lo, tine_i128 hi) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_expr_t *e = tine_parse(ctx, text, "<exact>");
    tine_i128 a, b;
    char s1[48], s2[48], s3[48], s4[48];
    if (!e) fail("bounds of %s: does not parse: %s", text, tine_error(ctx));
    else if (!tine_bounds(ctx, e, &a, &b))
        fail("bounds of %s: none given, expected [%s, %s]", text, istr(lo, s1), istr(hi, s2));
    else if (a != lo || b != hi)
        fail("bounds of %s: [%s, %s], expected [%s, %s]", text, istr(a, s3), istr(b, s4), istr(lo, s1), istr(hi, s2));
    else pass();
    tine_ctx_free(ctx);
}

static void test_bounds_exact(void) {
    exact_bounds("u16(a_u8) + u16(b_u8)", 0, 510);
    exact_bounds("absd(a_u8, b_u8)", 0, 255);
    exact_bounds("widening_mul(a_i16, b_i16)", -1073709056, 1073741824);
    exact_bounds("saturating_cast<u8>(a_i16)", 0, 255);
    exact_bounds("a_u8 & 15", 0, 15);
    exact_bounds("widening_add(a_i8, b_i8)", -256, 254);
    exact_bounds("widening_sub(a_u8, b_u8)", -255, 255);
    exact_bounds("u8(a_u16 >> 8)", 0, 255);
    /* reinterprets to lanes of other bits (at 16 lanes): joined lanes weigh 1, 2^8 ...; a
       split value that fits one lane is lane 0, 0 in the others */
    exact_bounds("reinterpret<u16x8>(a_u8 & 15)", 0, 15 * 257);
    exact_bounds("reinterpret<u32x4>(a_u8 | 1)", 0x01010101, 0xffffffff);
    exact_bounds("reinterpret<i16x8>(a_u8 & 127)", 0, 127 * 257);
    exact_bounds("reinterpret<i16x8>(a_u8)", -32768, 32767);
    exact_bounds("reinterpret<u8x16>(a_u16x8 & 200)", 0, 200);
    exact_bounds("reinterpret<i8x16>(a_u16x8 & 200)", -128, 127);
    exact_bounds("reinterpret<u8x16>(a_u16x8 & 511)", 0, 255);
    exact_bounds("reinterpret<i16x8>(a_i8)", -32768, 32767);
    /* a supplied range */
    tine_ctx_t *ctx = tine_ctx_new();
    tine_expr_t *a = tine_var(ctx, "a", tine_type(TINE_UINT, 8, 16));
    tine_expr_t *e = tine_fpir(ctx, TINE_OP_WIDENING_ADD, 2, (tine_expr_t *[]){a, a}, a->type);
    tine_i128 lo, hi;
    if (tine_bounds_set_var(ctx, a, 10, 20) != 0 || !tine_bounds(ctx, e, &lo, &hi) || lo != 20 || hi != 40)
        fail("bounds of widening_add(a_u8, a_u8) with a in [10, 20]: expected [20, 40]");
    else pass();
    tine_ctx_free(ctx);
}

/* ==== part 3: the rule compiler's corpus ====================================================== */

typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        TINE_ASSERT(b->p != NULL);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }
static const char *sb_str(sbuf *b) { return b->p ? b->p : ""; }

/* Compiles one case's rule file; for an error case returns the message (malloc'd), for
 * a pass case checks it and returns NULL. */
static char *compile_case(const char *name, int line, const char *text, bool expect_pass, int count) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_ruleset_t *rs = tine_rules_compile(ctx, text, "<rules>");
    char *got = NULL;
    if (expect_pass) {
        if (!rs) fail("bad_rules.txt:%d: case '%s' should compile, but:\n%s", line, name, tine_error(ctx));
        else if (tine_rules_count(rs) != count)
            fail("bad_rules.txt:%d: case '%s' compiled to %d rules, expected %d", line, name, tine_rules_count(rs),
                 count);
        else {
            bool insts = true;
            for (int i = 0; i < rs->n; i++)
                if (rs->rules[i].ninst < 1) insts = false;
            if (insts) pass();
            else fail("bad_rules.txt:%d: case '%s' has a rule without instantiations", line, name);
        }
    } else if (rs) {
        got = tine_strdup("(it compiles)");
    } else {
        got = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "(no message)");
    }
    tine_rules_free(rs);
    tine_ctx_free(ctx);
    return got;
}

static void put_message(sbuf *out, const char *s) {
    for (;;) {
        const char *e = strchr(s, '\n');
        size_t k = e ? (size_t)(e - s) : strlen(s);
        sb_puts(out, k ? "| " : "|");
        sb_put(out, s, k);
        sb_puts(out, "\n");
        if (!e) break;
        s = e + 1;
    }
}

static void test_corpus(const char *path, bool bless) {
    char *data = read_file(path);
    if (!data) {
        fail("cannot read %s (run in tests/)", path);
        return;
    }
    enum { OUTSIDE, TEXT, EXPECT } state = OUTSIDE;
    sbuf out = {0}, text = {0}, expected = {0};
    char name[256] = "", *got = NULL;
    int lineno = 0, case_line = 0, nerr = 0, npass = 0;
    /* an error case is compared when its expected lines end: at the next "==" line or at
       the end of the file */
    for (char *p = data; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)(len < 4095 ? len : 4095), p);
        lineno++;
        bool keep = true, header = !strncmp(line, "== ", 3);
        if (header && state == EXPECT) {
            if (!strcmp(got, sb_str(&expected))) pass();
            else fail("bad_rules.txt:%d: case '%s' gives\n%s\nexpected\n%s", case_line, name, got, sb_str(&expected));
            free(got);
            got = NULL;
        }
        if (header) {
            if (state == TEXT) fail("bad_rules.txt:%d: case '%s' has no '-- error' or '-- pass N' line", lineno, name);
            snprintf(name, sizeof name, "%.200s", line + 3);
            case_line = lineno;
            text.n = expected.n = 0;
            sb_puts(&text, "");
            sb_puts(&expected, "");
            state = TEXT;
        } else if (state == TEXT) {
            if (!strcmp(line, "-- error")) {
                got = compile_case(name, case_line, sb_str(&text), false, 0);
                nerr++;
                state = EXPECT;
                if (bless) { /* the message goes right below */
                    sb_put(&out, p, len);
                    sb_puts(&out, "\n");
                    put_message(&out, got);
                    keep = false;
                }
            } else if (!strncmp(line, "-- pass ", 8)) {
                compile_case(name, case_line, sb_str(&text), true, atoi(line + 8));
                npass++;
                state = OUTSIDE;
            } else {
                sb_puts(&text, line);
                sb_puts(&text, "\n");
            }
        } else if (line[0] == '|') {
            if (state != EXPECT) fail("bad_rules.txt:%d: an expected message line outside an error case", lineno);
            if (expected.n) sb_puts(&expected, "\n");
            sb_puts(&expected, line[1] == ' ' ? line + 2 : line + 1);
            keep = !bless;
        } else if (line[0] && line[0] != '#') {
            fail("bad_rules.txt:%d: unexpected line outside a case: %s", lineno, line);
        }
        if (keep) {
            sb_put(&out, p, len);
            sb_puts(&out, "\n");
        }
        p = nl ? nl + 1 : p + len;
    }
    if (state == EXPECT) {
        if (!strcmp(got, sb_str(&expected))) pass();
        else fail("bad_rules.txt:%d: case '%s' gives\n%s\nexpected\n%s", case_line, name, got, sb_str(&expected));
    }
    free(got);
    if (state == TEXT) fail("bad_rules.txt: the last case '%s' has no '-- error' or '-- pass N' line", name);
    if (nerr >= 25) pass();
    else fail("bad_rules.txt has %d error cases; at least 25 are wanted", nerr);
    if (npass >= 5) pass();
    else fail("bad_rules.txt has %d pass cases; at least 5 are wanted", npass);
    if (bless) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out.p, 1, out.n, f) != out.n) fail("cannot write %s", path);
        if (f) fclose(f);
        printf("blessed %s\n", path);
    }
    printf("part 3: %d error cases, %d pass cases\n", nerr, npass);
    free(out.p);
    free(text.p);
    free(expected.p);
    free(data);
}

/* Rule files too large for the corpus, made here: each once crashed the compiler (a
 * recursive walk of a chain as long as the input) or took minutes (all pairs of 16,000
 * rules compared); each must now compile, or be refused with a located limit, in seconds.
 * The first line of a refusal, or NULL for a file that must compile to `count` rules. */
static void large_case(const char *what, const char *text, const char *first_line, int count) {
    tine_ctx_t *ctx = tine_ctx_new();
    clock_t c0 = clock(); /* the processor's time: a loaded machine does not fail this */
    tine_ruleset_t *rs = tine_rules_compile(ctx, text, "<rules>");
    double dt = (double)(clock() - c0) / CLOCKS_PER_SEC;
    const char *e = tine_error(ctx) ? tine_error(ctx) : "";
    if (!first_line) {
        if (rs && tine_rules_count(rs) == count) pass();
        else fail("%s: should compile to %d rules, got %d: %.300s", what, count, rs ? tine_rules_count(rs) : -1, e);
    } else if (rs) {
        fail("%s: compiles; expected the error '%s'", what, first_line);
    } else if (strncmp(e, first_line, strlen(first_line)) || e[strlen(first_line)] != '\n') {
        fail("%s: the message starts '%.300s'; expected '%s'", what, e, first_line);
    } else {
        pass();
    }
    /* a generous bound (the sanitizer build): before, minutes */
    if (dt < 20) pass();
    else fail("%s: %.1f s of processor time to compile", what, dt);
    printf("  %s: %.2f s of processor time\n", what, dt);
    tine_rules_free(rs);
    tine_ctx_free(ctx);
}

/* A pattern's reinterpret keeps the bits of its operand's lanes: it matches a term's
 * reinterpret at equal lanes (u8x16 to i8x16) and never one to lanes of other bits (u8x16 to
 * i16x8), whose operand has another element, whatever T the rule is tried at. */
static void test_repack_match(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    /* lowering rules: no lifting cost to lower; the right sides only say the rule fired */
    const char *text = "ri: reinterpret<signed(T)>(x:T) -> reinterpret<signed(T)>(x) ^ 1  # the test's marker\n"
                       "ra: reinterpret<signed(T)>(x:T + y:T) -> reinterpret<signed(T)>(x + y) ^ 1  # marker\n";
    tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text, "<rules>", true);
    if (!rs) {
        fail("repack match: the rules do not compile: %s", tine_error(ctx));
        tine_ctx_free(ctx);
        return;
    }
    tine_type_t u8x16 = tine_type(TINE_UINT, 8, 16), i16x8 = tine_type(TINE_INT, 16, 8);
    tine_expr_t *a = tine_var(ctx, "a", u8x16), *b = tine_var(ctx, "b", u8x16), *sum = tine_binary(ctx, TINE_OP_ADD, a, b);
    const tine_rule *used = NULL;
    struct {
        const char *what;
        tine_expr_t *e;
        const char *rule; /* NULL: none may fire; "*": either */
    } cases[] = {
        {"reinterpret<i8>(a_u8x16)", tine_reinterpret(ctx, tine_type(TINE_INT, 8, 1), a), "ri"},
        {"reinterpret<i8>(a_u8x16 + b_u8x16)", tine_reinterpret(ctx, tine_type(TINE_INT, 8, 1), sum), "*"},
        {"reinterpret<i16x8>(a_u8x16)", tine_bitcast(ctx, i16x8, a), NULL},
        {"reinterpret<i16x8>(a_u8x16 + b_u8x16)", tine_bitcast(ctx, i16x8, sum), NULL},
        {"reinterpret<i32x4>(a_u8x16)", tine_bitcast(ctx, tine_type(TINE_INT, 32, 4), a), NULL},
        {"reinterpret<i8x32>(a_u16x16)", tine_bitcast(ctx, tine_type(TINE_INT, 8, 32), tine_var(ctx, "a", tine_type(TINE_UINT, 16, 16))), NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tine_expr_t *r = cases[i].e ? tine_rules_try(ctx, rs, cases[i].e, &used) : NULL;
        const char *name = r && used ? used->ast.name : NULL;
        if (!cases[i].e) fail("repack match: %s: not built: %s", cases[i].what, tine_error(ctx));
        else if (cases[i].rule ? !name || (strcmp(cases[i].rule, "*") && strcmp(name, cases[i].rule)) : r != NULL)
            fail("repack match: %s: %s fired, expected %s", cases[i].what, name ? name : "no rule",
                 cases[i].rule ? cases[i].rule : "none");
        else pass();
    }
    tine_rules_free(rs);
    tine_ctx_free(ctx);
}

static void test_large_files(void) {
    enum { TERMS = 200000, RULES = 16000 };
    sbuf t = {0};
    char b[160];
    /* a condition of 200,000 conjuncts: a list of conditions, compiled (at one type: each
       instantiation would evaluate them all) */
    sb_puts(&t, "big: (x:u16 + c0) - c0 -> x if ");
    for (int i = 0; i < TERMS; i++) {
        snprintf(b, sizeof b, "%sc0 > %d", i ? " && " : "", -10 - i % 7);
        sb_puts(&t, b);
    }
    sb_puts(&t, "  # the same constant added and taken away\n");
    large_case("a condition of 200,000 conjuncts", sb_str(&t), NULL, 1);
    /* a chain of 200,000 terms as a pattern, or as one condition: the depth limit */
    t.n = 0;
    sb_puts(&t, "big: x:T");
    for (int i = 1; i < TERMS; i++) sb_puts(&t, " + x");
    sb_puts(&t, " -> x  # (not a rule: never compiled this far)\n");
    large_case("a left side of 200,000 terms", sb_str(&t),
               "<rules>:1:6: the left side of rule 'big' nests more than 256 deep (a chain a + b + c ... counts a "
               "level per operator)",
               0);
    t.n = 0;
    sb_puts(&t, "big: x:T / c0 -> x >> log2(c0) if is_pow2(c0) && (c0 == 1");
    for (int i = 1; i < TERMS; i++) sb_puts(&t, " || c0 == 2");
    sb_puts(&t, ")  # floor division by 2^k is the shift\n");
    large_case("a condition of 200,000 alternatives", sb_str(&t),
               "<rules>:1:51: the condition of rule 'big' nests more than 256 deep (a chain a + b + c ... counts a "
               "level per operator)",
               0);
    /* 16,000 rules of one root op, told apart by constants beside an operand or below
       one: compared only where they can conflict; a conflict among them is still found,
       with the earliest rule it conflicts with */
    t.n = 0;
    for (int i = 1; i <= RULES; i++) {
        if (i % 2) snprintf(b, sizeof b, "r%d: (x:T + %d) - %d -> x  # adding and taking away %d cancel\n", i, i, i, i);
        else snprintf(b, sizeof b, "r%d: (x:T - %d) - (y:T - %d) -> x - y  # %d taken from both cancels\n", i, i, i, i);
        sb_puts(&t, b);
    }
    large_case("16,000 rules", sb_str(&t), NULL, RULES);
    size_t base = t.n;
    sb_puts(&t, "twin: (x:T + 77) - 77 -> x  # as r77\n");
    large_case("16,000 rules and a twin", sb_str(&t),
               "<rules>:16001:1: rule 'twin' has the same left side and condition as 'r77' (line 77)", 0);
    t.n = base;
    sb_puts(&t, "general: (x:T + 9000) - c0 -> x + (9000 - c0)  # reassociated\n");
    large_case("16,000 rules and an overlap", sb_str(&t),
               "<rules>:16001:1: rule 'general' overlaps rule 'r1' (line 1) at equal priority 0 (both can match a term "
               "with T = u16); give one a higher priority",
               0);
    free(t.p);
}

int main(int argc, char **argv) {
    bool bless = false;
    const char *only = NULL;
    int part = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bless")) bless = true;
        else if (!strcmp(argv[i], "--rule") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--part") && i + 1 < argc) part = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--lower")) lowering = true, g_lanes = 64;
        else if (!strcmp(argv[i], "--isa") && i + 1 < argc) lower_isa = argv[++i];
        else if (!strcmp(argv[i], "--rules") && i + 1 < argc) {
            rules_text = read_file(argv[++i]);
            if (!rules_text) {
                fprintf(stderr, "cannot read %s\n", argv[i]);
                return 2;
            }
        }
        else {
            fprintf(stderr, "usage: test_rules [--bless] [--rule NAME] [--rules FILE] [--lower [--isa x86|arm]] [--part 1|2|3] [-v]\n");
            return 2;
        }
    }
    double t0 = now();
    /* 1 */
    if (part == 0 || part == 1) test_rules_soundness(only);
    /* 2 */
    if ((part == 0 && !only) || part == 2) {
        test_bounds_exact();
        test_bounds_random(20000);
    }
    /* 3 */
    if ((part == 0 && !only) || part == 3) {
        test_corpus("data/bad_rules.txt", bless);
        test_large_files();
        test_repack_match();
    }
    printf("total %.1f s\n", now() - t0);
    printf("test_rules: %lld checks passed, %lld failed\n", g_pass, g_fail);
    free((char *)rules_text);
    return g_fail != 0;
}
