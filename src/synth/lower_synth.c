/* lower_synth.c — `tine synth lower`: lowering rules found by search over a target's
 * instructions (Hydride's synthesis, enumerative and counterexample-guided).
 *
 * The specifications (specs.c) are FPIR ops and the primitive ops x86 lacks at each element
 * type, and a few windows of several ops (pairs of products, grouped sums). For each, at
 * each target level asked:
 *   1. the grammar: the spec's variables, their reinterprets, constants of the types
 *      related to the spec's (its own, the other signedness, twice and half the width),
 *      the primitive ops, casts among those types, interleaves where the spec widens, and
 *      the target's instructions whose operand types are among them (pruned as Hydride
 *      prunes: an instruction on unrelated element widths cannot take part);
 *   2. bottom-up enumeration in order of cost (the lowering's own cost of each node on the
 *      target, src/lower/lower.c), one expression kept per fingerprint: its values on 128
 *      lanes of edge and random inputs; an expression that matches a cheaper one there adds
 *      nothing;
 *   3. an expression whose fingerprint is the spec's is checked on the counterexamples
 *      found so far, then proven equal by Z3 at 16 lanes; a counterexample joins the checks
 *      (CEGIS) and the search goes on. Each new expression is also met in the middle (the
 *      other side of an add, sub or xor looked up by value) and, where it misses the spec
 *      by one value, fixed up (lower_check.c);
 *   4. the cheapest proven expression up to the size bound becomes a rule if it costs less
 *      than the spec's generic lowering (what LLVM gets without a rule); after a level, an
 *      op's definition one level down is composed from the rules found where that is
 *      cheaper (lower_compose.c); lower_rules.c writes the rules, each proven again by
 *      the rule prover for every instantiation (tine verify --rules), as every rule file is.
 */
#include "lower_search.h"

#include "../rules/rules.h"

/* ---- the bank of expressions ------------------------------------------------------------ */

static uint64_t item_hash(void *user, size_t i) {
    search *S = user;
    return synth_vals_hash(S->items[i].et, S->pool + S->items[i].val);
}

static void rehash(search *S) {
    synth_index x = {S->slots, S->nslots};
    synth_rehash(&x, S->n, item_hash, S);
    S->slots = x.slots;
    S->nslots = x.nslots;
}

static bucket *find_bucket(search *S, tine_type_t t) {
    for (int i = 0; i < S->nbuckets; i++)
        if (tine_type_eq(S->buckets[i].t, t)) return &S->buckets[i];
    return NULL;
}

/* Files item i under its type (a type past the last bucket is not paired with others). */
static void file_item(search *S, size_t i, tine_type_t t) {
    bucket *b = find_bucket(S, t);
    if (!b && S->nbuckets < MAX_BUCKETS) {
        b = &S->buckets[S->nbuckets++];
        *b = (bucket){.t = t};
    }
    if (b) TINE_PUSH(b->idx, b->n, b->cap, i);
}

/* ---- the grammar ------------------------------------------------------------------------ */

static bool related(const search *S, tine_type_t t) {
    for (int i = 0; i < S->ntypes; i++)
        if (S->types[i].kind == t.kind && S->types[i].bits == t.bits) return true;
    return false;
}

static void add_type(search *S, tine_type_t t) {
    t = tine_type_with_lanes(t, 1);
    if (!tine_type_valid(t) || t.bits < 8 || t.bits > 64 || related(S, t) || S->ntypes == MAX_TYPES) return;
    S->types[S->ntypes++] = t;
}

/* The element types of the spec's variables and result, with the other signedness: the
 * grammar's types (Hydride's pruning by the spec's own types: an instruction on other
 * element widths cannot take part in a rewrite of this size). */
static void related_types(search *S) {
    S->ntypes = 0;
    for (int k = 0; k < S->nvars; k++)
        if (!S->spec->uniform[k]) add_type(S, S->vz[k]->type);
    add_type(S, S->want_z->type);
    int n = S->ntypes;
    for (int i = 0; i < n; i++) {
        tine_type_t t = S->types[i];
        add_type(S, tine_type_with_kind(t, t.kind == TINE_INT ? TINE_UINT : TINE_INT));
    }
}

