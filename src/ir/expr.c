/* expr.c — the context, hash-consed nodes, and the primitive-op constructors.
 *
 * Every node goes through tine_make(), which looks it up in the context's open-addressing
 * table before allocating, so structural equality is pointer equality. Constructors
 * check operand types and lanes and report misuse through the context; a NULL operand
 * (an earlier error) propagates as NULL without a new message. The walks over a DAG
 * (topological order, a value per node) are in dag.c.
 */
#include "../internal.h"

#include <math.h>

/* ---- context and errors ---------------------------------------------------------- */

tine_ctx_t *tine_ctx_core_new(void) {
    tine_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    ctx->lanes = 16;
    tine_table_resize(ctx, 1024);
    TINE_GROW(ctx->by_id, 1024, ctx->by_id_cap); /* then doubled, as the table is */
    return ctx;
}

void tine_layer_set(tine_ctx_t *ctx, tine_layer l, void *state, tine_layer_free_fn free_fn) {
    TINE_ASSERT(!ctx->layer[l]);
    ctx->layer[l] = state;
    ctx->layer_free[l] = free_fn;
}

void *tine_layer_make(tine_ctx_t *ctx, tine_layer l, size_t size, tine_layer_free_fn free_fn) {
    if (!ctx->layer[l]) tine_layer_set(ctx, l, tine_xcalloc(1, size), free_fn);
    return ctx->layer[l];
}

void tine_ctx_free(tine_ctx_t *ctx) {
    if (!ctx) return;
    /* the layers above the core, from the top down: a layer's state may refer to the
     * state of those below it, never to those above */
    for (int l = TINE_LAYER_N - 1; l >= 0; l--)
        if (ctx->layer[l]) ctx->layer_free[l](ctx, ctx->layer[l]);
    tine_arena_free(&ctx->arena);
    free(ctx->table);
    free(ctx->by_id);
    free(ctx->filter);
    free(ctx->names.names);
    free(ctx->names.table);
    tine_clear_error(ctx);
    free(ctx);
}

void tine_set_lanes(tine_ctx_t *ctx, int lanes) {
    if (lanes >= 1 && lanes <= TINE_MAX_LANES) ctx->lanes = lanes;
    else tine_set_error(ctx, "lanes must be between 1 and %d, got %d", TINE_MAX_LANES, lanes);
}
int tine_lanes(const tine_ctx_t *ctx) { return ctx->lanes; }
const char *tine_error(const tine_ctx_t *ctx) { return ctx->error; }
tine_error_kind_t tine_error_kind(const tine_ctx_t *ctx) { return ctx->error ? ctx->error_kind : TINE_ERROR_NONE; }
void tine_clear_error(tine_ctx_t *ctx) { tine_set_error_str(ctx, NULL); }

static void set_error(tine_ctx_t *ctx, tine_error_kind_t kind, char *msg) {
    free(ctx->error);
    ctx->error = msg;
    ctx->error_kind = msg ? kind : TINE_ERROR_NONE;
}

void tine_set_error_str(tine_ctx_t *ctx, char *msg) { set_error(ctx, TINE_ERROR_INPUT, msg); }

static void vset_error(tine_ctx_t *ctx, tine_error_kind_t kind, const char *fmt, va_list ap) {
    tine_buf b = {0};
    tine_buf_vprintf(&b, fmt, ap); /* never NULL: tine_buf asserts on allocation */
    set_error(ctx, kind, b.p);
}

void tine_set_error(tine_ctx_t *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset_error(ctx, TINE_ERROR_INPUT, fmt, ap);
    va_end(ap);
}

void tine_set_error_kind(tine_ctx_t *ctx, tine_error_kind_t kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset_error(ctx, kind, fmt, ap);
    va_end(ap);
}

void tine_error_set_kind(tine_ctx_t *ctx, tine_error_kind_t kind) {
    if (ctx->error) ctx->error_kind = kind;
}

tine_saved_error tine_error_save(tine_ctx_t *ctx) {
    tine_saved_error s = {ctx->error, ctx->error_kind};
    ctx->error = NULL;
    ctx->error_kind = TINE_ERROR_NONE;
    return s;
}

void tine_error_restore(tine_ctx_t *ctx, tine_saved_error *saved) {
    set_error(ctx, saved->msg ? saved->kind : TINE_ERROR_NONE, saved->msg);
    saved->msg = NULL;
}

/* util.c's guard landed: the error is the context's (util knows no context). */
void tine_oom_caught(tine_ctx_t *ctx, tine_oom_point *p) {
    size_t bytes = tine_oom_pop(p);
    char size[48] = "";
    if (bytes) snprintf(size, sizeof size, " of %zu bytes", bytes);
    tine_set_limit_error(ctx, "out of memory: an allocation%s failed (this needs more memory than the process may use)",
                         size);
}

