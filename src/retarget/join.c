/* join.c — the halves of one computation joined back into it.
 *
 * Intrinsic code works in the source's registers: Neon widens a 16-byte vector as two
 * 8-lane halves (vget_low, vget_high, vmovl), computes on each, and puts them back
 * together (vcombine); so the graph of a retargeted region is full of
 * concat(f(slice(x, 0, 8)), f(slice(x, 8, 8))). On a target with other registers, or
 * with an instruction that does the whole (pavgb on 16 bytes), f should apply once to x:
 * a concat of one lane-wise op is that op of the concats of its operands, and a concat of
 * the adjacent pieces of one vector is that vector. Everything is rebuilt through the
 * IR's constructors, so each node means what it meant.
 */
#include "retarget.h"

/* Whether op works lane by lane (lane i of the result reads lane i of each operand). */
static bool lanewise(const tine_expr_t *e) {
    switch (e->op) {
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_DIV: case TINE_OP_MOD:
    case TINE_OP_MIN: case TINE_OP_MAX: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR:
    case TINE_OP_SHL: case TINE_OP_SHR: case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT:
    case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE: case TINE_OP_NEG: case TINE_OP_NOT:
    case TINE_OP_SELECT: case TINE_OP_CAST: return true;
    case TINE_OP_REINTERPRET: return e->type.lanes == e->ops[0]->type.lanes;
    default: return false;
    }
}

/* Whether a concat's parts are all slices of one vector (the low halves of two copies'
 * bytes: a shuffle of that vector, one instruction, rather than a join of several). */
static bool one_source(const tine_expr_t *c) {
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i]->op != TINE_OP_SLICE || c->ops[i]->ops[0] != c->ops[0]->ops[0]) return false;
    return c->nops > 0 && c->ops[0]->op == TINE_OP_SLICE;
}

/* The parts concatenated, simplified: adjacent slices of one vector are the vector (or
 * one slice of it), constants one constant, one lane-wise op of them that op of the
 * concatenated operands; otherwise a concat. */
/* A slice of a slice (of lanes in a row) as one slice of the vector below. */
static tine_expr_t *flat_slice(tine_ctx_t *ctx, tine_expr_t *e) {
    int b1, s1, c1, b2, s2, c2;
    if (e->op != TINE_OP_SLICE || e->ops[0]->op != TINE_OP_SLICE) return e;
    tine_slice_params(e, &b2, &s2, &c2);
    tine_slice_params(e->ops[0], &b1, &s1, &c1);
    if (s1 != 1 || s2 != 1) return e;
    tine_expr_t *r = tine_slice(ctx, e->ops[0]->ops[0], b1 + b2, 1, c2);
    return r ? flat_slice(ctx, r) : e;
}

