/* stmt.c — statement constructors, and the two walks every pass uses: mapping the
 * expressions of a tree (rebuilding only what changed) and visiting its statements.
 */
#include "stmt.h"

void tine_stmt_pool_init(tine_stmt_pool *p, tine_ctx_t *ctx) {
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
}

void tine_stmt_pool_free(tine_stmt_pool *p) { tine_arena_free(&p->arena); }

static tine_stmt *node(tine_stmt_pool *p, tine_stmt_kind kind) {
    tine_stmt *s = tine_arena_alloc(&p->arena, sizeof *s);
    s->kind = kind;
    return s;
}

static bool scalar_i32(const tine_expr_t *e) {
    return e && e->type.kind == TINE_INT && e->type.bits == 32 && e->type.lanes == 1;
}

static const char *intern(tine_stmt_pool *p, const char *name) {
    return tine_name(p->ctx, tine_intern_name(p->ctx, name, strlen(name)));
}

tine_stmt *tine_stmt_for(tine_stmt_pool *p, tine_expr_t *var, tine_expr_t *min, tine_expr_t *extent, int step,
                         tine_loop_kind loop, tine_partition_mode part, const char *name, tine_stmt *body) {
    TINE_ASSERT(var && var->op == TINE_OP_VAR && scalar_i32(var) && scalar_i32(min) && scalar_i32(extent));
    TINE_ASSERT(step >= 1 && (step == 1 || loop == TINE_LOOP_VECTORIZED));
    TINE_ASSERT(loop != TINE_LOOP_UNROLLED || extent->op == TINE_OP_CONST);
    tine_stmt *s = node(p, TINE_S_FOR);
    s->loop.var = var;
    s->loop.min = min;
    s->loop.extent = extent;
    s->loop.step = step;
    s->loop.loop = loop;
    s->loop.partition = part;
    s->loop.name = name ? intern(p, name) : NULL;
    s->loop.body = body;
    return s;
}

tine_stmt *tine_stmt_for_like(tine_stmt_pool *p, const tine_stmt *old, tine_expr_t *min, tine_expr_t *extent,
                              tine_stmt *body) {
    TINE_ASSERT(old->kind == TINE_S_FOR);
    tine_stmt *s = tine_stmt_for(p, old->loop.var, min, extent, old->loop.step, old->loop.loop, old->loop.partition,
                                 NULL, body);
    s->loop.name = old->loop.name;
    s->loop.elem_var = old->loop.elem_var;
    s->loop.elem_body = old->loop.elem_body;
    return s;
}

tine_stmt *tine_stmt_let(tine_stmt_pool *p, tine_expr_t *var, tine_expr_t *value, tine_stmt *body) {
    TINE_ASSERT(var && var->op == TINE_OP_VAR && value && tine_type_eq(var->type, value->type));
    tine_stmt *s = node(p, TINE_S_LET);
    s->let.var = var;
    s->let.value = value;
    s->let.body = body;
    return s;
}

tine_stmt *tine_stmt_store(tine_stmt_pool *p, const char *buffer, tine_expr_t *index, tine_expr_t *value) {
    TINE_ASSERT(index && value && index->type.kind == TINE_INT && index->type.bits == 32 &&
                index->type.lanes == value->type.lanes);
    tine_stmt *s = node(p, TINE_S_STORE);
    s->store.buffer = intern(p, buffer);
    s->store.type = tine_type_with_lanes(value->type, 1);
    s->store.index = index;
    s->store.value = value;
    return s;
}

tine_stmt *tine_stmt_allocate(tine_stmt_pool *p, const char *buffer, tine_type_t type, tine_expr_t *size,
                              tine_stmt *body) {
    TINE_ASSERT(size && size->type.kind == TINE_INT && size->type.lanes == 1);
    tine_stmt *s = node(p, TINE_S_ALLOCATE);
    s->alloc.buffer = intern(p, buffer);
    s->alloc.type = tine_type_with_lanes(type, 1);
    s->alloc.size = size;
    s->alloc.body = body;
    return s;
}

tine_stmt *tine_stmt_free(tine_stmt_pool *p, const char *buffer) {
    tine_stmt *s = node(p, TINE_S_FREE);
    s->free_.buffer = intern(p, buffer);
    return s;
}

tine_stmt *tine_stmt_if(tine_stmt_pool *p, tine_expr_t *cond, tine_stmt *then_, tine_stmt *else_) {
    TINE_ASSERT(cond && cond->type.kind == TINE_BOOL && cond->type.lanes == 1 && then_);
    tine_stmt *s = node(p, TINE_S_IF);
    s->if_.cond = cond;
    s->if_.then_ = then_;
    s->if_.else_ = else_;
    return s;
}

