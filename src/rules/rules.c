/* rules.c — the rule compiler and matcher.
 *
 * A rule file holds entries `name: lhs -> rhs [if predicate] [priority N]  # why`.
 * Compiling a rule instantiates it for every value of its type variable T (u8 … i64):
 * the left side is elaborated into a pattern — ordinary IR whose leaves are wildcard
 * variables ?x and constant wildcards ?c0 — and the right side on those wildcards. An
 * instantiation is admitted when the left side types and no predicate conjunct that
 * depends on T alone is false; then the right side must type to the same element type
 * and must strictly lower the lifting cost. The compiler rejects, each with
 * file:line:col: unknown ops and names, ill-typed patterns, right-hand names the left
 * side does not bind, duplicate names and duplicate left sides, a missing `# why`
 * comment, a rule that does not lower the cost, and two rules of equal priority that
 * can match the same term (the checks between rules are in rules_check.c).
 *
 * Patterns are indexed by root op (a compiled table: a rewrite attempt is a table
 * look-up and a few compares). Matching is structural on element types (patterns are
 * lane-agnostic), binds wildcards consistently, and tries both operand orders of a
 * commutative op.
 */
#include "pattern.h"

/* ---- patterns ------------------------------------------------------------------------ */

typedef struct {
    const tine_expr_t *wild[32];
    tine_expr_t *val[32];
    int n;
} bindings;

static bool bind(bindings *b, const tine_expr_t *w, tine_expr_t *v) {
    for (int i = 0; i < b->n; i++)
        if (b->wild[i] == w) return b->val[i] == v;
    if (b->n == 32) return false;
    b->wild[b->n] = w;
    b->val[b->n++] = v;
    return true;
}

/* Lanes are not compared: a pattern holds at any. A reinterpret in a pattern keeps its
 * operand's bits (a rule's types have no lanes, elab_builtins.c), so a term's reinterpret
 * to lanes of other bits (u8x16 to u16x8) never matches one: its operand's element differs. */
static bool match(const tine_expr_t *p, tine_expr_t *s, bindings *b) {
    if (!same_elem(p->type, s->type)) return false;
    if (is_wild(p)) {
        if (is_cwild(p) && !(s->op == TINE_OP_CONST && (s->flags & TINE_F_UNIFORM))) return false;
        return bind(b, p, s);
    }
    if (p->op == TINE_OP_CONST) return s->op == TINE_OP_CONST && const_equal(p, s);
    if (p->op != s->op || p->nops != s->nops || p->imm != s->imm) return false;
    if (p->op == TINE_OP_VAR || p->op == TINE_OP_LOAD) /* a named leaf in a pattern */
        if (tine_expr_name(p) != tine_expr_name(s)) return false;
    int saved = b->n;
    bool ok = true;
    for (int i = 0; i < p->nops && ok; i++) ok = match(p->ops[i], s->ops[i], b);
    if (!ok && p->nops == 2 && commutative((tine_op_t)p->op)) {
        b->n = saved;
        ok = match(p->ops[0], s->ops[1], b) && match(p->ops[1], s->ops[0], b);
    }
    if (!ok) b->n = saved;
    return ok;
}

/* ---- elaboration environments ------------------------------------------------------- */

static const tine_type_t TYPES[8] = {
    {TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
    {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 64, 1},
};

/* Environment for the right side or the predicate of a matched instantiation. */
static void rhs_env(tine_elab_env *env, tine_binding *binds, const bindings *b, tine_type_t T, int lanes,
                    tine_elab_mode mode) {
    memset(env, 0, sizeof *env);
    env->T = T;
    env->lanes = lanes;
    env->mode = mode;
    int nb = 0;
    for (int i = 0; i < b->n; i++) {
        const char *n = tine_expr_name(b->wild[i]) + 1; /* past '?' */
        if (is_cwild(b->wild[i])) {
            int k = n[1] - '0';
            /* a constant's value; a wildcard bound to itself (checks) has none */
            env->cvals[k] = b->val[i]->op == TINE_OP_CONST ? (tine_i128)tine_const_value(b->val[i], 0) : 0;
            env->cbound |= 1u << k;
        } else {
            binds[nb].name = n;
            binds[nb++].expr = b->val[i];
        }
    }
    env->binds = binds;
    env->nbinds = nb;
}

/* The wildcards of a pattern, bound to themselves (for checking the right side). */
static void self_bindings(tine_ctx_t *ctx, const tine_expr_t *lhs, bindings *b) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, lhs, &n);
    b->n = 0;
    for (uint32_t k = 0; k < n; k++)
        if (is_wild(order[k]) && b->n < 32) {
            b->wild[b->n] = order[k];
            b->val[b->n++] = order[k];
        }
    free(order);
}

