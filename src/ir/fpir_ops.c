/* fpir_ops.c — FPIR ops as the IR core knows them (their table is ops.c): their
 * signatures and the node constructor.
 *
 * These are facts of the expression language, like the primitive ops: the parser, the
 * elaborator and the printer need them. What an op means — its definition, parsed and
 * instantiated into templates — is the semantics layer's (src/fpir/fpir.c), which the
 * core reaches through ctx->sem: the constructor asks it whether the definition applies
 * to the operands' types, the interpreter and printer what a node means.
 */
#include "../internal.h"

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
    const tine_expr_t *const *ph;
    const char *why = NULL;
    if (ctx->sem.fpir_template && !ctx->sem.fpir_template(ctx, op, n, t, rt, &ph, &why)) {
        char b[32];
        tine_set_error(ctx, "%s is not defined on %s operands (its definition fails there: %s)", tine_op_name(op),
                       tstr(tine_type_with_lanes(t[0], 1), b), why);
        return NULL;
    }
    return tine_make(ctx, op, rt, n, args, 0, 0, NULL, 0);
}

/* abs: the FPIR op on integers; a float's sign bit cleared (beside the FPIR constructor it
 * calls: the primitive ops' file does not reach up to FPIR). */
tine_expr_t *tine_abs(tine_ctx_t *ctx, tine_expr_t *a) {
    if (!a) return NULL;
    if (a->type.kind != TINE_FLOAT) return tine_fpir(ctx, TINE_OP_ABS, 1, &a, a->type);
    tine_type_t u = tine_type(TINE_UINT, a->type.bits, a->type.lanes);
    tine_expr_t *mask = tine_const_uint(ctx, u, ~(uint64_t)0 >> (65 - a->type.bits));
    return tine_reinterpret(ctx, a->type, tine_binary(ctx, TINE_OP_AND, tine_reinterpret(ctx, u, a), mask));
}

/* ---- the meaning of non-primitive nodes ------------------------------------------- */

const tine_expr_t *tine_node_template(tine_ctx_t *ctx, const tine_expr_t *e, const tine_expr_t *const **ph,
                                      bool expanded) {
    if (e->op == TINE_OP_INSN) return ctx->sem.insn_template(ctx, e, ph, expanded);
    TINE_ASSERT(tine_op_is_fpir((tine_op_t)e->op));
    tine_type_t t[3];
    for (int i = 0; i < e->nops; i++) t[i] = e->ops[i]->type;
    return ctx->sem.fpir_template(ctx, (tine_op_t)e->op, e->nops, t, e->type, ph, NULL);
}

const char *tine_insn_name(tine_ctx_t *ctx, uint32_t code) { return ctx->sem.insn_name(ctx, code); }
