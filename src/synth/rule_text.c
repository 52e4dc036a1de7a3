/* rule_text.c — a synthesized pair (what the lifter makes of an expression, and the cheaper
 * FPIR found equal to it) written as a rule of lift.rules' language, generalised as far as
 * the level asks: the types as type expressions of T, and the constants as the wildcards
 * c0..c2 with predicates (a shift count ranges over the shifted type; a rounding term is
 * 1 << (count - 1); T's limits are named). Whether the generalisation holds is not decided
 * here: the caller proves each instantiation and steps down a level when one fails.
 */
#include "synth.h"

enum { MAX_VARS = 3, MAX_CONSTS = 3 };

typedef struct {
    tine_buf *b;
    tine_type_t base; /* what T is in the example */
    tine_synth_gen g;
    const tine_expr_t *vars[MAX_VARS];
    bool declared[MAX_VARS];
    int nvars;
    const tine_expr_t *consts[MAX_CONSTS];
    tine_type_t shifted[MAX_CONSTS]; /* a shift count: the type it shifts; else bits 0 */
    int nconsts;
    bool ok;
} printer;

static bool splat(const tine_expr_t *e) {
    for (int i = 1; i < e->type.lanes; i++)
        if (tine_expr_const_lane(e, i) != tine_expr_const_lane(e, 0)) return false;
    return true;
}

static tine_i128 const_val(const tine_expr_t *e) {
    uint64_t v = tine_expr_const_lane(e, 0);
    return e->type.kind == TINE_INT ? (tine_i128)(int64_t)v : (tine_i128)v;
}

/* t as a type expression of T (t is T widened k times, signedness maybe changed). */
static bool type_expr(const printer *p, tine_type_t t, char *out, size_t n) {
    if (!tine_type_is_int(t) || !tine_type_is_int(p->base)) return false;
    int k = 0;
    for (int bits = p->base.bits; bits < t.bits; bits *= 2) k++;
    if ((p->base.bits << k) != t.bits) return false;
    static const char *const open[] = {"", "widen(", "widen(widen(", "widen(widen(widen("};
    static const char *const close[] = {"", ")", "))", ")))"};
    if (k > 3) return false;
    if (t.kind != p->base.kind)
        snprintf(out, n, "%s(%sT%s)", t.kind == TINE_INT ? "signed" : "unsigned", open[k], close[k]);
    else snprintf(out, n, "%sT%s", open[k], close[k]);
    return true;
}

static void put_type(printer *p, tine_type_t t) {
    char s[128];
    if (!type_expr(p, t, s, sizeof s)) {
        p->ok = false;
        return;
    }
    tine_buf_puts(p->b, s);
}

static bool shift_op(int op) {
    return op == TINE_OP_SHL || op == TINE_OP_SHR || op == TINE_OP_ROUNDING_SHR || op == TINE_OP_ROUNDING_SHL ||
           op == TINE_OP_WIDENING_SHL || op == TINE_OP_WIDENING_SHR || op == TINE_OP_SATURATING_SHL;
}

/* The left side's constants and variables in print order, and which are shift counts. */
static void collect(printer *p, const tine_expr_t *e) {
    if (e->op == TINE_OP_CONST) {
        for (int i = 0; i < p->nconsts; i++)
            if (p->consts[i] == e) return;
        if (p->nconsts == MAX_CONSTS || !splat(e)) {
            p->ok = false;
            return;
        }
        p->shifted[p->nconsts].bits = 0;
        p->consts[p->nconsts++] = e;
        return;
    }
    if (e->op == TINE_OP_VAR) {
        for (int i = 0; i < p->nvars; i++)
            if (p->vars[i] == e) return;
        if (p->nvars == MAX_VARS) p->ok = false;
        else p->vars[p->nvars++] = e;
        return;
    }
    for (int i = 0; i < e->nops; i++) collect(p, e->ops[i]);
    int count = shift_op(e->op) ? 1 : e->op == TINE_OP_MUL_SHR || e->op == TINE_OP_ROUNDING_MUL_SHR ? 2 : -1;
    if (count > 0 && e->ops[count]->op == TINE_OP_CONST)
        for (int i = 0; i < p->nconsts; i++)
            if (p->consts[i] == e->ops[count]) p->shifted[i] = e->ops[0]->type;
}

