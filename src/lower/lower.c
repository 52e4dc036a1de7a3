/* lower.c — the lowering driver: FPIR (and a few primitive ops) to one target's
 * instructions, with that target's lowering rules (src/targets/NAME.rules).
 *
 * Bottom-up over the DAG like lifting: a node's operands are lowered first, then every
 * rule whose left side matches the node is instantiated, and the driver keeps the
 * rewrite that costs least on the target. A rewrite that names an instruction the
 * target lacks (no form whose feature the target has) is not a candidate, so one rule
 * file serves SSE2 to AVX-512: where the direct rule is out, an emulation or the
 * generic fallback remains. The rewrite's own new nodes are lowered in turn (an
 * emulation written with FPIR ops reaches instructions that way), to a bounded depth.
 * What no rule covers is left as it is, and the emitter gives it to LLVM as generic IR.
 *
 * Cost of a rewrite: it is lowered first (so an op it introduces costs what its own
 * lowering costs), then the sum over its new nodes (those created after the node it
 * replaces) of an instruction's reciprocal throughput times the registers it needs at
 * the width it is emitted at, an FPIR op no rule lowers what its definition costs, and
 * 0.5 per register for a primitive op (1 for a multiply, 10 for a division, and what
 * the description's byte_shift says for a shift of bytes, which x86 does as a word shift
 * and a mask); casts of
 * equal width, reinterprets, constants and broadcasts are free. The numbers only rank
 * candidates for one node.
 */
#include "../rules/rules.h"


/* The lowering rules of each description, compiled on first use (TINE_LAYER_LOWER), and
 * the selection trace a higher layer installed (tine_select_set_trace). */
typedef struct {
    tine_ruleset_t *rules[2][TINE_MAX_ISAS]; /* hand, synthesized */
    bool synthesized;
    tine_select_trace_fn trace;
    tine_lift_trace_fn rule;
    void *trace_user;
} lower_state;

static void free_state(tine_ctx_t *ctx, void *p) {
    (void)ctx;
    lower_state *st = p;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < TINE_MAX_ISAS; i++) tine_rules_free(st->rules[k][i]);
    free(st);
}

static lower_state *state(tine_ctx_t *ctx) { return tine_layer_make(ctx, TINE_LAYER_LOWER, sizeof(lower_state), free_state); }

tine_ruleset_t *tine_lower_rules(tine_ctx_t *ctx, const char *isa_name) {
    const tine_isa *isa = tine_isa_get(ctx, isa_name);
    if (!isa) {
        tine_set_error(ctx, "no target description named '%s'", isa_name ? isa_name : "");
        return NULL;
    }
    lower_state *st = state(ctx);
    const char *file, *text = st->synthesized ? tine_isa_synth_rules(isa, &file) : NULL;
    int kind = text != NULL;
    if (!text) text = tine_isa_rules(isa, &file);
    tine_ruleset_t **rs = &st->rules[kind][isa->id];
    if (!*rs) {
        tine_saved_error saved = tine_error_save(ctx);
        *rs = tine_rules_compile_kind(ctx, text, file, true);
        if (!*rs) {
            /* the shipped rules compile (a test says so); this is a build defect */
            fprintf(stderr, "%s\n", tine_error(ctx));
            TINE_ASSERT(!"the built-in lowering rules do not compile");
        }
        tine_error_restore(ctx, &saved);
    }
    return *rs;
}

int tine_set_lower_rules(tine_ctx_t *ctx, const char *which) {
    bool synth = which && !strcmp(which, "synthesized");
    if (!synth && !(which && !strcmp(which, "hand"))) {
        tine_set_error(ctx, "lowering rules '%s': hand or synthesized", which ? which : "");
        return -1;
    }
    state(ctx)->synthesized = synth;
    return 0;
}

typedef struct {
    tine_ctx_t *ctx;
    const tine_ruleset_t *rs;
    uint32_t features;
    int widest; /* the widest register any instruction has on the target */
    double byte_shift; /* a shift of 8-bit lanes, per register (the description's byte_shift) */
    tine_lift_trace_fn trace;
    void *user;
    tine_rewrite_memo memo;  /* the lowering */
    tine_rewrite_memo trial; /* candidates lowered to cost them (not traced) */
    tine_rewrite_memo *cur;
    int depth;
    uint32_t old_id; /* nodes up to this id existed before the node being lowered was rebuilt */
} lowerer;

static double regs(int bits, int width) { return bits <= width ? 1.0 : (double)((bits + width - 1) / width); }

static double fpir_cost(lowerer *L, const tine_expr_t *x);

static double lane_cost(lowerer *L, const tine_expr_t *x);

/* Lanes wider than 64 bits (a 64-bit op's definition at double width) LLVM splits into
 * scalar code, lane by lane. */
static double node_cost(lowerer *L, const tine_expr_t *x) {
    double c = lane_cost(L, x);
    bool wide = x->type.bits > 64 || (x->nops && x->ops[0]->type.bits > 64);
    return c > 0 && wide ? c * x->type.lanes : c;
}

