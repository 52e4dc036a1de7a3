/* parse.c — text to syntax tree.
 *
 * The parser knows only shapes: numbers, names, calls, infix and prefix operators, loads,
 * lane lists and type expressions. It never types anything; elab.c turns the tree into IR
 * under an environment (default lanes, placeholder bindings, type variables), so the
 * same parser reads user expressions, FPIR definitions and, later, rule files.
 * Binary operators and their precedences come from the op table in tine_ops.h.
 *
 * Grammar (C's precedence, every binary operator left-associative):
 *   expr    := unary (BINOP unary)*          BINOP from the op table, by precedence
 *   unary   := ('-' | '~' | '!') unary | primary
 *   primary := INT | FLOAT | '(' expr ')'
 *            | NAME ('<' type '>')? '(' expr (',' expr)* ')'     call, cast, FPIR op
 *            | NAME '[' expr ']'                                 load (NAME has a suffix)
 *            | TYPENAME '[' literal (',' literal)* ']'           per-lane constant
 *            | NAME '.' NAME                                     T.min, U.max
 *            | NAME                                              variable or placeholder
 *   type    := NAME ('(' type (',' type)* ')')?
 */
#include "ast.h"

#include <errno.h>
#include <math.h>

typedef struct {
    tine_ctx_t *ctx;
    tine_arena *arena;
    const tine_src *src;
    const char *p;      /* next character */
    /* current token */
    int tok;
    const char *tstart;
    size_t tlen;
    int line, col;
    const char *line_start;
    int depth;
    bool failed;
    /* rule files */
    bool rules;          /* x:T wildcards, '&&' and '||' */
    int prev_line;       /* line of the token before the current one */
    int prev_end_col;    /* the column just after it */
    int comment_line;    /* a comment trailing the previous token: its line and text */
    const char *comment;
    size_t comment_len;
} parser;

enum { T_EOF = 256, T_INT, T_FLOAT, T_NAME, T_SHL, T_SHR, T_LE, T_GE, T_EQ, T_NE, T_ARROW, T_ANDAND, T_OROR, T_DOTDOT };

/* ---- diagnostics (located messages: tine_diag, diag.c) ----------------------------------- */

static void perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perr(parser *ps, const char *fmt, ...) {
    if (ps->failed) return;
    ps->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tine_diag(ps->ctx, ps->src, ps->line, ps->col, "%s", msg);
}

/* The nesting limit (recursion depth) is one of tine's documented limits, not a mistake
 * in the input. */
static void perr_depth(parser *ps) {
    if (ps->failed) return;
    perr(ps, "expression is nested more than %d deep", TINE_MAX_DEPTH);
    tine_error_set_kind(ps->ctx, TINE_ERROR_LIMIT);
}

/* ---- lexer -------------------------------------------------------------------------- */

static bool is_name_start(char c) { return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *tok_desc(int tok, char buf[32]) {
    switch (tok) {
    case T_EOF: return "end of input";
    case T_INT: case T_FLOAT: return "a number";
    case T_NAME: return "a name";
    case T_SHL: return "'<<'";
    case T_SHR: return "'>>'";
    case T_LE: return "'<='";
    case T_GE: return "'>='";
    case T_EQ: return "'=='";
    case T_NE: return "'!='";
    case T_ARROW: return "'->'";
    case T_ANDAND: return "'&&'";
    case T_OROR: return "'||'";
    case T_DOTDOT: return "'..'";
    default: snprintf(buf, 32, "'%c'", tok); return buf;
    }
}

static void next(parser *ps) {
    const char *p = ps->p;
    ps->prev_line = ps->line;
    ps->prev_end_col = ps->tstart ? (int)(ps->tstart - ps->line_start) + (int)ps->tlen + 1 : 1;
    ps->comment = NULL;
    for (;;) {
        if (*p == '\n') {
            ps->line++;
            ps->line_start = p + 1;
            p++;
        } else if (*p == ' ' || *p == '\t' || *p == '\r') {
            p++;
        } else if (*p == '#') { /* comment to end of line; one that trails the last token is kept */
            const char *c = p + 1;
            while (*c == ' ') c++;
            while (*p && *p != '\n') p++;
            if (ps->line == ps->prev_line && !ps->comment) {
                ps->comment = c;
                ps->comment_len = (size_t)(p - c);
                ps->comment_line = ps->line;
            }
        } else {
            break;
        }
    }
    ps->tstart = p;
    ps->col = (int)(p - ps->line_start) + 1;
    char c = *p;
    if (!c) {
        ps->tok = T_EOF;
        ps->tlen = 0;
        ps->p = p;
        return;
    }
    if (is_digit(c) || (c == '.' && is_digit(p[1]))) {
        const char *q = p;
        bool flt = false;
        if (c == '0' && (p[1] == 'x' || p[1] == 'X')) {
            q += 2;
            while (is_digit(*q) || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')) q++;
        } else {
            while (is_digit(*q)) q++;
            if (*q == '.' && q[1] != '.') { /* "0..3" is a range, not "0." */
                flt = true;
                q++;
                while (is_digit(*q)) q++;
            }
            if ((*q == 'e' || *q == 'E') && (is_digit(q[1]) || ((q[1] == '+' || q[1] == '-') && is_digit(q[2])))) {
                flt = true;
                q += 2;
                while (is_digit(*q)) q++;
            }
        }
        ps->tok = flt ? T_FLOAT : T_INT;
        ps->tlen = (size_t)(q - p);
        ps->p = q;
        if (is_name_start(*q)) {
            ps->col = (int)(q - ps->line_start) + 1;
            perr(ps, "unexpected '%c' after a number", *q);
        }
        return;
    }
    if (is_name_start(c)) {
        const char *q = p;
        while (is_name_start(*q) || is_digit(*q)) q++;
        ps->tok = T_NAME;
        ps->tlen = (size_t)(q - p);
        ps->p = q;
        return;
    }
    static const struct { const char *s; int tok; } two[] = {
        {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE}, {">=", T_GE}, {"==", T_EQ}, {"!=", T_NE},
        {"->", T_ARROW}, {"&&", T_ANDAND}, {"||", T_OROR}, {"..", T_DOTDOT}};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (p[0] == two[i].s[0] && p[1] == two[i].s[1]) {
            ps->tok = two[i].tok;
            ps->tlen = 2;
            ps->p = p + 2;
            return;
        }
    if (strchr("+-*/%&|^~!()[]<>,.:=", c)) {
        ps->tok = c;
        ps->tlen = 1;
        ps->p = p + 1;
        return;
    }
    if ((unsigned char)c < 32 || (unsigned char)c >= 127) perr(ps, "unexpected character (byte 0x%02x)", (unsigned char)c);
    else perr(ps, "unexpected character '%c'", c);
    ps->tok = T_EOF;
    ps->tlen = 0;
}

static const char *tok_text(parser *ps, char *buf, size_t n) {
    size_t len = ps->tlen < n - 1 ? ps->tlen : n - 1;
    memcpy(buf, ps->tstart, len);
    buf[len] = 0;
    return buf;
}

/* ---- tree building -------------------------------------------------------------------- */

static tine_ast *node(parser *ps, tine_ast_kind k) {
    tine_ast *a = tine_arena_alloc(ps->arena, sizeof *a);
    a->kind = k;
    a->src = ps->src;
    a->line = ps->line;
    a->col = ps->col;
    return a;
}

/* Appends x to an array of n nodes in the arena, doubled when full. */
static void push_ast(parser *ps, tine_ast ***v, int *n, int *cap, tine_ast *x) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        tine_ast **m = tine_arena_alloc(ps->arena, (size_t)*cap * sizeof *m);
        if (*n) memcpy(m, *v, (size_t)*n * sizeof *m);
        *v = m;
    }
    (*v)[(*n)++] = x;
}

