/* lift_synth.c — `tine synth lift`: lifting rules found by search, Pitchfork's offline
 * synthesis.
 *
 * Per element type B of the variables a, b:
 *   1. enumerate integer expressions bottom-up over the primitive ops (add, sub, mul,
 *      min, max, shifts and adds and multiplies by small constants, extensions, truncation
 *      and clamping narrows) up to `size` operators, keeping one expression per fingerprint
 *      (its values on edge and random inputs): an expression equal on them to a smaller
 *      one adds nothing;
 *   2. enumerate small FPIR expressions over the same variables and constants, indexed by
 *      fingerprint;
 *   3. for each expression e, lift it with the rules loaded (lift.rules and the rules found
 *      so far); among the FPIR expressions with e's fingerprint take the one of least lift
 *      cost, if it costs less than the lift of e;
 *   4. write lift(e) -> that FPIR as a rule, generalised as far as proofs allow (rule_text.c:
 *      constants into predicates and T free, else T's signedness, else T itself, else exact
 *      constants), each level proven with Z3 for every instantiation it admits, then check
 *      it loads beside the other rules (the rule compiler's cost and overlap checks).
 * The lift of a later expression sees the rules found before it, so a family found once
 * (a rule general in T and in its constants) is not found again; the lift sees
 * lift.synth.rules too (what tine_lift uses), so a search finds what they miss.
 */
#include "synth.h"

#include "../rules/rules.h"
#include "../verify/prove.h"

extern const char tine_lift_rules_text[], tine_lift_rules_file[];
extern const char tine_lift_synth_rules_text[], tine_lift_synth_rules_file[];

enum { LANES = 64 };

typedef struct {
    tine_expr_t *e;
    int size;
} item;

typedef struct {
    tine_ctx_t *ctx;
    const tine_synth_lift_opts *o;
    tine_synth_lift_stats *st;
    tine_env_t *env;
    double deadline;
    /* the enumeration: items with their values (LANES words each), a fingerprint index */
    item *items;
    uint64_t *vals;
    size_t n, cap, vcap;
    uint32_t *slots; /* index + 1, open addressing */
    size_t nslots;
    /* FPIR candidates, chained per fingerprint slot */
    tine_expr_t **cand;
    uint64_t *cand_h;
    int32_t *cand_next;
    size_t ncand, ccap, hcap, ncap;
    int32_t *cand_head;
    size_t nheads;
    /* the rules: the baseline's text, the rules found, and both compiled */
    tine_buf found;
    tine_ruleset_t *rs;
    int nrules;
} synth;

static uint64_t hash_vals(tine_type_t t, const uint64_t *v) { return synth_hash_vals(t, v, LANES); }

static bool timed_out(synth *S) {
    if (S->o->time_limit > 0 && tine_now() > S->deadline) S->st->timed_out = true;
    return S->st->timed_out;
}

/* e's values on the variables' inputs; false when e does not evaluate (an error). */
static bool eval(synth *S, tine_expr_t *e, uint64_t *out) {
    if (!e) return false;
    tine_saved_error saved = tine_error_save(S->ctx);
    int rc = tine_eval(S->ctx, e, S->env, out);
    tine_error_restore(S->ctx, &saved);
    if (rc) return false;
    /* bit patterns normalised to the type (the interpreter may leave high bits) */
    for (int i = 0; i < LANES; i++) {
        int bits = e->type.bits;
        if (bits >= 64) continue;
        uint64_t m = ((uint64_t)1 << bits) - 1;
        out[i] &= m;
        if (e->type.kind == TINE_INT && (out[i] >> (bits - 1) & 1)) out[i] |= ~m;
    }
    return true;
}

/* ---- the enumeration ------------------------------------------------------------------ */

static bool same_item(synth *S, size_t i, tine_type_t t, const uint64_t *v) {
    return tine_type_eq(S->items[i].e->type, t) && !memcmp(S->vals + i * LANES, v, LANES * sizeof *v);
}

static uint64_t item_hash(void *user, size_t i) {
    synth *S = user;
    return hash_vals(S->items[i].e->type, S->vals + i * LANES);
}