static tine_expr_t *cat(tine_ctx_t *ctx, int n, tine_expr_t *const *given, int depth) {
    if (n == 1) return given[0];
    tine_expr_t *flatp[256], *const *parts = given;
    if (n <= 256) {
        for (int i = 0; i < n; i++) flatp[i] = flat_slice(ctx, given[i]);
        parts = flatp;
    }
    /* a concat of concats is one concat of all their parts (a loop's copies, widened, of
       a value that is itself two halves joined): the halves may join across copies */
    bool nested = false;
    for (int i = 0; i < n; i++) nested |= parts[i]->op == TINE_OP_CONCAT;
    if (nested) {
        int m = 0;
        for (int i = 0; i < n; i++) m += parts[i]->op == TINE_OP_CONCAT ? parts[i]->nops : 1;
        if (m <= 256) {
            tine_expr_t **flat = tine_xmalloc(sizeof *flat * (size_t)m);
            m = 0;
            for (int i = 0; i < n; i++)
                if (parts[i]->op == TINE_OP_CONCAT)
                    for (int k = 0; k < parts[i]->nops; k++) flat[m++] = parts[i]->ops[k];
                else
                    flat[m++] = parts[i];
            tine_expr_t *r = cat(ctx, m, flat, depth + 1);
            free(flat);
            return r;
        }
    }
    int total = 0;
    for (int i = 0; i < n; i++) total += parts[i]->type.lanes;
    /* adjacent slices of one vector */
    bool slices = true;
    int b0 = 0, next = 0;
    for (int i = 0; i < n && slices; i++) {
        int b, st, c;
        if (parts[i]->op != TINE_OP_SLICE || parts[i]->ops[0] != parts[0]->ops[0]) { slices = false; break; }
        tine_slice_params(parts[i], &b, &st, &c);
        if (st != 1 || (i && b != next)) slices = false;
        if (!i) b0 = b;
        next = b + c;
    }
    if (slices) {
        tine_expr_t *x = parts[0]->ops[0];
        return b0 == 0 && total == x->type.lanes ? x : tine_slice(ctx, x, b0, 1, total);
    }
    /* bitcasts of one lane type (vreinterpretq_u16_u32 of each of two vectors): the bitcast
       of their concat (a bitcast keeps the bytes in order) */
    bool casts = depth < 32;
    for (int i = 0; i < n && casts; i++)
        casts = parts[i]->op == TINE_OP_REINTERPRET && parts[i]->type.lanes != parts[i]->ops[0]->type.lanes &&
                tine_type_eq(tine_type_with_lanes(parts[i]->ops[0]->type, 1), tine_type_with_lanes(parts[0]->ops[0]->type, 1)) &&
                tine_type_eq(tine_type_with_lanes(parts[i]->type, 1), tine_type_with_lanes(parts[0]->type, 1));
    if (casts && n <= 256) {
        tine_expr_t *col[256];
        for (int i = 0; i < n; i++) col[i] = parts[i]->ops[0];
        tine_expr_t *x = cat(ctx, n, col, depth + 1);
        if (x) return tine_bitcast(ctx, tine_type_with_lanes(parts[0]->type, total), x);
    }
    /* broadcasts of one scalar (a loop's copies of x4(k)): one broadcast */
    bool bcast = true;
    for (int i = 0; i < n && bcast; i++) bcast = parts[i]->op == TINE_OP_BROADCAST && parts[i]->ops[0] == parts[0]->ops[0];
    if (bcast) return tine_broadcast(ctx, parts[0]->ops[0], total);
    /* constants */
    bool consts = true;
    for (int i = 0; i < n; i++) consts &= parts[i]->op == TINE_OP_CONST;
    if (consts) {
        tine_u128 *v = tine_xmalloc(sizeof *v * (size_t)total);
        int k = 0;
        for (int i = 0; i < n; i++)
            for (int l = 0; l < parts[i]->type.lanes; l++) v[k++] = tine_const_value(parts[i], l);
        tine_expr_t *c = tine_const_u128(ctx, tine_type_with_lanes(parts[0]->type, total), v);
        free(v);
        return c;
    }
    /* one blockwise op, each part of whole blocks: a pairwise sum (vpaddlq: groups of
       adjacent lanes added) or a deinterleave (every n-th lane) of each part is that op of
       the parts concatenated */
    bool blocks = depth < 32 && (parts[0]->op == TINE_OP_VECTOR_REDUCE_ADD || parts[0]->op == TINE_OP_DEINTERLEAVE);
    for (int i = 0; i < n && blocks; i++)
        blocks = parts[i]->op == parts[0]->op && parts[i]->imm == parts[0]->imm &&
                 parts[i]->ops[0]->type.lanes / parts[i]->type.lanes == parts[0]->ops[0]->type.lanes / parts[0]->type.lanes &&
                 tine_type_eq(tine_type_with_lanes(parts[i]->ops[0]->type, 1), tine_type_with_lanes(parts[0]->ops[0]->type, 1));
    if (blocks && n <= 256) {
        tine_expr_t *col[256];
        for (int i = 0; i < n; i++) col[i] = parts[i]->ops[0];
        tine_expr_t *x = cat(ctx, n, col, depth + 1);
        bool same_col = x && x->op == TINE_OP_CONCAT && x->nops == n;
        for (int i = 0; i < n && same_col; i++) same_col = x->ops[i] == col[i];
        if (x && !same_col)
            return parts[0]->op == TINE_OP_VECTOR_REDUCE_ADD
                       ? tine_vector_reduce_add(ctx, x, total)
                       : tine_deinterleave(ctx, x, (int)(parts[0]->imm & 1023), (int)(parts[0]->imm >> 10));
    }
    /* one lane-wise op: of the concatenated operands (only where those simplify too, so
       that nothing is rebuilt for nothing) */
    bool same = depth < 32 && lanewise(parts[0]);
    for (int i = 1; i < n && same; i++)
        same = parts[i]->op == parts[0]->op && parts[i]->nops == parts[0]->nops &&
               tine_type_eq(tine_type_with_lanes(parts[i]->type, 1), tine_type_with_lanes(parts[0]->type, 1));
    for (int j = 0; same && j < parts[0]->nops; j++)
        for (int i = 1; i < n && same; i++)
            same = tine_type_eq(tine_type_with_lanes(parts[i]->ops[j]->type, 1), tine_type_with_lanes(parts[0]->ops[j]->type, 1)) &&
                   parts[i]->ops[j]->type.lanes == parts[i]->type.lanes;
    if (same) {
        tine_expr_t *ops[3], *col[256];
        bool joined = true;
        for (int j = 0; j < parts[0]->nops && n <= 256; j++) {
            for (int i = 0; i < n; i++) col[i] = parts[i]->ops[j];
            ops[j] = cat(ctx, n, col, depth + 1);
            if (!ops[j]) return NULL;
            /* it simplified: not the concat of the column as it was (a concat that was
               already there, a load in pieces, is a vector like any other) */
            bool same_col = ops[j]->op == TINE_OP_CONCAT && ops[j]->nops == n;
            for (int i = 0; i < n && same_col; i++) same_col = ops[j]->ops[i] == col[i];
            joined &= !same_col || one_source(ops[j]);
        }
        if (joined && n <= 256) {
            const tine_expr_t *p = parts[0];
            tine_type_t et = tine_type_with_lanes(p->type, 1);
            switch (p->op) {
            case TINE_OP_NEG: case TINE_OP_NOT: return tine_unary(ctx, (tine_op_t)p->op, ops[0]);
            case TINE_OP_SELECT: return tine_select(ctx, ops[0], ops[1], ops[2]);
            case TINE_OP_CAST: return tine_cast(ctx, et, ops[0]);
            case TINE_OP_REINTERPRET: return tine_reinterpret(ctx, et, ops[0]);
            default: return tine_binary(ctx, (tine_op_t)p->op, ops[0], ops[1]);
            }
        }
    }
    return tine_concat(ctx, n, parts);
}

