/* print.c — IR to the text tine_parse reads.
 *
 * The printer follows the elaborator's rules in reverse: a constant is printed bare
 * only where a bare literal would get exactly its type back (beside an operand of its
 * type, or in an FPIR operand position whose literal type matches); elsewhere it is
 * written typed, as u8(3). Leaves carry an explicit lane count (a_u8x32) only where it
 * differs from the lanes of their position, as the parser assumes.
 */
#include "ast.h"

#include <math.h>

typedef struct {
    tine_ctx_t *ctx;
    tine_buf b;
    bool bare; /* variables by their names alone (their types are declared elsewhere) */
} printer;

static void put_i128(tine_buf *b, tine_i128 v) {
    char s[48];
    tine_buf_puts(b, tine_i128_str(v, s));
}

static void put_number(tine_buf *b, tine_type_t t, tine_u128 v) {
    if (t.kind == TINE_FLOAT) {
        double d;
        char s[64];
        if (t.bits == 32) {
            uint32_t w = (uint32_t)v;
            float f;
            memcpy(&f, &w, 4);
            d = f;
            snprintf(s, sizeof s, "%.9g", d);
        } else {
            uint64_t w = (uint64_t)v;
            memcpy(&d, &w, 8);
            snprintf(s, sizeof s, "%.17g", d);
        }
        if (isnan(d)) snprintf(s, sizeof s, signbit(d) ? "-nan" : "nan"); /* "-nan" reads back with the sign bit */
        else if (isinf(d)) snprintf(s, sizeof s, d < 0 ? "-inf" : "inf");
        else if (!strpbrk(s, ".e")) strcat(s, ".0");
        tine_buf_puts(b, s);
        return;
    }
    if (t.kind == TINE_UINT) {
        tine_u128 u = v;
        if (t.bits >= 128 && (tine_i128)u < 0) { /* beyond a literal; never made by tine */
            tine_buf_puts(b, "0x");
            char h[40];
            int n = 0;
            do {
                h[n++] = "0123456789abcdef"[(int)(u & 15)];
                u >>= 4;
            } while (u);
            while (n) tine_buf_putc(b, h[--n]);
            return;
        }
    }
    put_i128(b, (tine_i128)v);
}

static bool uniform_const(const tine_expr_t *e) {
    return e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM) && e->type.kind != TINE_BOOL;
}

static void print_expr(printer *p, const tine_expr_t *e, int lanes);

/* A constant written as a typed literal at the current lanes. */
static void print_typed_const(printer *p, const tine_expr_t *e, int lanes) {
    char tn[16];
    tine_type_t t = e->type;
    if (!(e->flags & TINE_F_UNIFORM)) {
        tine_buf_printf(&p->b, "%s[", tine_type_name(t, tn));
        for (int i = 0; i < t.lanes; i++) {
            if (i) tine_buf_puts(&p->b, ", ");
            put_number(&p->b, t, tine_const_value(e, i));
        }
        tine_buf_putc(&p->b, ']');
        return;
    }
    if (t.lanes != lanes) tine_buf_printf(&p->b, "x%d(", t.lanes);
    if (t.kind == TINE_BOOL) {
        tine_buf_puts(&p->b, tine_const_value(e, 0) ? "true" : "false");
    } else {
        tine_buf_printf(&p->b, "%s(", tine_type_name(t, tn));
        put_number(&p->b, t, tine_const_value(e, 0));
        tine_buf_putc(&p->b, ')');
    }
    if (t.lanes != lanes) tine_buf_putc(&p->b, ')');
}

/* Operand o printed bare if a bare literal there would get type `want`. */
static void print_operand(printer *p, const tine_expr_t *o, bool may_be_bare, tine_type_t want, int lanes) {
    if (may_be_bare && uniform_const(o) && tine_type_eq(o->type, want)) {
        put_number(&p->b, o->type, tine_const_value(o, 0));
        return;
    }
    print_expr(p, o, lanes);
}

static bool is_infix(const tine_expr_t *e) { return e->nops == 2 && tine_binop_prec((tine_op_t)e->op) > 0; }

/* Infix operand with parentheses where precedence needs them. */
static void print_infix_operand(printer *p, const tine_expr_t *o, int prec, bool right, bool bare,
                                tine_type_t want, int lanes) {
    bool paren = is_infix(o) && (tine_binop_prec((tine_op_t)o->op) < prec ||
                                 (right && tine_binop_prec((tine_op_t)o->op) == prec));
    if (paren) tine_buf_putc(&p->b, '(');
    print_operand(p, o, bare, want, lanes);
    if (paren) tine_buf_putc(&p->b, ')');
}