static void rehash(synth *S) {
    synth_index x = {S->slots, S->nslots};
    synth_rehash(&x, S->n, item_hash, S);
    S->slots = x.slots;
    S->nslots = x.nslots;
}

/* Adds e unless an earlier expression has its fingerprint. */
static void add_item(synth *S, tine_expr_t *e, int size) {
    uint64_t v[LANES];
    S->st->enumerated++;
    if (!eval(S, e, v)) return;
    if (2 * (S->n + 1) > S->nslots) rehash(S);
    uint64_t h = hash_vals(e->type, v);
    size_t k = h & (S->nslots - 1);
    /* the last size's expressions are no one's operands: all of them are searched (the
       first of a fingerprint need not be the one the lifter handles worst) */
    for (; S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (size < S->o->size && same_item(S, S->slots[k] - 1, e->type, v)) return;
    S->slots[k] = (uint32_t)(S->n + 1);
    TINE_GROW(S->items, S->n + 1, S->cap);
    TINE_GROW(S->vals, (S->n + 1) * LANES, S->vcap);
    memcpy(S->vals + S->n * LANES, v, sizeof v);
    S->items[S->n++] = (item){e, size};
    S->st->distinct++;
}

static tine_expr_t *konst(synth *S, tine_type_t t, int64_t v) {
    return tine_const_int(S->ctx, t, v);
}

/* The unary steps from x: extensions, narrows, and the ops with a constant. */
static void unary_steps(synth *S, tine_expr_t *x, int size, tine_type_t base) {
    tine_ctx_t *ctx = S->ctx;
    tine_type_t t = x->type, w = tine_type_widen(t), nt = tine_type_narrow(t);
    if (tine_type_valid(w) && w.bits <= 4 * base.bits) {
        add_item(S, tine_cast(ctx, w, x), size);
        if (t.kind == TINE_UINT) add_item(S, tine_cast(ctx, tine_type_with_kind(w, TINE_INT), x), size);
    }
    if (tine_type_valid(nt) && nt.bits >= base.bits) add_item(S, tine_cast(ctx, nt, x), size);
    /* narrows with a clamp, by one or two widths (the variables' type halved at most) */
    for (nt = tine_type_narrow(t); tine_type_valid(nt) && 2 * nt.bits >= base.bits; nt = tine_type_narrow(nt)) {
        /* the clamps a saturating narrow is written with */
        tine_expr_t *hi = konst(S, t, (int64_t)tine_type_max(nt));
        if (t.kind == TINE_UINT) {
            add_item(S, tine_cast(ctx, nt, tine_binary(ctx, TINE_OP_MIN, x, hi)), size);
        } else {
            tine_expr_t *lo = konst(S, t, tine_type_min(nt));
            add_item(S, tine_cast(ctx, nt, tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, x, lo), hi)),
                     size);
            tine_type_t un = tine_type_with_kind(nt, TINE_UINT);
            tine_expr_t *uhi = konst(S, t, (int64_t)tine_type_max(un)), *zero = konst(S, t, 0);
            add_item(S, tine_cast(ctx, un, tine_binary(ctx, TINE_OP_MIN, tine_binary(ctx, TINE_OP_MAX, x, zero), uhi)),
                     size);
        }
    }
    static const int adds[] = {1, 8}, muls[] = {2, 3}, shrs[] = {1, 4};
    for (int i = 0; i < 2; i++) {
        add_item(S, tine_binary(ctx, TINE_OP_ADD, x, konst(S, t, adds[i])), size);
        add_item(S, tine_binary(ctx, TINE_OP_MUL, x, konst(S, t, muls[i])), size);
        add_item(S, tine_binary(ctx, TINE_OP_SHR, x, konst(S, t, shrs[i])), size);
    }
    add_item(S, tine_binary(ctx, TINE_OP_SHL, x, konst(S, t, 1)), size);
}