tine_expr_t *tine_retarget_rewrite(tine_ctx_t *ctx, tine_expr_t *root, rt_rewrite_fn fn, void *user) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    tine_u64map memo = {0};
    tine_expr_t *result = root;
    for (uint32_t k = 0; k < n; k++) {
        tine_expr_t *e = order[k], *ops[256];
        bool changed = false;
        for (int i = 0; i < e->nops; i++) {
            uint64_t v;
            ops[i] = tine_u64map_get(&memo, e->ops[i]->id, &v) ? (tine_expr_t *)(uintptr_t)v : e->ops[i];
            changed |= ops[i] != e->ops[i];
        }
        tine_expr_t *r = changed ? tine_rebuild(ctx, e, ops) : e;
        if (r) r = fn(ctx, e, r, ops, user);
        if (!r) {
            result = NULL;
            break;
        }
        tine_u64map_put(&memo, e->id, (uint64_t)(uintptr_t)r);
        if (k + 1 == n) result = r;
    }
    free(order);
    tine_u64map_free(&memo);
    return result;
}

static bool zero(const tine_expr_t *e) {
    return e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM) && tine_const_value(e, 0) == 0;
}

/* Lanes interleaved with zeros and read as lanes twice as wide (x86's _mm_unpacklo_epi8(x,
 * zero), little-endian): x zero-extended, or shifted up by its bits when the zeros come
 * first. */
/* The lanes of concat(x0, z, x1, z, …) (single lanes, as x86's imported semantics build
 * an unpack): x's lanes in a row, as interleave(x, z) would have them; NULL if not. */
static tine_expr_t *pairs(tine_ctx_t *ctx, const tine_expr_t *c, int first, const tine_expr_t **z) {
    int n = c->nops / 2, b0 = 0;
    const tine_expr_t *src = NULL;
    for (int i = 0; i < n; i++) {
        const tine_expr_t *p = c->ops[2 * i + first], *q = c->ops[2 * i + 1 - first];
        int b, st, cnt;
        if (p->op != TINE_OP_SLICE || p->type.lanes != 1 || q->type.lanes != 1 || (i && p->ops[0] != src)) return NULL;
        tine_slice_params(p, &b, &st, &cnt);
        if (!i) src = p->ops[0], b0 = b;
        else if (b != b0 + i) return NULL;
        if (!zero(q)) return NULL;
        *z = q;
    }
    return src ? tine_slice(ctx, (tine_expr_t *)src, b0, 1, n) : NULL;
}

