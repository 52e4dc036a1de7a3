/* compact.c — an imported instruction's semantics made readable and small: casts and
 * reinterprets tidied, and a concatenation of per-lane expressions packed into the same
 * expression on whole vectors where the lanes are one function of the operands' lanes
 * (src/import/eval.h). Neither changes what the expression means. */
#include "eval.h"

#include <stdio.h>
#include <string.h>

/* ---- whole-vector form ---------------------------------------------------------------------- */

/* The lanes' expressions walked in lockstep (as SLP vectorizers pack isomorphic trees):
 * a tuple of nodes that are one op on tuples becomes that op on vectors; a tuple of
 * lanes slice(v, k0 + m*j, 1, 1) becomes slice(v, k0, m, n) (a broadcast for m = 0); a
 * tuple of constants, a constant vector; the same scalar operand in every lane, its
 * broadcast. Tuples are memoized, so shared subexpressions stay shared. */
typedef struct {
    tine_ctx_t *ctx;
    int n;
    const tine_expr_t **keys; /* cap tuples of n nodes */
    tine_expr_t **vals;
    size_t cap, used;
    bool full;
} lockstep;

static size_t tuple_hash(const tine_expr_t *const *t, int n) {
    size_t h = 1469598103934665603ull;
    for (int j = 0; j < n; j++) h = (h ^ t[j]->id) * 1099511628211ull;
    return h;
}

static tine_expr_t **tuple_slot(lockstep *L, const tine_expr_t *const *t) {
    for (size_t i = tuple_hash(t, L->n) & (L->cap - 1);; i = (i + 1) & (L->cap - 1)) {
        const tine_expr_t **k = &L->keys[i * (size_t)L->n];
        if (!k[0]) {
            if (L->used * 2 >= L->cap) {
                L->full = true;
                if (getenv("TINE_IMPORT_DEBUG")) fprintf(stderr, "lockstep table full at %zu\n", L->cap);
                return NULL;
            }
            memcpy(k, t, sizeof *t * (size_t)L->n);
            L->used++;
            return &L->vals[i];
        }
        if (!memcmp(k, t, sizeof *t * (size_t)L->n)) return &L->vals[i];
    }
}

/* A tuple that does not pack (memoized, so a shared one is tried once). */
static tine_expr_t failed_node;
#define FAILED (&failed_node)

static bool lane_ref(const tine_expr_t *e, const tine_expr_t **var, int *k) {
    if (e->op == TINE_OP_SLICE && e->ops[0]->op == TINE_OP_VAR && e->type.lanes == 1) {
        *var = e->ops[0], *k = (int)(e->imm & 1023);
        return true;
    }
    return false;
}

/* Nodes of e counted as a tree, capped at cap (a bound on the DAG's). */
static long dag_size(const tine_expr_t *e, long cap) {
    long k = 1;
    for (int i = 0; i < e->nops && k < cap; i++) k += dag_size(e->ops[i], cap - k);
    return k;
}