static double lane_cost(lowerer *L, const tine_expr_t *x) {
    int bits = x->type.lanes * x->type.bits;
    switch ((tine_op_t)x->op) {
    case TINE_OP_CONST: case TINE_OP_VAR: case TINE_OP_LOAD: case TINE_OP_BROADCAST: case TINE_OP_REINTERPRET:
        return 0;
    case TINE_OP_INSN: {
        const tine_insn *in = tine_insn_info(L->ctx, x->imm, NULL);
        int w = 0;
        for (int f = 0; f < in->nforms; f++)
            if ((in->form[f].features & ~L->features) == 0 && in->form[f].bits > w && (w == 0 || in->form[f].bits <= bits))
                w = in->form[f].bits;
        if (!w) return -1;
        return (in->rtp > 0 ? in->rtp : 0.25) * regs(bits, w);
    }
    case TINE_OP_CAST:
        return x->ops[0]->type.bits == x->type.bits ? 0 : 0.5 * regs(bits, L->widest);
    case TINE_OP_MUL: return regs(bits, L->widest);
    case TINE_OP_SHL: case TINE_OP_SHR: /* a description without byte shifts (x86) says what they cost */
        return (x->type.bits == 8 ? L->byte_shift : 0.5) * regs(bits, L->widest);
    case TINE_OP_DIV: case TINE_OP_MOD: return 10 * regs(bits, L->widest);
    default:
        if (tine_op_is_fpir((tine_op_t)x->op)) return fpir_cost(L, x);
        return 0.5 * regs(bits, L->widest);
    }
}

/* An FPIR op no rule lowers goes to LLVM as its definition: it costs that. */
static double fpir_cost(lowerer *L, const tine_expr_t *x) {
    tine_expr_t *ex = tine_fpir_expand_node(L->ctx, x);
    uint32_t n;
    tine_expr_t **order = tine_topo(L->ctx, ex, &n);
    /* the definition's own nodes: those reached from its root without passing through
       an operand (hash-consing may have made some of them before x: ids do not tell) */
    bool *own = tine_xcalloc(n, sizeof *own);
    own[n - 1] = true;
    double c = 0;
    for (uint32_t k = n; k-- > 0;) {
        tine_expr_t *y = order[k];
        bool operand = false;
        for (int i = 0; i < x->nops; i++) operand |= y == x->ops[i];
        if (!own[k] || operand) continue;
        for (int i = 0; i < y->nops; i++) own[tine_topo_index(order, n, y->ops[i])] = true;
        double nc = node_cost(L, y);
        c += nc > 0 ? nc : 0;
    }
    free(own);
    free(order);
    return c;
}

/* Cost of r's nodes that are newer than e (what the rewrite adds); -1 if one of them is
 * an instruction the target lacks. */
static double add_cost(lowerer *L, const tine_expr_t *e, const tine_expr_t *x, const tine_expr_t **seen, int *nseen) {
    if ((x->id <= e->id || x->id <= L->old_id) && x != e) return 0;
    for (int i = 0; i < *nseen; i++)
        if (seen[i] == x) return 0;
    if (*nseen < 256) seen[(*nseen)++] = x;
    double c = node_cost(L, x);
    if (c < 0) return -1;
    for (int i = 0; i < x->nops; i++) {
        double o = add_cost(L, e, x->ops[i], seen, nseen);
        if (o < 0) return -1;
        c += o;
    }
    return c;
}

static tine_expr_t *lower_root(void *user, tine_expr_t *n, tine_expr_t *orig);

/* A candidate costs what it costs once lowered itself (its min of i8 on SSE2 is an
 * emulation, not one instruction). Candidates are lowered in a memo of their own, with
 * no trace: the winner is lowered again, traced, into the real one. */
static double rewrite_cost(void *user, const tine_expr_t *e, const tine_expr_t *r) {
    lowerer *L = user;
    const tine_expr_t *seen[256];
    int nseen = 0;
    tine_rewrite_memo *cur = L->cur;
    tine_lift_trace_fn trace = L->trace;
    L->cur = &L->trial;
    L->trace = NULL;
    L->depth++;
    tine_expr_t *lr = tine_rewrite_dag(L->ctx, L->cur, (tine_expr_t *)r, lower_root, L);
    L->depth--;
    L->cur = cur;
    L->trace = trace;
    return add_cost(L, e, lr, seen, &nseen);
}

/* Rules whose patterns reach into the operands (a sum of absolute differences, pairs of
 * products) must see the operands before they are lowered, so the node as it was comes
 * first (largest pattern first, as in maximal munch): its rewrite's leaves are the
 * original operands, lowered in turn. Else the node on its lowered operands. */