/* Evaluates a predicate (or one conjunct). 1 true, 0 false, -1 not decidable here
 * (it needs bindings that are absent), -2 an error (message in ctx). */
static int eval_pred(tine_ctx_t *ctx, const tine_ast *pred, const tine_elab_env *env) {
    tine_i128 v;
    int rc = tine_elaborate_pred(ctx, pred, env, &v);
    if (rc != 0) return rc;
    return v != 0;
}

/* How many times w occurs in e, counted as a tree. */
static int uses(const tine_expr_t *e, const tine_expr_t *w) {
    if (e == w) return 1;
    int n = 0;
    for (int i = 0; i < e->nops; i++) n += uses(e->ops[i], w);
    return n;
}

/* ---- compiling ------------------------------------------------------------------------ */

/* Whether a rule side sums lanes (vector_reduce_add): such patterns are elaborated at
 * PATTERN_SUM_LANES lanes, where a sum of 8 lanes (to 1) or of 2 (to 4) still exists and
 * an instruction that sums lanes types; matching ignores lanes either way. */
enum { PATTERN_SUM_LANES = 8 };
static bool calls(const tine_ast *a, const char *name) {
    if (!a) return false;
    if (a->kind == A_CALL && !strcmp(a->name, name)) return true;
    for (int i = 0; i < a->nargs; i++)
        if (calls(a->args[i], name)) return true;
    return calls(a->targ, name);
}
static bool sums_lanes(const tine_ast *a) { return calls(a, "vector_reduce_add"); }

/* The lanes a rule is built and checked at: PATTERN_SUM_LANES when its left side sums
 * lanes or either side deinterleaves (which a 1-lane vector cannot: the rule still
 * matches terms of any lanes, and its right side applies where they split), else 1. */
static int plan_lanes(const tine_rule_ast *ra) {
    return sums_lanes(ra->lhs) || calls(ra->lhs, "deinterleave") || calls(ra->rhs, "deinterleave") ? PATTERN_SUM_LANES
                                                                                                    : 1;
}

static void rule_error(tine_ctx_t *ctx, const tine_ast *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rule_error(tine_ctx_t *ctx, const tine_ast *at, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tine_diag(ctx, at->src, at->line, at->col, "%s", msg);
}

/* Adds text at the end of the first line of the context's (located) error. */
static void append_first_line(tine_ctx_t *ctx, const char *suffix) {
    const char *e = tine_error(ctx) ? tine_error(ctx) : "error";
    size_t cut = strcspn(e, "\n"), n = strlen(e), k = strlen(suffix);
    char *m = tine_xmalloc(n + k + 1);
    memcpy(m, e, cut);
    memcpy(m + cut, suffix, k);
    memcpy(m + cut + k, e + cut, n - cut + 1);
    tine_set_error_str(ctx, m);
}

static const char *tname(tine_type_t t, char b[16]) { return tine_type_name(t, b); }

/* Ops a template may hold: element-wise ones, whose lanes follow their operands'. */
static bool elementwise(tine_op_t op) {
    switch (op) {
    case TINE_OP_LOAD: case TINE_OP_BROADCAST: case TINE_OP_RAMP: case TINE_OP_CONCAT: case TINE_OP_SLICE:
    case TINE_OP_INTERLEAVE: case TINE_OP_DEINTERLEAVE: case TINE_OP_VECTOR_REDUCE_ADD: return false;
    case TINE_OP_CONST: return true;
    default: return true;
    }
}

/* An instruction whose operands and result all have one lane count (pavgb, not pmaddwd
 * or vpdpbusd): its template node can be rebuilt at any lanes. */
static bool same_lanes(const tine_expr_t *e) {
    for (int i = 0; i < e->nops; i++)
        if (e->ops[i]->type.lanes != e->type.lanes) return false;
    return true;
}

static void make_template(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_rule_inst *in, const tine_rule_ast *ra,
                          const bindings *self) {
    tine_binding binds[32];
    tine_elab_env env;
    tine_saved_error saved = tine_error_save(ctx);
    rhs_env(&env, binds, self, in->T, 1, TINE_ELAB_RHS);
    env.cwild_vars = true;
    tine_expr_t *t = tine_elaborate(ctx, ra->rhs, &env);
    tine_error_restore(ctx, &saved);
    if (!t) return; /* computes with constants: elaborated per match */
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, t, &n);
    for (uint32_t k = 0; k < n; k++)
        if (!elementwise((tine_op_t)order[k]->op) ||
            (order[k]->op == TINE_OP_CONST && !(order[k]->flags & TINE_F_UNIFORM)) ||
            (order[k]->op == TINE_OP_INSN && !same_lanes(order[k]))) {
            free(order);
            return;
        }
    in->rhs_order = tine_arena_alloc(&rs->arena, n * sizeof *in->rhs_order);
    memcpy(in->rhs_order, order, n * sizeof *order);
    in->rhs_n = n;
    free(order);
}

