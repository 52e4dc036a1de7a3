/* prove.c — every rule instantiation proven with Z3: ∀ inputs, predicate ⇒ lhs = rhs.
 *
 * An instantiation (a rule at one type T) is its compiled pattern, inst->lhs, whose leaves
 * are wildcard variables ?x and constant wildcards ?cK. The proof encodes the pattern
 * itself (src/verify/smt.c), so what is proven is the term the matcher matches:
 *
 * - ?x is a fresh bit-vector per lane;
 * - ?cK is one symbolic 128-bit value cK, the constant's value as its pattern position
 *   reads it (the matcher reads it back from the node, tine_const_value). Every position
 *   of ?cK, on either side, takes cK's low bits and assumes cK fits that position's type:
 *   the matcher refuses a constant that does not fit where the right side puts it. One
 *   proof covers every constant;
 * - the predicate becomes an assumption, encoded from its syntax tree: what T alone
 *   decides is folded by the elaborator (the same code the matcher runs), the rest (the
 *   constants, && || !, comparisons and arithmetic on 128-bit values as the elaborator
 *   folds them, is_pow2) is encoded. upper_bounded(e, K) and lower_bounded(e, K) become
 *   "every lane of e is at most (at least) K": sound where interval analysis is
 *   (bounds_check.c checks that), and can_prove(c) "every lane of c is true". is_const(x)
 *   is left free (either way);
 * - the right side is the rule's prebuilt template (rules.c), where the constants are
 *   variables ?cK typed by position. A right side that computes with its constants
 *   (log2(c0)) has no template: then the constants are enumerated, each value found by the
 *   solver as a model of the predicate, up to MAX_ENUM values, and the right side is
 *   elaborated for each as the matcher would.
 *
 * Lanes: patterns are built at 1 lane, or at 8 where they sum lanes (rules.c's plan). An
 * element-wise instantiation proven at one lane holds at every lane count; where the
 * encoding moved values between lanes (a reduction, an instruction's pairwise sum), the
 * output says the proof is at the pattern's lanes.
 */
#define _POSIX_C_SOURCE 200809L
#include "prove.h"
#include "../peephole/peephole.h"

#include "../ir/ast.h"
#include "../rules/rules.h"
#include "smt.h"

enum { MAX_ENUM = 64, MAXW = 32, QUICK_MS = 2000 };

static const tine_type_t I128 = {TINE_INT, 128, 1};

typedef struct {
    tine_ctx_t *ctx;
    tine_smt *s;
    Z3_context z;
    const tine_rule *rule;
    const tine_rule_inst *in;
    int lanes;
    int nw;
    const tine_expr_t *w[MAXW]; /* ordinary wildcards */
    Z3_ast sym[10];             /* cK's value (128 bits), where the pattern has ?cK */
    Z3_ast base[10];            /* cK at its narrowest position's type */
    tine_type_t base_t[10];
    Z3_ast defined;             /* conditions under which the predicate's arithmetic folds */
    char refused[256];          /* why the predicate could not be encoded */
    unsigned timeout_ms;
    bool abstracted;            /* proven with products abstracted */
    bool exact;                 /* proven only by the exact query at the whole limit */
    const tine_expr_t *lhs;     /* the pattern proven: inst->lhs, or it rebuilt at other lanes */
    bool scaled;                /* rebuilt: the right side is elaborated, not the template */
} prover;

typedef struct {
    Z3_ast a;
    bool is_bool; /* a Z3 bool, else a 128-bit value */
} pval;

static bool is_wild(const tine_expr_t *e) { return e->op == TINE_OP_VAR && tine_expr_name(e)[0] == '?'; }
static int cwild_k(const tine_expr_t *e) { /* K of ?cK, else -1 */
    const char *n = is_wild(e) ? tine_expr_name(e) : "";
    return n[0] == '?' && n[1] == 'c' && n[2] >= '0' && n[2] <= '9' && !n[3] ? n[2] - '0' : -1;
}

static Z3_ast num(prover *p, tine_i128 v) { return tine_smt_num(p->s, 128, (tine_u128)v); }
static Z3_ast as_bool(prover *p, pval v) { return v.is_bool ? v.a : Z3_mk_not(p->z, Z3_mk_eq(p->z, v.a, num(p, 0))); }
static Z3_ast as_bv(prover *p, pval v) { return v.is_bool ? Z3_mk_ite(p->z, v.a, num(p, 1), num(p, 0)) : v.a; }
static pval bv(Z3_ast a) { return (pval){a, false}; }
static pval boolean(Z3_ast a) { return (pval){a, true}; }

static pval refuse(prover *p, const tine_ast *a, const char *what) {
    if (!p->refused[0]) snprintf(p->refused, sizeof p->refused, "the predicate's %s (line %d) has no encoding", what, a->line);
    return boolean(Z3_mk_true(p->z));
}

static void add_defined(prover *p, Z3_ast c) {
    p->defined = p->defined ? Z3_mk_and(p->z, 2, (Z3_ast[]){p->defined, c}) : c;
}

/* The environment of the predicate and the right side: T, the wildcards bound to
 * themselves, and constants with known values (cbound). */