static int const_index(const printer *p, const tine_expr_t *e) {
    for (int i = 0; i < p->nconsts; i++)
        if (p->consts[i] == e) return i;
    return -1;
}

/* A shift count c_s whose rounding term 1 << (c_s - 1) is v, or -1. */
static int rounding_of(const printer *p, tine_i128 v) {
    for (int s = 0; s < p->nconsts; s++) {
        tine_i128 c = const_val(p->consts[s]);
        if (p->shifted[s].bits && c >= 1 && c < 64 && v == (tine_i128)1 << (c - 1)) return s;
    }
    return -1;
}

static const char *infix(int op) {
    switch (op) {
    case TINE_OP_ADD: return "+";
    case TINE_OP_SUB: return "-";
    case TINE_OP_MUL: return "*";
    case TINE_OP_DIV: return "/";
    case TINE_OP_MOD: return "%";
    case TINE_OP_AND: return "&";
    case TINE_OP_OR: return "|";
    case TINE_OP_XOR: return "^";
    case TINE_OP_SHL: return "<<";
    case TINE_OP_SHR: return ">>";
    case TINE_OP_EQ: return "==";
    case TINE_OP_NE: return "!=";
    case TINE_OP_LT: return "<";
    case TINE_OP_LE: return "<=";
    case TINE_OP_GT: return ">";
    case TINE_OP_GE: return ">=";
    default: return NULL;
    }
}

static void put_rhs_const(printer *p, const tine_expr_t *e) {
    tine_i128 v = const_val(e);
    char num[48];
    for (int i = 0; i < p->nconsts; i++)
        if (const_val(p->consts[i]) == v) {
            tine_buf_printf(p->b, "c%d", i);
            return;
        }
    int s = p->g == SYNTH_GEN_EXACT ? -1 : rounding_of(p, v);
    if (s >= 0) {
        tine_buf_printf(p->b, "(1 << (c%d - 1))", s);
        return;
    }
    if (!splat(e)) p->ok = false;
    tine_buf_puts(p->b, tine_i128_str(v, num));
}

static void put(printer *p, const tine_expr_t *e, bool lhs) {
    if (!p->ok) return;
    const char *op = infix(e->op);
    switch (e->op) {
    case TINE_OP_VAR:
        for (int i = 0; i < p->nvars; i++)
            if (p->vars[i] == e) {
                tine_buf_putc(p->b, "xyz"[i]);
                if (lhs && !p->declared[i]) {
                    p->declared[i] = true;
                    tine_buf_putc(p->b, ':');
                    put_type(p, e->type);
                }
                return;
            }
        p->ok = false; /* a variable the left side does not bind */
        return;
    case TINE_OP_CONST:
        if (lhs) tine_buf_printf(p->b, "c%d", const_index(p, e));
        else put_rhs_const(p, e);
        return;
    case TINE_OP_CAST:
    case TINE_OP_REINTERPRET:
        /* a rule's types have no lanes: a reinterpret to lanes of other bits is no rule */
        if (e->type.lanes != e->ops[0]->type.lanes) {
            p->ok = false;
            return;
        }
        tine_buf_puts(p->b, e->op == TINE_OP_CAST ? "cast<" : "reinterpret<");
        put_type(p, e->type);
        tine_buf_puts(p->b, ">(");
        put(p, e->ops[0], lhs);
        tine_buf_putc(p->b, ')');
        return;
    case TINE_OP_NEG:
    case TINE_OP_NOT:
        tine_buf_puts(p->b, e->op == TINE_OP_NEG ? "(-" : "(~");
        put(p, e->ops[0], lhs);
        tine_buf_putc(p->b, ')');
        return;
    default: break;
    }
    if (op) {
        tine_buf_putc(p->b, '(');
        put(p, e->ops[0], lhs);
        tine_buf_printf(p->b, " %s ", op);
        put(p, e->ops[1], lhs);
        tine_buf_putc(p->b, ')');
        return;
    }
    if (e->op != TINE_OP_MIN && e->op != TINE_OP_MAX && e->op != TINE_OP_SELECT && !tine_op_is_fpir(e->op)) {
        p->ok = false;
        return;
    }
    tine_buf_puts(p->b, tine_op_name(e->op));
    if (e->op == TINE_OP_SATURATING_CAST) {
        tine_buf_putc(p->b, '<');
        put_type(p, e->type);
        tine_buf_putc(p->b, '>');
    }
    tine_buf_putc(p->b, '(');
    for (int i = 0; i < e->nops; i++) {
        if (i) tine_buf_puts(p->b, ", ");
        put(p, e->ops[i], lhs);
    }
    tine_buf_putc(p->b, ')');
}