static tine_expr_t *pack(lockstep *L, const tine_expr_t *const *t, int depth) {
    int n = L->n;
    const tine_expr_t *e = t[0];
    if (depth > 400 || e->type.lanes != 1) {
        if (getenv("TINE_IMPORT_DEBUG")) fprintf(stderr, "pack: depth %d lanes %d\n", depth, e->type.lanes);
        return NULL;
    }
    tine_expr_t **slot = tuple_slot(L, t);
    if (!slot) return NULL;
    if (*slot) return *slot == FAILED ? NULL : *slot;
    tine_ctx_t *ctx = L->ctx;
    tine_expr_t *r = NULL;
    bool local = true; /* the failure is this tuple's, not an operand's */
    const tine_expr_t *v, *v2;
    int k0, k;
    if (lane_ref(e, &v, &k0)) {
        int m = 0;
        bool ok = true;
        for (int j = 1; j < n && ok; j++) {
            ok = lane_ref(t[j], &v2, &k) && v2 == v;
            if (ok && j == 1) m = k - k0;
            ok = ok && k == k0 + m * j;
        }
        if (ok && m >= 0 && k0 + m * (n - 1) < v->type.lanes)
            r = m == 0 ? tine_broadcast(ctx, (tine_expr_t *)e, n) : tine_slice(ctx, (tine_expr_t *)v, k0, m, n);
    } else if (e->op == TINE_OP_CONST) {
        uint64_t lanes[TINE_MAX_LANES];
        bool ok = e->type.bits <= 64;
        for (int j = 0; j < n && ok; j++) {
            ok = t[j]->op == TINE_OP_CONST && tine_type_eq(t[j]->type, e->type);
            if (ok) lanes[j] = tine_expr_const_lane(t[j], 0);
        }
        if (ok) r = tine_const_lanes(ctx, tine_type_with_lanes(e->type, n), lanes);
    } else if (e->op == TINE_OP_VAR) {
        bool ok = true;
        for (int j = 1; j < n && ok; j++) ok = t[j] == e;
        if (ok) r = tine_broadcast(ctx, (tine_expr_t *)e, n);
    } else if (e->nops <= 8) {
        bool ok = true;
        for (int j = 1; j < n && ok; j++)
            ok = t[j]->op == e->op && t[j]->nops == e->nops && t[j]->imm == e->imm && tine_type_eq(t[j]->type, e->type) &&
                 t[j]->flags == e->flags && !lane_ref(t[j], &v2, &k);
        tine_expr_t *ops[8];
        const tine_expr_t **sub = ok ? tine_xmalloc(sizeof *sub * (size_t)n) : NULL;
        for (int i = 0; i < e->nops && ok; i++) {
            for (int j = 0; j < n; j++) sub[j] = t[j]->ops[i];
            ok = (ops[i] = pack(L, sub, depth + 1)) != NULL;
            local = ok;
        }
        free(sub);
        if (ok) r = tine_make(ctx, (tine_op_t)e->op, tine_type_with_lanes(e->type, n), e->nops, ops, e->imm, e->flags, NULL, 0);
    }
    if (!r && local && getenv("TINE_IMPORT_DEBUG")) {
        int bad = 1;
        for (int j = 1; j < n; j++)
            if (t[j]->op != e->op) { bad = j; break; }
        char *a = tine_print(ctx, t[0]), *b = tine_print(ctx, t[bad]);
        fprintf(stderr, "lane %d op %d\n", bad, t[bad]->op);
        fprintf(stderr, "pack fails at op %d (n %d, ops %d/%d imm %u/%u flags %d/%d lanes %d/%d bits %d/%d): %.300s | %.300s\n", e->op, n, e->nops, t[1]->nops, e->imm, t[1]->imm, e->flags, t[1]->flags, e->type.lanes, t[1]->type.lanes, e->type.bits, t[1]->type.bits, a, b);
        free(a), free(b);
    }
    slot = tuple_slot(L, t); /* found again: the table holds it */
    if (slot) *slot = r ? r : FAILED;
    return r;
}

/* ---- tidying -------------------------------------------------------------------------------- */

typedef struct {
    const tine_expr_t **key;
    tine_expr_t **val;
    size_t cap;
} memo;

static tine_expr_t **memo_slot(memo *m, const tine_expr_t *e) {
    size_t h = (size_t)e->id * 0x9E3779B97F4A7C15ull;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->key[i]) {
            m->key[i] = e;
            return &m->val[i];
        }
        if (m->key[i] == e) return &m->val[i];
    }
}

static bool same_elem(tine_type_t a, tine_type_t b) { return a.kind == b.kind && a.bits == b.bits; }

/* x without a widening cast to a type of more bits than t, when x then has t's type. */
static tine_expr_t *unwiden(tine_ctx_t *ctx, tine_expr_t *x, tine_type_t t) {
    if (x->op == TINE_OP_CAST && x->type.bits > t.bits && same_elem(x->ops[0]->type, t)) return x->ops[0];
    if (x->op == TINE_OP_CONST && x->type.bits <= 64) {
        tine_u128 u = tine_canon(t, (tine_u128)tine_expr_const_lane(x, 0));
        if (x->flags & TINE_F_UNIFORM) return tine_const_splat(ctx, tine_type_with_lanes(t, x->type.lanes), u);
    }
    return NULL;
}