static void mk_env(prover *p, tine_elab_env *env, tine_binding *b, tine_elab_mode mode) {
    memset(env, 0, sizeof *env);
    env->T = p->in->T;
    env->lanes = p->lanes;
    env->mode = mode;
    for (int i = 0; i < p->nw; i++) b[i] = (tine_binding){tine_expr_name(p->w[i]) + 1, (tine_expr_t *)p->w[i]};
    env->binds = b;
    env->nbinds = p->nw;
}

static pval penc(prover *p, const tine_ast *a);
static void bind_constants(prover *p, const tine_expr_t *e);

/* upper_bounded(e, K) / lower_bounded(e, K) / can_prove(c) */
static pval bounds_call(prover *p, const tine_ast *a) {
    bool can = !strcmp(a->name, "can_prove");
    if (a->nargs != (can ? 1 : 2)) return refuse(p, a, a->name);
    tine_binding b[MAXW];
    tine_elab_env env;
    mk_env(p, &env, b, TINE_ELAB_RHS);
    env.cwild_vars = true; /* its constants as variables ?cK typed by position */
    tine_expr_t *e = tine_elaborate(p->ctx, a->args[0], &env);
    tine_clear_error(p->ctx);
    if (!e) return refuse(p, a, "bounded expression");
    bind_constants(p, e);
    Z3_ast lanes[TINE_MAX_LANES];
    if (tine_smt_encode(p->s, e, lanes)) {
        tine_clear_error(p->ctx);
        return refuse(p, a, "bounded expression");
    }
    Z3_ast k = can ? NULL : as_bv(p, penc(p, a->args[1]));
    Z3_ast *c = tine_xmalloc(sizeof *c * (size_t)e->type.lanes);
    for (int i = 0; i < e->type.lanes; i++) {
        if (can) {
            c[i] = Z3_mk_eq(p->z, lanes[i], tine_smt_num(p->s, 1, 1));
            continue;
        }
        Z3_ast x = tine_smt_resize(p->s, lanes[i], e->type.bits, e->type.kind == TINE_INT, 128);
        c[i] = a->name[0] == 'u' ? Z3_mk_bvsle(p->z, x, k) : Z3_mk_bvsge(p->z, x, k);
    }
    Z3_ast r = Z3_mk_and(p->z, (unsigned)e->type.lanes, c);
    free(c);
    return boolean(r);
}

static pval penc_call(prover *p, const tine_ast *a) {
    const char *n = a->name;
    if (!strcmp(n, "upper_bounded") || !strcmp(n, "lower_bounded") || !strcmp(n, "can_prove")) return bounds_call(p, a);
    if (!strcmp(n, "is_pow2") && a->nargs == 1) {
        Z3_ast x = as_bv(p, penc(p, a->args[0]));
        Z3_ast pos = Z3_mk_bvsgt(p->z, x, num(p, 0));
        Z3_ast one = Z3_mk_eq(p->z, Z3_mk_bvand(p->z, x, Z3_mk_bvsub(p->z, x, num(p, 1))), num(p, 0));
        return boolean(Z3_mk_and(p->z, 2, (Z3_ast[]){pos, one}));
    }
    if (!strcmp(n, "is_const")) { /* free: the proof covers both */
        char name[32];
        snprintf(name, sizeof name, "is_const@%d:%d", a->line, a->col);
        return boolean(Z3_mk_const(p->z, Z3_mk_string_symbol(p->z, name), Z3_mk_bool_sort(p->z)));
    }
    if ((!strcmp(n, "min") || !strcmp(n, "max")) && a->nargs == 2) {
        Z3_ast x = as_bv(p, penc(p, a->args[0])), y = as_bv(p, penc(p, a->args[1]));
        return bv(tine_smt_binop(p->s, n[1] == 'i' ? TINE_OP_MIN : TINE_OP_MAX, I128, x, y));
    }
    return refuse(p, a, n);
}

static pval penc_binary(prover *p, const tine_ast *a, pval x, pval y) {
    if (a->logical) {
        Z3_ast v[2] = {as_bool(p, x), as_bool(p, y)};
        return boolean(a->op == TINE_OP_AND ? Z3_mk_and(p->z, 2, v) : Z3_mk_or(p->z, 2, v));
    }
    Z3_ast u = as_bv(p, x), w = as_bv(p, y);
    switch (a->op) {
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE:
        return boolean(Z3_mk_eq(p->z, tine_smt_binop(p->s, a->op, I128, u, w), tine_smt_num(p->s, 1, 1)));
    case TINE_OP_SHL: case TINE_OP_SHR: /* the elaborator refuses counts outside [0, 126] */
        add_defined(p, Z3_mk_and(p->z, 2, (Z3_ast[]){Z3_mk_bvsge(p->z, w, num(p, 0)), Z3_mk_bvsle(p->z, w, num(p, 126))}));
        return bv(tine_smt_binop(p->s, a->op, I128, u, w));
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD:
    case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR: case TINE_OP_MIN: case TINE_OP_MAX:
        return bv(tine_smt_binop(p->s, a->op, I128, u, w));
    default: return refuse(p, a, tine_op_name(a->op));
    }
}

/* What T alone decides of a, as the elaborator folds it: 0 (the value in *v), -1 undecided
 * (it needs a constant's value or a wildcard), -2 no value (not a condition's). */