static void enumerate(synth *S, tine_type_t base) {
    tine_ctx_t *ctx = S->ctx;
    tine_type_t bt = tine_type_with_lanes(base, LANES);
    add_item(S, tine_var(ctx, "a", bt), 0);
    add_item(S, tine_var(ctx, "b", bt), 0);
    static const tine_op_t bin[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_MIN, TINE_OP_MAX};
    for (int size = 1; size <= S->o->size && !timed_out(S); size++) {
        size_t n = S->n;
        for (size_t i = 0; i < n && !timed_out(S); i++) {
            if (S->items[i].size == size - 1) unary_steps(S, S->items[i].e, size, base);
            for (size_t j = 0; j < n; j++) {
                if (S->items[i].size + S->items[j].size != size - 1) continue;
                tine_expr_t *x = S->items[i].e, *y = S->items[j].e;
                if (!tine_type_eq(x->type, y->type)) continue;
                for (int k = 0; k < 5; k++)
                    if (bin[k] == TINE_OP_SUB || i <= j) add_item(S, tine_binary(ctx, bin[k], x, y), size);
            }
        }
    }
}

/* ---- FPIR candidates ------------------------------------------------------------------ */

static void add_cand(synth *S, tine_expr_t *e) {
    uint64_t v[LANES];
    if (!e || !eval(S, e, v)) return;
    uint64_t h = hash_vals(e->type, v);
    for (int32_t c = S->cand_head[h & (S->nheads - 1)]; c >= 0; c = S->cand_next[c])
        if (S->cand[c] == e) return;
    TINE_GROW(S->cand, S->ncand + 1, S->ccap);
    TINE_GROW(S->cand_h, S->ncand + 1, S->hcap);
    TINE_GROW(S->cand_next, S->ncand + 1, S->ncap);
    S->cand[S->ncand] = e;
    S->cand_h[S->ncand] = h;
    S->cand_next[S->ncand] = S->cand_head[h & (S->nheads - 1)];
    S->cand_head[h & (S->nheads - 1)] = (int32_t)S->ncand++;
    S->st->fpir++;
}

/* Does t hold every value of x's type? Then a saturating cast of x to t is an extension,
 * cheaper on the lift cost than the cast it would replace but no better code. */
static bool holds_range(tine_type_t t, const tine_expr_t *x) {
    tine_type_t u = x->type;
    return (int64_t)tine_type_min(t) <= tine_type_min(u) && tine_type_max(t) >= tine_type_max(u);
}

static tine_expr_t *fpir(synth *S, tine_op_t op, int n, tine_expr_t **args, tine_type_t tp) {
    if (op == TINE_OP_SATURATING_CAST && holds_range(tp, args[0])) return NULL;
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *e = tine_fpir(S->ctx, op, n, args, tp);
    tine_error_restore(S->ctx, &saved);
    return e;
}

/* FPIR ops over the operands in ops[0..n) (and small constants of each's type), then
 * the casts around them: the right sides searched. */
static void fpir_level(synth *S, tine_expr_t **ops, size_t n, tine_type_t base, bool first) {
    static const int counts[] = {1, 2, 4, 8};
    size_t before = S->ncand;
    for (size_t i = 0; i < n; i++) {
        tine_expr_t *x = ops[i];
        for (int op = TINE_FPIR_FIRST; op < TINE_FPIR_FIRST + TINE_FPIR_COUNT; op++) {
            if (op == TINE_OP_SATURATING_CAST || op == TINE_OP_MUL_SHR || op == TINE_OP_ROUNDING_MUL_SHR) continue;
            tine_expr_t *a1[1] = {x};
            if (op == TINE_OP_ABS || op == TINE_OP_SATURATING_NARROW) {
                add_cand(S, fpir(S, (tine_op_t)op, 1, a1, x->type));
                continue;
            }
            for (size_t j = 0; j < n; j++) {
                /* a level above the first: one operand from it, the other from anywhere */
                tine_expr_t *a2[2] = {x, ops[j]};
                add_cand(S, fpir(S, (tine_op_t)op, 2, a2, x->type));
            }
            for (int c = 0; c < 4; c++) {
                tine_expr_t *a2[2] = {x, konst(S, x->type, counts[c])};
                add_cand(S, fpir(S, (tine_op_t)op, 2, a2, x->type));
            }
        }
    }
    /* casts around what this level made: saturating casts to each type in range, and
       extensions */
    size_t end = S->ncand;
    for (size_t c = first ? 0 : before; c < end; c++) {
        tine_expr_t *x = S->cand[c];
        for (int bits = base.bits > 8 ? base.bits / 2 : 8; bits <= 64 && bits <= 4 * base.bits; bits *= 2)
            for (int k = 0; k < 2; k++) {
                tine_type_t t = tine_type(k ? TINE_INT : TINE_UINT, bits, 1);
                if (!tine_type_eq(tine_type_with_lanes(t, LANES), x->type))
                    add_cand(S, fpir(S, TINE_OP_SATURATING_CAST, 1, &x, t));
            }
        tine_type_t w = tine_type_widen(x->type);
        if (tine_type_valid(w) && w.bits <= 4 * base.bits) add_cand(S, tine_cast(S->ctx, w, x));
    }
}