static tine_expr_t *tidy_node(tine_ctx_t *ctx, tine_expr_t *e) {
    tine_op_t op = (tine_op_t)e->op;
    tine_expr_t *a = e->nops ? e->ops[0] : NULL;
    if (op == TINE_OP_MUL && e->ops[1]->op == TINE_OP_CONST && (e->ops[1]->flags & TINE_F_UNIFORM) &&
        tine_expr_const_lane(e->ops[1], 0) == 1)
        return a;
    if (op == TINE_OP_REINTERPRET && a->op == TINE_OP_REINTERPRET)
        return tine_bitcast(ctx, e->type, a->ops[0]);
    if (op == TINE_OP_CAST && a->op == TINE_OP_CAST && a->type.bits > e->type.bits && same_elem(a->ops[0]->type, e->type))
        return a->ops[0];
    /* the low bits of a wide add, sub, mul or bitwise op are the narrow op's */
    if (op == TINE_OP_CAST && a->type.bits > e->type.bits &&
        (a->op == TINE_OP_ADD || a->op == TINE_OP_SUB || a->op == TINE_OP_MUL || a->op == TINE_OP_AND ||
         a->op == TINE_OP_OR || a->op == TINE_OP_XOR)) {
        tine_expr_t *x = unwiden(ctx, a->ops[0], e->type), *y = unwiden(ctx, a->ops[1], e->type);
        if (x && y && (x->op != TINE_OP_CONST || y->op != TINE_OP_CONST)) return tine_binary(ctx, (tine_op_t)a->op, x, y);
    }
    return e;
}

static tine_expr_t *tidy_rec(tine_ctx_t *ctx, tine_expr_t *e, memo *m, int depth) {
    if (e->op == TINE_OP_CONST || e->op == TINE_OP_VAR || depth > 10000) return e;
    tine_expr_t **slot = memo_slot(m, e);
    if (*slot) return *slot;
    tine_expr_t *ops[16];
    bool changed = false;
    if (e->nops > 16) return *slot = e;
    for (int i = 0; i < e->nops; i++) {
        ops[i] = tidy_rec(ctx, e->ops[i], m, depth + 1);
        changed |= ops[i] != e->ops[i];
    }
    tine_expr_t *r = changed ? tine_make(ctx, (tine_op_t)e->op, e->type, e->nops, ops, e->imm, e->flags, NULL, 0) : e;
    r = tidy_node(ctx, r);
    slot = memo_slot(m, e); /* the table did not grow: the slot is where it was */
    return *slot = r;
}

tine_expr_t *tine_pseudo_tidy(tine_ctx_t *ctx, tine_expr_t *e) {
    if (!e) return e;
    size_t n = 0; /* the DAG's nodes: the memo table is sized for them */
    const tine_expr_t **stack = NULL;
    size_t sn = 0, scap = 0;
    TINE_GROW(stack, 1, scap);
    stack[sn++] = e;
    memo seen = {0};
    seen.cap = 1 << 12;
    seen.key = calloc(seen.cap, sizeof *seen.key), seen.val = calloc(seen.cap, sizeof *seen.val);
    while (sn) {
        const tine_expr_t *x = stack[--sn];
        if (n * 2 >= seen.cap) {
            memo big = {calloc(seen.cap * 2, sizeof *big.key), calloc(seen.cap * 2, sizeof *big.val), seen.cap * 2};
            for (size_t i = 0; i < seen.cap; i++)
                if (seen.key[i]) *memo_slot(&big, seen.key[i]) = (tine_expr_t *)1;
            free(seen.key), free(seen.val);
            seen = big;
        }
        tine_expr_t **s = memo_slot(&seen, x);
        if (*s) continue;
        *s = (tine_expr_t *)1, n++;
        for (int i = 0; i < x->nops; i++) {
            TINE_GROW(stack, sn + 1, scap);
            stack[sn++] = x->ops[i];
        }
    }
    free(stack), free(seen.key), free(seen.val);
    memo m = {0};
    m.cap = 16;
    while (m.cap < 4 * n + 16) m.cap *= 2;
    m.key = calloc(m.cap, sizeof *m.key), m.val = calloc(m.cap, sizeof *m.val);
    tine_expr_t *r = tidy_rec(ctx, e, &m, 0);
    free(m.key), free(m.val);
    return r;
}