static void add_arg(parser *ps, tine_ast *a, tine_ast *arg) { push_ast(ps, &a->args, &a->nargs, &a->cap, arg); }

static bool expect(parser *ps, int tok, const char *what) {
    if (ps->tok == tok) {
        next(ps);
        return true;
    }
    char b1[32], b2[32];
    perr(ps, "expected %s %s, found %s", tok_desc(tok, b1), what, tok_desc(ps->tok, b2));
    return false;
}

static tine_ast *parse_expr(parser *ps, int min_prec);

static tine_ast *parse_type(parser *ps) {
    if (ps->tok != T_NAME) {
        char b[32];
        perr(ps, "expected a type, found %s", tok_desc(ps->tok, b));
        return NULL;
    }
    tine_ast *t = node(ps, A_TYPE);
    t->name = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    next(ps);
    if (ps->tok == '(') {
        next(ps);
        for (;;) {
            tine_ast *a = parse_type(ps);
            if (!a) return NULL;
            add_arg(ps, t, a);
            if (ps->tok != ',') break;
            next(ps);
        }
        if (!expect(ps, ')', "to close the type")) return NULL;
    }
    return t;
}

static bool parse_number(parser *ps, tine_ast *a) {
    char buf[128];
    if (ps->tlen >= sizeof buf) {
        perr(ps, "number is too long");
        return false;
    }
    tok_text(ps, buf, sizeof buf);
    if (ps->tok == T_FLOAT) {
        a->kind = A_FLOAT;
        errno = 0;
        a->fval = strtod(buf, NULL);
        /* past the largest double strtod gives infinity: refused, as C compilers do (the
           name inf is infinity); below the smallest it rounds to a denormal or 0, which is
           the literal's nearest double and is accepted (docs/SEMANTICS.md) */
        if (errno == ERANGE && isinf(a->fval)) {
            perr(ps, "number is too large for a float (at most about 1.8e308; infinity is written inf)");
            return false;
        }
        return true;
    }
    a->kind = A_INT;
    tine_u128 v = 0;
    bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    const char *d = hex ? buf + 2 : buf;
    if (!*d) {
        perr(ps, "hexadecimal number has no digits");
        return false;
    }
    tine_u128 limit = ((tine_u128)1 << 127) - 1; /* literals are exact up to 2^127 - 1 */
    tine_u128 base = hex ? 16 : 10;
    for (; *d; d++) {
        tine_u128 digit = (tine_u128)(is_digit(*d) ? *d - '0' : (*d | 32) - 'a' + 10);
        if (v > (limit - digit) / base) { /* checked before v * base could wrap */
            perr(ps, "number is too large");
            return false;
        }
        v = v * base + digit;
    }
    a->ival = (tine_i128)v;
    return true;
}

static bool is_word(parser *ps, const char *w);
static tine_ast *parse_unary(parser *ps);

/* let NAME = expr in expr: the body extends as far as an expression does. */
static tine_ast *parse_let(parser *ps, tine_ast *a) {
    char b[32];
    a->kind = A_LET;
    a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen); /* the bound name */
    next(ps);
    if (!expect(ps, '=', "after the name in 'let'")) return NULL;
    tine_ast *v = parse_expr(ps, 0);
    if (!v) return NULL;
    if (!is_word(ps, "in")) {
        perr(ps, "expected 'in' after the value of 'let %s = ...', found %s", a->field, tok_desc(ps->tok, b));
        return NULL;
    }
    next(ps);
    tine_ast *body = parse_expr(ps, 0);
    if (!body) return NULL;
    add_arg(ps, a, v);
    add_arg(ps, a, body);
    return a;
}

/* sum(r in a..b) body, min(...) body, max(...) body: a reduction over r in [a, b). The
 * body is a unary expression: parenthesize anything larger. */
static tine_ast *parse_reduce(parser *ps, tine_ast *a) {
    char b[32];
    a->kind = A_REDUCE;
    a->op = !strcmp(a->name, "sum") ? TINE_OP_ADD : !strcmp(a->name, "min") ? TINE_OP_MIN : TINE_OP_MAX;
    next(ps); /* ( */
    a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    next(ps); /* the variable */
    next(ps); /* in */
    tine_ast *lo = parse_expr(ps, 0);
    if (!lo) return NULL;
    if (ps->tok != T_DOTDOT) {
        perr(ps, "expected '..' in the range of %s(%s in a..b), found %s", a->name, a->field, tok_desc(ps->tok, b));
        return NULL;
    }
    next(ps);
    tine_ast *hi = parse_expr(ps, 0);
    if (!hi) return NULL;
    if (!expect(ps, ')', "to close the range")) return NULL;
    tine_ast *body = parse_unary(ps);
    if (!body) return NULL;
    add_arg(ps, a, lo);
    add_arg(ps, a, hi);
    add_arg(ps, a, body);
    return a;
}

