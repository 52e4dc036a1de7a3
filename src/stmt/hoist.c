/* hoist.c — loop-invariant expressions bound once, as far out of the nest as they go.
 *
 * The walk keeps a stack of scopes: the root, then every For and Let around the current
 * statement. An expression's home is the innermost scope that binds one of its
 * variables (the root when only kernel scalars appear in it); it could be computed at
 * the top of its home's body. When a For lies between its home and the place it is
 * used, the expression is loop-invariant there: it is bound once, `let $.hN = e`, at the
 * top of its home's body, and the use reads $.hN. One binding per expression and home
 * serves every use below it, so what the parts of a partitioned loop (prologue, steady
 * state, epilogue) or the vector and scalar paths of a row share — the row's base
 * addresses, its clamped coordinates — is computed once per row for all of them, and
 * what depends on kernel scalars only, once per run.
 *
 * Only maximal expressions move (a hoisted expression's own parts are hoisted further
 * out when they are invariant in more loops), and only when that pays:
 *   - never a load, nor anything that contains one: a loop may run zero times, and a
 *     hoisted load could then read outside its buffer; LLVM's LICM moves loads it can
 *     prove safe. Everything else is total in tine (x / 0 = 0, no traps), so computing
 *     it where a loop might not run is safe;
 *   - never a leaf (a variable, a constant) or a broadcast of one, and never an
 *     expression without variables (LLVM folds it to a constant);
 *   - in an index (of a load or a store) never a vector: codegen reads the lane stride
 *     of an index from its shape (ramp, broadcast, +, -, *), which a variable hides, so a
 *     dense load would become a gather. The index's one-lane parts (a ramp's base, a
 *     broadcast's value) move instead.
 *
 * The pass runs after selection: a Let is a boundary lifting would not see across.
 * Selected expressions are target instructions and FPIR ops like any other, all pure.
 *
 * A vectorized loop's element-wise form (elem_body) is left as it was: partitioning,
 * its only user, ran before; interpretation and codegen ignore it.
 *
 * Cost: the tables are keyed by expression node (hash-consed, ids stable); an expression
 * is swept without recursion (kernels make sums 16,000 terms deep), and each node's
 * rewrite is memoized per scope instance, so the pass is linear in the nest's size.
 */
#include "passes.h"

#include <limits.h>

enum { UNMOVABLE = INT_MAX }; /* the home of an expression with a load */

typedef struct rewritten {
    uint64_t rgen;
    tine_expr_t *r;
} rewritten;

/* A scope: the root, a For or a Let; the bindings hoisted to the top of its body. */
typedef struct {
    const tine_expr_t *var; /* what it binds (NULL: the root) */
    int loops;              /* For scopes from the root to this one, itself included */
    uint32_t serial;        /* this instance (keys of the rewrite and binding tables) */
    int saved;              /* var's scope before this one bound it (1 + index, 0: free) */
    uint64_t saved_subst;   /* and what replaced it then (a node, 0: nothing) */
    tine_expr_t **hv, **hval;
    int nh, caph;
} scope;

typedef struct {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    scope *sc;
    int nsc, capsc;
    uint32_t serials;
    uint64_t rgen;  /* advances when a variable's meaning changes: invalidates rewrites */
    tine_u64map var;      /* variable id -> 1 + index of the scope binding it */
    tine_u64map subst;    /* variable id -> the hoisted variable that replaces it (a Let dropped) */
    tine_u64map rw;       /* node id | serial << 32 | index << 63 -> (rgen, rewritten node) */
    tine_u64map hoisted;  /* rewritten node id | serial << 32 -> its variable in that scope */
    tine_u64map hoisted_var; /* a $.hN's id -> the index of the scope binding it */
    struct rewritten *memo; /* the rewrites rw points to */
    uint32_t nmemo, capmemo;
    int next;       /* the next $.hN */
} hoister;

/* A scope for var (NULL: the root). A Let whose whole value was hoisted binds no scope
 * of its own: its variable is `subst`, bound at scope `home`. */
static void push_scope(hoister *H, const tine_expr_t *var, bool loop, tine_expr_t *subst, int home) {
    if (H->nsc == H->capsc) {
        H->capsc = H->capsc ? 2 * H->capsc : 16;
        H->sc = realloc(H->sc, sizeof *H->sc * (size_t)H->capsc);
        TINE_CHECK_ALLOC(H->sc != NULL);
    }
    scope *s = &H->sc[H->nsc];
    *s = (scope){.var = var, .loops = (H->nsc ? H->sc[H->nsc - 1].loops : 0) + loop, .serial = H->serials++};
    if (var) {
        uint64_t old = 0, olds = 0;
        tine_u64map_get(&H->var, var->id, &old);
        tine_u64map_get(&H->subst, var->id, &olds);
        s->saved = (int)old;
        s->saved_subst = olds;
        tine_u64map_put(&H->var, var->id, (uint64_t)(subst ? home : H->nsc) + 1);
        tine_u64map_put(&H->subst, var->id, (uint64_t)(uintptr_t)subst);
        if (old || olds || subst) H->rgen++; /* shadowed or replaced: rewrites made before mean other things */
    }
    H->nsc++;
}