/* The narrowest integer type in e (T is written relative to it). */
static void narrowest(const tine_expr_t *e, tine_type_t *t) {
    if (tine_type_is_int(e->type) && (!t->bits || e->type.bits < t->bits)) *t = e->type;
    for (int i = 0; i < e->nops; i++) narrowest(e->ops[i], t);
}

static void and_(tine_buf *b, bool *first) {
    tine_buf_puts(b, *first ? " if " : " && ");
    *first = false;
}

/* The predicate: T's range at this level, then each constant's. */
static void put_pred(printer *p) {
    tine_buf *b = p->b;
    bool first = true;
    if (p->g >= SYNTH_GEN_SIGN) {
        and_(b, &first);
        tine_buf_puts(b, p->base.kind == TINE_INT ? "is_signed(T)" : "is_unsigned(T)");
    }
    if (p->g >= SYNTH_GEN_TYPE) {
        and_(b, &first);
        tine_buf_printf(b, "bits(T) == %d", p->base.bits);
    }
    char num[48], ty[128];
    for (int i = 0; i < p->nconsts; i++) {
        const tine_expr_t *c = p->consts[i];
        tine_i128 v = const_val(c);
        and_(b, &first);
        if (p->g == SYNTH_GEN_EXACT || !type_expr(p, c->type, ty, sizeof ty)) {
            tine_buf_printf(b, "c%d == %s", i, tine_i128_str(v, num));
        } else if (p->shifted[i].bits && type_expr(p, p->shifted[i], ty, sizeof ty)) {
            tine_buf_printf(b, "0 < c%d && c%d < bits(%s)", i, i, ty);
        } else if (v > 1 && v == (tine_i128)tine_type_max(c->type)) {
            tine_buf_printf(b, "c%d == %s.max", i, ty);
        } else if (c->type.kind == TINE_INT && v == tine_type_min(c->type)) {
            tine_buf_printf(b, "c%d == %s.min", i, ty);
        } else {
            int s = rounding_of(p, v);
            if (s >= 0 && s != i) tine_buf_printf(b, "c%d == 1 << (c%d - 1)", i, s);
            else tine_buf_printf(b, "c%d == %s", i, tine_i128_str(v, num));
        }
    }
}

bool tine_synth_rule_text(tine_buf *b, const char *name, const tine_expr_t *lhs, const tine_expr_t *rhs,
                          tine_synth_gen g, int priority, const char *why) {
    printer p = {.b = b, .g = g, .ok = true};
    narrowest(lhs, &p.base);
    narrowest(rhs, &p.base);
    collect(&p, lhs);
    if (!p.ok || lhs->op == TINE_OP_VAR || lhs->op == TINE_OP_CONST) return false;
    tine_buf_printf(b, "%s: ", name);
    put(&p, lhs, true);
    tine_buf_puts(b, " -> ");
    put(&p, rhs, false);
    put_pred(&p);
    if (priority) tine_buf_printf(b, " priority %d", priority);
    tine_buf_printf(b, "  # %s\n", why);
    return p.ok;
}