tine_stmt *tine_stmt_block(tine_stmt_pool *p, tine_stmt *const *v, int n) {
    int live = 0;
    tine_stmt *one = NULL;
    for (int i = 0; i < n; i++)
        if (v[i]) live++, one = v[i];
    if (live == 1) return one;
    tine_stmt *s = node(p, TINE_S_BLOCK); /* live == 0: the empty block, a no-op */
    s->block.v = tine_arena_alloc(&p->arena, sizeof *s->block.v * (size_t)(live + 1));
    for (int i = 0; i < n; i++)
        if (v[i]) s->block.v[s->block.n++] = v[i];
    return s;
}

tine_stmt *tine_stmt_block2(tine_stmt_pool *p, tine_stmt *a, tine_stmt *b) {
    tine_stmt *v[2] = {a, b};
    return tine_stmt_block(p, v, 2);
}

tine_stmt *tine_stmt_assert_args(tine_stmt_pool *p, tine_expr_t *cond, int code, const char *message,
                                 tine_expr_t *const *args, int nargs) {
    TINE_ASSERT(cond && cond->type.kind == TINE_BOOL && cond->type.lanes == 1 && code != 0);
    TINE_ASSERT(nargs >= 0 && nargs <= TINE_ASSERT_MAX_ARGS);
    tine_stmt *s = node(p, TINE_S_ASSERT);
    s->assert_.cond = cond;
    s->assert_.code = code;
    s->assert_.message = tine_arena_strdup(&p->arena, message, strlen(message));
    s->assert_.nargs = nargs;
    s->assert_.args = tine_arena_alloc(&p->arena, sizeof *args * (size_t)(nargs + 1));
    for (int i = 0; i < nargs; i++) {
        TINE_ASSERT(args[i] && args[i]->type.lanes == 1 && tine_type_is_int(args[i]->type));
        s->assert_.args[i] = args[i];
    }
    return s;
}

tine_stmt *tine_stmt_assert(tine_stmt_pool *p, tine_expr_t *cond, int code, const char *message) {
    return tine_stmt_assert_args(p, cond, code, message, NULL, 0);
}

tine_stmt *tine_stmt_assert_like(tine_stmt_pool *p, const tine_stmt *old, tine_expr_t *cond) {
    return tine_stmt_assert_args(p, cond, old->assert_.code, old->assert_.message, old->assert_.args, old->assert_.nargs);
}

char *tine_stmt_assert_text(const char *message, const int64_t *vals, int nvals) {
    tine_buf b = {0};
    int next = 0;
    for (const char *m = message ? message : "assertion failed"; *m; m++) {
        if (m[0] == '{' && m[1] == '}' && next < nvals) {
            tine_buf_printf(&b, "%lld", (long long)vals[next++]);
            m++;
        } else {
            tine_buf_putc(&b, *m);
        }
    }
    if (!b.p) tine_buf_puts(&b, "");
    return b.p;
}

tine_stmt *tine_stmt_evaluate(tine_stmt_pool *p, tine_expr_t *value) {
    TINE_ASSERT(value != NULL);
    tine_stmt *s = node(p, TINE_S_EVALUATE);
    s->eval.value = value;
    return s;
}

/* ---- walks ------------------------------------------------------------------------------- */

static tine_expr_t *mapped(tine_stmt_expr_fn f, void *user, tine_expr_t *e, bool *changed) {
    if (!e) return NULL;
    tine_expr_t *r = f(user, e);
    if (!r || r == e) return e;
    *changed = true;
    return r;
}

