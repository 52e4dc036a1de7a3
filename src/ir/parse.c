/* parse.c — text to syntax tree: the lexer, the expression grammar and rule files.
 *
 * The parser knows only shapes: numbers, names, calls, infix and prefix operators, loads,
 * lane lists and type expressions. It never types anything; elab.c turns the tree into IR
 * under an environment (default lanes, placeholder bindings, type variables), so the
 * same parser reads user expressions, FPIR definitions and, later, rule files.
 * Binary operators and their precedences come from the op table in tine_ops.h.
 * Target description files (parse_isa.c) and kernel files (parse_kernel.c) are read with
 * the same lexer and expression parser, shared through parse.h.
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
#include "parse.h"

#include <errno.h>
#include <math.h>

/* ---- diagnostics (located messages: tine_diag, diag.c) ----------------------------------- */

void tine_perr(parser *ps, const char *fmt, ...) {
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
    tine_perr(ps, "expression is nested more than %d deep", TINE_MAX_DEPTH);
    tine_error_set_kind(ps->ctx, TINE_ERROR_LIMIT);
}

/* ---- lexer -------------------------------------------------------------------------- */


const char *tine_tok_desc(int tok, char buf[32]) {
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

void tine_lex_next(parser *ps) {
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
            tine_perr(ps, "unexpected '%c' after a number", *q);
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
    if ((unsigned char)c < 32 || (unsigned char)c >= 127) tine_perr(ps, "unexpected character (byte 0x%02x)", (unsigned char)c);
    else tine_perr(ps, "unexpected character '%c'", c);
    ps->tok = T_EOF;
    ps->tlen = 0;
}

const char *tine_tok_text(parser *ps, char *buf, size_t n) {
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

bool tine_expect(parser *ps, int tok, const char *what) {
    if (ps->tok == tok) {
        tine_lex_next(ps);
        return true;
    }
    char b1[32], b2[32];
    tine_perr(ps, "expected %s %s, found %s", tine_tok_desc(tok, b1), what, tine_tok_desc(ps->tok, b2));
    return false;
}


tine_ast *tine_parse_type(parser *ps) {
    if (ps->tok != T_NAME) {
        char b[32];
        tine_perr(ps, "expected a type, found %s", tine_tok_desc(ps->tok, b));
        return NULL;
    }
    tine_ast *t = node(ps, A_TYPE);
    t->name = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    tine_lex_next(ps);
    if (ps->tok == '(') {
        tine_lex_next(ps);
        for (;;) {
            tine_ast *a = tine_parse_type(ps);
            if (!a) return NULL;
            add_arg(ps, t, a);
            if (ps->tok != ',') break;
            tine_lex_next(ps);
        }
        if (!tine_expect(ps, ')', "to close the type")) return NULL;
    }
    return t;
}

bool tine_parse_number(parser *ps, tine_ast *a) {
    char buf[128];
    if (ps->tlen >= sizeof buf) {
        tine_perr(ps, "number is too long");
        return false;
    }
    tine_tok_text(ps, buf, sizeof buf);
    if (ps->tok == T_FLOAT) {
        a->kind = A_FLOAT;
        errno = 0;
        a->fval = strtod(buf, NULL);
        /* past the largest double strtod gives infinity: refused, as C compilers do (the
           name inf is infinity); below the smallest it rounds to a denormal or 0, which is
           the literal's nearest double and is accepted (docs/SEMANTICS.md) */
        if (errno == ERANGE && isinf(a->fval)) {
            tine_perr(ps, "number is too large for a float (at most about 1.8e308; infinity is written inf)");
            return false;
        }
        return true;
    }
    a->kind = A_INT;
    tine_u128 v = 0;
    bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    const char *d = hex ? buf + 2 : buf;
    if (!*d) {
        tine_perr(ps, "hexadecimal number has no digits");
        return false;
    }
    tine_u128 limit = ((tine_u128)1 << 127) - 1; /* literals are exact up to 2^127 - 1 */
    tine_u128 base = hex ? 16 : 10;
    for (; *d; d++) {
        tine_u128 digit = (tine_u128)(is_digit(*d) ? *d - '0' : (*d | 32) - 'a' + 10);
        if (v > (limit - digit) / base) { /* checked before v * base could wrap */
            tine_perr(ps, "number is too large");
            return false;
        }
        v = v * base + digit;
    }
    a->ival = (tine_i128)v;
    return true;
}

static tine_ast *parse_unary(parser *ps);

/* let NAME = expr in expr: the body extends as far as an expression does. */
static tine_ast *parse_let(parser *ps, tine_ast *a) {
    char b[32];
    a->kind = A_LET;
    a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen); /* the bound name */
    tine_lex_next(ps);
    if (!tine_expect(ps, '=', "after the name in 'let'")) return NULL;
    tine_ast *v = tine_parse_subexpr(ps, 0);
    if (!v) return NULL;
    if (!tine_is_word(ps, "in")) {
        tine_perr(ps, "expected 'in' after the value of 'let %s = ...', found %s", a->field, tine_tok_desc(ps->tok, b));
        return NULL;
    }
    tine_lex_next(ps);
    tine_ast *body = tine_parse_subexpr(ps, 0);
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
    tine_lex_next(ps); /* ( */
    a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    tine_lex_next(ps); /* the variable */
    tine_lex_next(ps); /* in */
    tine_ast *lo = tine_parse_subexpr(ps, 0);
    if (!lo) return NULL;
    if (ps->tok != T_DOTDOT) {
        tine_perr(ps, "expected '..' in the range of %s(%s in a..b), found %s", a->name, a->field, tine_tok_desc(ps->tok, b));
        return NULL;
    }
    tine_lex_next(ps);
    tine_ast *hi = tine_parse_subexpr(ps, 0);
    if (!hi) return NULL;
    if (!tine_expect(ps, ')', "to close the range")) return NULL;
    tine_ast *body = parse_unary(ps);
    if (!body) return NULL;
    add_arg(ps, a, lo);
    add_arg(ps, a, hi);
    add_arg(ps, a, body);
    return a;
}

/* NAME '(' args ')', the name read into a; then maybe '.' NAME, a field of a type written
 * as a call (widen(T).max). */
static tine_ast *parse_call(parser *ps, tine_ast *a) {
    char b[32];
    a->kind = A_CALL;
    a->call_op = tine_op_lookup(a->name);
    int line = ps->line, col = ps->col;
    tine_lex_next(ps);
    if (ps->tok != ')') {
        for (;;) {
            tine_ast *arg = tine_parse_subexpr(ps, 0);
            if (!arg) return NULL;
            add_arg(ps, a, arg);
            if (ps->tok != ',') break;
            tine_lex_next(ps);
        }
    }
    if (ps->tok != ')') {
        tine_perr(ps, "expected ',' or ')' in the call to '%s' at %d:%d, found %s", a->name, line, col,
             tine_tok_desc(ps->tok, b));
        return NULL;
    }
    tine_lex_next(ps);
    if (ps->tok == '.') { /* widen(T).max: a field of a type written as a call */
        tine_ast *f = node(ps, A_FIELD);
        tine_lex_next(ps);
        if (ps->tok != T_NAME) {
            tine_perr(ps, "expected 'min' or 'max' after '.', found %s", tine_tok_desc(ps->tok, b));
            return NULL;
        }
        f->line = a->line;
        f->col = a->col;
        f->targ = a;
        f->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
        tine_lex_next(ps);
        return f;
    }
    return a;
}

/* NAME '[' ... ']', the name read into a: a per-lane constant when NAME is a type
 * (u8[1, 2]), else a load (in_u8[i]). */
static tine_ast *parse_subscript(parser *ps, tine_ast *a) {
    tine_type_t t;
    bool lanes = tine_parse_type_name(a->name, strlen(a->name), &t);
    a->kind = lanes ? A_LANES : A_LOAD;
    tine_lex_next(ps);
    for (;;) {
        tine_ast *arg = tine_parse_subexpr(ps, 0);
        if (!arg) return NULL;
        add_arg(ps, a, arg);
        if (ps->tok != ',' ) break;
        if (!lanes) {
            tine_perr(ps, "a load takes one index; expected ']'");
            return NULL;
        }
        tine_lex_next(ps);
    }
    if (!tine_expect(ps, ']', lanes ? "to close the lane list" : "to close the index")) return NULL;
    return a;
}

static tine_ast *parse_primary(parser *ps) {
    char b[32];
    if (ps->tok == T_INT || ps->tok == T_FLOAT) {
        tine_ast *a = node(ps, A_INT);
        if (!tine_parse_number(ps, a)) return NULL;
        tine_lex_next(ps);
        return a;
    }
    if (ps->tok == '(') {
        int line = ps->line, col = ps->col;
        tine_lex_next(ps);
        tine_ast *e = tine_parse_subexpr(ps, 0);
        if (!e) return NULL;
        if (ps->tok != ')') {
            tine_perr(ps, "expected ')' to close the '(' at %d:%d, found %s", line, col, tine_tok_desc(ps->tok, b));
            return NULL;
        }
        tine_lex_next(ps);
        return e;
    }
    if (ps->tok != T_NAME) {
        tine_perr(ps, "expected an expression, found %s", tine_tok_desc(ps->tok, b));
        return NULL;
    }
    tine_ast *a = node(ps, A_NAME);
    a->name = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    tine_lex_next(ps);
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
        tine_lex_next(ps);
        a->targ = tine_parse_type(ps);
        if (!a->targ) return NULL;
        if (!tine_expect(ps, '>', "after the type")) return NULL;
        if (ps->tok != '(') {
            tine_perr(ps, "expected '(' after %s<...>, found %s", a->name, tine_tok_desc(ps->tok, b));
            return NULL;
        }
    }
    if (ps->tok == '(') return parse_call(ps, a);
    if (a->targ) return a;
    if (ps->rules && ps->tok == ':') { /* a typed wildcard: x:T, y:widen(T) */
        tine_lex_next(ps);
        a->targ = tine_parse_type(ps);
        return a->targ ? a : NULL;
    }
    if (ps->tok == '[') return parse_subscript(ps, a);
    if (ps->tok == '.') {
        tine_lex_next(ps);
        if (ps->tok != T_NAME) {
            tine_perr(ps, "expected 'min' or 'max' after '.', found %s", tine_tok_desc(ps->tok, b));
            return NULL;
        }
        a->kind = A_FIELD;
        a->field = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
        tine_lex_next(ps);
    }
    return a;
}