static void candidates(synth *S, tine_type_t base) {
    tine_ctx_t *ctx = S->ctx;
    tine_type_t bt = tine_type_with_lanes(base, LANES);
    tine_expr_t *atoms[8];
    size_t na = 0;
    atoms[na++] = tine_var(ctx, "a", bt);
    atoms[na++] = tine_var(ctx, "b", bt);
    tine_type_t w = tine_type_widen(bt);
    if (tine_type_valid(w)) {
        atoms[na++] = tine_cast(ctx, w, atoms[0]);
        atoms[na++] = tine_cast(ctx, w, atoms[1]);
    }
    S->nheads = 1 << 16;
    S->cand_head = tine_xmalloc(S->nheads * sizeof *S->cand_head);
    memset(S->cand_head, 0xff, S->nheads * sizeof *S->cand_head);
    for (size_t i = 0; i < na; i++) add_cand(S, atoms[i]);
    fpir_level(S, atoms, na, base, true);
    /* a second level: FPIR over the first level's results and the atoms */
    size_t n1 = S->ncand;
    tine_expr_t **ops = tine_xmalloc((n1 + na) * sizeof *ops);
    memcpy(ops, S->cand, n1 * sizeof *ops);
    size_t n = n1;
    /* only unary FPIR (and casts) over level one: binary pairs of it are too many (and a
       sum of two FPIR terms, the multiply-accumulate form, never costs less than its lift) */
    for (size_t i = 0; i < n && !timed_out(S); i++) {
        tine_expr_t *x = ops[i];
        add_cand(S, fpir(S, TINE_OP_SATURATING_NARROW, 1, &x, x->type));
        for (int bits = base.bits > 8 ? base.bits / 2 : 8; bits <= 64 && bits <= 4 * base.bits; bits *= 2)
            for (int k = 0; k < 2; k++)
                add_cand(S, fpir(S, TINE_OP_SATURATING_CAST, 1, &x, tine_type(k ? TINE_INT : TINE_UINT, bits, 1)));
    }
    free(ops);
}

/* ---- rules ------------------------------------------------------------------------------ */

/* The rules loaded: the baseline's and the ones found so far, compiled together (so the
 * rule compiler checks overlaps across both). NULL with an error when they do not load. */
static tine_ruleset_t *load(synth *S, const char *extra) {
    tine_buf b = {0};
    tine_buf_puts(&b, "\n");
    if (S->found.n) tine_buf_puts(&b, S->found.p);
    if (extra) tine_buf_puts(&b, extra);
    const char *texts[] = {tine_lift_rules_text, tine_lift_synth_rules_text, b.p};
    const char *files[] = {tine_lift_rules_file, tine_lift_synth_rules_file, "synthesized"};
    if (S->o->hand_only) texts[1] = "", files[1] = "none";
    int skip = S->o->from_scratch ? 2 : 0;
    tine_ruleset_t *rs = tine_rules_compile_files(S->ctx, texts + skip, files + skip, 3 - skip, false);
    free(b.p);
    return rs;
}

