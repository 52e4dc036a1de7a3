/* reassoc.c — in a vectorized loop, the loop-invariant addends of an integer sum gathered
 * into one sum, added last.
 *
 * A selection may split a term into a cheap varying part and an invariant correction:
 * on Neon a u8 pixel times an i8 weight is SMULL of the weight and the pixel with its top
 * bit flipped, plus 128 times the weight (arm.rules smull_mixed_*). Summed over a 3x3
 * mask, the nine corrections sit between the nine products in the sum's tree, so every
 * tap costs an add in the accumulation, and LLVM's Reassociate does not move them: it
 * runs before LICM, when the mask's loads are still in the loop and rank like the
 * pixels'. Rebuilt as (the products' tree) + (the corrections' sum), the second operand
 * is one loop-invariant expression: hoist.c binds it outside the loop, or, as here where
 * it reads an input, LLVM's LICM lifts it (inputs are read-only), and each product
 * becomes an SMLAL into the running sum.
 *
 * An addend is invariant when it uses no variable bound in the loop (its own, an inner
 * loop's, a Let's) and loads no buffer the loop stores into. Only wrapping integer adds
 * of vectors are regrouped (exact modulo 2^bits, so any order gives the same bits); the
 * varying addends keep their tree, with the invariant leaves taken out. A sum is rebuilt
 * only where an invariant addend is not already its last operand. Indices keep their
 * shape (codegen reads a dense load's lane stride from it): a load is a leaf whose index
 * is not rewritten, and a sum with a ramp among its addends (a store's index, a
 * coordinate) is left as it is.
 *
 * Only innermost loops are rebuilt. Out of a loop with a loop inside (a reduction's, a
 * register tile's), the gathered sum would stay live across the inner loop, where a tile
 * needs every register: matmul's 12 accumulators spilled when its row terms were lifted
 * out of the loop over x.
 *
 * Runs after selection (which makes the corrections) and before hoist. Every node is
 * visited once per loop (memoized), without recursion: sums are deep.
 */
#include "passes.h"

typedef struct {
    tine_ctx_t *ctx;
    const tine_expr_t **bound; /* variables bound inside the loop */
    int nbound, capbound;
    const char **stored; /* buffers stored into inside the loop */
    int nstored, capstored;
    int nloops; /* For statements in the loop, itself included */
    tine_u64map inv;  /* node id -> 1 + (invariant in the loop) */
    tine_u64map done; /* node id -> its rewrite */
} reassoc;

static void push(const void ***v, int *n, int *cap, const void *x) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = realloc(*v, sizeof **v * (size_t)*cap);
        TINE_ASSERT(*v != NULL);
    }
    (*v)[(*n)++] = x;
}

static void collect(void *user, const tine_stmt *s) {
    reassoc *R = user;
    if (s->kind == TINE_S_FOR) {
        R->nloops++;
        push((const void ***)&R->bound, &R->nbound, &R->capbound, s->loop.var);
        if (s->loop.elem_var) push((const void ***)&R->bound, &R->nbound, &R->capbound, s->loop.elem_var);
    } else if (s->kind == TINE_S_LET) {
        push((const void ***)&R->bound, &R->nbound, &R->capbound, s->let.var);
    } else if (s->kind == TINE_S_STORE) {
        push((const void ***)&R->stored, &R->nstored, &R->capstored, s->store.buffer);
    } else if (s->kind == TINE_S_ALLOCATE) {
        push((const void ***)&R->stored, &R->nstored, &R->capstored, s->alloc.buffer);
    }
}

/* Whether node x (its operands already classified) is invariant in the loop. */
static bool node_invariant(reassoc *R, const tine_expr_t *x) {
    if (x->op == TINE_OP_VAR) {
        for (int j = 0; j < R->nbound; j++)
            if (R->bound[j] == x) return false;
        return true;
    }
    if (x->op == TINE_OP_LOAD) {
        const char *b = tine_expr_name(x);
        for (int j = 0; j < R->nstored; j++)
            if (!strcmp(R->stored[j], b)) return false;
    }
    for (int i = 0; i < x->nops; i++) {
        uint64_t v = 0;
        tine_u64map_get(&R->inv, x->ops[i]->id, &v);
        if (v != 2) return false;
    }
    return true;
}

