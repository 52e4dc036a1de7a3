/* lower_values.c — what `tine synth lower`'s search (lower_synth.c) knows of an
 * expression: its values on the inputs (edge and random lanes within the spec's ranges,
 * or a counterexample's), its cost on the target as the lowering prices it, and the
 * expression rebuilt at the lanes it is evaluated at; and the spec bound to both. */
#include "lower_search.h"

#include "../rules/rules.h"

uint64_t synth_canon(tine_type_t t, uint64_t v) {
    if (t.bits >= 64 || t.kind == TINE_BOOL) return t.kind == TINE_BOOL ? v & 1 : v;
    uint64_t m = ((uint64_t)1 << t.bits) - 1;
    v &= m;
    if (t.kind == TINE_INT && (v >> (t.bits - 1) & 1)) v |= ~m;
    return v;
}

bool synth_eval_in(search *S, tine_env_t *env, const tine_expr_t *e, uint64_t *out) {
    tine_saved_error saved = tine_error_save(S->ctx);
    int rc = tine_eval(S->ctx, e, env, out);
    tine_error_restore(S->ctx, &saved);
    if (rc) return false;
    for (int i = 0; i < e->type.lanes; i++) out[i] = synth_canon(e->type, out[i]);
    return true;
}

static uint64_t rnd(search *S) {
    S->seed = S->seed * 6364136223846793005ull + 1442695040888963407ull;
    return S->seed >> 11 ^ S->seed << 23;
}