/* Lane j of a packed expression, rebuilt as the lanes were built (the check that packing
 * kept every lane's meaning: the rebuilt lane is the very node the lane was). */
static tine_expr_t *lane_of(tine_ctx_t *ctx, const tine_expr_t *v, int j, memo *m, int depth) {
    if (depth > 1000) return NULL;
    if (v->type.lanes == 1) return (tine_expr_t *)v;
    tine_expr_t **slot = memo_slot(m, v);
    if (*slot) return *slot;
    tine_expr_t *r = NULL;
    if (v->op == TINE_OP_SLICE && v->ops[0]->op == TINE_OP_VAR) {
        int k0 = (int)(v->imm & 1023), stride = (int)((v->imm >> 10) & 1023);
        r = tine_slice(ctx, v->ops[0], k0 + stride * j, 1, 1);
    } else if (v->op == TINE_OP_VAR) /* a whole operand: its lanes at stride 1 */
        r = tine_slice(ctx, (tine_expr_t *)v, j, 1, 1);
    else if (v->op == TINE_OP_BROADCAST)
        r = v->ops[0];
    else if (v->op == TINE_OP_CONST) {
        tine_u128 u = tine_canon(v->type, (tine_u128)tine_expr_const_lane(v, j));
        r = v->type.bits <= 64 ? tine_const_u128(ctx, tine_type_with_lanes(v->type, 1), &u) : NULL;
    } else if (v->nops <= 8) {
        tine_expr_t *ops[8];
        bool ok = true;
        for (int i = 0; i < v->nops && ok; i++) ok = (ops[i] = lane_of(ctx, v->ops[i], j, m, depth + 1)) != NULL;
        if (ok) r = tine_make(ctx, (tine_op_t)v->op, tine_type_with_lanes(v->type, 1), v->nops, ops, v->imm, v->flags, NULL, 0);
    }
    slot = memo_slot(m, v);
    return *slot = r;
}

/* Whether every lane of the packed p is the lane of e (a concatenation) it replaces. */
static bool packed_same(tine_ctx_t *ctx, const tine_expr_t *p, const tine_expr_t *e) {
    long size = dag_size(p, 1 << 16);
    memo m = {0};
    m.cap = 64;
    while (m.cap < (size_t)size * 2 + 64) m.cap *= 2;
    m.key = calloc(m.cap, sizeof *m.key), m.val = calloc(m.cap, sizeof *m.val);
    bool same = true;
    for (int j = 0; j < e->nops && same; j++) {
        memset(m.key, 0, m.cap * sizeof *m.key);
        memset(m.val, 0, m.cap * sizeof *m.val);
        tine_expr_t *l = lane_of(ctx, p, j, &m, 0);
        same = l == e->ops[j];
        if (!same && getenv("TINE_IMPORT_DEBUG")) {
            char *a = l ? tine_print(ctx, l) : NULL, *b = tine_print(ctx, e->ops[j]);
            fprintf(stderr, "lane %d rebuilt: %.300s\n        was: %.300s\n", j, a ? a : "(none)", b);
            free(a), free(b);
        }
    }
    free(m.key), free(m.val);
    return same;
}

tine_expr_t *tine_pseudo_compact(tine_ctx_t *ctx, tine_expr_t *e) {
    if (!e || e->op != TINE_OP_CONCAT || e->nops < 2) return e;
    int n = e->nops;
    for (int i = 0; i < n; i++)
        if (e->ops[i]->type.lanes != 1) return e;
    long size = 0;
    for (int j = 0; j < n && size < (1 << 17); j++) size += dag_size(e->ops[j], 1 << 17);
    lockstep L = {.ctx = ctx, .n = n, .cap = 64};
    while (L.cap < (size_t)size / (size_t)n * 4 + 64) L.cap *= 2;
    L.keys = calloc(L.cap * (size_t)n, sizeof *L.keys);
    L.vals = calloc(L.cap, sizeof *L.vals);
    tine_expr_t *r = pack(&L, (const tine_expr_t *const *)e->ops, 0);
    free(L.keys), free(L.vals);
    return r && packed_same(ctx, r, e) ? r : e;
}