static tine_ast *parse_primary(parser *ps) {
    char b[32];
    if (ps->tok == T_INT || ps->tok == T_FLOAT) {
        tine_ast *a = node(ps, A_INT);
        if (!parse_number(ps, a)) return NULL;
        next(ps);
        return a;
    }
    if (ps->tok == '(') {
        int line = ps->line, col = ps->col;
        next(ps);
        tine_ast *e = parse_expr(ps, 0);
        if (!e) return NULL;
        if (ps->tok != ')') {
            perr(ps, "expected ')' to close the '(' at %d:%d, found %s", line, col, tok_desc(ps->tok, b));
            return NULL;
        }
        next(ps);
        return e;
    }
    if (ps->tok != T_NAME) {
        perr(ps, "expected an expression, found %s", tok_desc(ps->tok, b));
        return NULL;
    }
    tine_ast *a = node(ps, A_NAME);
    a->name = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    next(ps);
    if (!strcmp(a->name, "let") && ps->tok == T_NAME) return parse_let(ps, a);
    if (ps->tok == '(' && (!strcmp(a->name, "sum") || !strcmp(a->name, "min") || !strcmp(a->name, "max"))) {
        /* a reduction when '(' NAME 'in' follows */
        const char *q = ps->p;
        while (*q == ' ' || *q == '\t') q++;
        const char *n0 = q;
        while (is_name_start(*q) || is_digit(*q)) q++;
        const char *n1 = q;
        while (*q == ' ' || *q == '\t') q++;
        if (n1 > n0 && q[0] == 'i' && q[1] == 'n' && !is_name_start(q[2]) && !is_digit(q[2])) return parse_reduce(ps, a);
    }
    /* '<' after an op's name opens a type parameter (cast<u8>, saturating_cast<u8>): an op
     * name is never a value, so this is not a comparison, and elab.c can say which ops
     * take no type parameter (absd<u8>(...)). */
    if (ps->tok == '<' && ps->p[0] != '=' && tine_op_lookup(a->name) >= 0) {
        next(ps);
        a->targ = parse_type(ps);
        if (!a->targ) return NULL;
        if (!expect(ps, '>', "after the type")) return NULL;
        if (ps->tok != '(') {
            perr(ps, "expected '(' after %s<...>, found %s", a->name, tok_desc(ps->tok, b));
            return NULL;
        }
    }
    if (ps->tok == '(') {
        a->kind = A_CALL;
        a->call_op = tine_op_lookup(a->name);
        int line = ps->line, col = ps->col;
        next(ps);
        if (ps->tok != ')') {
            for (;;) {
                tine_ast *arg = parse_expr(ps, 0);
                if (!arg) return NULL;
                add_arg(ps, a, arg);
                if (ps->tok != ',') break;
                next(ps);
            }
        }
        if (ps->tok != ')') {
            perr(ps, "expected ',' or ')' in the call to '%s' at %d:%d, found %s", a->name, line, col,
                 tok_desc(ps->tok, b));
            return NULL;
        }
        next(ps);
        if (ps->tok == '.') { /* widen(T).max: a field of a type written as a call */
            tine_ast *f = node(ps, A_FIELD);
            next(ps);
            if (ps->tok != T_NAME) {
                perr(ps, "expected 'min' or 'max' after '.', found %s", tok_desc(ps->tok, b));
                return NULL;
            }
            f->line = a->line;
            f->col = a->col;
            f->targ = a;
            f->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
            next(ps);
            return f;
        }
        return a;
    }
    if (a->targ) return a;
    if (ps->rules && ps->tok == ':') { /* a typed wildcard: x:T, y:widen(T) */
        next(ps);
        a->targ = parse_type(ps);
        return a->targ ? a : NULL;
    }
    if (ps->tok == '[') {
        tine_type_t t;
        bool lanes = tine_parse_type_name(a->name, strlen(a->name), &t);
        a->kind = lanes ? A_LANES : A_LOAD;
        next(ps);
        for (;;) {
            tine_ast *arg = parse_expr(ps, 0);
            if (!arg) return NULL;
            add_arg(ps, a, arg);
            if (ps->tok != ',' ) break;
            if (!lanes) {
                perr(ps, "a load takes one index; expected ']'");
                return NULL;
            }
            next(ps);
        }
        if (!expect(ps, ']', lanes ? "to close the lane list" : "to close the index")) return NULL;
        return a;
    }
    if (ps->tok == '.') {
        next(ps);
        if (ps->tok != T_NAME) {
            perr(ps, "expected 'min' or 'max' after '.', found %s", tok_desc(ps->tok, b));
            return NULL;
        }
        a->kind = A_FIELD;
        a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
        next(ps);
    }
    return a;
}

static tine_ast *parse_unary(parser *ps) {
    if (ps->tok == '-' || ps->tok == '~' || ps->tok == '!') {
        tine_ast *a = node(ps, A_UNARY);
        a->op = ps->tok == '-' ? TINE_OP_NEG : TINE_OP_NOT;
        next(ps);
        if (++ps->depth > TINE_MAX_DEPTH) {
            perr_depth(ps);
            return NULL;
        }
        tine_ast *e = parse_unary(ps);
        ps->depth--;
        if (!e) return NULL;
        add_arg(ps, a, e);
        return a;
    }
    return parse_primary(ps);
}

/* The binary operator of the current token, from the op table; -1 if none. */
static int binop_of(parser *ps) {
    if (ps->tok == T_EOF || ps->tok == T_NAME || ps->tok == T_INT || ps->tok == T_FLOAT) return -1;
    static const struct { tine_op_t op; const char *tok; int prec; } table[] = {
#define X(e, name, ar, tok, prec, comm) {TINE_OP_##e, ar == 2 ? tok : NULL, prec},
        TINE_PRIM_OPS(X)
#undef X
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].tok && strlen(table[i].tok) == ps->tlen && !memcmp(table[i].tok, ps->tstart, ps->tlen))
            return (int)i;
    return -1;
}

int tine_binop_prec(tine_op_t op) {
    static const int prec[] = {
#define X(e, name, ar, tok, p, comm) p,
        TINE_PRIM_OPS(X)
#undef X
    };
    return (int)op < TINE_FPIR_FIRST ? prec[op] : 0;
}

static tine_ast *parse_expr(parser *ps, int min_prec) {
    if (++ps->depth > TINE_MAX_DEPTH) {
        perr_depth(ps);
        return NULL;
    }
    tine_ast *lhs = parse_unary(ps);
    while (lhs && !ps->failed) {
        int op = binop_of(ps), prec;
        bool logical = ps->rules && (ps->tok == T_ANDAND || ps->tok == T_OROR);
        if (logical) { /* rule predicates: && and || bind loosest, as in C */
            op = ps->tok == T_ANDAND ? TINE_OP_AND : TINE_OP_OR;
            prec = ps->tok == T_ANDAND ? 2 : 1;
        } else {
            if (op < 0) break;
            prec = tine_binop_prec((tine_op_t)op);
        }
        if (prec <= min_prec) break;
        tine_ast *a = node(ps, A_BINARY);
        a->op = (tine_op_t)op;
        a->logical = logical;
        next(ps);
        tine_ast *rhs = parse_expr(ps, prec);
        if (!rhs) return NULL;
        add_arg(ps, a, lhs);
        add_arg(ps, a, rhs);
        lhs = a;
    }
    ps->depth--;
    return ps->failed ? NULL : lhs;
}