/* The template with wildcards replaced by what they matched, at the subject's lanes.
 * NULL when a constant does not fit the type its right-side position gives it. */
static tine_expr_t *instantiate(tine_ctx_t *ctx, const tine_rule_inst *in, const bindings *b, int lanes) {
    tine_expr_t *local[64], **map = in->rhs_n <= 64 ? local : malloc(in->rhs_n * sizeof *map);
    TINE_ASSERT(map != NULL);
    tine_expr_t *r = NULL;
    for (uint32_t k = 0; k < in->rhs_n; k++) {
        tine_expr_t *e = in->rhs_order[k];
        tine_type_t t = tine_type_with_lanes(e->type, lanes);
        tine_expr_t *x = NULL;
        if (is_wild(e)) {
            const char *name = tine_expr_name(e);
            for (int i = 0; i < b->n && !x; i++) {
                if (b->wild[i] == e) x = b->val[i];
                else if (is_cwild(e) && !strcmp(tine_expr_name(b->wild[i]), name)) {
                    /* the matched constant, retyped for this position */
                    tine_type_t pt = b->wild[i]->type;
                    if (pt.kind == TINE_UINT && pt.bits == 128) goto out;
                    tine_i128 v = (tine_i128)tine_const_value(b->val[i], 0); /* canonical: exact */
                    if (!tine_fits(t, v)) goto out;
                    x = tine_const_splat(ctx, t, (tine_u128)v);
                }
            }
            TINE_ASSERT(x != NULL);
        } else if (e->op == TINE_OP_CONST) {
            x = tine_const_splat(ctx, t, tine_const_value(e, 0));
        } else {
            tine_expr_t *ops[255]; /* a node's most operands (an instruction has up to 6) */
            for (int i = 0; i < e->nops; i++) ops[i] = map[tine_topo_index(in->rhs_order, in->rhs_n, e->ops[i])];
            x = tine_make(ctx, (tine_op_t)e->op, t, e->nops, ops, e->imm, e->flags, tine_node_words(e),
                          tine_node_nwords(e));
        }
        map[k] = x;
    }
    r = map[in->rhs_n - 1];
out:
    if (map != local) free(map);
    return r;
}

/* Why an instantiation was not admitted (when none is, the message says which). */
enum { NOT_TYPED = 1, NOT_WIDE = 2, NOT_BARE = 4, NOT_COND = 8 };

/* Why a rule's instantiations so far were not admitted. */
typedef struct {
    char *first_err; /* why the first instantiation failed to type, if all fail */
    tine_type_t first_err_T;
    bool err_differs; /* another T fails otherwise: the message is about first_err_T */
    int why_not;      /* NOT_* */
} not_admitted;

/* Notes the context's error for a left side that does not type with T. */
static void note_untyped(tine_ctx_t *ctx, not_admitted *na, tine_type_t T) {
    const char *m = tine_error(ctx) ? tine_error(ctx) : "ill-typed left side";
    if (!na->first_err) {
        na->first_err = tine_strdup(m);
        na->first_err_T = T;
    } else if (strcmp(na->first_err, m)) {
        na->err_differs = true;
    }
    na->why_not |= NOT_TYPED;
    tine_clear_error(ctx);
}

/* Whether a pattern computes over 128-bit intermediates: such are not lifting patterns. */
static bool wide_pattern(tine_ctx_t *ctx, const tine_expr_t *lhs) {
    bool wide = false;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, lhs, &n);
    for (uint32_t k = 0; k < n; k++)
        if (order[k]->type.bits > 64) wide = true;
    free(order);
    return wide;
}

/* The conjuncts that depend on T alone decide whether T is admitted: 1 admitted (the
 * others, undecided without a match, in dyn[0..*ndyn)), 0 not, -1 an error (in ctx). */
static int admit_T(tine_ctx_t *ctx, const tine_rule_ast *ra, const bindings *self, tine_type_t T, int plan,
                   const tine_ast **dyn, int *ndyn) {
    tine_binding binds[32];
    tine_elab_env env;
    *ndyn = 0;
    if (!ra->pred) return 1;
    rhs_env(&env, binds, self, T, plan, TINE_ELAB_PRED);
    env.static_only = true;
    for (int c = 0; c < ra->nconj; c++) {
        int v = eval_pred(ctx, ra->conj[c], &env);
        if (v == -2) return -1;
        if (v == -1) dyn[(*ndyn)++] = ra->conj[c];
        tine_clear_error(ctx);
        if (v == 0) return 0;
    }
    return 1;
}

