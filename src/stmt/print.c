/* print.c — statements as text, in the manner of Halide's .stmt listings.
 *
 * One statement per line, nested bodies indented by two spaces and closed by a `}` line.
 * Expressions are printed by tine's expression printer (one line, the syntax tine_parse
 * reads) at their own lanes, so a scalar reads `$.c0_i32` and a vector's leaves carry no
 * lane count unless they differ from it. A line longer than WRAP columns (in a deep nest,
 * MIN_TEXT past its indentation) is wrapped at its
 * shallowest operator boundaries (after a let's or store's '=' or a comma, before a loop's
 * range or a binary operator), the pieces
 * packed greedily, each continuation indented by how deep its break lies, so a long
 * expression reads as its structure (wrap_line). The text is deterministic: golden tests and
 * the per-pass dumps compare it.
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

/* Whether a node is worth a name of its own when it is used twice: anything but a leaf,
 * or a broadcast or ramp of leaves (those read as well inline). */
static bool nameable(const tine_expr_t *e) {
    if (e->nops == 0) return false;
    if (e->op == TINE_OP_BROADCAST || e->op == TINE_OP_RAMP || e->op == TINE_OP_CAST) {
        for (int i = 0; i < e->nops; i++)
            if (e->ops[i]->nops) return true;
        return false;
    }
    return true;
}

/* A store's value with every subexpression it uses more than once printed first, as
 * `let tN = ...` lines at the store's depth, and read by name: a body is a DAG, and
 * printed as a tree it can grow exponentially (l2norm's would be megabytes). Returns the
 * value to print. */
static const tine_expr_t *shared_lets(sprinter *p, const tine_expr_t *root, int depth) {
    if (root->nops == 0) return root;
    uint32_t n;
    tine_expr_t **order = tine_topo(p->ctx, root, &n);
    uint32_t *uses = tine_xcalloc(n, sizeof *uses);
    tine_expr_t **now = tine_xrealloc_array(NULL, n, sizeof *now);
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < order[i]->nops; j++) uses[tine_topo_index(order, n, order[i]->ops[j])]++;
    int named = 0;
    for (uint32_t i = 0; i < n; i++) {
        tine_expr_t *e = order[i], *ops[UINT8_MAX + 1];
        bool changed = false;
        for (int j = 0; j < e->nops; j++) {
            ops[j] = now[tine_topo_index(order, n, e->ops[j])];
            changed |= ops[j] != e->ops[j];
        }
        now[i] = changed ? tine_rebuild(p->ctx, e, ops) : e;
        if (i + 1 < n && uses[i] > 1 && nameable(e)) {
            char name[24];
            snprintf(name, sizeof name, "t%d", named++);
            tine_expr_t *v = tine_var(p->ctx, name, e->type);
            indent(p, depth);
            tine_buf_printf(&p->b, "let %s = ", name);
            tine_print_buf(p->ctx, now[i], e->type.lanes, &p->b);
            tine_buf_putc(&p->b, '\n');
            now[i] = v;
        }
    }
    const tine_expr_t *r = now[n - 1];
    free(order);
    free(uses);
    free(now);
    return r;
}

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
        if (s->let.body && s->let.body->kind == TINE_S_LET) {
            /* a chain of lets (hoisting makes long ones) reads as a list, one brace for
               all: each binds for the rest of the chain and the last one's body */
            tine_buf_putc(&p->b, '\n');
            stmt(p, s->let.body, depth);
            return;
        }
        body(p, s->let.body, depth);
        break;
    case TINE_S_STORE: {
        /* the names first, on lines of their own: this line's indent, already out, waits */
        p->b.n -= 2 * (size_t)depth;
        const tine_expr_t *v = shared_lets(p, s->store.value, depth);
        indent(p, depth);
        tine_buf_printf(&p->b, "%s[", s->store.buffer);
        expr(p, s->store.index);
        tine_buf_puts(&p->b, "] = ");
        expr(p, v);
        break;
    }
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
        for (int i = 0; i < s->assert_.nargs; i++) {
            tine_buf_puts(&p->b, ", ");
            expr(p, s->assert_.args[i]);
        }
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

/* ---- wrapping ----------------------------------------------------------------------------- */

/* A line wraps past WRAP columns, or past MIN_TEXT columns after its indentation when that
 * is deeper (a nest 70 columns deep keeps lines of 60, not 30). */
enum { WRAP = 100, MIN_TEXT = 60 };

/* A line being wrapped: its text, and per byte the nesting depth of brackets there and
 * whether a piece may end there (brk: 1 after ", ", 2 at the space before a binary
 * operator; never inside a quoted message). */
typedef struct {
    const char *s;
    size_t n;
    int *depth;
    unsigned char *brk;
    int base;  /* the line's own indentation */
    int width; /* where it wraps */
} wline;

/* The binary operator that begins at s[i + 1] (s[i] a space, one after it), by how
 * loosely it binds: 1 (||) to 10 (* / %); 0 when there is none. A break before a loose
 * operator splits the expression at its top: a || b before a == b. */
