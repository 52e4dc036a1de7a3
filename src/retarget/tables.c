/* tables.c — table lookups as the target's lookup instruction (and byte bit counts as
 * lookups).
 *
 * Neon's vqtbl1q_u8(t, idx) means lane i = t[idx[i]], 0 past the table's end; its
 * definition (src/targets/neon.intrin) says so as sixteen selects, OR-ed:
 * select(idx == k, x(slice(t, k, 1, 1)), 0) for k = 0 … 15. No FPIR op or rule takes a
 * lane from an index that is data, so the selection keeps that chain, which the C
 * emitter writes as sixteen compares and blends. Here, after selection, such a chain is
 * x86's pshufb, which takes the same lane for an index below 16 and 0 for an index with
 * bit 7 set: the index is used as it is where its bounds are below 16 (idx & 15, a
 * nibble), else first saturating-added to 112 (below 16 it keeps its low bits and bit 7
 * clear; from 16 up it reaches 128 or more, bit 7 set, so the lane is 0, as tbl's).
 * test_intrin proves both forms equal to the chain with Z3.
 */
#include "retarget.h"
#include "../targets/targets.h"

/* Whether e is select(idx == k, broadcast(slice(t, k, 1, 1)), 0): its k, idx and t. */
static bool table_lane(const tine_expr_t *e, int *k, const tine_expr_t **idx, const tine_expr_t **t) {
    if (e->op != TINE_OP_SELECT || e->ops[2]->op != TINE_OP_CONST || !(e->ops[2]->flags & TINE_F_UNIFORM) ||
        tine_const_value(e->ops[2], 0) != 0)
        return false;
    const tine_expr_t *c = e->ops[0], *v = e->ops[1];
    if (c->op != TINE_OP_EQ || v->op != TINE_OP_BROADCAST || v->ops[0]->op != TINE_OP_SLICE) return false;
    const tine_expr_t *i = c->ops[0], *kc = c->ops[1];
    if (i->op == TINE_OP_CONST) i = c->ops[1], kc = c->ops[0];
    if (kc->op != TINE_OP_CONST || !(kc->flags & TINE_F_UNIFORM)) return false;
    int b, st, cnt;
    tine_slice_params(v->ops[0], &b, &st, &cnt);
    if (cnt != 1 || (tine_u128)b != tine_const_value(kc, 0)) return false;
    *k = b;
    *idx = i;
    *t = v->ops[0]->ops[0];
    return true;
}

/* The leaves of an OR tree, into out (at most 16; false past that). */
static bool or_leaves(const tine_expr_t *e, const tine_expr_t **out, int *n) {
    if (e->op == TINE_OP_OR) return or_leaves(e->ops[0], out, n) && or_leaves(e->ops[1], out, n);
    if (*n == 16) return false;
    out[(*n)++] = e;
    return true;
}

/* The lookup of table t (16 bytes) at idx, in pshufb's 16-lane pieces. */
static tine_expr_t *pshufb(tine_ctx_t *ctx, const char *to, tine_expr_t *t, tine_expr_t *idx, int code) {
    tine_type_t u8 = {.kind = TINE_UINT, .bits = 8, .lanes = 1};
    tine_expr_t *tu = tine_reinterpret(ctx, u8, t), *iu = tine_reinterpret(ctx, u8, idx);
    tine_i128 lo, hi;
    if (!tine_bounds(ctx, iu, &lo, &hi) || hi > 15) { /* an index from 16 up: bit 7 set */
        tine_clear_error(ctx);
        tine_expr_t *args[2] = {iu, tine_const_int(ctx, iu->type, 112)};
        tine_expr_t *fix = tine_fpir(ctx, TINE_OP_SATURATING_ADD, 2, args, iu->type);
        iu = fix ? tine_select_expr(ctx, fix, TINE_SELECT_TINE, to) : NULL;
        if (!iu) return NULL;
    }
    int n = iu->type.lanes;
    tine_expr_t *parts[8];
    int np = 0;
    for (int at = 0; at < n; at += 16) {
        int m = n - at < 16 ? n - at : 16;
        tine_expr_t *piece = m == n ? iu : tine_slice(ctx, iu, at, 1, m);
        if (m < 16) piece = tine_concat(ctx, 2, (tine_expr_t *[]){piece, tine_const_int(ctx, tine_type_with_lanes(u8, 16 - m), 0)});
        tine_expr_t *ops[2] = {tu, piece};
        tine_expr_t *r = piece ? tine_insn_make(ctx, (uint32_t)code, 2, ops) : NULL;
        if (r && m < 16) r = tine_slice(ctx, r, 0, 1, m);
        if (!r || np == 8) return NULL;
        parts[np++] = r;
    }
    tine_expr_t *r = np == 1 ? parts[0] : tine_concat(ctx, np, parts);
    return r ? tine_reinterpret(ctx, tine_type_with_lanes(t->type, 1), r) : NULL;
}

/* ---- bit counts ----------------------------------------------------------------------------

   Neon's vcnt (ones per byte) is defined as the bit-parallel count
   p = u - ((u >> 1) & 85); n = (p & 51) + ((p >> 2) & 51); (n + (n >> 4)) & 15,
   ten byte operations, and x86 has no byte shift. A lookup of each nibble's count in a
   16-byte table is two pshufb and an add. */