/* The environment of the right side or predicate when checked: the wildcards bound to
 * themselves, every constant wildcard of the left side (cmask) bound to 1. */
static void check_env(tine_elab_env *env, tine_binding *binds, const bindings *self, tine_type_t T, int plan,
                      tine_elab_mode mode, uint32_t cmask) {
    rhs_env(env, binds, self, T, plan, mode);
    for (int k = 0; k < 10; k++) env->cvals[k] = 1;
    env->cbound = cmask;
}

/* The checks of an admitted instantiation's right side against its left: the same element
 * type, a predicate that makes sense, a lower lifting cost (*cl left, *cr right), no
 * wildcard used more often. false after the message. */
static bool check_rhs(tine_ctx_t *ctx, const tine_ruleset_t *rs, const tine_rule_ast *ra, const bindings *self,
                      tine_type_t T, int plan, uint32_t cmask, const tine_expr_t *lhs, const tine_expr_t *rhs,
                      tine_cost *cl, tine_cost *cr) {
    char a[16], b[16], tb[16];
    if (!same_elem(rhs->type, lhs->type)) {
        rule_error(ctx, ra->rhs, "the right side has type %s but the left side %s (with T = %s)",
                   tname(rhs->type, a), tname(lhs->type, b), tname(T, tb));
        return false;
    }
    /* the predicate must at least make sense: elaborate it with the wildcards bound */
    if (ra->pred) {
        tine_binding binds[32];
        tine_elab_env env;
        check_env(&env, binds, self, T, plan, TINE_ELAB_PRED, cmask);
        if (eval_pred(ctx, ra->pred, &env) == -2) return false;
        tine_clear_error(ctx);
    }
    *cl = tine_lift_cost(ctx, lhs);
    *cr = tine_lift_cost(ctx, rhs);
    if (!rs->lowering && tine_cost_cmp(*cr, *cl) >= 0) {
        rule_error(ctx, ra->rhs,
                   "the rule does not lower the lifting cost (with T = %s: left %d bits/%d, right %d bits/%d)",
                   tname(T, tb), cl->bits, cl->rank, cr->bits, cr->rank);
        return false;
    }
    /* termination: the cost of the term as a tree (wildcards' subterms counted at
       every use) must fall, so the right side may not use a wildcard more often */
    for (int i = 0; i < self->n && !rs->lowering; i++) {
        if (is_cwild(self->wild[i])) continue;
        int nl = uses(lhs, self->wild[i]), nr = uses(rhs, self->wild[i]);
        if (nr > nl) {
            rule_error(ctx, ra->rhs,
                       "the right side uses '%s' %d times but the left side only %d (with T = %s): a rule may "
                       "not copy a subterm, or lifting need not terminate",
                       tine_expr_name(self->wild[i]) + 1, nr, nl, tname(T, tb));
            return false;
        }
    }
    return true;
}

/* The message when no T is admitted (the context takes na->first_err). */
static void no_instance_error(tine_ctx_t *ctx, const tine_rule_ast *ra, const not_admitted *na) {
    if (na->first_err) { /* already located */
        tine_set_error_str(ctx, na->first_err);
        if (na->err_differs) { /* the types it names are those of one T: say which */
            char tb[16], suffix[32];
            snprintf(suffix, sizeof suffix, " (with T = %s)", tname(na->first_err_T, tb));
            append_first_line(ctx, suffix);
        }
    }
    /* the types that need 128 bits are never admitted: the others say why */
    else if ((na->why_not & ~NOT_WIDE) == NOT_BARE && ra->lhs->kind == A_NAME)
        rule_error(ctx, ra->lhs, "the left side is a bare wildcard; a pattern needs an op at its root");
    else if ((na->why_not & ~NOT_WIDE) == NOT_BARE)
        rule_error(ctx, ra->lhs,
                   "the left side is a bare wildcard for every T (a cast to the type it casts from vanishes); "
                   "a pattern needs an op at its root");
    else if ((na->why_not & ~NOT_WIDE) == NOT_COND)
        rule_error(ctx, ra->conj[0], "the condition admits no type (no T from u8 to i64 satisfies it)");
    else rule_error(ctx, ra->lhs, "the left side admits no type (no T from u8 to i64 satisfies it)");
}

/* Instantiates rule r for T: 1 an instantiation added, 0 T not admitted (why in na), -1
 * an error (in ctx). */