/* Pops the innermost scope: body inside the bindings hoisted to its top, in the order
 * they were made (each value reads only variables of outer scopes). */
static tine_stmt *pop_scope(hoister *H, tine_stmt *body) {
    scope *s = &H->sc[--H->nsc];
    for (int i = s->nh - 1; i >= 0; i--) body = tine_stmt_let(H->p, s->hv[i], s->hval[i], body);
    free(s->hv);
    free(s->hval);
    if (s->var) {
        uint64_t cur = 0;
        tine_u64map_get(&H->subst, s->var->id, &cur);
        if (s->saved || s->saved_subst || cur) H->rgen++;
        tine_u64map_put(&H->var, s->var->id, (uint64_t)s->saved);
        tine_u64map_put(&H->subst, s->var->id, s->saved_subst);
    }
    return body;
}

/* The scope binding variable v: the innermost one, 0 (the root) for a kernel scalar. */
static int scope_of(const hoister *H, const tine_expr_t *v) {
    uint64_t i = 0;
    return tine_u64map_get(&H->var, v->id, &i) && i ? (int)i - 1 : 0;
}

static bool trivial(const tine_expr_t *e) {
    if (e->op == TINE_OP_BROADCAST) e = e->ops[0];
    return e->op == TINE_OP_VAR || e->op == TINE_OP_CONST;
}

static tine_expr_t *rewrite(hoister *H, tine_expr_t *e, int at, bool index);

/* e bound at the top of scope h's body (once per value and scope instance); its
 * variable. */
static tine_expr_t *hoist(hoister *H, tine_expr_t *e, int h, bool index) {
    tine_expr_t *value = rewrite(H, e, h, index); /* its own invariant parts go further out */
    if (trivial(value)) return value;               /* they were all of it */
    uint64_t key = (uint64_t)value->id | (uint64_t)H->sc[h].serial << 32, v;
    if (tine_u64map_get(&H->hoisted, key, &v)) return (tine_expr_t *)(uintptr_t)v;
    char name[32];
    snprintf(name, sizeof name, "$.h%d", H->next++);
    tine_expr_t *var = tine_var(H->ctx, name, e->type);
    scope *s = &H->sc[h];
    if (s->nh == s->caph) {
        s->caph = s->caph ? 2 * s->caph : 8;
        s->hv = realloc(s->hv, sizeof *s->hv * (size_t)s->caph);
        s->hval = realloc(s->hval, sizeof *s->hval * (size_t)s->caph);
        TINE_CHECK_ALLOC(s->hv && s->hval);
    }
    s->hv[s->nh] = var;
    s->hval[s->nh++] = value;
    tine_u64map_put(&H->hoisted, key, (uint64_t)(uintptr_t)var);
    tine_u64map_put(&H->var, var->id, (uint64_t)h + 1);
    tine_u64map_put(&H->hoisted_var, var->id, (uint64_t)h);
    return var;
}

static tine_expr_t *memo_get(const hoister *H, const tine_expr_t *e, int at, int index) {
    uint64_t key = (uint64_t)e->id | (uint64_t)H->sc[at].serial << 32 | (uint64_t)index << 63, v;
    return tine_u64map_get(&H->rw, key, &v) && H->memo[v].rgen == H->rgen ? H->memo[v].r : NULL;
}

static void memo_put(hoister *H, const tine_expr_t *e, int at, int index, tine_expr_t *r) {
    if (H->nmemo == H->capmemo) {
        H->capmemo = H->capmemo ? 2 * H->capmemo : 256;
        H->memo = realloc(H->memo, sizeof *H->memo * (size_t)H->capmemo);
        TINE_CHECK_ALLOC(H->memo != NULL);
    }
    H->memo[H->nmemo] = (rewritten){H->rgen, r};
    tine_u64map_put(&H->rw, (uint64_t)e->id | (uint64_t)H->sc[at].serial << 32 | (uint64_t)index << 63, H->nmemo++);
}

/* root as used in scope `at` (in an index when `index`): its maximal invariant parts
 * hoisted. Three sweeps over the DAG, never recursion (a 16,000-term sum is that deep):
 * each node's home (the innermost scope binding one of its variables; -1 for none,
 * UNMOVABLE with a load), children first; which nodes are needed in which position
 * (value or index) and which of those move, parents first; then the rewritten nodes,
 * children first. A hoisted node's own value is rewritten at its home, where its parts
 * that are invariant in more loops move further out. The memo holds a rewrite while the
 * variables' meanings stay (rgen); within a scope instance they change only where a Let
 * was dropped or a variable shadowed. */
