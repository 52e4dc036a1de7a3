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
 *      by one value, fixed up;
 *   4. the cheapest proven expression up to the size bound becomes a rule if it costs less
 *      than the spec's generic lowering (what LLVM gets without a rule); after a level, an
 *      op's definition one level down is composed from the rules found where that is
 *      cheaper; lower_rules.c writes the rules, each proven again by the rule prover for
 *      every instantiation (tine verify --rules), as every rule file is.
 */
#include "synth.h"

#include "../rules/rules.h"
#include "../verify/smt.h"

/* Expressions are built at one xmm register of the spec's narrowest variable (S->zl
 * lanes, at most Z3_LANES: costs count registers from there, and Z3 proves there), and
 * evaluated at EVAL_LANES (every instruction's semantics holds at any lane count). */
enum { EVAL_LANES = 128, Z3_LANES = 16, MAX_VARS = 5, MAX_CEX = 64, MAX_TYPES = 12 };

typedef struct {
    uint64_t key;
    int units;
} cost_slot;

typedef struct {
    bool op[TINE_OP_COUNT];
    int64_t konst[16]; /* constants in the expansion */
    int nkonst;
} opset;

/* The items of one type (at Z3 lanes), in the order they were found: by cost. */
typedef struct {
    tine_type_t t;
    size_t *idx;
    size_t n, cap;
} bucket;

enum { MAX_BUCKETS = 64 };

typedef struct {
    tine_expr_t *e;  /* at S->zl lanes (proofs and printing) */
    tine_type_t et;  /* its type at EVAL_LANES */
    size_t val;      /* offset of its EVAL lanes' values in the pool */
    int cost, size;  /* cost in quarters of a cycle; operator nodes */
    bool konst;      /* a constant: never every operand of a node */
    bool uniform;    /* one value in every lane (made of c0 and constants): a shift count */
} item;

typedef struct {
    tine_ctx_t *ctx;
    const tine_synth_lower_opts *o;
    const char *target;
    uint32_t features;
    const synth_spec *spec;
    tine_expr_t *want_z, *want_e; /* the spec at Z3 and EVAL lanes */
    tine_expr_t *vz[MAX_VARS], *ve[MAX_VARS];
    int nvars;
    tine_env_t *env;              /* the fingerprint inputs */
    tine_env_t *cex[MAX_CEX];     /* counterexamples (and the exhaustive sweep's envs) */
    int ncex;
    uint64_t *want_vals;
    tine_type_t types[MAX_TYPES]; /* the related element types */
    int ntypes;
    item *items;
    size_t n, cap;
    uint64_t *pool;
    size_t npool, pcap;
    uint32_t *slots;
    size_t nslots;
    size_t *level; /* items by cost: level[c]..level[c+1] once c is done */
    double deadline;
    tine_smt *smt;
    tine_synth_lower_stats *st;
    uint64_t seed;
    cost_slot *memo; /* node costs by grammar entry and operand types */
    size_t nmemo;
    int zl; /* lanes of the expressions built */
    opset spec_ops;
    bucket buckets[MAX_BUCKETS];
    int nbuckets;
    int bound;         /* the dearest rewrite worth a rule */
    int last_level;    /* the last cost level searched */
    size_t last_items; /* and the bank's size then */
} search;

/* ---- values ------------------------------------------------------------------------- */

static uint64_t canon(tine_type_t t, uint64_t v) {
    if (t.bits >= 64 || t.kind == TINE_BOOL) return t.kind == TINE_BOOL ? v & 1 : v;
    uint64_t m = ((uint64_t)1 << t.bits) - 1;
    v &= m;
    if (t.kind == TINE_INT && (v >> (t.bits - 1) & 1)) v |= ~m;
    return v;
}

static bool eval_in(search *S, tine_env_t *env, const tine_expr_t *e, uint64_t *out) {
    tine_saved_error saved = tine_error_save(S->ctx);
    int rc = tine_eval(S->ctx, e, env, out);
    tine_error_restore(S->ctx, &saved);
    if (rc) return false;
    for (int i = 0; i < e->type.lanes; i++) out[i] = canon(e->type, out[i]);
    return true;
}