static tine_ast *parse_unary(parser *ps) {
    if (ps->tok == '-' || ps->tok == '~' || ps->tok == '!') {
        tine_ast *a = node(ps, A_UNARY);
        a->op = ps->tok == '-' ? TINE_OP_NEG : TINE_OP_NOT;
        tine_lex_next(ps);
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

tine_ast *tine_parse_subexpr(parser *ps, int min_prec) {
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
        tine_lex_next(ps);
        tine_ast *rhs = tine_parse_subexpr(ps, prec);
        if (!rhs) return NULL;
        add_arg(ps, a, lhs);
        add_arg(ps, a, rhs);
        lhs = a;
    }
    ps->depth--;
    return ps->failed ? NULL : lhs;
}

tine_ast *tine_parse_ast(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file) {
    parser ps = tine_parser_open(ctx, arena, text, file, "<input>", false);
    tine_lex_next(&ps);
    if (ps.failed) return NULL;
    if (ps.tok == T_EOF) {
        tine_perr(&ps, "expected an expression, found end of input");
        return NULL;
    }
    tine_ast *e = tine_parse_subexpr(&ps, 0);
    if (!e) return NULL;
    if (ps.tok != T_EOF) {
        /* a name or number is quoted: "unexpected 'b_u8'", not "unexpected a name" */
        char b[64], t[48];
        bool quote = ps.tok == T_NAME || ps.tok == T_INT || ps.tok == T_FLOAT;
        if (quote) snprintf(b, sizeof b, "'%s'", tine_tok_text(&ps, t, sizeof t));
        tine_perr(&ps, "unexpected %s after the expression%s", quote ? b : tine_tok_desc(ps.tok, b),
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
            TINE_PUSH(stack, sp, cap, p->args[1]);
            p = p->args[0];
            continue;
        }
        push_ast(ps, &r->conj, &r->nconj, &r->capconj, p);
        if (!sp) break;
        p = stack[--sp];
    }
    free(stack);
}

bool tine_is_word(parser *ps, const char *w) {
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

parser tine_parser_open(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, const char *unnamed,
                        bool rules) {
    tine_src *src = tine_arena_alloc(arena, sizeof *src);
    src->file = tine_arena_strdup(arena, file ? file : unnamed, strlen(file ? file : unnamed));
    src->text = tine_arena_strdup(arena, text, strlen(text));
    if (rules) index_lines(arena, src);
    return (parser){.ctx = ctx, .arena = arena, .src = src, .p = src->text, .line = 1, .line_start = src->text,
                    .rules = rules};
}

int tine_parse_rules(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file,
                     tine_rule_ast **out, int *count) {
    parser ps = tine_parser_open(ctx, arena, text, file, "<rules>", true);
    int n = 0, cap = 0;
    tine_rule_ast *rules = NULL;
    char b[64];
    tine_lex_next(&ps);
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
            tine_perr(&ps, "expected a rule name at the start of an entry (name: lhs -> rhs), found %s", tine_tok_desc(ps.tok, b));
            break;
        }
        r->src = ps.src;
        r->line = ps.line;
        r->col = ps.col;
        r->name = tine_arena_strdup(arena, ps.tstart, ps.tlen);
        tine_lex_next(&ps);
        if (!tine_expect(&ps, ':', "after the rule name")) break;
        r->lhs = tine_parse_subexpr(&ps, 0);
        if (!r->lhs) break;
        if (ps.tok != T_ARROW) {
            tine_perr(&ps, "expected '->' between the two sides of rule '%s', found %s", r->name, tine_tok_desc(ps.tok, b));
            break;
        }
        tine_lex_next(&ps);
        r->rhs = tine_parse_subexpr(&ps, 0);
        if (!r->rhs) break;
        if (tine_is_word(&ps, "if")) {
            tine_lex_next(&ps);
            r->pred = tine_parse_subexpr(&ps, 0);
            if (!r->pred) break;
            split_conjuncts(&ps, r, r->pred);
        }
        if (tine_is_word(&ps, "priority")) {
            tine_lex_next(&ps);
            bool neg = ps.tok == '-';
            if (neg) tine_lex_next(&ps);
            if (ps.tok != T_INT) { /* a name or number is quoted: "found '1.5'", not "found a number" */
                char q[64], t[48];
                bool quote = ps.tok == T_NAME || ps.tok == T_FLOAT;
                if (quote) snprintf(q, sizeof q, "'%s'", tine_tok_text(&ps, t, sizeof t));
                tine_perr(&ps, "expected a whole number after 'priority', found %s", quote ? q : tine_tok_desc(ps.tok, b));
                break;
            }
            tine_ast num = {0};
            if (!tine_parse_number(&ps, &num)) break;
            if (num.ival > 1000000) {
                tine_perr(&ps, "priority is too large");
                break;
            }
            r->priority = neg ? -(int)num.ival : (int)num.ival;
            tine_lex_next(&ps);
        }
        r->end_line = ps.prev_line;
        r->end_col = ps.prev_end_col;
        if (ps.comment && ps.comment_line == r->end_line && ps.comment_len > 0)
            r->why = tine_arena_strdup(arena, ps.comment, ps.comment_len);
        /* the entry is over: what follows starts the next one */
        if (ps.tok != T_EOF && !(ps.tok == T_NAME && ps.p[strspn(ps.p, " \t")] == ':')) {
            char t[48];
            bool quote = ps.tok == T_NAME || ps.tok == T_INT || ps.tok == T_FLOAT;
            if (quote) snprintf(b, sizeof b, "'%s'", tine_tok_text(&ps, t, sizeof t));
            tine_perr(&ps, "unexpected %s after rule '%s' (a rule ends after its right side, 'if ...' and 'priority N')",
                      quote ? b : tine_tok_desc(ps.tok, b), r->name);
            break;
        }
        n++;
    }
    if (ps.failed) return -1;
    *out = rules;
    *count = n;
    return 0;
}