enum { NEED = 1, MOVE = 4 }; /* << index: bits of need[] */

/* The positions in order (a tine_topo array) of its nodes depth first, operands left to
 * right, children before parents: the sweeps go this way, not by id, so that the
 * bindings are made (and named) in an order the DAG's shape fixes, whatever the context
 * made before. */
static uint32_t *post_order(tine_expr_t *const *order, uint32_t n) {
    uint32_t *post = malloc(sizeof *post * n), np = 0, sp = 0;
    struct {
        uint32_t k;
        int next;
    } *stack = malloc(sizeof *stack * n);
    uint8_t *seen = calloc(n, 1);
    TINE_CHECK_ALLOC(post && stack && seen);
    stack[sp].k = n - 1, stack[sp++].next = 0, seen[n - 1] = 1;
    while (sp) {
        const tine_expr_t *e = order[stack[sp - 1].k];
        if (stack[sp - 1].next < e->nops) {
            uint32_t o = tine_topo_index(order, n, e->ops[stack[sp - 1].next++]);
            if (!seen[o]) {
                seen[o] = 1;
                stack[sp].k = o, stack[sp++].next = 0;
            }
            continue;
        }
        post[np++] = stack[--sp].k;
    }
    TINE_ASSERT(np == n);
    free(stack);
    free(seen);
    return post;
}

static tine_expr_t *rewrite(hoister *H, tine_expr_t *root, int at, bool index) {
    if (root->op == TINE_OP_CONST) return root;
    tine_expr_t *hit = memo_get(H, root, at, index);
    if (hit) return hit;
    uint32_t n;
    tine_expr_t **order = tine_topo(H->ctx, root, &n);
    int *home = malloc(sizeof *home * n);
    uint8_t *need = calloc(n, 1);
    tine_expr_t **out = calloc(2 * (size_t)n, sizeof *out);
    uint32_t *post = post_order(order, n);
    TINE_ASSERT(order && home && need && out);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = post[j];
        const tine_expr_t *e = order[k];
        int h = e->op == TINE_OP_LOAD ? UNMOVABLE : e->op == TINE_OP_VAR ? scope_of(H, e) : -1;
        for (int i = 0; i < e->nops && h != UNMOVABLE; i++) {
            int x = home[tine_topo_index(order, n, e->ops[i])];
            if (x > h) h = x;
        }
        home[k] = h;
    }
    need[n - 1] = NEED << index;
    for (uint32_t j = n; j-- > 0;) {
        uint32_t k = post[j];
        tine_expr_t *e = order[k];
        for (int c = 0; c < 2; c++) {
            if (!(need[k] & NEED << c) || e->op == TINE_OP_VAR || home[k] == -1) continue;
            int h = home[k];
            if ((out[2 * k + c] = memo_get(H, e, at, c))) continue;
            if (h < at && H->sc[at].loops > H->sc[h].loops && !trivial(e) && !(c && e->type.lanes > 1)) {
                need[k] |= MOVE << c;
                continue;
            }
            for (int i = 0; i < e->nops; i++)
                need[tine_topo_index(order, n, e->ops[i])] |= NEED << (c || e->op == TINE_OP_LOAD);
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = post[j];
        tine_expr_t *e = order[k];
        for (int c = 0; c < 2; c++) {
            if (!(need[k] & NEED << c) || out[2 * k + c]) continue;
            tine_expr_t *r = e;
            uint64_t v = 0;
            if (e->op == TINE_OP_VAR) {
                if (tine_u64map_get(&H->subst, e->id, &v) && v) r = (tine_expr_t *)(uintptr_t)v;
            } else if (home[k] != -1) {
                if (need[k] & MOVE << c) {
                    r = hoist(H, e, home[k], c);
                } else {
                    tine_expr_t *ops[256];
                    for (int i = 0; i < e->nops; i++)
                        ops[i] = out[2 * tine_topo_index(order, n, e->ops[i]) + (c || e->op == TINE_OP_LOAD)];
                    r = tine_rebuild(H->ctx, e, ops);
                    /* bound already at the top of this scope (hoisted from a loop below) */
                    if (tine_u64map_get(&H->hoisted, (uint64_t)r->id | (uint64_t)H->sc[at].serial << 32, &v))
                        r = (tine_expr_t *)(uintptr_t)v;
                }
                memo_put(H, e, at, c, r);
            }
            out[2 * k + c] = r;
        }
    }
    tine_expr_t *r = out[2 * (n - 1) + index];
    free(order);
    free(post);
    free(home);
    free(need);
    free(out);
    return r;
}