static uint64_t hash_vals(tine_type_t t, const uint64_t *v) { return synth_hash_vals(t, v, t.lanes); }

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
        int64_t y = (int64_t)canon(t, x);
        if (y < lo || y > hi) y = lo + (int64_t)(x % (span + 1));
        x = (uint64_t)y;
    }
    return canon(t, x);
}

static tine_env_t *make_env(search *S, bool edges, const uint64_t (*fixed)[Z3_LANES]) {
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

/* ---- the bank of expressions ------------------------------------------------------------ */

static bool same_item(search *S, size_t i, tine_type_t t, const uint64_t *v) {
    return tine_type_eq(S->items[i].et, t) && !memcmp(S->pool + S->items[i].val, v, (size_t)t.lanes * sizeof *v);
}

static uint64_t item_hash(void *user, size_t i) {
    search *S = user;
    return hash_vals(S->items[i].et, S->pool + S->items[i].val);
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

/* The placeholder standing for operand j (an item of type t) in a node being evaluated. */
static tine_expr_t *placeholder(search *S, int j, tine_type_t t) {
    static const char *const name[] = {"_p0", "_p1", "_p2"};
    return tine_var(S->ctx, name[j], t);
}

/* ---- the grammar ------------------------------------------------------------------------ */

typedef enum { G_BIN, G_UN, G_CAST, G_REINT, G_CMP, G_SELECT, G_INSN, G_ILV, G_DEILV } gkind;

typedef struct {
    gkind kind;
    int op;          /* the primitive op; the instruction's code; deinterleave's k */
    int arity;
    tine_type_t to;  /* casts' and reinterprets' element type */
    tine_type_t in[3]; /* an instruction's operand element types */
} gram;

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

static tine_expr_t *build(search *S, const gram *g, tine_expr_t **a) {
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
    for (int j = 0; j < in->nops; j++) ph[j] = placeholder(S, j, tine_type_with_lanes(in->optype[j], 16));
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

/* ---- checking a match ----------------------------------------------------------------- */

/* One Z3 query: spec == e at S->zl lanes under the spec's ranges, with products
 * abstracted to their ranges or not. 1 proven, 0 refuted (a counterexample, which
 * becomes a new check unless abstract), -1 unknown. */
static int query(search *S, tine_expr_t *e, bool abstract, unsigned timeout_ms) {
    tine_smt *s = tine_smt_new(S->ctx, timeout_ms);
    tine_smt_abstract_products(s, abstract);
    Z3_context z = tine_smt_z3(s);
    Z3_ast lanes[MAX_VARS][Z3_LANES];
    for (int k = 0; k < S->nvars; k++) {
        tine_type_t t = S->vz[k]->type;
        for (int l = 0; l < S->zl; l++) {
            char name[32];
            snprintf(name, sizeof name, "v%d_%d", k, l);
            lanes[k][l] = S->spec->uniform[k] && l ? lanes[k][0]
                                                   : Z3_mk_const(z, Z3_mk_string_symbol(z, name), tine_smt_sort(s, t.bits));
            if (S->spec->lo[k] < S->spec->hi[k]) {
                Z3_ast lo = tine_smt_num(s, t.bits, (tine_u128)S->spec->lo[k]);
                Z3_ast hi = tine_smt_num(s, t.bits, (tine_u128)S->spec->hi[k]);
                bool sg = t.kind == TINE_INT;
                tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lo, lanes[k][l]) : Z3_mk_bvule(z, lo, lanes[k][l]));
                tine_smt_assume(s, sg ? Z3_mk_bvsle(z, lanes[k][l], hi) : Z3_mk_bvule(z, lanes[k][l], hi));
            }
        }
        tine_smt_bind(s, S->vz[k], lanes[k]);
    }
    Z3_ast a[TINE_MAX_LANES], b[TINE_MAX_LANES];
    int rc = -1;
    tine_saved_error saved = tine_error_save(S->ctx);
    if (!tine_smt_encode(s, S->want_z, a) && !tine_smt_encode(s, e, b)) {
        int nl = S->want_z->type.lanes;
        Z3_ast *ne = tine_xmalloc((size_t)nl * sizeof *ne);
        for (int l = 0; l < nl; l++) ne[l] = Z3_mk_not(z, Z3_mk_eq(z, a[l], b[l]));
        double t0 = tine_now();
        int sat = tine_smt_sat(s, Z3_mk_or(z, (unsigned)nl, ne));
        S->st->solver_seconds += tine_now() - t0;
        S->st->queries++;
        free(ne);
        rc = sat == 0 ? 1 : sat < 0 ? -1 : 0;
        if (sat == 1 && !abstract && S->ncex < MAX_CEX) {
            uint64_t fixed[MAX_VARS][Z3_LANES];
            for (int k = 0; k < S->nvars; k++)
                for (int l = 0; l < S->zl; l++) {
                    tine_u128 v = 0;
                    tine_smt_model_value(s, lanes[k][l], &v);
                    fixed[k][l] = canon(S->vz[k]->type, (uint64_t)v);
                }
            S->cex[S->ncex++] = make_env(S, false, (const uint64_t(*)[Z3_LANES])fixed);
            S->st->counterexamples++;
        }
    }
    tine_error_restore(S->ctx, &saved);
    tine_smt_free(s);
    return rc;
}

/* Z3, as the rule prover asks it (prove.c): exactly with a short limit; then with
 * products abstracted (a proof there is a proof: multipliers are what bit-blasting finds
 * hardest); then exactly with the whole limit (a counterexample must be a real one).
 * 1 proven, 0 refuted, -1 unknown. */
static int prove(search *S, tine_expr_t *e) {
    unsigned full = S->o->timeout_ms, quick = full && full < 1000 ? full : 1000;
    int r = query(S, e, false, quick);
    if (r >= 0) return r;
    if (query(S, e, true, full) == 1) return 1;
    return query(S, e, false, full);
}

/* e (at Z3 lanes) rebuilt at EVAL lanes, for the checks on other inputs. */
static tine_expr_t *at_eval(search *S, const tine_expr_t *e);

static bool passes_checks(search *S, tine_expr_t *e) {
    if (!S->ncex) return true;
    tine_expr_t *x = at_eval(S, e);
    if (!x) return false;
    uint64_t a[TINE_MAX_LANES], b[TINE_MAX_LANES];
    for (int c = 0; c < S->ncex; c++)
        if (!eval_in(S, S->cex[c], S->want_e, a) || !eval_in(S, S->cex[c], x, b) ||
            memcmp(a, b, (size_t)x->type.lanes * sizeof *a))
            return false;
    return true;
}

/* ---- costs ---------------------------------------------------------------------------------- */

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
static int expr_units(search *S, const tine_expr_t *node) {
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

static int node_units(search *S, const gram *g, item *const *x) {
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
    for (int j = 0; j < g->arity; j++) ph[j] = placeholder(S, j, x[j]->e->type);
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *node = build(S, g, ph);
    tine_error_restore(S->ctx, &saved);
    int units = node ? expr_units(S, node) : -1;
    if (!S->memo[k].key) S->memo[k] = (cost_slot){key, units};
    return units;
}

/* ---- enumeration -------------------------------------------------------------------------- */

static bool timed_out(search *S) { return tine_now() > S->deadline; }

typedef struct {
    tine_expr_t *found; /* proven equal to the spec */
    int cost;
    tine_expr_t *pend;  /* proven, but dearer than the level searched (a meet or a fix-up) */
    int pend_cost;
} result;

/* The item with values v (of type t at EVAL lanes), or -1. */
static long find_vals(search *S, tine_type_t t, const uint64_t *v) {
    if (!S->nslots) return -1;
    for (size_t k = hash_vals(t, v) & (S->nslots - 1); S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (same_item(S, S->slots[k] - 1, t, v)) return (long)S->slots[k] - 1;
    return -1;
}

/* Is e, whose values match the spec's, equal to it: on the counterexamples so far, then
 * by Z3 (counted: a match, an unknown)? */
static bool proven(search *S, tine_expr_t *e) {
    S->st->matched++;
    if (!passes_checks(S, e)) return false;
    int p = prove(S, e);
    if (p < 0) S->st->unknown++;
    return p == 1;
}

/* A rewrite e (at Z3 lanes) of this cost found other than by a level's enumeration: kept
 * as pending when proven and cheaper than what is pending. */
static void offer(search *S, tine_expr_t *e, int cost, result *R) {
    if (!e || cost > S->bound || (R->pend && cost >= R->pend_cost)) return;
    if (proven(S, e)) {
        R->pend = e;
        R->pend_cost = cost;
    }
}

/* Meet in the middle: the spec as a op b, a the new item (i) and b any before it, for
 * the ops one can undo (add, sub, xor): b's values follow from the spec's and a's, and
 * one lookup finds it. A bank of depth d so reaches rewrites of depth 2d + 1: a rounding
 * shift by a variable count, (2x >>> y) - ((x >> y) & (~0 >>> y)), from items of three
 * nodes. */
static void meet(search *S, size_t i, result *R) {
    static const gram inv[] = {{.kind = G_BIN, .op = TINE_OP_ADD, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_SUB, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_SUB, .arity = 2},
                               {.kind = G_BIN, .op = TINE_OP_XOR, .arity = 2}};
    if (S->spec->insns_only) return;
    item a = S->items[i];
    const uint64_t *va = S->pool + a.val, *w = S->want_vals;
    uint64_t need[TINE_MAX_LANES];
    for (int k = 0; k < 4; k++) {
        for (int l = 0; l < a.et.lanes; l++) {
            uint64_t n = k == 0 ? w[l] - va[l] : k == 1 ? va[l] - w[l] : k == 2 ? w[l] + va[l] : w[l] ^ va[l];
            need[l] = canon(a.et, n);
        }
        long j = find_vals(S, a.et, need);
        if (j < 0) continue;
        item b = S->items[j];
        if (a.konst && b.konst) continue;
        item *x[2] = {&a, &b};
        if (k == 2) x[0] = &b, x[1] = &a; /* b - a */
        int nc = node_units(S, &inv[k], x);
        if (nc < 0) continue;
        tine_saved_error saved = tine_error_save(S->ctx);
        tine_expr_t *e = tine_binary(S->ctx, (tine_op_t)inv[k].op, x[0]->e, x[1]->e);
        tine_error_restore(S->ctx, &saved);
        offer(S, e, a.cost + b.cost + nc, R);
    }
}

/* A near miss: item i equals the spec except in lanes where it has one value p and the
 * spec one other value q, and p occurs nowhere else (a saturation's single wrapped case:
 * pmulhrsw's -32768 * -32768). Fixed by a select on i == p, or, where q is ~p, by an xor
 * with the comparison's mask. */
static void fix_up(search *S, size_t i, result *R) {
    item a = S->items[i];
    if (a.konst || S->spec->insns_only) return;
    const uint64_t *va = S->pool + a.val, *w = S->want_vals;
    uint64_t p = 0, q = 0;
    int miss = 0;
    for (int l = 0; l < a.et.lanes; l++) {
        if (va[l] == w[l]) continue;
        if (miss && (va[l] != p || w[l] != q)) return;
        p = va[l], q = w[l], miss++;
    }
    if (!miss) return;
    for (int l = 0; l < a.et.lanes; l++)
        if (va[l] == p && w[l] != q) return;
    tine_ctx_t *ctx = S->ctx;
    tine_type_t t = a.e->type;
    tine_saved_error saved = tine_error_save(ctx);
    tine_expr_t *eq = tine_binary(ctx, TINE_OP_EQ, a.e, tine_const_uint(ctx, t, p));
    tine_expr_t *sel = eq ? tine_select(ctx, eq, tine_const_uint(ctx, t, q), a.e) : NULL;
    tine_expr_t *mask = eq && q == canon(a.et, ~p) ? tine_unary(ctx, TINE_OP_NEG, tine_cast(ctx, t, eq)) : NULL;
    tine_expr_t *flip = mask ? tine_binary(ctx, TINE_OP_XOR, a.e, mask) : NULL;
    tine_error_restore(ctx, &saved);
    if (!eq) return;
    int ce = expr_units(S, eq);
    if (sel && ce >= 0 && expr_units(S, sel) >= 0) offer(S, sel, a.cost + ce + expr_units(S, sel), R);
    if (flip && ce >= 0) {
        int cm = expr_units(S, mask->ops[0]) + expr_units(S, mask) + expr_units(S, flip);
        offer(S, flip, a.cost + ce + cm, R);
    }
}

/* Tries g on operands x: builds the node on placeholders at EVAL lanes, evaluates it,
 * keeps it if its fingerprint is new, and checks it against the spec if it matches. */
static void try_node(search *S, const gram *g, item *const *x, int cost, result *R) {
    tine_ctx_t *ctx = S->ctx;
    S->st->enumerated++;
    tine_expr_t *ph[3];
    tine_saved_error saved = tine_error_save(ctx);
    for (int j = 0; j < g->arity; j++) {
        ph[j] = placeholder(S, j, x[j]->et);
        tine_env_bind(S->env, ph[j], S->pool + x[j]->val);
    }
    tine_expr_t *node = build(S, g, ph);
    uint64_t v[TINE_MAX_LANES];
    bool ok = node && node->type.lanes <= TINE_MAX_LANES && tine_eval(ctx, node, S->env, v) == 0;
    tine_error_restore(ctx, &saved);
    if (!ok) return;
    for (int i = 0; i < node->type.lanes; i++) v[i] = canon(node->type, v[i]);
    if (2 * (S->n + 1) > S->nslots) rehash(S);
    uint64_t h = hash_vals(node->type, v);
    size_t k = h & (S->nslots - 1);
    for (; S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (same_item(S, S->slots[k] - 1, node->type, v)) return;
    /* new: the expression itself, at Z3 lanes */
    tine_expr_t *ops[3];
    for (int j = 0; j < g->arity; j++) ops[j] = x[j]->e;
    saved = tine_error_save(ctx);
    tine_expr_t *e = build(S, g, ops);
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
        meet(S, S->n - 1, R);
        fix_up(S, S->n - 1, R);
        return;
    }
    if (proven(S, e)) {
        R->found = e;
        R->cost = cost;
    }
}

/* Adds a leaf (a variable, a constant, a reinterpreted variable) at cost 0. */
static void leaf(search *S, tine_expr_t *ez, tine_expr_t *ee, bool konst, bool uniform) {
    uint64_t v[TINE_MAX_LANES];
    if (!ez || !ee || !eval_in(S, S->env, ee, v)) return;
    if (2 * (S->n + 1) > S->nslots) rehash(S);
    uint64_t h = hash_vals(ee->type, v);
    size_t k = h & (S->nslots - 1);
    for (; S->slots[k]; k = (k + 1) & (S->nslots - 1))
        if (same_item(S, S->slots[k] - 1, ee->type, v)) return;
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
    int nc = node_units(S, g, x);
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
                int nc = node_units(S, g, x);
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

/* ---- rebuilding at other lanes -------------------------------------------------------------- */

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
    case TINE_OP_REINTERPRET: return tine_reinterpret(ctx, e->type, a[0]);
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

static tine_expr_t *at_eval(search *S, const tine_expr_t *e) {
    tine_saved_error saved = tine_error_save(S->ctx);
    tine_expr_t *r = relane(S, e, S->zl, EVAL_LANES);
    tine_error_restore(S->ctx, &saved);
    return r;
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

/* The spec's variables (x y z w, c0 a uniform count) at both lane counts. */
static bool bind_spec(search *S, const synth_spec *sp) {
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
static int tree_units(search *S, tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n);
    int units = 0;
    for (uint32_t k = 0; k < n; k++) {
        int nu = expr_units(S, order[k]);
        units += nu > 0 ? nu : 0;
    }
    free(order);
    return units;
}

/* The cheapest expression over the grammar proven equal to the spec, or NULL. */
static tine_expr_t *synthesize(search *S, const synth_spec *sp, int *cost, int *baseline) {
    if (!bind_spec(S, sp)) return NULL;
    related_types(S);
    /* its definition in primitive ops, each charged as the lowering charges it (not the
       FPIR node's own cost, which leaves out nodes some earlier search already built) */
    tine_expr_t *generic = tine_expand(S->ctx, S->want_z);
    *baseline = generic ? tree_units(S, generic) : 1 << 20;
    for (int e = 0; e < 2; e++) {
        /* the fingerprint inputs, and a second set of random ones checked before Z3 */
        tine_env_t *env = make_env(S, e == 0, NULL);
        if (e == 0) S->env = env;
        else S->cex[S->ncex++] = env;
    }
    uint64_t want[TINE_MAX_LANES];
    if (!eval_in(S, S->env, S->want_e, want)) {
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

/* Is the spec of this name asked for (--op: names' beginnings, comma-separated)? */
static bool wanted(const char *only, const char *name) {
    if (!only) return true;
    for (const char *p = only; *p;) {
        size_t n = strcspn(p, ",");
        if (n && !strncmp(name, p, n)) return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* Does e hold an FPIR op (below its root)? */
static bool has_fpir_below(tine_ctx_t *ctx, tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    bool any = false;
    for (uint32_t k = 0; k < n; k++) any |= tine_op_is_fpir((tine_op_t)order[k]->op);
    free(order);
    return any;
}

/* An FPIR node of e with a constant operand not of the type a literal there gets (the
 * type rule patterns' c0 has there), with that operand retyped; NULL if none. */
static tine_expr_t *retyped(search *S, tine_expr_t *e, tine_expr_t **at) {
    uint32_t n;
    tine_expr_t **order = tine_topo(S->ctx, e, &n), *r = NULL;
    for (uint32_t k = 0; k < n && !r; k++) {
        tine_expr_t *x = order[k], *ops[3];
        if (!tine_op_is_fpir((tine_op_t)x->op) || x->nops > 3) continue;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = x->ops[j];
            tine_type_t lt = tine_type_with_lanes(tine_fpir_literal_type((tine_op_t)x->op, j, x->ops[0]->type),
                                                  x->ops[j]->type.lanes);
            if (x->ops[j]->op == TINE_OP_CONST && !tine_type_eq(lt, x->ops[j]->type) && lt.bits == x->ops[j]->type.bits)
                ops[j] = tine_const_uint(S->ctx, lt, tine_expr_const_lane(x->ops[j], 0));
        }
        tine_expr_t *y = tine_rebuild(S->ctx, x, ops);
        if (y != x) r = y, *at = x;
    }
    free(order);
    return r;
}

/* e with casts of constants folded (a definition widens its count, widen(s)) and FPIR
 * ops' constant operands typed as literals are: the rule patterns' c0. */
static tine_expr_t *fold_casts(search *S, tine_expr_t *e) {
    for (;;) {
        uint32_t n;
        tine_expr_t **order = tine_topo(S->ctx, e, &n), *x = NULL;
        for (uint32_t k = 0; k < n && !x; k++)
            if ((order[k]->op == TINE_OP_CAST || order[k]->op == TINE_OP_REINTERPRET) &&
                order[k]->ops[0]->op == TINE_OP_CONST)
                x = order[k];
        free(order);
        if (!x) {
            tine_expr_t *at = NULL, *y = retyped(S, e, &at);
            if (!y) return e;
            e = tine_replace(S->ctx, e, at, y);
            continue;
        }
        uint64_t v[TINE_MAX_LANES];
        tine_env_t *env = tine_env_new(S->ctx);
        bool ok = eval_in(S, env, x, v);
        tine_env_free(env);
        if (!ok) return e;
        e = tine_replace(S->ctx, e, x, tine_const_uint(S->ctx, x->type, v[0]));
    }
}

/* Rules that compose: an FPIR op's definition one level down, its own FPIR ops kept,
 * costs what the lowering makes of it with the rules found so far at level t. Where
 * that is less than what the search found (or the generic lowering, which goes to the
 * primitive ops at once), the definition is the rule: a Q31 rounding multiply is then a
 * widening multiply, a rounding shift and a saturating narrow, each lowered by a rule of
 * its own, where its generic form is a 128-bit shift LLVM does lane by lane. Repeated
 * while a round changes something: one composed rule can make another cheaper. */
static void compose(search *S, synth_found **F, size_t *nf, size_t *fcap, const synth_spec *specs, size_t nspecs,
                    const char *t) {
    tine_ctx_t *ctx = S->ctx;
    for (int round = 0; round < 4; round++) {
        tine_buf text = {0};
        synth_level_rules(&text, *F, *nf, t);
        tine_saved_error saved = tine_error_save(ctx);
        tine_ruleset_t *rs = tine_rules_compile_kind(ctx, text.p ? text.p : "", "synthesized", true);
        tine_error_restore(ctx, &saved);
        free(text.p);
        if (!rs) return;
        bool changed = false;
        for (size_t i = 0; i < nspecs; i++) {
            const synth_spec *sp = &specs[i];
            if (!wanted(S->o->only, sp->name)) continue;
            if (synth_spec_is_prim(sp) || sp->insns_only || strchr(sp->tmpl, '@') || !bind_spec(S, sp)) continue;
            if (!tine_op_is_fpir((tine_op_t)S->want_z->op)) continue;
            tine_expr_t *d = tine_fpir_define(ctx, S->want_z);
            if (d) d = fold_casts(S, d);
            if (!d || !has_fpir_below(ctx, d)) continue;
            synth_found *have = NULL;
            for (size_t k = 0; k < *nf; k++)
                if ((*F)[k].sp == sp && !strcmp((*F)[k].target, t)) have = &(*F)[k];
            /* both sides priced alike: as the lowering prices them, with these rules */
            tine_expr_t *generic = tine_expand(ctx, S->want_z);
            saved = tine_error_save(ctx);
            bool parts = false;
            double c = tine_lower_cost_in(ctx, d, t, rs, &parts);
            double now = have ? tine_lower_cost_in(ctx, have->e, t, rs, NULL)
                              : generic ? tine_lower_cost_in(ctx, generic, t, rs, NULL) : -1;
            tine_error_restore(ctx, &saved);
            /* a definition no rule lowers a part of is the generic lowering restated */
            if (!parts || c < 0 || (now >= 0 && c >= now)) continue;
            int units = (int)(c * 4 + 0.5);
            int base = generic ? tree_units(S, generic) : 1 << 20;
            tine_buf rhs = {0};
            tine_print_named(ctx, d, S->zl, true, &rhs);
            if (S->o->log) fprintf(S->o->log, "%-32s %-14s composed: %s (cost %.2f, was %.2f)\n", sp->name, t, rhs.p,
                                   c, now);
            if (!have) {
                TINE_GROW(*F, *nf + 1, *fcap);
                have = &(*F)[(*nf)++];
                *have = (synth_found){.sp = sp, .target = t};
                S->st->found++;
            }
            free(have->rhs);
            have->rhs = rhs.p;
            have->e = d;
            have->cost = units;
            have->baseline = base;
            changed = true;
        }
        tine_rules_free(rs);
        if (!changed) return;
    }
}

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
            if (!wanted(o->only, specs[i].name)) continue;
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
        compose(&S, &F, &nf, &fcap, specs, nspecs, t);
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