static int instantiate_rule(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_rule *r, tine_type_t T, not_admitted *na) {
    const tine_rule_ast *ra = &r->ast;
    int plan = plan_lanes(ra);
    tine_elab_env env = {.T = T, .lanes = plan, .mode = TINE_ELAB_PATTERN};
    tine_expr_t *lhs = tine_elaborate(ctx, ra->lhs, &env);
    if (!lhs) {
        note_untyped(ctx, na, T);
        return 0;
    }
    if (wide_pattern(ctx, lhs)) {
        na->why_not |= NOT_WIDE;
        return 0;
    }
    /* a rule that does not mention T instantiates to the same pattern every time */
    for (int k = 0; k < r->ninst; k++)
        if (r->inst[k].lhs == lhs) return 0;
    /* casts and reinterprets to the same type vanish, so for some T a pattern may
       collapse to a bare wildcard: that T is not admitted */
    if (lhs->op == TINE_OP_VAR || lhs->op == TINE_OP_CONST) {
        na->why_not |= NOT_BARE;
        return 0;
    }
    bindings self;
    self_bindings(ctx, lhs, &self);
    /* the constant wildcards the left side binds: the only ones the right side and the
       condition may name (a match binds no other) */
    uint32_t cmask = 0;
    for (int i = 0; i < self.n; i++)
        if (is_cwild(self.wild[i])) cmask |= 1u << (tine_expr_name(self.wild[i])[2] - '0');
    const tine_ast **dyn = ra->nconj ? tine_arena_alloc(&rs->arena, (size_t)ra->nconj * sizeof *dyn) : NULL;
    int ndyn;
    int admitted = admit_T(ctx, ra, &self, T, plan, dyn, &ndyn);
    if (admitted < 0) return -1;
    if (!admitted) {
        na->why_not |= NOT_COND;
        return 0;
    }
    /* the right side, with every constant wildcard of the left side bound to 1 */
    tine_binding binds[32];
    tine_elab_env renv;
    check_env(&renv, binds, &self, T, plan, TINE_ELAB_RHS, cmask);
    tine_expr_t *rhs = tine_elaborate(ctx, ra->rhs, &renv);
    if (!rhs) {
        char tb[16], suffix[32];
        snprintf(suffix, sizeof suffix, " (with T = %s)", tname(T, tb));
        append_first_line(ctx, suffix);
        return -1;
    }
    tine_cost cl, cr;
    if (!check_rhs(ctx, rs, ra, &self, T, plan, cmask, lhs, rhs, &cl, &cr)) return -1;
    tine_rule_inst *in = &r->inst[r->ninst++];
    in->T = T;
    in->lhs = lhs;
    in->rhs = rhs;
    in->cost = cr;
    in->lhs_cost = cl;
    in->delta = (tine_cost){cr.bits - cl.bits, cr.rank - cl.rank};
    in->dyn = dyn;
    in->ndyn = ndyn;
    make_template(ctx, rs, in, ra, &self);
    return 1;
}

/* Instantiates rule r for every T it admits; false after the message. */
static bool compile_rule(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_rule *r) {
    not_admitted na = {0};
    for (int ti = 0; ti < 8; ti++) {
        if (instantiate_rule(ctx, rs, r, TYPES[ti], &na) < 0) {
            free(na.first_err);
            return false;
        }
    }
    if (r->ninst == 0) {
        no_instance_error(ctx, &r->ast, &na); /* the context keeps first_err */
        return false;
    }
    free(na.first_err);
    return true;
}

/* ---- the size of a rule ----------------------------------------------------------------
 *
 * A rule is a small pattern, and the matcher, the overlap check and the proofs walk its
 * sides by recursion. The parser bounds parentheses and calls (TINE_MAX_DEPTH), not a chain
 * a + b + c ... (each operator one level deeper), so each side and each condition (the
 * operands of the predicate's top-level &&, which may be many) is measured here, without
 * recursion, and refused beyond TINE_MAX_DEPTH levels as a limit. */

/* Whether a nests deeper than TINE_MAX_DEPTH (counting a itself as 1). */
static bool too_deep(const tine_ast *a) {
    struct item {
        const tine_ast *a;
        int depth;
    } *stack = NULL;
    int sp = 0, cap = 0;
    bool deep = false;
    TINE_PUSH(stack, sp, cap, ((struct item){a, 1}));
    while (sp && !deep) {
        struct item it = stack[--sp];
        if (it.depth > TINE_MAX_DEPTH) deep = true;
        for (int i = -1; i < it.a->nargs && !deep; i++) {
            const tine_ast *c = i < 0 ? it.a->targ : it.a->args[i];
            if (!c) continue;
            TINE_PUSH(stack, sp, cap, ((struct item){c, it.depth + 1}));
        }
    }
    free(stack);
    return deep;
}