/* Does the rule (text, compiled alone) prove for every instantiation, and fire on lhs? */
static bool proves(synth *S, const char *text, tine_expr_t *lhs) {
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_ruleset_t *one = tine_rules_compile(S->ctx, text, "synthesized");
    bool ok = false;
    if (one) {
        const tine_rule *used;
        tine_expr_t *r = tine_rules_try(S->ctx, one, lhs, &used);
        tine_rules_free(one);
        if (r && tine_cost_cmp(tine_lift_cost(S->ctx, r), tine_lift_cost(S->ctx, lhs)) < 0) {
            FILE *null = fopen("/dev/null", "w");
            tine_prove_opts po = {.timeout_ms = S->o->timeout_ms, .quiet = true};
            tine_prove_totals t = {0};
            int rc = null ? tine_prove_rules(S->ctx, text, "synthesized", false, &po, null, &t) : -1;
            if (null) fclose(null);
            ok = rc == 0 && t.counter == 0 && t.unknown == 0 && t.proven > 0;
        }
    }
    tine_error_restore(S->ctx, &saved);
    return ok;
}

/* Generalises, proves and loads lhs -> rhs (found from e); true when a rule was added. */
static bool add_rule(synth *S, tine_expr_t *e, tine_expr_t *lhs, tine_expr_t *rhs) {
    char name[64], why[512];
    char *es = tine_print(S->ctx, e);
    snprintf(name, sizeof name, "synth_%s_%d", tine_op_name(rhs->op), S->nrules + 1);
    snprintf(why, sizeof why, "found by tine synth lift from %.400s; proven with Z3 for every T it admits", es);
    free(es);
    for (int g = SYNTH_GEN_ALL; g < (S->o->general ? SYNTH_GEN_SIGN : SYNTH_GEN_COUNT); g++) {
        tine_buf b = {0};
        if (!tine_synth_rule_text(&b, name, lhs, rhs, (tine_synth_gen)g, 0, why) || !proves(S, b.p, lhs)) {
            free(b.p);
            continue;
        }
        /* it loads beside the others: a priority of its own when it overlaps one */
        tine_saved_error saved = tine_error_save(S->ctx);
        tine_ruleset_t *rs = load(S, b.p);
        for (int pri = 4; !rs && pri <= 5; pri++) {
            free(b.p);
            b = (tine_buf){0};
            tine_synth_rule_text(&b, name, lhs, rhs, (tine_synth_gen)g, pri, why);
            rs = load(S, b.p);
        }
        tine_error_restore(S->ctx, &saved);
        if (!rs) {
            S->st->overlaps++;
            free(b.p);
            return false;
        }
        tine_rules_free(S->rs);
        S->rs = rs;
        tine_buf_puts(&S->found, b.p);
        S->nrules++;
        S->st->rules++;
        if (g == SYNTH_GEN_ALL) S->st->general++;
        if (S->o->log) fprintf(S->o->log, "%s", b.p);
        free(b.p);
        return true;
    }
    S->st->unproven++;
    return false;
}

/* Does e hold an FPIR op (op < 0), or op? */
static bool holds(const tine_expr_t *e, int op) {
    if (op < 0 ? tine_op_is_fpir(e->op) : e->op == op) return true;
    for (int i = 0; i < e->nops; i++)
        if (holds(e->ops[i], op)) return true;
    return false;
}

/* Beside lift.rules, a rule's left side is what the lifter leaves: FPIR under a cast
 * (the family the hand rules miss). A rule on primitive arithmetic at the root could fire
 * on a subterm below a hand rule's pattern and so stop that rule, making some other
 * expression's lift worse; from scratch there is nothing to stop. */
static bool leftover(const synth *S, const tine_expr_t *lhs) {
    if (S->o->focus >= 0 && !holds(lhs, S->o->focus)) return false;
    if (S->o->from_scratch) return true;
    int op = lhs->op;
    return (op == TINE_OP_CAST || op == TINE_OP_REINTERPRET || op == TINE_OP_SATURATING_CAST) && holds(lhs, -1);
}