/* May g take these operands (their types at Z3 lanes)? Filters before any node is built. */
static bool fits(const search *S, const gram *g, item *const *x) {
    tine_type_t a = x[0]->e->type;
    switch (g->kind) {
    case G_BIN:
        if (a.kind == TINE_BOOL || x[1]->e->type.kind == TINE_BOOL) return false;
        /* a shift's count may have the other signedness (c0 is unsigned(T)) */
        if (!tine_type_eq(a, x[1]->e->type) &&
            !((g->op == TINE_OP_SHL || g->op == TINE_OP_SHR) && a.bits == x[1]->e->type.bits &&
              a.lanes == x[1]->e->type.lanes))
            return false;
        /* a commutative op once per pair, a constant on the right */
        if (g->op != TINE_OP_SUB && g->op != TINE_OP_SHL && g->op != TINE_OP_SHR &&
            (x[0]->konst || (!x[1]->konst && x[0]->e->id > x[1]->e->id)))
            return false;
        /* shifts by a count x86 shifts by: a constant or c0, or the spec's own count variable
           (a per-lane count is an AVX2 vpsllv, or a scalar loop before) */
        if (g->op == TINE_OP_SHL || g->op == TINE_OP_SHR)
            return x[1]->uniform || (S->spec->shift_var && x[1]->e == S->vz[S->nvars - 1]);
        if (g->op == TINE_OP_MUL && a.bits != 16 && a.bits != 32) return false; /* no byte or quad multiply */
        return true;
    case G_CMP: return tine_type_eq(a, x[1]->e->type) && a.kind != TINE_BOOL && !x[0]->konst;
    case G_UN: return a.kind != TINE_BOOL && !x[0]->konst;
    case G_CAST:
        if (x[0]->konst) return false;
        if (a.kind == TINE_BOOL) return g->to.bits == 8 || related(S, g->to);
        return a.bits != g->to.bits && related(S, a);
    case G_REINT: return a.kind != TINE_BOOL && a.bits == g->to.bits && a.kind != g->to.kind && !x[0]->konst &&
                         x[0]->e->op != TINE_OP_REINTERPRET;
    case G_SELECT: return a.kind == TINE_BOOL && a.lanes == x[1]->e->type.lanes && tine_type_eq(x[1]->e->type, x[2]->e->type);
    case G_INSN:
        for (int j = 0; j < g->arity; j++) {
            tine_type_t t = x[j]->e->type;
            if (t.kind != g->in[j].kind || t.bits != g->in[j].bits) return false;
        }
        return true;
    case G_ILV:
        /* a window's operands are its variables interleaved */
        if (S->spec->insns_only && (x[0]->e->op != TINE_OP_VAR || x[1]->e->op != TINE_OP_VAR)) return false;
        return tine_type_eq(a, x[1]->e->type) && a.lanes <= S->zl && !x[0]->konst;
    case G_DEILV: return a.lanes >= 2 && a.lanes % 2 == 0 && !x[0]->konst && x[0]->e->op != TINE_OP_VAR;
    }
    return false;
}

typedef struct {
    gram *g;
    size_t n, cap;
} grammar;

/* ---- pruning by the spec's ops (Hydride's grammar pruning) ------------------------------ */

/* The primitive ops e is made of (FPIR ops and instructions through their definitions),
 * and its constants. */