static int fold(prover *p, const tine_ast *a, tine_i128 *v) {
    tine_elab_env env = {.T = p->in->T, .lanes = p->lanes, .mode = TINE_ELAB_PRED, .static_only = true};
    int rc = tine_elaborate_pred(p->ctx, a, &env, v);
    tine_clear_error(p->ctx);
    return rc;
}

/* A predicate (sub)tree as a Z3 term; *rc: fold's verdict on it. */
static pval penc_rc(prover *p, const tine_ast *a, int *rc) {
    tine_i128 v;
    if (a->kind == A_UNARY || a->kind == A_BINARY) {
        /* an operator: its operands first. The elaborator elaborates every operand, and one
           it cannot decide leaves the operator undecided, so it is asked about the operator
           only when that may fold: each node once (asked first at every node, it would
           elaborate every subtree again, a long sum's quadratically). What the operands'
           encodings left behind is dropped when the operator folds. */
        bool refused = p->refused[0] != 0;
        Z3_ast defined = p->defined;
        int r0, r1 = 0;
        pval x = penc_rc(p, a->args[0], &r0), y = {0};
        if (a->kind == A_BINARY) y = penc_rc(p, a->args[1], &r1);
        if ((*rc = r0 == -1 || r1 == -1 ? -1 : fold(p, a, &v)) == 0) {
            if (!refused) p->refused[0] = 0;
            p->defined = defined;
            return bv(num(p, v));
        }
        if (a->kind == A_BINARY) return penc_binary(p, a, x, y);
        if (a->op == TINE_OP_NOT) return boolean(Z3_mk_not(p->z, as_bool(p, x)));
        if (a->op == TINE_OP_NEG) return bv(Z3_mk_bvneg(p->z, as_bv(p, x)));
        return refuse(p, a, "unary operator");
    }
    /* what T alone decides, the elaborator folds */
    if ((*rc = fold(p, a, &v)) == 0) return bv(num(p, v));
    switch (a->kind) {
    case A_NAME:
        if (a->name[0] == 'c' && a->name[1] >= '0' && a->name[1] <= '9' && !a->name[2] && p->sym[a->name[1] - '0'])
            return bv(p->sym[a->name[1] - '0']);
        return refuse(p, a, a->name);
    case A_CALL: return penc_call(p, a);
    default: return refuse(p, a, "term");
    }
}

static pval penc(prover *p, const tine_ast *a) {
    int rc;
    return penc_rc(p, a, &rc);
}

/* ---- one instantiation ------------------------------------------------------------------ */

/* The narrowest type of each ?cK among the positions in e's DAG. */
static void narrowest(prover *p, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(p->ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        int k = cwild_k(order[i]);
        if (k >= 0 && (!p->base_t[k].bits || order[i]->type.bits < p->base_t[k].bits))
            p->base_t[k] = tine_type_with_lanes(order[i]->type, 1);
    }
    free(order);
}

/* Binds every ?cK variable of e's DAG. cK is a bit-vector of its narrowest position's
 * type, extended (by that type's signedness) wherever a wider position takes it: the
 * value is the same, and the two sides of a rule then hold the same term where they hold
 * the constant (a multiply by an extended constant is one multiplier, not two that the
 * solver must find equal). Each position assumes the value fits its type, as the matcher
 * refuses a constant that does not fit where it goes. */
static void bind_constants(prover *p, const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(p->ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        int k = cwild_k(order[i]);
        if (k < 0) continue;
        tine_type_t t = order[i]->type, bt = p->base_t[k];
        if (!bt.bits) bt = p->base_t[k] = tine_type_with_lanes(t, 1);
        bool bs = bt.kind == TINE_INT;
        if (!p->sym[k]) {
            char name[16];
            snprintf(name, sizeof name, "c%d", k);
            p->base[k] = Z3_mk_const(p->z, Z3_mk_string_symbol(p->z, name), tine_smt_sort(p->s, bt.bits));
            p->sym[k] = tine_smt_resize(p->s, p->base[k], bt.bits, bs, 128);
        }
        Z3_ast low = tine_smt_resize(p->s, p->base[k], bt.bits, bs, t.bits);
        Z3_ast back = tine_smt_resize(p->s, low, t.bits, t.kind == TINE_INT, 128);
        tine_smt_assume(p->s, Z3_mk_eq(p->z, back, p->sym[k]));
        Z3_ast lanes[TINE_MAX_LANES];
        for (int l = 0; l < t.lanes; l++) lanes[l] = low;
        tine_smt_bind(p->s, order[i], lanes);
    }
    free(order);
}

typedef struct {
    tine_smt_result r;
    double seconds;
    int queries, values;
    char why[1536];
} verdict;