static bool rule_too_deep(tine_ctx_t *ctx, const tine_rule_ast *ra) {
    const tine_ast *part = NULL;
    const char *what = NULL;
    if (too_deep(ra->lhs)) part = ra->lhs, what = "left side";
    else if (too_deep(ra->rhs)) part = ra->rhs, what = "right side";
    for (int c = 0; c < ra->nconj && !part; c++)
        if (too_deep(ra->conj[c])) part = ra->conj[c], what = "condition";
    if (!part) return false;
    while (part->kind == A_BINARY) part = part->args[0]; /* where the part starts */
    rule_error(ctx, part,
               "the %s of rule '%s' nests more than %d deep (a chain a + b + c ... counts a level per operator)",
               what, ra->name, TINE_MAX_DEPTH);
    tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
    return true;
}

/* ---- bounds predicates ---------------------------------------------------------------- */

/* upper_bounded(e, K), lower_bounded(e, K), can_prove(c): the elaborator's hook for rule
 * conditions (and right sides) that ask the bounds analysis. */
static bool bounds_pred(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    const char *n = a->name;
    tine_ctx_t *ctx = tine_elab_ctx(el);
    tine_elab_val v, w, r = {.lit = 1}, none = {0};
    tine_i128 lo, hi;
    if (!strcmp(n, "upper_bounded") || !strcmp(n, "lower_bounded")) {
        *out = none;
        if (!tine_elab_ok(el, tine_elab_arity(el, a, 2))) return true;
        v = tine_elab_expr(el, a->args[0], lanes);
        w = tine_elab_expr(el, a->args[1], lanes);
        if (!tine_elab_ok(el, v) || !tine_elab_ok(el, w)) return true;
        if (v.lit) *out = tine_elab_need_typed(el, a->args[0], v);
        else if (w.lit != 1) *out = tine_elab_fail(el, a->args[1], "%s needs a constant bound", n);
        else {
            r.iv = tine_bounds(ctx, v.e, &lo, &hi) && (n[0] == 'u' ? hi <= w.iv : lo >= w.iv);
            *out = r;
        }
        return true;
    }
    if (!strcmp(n, "can_prove")) {
        *out = none;
        if (!tine_elab_ok(el, tine_elab_arity(el, a, 1))) return true;
        v = tine_elab_expr(el, a->args[0], lanes);
        if (!tine_elab_ok(el, v)) *out = v;
        else if (v.lit == 1) *out = (tine_elab_val){.lit = 1, .iv = v.iv != 0};
        else if (v.lit || v.e->type.kind != TINE_BOOL) *out = tine_elab_fail(el, a->args[0], "can_prove needs a condition");
        else {
            r.iv = tine_bounds(ctx, v.e, &lo, &hi) && lo == 1;
            *out = r;
        }
        return true;
    }
    return false;
}

tine_ruleset_t *tine_rules_compile(tine_ctx_t *ctx, const char *text, const char *file) {
    return tine_rules_compile_kind(ctx, text, file, false);
}

tine_ruleset_t *tine_rules_compile_kind(tine_ctx_t *ctx, const char *text, const char *file, bool lowering) {
    return tine_rules_compile_files(ctx, &text, &file, 1, lowering);
}

tine_ruleset_t *tine_rules_compile_files(tine_ctx_t *ctx, const char *const *texts, const char *const *files, int k,
                                         bool lowering) {
    /* conditions are elaborated in this context from now on */
    tine_elab_extend(ctx, bounds_pred, 1u << TINE_ELAB_PRED | 1u << TINE_ELAB_RHS, TINE_LAYER_RULES);
    tine_ruleset_t *rs = tine_xcalloc(1, sizeof *rs);
    rs->lowering = lowering;
    /* each file parsed on its own (its rules keep their file and line), then one list */
    const tine_rule_ast **asts = NULL;
    size_t n = 0, cap = 0;
    for (int f = 0; f < k; f++) {
        tine_rule_ast *a;
        int m;
        if (tine_parse_rules(ctx, &rs->arena, texts[f], files[f], &a, &m) != 0) {
            free(asts);
            tine_rules_free(rs);
            return NULL;
        }
        for (int i = 0; i < m; i++) TINE_PUSH(asts, n, cap, &a[i]);
    }
    rs->rules = tine_xcalloc(n ? n : 1, sizeof *rs->rules);
    rs->n = (int)n;
    tine_rule_index names = {0};
    bool ok = true;
    for (int i = 0; i < rs->n && ok; i++) {
        tine_rule *r = &rs->rules[i];
        r->ast = *asts[i];
        r->index = i;
        if (rule_too_deep(ctx, &r->ast)) {
            ok = false;
            break;
        }
        int same_name, same_side;
        tine_rule_index_twins(&names, rs, i, lowering, &same_name, &same_side);
        if (same_name >= 0 && (same_side < 0 || same_name <= same_side)) {
            tine_diag(ctx, r->ast.src, r->ast.line, r->ast.col, "duplicate rule name '%s' (first at line %d)",
                      r->ast.name, rs->rules[same_name].ast.line);
            ok = false;
        } else if (same_side >= 0) {
            const tine_rule_ast *o = &rs->rules[same_side].ast;
            tine_diag(ctx, r->ast.src, r->ast.line, r->ast.col,
                      "rule '%s' has the same left side and condition as '%s' (line %d)", r->ast.name, o->name,
                      o->line);
            ok = false;
        } else if (!r->ast.why) {
            tine_diag(ctx, r->ast.src, r->ast.end_line, r->ast.end_col,
                      "rule '%s' needs a comment saying why it holds: '# ...' at the end of its last line, here",
                      r->ast.name);
            ok = false;
        } else {
            tine_rule_index_add(&names, rs, i);
            ok = compile_rule(ctx, rs, r);
        }
    }
    tine_rule_index_free(&names);
    free(asts);
    if (!ok || (!rs->lowering && !tine_rules_check_overlaps(ctx, rs))) {
        tine_rules_free(rs);
        return NULL;
    }
    /* dispatch table by root op */
    for (int i = 0; i < rs->n; i++)
        for (int x = 0; x < rs->rules[i].ninst; x++) {
            const tine_expr_t *lhs = rs->rules[i].inst[x].lhs;
            struct tine_rule_list *l = &rs->by_key[lhs->op][tine_rule_key(lhs->type)];
            TINE_PUSH(l->items, l->n, l->cap, ((tine_rule_ref){&rs->rules[i], &rs->rules[i].inst[x]}));
        }
    return rs;
}