tine_ast *tine_parse_ast(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file) {
    tine_src *src = tine_arena_alloc(arena, sizeof *src);
    src->file = tine_arena_strdup(arena, file ? file : "<input>", strlen(file ? file : "<input>"));
    src->text = tine_arena_strdup(arena, text, strlen(text));
    parser ps = {.ctx = ctx, .arena = arena, .src = src, .p = src->text, .line = 1,
                 .line_start = src->text};
    next(&ps);
    if (ps.failed) return NULL;
    if (ps.tok == T_EOF) {
        perr(&ps, "expected an expression, found end of input");
        return NULL;
    }
    tine_ast *e = parse_expr(&ps, 0);
    if (!e) return NULL;
    if (ps.tok != T_EOF) {
        /* a name or number is quoted: "unexpected 'b_u8'", not "unexpected a name" */
        char b[64], t[48];
        bool quote = ps.tok == T_NAME || ps.tok == T_INT || ps.tok == T_FLOAT;
        if (quote) snprintf(b, sizeof b, "'%s'", tok_text(&ps, t, sizeof t));
        perr(&ps, "unexpected %s after the expression%s", quote ? b : tok_desc(ps.tok, b),
             ps.tok == '=' ? " (equality is written '==')" : "");
        return NULL;
    }
    return e;
}

/* ---- rule files ------------------------------------------------------------------------
 *
 *   file  := entry*
 *   entry := NAME ':' expr '->' expr ('if' expr)? ('priority' '-'? INT)?   # why it holds
 *
 * The "why" is the comment at the end of the entry's last line. Inside an entry, x:T
 * declares a typed wildcard, and the predicate may use && and ||.
 */

/* The operands of the predicate's && tree, left to right. A chain a && b && c ... is as
 * long as the input (the nesting limit does not bound it), so the tree is walked with a
 * stack of its pending right operands, not by recursion. */
static void split_conjuncts(parser *ps, tine_rule_ast *r, tine_ast *p) {
    tine_ast **stack = NULL;
    size_t sp = 0, cap = 0;
    for (;;) {
        if (p->kind == A_BINARY && p->logical && p->op == TINE_OP_AND) {
            if (sp == cap) {
                cap = cap ? 2 * cap : 64;
                stack = realloc(stack, cap * sizeof *stack);
                TINE_ASSERT(stack != NULL);
            }
            stack[sp++] = p->args[1];
            p = p->args[0];
            continue;
        }
        push_ast(ps, &r->conj, &r->nconj, &r->capconj, p);
        if (!sp) break;
        p = stack[--sp];
    }
    free(stack);
}

static bool is_word(parser *ps, const char *w) {
    return ps->tok == T_NAME && ps->tlen == strlen(w) && !memcmp(ps->tstart, w, ps->tlen);
}

/* Where each line of src starts, for files that may get many messages (rule and
 * instruction files: an instantiation that does not type leaves one, each in O(1)). */
static void index_lines(tine_arena *arena, tine_src *src) {
    int nlines = 1;
    for (const char *c = src->text; *c; c++) nlines += *c == '\n';
    size_t *line_at = tine_arena_alloc(arena, (size_t)nlines * sizeof *line_at);
    nlines = 1;
    for (const char *c = src->text; *c; c++)
        if (*c == '\n') line_at[nlines++] = (size_t)(c + 1 - src->text);
    src->line_at = line_at;
    src->nlines = nlines;
}

int tine_parse_rules(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file,
                     tine_rule_ast **out, int *count) {
    tine_src *src = tine_arena_alloc(arena, sizeof *src);
    src->file = tine_arena_strdup(arena, file ? file : "<rules>", strlen(file ? file : "<rules>"));
    src->text = tine_arena_strdup(arena, text, strlen(text));
    index_lines(arena, src);
    parser ps = {.ctx = ctx, .arena = arena, .src = src, .p = src->text, .line = 1, .line_start = src->text,
                 .rules = true};
    int n = 0, cap = 0;
    tine_rule_ast *rules = NULL;
    char b[64];
    next(&ps);
    while (!ps.failed && ps.tok != T_EOF) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            tine_rule_ast *m = tine_arena_alloc(arena, (size_t)cap * sizeof *m);
            if (n) memcpy(m, rules, (size_t)n * sizeof *m);
            rules = m;
        }
        tine_rule_ast *r = &rules[n];
        memset(r, 0, sizeof *r);
        if (ps.tok != T_NAME) {
            perr(&ps, "expected a rule name at the start of an entry (name: lhs -> rhs), found %s", tok_desc(ps.tok, b));
            break;
        }
        r->src = src;
        r->line = ps.line;
        r->col = ps.col;
        r->name = tine_arena_strdup(arena, ps.tstart, ps.tlen);
        next(&ps);
        if (!expect(&ps, ':', "after the rule name")) break;
        r->lhs = parse_expr(&ps, 0);
        if (!r->lhs) break;
        if (ps.tok != T_ARROW) {
            perr(&ps, "expected '->' between the two sides of rule '%s', found %s", r->name, tok_desc(ps.tok, b));
            break;
        }
        next(&ps);
        r->rhs = parse_expr(&ps, 0);
        if (!r->rhs) break;
        if (is_word(&ps, "if")) {
            next(&ps);
            r->pred = parse_expr(&ps, 0);
            if (!r->pred) break;
            split_conjuncts(&ps, r, r->pred);
        }
        if (is_word(&ps, "priority")) {
            next(&ps);
            bool neg = ps.tok == '-';
            if (neg) next(&ps);
            if (ps.tok != T_INT) { /* a name or number is quoted: "found '1.5'", not "found a number" */
                char q[64], t[48];
                bool quote = ps.tok == T_NAME || ps.tok == T_FLOAT;
                if (quote) snprintf(q, sizeof q, "'%s'", tok_text(&ps, t, sizeof t));
                perr(&ps, "expected a whole number after 'priority', found %s", quote ? q : tok_desc(ps.tok, b));
                break;
            }
            tine_ast num = {0};
            if (!parse_number(&ps, &num)) break;
            if (num.ival > 1000000) {
                perr(&ps, "priority is too large");
                break;
            }
            r->priority = neg ? -(int)num.ival : (int)num.ival;
            next(&ps);
        }
        r->end_line = ps.prev_line;
        r->end_col = ps.prev_end_col;
        if (ps.comment && ps.comment_line == r->end_line && ps.comment_len > 0)
            r->why = tine_arena_strdup(arena, ps.comment, ps.comment_len);
        /* the entry is over: what follows starts the next one */
        if (ps.tok != T_EOF && !(ps.tok == T_NAME && ps.p[strspn(ps.p, " \t")] == ':')) {
            char t[48];
            bool quote = ps.tok == T_NAME || ps.tok == T_INT || ps.tok == T_FLOAT;
            if (quote) snprintf(b, sizeof b, "'%s'", tok_text(&ps, t, sizeof t));
            perr(&ps, "unexpected %s after rule '%s' (a rule ends after its right side, 'if ...' and 'priority N')",
                 quote ? b : tok_desc(ps.tok, b), r->name);
            break;
        }
        n++;
    }
    if (ps.failed) return -1;
    *out = rules;
    *count = n;
    return 0;
}