static void collect_ops(tine_ctx_t *ctx, tine_expr_t *e, opset *o) {
    tine_expr_t *x = tine_expand(ctx, e);
    if (!x) return;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, x, &n);
    for (uint32_t k = 0; k < n; k++) {
        tine_expr_t *y = order[k];
        if (y->op == TINE_OP_INSN) {
            const tine_expr_t *const *ph;
            const tine_expr_t *sem = tine_insn_template(ctx, y, &ph, true);
            if (sem) collect_ops(ctx, (tine_expr_t *)sem, o);
            continue;
        }
        o->op[y->op] = true;
        if (y->op == TINE_OP_CONST && y->type.kind != TINE_BOOL && o->nkonst < 16) {
            int64_t v = (int64_t)tine_expr_const_lane(y, 0);
            bool seen = false;
            for (int i = 0; i < o->nkonst; i++) seen |= o->konst[i] == v;
            if (!seen) o->konst[o->nkonst++] = v;
        }
    }
    free(order);
}

/* How much of instruction in's definition the spec's ops cover: shared ops count, ops the
 * spec lacks count against (a multiply where the spec has none). */
static int score(search *S, const opset *spec, uint32_t code, const tine_insn *in) {
    tine_expr_t *ph[3];
    for (int j = 0; j < in->nops; j++) ph[j] = synth_placeholder(S, j, tine_type_with_lanes(in->optype[j], 16));
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *node = tine_insn_make(S->ctx, code, in->nops, ph);
    tine_error_restore(S->ctx, &saved);
    if (!node) return -100;
    opset o = {0};
    collect_ops(S->ctx, node, &o);
    int sc = 0;
    for (int op = 0; op < TINE_OP_COUNT; op++) {
        if (!o.op[op] || op == TINE_OP_VAR || op == TINE_OP_CONST) continue;
        sc += spec->op[op] ? 2 : -1;
    }
    return sc;
}

static void push(grammar *G, gram g) { TINE_PUSH(G->g, G->n, G->cap, g); }

static void make_grammar(search *S, grammar *G, bool swizzle) {
    static const tine_op_t bin[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR, TINE_OP_MUL,
                                    TINE_OP_SHL, TINE_OP_SHR};
    /* a window of several variables is one instruction's work: its operands arranged by
       interleaves, nothing else (four variables make the full grammar's bank too large) */
    if (S->spec->insns_only) goto swizzles;
    for (size_t i = 0; i < sizeof bin / sizeof *bin; i++) push(G, (gram){.kind = G_BIN, .op = bin[i], .arity = 2});
    push(G, (gram){.kind = G_CMP, .op = TINE_OP_EQ, .arity = 2});
    push(G, (gram){.kind = G_CMP, .op = TINE_OP_GT, .arity = 2});
    push(G, (gram){.kind = G_SELECT, .arity = 3});
    push(G, (gram){.kind = G_UN, .op = TINE_OP_NEG, .arity = 1});
    push(G, (gram){.kind = G_UN, .op = TINE_OP_NOT, .arity = 1});
    for (int i = 0; i < S->ntypes; i++) {
        push(G, (gram){.kind = G_CAST, .to = S->types[i], .arity = 1});
        push(G, (gram){.kind = G_REINT, .to = S->types[i], .arity = 1});
    }
swizzles:
    if (swizzle) push(G, (gram){.kind = G_ILV, .arity = 2});
    if (swizzle && !S->spec->insns_only) {
        push(G, (gram){.kind = G_DEILV, .op = 0, .arity = 1});
        push(G, (gram){.kind = G_DEILV, .op = 1, .arity = 1});
    }
    /* the target's instructions on the spec's types, the best MAX_INSNS by score */
    enum { MAX_INSNS = 10 };
    opset spec = {0};
    collect_ops(S->ctx, S->want_z, &spec);
    S->spec_ops = spec;
    const tine_isa *isa = tine_isa_get(S->ctx, "x86");
    gram best[MAX_INSNS];
    int bscore[MAX_INSNS], nbest = 0;
    for (int k = 0; isa && k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        bool have = false, ok = !in->fixed && in->nops <= 3;
        for (int f = 0; f < in->nforms; f++) have |= (in->form[f].features & ~S->features) == 0;
        for (int j = 0; ok && j < in->nops; j++) ok = related(S, in->optype[j]);
        /* and a result of those types: an integer spec has no use for a float (cvtdq2ps)
           that would take the place of an integer instruction among the best */
        ok = ok && in->result.kind != TINE_FLOAT && related(S, in->result);
        if (!have || !ok) continue;
        gram g = {.kind = G_INSN, .op = tine_isa_lookup(S->ctx, in->name), .arity = in->nops};
        for (int j = 0; j < in->nops; j++) g.in[j] = in->optype[j];
        int sc = score(S, &spec, (uint32_t)g.op, in);
        /* insertion into the best list, highest score first (ties: description order) */
        int at = nbest;
        while (at > 0 && bscore[at - 1] < sc) at--;
        if (at == MAX_INSNS) continue;
        if (nbest < MAX_INSNS) nbest++;
        memmove(&best[at + 1], &best[at], sizeof *best * (size_t)(nbest - 1 - at));
        memmove(&bscore[at + 1], &bscore[at], sizeof *bscore * (size_t)(nbest - 1 - at));
        best[at] = g;
        bscore[at] = sc;
    }
    for (int i = 0; i < nbest; i++) {
        push(G, best[i]);
    }
}