static tine_expr_t *lower_root(void *user, tine_expr_t *n, tine_expr_t *orig) {
    lowerer *L = user;
    if (L->depth >= 8) return n; /* a rule's output lowered that deep: leave the rest to LLVM */
    const tine_rule *used = NULL;
    tine_rewrite_memo_set(L->ctx, L->cur, n, n); /* while rewrites are lowered, n stands for itself */
    tine_expr_t *r = NULL, *at = n;
    /* The lowered operands (everything up to n) are not the rewrite's: a candidate for
     * orig would otherwise be charged for the whole lowered DAG below it, a walk as long
     * as the body for every node (a minute for a 4096-term min on SSE2). */
    uint32_t saved_old = L->old_id;
    L->old_id = n->id;
    if (orig != n) {
        r = tine_rules_try_cost(L->ctx, L->rs, orig, rewrite_cost, L, &used);
        at = orig;
    }
    if (!r) {
        r = tine_rules_try_cost(L->ctx, L->rs, n, rewrite_cost, L, &used);
        at = n;
    }
    L->old_id = saved_old;
    if (!r) return n;
    if (L->trace) L->trace(L->user, used->ast.name, used->ast.src->file, used->ast.line, at, r);
    L->depth++;
    r = tine_rewrite_dag(L->ctx, L->cur, r, lower_root, L);
    L->depth--;
    return r;
}

/* A lowerer for target (no rules yet); false with the error set for an unknown target. */
static bool setup(tine_ctx_t *ctx, const char *target, lowerer *L, const tine_isa **isa_out) {
    const tine_isa *isa;
    tine_saved_error saved = tine_error_save(ctx);
    uint32_t features = tine_target_features(ctx, target, &isa);
    if (tine_error(ctx)) {
        free(saved.msg);
        return false;
    }
    tine_error_restore(ctx, &saved);
    *L = (lowerer){.ctx = ctx, .features = features, .widest = 128,
                   .byte_shift = isa->ast.byte_shift_cost > 0 ? isa->ast.byte_shift_cost : 0.5};
    for (int k = 0; k < isa->n; k++)
        for (int f = 0; f < isa->insn[k].nforms; f++)
            if ((isa->insn[k].form[f].features & ~features) == 0 && isa->insn[k].form[f].bits > L->widest)
                L->widest = isa->insn[k].form[f].bits;
    *isa_out = isa;
    return true;
}

double tine_lower_node_cost(tine_ctx_t *ctx, const char *target, const tine_expr_t *x) {
    lowerer L;
    const tine_isa *isa;
    if (!setup(ctx, target, &L, &isa)) return -1;
    return node_cost(&L, x);
}

/* e lowered by L (set up, its rules chosen). */
static tine_expr_t *run(lowerer *L, tine_expr_t *e) {
    L->cur = &L->memo;
    tine_expr_t *r = tine_rewrite_dag(L->ctx, &L->memo, e, lower_root, L);
    free(L->memo.v);
    free(L->trial.v);
    return r;
}

double tine_lower_cost_in(tine_ctx_t *ctx, tine_expr_t *e, const char *target, const tine_ruleset_t *rs,
                          bool *rewritten) {
    lowerer L;
    const tine_isa *isa;
    if (!e || !setup(ctx, target, &L, &isa)) return -1;
    L.rs = rs;
    tine_expr_t *r = run(&L, e);
    if (rewritten) *rewritten = r != e;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, r, &n);
    double c = 0;
    for (uint32_t k = 0; k < n && c >= 0; k++) {
        double nc = node_cost(&L, order[k]);
        c = nc < 0 ? -1 : c + nc;
    }
    free(order);
    return c;
}

tine_expr_t *tine_lower_with(tine_ctx_t *ctx, tine_expr_t *e, const char *target, tine_lift_trace_fn trace,
                             void *user) {
    if (!e) return NULL;
    lowerer L;
    const tine_isa *isa;
    if (!setup(ctx, target, &L, &isa)) return NULL;
    L.rs = tine_lower_rules(ctx, isa->name);
    L.trace = trace;
    L.user = user;
    return run(&L, e);
}

tine_expr_t *tine_lower(tine_ctx_t *ctx, tine_expr_t *e, const char *target) {
    return tine_lower_with(ctx, e, target, NULL, NULL);
}

void tine_select_set_trace(tine_ctx_t *ctx, tine_select_trace_fn fn, tine_lift_trace_fn rule, void *user) {
    lower_state *st = state(ctx);
    st->trace = fn;
    st->rule = fn ? rule : NULL;
    st->trace_user = user;
}

tine_expr_t *tine_select_expr(tine_ctx_t *ctx, tine_expr_t *e, tine_selection_t sel, const char *target) {
    if (sel == TINE_SELECT_LLVM) return tine_expand(ctx, e);
    lower_state *st = tine_layer_get(ctx, TINE_LAYER_LOWER);
    bool traced = st && st->trace && e->type.lanes > 1;
    tine_lift_trace_fn rule = traced ? st->rule : NULL;
    void *user = traced ? st->trace_user : NULL;
    tine_expr_t *lifted = tine_lift_with(ctx, tine_lift_rules(ctx), e, rule, user);
    tine_expr_t *r = lifted ? tine_lower_with(ctx, lifted, target, rule, user) : NULL;
    /* called here, while the caller's bounds facts (what the rules' predicates saw) are in view */
    if (r && traced) st->trace(st->trace_user, ctx, e, lifted, r, target);
    return r;
}