static tine_smt_result query(prover *p, const tine_expr_t *lhs, const tine_expr_t *rhs, Z3_ast when, verdict *v) {
    Z3_ast a[TINE_MAX_LANES], b[TINE_MAX_LANES];
    if (tine_smt_encode(p->s, lhs, a) || tine_smt_encode(p->s, rhs, b)) {
        snprintf(v->why, sizeof v->why, "%s", tine_error(p->ctx));
        tine_clear_error(p->ctx);
        return TINE_SMT_UNKNOWN;
    }
    Z3_ast eq[TINE_MAX_LANES];
    for (int i = 0; i < lhs->type.lanes; i++) eq[i] = Z3_mk_eq(p->z, a[i], b[i]);
    Z3_ast goal = Z3_mk_and(p->z, (unsigned)lhs->type.lanes, eq);
    if (when) goal = Z3_mk_implies(p->z, when, goal);
    double sec;
    tine_smt_result r = tine_smt_valid(p->s, goal, v->why, sizeof v->why, &sec);
    v->seconds += sec;
    v->queries++;
    if (r == TINE_SMT_COUNTEREXAMPLE) { /* both sides' values there */
        size_t k = strlen(v->why), n = sizeof v->why;
        if (k < n) k += (size_t)snprintf(v->why + k, n - k, "; left ");
        if (k < n) k += tine_smt_put_lanes(p->s, v->why + k, n - k, lhs->type, a);
        if (k < n) k += (size_t)snprintf(v->why + k, n - k, ", right ");
        if (k < n) tine_smt_put_lanes(p->s, v->why + k, n - k, rhs->type, b);
    }
    return r;
}

/* lhs = rhs (where `when`): exactly, with a short time limit; if that is not decided,
 * with products abstracted to their ranges (a proof there is a proof); if that is not a
 * proof, exactly again with the whole time limit (a counterexample must be a real one).
 * Enumerated constants' values start at the step that decided the value before. */
static tine_smt_result equal(prover *p, const tine_expr_t *lhs, const tine_expr_t *rhs, Z3_ast when, verdict *v) {
    unsigned full = p->timeout_ms, quick = full && full < QUICK_MS ? full : QUICK_MS;
    tine_smt_result r = TINE_SMT_UNKNOWN;
    bool exact_done = false;
    if (p->exact) { /* an earlier enumerated value needed the last step: the next ones start there */
        tine_smt_set_timeout(p->s, full);
        r = query(p, lhs, rhs, when, v);
        if (r != TINE_SMT_UNKNOWN) return r;
        p->exact = false; /* not decided at the whole limit: the abstraction may prove it */
        exact_done = true;
    } else if (!p->abstracted) { /* once an enumerated value needed the abstraction, the next ones start there */
        tine_smt_set_timeout(p->s, quick);
        r = query(p, lhs, rhs, when, v);
        if (r != TINE_SMT_UNKNOWN) return r;
    }
    tine_smt_abstract_products(p->s, true);
    tine_smt_set_timeout(p->s, full);
    r = query(p, lhs, rhs, when, v);
    tine_smt_abstract_products(p->s, false);
    if (r == TINE_SMT_PROVEN) {
        p->abstracted = true;
        return r;
    }
    if ((quick == full && !p->abstracted) || exact_done) return r == TINE_SMT_COUNTEREXAMPLE ? TINE_SMT_UNKNOWN : r;
    tine_smt_set_timeout(p->s, full);
    r = query(p, lhs, rhs, when, v);
    /* the exact query at the whole limit decided it: the quick one and the abstraction, each
       tried first, cost their time and decided nothing (div_magic_64 at u16: 2 s of 7 for
       each of its 36 divisors), so the rule's next enumerated values go straight here */
    if (r == TINE_SMT_PROVEN && !p->abstracted) p->exact = true;
    return r;
}

/* The right side elaborated as the matcher does when it has no template, with the
 * constants' values in cvals (cbound): NULL when it does not apply. */
static tine_expr_t *elaborated_rhs(prover *p, const tine_i128 *cv, uint32_t cbound) {
    tine_binding b[MAXW];
    tine_elab_env env;
    mk_env(p, &env, b, TINE_ELAB_RHS);
    memcpy(env.cvals, cv, sizeof env.cvals);
    env.cbound = cbound;
    tine_expr_t *r = tine_elaborate(p->ctx, p->rule->ast.rhs, &env);
    tine_clear_error(p->ctx);
    return r && tine_type_eq(r->type, p->lhs->type) ? r : NULL;
}

/* Constants enumerated as models of the predicate; each value's right side proven. */
static void prove_enumerated(prover *p, verdict *v) {
    Z3_ast block = Z3_mk_true(p->z);
    v->r = TINE_SMT_PROVEN;
    for (int n = 0;; n++) {
        int sat = tine_smt_sat(p->s, block);
        if (sat == 0) break;
        if (sat < 0 || n == MAX_ENUM) {
            v->r = TINE_SMT_UNKNOWN;
            snprintf(v->why, sizeof v->why, sat < 0 ? "enumerating the constants timed out"
                                                    : "the right side computes with constants that admit more than %d values",
                     MAX_ENUM);
            return;
        }
        tine_i128 cv[10] = {0};
        uint32_t cbound = 0;
        Z3_ast same[10];
        int ns = 0;
        for (int k = 0; k < 10; k++) {
            if (!p->sym[k]) continue;
            tine_u128 x = 0;
            tine_smt_model_value(p->s, p->sym[k], &x);
            cv[k] = (tine_i128)x;
            cbound |= 1u << k;
            same[ns++] = Z3_mk_eq(p->z, p->sym[k], num(p, cv[k]));
        }
        Z3_ast is = Z3_mk_and(p->z, (unsigned)ns, same);
        block = Z3_mk_and(p->z, 2, (Z3_ast[]){block, Z3_mk_not(p->z, is)});
        tine_expr_t *rhs = elaborated_rhs(p, cv, cbound);
        if (!rhs) continue; /* the matcher does not fire on this value */
        v->values++;
        tine_smt_result r = equal(p, p->lhs, rhs, is, v);
        if (r != TINE_SMT_PROVEN) {
            v->r = r;
            return;
        }
    }
    if (!v->values) v->r = TINE_SMT_ERROR; /* never fires */
}

