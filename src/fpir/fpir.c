/* fpir.c — what FPIR ops mean: their definitions, instantiated into templates, and the
 * expansion of FPIR (and instruction) nodes into primitive ops.
 *
 * An FPIR op means exactly its definition in tine_ops.h (its table and signatures are
 * the IR core's, src/ir/fpir_ops.c). To expand a node, the definition is parsed once per
 * context, elaborated once per (op, operand types) on placeholder variables $0 $1 $2
 * into a fully expanded "template", and the template's placeholders are then replaced by
 * the node's operands. The core's constructor and interpreter reach the templates
 * through ctx->sem (tine_fpir_install), so nothing restates an op's meaning. The state
 * is this layer's slot of the context (TINE_LAYER_FPIR).
 */
#include "../ir/ast.h"

typedef struct tine_fpir_tmpl {
    uint16_t op;
    tine_type_t types[3], rt;
    tine_expr_t *ph[TINE_INSN_MAX_OPS]; /* placeholders (instruction templates share substitute: up to 6) */
    tine_expr_t *expansion; /* fully expanded; NULL if the definition does not apply */
    char *error;            /* why not (malloc'd), when expansion is NULL */
} tine_fpir_tmpl;

typedef struct {
    tine_ast *def[TINE_FPIR_COUNT]; /* parsed definitions */
    tine_fpir_tmpl **tmpl;          /* open addressing by tmpl_hash */
    uint32_t tmpl_cap, tmpl_count;
    tine_expr_t **expanded;         /* expansion cache: node id -> expanded node */
    size_t expanded_cap;
} fpir_state;

static void state_free(tine_ctx_t *ctx, void *state) {
    (void)ctx;
    fpir_state *st = state;
    for (uint32_t i = 0; i < st->tmpl_cap; i++)
        if (st->tmpl[i]) free(st->tmpl[i]->error);
    free(st->tmpl);
    free(st->expanded);
    free(st);
}

static fpir_state *state(tine_ctx_t *ctx) { return tine_layer_make(ctx, TINE_LAYER_FPIR, sizeof(fpir_state), state_free); }

static const char *tstr(tine_type_t t, char b[32]) { return tine_type_str(t, b, 32); }

/* ---- templates ------------------------------------------------------------------------ */

static tine_ast *definition(tine_ctx_t *ctx, tine_op_t op) {
    int k = op - TINE_FPIR_FIRST;
    fpir_state *st = state(ctx);
    if (!st->def[k]) {
        char file[64];
        snprintf(file, sizeof file, "<definition of %s>", tine_fpir_table[k].name);
        tine_saved_error saved = tine_error_save(ctx);
        st->def[k] = tine_parse_ast(ctx, &ctx->arena, tine_fpir_table[k].definition, file);
        if (!st->def[k]) {
            fprintf(stderr, "%s\n", tine_error(ctx));
            TINE_ASSERT(!"an FPIR definition does not parse");
        }
        tine_error_restore(ctx, &saved);
    }
    return st->def[k];
}

static uint32_t tmpl_hash(tine_op_t op, int n, const tine_type_t *t, tine_type_t rt) {
    uint32_t h = (uint32_t)op * 2654435761u;
    for (int i = 0; i < n; i++) h = (h ^ ((uint32_t)t[i].kind << 24 | (uint32_t)t[i].bits << 16 | t[i].lanes)) * 16777619u;
    return (h ^ ((uint32_t)rt.kind << 24 | (uint32_t)rt.bits << 16 | rt.lanes)) * 16777619u;
}

static bool tmpl_match(const tine_fpir_tmpl *m, tine_op_t op, int n, const tine_type_t *t, tine_type_t rt) {
    if (m->op != op || !tine_type_eq(m->rt, rt)) return false;
    for (int i = 0; i < n; i++)
        if (!tine_type_eq(m->types[i], t[i])) return false;
    return true;
}

