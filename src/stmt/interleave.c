/* interleave.c — an interleave of loads that together read consecutive elements, as one
 * dense load.
 *
 * The pair instructions (pmaddwd, pmaddubsw) take their operands interleaved: the x86
 * rules write `pmaddwd(interleave(a, p), interleave(b, q))`. When a and p are loads of
 * one buffer at lanes 2i and 2i + 1 of a run (a function stored in k pairs, matmul's
 * packed B: bp(2x, kk) beside bp(2x + 1, kk)), the interleave is the run itself: one
 * vector load instead of two strided loads (each a pair of loads and a shuffle) and the
 * shuffle that interleaves them. The same holds through a cast of every operand (a
 * narrowed buffer's widening: interleave(i16(a_u8), i16(p_u8)) is i16 of the interleaved
 * bytes). Run after selection, which makes the interleaves; it reads the same elements,
 * so no load moves past its buffer.
 */
#include "passes.h"

/* e as base + k for a constant k (i32 wrapping): *base NULL for a constant alone. */
static void split_const(const tine_expr_t *e, const tine_expr_t **base, uint32_t *k) {
    *base = e, *k = 0;
    if (e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM)) {
        *base = NULL, *k = (uint32_t)tine_const_value(e, 0);
        return;
    }
    if ((e->op != TINE_OP_ADD && e->op != TINE_OP_SUB) || e->ops[1]->op != TINE_OP_CONST ||
        !(e->ops[1]->flags & TINE_F_UNIFORM))
        return;
    uint32_t c = (uint32_t)tine_const_value(e->ops[1], 0);
    *base = e->ops[0], *k = e->op == TINE_OP_ADD ? c : 0u - c;
}

/* Whether the one-lane i32 values a and b differ by a constant, a - b in *d. */
static bool const_diff(const tine_expr_t *a, const tine_expr_t *b, int32_t *d) {
    const tine_expr_t *ba, *bb;
    uint32_t ka, kb;
    split_const(a, &ba, &ka);
    split_const(b, &bb, &kb);
    if (ba != bb) return false;
    *d = (int32_t)(ka - kb);
    return true;
}

/* A vector index as lane 0's value (one lane) and a constant step between lanes: a ramp
 * with a constant stride, or a broadcast (step 0). */
static bool lane_form(const tine_expr_t *e, const tine_expr_t **base, int32_t *step) {
    if (e->op == TINE_OP_BROADCAST && e->ops[0]->type.lanes == 1) {
        *base = e->ops[0], *step = 0;
        return true;
    }
    if (e->op == TINE_OP_RAMP && e->ops[1]->op == TINE_OP_CONST) {
        *base = e->ops[0], *step = (int32_t)(uint32_t)tine_const_value(e->ops[1], 0);
        return true;
    }
    return false;
}

/* interleave(load(B, i_0), ..., load(B, i_n-1)) (each operand possibly under the same
 * cast) where i_j is lane 0 of i_0 plus j, stepping by n: load(B, ramp(i_0's lane 0, 1,
 * n * lanes)), under the cast. NULL when e is not such an interleave. */
static tine_expr_t *fold_one(tine_ctx_t *ctx, const tine_expr_t *e) {
    int n = e->nops;
    const tine_expr_t *cast = e->ops[0]->op == TINE_OP_CAST ? e->ops[0] : NULL;
    const tine_expr_t *first = cast ? cast->ops[0] : e->ops[0], *b0 = NULL;
    if (first->op != TINE_OP_LOAD) return NULL;
    for (int j = 0; j < n; j++) {
        const tine_expr_t *o = e->ops[j], *b;
        if (cast) {
            if (o->op != TINE_OP_CAST || !tine_type_eq(o->type, cast->type)) return NULL;
            o = o->ops[0];
        }
        int32_t step, d;
        if (o->op != TINE_OP_LOAD || !tine_type_eq(o->type, first->type) ||
            strcmp(tine_expr_name(o), tine_expr_name(first)) || !lane_form(o->ops[0], &b, &step) || step != n)
            return NULL;
        if (!j) b0 = b;
        if (!const_diff(b, b0, &d) || d != j) return NULL;
    }
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    tine_expr_t *index = tine_ramp(ctx, (tine_expr_t *)b0, tine_const_int(ctx, i32, 1), e->type.lanes);
    tine_expr_t *v = tine_load(ctx, tine_expr_name(first), first->type, index);
    return cast && v ? tine_cast(ctx, e->type, v) : v;
}

tine_expr_t *tine_interleaved_loads(tine_ctx_t *ctx, tine_expr_t *root) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    tine_expr_t **now = malloc(sizeof *now * n);
    TINE_ASSERT(order != NULL && now != NULL);
    bool changed = false;
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *x = order[i], *ops[256];
        bool moved = false;
        for (int j = 0; j < x->nops; j++) {
            ops[j] = now[tine_topo_index(order, n, x->ops[j])];
            moved |= ops[j] != x->ops[j];
        }
        now[i] = moved ? tine_rebuild(ctx, x, ops) : x;
        TINE_ASSERT(now[i] != NULL);
        if (now[i]->op == TINE_OP_INTERLEAVE) {
            tine_expr_t *f = fold_one(ctx, now[i]);
            if (f) now[i] = f, moved = true;
        }
        changed |= moved;
    }
    tine_expr_t *r = changed ? now[n - 1] : root;
    free(now);
    free(order);
    return r;
}