/* ---- target description files ------------------------------------------------------------
 *
 *   file   := (feature | target | width | byte_shift | insn)*
 *   feature:= 'feature' WORD+                       on one line
 *   target := 'target' WORD ':' WORD+               on one line
 *   width  := 'width' WORD INT
 *   byte_shift := 'byte_shift' NUMBER              a shift of 8-bit lanes, per register
 *   insn   := 'insn' NAME '(' NAME ':' TYPE (',' ...)* ')' '=' expr attr*
 *   attr   := 'forms' (WORD ':' WORD)+ | 'cost' NUMBER NUMBER | 'llvm' WORD+ | 'c' WORD+ | 'pack'
 *           | 'imm' NAME
 *
 * A WORD is letters, digits and '_', '.', '-' (sse4.1, llvm.x86.sse2.pavg.b, x86-64-avx2);
 * word lists end at the end of their line.
 */

static bool isa_word_char(char c) { return is_name_start(c) || is_digit(c) || c == '.' || c == '-'; }

/* The word starting at the current token; the lexer resumes after it. */
static bool isa_word(parser *ps, tine_word *w, const char *what) {
    if (ps->tok != T_NAME && ps->tok != T_INT && ps->tok != T_FLOAT) {
        char b[32];
        perr(ps, "expected %s, found %s", what, tok_desc(ps->tok, b));
        return false;
    }
    const char *q = ps->tstart;
    while (isa_word_char(*q)) q++;
    w->s = tine_arena_strdup(ps->arena, ps->tstart, (size_t)(q - ps->tstart));
    w->line = ps->line;
    w->col = ps->col;
    ps->p = q;
    ps->tlen = (size_t)(q - ps->tstart);
    next(ps);
    return true;
}

/* Words up to the end of the line (at least one). */
static int isa_words(parser *ps, tine_word *out, int max, int line, const char *what) {
    int n = 0;
    if (ps->tok == T_EOF || ps->line != line) {
        char b[32];
        perr(ps, "expected %s, found %s", what, ps->tok == T_EOF ? "end of input" : "the end of the line");
        (void)b;
        return -1;
    }
    while (ps->tok != T_EOF && ps->line == line && ps->tok != ':') {
        if (n == max) {
            perr(ps, "too many words here (at most %d)", max);
            return -1;
        }
        if (!isa_word(ps, &out[n++], what)) return -1;
    }
    return n;
}

static bool isa_number(parser *ps, double *out, const char *what) {
    if (ps->tok != T_INT && ps->tok != T_FLOAT) {
        char b[32];
        perr(ps, "expected %s (a number), found %s", what, tok_desc(ps->tok, b));
        return false;
    }
    tine_ast num = {0};
    if (!parse_number(ps, &num)) return false;
    *out = num.kind == A_FLOAT ? num.fval : (double)num.ival;
    next(ps);
    return true;
}

static bool parse_insn(parser *ps, tine_insn_ast *in) {
    int line = ps->line;
    next(ps); /* insn */
    if (ps->tok != T_NAME) {
        char b[32];
        perr(ps, "expected the instruction's name after 'insn', found %s", tok_desc(ps->tok, b));
        return false;
    }
    in->name = (tine_word){tine_arena_strdup(ps->arena, ps->tstart, ps->tlen), ps->line, ps->col};
    in->sig = parse_expr(ps, 0);
    if (!in->sig) return false;
    if (in->sig->kind != A_CALL) {
        perr(ps, "expected the operands of '%s' in parentheses, as in %s(a:u8, b:u8)", in->name.s, in->name.s);
        return false;
    }
    if (!expect(ps, '=', "before the instruction's semantics")) return false;
    in->sem = parse_expr(ps, 0);
    if (!in->sem) return false;
    (void)line;
    for (;;) {
        char b[32];
        int l = ps->line;
        if (is_word(ps, "forms")) {
            next(ps);
            while (ps->tok != T_EOF && ps->line == l) {
                if (in->nforms == 4) {
                    perr(ps, "at most 4 forms");
                    return false;
                }
                if (!isa_word(ps, &in->form_width[in->nforms], "a register width (xmm, ymm, zmm)")) return false;
                if (!expect(ps, ':', "between the width and its feature (xmm:sse2)")) return false;
                if (!isa_word(ps, &in->form_feature[in->nforms++], "a feature")) return false;
            }
            if (in->nforms == 0) {
                perr(ps, "expected the forms, as in xmm:sse2 ymm:avx2, found the end of the line");
                return false;
            }
        } else if (is_word(ps, "cost")) {
            next(ps);
            if (!isa_number(ps, &in->lat, "the latency") || !isa_number(ps, &in->rtp, "the reciprocal throughput"))
                return false;
            in->has_cost = true;
        } else if (is_word(ps, "llvm")) {
            next(ps);
            int n = isa_words(ps, in->llvm, 4, l, "'generic' or an LLVM intrinsic name per form");
            if (n < 0) return false;
            in->nllvm = n;
            in->generic = n == 1 && !strcmp(in->llvm[0].s, "generic");
        } else if (is_word(ps, "c")) {
            next(ps);
            int n = isa_words(ps, in->c, 4, l, "a C intrinsic name per form");
            if (n < 0) return false;
            in->nc = n;
        } else if (is_word(ps, "pack")) {
            next(ps);
            in->pack = true;
        } else if (is_word(ps, "imm")) {
            next(ps);
            if (ps->tok != T_NAME || ps->line != l) {
                perr(ps, "expected the name of the operand that is an immediate after 'imm', found %s", tok_desc(ps->tok, b));
                return false;
            }
            in->imm = (tine_word){tine_arena_strdup(ps->arena, ps->tstart, ps->tlen), ps->line, ps->col};
            next(ps);
            if (ps->tok == T_NAME && ps->line == l && is_word(ps, "neg")) { /* srshr #n is srshl by -n */
                in->imm_neg = true;
                next(ps);
            }
        } else if (ps->tok == T_EOF || is_word(ps, "insn") || is_word(ps, "feature") || is_word(ps, "target") ||
                   is_word(ps, "width") || is_word(ps, "byte_shift")) {
            break;
        } else {
            bool quote = ps->tok == T_NAME;
            char q[64], t[48];
            if (quote) snprintf(q, sizeof q, "'%s'", tok_text(ps, t, sizeof t));
            perr(ps, "unexpected %s in instruction '%s' (expected forms, cost, llvm, c, pack or imm)",
                 quote ? q : tok_desc(ps->tok, b), in->name.s);
            return false;
        }
        in->end_line = ps->prev_line;
    }
    return true;
}

