/* fpir.c — FPIR ops: their table, signatures, and expansion by their definitions.
 *
 * An FPIR op means exactly its definition in tine_ops.h. To expand a node, the
 * definition is parsed once per context, elaborated once per (op, operand types) on
 * placeholder variables $0 $1 $2 into a fully expanded "template", and the template's
 * placeholders are then replaced by the node's operands. The interpreter evaluates
 * FPIR nodes through the same templates, so nothing restates an op's meaning.
 */
#include "../ir/ast.h"

const tine_fpir_info tine_fpir_table[TINE_FPIR_COUNT] = {
#define X(e, name, ar, sig, def) {name, ar, TINE_SIG_##sig, def},
    TINE_FPIR_OPS(X)
#undef X
};

struct tine_fpir_tmpl {
    uint16_t op;
    tine_type_t types[3], rt;
    tine_expr_t *ph[4];     /* placeholders (4: instruction templates share substitute) */
    tine_expr_t *expansion; /* fully expanded; NULL if the definition does not apply */
    char *error;            /* why not (malloc'd), when expansion is NULL */
};

static const char *tstr(tine_type_t t, char b[32]) { return tine_type_str(t, b, 32); }

/* ---- signatures --------------------------------------------------------------------- */

static tine_type_t bad(void) { return (tine_type_t){0, 0, 0}; }

tine_type_t tine_fpir_result_type(tine_ctx_t *ctx, tine_op_t op, int n, const tine_type_t *a,
                                  tine_type_t tparam) {
    const tine_fpir_info *info = &tine_fpir_table[op - TINE_FPIR_FIRST];
    const char *name = info->name;
    char b0[32], b1[32], b2[32];
    if (n != info->arity) {
        tine_set_error(ctx, "%s takes %d operand%s, got %d", name, info->arity, info->arity == 1 ? "" : "s", n);
        return bad();
    }
    for (int i = 0; i < n; i++) {
        if (!tine_type_is_int(a[i])) {
            tine_set_error(ctx, "%s needs integer operands, got %s", name, tstr(a[i], b0));
            return bad();
        }
        if (a[i].lanes != a[0].lanes) {
            tine_set_error(ctx, "%s: operands have %d and %d lanes", name, a[0].lanes, a[i].lanes);
            return bad();
        }
    }
    tine_type_t x = a[0], r = x;
    bool same = n < 2 || tine_type_eq(a[0], a[1]);
    bool same_bits = n < 2 || a[0].bits == a[1].bits;
    switch (info->sig) {
    case TINE_SIG_SAME2_WIDE:
    case TINE_SIG_SAME2_WIDE_SGN:
    case TINE_SIG_SAME2_UNSIGNED:
    case TINE_SIG_SAME2:
        if (!same) {
            tine_set_error(ctx, "%s: operands must have the same type, got %s and %s", name, tstr(a[0], b0), tstr(a[1], b1));
            return bad();
        }
        if (info->sig == TINE_SIG_SAME2_WIDE) r = tine_type_widen(x);
        else if (info->sig == TINE_SIG_SAME2_WIDE_SGN) r = tine_type_with_kind(tine_type_widen(x), TINE_INT);
        else if (info->sig == TINE_SIG_SAME2_UNSIGNED) r = tine_type_with_kind(x, TINE_UINT);
        break;
    case TINE_SIG_MIXED2_WIDE:
    case TINE_SIG_SHIFT_WIDE:
    case TINE_SIG_SHIFT:
        if (!same_bits) {
            tine_set_error(ctx, "%s: operands must have the same bits, got %s and %s", name, tstr(a[0], b0), tstr(a[1], b1));
            return bad();
        }
        if (info->sig == TINE_SIG_MIXED2_WIDE) {
            r = tine_type_widen(x);
            if (a[0].kind == TINE_INT || a[1].kind == TINE_INT) r = tine_type_with_kind(r, TINE_INT);
        } else if (info->sig == TINE_SIG_SHIFT_WIDE) {
            r = tine_type_widen(x);
        }
        break;
    case TINE_SIG_EXTEND:
        if (a[0].bits != 2 * a[1].bits) {
            tine_set_error(ctx, "%s: the first operand must have twice the bits of the second, got %s and %s", name,
                           tstr(a[0], b0), tstr(a[1], b1));
            return bad();
        }
        break;
    case TINE_SIG_UNARY_UNSIGNED: r = tine_type_with_kind(x, TINE_UINT); break;
    case TINE_SIG_CAST_PARAM:
        if (!tine_type_is_int(tparam)) {
            tine_set_error(ctx, "%s: the result type must be an integer type, got %s", name, tstr(tparam, b0));
            return bad();
        }
        r = tine_type_with_lanes(tparam, x.lanes);
        break;
    case TINE_SIG_NARROW:
        r = tine_type_narrow(x);
        if (!tine_type_valid(r)) {
            tine_set_error(ctx, "%s needs an operand of 16 bits or more, got %s", name, tstr(x, b0));
            return bad();
        }
        break;
    case TINE_SIG_MULSHR:
        if (!same) {
            tine_set_error(ctx, "%s: the two factors must have the same type, got %s and %s", name, tstr(a[0], b0), tstr(a[1], b1));
            return bad();
        }
        if (a[2].kind != TINE_UINT || a[2].bits != x.bits) {
            tine_set_error(ctx, "%s: the shift must be %s, got %s", name,
                           tstr(tine_type_with_kind(x, TINE_UINT), b0), tstr(a[2], b2));
            return bad();
        }
        break;
    }
    if (!tine_type_valid(r)) {
        tine_set_error(ctx, "%s is not defined on %s (no integer type twice as wide)", name, tstr(x, b0));
        return bad();
    }
    return r;
}