size_t tine_ctx_bytes(const tine_ctx_t *ctx) {
    return ctx->arena.bytes + (size_t)ctx->tcap * sizeof(*ctx->table) +
           (size_t)ctx->by_id_cap * sizeof(*ctx->by_id) + ((size_t)1 << ctx->filter_log2) / 8 +
           (size_t)ctx->names.cap * sizeof(char *) + (size_t)ctx->names.tcap * 4;
}
size_t tine_ctx_nodes(const tine_ctx_t *ctx) { return ctx->count; }

/* ---- names ------------------------------------------------------------------------ */

static uint32_t hash_bytes(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

uint32_t tine_intern_name(tine_ctx_t *ctx, const char *s, size_t n) {
    tine_strtab *t = &ctx->names;
    if (t->n * 2 >= t->tcap) {
        uint32_t cap = t->tcap ? t->tcap * 2 : 64;
        uint32_t *tab = tine_xcalloc(cap, 4);
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t h = hash_bytes(t->names[i], strlen(t->names[i])) & (cap - 1);
            while (tab[h]) h = (h + 1) & (cap - 1);
            tab[h] = i + 1;
        }
        free(t->table);
        t->table = tab;
        t->tcap = cap;
    }
    uint32_t h = hash_bytes(s, n) & (t->tcap - 1);
    while (t->table[h]) {
        const char *c = t->names[t->table[h] - 1];
        if (strlen(c) == n && memcmp(c, s, n) == 0) return t->table[h] - 1;
        h = (h + 1) & (t->tcap - 1);
    }
    TINE_GROW(t->names, t->n + 1, t->cap);
    t->names[t->n] = tine_arena_strdup(&ctx->arena, s, n);
    t->table[h] = t->n + 1;
    return t->n++;
}

const char *tine_name(const tine_ctx_t *ctx, uint32_t id) {
    return id < ctx->names.n ? ctx->names.names[id] : "?";
}

/* ---- interning ---------------------------------------------------------------------- */

