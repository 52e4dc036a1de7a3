/* plan_share.c — sharing in a kernel's plan: the large subexpressions its steps repeat
 * are bound once by Lets, so the plan's size as a tree stays proportional to the kernel
 * (plan.c builds the steps, this pass rewrites them before they are handed over).
 */
#include "passes.h"

/* ---- sharing ------------------------------------------------------------------------------------- */

/* The intervals are built by substitution: an operand's bounds appear in the guards that
 * check they did not wrap and again in the result, and a region's bounds in every read
 * widened into it, so each level of a body can double the expression's size as a tree
 * (1.2 MB for one bound of a small kernel with nested reductions). As a DAG it stays the
 * size of the bodies, but the printer, the statement interpreter and every pass that
 * walks a Let's value as a tree see the tree. So before the plan is handed over, every
 * node used more than once whose tree (bound nodes counted as leaves) is larger than
 * SHARE_SIZE is bound once by a Let `$.sN` placed before the first step that uses it,
 * and the steps read the variable: each step's tree is then at most SHARE_SIZE per node
 * it holds, and the plan's printed size proportional to the kernel. Every operation of the
 * plan is total (divisions by positive constants), so computing a shared value before a
 * check that precedes its use changes nothing; a value is never moved earlier than the
 * step that first reads it, after every variable it reads is bound. */
enum { SHARE_SIZE = 12 };

typedef struct {
    const tine_expr_t *e;
    uint32_t refs, size; /* parents (and steps) reading it; its tree's size, shared nodes counted 1 */
    bool done;           /* counted */
    tine_expr_t *to;     /* what the steps read instead (its variable when shared); NULL: not yet */
} share_node;

typedef struct {
    tine_ctx_t *ctx;
    tine_u64map at; /* node -> index in v */
    share_node *v;
    uint32_t n, cap;
    uint32_t *post, npost, postcap; /* v's indices, children first */
    const tine_expr_t **stack;
    uint32_t nstack, stackcap;
    tine_plan_step *out; /* the new steps */
    int nout, outcap;
    int nvars;
} sharer;

static uint32_t share_index(sharer *S, const tine_expr_t *e, bool *fresh) {
    uint64_t i;
    *fresh = false;
    if (tine_u64map_get(&S->at, (uint64_t)(uintptr_t)e, &i)) return (uint32_t)i;
    TINE_GROW(S->v, S->n + 1, S->cap);
    S->v[S->n] = (share_node){e, 0, 0, false, NULL};
    tine_u64map_put(&S->at, (uint64_t)(uintptr_t)e, S->n);
    *fresh = true;
    return S->n++;
}

/* The entry of a node already listed. */
static share_node *share_at(sharer *S, const tine_expr_t *e) {
    uint64_t i;
    bool found = tine_u64map_get(&S->at, (uint64_t)(uintptr_t)e, &i);
    TINE_ASSERT(found);
    return &S->v[i];
}

static void share_push(sharer *S, const tine_expr_t *e) {
    TINE_PUSH(S->stack, S->nstack, S->stackcap, e);
}

/* Counts the references of root's nodes (root itself once more), listing each node once,
 * children first, in S->post. A walk with an explicit stack: bodies may be deep. */
static void share_count(sharer *S, const tine_expr_t *root) {
    bool fresh;
    uint32_t r = share_index(S, root, &fresh);
    S->v[r].refs++;
    if (!fresh) return;
    share_push(S, root);
    while (S->nstack) {
        const tine_expr_t *e = S->stack[S->nstack - 1];
        uint32_t i = share_index(S, e, &fresh);
        if (S->v[i].done) { /* pushed by two parents */
            S->nstack--;
            continue;
        }
        bool ready = true;
        for (int j = 0; j < e->nops; j++) {
            uint32_t c = share_index(S, e->ops[j], &fresh); /* may move v: not in the same expression */
            if (!S->v[c].done) {
                share_push(S, e->ops[j]);
                ready = false;
            }
        }
        if (!ready) continue;
        S->nstack--;
        for (int j = 0; j < e->nops; j++) share_at(S, e->ops[j])->refs++;
        S->v[i].done = true;
        TINE_PUSH(S->post, S->npost, S->postcap, i);
    }
}