static tine_expr_t *value(hoister *H, tine_expr_t *e) { return e ? rewrite(H, e, H->nsc - 1, false) : NULL; }

static tine_stmt *walk(hoister *H, tine_stmt *s) {
    if (!s) return NULL;
    tine_stmt_pool *p = H->p;
    switch (s->kind) {
    case TINE_S_FOR: {
        tine_expr_t *mn = value(H, s->loop.min), *ex = value(H, s->loop.extent);
        push_scope(H, s->loop.var, true, NULL, 0);
        tine_stmt *b = pop_scope(H, walk(H, s->loop.body));
        if (mn == s->loop.min && ex == s->loop.extent && b == s->loop.body) return s;
        return tine_stmt_for_like(p, s, mn, ex, b);
    }
    case TINE_S_LET: {
        tine_expr_t *v = value(H, s->let.value);
        uint64_t h = 0;
        if (v != s->let.value && v->op == TINE_OP_VAR && tine_u64map_get(&H->hoisted_var, v->id, &h)) {
            /* the whole value was hoisted: the Let is a copy of that binding, and goes */
            push_scope(H, s->let.var, false, v, (int)h);
            return pop_scope(H, walk(H, s->let.body));
        }
        push_scope(H, s->let.var, false, NULL, 0);
        tine_stmt *b = pop_scope(H, walk(H, s->let.body));
        return v == s->let.value && b == s->let.body ? s : tine_stmt_let(p, s->let.var, v, b);
    }
    case TINE_S_STORE: {
        tine_expr_t *i = rewrite(H, s->store.index, H->nsc - 1, true), *v = value(H, s->store.value);
        return i == s->store.index && v == s->store.value ? s : tine_stmt_store(p, s->store.buffer, i, v);
    }
    case TINE_S_ALLOCATE: {
        tine_expr_t *n = value(H, s->alloc.size);
        tine_stmt *b = walk(H, s->alloc.body);
        return n == s->alloc.size && b == s->alloc.body ? s : tine_stmt_allocate(p, s->alloc.buffer, s->alloc.type, n, b);
    }
    case TINE_S_FREE: return s;
    case TINE_S_IF: {
        tine_expr_t *c = value(H, s->if_.cond);
        tine_stmt *t = walk(H, s->if_.then_), *e = walk(H, s->if_.else_);
        return c == s->if_.cond && t == s->if_.then_ && e == s->if_.else_ ? s : tine_stmt_if(p, c, t, e);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = malloc(sizeof *v * (size_t)(s->block.n + 1));
        TINE_CHECK_ALLOC(v != NULL);
        bool ch = false;
        for (int i = 0; i < s->block.n; i++) ch |= (v[i] = walk(H, s->block.v[i])) != s->block.v[i];
        tine_stmt *r = ch ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    case TINE_S_ASSERT: { /* its args too: they are evaluated where the Assert is */
        tine_expr_t *c = value(H, s->assert_.cond), *a[TINE_ASSERT_MAX_ARGS];
        bool ch = c != s->assert_.cond;
        for (int i = 0; i < s->assert_.nargs; i++) ch |= (a[i] = value(H, s->assert_.args[i])) != s->assert_.args[i];
        return ch ? tine_stmt_assert_args(p, c, s->assert_.code, s->assert_.message, a, s->assert_.nargs) : s;
    }
    case TINE_S_EVALUATE: {
        tine_expr_t *v = value(H, s->eval.value);
        return v == s->eval.value ? s : tine_stmt_evaluate(p, v);
    }
    }
    TINE_ASSERT(!"unknown statement");
    return NULL;
}

/* Fresh names continue after the $.hN the statement binds already (a second run). */
static void last_hoisted(void *user, const tine_stmt *s) {
    int n;
    if (s->kind == TINE_S_LET && sscanf(tine_expr_name(s->let.var), "$.h%d", &n) == 1 && n >= *(int *)user)
        *(int *)user = n + 1;
}

tine_stmt *tine_stmt_hoist(tine_stmt_pool *p, tine_stmt *s) {
    hoister H = {.p = p, .ctx = p->ctx};
    tine_stmt_visit(s, last_hoisted, &H.next);
    push_scope(&H, NULL, false, NULL, 0);
    tine_stmt *r = pop_scope(&H, walk(&H, s));
    free(H.sc);
    tine_u64map_free(&H.var);
    tine_u64map_free(&H.rw);
    tine_u64map_free(&H.hoisted);
    tine_u64map_free(&H.subst);
    tine_u64map_free(&H.hoisted_var);
    free(H.memo);
    return r;
}