/* Whether e is op(x, k) (either order for and, add): x. */
static const tine_expr_t *with_const(const tine_expr_t *e, tine_op_t op, tine_u128 k) {
    if (e->op != op || e->nops != 2) return NULL;
    bool comm = op == TINE_OP_AND || op == TINE_OP_ADD; /* else the constant is the second */
    for (int i = comm ? 0 : 1; i < 2; i++) {
        const tine_expr_t *c = e->ops[i];
        if (c->op == TINE_OP_CONST && (c->flags & TINE_F_UNIFORM) && tine_const_value(c, 0) == k) return e->ops[1 - i];
    }
    return NULL;
}

/* u if e is the bit-parallel count of u's bytes (unsigned 8-bit lanes). */
static const tine_expr_t *popcount_of(const tine_expr_t *e) {
    const tine_expr_t *s = with_const(e, TINE_OP_AND, 15), *n, *p, *u;
    if (!s || s->op != TINE_OP_ADD || e->type.kind != TINE_UINT || e->type.bits != 8) return NULL;
    n = s->ops[0];
    if (with_const(s->ops[1], TINE_OP_SHR, 4) != n && with_const(s->ops[0], TINE_OP_SHR, 4) == s->ops[1]) n = s->ops[1];
    else if (with_const(s->ops[1], TINE_OP_SHR, 4) != n) return NULL;
    /* n = (p & 51) + ((p >> 2) & 51) */
    if (n->op != TINE_OP_ADD) return NULL;
    const tine_expr_t *a = with_const(n->ops[0], TINE_OP_AND, 51), *b = with_const(n->ops[1], TINE_OP_AND, 51);
    if (!a || !b) return NULL;
    if (with_const(b, TINE_OP_SHR, 2) == a) p = a;
    else if (with_const(a, TINE_OP_SHR, 2) == b) p = b;
    else return NULL;
    /* p = u - ((u >> 1) & 85) */
    if (p->op != TINE_OP_SUB) return NULL;
    u = p->ops[0];
    const tine_expr_t *h = with_const(p->ops[1], TINE_OP_AND, 85);
    return h && with_const(h, TINE_OP_SHR, 1) == u ? u : NULL;
}

typedef struct {
    const char *to;
    int code;
} tables_ctx;

/* The count of ones of each byte of u (u8 lanes) by nibbles: two lookups in a table of
 * the counts of 0 … 15. */
static tine_expr_t *popcount(tine_ctx_t *ctx, const tables_ctx *tc, tine_expr_t *u) {
    static const uint8_t ones[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    tine_u128 v[16];
    for (int i = 0; i < 16; i++) v[i] = ones[i];
    tine_type_t t16 = tine_type_with_lanes(u->type, 16);
    tine_expr_t *table = tine_const_u128(ctx, t16, v);
    tine_expr_t *lo = tine_binary(ctx, TINE_OP_AND, u, tine_const_int(ctx, u->type, 15));
    tine_expr_t *hi = tine_binary(ctx, TINE_OP_SHR, u, tine_const_int(ctx, u->type, 4));
    tine_expr_t *a = lo ? pshufb(ctx, tc->to, table, lo, tc->code) : NULL, *b = hi ? pshufb(ctx, tc->to, table, hi, tc->code) : NULL;
    return a && b ? tine_binary(ctx, TINE_OP_ADD, a, b) : NULL;
}

/* An OR node that is a whole 16-lane lookup: the lookup; else the node as rebuilt. */
static tine_expr_t *table_node(tine_ctx_t *ctx, const tine_expr_t *e, tine_expr_t *rebuilt, tine_expr_t *const *ops,
                               void *user) {
    (void)ops;
    const tables_ctx *tc = user;
    const tine_expr_t *leaves[16], *idx = NULL, *t = NULL, *u;
    int nl = 0;
    if (e->op == TINE_OP_AND && (u = popcount_of(e))) { /* rebuilt below it: u is e's operand's, as rebuilt */
        tine_expr_t *uu = (tine_expr_t *)u;
        tine_expr_t *l = popcount(ctx, tc, uu);
        if (!l) tine_clear_error(ctx);
        return l ? l : rebuilt;
    }
    if (e->op != TINE_OP_OR || e->type.bits != 8 || !or_leaves(e, leaves, &nl) || nl != 16) return rebuilt;
    bool seen[16] = {false};
    for (int i = 0; i < 16; i++) {
        int k;
        const tine_expr_t *ii, *tt;
        if (!table_lane(leaves[i], &k, &ii, &tt) || (idx && (ii != idx || tt != t)) || tt->type.lanes != 16 || k >= 16 ||
            seen[k])
            return rebuilt;
        seen[k] = true, idx = ii, t = tt;
    }
    tine_expr_t *l = pshufb(ctx, tc->to, (tine_expr_t *)t, (tine_expr_t *)idx, tc->code);
    if (!l) tine_clear_error(ctx);
    return l ? l : rebuilt;
}

tine_expr_t *tine_retarget_tables(tine_ctx_t *ctx, tine_expr_t *root, const char *to) {
    tables_ctx tc = {to, tine_isa_get(ctx, "x86gen") ? tine_isa_lookup(ctx, "mm_shuffle_epi8") : -1}; /* Intel's, imported */
    const tine_target_info *ti = tine_target_find(to);
    if (tc.code < 0 || !ti || !ti->features || !strstr(ti->features, "ssse3")) return root;
    return tine_retarget_rewrite(ctx, root, table_node, &tc);
}