static bool shared(const share_node *x) { return x->e->nops > 0 && x->refs >= 2 && x->size > SHARE_SIZE; }

/* Each node's size, children first, once every reference is counted. */
static void share_sizes(sharer *S) {
    for (uint32_t k = 0; k < S->npost; k++) {
        share_node *x = &S->v[S->post[k]];
        uint64_t size = 1;
        for (int j = 0; j < x->e->nops; j++) {
            const share_node *c = share_at(S, x->e->ops[j]);
            size += shared(c) ? 1 : c->size;
        }
        x->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    }
}

/* What the steps read for node x, whose operands are done: x rebuilt from theirs, or, if
 * shared, a variable bound to that by a Let emitted now (before the step that reads x
 * first, after those its operands' Lets). */
static void share_rewrite(sharer *S, share_node *x) {
    const tine_expr_t *e = x->e;
    tine_expr_t *ops[UINT8_MAX + 1], *to = (tine_expr_t *)e;
    bool same = true;
    for (int j = 0; j < e->nops; j++) {
        ops[j] = share_at(S, e->ops[j])->to;
        same = same && ops[j] == e->ops[j];
    }
    if (!same) to = tine_rebuild(S->ctx, e, ops);
    if (shared(x)) {
        char name[32];
        snprintf(name, sizeof name, "$.s%d", S->nvars++);
        tine_expr_t *var = tine_var(S->ctx, name, e->type);
        TINE_PUSH(S->out, S->nout, S->outcap, ((tine_plan_step){var, to, NULL}));
        to = var;
    }
    x->to = to;
}

static tine_expr_t *share_to(sharer *S, const tine_expr_t *e) { return share_at(S, e)->to; }

void tine_plan_share(tine_stmt_pool *p, tine_plan_step **steps, int *nsteps, int *cap) {
    sharer S = {.ctx = p->ctx};
    const tine_plan_step *v = *steps;
    int n = *nsteps;
    /* a variable bound twice would make a node mean two things: keep such a plan as it is
       (the planner binds each name once) */
    tine_u64map bound = {0};
    for (int i = 0; i < n; i++) {
        if (!v[i].var) continue;
        uint64_t u;
        if (tine_u64map_get(&bound, (uint64_t)(uintptr_t)v[i].var, &u)) {
            tine_u64map_free(&bound);
            return;
        }
        tine_u64map_put(&bound, (uint64_t)(uintptr_t)v[i].var, 1);
    }
    tine_u64map_free(&bound);
    /* the nodes each step reaches first are S.post[first[i]] up to first[i + 1] */
    uint32_t *first = tine_xmalloc(sizeof *first * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        const tine_plan_step *s = &v[i];
        first[i] = S.npost;
        if (s->var) share_count(&S, s->value);
        else {
            share_count(&S, s->check->assert_.cond);
            for (int j = 0; j < s->check->assert_.nargs; j++) share_count(&S, s->check->assert_.args[j]);
        }
    }
    first[n] = S.npost;
    share_sizes(&S);
    for (int i = 0; i < n; i++) {
        for (uint32_t k = first[i]; k < first[i + 1]; k++) share_rewrite(&S, &S.v[S.post[k]]);
        tine_plan_step s = v[i];
        if (s.var) s.value = share_to(&S, s.value);
        else {
            const tine_stmt *a = s.check;
            tine_expr_t *cond = share_to(&S, a->assert_.cond), *args[TINE_ASSERT_MAX_ARGS];
            bool same = cond == a->assert_.cond;
            for (int j = 0; j < a->assert_.nargs; j++) {
                args[j] = share_to(&S, a->assert_.args[j]);
                same = same && args[j] == a->assert_.args[j];
            }
            if (!same) s.check = tine_stmt_assert_args(p, cond, a->assert_.code, a->assert_.message, args, a->assert_.nargs);
        }
        TINE_PUSH(S.out, S.nout, S.outcap, s);
    }
    free(first);
    free(*steps);
    *steps = S.out;
    *nsteps = S.nout;
    *cap = S.outcap;
    free(S.v);
    free(S.post);
    free(S.stack);
    tine_u64map_free(&S.at);
}