static bool is_int_add(const tine_expr_t *x, tine_type_t t) {
    return x->op == TINE_OP_ADD && tine_type_eq(x->type, t) && (t.kind == TINE_INT || t.kind == TINE_UINT);
}

static bool invariant(reassoc *R, const tine_expr_t *x) {
    uint64_t v = 0;
    tine_u64map_get(&R->inv, x->id, &v);
    return v == 2;
}

/* The sum rooted at add node `root` (its leaves already rewritten in R->done), rebuilt
 * with its invariant leaves gathered last; NULL when it needs no change. */
static tine_expr_t *regroup(reassoc *R, tine_expr_t *root) {
    tine_type_t t = root->type;
    /* the tree's internal nodes in post order (an explicit stack: state 1 queued, 2
       expanded), its leaves counted; an internal node reached twice stops the rebuild
       (rare, and its leaves would be counted once for two uses) */
    uint32_t cap = 64, n = 0, sp = 0, ninv = 0, nvar = 0;
    tine_expr_t **post = malloc(sizeof *post * cap), **stack = malloc(sizeof *stack * cap);
    TINE_CHECK_ALLOC(post && stack);
    tine_u64map state = {0};
    bool shared = false, index = false;
    stack[sp++] = root;
    tine_u64map_put(&state, root->id, 1);
    while (sp && !shared) {
        tine_expr_t *x = stack[sp - 1];
        uint64_t st = 0;
        tine_u64map_get(&state, x->id, &st);
        if (st == 2) {
            sp--;
            if (n == cap) {
                cap *= 2;
                post = realloc(post, sizeof *post * cap);
                stack = realloc(stack, sizeof *stack * cap);
                TINE_CHECK_ALLOC(post && stack);
            }
            post[n++] = x;
            continue;
        }
        tine_u64map_put(&state, x->id, 2);
        for (int i = 1; i >= 0; i--) {
            tine_expr_t *o = x->ops[i];
            if (invariant(R, o)) {
                ninv++;
            } else if (!is_int_add(o, t)) {
                nvar++;
                index |= o->op == TINE_OP_RAMP;
            } else if (tine_u64map_get(&state, o->id, &st)) {
                shared = true;
            } else {
                if (sp == cap) {
                    cap *= 2;
                    post = realloc(post, sizeof *post * cap);
                    stack = realloc(stack, sizeof *stack * cap);
                    TINE_CHECK_ALLOC(post && stack);
                }
                tine_u64map_put(&state, o->id, 1);
                stack[sp++] = o;
            }
        }
    }
    tine_u64map_free(&state);
    tine_expr_t *r = NULL;
    /* something to gather, and not already (varying) + (one invariant addend) */
    if (!shared && !index && ninv && nvar && !(ninv == 1 && invariant(R, root->ops[1]))) {
        /* bottom up: each internal node's varying part (NULL: none), then the invariant
           leaves in the order the walk met them */
        tine_u64map made = {0};
        for (uint32_t k = 0; k < n; k++) {
            tine_expr_t *x = post[k], *part[2];
            for (int i = 0; i < 2; i++) {
                tine_expr_t *o = x->ops[i];
                uint64_t v = 0;
                if (invariant(R, o)) {
                    part[i] = NULL;
                } else if (is_int_add(o, t)) {
                    tine_u64map_get(&made, o->id, &v);
                    part[i] = (tine_expr_t *)(uintptr_t)v;
                } else {
                    part[i] = tine_u64map_get(&R->done, o->id, &v) ? (tine_expr_t *)(uintptr_t)v : o;
                }
            }
            tine_expr_t *m = !part[0] ? part[1] : !part[1] ? part[0] : tine_binary(R->ctx, TINE_OP_ADD, part[0], part[1]);
            tine_u64map_put(&made, x->id, (uint64_t)(uintptr_t)m);
        }
        tine_expr_t *inv = NULL;
        for (uint32_t k = 0; k < n; k++)
            for (int i = 0; i < 2; i++) {
                tine_expr_t *o = post[k]->ops[i];
                if (invariant(R, o)) inv = inv ? tine_binary(R->ctx, TINE_OP_ADD, inv, o) : o;
            }
        uint64_t v = 0;
        tine_u64map_get(&made, root->id, &v);
        r = tine_binary(R->ctx, TINE_OP_ADD, (tine_expr_t *)(uintptr_t)v, inv);
        TINE_ASSERT(r != NULL);
        tine_u64map_free(&made);
    }
    free(post);
    free(stack);
    return r;
}