/* ---- enumeration -------------------------------------------------------------------------- */

static bool timed_out(search *S) { return tine_now() > S->deadline; }

/* Tries g on operands x: builds the node on placeholders at EVAL lanes, evaluates it,
 * keeps it if its fingerprint is new, and checks it against the spec if it matches. */
static void try_node(search *S, const gram *g, item *const *x, int cost, result *R) {
    tine_ctx_t *ctx = S->ctx;
    S->st->enumerated++;
    tine_expr_t *ph[3];
    tine_saved_error saved = tine_error_save(ctx);
    for (int j = 0; j < g->arity; j++) {
        ph[j] = synth_placeholder(S, j, x[j]->et);
        tine_env_bind(S->env, ph[j], S->pool + x[j]->val);
    }
    tine_expr_t *node = synth_build(S, g, ph);
    uint64_t v[TINE_MAX_LANES];
    bool ok = node && node->type.lanes <= TINE_MAX_LANES && tine_eval(ctx, node, S->env, v) == 0;
    tine_error_restore(ctx, &saved);
    if (!ok) return;
    for (int i = 0; i < node->type.lanes; i++) v[i] = synth_canon(node->type, v[i]);
    if (2 * (S->n + 1) > S->nslots) rehash(S);
    uint64_t h = synth_vals_hash(node->type, v);
    size_t k = h & (S->nslots - 1);
    for (; S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (synth_same_item(S, S->slots[k] - 1, node->type, v)) return;
    /* new: the expression itself, at Z3 lanes */
    tine_expr_t *ops[3];
    for (int j = 0; j < g->arity; j++) ops[j] = x[j]->e;
    saved = tine_error_save(ctx);
    tine_expr_t *e = synth_build(S, g, ops);
    tine_error_restore(ctx, &saved);
    if (!e) return;
    int size = 1;
    for (int j = 0; j < g->arity; j++) size += x[j]->size;
    S->slots[k] = (uint32_t)(S->n + 1);
    TINE_GROW(S->items, S->n + 1, S->cap);
    TINE_GROW(S->pool, S->npool + (size_t)node->type.lanes, S->pcap);
    memcpy(S->pool + S->npool, v, (size_t)node->type.lanes * sizeof *v);
    file_item(S, S->n, e->type);
    bool uniform = true;
    for (int j = 0; j < g->arity; j++) uniform &= x[j]->uniform;
    S->items[S->n++] = (item){.e = e, .et = node->type, .val = S->npool, .cost = cost, .size = size, .uniform = uniform};
    S->npool += (size_t)node->type.lanes;
    S->st->distinct++;
    if (R->found || !tine_type_eq(node->type, S->want_e->type)) return;
    if (memcmp(v, S->want_vals, (size_t)node->type.lanes * sizeof *v)) {
        synth_meet(S, S->n - 1, R);
        synth_fix_up(S, S->n - 1, R);
        return;
    }
    if (synth_proven(S, e)) {
        R->found = e;
        R->cost = cost;
    }
}

/* Adds a leaf (a variable, a constant, a reinterpreted variable) at cost 0. */
static void leaf(search *S, tine_expr_t *ez, tine_expr_t *ee, bool konst, bool uniform) {
    uint64_t v[TINE_MAX_LANES];
    if (!ez || !ee || !synth_eval_in(S, S->env, ee, v)) return;
    if (2 * (S->n + 1) > S->nslots) rehash(S);
    uint64_t h = synth_vals_hash(ee->type, v);
    size_t k = h & (S->nslots - 1);
    for (; S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (synth_same_item(S, S->slots[k] - 1, ee->type, v)) return;
    S->slots[k] = (uint32_t)(S->n + 1);
    TINE_GROW(S->items, S->n + 1, S->cap);
    TINE_GROW(S->pool, S->npool + (size_t)ee->type.lanes, S->pcap);
    memcpy(S->pool + S->npool, v, (size_t)ee->type.lanes * sizeof *v);
    file_item(S, S->n, ez->type);
    S->items[S->n++] = (item){.e = ez, .et = ee->type, .val = S->npool, .size = 0, .konst = konst, .uniform = uniform};
    S->npool += (size_t)ee->type.lanes;
}

static void leaves(search *S) {
    tine_ctx_t *ctx = S->ctx;
    for (int k = 0; k < S->nvars; k++) leaf(S, S->vz[k], S->ve[k], false, S->spec->uniform[k]);
    /* a uniform variable (a shift count) minus one, as the rounding rules need, and, for
       a count between the element's width w and 2w, the count less w (what is left of a
       shift by more than the high half), written c0 & (w - 1): the rule compiler folds a
       right side at counts the predicate rules out too, where c0 - w would not fit */
    for (int k = 0; k < S->nvars; k++)
        if (S->spec->uniform[k])
            for (int d = 0; d < 2; d++) {
                int w = S->vz[0]->type.bits;
                if (d && (S->spec->lo[k] <= w || S->spec->hi[k] >= 2 * w)) continue;
                tine_op_t op = d ? TINE_OP_AND : TINE_OP_SUB;
                int64_t v = d ? w - 1 : 1;
                tine_expr_t *cz = tine_const_int(ctx, S->vz[k]->type, v), *ce = tine_const_int(ctx, S->ve[k]->type, v);
                leaf(S, tine_binary(ctx, op, S->vz[k], cz), tine_binary(ctx, op, S->ve[k], ce), false, true);
            }
    for (int i = 0; i < S->ntypes && !S->spec->insns_only; i++) {
        tine_type_t t = S->types[i];
        int b = t.bits;
        /* 0, 1, the limits, the sign bit, and the constants of the spec's definition (a
           clamp's bounds, a rounding term) */
        int64_t vals[8 + 16] = {0, 1, (int64_t)tine_type_max(t), tine_type_min(t), b == 64 ? 0 : (int64_t)1 << (b - 1)};
        size_t nv = 5;
        for (int j = 0; j < S->spec_ops.nkonst; j++) vals[nv++] = S->spec_ops.konst[j];
        for (size_t j = 0; j < nv; j++) {
            tine_saved_error saved = tine_error_save(ctx);
            tine_expr_t *z = tine_const_uint(ctx, tine_type_with_lanes(t, S->zl), (uint64_t)vals[j]);
            tine_expr_t *e = tine_const_uint(ctx, tine_type_with_lanes(t, EVAL_LANES), (uint64_t)vals[j]);
            tine_error_restore(ctx, &saved);
            leaf(S, z, e, true, true);
        }
    }
}

static bool all_konst(item *const *x, int n) {
    for (int j = 0; j < n; j++)
        if (!x[j]->konst) return false;
    return true;
}

/* g on x, if its cost makes the total exactly c. */
static void try_at(search *S, const gram *g, item *const *x, int c, result *R) {
    int sum = 0, size = 1;
    for (int j = 0; j < g->arity; j++) sum += x[j]->cost, size += x[j]->size;
    if (sum > c || size > S->o->size || all_konst(x, g->arity) || !fits(S, g, x)) return;
    int nc = synth_node_units(S, g, x);
    if (nc >= 0 && sum + nc == c) try_node(S, g, x, c, R);
}

/* May operand j of g have type t (before the node is built)? */
static bool may_take(const gram *g, int j, tine_type_t t, tine_type_t first) {
    switch (g->kind) {
    case G_INSN: return t.kind == g->in[j].kind && t.bits == g->in[j].bits;
    case G_SELECT: return j == 0 ? t.kind == TINE_BOOL : t.kind != TINE_BOOL && (j == 1 || tine_type_eq(t, first));
    case G_BIN:
        return t.kind != TINE_BOOL && (j == 0 || tine_type_eq(t, first) ||
                                       ((g->op == TINE_OP_SHL || g->op == TINE_OP_SHR) && t.bits == first.bits));
    case G_CMP: case G_ILV: return t.kind != TINE_BOOL && (j == 0 || tine_type_eq(t, first));
    default: return true;
    }
}

/* Every node of cost exactly c (in quarters) over the items found before (those below
 * `end` cost less than c), operands drawn from the buckets of the types g takes. A unary
 * node of cost 0 (a reinterpret) also takes the items this level adds. */
/* The first position in B (below `end` in the bank) whose item costs `cost` or more. */
static size_t first_at(const search *S, const bucket *B, size_t end, int cost) {
    size_t lo = 0, hi = B->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (B->idx[mid] < end && S->items[B->idx[mid]].cost < cost) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The items of B costing exactly `cost`, below end: [*from, *to). */
static void cost_range(const search *S, const bucket *B, size_t end, int cost, size_t *from, size_t *to) {
    *from = first_at(S, B, end, cost);
    *to = first_at(S, B, end, cost + 1);
}

static void level_nodes(search *S, const grammar *G, int c, result *R);

/* Level c, then the unary nodes of cost 0 (reinterprets) again over what it added: the
 * grammar's order put them before the instructions that made those items. */
static void level(search *S, const grammar *G, int c, result *R) {
    size_t start = S->n;
    level_nodes(S, G, c, R);
    item a;
    item *x[1] = {&a};
    for (size_t gi = 0; gi < G->n && !R->found; gi++) {
        if (G->g[gi].kind != G_REINT) continue;
        for (size_t i = start; i < S->n && !R->found; i++) {
            a = S->items[i];
            try_at(S, &G->g[gi], x, c, R);
        }
    }
}

static void level_nodes(search *S, const grammar *G, int c, result *R) {
    size_t end = S->n;
    /* copies: try_node may move the bank */
    item a, b, d;
    item *x[3] = {&a, &b, &d};
    for (size_t gi = 0; gi < G->n && !R->found && !timed_out(S); gi++) {
        const gram *g = &G->g[gi];
        if (g->arity == 1) {
            for (size_t i = 0; i < S->n && !R->found; i++) {
                a = S->items[i];
                try_at(S, g, x, c, R);
            }
            continue;
        }
        int nb = S->nbuckets;
        for (int b0 = 0; b0 < nb && !R->found; b0++) {
            bucket *B0 = &S->buckets[b0];
            if (!B0->n || !may_take(g, 0, B0->t, B0->t)) continue;
            for (int b1 = 0; b1 < nb && !R->found; b1++) {
                bucket *B1 = &S->buckets[b1];
                if (!B1->n || !may_take(g, 1, B1->t, B0->t)) continue;
                bucket *B2 = g->arity == 3 ? B1 : NULL;
                /* the node's own cost depends only on the operands' types */
                a = S->items[B0->idx[0]];
                b = S->items[B1->idx[0]];
                if (B2) d = b;
                int nc = synth_node_units(S, g, x);
                if (nc < 0 || nc > c) continue;
                int rest = c - nc;
                for (size_t ii = 0; ii < B0->n && B0->idx[ii] < end && !R->found && !timed_out(S); ii++) {
                    a = S->items[B0->idx[ii]];
                    if (a.cost > rest) break;
                    if (!B2) {
                        size_t from, to;
                        cost_range(S, B1, end, rest - a.cost, &from, &to);
                        for (size_t jj = from; jj < to && !R->found; jj++) {
                            b = S->items[B1->idx[jj]];
                            try_at(S, g, x, c, R);
                        }
                        continue;
                    }
                    for (size_t jj = 0; jj < B1->n && B1->idx[jj] < end && !R->found; jj++) {
                        b = S->items[B1->idx[jj]];
                        if (a.cost + b.cost > rest) break;
                        size_t from, to;
                        cost_range(S, B2, end, rest - a.cost - b.cost, &from, &to);
                        for (size_t kk = from; kk < to && !R->found; kk++) {
                            d = S->items[B2->idx[kk]];
                            try_at(S, g, x, c, R);
                        }
                    }
                }
            }
        }
    }
}

/* ---- one spec --------------------------------------------------------------------------------- */

static void reset(search *S) {
    tine_env_free(S->env);
    for (int c = 0; c < S->ncex; c++) tine_env_free(S->cex[c]);
    S->env = NULL;
    S->ncex = 0;
    S->n = S->npool = 0;
    free(S->slots);
    S->slots = NULL;
    S->nslots = 0;
    for (int i = 0; i < S->nbuckets; i++) free(S->buckets[i].idx);
    S->nbuckets = 0;
}

/* The cheapest expression over the grammar proven equal to the spec, or NULL. */
static tine_expr_t *synthesize(search *S, const synth_spec *sp, int *cost, int *baseline) {
    if (!synth_bind_spec(S, sp)) return NULL;
    related_types(S);
    /* its definition in primitive ops, each charged as the lowering charges it (not the
       FPIR node's own cost, which leaves out nodes some earlier search already built) */
    tine_expr_t *generic = tine_expand(S->ctx, S->want_z);
    *baseline = generic ? synth_tree_units(S, generic) : 1 << 20;
    for (int e = 0; e < 2; e++) {
        /* the fingerprint inputs, and a second set of random ones checked before Z3 */
        tine_env_t *env = synth_make_env(S, e == 0, NULL);
        if (e == 0) S->env = env;
        else S->cex[S->ncex++] = env;
    }
    uint64_t want[TINE_MAX_LANES];
    if (!synth_eval_in(S, S->env, S->want_e, want)) {
        reset(S);
        return NULL;
    }
    S->want_vals = want;
    grammar G = {0};
    make_grammar(S, &G, sp->swizzle);
    leaves(S);
    result R = {0};
    double t0 = tine_now();
    S->deadline = t0 + S->o->spec_seconds;
    /* only rewrites cheaper than the generic lowering are worth a rule */
    int bound = synth_spec_is_prim(sp) || *baseline > S->o->max_cost ? S->o->max_cost : *baseline - 1;
    S->bound = bound;
    for (int c = 1; c <= bound && !R.found && !timed_out(S); c++) {
        /* a pending rewrite no cheaper level can beat any more */
        if (R.pend && R.pend_cost < c) break;
        S->last_level = c;
        level(S, &G, c, &R);
    }
    if (timed_out(S)) S->st->timed_out++;
    if (R.pend && (!R.found || R.pend_cost < R.cost)) R.found = R.pend, R.cost = R.pend_cost;
    S->last_items = S->n;
    free(G.g);
    reset(S);
    *cost = R.cost;
    return R.found;
}

/* ---- the driver ----------------------------------------------------------------------------- */

static long peak_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    long kb = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = strtol(line + 6, NULL, 10);
    if (f) fclose(f);
    return kb;
}

char *tine_synth_lower(tine_ctx_t *ctx, const tine_synth_lower_opts *o, tine_synth_lower_stats *st) {
    *st = (tine_synth_lower_stats){0};
    double t0 = tine_now();
    synth_spec *specs;
    size_t nspecs = synth_specs(&specs);
    synth_found *F = NULL;
    size_t nf = 0, fcap = 0;
    char targets[256];
    snprintf(targets, sizeof targets, "%s", o->targets ? o->targets : "x86-64-avx2");
    tine_ctx_t *err = NULL;
    search S = {.ctx = ctx, .o = o, .st = st};
    for (char *t = targets, *next; t && *t && !err; t = next) {
        next = strchr(t, ',');
        if (next) *next++ = 0;
        const tine_isa *isa;
        tine_saved_error saved = tine_error_save(ctx);
        uint32_t features = tine_target_features(ctx, t, &isa);
        if (tine_error(ctx)) {
            free(saved.msg);
            err = ctx;
            break;
        }
        tine_error_restore(ctx, &saved);
        if (strcmp(isa->name, "x86")) {
            tine_set_error(ctx, "target '%s' is not an x86 one (only x86 rules are synthesized)", t);
            err = ctx;
            break;
        }
        S.target = t;
        S.features = features;
        S.seed = 0x243f6a8885a308d3ull;
        S.nmemo = 0; /* node costs are the level's */
        free(S.memo);
        S.memo = NULL;
        for (size_t i = 0; i < nspecs; i++) {
            if (!synth_wanted(o->only, specs[i].name)) continue;
            st->searches++;
            double ts = tine_now();
            int cost = 0, baseline = 0;
            tine_expr_t *e = synthesize(&S, &specs[i], &cost, &baseline);
            /* an FPIR op's own definition is what LLVM gets: only a cheaper rewrite is a rule */
            bool use = e && (synth_spec_is_prim(&specs[i]) || cost < baseline);
            tine_buf rhs = {0};
            if (e) {
                st->found++;
                tine_print_named(ctx, e, S.zl, true, &rhs);
            }
            if (use) {
                TINE_GROW(F, nf + 1, fcap);
                F[nf++] = (synth_found){.sp = &specs[i], .target = t, .rhs = rhs.p, .e = e, .cost = cost, .baseline = baseline};
            }
            if (o->log) {
                fprintf(o->log, "%-32s %-14s %6.1f s  %3d/%-3d %7zu  %s%s\n", specs[i].name, t, tine_now() - ts,
                        S.last_level, baseline, S.last_items, e ? rhs.p : "(none)",
                        e && !use ? "  (not cheaper than generic)" : "");
                fflush(o->log);
            }
            if (!use) free(rhs.p);
        }
        synth_compose(&S, &F, &nf, &fcap, specs, nspecs, t);
    }
    tine_buf rules = {0};
    if (!err) synth_write_rules(ctx, o, st, &rules, F, nf);
    for (size_t i = 0; i < nf; i++) free(F[i].rhs);
    free(F);
    free(S.items);
    free(S.pool);
    free(S.memo);
    st->specs = (long)nspecs;
    free(specs);
    if (err) {
        free(rules.p);
        return NULL;
    }
    tine_buf out = {0};
    tine_buf_printf(&out, "# Lowering rules found by `tine synth lower --target %s` (src/synth/lower_synth.c):\n"
                          "# for each spec (src/synth/specs.c) the cheapest expression over the target's\n"
                          "# instructions found by enumeration, proven with Z3 (CEGIS) and again by the rule\n"
                          "# prover; a rewrite found alike at several element types is one rule in T.\n"
                          "# `--rules synthesized` lowers with these alone.\n\n",
                    o->targets ? o->targets : "x86-64-avx2");
    if (rules.p) tine_buf_puts(&out, rules.p);
    free(rules.p);
    st->seconds = tine_now() - t0;
    st->peak_kb = peak_kb();
    return out.p;
}