static tine_fpir_tmpl *find_template(tine_ctx_t *ctx, tine_op_t op, int n, const tine_type_t *t, tine_type_t rt) {
    fpir_state *st = state(ctx);
    if (st->tmpl_count * 2 >= st->tmpl_cap) {
        uint32_t cap = st->tmpl_cap ? st->tmpl_cap * 2 : 64;
        tine_fpir_tmpl **tab = tine_xcalloc(cap, sizeof *tab);
        for (uint32_t i = 0; i < st->tmpl_cap; i++) {
            tine_fpir_tmpl *m = st->tmpl[i];
            if (!m) continue;
            uint32_t j = tmpl_hash((tine_op_t)m->op, tine_fpir_table[m->op - TINE_FPIR_FIRST].arity, m->types, m->rt) & (cap - 1);
            while (tab[j]) j = (j + 1) & (cap - 1);
            tab[j] = m;
        }
        free(st->tmpl);
        st->tmpl = tab;
        st->tmpl_cap = cap;
    }
    uint32_t j = tmpl_hash(op, n, t, rt) & (st->tmpl_cap - 1);
    for (; st->tmpl[j]; j = (j + 1) & (st->tmpl_cap - 1))
        if (tmpl_match(st->tmpl[j], op, n, t, rt)) return st->tmpl[j];
    tine_fpir_tmpl *m = tine_arena_alloc(&ctx->arena, sizeof *m);
    m->op = (uint16_t)op;
    m->rt = rt;
    static const char *const names[3] = {"x", "y", "s"};
    tine_binding binds[3];
    tine_saved_error saved = tine_error_save(ctx);
    for (int i = 0; i < n; i++) {
        char ph[4] = {'$', (char)('0' + i), 0};
        m->types[i] = t[i];
        m->ph[i] = tine_var(ctx, ph, t[i]);
        binds[i].name = i == 2 ? names[2] : names[i];
        binds[i].expr = m->ph[i];
    }
    tine_elab_env env = {.T = tine_type_with_lanes(t[0], 1), .U = tine_type_with_lanes(rt, 1), .R = rt,
                         .binds = binds, .nbinds = n, .lanes = rt.lanes, .definition = true};
    if (op != TINE_OP_SATURATING_CAST) env.U = (tine_type_t){0, 0, 0};
    tine_expr_t *e = tine_elaborate(ctx, definition(ctx, op), &env);
    if (e) e = tine_expand(ctx, e);
    if (e && !tine_type_eq(e->type, rt)) {
        char b0[32], b1[32];
        fprintf(stderr, "definition of %s gives %s, signature says %s\n", tine_op_name(op), tstr(e->type, b0), tstr(rt, b1));
        TINE_ASSERT(!"FPIR definition and signature disagree");
    }
    m->expansion = e;
    if (!e) {
        /* The definition needs a type tine lacks (a 64-bit rounding_mul_shr needs
         * 256-bit intermediates): the op is not defined on these operands. */
        const char *why = tine_error(ctx);
        const char *nl = why ? strchr(why, '\n') : NULL;
        size_t len = why ? (nl ? (size_t)(nl - why) : strlen(why)) : 0;
        m->error = tine_xmalloc(len + 1);
        memcpy(m->error, why ? why : "", len);
        m->error[len] = 0;
    }
    tine_error_restore(ctx, &saved);
    /* The elaboration may have added templates (the FPIR ops inside the definition) and
       grown the table: j may be taken or stale, so find the slot again. */
    j = tmpl_hash(op, n, t, rt) & (st->tmpl_cap - 1);
    while (st->tmpl[j]) j = (j + 1) & (st->tmpl_cap - 1);
    st->tmpl[j] = m;
    st->tmpl_count++;
    return m;
}

static tine_fpir_tmpl *template_of(tine_ctx_t *ctx, const tine_expr_t *e) {
    tine_type_t t[3];
    for (int i = 0; i < e->nops; i++) t[i] = e->ops[i]->type;
    return find_template(ctx, (tine_op_t)e->op, e->nops, t, e->type);
}

const tine_expr_t *tine_fpir_template(tine_ctx_t *ctx, const tine_expr_t *e,
                                      const tine_expr_t *const **placeholders) {
    tine_fpir_tmpl *m = template_of(ctx, e);
    *placeholders = (const tine_expr_t *const *)m->ph;
    return m->expansion;
}

/* ctx->sem's view of the templates: the core's constructor checks with it that a
 * definition applies, and its interpreter evaluates FPIR nodes through it. */
static const tine_expr_t *sem_template(tine_ctx_t *ctx, tine_op_t op, int n, const tine_type_t *t, tine_type_t rt,
                                       const tine_expr_t *const **ph, const char **why) {
    tine_fpir_tmpl *m = find_template(ctx, op, n, t, rt);
    *ph = (const tine_expr_t *const *)m->ph;
    if (why) *why = m->error;
    return m->expansion;
}

void tine_fpir_install(tine_ctx_t *ctx) { ctx->sem.fpir_template = sem_template; }

/* ---- expansion ---------------------------------------------------------------------- */