int tine_parse_isa(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, tine_isa_ast *out) {
    tine_src *src = tine_arena_alloc(arena, sizeof *src);
    src->file = tine_arena_strdup(arena, file ? file : "<isa>", strlen(file ? file : "<isa>"));
    src->text = tine_arena_strdup(arena, text, strlen(text));
    index_lines(arena, src);
    parser ps = {.ctx = ctx, .arena = arena, .src = src, .p = src->text, .line = 1, .line_start = src->text,
                 .rules = true};
    memset(out, 0, sizeof *out);
    out->src = src;
    int cap = 0;
    next(&ps);
    while (!ps.failed && ps.tok != T_EOF) {
        int l = ps.line;
        if (is_word(&ps, "feature")) {
            next(&ps);
            int n = isa_words(&ps, out->features + out->nfeatures, 32 - out->nfeatures, l, "a feature name");
            if (n < 0) break;
            out->nfeatures += n;
        } else if (is_word(&ps, "target")) {
            next(&ps);
            if (out->ntargets == 16) {
                perr(&ps, "at most 16 targets");
                break;
            }
            tine_isa_target_ast *t = &out->targets[out->ntargets++];
            if (!isa_word(&ps, &t->name, "a target name")) break;
            if (!expect(&ps, ':', "after the target name")) break;
            int n = isa_words(&ps, t->features, 16, l, "the target's features");
            if (n < 0) break;
            t->nfeatures = n;
        } else if (is_word(&ps, "width")) {
            next(&ps);
            if (out->nwidths == 4) {
                perr(&ps, "at most 4 register widths");
                break;
            }
            if (!isa_word(&ps, &out->width_name[out->nwidths], "a register family name")) break;
            double bits;
            int bl = ps.line, bc = ps.col;
            if (!isa_number(&ps, &bits, "the register width in bits")) break;
            if (bits != 64 && bits != 128 && bits != 256 && bits != 512 && bits != 1024 && bits != 2048) {
                ps.line = bl;
                ps.col = bc;
                perr(&ps, "a register width is a power of two from 64 to 2048 bits");
                break;
            }
            out->width_bits[out->nwidths++] = (int)bits;
        } else if (is_word(&ps, "byte_shift")) {
            next(&ps);
            int bl = ps.line, bc = ps.col;
            if (!isa_number(&ps, &out->byte_shift_cost, "the cost per register of a shift of 8-bit lanes")) break;
            if (out->byte_shift_cost <= 0) {
                ps.line = bl;
                ps.col = bc;
                perr(&ps, "a cost is positive");
                break;
            }
        } else if (is_word(&ps, "insn")) {
            if (out->ninsns == cap) {
                cap = cap ? 2 * cap : 64;
                tine_insn_ast *m = tine_arena_alloc(arena, (size_t)cap * sizeof *m);
                if (out->ninsns) memcpy(m, out->insns, (size_t)out->ninsns * sizeof *m);
                out->insns = m;
            }
            if (!parse_insn(&ps, &out->insns[out->ninsns])) break;
            out->ninsns++;
        } else {
            char b[32], q[64], t[48];
            bool quote = ps.tok == T_NAME;
            if (quote) snprintf(q, sizeof q, "'%s'", tok_text(&ps, t, sizeof t));
            perr(&ps, "expected 'feature', 'target', 'width', 'byte_shift' or 'insn', found %s", quote ? q : tok_desc(ps.tok, b));
            break;
        }
    }
    return ps.failed ? -1 : 0;
}

/* ---- kernel files -----------------------------------------------------------------------
 *
 *   file      := decl* ('schedule' ('auto' | directive*))?     no schedule: auto
 *   decl      := 'input' NAME ':' TYPE '[' INT ']'                 a buffer of 1..4 dims
 *              | 'param' NAME ':' TYPE                             a scalar parameter
 *              | 'func' NAME '(' NAME (',' NAME)* ')' '=' expr     a function of coordinates
 *              | 'func' NAME '=' 'edge' '(' NAME ')'               repeat-edge of an input
 *              | 'func' NAME '=' 'constant' '(' NAME ',' expr ')'  constant fill outside it
 *              | 'output' NAME '(' NAME (',' NAME)* ')' ':' TYPE '=' expr
 *   directive := NAME argument*      NAME and the arguments' shape: a row of the
 *                                    directive table (pipeline/directives.h)
 *   (decls and directives may be preceded by `on NAME` / `on all` lines: kernel_on.c)
 */

/* What a kernel declaration found instead of what it expects: a name is quoted; a token
 * on a later line is reported as the end of the line, located just after the last token
 * (where the missing piece belongs, not at the start of the next declaration). */
static const char *kfound(parser *ps, char *buf, size_t n) {
    if (ps->tok == T_EOF || ps->line != ps->prev_line) {
        ps->line = ps->prev_line;
        ps->col = ps->prev_end_col;
        return "the end of the line";
    }
    if (ps->tok != T_NAME) {
        char b[32];
        snprintf(buf, n, "%s", tok_desc(ps->tok, b));
        return buf;
    }
    char t[40];
    snprintf(buf, n, "'%s'", tok_text(ps, t, sizeof t));
    return buf;
}

static bool kexpect(parser *ps, int tok, const char *what) {
    if (ps->tok == tok) {
        next(ps);
        return true;
    }
    char b1[32], b2[48];
    const char *f = kfound(ps, b2, sizeof b2);
    perr(ps, "expected %s %s, found %s", tok_desc(tok, b1), what, f);
    return false;
}

/* A type or definition left out at the end of a line: the next token starts a new
 * declaration (or there is none), which would otherwise be read as the missing piece. */
static bool kmissing(parser *ps) {
    return ps->tok == T_EOF || (ps->line != ps->prev_line &&
                                (is_word(ps, "input") || is_word(ps, "param") || is_word(ps, "func") ||
                                 is_word(ps, "output") || is_word(ps, "schedule")));
}

static tine_ast *kparse_expr(parser *ps, const char *what) {
    if (kmissing(ps)) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "expected %s, found %s", what, f);
        return NULL;
    }
    return parse_expr(ps, 0);
}

static tine_ast *kparse_type(parser *ps) {
    if (ps->tok != T_NAME || kmissing(ps)) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "expected an element type, found %s", f);
        return NULL;
    }
    return parse_type(ps);
}