/* A value of var v's type within its spec range: edges first, then random. */
static uint64_t input(search *S, int v, int lane, bool edges) {
    tine_type_t t = S->ve[v]->type;
    int64_t lo = S->spec->lo[v], hi = S->spec->hi[v];
    bool ranged = lo < hi;
    if (!ranged) {
        lo = tine_type_min(t);
        hi = (int64_t)tine_type_max(t);
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t edge[] = {0, 1, 2, (uint64_t)lo, (uint64_t)lo + 1, (uint64_t)hi, (uint64_t)hi - 1,
                       (uint64_t)lo + span / 2, (uint64_t)lo + span / 2 + 1, 7, 8, 15, 16, (uint64_t)-1};
    enum { NE = sizeof edge / sizeof *edge };
    uint64_t x;
    /* pairs of edges over the first lanes (var v steps at its own rate), then random */
    if (edges && lane < 98) {
        int k = v == 0 ? lane % NE : (lane / NE + v * 3) % NE;
        x = edge[k];
    } else {
        x = rnd(S);
        if (rnd(S) % 4 == 0) x = edge[rnd(S) % NE];
    }
    if (ranged) {
        /* into [lo, hi] as signed or unsigned numbers */
        int64_t y = (int64_t)synth_canon(t, x);
        if (y < lo || y > hi) y = lo + (int64_t)(x % (span + 1));
        x = (uint64_t)y;
    }
    return synth_canon(t, x);
}

tine_env_t *synth_make_env(search *S, bool edges, const uint64_t (*fixed)[Z3_LANES]) {
    tine_env_t *env = tine_env_new(S->ctx);
    uint64_t v[EVAL_LANES];
    for (int k = 0; k < S->nvars; k++) {
        for (int l = 0; l < EVAL_LANES; l++) v[l] = fixed && l < S->zl ? fixed[k][l] : input(S, k, l, edges);
        /* a count is one value in each register's lanes (as Z3 and the rule see it), and
           another in the next: one value everywhere would let x & c0 stand for x & 1 */
        if (S->spec->uniform[k])
            for (int l = 0; l < EVAL_LANES; l++) v[l] = v[l - l % S->zl];
        tine_env_bind(env, S->ve[k], v);
    }
    return env;
}

bool synth_same_item(search *S, size_t i, tine_type_t t, const uint64_t *v) {
    return tine_type_eq(S->items[i].et, t) && !memcmp(S->pool + S->items[i].val, v, (size_t)t.lanes * sizeof *v);
}

/* The placeholder standing for operand j (an item of type t) in a node being evaluated. */
tine_expr_t *synth_placeholder(search *S, int j, tine_type_t t) {
    static const char *const name[] = {"_p0", "_p1", "_p2"};
    return tine_var(S->ctx, name[j], t);
}

tine_expr_t *synth_build(search *S, const gram *g, tine_expr_t **a) {
    tine_ctx_t *ctx = S->ctx;
    switch (g->kind) {
    case G_BIN: return tine_binary(ctx, (tine_op_t)g->op, a[0], a[1]);
    case G_CMP: return tine_binary(ctx, (tine_op_t)g->op, a[0], a[1]);
    case G_UN: return tine_unary(ctx, (tine_op_t)g->op, a[0]);
    case G_CAST: return tine_cast(ctx, g->to, a[0]);
    case G_REINT: return tine_reinterpret(ctx, g->to, a[0]);
    case G_SELECT: return tine_select(ctx, a[0], a[1], a[2]);
    case G_INSN: return tine_insn_make(ctx, (uint32_t)g->op, g->arity, a);
    case G_ILV: return tine_interleave(ctx, 2, a);
    case G_DEILV: return tine_deinterleave(ctx, a[0], 2, g->op);
    }
    return NULL;
}

/* What the lowering charges for g's node on these operands, in quarters (memoized by the
 * grammar entry and the operands' types: the cost depends on nothing else). */
static uint64_t type_code(tine_type_t t) { return (uint64_t)t.kind << 14 | (uint64_t)t.bits << 9 | (uint64_t)t.lanes; }

/* The mask bit of an x86 feature (0 if the description has none of that name). */
static uint32_t feature(search *S, const char *name) {
    const tine_isa *isa = tine_isa_get(S->ctx, "x86");
    for (int i = 0; isa && i < isa->nfeatures; i++)
        if (!strcmp(isa->features[i], name)) return 1u << i;
    return 0;
}

/* What the lowering charges for node alone, in quarters; -1 where the target lacks it. */
int synth_expr_units(search *S, const tine_expr_t *node) {
    double c = tine_lower_node_cost(S->ctx, S->target, node);
    /* what the lowering's flat price of a generic op hides, and LLVM emits: a select is
       and/andnot/or before SSE4.1's blends; x86 compares only signed lanes for order (an
       unsigned one biases both operands), and 64-bit lanes not before SSE4.2 */
    if (c > 0 && node->op == TINE_OP_SELECT && !(S->features & feature(S, "sse4.1"))) c *= 3;
    if (c > 0 && node->op == TINE_OP_GT) {
        tine_type_t t = node->ops[0]->type;
        if (t.kind == TINE_UINT) c *= 3;
        if (t.bits == 64) c *= 3;
    }
    /* min and max: a compare and a blend where x86 lacks the instruction (64-bit lanes
       before AVX-512; SSE2 has only pminsw and pminub) */
    if (c > 0 && (node->op == TINE_OP_MIN || node->op == TINE_OP_MAX)) {
        tine_type_t t = node->type;
        bool sse2_has = t.bits == (t.kind == TINE_INT ? 16 : 8);
        if (t.bits == 64 ? !(S->features & feature(S, "avx512f"))
                         : !sse2_has && !(S->features & feature(S, "sse4.1")))
            c *= 3;
    }
    return c < 0 ? -1 : (int)(c * 4 + 0.5);
}

int synth_node_units(search *S, const gram *g, item *const *x) {
    uint64_t key = (uint64_t)(g->kind * 1000 + g->op + 7) << 48;
    key ^= (uint64_t)(uintptr_t)g * 0x9e3779b97f4a7c15ull;
    for (int j = 0; j < g->arity; j++) key = (key ^ type_code(x[j]->e->type)) * 0xff51afd7ed558ccdull;
    key |= 1;
    if (!S->memo) {
        S->nmemo = 1 << 16;
        S->memo = tine_xcalloc(S->nmemo, sizeof *S->memo);
    }
    size_t k = key & (S->nmemo - 1);
    for (int probe = 0; S->memo[k].key && probe < 64; probe++, k = (k + 1) & (S->nmemo - 1))
        if (S->memo[k].key == key) return S->memo[k].units;
    tine_expr_t *ph[3];
    for (int j = 0; j < g->arity; j++) ph[j] = synth_placeholder(S, j, x[j]->e->type);
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *node = synth_build(S, g, ph);
    tine_error_restore(S->ctx, &saved);
    int units = node ? synth_expr_units(S, node) : -1;
    if (!S->memo[k].key) S->memo[k] = (cost_slot){key, units};
    return units;
}

static tine_expr_t *relane(search *S, const tine_expr_t *e, int from, int to) {
    tine_ctx_t *ctx = S->ctx;
    if (e->op == TINE_OP_VAR) {
        for (int k = 0; k < S->nvars; k++)
            if (e == S->vz[k]) return S->ve[k];
        return NULL;
    }
    tine_type_t t = tine_type_with_lanes(e->type, e->type.lanes / from * to);
    if (e->op == TINE_OP_CONST) return tine_const_uint(ctx, t, tine_expr_const_lane(e, 0));
    tine_expr_t *a[3];
    for (int j = 0; j < e->nops; j++)
        if (!(a[j] = relane(S, e->ops[j], from, to))) return NULL;
    switch ((tine_op_t)e->op) {
    case TINE_OP_INSN: return tine_insn_make(ctx, e->imm, e->nops, a);
    case TINE_OP_CAST: return tine_cast(ctx, e->type, a[0]);
    case TINE_OP_REINTERPRET: /* its lanes scaled as its operand's were (to other lane sizes too) */
        return tine_bitcast(ctx, tine_type_with_lanes(e->type, a[0]->type.lanes * e->type.lanes / e->ops[0]->type.lanes),
                            a[0]);
    case TINE_OP_NEG: case TINE_OP_NOT: return tine_unary(ctx, (tine_op_t)e->op, a[0]);
    case TINE_OP_SELECT: return tine_select(ctx, a[0], a[1], a[2]);
    case TINE_OP_INTERLEAVE: return tine_interleave(ctx, e->nops, a);
    case TINE_OP_DEINTERLEAVE: {
        int n, k;
        tine_deinterleave_params(e, &n, &k);
        return tine_deinterleave(ctx, a[0], n, k);
    }
    default: return e->nops == 2 ? tine_binary(ctx, (tine_op_t)e->op, a[0], a[1]) : NULL;
    }
}

tine_expr_t *synth_at_eval(search *S, const tine_expr_t *e) {
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *r = relane(S, e, S->zl, EVAL_LANES);
    tine_error_restore(S->ctx, &saved);
    return r;
}

/* The spec's variables (x y z w, c0 a uniform count) at both lane counts. */
bool synth_bind_spec(search *S, const synth_spec *sp) {
    tine_ctx_t *ctx = S->ctx;
    S->spec = sp;
    S->nvars = sp->nvars;
    tine_buf bz = {0}, be = {0};
    int narrowest = 64;
    for (int k = 0; k < sp->nvars; k++)
        if (!sp->uniform[k] && sp->type[k].bits < narrowest) narrowest = sp->type[k].bits;
    S->zl = 128 / narrowest < 4 ? 4 : 128 / narrowest;
    synth_spec_text(&bz, sp, S->zl);
    synth_spec_text(&be, sp, EVAL_LANES);
    tine_saved_error saved = tine_error_save(ctx);
    S->want_z = tine_parse(ctx, bz.p, "spec");
    S->want_e = S->want_z ? tine_parse(ctx, be.p, "spec") : NULL;
    tine_error_restore(ctx, &saved);
    free(bz.p);
    free(be.p);
    if (!S->want_z || !S->want_e) return false;
    for (int k = 0; k < sp->nvars; k++) {
        S->vz[k] = tine_var(ctx, sp->var[k], tine_type_with_lanes(sp->type[k], S->zl));
        S->ve[k] = tine_var(ctx, sp->var[k], tine_type_with_lanes(sp->type[k], EVAL_LANES));
    }
    return true;
}

/* What the lowering charges for e's nodes, in quarters (the generic lowering of a spec:
 * what LLVM gets without a rule). */
int synth_tree_units(search *S, tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n);
    int units = 0;
    for (uint32_t k = 0; k < n; k++) {
        int nu = synth_expr_units(S, order[k]);
        units += nu > 0 ? nu : 0;
    }
    free(order);
    return units;
}

/* Is the spec of this name asked for (--op: names' beginnings, comma-separated)? */
bool synth_wanted(const char *only, const char *name) {
    if (!only) return true;
    for (const char *p = only; *p;) {
        size_t n = strcspn(p, ",");
        if (n && !strncmp(name, p, n)) return true;
        p += n + (p[n] == ',');
    }
    return false;
}