tine_type_t tine_fpir_literal_type(tine_op_t op, int i, tine_type_t t0) {
    tine_fpir_sig sig = tine_fpir_table[op - TINE_FPIR_FIRST].sig;
    if (i == 0) return t0;
    if (sig == TINE_SIG_EXTEND) return tine_type_narrow(t0);
    if (sig == TINE_SIG_MULSHR && i == 2) return tine_type_with_kind(t0, TINE_UINT);
    return t0;
}

/* ---- templates ------------------------------------------------------------------------ */

static tine_ast *definition(tine_ctx_t *ctx, tine_op_t op) {
    int k = op - TINE_FPIR_FIRST;
    if (!ctx->fpir_def[k]) {
        char file[64];
        snprintf(file, sizeof file, "<definition of %s>", tine_fpir_table[k].name);
        char *saved = ctx->error ? tine_strdup(ctx->error) : NULL;
        ctx->fpir_def[k] = tine_parse_ast(ctx, &ctx->arena, tine_fpir_table[k].definition, file);
        if (!ctx->fpir_def[k]) {
            fprintf(stderr, "%s\n", tine_error(ctx));
            TINE_ASSERT(!"an FPIR definition does not parse");
        }
        tine_set_error_str(ctx, saved);
    }
    return ctx->fpir_def[k];
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
    if (ctx->tmpl_count * 2 >= ctx->tmpl_cap) {
        uint32_t cap = ctx->tmpl_cap ? ctx->tmpl_cap * 2 : 64;
        tine_fpir_tmpl **tab = calloc(cap, sizeof *tab);
        TINE_CHECK_ALLOC(tab != NULL);
        for (uint32_t i = 0; i < ctx->tmpl_cap; i++) {
            tine_fpir_tmpl *m = ctx->tmpl[i];
            if (!m) continue;
            uint32_t j = tmpl_hash((tine_op_t)m->op, tine_fpir_table[m->op - TINE_FPIR_FIRST].arity, m->types, m->rt) & (cap - 1);
            while (tab[j]) j = (j + 1) & (cap - 1);
            tab[j] = m;
        }
        free(ctx->tmpl);
        ctx->tmpl = tab;
        ctx->tmpl_cap = cap;
    }
    uint32_t j = tmpl_hash(op, n, t, rt) & (ctx->tmpl_cap - 1);
    for (; ctx->tmpl[j]; j = (j + 1) & (ctx->tmpl_cap - 1))
        if (tmpl_match(ctx->tmpl[j], op, n, t, rt)) return ctx->tmpl[j];
    tine_fpir_tmpl *m = tine_arena_alloc(&ctx->arena, sizeof *m);
    m->op = (uint16_t)op;
    m->rt = rt;
    static const char *const names[3] = {"x", "y", "s"};
    tine_binding binds[3];
    char *saved = ctx->error ? tine_strdup(ctx->error) : NULL;
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
        m->error = malloc(len + 1);
        TINE_CHECK_ALLOC(m->error != NULL);
        memcpy(m->error, why ? why : "", len);
        m->error[len] = 0;
    }
    tine_set_error_str(ctx, saved);
    /* The elaboration may have added templates (the FPIR ops inside the definition) and
       grown the table: j may be taken or stale, so find the slot again. */
    j = tmpl_hash(op, n, t, rt) & (ctx->tmpl_cap - 1);
    while (ctx->tmpl[j]) j = (j + 1) & (ctx->tmpl_cap - 1);
    ctx->tmpl[j] = m;
    ctx->tmpl_count++;
    return m;
}