static uint32_t mix(uint32_t h, uint64_t v) {
    uint64_t x = (v ^ ((uint64_t)h << 29) ^ h) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

/* Operands are hashed by id, which every caller already has at hand. */
static uint32_t node_hash(tine_op_t op, tine_type_t t, int nops, tine_expr_t *const *ops, uint32_t imm,
                          int flags, const uint64_t *words, int nwords) {
    uint32_t h = mix((uint32_t)op, ((uint64_t)t.kind << 48) | ((uint64_t)t.bits << 32) | ((uint64_t)t.lanes << 16) |
                                       ((uint64_t)flags << 8) | (uint64_t)nops);
    h = mix(h, imm);
    for (int i = 0; i < nops; i++) h = mix(h, ops[i]->id);
    for (int i = 0; i < nwords; i++) h = mix(h, words[i]);
    return h;
}

static bool node_equal(const tine_expr_t *e, tine_op_t op, tine_type_t t, int nops, tine_expr_t *const *ops,
                       uint32_t imm, int flags, const uint64_t *words, int nwords) {
    if (e->op != op || !tine_type_eq(e->type, t) || e->nops != nops || e->imm != imm || e->flags != flags)
        return false;
    for (int i = 0; i < nops; i++)
        if (e->ops[i] != ops[i]) return false;
    if (nwords && memcmp(tine_node_words(e), words, (size_t)nwords * 8) != 0) return false;
    return true;
}

/* Interning a million nodes is bound by memory latency: the table is far larger than the
 * caches, and a probe for a node that does not exist yet — the common case while building
 * — is a DRAM miss the caller waits for. So a small filter (4 bits per table slot, two
 * set per node, cache-resident) answers "certainly new" for most new nodes without
 * touching the table, and new nodes wait in a short pending list whose table slots are
 * prefetched together and filled in one batch. A lookup that the filter cannot rule out
 * checks the pending list, then the table. */

static inline uint32_t filter_bit2(const tine_ctx_t *ctx, uint32_t h) {
    return (h * 0x9E3779B1u) >> (32 - ctx->filter_log2);
}
static inline bool filter_maybe(const tine_ctx_t *ctx, uint32_t h) {
    uint32_t m = (1u << ctx->filter_log2) - 1, a = h & m, b = filter_bit2(ctx, h);
    return (ctx->filter[a >> 6] >> (a & 63) & 1) && (ctx->filter[b >> 6] >> (b & 63) & 1);
}
static inline void filter_set(tine_ctx_t *ctx, uint32_t h) {
    uint32_t m = (1u << ctx->filter_log2) - 1, a = h & m, b = filter_bit2(ctx, h);
    ctx->filter[a >> 6] |= 1ull << (a & 63);
    ctx->filter[b >> 6] |= 1ull << (b & 63);
}

static void table_put(uint64_t *tab, uint32_t cap, uint64_t s) {
    uint32_t j = (uint32_t)(s >> 32) & (cap - 1);
    while (tab[j]) j = (j + 1) & (cap - 1);
    tab[j] = s;
}

/* Sizes the table (and its filter) for `cap` slots and re-inserts every table word. */
void tine_table_resize(tine_ctx_t *ctx, uint32_t cap) {
    uint32_t log2 = 2;
    while ((1u << log2) < cap) log2++;
    log2 += 2;
    /* both allocated before the old ones go: out of memory leaves the table as it was */
    uint64_t *tab = tine_big_calloc_try((size_t)cap * sizeof *tab), *filter = tine_big_calloc_try(((size_t)1 << log2) / 8);
    if (!tab || !filter) {
        free(tab);
        free(filter);
        tine_out_of_memory((size_t)cap * sizeof *tab + ((size_t)1 << log2) / 8);
    }
    free(ctx->filter);
    ctx->filter = filter;
    ctx->filter_log2 = log2;
    for (uint32_t i = 0; i < ctx->tcap; i++) {
        uint64_t s = ctx->table ? ctx->table[i] : 0;
        if (!s) continue;
        table_put(tab, cap, s);
        filter_set(ctx, (uint32_t)(s >> 32));
    }
    free(ctx->table);
    ctx->table = tab;
    ctx->tcap = cap;
    for (uint32_t k = 0; k < ctx->npending; k++) filter_set(ctx, (uint32_t)(ctx->pending[k] >> 32));
}

static void flush_pending(tine_ctx_t *ctx) {
    /* at most 5/8 full: linear probing stays short */
    if ((uint64_t)ctx->count * 8 >= (uint64_t)ctx->tcap * 5) tine_table_resize(ctx, ctx->tcap * 2);
    uint32_t mask = ctx->tcap - 1;
    for (uint32_t k = 0; k < ctx->npending; k++)
        __builtin_prefetch(&ctx->table[(uint32_t)(ctx->pending[k] >> 32) & mask], 1);
    for (uint32_t k = 0; k < ctx->npending; k++) table_put(ctx->table, ctx->tcap, ctx->pending[k]);
    ctx->npending = 0;
}

tine_expr_t *tine_make(tine_ctx_t *ctx, tine_op_t op, tine_type_t t, int nops, tine_expr_t *const *ops,
                       uint32_t imm, int flags, const uint64_t *words, int nwords) {
    TINE_ASSERT(nops <= 255);
    uint32_t h = node_hash(op, t, nops, ops, imm, flags, words, nwords);
    if (filter_maybe(ctx, h)) {
        for (uint32_t k = 0; k < ctx->npending; k++) {
            uint64_t s = ctx->pending[k];
            if ((uint32_t)(s >> 32) != h) continue;
            tine_expr_t *e = ctx->by_id[(uint32_t)s - 1];
            if (node_equal(e, op, t, nops, ops, imm, flags, words, nwords)) return e;
        }
        /* the table word holds the hash beside the id, so a probe past a different node
           never touches that node's memory */
        uint32_t mask = ctx->tcap - 1;
        for (uint32_t j = h & mask; ctx->table[j] != 0; j = (j + 1) & mask) {
            uint64_t s = ctx->table[j];
            if ((uint32_t)(s >> 32) != h) continue;
            tine_expr_t *e = ctx->by_id[(uint32_t)s - 1];
            if (node_equal(e, op, t, nops, ops, imm, flags, words, nwords)) return e;
        }
    }
    size_t size = sizeof(tine_expr_t) + (size_t)nops * sizeof(tine_expr_t *) + (size_t)nwords * 8;
    tine_expr_t *e = tine_arena_alloc8(&ctx->arena, size);
    e->op = (uint16_t)op;
    e->nops = (uint8_t)nops;
    e->flags = (uint8_t)flags;
    e->type = t;
    e->imm = imm;
    for (int i = 0; i < nops; i++) e->ops[i] = ops[i];
    if (nwords) memcpy((void *)tine_node_words(e), words, (size_t)nwords * 8);
    TINE_ASSERT(ctx->count < (1u << 30));
    e->id = ctx->count;
    TINE_PUSH(ctx->by_id, ctx->count, ctx->by_id_cap, e);
    filter_set(ctx, h);
    ctx->pending[ctx->npending++] = (uint64_t)h << 32 | (uint64_t)(e->id + 1);
    if (ctx->npending == TINE_PENDING) flush_pending(ctx);
    return e;
}

/* ---- accessors ---------------------------------------------------------------------- */

tine_op_t tine_expr_op(const tine_expr_t *e) { return (tine_op_t)e->op; }
tine_type_t tine_expr_type(const tine_expr_t *e) { return e->type; }
int tine_expr_nops(const tine_expr_t *e) { return e->nops; }
tine_expr_t *tine_expr_operand(const tine_expr_t *e, int i) {
    return i >= 0 && i < e->nops ? e->ops[i] : NULL;
}
uint32_t tine_expr_id(const tine_expr_t *e) { return e->id; }

tine_u128 tine_const_value(const tine_expr_t *e, int lane) {
    const uint64_t *w = tine_node_words(e);
    int i = (e->flags & TINE_F_UNIFORM) ? 0 : lane;
    return ((tine_u128)w[2 * i + 1] << 64) | w[2 * i];
}

uint64_t tine_expr_const_lane(const tine_expr_t *e, int i) {
    if (e->op != TINE_OP_CONST || i < 0 || i >= e->type.lanes) return 0;
    return (uint64_t)tine_const_value(e, i);
}

/* ---- constants ------------------------------------------------------------------------ */

tine_expr_t *tine_const_u128(tine_ctx_t *ctx, tine_type_t t, const tine_u128 *vals) {
    int n = t.lanes;
    bool uniform = true;
    for (int i = 1; i < n && uniform; i++)
        uniform = tine_canon(t, vals[i]) == tine_canon(t, vals[0]);
    int stored = uniform ? 1 : n;
    uint64_t stackw[2 * TINE_MAX_LANES];
    for (int i = 0; i < stored; i++) {
        tine_u128 v = t.kind == TINE_FLOAT ? vals[i] & (t.bits == 32 ? 0xffffffffu : ~(uint64_t)0)
                                           : tine_canon(t, vals[i]);
        stackw[2 * i] = (uint64_t)v;
        stackw[2 * i + 1] = (uint64_t)(v >> 64);
    }
    return tine_make(ctx, TINE_OP_CONST, t, 0, NULL, 0, uniform ? TINE_F_UNIFORM : 0, stackw,
                     2 * stored);
}

tine_expr_t *tine_const_splat(tine_ctx_t *ctx, tine_type_t t, tine_u128 v) {
    tine_u128 vals[1] = {v};
    tine_type_t one = t;
    /* a uniform constant stores one value whatever its lanes */
    uint64_t w[2];
    v = t.kind == TINE_FLOAT ? v : tine_canon(one, v);
    w[0] = (uint64_t)v;
    w[1] = (uint64_t)(v >> 64);
    (void)vals;
    return tine_make(ctx, TINE_OP_CONST, t, 0, NULL, 0, TINE_F_UNIFORM, w, 2);
}

static bool check_type(tine_ctx_t *ctx, tine_type_t t, const char *what) {
    if (tine_type_valid(t)) return true;
    tine_set_error(ctx, "%s: invalid type (kind %d, %d bits, %d lanes)", what, t.kind, t.bits, t.lanes);
    return false;
}

tine_expr_t *tine_const_int(tine_ctx_t *ctx, tine_type_t t, int64_t value) {
    if (!check_type(ctx, t, "constant")) return NULL;
    if (t.kind == TINE_FLOAT) return tine_const_float(ctx, t, (double)value);
    if (!tine_fits(t, value)) {
        char b[32];
        tine_set_error(ctx, "constant %lld does not fit in %s", (long long)value, tine_type_str(t, b, sizeof b));
        return NULL;
    }
    return tine_const_splat(ctx, t, (tine_u128)(tine_i128)value);
}

tine_expr_t *tine_const_uint(tine_ctx_t *ctx, tine_type_t t, uint64_t value) {
    if (!check_type(ctx, t, "constant")) return NULL;
    if (t.kind == TINE_FLOAT) return tine_const_float(ctx, t, (double)value);
    if (!tine_fits(t, (tine_i128)value)) {
        char b[32];
        tine_set_error(ctx, "constant %llu does not fit in %s", (unsigned long long)value, tine_type_str(t, b, sizeof b));
        return NULL;
    }
    return tine_const_splat(ctx, t, (tine_u128)value);
}

tine_expr_t *tine_const_float(tine_ctx_t *ctx, tine_type_t t, double value) {
    if (!check_type(ctx, t, "constant")) return NULL;
    if (t.kind != TINE_FLOAT) {
        tine_set_error(ctx, "a float constant needs a float type");
        return NULL;
    }
    return tine_const_splat(ctx, t, tine_bits_of_float(t, value));
}

tine_expr_t *tine_const_lanes(tine_ctx_t *ctx, tine_type_t t, const uint64_t *lanes) {
    if (!check_type(ctx, t, "constant")) return NULL;
    tine_u128 v[TINE_MAX_LANES];
    for (int i = 0; i < t.lanes; i++) {
        tine_u128 x = t.kind == TINE_INT ? (tine_u128)(tine_i128)(int64_t)lanes[i] : (tine_u128)lanes[i];
        if (tine_type_is_int(t) || t.kind == TINE_BOOL) {
            if (tine_canon(t, x) != x) {
                char b[32];
                tine_set_error(ctx, "constant lane %d (0x%llx) does not fit in %s", i,
                               (unsigned long long)lanes[i], tine_type_str(t, b, sizeof b));
                return NULL;
            }
        }
        v[i] = x;
    }
    return tine_const_u128(ctx, t, v);
}

/* ---- leaves ------------------------------------------------------------------------ */

static bool valid_name(const char *s) {
    if (!s || !*s) return false;
    for (const char *p = s; *p; p++)
        if (!(*p == '_' || *p == '$' || (*p == '?' && p == s) || (*p == '.' && p == s + 1 && *s == '$') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (p != s && *p >= '0' && *p <= '9')))
            return false;
    return true;
}

tine_expr_t *tine_var(tine_ctx_t *ctx, const char *name, tine_type_t t) {
    if (!check_type(ctx, t, "variable")) return NULL;
    if (!valid_name(name)) {
        tine_set_error(ctx, "variable name '%s' is not an identifier", name ? name : "(null)");
        return NULL;
    }
    uint64_t w = (uint64_t)(uintptr_t)tine_name(ctx, tine_intern_name(ctx, name, strlen(name)));
    return tine_make(ctx, TINE_OP_VAR, t, 0, NULL, 0, 0, &w, 1);
}

const char *tine_expr_name(const tine_expr_t *e) {
    if (e->op != TINE_OP_VAR && e->op != TINE_OP_LOAD) return NULL;
    return (const char *)(uintptr_t)tine_node_words(e)[0];
}

tine_expr_t *tine_load(tine_ctx_t *ctx, const char *buffer, tine_type_t elem, tine_expr_t *index) {
    if (!index) return NULL;
    elem = tine_type_with_lanes(elem, 1);
    if (!check_type(ctx, elem, "load")) return NULL;
    if (!valid_name(buffer)) {
        tine_set_error(ctx, "buffer name '%s' is not an identifier", buffer ? buffer : "(null)");
        return NULL;
    }
    if (index->type.kind != TINE_INT || index->type.bits != 32) {
        char b[32];
        tine_set_error(ctx, "load index must be i32, got %s", tine_type_str(index->type, b, sizeof b));
        return NULL;
    }
    uint64_t w = (uint64_t)(uintptr_t)tine_name(ctx, tine_intern_name(ctx, buffer, strlen(buffer)));
    tine_type_t t = tine_type_with_lanes(elem, index->type.lanes);
    return tine_make(ctx, TINE_OP_LOAD, t, 1, &index, 0, 0, &w, 1);
}

/* ---- primitive ops ----------------------------------------------------------------- */

static void type_mismatch(tine_ctx_t *ctx, const char *op, tine_type_t a, tine_type_t b) {
    char x[32], y[32];
    tine_set_error(ctx, "%s: operand types differ: %s and %s", op, tine_type_str(a, x, sizeof x),
                   tine_type_str(b, y, sizeof y));
}

static const char *op_display(tine_op_t op) {
    switch (op) {
#define X(e, name, ar, tok, prec, comm) \
    case TINE_OP_##e: return tok ? tok : name;
        TINE_PRIM_OPS(X)
#undef X
    default: return tine_op_name(op);
    }
}

tine_expr_t *tine_binary(tine_ctx_t *ctx, tine_op_t op, tine_expr_t *a, tine_expr_t *b) {
    if (!a || !b) return NULL;
    tine_type_t ta = a->type, tb = b->type;
    const char *name = op_display(op);
    char x[32];
    tine_type_t rt = ta;
    switch (op) {
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV:
    case TINE_OP_MOD: case TINE_OP_MIN: case TINE_OP_MAX:
        if (!tine_type_eq(ta, tb)) return type_mismatch(ctx, name, ta, tb), NULL;
        if (ta.kind == TINE_BOOL || (op == TINE_OP_MOD && ta.kind == TINE_FLOAT)) {
            tine_set_error(ctx, "%s is not defined on %s", name, tine_type_str(ta, x, sizeof x));
            return NULL;
        }
        break;
    case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
        if (!tine_type_eq(ta, tb)) return type_mismatch(ctx, name, ta, tb), NULL;
        if (ta.kind == TINE_FLOAT) {
            tine_set_error(ctx, "%s is not defined on %s", name, tine_type_str(ta, x, sizeof x));
            return NULL;
        }
        break;
    case TINE_OP_SHL: case TINE_OP_SHR:
        if (!tine_type_is_int(ta) || !tine_type_is_int(tb)) {
            tine_set_error(ctx, "%s needs integer operands, got %s", name,
                           tine_type_str(tine_type_is_int(ta) ? tb : ta, x, sizeof x));
            return NULL;
        }
        if (ta.bits != tb.bits || ta.lanes != tb.lanes) {
            char y[32];
            tine_set_error(ctx, "%s: the shift amount must have the bits and lanes of the value: %s and %s",
                           name, tine_type_str(ta, x, sizeof x), tine_type_str(tb, y, sizeof y));
            return NULL;
        }
        break;
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT:
    case TINE_OP_GE:
        if (!tine_type_eq(ta, tb)) return type_mismatch(ctx, name, ta, tb), NULL;
        rt = tine_type(TINE_BOOL, 1, ta.lanes);
        break;
    default:
        tine_set_error(ctx, "'%s' is not a binary op", tine_op_name(op));
        return NULL;
    }
    tine_expr_t *ops[2] = {a, b};
    return tine_make(ctx, op, rt, 2, ops, 0, 0, NULL, 0);
}

tine_expr_t *tine_unary(tine_ctx_t *ctx, tine_op_t op, tine_expr_t *a) {
    if (!a) return NULL;
    char x[32];
    tine_type_t t = a->type;
    bool ok;
    switch (op) {
    case TINE_OP_NEG: ok = tine_type_is_int(t) || t.kind == TINE_FLOAT; break;
    case TINE_OP_NOT: ok = tine_type_is_int(t) || t.kind == TINE_BOOL; break;
    case TINE_OP_SQRT: ok = t.kind == TINE_FLOAT; break;
    default:
        tine_set_error(ctx, "'%s' is not a unary op", tine_op_name(op));
        return NULL;
    }
    if (!ok) {
        tine_set_error(ctx, "%s is not defined on %s", op == TINE_OP_SQRT ? "sqrt" : op_display(op),
                       tine_type_str(t, x, sizeof x));
        return NULL;
    }
    return tine_make(ctx, op, t, 1, &a, 0, 0, NULL, 0);
}

tine_expr_t *tine_select(tine_ctx_t *ctx, tine_expr_t *c, tine_expr_t *t, tine_expr_t *f) {
    if (!c || !t || !f) return NULL;
    char x[32];
    if (c->type.kind != TINE_BOOL) {
        tine_set_error(ctx, "select: the condition must be bool, got %s", tine_type_str(c->type, x, sizeof x));
        return NULL;
    }
    if (!tine_type_eq(t->type, f->type)) return type_mismatch(ctx, "select", t->type, f->type), NULL;
    if (c->type.lanes != t->type.lanes) {
        tine_set_error(ctx, "select: the condition has %d lanes, the values %d", c->type.lanes, t->type.lanes);
        return NULL;
    }
    tine_expr_t *ops[3] = {c, t, f};
    return tine_make(ctx, TINE_OP_SELECT, t->type, 3, ops, 0, 0, NULL, 0);
}

tine_expr_t *tine_fma(tine_ctx_t *ctx, tine_expr_t *a, tine_expr_t *b, tine_expr_t *c) {
    if (!a || !b || !c) return NULL;
    if (!tine_type_eq(a->type, b->type)) return type_mismatch(ctx, "fma", a->type, b->type), NULL;
    if (!tine_type_eq(a->type, c->type)) return type_mismatch(ctx, "fma", a->type, c->type), NULL;
    if (a->type.kind != TINE_FLOAT) {
        char x[32];
        tine_set_error(ctx, "fma is not defined on %s", tine_type_str(a->type, x, sizeof x));
        return NULL;
    }
    tine_expr_t *ops[3] = {a, b, c};
    return tine_make(ctx, TINE_OP_FMA, a->type, 3, ops, 0, 0, NULL, 0);
}

tine_expr_t *tine_cast(tine_ctx_t *ctx, tine_type_t elem, tine_expr_t *a) {
    if (!a) return NULL;
    tine_type_t t = tine_type_with_lanes(elem, a->type.lanes);
    if (!check_type(ctx, t, "cast")) return NULL;
    if (tine_type_eq(t, a->type)) return a;
    return tine_make(ctx, TINE_OP_CAST, t, 1, &a, 0, 0, NULL, 0);
}

/* The REINTERPRET node of a's bits as t, whose lanes × bits the caller checked equal to
 * a's. A reinterpret's operand is never a reinterpret: the bits are what matters, and
 * little-endian repacking composes (u8x16 -> u16x8 -> u32x4 is u8x16 -> u32x4), so a
 * chain is one node whatever lanes its links have. */
static tine_expr_t *reinterpret_node(tine_ctx_t *ctx, tine_type_t t, tine_expr_t *a) {
    if (a->op == TINE_OP_REINTERPRET) a = a->ops[0];
    if (tine_type_eq(t, a->type)) return a;
    return tine_make(ctx, TINE_OP_REINTERPRET, t, 1, &a, 0, 0, NULL, 0);
}

tine_expr_t *tine_reinterpret(tine_ctx_t *ctx, tine_type_t elem, tine_expr_t *a) {
    if (!a) return NULL;
    tine_type_t t = tine_type_with_lanes(elem, a->type.lanes);
    if (!check_type(ctx, t, "reinterpret")) return NULL;
    if (t.bits != a->type.bits || t.kind == TINE_BOOL || a->type.kind == TINE_BOOL) {
        char x[32], y[32];
        tine_set_error(ctx, "reinterpret needs non-bool types of the same bits: %s to %s",
                       tine_type_str(a->type, x, sizeof x), tine_type_str(t, y, sizeof y));
        return NULL;
    }
    return reinterpret_node(ctx, t, a);
}

tine_expr_t *tine_bitcast(tine_ctx_t *ctx, tine_type_t t, tine_expr_t *a) {
    if (!a) return NULL;
    if (!check_type(ctx, t, "reinterpret")) return NULL;
    if ((int)t.lanes * t.bits != (int)a->type.lanes * a->type.bits || t.kind == TINE_BOOL ||
        a->type.kind == TINE_BOOL) {
        char x[32], y[32];
        tine_set_error(ctx, "reinterpret needs non-bool types of the same total bits: %s (%d bits) to %s (%d bits)",
                       tine_type_str(a->type, x, sizeof x), a->type.lanes * a->type.bits,
                       tine_type_str(t, y, sizeof y), t.lanes * t.bits);
        return NULL;
    }
    return reinterpret_node(ctx, t, a); /* at a's lanes: a's bits per lane, tine_reinterpret's node */
}

tine_expr_t *tine_broadcast(tine_ctx_t *ctx, tine_expr_t *s, int lanes) {
    if (!s) return NULL;
    if (s->type.lanes != 1) {
        tine_set_error(ctx, "broadcast needs a scalar, got %d lanes", s->type.lanes);
        return NULL;
    }
    tine_type_t t = tine_type_with_lanes(s->type, lanes);
    if (!check_type(ctx, t, "broadcast")) return NULL;
    if (lanes == 1) return s;
    if (s->op == TINE_OP_CONST) return tine_const_splat(ctx, t, tine_const_value(s, 0));
    return tine_make(ctx, TINE_OP_BROADCAST, t, 1, &s, 0, 0, NULL, 0);
}

tine_expr_t *tine_ramp(tine_ctx_t *ctx, tine_expr_t *base, tine_expr_t *stride, int lanes) {
    if (!base || !stride) return NULL;
    if (base->type.lanes != 1 || !tine_type_eq(base->type, stride->type) || !tine_type_is_int(base->type)) {
        tine_set_error(ctx, "ramp needs scalar integer base and stride of one type");
        return NULL;
    }
    tine_type_t t = tine_type_with_lanes(base->type, lanes);
    if (!check_type(ctx, t, "ramp")) return NULL;
    if (lanes == 1) return base;
    tine_expr_t *ops[2] = {base, stride};
    return tine_make(ctx, TINE_OP_RAMP, t, 2, ops, 0, 0, NULL, 0);
}

static bool same_elem(tine_type_t a, tine_type_t b) { return a.kind == b.kind && a.bits == b.bits; }

static tine_expr_t *lanes_join(tine_ctx_t *ctx, tine_op_t op, int n, tine_expr_t *const *v) {
    if (n < 1 || n > 255) {
        tine_set_error(ctx, "%s needs 1 to 255 vectors, got %d", tine_op_name(op), n);
        return NULL;
    }
    int lanes = 0;
    for (int i = 0; i < n; i++) {
        if (!v[i]) return NULL;
        if (!same_elem(v[i]->type, v[0]->type)) return type_mismatch(ctx, tine_op_name(op), v[0]->type, v[i]->type), NULL;
        if (op == TINE_OP_INTERLEAVE && v[i]->type.lanes != v[0]->type.lanes) {
            tine_set_error(ctx, "interleave needs vectors of equal lanes");
            return NULL;
        }
        lanes += v[i]->type.lanes;
    }
    if (lanes > TINE_MAX_LANES) {
        tine_set_error(ctx, "%s: %d lanes is more than %d", tine_op_name(op), lanes, TINE_MAX_LANES);
        return NULL;
    }
    if (n == 1) return v[0];
    return tine_make(ctx, op, tine_type_with_lanes(v[0]->type, lanes), n, v, 0, 0, NULL, 0);
}

tine_expr_t *tine_concat(tine_ctx_t *ctx, int n, tine_expr_t *const *v) {
    return lanes_join(ctx, TINE_OP_CONCAT, n, v);
}

tine_expr_t *tine_interleave(tine_ctx_t *ctx, int n, tine_expr_t *const *v) {
    return lanes_join(ctx, TINE_OP_INTERLEAVE, n, v);
}

tine_expr_t *tine_slice(tine_ctx_t *ctx, tine_expr_t *v, int begin, int stride, int count) {
    if (!v) return NULL;
    if (begin < 0 || stride < 1 || count < 1 || count > TINE_MAX_LANES ||
        (long)begin + (long)stride * (count - 1) >= v->type.lanes) {
        tine_set_error(ctx, "slice(begin %d, stride %d, count %d) is outside a vector of %d lanes",
                       begin, stride, count, v->type.lanes);
        return NULL;
    }
    if (begin == 0 && stride == 1 && count == v->type.lanes) return v;
    uint32_t imm = (uint32_t)begin | (uint32_t)stride << 10 | (uint32_t)count << 20;
    return tine_make(ctx, TINE_OP_SLICE, tine_type_with_lanes(v->type, count), 1, &v, imm, 0, NULL, 0);
}

tine_expr_t *tine_deinterleave(tine_ctx_t *ctx, tine_expr_t *v, int n, int k) {
    if (!v) return NULL;
    if (n < 1 || k < 0 || k >= n || v->type.lanes % n != 0) {
        tine_set_error(ctx, "deinterleave(%d, %d) needs 0 <= k < n and n dividing %d lanes", n, k, v->type.lanes);
        return NULL;
    }
    if (n == 1) return v;
    uint32_t imm = (uint32_t)n | (uint32_t)k << 10;
    return tine_make(ctx, TINE_OP_DEINTERLEAVE, tine_type_with_lanes(v->type, v->type.lanes / n), 1, &v,
                     imm, 0, NULL, 0);
}

tine_expr_t *tine_vector_reduce_add(tine_ctx_t *ctx, tine_expr_t *v, int lanes) {
    if (!v) return NULL;
    if (lanes < 1 || v->type.lanes % lanes != 0) {
        tine_set_error(ctx, "vector_reduce_add: %d lanes do not divide into %d groups", v->type.lanes, lanes);
        return NULL;
    }
    if (!tine_type_is_int(v->type) && v->type.kind != TINE_FLOAT) {
        tine_set_error(ctx, "vector_reduce_add is not defined on bool");
        return NULL;
    }
    if (lanes == v->type.lanes) return v;
    return tine_make(ctx, TINE_OP_VECTOR_REDUCE_ADD, tine_type_with_lanes(v->type, lanes), 1, &v, 0, 0,
                     NULL, 0);
}

/* ---- lanes ------------------------------------------------------------------------ */

/* The one-lane form of an expression whose lanes are all equal (a bound elaborated at a
 * body's width, a loop-invariant limit): broadcasts unwrapped, constants narrowed,
 * arithmetic rebuilt; NULL for anything that may differ by lane (a ramp, a load). */
tine_expr_t *tine_one_lane(tine_ctx_t *ctx, tine_expr_t *e) {
    if (e->type.lanes == 1) return e;
    switch ((tine_op_t)e->op) {
    case TINE_OP_BROADCAST: return e->ops[0]->type.lanes == 1 ? e->ops[0] : NULL;
    case TINE_OP_CONST:
        if (!(e->flags & TINE_F_UNIFORM)) return NULL;
        tine_u128 v = tine_const_value(e, 0);
        return tine_const_u128(ctx, tine_type_with_lanes(e->type, 1), &v);
    case TINE_OP_CAST: {
        tine_expr_t *x = tine_one_lane(ctx, e->ops[0]);
        return x ? tine_cast(ctx, e->type, x) : NULL;
    }
    case TINE_OP_NEG:
    case TINE_OP_NOT: {
        tine_expr_t *x = tine_one_lane(ctx, e->ops[0]);
        return x ? tine_unary(ctx, (tine_op_t)e->op, x) : NULL;
    }
    case TINE_OP_SELECT: {
        tine_expr_t *c = tine_one_lane(ctx, e->ops[0]), *t = tine_one_lane(ctx, e->ops[1]), *f = tine_one_lane(ctx, e->ops[2]);
        return c && t && f ? tine_select(ctx, c, t, f) : NULL;
    }
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD:
    case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
    case TINE_OP_SHL: case TINE_OP_SHR: case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT:
    case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE: {
        tine_expr_t *x = tine_one_lane(ctx, e->ops[0]), *y = tine_one_lane(ctx, e->ops[1]);
        return x && y ? tine_binary(ctx, (tine_op_t)e->op, x, y) : NULL;
    }
    default: return NULL;
    }
}

bool tine_lane_source(const tine_expr_t *e, int i, int *op, int *lane) {
    int a, b, c;
    switch (e->op) {
    case TINE_OP_BROADCAST: *op = 0, *lane = 0; return true;
    case TINE_OP_CONCAT:
        for (int j = 0; j < e->nops; i -= e->ops[j++]->type.lanes)
            if (i < e->ops[j]->type.lanes) {
                *op = j, *lane = i;
                return true;
            }
        TINE_ASSERT(!"a concat's lane past its operands");
        return false;
    case TINE_OP_INTERLEAVE: *op = i % e->nops, *lane = i / e->nops; return true;
    case TINE_OP_SLICE:
        tine_slice_params(e, &a, &b, &c);
        *op = 0, *lane = a + i * b;
        return true;
    case TINE_OP_DEINTERLEAVE:
        tine_deinterleave_params(e, &a, &b);
        *op = 0, *lane = b + i * a;
        return true;
    default: return false;
    }
}