/* An integer literal of the predicate (a number, or a negated one). */
static bool literal(const tine_ast *a, tine_i128 *v) {
    if (a->kind == A_INT) return *v = a->ival, true;
    if (a->kind == A_UNARY && a->op == TINE_OP_NEG && a->args[0]->kind == A_INT) return *v = -a->args[0]->ival, true;
    return false;
}

/* Wildcards the predicate's conjuncts bound to a narrower range (lower_bounded(a, 0) &&
 * upper_bounded(a, 255) of an i16 a) take their lanes as extensions of narrower values:
 * exactly the inputs the predicate admits, so the proof is the same one; and products of
 * such values meet the right side's products of the truncated values as one term (the
 * resizes of smt.c fold the extensions), where the solver would otherwise compare two
 * multipliers bit by bit (umull_pair_u8_i16 at 16 lanes timed out). */
static void narrow_bounded(prover *p) {
    const tine_rule_ast *ra = &p->rule->ast;
    for (int i = 0; i < p->nw; i++) {
        const tine_expr_t *w = p->w[i];
        tine_type_t t = w->type;
        if (t.kind != TINE_INT && t.kind != TINE_UINT) continue;
        bool has_lo = false, has_hi = false;
        tine_i128 lo = 0, hi = 0, k;
        for (int c = 0; c < ra->nconj; c++) {
            const tine_ast *a = ra->conj[c];
            if (a->kind != A_CALL || a->nargs != 2 || a->args[0]->kind != A_NAME ||
                strcmp(a->args[0]->name, tine_expr_name(w) + 1) || !literal(a->args[1], &k))
                continue;
            if (!strcmp(a->name, "lower_bounded") && (!has_lo || k > lo)) lo = k, has_lo = true;
            if (!strcmp(a->name, "upper_bounded") && (!has_hi || k < hi)) hi = k, has_hi = true;
        }
        if (!has_lo || !has_hi || lo > hi) continue;
        int bits = 1;
        bool sign = lo < 0;
        if (sign)
            while (bits < 64 && (lo < -((tine_i128)1 << (bits - 1)) || hi > ((tine_i128)1 << (bits - 1)) - 1)) bits++;
        else
            while (bits < 64 && hi > ((tine_i128)1 << bits) - 1) bits++;
        if (bits < t.bits && (t.kind == TINE_INT || !sign)) tine_smt_bind_narrow(p->s, w, bits, sign);
    }
}

static void prove_inst(prover *p, verdict *v) {
    const tine_rule_inst *in = p->in;
    if (!p->lhs) p->lhs = in->lhs;
    const tine_expr_t *lhs = p->lhs, *tmpl = in->rhs_order && !p->scaled ? in->rhs_order[in->rhs_n - 1] : NULL;
    uint32_t n;
    tine_expr_t **order = tine_topo(p->ctx, lhs, &n);
    for (uint32_t i = 0; i < n; i++)
        if (is_wild(order[i]) && cwild_k(order[i]) < 0 && p->nw < MAXW) p->w[p->nw++] = order[i];
    free(order);
    narrow_bounded(p);
    p->lanes = lhs->type.lanes;
    narrowest(p, lhs);
    if (tmpl) narrowest(p, tmpl);
    bind_constants(p, lhs);
    if (tmpl) bind_constants(p, tmpl);
    const tine_rule_ast *ra = &p->rule->ast;
    for (int c = 0; c < ra->nconj; c++) tine_smt_assume(p->s, as_bool(p, penc(p, ra->conj[c])));
    if (p->defined) tine_smt_assume(p->s, p->defined);
    if (p->refused[0]) {
        v->r = TINE_SMT_UNKNOWN;
        snprintf(v->why, sizeof v->why, "%s", p->refused);
        return;
    }
    int nsym = 0;
    for (int k = 0; k < 10; k++) nsym += p->sym[k] != NULL;
    if (tine_smt_sat(p->s, Z3_mk_true(p->z)) == 0) { /* no constant and no input satisfies it */
        v->r = TINE_SMT_ERROR;
        return;
    }
    if (tmpl) {
        v->r = tine_type_eq(tmpl->type, lhs->type) ? equal(p, lhs, tmpl, NULL, v) : TINE_SMT_ERROR;
    } else if (!nsym) {
        tine_i128 cv[10] = {0};
        tine_expr_t *rhs = elaborated_rhs(p, cv, 0);
        v->r = rhs ? equal(p, lhs, rhs, NULL, v) : TINE_SMT_ERROR;
    } else {
        prove_enumerated(p, v);
    }
}

/* ---- other lane counts -------------------------------------------------------------------
 *
 * A pattern matches terms of any lanes. Where its proof moved values between lanes (a
 * reduction, an instruction's pairwise sums, interleaves), the instantiation is proven
 * again at the lane counts it is used with: the pattern rebuilt with its root at 1 to 16
 * lanes, each reduction summing groups of 2, 4, 8 or 16 (where it has one), every node at
 * most 64 lanes (a 512-bit register of bytes). The matcher fires where the right side
 * elaborates at those lanes with the left side's type; the rest are not uses. */