/* Two operands where a bare literal takes its sibling's type: at most one is bare. */
static void pair_bare(const tine_expr_t *a, const tine_expr_t *b, bool *ba, bool *bb) {
    *ba = uniform_const(a) && !uniform_const(b) && tine_type_eq(a->type, b->type);
    *bb = uniform_const(b) && !*ba && tine_type_eq(a->type, b->type);
}

static void print_expr(printer *p, const tine_expr_t *e, int lanes) {
    tine_buf *b = &p->b;
    char tn[16];
    tine_op_t op = (tine_op_t)e->op;
    bool ba, bb;
    switch (op) {
    case TINE_OP_CONST: print_typed_const(p, e, lanes); return;
    case TINE_OP_VAR:
        if (p->bare) {
            tine_buf_puts(b, tine_expr_name(e));
            return;
        }
        tine_buf_printf(b, "%s_%s", tine_expr_name(e), tine_type_name(e->type, tn));
        if (e->type.lanes != lanes) tine_buf_printf(b, "x%d", e->type.lanes);
        return;
    case TINE_OP_LOAD:
        tine_buf_printf(b, "%s_%s[", tine_expr_name(e), tine_type_name(e->type, tn));
        print_operand(p, e->ops[0], e->ops[0]->type.lanes == lanes, tine_type(TINE_INT, 32, lanes), lanes);
        tine_buf_putc(b, ']');
        return;
    case TINE_OP_NEG:
    case TINE_OP_NOT:
        tine_buf_puts(b, tine_op_token(op));
        if (is_infix(e->ops[0])) tine_buf_putc(b, '(');
        print_expr(p, e->ops[0], lanes);
        if (is_infix(e->ops[0])) tine_buf_putc(b, ')');
        return;
    case TINE_OP_MIN:
    case TINE_OP_MAX:
        pair_bare(e->ops[0], e->ops[1], &ba, &bb);
        tine_buf_printf(b, "%s(", tine_op_name(op));
        print_operand(p, e->ops[0], ba, e->ops[1]->type, lanes);
        tine_buf_puts(b, ", ");
        print_operand(p, e->ops[1], bb, e->ops[0]->type, lanes);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_SELECT:
        pair_bare(e->ops[1], e->ops[2], &ba, &bb);
        tine_buf_puts(b, "select(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_puts(b, ", ");
        print_operand(p, e->ops[1], ba, e->ops[2]->type, lanes);
        tine_buf_puts(b, ", ");
        print_operand(p, e->ops[2], bb, e->ops[1]->type, lanes);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_CAST:
        tine_buf_printf(b, "%s(", tine_type_name(e->type, tn));
        print_expr(p, e->ops[0], lanes);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_REINTERPRET:
        /* to other lane sizes: the lanes in the type (u16x8, u64x1), the operand at this
           position's lanes, as the elaborator reads it back */
        tine_buf_printf(b, "reinterpret<%s", tine_type_name(e->type, tn));
        if (e->type.lanes != e->ops[0]->type.lanes) tine_buf_printf(b, "x%d", e->type.lanes);
        tine_buf_puts(b, ">(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_SQRT:
        tine_buf_puts(b, "sqrt(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_FMA:
        tine_buf_puts(b, "fma(");
        for (int i = 0; i < 3; i++) {
            if (i) tine_buf_puts(b, ", ");
            print_expr(p, e->ops[i], lanes);
        }
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_BROADCAST:
        if (e->type.lanes == lanes) tine_buf_puts(b, "x(");
        else tine_buf_printf(b, "x%d(", e->type.lanes);
        print_expr(p, e->ops[0], 1);
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_RAMP: {
        const tine_expr_t *base = e->ops[0], *st = e->ops[1];
        bool both = uniform_const(base) && uniform_const(st);
        tine_buf_puts(b, "ramp(");
        if (both && base->type.kind == TINE_INT && base->type.bits == 32) {
            put_number(b, base->type, tine_const_value(base, 0));
            tine_buf_puts(b, ", ");
            put_number(b, st->type, tine_const_value(st, 0));
        } else {
            pair_bare(base, st, &ba, &bb);
            print_operand(p, base, ba, st->type, 1);
            tine_buf_puts(b, ", ");
            print_operand(p, st, bb, base->type, 1);
        }
        tine_buf_printf(b, ", %d)", e->type.lanes);
        return;
    }
    case TINE_OP_CONCAT:
    case TINE_OP_INTERLEAVE:
        tine_buf_printf(b, "%s(", tine_op_name(op));
        for (int i = 0; i < e->nops; i++) {
            if (i) tine_buf_puts(b, ", ");
            print_expr(p, e->ops[i], lanes);
        }
        tine_buf_putc(b, ')');
        return;
    case TINE_OP_SLICE: {
        int begin, stride, count;
        tine_slice_params(e, &begin, &stride, &count);
        tine_buf_puts(b, "slice(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_printf(b, ", %d, %d, %d)", begin, stride, count);
        return;
    }
    case TINE_OP_DEINTERLEAVE: {
        int n, k;
        tine_deinterleave_params(e, &n, &k);
        tine_buf_puts(b, "deinterleave(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_printf(b, ", %d, %d)", n, k);
        return;
    }
    case TINE_OP_INSN: {
        tine_buf_printf(b, "%s(", tine_insn_name(p->ctx, e->imm));
        for (int i = 0; i < e->nops; i++) {
            if (i) tine_buf_puts(b, ", ");
            print_operand(p, e->ops[i], i > 0, e->ops[i]->type, lanes);
        }
        tine_buf_putc(b, ')');
        return;
    }
    case TINE_OP_VECTOR_REDUCE_ADD:
        tine_buf_puts(b, "vector_reduce_add(");
        print_expr(p, e->ops[0], lanes);
        tine_buf_printf(b, ", %d)", e->type.lanes);
        return;
    default: break;
    }
    if (tine_op_is_fpir(op)) {
        if (op == TINE_OP_SATURATING_CAST) tine_buf_printf(b, "saturating_cast<%s>(", tine_type_name(e->type, tn));
        else tine_buf_printf(b, "%s(", tine_op_name(op));
        for (int i = 0; i < e->nops; i++) {
            if (i) tine_buf_puts(b, ", ");
            tine_type_t want = tine_fpir_literal_type(op, i, e->ops[0]->type);
            print_operand(p, e->ops[i], i > 0, want, lanes);
        }
        tine_buf_putc(b, ')');
        return;
    }
    TINE_ASSERT(is_infix(e));
    /* A left-deep chain (a + b + c + ...) can be as long as the input, so its left spine
     * (the left operands printed without parentheses) is walked in a loop, not by
     * recursion: spine[0] is e, spine[n - 1] the innermost. */
    size_t n = 0, cap = 16;
    const tine_expr_t **spine = tine_xmalloc(cap * sizeof *spine);
    for (const tine_expr_t *x = e;; x = x->ops[0]) {
        TINE_PUSH(spine, n, cap, x);
        const tine_expr_t *l = x->ops[0];
        if (!is_infix(l) || tine_binop_prec((tine_op_t)l->op) < tine_binop_prec((tine_op_t)x->op)) break;
    }
    for (size_t i = n; i-- > 0;) {
        const tine_expr_t *x = spine[i];
        int prec = tine_binop_prec((tine_op_t)x->op);
        pair_bare(x->ops[0], x->ops[1], &ba, &bb);
        /* shifts: the amount may differ in signedness; a bare literal takes the other's type */
        if (i == n - 1) print_infix_operand(p, x->ops[0], prec, false, ba, x->ops[1]->type, lanes);
        tine_buf_printf(b, " %s ", tine_op_token((tine_op_t)x->op));
        print_infix_operand(p, x->ops[1], prec, true, bb, x->ops[0]->type, lanes);
    }
    free(spine);
}

char *tine_print(tine_ctx_t *ctx, const tine_expr_t *e) {
    printer p = {.ctx = ctx};
    if (!e) {
        tine_buf_puts(&p.b, "(null)");
        return p.b.p;
    }
    print_expr(&p, e, ctx->lanes);
    if (!p.b.p) tine_buf_puts(&p.b, "");
    return p.b.p;
}

void tine_print_buf(tine_ctx_t *ctx, const tine_expr_t *e, int lanes, tine_buf *b) {
    tine_print_named(ctx, e, lanes, false, b);
}

void tine_print_named(tine_ctx_t *ctx, const tine_expr_t *e, int lanes, bool bare, tine_buf *b) {
    printer p = {.ctx = ctx, .b = *b, .bare = bare};
    if (e) print_expr(&p, e, lanes);
    else tine_buf_puts(&p.b, "(null)");
    *b = p.b;
}