void tine_rules_free(tine_ruleset_t *rs) {
    if (!rs) return;
    for (int op = 0; op < TINE_OP_COUNT; op++)
        for (int k = 0; k < TINE_RULE_TYPES; k++) free(rs->by_key[op][k].items);
    free(rs->memo.v);
    free(rs->rules);
    tine_arena_free(&rs->arena);
    free(rs);
}

int tine_rules_count(const tine_ruleset_t *rs) { return rs->n; }

/* ---- applying --------------------------------------------------------------------- */

/* The rewrite of e by one rule instantiation: NULL when it does not match, its
 * predicate does not hold, or its right side does not apply (log2 of a constant it
 * rejects, a constant that does not fit). */
static tine_expr_t *candidate(tine_ctx_t *ctx, const tine_rule_ref *ref, tine_expr_t *e) {
    bindings b;
    b.n = 0;
    if (!match(ref->inst->lhs, e, &b)) return NULL;
    tine_binding binds[32];
    tine_elab_env env;
    const tine_rule_inst *in = ref->inst;
    if (in->ndyn) {
        rhs_env(&env, binds, &b, in->T, e->type.lanes, TINE_ELAB_PRED);
        for (int c = 0; c < in->ndyn; c++)
            if (eval_pred(ctx, in->dyn[c], &env) != 1) return NULL;
    }
    tine_expr_t *r;
    if (in->rhs_order) {
        r = instantiate(ctx, in, &b, e->type.lanes);
    } else {
        rhs_env(&env, binds, &b, in->T, e->type.lanes, TINE_ELAB_RHS);
        r = tine_elaborate(ctx, ref->rule->ast.rhs, &env);
    }
    return r && tine_type_eq(r->type, e->type) ? r : NULL;
}

/* ---- rewriting a DAG ----------------------------------------------------------------- */

static tine_expr_t **memo_slot(tine_ctx_t *ctx, tine_rewrite_memo *m, uint32_t id) {
    if (id >= m->cap) {
        uint32_t cap = m->cap ? m->cap : 1024;
        while (cap <= id || cap < ctx->count) cap *= 2;
        m->v = tine_xrealloc(m->v, cap * sizeof *m->v);
        memset(m->v + m->cap, 0, (cap - m->cap) * sizeof *m->v);
        m->cap = cap;
    }
    return &m->v[id];
}

/* Forgets every rewrite made under other bounds facts than the ones in view now. */
static void memo_sync(tine_ctx_t *ctx, tine_rewrite_memo *m) {
    uint64_t epoch = tine_bounds_epoch(ctx);
    if (m->epoch == epoch) return;
    if (m->v) memset(m->v, 0, m->cap * sizeof *m->v);
    m->epoch = epoch;
}

tine_expr_t *tine_rewrite_memo_get(tine_ctx_t *ctx, tine_rewrite_memo *m, const tine_expr_t *e) {
    memo_sync(ctx, m);
    return *memo_slot(ctx, m, e->id);
}
void tine_rewrite_memo_set(tine_ctx_t *ctx, tine_rewrite_memo *m, const tine_expr_t *e, tine_expr_t *r) {
    memo_sync(ctx, m);
    *memo_slot(ctx, m, e->id) = r;
}