enum { MAX_SCALED_LANES = 64 };

/* The pattern with root lanes R and reductions by F; NULL where the lanes do not divide
 * or exceed MAX_SCALED_LANES. */
static tine_expr_t *rebuild(tine_ctx_t *ctx, const tine_expr_t *pat, int R, int F, int *inputs) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, pat, &n);
    int *lanes = tine_xcalloc(n, sizeof *lanes);
    tine_expr_t **map = tine_xcalloc(n, sizeof *map);
    bool ok = true;
    lanes[n - 1] = R;
    for (uint32_t k = n; k-- > 0 && ok;) {
        const tine_expr_t *x = order[k];
        for (int i = 0; i < x->nops && ok; i++) {
            uint32_t c = tine_topo_index(order, n, x->ops[i]);
            long want;
            if (x->op == TINE_OP_VECTOR_REDUCE_ADD) want = (long)lanes[k] * F;
            else if (((long)lanes[k] * x->ops[i]->type.lanes) % x->type.lanes) want = -1;
            else want = (long)lanes[k] * x->ops[i]->type.lanes / x->type.lanes;
            if (want < 1 || want > MAX_SCALED_LANES || (lanes[c] && lanes[c] != want)) ok = false;
            else lanes[c] = (int)want;
        }
    }
    *inputs = 0;
    for (uint32_t k = 0; k < n && ok; k++) {
        const tine_expr_t *x = order[k];
        tine_type_t t = tine_type_with_lanes(x->type, lanes[k]);
        if (lanes[k] > *inputs) *inputs = lanes[k];
        if (is_wild(x)) {
            map[k] = tine_var(ctx, tine_expr_name(x), t);
        } else if (x->op == TINE_OP_CONST) {
            if (!(x->flags & TINE_F_UNIFORM)) ok = false;
            else map[k] = tine_const_splat(ctx, t, tine_const_value(x, 0));
        } else {
            tine_expr_t *ops[256];
            for (int i = 0; i < x->nops; i++) ops[i] = map[tine_topo_index(order, n, x->ops[i])];
            map[k] = tine_make(ctx, (tine_op_t)x->op, t, x->nops, ops, x->imm, x->flags, tine_node_words(x),
                               tine_node_nwords(x));
            tine_clear_error(ctx);
        }
        if (!map[k]) ok = false;
    }
    tine_expr_t *r = ok ? map[n - 1] : NULL;
    free(lanes);
    free(map);
    free(order);
    return r;
}

static bool has_reduce(const tine_expr_t *e) {
    if (e->op == TINE_OP_VECTOR_REDUCE_ADD) return true;
    for (int i = 0; i < e->nops; i++)
        if (has_reduce(e->ops[i])) return true;
    return false;
}

/* Proves the instantiation at the other lane counts; *worst gets the first result that is
 * not a proof. Writes the widest-input lanes proven to `lanes_text`. */
static void prove_scaled(const prover *p0, const tine_prove_opts *o, verdict *v, char *lanes_text, size_t n) {
    bool reduce = has_reduce(p0->in->lhs);
    int proven = 0, widest = 0;
    for (int F = reduce ? 2 : 1; F <= (reduce ? 16 : 1); F *= 2)
        for (int R = 1; R <= 16; R *= 2) {
            int inputs;
            tine_expr_t *lhs = rebuild(p0->ctx, p0->in->lhs, R, F, &inputs);
            if (!lhs || lhs == p0->in->lhs) continue;
            prover p = {.ctx = p0->ctx, .rule = p0->rule, .in = p0->in, .timeout_ms = o->timeout_ms, .lhs = lhs, .scaled = true};
            p.s = tine_smt_new(p.ctx, o->timeout_ms);
            p.z = tine_smt_z3(p.s);
            verdict w = {.r = TINE_SMT_ERROR};
            prove_inst(&p, &w);
            tine_smt_free(p.s);
            v->seconds += w.seconds;
            v->queries += w.queries;
            if (w.r == TINE_SMT_ERROR) continue; /* not a use: the right side does not apply there */
            if (w.r != TINE_SMT_PROVEN) {
                v->r = w.r;
                int k = snprintf(v->why, sizeof v->why, "with %d input lanes (root %d): ", inputs, R);
                memcpy(v->why + k, w.why, sizeof v->why - (size_t)k - 1);
                v->why[sizeof v->why - 1] = 0;
                return;
            }
            proven++;
            if (inputs > widest) widest = inputs;
        }
    snprintf(lanes_text, n, "; and at %d other lane counts, up to %d", proven, widest);
}

static void note_unproven(tine_prove_totals *t, const char *what) {
    size_t k = strlen(t->unproven), n = sizeof t->unproven;
    if (strstr(t->unproven, "...")) return;
    if (k + strlen(what) + 2 + 5 < n) snprintf(t->unproven + k, n - k, "%s%s", k ? ", " : "", what);
    else snprintf(t->unproven + k, n - k, "%s...", k ? ", " : "");
}