static int binary_op_at(const char *s, size_t i, size_t n) {
    static const struct {
        const char *op;
        int rank;
    } ops[] = {{"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6}, {"<=", 7}, {">=", 7},
               {"<<", 8}, {">>", 8}, {"<", 7}, {">", 7}, {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        size_t m = strlen(ops[k].op);
        if (i + 1 + m < n && !strncmp(s + i + 1, ops[k].op, m) && s[i + 1 + m] == ' ') return ops[k].rank;
    }
    return 0;
}

/* Per byte, how deep a break there lies (w->depth): 16 per bracket, a comma at the
 * bracket's own level, an operator below it by its rank; and where pieces may end (brk). */
static void mark(wline *w) {
    int depth = 0;
    bool quoted = false;
    for (size_t i = 0; i < w->n; i++) {
        char c = w->s[i];
        w->brk[i] = 0;
        w->depth[i] = depth;
        if (quoted) {
            if (c == '\\' && i + 1 < w->n) { /* an escaped byte: '\"' ends nothing */
                w->brk[++i] = 0;
                w->depth[i] = depth;
            } else if (c == '"') {
                quoted = false;
            }
            continue;
        }
        if (c == '"') quoted = true;
        if (c == ')' || c == ']') depth -= 16;
        w->depth[i] = depth;
        if (c == '(' || c == '[') depth += 16;
        int rank;
        if (c == ',' && i + 1 < w->n && w->s[i + 1] == ' ') {
            w->brk[i + 1] = 1;
            w->depth[i + 1] = depth;
            i++;
        } else if (c == ' ' && (rank = binary_op_at(w->s, i, w->n))) {
            w->brk[i] = 2;
            w->depth[i] = depth + rank;
        } else if (c == ' ' && ((i >= 2 && !strncmp(w->s + i - 2, " =", 2)) || !strncmp(w->s + i, " in [", 5))) {
            w->brk[i] = 2; /* after a let's or a store's '=', before a loop's range: the loosest */
        }
    }
}

static void spaces(tine_buf *b, int n) {
    for (int i = 0; i < n; i++) tine_buf_putc(b, ' ');
}

/* w's bytes [a, e) written to b at column col, wrapped at the shallowest breaks inside
 * when they do not fit; the column after them. A break's space is dropped: a comma ends
 * its line, an operator begins the next. */
static int wrap_span(tine_buf *b, const wline *w, size_t a, size_t e, int col) {
    int md = INT32_MAX;
    for (size_t i = a; i < e; i++)
        if (w->brk[i] && w->depth[i] < md) md = w->depth[i];
    if (col + (int)(e - a) <= w->width || md == INT32_MAX) {
        tine_buf_printf(b, "%.*s", (int)(e - a), w->s + a);
        return col + (int)(e - a);
    }
    int level = md / 16; /* brackets deep: each indents the continuation two more */
    int cont = w->base + 4 + 2 * (level < 8 ? level : 8);
    size_t start = a;
    bool first = true;
    for (size_t i = a; i <= e; i++) {
        if (i < e && !(w->brk[i] && w->depth[i] == md)) continue;
        int len = (int)(i - start);
        if (first) {
            col = wrap_span(b, w, start, i, col);
            first = false;
        } else if (col + 1 + len <= w->width) {
            tine_buf_putc(b, ' ');
            col = wrap_span(b, w, start, i, col + 1);
        } else {
            tine_buf_putc(b, '\n');
            spaces(b, cont);
            col = wrap_span(b, w, start, i, cont);
        }
        start = i + 1; /* past the break's space */
    }
    return col;
}

/* text with every line longer than its width wrapped (see the top); malloc'd. */
static char *wrap_lines(const char *text) {
    tine_buf b = {0};
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t n = nl ? (size_t)(nl - l) : strlen(l);
        int base = 0;
        while (base < (int)n && l[base] == ' ') base++;
        int width = base + (WRAP - base > MIN_TEXT ? WRAP - base : MIN_TEXT);
        if ((int)n > width) {
            wline w = {.s = l, .n = n, .depth = tine_xcalloc(n, sizeof(int)), .brk = tine_xcalloc(n, 1), .base = base,
                       .width = width};
            mark(&w);
            wrap_span(&b, &w, 0, n, 0);
            free(w.depth);
            free(w.brk);
        } else {
            tine_buf_printf(&b, "%.*s", (int)n, l);
        }
        if (nl) tine_buf_putc(&b, '\n');
        l += n + (nl != NULL);
    }
    if (!b.p) tine_buf_puts(&b, "");
    return b.p;
}

char *tine_stmt_print(tine_ctx_t *ctx, const tine_stmt *s) {
    sprinter p = {.ctx = ctx};
    stmt(&p, s, 0);
    if (!p.b.p) tine_buf_puts(&p.b, "");
    char *wrapped = wrap_lines(p.b.p);
    free(p.b.p);
    return wrapped;
}