static bool expect_name(parser *ps, const char **out, const char *what) {
    char b[48];
    if (ps->tok != T_NAME) {
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "expected %s, found %s", what, f);
        return false;
    }
    if (ps->tlen > TINE_KLIMIT_NAME) { /* a documented limit: generated C and messages quote names */
        perr(ps, "a name has at most %d characters; this one has %zu", TINE_KLIMIT_NAME, (size_t)ps->tlen);
        return false;
    }
    *out = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    next(ps);
    return true;
}

static bool expect_int(parser *ps, int lo, int hi, int *out, const char *what) {
    char b[48];
    if (ps->tok != T_INT) {
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "expected %s (a whole number), found %s", what, f);
        return false;
    }
    tine_ast num = {0};
    if (!parse_number(ps, &num)) return false;
    if (num.ival < lo || num.ival > hi) {
        perr(ps, "%s must be from %d to %d", what, lo, hi);
        return false;
    }
    *out = (int)num.ival;
    next(ps);
    return true;
}

static bool parse_coords(parser *ps, tine_kdecl *d) {
    char b[48];
    if (!kexpect(ps, '(', "before the coordinates")) return false;
    for (;;) {
        if (d->nargs == 4) {
            perr(ps, "a function has at most 4 coordinates");
            return false;
        }
        if (!expect_name(ps, &d->args[d->nargs], "a coordinate name")) return false;
        for (int i = 0; i < d->nargs; i++)
            if (!strcmp(d->args[i], d->args[d->nargs])) {
                perr(ps, "coordinate '%s' appears twice", d->args[i]);
                return false;
            }
        d->nargs++;
        if (ps->tok != ',') break;
        next(ps);
    }
    if (ps->tok != ')') {
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "expected ',' or ')' in the coordinates of '%s', found %s", d->name, f);
        return false;
    }
    next(ps);
    return true;
}

/* `on NAME`: what follows, up to the next `on` line or `schedule`, is for instruction set
 * NAME alone (kernel.c checks the name); `on all`: for every target again. */
static bool parse_on(parser *ps, tine_kernel_ast *k, const char **on) {
    next(ps);
    int line = ps->line, col = ps->col;
    const char *name;
    if (!expect_name(ps, &name, "an instruction set (as in 'on arm') or 'all'")) return false;
    if (!strcmp(name, "all")) {
        *on = NULL;
        return true;
    }
    int i = 0;
    while (i < k->non && strcmp(k->on[i].isa, name)) i++;
    if (i == k->non) {
        if (k->non == (int)(sizeof k->on / sizeof k->on[0])) {
            ps->line = line;
            ps->col = col;
            perr(ps, "a kernel names at most %d instruction sets with 'on'", k->non);
            return false;
        }
        k->on[k->non].isa = name;
        k->on[k->non].line = line;
        k->on[k->non++].col = col;
    }
    *on = k->on[i].isa;
    return true;
}

/* One declaration (input, param, func, boundary, output) into d, in the region of `on`
 * (NULL: every target's). */
static bool parse_decl(parser *ps, tine_kdecl *d, const char *on) {
    char b[48];
    d->src = ps->src;
    d->line = ps->line;
    d->col = ps->col;
    d->on = on;
    if (on && !is_word(ps, "func")) {
        perr(ps, "only functions can be defined for one instruction set ('on %s'); inputs, parameters and "
                 "the output are every target's (write 'on all' before them)", on);
        return false;
    }
    if (is_word(ps, "input") || is_word(ps, "param")) {
        d->kind = is_word(ps, "input") ? K_INPUT : K_PARAM;
        next(ps);
        if (!expect_name(ps, &d->name, "a name") || !kexpect(ps, ':', "after the name") || !(d->type = kparse_type(ps)))
            return false;
        return d->kind != K_INPUT || (kexpect(ps, '[', "and the number of dimensions, as in u8[2]") &&
                                      expect_int(ps, 1, 4, &d->dims, "the number of dimensions") &&
                                      kexpect(ps, ']', "after the number of dimensions"));
    }
    if (is_word(ps, "func") || is_word(ps, "output")) {
        d->kind = is_word(ps, "func") ? K_FUNC : K_OUTPUT;
        next(ps);
        if (!expect_name(ps, &d->name, "a function name")) return false;
        if (d->kind == K_FUNC && ps->tok == '=') { /* a boundary condition */
            next(ps);
            d->kind = K_BOUNDARY;
            bool edge = is_word(ps, "edge");
            if (!edge && !is_word(ps, "constant")) {
                const char *f = kfound(ps, b, sizeof b);
                perr(ps, "expected edge(input) or constant(input, value) after 'func %s =', found %s", d->name, f);
                return false;
            }
            next(ps);
            if (!kexpect(ps, '(', "after the boundary condition") || !expect_name(ps, &d->of, "the input it applies to"))
                return false;
            if (!edge && (!kexpect(ps, ',', "and the value outside the input") ||
                          !(d->fill = kparse_expr(ps, "the value outside the input"))))
                return false;
            return kexpect(ps, ')', "to close the boundary condition");
        }
        if (!parse_coords(ps, d)) return false;
        if (d->kind == K_OUTPUT && (!kexpect(ps, ':', "and the output's element type, as in out(x, y): u8 = ...") ||
                                    !(d->type = kparse_type(ps))))
            return false;
        return kexpect(ps, '=', "before the definition") && (d->body = kparse_expr(ps, "the definition")) != NULL;
    }
    perr(ps, "expected a declaration (input, param, func, output) or 'schedule', found %s%s%s",
         ps->tok == T_NAME ? "'" : "", ps->tok == T_NAME ? tok_text(ps, b, sizeof b) : tok_desc(ps->tok, b),
         ps->tok == T_NAME ? "'" : "");
    return false;
}

/* reorder's loops, f.a f.b ...: innermost first, two or more, all of one function. */
static bool parse_loops(parser *ps, tine_kdirective *s) {
    const char *dims[TINE_KLOOPS_MAX];
    int nd = 0;
    while (ps->tok == T_NAME) {
        const char *q = ps->p;
        while (*q == ' ' || *q == '\t') q++;
        if (nd && *q != '.') break; /* the next directive */
        const char *g;
        int gl = ps->line, gc = ps->col;
        if (!expect_name(ps, &g, "a function name")) return false;
        if (!s->func) s->func = g;
        else if (strcmp(g, s->func)) {
            ps->line = gl;
            ps->col = gc;
            perr(ps, "reorder: '%s' is not '%s'; a reorder names loops of one function", g, s->func);
            return false;
        }
        if (!kexpect(ps, '.', "between the function and its loop, as in out.y")) return false;
        if (nd == TINE_KLOOPS_MAX) {
            perr(ps, "reorder: a function has at most %d loops", TINE_KLOOPS_MAX);
            return false;
        }
        if (!expect_name(ps, &dims[nd++], "a loop")) return false;
    }
    if (nd < 2) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        perr(ps, "reorder: expected two or more loops, innermost first, as in reorder out.y out.x; found %s", f);
        return false;
    }
    s->dims = tine_arena_alloc(ps->arena, sizeof *s->dims * (size_t)nd);
    memcpy(s->dims, dims, sizeof *dims * (size_t)nd);
    s->ndims = nd;
    return true;
}