static void note_slow(tine_prove_totals *t, const char *what, double sec) {
    int k = TINE_PROVE_SLOWEST - 1;
    if (sec <= t->slowest[k].seconds) return;
    while (k > 0 && t->slowest[k - 1].seconds < sec) {
        t->slowest[k] = t->slowest[k - 1];
        k--;
    }
    snprintf(t->slowest[k].what, sizeof t->slowest[k].what, "%s", what);
    t->slowest[k].seconds = sec;
}

int tine_prove_rules(tine_ctx_t *ctx, const char *text, const char *file, bool lowering, const tine_prove_opts *o,
                     FILE *out, tine_prove_totals *t) {
    tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text, file, lowering);
    if (!rs) return -1;
    int counter = 0;
    for (int r = 0; r < rs->n; r++) {
        const tine_rule *rule = &rs->rules[r];
        if (o->only && strcmp(o->only, rule->ast.name)) continue;
        t->rules++;
        for (int i = 0; i < rule->ninst; i++) {
            prover p = {.ctx = ctx, .rule = rule, .in = &rule->inst[i], .timeout_ms = o->timeout_ms};
            p.s = tine_smt_new(ctx, o->timeout_ms);
            p.z = tine_smt_z3(p.s);
            if (o->reals) tine_smt_floats_as_reals(p.s, true);
            verdict v = {.r = TINE_SMT_ERROR};
            prove_inst(&p, &v);
            char scaled[96] = "";
            long cross = tine_smt_cross_lane(p.s);
            if (cross && v.r == TINE_SMT_PROVEN) prove_scaled(&p, o, &v, scaled, sizeof scaled);
            char T[16], what[96], lanes[160];
            tine_type_name(rule->inst[i].T, T);
            snprintf(what, sizeof what, "%s T=%s", rule->ast.name, T);
            if (cross) snprintf(lanes, sizeof lanes, "moves lanes: %d-lane root%s", p.lanes, scaled);
            else snprintf(lanes, sizeof lanes, "element-wise");
            int nsym = 0;
            for (int k = 0; k < 10; k++) nsym += p.sym[k] != NULL;
            char consts[48] = "";
            if (nsym && v.values) snprintf(consts, sizeof consts, ", %d constant values", v.values);
            else if (nsym) snprintf(consts, sizeof consts, ", constants symbolic");
            if (p.abstracted) snprintf(consts + strlen(consts), sizeof consts - strlen(consts), ", products by range");
            t->insts++;
            t->queries += v.queries;
            t->seconds += v.seconds;
            note_slow(t, what, v.seconds);
            switch (v.r) {
            case TINE_SMT_PROVEN:
                t->proven++;
                if (!o->quiet) fprintf(out, "  proven          %-44s %s%s, %.3f s\n", what, lanes, consts, v.seconds);
                break;
            case TINE_SMT_COUNTEREXAMPLE:
                t->counter++;
                counter++;
                note_unproven(t, what);
                fprintf(out, "  COUNTEREXAMPLE  %-44s %s (%s:%d)\n                  %s\n", what, lanes, rule->ast.src->file,
                        rule->ast.line, v.why);
                break;
            case TINE_SMT_UNKNOWN:
                t->unknown++;
                note_unproven(t, what);
                fprintf(out, "  unknown         %-44s %s, %.3f s: %s\n", what, lanes, v.seconds, v.why);
                break;
            case TINE_SMT_ERROR:
                t->no_fire++;
                if (!o->quiet) fprintf(out, "  never fires     %-44s (no constant lets it; nothing to prove)\n", what);
                break;
            }
            tine_smt_free(p.s);
        }
    }
    tine_rules_free(rs);
    return counter;
}

/* ---- the command's driver ------------------------------------------------------------- */

extern const char tine_lift_rules_text[], tine_lift_rules_file[];
extern const char tine_lift_synth_rules_text[], tine_lift_synth_rules_file[];

static int verify_text(tine_ctx_t *ctx, const char *which, const char *text, const char *file, const char *isa,
                       unsigned timeout_ms, const char *only, int quiet, FILE *out);

int tine_verify_rules(tine_ctx_t *ctx, const char *which, const char *text, const char *file, const char *isa,
                      unsigned timeout_ms, const char *only, int quiet, FILE *out) {
    if (which && !strcmp(which, "lift")) {
        /* the built-in lift rules are two files: the hand rules and the synthesized ones
           (a rule named by --rule is in one of them) */
        tine_ruleset_t *rs = tine_lift_rules(ctx);
        bool in_synth = false;
        for (int i = 0; only && i < rs->n; i++)
            if (!strcmp(rs->rules[i].ast.name, only))
                in_synth = !strcmp(rs->rules[i].ast.src->file, tine_lift_synth_rules_file);
        if (only)
            return verify_text(ctx, NULL, in_synth ? tine_lift_synth_rules_text : tine_lift_rules_text,
                               in_synth ? tine_lift_synth_rules_file : tine_lift_rules_file, NULL, timeout_ms, only,
                               quiet, out);
        int a = verify_text(ctx, NULL, tine_lift_rules_text, tine_lift_rules_file, NULL, timeout_ms, NULL, quiet, out);
        if (a < 0) return a;
        tine_saved_error saved = tine_error_save(ctx);
        int b = verify_text(ctx, NULL, tine_lift_synth_rules_text, tine_lift_synth_rules_file, NULL, timeout_ms, NULL,
                            quiet, out);
        if (b < 0) return b;
        if (a && !b) tine_error_restore(ctx, &saved); /* the first file's message */
        return a + b;
    }
    return verify_text(ctx, which, text, file, isa, timeout_ms, only, quiet, out);
}

