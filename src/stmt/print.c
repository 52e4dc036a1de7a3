/* print.c — statements as text, in the manner of Halide's .stmt listings.
 *
 * One statement per line, nested bodies indented by two spaces and closed by a `}` line.
 * Expressions are printed by tine's expression printer (one line, the syntax tine_parse
 * reads) at their own lanes, so a scalar reads `$.c0_i32` and a vector's leaves carry no
 * lane count unless they differ from it. The text is deterministic: golden tests and the
 * per-pass dumps compare it.
 *
 *   for.vectorized<8> out.x ($.c0_i32) in [$out$min0_i32, $out$min0_i32 + 64) {
 *     out[ramp($.c0_i32, 1, 8)] = ...
 *   }
 */
#include "stmt.h"

typedef struct {
    tine_ctx_t *ctx;
    tine_buf b;
} sprinter;

static void indent(sprinter *p, int depth) {
    for (int i = 0; i < depth; i++) tine_buf_puts(&p->b, "  ");
}

/* An expression at its own lanes. A uniform i32 constant, the type of every index, bound
 * and size, is written bare where the expression printer would write i32(3) (at the root
 * a literal's type is not implied by a neighbour). */
static void expr(sprinter *p, const tine_expr_t *e) {
    if (e && e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM) && e->type.kind == TINE_INT && e->type.bits == 32) {
        char s[48];
        tine_buf_puts(&p->b, tine_i128_str((tine_i128)tine_const_value(e, 0), s));
        return;
    }
    tine_print_buf(p->ctx, e, e ? e->type.lanes : 1, &p->b);
}

/* The extent after "MIN + ": parenthesized unless it binds tighter than `+` (a leaf, a
 * call, a product), so the bound reads as the sum it is. */
static void extent_operand(sprinter *p, const tine_expr_t *e) {
    bool bare = e->nops == 0 || !(e->op == TINE_OP_ADD || e->op == TINE_OP_SUB || e->op == TINE_OP_SHL ||
                                  e->op == TINE_OP_SHR || e->op == TINE_OP_AND || e->op == TINE_OP_OR ||
                                  e->op == TINE_OP_XOR);
    if (!bare) tine_buf_putc(&p->b, '(');
    expr(p, e);
    if (!bare) tine_buf_putc(&p->b, ')');
}

static void quoted(sprinter *p, const char *s) {
    tine_buf_putc(&p->b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') tine_buf_printf(&p->b, "\\%c", c);
        else if (c == '\n') tine_buf_puts(&p->b, "\\n");
        else if (c < 0x20 || c == 0x7f) tine_buf_printf(&p->b, "\\x%02x", c);
        else tine_buf_putc(&p->b, (char)c);
    }
    tine_buf_putc(&p->b, '"');
}

static void stmt(sprinter *p, const tine_stmt *s, int depth);

/* " {", the body one level deeper, and the closing brace on its own line. */
static void body(sprinter *p, const tine_stmt *s, int depth) {
    tine_buf_puts(&p->b, " {\n");
    stmt(p, s, depth + 1);
    indent(p, depth);
    tine_buf_putc(&p->b, '}');
}

static const char *loop_kind(tine_loop_kind k) {
    switch (k) {
    case TINE_LOOP_SERIAL: return "for";
    case TINE_LOOP_VECTORIZED: return "for.vectorized";
    case TINE_LOOP_UNROLLED: return "for.unrolled";
    case TINE_LOOP_PARALLEL: return "for.parallel";
    }
    return "for.?";
}

static void stmt(sprinter *p, const tine_stmt *s, int depth) {
    if (!s) return;
    char tn[16];
    if (s->kind == TINE_S_BLOCK) { /* a block nested in a body reads as its statements */
        for (int i = 0; i < s->block.n; i++) stmt(p, s->block.v[i], depth);
        return;
    }
    indent(p, depth);
    switch (s->kind) {
    case TINE_S_FOR:
        tine_buf_puts(&p->b, loop_kind(s->loop.loop));
        if (s->loop.loop == TINE_LOOP_VECTORIZED) tine_buf_printf(&p->b, "<%d>", s->loop.step);
        else if (s->loop.step != 1) tine_buf_printf(&p->b, "<step %d>", s->loop.step);
        tine_buf_putc(&p->b, ' ');
        if (s->loop.name) {
            tine_buf_printf(&p->b, "%s (", s->loop.name);
            expr(p, s->loop.var);
            tine_buf_putc(&p->b, ')');
        } else {
            expr(p, s->loop.var);
        }
        tine_buf_puts(&p->b, " in [");
        expr(p, s->loop.min);
        tine_buf_puts(&p->b, ", ");
        if (!(s->loop.min->op == TINE_OP_CONST && tine_const_value(s->loop.min, 0) == 0)) {
            expr(p, s->loop.min);
            tine_buf_puts(&p->b, " + ");
            extent_operand(p, s->loop.extent);
        } else {
            expr(p, s->loop.extent);
        }
        tine_buf_putc(&p->b, ')');
        if (s->loop.partition == TINE_PARTITION_ALWAYS) tine_buf_puts(&p->b, " partition always");
        else if (s->loop.partition == TINE_PARTITION_NEVER) tine_buf_puts(&p->b, " partition never");
        body(p, s->loop.body, depth);
        break;
    case TINE_S_LET:
        tine_buf_puts(&p->b, "let ");
        expr(p, s->let.var);
        tine_buf_puts(&p->b, " = ");
        expr(p, s->let.value);
        body(p, s->let.body, depth);
        break;
    case TINE_S_STORE:
        tine_buf_printf(&p->b, "%s[", s->store.buffer);
        expr(p, s->store.index);
        tine_buf_puts(&p->b, "] = ");
        expr(p, s->store.value);
        break;
    case TINE_S_ALLOCATE:
        tine_buf_printf(&p->b, "allocate %s: %s[", s->alloc.buffer, tine_type_name(s->alloc.type, tn));
        expr(p, s->alloc.size);
        tine_buf_putc(&p->b, ']');
        body(p, s->alloc.body, depth);
        break;
    case TINE_S_FREE: tine_buf_printf(&p->b, "free %s", s->free_.buffer); break;
    case TINE_S_IF:
        tine_buf_puts(&p->b, "if (");
        expr(p, s->if_.cond);
        tine_buf_putc(&p->b, ')');
        body(p, s->if_.then_, depth);
        if (s->if_.else_) {
            tine_buf_puts(&p->b, " else");
            body(p, s->if_.else_, depth);
        }
        break;
    case TINE_S_ASSERT:
        tine_buf_puts(&p->b, "assert(");
        expr(p, s->assert_.cond);
        tine_buf_printf(&p->b, ", %d, ", s->assert_.code);
        quoted(p, s->assert_.message ? s->assert_.message : "");
        tine_buf_putc(&p->b, ')');
        break;
    case TINE_S_EVALUATE:
        tine_buf_puts(&p->b, "evaluate(");
        expr(p, s->eval.value);
        tine_buf_putc(&p->b, ')');
        break;
    case TINE_S_BLOCK: break; /* above */
    default: tine_buf_printf(&p->b, "<statement kind %d>", (int)s->kind); break;
    }
    tine_buf_putc(&p->b, '\n');
}

char *tine_stmt_print(tine_ctx_t *ctx, const tine_stmt *s) {
    sprinter p = {.ctx = ctx};
    stmt(&p, s, 0);
    if (!p.b.p) tine_buf_puts(&p.b, "");
    return p.b.p;
}