void tine_fpir_free_templates(tine_ctx_t *ctx) {
    for (uint32_t i = 0; i < ctx->tmpl_cap; i++)
        if (ctx->tmpl[i]) free(ctx->tmpl[i]->error);
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

/* ---- constructor -------------------------------------------------------------------- */

tine_expr_t *tine_fpir(tine_ctx_t *ctx, tine_op_t op, int n, tine_expr_t *const *args, tine_type_t tparam) {
    if (!tine_op_is_fpir(op)) {
        tine_set_error(ctx, "'%s' is not an FPIR op", tine_op_name(op));
        return NULL;
    }
    if (n < 0 || n > 3) {
        tine_set_error(ctx, "%s: %d operands", tine_op_name(op), n);
        return NULL;
    }
    tine_type_t t[3];
    for (int i = 0; i < n; i++) {
        if (!args[i]) return NULL;
        t[i] = args[i]->type;
    }
    tine_type_t rt = tine_fpir_result_type(ctx, op, n, t, tparam);
    if (!tine_type_valid(rt)) return NULL;
    tine_fpir_tmpl *m = find_template(ctx, op, n, t, rt);
    if (!m->expansion) {
        char b[32];
        tine_set_error(ctx, "%s is not defined on %s operands (its definition fails there: %s)", tine_op_name(op),
                       tstr(tine_type_with_lanes(t[0], 1), b), m->error);
        return NULL;
    }
    return tine_make(ctx, op, rt, n, args, 0, 0, NULL, 0);
}

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
    tine_expr_t **order = tine_topo(ctx, e, &n), **map = malloc(sizeof *map * n);
    TINE_CHECK_ALLOC(map != NULL);
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

/* The template with its placeholders replaced by ops. */
static tine_expr_t *substitute(tine_ctx_t *ctx, const tine_fpir_tmpl *m, tine_expr_t *const *ops, int n) {
    uint32_t count;
    tine_expr_t **order = tine_topo(ctx, m->expansion, &count);
    tine_expr_t **map = malloc(sizeof *map * count);
    TINE_CHECK_ALLOC(map != NULL);
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
    TINE_ASSERT(n >= 0 && n <= 4);
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
    uint32_t count;
    tine_expr_t **order = tine_topo(ctx, root, &count);
    for (uint32_t k = 0; k < count; k++) {
        tine_expr_t *e = order[k];
        if (e->id < ctx->expanded_cap && ctx->expanded[e->id]) continue;
        tine_expr_t *nops[256];
        for (int i = 0; i < e->nops; i++) nops[i] = ctx->expanded[e->ops[i]->id];
        tine_expr_t *r = tine_rebuild(ctx, e, nops);
        if (tine_op_is_fpir((tine_op_t)r->op)) {
            tine_fpir_tmpl *m = template_of(ctx, r);
            TINE_ASSERT(m->expansion != NULL);
            r = substitute(ctx, m, r->ops, r->nops);
        } else if (r->op == TINE_OP_INSN) {
            const tine_expr_t *const *ph;
            const tine_expr_t *t = tine_insn_template(ctx, r, &ph, true);
            tine_fpir_tmpl m = {.expansion = (tine_expr_t *)t};
            for (int i = 0; i < r->nops; i++) m.ph[i] = (tine_expr_t *)ph[i];
            r = substitute(ctx, &m, r->ops, r->nops);
        }
        if (ctx->count > ctx->expanded_cap) {
            uint32_t cap = ctx->expanded_cap ? ctx->expanded_cap : 1024;
            while (cap < ctx->count) cap *= 2;
            ctx->expanded = realloc(ctx->expanded, cap * sizeof *ctx->expanded);
            TINE_CHECK_ALLOC(ctx->expanded != NULL);
            memset(ctx->expanded + ctx->expanded_cap, 0, (cap - ctx->expanded_cap) * sizeof *ctx->expanded);
            ctx->expanded_cap = cap;
        }
        ctx->expanded[e->id] = r;
        ctx->expanded[r->id] = r; /* primitive by construction */
    }
    tine_expr_t *r = ctx->expanded[root->id];
    free(order);
    return r;
}