static void print_totals(FILE *out, const tine_prove_totals *t) {
    fprintf(out, "%ld rules, %ld instantiations: %ld proven, %ld counterexamples, %ld unknown, %ld never fire; "
                 "%ld queries, %.1f s in the solver\n",
            t->rules, t->insts, t->proven, t->counter, t->unknown, t->no_fire, t->queries, t->seconds);
    fprintf(out, "slowest:");
    for (int i = 0; i < TINE_PROVE_SLOWEST && t->slowest[i].seconds > 0; i++)
        fprintf(out, "%s %s %.2f s", i ? "," : "", t->slowest[i].what, t->slowest[i].seconds);
    fprintf(out, "\n");
}

/* "peephole-x86": the peephole optimizer's rules pass by pass, the contract pass over the
 * reals (a fused multiply-add rounds once where the product and sum rounded twice). */
static int verify_peephole(tine_ctx_t *ctx, const char *isa, unsigned timeout_ms, const char *only, int quiet,
                           FILE *out) {
    if (!tine_isa_get(ctx, isa)) {
        tine_set_error(ctx, "no rule set 'peephole-%s' (peephole-x86 or peephole-arm)", isa);
        return -1;
    }
    tine_prove_totals t = {0};
    const char *file = NULL;
    bool found = !only;
    for (int pass = 0;; pass++) {
        char name[32];
        bool contract, lacking;
        char *text = tine_peephole_pass(isa, pass, &file, name, sizeof name, &contract, &lacking);
        if (!text) break;
        tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text, file, true);
        if (!rs) {
            free(text);
            return -1;
        }
        for (int i = 0; i < rs->n && !found; i++) found = !strcmp(rs->rules[i].ast.name, only);
        tine_rules_free(rs);
        tine_prove_opts o = {.timeout_ms = timeout_ms, .only = only, .quiet = quiet != 0, .reals = contract};
        fprintf(out, "proving the peephole rules of %s, pass %s, on %s%s (timeout %u ms per query)\n", file, name, isa,
                contract ? ", over the reals" : "", timeout_ms);
        int rc = tine_prove_rules(ctx, text, file, true, &o, out, &t);
        free(text);
        if (rc < 0) return -1;
    }
    if (!file) {
        tine_set_error(ctx, "no peephole rules for %s", isa);
        return -1;
    }
    if (!found) {
        tine_set_error(ctx, "%s has no rule named '%s'", file, only);
        return -1;
    }
    print_totals(out, &t);
    if (t.counter + t.unknown)
        tine_set_error(ctx, "%ld of %ld instantiations not proven (%ld counterexamples, %ld unknown): %s",
                       t.counter + t.unknown, t.insts, t.counter, t.unknown, t.unproven);
    return (int)(t.counter + t.unknown);
}

static int verify_text(tine_ctx_t *ctx, const char *which, const char *text, const char *file, const char *isa,
                       unsigned timeout_ms, const char *only, int quiet, FILE *out) {
    if (which && !strncmp(which, "peephole-", 9)) return verify_peephole(ctx, which + 9, timeout_ms, only, quiet, out);
    if (which) {
        /* "synthesized": x86's rules found by tine synth lower */
        bool synth = !strcmp(which, "synthesized");
        const tine_isa *d = tine_isa_get(ctx, synth ? "x86" : which);
        if (!d) {
            tine_set_error(ctx, "no built-in rule set '%s' (lift, x86, arm or synthesized, or a rule file)", which);
            return -1;
        }
        text = synth ? tine_isa_synth_rules(d, &file) : tine_isa_rules(d, &file);
        isa = d->name;
    }
    if (isa && !tine_isa_get(ctx, isa)) {
        if (!tine_error(ctx)) tine_set_error(ctx, "no instruction set '%s' (x86 or arm)", isa);
        return -1;
    }
    /* errors first: nothing is written before the file compiles and names the rule */
    tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text, file, isa != NULL);
    if (!rs) return -1;
    bool found = !only;
    for (int i = 0; i < rs->n && !found; i++) found = !strcmp(rs->rules[i].ast.name, only);
    tine_rules_free(rs);
    if (!found) {
        tine_set_error(ctx, "%s has no rule named '%s'", file, only);
        return -1;
    }
    tine_prove_opts o = {.timeout_ms = timeout_ms, .only = only, .quiet = quiet != 0};
    tine_prove_totals t = {0};
    fprintf(out, "proving %s rules of %s%s%s (timeout %u ms per query)\n", isa ? "lowering" : "lift", file,
            isa ? " on " : "", isa ? isa : "", timeout_ms);
    int rc = tine_prove_rules(ctx, text, file, isa != NULL, &o, out, &t);
    if (rc < 0) return -1;
    print_totals(out, &t);
    /* unproven is not proven: an unknown fails the command as a counterexample does */
    if (t.counter + t.unknown)
        tine_set_error(ctx, "%ld of %ld instantiations not proven (%ld counterexamples, %ld unknown): %s",
                       t.counter + t.unknown, t.insts, t.counter, t.unknown, t.unproven);
    return (int)(t.counter + t.unknown);
}