static tine_expr_t *rewrite(void *user, tine_expr_t *e) {
    reassoc *R = user;
    if (!e || e->nops == 0) return e;
    uint32_t n;
    tine_expr_t **order = tine_topo(R->ctx, e, &n);
    TINE_ASSERT(n >= 1); /* e itself, last: the root marked below */
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) /* children first */
        if (!tine_u64map_get(&R->inv, order[i]->id, &v))
            tine_u64map_put(&R->inv, order[i]->id, 1 + (uint64_t)node_invariant(R, order[i]));
    /* a sum's root: an int vector add that is an operand of something other than a
       varying add of its type (or the expression itself); the adds inside are its tree */
    uint8_t *inner = calloc(n, 2); /* [2k]: under a varying add of its type, [2k+1]: elsewhere */
    TINE_CHECK_ALLOC(inner != NULL);
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i];
        bool in_sum = is_int_add(x, x->type) && !invariant(R, x);
        for (int j = 0; j < x->nops; j++) {
            uint32_t o = tine_topo_index(order, n, x->ops[j]);
            inner[2 * o + !(in_sum && tine_type_eq(x->ops[j]->type, x->type))] = 1;
        }
    }
    inner[2 * (n - 1) + 1] = 1;
    tine_expr_t *ops[256];
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i];
        if (tine_u64map_get(&R->done, x->id, &v)) continue;
        tine_expr_t *r = NULL;
        if (x->op == TINE_OP_LOAD) r = x; /* its index keeps its shape (below) */
        else if (x->type.lanes > 1 && inner[2 * i + 1] && is_int_add(x, x->type) && !invariant(R, x)) r = regroup(R, x);
        if (!r) {
            bool ch = false;
            for (int j = 0; j < x->nops; j++) {
                uint64_t v = 0;
                tine_u64map_get(&R->done, x->ops[j]->id, &v);
                ops[j] = v ? (tine_expr_t *)(uintptr_t)v : x->ops[j];
                ch |= ops[j] != x->ops[j];
            }
            r = ch ? tine_rebuild(R->ctx, x, ops) : x;
            TINE_ASSERT(r != NULL);
        }
        tine_u64map_put(&R->done, x->id, (uint64_t)(uintptr_t)r);
    }
    v = 0;
    tine_u64map_get(&R->done, e->id, &v);
    free(order);
    free(inner);
    return (tine_expr_t *)(uintptr_t)v;
}

static tine_stmt *reassoc_loop(tine_stmt_pool *p, tine_stmt *loop) {
    reassoc R = {.ctx = p->ctx};
    tine_stmt_visit(loop, collect, &R);
    if (R.nloops > 1) { /* a loop inside: left as it is (the header says why) */
        free(R.bound);
        free(R.stored);
        return loop;
    }
    tine_stmt *body = tine_stmt_map_exprs(p, loop->loop.body, rewrite, &R);
    tine_stmt *r = body == loop->loop.body ? loop : tine_stmt_for_like(p, loop, loop->loop.min, loop->loop.extent, body);
    free(R.bound);
    free(R.stored);
    tine_u64map_free(&R.inv);
    tine_u64map_free(&R.done);
    return r;
}

tine_stmt *tine_stmt_reassociate(tine_stmt_pool *p, tine_stmt *s) { return tine_stmt_map_vector_loops(p, s, reassoc_loop); }