/* e with its operands replaced (same op, type, immediate and constant words). */
tine_expr_t *tine_rebuild(tine_ctx_t *ctx, const tine_expr_t *e, tine_expr_t *const *ops) {
    bool same = true;
    for (int i = 0; i < e->nops && same; i++) same = ops[i] == e->ops[i];
    if (same) return (tine_expr_t *)e;
    return tine_make(ctx, (tine_op_t)e->op, e->type, e->nops, ops, e->imm, e->flags, tine_node_words(e),
                     tine_node_nwords(e));
}

/* e with node v replaced by r wherever it occurs. */
tine_expr_t *tine_replace(tine_ctx_t *ctx, tine_expr_t *e, const tine_expr_t *v, tine_expr_t *r) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n), **map = tine_xmalloc(sizeof *map * n);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i], *ops[UINT8_MAX + 1];
        for (int j = 0; j < x->nops; j++) ops[j] = map[tine_topo_index(order, n, x->ops[j])];
        map[i] = x == v ? r : tine_rebuild(ctx, x, ops);
    }
    tine_expr_t *out = map[n - 1];
    free(map);
    free(order);
    return out;
}

/* e's definition one level down: the FPIR ops it is written with kept as nodes (what a
 * rule that composes other ops' lowerings states); NULL where the definition does not
 * apply to e's operands. */
tine_expr_t *tine_fpir_define(tine_ctx_t *ctx, const tine_expr_t *e) {
    TINE_ASSERT(tine_op_is_fpir((tine_op_t)e->op));
    static const char *const names[3] = {"x", "y", "s"};
    tine_binding binds[3];
    for (int i = 0; i < e->nops; i++) binds[i] = (tine_binding){.name = names[i], .expr = e->ops[i]};
    tine_elab_env env = {.T = tine_type_with_lanes(e->ops[0]->type, 1), .U = tine_type_with_lanes(e->type, 1),
                         .R = e->type, .binds = binds, .nbinds = e->nops, .lanes = e->type.lanes, .definition = true};
    if (e->op != TINE_OP_SATURATING_CAST) env.U = (tine_type_t){0, 0, 0};
    tine_saved_error saved = tine_error_save(ctx);
    tine_expr_t *r = tine_elaborate(ctx, definition(ctx, (tine_op_t)e->op), &env);
    tine_error_restore(ctx, &saved);
    return r && tine_type_eq(r->type, e->type) ? r : NULL;
}

/* The template with its placeholders replaced by ops. */
static tine_expr_t *substitute(tine_ctx_t *ctx, const tine_fpir_tmpl *m, tine_expr_t *const *ops, int n) {
    uint32_t count;
    tine_expr_t **order = tine_topo(ctx, m->expansion, &count);
    tine_expr_t **map = tine_xmalloc(sizeof *map * count);
    /* order is sorted by id: binary search finds an operand's new node */
    tine_expr_t *r = NULL;
    for (uint32_t k = 0; k < count; k++) {
        tine_expr_t *e = order[k], *nops[256];
        int ph = -1;
        for (int i = 0; i < n; i++)
            if (e == m->ph[i]) ph = i;
        if (ph >= 0) {
            map[k] = ops[ph];
            continue;
        }
        for (int i = 0; i < e->nops; i++) nops[i] = map[tine_topo_index(order, count, e->ops[i])];
        map[k] = tine_rebuild(ctx, e, nops);
    }
    r = map[count - 1];
    free(map);
    free(order);
    return r;
}

tine_expr_t *tine_substitute(tine_ctx_t *ctx, const tine_expr_t *root, const tine_expr_t *const *from,
                             tine_expr_t *const *to, int n) {
    TINE_ASSERT(n >= 0 && n <= TINE_INSN_MAX_OPS);
    tine_fpir_tmpl m = {.expansion = (tine_expr_t *)root};
    for (int i = 0; i < n; i++) m.ph[i] = (tine_expr_t *)from[i];
    return substitute(ctx, &m, to, n);
}

tine_expr_t *tine_fpir_expand_node(tine_ctx_t *ctx, const tine_expr_t *e) {
    TINE_ASSERT(tine_op_is_fpir((tine_op_t)e->op));
    tine_fpir_tmpl *m = template_of(ctx, e);
    TINE_ASSERT(m->expansion != NULL); /* the constructor checked */
    return substitute(ctx, m, e->ops, e->nops);
}