/* Post-order over the part of the DAG not rewritten yet: the memo doubles as the visited
 * set, so a walk costs only the new nodes. The stack is the current path. */
tine_expr_t *tine_rewrite_dag(tine_ctx_t *ctx, tine_rewrite_memo *m, tine_expr_t *root, tine_rewrite_root_fn fn,
                              void *user) {
    memo_sync(ctx, m);
    if (*memo_slot(ctx, m, root->id)) return *memo_slot(ctx, m, root->id);
    struct frame {
        tine_expr_t *e;
        int next;
    } local[64], *stack = local;
    size_t sp = 0, cap = 64;
    stack[sp++] = (struct frame){root, 0};
    while (sp) {
        struct frame *f = &stack[sp - 1];
        tine_expr_t *e = f->e;
        if (f->next < e->nops) {
            tine_expr_t *c = e->ops[f->next++];
            if (*memo_slot(ctx, m, c->id)) continue;
            if (sp == cap) {
                struct frame *n = tine_xmalloc(2 * cap * sizeof *n);
                memcpy(n, stack, sp * sizeof *n);
                if (stack != local) free(stack);
                stack = n;
                cap *= 2;
            }
            stack[sp++] = (struct frame){c, 0};
            continue;
        }
        sp--;
        tine_expr_t *ops[256];
        for (int i = 0; i < e->nops; i++) ops[i] = *memo_slot(ctx, m, e->ops[i]->id);
        tine_expr_t *x = tine_rebuild(ctx, e, ops);
        tine_expr_t *r = *memo_slot(ctx, m, x->id);
        if (!r) r = fn(user, x, e);
        *memo_slot(ctx, m, e->id) = r;
        *memo_slot(ctx, m, x->id) = r;
        *memo_slot(ctx, m, r->id) = r;
    }
    if (stack != local) free(stack);
    return *memo_slot(ctx, m, root->id);
}

tine_expr_t *tine_rules_try(tine_ctx_t *ctx, const tine_ruleset_t *rs, tine_expr_t *e, const tine_rule **used) {
    const struct tine_rule_list *l = &rs->by_key[e->op][tine_rule_key(e->type)];
    if (l->n == 0) return NULL;
    tine_expr_t *best = NULL;
    const tine_rule_ref *best_ref = NULL;
    /* failed predicates and right sides leave messages; the caller's error survives */
    tine_saved_error saved = tine_error_save(ctx);
    for (int i = 0; i < l->n; i++) {
        const tine_rule_ref *ref = &l->items[i];
        /* a candidate that cannot beat the best so far is not tried */
        if (best_ref) {
            int c = tine_cost_cmp(ref->inst->delta, best_ref->inst->delta);
            if (c > 0 || (c == 0 && ref->rule->ast.priority <= best_ref->rule->ast.priority)) continue;
        }
        tine_expr_t *r = candidate(ctx, ref, e);
        if (!r) continue;
        best = r;
        best_ref = ref;
    }
    tine_error_restore(ctx, &saved);
    if (used) *used = best_ref ? best_ref->rule : NULL;
    return best;
}

tine_expr_t *tine_rules_try_cost(tine_ctx_t *ctx, const tine_ruleset_t *rs, tine_expr_t *e, tine_rule_cost_fn cost,
                                 void *user, const tine_rule **used) {
    const struct tine_rule_list *l = &rs->by_key[e->op][tine_rule_key(e->type)];
    if (used) *used = NULL;
    if (l->n == 0) return NULL;
    tine_expr_t *best = NULL;
    const tine_rule_ref *best_ref = NULL;
    double best_cost = 0;
    tine_saved_error saved = tine_error_save(ctx);
    for (int i = 0; i < l->n; i++) {
        const tine_rule_ref *ref = &l->items[i];
        tine_expr_t *r = candidate(ctx, ref, e);
        if (!r) continue;
        double c = cost(user, e, r);
        if (c < 0) continue; /* not on this target */
        if (best_ref && (c > best_cost || (c == best_cost && ref->rule->ast.priority <= best_ref->rule->ast.priority)))
            continue;
        best = r;
        best_ref = ref;
        best_cost = c;
    }
    tine_error_restore(ctx, &saved);
    if (used) *used = best_ref ? best_ref->rule : NULL;
    return best;
}

int tine_rule_info(const tine_ruleset_t *rs, int i, const char **name, const char **file, int *line,
                   const char **why) {
    if (i < 0 || i >= rs->n) return -1;
    const tine_rule_ast *r = &rs->rules[i].ast;
    if (name) *name = r->name;
    if (file) *file = r->src->file;
    if (line) *line = r->line;
    if (why) *why = r->why;
    return 0;
}