static tine_expr_t *unpacked(tine_ctx_t *ctx, tine_expr_t *r) {
    if (r->op != TINE_OP_REINTERPRET) return r;
    const tine_expr_t *il = r->ops[0];
    tine_expr_t *x = NULL, *z = NULL;
    bool high = false;
    if (il->op == TINE_OP_INTERLEAVE && il->nops == 2) {
        x = il->ops[0], z = il->ops[1];
        high = zero(x);
        if (high) x = il->ops[1], z = il->ops[0];
    } else if (il->op == TINE_OP_CONCAT && il->nops % 2 == 0 && il->nops >= 2) {
        const tine_expr_t *zz = NULL;
        if ((x = pairs(ctx, il, 0, &zz))) z = (tine_expr_t *)zz;
        else if ((x = pairs(ctx, il, 1, &zz))) z = (tine_expr_t *)zz, high = true;
        else tine_clear_error(ctx);
    }
    if (!x || !z) return r;
    int b = x->type.bits;
    if (!zero(z) || r->type.bits != 2 * b || r->type.lanes != x->type.lanes || b > 32 || !tine_type_is_int(x->type)) return r;
    tine_type_t ub = {.kind = TINE_UINT, .bits = b, .lanes = 1}, u2b = {.kind = TINE_UINT, .bits = 2 * b, .lanes = 1};
    tine_expr_t *w = tine_cast(ctx, u2b, tine_reinterpret(ctx, ub, x));
    if (w && high) w = tine_binary(ctx, TINE_OP_SHL, w, tine_const_int(ctx, w->type, b));
    w = w ? tine_reinterpret(ctx, tine_type_with_lanes(r->type, 1), w) : NULL;
    if (!w) tine_clear_error(ctx);
    return w ? w : r;
}

/* The low bits of a wrapping op on extended values are the op on the values: i16(i32(a) -
 * i32(b)) is a - b in 16 bits (x86's imported semantics compute at a wider type). */
static tine_expr_t *narrowed(tine_ctx_t *ctx, tine_expr_t *r) {
    if (r->op != TINE_OP_CAST || !tine_type_is_int(r->type)) return r;
    const tine_expr_t *w = r->ops[0];
    int b = r->type.bits;
    switch (w->op) {
    case TINE_OP_ADD: case TINE_OP_SUB: case TINE_OP_MUL: case TINE_OP_AND: case TINE_OP_OR: case TINE_OP_XOR: break;
    default: return r;
    }
    if (w->type.bits <= b) return r;
    tine_expr_t *v[2];
    tine_type_t t = tine_type_with_lanes(r->type, 1);
    for (int i = 0; i < 2; i++) {
        const tine_expr_t *x = w->ops[i];
        if (x->op != TINE_OP_CAST || x->ops[0]->type.bits != b || !tine_type_is_int(x->ops[0]->type)) return r;
        v[i] = tine_reinterpret(ctx, t, x->ops[0]);
    }
    tine_expr_t *n = v[0] && v[1] ? tine_binary(ctx, (tine_op_t)w->op, v[0], v[1]) : NULL;
    if (!n) tine_clear_error(ctx);
    return n ? n : r;
}

/* Every other lane of lanes twice as wide, read as halves (vuzp2q_u16 of u32 products:
 * their high halves, little-endian): the wide lanes shifted down and truncated. */
static tine_expr_t *halves_of(tine_ctx_t *ctx, tine_expr_t *r) {
    if (r->op != TINE_OP_DEINTERLEAVE || (r->imm & 1023) != 2 || r->ops[0]->op != TINE_OP_REINTERPRET) return r;
    const tine_expr_t *bc = r->ops[0];
    tine_expr_t *x = bc->ops[0];
    int b = r->type.bits, k = (int)(r->imm >> 10);
    if (x->type.bits != 2 * b || x->type.lanes * 2 != bc->type.lanes || !tine_type_is_int(x->type) || !tine_type_is_int(r->type))
        return r;
    tine_type_t ux = tine_type_with_kind(tine_type_with_lanes(x->type, 1), TINE_UINT);
    tine_expr_t *w = tine_reinterpret(ctx, ux, x);
    if (w && k) w = tine_binary(ctx, TINE_OP_SHR, w, tine_const_int(ctx, w->type, b));
    if (w) w = tine_cast(ctx, tine_type_with_kind(tine_type_with_lanes(r->type, 1), TINE_UINT), w);
    if (w) w = tine_reinterpret(ctx, tine_type_with_lanes(r->type, 1), w);
    if (!w) tine_clear_error(ctx);
    return w ? w : r;
}

static tine_expr_t *join_node(tine_ctx_t *ctx, const tine_expr_t *e, tine_expr_t *rebuilt, tine_expr_t *const *ops, void *user) {
    (void)user;
    return e->op == TINE_OP_CONCAT ? cat(ctx, e->nops, ops, 0) : halves_of(ctx, narrowed(ctx, unpacked(ctx, rebuilt)));
}

tine_expr_t *tine_retarget_join(tine_ctx_t *ctx, tine_expr_t *root) { return tine_retarget_rewrite(ctx, root, join_node, NULL); }