tine_expr_t *tine_expand(tine_ctx_t *ctx, tine_expr_t *root) {
    if (!root) return NULL;
    fpir_state *st = state(ctx);
    uint32_t count;
    tine_expr_t **order = tine_topo(ctx, root, &count);
    for (uint32_t k = 0; k < count; k++) {
        tine_expr_t *e = order[k];
        if (e->id < st->expanded_cap && st->expanded[e->id]) continue;
        tine_expr_t *nops[256];
        for (int i = 0; i < e->nops; i++) nops[i] = st->expanded[e->ops[i]->id];
        tine_expr_t *r = tine_rebuild(ctx, e, nops);
        if (tine_op_is_fpir((tine_op_t)r->op)) {
            tine_fpir_tmpl *m = template_of(ctx, r);
            TINE_ASSERT(m->expansion != NULL);
            r = substitute(ctx, m, r->ops, r->nops);
        } else if (r->op == TINE_OP_INSN) {
            const tine_expr_t *const *ph;
            const tine_expr_t *t = tine_node_template(ctx, r, &ph, true);
            tine_fpir_tmpl m = {.expansion = (tine_expr_t *)t};
            for (int i = 0; i < r->nops; i++) m.ph[i] = (tine_expr_t *)ph[i];
            r = substitute(ctx, &m, r->ops, r->nops);
        }
        TINE_GROW_ZERO(st->expanded, ctx->count, st->expanded_cap);
        st->expanded[e->id] = r;
        st->expanded[r->id] = r; /* primitive by construction */
    }
    tine_expr_t *r = st->expanded[root->id];
    free(order);
    return r;
}

/* Every subexpression whose operands are constants, evaluated once: a semantics applied
 * to constants (an intrinsic's immediate, a shift count) becomes the constant it computes,
 * and a select on a constant condition its chosen operand, so what the rules see is what
 * the source meant (a rounding shift by 8, not by min(i32(8), 17)). */
tine_expr_t *tine_fold_constants(tine_ctx_t *ctx, tine_expr_t *root) {
    if (!root) return NULL;
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    tine_u64map memo = {0};
    tine_env_t *env = tine_env_new(ctx);
    tine_expr_t *result = root;
    for (uint32_t k = 0; k < n; k++) {
        tine_expr_t *e = order[k], *ops[256];
        bool changed = false, all_const = e->nops > 0;
        for (int i = 0; i < e->nops; i++) {
            uint64_t v;
            ops[i] = tine_u64map_get(&memo, e->ops[i]->id, &v) ? (tine_expr_t *)(uintptr_t)v : e->ops[i];
            changed |= ops[i] != e->ops[i];
            all_const &= ops[i]->op == TINE_OP_CONST;
        }
        tine_expr_t *r = changed ? tine_rebuild(ctx, e, ops) : e;
        if (!r) break;
        /* a constant shift count within the width, in the shifted value's own type: the
           same shift, in the form the rules are written for (x >> 1, not x >> i32(1)) */
        if ((r->op == TINE_OP_SHL || r->op == TINE_OP_SHR) && r->ops[1]->op == TINE_OP_CONST &&
            !tine_type_eq(r->ops[1]->type, r->type) && tine_type_is_int(r->type)) {
            bool in_range = true;
            tine_u128 *cv = tine_xmalloc(sizeof *cv * (size_t)r->type.lanes);
            for (int i = 0; i < r->type.lanes; i++) {
                cv[i] = tine_const_value(r->ops[1], i);
                bool neg = r->ops[1]->type.kind == TINE_INT && (cv[i] >> (r->ops[1]->type.bits - 1)) & 1;
                in_range &= !neg && cv[i] < (tine_u128)r->type.bits;
            }
            if (in_range) r = tine_binary(ctx, (tine_op_t)r->op, r->ops[0], tine_const_u128(ctx, r->type, cv));
            free(cv);
        }
        if (r->op == TINE_OP_SELECT && ops[0]->op == TINE_OP_CONST && (ops[0]->flags & TINE_F_UNIFORM))
            r = tine_const_value(ops[0], 0) ? ops[1] : ops[2];
        else if (all_const && r->op != TINE_OP_LOAD && r->op != TINE_OP_VAR) {
            tine_u128 *vals = tine_xmalloc(sizeof *vals * (size_t)r->type.lanes);
            if (tine_eval128(ctx, r, env, vals) == 0) r = tine_const_u128(ctx, r->type, vals);
            else tine_clear_error(ctx);
            free(vals);
        }
        tine_u64map_put(&memo, e->id, (uint64_t)(uintptr_t)r);
        if (k + 1 == n) result = r;
    }
    free(order);
    tine_u64map_free(&memo);
    tine_env_free(env);
    return result;
}