/* Steps 3 and 4 for every expression enumerated, smallest first. */
static void search(synth *S) {
    for (size_t i = 0; i < S->n && !timed_out(S); i++) {
        tine_expr_t *e = S->items[i].e;
        if (!S->items[i].size) continue;
        uint64_t h = hash_vals(e->type, S->vals + i * LANES);
        tine_expr_t *best = NULL;
        tine_cost bc = {0, 0};
        for (int32_t c = S->cand_head[h & (S->nheads - 1)]; c >= 0; c = S->cand_next[c]) {
            if (S->cand_h[c] != h || !tine_type_eq(S->cand[c]->type, e->type)) continue;
            tine_cost cc = tine_lift_cost(S->ctx, S->cand[c]);
            if (!best || tine_cost_cmp(cc, bc) < 0) best = S->cand[c], bc = cc;
        }
        if (!best) continue;
        S->st->matched++;
        tine_expr_t *lhs = tine_lift_with(S->ctx, S->rs, e, NULL, NULL);
        if (!lhs || !leftover(S, lhs)) continue;
        if (tine_cost_cmp(bc, tine_lift_cost(S->ctx, lhs)) >= 0) {
            S->st->not_cheaper++;
            continue;
        }
        add_rule(S, e, lhs, best);
    }
}

static void reset_type(synth *S) {
    free(S->slots);
    free(S->cand_head);
    S->slots = NULL;
    S->cand_head = NULL;
    S->nslots = S->n = S->ncand = 0;
}

char *tine_synth_lift(tine_ctx_t *ctx, const tine_synth_lift_opts *o, tine_synth_lift_stats *st) {
    *st = (tine_synth_lift_stats){0};
    synth S = {.ctx = ctx, .o = o, .st = st};
    double t0 = tine_now();
    S.deadline = t0 + o->time_limit;
    S.rs = load(&S, NULL);
    if (!S.rs) return NULL;
    tine_buf_printf(&S.found, "# Lifting rules found by `tine synth lift --size %d` (src/synth/lift_synth.c): each\n"
                              "# rewrites what lift.rules make of an expression into cheaper FPIR, proven with Z3\n"
                              "# for every instantiation it admits. They load beside lift.rules.\n\n",
                    o->size);
    uint64_t seed = 0x243f6a8885a308d3ull;
    for (int k = 0; k < o->ntypes && !timed_out(&S); k++) {
        tine_type_t base = tine_type_with_lanes(o->types[k], 1);
        tine_type_t bt = tine_type_with_lanes(base, LANES);
        /* the inputs: pairs of edge values first, then random values */
        uint64_t edges[] = {0, 1, 2, 7, 8, 15, 16, tine_type_max(base), tine_type_max(base) - 1,
                            (uint64_t)tine_type_min(base), (uint64_t)tine_type_min(base) + 1, tine_type_max(base) / 2,
                            tine_type_max(base) / 2 + 1, (uint64_t)-1};
        uint64_t in[2][LANES];
        for (int l = 0; l < LANES; l++)
            for (int v = 0; v < 2; v++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                uint64_t r = seed >> 11 ^ seed << 21;
                in[v][l] = l < 49 ? edges[v ? l / 7 + (l % 2) * 7 : (l * 3) % 14] : r;
            }
        S.env = tine_env_new(ctx);
        for (int v = 0; v < 2; v++) {
            tine_expr_t *var = tine_var(ctx, v ? "b" : "a", bt);
            /* bit patterns as the type holds them */
            for (int l = 0; l < LANES; l++)
                if (base.bits < 64) {
                    uint64_t m = ((uint64_t)1 << base.bits) - 1;
                    in[v][l] &= m;
                    if (base.kind == TINE_INT && (in[v][l] >> (base.bits - 1) & 1)) in[v][l] |= ~m;
                }
            tine_env_bind(S.env, var, in[v]);
        }
        enumerate(&S, base);
        candidates(&S, base);
        search(&S);
        tine_env_free(S.env);
        reset_type(&S);
    }
    free(S.items);
    free(S.vals);
    free(S.cand);
    free(S.cand_h);
    free(S.cand_next);
    tine_rules_free(S.rs);
    st->seconds = tine_now() - t0;
    return S.found.p;
}