/* One argument of directive s, as its shape (directives.h) says it is written. */
static bool parse_darg(parser *ps, tine_kdirective *s, const tine_darg *a) {
    char b[48];
    switch (a->tag) {
    case TINE_DA_NAME: return expect_name(ps, tine_dir_slot_name(s, a->slot), a->what);
    case TINE_DA_DOT: return kexpect(ps, '.', a->what);
    case TINE_DA_INT: return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
    case TINE_DA_WIDTH: /* natural: 0, chosen from the element type */
        if (!is_word(ps, "natural")) return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
        next(ps);
        return true;
    case TINE_DA_ACC: /* optional: a reduction's accumulator lanes (kernel.c) */
        if (!is_word(ps, "acc")) return true;
        s->acc_line = ps->line;
        s->acc_col = ps->col;
        next(ps);
        return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
    case TINE_DA_MODE: {
        int m = a->lo;
        while (m <= a->hi && !is_word(ps, tine_dir_mode_name(m))) m++;
        if (m > a->hi) {
            const char *f = kfound(ps, b, sizeof b);
            perr(ps, "expected %s, found %s", a->what, f);
            return false;
        }
        *tine_dir_slot_int(s, a->slot) = m;
        next(ps);
        return true;
    }
    case TINE_DA_AGAIN: {
        const char *g = NULL;
        int gl = ps->line, gc = ps->col;
        if (!expect_name(ps, &g, a->what)) return false;
        if (strcmp(g, s->func)) {
            ps->line = gl;
            ps->col = gc;
            perr(ps, "%s: '%s' is not '%s'; both loops must be loops of one function", s->what, g, s->func);
            return false;
        }
        return true;
    }
    case TINE_DA_LOOPS: return parse_loops(ps, s);
    }
    return false;
}

/* One directive into s: its name, then its arguments by the shape of its row. */
static bool parse_directive(parser *ps, tine_kdirective *s, const char *on) {
    s->src = ps->src;
    s->line = ps->line;
    s->col = ps->col;
    s->on = on;
    const char *w;
    if (!expect_name(ps, &w, "a schedule directive")) return false;
    s->kind = tine_dir_lookup(w);
    if (s->kind == TINE_DIR_COUNT) {
        ps->line = s->line;
        ps->col = s->col;
        if (!strcmp(w, "input") || !strcmp(w, "param") || !strcmp(w, "func") || !strcmp(w, "output")) {
            perr(ps, "'%s' declares something, but declarations come before 'schedule'", w);
            return false;
        }
        tine_buf names = {0};
        for (int k = 0; k < TINE_DIR_COUNT; k++) tine_buf_printf(&names, "%s%s", k ? ", " : "", tine_dir_name((tine_dir_kind)k));
        perr(ps, "unknown schedule directive '%s' (%s)", w, names.p);
        free(names.p);
        return false;
    }
    s->what = tine_dir_name(s->kind);
    const tine_dir_info *info = tine_dir_info_of(s->kind);
    for (int i = 0; i < TINE_DARGS_MAX && info->args[i].what; i++)
        if (!parse_darg(ps, s, &info->args[i])) return false;
    return true;
}

/* The schedule section, after the word `schedule`: `auto`, or directives (with `on`
 * regions), appended to *sched. */
static void parse_schedule(parser *ps, tine_kernel_ast *k, tine_kdirective **sched, size_t *cap) {
    const char *on = NULL;
    next(ps);
    if (is_word(ps, "auto")) { /* the automatic scheduler chooses every directive */
        k->auto_sched = true;
        k->auto_line = ps->line;
        k->auto_col = ps->col;
        next(ps);
        if (ps->tok != T_EOF)
            perr(ps, "'schedule auto' chooses every directive; write either 'auto' or directives "
                     "(tine compile FILE --emit schedule prints the ones auto chooses, to edit)");
    }
    while (!ps->failed && ps->tok != T_EOF) {
        if (is_word(ps, "on")) {
            if (!parse_on(ps, k, &on)) break;
            continue;
        }
        TINE_GROW(*sched, (size_t)k->nsched + 1, *cap);
        tine_kdirective *s = &(*sched)[k->nsched];
        memset(s, 0, sizeof *s);
        if (!parse_directive(ps, s, on)) break;
        k->nsched++;
    }
}

/* A copy in the arena of the n elements of a growable array, which is freed. */
static void *to_arena(tine_arena *arena, void *v, size_t n, size_t size) {
    void *a = n ? tine_arena_alloc(arena, n * size) : NULL;
    if (n) memcpy(a, v, n * size);
    free(v);
    return a;
}

int tine_parse_kernel(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, tine_kernel_ast *k) {
    tine_src *src = tine_arena_alloc(arena, sizeof *src);
    src->file = tine_arena_strdup(arena, file ? file : "<kernel>", strlen(file ? file : "<kernel>"));
    src->text = tine_arena_strdup(arena, text, strlen(text));
    parser ps = {.ctx = ctx, .arena = arena, .src = src, .p = src->text, .line = 1, .line_start = src->text};
    memset(k, 0, sizeof *k);
    k->src = src;
    tine_kdecl *decls = NULL;
    tine_kdirective *sched = NULL;
    size_t cap = 0, scap = 0;
    const char *on = NULL; /* the current `on NAME` region's instruction set */
    next(&ps);
    while (!ps.failed && ps.tok != T_EOF && !is_word(&ps, "schedule")) {
        if (is_word(&ps, "on")) {
            if (!parse_on(&ps, k, &on)) break;
            continue;
        }
        TINE_GROW(decls, (size_t)k->ndecls + 1, cap);
        memset(&decls[k->ndecls], 0, sizeof *decls);
        if (!parse_decl(&ps, &decls[k->ndecls], on)) break;
        k->ndecls++;
    }
    if (!ps.failed && !is_word(&ps, "schedule")) k->auto_sched = true; /* no schedule: the automatic one */
    if (!ps.failed && is_word(&ps, "schedule")) parse_schedule(&ps, k, &sched, &scap);
    k->decls = to_arena(arena, decls, (size_t)k->ndecls, sizeof *decls);
    k->sched = to_arena(arena, sched, (size_t)k->nsched, sizeof *sched);
    return ps.failed ? -1 : 0;
}