tine_stmt *tine_stmt_map_exprs(tine_stmt_pool *p, tine_stmt *s, tine_stmt_expr_fn f, void *user) {
    if (!s) return NULL;
    bool ch = false;
    tine_stmt *r;
    switch (s->kind) {
    case TINE_S_FOR: {
        tine_expr_t *mn = mapped(f, user, s->loop.min, &ch), *ex = mapped(f, user, s->loop.extent, &ch);
        tine_stmt *b = tine_stmt_map_exprs(p, s->loop.body, f, user);
        if (!ch && b == s->loop.body) return s;
        return tine_stmt_for_like(p, s, mn, ex, b);
    }
    case TINE_S_LET: {
        tine_expr_t *v = mapped(f, user, s->let.value, &ch);
        tine_stmt *b = tine_stmt_map_exprs(p, s->let.body, f, user);
        if (!ch && b == s->let.body) return s;
        return tine_stmt_let(p, s->let.var, v, b);
    }
    case TINE_S_STORE: {
        tine_expr_t *i = mapped(f, user, s->store.index, &ch), *v = mapped(f, user, s->store.value, &ch);
        return ch ? tine_stmt_store(p, s->store.buffer, i, v) : s;
    }
    case TINE_S_ALLOCATE: {
        tine_expr_t *n = mapped(f, user, s->alloc.size, &ch);
        tine_stmt *b = tine_stmt_map_exprs(p, s->alloc.body, f, user);
        if (!ch && b == s->alloc.body) return s;
        return tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, n, b);
    }
    case TINE_S_FREE: return s;
    case TINE_S_IF: {
        tine_expr_t *c = mapped(f, user, s->if_.cond, &ch);
        tine_stmt *t = tine_stmt_map_exprs(p, s->if_.then_, f, user), *e = tine_stmt_map_exprs(p, s->if_.else_, f, user);
        if (!ch && t == s->if_.then_ && e == s->if_.else_) return s;
        return tine_stmt_if(p, c, t, e);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        for (int i = 0; i < s->block.n; i++) {
            v[i] = tine_stmt_map_exprs(p, s->block.v[i], f, user);
            ch |= v[i] != s->block.v[i];
        }
        r = ch ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    case TINE_S_ASSERT: {
        tine_expr_t *c = mapped(f, user, s->assert_.cond, &ch), *a[TINE_ASSERT_MAX_ARGS];
        for (int i = 0; i < s->assert_.nargs; i++) a[i] = mapped(f, user, s->assert_.args[i], &ch);
        return ch ? tine_stmt_assert_args(p, c, s->assert_.code, s->assert_.message, a, s->assert_.nargs) : s;
    }
    case TINE_S_EVALUATE: {
        tine_expr_t *v = mapped(f, user, s->eval.value, &ch);
        return ch ? tine_stmt_evaluate(p, v) : s;
    }
    }
    TINE_ASSERT(!"unknown statement");
    return NULL;
}

void tine_stmt_visit(const tine_stmt *s, void (*f)(void *user, const tine_stmt *s), void *user) {
    if (!s) return;
    f(user, s);
    switch (s->kind) {
    case TINE_S_FOR: tine_stmt_visit(s->loop.body, f, user); break;
    case TINE_S_LET: tine_stmt_visit(s->let.body, f, user); break;
    case TINE_S_ALLOCATE: tine_stmt_visit(s->alloc.body, f, user); break;
    case TINE_S_IF:
        tine_stmt_visit(s->if_.then_, f, user);
        tine_stmt_visit(s->if_.else_, f, user);
        break;
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++) tine_stmt_visit(s->block.v[i], f, user);
        break;
    default: break;
    }
}

tine_stmt *tine_stmt_map_loops(tine_stmt_pool *p, tine_stmt *s, bool (*take)(const tine_stmt *loop),
                               tine_stmt_loop_user_fn f, void *user) {
    if (!s) return NULL;
    switch (s->kind) {
    case TINE_S_FOR: {
        if (take(s)) return f(user, p, s);
        tine_stmt *b = tine_stmt_map_loops(p, s->loop.body, take, f, user);
        return b == s->loop.body ? s : tine_stmt_for_like(p, s, s->loop.min, s->loop.extent, b);
    }
    case TINE_S_LET: {
        tine_stmt *b = tine_stmt_map_loops(p, s->let.body, take, f, user);
        return b == s->let.body ? s : tine_stmt_let(p, s->let.var, s->let.value, b);
    }
    case TINE_S_ALLOCATE: {
        tine_stmt *b = tine_stmt_map_loops(p, s->alloc.body, take, f, user);
        return b == s->alloc.body ? s : tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, s->alloc.size, b);
    }
    case TINE_S_IF: {
        tine_stmt *t = tine_stmt_map_loops(p, s->if_.then_, take, f, user);
        tine_stmt *e = tine_stmt_map_loops(p, s->if_.else_, take, f, user);
        return t == s->if_.then_ && e == s->if_.else_ ? s : tine_stmt_if(p, s->if_.cond, t, e);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        bool ch = false;
        for (int i = 0; i < s->block.n; i++) {
            v[i] = tine_stmt_map_loops(p, s->block.v[i], take, f, user);
            ch |= v[i] != s->block.v[i];
        }
        tine_stmt *r = ch ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    default: return s;
    }
}

static bool vectorized(const tine_stmt *loop) { return loop->loop.loop == TINE_LOOP_VECTORIZED; }

static tine_stmt *call_loop_fn(void *user, tine_stmt_pool *p, tine_stmt *loop) {
    tine_stmt_loop_fn *f = user;
    return (*f)(p, loop);
}

tine_stmt *tine_stmt_map_vector_loops(tine_stmt_pool *p, tine_stmt *s, tine_stmt_loop_fn f) {
    return tine_stmt_map_loops(p, s, vectorized, call_loop_fn, &f);
}
